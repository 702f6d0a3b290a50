/* cli/cmd_run.c - `axbench run`: measure suites and store every sample. */
#include "app/run_exec.h"
#include "app/run_plan.h"
#include "app/session.h"
#include "cli/cli.h"
#include "cli/session_opts.h"

#include "core/db.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/interrupt.h"
#include "core/text.h"
#include "core/vk.h"
#include "suites/registry.h"
#include "suites/runner.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	OPT_YES,
	OPT_ROUNDS,
	OPT_CONCURRENT,
	OPT_SPLIT,
	OPT_ITEMS,
	OPT_DEVICE_ENV,
};

/* run --split: work items of a job, by default and at most. */
#define AX_SPLIT_ITEMS 64
#define AX_SPLIT_MAX_ITEMS 100000

/* More cases than this are asked about first (or need --yes). */
#define AX_RUN_ASK_CASES 1000

static const struct ax_cli_opt run_opts[] = {
    {OPT_PROFILE, "profile", 0, "NAME",
     "run a shipped profile: quick, full or ci (configs/NAME.yaml; "
     "default: quick when no suite is named)"},
    {OPT_CONFIG, "config", 'c', "FILE",
     "run the profile in FILE (YAML; default: none)"},
    {OPT_PARAM, "param", 'p', "NAME=VALUE",
     "set a parameter (default: the suite's, see `axbench suites "
     "SUITE`); VALUE may be a list A,B,C or a range LO..HI (doubling), "
     "LO..HI:xF (times F) or LO..HI:STEP (plus STEP); once per NAME"},
    AX_SESSION_LABEL_OPT,
    {OPT_MIN_SAMPLES, "min-samples", 0, "N", "at least N samples (default 5)"},
    {OPT_MAX_SAMPLES, "max-samples", 0, "N", "at most N samples (default 50)"},
    {OPT_MAX_NOISE, "max-noise", 0, "PCT",
     "stop once the median's 95% CI half-width is below PCT % "
     "(default 2)"},
    {OPT_MIN_TIME, "min-time", 0, "S",
     "sample for at least S seconds (default 0.05)"},
    {OPT_MAX_TIME, "max-time", 0, "S",
     "sample for at most S seconds (default 3)"},
    {OPT_TIMEOUT, "timeout", 0, "S",
     "fail a case whose GPU work takes longer than S seconds (default "
     "10; warm-up, which may include compilation, at least 60 until a "
     "case hung); a hung device is replaced, at most 3 times, and the "
     "run's waits for hung work share one grace period (10 x S, 2-60 s)"},
    {OPT_MODE, "mode", 0, "batch|cold",
     "back-to-back repetitions, or one after a cache scrub (default "
     "batch)"},
    {OPT_WARMUP, "warmup", 0, "N", "untimed repetitions first (default 2)"},
    {OPT_TUNED, "tuned", 0, "FILE",
     "use the tuned parameters of an `axbench export` document for the "
     "cases whose shape it covers; alone, re-run its points (default: "
     "none)"},
    {OPT_SKIP_INVALID, "skip-invalid", 0, NULL,
     "accepted for old scripts: a sweep's points beyond the device's "
     "limits are now always skipped, with the reason"},
    {OPT_YES, "yes", 'y', NULL,
     "run more than 1000 cases without asking (default: ask on a "
     "terminal, else refuse; at most 10000 either way)"},
    AX_SESSION_SUSTAIN_OPT,
    AX_SESSION_EFF_OPTS,
    {OPT_ROUNDS, "rounds", 0, "N",
     "measure the whole case list N times over, interleaved, each pass on "
     "a freshly opened device, so that drift and the noise between "
     "processes enter the results; compare pools the rounds and widens "
     "its minimum effect by their spread (default 1)"},
    {OPT_CONCURRENT, "concurrent", 0, NULL,
     "with --device all (or a list such as 0,1): measure each case on "
     "every device at once, one thread per device, and print each "
     "device's figure and the aggregate (default: one device after "
     "another)"},
    {OPT_SPLIT, "split", 0, NULL,
     "with --device all (or a list): run each case as one job shared by "
     "the devices: each device alone, a fixed even split, then items "
     "taken from one queue as each device finishes (work stealing); "
     "prints each device's share, the job's rate and its speed-up and "
     "efficiency over the best device alone (default: off)"},
    {OPT_ITEMS, "items", 0, "N",
     "--split: work items of each job (default 64)"},
    {OPT_DEVICE_ENV, "device-env", 0, "K:NAME=VALUE",
     "with several devices: set NAME=VALUE while device K's driver "
     "instance is created, as drivers read their settings then (lavapipe: "
     "1:LP_NUM_THREADS=1 gives device 1 one thread); once per device "
     "(default: none)"},
    {OPT_DRY_RUN, "dry-run", 'n', NULL,
     "check every case against the device and list them, with what "
     "would be skipped and why and the tuned parameters; measure "
     "nothing (default: off)"},
    {0},
};

