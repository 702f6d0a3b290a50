/* app/tune_live.c - live tuning: ask, measure with the runner, store, tell. */
#include "app/tune_internal.h"

#include "app/run_plan.h"
#include "core/db.h"
#include "core/defaults.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/vk.h"
#include "suites/registry.h"
#include "tuner/prior.h"
#include "tuner/space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The space's points hold defaults for non-tunables: put the shape back. */
void ax_tl_point_params(const struct ax_tl_live *lv, size_t i, struct ax_params *p)
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
int ax_tl_measure(struct ax_tl_live *lv, const struct ax_params *p,
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

double ax_tl_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One trial: measure point i, store result and trial, tell the tuner. */
static int trial(struct ax_tl_live *lv, size_t i)
{
	struct ax_params p;
	struct ax_session_case c;
	int64_t trial_id = 0;
	if (lv->run_trials == 0)
		lv->run_start_s = ax_tl_now_s();
	ax_tl_point_params(lv, i, &p);
	int rc = ax_tl_measure(lv, &p, &lv->a->trial_opts, "trial", &c);
	const struct ax_runner_result *r = &c.r;
	if (rc == 0 && r->outcome == AX_CASE_INTERRUPTED) {
		ax_session_case_release(&c);
		return AX_EINTR;
	}
	double sec = ax_runner_median_seconds(r);
	double obj = r->status == 0 ? ax_tl_objective_of(lv, &c, sec) : NAN;
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
		    ax_app_error(lv->app, AX_EXIT_STORAGE,
				 "storing the trial: %s", ax_db_errmsg(lv->db));
	free(params);
	if (rc == 0) {
		lv->n_trials++;
		lv->run_trials++;
		lv->trial_ids[i] = trial_id;
		/* A point measured but without an energy figure tells the
		 * tuner nothing it can minimise: it counts as failed. */
		ax_tl_tell(lv, i, !isnan(obj), sec, obj);
		if (r->status == 0 && isnan(obj))
			ax_tl_say(lv,
			    "trial %d has no %s figure (no power reading "
			    "over its timed span)",
			    lv->n_trials,
			    ax_tune_objective_name(lv->a->objective));
		if (ax_tl_better(lv, t.value, obj)) {
			lv->best_value = t.value;
			lv->best_obj = obj;
			lv->best_trial_id = trial_id;
			ax_params_label(&p, AX_PARAM_TUNABLE, lv->best_label,
				       sizeof(lv->best_label));
		}
		ax_tl_progress(lv, t.value, t.status);
	}
	ax_session_case_release(&c);
	return rc;
}

const char *ax_tune_mode_name(enum ax_run_mode m)
{
	return m == AX_MODE_COLD ? "cold" : "batch";
}

/* --no-early-stop is the rule "none". */
enum ax_stop_rule ax_tl_stop_rule_of(const struct ax_tune_args *a)
{
	return a->no_early_stop ? AX_STOP_NONE
				: (enum ax_stop_rule)a->stop_rule;
}

void ax_tune_options(const struct ax_tune_args *a, struct ax_tuner_options *o)
{
	ax_tuner_options_init(o);
	o->budget = a->budget;
	o->time_limit_s = a->time_limit_s;
	o->stop_rule = ax_tl_stop_rule_of(a);
	o->objectives = a->objective == AX_OBJ_PARETO ? 2 : 1;
}

static int claim_refused(struct ax_tl_live *lv)
{
	int rc = ax_app_error(lv->app, AX_EXIT_STORAGE, "tune --resume: %s",
			      ax_db_errmsg(lv->db));
	lv->session_id = 0; /* not ours: close_all must not finish it */
	return rc;
}

/* The prior (app/tune_prior.c), said before the first measurement. */
static int choose_prior(struct ax_tl_live *lv,
			const struct ax_db_session_row *resumed)
{
	if (lv->a->objective == AX_OBJ_PARETO) {
		snprintf(lv->prior.basis, sizeof(lv->prior.basis),
			 "a time,energy session searches without one: a "
			 "prior models time alone");
		ax_tl_say(lv, "tuning cold, with no prior: %s",
			  lv->prior.basis);
		return 0;
	}
	int rc = ax_tune_prior_resolve(
	    lv->app, lv->db, lv->a, lv->space, lv->session.info->fingerprint,
	    resumed ? resumed->prior_session_id : 0, &lv->prior);
	if (rc)
		return rc;
	const struct ax_prior *p = lv->prior.prior;
	if (p)
		ax_tl_say(lv,
		    "prior: session %lld (%s): %zu successful trials used, "
		    "%zu left out (values this space lacks), %zu failed ones "
		    "not used",
		    (long long)lv->prior.session_id, lv->prior.basis,
		    ax_prior_used(p), ax_prior_left_out(p), ax_prior_failed(p));
	else
		ax_tl_say(lv, "tuning cold, with no prior: %s", lv->prior.basis);
	return 0;
}

/* The defaults the session measures first and reports the speed-up
 * over are this device's (configs/defaults.yaml), as a run's would be. */
static int take_device_defaults(struct ax_tl_live *lv)
{
	struct ax_defaults *d;
	const struct ax_defaults_entry *e;
	char why[512], match[256];
	int rc = ax_app_load_defaults(lv->app, &d);
	if (rc || !d)
		return rc;
	if (ax_defaults_apply_checked(d, lv->a->suite, &lv->a->base,
				      lv->session.info, &e, why,
				      sizeof(why)) < 0)
		ax_tl_say(lv,
		    "the per-device defaults do not fit this device (%s); "
		    "the defaults are the suite's own",
		    why);
	else if (e) {
		ax_defaults_match_text(e, match, sizeof(match));
		ax_tl_say(lv, "defaults: %s:%d (%s)", d->path, e->line, match);
	}
	ax_defaults_free(d);
	return 0;
}

/* A device with one subgroup size leaves sg_size nothing to choose:
 * its points 0 and that size build the same code.  Said, so that a
 * session that never moves it is not read as a finding. */
static void say_subgroup_sizes(struct ax_tl_live *lv)
{
	const struct ax_vk_device_info *info = lv->session.info;
	if (ax_params_find(&lv->a->base, "sg_size") < 0 ||
	    info->subgroup_size_min != info->subgroup_size_max)
		return;
	if (!info->subgroup_size_control)
		ax_tl_say(lv,
			  "sg_size: %s has no VK_EXT_subgroup_size_control, "
			  "so sg_size stays 0 (the driver's choice, %u)",
			  info->name, info->subgroup_size);
	else
		ax_tl_say(lv,
			  "sg_size: %s can require subgroup size %u only, so "
			  "the tuner's sg_size points are 0 (the driver's "
			  "choice) and %u, the same code",
			  info->name, info->subgroup_size,
			  info->subgroup_size);
}

static int open_session(struct ax_tl_live *lv,
			const struct ax_db_session_row *resumed)
{
	char err[1024];
	struct ax_tune_args *a = lv->a;
	struct valid_ctx vc = {a, lv->session.info};
	if (ax_space_create_case(&lv->space, &a->base, point_valid, &vc, 0,
				 a->seed, err, sizeof(err))) {
		/* No valid point: what the device says of the defaults is
		 * usually why (a feature it lacks: nothing to tune). */
		char why[512] = "";
		if (a->suite->check)
			a->suite->check(&a->base, lv->session.info, why,
					sizeof(why));
		return ax_app_error(lv->app, AX_EXIT_USAGE, "tune %s: %s%s%s",
				    a->suite->name, err,
				    why[0] ? "; at the defaults: " : "", why);
	}
	say_subgroup_sizes(lv);
	struct ax_tuner_options to;
	ax_tune_options(a, &to);
	lv->trial_ids = calloc(ax_space_size(lv->space), sizeof(int64_t));
	if (!lv->trial_ids)
		return ax_app_error(lv->app, AX_EXIT_FAIL, "out of memory");
	int rc = choose_prior(lv, resumed);
	if (rc)
		return rc;
	to.prior = lv->prior.prior;
	if (ax_tuner_create(&lv->tuner, lv->space, a->strategy, a->seed, &to,
			    err, sizeof(err)))
		return ax_app_error(lv->app, AX_EXIT_USAGE, "tune: %s", err);
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
		return ax_tl_replay_stored(lv, resumed);
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
	    .stop_rule = ax_stop_rule_name(ax_tl_stop_rule_of(a)),
	    .prior_session_id = lv->prior.session_id,
	    .mode = ax_tune_mode_name(a->mode),
	};
	rc = ax_db_session_begin(lv->db, &s, &lv->session_id);
	free(shape);
	if (!rc)
		rc = ax_db_session_claim(lv->db, lv->session_id,
					 lv->session.run_id);
	if (rc)
		return ax_app_error(lv->app, AX_EXIT_STORAGE, "%s",
				    ax_db_errmsg(lv->db));
	return 0;
}

