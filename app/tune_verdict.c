/*
 * app/tune_verdict.c - the defaults first, the best re-timed, the verdict.
 *
 * The verdict "the best beats the defaults" comes from a paired
 * measurement (app/session.h ax_session_measure_pair): the candidate and
 * the defaults measured in alternating rounds at the end, judged on the
 * per-round ratios by compare's rules (reports/compare_paired.h).  Two
 * figures taken one after the other are not comparable on a machine
 * whose speed drifts: a session once printed 4.10x for a point that is
 * 1.2-1.3x faster, because the defaults happened to be re-timed while
 * other work ran.
 */
#include "app/tune_internal.h"

#include "core/db.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/stats.h"
#include "reports/compare.h"
#include "reports/compare_paired.h"
#include "tuner/space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Measure p carefully (final sampling) and store it with its role. */
int ax_tl_retime(struct ax_tl_live *lv, const struct ax_params *p,
		 const char *role, struct ax_tl_timed *t)
{
	struct ax_session_case c;
	*t = (struct ax_tl_timed){.median = NAN, .obj = NAN, .sec = NAN};
	int rc = ax_tl_measure(lv, p, &lv->a->final_opts, role, &c);
	if (rc == 0 && c.r.outcome == AX_CASE_INTERRUPTED)
		rc = AX_EINTR;
	if (rc == 0 && c.r.status == 0 && c.r.n > 0 &&
	    (t->values = malloc(sizeof(double) * (size_t)c.r.n))) {
		memcpy(t->values, c.r.values, sizeof(double) * (size_t)c.r.n);
		t->n = c.r.n;
		t->median = c.r.summary.median;
		t->sec = ax_runner_median_seconds(&c.r);
		t->obj = ax_tl_objective_of(lv, &c, t->sec);
	}
	t->result_id = c.result_id;
	ax_session_case_release(&c);
	return rc;
}

bool ax_tl_is_defaults(const struct ax_tl_live *lv, const struct ax_params *p)
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

bool ax_tl_defaults_valid(const struct ax_tl_live *lv)
{
	return defaults_valid(lv, NULL, 0);
}

/*
 * The defaults, measured before the first trial with the final sampling
 * and stored with role "default", so that every progress line has the
 * reference "best" is to beat.  The verdict sets the best point against
 * the defaults measured beside it, in paired rounds, at the end: the two
 * figures of one comparison must come from the same conditions (a
 * machine warms, other work comes and goes).  The samples are kept to
 * say when this first figure disagrees with the paired one.
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
	ax_tl_say(lv,
		  "measuring the defaults first, as the reference for the "
		  "trials (%s mode: %s)",
		  ax_tune_mode_name(lv->a->mode),
		  lv->a->mode == AX_MODE_COLD
		      ? "caches scrubbed before each single repetition"
		      : "repetitions back to back, caches warm");
	int rc = ax_tl_retime(lv, &lv->a->base, "default", &t);
	lv->defaults_first = t.median;
	free(lv->first_values);
	lv->first_values = t.values;
	lv->first_n = t.n;
	if (rc == 0)
		ax_tl_say(lv, "defaults: %s",
			  ax_tl_figure(lv, t.median, f, sizeof(f)));
	return rc;
}

/*
 * Energy has one figure per measurement (a sensor at 10 Hz cannot tell
 * millisecond samples apart) and a paired measurement stores no power
 * (one sensor cannot tell two interleaved sides apart), so there is no
 * test to make: the best point wins only when its figure is
 * AX_TUNE_ENERGY_MARGIN below the defaults' measured after it, a margin
 * wider than the run-to-run spread of mean power seen on one device
 * (said in docs/RELIABILITY.md).
 */
#define AX_TUNE_ENERGY_MARGIN 0.05

static bool energy_beats(const struct ax_tl_timed *best,
			 const struct ax_tl_timed *def)
{
	return !isnan(best->obj) && !isnan(def->obj) &&
	       best->obj < def->obj * (1 - AX_TUNE_ENERGY_MARGIN);
}

