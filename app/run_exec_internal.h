/*
 * app/run_exec_internal.h - what the executors of a plan share: one
 * device's execution (app/run_exec.c) and the executors over several
 * devices at once, --concurrent (app/run_concurrent.c) and --split
 * (app/run_split.c).  Not a public interface: only app/run_*.c include
 * it.
 */
#ifndef AX_RUN_EXEC_INTERNAL_H
#define AX_RUN_EXEC_INTERNAL_H

#include "app/case_column.h"
#include "app/run_exec.h"
#include "app/session.h"

#include <jansson.h>
#include <stdbool.h>

/* One device's execution of a plan: its session, its table, its JSON. */
struct exec {
	struct ax_app *app;
	struct ax_plan *plan;
	struct ax_runner_opts opts;
	bool skip_beyond_limits;
	struct ax_run_origin origin;
	struct ax_session session;
	int index;	   /* case being measured, 0-based */
	const char *label; /* of that case, for the progress line */
	char case_label[512];
	bool tty;
	int case_width;	  /* of the table's case column */
	struct ax_case_column cases; /* what that column shows */
	json_t *json_out; /* --json: results as they are stored */
	/* Verified results whose median ended less tight than max_noise,
	 * and the first few of them by name, for the warning at the end. */
	int n_noisy;
	char noisy_names[512];
};

void ax_exec_init(struct exec *ex, struct ax_app *app, struct ax_plan *plan,
		  const struct ax_runner_opts *opts,
		  const struct ax_session_efficiency *eff,
		  bool skip_beyond_limits, const struct ax_run_origin *origin);
/* Choose the device, apply --tuned and the defaults, check the plan,
 * begin the run.  0 or the exit code. */
int ax_exec_open(struct exec *ex);
/* The case column's width and contents; the table's header when print. */
void ax_exec_header(struct exec *ex, bool print);
/* One stored case as a row of the table (or of --json). */
void ax_exec_row(struct exec *ex, const struct ax_plan_case *c,
		 const struct ax_session_case *sc);
/* A verified result above its noise target, for the warning at the end. */
void ax_exec_note_noise(struct exec *ex, const struct ax_plan_case *pc,
			const struct ax_runner_result *r);
/* The run's end: the JSON, the summary line, the run row; exit code. */
int ax_exec_finish(struct exec *ex, int rc);

/*
 * Open every device of origin->group for plans[k] (each its own exec in
 * all[k], calloc'd: free it): those that opened in ex[0..*n), the others
 * finished and noted lost.  check (may be NULL) refuses a plan first.
 * The cases must come out the same on every device opened.  Returns 0 or
 * the exit code.
 */
int ax_exec_open_group(struct ax_app *app, struct ax_plan **plans,
		       const struct ax_runner_opts *opts,
		       const struct ax_session_efficiency *eff,
		       const struct ax_run_origin *origin,
		       int (*check)(const struct exec *ex), struct exec **all,
		       struct exec **ex, int *n);

#endif