struct run_args {
	const char *profile_path;
	char profile_buf[PATH_MAX];
	struct ax_plan_override ov[64];
	int n_ov;
	struct ax_runner_opts ropts;
	unsigned set; /* AX_MEASURE_* bits the command line set */
	struct ax_session_efficiency eff;
	double sustain_s; /* --sustain; 0: off */
	bool dry_run, yes, concurrent, split;
	int items;
	const char *device_env[AX_RUN_MAX_DEVICES]; /* by device index */
	int rounds;
	const char *tuned_path;
	const char *label; /* --label; NULL: HOST/DEVICE */
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

/* --device-env K:NAME=VALUE: K a device index, NAME a variable name. */
static int parse_device_env(struct ax_app *app, const char *text,
			    struct run_args *a)
{
	char *end;
	long k = strtol(text, &end, 10);
	const char *name = end + 1, *eq = strchr(text, '=');
	size_t len = eq ? (size_t)(eq - name) : 0;
	bool ok = end != text && *end == ':' && k >= 0 &&
		  k < AX_RUN_MAX_DEVICES && eq && eq > name && len < 128 &&
		  (isalpha((unsigned char)*name) || *name == '_');
	for (size_t i = 0; ok && i < len; i++)
		ok = isalnum((unsigned char)name[i]) || name[i] == '_';
	if (!ok)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--device-env %s: expected K:NAME=VALUE, K "
				    "a device index (0 to %d) and NAME a "
				    "variable name, such as 1:LP_NUM_THREADS=1",
				    ax_term(text), AX_RUN_MAX_DEVICES - 1);
	if (a->device_env[k])
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--device-env %s: device %ld has one "
				    "already (%s); give one per device",
				    ax_term(text), k,
				    ax_term(a->device_env[k]));
	a->device_env[k] = name;
	return 0;
}

