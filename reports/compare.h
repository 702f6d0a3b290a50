/*
 * reports/compare.h - the regression check behind `axbench compare`.
 *
 * Two sets of results (BASE and CAND, each a list of result rows of
 * core/db_rows.h read with their samples) are matched by device
 * fingerprint, suite and canonical parameter hash; a result left over is
 * then matched on its case alone - its parameters less the suite's
 * tunables (opts.is_tunable) - so that a tuned run (`run --tuned`) and a
 * default run of one shape compare as one case, the row naming the
 * tunables that differ.  Each matched pair gets a verdict from its raw
 * samples; everything that could not be paired is listed with the
 * reason, never dropped.
 *
 * Verdict rules (all relative to the BASE median, and direction-aware: a
 * positive "improvement" means better, i.e. higher for higher_is_better
 * units such as GB/s and lower for lower-is-better units such as us):
 *
 *   - identical sample lists on both sides             -> same
 *   - fewer than min_samples raw samples on a side     -> ambiguous
 *   - Mann-Whitney p < alpha and the Hodges-Lehmann shift's confidence
 *     interval (level conf, default 95 %), as a fraction of the base
 *     median, lies entirely above +threshold          -> faster
 *     ... or entirely below -threshold                 -> slower
 *   - that interval lies entirely inside [-threshold, +threshold] -> same
 *   - anything else (a wide interval straddling the threshold, or a
 *     significant shift whose interval reaches into the threshold band)
 *                                                      -> ambiguous
 *   - a faster, slower or ambiguous pair where a side missed its noise
 *     target (the relative half-width of its median's 95 % interval,
 *     taken from the very samples judged, is above the max_noise its run
 *     asked for: the result's "noise_target")          -> noisy
 *     unless opts.strict, which keeps the statistical verdict, or the
 *     whole interval lies beyond the threshold plus both sides' noise
 *     (a change the noise cannot explain: 15x slower stays slower).
 *     Such a side stopped on its sample or time limit before its median
 *     was as tight as asked, so a shift between the two is as likely the
 *     machine's noise as the code's: "noisy" is said, counted and never
 *     a regression.  "same" stays same: the interval was narrow enough.
 *
 * "faster" reads as "better" for every unit: the word is the one CI
 * systems and people expect from a benchmark comparison.
 *
 * A pair where BASE was "ok" and CAND has another status (failed
 * verification, timeout, error) is incomparable *and* counted as a
 * regression, because a kernel that stopped working is worse than a slow
 * one.  Pairs with different units or directions are incomparable.
 *
 * The threshold (minimum effect size) defaults to 2 % and can be set per
 * suite with fnmatch(3) globs; the last matching rule wins.
 *
 * Energy (issue 13): where both sides of a pair stored an energy per
 * repetition, the pair gets an energy verdict too.  A result has one
 * energy figure (a sensor at 10 Hz cannot tell millisecond samples
 * apart), so there is no test to make: the candidate uses less or more
 * energy when its figure differs from the base's by more than
 * AX_COMPARE_ENERGY_MARGIN, else the same.  The energy verdict is said,
 * never counted as a regression: the exit status stays the time's.
 */
#ifndef AX_COMPARE_H
#define AX_COMPARE_H

#include "core/db_rows.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum ax_verdict {
	AX_VERDICT_SAME,
	AX_VERDICT_FASTER,
	AX_VERDICT_SLOWER,
	AX_VERDICT_AMBIGUOUS,
	AX_VERDICT_NOISY,	 /* a side missed its noise target */
	AX_VERDICT_INCOMPARABLE, /* matched, but could not be compared */
	AX_VERDICT_UNMATCHED,	 /* present on one side only */
};

/* Lower-case word for a verdict ("faster", "same" ...); never NULL. */
const char *ax_compare_verdict_name(enum ax_verdict v);

struct ax_compare_rule {
	const char *glob; /* fnmatch pattern on the suite name (borrowed) */
	double threshold; /* fraction: 0.05 for 5 % */
};

