/*
 * cli/session.h - one measurement session: what `run`, `tune` and
 * `recommend --measure` share between choosing a device and exiting.
 *
 *   ax_session_init            nothing opened yet
 *   ax_session_choose_device   the Vulkan instance and --device
 *   ax_session_open_db         the database, read-write (once)
 *   ax_session_begin_run       the logical device, host and device rows,
 *                              the run row
 *   ax_session_measure         one case through the runner, stored with
 *                              its samples as it finishes; a device lost
 *                              by an earlier case is replaced first
 *   ax_session_finish          the run's final status, the validation
 *                              verdict, everything closed
 *
 * The runner-result-to-database mapping lives here and nowhere else, and
 * so does the rule for a lost device: the old context is left alone
 * (pending work cannot be reclaimed) and the session goes on with a new
 * logical device, at most AX_SESSION_MAX_REOPENS times; after that the
 * runner stores the remaining cases as skipped, with the reason.
 * Telemetry and CPU baselines, when they come, hook in here too.
 */
#ifndef AX_CLI_SESSION_H
#define AX_CLI_SESSION_H

#include "cli/cli.h"
#include "suites/runner.h"

#include <jansson.h>
#include <stdint.h>

#define AX_SESSION_MAX_REOPENS 3

struct ax_vk_instance;
struct ax_vk_ctx;
struct ax_vk_device_info;
struct ax_db;

/* Fields are read-only for callers. */
struct ax_session {
	struct ax_cli *cli;
	const char *command; /* "run", "tune": names messages */
	struct ax_vk_instance *inst;
	int device_index;
	const struct ax_vk_device_info *info; /* the chosen device */
	struct ax_vk_ctx *vk;		      /* after ax_session_begin_run */
	struct ax_db *db;
	int64_t run_id, host_id, device_id;
	int reopens;		       /* logical devices opened after a loss */
	bool was_lost;		       /* some case lost its device */
	int n_ok, n_failed, n_skipped; /* stored results by outcome */
	bool store_failed;	       /* a measured result was not stored */
};

/* What the run row records besides the command line. */
struct ax_session_run {
	const char *config_json; /* measurement settings, JSON text */
	const char *profile;	 /* profile name, or NULL */
};

/* One measured and stored case. */
struct ax_session_case {
	struct ax_runner_result r; /* release with ax_session_case_release */
	char label[512];	   /* "op=copy size=64M", see below */
	int64_t result_id;	   /* 0 when it could not be stored */
};

/* An empty session for command ("run", "tune"); nothing is opened. */
void ax_session_init(struct ax_session *s, struct ax_cli *cli,
		     const char *command);

/* Create the instance and resolve --device (s->info).  Returns 0 or the
 * exit code (after printing the error). */
int ax_session_choose_device(struct ax_session *s);

/* Open the database read-write, unless already open.  0 or exit code. */
int ax_session_open_db(struct ax_session *s);

/* Open the logical device, register host and device, begin the run row
 * (opening the database first if needed).  0 or the exit code. */
int ax_session_begin_run(struct ax_session *s,
			 const struct ax_session_run *run);

/*
 * Measure suite at point p with opts and store the result with its
 * samples, before returning.  extra (may be NULL, borrowed) holds fields
 * the caller adds to the result's extra JSON (a tuning session's id and
 * the trial's role); the session adds the suite's own facts, bytes moved,
 * repetitions per sample and setup / compile times.  Returns 0, or
 * AX_EXIT_STORAGE after printing what could not be stored (out->r is
 * filled either way).
 */
int ax_session_measure(struct ax_session *s, const struct ax_suite *suite,
		       const struct ax_params *p,
		       const struct ax_runner_opts *opts, const json_t *extra,
		       struct ax_session_case *out);
void ax_session_case_release(struct ax_session_case *c);

/*
 * Finish the run row: "interrupted" when a signal arrived, "failed" when
 * rc is nonzero or a device was lost, else "complete"; then the
 * validation verdict, and everything is closed (whatever was opened:
 * any step may have failed).  Returns the exit code (130 for an
 * interrupt when rc was 0).
 */
int ax_session_finish(struct ax_session *s, int rc);

/* "op=copy size=64M" plus the tunables that differ from their defaults. */
void ax_session_case_label(const struct ax_params *p, char *buf, size_t len);

#endif
