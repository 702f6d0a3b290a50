/*
 * suites/ingest_file.h - the data file the ingest suite reads: opening a
 * user's file, generating one (file=auto), dropping it from the page
 * cache, checking how much of it is still cached, the storage's raw
 * sequential read, and the CPU checksum the device's must equal.
 *
 * A generated file is created under the scratch directory
 * (suites/scratch.h) and unlinked as soon as its descriptors are open, so
 * it is gone however the process ends (Ctrl-C, a crash, SIGKILL); the
 * space is freed when the last descriptor closes.  One generated file is
 * kept per process and reused while cases ask for the same directory and
 * size, so a sweep writes its data once.
 */
#ifndef AX_SUITES_INGEST_FILE_H
#define AX_SUITES_INGEST_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ax_ingest_file {
	int fd;		     /* O_RDONLY (pread, mmap, cache control) */
	int direct_fd;	     /* O_DIRECT, or -1 (direct_errno says why) */
	int direct_errno;    /* what open(O_DIRECT) said, 0 when it worked */
	uint64_t length;     /* bytes in the file */
	bool generated;	     /* file=auto: the fds belong to the kept file */
	char path[PATH_MAX]; /* as given, or the generated file's old name */
	char fs[16];	     /* filesystem type ("ext4", "tmpfs", ...) */
};

/*
 * Can path be read as a data file of at least bytes bytes?  0, or
 * AX_EINVAL with why naming the path, the rule and the fix (missing,
 * unreadable, not a regular file: a FIFO or a device is refused without
 * being waited on, and a file of /proc or /sys, whose size cannot be
 * known; too short).
 */
int ax_ingest_file_usable(const char *path, uint64_t bytes, char *why,
			  size_t whylen);

/* Is there room under dir for a generated file of bytes bytes?  0, or
 * AX_EINVAL naming the directory, its free space and the fix. */
int ax_ingest_file_room(const char *dir, uint64_t bytes, char *why,
			size_t whylen);

/* Open path for reading (and O_DIRECT where the filesystem allows); the
 * checks of ax_ingest_file_usable hold for what was opened. */
int ax_ingest_file_open(const char *path, struct ax_ingest_file *f, char *err,
			size_t errlen);

/* The generated file of bytes pseudo-random bytes under dir: made on the
 * first call for (dir, bytes), written through to storage (fdatasync),
 * then reused.  f borrows its descriptors. */
int ax_ingest_file_generated(const char *dir, uint64_t bytes,
			     struct ax_ingest_file *f, char *err,
			     size_t errlen);

/* Why a read of f failed, as words into buf: "file=PATH shrank from
 * 64.0 MiB to 1.0 MiB during the run" when fstat finds it shorter than
 * when it was opened (returns true), else the reason for errno e (ENODATA
 * or 0: it ended early). */
bool ax_ingest_read_failure(const struct ax_ingest_file *f, int e, char *buf,
			    size_t n);

/* Close a file from ax_ingest_file_open (a generated file stays open for
 * the next case). */
void ax_ingest_file_close(struct ax_ingest_file *f);

/* Drop the first bytes of the file from the page cache
 * (posix_fadvise(DONTNEED), which needs no privileges; clean pages only,
 * which is why a generated file is synced once written). */
int ax_ingest_drop_cache(const struct ax_ingest_file *f, uint64_t bytes);

/* Fraction (0..1) of the first bytes of the file in the page cache now
 * (mincore on a temporary mapping), or a negative value when unknown. */
double ax_ingest_resident(const struct ax_ingest_file *f, uint64_t bytes);

/* The storage's sequential limit: one thread reading the first bytes in
 * order with pread (64 MiB pieces into one buffer), after a cache drop
 * when cold; the median GB/s of three passes. */
int ax_ingest_raw_read(const struct ax_ingest_file *f, uint64_t bytes,
		       bool cold, double *gbps, char *err, size_t errlen);

/* The checksum of len bytes (zero-padded to whole 32-bit words):
 * sums[0] = sum of words, sums[1] = sum of (i + 1) * word i, mod 2^32 -
 * what shaders/ingest.comp computes on the device. */
void ax_ingest_checksum(const void *data, size_t len, uint32_t sums[2]);

#endif
