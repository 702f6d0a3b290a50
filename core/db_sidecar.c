/*
 * core/db_sidecar.c - nothing is left beside a database axbench only
 * reads or refuses.
 *
 * A read-only SQLite connection to a WAL database creates its -wal and
 * -shm files when they are missing, and, unable to checkpoint, leaves
 * them when it closes: a probe that refuses a file, `db merge` reading
 * its inputs and every reader left two new files beside a database they
 * promised not to touch.  So each open notes which of them existed, and
 * when the last connection this process has to the file is closed, the
 * ones it made are removed, as SQLite's own last writer removes them:
 * only while holding the database's EXCLUSIVE lock (no other process
 * has the file open: every WAL connection holds a SHARED lock for its
 * whole life), and only a -wal that holds no frame.  A -wal another
 * process wrote into, or sidecars that were there before, stay.
 */
#include "core/db_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* SQLite's unix locking bytes (os_unix.c): a SHARED lock is a read lock
 * on the shared range, EXCLUSIVE a write lock on it, taken after the
 * pending byte, which stops new SHARED locks meanwhile. */
#define PENDING_BYTE 0x40000000
#define SHARED_FIRST (PENDING_BYTE + 2)
#define SHARED_SIZE 510

/* The files (dev, ino) this process has open as databases, counted:
 * POSIX locks belong to the process, and closing any descriptor of a
 * file drops them all, so the lock below is taken only when no other
 * connection of ours has the file open. */
static struct open_file {
	dev_t dev;
	ino_t ino;
	int n;
} * open_files;
static size_t n_open_files;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/* Add delta to the count of (dev, ino); the count after. */
static int count_open(dev_t dev, ino_t ino, int delta)
{
	int n = 0;
	pthread_mutex_lock(&open_lock);
	size_t i = 0;
	while (i < n_open_files &&
	       (open_files[i].dev != dev || open_files[i].ino != ino))
		i++;
	if (i == n_open_files && delta > 0) {
		struct open_file *v = realloc(open_files, (i + 1) * sizeof(*v));
		if (v) {
			open_files = v;
			open_files[n_open_files++] =
			    (struct open_file){dev, ino, 0};
		}
	}
	if (i < n_open_files) {
		open_files[i].n += delta;
		n = open_files[i].n;
		if (n <= 0)
			open_files[i] = open_files[--n_open_files];
	}
	pthread_mutex_unlock(&open_lock);
	return n;
}

static bool exists(const char *path, const char *suffix, off_t *size)
{
	char p[4096];
	struct stat sb;
	if (snprintf(p, sizeof(p), "%s%s", path, suffix) >= (int)sizeof(p))
		return true; /* unknown: treated as not ours */
	if (stat(p, &sb) != 0)
		return errno != ENOENT;
	if (size)
		*size = sb.st_size;
	return true;
}

void ax_dbi_sidecars_note(const char *path, struct ax_dbi_sidecars *s)
{
	struct stat sb;
	memset(s, 0, sizeof(*s));
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return;
	s->dev = sb.st_dev;
	s->ino = sb.st_ino;
	s->had_wal = exists(path, "-wal", NULL);
	s->had_shm = exists(path, "-shm", NULL);
	s->noted = true;
	count_open(s->dev, s->ino, 1);
}

/* A write lock on [start, start + len) of fd, not waiting; an open file
 * description lock, which conflicts with every other process's. */
static bool lock_range(int fd, off_t start, off_t len)
{
	struct flock fl = {.l_type = F_WRLCK,
			   .l_whence = SEEK_SET,
			   .l_start = start,
			   .l_len = len};
	return fcntl(fd, F_OFD_SETLK, &fl) == 0;
}

static void unlink_suffix(const char *path, const char *suffix)
{
	char p[4096];
	if (snprintf(p, sizeof(p), "%s%s", path, suffix) < (int)sizeof(p))
		unlink(p);
}

void ax_dbi_sidecars_tidy(const char *path, struct ax_dbi_sidecars *s)
{
	if (!s->noted)
		return;
	s->noted = false;
	if (count_open(s->dev, s->ino, -1) > 0 || s->keep ||
	    (s->had_wal && s->had_shm))
		return;
	off_t wal_size = 0;
	bool wal = exists(path, "-wal", &wal_size);
	if ((s->had_wal || !wal) && (s->had_shm || !exists(path, "-shm", NULL)))
		return;
	/* A write lock needs a descriptor open for writing; nothing is
	 * written through it.  A file this user may not write keeps what
	 * SQLite made beside it. */
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat sb;
	if (fd < 0)
		return;
	/* The same file still, no other process has it open, and its -wal
	 * (checked again under the lock) holds nothing committed. */
	if (fstat(fd, &sb) == 0 && sb.st_dev == s->dev && sb.st_ino == s->ino &&
	    lock_range(fd, PENDING_BYTE, 1) &&
	    lock_range(fd, SHARED_FIRST, SHARED_SIZE) &&
	    (!exists(path, "-wal", &wal_size) || wal_size == 0)) {
		if (!s->had_wal)
			unlink_suffix(path, "-wal");
		if (!s->had_shm)
			unlink_suffix(path, "-shm");
	}
	close(fd); /* drops the locks */
}
