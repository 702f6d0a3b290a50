/* cli/cmd_run.c - `axbench run`: measure suites and store every sample. */
#include "cli/cli.h"
#include "cli/run_exec.h"
#include "cli/run_plan.h"
#include "cli/session.h"

#include "core/db.h"
#include "core/error.h"
#include "suites/registry.h"
#include "suites/runner.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_PROFILE = 1,
	OPT_CONFIG,
	OPT_PARAM,
	OPT_MIN_SAMPLES,
	OPT_MAX_SAMPLES,
	OPT_MAX_NOISE,
	OPT_MIN_TIME,
	OPT_MAX_TIME,
	OPT_TIMEOUT,
	OPT_MODE,
	OPT_WARMUP,
	OPT_DRY_RUN,
	OPT_TUNED,
	OPT_SKIP_INVALID,
};

static const struct ax_cli_opt run_opts[] = {
    {OPT_PROFILE, "profile", 0, "NAME",
     "run a shipped profile: quick, full or ci (configs/NAME.yaml)"},
    {OPT_CONFIG, "config", 'c', "FILE", "run the profile in FILE (YAML)"},
    {OPT_PARAM, "param", 'p', "NAME=VALUE",
     "set a parameter; VALUE may be a list A,B,C or a range LO..HI "
     "(repeatable)"},
    {OPT_MIN_SAMPLES, "min-samples", 0, "N", "at least N samples (5)"},
    {OPT_MAX_SAMPLES, "max-samples", 0, "N", "at most N samples (50)"},
    {OPT_MAX_NOISE, "max-noise", 0, "PCT",
     "stop once the median's 95% CI half-width is below PCT % (2)"},
    {OPT_MIN_TIME, "min-time", 0, "S", "sample for at least S seconds"},
    {OPT_MAX_TIME, "max-time", 0, "S", "sample for at most S seconds (3)"},
    {OPT_TIMEOUT, "timeout", 0, "S",
     "fail a case whose GPU work takes longer than S seconds (10; "
     "warm-up, which may include compilation, at least 60)"},
    {OPT_MODE, "mode", 0, "batch|cold",
     "back-to-back repetitions, or one after a cache scrub"},
    {OPT_WARMUP, "warmup", 0, "N", "untimed repetitions first (2)"},
    {OPT_TUNED, "tuned", 0, "FILE",
     "use the tuned parameters of an `axbench export` document for the "
     "cases whose shape it covers; alone, re-run its points"},
    {OPT_SKIP_INVALID, "skip-invalid", 0, NULL,
     "leave out (and name) points this device cannot run, instead of "
     "refusing the run"},
    {OPT_DRY_RUN, "dry-run", 'n', NULL,
     "validate and list the cases without running them"},
    {0},
};

struct run_args {
	const char *profile_path;
	char profile_buf[PATH_MAX];
	struct ax_plan_override ov[64];
	int n_ov;
	struct ax_runner_opts ropts;
	unsigned set; /* AX_MEASURE_* bits the command line set */
	bool dry_run, skip_invalid;
	const char *tuned_path;
	char **suites;
	int n_suites;
};

static int parse_measure_opt(struct ax_cli_iter *it, int opt,
			     struct run_args *a)
{
	struct ax_runner_opts *o = &a->ropts;
	long long n;
	double d;
	switch (opt) {
	case OPT_MIN_SAMPLES:
	case OPT_MAX_SAMPLES:
	case OPT_WARMUP:
		if (ax_cli_parse_int(it, opt == OPT_WARMUP ? 0 : 1, 1000000,
				     &n))
			return -1;
		if (opt == OPT_MIN_SAMPLES)
			o->min_samples = (int)n,
			a->set |= AX_MEASURE_MIN_SAMPLES;
		else if (opt == OPT_MAX_SAMPLES)
			o->max_samples = (int)n,
			a->set |= AX_MEASURE_MAX_SAMPLES;
		else
			o->warmup = (int)n, a->set |= AX_MEASURE_WARMUP;
		return 0;
	case OPT_MAX_NOISE:
		if (ax_cli_parse_double(it, 0.001, 100, &d))
			return -1;
		o->max_noise = d / 100, a->set |= AX_MEASURE_MAX_NOISE;
		return 0;
	case OPT_MIN_TIME:
	case OPT_MAX_TIME:
	case OPT_TIMEOUT:
		if (ax_cli_parse_double(it, opt == OPT_MIN_TIME ? 0 : 0.001,
					86400, &d))
			return -1;
		if (opt == OPT_MIN_TIME)
			o->min_time_s = d, a->set |= AX_MEASURE_MIN_TIME;
		else if (opt == OPT_MAX_TIME)
			o->max_time_s = d, a->set |= AX_MEASURE_MAX_TIME;
		else
			o->timeout_s = d, a->set |= AX_MEASURE_TIMEOUT;
		return 0;
	case OPT_MODE:
		if (strcmp(it->optarg, "batch") && strcmp(it->optarg, "cold")) {
			fprintf(stderr,
				"axbench run: --mode must be batch or "
				"cold (got '%s')\n",
				it->optarg);
			return -1;
		}
		o->mode = it->optarg[0] == 'c' ? AX_MODE_COLD : AX_MODE_BATCH;
		a->set |= AX_MEASURE_MODE;
		return 0;
	}
	return -1;
}