static bool better_than(const struct ax_tl_live *lv, const struct ax_tl_timed *t,
			const struct ax_tl_verdict *v)
{
	if (ax_tl_energy_objective(lv))
		return !isnan(t->obj) && (!v->have_best || t->obj < v->best_obj);
	return !isnan(t->median) &&
	       (!v->have_best || (lv->a->suite->higher_is_better
				      ? t->median > v->best
				      : t->median < v->best));
}

/* Re-time the top points by the model; the best of them in *best and as
 * the candidate of v.  The default point is left to the defaults' own
 * measurement: the same parameters measured twice are never a
 * speed-up. */
static int retime_top(struct ax_tl_live *lv, struct ax_tl_verdict *v,
		      struct ax_tl_timed *best)
{
	size_t top[8], n = 0;
	size_t k = ax_tuner_top(lv->tuner, (size_t)lv->a->retime_top, top);
	int rc = 0;
	for (size_t j = 0; j < k; j++) {
		struct ax_params p;
		ax_tl_point_params(lv, top[j], &p);
		if (!ax_tl_is_defaults(lv, &p))
			top[n++] = top[j];
	}
	if (n)
		ax_tl_say(lv,
			  "re-timing the %zu best point%s with full sampling, "
			  "one after the other, to pick the candidate (the "
			  "trials were quick samples)",
			  n, n == 1 ? "" : "s");
	for (size_t j = 0; j < n && rc == 0 && !ax_interrupted; j++) {
		struct ax_params p;
		struct ax_tl_timed t;
		char label[512], f[64];
		ax_tl_point_params(lv, top[j], &p);
		ax_params_label(&p, AX_PARAM_TUNABLE, label, sizeof(label));
		rc = ax_tl_retime(lv, &p, "retime", &t);
		ax_tl_say(lv, "re-timed %zu/%zu (%s): %s", j + 1, n, label,
			  ax_tl_figure(lv, t.median, f, sizeof(f)));
		if (rc == 0 && better_than(lv, &t, v)) {
			free(best->values);
			*best = t;
			v->best = v->cand = t.median;
			v->best_obj = t.obj;
			v->best_index = v->cand_index = top[j];
			v->have_best = v->have_candidate = true;
			lv->best_trial_id = lv->trial_ids[top[j]];
		} else {
			free(t.values);
		}
	}
	return rc;
}

/* The extra JSON of a paired side: the session and the role it keeps
 * (the defaults "default", the candidate "retime"), as ax_tl_measure
 * stores them, so every reader of roles reads the pair too. */
static json_t *side_extra(const struct ax_tl_live *lv, const char *role)
{
	return json_pack("{s:I,s:s}", "tune_session",
			 (json_int_t)lv->session_id, "role", role);
}

/* Compare's rules on the paired interval, and the win: faster beyond the
 * threshold, and the candidate's median over every round better too (a
 * speed-up shown must never be below 1). */
static bool judge_pair(const struct ax_tl_live *lv, struct ax_tl_verdict *v)
{
	struct ax_compare_opts o;
	struct ax_tl_pair *pp = &v->pair;
	double mde;
	ax_compare_opts_init(&o);
	struct ax_compare_paired_in in = {pp->speedup, pp->lo, pp->hi,
					  pp->p_value, pp->rounds};
	ax_compare_paired(&in, ax_compare_threshold_for(&o, lv->a->suite->name),
			  o.alpha, &pp->stat, &mde);
	bool hib = lv->a->suite->higher_is_better;
	return pp->stat.verdict == AX_VERDICT_FASTER &&
	       (hib ? v->cand > v->defaults : v->cand < v->defaults);
}

/* A first figure of the defaults that compare's sample rules set apart
 * from the paired one (faster or slower beyond the threshold) was taken
 * under other conditions: said, since every progress line used it. */