static int parse_args(struct ax_app *app, int argc, char **argv,
		      struct ax_cli_iter *it, struct run_args *a)
{
	ax_runner_opts_default(&a->ropts);
	ax_session_efficiency_default(&a->eff);
	ax_cli_iter_init(it, app, &ax_cmd_run, argc, argv);
	int opt;
	while ((opt = ax_cli_next(it)) > 0) {
		switch (opt) {
		case OPT_PROFILE:
			snprintf(a->profile_buf, sizeof(a->profile_buf),
				 "%s/%s.yaml", ax_app_config_dir(), it->optarg);
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
				return ax_app_error(app, AX_EXIT_USAGE,
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
			break; /* the default now; kept for old scripts */
		case AX_OPT_LABEL:
			/* Before anything is opened or measured. */
			if (ax_app_check_label(app, "run", it->optarg))
				return AX_EXIT_USAGE;
			a->label = it->optarg;
			break;
		case OPT_YES:
			a->yes = true;
			break;
		case OPT_CONCURRENT:
			a->concurrent = true;
			break;
		case OPT_SPLIT:
			a->split = true;
			break;
		case OPT_ITEMS: {
			long long n;
			if (ax_cli_parse_int(it, 1, AX_SPLIT_MAX_ITEMS, &n))
				return AX_EXIT_USAGE;
			a->items = (int)n;
			break;
		}
		case OPT_DEVICE_ENV:
			if (parse_device_env(app, it->optarg, a))
				return AX_EXIT_USAGE;
			break;
		case OPT_ROUNDS: {
			long long n;
			if (ax_cli_parse_int(it, 1, AX_PLAN_MAX_ROUNDS, &n))
				return AX_EXIT_USAGE;
			a->rounds = (int)n;
			break;
		}
		default: {
			int eff =
			    ax_cli_eff_opt(it, opt, &a->eff, &a->sustain_s);
			if (eff < 0 ||
			    (eff == 0 && parse_measure_opt(it, opt, a)))
				return AX_EXIT_USAGE;
		}
		}
	}
	int end = ax_cli_parse_end(it, opt, 0, -1);
	if (end != AX_CLI_CONTINUE)
		return end == AX_EXIT_OK ? -2 : end;
	a->suites = it->positional;
	a->n_suites = it->n_positional;
	return 0;
}

/* "  tuned: bm=64 bn=64 ...": every tunable of a case --tuned set, under
 * the file's choice ("tuned", or "defaults (no tuned point beat them)"). */
static void tuned_text(const struct ax_plan_case *c, char *buf, size_t len)
{
	const struct ax_params *p = &c->params;
	size_t used = (size_t)snprintf(
	    buf, len, "  %s:",
	    c->tuned ? "tuned" : "defaults (no tuned point beat them)");
	for (int i = 0; i < p->n && used < len; i++) {
		if (!(p->defs[i].flags & AX_PARAM_TUNABLE))
			continue;
		char v[64];
		ax_param_format(&p->defs[i], p->v[i], v, sizeof(v));
		used += (size_t)snprintf(buf + used, len - used, " %s=%s",
					 p->defs[i].name, v);
	}
}

static void print_plan(const struct ax_plan *plan,
		       const struct ax_vk_device_info *info)
{
	int n_tuned = 0, n_defaults = 0, n_unsup = 0;
	for (int i = 0; i < plan->n; i++) {
		const struct ax_plan_case *c = &plan->cases[i];
		char label[512], tuned[1024] = "";
		ax_session_case_label(&c->params, label, sizeof(label));
		if (c->tuned || c->tuned_defaults)
			tuned_text(c, tuned, sizeof(tuned));
		n_tuned += c->tuned;
		n_defaults += c->tuned_defaults;
		printf("%-10s %s%s", c->suite->name, label, tuned);
		/* A feature the device lacks (fp16): the run stores the case
		 * as skipped with this reason. */
		char why[512];
		if (c->suite->check &&
		    c->suite->check(&c->params, info, why, sizeof(why)) ==
			AX_EUNSUPPORTED)
			printf("  skip (stored as skipped): %s", why),
			    n_unsup++;
		printf("\n");
	}
	for (int i = 0; i < plan->n_skipped; i++) {
		const struct ax_plan_skip *k = &plan->skipped[i];
		char label[512], where[1100];
		ax_session_case_label(&k->c.params, label, sizeof(label));
		ax_plan_case_where(plan, &k->c, where, sizeof(where));
		printf("%-10s %s  skip: %s%s\n", k->c.suite->name, label, where,
		       k->why);
	}
	printf("%d case%s on %s", plan->n, plan->n == 1 ? "" : "s", info->name);
	if (plan->n_skipped)
		printf(", %d skipped (beyond its limits, listed with the "
		       "reason)",
		       plan->n_skipped);
	if (n_unsup)
		printf(", %d to be stored as skipped (unsupported here)",
		       n_unsup);
	if (plan->tuned)
		printf(", %d with tuned parameters", n_tuned);
	if (n_defaults)
		printf(", %d with the defaults (the file measured no tuned "
		       "point faster)",
		       n_defaults);
	printf("\n");
}

/* One case of the plan as the dry run's JSON shows it. */
static json_t *plan_case_json(const struct ax_plan_case *c,
			      const struct ax_vk_device_info *info,
			      const char *skip_why)
{
	char label[512], why[512];
	ax_session_case_label(&c->params, label, sizeof(label));
	const char *unsupported =
	    !skip_why && c->suite->check &&
		    c->suite->check(&c->params, info, why, sizeof(why)) ==
			AX_EUNSUPPORTED
		? why
		: NULL;
	return json_pack("{s:s,s:s,s:o,s:b,s:b,s:s?,s:s?}", "suite",
			 c->suite->name, "case", label, "params",
			 ax_params_json(&c->params), "tuned", c->tuned,
			 "tuned_defaults", c->tuned_defaults, "unsupported",
			 unsupported, "beyond_limits", skip_why);
}

/* --dry-run --json: the plan as one document (docs/JSON.md#run). */
static void print_plan_json(const struct ax_plan *plan,
			    const struct ax_vk_device_info *info)
{
	json_t *cases = json_array(), *skipped = json_array();
	for (int i = 0; i < plan->n; i++)
		json_array_append_new(
		    cases, plan_case_json(&plan->cases[i], info, NULL));
	for (int i = 0; i < plan->n_skipped; i++)
		json_array_append_new(skipped,
				      plan_case_json(&plan->skipped[i].c, info,
						     plan->skipped[i].why));
	json_t *doc = json_pack("{s:s,s:s,s:i,s:o,s:o}", "device", info->name,
				"fingerprint", info->fingerprint, "rounds",
				plan->rounds > 1 ? plan->rounds : 1, "cases",
				cases, "skipped", skipped);
	json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
}

/* --dry-run: everything the real run checks before measuring, against
 * the same device, with nothing opened for writing. */
static int dry_run(struct ax_app *app, struct ax_plan *plan)
{
	struct ax_session s;
	ax_session_init(&s, app, "run");
	int rc = ax_session_choose_device(&s);
	if (rc == 0) {
		ax_plan_apply_tuned(plan, s.info->fingerprint);
		rc = ax_plan_apply_defaults(plan, s.info, app);
		if (rc == 0)
			rc = ax_plan_check(plan, s.info, false, "run");
	}
	if (rc == 0 && app->json)
		print_plan_json(plan, s.info);
	else if (rc == 0)
		print_plan(plan, s.info);
	return ax_session_finish(&s, rc);
}

/* A plan of more than AX_RUN_ASK_CASES cases runs only with --yes or a
 * "y" on a terminal; elsewhere (a script, CI) it is refused, so a typo in
 * a range never starts hours of work unasked. */
static int confirm_size(const struct ax_plan *plan, bool yes)
{
	if (plan->n <= AX_RUN_ASK_CASES || yes)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		fprintf(stderr,
			"axbench run: the plan has %d cases, more than the "
			"%d that run starts without asking, and there is no "
			"terminal to ask on; narrow the sweep (fewer values, "
			"LO..HI:STEP with a larger step), check it with "
			"--dry-run, or pass --yes to run them all\n",
			plan->n, AX_RUN_ASK_CASES);
		return AX_EXIT_USAGE;
	}
	fprintf(stderr,
		"axbench run: the plan has %d cases (more than %d); run them "
		"all? [y/N] ",
		plan->n, AX_RUN_ASK_CASES);
	char line[16] = "";
	if (fgets(line, sizeof(line), stdin) &&
	    (line[0] == 'y' || line[0] == 'Y'))
		return 0;
	fprintf(stderr, "axbench run: not started (--dry-run lists the "
			"cases; --yes skips this question)\n");
	return AX_EXIT_USAGE;
}

