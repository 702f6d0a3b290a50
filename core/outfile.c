/* core/outfile.c - all-or-nothing output files (see outfile.h). */
#include "core/outfile.h"

#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The permissions fopen("w") would give a new file: 0666 less the umask
 * (mkstemp makes 0600).  umask can only be read by setting it. */
static int default_mode(void)
{
	mode_t mask = umask(022);
	umask(mask);
	return 0666 & ~(int)mask;
}

/* The directory part of path ("." when it has none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* "DIR/.NAME.XXXXXX": hidden, beside the target (same file system, so
 * rename is atomic), unguessable once mkstemp has filled it in. */
static char *tmp_template(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	size_t len = strlen(path) + 16;
	char *t = malloc(len);
	if (t)
		snprintf(t, len, "%.*s.%s.XXXXXX", dir_len, path, base);
	return t;
}

/* Paths whose links lead to a process's descriptors (/dev/stdout, whose
 * target may be a regular file opened with >>): written in place, as
 * fopen would, never renamed over. */
static bool is_special_path(const char *path)
{
	return strncmp(path, "/dev/", 5) == 0 ||
	       strncmp(path, "/proc/", 6) == 0;
}

/*
 * What is at o->path: 1 write in place (not a regular file: a device,
 * FIFO or socket, possibly behind a link, or anything under /dev/ or
 * /proc/), 0 write beside o->target and rename over it (a regular file,
 * nothing, or a link: then o->target is the file the link leads to, as
 * fopen would have written it; a dangling link is itself replaced), or
 * AX_EIO (a directory, or the path cannot be examined).
 */
static int classify(struct ax_outfile *o, char *err, size_t errlen)
{
	struct stat st;
	o->mode = default_mode();
	if (lstat(o->path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		return ax_errf(err, errlen, AX_EIO, "%s: %s", o->path,
			       strerror(errno));
	}
	if (S_ISLNK(st.st_mode) && stat(o->path, &st) != 0)
		return 0; /* dangling: the link is replaced */
	if (S_ISDIR(st.st_mode))
		return ax_errf(err, errlen, AX_EIO,
			       "%s: %s; name a file, not a directory", o->path,
			       strerror(EISDIR));
	if (!S_ISREG(st.st_mode) || is_special_path(o->path))
		return 1;
	o->mode = (int)(st.st_mode & 0777);
	char *real = realpath(o->path, NULL);
	if (real) {
		free(o->target);
		o->target = real;
	}
	return 0;
}

static const volatile int *stop_flag;

void ax_outfile_set_stop(const volatile int *stop) { stop_flag = stop; }

struct stream {
	int fd;
	int *write_errno;
	const volatile int *stop; /* NULL: never stops */
};

/* Whether fd takes a write within a second: after a stop, a write to a
 * reader that never reads (a pipe whose reader stalled) must not block
 * the process for ever. */
static bool writable_soon(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	int r;
	while ((r = poll(&p, 1, 1000)) < 0 && errno == EINTR)
		;
	return r != 0;
}

/* Write it all (stdio treats a short count as an error), keeping the
 * first errno. */
static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
	struct stream *s = cookie;
	size_t done = 0;
	while (done < n) {
		if (s->stop && *s->stop) {
			errno = EINTR;
			if (!*s->write_errno)
				*s->write_errno = EINTR;
			return -1;
		}
		if (!s->stop && stop_flag && *stop_flag &&
		    !writable_soon(s->fd)) {
			/* A stream that goes on after a stop (standard
			 * output) waits for a stalled reader 1 s at most. */
			errno = EINTR;
			if (!*s->write_errno)
				*s->write_errno = EINTR;
			return done ? (ssize_t)done : -1;
		}
		ssize_t w = write(s->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!*s->write_errno)
				*s->write_errno = w < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int stream_close(void *cookie)
{
	free(cookie);
	return 0;
}

static FILE *stream_open(int fd, int *write_errno, const volatile int *stop)
{
	struct stream *s = malloc(sizeof(*s));
	if (!s)
		return NULL;
	*s = (struct stream){fd, write_errno, stop};
	cookie_io_functions_t io = {.write = stream_write,
				    .close = stream_close};
	FILE *f = fopencookie(s, "w", io);
	if (!f) {
		free(s);
		return NULL;
	}
	setvbuf(f, NULL, isatty(fd) ? _IOLBF : _IOFBF, BUFSIZ);
	return f;
}

FILE *ax_outfile_stream(int fd, int *write_errno)
{
	return stream_open(fd, write_errno, NULL);
}

/* Wrap the open fd o->fd; closes it on failure. */
static int wrap_fd(struct ax_outfile *o, char *err, size_t errlen)
{
	o->f = stream_open(o->fd, &o->write_errno, stop_flag);
	if (o->f)
		return 0;
	ax_outfile_abort(o);
	return ax_errf(err, errlen, AX_EIO, "cannot write %s: %s", o->path,
		       strerror(ENOMEM));
}

static bool is_fifo(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

/*
 * Open a target written in place: 0 with *fd, or an errno (EINTR when the
 * stop flag ended the wait).  open(2) of a FIFO that has no reader blocks
 * until one comes, and a signal that lands just before it would be
 * missed; so the open does not block (ENXIO while no reader) and is
 * retried every 50 ms, looking at the stop flag between tries.
 */
static int open_target(const char *path, int *fd)
{
	const struct timespec pause = {0, 50000000L};
	for (;;) {
		*fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK);
		if (*fd >= 0) {
			int fl = fcntl(*fd, F_GETFL);
			if (fl >= 0)
				fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK);
			return 0;
		}
		int e = errno;
		if (stop_flag && *stop_flag)
			return EINTR;
		if (e != EINTR && !(e == ENXIO && is_fifo(path)))
			return e;
		nanosleep(&pause, NULL);
	}
}

static int open_in_place(struct ax_outfile *o, char *err, size_t errlen)
{
	int e = open_target(o->path, &o->fd);
	if (e) {
		ax_outfile_abort(o);
		if (e == EINTR)
			return ax_errf(err, errlen, AX_EINTR,
				       "interrupted while waiting to write "
				       "%s%s; nothing was written",
				       o->path,
				       is_fifo(o->path)
					   ? " (a FIFO no process reads)"
					   : "");
		return ax_errf(err, errlen, AX_EIO, "cannot write %s: %s",
			       o->path, strerror(e));
	}
	return wrap_fd(o, err, errlen);
}

static int open_beside(struct ax_outfile *o, char *err, size_t errlen)
{
	o->tmp = tmp_template(o->target);
	if (!o->tmp)
		return ax_errf(err, errlen, AX_EIO, "%s: %s", o->path,
			       strerror(ENOMEM));
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		int e = errno;
		char *dir = dir_of(o->target);
		ax_errf(err, errlen, AX_EIO,
			"cannot create a file in %s for %s: %s; check the "
			"directory exists and is writable",
			dir ? dir : o->path, o->path, strerror(e));
		free(dir);
		free(o->tmp); /* never created: nothing to unlink */
		o->tmp = NULL;
		ax_outfile_abort(o);
		return AX_EIO;
	}
	if (fchmod(o->fd, (mode_t)o->mode) != 0) {
		int e = errno;
		ax_outfile_abort(o);
		return ax_errf(err, errlen, AX_EIO, "cannot write %s: %s",
			       o->path, strerror(e));
	}
	return wrap_fd(o, err, errlen);
}