static void check_first(const struct ax_tl_live *lv, struct ax_tl_verdict *v,
			const struct ax_runner_result *a)
{
	struct ax_compare_opts o;
	struct ax_compare_stat st;
	char err[128], f[2][64];
	if (!lv->first_values || a->status != 0 || a->n <= 0)
		return;
	ax_compare_opts_init(&o);
	if (ax_compare_samples(a->values, a->n, lv->first_values, lv->first_n,
			       lv->a->suite->higher_is_better,
			       ax_compare_threshold_for(&o, lv->a->suite->name),
			       &o, &st, err, sizeof(err)) ||
	    (st.verdict != AX_VERDICT_FASTER && st.verdict != AX_VERDICT_SLOWER))
		return;
	v->first_disagrees = true;
	char change[64];
	ax_compare_change_text(&st, change, sizeof(change));
	ax_tl_warn(lv,
		   "the defaults measured first read %s, the paired "
		   "re-measurement %s: the first is %s (better is +, p=%.2g), "
		   "beyond noise.  The first figure was taken under different "
		   "conditions (alone, before the trials; the paired one "
		   "round by round beside the best), so the progress lines' "
		   "reference is not the verdict's; the verdict uses the "
		   "paired figure",
		   ax_tl_figure(lv, lv->defaults_first, f[0], sizeof(f[0])),
		   ax_tl_figure(lv, v->defaults, f[1], sizeof(f[1])), change,
		   st.p_value);
}

/* The pairing's figures into v, and the two sides' medians. */
static void take_pair(const struct ax_tl_live *lv, struct ax_tl_verdict *v,
		      const struct ax_session_pair_side *a,
		      const struct ax_session_pair_side *b,
		      const struct ax_runner_pair_result *pr)
{
	struct ax_tl_pair *pp = &v->pair;
	*pp = (struct ax_tl_pair){
	    .done = pr->rounds > 0,
	    .rounds = pr->rounds,
	    .blocks = pr->blocks.blocks,
	    .speedup = pr->speedup,
	    .lo = pr->lo,
	    .hi = pr->hi,
	    .level = pr->test.ci_level,
	    .p_value = pr->p_value,
	    .stop_reason = pr->stop_reason,
	    .default_id = a->c.result_id,
	    .best_id = b->c.result_id,
	};
	ax_stats_ratio_prediction(pp->speedup, pp->lo, pp->hi, &pp->pred_lo,
				  &pp->pred_hi);
	const struct ax_runner_result *ra = &a->c.r, *rb = &b->c.r;
	v->defaults = ra->status == 0 && ra->n ? ra->summary.median : NAN;
	v->defaults_obj = ra->status == 0 && ra->n
			      ? ax_tl_objective_of(lv, &a->c,
						   ax_runner_median_seconds(ra))
			      : NAN;
	v->cand = rb->status == 0 && rb->n ? rb->summary.median : NAN;
}

/* Why a pairing measured no round: a side's error, as stored. */
static const char *pr_reason(const struct ax_session_pair_side *a,
			     const struct ax_session_pair_side *b)
{
	if (a->c.r.error[0])
		return a->c.r.error;
	if (b->c.r.error[0])
		return b->c.r.error;
	return ax_interrupted ? "interrupted" : "no reason given";
}

/*
 * The verdict for time: the candidate (B) and the defaults (A) measured
 * in alternating rounds, ABBA, each round's ratio judged (runner.h); the
 * candidate is the answer only when the interval's lower end clears the
 * threshold.  Either way v->defaults is the paired figure.
 */
