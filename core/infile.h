/*
 * core/infile.h - open and read a user-named input file without blocking
 * on what is not a file.
 *
 * Every file a user names as input (a profile, defaults, specs or kernel
 * YAML, a shader and the files it includes, a kernel's init and expect
 * files, a replay landscape, the ingest suite's data file) is opened here
 * with O_RDONLY | O_NONBLOCK | O_CLOEXEC, so that a FIFO with no writer
 * or a terminal never blocks the open, and then judged by fstat of the
 * descriptor that was opened: what is checked is what is read, and no
 * rename between a stat and the open can swap something else in.
 * Anything but a regular file (a FIFO, a directory, a device, a socket)
 * is refused with what it is, and a regular file larger than its reader's
 * limit by its size, before a byte is read.  O_NONBLOCK is cleared on a
 * file that passes (it means nothing to a regular file, but the
 * descriptor may be handed on).
 *
 * Messages name the file with the reader's noun ("shader file X is a
 * FIFO (named pipe), not a regular file; ...").  Codes: AX_EIO when the
 * system refuses (open, read; errno is kept as that call left it), and
 * AX_ECONFIG when the file is not one the reader takes (not a regular
 * file, too large): the user's input is wrong, exit 2.
 */
#ifndef AX_INFILE_H
#define AX_INFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* What a file of mode is, as words for a message: "a FIFO (named pipe)",
 * "a directory", "a character device", "a block device", "a socket", "a
 * regular file", "a symbolic link", or "not a regular file". */
const char *ax_infile_kind(mode_t mode);

/* A byte count for a message: "512 bytes", "4.0 KiB", "20.0 MiB",
 * "1.5 GiB" (binary units, one decimal).  Writes into buf, returns buf. */
const char *ax_infile_size_text(uint64_t bytes, char *buf, size_t n);

/*
 * Open path (what: the reader's noun, "shader file") for reading and fstat
 * it into *st.  A descriptor >= 0 the caller closes, or a negative AX_E*
 * with the message in err: AX_EIO "PATH: cannot open: REASON", AX_ECONFIG
 * "WHAT PATH is a FIFO (named pipe), not a regular file; ...".
 */
int ax_infile_open(const char *path, const char *what, struct stat *st,
		   char *err, size_t errlen);

/*
 * Read the whole regular file at path, at most max bytes, into a malloc'd
 * NUL-terminated buffer (*text, the caller's to free; *len bytes).  Too
 * large: AX_ECONFIG "WHAT PATH is 20.0 MiB, larger than the 4 MiB a WHAT
 * may be"; a file that shrinks while read: AX_EIO saying so.
 */
int ax_infile_read(const char *path, const char *what, size_t max, char **text,
		   size_t *len, char *err, size_t errlen);

#endif
