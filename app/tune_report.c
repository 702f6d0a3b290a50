/* app/tune_report.c - a live tuning session's progress and report. */
#include "app/tune_internal.h"

#include "core/db.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/live.h"
#include "reports/compare.h"
#include "tuner/prior.h"
#include "tuner/space.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool quiet(const struct ax_tl_live *lv)
{
	return lv->app->verbosity < 0 || lv->app->json;
}

/* A figure in the suite's unit, or "-" when there is none. */
const char *ax_tl_figure(const struct ax_tl_live *lv, double v, char *buf, size_t n)
{
	/* Written into buf either way: callers print buf. */
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.4g %s", v, lv->a->suite->unit);
	return buf;
}

/* Time left, from this run's trials so far: the mean trial times the
 * trials the budget (or the time limit, if sooner) still allows. */
static void eta_text(const struct ax_tl_live *lv, char *buf, size_t n)
{
	double elapsed = ax_tl_now_s() - lv->run_start_s;
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
 * a terminal the line is rewritten in place, so it is cut to the
 * terminal's width (a wrapped line leaves rows behind that "\r\e[K"
 * does not clear) with the best's parameters, the longest part, last;
 * otherwise (a log, a pipe) each trial is a whole line of its own.
 */
void ax_tl_progress(const struct ax_tl_live *lv, double value, const char *status)
{
	if (quiet(lv))
		return;
	char eta[32], f[3][64], line[1024];
	eta_text(lv, eta, sizeof(eta));
	const char *best_label =
	    isnan(lv->best_value) ? "none yet" : lv->best_label;
	ax_tl_figure(lv, value, f[0], sizeof(f[0]));
	ax_tl_figure(lv, lv->best_value, f[1], sizeof(f[1]));
	ax_tl_figure(lv, lv->defaults_first, f[2], sizeof(f[2]));
	if (!isatty(2)) {
		fprintf(stderr,
			"trial %d/%zu (ETA %s): %s %s | best %s (%s) | "
			"defaults %s\n",
			lv->n_trials, lv->a->budget, eta, f[0], status, f[1],
			best_label, f[2]);
		fflush(stderr);
		return;
	}
	snprintf(line, sizeof(line),
		 "trial %d/%zu (ETA %s): %s %s | best %s | defaults %s | %s",
		 lv->n_trials, lv->a->budget, eta, f[0], status, f[1], f[2],
		 best_label);
	ax_live_show(line);
}