/* The plan of the arguments: --tuned, the suites or the profile, -p.
 * Built once per device under --device all: each device takes its own
 * defaults and limits into it.  Returns 0 or the exit code. */
static int build_plan(struct ax_app *app, struct run_args *a,
		      struct ax_plan *plan)
{
	char err[2048];
	memset(plan, 0, sizeof(*plan));
	if (a->tuned_path &&
	    ax_plan_load_tuned(plan, a->tuned_path, err, sizeof(err))) {
		fprintf(stderr, "axbench run: --tuned: %s\n", err);
		return AX_EXIT_USAGE;
	}
	if (!a->profile_path && a->n_suites == 0 && !plan->tuned &&
	    a->n_ov > 0) {
		/* Bare `run -p m=5` would run the whole quick profile with m
		 * set only where a suite has it: say which was meant. */
		const char *t = a->ov[0].text;
		fprintf(stderr,
			"axbench run: -p %s names no suite: bare `axbench run` "
			"is the whole quick profile, and -p would change only "
			"its suites that have the parameter; name the suite "
			"(axbench run SUITE -p %s; axbench suites lists them) "
			"or the profile (--profile quick -p %s)\n",
			ax_term(t), ax_term(t), ax_term(t));
		return AX_EXIT_USAGE;
	}
	if (!a->profile_path && a->n_suites == 0 && !plan->tuned) {
		/* Bare `axbench run` is the quick profile. */
		snprintf(a->profile_buf, sizeof(a->profile_buf),
			 "%s/quick.yaml", ax_app_config_dir());
		a->profile_path = a->profile_buf;
	}
	if (ax_plan_build(plan, a->profile_path, a->suites, a->n_suites, a->ov,
			  a->n_ov, err, sizeof(err))) {
		fprintf(stderr, "axbench run: %s\n", err);
		return AX_EXIT_USAGE;
	}
	plan->rounds = a->rounds;
	return 0;
}

