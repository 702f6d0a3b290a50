/* suites/ingest_file.c - the ingest suite's data file (see ingest_file.h). */
#include "suites/ingest_file.h"

#include "core/error.h"
#include "core/infile.h"
#include "core/stats.h"
#include "core/vk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define PIECE (64ull << 20) /* raw-read and generation buffer */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Filesystems whose files are made as they are read: stat gives 0 bytes
 * (or a made-up size) whatever a read returns, so no size can be checked
 * and no two passes read the same bytes. */
static const char *pseudo_fs(int fd)
{
	static const struct {
		long magic;
		const char *name;
	} pseudo[] = {
	    {0x9fa0, "proc"},		{0x62656572, "sysfs"},
	    {0x64626720, "debugfs"},	{0x74726163, "tracefs"},
	    {0x27e0eb, "cgroup"},	{0x63677270, "cgroup2"},
	    {0x73636673, "securityfs"}, {0x62656570, "configfs"},
	    {0xcafe4a11, "bpf"},	{0xde5e81e4, "efivarfs"},
	    {0x6165676c, "pstore"},
	};
	struct statfs sf;
	if (fstatfs(fd, &sf) != 0)
		return NULL;
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if ((long)sf.f_type == pseudo[i].magic)
			return pseudo[i].name;
	return NULL;
}

/* A descriptor of path that is a regular data file (core/infile.h: a
 * FIFO or a device is never waited on), or AX_EINVAL with why. */
static int open_data_file(const char *path, struct stat *st, char *why,
			  size_t whylen)
{
	char msg[512];
	int fd = ax_infile_open(path, "ingest file", st, msg, sizeof(msg));
	if (fd == AX_EIO)
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: file=%s cannot be opened for reading "
			       "(%s); give a readable file, or file=auto for "
			       "a generated one",
			       path, strerror(errno));
	if (fd < 0)
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: file=%s is %s, not a regular file; "
			       "give a data file, or file=auto",
			       path, ax_infile_kind(st->st_mode));
	const char *fs = pseudo_fs(fd);
	if (fs) {
		close(fd);
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: file=%s is on %s, whose files are made "
			       "as they are read: its size cannot be known "
			       "(stat says %lld bytes), so it is not a regular "
			       "data file; give a data file, or file=auto",
			       path, fs, (long long)st->st_size);
	}
	return fd;
}

int ax_ingest_file_usable(const char *path, uint64_t bytes, char *why,
			  size_t whylen)
{
	struct stat st;
	int fd = open_data_file(path, &st, why, whylen);
	if (fd < 0)
		return fd;
	close(fd);
	if ((uint64_t)st.st_size < bytes)
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: file=%s has %lld bytes, fewer than "
			       "size=%llu; give size=%lld or less",
			       path, (long long)st.st_size,
			       (unsigned long long)bytes,
			       (long long)st.st_size);
	return 0;
}

int ax_ingest_file_room(const char *dir, uint64_t bytes, char *why,
			size_t whylen)
{
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    access(dir, W_OK) != 0)
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: file=auto needs a writable directory, "
			       "and %s is not one (%s); give --workdir DIR",
			       dir, strerror(errno ? errno : ENOTDIR));
	struct statvfs vs;
	/* Unknown (ramfs reports no size at all): writing will tell. */
	if (statvfs(dir, &vs) != 0 || vs.f_blocks == 0)
		return 0;
	uint64_t avail = (uint64_t)vs.f_bavail * vs.f_frsize;
	/* Leave the filesystem some room of its own. */
	if (avail < bytes + (64ull << 20))
		return ax_errf(why, whylen, AX_EINVAL,
			       "ingest: file=auto needs %llu bytes under %s, "
			       "which has %llu free; give a smaller size or "
			       "--workdir on a larger filesystem",
			       (unsigned long long)bytes, dir,
			       (unsigned long long)avail);
	return 0;
}

static void fs_name(int fd, char *buf, size_t len)
{
	static const struct {
		long magic;
		const char *name;
	} known[] = {
	    {0xEF53, "ext4"},	   {0x01021994, "tmpfs"},
	    {0x58465342, "xfs"},   {0x9123683E, "btrfs"},
	    {0x6969, "nfs"},	   {0x794c7630, "overlayfs"},
	    {0x65735546, "fuse"},  {0x2fc12fc1, "zfs"},
	    {0x858458f6, "ramfs"}, {0xFF534D42, "cifs"},
	    {0x5346544e, "ntfs"},  {0x4d44, "vfat"},
	    {0xF2F52010, "f2fs"},  {0x73717368, "squashfs"},
	    {0x01161970, "gfs2"},  {0x0BD00BD0, "lustre"},
	    {0x47504653, "gpfs"},  {0x6B414653, "afs"},
	    {0x00C36400, "ceph"},  {0x62656570, "configfs"},
	};
	struct statfs sf;
	snprintf(buf, len, "unknown");
	if (fstatfs(fd, &sf) != 0)
		return;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if ((long)sf.f_type == known[i].magic) {
			snprintf(buf, len, "%s", known[i].name);
			return;
		}
	snprintf(buf, len, "0x%lx", (unsigned long)sf.f_type);
}