struct ax_compare_opts {
	double threshold; /* default minimum effect, fraction (0.02) */
	const struct ax_compare_rule *rules; /* borrowed; may be NULL */
	int n_rules;
	double alpha;	 /* significance level (0.05) */
	double conf;	 /* confidence level of the shift CI (0.95) */
	int min_samples; /* per side (5) */
	bool strict;	 /* no "noisy": keep the statistical verdict */
	/* Is param one of suite's tunables (a knob the tuner turns, not the
	 * case's shape)?  Reports never see suites/: the caller, who does,
	 * says (cli/cmd_compare.c, from the suite table).  NULL: none are,
	 * and results match on their exact parameters only. */
	bool (*is_tunable)(const char *suite, const char *param);
	/* Is v the table's default of its parameter in suite?  A tunable
	 * one side does not store (a knob added since: gemm's sg_size)
	 * while the other holds it at its default is no difference; NULL:
	 * every absence is one. */
	bool (*is_default)(const char *suite, const struct ax_db_param *v);
};

/* Fill o with the documented defaults. */
void ax_compare_opts_init(struct ax_compare_opts *o);

/* Threshold that applies to suite under o (the last matching rule). */
double ax_compare_threshold_for(const struct ax_compare_opts *o,
				const char *suite);

/* The statistics of one comparison of raw samples. */
struct ax_compare_stat {
	enum ax_verdict verdict;
	double threshold; /* fraction used */
	double base_median, cand_median;
	double p_value;	       /* NAN when not computed */
	double shift;	       /* HL estimate of cand - base, in unit */
	double rel;	       /* shift / |base median| (signed, raw) */
	double rel_lo, rel_hi; /* CI of rel */
	double improvement;    /* rel made direction-aware: > 0 is better */
	double impr_lo, impr_hi;
	/* The ratio of medians, direction-aware: > 1 is better ("2.5x
	 * faster"), < 1 worse (0.4 reads "2.5x slower"); NAN where a median
	 * is missing or not positive. */
	double speedup;
	char reason[512]; /* one sentence explaining the verdict */
};

/*
 * Decide the verdict for base samples a[0..na) against candidate samples
 * b[0..nb) under the rules above.  Returns 0, or AX_EINVAL (message in
 * err) for NULL arrays with a positive count or na/nb < 0; too few
 * samples is a verdict (ambiguous), not an error.
 */
int ax_compare_samples(const double *a, int na, const double *b, int nb,
		       bool higher_is_better, double threshold,
		       const struct ax_compare_opts *o,
		       struct ax_compare_stat *out, char *err, size_t errlen);

/* The documented rules applied to s's improvement interval (impr_lo,
 * impr_hi), p_value and threshold: sets s->verdict and s->reason.  The
 * one place the rules live, for sample and paired comparisons alike. */
void ax_compare_decide(struct ax_compare_stat *s, double alpha);

/*
 * A win a tuned point may claim over the defaults: the shift test says
 * faster (st->verdict) and the candidate's median is better too.  The
 * Hodges-Lehmann shift and the difference of medians can disagree in sign
 * on bimodal samples (a preempted machine), and a speed-up shown as a
 * ratio of medians must never be below 1.
 */
bool ax_compare_wins(const struct ax_compare_stat *st, bool higher_is_better);

/* A difference in energy smaller than this fraction is no difference. */
#define AX_COMPARE_ENERGY_MARGIN 0.05

enum ax_energy_verdict {
	AX_ENERGY_NONE, /* a side has no energy figure */
	AX_ENERGY_SAME,
	AX_ENERGY_LESS, /* the candidate uses less: better */
	AX_ENERGY_MORE,
};
/* "n/a", "same", "less", "more". */
const char *ax_energy_verdict_name(enum ax_energy_verdict v);

struct ax_compare_energy {
	enum ax_energy_verdict verdict;
	double base_j, cand_j; /* per repetition, NAN when missing */
	double change;	       /* cand / base - 1 */
};

/* The energy verdict of two figures under the margin rule. */
void ax_compare_energy_figures(double base_j, double cand_j,
			       struct ax_compare_energy *out);

/* ... of two results (their power's energy_rep_j; none for a result
 * that is not ok). */
void ax_compare_energy_results(const struct ax_db_result_row *base,
			       const struct ax_db_result_row *cand,
			       struct ax_compare_energy *out);

/* How tight each side's median is, against what its run asked for.
 * Fractions (0.02 is +/-2 %); NAN where unknown (no samples, or a run
 * that stored no target, such as a tuning session). */
