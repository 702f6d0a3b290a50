/*
 * core/text.h - stored text made safe for where it is shown.
 *
 * Text in the database (a case label, a device or baseline name, an error)
 * came from drivers, files and command lines, and may hold anything.  Two
 * places need it cleaned:
 *
 * - a terminal, where control characters (ESC sequences can retitle the
 *   window, move the cursor, hide lines) and bidirectional overrides
 *   (which reorder what is read) must arrive as visible text:
 *   ax_text_term writes them as "\x1b" and "\u202e";
 * - JSON, which jansson only builds from valid UTF-8 (json_string returns
 *   NULL, json_loads fails, and a field silently disappears):
 *   ax_text_json_string and ax_text_json_loads replace each invalid byte
 *   with U+FFFD and say so on stderr, naming the field.
 */
#ifndef AX_TEXT_H
#define AX_TEXT_H

#include <jansson.h>
#include <stddef.h>

/*
 * s for a terminal: s itself when it needs no escape, else buf holding s
 * with every C0/C1 control character, DEL, bidirectional control
 * (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069) and invalid UTF-8 byte
 * written as \xNN (bytes) or \uNNNN (code points).  Cut short (never
 * inside an escape) when buf is too small.  NULL s gives "".
 */
const char *ax_text_term(const char *s, char *buf, size_t len);

/*
 * The width of the terminal on fd in columns; else $COLUMNS when it is a
 * positive number; else 0 (unknown: a pipe or a file, no limit).
 */
int ax_text_columns(int fd);

/*
 * Cut s in place to at most cols characters (code points), its last one
 * "~" where anything was cut, so that a line rewritten in place with
 * "\r\e[K" never wraps: the terminal clears only the row the cursor is
 * on, and a wrapped line leaves its earlier rows behind.  cols <= 0 cuts
 * nothing.
 */
void ax_text_fit(char *s, int cols);

/*
 * ax_text_term into one of 8 static 1 KiB buffers used in turn, for the
 * several strings of one printf.  The result stays valid for the next 7
 * calls; not for threads.
 */
const char *ax_term(const char *s);

/*
 * Is s plain text of 1 to max_chars characters (code points): valid
 * UTF-8 holding none of the characters ax_text_term escapes?  A name
 * people give (a run's label) is stored as typed and shown in tables and
 * JSON, so it must print as itself.  0 when it is; else -1, and why gets
 * what is wrong as a phrase ("is empty", "has 140 characters", "holds
 * the control character \x09 (character 4)", "is not valid UTF-8 (byte
 * 0xff at byte 3)").
 */
int ax_text_check_plain(const char *s, size_t max_chars, char *why, size_t len);

/* The percentage p (42.3 for 42.3 %) in at most 7 characters, so that a
 * table's column never overflows: with one decimal ("42.3%") below 1000
 * when decimals is 1, whole ("12345%") below 100000, ">99999%" above,
 * "-" when p is not a finite number >= 0.  Returns buf (len >= 8). */
#define AX_TEXT_PERCENT_MAX 7
const char *ax_text_percent(double p, int decimals, char *buf, size_t len);

/* The characters (code points) of s, each invalid byte counted as one:
 * the columns ax_text_term's output takes on a terminal, but for wide
 * (East Asian) characters, which take two. */
size_t ax_text_chars(const char *s);

/*
 * s as valid UTF-8 (malloc'd), each invalid byte replaced by U+FFFD;
 * *n_bad (may be NULL) gets the number replaced.  NULL on out of memory.
 */
char *ax_text_utf8_repair(const char *s, size_t *n_bad);

/*
 * s when it is valid UTF-8 (*fixed NULL); else s repaired as above into
 * *fixed (malloc'd; the caller frees it), with the warning below naming
 * what.  NULL s gives NULL.
 */
const char *ax_text_repaired(const char *s, const char *what, char **fixed);

/*
 * A JSON string of s (NULL s: JSON null).  Invalid UTF-8 is repaired as
 * above and a warning naming what (e.g. "device name of result 12") is
 * printed on stderr (the first few; then one line saying more were
 * repaired); the field is never dropped.
 */
json_t *ax_text_json_string(const char *s, const char *what);

/*
 * Parse stored JSON text s (flags as json_loads).  Invalid UTF-8 inside
 * it is repaired first, with the warning, so the document is kept.  NULL
 * s, or text that is not JSON for another reason, gives JSON null (as
 * before: such text was never written by axbench).
 */
json_t *ax_text_json_loads(const char *s, size_t flags, const char *what);

#endif
