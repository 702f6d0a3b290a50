/* cli/cmd_tune.c - `axbench tune`: options, replay mode, live dispatch. */
#include "app/tune.h"
#include "cli/cli.h"
#include "cli/session_opts.h"

#include "core/error.h"
#include "suites/registry.h"
#include "tuner/replay.h"
#include "tuner/strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -p options one tune takes (a shape has a handful of parameters). */
#define MAX_PARAMS 32

enum {
	OPT_PARAM = 1,
	OPT_STRATEGY,
	OPT_BUDGET,
	OPT_TIME,
	OPT_SEED,
	OPT_RESUME,
	OPT_REPLAY,
	OPT_RETIME,
	OPT_NO_EARLY_STOP,
	OPT_STOP_RULE,
	OPT_TIMEOUT,
	OPT_PRIOR,
	OPT_OBJECTIVE,
	OPT_MODE,
};

/* With --replay FILE --prior OTHER, the prior is a bo session of this many
 * evaluations on OTHER (what a user who tuned that device first has). */
#define REPLAY_PRIOR_BUDGET 100

static const struct ax_cli_opt tune_opts[] = {
    {OPT_PARAM, "param", 'p', "NAME=VALUE",
     "fix a shape parameter (repeatable; one value each; default: the "
     "suite's, see `axbench suites SUITE`)"},
    {OPT_STRATEGY, "strategy", 0, "NAME", "search strategy (default bo)"},
    {OPT_BUDGET, "budget", 'b', "N", "at most N evaluations (default 40)"},
    {OPT_TIME, "time", 0, "S",
     "stop after S seconds of tuning (default: no time limit)"},
    {OPT_SEED, "seed", 0, "N",
     "random seed: same seed, same session (default 1)"},
    {OPT_RESUME, "resume", 0, "SESSION",
     "continue a stored session (its shape, strategy, seed, budget; "
     "default: a new session)"},
    {OPT_REPLAY, "replay", 0, "FILE",
     "tune against a recorded Kernel Tuner cache file (.json[.gz]): "
     "no GPU (default: tune live on the device)"},
    {OPT_PRIOR, "prior", 0, "PRIOR",
     "learn from an earlier tuning session: auto takes the newest of this "
     "suite with the same shape on this device, else the same shape on "
     "another device, else another shape on this device; none tunes cold; "
     "a SESSION id names one; with --replay, a FILE of the same kernel on "
     "another device (default auto; --resume keeps the session's own)"},
    {OPT_OBJECTIVE, "objective", 0, "NAME",
     "what to minimise per repetition: time, energy (J, from the device's "
     "power sensor), edp (energy x time), or time,energy for their Pareto "
     "front (with --replay: of a landscape that records energy or power); "
     "energy objectives need a sensor (default time; --resume keeps the "
     "session's)"},
    {OPT_MODE, "mode", 0, "batch|cold",
     "sample every trial as it will run: batch times repetitions back to "
     "back (caches warm), cold scrubs the caches before each single "
     "repetition, as `run --mode cold` does; stored with the session and "
     "its export (default batch; --resume keeps the session's)"},
    AX_SESSION_EFF_OPTS,
    AX_SESSION_LABEL_OPT,
    {OPT_STOP_RULE, "stop-rule", 0, "RULE",
     "when to stop before the budget: ei once the model is sure no untried "
     "point can gain 0.01 % (bo only), gain after no 1 % gain in 20 "
     "evaluations, none never (default ei)"},
    {OPT_NO_EARLY_STOP, "no-early-stop", 0, NULL,
     "stop only at the budget or time limit (the stop rule none)"},
    {OPT_RETIME, "retime", 0, "K",
     "re-time the K best points with more samples at the end "
     "(default 3)"},
    {OPT_TIMEOUT, "timeout", 0, "S",
     "fail a trial whose GPU work takes longer than S seconds (default "
     "10; "
     "warm-up, which may include compilation, at least 60 until a trial "
     "hung); a device that stays hung is replaced, and the waits for "
     "hung work share one grace period (10 x S, 2-60 s)"},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_tune;

struct tune_cli {
	struct ax_tune_args a;
	const char *suite_name;
	const char *replay;
	const char *prior; /* --prior's text, until the mode is known */
	bool stop_rule_set;
	const char *params[MAX_PARAMS];
	int n_params;
};

/* ax_cli_next has checked the name against ax_tune_objectives. */
static enum ax_tune_objective parse_objective(const char *name)
{
	const char *const *names = ax_tune_objectives();
	for (int i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return (enum ax_tune_objective)(AX_OBJ_TIME + i);
	return AX_OBJ_TIME;
}

static const char *const *tune_modes(void)
{
	static const char *const names[] = {"batch", "cold", NULL};
	return names;
}

/* ax_cli_next has checked the name against tune_modes. */
static void parse_mode(const char *name, struct ax_tune_args *a)
{
	a->mode = strcmp(name, "cold") == 0 ? AX_MODE_COLD : AX_MODE_BATCH;
	a->mode_given = true;
}

static int parse_num_opts(struct ax_cli_iter *it, int opt, struct tune_cli *t)
{
	long long n;
	double d;
	switch (opt) {
	case OPT_BUDGET:
		if (ax_cli_parse_int(it, 1, 1000000, &n))
			return -1;
		t->a.budget = (size_t)n;
		return 0;
	case OPT_TIME:
		if (ax_cli_parse_double(it, 0.1, 86400 * 7, &d))
			return -1;
		t->a.time_limit_s = d;
		return 0;
	case OPT_SEED:
		if (ax_cli_parse_int(it, 0, INT64_MAX, &n))
			return -1;
		t->a.seed = (uint64_t)n;
		return 0;
	case OPT_RESUME:
		if (ax_cli_parse_int(it, 1, INT64_MAX, &n))
			return -1;
		t->a.resume_session = n;
		return 0;
	case OPT_RETIME:
		if (ax_cli_parse_int(it, 0, 8, &n))
			return -1;
		t->a.retime_top = (int)n;
		return 0;
	case OPT_TIMEOUT:
		if (ax_cli_parse_double(it, 0.001, 86400, &d))
			return -1;
		t->a.trial_opts.timeout_s = d;
		t->a.final_opts.timeout_s = d;
		return 0;
	}
	return -1;
}

static int parse_stop_rule(struct ax_app *app, const char *name,
			   struct tune_cli *t)
{
	enum ax_stop_rule r;
	char err[128];
	if (ax_stop_rule_parse(name, &r, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE, "--stop-rule: %s", err);
	t->a.stop_rule = (int)r;
	t->stop_rule_set = true;
	return 0;
}

static int parse(struct ax_app *app, int argc, char **argv, struct tune_cli *t)
{
	struct ax_cli_iter it;
	int opt, rc = 0;
	ax_cli_iter_init(&it, app, &ax_cmd_tune, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_PARAM && t->n_params == MAX_PARAMS)
			rc = ax_app_error(app, AX_EXIT_USAGE,
					  "-p %s: at most %d -p options",
					  it.optarg, MAX_PARAMS);
		else if (opt == OPT_PARAM)
			t->params[t->n_params++] = it.optarg;
		else if (opt == OPT_STRATEGY)
			t->a.strategy = it.optarg;
		else if (opt == OPT_REPLAY)
			t->replay = it.optarg;
		else if (opt == OPT_PRIOR)
			t->prior = it.optarg;
		else if (opt == OPT_NO_EARLY_STOP)
			t->a.no_early_stop = true;
		else if (opt == OPT_STOP_RULE)
			rc = parse_stop_rule(app, it.optarg, t);
		else if (opt == OPT_OBJECTIVE)
			t->a.objective = parse_objective(it.optarg);
		else if (opt == OPT_MODE)
			parse_mode(it.optarg, &t->a);
		else if (opt == AX_OPT_LABEL) {
			t->a.label = it.optarg;
			rc = ax_app_check_label(app, "tune", it.optarg);
		} else if (opt >= AX_OPT_SUSTAIN && opt <= AX_OPT_CPU_BASELINE)
			rc = ax_cli_eff_opt(&it, opt, &t->a.eff, NULL) < 0
				 ? AX_EXIT_USAGE
				 : 0;
		else if (parse_num_opts(&it, opt, t))
			rc = AX_EXIT_USAGE;
	}
	if (rc == 0) {
		int end = ax_cli_parse_end(&it, opt, 0, 1);
		rc = end == AX_CLI_CONTINUE ? 0 : end == AX_EXIT_OK ? -2 : end;
	}
	if (rc == 0 && t->a.no_early_stop && t->stop_rule_set &&
	    t->a.stop_rule != AX_STOP_NONE)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--no-early-stop and --stop-rule %s "
				  "contradict; give one of them",
				  ax_stop_rule_name(t->a.stop_rule));
	t->a.stop_rule_given = t->stop_rule_set || t->a.no_early_stop;
	if (rc == 0 && it.n_positional == 1)
		t->suite_name = it.positional[0];
	/* With --replay the prior is a landscape file; live, a session. */
	char perr[256];
	if (rc == 0 && t->prior && !t->replay &&
	    ax_tune_prior_parse(t->prior, &t->a, perr, sizeof(perr)))
		rc = ax_app_error(app, AX_EXIT_USAGE, "--prior: %s", perr);
	if (rc == 0 && !t->suite_name && !t->replay && !t->a.resume_session)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "tune needs a SUITE, --resume SESSION or "
				  "--replay FILE");
	ax_cli_iter_release(&it);
	return rc;
}