/* --device all / 0,1: the devices, in the order given. */
static int resolve_devices(struct ax_app *app, struct ax_run_group *g)
{
	struct ax_vk_instance *inst;
	char err[2048];
	int rc = ax_app_open_vk(app, &inst, NULL);
	if (rc)
		return rc;
	if (ax_vk_select_many(inst, app->device_sel, g->index, &g->n, err,
			      sizeof(err)))
		rc = ax_app_error(app, AX_EXIT_USAGE, "%s", err);
	ax_vk_instance_destroy(inst);
	/* The runs of this command share an id no other command makes. */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long long seed[3] = {(long long)getpid(), (long long)ts.tv_sec,
			     ts.tv_nsec};
	ax_hash_hex(seed, sizeof(seed), g->id);
	return rc;
}

/* Each --device-env to the device's place in the group. */
static int place_device_env(struct ax_app *app, const struct run_args *a,
			    struct ax_run_group *g)
{
	for (int k = 0; k < AX_RUN_MAX_DEVICES; k++) {
		if (!a->device_env[k])
			continue;
		int at = -1;
		for (int i = 0; i < g->n; i++)
			if (g->index[i] == k)
				at = i;
		if (at < 0)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "--device-env %d:%s: device %d is "
					    "not among the devices selected "
					    "(--device %s)",
					    k, ax_term(a->device_env[k]), k,
					    ax_term(app->device_sel));
		g->env[at] = a->device_env[k];
	}
	return 0;
}

/* The group's --json: one document with every device's run. */
static void print_group_json(const struct ax_run_group *g)
{
	json_t *doc = json_pack("{s:s,s:s,s:O}", "group", g->id, "mode",
				g->split	? "split"
				: g->concurrent ? "concurrent"
						: "sequential",
				"runs", g->json_runs);
	json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
}

