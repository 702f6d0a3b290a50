/* cli/tune_live.c - live tuning: ask, measure with the runner, store, tell. */
#include "cli/run_plan.h"
#include "cli/session.h"
#include "cli/tune.h"

#include "core/db.h"
#include "core/defaults.h"
#include "core/error.h"
#include "core/vk.h"
#include "reports/compare.h"
#include "suites/registry.h"
#include "tuner/prior.h"
#include "tuner/space.h"
#include "tuner/strategy.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct live {
	struct ax_cli *cli;
	struct ax_tune_args *a;
	struct ax_session session; /* device, database, run row */
	struct ax_db *db;	   /* session.db, once open */
	struct ax_space *space;
	struct ax_tuner *tuner;
	struct ax_tune_prior prior; /* what the session learns from */
	int64_t session_id;	    /* the tune_session row */
	int n_trials;		    /* stored so far, resumed ones included */
	double best_value;	    /* in the suite's unit, NAN before any */
	double best_obj;	    /* its objective figure (lower wins) */
	int64_t best_trial_id;	    /* best measured trial, until re-timing */
	int64_t *trial_ids;	    /* per point of the space, 0 if untried */
	char best_label[512];	    /* the best point's tunables */
	double defaults_first; /* the defaults, measured before any trial */
	double run_start_s;    /* when this run's first trial began */
	int run_trials;	       /* trials measured by this run */
};

/* The space's points hold defaults for non-tunables: put the shape back. */
static void point_params(const struct live *lv, size_t i, struct ax_params *p)
{
	struct ax_params t;
	*p = lv->a->base;
	ax_space_point_params(lv->space, i, &t);
	for (int k = 0; k < p->n; k++)
		if (p->defs[k].flags & AX_PARAM_TUNABLE)
			p->v[k] = t.v[k];
}

struct valid_ctx {
	const struct ax_tune_args *a;
	const struct ax_vk_device_info *info;
};

/* A broken device limit is a known constraint: such points never enter
 * the candidate set. */
static int point_valid(const struct ax_params *t, void *vctx, char *why,
		       size_t n)
{
	const struct valid_ctx *c = vctx;
	struct ax_params p = c->a->base;
	for (int k = 0; k < p.n; k++)
		if (p.defs[k].flags & AX_PARAM_TUNABLE)
			p.v[k] = t->v[k];
	int rc = ax_params_check(&p, why, n);
	if (rc == 0 && c->a->suite->check)
		rc = c->a->suite->check(&p, c->info, why, n);
	return rc;
}

/* The trial table's status: a point the driver cannot build is a fact
 * about the point, which the tuner must never propose again. */
static const char *trial_status(const struct ax_runner_result *r)
{
	switch (r->outcome) {
	case AX_CASE_OK:
	case AX_CASE_FAILED_VERIFICATION:
	case AX_CASE_TIMEOUT:
	case AX_CASE_COMPILE_FAILED:
		return ax_case_status_name(r->outcome);
	case AX_CASE_INVALID:
	case AX_CASE_SKIPPED:
		return "invalid";
	default:
		return "error";
	}
}

/* Measure p with opts and store the result, marked with the tuning
 * session and the measurement's role ("trial", "retime", "default"). */
static int measure(struct live *lv, const struct ax_params *p,
		   const struct ax_runner_opts *opts, const char *role,
		   struct ax_session_case *c)
{
	json_t *extra = json_pack("{s:I,s:s}", "tune_session",
				  (json_int_t)lv->session_id, "role", role);
	int rc =
	    ax_session_measure(&lv->session, lv->a->suite, p, opts, extra, c);
	json_decref(extra);
	return rc;
}

/* Energy and edp are minimised over the sensor's figures; time keeps the
 * suite's own statistics (its samples are the time). */
static bool energy_objective(const struct live *lv)
{
	return lv->a->objective == AX_OBJ_ENERGY ||
	       lv->a->objective == AX_OBJ_EDP;
}

/*
 * What the tuner minimises for a measurement: its median seconds per
 * repetition, its energy per repetition, or the two multiplied (energy
 * x delay).  NAN when the measurement has no such figure (a failure, a
 * timed span too short for the sensor).
 */
static double objective_of(const struct live *lv,
			   const struct ax_session_case *c, double sec)
{
	switch (lv->a->objective) {
	case AX_OBJ_ENERGY:
		return c->energy_rep_j;
	case AX_OBJ_EDP:
		return c->energy_rep_j * sec;
	default:
		return sec;
	}
}

static const char *objective_unit(const struct live *lv)
{
	return lv->a->objective == AX_OBJ_ENERGY ? "J"
	       : lv->a->objective == AX_OBJ_EDP	 ? "J*s"
						 : "s";
}

/* Is a measurement with this value (suite unit) and objective figure
 * better than the best so far? */
