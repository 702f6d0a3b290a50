/*
 * app/run_plan.h - turning `axbench run` arguments (suites, --profile,
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
	struct ax_config_pos
	    pos;    /* in the profile; 0:0 from the command line */
	bool tuned; /* --tuned gave its tunable parameters */
	/* --tuned's entry for it is choice: defaults (no tuned point beat
	 * them): its parameters are the defaults, and it is not "tuned" */
	bool tuned_defaults;
};

/* A point of a sweep left out because it is beyond the device's limits. */
struct ax_plan_skip {
	struct ax_plan_case c;
	char why[512];
};

struct ax_tuned;
struct ax_vk_device_info;

struct ax_plan {
	struct ax_config *profile; /* NULL without --profile/--config */
	struct ax_tuned *tuned;	   /* --tuned FILE, applied per device */
	const char *tuned_path;	   /* that FILE (borrowed) */
	int n;
	struct ax_plan_case *cases;
	int n_skipped; /* after ax_plan_check */
	struct ax_plan_skip *skipped;
	/* run --rounds: passes over the case list (0 or 1: one), each on
	 * a freshly opened logical device; every pass stores its own
	 * results, tagged with their round, which compare pools as
	 * replicates. */
	int rounds;
};

/* At most this many rounds. */
#define AX_PLAN_MAX_ROUNDS 100

/* At most this many cases in one run, --yes or not. */
#define AX_PLAN_MAX_CASES 10000

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

/* What --tuned gave the cases: entries of this device (here) and of
 * another (elsewhere), and how many of those were choice: defaults. */
struct ax_plan_tuned_count {
	int here, elsewhere, defaults;
};

/*
 * --tuned: each case takes the parameters the file gives this device
 * (fingerprint) for its shape, else another device's, else keeps its
 * own.  An entry of choice: tuned marks the case tuned; one of choice:
 * defaults marks it tuned_defaults (the file measured that nothing beat
 * the defaults).
 */
struct ax_plan_tuned_count ax_plan_apply_tuned(struct ax_plan *plan,
					       const char *fingerprint);

/*
 * Check every case against the device, the way the runner will: the
 * parameter rules, then the suite's own check.  A point that breaks a
 * rule no device could meet (gemm's (bm/tm)*(bn/tn) = wg_x*wg_y) is an
 * error; so is a point beyond this device's limits when it is its
 * suite's only case (asked for explicitly).  Points of a sweep (a suite
 * with several cases) beyond the device's limits move to plan->skipped
 * with the reason (so do single points with skip_single).  Each error is
 * printed to stderr, with FILE:LINE:COL for a profile's case.  Returns 0, or
 * AX_EXIT_USAGE after printing (also when no case is left).  command names
 * the messages ("run", "recommend"; NULL: "run").
 */
int ax_plan_check(struct ax_plan *plan, const struct ax_vk_device_info *info,
		  bool skip_single, const char *command);

/* "FILE:LINE:COL: " of a profile's case, or "" (into buf). */
void ax_plan_case_where(const struct ax_plan *plan,
			const struct ax_plan_case *c, char *buf, size_t len);

/* Profile measurement settings fill in what the command line did not set
 * (cli_set: the AX_MEASURE_* bits given as options). */
void ax_plan_apply_measure(const struct ax_config *profile,
			   struct ax_runner_opts *o, unsigned cli_set);

/* Parse and check the profile at path as ax_plan_build does, keeping
 * nothing: for a command that hands the profile on (fleet's scripts) and
 * must refuse a bad one first.  AX_ECONFIG etc. with "PATH:LINE:COL: ..."
 * in err. */
int ax_plan_profile_check(const char *path, char *err, size_t errlen);

/* The config schema of every registered suite, for the YAML loaders;
 * returns how many entries were written (at most max). */
int ax_plan_schema(struct ax_config_schema *out, int max);

/*
 * Per-device defaults (app/run_defaults.c, configs/defaults.yaml).
 * ax_app_load_defaults reads <config dir>/defaults.yaml into *out (NULL,
 * and 0, when there is none); a malformed file is an error, printed,
 * AX_EXIT_USAGE.
 */
struct ax_app;
struct ax_defaults;
struct ax_defaults_entry;
int ax_app_load_defaults(const struct ax_app *app, struct ax_defaults **out);

/* Each case --tuned did not set takes the defaults file's entry for its
 * suite on info (the tunables the user gave stay), told on stderr.
 * Returns 0, or the exit code after printing why the file is bad. */
int ax_plan_apply_defaults(struct ax_plan *plan,
			   const struct ax_vk_device_info *info,
			   const struct ax_app *app);

/* One point: p takes the entry for suite s on info.  Returns 1 when p
 * changed, 0 when it did not (no entry, or the same values), -1 when the
 * entry's point breaks a rule or limit of this device that the suite's
 * own defaults meet: p keeps its values and why says what broke.  *used
 * is the device's entry (applied or not), or NULL. */
int ax_defaults_apply_checked(const struct ax_defaults *d,
			      const struct ax_suite *s, struct ax_params *p,
			      const struct ax_vk_device_info *info,
			      const struct ax_defaults_entry **used, char *why,
			      size_t len);

/* Read an `axbench export` document for --tuned into plan->tuned. */
int ax_plan_load_tuned(struct ax_plan *plan, const char *path, char *err,
		       size_t errlen);

#endif