/*
 * run --device all: each device in its own run of one group, one after
 * another or (--concurrent) at once.  A device that cannot be opened,
 * or is lost, leaves the others to go on; the command then ends
 * "partial" (AX_EXIT_PARTIAL) and says which device and why.
 */
static int run_devices(struct ax_app *app, struct run_args *a,
		       struct ax_plan *first)
{
	struct ax_run_group g = {.concurrent = a->concurrent,
				 .split = a->split};
	int rc = resolve_devices(app, &g);
	if (rc)
		return rc;
	rc = place_device_env(app, a, &g);
	if (rc)
		return rc;
	if (app->json)
		g.json_runs = json_array();
	struct ax_plan plans[AX_RUN_MAX_DEVICES], *pp[AX_RUN_MAX_DEVICES];
	plans[0] = *first;
	memset(first, 0, sizeof(*first)); /* plans[0] owns it now */
	int built = 1;
	for (; rc == 0 && built < g.n; built++)
		rc = build_plan(app, a, &plans[built]);
	for (int k = 0; k < built; k++)
		pp[k] = &plans[k];
	struct ax_run_origin origin = {
	    .command = "run", .label = a->label, .group = &g};
	if (rc == 0 && g.split) {
		rc = ax_run_execute_split(app, pp, &a->ropts, &a->eff, &origin,
					  a->items ? a->items : AX_SPLIT_ITEMS);
	} else if (rc == 0 && g.concurrent) {
		rc = ax_run_execute_concurrent(app, pp, &a->ropts, &a->eff,
					       &origin);
	} else {
		/* A failed result or a device that would not open leaves
		 * the other devices to go on; anything else stops them. */
		bool stop = false;
		for (int k = 0; !stop && k < g.n && !ax_interrupted; k++) {
			g.nth = k;
			int drc = ax_run_execute(app, pp[k], &a->ropts, &a->eff,
						 false, &origin);
			if (drc == AX_EXIT_NODEV)
				ax_run_group_lost(&g, g.index[k],
						  "could not be opened");
			else if (drc == AX_EXIT_FAIL)
				rc = rc ? rc : drc;
			else if (drc)
				rc = drc, stop = true;
		}
	}
	if (g.json_runs)
		print_group_json(&g);
	json_decref(g.json_runs);
	for (int k = 0; k < built; k++)
		ax_plan_release(&plans[k]);
	if (g.n_lost &&
	    (rc == 0 || rc == AX_EXIT_FAIL || rc == AX_EXIT_NODEV)) {
		fprintf(stderr,
			"axbench run: partial: %d of %d devices lost work "
			"(%s); every result measured is stored\n",
			g.n_lost, g.n, g.lost);
		rc = g.n_lost == g.n ? AX_EXIT_NODEV : AX_EXIT_PARTIAL;
	}
	return rc;
}