static bool better(const struct live *lv, double value, double obj)
{
	if (energy_objective(lv))
		return !isnan(obj) &&
		       (isnan(lv->best_obj) || obj < lv->best_obj);
	if (isnan(value))
		return false;
	if (isnan(lv->best_value))
		return true;
	return lv->a->suite->higher_is_better ? value > lv->best_value
					      : value < lv->best_value;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "name=value ..." of p's tunable parameters: what the tuner chose. */
static void tunables_label(const struct ax_params *p, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < p->n && used < len; k++) {
		const struct ax_param_def *d = &p->defs[k];
		char v[64];
		if (!(d->flags & AX_PARAM_TUNABLE))
			continue;
		ax_param_format(d, p->v[k], v, sizeof(v));
		int w = snprintf(buf + used, len - used, "%s%s=%s",
				 used ? " " : "", d->name, v);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static bool quiet(const struct live *lv)
{
	return lv->cli->verbosity < 0 || lv->cli->json;
}

/* A figure in the suite's unit, or "-" when there is none. */
static const char *figure(const struct live *lv, double v, char *buf, size_t n)
{
	if (isnan(v))
		return "-";
	snprintf(buf, n, "%.4g %s", v, lv->a->suite->unit);
	return buf;
}

/* Time left, from this run's trials so far: the mean trial times the
 * trials the budget (or the time limit, if sooner) still allows. */
static void eta_text(const struct live *lv, char *buf, size_t n)
{
	double elapsed = now_s() - lv->run_start_s;
	size_t budget = lv->a->budget;
	if (lv->run_trials == 0 || budget == 0) {
		snprintf(buf, n, "?");
		return;
	}
	double left_trials =
	    budget > (size_t)lv->n_trials ? (double)budget - lv->n_trials : 0;
	double eta = elapsed / lv->run_trials * left_trials;
	if (lv->a->time_limit_s > 0 && eta > lv->a->time_limit_s - elapsed)
		eta = fmax(lv->a->time_limit_s - elapsed, 0);
	long sec = lround(eta);
	snprintf(buf, n, "%ld:%02ld", sec / 60, sec % 60);
}

/*
 * One line per trial: which trial of the budget and the time left, the
 * trial's own figure and status, the best so far with its parameters,
 * and the defaults measured before the first trial as the reference.  On
 * a terminal the line is rewritten in place; otherwise (a log, a pipe)
 * each trial is a line of its own.
 */
static void progress(const struct live *lv, double value, const char *status)
{
	if (quiet(lv))
		return;
	char eta[32], f[3][64];
	eta_text(lv, eta, sizeof(eta));
	if (isatty(2))
		fprintf(stderr, "\r\033[K");
	fprintf(stderr,
		"trial %d/%zu (ETA %s): %s %s | best %s (%s) | defaults %s%s",
		lv->n_trials, lv->a->budget, eta,
		figure(lv, value, f[0], sizeof(f[0])), status,
		figure(lv, lv->best_value, f[1], sizeof(f[1])),
		isnan(lv->best_value) ? "none yet" : lv->best_label,
		figure(lv, lv->defaults_first, f[2], sizeof(f[2])),
		isatty(2) ? "" : "\n");
	fflush(stderr);
}

/* A line of its own about what the session is doing now. */
static void say(const struct live *lv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct live *lv, const char *fmt, ...)
{
	if (quiet(lv))
		return;
	va_list ap;
	if (isatty(2))
		fprintf(stderr, "\r\033[K");
	fputs("axbench tune: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* One trial: measure point i, store result and trial, tell the tuner. */
static int trial(struct live *lv, size_t i)
{
	struct ax_params p;
	struct ax_session_case c;
	int64_t trial_id = 0;
	if (lv->run_trials == 0)
		lv->run_start_s = now_s();
	point_params(lv, i, &p);
	int rc = measure(lv, &p, &lv->a->trial_opts, "trial", &c);
	const struct ax_runner_result *r = &c.r;
	if (rc == 0 && r->outcome == AX_CASE_INTERRUPTED) {
		ax_session_case_release(&c);
		return AX_EINTR;
	}
	double sec = ax_runner_median_seconds(r);
	double obj = r->status == 0 ? objective_of(lv, &c, sec) : NAN;
	char *params = ax_params_to_json(&p);
	struct ax_db_trial t = {
	    .session_id = lv->session_id,
	    .index = lv->n_trials,
	    .params_json = params,
	    .status = trial_status(r),
	    .value = r->status == 0 ? r->summary.median : NAN,
	    .seconds = sec,
	    .compile_ms = r->compile_ms,
	    .objective_value = obj,
	    .result_id = c.result_id,
	    .error_text = r->error[0] ? r->error : NULL,
	};
	if (rc == 0 && ax_db_trial_add(lv->db, &t, &trial_id))
		rc =
		    ax_cli_error(lv->cli, AX_EXIT_STORAGE,
				 "storing the trial: %s", ax_db_errmsg(lv->db));
	free(params);
	if (rc == 0) {
		lv->n_trials++;
		lv->run_trials++;
		lv->trial_ids[i] = trial_id;
		/* A point measured but without an energy figure tells the
		 * tuner nothing it can minimise: it counts as failed. */
		ax_tuner_tell(lv->tuner, i,
			      isnan(obj) ? AX_TRIAL_FAILED : AX_TRIAL_OK, obj);
		if (r->status == 0 && isnan(obj))
			say(lv,
			    "trial %d has no %s figure (no power reading "
			    "over its timed span)",
			    lv->n_trials,
			    ax_tune_objective_name(lv->a->objective));
		if (better(lv, t.value, obj)) {
			lv->best_value = t.value;
			lv->best_obj = obj;
			lv->best_trial_id = trial_id;
			tunables_label(&p, lv->best_label,
				       sizeof(lv->best_label));
		}
		progress(lv, t.value, t.status);
	}
	ax_session_case_release(&c);
	return rc;
}

/* Map a stored trial's parameters back to its point of the space. */
static long stored_index(const struct live *lv, const json_t *params)
{
	struct ax_params p;
	char *text = json_dumps(params, JSON_COMPACT);
	char err[256];
	int rc = text ? ax_params_from_json(&p, lv->a->base.defs, lv->a->base.n,
					    text, err, sizeof(err))
		      : AX_ENOMEM;
	free(text);
	return rc ? -1 : ax_space_find_params(lv->space, &p);
}

/* --resume: the tuner relearns every stored trial before asking. */
static int replay_stored(struct live *lv, const json_t *session)
{
	const json_t *trials = json_object_get(session, "trials"), *t;
	size_t k;
	json_array_foreach(trials, k, t)
	{
		long i = stored_index(lv, json_object_get(t, "params"));
		/* The tuner relearns the figure the session minimised
		 * (sessions from before objectives minimised seconds). */
		const json_t *sec = json_object_get(t, "seconds");
		const json_t *ov = json_object_get(t, "objective_value");
		const json_t *fig = json_is_number(ov) ? ov : sec;
		if (energy_objective(lv))
			fig = ov;
		bool ok = strcmp(json_string_value(json_object_get(t, "status"))
				     ?: "",
				 "ok") == 0 &&
			  json_is_number(fig);
		lv->n_trials++;
		if (i < 0)
			continue;
		lv->trial_ids[i] = json_integer_value(json_object_get(t, "id"));
		ax_tuner_tell(lv->tuner, (size_t)i,
			      ok ? AX_TRIAL_OK : AX_TRIAL_FAILED,
			      ok ? json_number_value(fig) : NAN);
		double v = json_number_value(json_object_get(t, "value"));
		double o = ok ? json_number_value(fig) : NAN;
		if (ok && better(lv, v, o)) {
			lv->best_value = v;
			lv->best_obj = o;
			lv->best_trial_id =
			    json_integer_value(json_object_get(t, "id"));
			struct ax_params p;
			point_params(lv, (size_t)i, &p);
			tunables_label(&p, lv->best_label,
				       sizeof(lv->best_label));
		}
	}
	return 0;
}

/* --no-early-stop is the rule "none". */
static enum ax_stop_rule stop_rule_of(const struct ax_tune_args *a)
{
	return a->no_early_stop ? AX_STOP_NONE
				: (enum ax_stop_rule)a->stop_rule;
}

void ax_tune_options(const struct ax_tune_args *a, struct ax_tuner_options *o)
{
	ax_tuner_options_init(o);
	o->budget = a->budget;
	o->time_limit_s = a->time_limit_s;
	o->stop_rule = stop_rule_of(a);
}

static int claim_refused(struct live *lv)
{
	int rc = ax_cli_error(lv->cli, AX_EXIT_STORAGE, "tune --resume: %s",
			      ax_db_errmsg(lv->db));
	lv->session_id = 0; /* not ours: close_all must not finish it */
	return rc;
}

/* The prior (cli/tune_prior.c), said before the first measurement. */
static int choose_prior(struct live *lv, const json_t *resumed)
{
	const json_t *stored =
	    resumed ? json_object_get(resumed, "prior_session_id") : NULL;
	int rc = ax_tune_prior_resolve(
	    lv->cli, lv->db, lv->a, lv->space, lv->session.info->fingerprint,
	    json_is_integer(stored) ? json_integer_value(stored) : 0,
	    &lv->prior);
	if (rc)
		return rc;
	const struct ax_prior *p = lv->prior.prior;
	if (p)
		say(lv,
		    "prior: session %lld (%s): %zu successful trials used, "
		    "%zu left out (values this space lacks), %zu failed ones "
		    "not used",
		    (long long)lv->prior.session_id, lv->prior.basis,
		    ax_prior_used(p), ax_prior_left_out(p), ax_prior_failed(p));
	else
		say(lv, "tuning cold, with no prior: %s", lv->prior.basis);
	return 0;
}

/* The defaults the session measures first and reports the speed-up
 * over are this device's (configs/defaults.yaml), as a run's would be. */
static int take_device_defaults(struct live *lv)
{
	struct ax_defaults *d;
	const struct ax_defaults_entry *e;
	char why[512], match[256];
	int rc = ax_cli_load_defaults(lv->cli, &d);
	if (rc || !d)
		return rc;
	if (ax_defaults_apply_checked(d, lv->a->suite, &lv->a->base,
				      lv->session.info, &e, why,
				      sizeof(why)) < 0)
		say(lv,
		    "the per-device defaults do not fit this device (%s); "
		    "the defaults are the suite's own",
		    why);
	else if (e) {
		ax_defaults_match_text(e, match, sizeof(match));
		say(lv, "defaults: %s:%d (%s)", d->path, e->line, match);
	}
	ax_defaults_free(d);
	return 0;
}

static int open_session(struct live *lv, const json_t *resumed)
{
	char err[1024];
	struct ax_tune_args *a = lv->a;
	struct valid_ctx vc = {a, lv->session.info};
	if (ax_space_create_params(&lv->space, a->base.defs, a->base.n,
				   point_valid, &vc, 0, a->seed, err,
				   sizeof(err)))
		return ax_cli_error(lv->cli, AX_EXIT_USAGE, "tune %s: %s",
				    a->suite->name, err);
	struct ax_tuner_options to;
	ax_tune_options(a, &to);
	lv->trial_ids = calloc(ax_space_size(lv->space), sizeof(int64_t));
	if (!lv->trial_ids)
		return ax_cli_error(lv->cli, AX_EXIT_FAIL, "out of memory");
	int rc = choose_prior(lv, resumed);
	if (rc)
		return rc;
	to.prior = lv->prior.prior;
	if (ax_tuner_create(&lv->tuner, lv->space, a->strategy, a->seed, &to,
			    err, sizeof(err)))
		return ax_cli_error(lv->cli, AX_EXIT_USAGE, "tune: %s", err);
	/* A session another live process is continuing is refused before
	 * this one even begins its run; the claim itself is atomic. */
	if (resumed && ax_db_session_claim(lv->db, a->resume_session, 0))
		return claim_refused(lv);
	/* {"command": "tune"} is how readers tell a tuning session's run
	 * (AX_RUN_KIND_SQL in core/db_internal.h): baseline save refuses it. */
	struct ax_session_run run = {.config_json = "{\"command\":\"tune\"}",
				     .label = a->label};
	rc = ax_session_begin_run(&lv->session, &run);
	if (rc)
		return rc;
	if (resumed) {
		lv->session_id = a->resume_session;
		if (ax_db_session_claim(lv->db, lv->session_id,
					lv->session.run_id))
			return claim_refused(lv);
		return replay_stored(lv, resumed);
	}
	char *shape = ax_params_to_json(&a->base);
	struct ax_db_session s = {
	    .device_id = lv->session.device_id,
	    .suite = a->suite->name,
	    .shape_json = shape,
	    .strategy = a->strategy,
	    .objective = ax_tune_objective_name(a->objective),
	    .seed = a->seed,
	    .budget = (int)a->budget,
	    .space_json = NULL,
	    .stop_rule = ax_stop_rule_name(stop_rule_of(a)),
	    .prior_session_id = lv->prior.session_id,
	};
	rc = ax_db_session_begin(lv->db, &s, &lv->session_id);
	free(shape);
	if (!rc)
		rc = ax_db_session_claim(lv->db, lv->session_id,
					 lv->session.run_id);
	if (rc)
		return ax_cli_error(lv->cli, AX_EXIT_STORAGE, "%s",
				    ax_db_errmsg(lv->db));
	return 0;
}

/* A final measurement: its median and its raw values, for the verdict. */
struct timed {
	double median; /* NAN when it failed */
	double obj;    /* its objective figure, NAN when none */
	double *values;
	int n;
};

/* Measure p carefully (final sampling) and store it with its role. */
static int retime(struct live *lv, const struct ax_params *p, const char *role,
		  struct timed *t)
{
	struct ax_session_case c;
	*t = (struct timed){.median = NAN, .obj = NAN};
	int rc = measure(lv, p, &lv->a->final_opts, role, &c);
	if (rc == 0 && c.r.outcome == AX_CASE_INTERRUPTED)
		rc = AX_EINTR;
	if (rc == 0 && c.r.status == 0 && c.r.n > 0 &&
	    (t->values = malloc(sizeof(double) * (size_t)c.r.n))) {
		memcpy(t->values, c.r.values, sizeof(double) * (size_t)c.r.n);
		t->n = c.r.n;
		t->median = c.r.summary.median;
		t->obj = objective_of(lv, &c, ax_runner_median_seconds(&c.r));
	}
	ax_session_case_release(&c);
	return rc;
}

struct verdict {
	size_t best_index;
	double best, defaults;
	double best_obj, defaults_obj; /* their objective figures */
	bool have_best;
	bool defaults_win; /* no tried point beat the defaults re-timed */
};

static bool is_defaults(const struct live *lv, const struct ax_params *p)
{
	const struct ax_params *d = &lv->a->base;
	for (int k = 0; k < p->n; k++)
		if ((p->defs[k].flags & AX_PARAM_TUNABLE) && p->v[k] != d->v[k])
			return false;
	return true;
}

/* Whether the defaults may run here; if not, why (when why is given). */
static bool defaults_valid(const struct live *lv, char *why, size_t n)
{
	char scratch[256];
	if (!why)
		why = scratch, n = sizeof(scratch);
	const struct ax_suite *s = lv->a->suite;
	return ax_params_check(&lv->a->base, why, n) == 0 &&
	       (!s->check ||
		s->check(&lv->a->base, lv->session.info, why, n) == 0);
}

/*
 * The defaults, measured before the first trial with the final sampling
 * and stored with role "default", so that every progress line has the
 * reference "best" is to beat.  The verdict still sets the best point
 * against the defaults re-timed beside it at the end: the two figures of
 * one comparison must come from the same conditions (a machine warms,
 * other work comes and goes).
 */
static int measure_defaults_first(struct live *lv)
{
	char why[512], f[64];
	struct timed t;
	if (!defaults_valid(lv, why, sizeof(why))) {
		say(lv,
		    "the defaults cannot run here, so there is no "
		    "reference: %s",
		    why);
		return 0;
	}
	say(lv, "measuring the defaults first, as the reference for the "
		"trials");
	int rc = retime(lv, &lv->a->base, "default", &t);
	lv->defaults_first = t.median;
	free(t.values);
	if (rc == 0)
		say(lv, "defaults: %s", figure(lv, t.median, f, sizeof(f)));
	return rc;
}

/* The best re-timed point wins only when compare's statistics call it
 * faster than the defaults re-timed the same way and its median is better
 * too (ax_compare_wins); two medians alone, however far apart, are noise
 * until shown not to be. */
/*
 * Energy has one figure per measurement (a sensor at 10 Hz cannot tell
 * millisecond samples apart), so there is no sample test to make: the
 * best point wins only when its figure is AX_TUNE_ENERGY_MARGIN below the
 * defaults' measured beside it, a margin wider than the run-to-run
 * spread of mean power seen on one device (said in docs/RELIABILITY.md).
 */
#define AX_TUNE_ENERGY_MARGIN 0.05

static bool beats_defaults(const struct live *lv, const struct timed *best,
			   const struct timed *def)
{
	if (energy_objective(lv))
		return !isnan(best->obj) && !isnan(def->obj) &&
		       best->obj < def->obj * (1 - AX_TUNE_ENERGY_MARGIN);
	struct ax_compare_opts o;
	struct ax_compare_stat st;
	char err[256];
	ax_compare_opts_init(&o);
	if (!best->values || !def->values)
		return false;
	return ax_compare_samples(
		   def->values, def->n, best->values, best->n,
		   lv->a->suite->higher_is_better,
		   ax_compare_threshold_for(&o, lv->a->suite->name), &o, &st,
		   err, sizeof(err)) == 0 &&
	       ax_compare_wins(&st, lv->a->suite->higher_is_better);
}

/* Re-time the top points by the model; the best of them in *best.  The
 * default point is left to the defaults' own measurement: the same
 * parameters measured twice are never a speed-up. */
static int retime_top(struct live *lv, struct verdict *v, struct timed *best)
{
	size_t top[8], n = 0;
	size_t k = ax_tuner_top(lv->tuner, (size_t)lv->a->retime_top, top);
	int rc = 0;
	for (size_t j = 0; j < k; j++) {
		struct ax_params p;
		point_params(lv, top[j], &p);
		if (!is_defaults(lv, &p))
			top[n++] = top[j];
	}
	if (n)
		say(lv,
		    "re-timing the %zu best point%s and then the defaults "
		    "with full sampling, one after the other, for the "
		    "verdict (the trials were quick samples)",
		    n, n == 1 ? "" : "s");
	for (size_t j = 0; j < n && rc == 0 && !ax_cli_interrupted; j++) {
		struct ax_params p;
		struct timed t;
		char label[512], f[64];
		point_params(lv, top[j], &p);
		tunables_label(&p, label, sizeof(label));
		rc = retime(lv, &p, "retime", &t);
		say(lv, "re-timed %zu/%zu (%s): %s", j + 1, n, label,
		    figure(lv, t.median, f, sizeof(f)));
		bool wins = !isnan(t.median) &&
			    (!v->have_best || (lv->a->suite->higher_is_better
						   ? t.median > v->best
						   : t.median < v->best));
		if (energy_objective(lv))
			wins = !isnan(t.obj) &&
			       (!v->have_best || t.obj < v->best_obj);
		if (rc == 0 && wins) {
			free(best->values);
			*best = t;
			v->best = t.median;
			v->best_obj = t.obj;
			v->best_index = top[j];
			v->have_best = true;
			lv->best_trial_id = lv->trial_ids[top[j]];
		} else {
			free(t.values);
		}
	}
	return rc;
}

/* The answer: the top points re-timed with more samples, beside the
 * defaults measured the same way in the same run; the defaults unless a
 * point beat them beyond noise. */
static int finalise(struct live *lv, struct verdict *v)
{
	struct timed best = {.median = NAN, .obj = NAN},
		     def = {.median = NAN, .obj = NAN};
	v->have_best = false;
	v->defaults = v->defaults_obj = v->best_obj = NAN;
	int rc = retime_top(lv, v, &best);
	if (rc == 0 && defaults_valid(lv, NULL, 0) && !ax_cli_interrupted) {
		char f[64];
		rc = retime(lv, &lv->a->base, "default", &def);
		say(lv, "re-timed the defaults: %s",
		    figure(lv, def.median, f, sizeof(f)));
	}
	v->defaults = def.median;
	v->defaults_obj = def.obj;
	if (!isnan(def.median) && !beats_defaults(lv, &best, &def)) {
		v->best = def.median;
		v->best_obj = def.obj;
		v->have_best = true;
		v->defaults_win = true;
	}
	free(best.values);
	free(def.values);
	return rc;
}

/*
 * Why the session ended: what close_all stores in tune_session.stop_reason
 * and what report prints, from one place so they never disagree.  A
 * signal wins over the tuner's own reason (SIGINT while re-timing, after
 * the budget was reached, is an interrupted session), and a failure (a
 * full disk) is an error, not an interruption.
 */
static const char *end_reason(const struct live *lv, int rc)
{
	if (ax_cli_interrupted)
		return "interrupted";
	const char *stop = ax_tuner_stop_reason(lv->tuner);
	return rc == 0 && stop ? stop : "error";
}

/* The prior in the JSON output: the session it came from (null when
 * cold), why, how much of it mapped, and the slope the model put on it at
 * its last fit (0: the data preferred the cold model). */
static json_t *prior_json(const struct live *lv)
{
	const struct ax_prior *p = lv->prior.prior;
	double slope = ax_tuner_prior_slope(lv->tuner);
	json_t *o =
	    json_pack("{s:o,s:s}", "session_id",
		      p ? json_integer(lv->prior.session_id) : json_null(),
		      "basis", lv->prior.basis);
	if (p) {
		json_object_set_new(o, "used",
				    json_integer((json_int_t)ax_prior_used(p)));
		json_object_set_new(
		    o, "left_out",
		    json_integer((json_int_t)ax_prior_left_out(p)));
		json_object_set_new(
		    o, "failed", json_integer((json_int_t)ax_prior_failed(p)));
		json_object_set_new(
		    o, "slope", isnan(slope) ? json_null() : json_real(slope));
	}
	return o;
}

static void print_prior(const struct live *lv)
{
	double slope = ax_tuner_prior_slope(lv->tuner);
	if (!lv->prior.prior) {
		printf("prior:    none (%s)\n", lv->prior.basis);
		return;
	}
	printf("prior:    session %lld (%s)", (long long)lv->prior.session_id,
	       lv->prior.basis);
	if (isnan(slope))
		printf(", not fitted yet\n");
	else if (slope == 0)
		printf(", set aside: this session's trials fit better without "
		       "it\n");
	else
		printf(", in use with slope %.2f on its log time\n", slope);
}

/* The objective and, for energy ones, the figures the verdict took. */
static void set_objective_json(const struct live *lv, const struct verdict *v,
			       json_t *o)
{
	json_object_set_new(
	    o, "objective",
	    json_string(ax_tune_objective_name(lv->a->objective)));
	json_object_set_new(o, "objective_unit",
			    json_string(objective_unit(lv)));
	double figs[2] = {v->have_best ? v->best_obj : NAN, v->defaults_obj};
	const char *keys[2] = {"best_objective", "default_objective"};
	for (int i = 0; i < 2; i++)
		json_object_set_new(o, keys[i],
				    isfinite(figs[i]) ? json_real(figs[i])
						      : json_null());
}

static void print_objective(const struct live *lv, const struct verdict *v)
{
	if (!energy_objective(lv))
		return;
	const char *name = ax_tune_objective_name(lv->a->objective);
	if (isnan(v->best_obj)) {
		printf("objective: %s per repetition; no figure for the "
		       "answer\n",
		       name);
		return;
	}
	printf("objective: %s per repetition: %.4g %s", name, v->best_obj,
	       objective_unit(lv));
	if (!isnan(v->defaults_obj) && v->best_obj > 0)
		printf(", defaults %.4g %s (%.2fx less%s)", v->defaults_obj,
		       objective_unit(lv), v->defaults_obj / v->best_obj,
		       v->defaults_win ? "; not 5 % below the defaults, so "
					 "the defaults stay"
				       : "");
	printf("\n");
}

static void report(struct live *lv, const struct verdict *v, int rc)
{
	const struct ax_suite *s = lv->a->suite;
	const char *stop = end_reason(lv, rc);
	char label[512] = "";
	struct ax_params p;
	double speedup = NAN;
	if (v->have_best) {
		if (v->defaults_win)
			p = lv->a->base;
		else
			point_params(lv, v->best_index, &p);
		ax_session_case_label(&p, label, sizeof(label));
		if (!isnan(v->defaults) && v->defaults > 0)
			speedup = s->higher_is_better ? v->best / v->defaults
						      : v->defaults / v->best;
	}
	if (isatty(2) && lv->cli->verbosity >= 0 && !lv->cli->json)
		fprintf(stderr, "\n");
	if (lv->cli->json) {
		json_t *o = json_pack(
		    "{s:I,s:I,s:s,s:s,s:i,s:s?,s:s,s:o,s:o,s:o,s:o,s:o,s:o?}",
		    "session_id", (json_int_t)lv->session_id, "run_id",
		    (json_int_t)lv->session.run_id, "suite", s->name,
		    "strategy", lv->a->strategy, "trials", lv->n_trials,
		    "stop_reason", stop, "unit", s->unit, "best",
		    v->have_best ? json_real(v->best) : json_null(), "default",
		    isnan(v->defaults) ? json_null() : json_real(v->defaults),
		    "default_first",
		    isnan(lv->defaults_first) ? json_null()
					      : json_real(lv->defaults_first),
		    "best_trial",
		    isnan(lv->best_value) ? json_null()
					  : json_real(lv->best_value),
		    "speedup",
		    isnan(speedup) ? json_null() : json_real(speedup),
		    "best_params", v->have_best ? ax_params_json(&p) : NULL);
		json_object_set_new(o, "prior", prior_json(lv));
		set_objective_json(lv, v, o);
		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
		return;
	}
	printf("session %lld: %s on %s, %d trials (%s)\n",
	       (long long)lv->session_id, lv->a->strategy, s->name,
	       lv->n_trials, stop);
	print_prior(lv);
	if (!v->have_best && !isnan(lv->best_value)) {
		/* Cut short before the re-timing: the trials still measured
		 * what they measured; say so, marked as a trial's figure. */
		printf("best so far: %.4g %s  %s (a trial's quick figure, not "
		       "re-timed)\n",
		       lv->best_value, s->unit, lv->best_label);
	} else if (!v->have_best) {
		printf("no point measured successfully\n");
	}
	if (!v->have_best) {
		if (!isnan(lv->defaults_first))
			printf("defaults: %.4g %s  measured first, before the "
			       "trials\n",
			       lv->defaults_first, s->unit);
		return;
	}
	printf("best:     %.4g %s  %s%s\n", v->best, s->unit, label,
	       v->defaults_win ? " (the defaults: no tried point beat them)"
			       : "");
	if (!isnan(v->defaults))
		printf("defaults: %.4g %s  re-timed beside the best at the "
		       "end (speed-up %.2fx)\n",
		       v->defaults, s->unit, speedup);
	if (!isnan(lv->defaults_first))
		printf("defaults: %.4g %s  measured first, before the "
		       "trials\n",
		       lv->defaults_first, s->unit);
	print_objective(lv, v);
}

/* A word of the command line, quoted for a POSIX shell when it holds
 * anything but the characters that never need it. */
static void shell_word(const char *w, char *buf, size_t n)
{
	if (*w &&
	    strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_./+-:=,@%") == strlen(w)) {
		snprintf(buf, n, "%s", w);
		return;
	}
	size_t used = 0;
	buf[used++] = '\'';
	for (; *w && used + 5 < n; w++) {
		if (*w == '\'') {
			memcpy(buf + used, "'\\''", 4);
			used += 4;
		} else {
			buf[used++] = *w;
		}
	}
	buf[used++] = '\'';
	buf[used] = '\0';
}

/*
 * After Ctrl-C: what was kept and the exact command that continues the
 * session - the same database and device, the session by its id alone
 * (its suite, shape, strategy, seed and budget are stored with it).
 */
static void tell_resume(const struct live *lv)
{
	char db[1100], dev[300] = "", dev_word[280];
	shell_word(lv->cli->db_path, db, sizeof(db));
	if (lv->cli->device_sel) {
		shell_word(lv->cli->device_sel, dev_word, sizeof(dev_word));
		snprintf(dev, sizeof(dev), " --device %s", dev_word);
	}
	fprintf(stderr,
		"axbench tune: interrupted; session %lld keeps its %d "
		"trial%s (a trial cut short counts once it has measured a "
		"figure).\ncontinue it with: axbench --db %s%s tune --resume "
		"%lld\n",
		(long long)lv->session_id, lv->n_trials,
		lv->n_trials == 1 ? "" : "s", db, dev,
		(long long)lv->session_id);
}

static int close_all(struct live *lv, int rc)
{
	/* A session row left unfinished would say nothing of its end, so a
	 * failure to store the reason is said and fails the command. */
	if (lv->session_id && lv->db &&
	    ax_db_session_finish(lv->db, lv->session_id, end_reason(lv, rc),
				 lv->best_trial_id)) {
		int code = ax_cli_error(lv->cli, AX_EXIT_STORAGE,
					"tune: finishing session %lld: %s",
					(long long)lv->session_id,
					ax_db_errmsg(lv->db));
		rc = rc ? rc : code;
	}
	ax_tuner_destroy(lv->tuner);
	ax_tune_prior_release(&lv->prior);
	ax_space_destroy(lv->space);
	free(lv->trial_ids);
	return ax_session_finish(&lv->session, rc);
}

/*
 * The session's strategy and seed are what make it one search: a
 * different one given with --resume is refused, never silently replaced.
 * A --budget given with it is this run's total (stored trials count),
 * said when it differs from the stored one.
 */
/* A resumed session stops by the rule it was started with (sessions from
 * before rules were stored: by the one given now, or the default); a
 * different rule given now is refused, as a different strategy is. */
static int resume_stop_rule(struct live *lv, const json_t *session)
{
	struct ax_tune_args *a = lv->a;
	const char *stored =
	    json_string_value(json_object_get(session, "stop_rule"));
	enum ax_stop_rule rule;
	char err[128];
	if (!stored || ax_stop_rule_parse(stored, &rule, err, sizeof(err)))
		return 0;
	if (a->stop_rule_given && stop_rule_of(a) != rule) {
		ax_cli_error(lv->cli, AX_EXIT_USAGE,
			     "--stop-rule %s: session %lld stops by the rule "
			     "%s; --resume continues it so (give no "
			     "--stop-rule or --no-early-stop, or start a new "
			     "session)",
			     ax_stop_rule_name(stop_rule_of(a)),
			     (long long)a->resume_session, stored);
		return -1;
	}
	a->no_early_stop = false;
	a->stop_rule = (int)rule;
	return 0;
}

/* A resumed session minimises what it was started to ("live": from
 * before objectives, time); another --objective is refused. */
static int resume_objective(struct live *lv, const json_t *session)
{
	struct ax_tune_args *a = lv->a;
	const char *stored =
	    json_string_value(json_object_get(session, "objective"));
	enum ax_tune_objective o = AX_OBJ_TIME;
	const char *const *names = ax_tune_objectives();
	for (int i = 0; stored && names[i]; i++)
		if (strcmp(stored, names[i]) == 0)
			o = (enum ax_tune_objective)(AX_OBJ_TIME + i);
	if (a->objective != AX_OBJ_UNSET && a->objective != o) {
		ax_cli_error(lv->cli, AX_EXIT_USAGE,
			     "--objective %s: session %lld minimises %s; "
			     "--resume continues it so (give no --objective, "
			     "or start a new session)",
			     ax_tune_objective_name(a->objective),
			     (long long)a->resume_session,
			     ax_tune_objective_name(o));
		return -1;
	}
	a->objective = o;
	return 0;
}

/* Energy objectives need the device's power sensor: without one the
 * session is refused before anything is stored. */
static int check_objective_sensor(struct live *lv)
{
	char why[512];
	if (lv->a->objective == AX_OBJ_UNSET)
		lv->a->objective = AX_OBJ_TIME;
	if (!energy_objective(lv) ||
	    ax_session_power_probe(&lv->session, why, sizeof(why)) == 0)
		return 0;
	return ax_cli_error(lv->cli, AX_EXIT_USAGE,
			    "--objective %s needs the device's power: %s; "
			    "tune for time (the default) here",
			    ax_tune_objective_name(lv->a->objective), why);
}

static int resume_settings(struct live *lv, const json_t *session)
{
	struct ax_tune_args *a = lv->a;
	long long id = (long long)a->resume_session;
	static char strategy[32];
	if (resume_objective(lv, session))
		return AX_EXIT_USAGE;
	snprintf(strategy, sizeof(strategy), "%s",
		 json_string_value(json_object_get(session, "strategy"))
		     ?: "bo");
	uint64_t seed =
	    (uint64_t)json_integer_value(json_object_get(session, "seed"));
	json_int_t budget =
	    json_integer_value(json_object_get(session, "budget"));
	if (a->strategy && strcmp(a->strategy, strategy) != 0)
		return ax_cli_error(lv->cli, AX_EXIT_USAGE,
				    "--strategy %s: session %lld searches "
				    "with %s; --resume continues it so (give "
				    "no --strategy, or start a new session)",
				    a->strategy, id, strategy);
	if (a->seed != AX_TUNE_SEED_UNSET && a->seed != seed)
		return ax_cli_error(lv->cli, AX_EXIT_USAGE,
				    "--seed %llu: session %lld was started "
				    "with seed %llu; --resume continues it so "
				    "(give no --seed, or start a new session)",
				    (unsigned long long)a->seed, id,
				    (unsigned long long)seed);
	a->strategy = strategy;
	a->seed = seed;
	if (resume_stop_rule(lv, session))
		return AX_EXIT_USAGE;
	if (a->budget && budget > 0 && a->budget != (size_t)budget)
		say(lv,
		    "budget %zu for this run, stored trials included (session "
		    "%lld was started with %lld)",
		    a->budget, id, (long long)budget);
	if (!a->budget)
		a->budget = budget > 0 ? (size_t)budget : 40;
	return 0;
}

static int load_resumed(struct live *lv, json_t **session)
{
	struct ax_tune_args *a = lv->a;
	char err[512];
	*session = NULL;
	if (!a->resume_session)
		return 0;
	if (ax_db_session_get(lv->db, a->resume_session, session))
		return ax_cli_error(lv->cli, AX_EXIT_USAGE,
				    "--resume %lld: no such tuning session in "
				    "%s (axbench results lists runs)",
				    (long long)a->resume_session,
				    lv->cli->db_path);
	const char *suite =
	    json_string_value(json_object_get(*session, "suite"));
	/* `tune --resume ID` alone: the session names its suite. */
	if (!a->suite && !(a->suite = ax_suite_find(suite ? suite : "")))
		return ax_cli_error(lv->cli, AX_EXIT_USAGE,
				    "--resume %lld: that session tuned '%s', "
				    "which this axbench does not know "
				    "(axbench suites lists them)",
				    (long long)a->resume_session,
				    suite ? suite : "?");
	if (!suite || strcmp(suite, a->suite->name) != 0)
		return ax_cli_error(lv->cli, AX_EXIT_USAGE,
				    "--resume %lld: that session tuned %s, "
				    "not %s",
				    (long long)a->resume_session,
				    suite ? suite : "?", a->suite->name);
	char *shape =
	    json_dumps(json_object_get(*session, "shape"), JSON_COMPACT);
	int rc = shape ? ax_params_from_json(&a->base, a->suite->params,
					     a->suite->n_params, shape, err,
					     sizeof(err))
		       : AX_EINVAL;
	free(shape);
	if (rc)
		return ax_cli_error(lv->cli, AX_EXIT_USAGE,
				    "--resume: stored shape unusable: %s", err);
	return resume_settings(lv, *session);
}

int ax_tune_live(struct ax_cli *cli, struct ax_tune_args *a)
{
	struct live lv = {.cli = cli,
			  .a = a,
			  .best_value = NAN,
			  .best_obj = NAN,
			  .defaults_first = NAN};
	struct verdict v = {0};
	json_t *resumed = NULL;
	a->trial_opts.stop = &ax_cli_interrupted;
	a->final_opts.stop = &ax_cli_interrupted;
	ax_session_init(&lv.session, cli, "tune");
	lv.session.eff = a->eff;
	/* A new session's objective is checked against the device before
	 * the database is even opened; a resumed one's once it is read. */
	int rc = ax_session_choose_device(&lv.session);
	if (rc == 0 && !a->resume_session)
		rc = check_objective_sensor(&lv);
	if (rc == 0)
		rc = ax_session_open_db(&lv.session);
	lv.db = lv.session.db;
	if (rc == 0)
		rc = load_resumed(&lv, &resumed);
	if (rc == 0 && a->resume_session)
		rc = check_objective_sensor(&lv);
	if (rc == 0)
		rc = take_device_defaults(&lv);
	if (rc == 0)
		rc = open_session(&lv, resumed);
	json_decref(resumed);
	if (rc == 0)
		rc = measure_defaults_first(&lv);
	if (rc == AX_EINTR)
		rc = 0;
	size_t i;
	while (rc == 0 && !ax_cli_interrupted &&
	       ax_tuner_ask(lv.tuner, &i) == 0) {
		rc = trial(&lv, i);
		if (rc == AX_EINTR)
			rc = 0;
	}
	if (rc == 0 && !ax_cli_interrupted) {
		rc = finalise(&lv, &v);
		if (rc == AX_EINTR)
			rc = 0;
	}
	/* No session row (its start failed): nothing to report on. */
	if (lv.tuner && lv.session_id) {
		report(&lv, &v, rc);
		fflush(stdout);
		if (ax_cli_interrupted)
			tell_resume(&lv);
	}
	return close_all(&lv, rc);
}
