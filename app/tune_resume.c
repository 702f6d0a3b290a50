/* app/tune_resume.c - --resume: the stored session replayed and checked. */
#include "app/tune_internal.h"

#include "core/db.h"
#include "core/error.h"
#include "suites/registry.h"
#include "tuner/space.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ax_tl_stored_params(struct ax_params *p, const struct ax_param_def *defs,
			int n, const struct ax_db_params *src,
			const json_t *doc, char *err, size_t errlen)
{
	if (!src->n && !json_is_object(doc)) {
		ax_params_init(p, defs, n);
		return ax_errf(err, errlen, AX_EINVAL,
			       "parameters are not a JSON object");
	}
	return ax_db_params_point(p, defs, n, src, err, errlen);
}

/* Map a stored trial's parameters back to its point of the space. */
static long stored_index(const struct ax_tl_live *lv,
			 const struct ax_db_trial_row *t)
{
	struct ax_params p;
	char err[256];
	if (ax_tl_stored_params(&p, lv->a->base.defs, lv->a->base.n,
				&t->params, t->params_doc, err, sizeof(err)))
		return -1;
	return ax_space_find_params(lv->space, &p);
}

/* --resume: the tuner relearns every stored trial before asking. */
int ax_tl_replay_stored(struct ax_tl_live *lv,
			const struct ax_db_session_row *session)
{
	for (size_t k = 0; k < session->n_trials; k++) {
		const struct ax_db_trial_row *t = &session->trials[k];
		long i = stored_index(lv, t);
		/* The tuner relearns the figure the session minimised
		 * (sessions from before objectives minimised seconds). */
		double fig = isfinite(t->objective_value) ? t->objective_value
							  : t->seconds;
		if (ax_tl_energy_objective(lv) ||
		    lv->a->objective == AX_OBJ_PARETO)
			fig = t->objective_value;
		bool ok = t->status && strcmp(t->status, "ok") == 0 &&
			  isfinite(fig);
		lv->n_trials++;
		if (i < 0)
			continue;
		lv->trial_ids[i] = t->id;
		ax_tl_tell(lv, (size_t)i,
			   ok && (lv->a->objective != AX_OBJ_PARETO ||
				  isfinite(t->seconds)),
			   t->seconds, fig);
		double o = ok ? fig : NAN;
		if (ok && ax_tl_better(lv, t->value, o)) {
			lv->best_value = t->value;
			lv->best_obj = o;
			lv->best_trial_id = t->id;
			struct ax_params p;
			ax_tl_point_params(lv, (size_t)i, &p);
			ax_params_label(&p, AX_PARAM_TUNABLE, lv->best_label,
				       sizeof(lv->best_label));
		}
	}
	return 0;
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
static int resume_stop_rule(struct ax_tl_live *lv,
			    const struct ax_db_session_row *session)
{
	struct ax_tune_args *a = lv->a;
	const char *stored = session->stop_rule;
	enum ax_stop_rule rule;
	char err[128];
	if (!stored || ax_stop_rule_parse(stored, &rule, err, sizeof(err)))
		return 0;
	if (a->stop_rule_given && ax_tl_stop_rule_of(a) != rule) {
		ax_app_error(lv->app, AX_EXIT_USAGE,
			     "--stop-rule %s: session %lld stops by the rule "
			     "%s; --resume continues it so (give no "
			     "--stop-rule or --no-early-stop, or start a new "
			     "session)",
			     ax_stop_rule_name(ax_tl_stop_rule_of(a)),
			     (long long)a->resume_session, stored);
		return -1;
	}
	a->no_early_stop = false;
	a->stop_rule = (int)rule;
	return 0;
}

/* A resumed session minimises what it was started to ("live": from
 * before objectives, time); another --objective is refused. */
static int resume_objective(struct ax_tl_live *lv,
			    const struct ax_db_session_row *session)
{
	struct ax_tune_args *a = lv->a;
	const char *stored = session->objective;
	enum ax_tune_objective o = AX_OBJ_TIME;
	const char *const *names = ax_tune_objectives();
	for (int i = 0; stored && names[i]; i++)
		if (strcmp(stored, names[i]) == 0)
			o = (enum ax_tune_objective)(AX_OBJ_TIME + i);
	if (a->objective != AX_OBJ_UNSET && a->objective != o) {
		ax_app_error(lv->app, AX_EXIT_USAGE,
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

/* A resumed session samples as it was started to (sessions from before
 * modes were stored: batch); another --mode is refused, since trials
 * sampled two ways are not comparable. */
static int resume_mode(struct ax_tl_live *lv,
		       const struct ax_db_session_row *session)
{
	struct ax_tune_args *a = lv->a;
	enum ax_run_mode stored = session->mode &&
					  strcmp(session->mode, "cold") == 0
				      ? AX_MODE_COLD
				      : AX_MODE_BATCH;
	if (a->mode_given && a->mode != stored) {
		ax_app_error(lv->app, AX_EXIT_USAGE,
			     "--mode %s: session %lld samples its trials in "
			     "%s mode; --resume continues it so (give no "
			     "--mode, or start a new session)",
			     ax_tune_mode_name(a->mode),
			     (long long)a->resume_session,
			     ax_tune_mode_name(stored));
		return -1;
	}
	a->mode = stored;
	return 0;
}

/* Energy objectives need the device's power sensor: without one the
 * session is refused before anything is stored. */
int ax_tl_check_objective_sensor(struct ax_tl_live *lv)
{
	char why[512];
	if (lv->a->objective == AX_OBJ_UNSET)
		lv->a->objective = AX_OBJ_TIME;
	if ((!ax_tl_energy_objective(lv) &&
	     lv->a->objective != AX_OBJ_PARETO) ||
	    ax_session_power_probe(&lv->session, why, sizeof(why)) == 0)
		return 0;
	return ax_app_error(lv->app, AX_EXIT_USAGE,
			    "--objective %s needs the device's power: %s; "
			    "tune for time (the default) here",
			    ax_tune_objective_name(lv->a->objective), why);
}

static int resume_settings(struct ax_tl_live *lv,
			   const struct ax_db_session_row *session)
{
	struct ax_tune_args *a = lv->a;
	long long id = (long long)a->resume_session;
	static char strategy[32];
	if (resume_objective(lv, session))
		return AX_EXIT_USAGE;
	snprintf(strategy, sizeof(strategy), "%s", session->strategy ?: "bo");
	uint64_t seed = session->has_seed ? session->seed : 0;
	int64_t budget = session->budget; /* AX_DB_NONE: not stored */
	if (a->strategy && strcmp(a->strategy, strategy) != 0)
		return ax_app_error(lv->app, AX_EXIT_USAGE,
				    "--strategy %s: session %lld searches "
				    "with %s; --resume continues it so (give "
				    "no --strategy, or start a new session)",
				    a->strategy, id, strategy);
	if (a->seed != AX_TUNE_SEED_UNSET && a->seed != seed)
		return ax_app_error(lv->app, AX_EXIT_USAGE,
				    "--seed %llu: session %lld was started "
				    "with seed %llu; --resume continues it so "
				    "(give no --seed, or start a new session)",
				    (unsigned long long)a->seed, id,
				    (unsigned long long)seed);
	a->strategy = strategy;
	a->seed = seed;
	if (resume_stop_rule(lv, session) || resume_mode(lv, session))
		return AX_EXIT_USAGE;
	if (a->budget && budget > 0 && a->budget != (size_t)budget)
		ax_tl_say(lv,
		    "budget %zu for this run, stored trials included (session "
		    "%lld was started with %lld)",
		    a->budget, id, (long long)budget);
	if (!a->budget)
		a->budget = budget > 0 ? (size_t)budget : 40;
	return 0;
}

int ax_tl_load_resumed(struct ax_tl_live *lv,
		       struct ax_db_session_row **session)
{
	struct ax_tune_args *a = lv->a;
	char err[512];
	*session = NULL;
	if (!a->resume_session)
		return 0;
	if (ax_db_session_row_get(lv->db, a->resume_session, session))
		return ax_app_error(lv->app, AX_EXIT_USAGE,
				    "--resume %lld: no such tuning session in "
				    "%s (axbench results lists runs)",
				    (long long)a->resume_session,
				    lv->app->db_path);
	const char *suite = (*session)->suite;
	/* `tune --resume ID` alone: the session names its suite. */
	if (!a->suite && !(a->suite = ax_suite_find(suite ? suite : "")))
		return ax_app_error(lv->app, AX_EXIT_USAGE,
				    "--resume %lld: that session tuned '%s', "
				    "which this axbench does not know "
				    "(axbench suites lists them)",
				    (long long)a->resume_session,
				    suite ? suite : "?");
	if (!suite || strcmp(suite, a->suite->name) != 0)
		return ax_app_error(lv->app, AX_EXIT_USAGE,
				    "--resume %lld: that session tuned %s, "
				    "not %s",
				    (long long)a->resume_session,
				    suite ? suite : "?", a->suite->name);
	if (ax_tl_stored_params(&a->base, a->suite->params, a->suite->n_params,
				&(*session)->shape, (*session)->shape_doc, err,
				sizeof(err)))
		return ax_app_error(lv->app, AX_EXIT_USAGE,
				    "--resume: stored shape unusable: %s", err);
	return resume_settings(lv, *session);
}