extern const struct ax_cli_cmd ax_cmd_run;

static int parse_args(struct ax_cli *cli, int argc, char **argv,
		      struct ax_cli_iter *it, struct run_args *a)
{
	ax_runner_opts_default(&a->ropts);
	ax_cli_iter_init(it, cli, &ax_cmd_run, argc, argv);
	int opt;
	while ((opt = ax_cli_next(it)) > 0) {
		switch (opt) {
		case OPT_PROFILE:
			snprintf(a->profile_buf, sizeof(a->profile_buf),
				 "%s/%s.yaml", ax_cli_config_dir(), it->optarg);
			if (access(a->profile_buf, R_OK) != 0) {
				fprintf(stderr,
					"axbench run: no profile '%s' (%s "
					"not readable); shipped profiles: "
					"quick, full, ci\n",
					it->optarg, a->profile_buf);
				return AX_EXIT_USAGE;
			}
			a->profile_path = a->profile_buf;
			break;
		case OPT_CONFIG:
			a->profile_path = it->optarg;
			break;
		case OPT_PARAM:
			if (a->n_ov >= 64)
				return ax_cli_error(cli, AX_EXIT_USAGE,
						    "too many -p options");
			a->ov[a->n_ov++].text = it->optarg;
			break;
		case OPT_DRY_RUN:
			a->dry_run = true;
			break;
		case OPT_TUNED:
			a->tuned_path = it->optarg;
			break;
		case OPT_SKIP_INVALID:
			a->skip_invalid = true;
			break;
		default:
			if (parse_measure_opt(it, opt, a))
				return AX_EXIT_USAGE;
		}
	}
	int end = ax_cli_parse_end(it, opt, 0, -1);
	if (end != AX_CLI_CONTINUE)
		return end == AX_EXIT_OK ? -2 : end;
	a->suites = it->positional;
	a->n_suites = it->n_positional;
	return 0;
}

static void print_plan(const struct ax_plan *plan)
{
	for (int i = 0; i < plan->n; i++) {
		char label[512];
		ax_session_case_label(&plan->cases[i].params, label,
				      sizeof(label));
		printf("%-10s %s\n", plan->cases[i].suite->name, label);
	}
	printf("%d case%s\n", plan->n, plan->n == 1 ? "" : "s");
}

static int run_main(struct ax_cli *cli, int argc, char **argv)
{
	struct ax_cli_iter it;
	struct run_args *a = calloc(1, sizeof(*a));
	struct ax_plan plan = {0};
	char err[2048];
	int rc = a ? parse_args(cli, argc, argv, &it, a) : AX_EXIT_FAIL;
	if (rc == 0 && a->tuned_path &&
	    ax_plan_load_tuned(&plan, a->tuned_path, err, sizeof(err))) {
		fprintf(stderr, "axbench run: --tuned: %s\n", err);
		rc = AX_EXIT_USAGE;
	}
	if (rc == 0 && !a->profile_path && a->n_suites == 0 && !plan.tuned) {
		/* Bare `axbench run` is the quick profile. */
		snprintf(a->profile_buf, sizeof(a->profile_buf),
			 "%s/quick.yaml", ax_cli_config_dir());
		a->profile_path = a->profile_buf;
	}
	if (rc == 0 &&
	    ax_plan_build(&plan, a->profile_path, a->suites, a->n_suites, a->ov,
			  a->n_ov, err, sizeof(err))) {
		fprintf(stderr, "axbench run: %s\n", err);
		rc = AX_EXIT_USAGE;
	}
	if (rc == 0 && plan.profile) {
		ax_plan_apply_measure(plan.profile, &a->ropts, a->set);
		if (!cli->device_sel && plan.profile->device)
			cli->device_sel = plan.profile->device;
	}
	if (rc == 0 && a->ropts.max_samples < a->ropts.min_samples)
		rc = ax_cli_error(cli, AX_EXIT_USAGE,
				  "--max-samples (%d) is below --min-samples "
				  "(%d)",
				  a->ropts.max_samples, a->ropts.min_samples);
	if (rc == 0 && a->dry_run)
		print_plan(&plan);
	else if (rc == 0)
		rc = ax_run_execute(cli, &plan, &a->ropts, a->skip_invalid);
	if (a)
		ax_cli_iter_release(&it);
	ax_plan_release(&plan);
	free(a);
	return rc == -2 ? AX_EXIT_OK : rc;
}

const struct ax_cli_cmd ax_cmd_run = {
    .name = "run",
    .summary = "run suites and store every result and sample",
    .usage = "[SUITE...] [--profile NAME | --config FILE] "
	     "[-p NAME=VALUE...] [options]",
    .details = "Without suites or a profile, runs the quick profile.  Every "
	       "case is checked\nagainst the device first; each result is "
	       "verified against a CPU reference\nbefore its time counts and "
	       "is committed to the database as it finishes, so\nCtrl-C "
	       "keeps what was measured (exit 130).",
    .opts = run_opts,
    .fn = run_main,
};