/* Shape parameters from -p NAME=VALUE; tunables are the tuner's. */
static int set_shape(struct ax_app *app, struct tune_cli *t)
{
	const struct ax_suite *s = t->a.suite;
	char why[512];
	if (ax_params_check_unique(t->params, t->n_params, why, sizeof(why)))
		return ax_app_error(app, AX_EXIT_USAGE, "%s", why);
	ax_params_init(&t->a.base, s->params, s->n_params);
	for (int i = 0; i < t->n_params; i++) {
		char name[64], err[512];
		const char *eq = strchr(t->params[i], '=');
		if (!eq || (size_t)(eq - t->params[i]) >= sizeof(name))
			return ax_app_error(app, AX_EXIT_USAGE,
					    "-p %s: expected NAME=VALUE",
					    t->params[i]);
		memcpy(name, t->params[i], (size_t)(eq - t->params[i]));
		name[eq - t->params[i]] = '\0';
		int k = ax_params_find(&t->a.base, name);
		if (k >= 0 && (s->params[k].flags & AX_PARAM_TUNABLE))
			return ax_app_error(app, AX_EXIT_USAGE,
					    "-p %s: %s is what tune searches; "
					    "give only shape parameters",
					    t->params[i], name);
		if (ax_params_set(&t->a.base, name, eq + 1, err, sizeof(err)))
			return ax_app_error(app, AX_EXIT_USAGE, "-p %s: %s",
					    t->params[i], err);
	}
	return 0;
}

