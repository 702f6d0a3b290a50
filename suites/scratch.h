/*
 * suites/scratch.h - where suites may write scratch files.
 *
 * The ingest suite reads a data file; with file=auto it generates one of
 * the asked size in this directory (and unlinks it at once, so nothing is
 * left behind however the process ends).  The session sets the directory
 * before any case is checked: --workdir, AXBENCH_WORKDIR, or the
 * database's directory, so that the data sits on the storage the user
 * chose for the run rather than wherever the shell happened to be.
 * One process-wide setting, like the stall hook (suites/stall.h):
 * suites' callbacks take no session argument.
 */
#ifndef AX_SUITES_SCRATCH_H
#define AX_SUITES_SCRATCH_H

#include <stddef.h>

/* Copy dir (NULL: the current directory).  AX_EINVAL when it is longer
 * than a path may be. */
int ax_scratch_set_dir(const char *dir);

/* The directory set, "." when none was. */
const char *ax_scratch_dir(void);

/* The directory of a file path ("./x.db" -> ".", "/a/b.db" -> "/a",
 * "b.db" -> "."), into buf. */
void ax_scratch_dir_of(const char *path, char *buf, size_t len);

#endif
