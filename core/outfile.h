/*
 * core/outfile.h - write a user-named output file all or nothing.
 *
 * A report, an export or a comparison is written to a temporary file made
 * with mkstemp beside the target (O_EXCL: a link planted at a guessable
 * name is never followed, and no other file is touched), then committed
 * with fflush + fsync + rename + fsync of the directory.  A failed or
 * interrupted write leaves the old file exactly as it was.
 *
 * Targets that are not regular files are written in place, since they
 * cannot be renamed over and are not storage that can be torn: "-" (or
 * NULL) for standard output, and existing devices, FIFOs and sockets such
 * as /dev/null, /dev/stdout or /dev/full (the documented stand-in for a
 * full disk in the tests), and anything under /dev/ or /proc/.  A target
 * that is a symbolic link to a regular file is replaced at the file the
 * link leads to, as fopen would have written it; a dangling link is itself
 * replaced.  The temporary file itself is never reached through a link.
 *
 * Every error message names the file and carries strerror(errno) of the
 * call that failed ("No space left on device", "Permission denied").
 */
#ifndef AX_OUTFILE_H
#define AX_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct ax_outfile {
	FILE *f;	  /* write here */
	const char *path; /* the target as given (borrowed) */
	char *target;	  /* the file renamed over: path, or where its link
			     leads (malloc'd) */
	char *tmp;	  /* the temporary file, NULL when writing in place */
	int fd;		  /* under f */
	int mode;	  /* permissions the committed file gets */
	int write_errno;  /* errno of the first failed write, 0 if none */
	bool is_stdout;
};

/*
 * Open path ("-" or NULL: standard output) for writing.  Returns 0, or
 * AX_EIO with a message naming the file or directory and the reason in
 * err (nothing is left behind then).
 */
int ax_outfile_open(struct ax_outfile *o, const char *path, char *err,
		    size_t errlen);

/*
 * Flush, check for a write error, fsync and rename the temporary file
 * over the target (then fsync its directory).  Standard output is only
 * flushed and checked.  On failure the temporary file is removed, the
 * target is unchanged, and AX_EIO is returned with the reason in err.
 * o is released either way.
 */
int ax_outfile_commit(struct ax_outfile *o, char *err, size_t errlen);

/* Give up: close and remove the temporary file; the target is unchanged.
 * Safe on a zeroed or already released struct. */
void ax_outfile_abort(struct ax_outfile *o);

/*
 * Make every output file opened from now on stop writing once *stop is
 * non-zero (cli/ passes its SIGINT/SIGTERM flag): each later write fails
 * with EINTR at once, so a long writer (a report's embedded data) winds
 * down quickly, and the caller aborts, removing the temporary file
 * (ax_outfile_commit then returns AX_EINTR).  A FIFO target with no reader
 * is waited for until one comes or *stop is set (AX_EINTR from
 * ax_outfile_open).  Standard output and ax_outfile_stream's streams go on
 * writing after a stop, so that a command's last lines are printed, but
 * wait for a reader that stopped reading 1 s at most, then fail with EINTR.
 */
void ax_outfile_set_stop(const volatile int *stop);

/* fsync the directory holding path, so that a rename into it survives a
 * crash; 0, or the errno of the failing call (a file system that cannot,
 * EINVAL, is not an error). */
int ax_outfile_sync_dir(const char *path);

/*
 * A stream over fd that remembers the errno of its first failed write in
 * *write_errno (stdio forgets it: a failed write that bypassed the buffer
 * leaves only the error flag).  Buffered like stdio's own streams: lines
 * on a terminal, blocks elsewhere.  NULL when out of memory.
 */
FILE *ax_outfile_stream(int fd, int *write_errno);

#endif
