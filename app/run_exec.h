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

#include <jansson.h>

/* Run every case of plan; returns the exit code (0; 1 when a result
 * failed verification or errored; 2 for an impossible point, see
 * ax_plan_check, which leaves a sweep's points beyond the device's
 * limits out of plan and names them - every such point with
 * skip_beyond_limits, as recommend --measure wants; 4, 5; 130 when
 * interrupted, with everything measured so far committed). */
struct ax_session_efficiency;
/* At most this many devices in one command (AX_VK_MAX_SELECTED). */
#define AX_RUN_MAX_DEVICES 16

/*
 * `run --device all` (or a list): one run per device, all of one group.
 * A run is one device's session (its idle power, its lost-device status,
 * its label, the device the run row names), so every reader that keys a
 * run to one device stays right; the group ties the runs of one command
 * together in each run's configuration ("devices": group, nth, of, mode).
 */
struct ax_run_group {
	char id[17];			/* hex, shared by the group's runs */
	int n;				/* devices, in the order given */
	int index[AX_RUN_MAX_DEVICES];	/* their Vulkan indices */
	int nth;			/* this run's: index[nth] */
	bool concurrent;		/* --concurrent */
	bool split;			/* --split */
	json_t *json_runs;		/* --json: each run's document */
	/* --device-env K:NAME=VALUE: set while device index[k]'s instance
	 * is created (drivers read their environment then: lavapipe's
	 * LP_NUM_THREADS), NULL for none. */
	const char *env[AX_RUN_MAX_DEVICES];
	int n_lost;			/* devices that could not run */
	char lost[512];			/* which, and why (the first few) */
};

/* Who asks for the run, as its row records it. */
struct ax_run_origin {
	const char *command; /* "run" or "recommend": the run's kind */
	const char *label;   /* --label (checked), or NULL: HOST/DEVICE */
	struct ax_run_group *group; /* NULL: the one device of --device */
};
/* eff: the efficiency settings (NULL: the defaults); origin NULL: a
 * plain `run` with the default label. */
int ax_run_execute(struct ax_app *app, struct ax_plan *plan,
		   const struct ax_runner_opts *opts,
		   const struct ax_session_efficiency *eff,
		   bool skip_beyond_limits, const struct ax_run_origin *origin);

/* Note that device (its Vulkan index) of g could not run, and why
 * ("could not be opened"): the command ends "partial". */
void ax_run_group_lost(struct ax_run_group *g, int device, const char *why);

/*
 * run --device all --concurrent: every device of origin->group measures
 * each case at the same time, one thread per device, their timed spans
 * started together; plans[k] is device k's plan (each takes its own
 * device's defaults and limits, and all must come out as the same
 * cases).  Each device's result is stored in its own run, with the
 * aggregate of the devices in its extra ("concurrent": devices,
 * aggregate, rule: sum of rates, or the slowest device's time).
 * Returns the exit code as ax_run_execute does.
 */
int ax_run_execute_concurrent(struct ax_app *app, struct ax_plan **plans,
			      const struct ax_runner_opts *opts,
			      const struct ax_session_efficiency *eff,
			      const struct ax_run_origin *origin);

/*
 * run --device all --split: each case a job of `items` equal work items
 * (each the repetitions the first device's probe chose) shared by the
 * devices of origin->group: each device alone on items / devices of them,
 * then all at once with a fixed even split, then all at once taking items
 * from one queue as each finishes (app/run_split.c).  Each phase's result
 * on each device is stored in that device's run with extra.split (phase,
 * items done, share, the job's rate and wall time, the best device
 * alone, speed-up, efficiency, items re-queued).  A device that fails an
 * item takes no more; in the dynamic phase its item is re-queued and done
 * by another device.  Returns the exit code as ax_run_execute does.
 */
int ax_run_execute_split(struct ax_app *app, struct ax_plan **plans,
			 const struct ax_runner_opts *opts,
			 const struct ax_session_efficiency *eff,
			 const struct ax_run_origin *origin, int items);

#endif
