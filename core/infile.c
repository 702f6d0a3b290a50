/* core/infile.c - user-named input files (see infile.h). */
#include "core/infile.h"

#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ax_infile_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISFIFO(mode))
		return "a FIFO (named pipe)";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a regular file";
}

const char *ax_infile_size_text(uint64_t bytes, char *buf, size_t n)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
	if (bytes < 1024) {
		snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
		return buf;
	}
	double v = (double)bytes / 1024;
	size_t u = 0;
	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0]))
		v /= 1024, u++;
	snprintf(buf, n, "%.1f %s", v, unit[u]);
	return buf;
}

/* A limit as people write it: "4 MiB" when it is whole MiB. */
static const char *limit_text(size_t max, char *buf, size_t n)
{
	if (max >= (1u << 20) && max % (1u << 20) == 0) {
		snprintf(buf, n, "%zu MiB", max >> 20);
		return buf;
	}
	return ax_infile_size_text(max, buf, n);
}

/* An error message that leaves errno as the failed call set it, so a
 * caller may still tell ENOENT from EACCES. */
static int fail_keep_errno(char *err, size_t errlen, int rc, const char *fmt,
			   const char *path, int e)
{
	ax_errf(err, errlen, rc, fmt, path, strerror(e));
	errno = e;
	return rc;
}

int ax_infile_open(const char *path, const char *what, struct stat *st,
		   char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fail_keep_errno(err, errlen, AX_EIO,
				       "%s: cannot open: %s", path, errno);
	if (fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		return fail_keep_errno(err, errlen, AX_EIO,
				       "%s: cannot read: %s", path, e);
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return ax_errf(err, errlen, AX_ECONFIG,
			       "%s %s is %s, not a regular file; give the path "
			       "of a regular file (a FIFO or a device may "
			       "never end, or block)",
			       what, path, ax_infile_kind(st->st_mode));
	}
	/* Reads of a regular file never block; clear the flag all the same
	 * for whoever the descriptor is handed to. */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* size bytes of fd into buf; a file that ends early shrank under us. */
static int read_exactly(int fd, char *buf, size_t size, const char *path,
			char *err, size_t errlen)
{
	size_t n = 0;
	while (n < size) {
		ssize_t got = read(fd, buf + n, size - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return fail_keep_errno(err, errlen, AX_EIO,
					       "%s: cannot read: %s", path,
					       errno);
		if (got == 0) {
			char was[32], now[32];
			return ax_errf(
			    err, errlen, AX_EIO,
			    "%s: shrank from %s to %s while being "
			    "read; read it when nothing writes it",
			    path, ax_infile_size_text(size, was, sizeof(was)),
			    ax_infile_size_text(n, now, sizeof(now)));
		}
		n += (size_t)got;
	}
	return 0;
}

int ax_infile_read(const char *path, const char *what, size_t max, char **text,
		   size_t *len, char *err, size_t errlen)
{
	*text = NULL;
	*len = 0;
	struct stat st;
	int fd = ax_infile_open(path, what, &st, err, errlen);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > max) {
		char size[32], lim[32];
		close(fd);
		return ax_errf(err, errlen, AX_ECONFIG,
			       "%s %s is %s, larger than the %s a %s may be",
			       what, path,
			       ax_infile_size_text((uint64_t)st.st_size, size,
						   sizeof(size)),
			       limit_text(max, lim, sizeof(lim)), what);
	}
	size_t size = (size_t)st.st_size;
	char *buf = malloc(size + 1);
	if (!buf) {
		close(fd);
		return AX_ENOMEM;
	}
	int rc = read_exactly(fd, buf, size, path, err, errlen);
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[size] = '\0';
	*text = buf;
	*len = size;
	return 0;
}