int ax_outfile_open(struct ax_outfile *o, const char *path, char *err,
		    size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!path || strcmp(path, "-") == 0) {
		o->path = "standard output";
		o->f = stdout;
		o->is_stdout = true;
		return 0;
	}
	o->path = path;
	o->target = strdup(path);
	int kind = o->target ? classify(o, err, errlen) : AX_EIO;
	if (kind < 0) {
		ax_outfile_abort(o);
		return kind;
	}
	return kind == 1 ? open_in_place(o, err, errlen)
			 : open_beside(o, err, errlen);
}

int ax_outfile_sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	int rc = 0;
	free(dir);
	if (fd < 0)
		return 0;
	if (fsync(fd) != 0 && errno != EINVAL)
		rc = errno;
	close(fd);
	return rc;
}

/* Flush, check, fsync (regular files) and close; 0 or the errno of the
 * first failure. */
static int close_checked(struct ax_outfile *o)
{
	int e = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = o->write_errno ? o->write_errno : EIO;
	if (!e && o->tmp && fsync(o->fd) != 0)
		e = errno;
	fclose(o->f); /* the stream only, the fd is ours */
	o->f = NULL;
	if (close(o->fd) != 0 && !e)
		e = errno;
	o->fd = -1;
	return e;
}

int ax_outfile_commit(struct ax_outfile *o, char *err, size_t errlen)
{
	if (o->is_stdout) {
		/* Standard output's errors (a full disk, a closed pipe) are
		 * judged once for every command, in cli/main.c. */
		fflush(stdout);
		o->f = NULL;
		return 0;
	}
	int e = close_checked(o);
	if (!e && o->tmp && rename(o->tmp, o->target) != 0)
		e = errno;
	if (e == EINTR) {
		bool kept = o->tmp != NULL;
		ax_outfile_abort(o);
		return ax_errf(err, errlen, AX_EINTR,
			       "writing %s was interrupted; %s", o->path,
			       kept ? "the file is left as it was"
				    : "what was written is incomplete");
	}
	if (e) {
		ax_outfile_abort(o);
		return ax_errf(err, errlen, AX_EIO, "writing %s: %s", o->path,
			       strerror(e));
	}
	if (o->tmp)
		e = ax_outfile_sync_dir(o->target);
	free(o->tmp);
	o->tmp = NULL;
	free(o->target);
	o->target = NULL;
	if (e)
		return ax_errf(err, errlen, AX_EIO,
			       "%s was written but its directory could not "
			       "be synced: %s",
			       o->path, strerror(e));
	return 0;
}

void ax_outfile_abort(struct ax_outfile *o)
{
	if (o->f && !o->is_stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->fd >= 0 && !o->is_stdout)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	free(o->target);
	o->target = NULL;
}