static int close_all(struct ax_tl_live *lv, int rc)
{
	/* A session row left unfinished would say nothing of its end, so a
	 * failure to store the reason is said and fails the command. */
	if (lv->session_id && lv->db &&
	    ax_db_session_finish(lv->db, lv->session_id, ax_tl_end_reason(lv, rc),
				 lv->best_trial_id)) {
		int code = ax_app_error(lv->app, AX_EXIT_STORAGE,
					"tune: finishing session %lld: %s",
					(long long)lv->session_id,
					ax_db_errmsg(lv->db));
		rc = rc ? rc : code;
	}
	ax_tuner_destroy(lv->tuner);
	json_decref(lv->front);
	ax_tune_prior_release(&lv->prior);
	ax_space_destroy(lv->space);
	free(lv->trial_ids);
	free(lv->first_values);
	return ax_session_finish(&lv->session, rc);
}

int ax_tune_live(struct ax_app *app, struct ax_tune_args *a)
{
	struct ax_tl_live lv = {.app = app,
			  .a = a,
			  .best_value = NAN,
			  .best_obj = NAN,
			  .defaults_first = NAN};
	struct ax_tl_verdict v = {0};
	struct ax_db_session_row *resumed = NULL;
	a->trial_opts.stop = &ax_interrupted;
	a->final_opts.stop = &ax_interrupted;
	ax_session_init(&lv.session, app, "tune");
	lv.session.eff = a->eff;
	/* A new session's objective is checked against the device before
	 * the database is even opened; a resumed one's once it is read. */
	int rc = ax_session_choose_device(&lv.session);
	if (rc == 0 && !a->resume_session)
		rc = ax_tl_check_objective_sensor(&lv);
	if (rc == 0)
		rc = ax_session_open_db(&lv.session);
	lv.db = lv.session.db;
	if (rc == 0)
		rc = ax_tl_load_resumed(&lv, &resumed);
	if (rc == 0 && a->resume_session)
		rc = ax_tl_check_objective_sensor(&lv);
	/* Trials, re-timing and the final paired rounds all sample in the
	 * session's mode: an optimum found warm says nothing of cold. */
	a->trial_opts.mode = a->final_opts.mode = a->mode;
	if (rc == 0)
		rc = take_device_defaults(&lv);
	if (rc == 0)
		rc = open_session(&lv, resumed);
	ax_db_session_row_free(resumed);
	if (rc == 0)
		rc = ax_tl_measure_defaults_first(&lv);
	if (rc == AX_EINTR)
		rc = 0;
	size_t i;
	while (rc == 0 && !ax_interrupted &&
	       ax_tuner_ask(lv.tuner, &i) == 0) {
		rc = trial(&lv, i);
		if (rc == AX_EINTR)
			rc = 0;
	}
	if (rc == 0 && !ax_interrupted) {
		rc = ax_tl_finalise(&lv, &v);
		if (rc == AX_EINTR)
			rc = 0;
	}
	/* No session row (its start failed): nothing to report on. */
	if (lv.tuner && lv.session_id) {
		ax_tl_report(&lv, &v, rc);
		fflush(stdout);
		if (ax_interrupted)
			ax_tl_tell_resume(&lv);
	}
	return close_all(&lv, rc);
}
