/* app/merge_out.c - a new `db merge` output built under a temporary name
 * and renamed into place once it is whole (app/merge_out.h). */
#include "app/merge_out.h"

#include "core/outfile.h"
#include "core/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MERGING ".merging-"

/* The files SQLite keeps beside a database. */
static const char *const sidecars[] = {"", "-wal", "-shm", "-journal"};
#define N_SIDECARS (sizeof(sidecars) / sizeof(sidecars[0]))

/* out's directory ("." for a bare name) and base name, split into the
 * caller's buffers; false when they do not fit. */
static bool split_path(const char *out, char *dir, size_t dlen,
		       const char **base)
{
	const char *slash = strrchr(out, '/');
	*base = slash ? slash + 1 : out;
	int n = slash ? snprintf(dir, dlen, "%.*s", (int)(slash - out + 1), out)
		      : snprintf(dir, dlen, "./");
	return n > 0 && (size_t)n < dlen && **base;
}

/* Is name ".BASE.merging-PID[SIDECAR]" of a process that has gone?  Its
 * pid in *pid.  A live process's (another merge still running), or one
 * we may not signal, is left alone. */
static bool dead_leftover(const char *name, const char *base, long *pid)
{
	size_t bl = strlen(base);
	if (name[0] != '.' || strncmp(name + 1, base, bl) ||
	    strncmp(name + 1 + bl, MERGING, strlen(MERGING)))
		return false;
	char *end;
	const char *digits = name + 1 + bl + strlen(MERGING);
	errno = 0;
	*pid = strtol(digits, &end, 10);
	if (end == digits || errno || *pid <= 0 || *pid > INT_MAX)
		return false;
	bool known = false;
	for (size_t i = 0; i < N_SIDECARS && !known; i++)
		known = !strcmp(end, sidecars[i]);
	if (!known || *pid == (long)getpid())
		return false;
	return kill((pid_t)*pid, 0) != 0 && errno == ESRCH;
}

/* Remove the leftovers of killed merges into DIR/BASE, saying so. */
static void clean_leftovers(const struct ax_app *app, const char *dir,
			    const char *base)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long pid;
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		if (!dead_leftover(e->d_name, base, &pid) ||
		    snprintf(path, sizeof(path), "%s%s", dir, e->d_name) >=
			(int)sizeof(path))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 && app->verbosity >= 0)
			fprintf(stderr,
				"axbench: db merge: removed %s, left by a "
				"merge that did not finish (process %ld has "
				"gone)\n",
				ax_term(path), pid);
	}
	if (d)
		closedir(d);
}

int ax_merge_out_begin(const struct ax_app *app, const char *out,
		       struct ax_merge_out *m)
{
	char dir[PATH_MAX];
	const char *base;
	*m = (struct ax_merge_out){.out = out};
	m->fresh = access(out, F_OK) != 0 && errno == ENOENT;
	if (!m->fresh) {
		m->work = strdup(out);
		return m->work ? 0
			       : ax_app_error(app, AX_EXIT_FAIL, "out of memory");
	}
	if (!split_path(out, dir, sizeof(dir), &base))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "db merge: %s: not a file name; name the "
				    "output database file",
				    ax_term(out));
	clean_leftovers(app, dir, base);
	if (asprintf(&m->work, "%s.%s" MERGING "%ld", dir, base,
		     (long)getpid()) < 0) {
		m->work = NULL;
		return ax_app_error(app, AX_EXIT_FAIL, "out of memory");
	}
	return 0;
}

/* Remove work and its sidecars. */
static void remove_work(const char *work)
{
	for (size_t i = 0; i < N_SIDECARS; i++) {
		char p[PATH_MAX + 16];
		snprintf(p, sizeof(p), "%s%s", work, sidecars[i]);
		unlink(p);
	}
}

/* rename(from, to) unless to exists; link and unlink where the file
 * system has no RENAME_NOREPLACE. */
static int rename_noreplace(const char *from, const char *to)
{
#ifdef SYS_renameat2
	if (syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to,
		    1 /* RENAME_NOREPLACE */) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	if (link(from, to) != 0)
		return -1;
	unlink(from);
	return 0;
}

int ax_merge_out_finish(const struct ax_app *app, struct ax_merge_out *m)
{
	char wal[PATH_MAX + 8];
	struct stat st;
	if (!m->fresh)
		return 0;
	/* Closing the last connection folds the -wal into the file; one
	 * that is still there would not follow the file to its new name. */
	snprintf(wal, sizeof(wal), "%s-wal", m->work);
	if (stat(wal, &st) == 0 && st.st_size > 0)
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "db merge: the merged database %s still "
				    "has its -wal, so it was not renamed to "
				    "%s; open it once with sqlite3 and rename "
				    "it yourself",
				    ax_term(m->work), ax_term(m->out));
	if (rename_noreplace(m->work, m->out) == 0) {
		remove_work(m->work);
		ax_outfile_sync_dir(m->out); /* the rename durable */
		return 0;
	}
	int saved = errno;
	remove_work(m->work);
	return ax_app_error(
	    app, AX_EXIT_STORAGE,
	    "db merge: cannot rename the merged database to %s (%s)%s; "
	    "nothing was merged: run the merge again",
	    ax_term(m->out), strerror(saved),
	    saved == EEXIST ? ": another process created it meanwhile" : "");
}

void ax_merge_out_abort(struct ax_merge_out *m)
{
	if (m->fresh && m->work)
		remove_work(m->work);
}

void ax_merge_out_release(struct ax_merge_out *m)
{
	free(m->work);
	m->work = NULL;
}