/* The O_DIRECT descriptor, or -1 with the reason kept (tmpfs: EINVAL). */
static void open_direct(const char *path, struct ax_ingest_file *f)
{
	/* O_NONBLOCK: a FIFO swapped in under the name never blocks here
	 * (the caller compares what was opened); no effect on a file. */
	f->direct_fd = open(path, O_RDONLY | O_DIRECT | O_NONBLOCK | O_CLOEXEC);
	f->direct_errno = f->direct_fd < 0 ? errno : 0;
}

int ax_ingest_file_open(const char *path, struct ax_ingest_file *f, char *err,
			size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->direct_fd = -1;
	snprintf(f->path, sizeof(f->path), "%s", path);
	/* Checked again: the file may have changed since the case's check. */
	struct stat st, dst;
	f->fd = open_data_file(path, &st, err, errlen);
	if (f->fd < 0) {
		int rc = f->fd;
		f->fd = -1;
		return rc;
	}
	f->length = (uint64_t)st.st_size;
	open_direct(path, f);
	/* The second open is by name: it must have found the same file. */
	if (f->direct_fd >= 0 &&
	    (fstat(f->direct_fd, &dst) != 0 || dst.st_dev != st.st_dev ||
	     dst.st_ino != st.st_ino)) {
		ax_ingest_file_close(f);
		return ax_errf(err, errlen, AX_EINVAL,
			       "ingest: file=%s was replaced while it was "
			       "being opened; keep it unchanged while it is "
			       "measured",
			       path);
	}
	fs_name(f->fd, f->fs, sizeof(f->fs));
	return 0;
}

bool ax_ingest_read_failure(const struct ax_ingest_file *f, int e, char *buf,
			    size_t n)
{
	struct stat st;
	if (fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < f->length) {
		char was[32], now[32];
		snprintf(buf, n, "file=%s shrank from %s to %s during the run",
			 f->path,
			 ax_infile_size_text(f->length, was, sizeof(was)),
			 ax_infile_size_text((uint64_t)st.st_size, now,
					     sizeof(now)));
		return true;
	}
	if (e == 0 || e == ENODATA)
		snprintf(buf, n, "file=%s ended before its %llu bytes", f->path,
			 (unsigned long long)f->length);
	else
		snprintf(buf, n, "%s", strerror(e));
	return false;
}

void ax_ingest_file_close(struct ax_ingest_file *f)
{
	if (f->generated)
		return;
	if (f->fd >= 0)
		close(f->fd);
	if (f->direct_fd >= 0)
		close(f->direct_fd);
	f->fd = f->direct_fd = -1;
}

/* The one generated file the process keeps (see ingest_file.h). */
static struct ax_ingest_file kept = {.fd = -1, .direct_fd = -1};
static char kept_dir[PATH_MAX];

static void drop_kept(void)
{
	if (kept.fd >= 0)
		close(kept.fd);
	if (kept.direct_fd >= 0)
		close(kept.direct_fd);
	memset(&kept, 0, sizeof(kept));
	kept.fd = kept.direct_fd = -1;
	kept_dir[0] = '\0';
}

static int write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Pseudo-random content (zeros compress and dedupe on some storage),
 * written through to the device so the cache can be dropped. */
static int fill_file(int fd, uint64_t bytes)
{
	size_t piece = bytes < PIECE ? (size_t)((bytes + 3) & ~3ull) : PIECE;
	uint32_t *buf = malloc(piece);
	if (!buf)
		return AX_ENOMEM;
	int rc = 0;
	for (uint64_t off = 0, i = 0; rc == 0 && off < bytes; off += piece) {
		size_t n = bytes - off < piece ? (size_t)(bytes - off) : piece;
		ax_vk_fill_random_words(buf, (n + 3) / 4, 0x1a9e57ull + i++);
		if (write_all(fd, buf, n))
			rc = AX_EIO;
	}
	free(buf);
	if (rc == 0 && fdatasync(fd) != 0)
		rc = AX_EIO;
	return rc;
}

