/*
 * core/live.h - the one status line a command rewrites in place on a
 * terminal (stderr): a run's case, a tune's trial, an A/B round.
 *
 * The line is cut to the terminal's width (ax_text_fit): "\r\e[K" clears
 * only the row the cursor is on, so a line that wrapped would leave its
 * earlier rows behind at every update.  Anything else written to stderr
 * while the line shows must clear it first (ax_live_clear), or it is
 * appended to the line and stays on the screen.  Not for threads.
 */
#ifndef AX_LIVE_H
#define AX_LIVE_H

/* Replace the line with line (cut to the terminal; stderr must be one). */
void ax_live_show(const char *line);

/* Erase the line where one shows; nothing otherwise. */
void ax_live_clear(void);

#endif
