/*
 * app/case_column.h - the case column of a table, short enough to read.
 *
 * A stored case label names every shape parameter ("m=256 n=512 k=512
 * batch=1 dtype=f32 trans_a=false trans_b=false kernel=tiled"), so a
 * table of them is some 170 columns wide and wraps at 120.  The column
 * keeps, for each suite, the parameters that some row of the table sets
 * to other than the suite's default, and leaves out those that every row
 * has at its default: a sweep over m shows "m=256", "m=512", ... (m=512
 * too, though it is gemm's default, because the rows differ in m).  A
 * row with nothing left reads "defaults".  The whole label stays in -v,
 * --json and CSV; a suite this binary does not know (a user kernel not
 * loaded now), a parameter it does not know, or a token that is not
 * NAME=VALUE is always shown.
 *
 * Add every row first (ax_case_column_add), then ask for each row's text.
 */
#ifndef AX_CASE_COLUMN_H
#define AX_CASE_COLUMN_H

#include <stdbool.h>
#include <stddef.h>

struct ax_case_column {
	char **shown; /* "SUITE NAME" of each parameter the column shows */
	int n, cap;
	bool cut; /* some row has a parameter left out */
	bool full; /* every label whole (-v) */
};

/* The note under a table whose column left something out. */
#define AX_CASE_COLUMN_NOTE                                                   \
	"the case column leaves out what every row has at its default (-v "  \
	"shows it all)"

void ax_case_column_init(struct ax_case_column *c, bool full);

/* The row of suite labelled label; 0, or AX_ENOMEM (then every label is
 * shown whole). */
int ax_case_column_add(struct ax_case_column *c, const char *suite,
		       const char *label);

/* The row's label as the column shows it, into buf. */
void ax_case_column_text(struct ax_case_column *c, const char *suite,
			 const char *label, char *buf, size_t len);

/* Whether any row's text left a parameter out (after the texts), for the
 * note under the table. */
bool ax_case_column_cut(const struct ax_case_column *c);

void ax_case_column_free(struct ax_case_column *c);

#endif
