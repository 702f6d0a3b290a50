/*
 * cli/tune.h - `axbench tune`: live tuning of a suite on a device (each
 * trial a full runner measurement, stored as it finishes) and replay of a
 * recorded landscape (no GPU).
 */
#ifndef AX_CLI_TUNE_H
#define AX_CLI_TUNE_H

#include "cli/cli.h"
#include "suites/runner.h"
#include "suites/suite.h"

#include <stdbool.h>
#include <stdint.h>

/* With --resume, a strategy of NULL, this seed and a budget of 0 mean
 * "not given": the session's stored ones are used. */
#define AX_TUNE_SEED_UNSET UINT64_MAX

struct ax_tune_args {
	const struct ax_suite *suite;
	struct ax_params base; /* shape from -p, tunables default */
	const char *strategy;
	uint64_t seed;
	size_t budget;
	double time_limit_s;
	int64_t resume_session;		  /* 0: a new session */
	int retime_top;			  /* re-time this many best points */
	bool no_early_stop;		  /* only budget / time limit stop */
	int stop_rule;			  /* enum ax_stop_rule, from
					   * --stop-rule (default ei) */
	bool stop_rule_given;		  /* --stop-rule or --no-early-stop */
	struct ax_runner_opts trial_opts; /* quick sampling per trial */
	struct ax_runner_opts final_opts; /* careful sampling at the end */
};

struct ax_tuner_options;
/* The tuner's options from the command line's. */
void ax_tune_options(const struct ax_tune_args *a, struct ax_tuner_options *o);

/* Run a live session; returns the exit code. */
int ax_tune_live(struct ax_cli *cli, struct ax_tune_args *a);

#endif