struct ax_compare_noise {
	double base, cand;		 /* rel. half-width of the 95 % CI */
	double base_target, cand_target; /* the result's noise_target */
};

/* True when x is above a known target t. */
bool ax_compare_missed_target(double x, double t);

/* Replicates: results of one side with the same device, suite and
 * parameters (the rounds of `run --rounds`, the runs of a baseline saved
 * from several) are one measurement.  Their samples are pooled, and the
 * spread between their medians sets a minimum effect: a change smaller
 * than t(conf, df) * spread * sqrt(1/base + 1/cand) is what reruns
 * produce on their own, so the pair's threshold is the larger of that
 * and the rule's. */
struct ax_compare_replicates {
	int base, cand;	   /* results pooled on each side */
	double spread;	   /* relative, ax_stats_replicate_spread; NAN */
	int df;		   /* its degrees of freedom */
	double min_effect; /* fraction; NAN where neither side has two */
};

/*
 * The minimum detectable effect (MDE) of a row: the smallest change, as a
 * direction-aware fraction of the BASE median, that this comparison could
 * have called faster or slower given the noise it saw.  A change is
 * called when the whole interval of the improvement lies beyond the
 * threshold the verdict used, so
 *
 *   effect = threshold + half_width, where
 *   threshold  = the rule's threshold, or the replicates' minimum effect
 *                where larger, plus both sides' relative noise where a
 *                side missed its noise target (the "noisy" allowance;
 *                not under --strict) - what the interval must clear;
 *   half_width = half the width of the 95 % interval of the change
 *                (impr_hi - impr_lo) / 2, as measured.
 *
 * A change of `effect` measured with an interval as wide as this one
 * just clears the threshold; anything smaller reads same, ambiguous or
 * noisy (the interval need not be symmetric: the verdict, not this
 * figure, decides each row).  NAN where no test was made (too few
 * samples, a failed or unmatched side).
 *
 * What would bring it down: everything above the rule's threshold is
 * noise (noise = effect - rule), and noise shrinks with the square root
 * of the replicates, as the replicates' minimum effect does:
 * noise(K_b, K_c) = noise * sqrt((1/K_b + 1/K_c) / (1/n_b + 1/n_c)) with
 * n_b, n_c the replicates pooled now.  The target is noise no larger than
 * the rule's threshold (effect at most twice the threshold):
 *   runs_both: K replicates a side (K baseline runs, `baseline save NAME
 *              --last K`, and K candidate rounds, `run --rounds K`);
 *   runs_base: K baseline runs with the candidate as it is.
 * Both are 0 where the noise is already within the target; runs_both is
 * -1 where more than AX_COMPARE_RUNS_MAX would be needed (or the
 * threshold is 0), runs_base -1 where no number of baseline runs alone
 * can (the candidate's own share of the noise is above the target).
 * With one run a side the spread between runs is not measured: the
 * counts then assume it is no larger than the noise within a run, and
 * are a lower bound.
 */
#define AX_COMPARE_RUNS_MAX 1000
struct ax_compare_mde {
	double effect, threshold, half_width; /* fractions; NAN: none */
	double rule;		  /* the rule's threshold for the row's suite */
	int runs_both, runs_base; /* 0: within the target; -1: see above */
};

/* A tunable whose value differs between the two sides of a row matched
 * on its case alone (either value NULL where that side lacks it). */
struct ax_compare_tunable {
	const char *name; /* borrowed from a side's parameters */
	const struct ax_db_param *base, *cand;
};

/* One line of the comparison: a matched pair or an unmatched result. */
struct ax_compare_pair {
	/* The results the row shows (borrowed from the lists given to
	 * ax_compare_run); one is NULL for an unmatched row. */
	const struct ax_db_result_row *base, *cand;
	struct ax_compare_stat stat;
	struct ax_compare_noise noise;
	struct ax_compare_replicates reps;
	struct ax_compare_energy energy;
	struct ax_compare_mde mde;
	/* The tunables that differ (malloc'd, n_tunables of them; NULL and
	 * 0 for a row matched on its exact parameters). */
	struct ax_compare_tunable *tunables;
	int n_tunables;
	bool regression; /* counts towards exit status 1 */
};