/* A line of its own about what the session is doing now. */
void ax_tl_say(const struct ax_tl_live *lv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ax_tl_say(const struct ax_tl_live *lv, const char *fmt, ...)
{
	if (quiet(lv))
		return;
	va_list ap;
	ax_live_clear();
	fputs("axbench tune: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

void ax_tl_warn(const struct ax_tl_live *lv, const char *fmt, ...)
{
	if (quiet(lv))
		return;
	va_list ap;
	ax_live_clear();
	fputs("axbench tune: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/*
 * Why the session ended: what close_all stores in tune_session.stop_reason
 * and what report prints, from one place so they never disagree.  A
 * signal wins over the tuner's own reason (SIGINT while re-timing, after
 * the budget was reached, is an interrupted session), and a failure (a
 * full disk) is an error, not an interruption.
 */
const char *ax_tl_end_reason(const struct ax_tl_live *lv, int rc)
{
	if (ax_interrupted)
		return "interrupted";
	const char *stop = ax_tuner_stop_reason(lv->tuner);
	return rc == 0 && stop ? stop : "error";
}

/* The prior in the JSON output: the session it came from (null when
 * cold), why, how much of it mapped, and the slope the model put on it at
 * its last fit (0: the data preferred the cold model). */
static json_t *prior_json(const struct ax_tl_live *lv)
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

static void print_prior(const struct ax_tl_live *lv)
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
static void set_objective_json(const struct ax_tl_live *lv, const struct ax_tl_verdict *v,
			       json_t *o)
{
	json_object_set_new(
	    o, "objective",
	    json_string(ax_tune_objective_name(lv->a->objective)));
	json_object_set_new(o, "objective_unit",
			    json_string(ax_tl_objective_unit(lv)));
	json_object_set_new(o, "mode",
			    json_string(ax_tune_mode_name(lv->a->mode)));
	double figs[2] = {v->have_best ? v->best_obj : NAN, v->defaults_obj};
	const char *keys[2] = {"best_objective", "default_objective"};
	for (int i = 0; i < 2; i++)
		json_object_set_new(o, keys[i],
				    isfinite(figs[i]) ? json_real(figs[i])
						      : json_null());
}

static void print_objective(const struct ax_tl_live *lv, const struct ax_tl_verdict *v)
{
	if (!ax_tl_energy_objective(lv))
		return;
	const char *name = ax_tune_objective_name(lv->a->objective);
	if (isnan(v->best_obj)) {
		printf("objective: %s per repetition; no figure for the "
		       "answer\n",
		       name);
		return;
	}
	printf("objective: %s per repetition: %.4g %s", name, v->best_obj,
	       ax_tl_objective_unit(lv));
	if (!isnan(v->defaults_obj) && v->best_obj > 0)
		printf(", defaults %.4g %s (%.2fx less%s)", v->defaults_obj,
		       ax_tl_objective_unit(lv), v->defaults_obj / v->best_obj,
		       v->defaults_win ? "; not 5 % below the defaults, so "
					 "the defaults stay"
				       : "");
	printf("\n");
}

/* How the verdict was reached: "paired" (time: the candidate and the
 * defaults in alternating rounds), "energy-margin" (energy and edp: no
 * paired test), or "none" (nothing to set against the defaults). */
static const char *verdict_basis(const struct ax_tl_live *lv,
				 const struct ax_tl_verdict *v)
{
	if (v->pair.done)
		return "paired";
	if (v->have_candidate && ax_tl_energy_objective(lv) &&
	    !isnan(v->defaults))
		return "energy-margin";
	return "none";
}

/* The paired measurement in the JSON output (null when none): the
 * candidate it set against the defaults, both figures, the speed-up of
 * the candidate with its interval, and compare's verdict on it. */
static json_t *pair_json(const struct ax_tl_live *lv,
			 const struct ax_tl_verdict *v)
{
	const struct ax_tl_pair *pp = &v->pair;
	if (!pp->done)
		return json_null();
	struct ax_params p;
	ax_tl_point_params(lv, v->cand_index, &p);
	const double figs[] = {v->cand,	     v->defaults, pp->speedup,
			       pp->lo,	     pp->hi,	  pp->pred_lo,
			       pp->pred_hi,  pp->level,	  pp->p_value,
			       pp->stat.threshold};
	static const char *const keys[] = {
	    "candidate",    "default",	    "speedup", "speedup_lo",
	    "speedup_hi",   "predicted_lo", "predicted_hi",
	    "level",	    "p_value",	    "threshold"};
	json_t *o = json_pack(
	    "{s:o,s:i,s:i,s:s,s:s,s:s,s:I,s:I}", "candidate_params",
	    ax_params_json(&p), "rounds", pp->rounds, "blocks", pp->blocks,
	    "stop_reason",
	    pp->stop_reason ? pp->stop_reason : "", "verdict",
	    ax_compare_verdict_name(pp->stat.verdict), "reason",
	    pp->stat.reason, "default_result_id", (json_int_t)pp->default_id,
	    "candidate_result_id", (json_int_t)pp->best_id);
	for (size_t i = 0; o && i < sizeof(figs) / sizeof(figs[0]); i++)
		json_object_set_new(o, keys[i],
				    isfinite(figs[i]) ? json_real(figs[i])
						      : json_null());
	return o;
}

/* The answer's interval: the pair's when the candidate won it; null
 * when the defaults are the answer or nothing was paired. */
static void set_interval_json(const struct ax_tl_live *lv,
			      const struct ax_tl_verdict *v, json_t *o)
{
	bool won = v->pair.done && !v->defaults_win;
	json_object_set_new(o, "speedup_lo",
			    won ? json_real(v->pair.lo) : json_null());
	json_object_set_new(o, "speedup_hi",
			    won ? json_real(v->pair.hi) : json_null());
	json_object_set_new(o, "rounds",
			    v->pair.done ? json_integer(v->pair.rounds)
					 : json_null());
	json_object_set_new(o, "verdict_basis",
			    json_string(verdict_basis(lv, v)));
	json_object_set_new(o, "default_first_disagrees",
			    json_boolean(v->first_disagrees));
	json_object_set_new(o, "pair", pair_json(lv, v));
}

/* The closing report as one JSON document (--json). */
static void report_json(struct ax_tl_live *lv, const struct ax_tl_verdict *v,
			const char *stop, const struct ax_params *p,
			double speedup)
{
	const struct ax_suite *s = lv->a->suite;
	json_t *o = json_pack(
	    "{s:I,s:I,s:s,s:s,s:i,s:s?,s:s,s:o,s:o,s:o,s:o,s:o,s:o?}",
	    "session_id", (json_int_t)lv->session_id, "run_id",
	    (json_int_t)lv->session.run_id, "suite", s->name, "strategy",
	    lv->a->strategy, "trials", lv->n_trials, "stop_reason", stop,
	    "unit", s->unit, "best",
	    v->have_best ? json_real(v->best) : json_null(), "default",
	    isnan(v->defaults) ? json_null() : json_real(v->defaults),
	    "default_first",
	    isnan(lv->defaults_first) ? json_null()
				      : json_real(lv->defaults_first),
	    "best_trial",
	    isnan(lv->best_value) ? json_null() : json_real(lv->best_value),
	    "speedup", isnan(speedup) ? json_null() : json_real(speedup),
	    "best_params", v->have_best ? ax_params_json(p) : NULL);
	json_object_set_new(o, "prior", prior_json(lv));
	set_interval_json(lv, v, o);
	set_objective_json(lv, v, o);
	if (lv->a->objective == AX_OBJ_PARETO)
		json_object_set_new(o, "front",
				    lv->front ? json_deep_copy(lv->front)
					      : json_array());
	json_dumpf(o, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(o);
}

/* The closing report when nothing was re-timed: the best trial's quick
 * figure, if any, and the defaults measured first. */
static void report_no_best(const struct ax_tl_live *lv)
{
	const struct ax_suite *s = lv->a->suite;
	if (!isnan(lv->best_value))
		/* Cut short before the re-timing: the trials still measured
		 * what they measured; say so, marked as a trial's figure. */
		printf("best so far: %.4g %s  %s (a trial's quick figure, not "
		       "re-timed)\n",
		       lv->best_value, s->unit, lv->best_label);
	else
		printf("no point measured successfully\n");
	if (!isnan(lv->defaults_first))
		printf("defaults: %.4g %s  measured first, before the "
		       "trials\n",
		       lv->defaults_first, s->unit);
}

/* What the interval promises a user who checks: a second paired
 * measurement carries its own error too, so it reads within the wider
 * prediction interval, not the confidence interval (which a re-measured
 * estimate misses about 1 time in 6 even when both are exact). */
static void print_prediction(const struct ax_tl_pair *pp)
{
	if (isfinite(pp->pred_lo) && isfinite(pp->pred_hi))
		printf("re-measured in %d paired rounds, it should read %.2fx "
		       "to %.2fx (95 %% prediction interval)\n",
		       pp->rounds, pp->pred_lo, pp->pred_hi);
}

/* "speed-up 1.24x [1.18, 1.31], 20 paired rounds" and compare's word on
 * it; when the defaults stay, what the best tried point measured. */
static void print_pair(const struct ax_tl_live *lv, const struct ax_tl_verdict *v)
{
	const struct ax_tl_pair *pp = &v->pair;
	char cand[512];
	struct ax_params p;
	printf("defaults: %.4g %s  measured beside the best in alternating "
	       "rounds at the end\n",
	       v->defaults, lv->a->suite->unit);
	if (!v->defaults_win) {
		printf("speed-up %.2fx [%.2f, %.2f], %d paired rounds (%.0f %% "
		       "interval; %s beyond the %.3g %% threshold)\n",
		       pp->speedup, pp->lo, pp->hi, pp->rounds,
		       100 * pp->level, ax_compare_verdict_name(pp->stat.verdict),
		       100 * pp->stat.threshold);
		print_prediction(pp);
		return;
	}
	ax_tl_point_params(lv, v->cand_index, &p);
	ax_params_label(&p, AX_PARAM_TUNABLE, cand, sizeof(cand));
	printf("speed-up 1.00x: the defaults stay; the best tried point (%s) "
	       "read %.2fx [%.2f, %.2f] over them in %d paired rounds (%.0f "
	       "%% interval; %s: its lower end does not clear the %.3g %% "
	       "threshold)\n",
	       cand, pp->speedup, pp->lo, pp->hi, pp->rounds, 100 * pp->level,
	       ax_compare_verdict_name(pp->stat.verdict),
	       100 * pp->stat.threshold);
}

/* The figures beside the best: the paired ones, or (energy, or nothing
 * paired) the defaults re-timed after it; then the first figure. */
static void print_defaults(const struct ax_tl_live *lv,
			   const struct ax_tl_verdict *v, double speedup)
{
	const struct ax_suite *s = lv->a->suite;
	if (v->pair.done)
		print_pair(lv, v);
	else if (!isnan(v->defaults))
		printf("defaults: %.4g %s  re-timed beside the best at the "
		       "end (speed-up %.2fx%s)\n",
		       v->defaults, s->unit, speedup,
		       ax_tl_energy_objective(lv) && v->have_candidate
			   ? "; no paired test for an energy objective"
			   : "");
	if (!isnan(lv->defaults_first))
		printf("defaults: %.4g %s  measured first, before the "
		       "trials%s\n",
		       lv->defaults_first, s->unit,
		       v->first_disagrees
			   ? " (disagrees with the paired figure beyond "
			     "noise: taken under different conditions)"
			   : "");
}

void ax_tl_report(struct ax_tl_live *lv, const struct ax_tl_verdict *v, int rc)
{
	const struct ax_suite *s = lv->a->suite;
	const char *stop = ax_tl_end_reason(lv, rc);
	char label[512] = "";
	struct ax_params p;
	double speedup = NAN;
	if (v->have_best) {
		if (v->defaults_win)
			p = lv->a->base;
		else
			ax_tl_point_params(lv, v->best_index, &p);
		ax_session_case_label(&p, label, sizeof(label));
		/* The paired estimate where the candidate won its pairing;
		 * else the ratio of the figures (1 for the defaults). */
		if (v->pair.done && !v->defaults_win)
			speedup = v->pair.speedup;
		else if (!isnan(v->defaults) && v->defaults > 0)
			speedup = s->higher_is_better ? v->best / v->defaults
						      : v->defaults / v->best;
	}
	ax_live_clear(); /* the report says it all */
	if (lv->app->json) {
		report_json(lv, v, stop, &p, speedup);
		return;
	}
	printf("session %lld: %s on %s, %d trials (%s)\n",
	       (long long)lv->session_id, lv->a->strategy, s->name,
	       lv->n_trials, stop);
	print_prior(lv);
	if (lv->a->objective == AX_OBJ_PARETO) {
		ax_tl_print_front(lv);
		if (!isnan(lv->defaults_first))
			printf("defaults: %.4g %s  measured first, before the "
			       "trials\n",
			       lv->defaults_first, s->unit);
		return;
	}
	if (!v->have_best) {
		report_no_best(lv);
		return;
	}
	printf("best:     %.4g %s  %s%s\n", v->best, s->unit, label,
	       v->defaults_win ? " (the defaults: no tried point beat them)"
			       : "");
	print_defaults(lv, v, speedup);
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
void ax_tl_tell_resume(const struct ax_tl_live *lv)
{
	char db[1100], dev[300] = "", dev_word[280];
	shell_word(lv->app->db_path, db, sizeof(db));
	if (lv->app->device_sel) {
		shell_word(lv->app->device_sel, dev_word, sizeof(dev_word));
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