static int pair_verdict(struct ax_tl_live *lv, struct ax_tl_verdict *v,
			const struct ax_tl_timed *best)
{
	struct ax_params p;
	struct ax_runner_pair_opts po;
	struct ax_runner_pair_result pr;
	char label[512], f[2][64];
	ax_tl_point_params(lv, v->cand_index, &p);
	ax_params_label(&p, AX_PARAM_TUNABLE, label, sizeof(label));
	ax_runner_pair_opts_default(&po);
	po.higher_is_better = lv->a->suite->higher_is_better;
	po.stop = &ax_interrupted;
	ax_tl_say(lv,
		  "measuring the best (%s) and the defaults in alternating "
		  "rounds (ABBA, %d to %d rounds of %d samples) for the "
		  "verdict: what the machine does between rounds slows both "
		  "alike and cancels in each round's ratio",
		  label, po.min_rounds, po.max_rounds, po.samples_per_round);
	json_t *ea = side_extra(lv, "default"), *eb = side_extra(lv, "retime");
	struct ax_session_pair_side a = {lv->a->suite, &lv->a->base, ea},
				    b = {lv->a->suite, &p, eb};
	int rc = ea && eb ? ax_session_measure_pair(&lv->session,
						    &lv->a->final_opts, &po,
						    &a, &b, &pr)
			  : AX_EXIT_FAIL;
	json_decref(ea);
	json_decref(eb);
	if (rc == AX_EXIT_FAIL)
		return ax_app_error(lv->app, rc, "out of memory");
	take_pair(lv, v, &a, &b, &pr);
	ax_runner_pair_result_release(&pr);
	bool wins = v->pair.done && judge_pair(lv, v);
	if (!v->pair.done)
		ax_tl_warn(lv,
			   "the paired measurement of the best and the "
			   "defaults measured no round (%s): no verdict "
			   "beyond the re-timed figures",
			   pr_reason(&a, &b));
	if (v->pair.done) {
		ax_tl_say(lv,
			  "paired: best %s, defaults %s; speed-up %.3gx "
			  "[%.3g, %.3g], %d rounds (%s): %s",
			  ax_tl_figure(lv, v->cand, f[0], sizeof(f[0])),
			  ax_tl_figure(lv, v->defaults, f[1], sizeof(f[1])),
			  v->pair.speedup, v->pair.lo, v->pair.hi,
			  v->pair.rounds, v->pair.stop_reason,
			  ax_compare_verdict_name(v->pair.stat.verdict));
		check_first(lv, v, &a.c.r);
	}
	ax_session_case_release(&a.c);
	ax_session_case_release(&b.c);
	if (wins) {
		v->best = v->cand;
		v->best_obj = best->obj;
	} else if (!isnan(v->defaults)) {
		v->best = v->defaults;
		v->best_obj = v->defaults_obj;
		v->defaults_win = true;
	}
	return rc;
}

/* The defaults re-timed after the best, one after the other: the energy
 * objective's reference (no paired test for energy), or the only
 * figure when no other point was re-timed. */
static int retime_defaults(struct ax_tl_live *lv, struct ax_tl_verdict *v,
			   const struct ax_tl_timed *best)
{
	struct ax_tl_timed def = {.median = NAN, .obj = NAN};
	char f[64];
	if (v->have_candidate && ax_tl_energy_objective(lv))
		ax_tl_say(lv,
			  "objective %s: no paired test (a paired measurement "
			  "stores no power: one sensor cannot tell two "
			  "interleaved sides apart); the best wins only when "
			  "its figure is 5 %% below the defaults re-timed "
			  "after it",
			  ax_tune_objective_name(lv->a->objective));
	int rc = ax_tl_retime(lv, &lv->a->base, "default", &def);
	ax_tl_say(lv, "re-timed the defaults: %s",
		  ax_tl_figure(lv, def.median, f, sizeof(f)));
	v->defaults = def.median;
	v->defaults_obj = def.obj;
	bool beaten = v->have_candidate && ax_tl_energy_objective(lv) &&
		      energy_beats(best, &def);
	if (!isnan(def.median) && !beaten) {
		v->best = def.median;
		v->best_obj = def.obj;
		v->have_best = true;
		v->defaults_win = true;
	}
	free(def.values);
	return rc;
}

/* The answer: the top points re-timed with more samples to pick the
 * candidate, then the candidate against the defaults measured in the
 * same run (paired rounds for time); the defaults unless the candidate
 * beat them beyond noise. */
int ax_tl_finalise(struct ax_tl_live *lv, struct ax_tl_verdict *v)
{
	struct ax_tl_timed best = {.median = NAN, .obj = NAN};
	v->have_best = v->have_candidate = false;
	v->defaults = v->defaults_obj = v->best_obj = v->cand = NAN;
	v->pair = (struct ax_tl_pair){.speedup = NAN, .lo = NAN, .hi = NAN,
				      .pred_lo = NAN, .pred_hi = NAN};
	if (lv->a->objective == AX_OBJ_PARETO)
		return ax_tl_finalise_pareto(lv, v);
	int rc = retime_top(lv, v, &best);
	if (rc == 0 && defaults_valid(lv, NULL, 0) && !ax_interrupted) {
		if (v->have_candidate && !ax_tl_energy_objective(lv))
			rc = pair_verdict(lv, v, &best);
		else
			rc = retime_defaults(lv, v, &best);
	}
	free(best.values);
	return rc;
}