/* JSON has no NaN or infinity: such a figure is null. */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* --replay FILE --prior OTHER: the prior from a bo session on OTHER. */
static int replay_prior(struct ax_app *app, struct tune_cli *t,
			const struct ax_landscape *l, struct ax_prior **p)
{
	struct ax_landscape *other;
	char err[1024];
	*p = NULL;
	if (!t->prior)
		return 0;
	if (ax_replay_load(t->prior, &other, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE, "--prior: %s", err);
	int rc = ax_replay_prior(l, other, t->a.seed, REPLAY_PRIOR_BUDGET, p,
				 err, sizeof(err));
	ax_landscape_destroy(other);
	if (rc)
		return ax_app_error(app, ax_app_exit_code(rc), "--prior %s: %s",
				    t->prior, err);
	return 0;
}

/* The prior as the JSON output names it; null when cold. */
static json_t *replay_prior_json(const struct tune_cli *t,
				 const struct ax_prior *p)
{
	if (!p)
		return json_null();
	return json_pack("{s:s,s:I,s:I,s:I,s:I}", "landscape", t->prior,
			 "prior_evals", (json_int_t)REPLAY_PRIOR_BUDGET, "used",
			 (json_int_t)ax_prior_used(p), "left_out",
			 (json_int_t)ax_prior_left_out(p), "failed",
			 (json_int_t)ax_prior_failed(p));
}

/* The figures every replay report gives: how near the optimum the best
 * found came, what random search expects after as many evaluations, and
 * the tuner's own cost per proposal. */
struct replay_figures {
	double ratio, rand_expect, per_ask_ms;
};

static struct replay_figures replay_figures(const struct ax_landscape *l,
					    const struct ax_replay_result *r)
{
	struct replay_figures f = {.rand_expect = NAN};
	ax_replay_random_stats(l, r->evals, &f.rand_expect, NULL, NULL);
	f.ratio = r->best_found / l->optimum;
	f.per_ask_ms = r->evals ? r->tuner_s / (double)r->evals * 1e3 : 0;
	return f;
}

/* The measured front: each point's parameters, time and energy, the
 * knee marked; and how it compares with the landscape's whole front. */
static json_t *replay_front_json(const struct ax_landscape *l,
				 const struct ax_replay_result *r)
{
	json_t *pts = json_array();
	for (size_t j = 0; j < r->nfront; j++) {
		size_t i = r->front[j];
		json_t *p = json_object();
		for (int d = 0; d < ax_space_ndims(l->space); d++)
			json_object_set_new(
			    p, ax_space_dim_name(l->space, d),
			    json_real(ax_space_value(l->space, i, d)));
		json_array_append_new(
		    pts,
		    json_pack("{s:I,s:o,s:f,s:f,s:b}", "index", (json_int_t)i,
			      "params", p, "time_ms", l->cost[i], "energy_j",
			      l->energy[i], "knee", j == r->knee));
	}
	return json_pack("{s:o,s:I,s:f}", "points", pts, "landscape_front",
			 (json_int_t)r->true_front, "hypervolume_ratio",
			 r->hv_ratio);
}

static void print_replay_front(const struct ax_landscape *l,
			       const struct ax_replay_result *r)
{
	printf("Pareto front of time and energy: %zu points measured "
	       "(the whole landscape's front has %zu); they reach %.1f %% "
	       "of its hypervolume\n",
	       r->nfront, r->true_front, 100 * r->hv_ratio);
	for (size_t j = 0; j < r->nfront; j++) {
		size_t i = r->front[j];
		printf("  %s %10.5g ms %10.5g J ",
		       j == r->knee ? "knee" : "    ", l->cost[i],
		       l->energy[i]);
		for (int d = 0; d < ax_space_ndims(l->space); d++)
			printf(" %s=%g", ax_space_dim_name(l->space, d),
			       ax_space_value(l->space, i, d));
		putchar('\n');
	}
}

static void print_replay_json(const struct tune_cli *t,
			      const struct ax_landscape *l,
			      const struct ax_prior *prior,
			      const struct ax_tuner_options *o,
			      const struct ax_replay_result *r,
			      const double *trace)
{
	struct replay_figures f = replay_figures(l, r);
	json_t *tr = json_array();
	for (size_t i = 0; i < r->evals; i++)
		json_array_append_new(tr, real_or_null(trace[i]));
	json_t *o2 = json_pack(
	    "{s:s,s:s,s:s,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:s,s:o}",
	    "landscape", t->replay, "strategy", t->a.strategy, "stop_rule",
	    ax_stop_rule_name(o->stop_rule), "seed", (json_int_t)t->a.seed,
	    "points", (json_int_t)l->n, "evals", (json_int_t)r->evals,
	    "optimum", real_or_null(l->optimum), "best_found",
	    real_or_null(r->best_found), "best_over_optimum",
	    real_or_null(f.ratio), "random_expected_ratio",
	    real_or_null(f.rand_expect), "ms_per_proposal",
	    real_or_null(f.per_ask_ms), "stop_reason", r->stop_reason, "trace",
	    tr);
	json_object_set_new(o2, "prior", replay_prior_json(t, prior));
	json_object_set_new(
	    o2, "objective",
	    json_string(o->objectives == 2 ? "time,energy" : "time"));
	if (o->objectives == 2)
		json_object_set_new(o2, "front", replay_front_json(l, r));
	json_dumpf(o2, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(o2);
}

static void print_replay_text(const struct tune_cli *t,
			      const struct ax_landscape *l,
			      const struct ax_prior *prior,
			      const struct ax_tuner_options *o,
			      const struct ax_replay_result *r)
{
	struct replay_figures f = replay_figures(l, r);
	printf("landscape: %s (%zu points, %zu failed)\n", t->replay, l->n,
	       l->nfailed);
	if (prior)
		printf("prior: %s (a bo session of %d evaluations "
		       "there): %zu successes used, %zu left out, %zu "
		       "failed\n",
		       t->prior, REPLAY_PRIOR_BUDGET, ax_prior_used(prior),
		       ax_prior_left_out(prior), ax_prior_failed(prior));
	printf("strategy %s, seed %llu, stop rule %s: %zu "
	       "evaluations (%s)\n",
	       t->a.strategy, (unsigned long long)t->a.seed,
	       ax_stop_rule_name(o->stop_rule), r->evals, r->stop_reason);
	printf("best found %.6g, optimum %.6g: %.4f x optimum "
	       "(random search expects %.4f x)\n",
	       r->best_found, l->optimum, f.ratio, f.rand_expect);
	printf("tuner time %.2f ms per proposal\n", f.per_ask_ms);
}

static int replay_main(struct ax_app *app, struct tune_cli *t)
{
	struct ax_landscape *l;
	struct ax_prior *prior;
	char err[1024];
	if (ax_replay_load(t->replay, &l, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE, "%s", err);
	int prc = replay_prior(app, t, l, &prior);
	if (prc) {
		ax_landscape_destroy(l);
		return prc;
	}
	struct ax_tuner_options o;
	ax_tuner_options_init(&o);
	ax_tune_options(&t->a, &o);
	o.prior = prior;
	struct ax_replay_result r;

	double *trace = calloc(t->a.budget, sizeof(double));
	int rc = trace ? ax_replay_run(l, t->a.strategy, t->a.seed, &o, trace,
				       t->a.budget, &r, err, sizeof(err))
		       : AX_ENOMEM;
	if (rc) {
		free(trace);
		ax_prior_destroy(prior);
		ax_landscape_destroy(l);
		return ax_app_error(app, ax_app_exit_code(rc), "tune: %s", err);
	}
	if (app->json)
		print_replay_json(t, l, prior, &o, &r, trace);
	else
		print_replay_text(t, l, prior, &o, &r);
	if (o.objectives == 2 && !app->json)
		print_replay_front(l, &r);
	free(trace);
	ax_prior_destroy(prior);
	ax_landscape_destroy(l);
	return AX_EXIT_OK;
}

static void default_measurement(struct ax_tune_args *a)
{
	/* Trials are many: quick, but still verified and noise-aware. */
	ax_runner_opts_default(&a->trial_opts);
	a->trial_opts.min_samples = 3;
	a->trial_opts.max_samples = 15;
	a->trial_opts.max_noise = 0.03;
	a->trial_opts.min_time_s = 0.02;
	a->trial_opts.max_time_s = 1.0;
	a->trial_opts.warmup = 1;
	ax_runner_opts_default(&a->final_opts);
}

/*
 * --resume SESSION: the session's suite, shape, strategy, seed and budget
 * are stored with it, so SUITE may be left out.  A SUITE that is given
 * must be the session's (checked once the session is read); a shape
 * given with -p would be silently replaced by the stored one, so it is
 * refused instead.
 */
static int resume_main(struct ax_app *app, struct tune_cli *t)
{
	if (t->n_params)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "-p %s: --resume continues session %lld "
				    "with the shape stored with it; give no "
				    "-p (start a new session for another "
				    "shape)",
				    t->params[0],
				    (long long)t->a.resume_session);
	if (t->suite_name && !(t->a.suite = ax_suite_find(t->suite_name)))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "unknown suite '%s' (axbench suites lists "
				    "them; with --resume the suite may be left "
				    "out)",
				    t->suite_name);
	return ax_tune_live(app, &t->a);
}

static int tune_main(struct ax_app *app, int argc, char **argv)
{
	struct tune_cli *t = calloc(1, sizeof(*t));
	if (!t)
		return AX_EXIT_FAIL;
	/* Unset until parsed: --resume takes them from the session (and
	 * refuses a strategy or seed that disagrees); otherwise defaults. */
	t->a.strategy = NULL;
	t->a.seed = AX_TUNE_SEED_UNSET;
	t->a.budget = 0;
	t->a.retime_top = 3;
	default_measurement(&t->a);
	ax_session_efficiency_default(&t->a.eff);
	int rc = parse(app, argc, argv, t);
	if (!t->a.resume_session) {
		t->a.strategy = t->a.strategy ? t->a.strategy : "bo";
		t->a.seed = t->a.seed == AX_TUNE_SEED_UNSET ? 1 : t->a.seed;
		t->a.budget = t->a.budget ? t->a.budget : 40;
	}
	if (rc == 0 && t->replay && (t->suite_name || t->a.resume_session))
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--replay tunes a recorded landscape: give "
				  "no SUITE or --resume with it");
	if (rc == 0 && t->replay && t->a.label)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--label names the run a live session "
				  "stores, and --replay stores nothing; leave "
				  "--label out");
	if (rc == 0 && t->replay && t->a.objective > AX_OBJ_TIME &&
	    t->a.objective != AX_OBJ_PARETO)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--objective %s: --replay tunes a recorded "
				  "landscape's time, or with time,energy the "
				  "Pareto front of one that records energy or "
				  "power",
				  ax_tune_objective_name(t->a.objective));
	if (rc == 0 && t->replay) {
		rc = replay_main(app, t);
	} else if (rc == 0 && t->a.resume_session) {
		rc = resume_main(app, t);
	} else if (rc == 0) {
		t->a.suite = ax_suite_find(t->suite_name);
		if (!t->a.suite)
			rc = ax_app_error(app, AX_EXIT_USAGE,
					  "unknown suite '%s' (axbench suites "
					  "lists them)",
					  t->suite_name);
		if (rc == 0)
			rc = set_shape(app, t);
		if (rc == 0)
			rc = ax_tune_live(app, &t->a);
	}
	free(t);
	return rc == -2 ? AX_EXIT_OK : rc;
}

