/*
 * cli/run_plan.h - turning `axbench run` arguments (suites, --profile,
 * --config, -p sweeps) into the ordered list of cases to measure.
 */
#ifndef AX_RUN_PLAN_H
#define AX_RUN_PLAN_H

#include "core/config.h"
#include "suites/runner.h"
#include "suites/suite.h"

struct ax_plan_case {
	const struct ax_suite *suite;
	struct ax_params params;
};

struct ax_tuned;

struct ax_plan {
	struct ax_config *profile; /* NULL without --profile/--config */
	struct ax_tuned *tuned;	   /* --tuned FILE, applied per device */
	int n;
	struct ax_plan_case *cases;
};

/* One `-p NAME=VALUES` as given on the command line. */
struct ax_plan_override {
	const char *text;
};

/*
 * Build the plan: the profile's cases (filtered to `suites` when any are
 * named), or each named suite's default case, or - with only --tuned (load
 * it first with ax_plan_load_tuned) - the tuned points; then every -p
 * override is
 * applied to the suites that have that parameter, lists multiplying the
 * cases.  Errors name the input and return AX_EINVAL / AX_ECONFIG /
 * AX_ENOTFOUND with the message in err.
 */
int ax_plan_build(struct ax_plan *plan, const char *profile_path, char **suites,
		  int n_suites, const struct ax_plan_override *ov, int n_ov,
		  char *err, size_t errlen);
void ax_plan_release(struct ax_plan *plan);

/* Profile measurement settings fill in what the command line did not set
 * (cli_set: the AX_MEASURE_* bits given as options). */
void ax_plan_apply_measure(const struct ax_config *profile,
			   struct ax_runner_opts *o, unsigned cli_set);

/* The config schema of every registered suite, for the YAML loaders;
 * returns how many entries were written (at most max). */
int ax_plan_schema(struct ax_config_schema *out, int max);

/* Read an `axbench export` document for --tuned into plan->tuned. */
int ax_plan_load_tuned(struct ax_plan *plan, const char *path, char *err,
		       size_t errlen);

#endif
