/*
 * app/run_exec.h - executing a plan: one measurement session
 * (app/session.h) that measures each case, stores and prints each result
 * as it finishes.
 */
#ifndef AX_RUN_EXEC_H
#define AX_RUN_EXEC_H

#include "app/app.h"
#include "app/run_plan.h"
#include "suites/runner.h"

/* Run every case of plan; returns the exit code (0; 1 when a result
 * failed verification or errored; 2 for an impossible point, see
 * ax_plan_check, which leaves a sweep's points beyond the device's
 * limits out of plan and names them - every such point with
 * skip_beyond_limits, as recommend --measure wants; 4, 5; 130 when
 * interrupted, with everything measured so far committed). */
struct ax_session_efficiency;
/* Who asks for the run, as its row records it. */
struct ax_run_origin {
	const char *command; /* "run" or "recommend": the run's kind */
	const char *label;   /* --label (checked), or NULL: HOST/DEVICE */
};
/* eff: the efficiency settings (NULL: the defaults); origin NULL: a
 * plain `run` with the default label. */
int ax_run_execute(struct ax_app *app, struct ax_plan *plan,
		   const struct ax_runner_opts *opts,
		   const struct ax_session_efficiency *eff,
		   bool skip_beyond_limits, const struct ax_run_origin *origin);

#endif