/* p's MDE from its verdict's figures (p->stat, p->noise, p->reps): rule
 * is the suite's threshold, t the one the verdict compared with (rule or
 * the replicates' minimum effect). */
void ax_compare_mde_row(struct ax_compare_pair *p, double rule, double t,
			bool strict);

/* The MDE over the rows that have one (struct ax_compare_mde). */
struct ax_compare_mde_summary {
	int n;				       /* rows with an MDE */
	double median, min, max;	       /* fractions; NAN when n is 0 */
	const struct ax_compare_pair *typical; /* the median's row */
	char advice[640]; /* what would bring it down, in words */
};

struct ax_compare {
	struct ax_compare_pair *pairs;
	int n_pairs;
	int count[AX_VERDICT_UNMATCHED + 1];  /* rows per verdict */
	int energy_count[AX_ENERGY_MORE + 1]; /* rows per energy verdict */
	int regressions;
	char *base_label, *cand_label; /* "run 12", "baseline:nightly" */
	double threshold;	       /* the default, for the report header */
	struct ax_compare_mde_summary mde;
};

/* Fill c->mde from its rows' (ax_compare_run does, after matching). */
void ax_compare_mde_summarize(struct ax_compare *c);

/*
 * Match and compare.  base and cand are lists of results with their
 * samples (parameters typed: app/suite_doc.h's ax_app_type_row_params);
 * the comparison borrows their rows, so both lists outlive it.  Labels
 * are copied and may be NULL.  Results pair on their exact parameters
 * first, then what is left on their case alone (o->is_tunable; see the
 * top).  Rows are ordered: matched pairs in BASE order,
 * then results only in CAND; replicates make one row, which shows the
 * newest BASE result that is ok and the newest CAND result (the newest
 * that failed, where one did: a failed round is a regression).  *out is
 * the caller's to destroy.
 */
int ax_compare_run(const struct ax_db_results *base,
		   const struct ax_db_results *cand, const char *base_label,
		   const char *cand_label, const struct ax_compare_opts *o,
		   struct ax_compare **out, char *err, size_t errlen);
void ax_compare_destroy(struct ax_compare *c);

/* Number of rows that got a statistical verdict (same / faster /
 * slower / ambiguous / noisy). */
int ax_compare_n_compared(const struct ax_compare *c);

/* "detects changes above 12.3 % (median; range 3.1-45 % over 38 cases)"
 * or "detects nothing: no case was compared" into buf (the summary line
 * of every output). */
const char *ax_compare_mde_text(const struct ax_compare *c, char *buf,
				size_t len);

/* A result's parameters as one canonical text: compact JSON with sorted
 * keys, as documents show them ("{\"size\":65536}"; "null" where none
 * were stored).  malloc'd; NULL when out of memory. */
char *ax_compare_params_text(const struct ax_db_result_row *r);

/* The comparison as a JSON document (new reference), written from the
 * verdicts and the rows they show. */
json_t *ax_compare_to_json(const struct ax_compare *c);

/* Writers.  Each returns 0 or AX_EIO when the stream reports an error.
 *
 * The text table is sized to its content: case and device are never cut.
 * A row wider than width columns (a terminal's; 0 for no limit) puts its
 * case on a line of its own below, whole.  A device shared by every row
 * is named once in the header instead of in a column. */
int ax_compare_write_text(const struct ax_compare *c, FILE *f, int width);

/* The quiet form (`compare -q`): the summary line, then only the rows
 * that count as regressions, in the same layout; no table when there is
 * none.  A quiet CI log still says what failed and why it exited 1. */
int ax_compare_write_regressions(const struct ax_compare *c, FILE *f,
				 int width);

/* The change as people read it: "18.6x slower" where the medians differ
 * by 1.5x or more, else the direction-aware change in percent with its
 * interval ("-3.21% [-4.02%, -2.47%]"); "" where there is none. */
const char *ax_compare_change_text(const struct ax_compare_stat *s, char *buf,
				   size_t len);
int ax_compare_write_json(const struct ax_compare *c, FILE *f);
int ax_compare_write_markdown(const struct ax_compare *c, FILE *f);
int ax_compare_write_junit(const struct ax_compare *c, FILE *f);

#endif