static int run_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	struct run_args *a = calloc(1, sizeof(*a));
	struct ax_plan plan = {0};
	int rc = a ? parse_args(app, argc, argv, &it, a) : AX_EXIT_FAIL;
	if (rc == 0)
		rc = build_plan(app, a, &plan);
	if (rc == 0 && plan.profile) {
		ax_plan_apply_measure(plan.profile, &a->ropts, a->set);
		if (!app->device_sel && plan.profile->device)
			app->device_sel = plan.profile->device;
	}
	if (rc == 0 && a->sustain_s > 0) {
		rc = ax_session_apply_sustain(app, a->sustain_s, a->set,
					      &a->ropts);
		a->eff.sustain = true;
	}
	if (rc == 0 && a->ropts.max_samples < a->ropts.min_samples)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--max-samples (%d) is below --min-samples "
				  "(%d)",
				  a->ropts.max_samples, a->ropts.min_samples);
	bool many = ax_vk_select_is_many(app->device_sel);
	if (rc == 0 && a->concurrent && !many)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--concurrent measures several devices at "
				  "once: give them with --device all (or a "
				  "list, such as --device 0,1)");
	if (rc == 0 && a->split && !many)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--split shares a job between several "
				  "devices: give them with --device all (or a "
				  "list, such as --device 0,1)");
	if (rc == 0 && a->split && (a->concurrent || a->rounds > 1))
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--split runs its devices together in its "
				  "own phases: leave out %s",
				  a->concurrent ? "--concurrent" : "--rounds");
	if (rc == 0 && a->items && !a->split)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--items is the size of a --split job: add "
				  "--split (and --device all)");
	for (int k = 0; rc == 0 && !many && k < AX_RUN_MAX_DEVICES; k++)
		if (a->device_env[k])
			rc = ax_app_error(
			    app, AX_EXIT_USAGE,
			    "--device-env sets a variable for one of several "
			    "devices: give them with --device all (or a list); "
			    "for one device set it in the environment");
	if (rc == 0 && a->concurrent && a->rounds > 1)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--concurrent and --rounds cannot be "
				  "combined: rounds reopen each device between "
				  "passes, which the devices running together "
				  "would have to do at once; leave one out");
	if (rc == 0 && a->dry_run && many)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--dry-run checks the cases against one "
				  "device: give --device N for each");
	if (rc == 0 && a->dry_run) {
		rc = dry_run(app, &plan);
	} else if (rc == 0 && (rc = confirm_size(&plan, a->yes)) == 0) {
		struct ax_run_origin origin = {.command = "run",
					       .label = a->label};
		rc = many ? run_devices(app, a, &plan)
			  : ax_run_execute(app, &plan, &a->ropts, &a->eff,
					   false, &origin);
	}
	if (a)
		ax_cli_iter_release(&it);
	ax_plan_release(&plan);
	free(a);
	return rc == -2 ? AX_EXIT_OK : rc;
}

static const struct ax_cli_choice run_choices[] = {
    AX_SESSION_EFF_CHOICES,
    {0},
};

const struct ax_cli_cmd ax_cmd_run = {
    .name = "run",
    .summary = "run suites and store every result and sample",
    .usage = "[SUITE...] [--profile NAME | --config FILE] "
	     "[-p NAME=VALUE...] [options]",
    .details =
	"Without suites or a profile, runs the quick profile.  Every case is "
	"checked\nagainst the device first (--dry-run stops there); each "
	"result is verified\nagainst a CPU reference before its time counts "
	"and is committed to the\ndatabase as it finishes, so Ctrl-C keeps "
	"what was measured (exit 130).\n\n"
	"Ranges, one rule for every integer parameter: LO..HI doubles from LO "
	"(LO, 2*LO,\n4*LO, ... up to HI: -p m=64..1024 is 5 cases), "
	"LO..HI:xF multiplies by F\n(64..1024:x4), LO..HI:STEP adds STEP "
	"(64..1024:64 is 16 cases).  Lists and\nranges of several -p "
	"multiply; each NAME may be given once.\n\n"
	"Points of a sweep beyond this device's limits (a buffer over "
	"maxStorageBufferRange,\ntoo much shared memory) are skipped with the "
	"reason; a point asked for alone\nis an error (exit 2), and so is a "
	"point that breaks a suite's own rule\n(`axbench suites NAME` lists "
	"them).  More than 1000 cases need --yes or a \"y\"\non a terminal; "
	"without a terminal such a run is refused (exit 2); 10000 is\nthe "
	"most one run takes.",
    .examples = {"axbench run bandwidth -p size=64K..16M    # a doubling "
		 "sweep: 64K, 128K, ...",
		 "axbench run gemm -p m=256..1024:256 --dry-run   # check and "
		 "list, measure nothing",
		 "axbench run --profile full               # every suite, "
		 "realistic sweeps"},
    .opts = run_opts,
    .choices = run_choices,
    .fn = run_main,
};