static const struct ax_cli_choice tune_choices[] = {
    {OPT_STRATEGY, ax_tuner_strategies},
    {OPT_STOP_RULE, ax_stop_rules},
    {OPT_OBJECTIVE, ax_tune_objectives},
    {OPT_MODE, tune_modes},
    AX_SESSION_EFF_CHOICES,
    {0},
};

const struct ax_cli_cmd ax_cmd_tune = {
    .name = "tune",
    .summary = "find the fastest tunable parameters of a suite",
    .usage = "SUITE [-p SHAPE=VALUE...] [--strategy S] [--budget N] "
	     "[--seed N] [--stop-rule RULE] [--prior PRIOR] "
	     "[--objective NAME] [--mode batch|cold] | "
	     "[SUITE] --resume ID | --replay FILE [--prior FILE]",
    .details = "Each trial is a full, verified measurement stored as it "
	       "finishes; Ctrl-C keeps\nthe session and --resume continues "
	       "it.  At the end the best points are re-timed\nwith more "
	       "samples, and the best of them and the defaults are measured "
	       "in\nalternating rounds: the speed-up is printed with its 95 % "
	       "interval, and\nthe best is the answer only when the "
	       "interval's lower end clears 2 %.",
    .examples = {"axbench tune gemm -p m=1024 -p n=1024 -p k=1024 --budget 30",
		 "axbench tune bandwidth --strategy random --seed 7",
		 "axbench tune --resume 3"},
    .opts = tune_opts,
    .choices = tune_choices,
    .fn = tune_main,
};
