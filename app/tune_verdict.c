/* app/tune_verdict.c - the defaults first, the best re-timed, the verdict. */
#include "app/tune_internal.h"

#include "core/db.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "reports/compare.h"
#include "tuner/space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Measure p carefully (final sampling) and store it with its role. */
static int retime(struct ax_tl_live *lv, const struct ax_params *p, const char *role,
		  struct ax_tl_timed *t)
{
	struct ax_session_case c;
	*t = (struct ax_tl_timed){.median = NAN, .obj = NAN};
	int rc = ax_tl_measure(lv, p, &lv->a->final_opts, role, &c);
	if (rc == 0 && c.r.outcome == AX_CASE_INTERRUPTED)
		rc = AX_EINTR;
	if (rc == 0 && c.r.status == 0 && c.r.n > 0 &&
	    (t->values = malloc(sizeof(double) * (size_t)c.r.n))) {
		memcpy(t->values, c.r.values, sizeof(double) * (size_t)c.r.n);
		t->n = c.r.n;
		t->median = c.r.summary.median;
		t->obj = ax_tl_objective_of(lv, &c, ax_runner_median_seconds(&c.r));
	}
	ax_session_case_release(&c);
	return rc;
}

static bool is_defaults(const struct ax_tl_live *lv, const struct ax_params *p)
{
	const struct ax_params *d = &lv->a->base;
	for (int k = 0; k < p->n; k++)
		if ((p->defs[k].flags & AX_PARAM_TUNABLE) && p->v[k] != d->v[k])
			return false;
	return true;
}

/* Whether the defaults may run here; if not, why (when why is given). */
static bool defaults_valid(const struct ax_tl_live *lv, char *why, size_t n)
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
int ax_tl_measure_defaults_first(struct ax_tl_live *lv)
{
	char why[512], f[64];
	struct ax_tl_timed t;
	if (!defaults_valid(lv, why, sizeof(why))) {
		ax_tl_say(lv,
		    "the defaults cannot run here, so there is no "
		    "reference: %s",
		    why);
		return 0;
	}
	ax_tl_say(lv, "measuring the defaults first, as the reference for the "
		"trials");
	int rc = retime(lv, &lv->a->base, "default", &t);
	lv->defaults_first = t.median;
	free(t.values);
	if (rc == 0)
		ax_tl_say(lv, "defaults: %s", ax_tl_figure(lv, t.median, f, sizeof(f)));
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

static bool beats_defaults(const struct ax_tl_live *lv, const struct ax_tl_timed *best,
			   const struct ax_tl_timed *def)
{
	if (ax_tl_energy_objective(lv))
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
static int retime_top(struct ax_tl_live *lv, struct ax_tl_verdict *v, struct ax_tl_timed *best)
{
	size_t top[8], n = 0;
	size_t k = ax_tuner_top(lv->tuner, (size_t)lv->a->retime_top, top);
	int rc = 0;
	for (size_t j = 0; j < k; j++) {
		struct ax_params p;
		ax_tl_point_params(lv, top[j], &p);
		if (!is_defaults(lv, &p))
			top[n++] = top[j];
	}
	if (n)
		ax_tl_say(lv,
		    "re-timing the %zu best point%s and then the defaults "
		    "with full sampling, one after the other, for the "
		    "verdict (the trials were quick samples)",
		    n, n == 1 ? "" : "s");
	for (size_t j = 0; j < n && rc == 0 && !ax_interrupted; j++) {
		struct ax_params p;
		struct ax_tl_timed t;
		char label[512], f[64];
		ax_tl_point_params(lv, top[j], &p);
		ax_params_label(&p, AX_PARAM_TUNABLE, label, sizeof(label));
		rc = retime(lv, &p, "retime", &t);
		ax_tl_say(lv, "re-timed %zu/%zu (%s): %s", j + 1, n, label,
		    ax_tl_figure(lv, t.median, f, sizeof(f)));
		bool wins = !isnan(t.median) &&
			    (!v->have_best || (lv->a->suite->higher_is_better
						   ? t.median > v->best
						   : t.median < v->best));
		if (ax_tl_energy_objective(lv))
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
int ax_tl_finalise(struct ax_tl_live *lv, struct ax_tl_verdict *v)
{
	struct ax_tl_timed best = {.median = NAN, .obj = NAN},
		     def = {.median = NAN, .obj = NAN};
	v->have_best = false;
	v->defaults = v->defaults_obj = v->best_obj = NAN;
	int rc = retime_top(lv, v, &best);
	if (rc == 0 && defaults_valid(lv, NULL, 0) && !ax_interrupted) {
		char f[64];
		rc = retime(lv, &lv->a->base, "default", &def);
		ax_tl_say(lv, "re-timed the defaults: %s",
		    ax_tl_figure(lv, def.median, f, sizeof(f)));
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