static int generate(const char *dir, uint64_t bytes, char *err, size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/axbench-ingest-XXXXXX", dir);
	int fd = mkstemp(path);
	if (fd < 0)
		return ax_errf(err, errlen, AX_EIO,
			       "ingest: cannot create a data file under %s "
			       "(%s); give --workdir DIR",
			       dir, strerror(errno));
	kept.fd = fd;
	snprintf(kept.path, sizeof(kept.path), "%s", path);
	int rc = fill_file(fd, bytes);
	int e = errno;
	if (rc == 0)
		open_direct(path, &kept);
	/* From here the file has no name: nothing is left behind. */
	unlink(path);
	if (rc) {
		drop_kept();
		return ax_errf(err, errlen, rc,
			       "ingest: writing %llu bytes to %s failed (%s)",
			       (unsigned long long)bytes, path,
			       rc == AX_ENOMEM ? "out of memory" : strerror(e));
	}
	kept.length = bytes;
	kept.generated = true;
	fs_name(fd, kept.fs, sizeof(kept.fs));
	snprintf(kept_dir, sizeof(kept_dir), "%s", dir);
	return 0;
}

int ax_ingest_file_generated(const char *dir, uint64_t bytes,
			     struct ax_ingest_file *f, char *err, size_t errlen)
{
	if (kept.fd < 0 || kept.length != bytes || strcmp(kept_dir, dir)) {
		drop_kept();
		int rc = generate(dir, bytes, err, errlen);
		if (rc)
			return rc;
	}
	*f = kept;
	return 0;
}

int ax_ingest_drop_cache(const struct ax_ingest_file *f, uint64_t bytes)
{
	int rc = posix_fadvise(f->fd, 0, (off_t)bytes, POSIX_FADV_DONTNEED);
	return rc == 0 ? 0 : AX_EIO;
}

double ax_ingest_resident(const struct ax_ingest_file *f, uint64_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	if (bytes == 0 || page <= 0)
		return -1;
	void *map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, f->fd, 0);
	if (map == MAP_FAILED)
		return -1;
	size_t pages = (bytes + (uint64_t)page - 1) / (uint64_t)page;
	unsigned char *vec = malloc(pages);
	double frac = -1;
	if (vec && mincore(map, bytes, vec) == 0) {
		size_t in = 0;
		for (size_t i = 0; i < pages; i++)
			in += vec[i] & 1;
		frac = (double)in / (double)pages;
	}
	free(vec);
	munmap(map, bytes);
	return frac;
}

/* One pass: the first bytes in order, PIECE at a time.  0, or the
 * errno of the failed read (ENODATA: the file ended early). */
static int read_pass(int fd, uint64_t bytes, void *buf, double *sec)
{
	double t0 = now_s();
	for (uint64_t off = 0; off < bytes;) {
		uint64_t want = bytes - off < PIECE ? bytes - off : PIECE;
		ssize_t got = pread(fd, buf, (size_t)want, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? errno : ENODATA;
		off += (uint64_t)got;
	}
	*sec = now_s() - t0;
	return 0;
}

int ax_ingest_raw_read(const struct ax_ingest_file *f, uint64_t bytes,
		       bool cold, double *gbps, char *err, size_t errlen)
{
	void *buf = malloc(bytes < PIECE ? (size_t)bytes : PIECE);
	if (!buf)
		return AX_ENOMEM;
	double rate[3];
	int rc = 0, e = 0;
	for (int i = 0; rc == 0 && e == 0 && i < 3; i++) {
		double sec = 0;
		if (cold)
			rc = ax_ingest_drop_cache(f, bytes);
		if (rc == 0)
			e = read_pass(f->fd, bytes, buf, &sec);
		rate[i] = sec > 0 ? (double)bytes / sec / 1e9 : 0;
	}
	free(buf);
	char why[PATH_MAX + 128] = "posix_fadvise failed";
	if (e)
		ax_ingest_read_failure(f, e, why, sizeof(why));
	if (rc || e)
		return ax_errf(err, errlen, rc ? rc : AX_EIO,
			       "ingest: the raw sequential read of %s failed "
			       "(%s)",
			       f->path, why);
	struct ax_summary m;
	ax_stats_summarize(rate, 3, 0.95, &m);
	*gbps = m.median;
	return 0;
}

void ax_ingest_checksum(const void *data, size_t len, uint32_t sums[2])
{
	const unsigned char *p = data;
	uint32_t s1 = 0, s2 = 0;
	size_t words = (len + 3) / 4;
	for (size_t i = 0; i < words; i++) {
		uint32_t w = 0;
		size_t at = i * 4, n = len - at < 4 ? len - at : 4;
		memcpy(&w, p + at, n); /* little-endian, as on the device */
		s1 += w;
		s2 += w * (uint32_t)(i + 1);
	}
	sums[0] = s1;
	sums[1] = s2;
}
