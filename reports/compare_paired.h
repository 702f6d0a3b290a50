/*
 * reports/compare_paired.h - the verdict of a paired A/B measurement
 * (suites/runner.h ax_runner_pair): compare's rules (reports/compare.h)
 * applied to the interval of the per-round speed-up instead of the
 * shift between two sample sets.  A is the base, B the candidate.
 */
#ifndef AX_COMPARE_PAIRED_H
#define AX_COMPARE_PAIRED_H

#include "reports/compare.h"

/* What a paired measurement measured, direction-aware: speed-up > 1
 * means B is better (faster, or less time). */
struct ax_compare_paired_in {
	double speedup, lo, hi; /* Hodges-Lehmann estimate and interval */
	double p_value;		/* signed-rank test of "no change" */
	int rounds;
};

/*
 * The verdict under compare's rules with threshold t (a fraction):
 * faster / slower when significant and the whole interval is beyond
 * +/-t, same when it lies within +/-t, else ambiguous; never "noisy"
 * (the pairing is the answer to noise).  out->improvement is
 * speedup - 1 and its interval lo - 1 .. hi - 1.  *mde gets the smallest
 * change this measurement could have called slower or faster: t plus the
 * interval's half-width (a true change of that size, its interval
 * centred on it, just clears the threshold band).
 */
void ax_compare_paired(const struct ax_compare_paired_in *in, double t,
		       double alpha, struct ax_compare_stat *out, double *mde);

#endif
