/*
 * app/merge_out.h - where `db merge` writes a new output.
 *
 * An OUT that does not exist yet is built under a temporary name in its
 * own directory, DIR/.BASE.merging-PID, and renamed to OUT only after
 * the merge has committed: a merge killed half-way (SIGKILL, power loss)
 * leaves no OUT at all, never a valid, empty database that looks like a
 * merge that found nothing.  The temporary name starts with a dot and
 * says what it is and which process made it; the next merge into the
 * same OUT removes the leftovers of processes that have gone.  An OUT
 * that exists is merged into in place, in one transaction, as before.
 */
#ifndef AX_APP_MERGE_OUT_H
#define AX_APP_MERGE_OUT_H

#include "app/app.h"

#include <stdbool.h>

struct ax_merge_out {
	const char *out; /* OUT as named (borrowed) */
	char *work;	 /* the file the merge writes: OUT or the temporary */
	bool fresh;	 /* OUT did not exist: work is the temporary name */
};

/* Choose where the merge into out writes, removing (and saying so) the
 * temporaries of killed merges into it.  Prints, returns an exit code;
 * release m afterwards whatever it returned. */
int ax_merge_out_begin(const struct ax_app *app, const char *out,
		       struct ax_merge_out *m);

/* After the merge committed and its database was closed: a fresh OUT is
 * renamed into place (never over a file that appeared meanwhile).
 * Prints, returns an exit code; on failure the work files are removed. */
int ax_merge_out_finish(const struct ax_app *app, struct ax_merge_out *m);

/* After a failed merge: a fresh OUT's work files are removed. */
void ax_merge_out_abort(struct ax_merge_out *m);

void ax_merge_out_release(struct ax_merge_out *m);

#endif
