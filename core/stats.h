/*
 * core/stats.h - robust summaries of timing samples, and the two-sample
 * tests behind `axbench compare`.  GSL does the sorting, quantiles and
 * distribution functions; nothing here allocates on the caller's behalf
 * except where stated.
 */
#ifndef AX_STATS_H
#define AX_STATS_H

struct ax_summary {
	int n;
	double median, min, max, mean, stddev;
	double q1, q3, iqr;  /* 25th / 75th percentiles (GSL's definition) */
	double mad;	     /* median absolute deviation, unscaled */
	double ci_lo, ci_hi; /* distribution-free CI of the median */
	double ci_level;     /* the confidence level actually achieved */
	double rel_noise;    /* (ci_hi - ci_lo) / 2 / |median|; 0 if n < 2 */
};

/*
 * Summarise x[0..n) (not modified).  conf is the wanted confidence level of
 * the median's interval (e.g. 0.95): the interval is the pair of order
 * statistics given by the binomial(n, 1/2) distribution; with too few
 * samples for that level it widens to [min, max] and ci_level says what it
 * achieves.  n >= 1, else AX_EINVAL.
 */
int ax_stats_summarize(const double *x, int n, double conf,
		       struct ax_summary *out);

/* Two-sample comparison of a (baseline) against b (candidate). */
struct ax_shift_test {
	double u;	/* Mann-Whitney U of b over a */
	double z;	/* normal approximation with tie correction */
	double p_value; /* two-sided; exact for small samples without ties */
	double shift;	/* Hodges-Lehmann estimate of median(b - a) */
	double shift_lo, shift_hi; /* its CI at the requested level */
};

/* Mann-Whitney U test plus the Hodges-Lehmann shift and its confidence
 * interval (from the U distribution's critical value).  na, nb >= 1. */
int ax_stats_shift_test(const double *a, int na, const double *b, int nb,
			double conf, struct ax_shift_test *out);

/* Quantile p (0 < p < 1) of Student's t distribution with df > 0 degrees
 * of freedom; NAN outside those ranges. */
double ax_stats_t_quantile(double p, double df);

/*
 * The spread between replicates (runs, or rounds of one run) of one
 * measurement, from each replicate's median: the pooled standard
 * deviation of log(median) over groups of replicates, each group centred
 * on its own mean (BASE's replicates and CAND's are two groups, so a real
 * change between them is not taken for spread).  groups[g] holds
 * sizes[g] medians, all > 0.  *df gets the degrees of freedom (replicates
 * minus groups).  Returns the spread as a fraction (0.03 for 3 %), or NAN
 * when df < 1 or a median is not positive.
 */
double ax_stats_replicate_spread(const double *const *groups, const int *sizes,
				 int n_groups, int *df);

/* The paired test of one-sample differences (log ratios of rounds). */
struct ax_signed_rank {
	int n;		 /* differences */
	double w_plus;	 /* Wilcoxon's W+: ranks of |d| summed over d > 0 */
	double p_value;	 /* two-sided, of "centred on 0"; exact for n <= 200
			    without ties, else normal with tie correction */
	double center;	 /* Hodges-Lehmann: median of the Walsh averages */
	double lo, hi;	 /* its interval at the requested level */
	double ci_level; /* the level actually achieved (below conf when n
			    is too small for it: [min, max] is used then) */
};

/*
 * Wilcoxon signed-rank test of d[0..n) (not modified) against a centre of
 * 0, with the Hodges-Lehmann estimate of the centre and its
 * distribution-free interval (two order statistics of the Walsh averages
 * given by the signed-rank distribution's critical value).  What paired
 * A/B rounds are judged by: each round's log ratio cancels the machine's
 * state common to both sides.  n >= 1 and every d finite, else AX_EINVAL;
 * AX_ENOMEM.  Costs O(n^2 log n): meant for rounds, not raw samples.
 */
int ax_stats_signed_rank(const double *d, int n, double conf,
			 struct ax_signed_rank *out);

/* The spread between blocks of rounds of one paired measurement. */
struct ax_block_spread {
	int blocks;	   /* blocks of rounds */
	double center;	   /* mean of the blocks' medians */
	double half_width; /* t(conf, blocks - 1) * their sd / sqrt(blocks) */
	double p_value;	   /* two-sided t-test of a centre of 0 */
};

/*
 * d[0..n) grouped into blocks by block[] (non-decreasing: the rounds of
 * one block are consecutive): each block is summarised by its median and
 * the blocks' medians by a t interval.  Rounds within a block share
 * whatever the block was built with (a paired case's buffers, rebuilt
 * between blocks), so they are not independent of each other; the blocks
 * are, and this interval, unlike a per-round one, covers what varies from
 * one build to the next.  AX_EINVAL with fewer than 3 blocks.
 */
int ax_stats_block_spread(const double *d, const int *block, int n, double conf,
			  struct ax_block_spread *out);

/*
 * Where a second, independent measurement of a ratio (as many paired
 * rounds, the same conditions) should read, from this one's estimate and
 * confidence interval [lo, hi]: the interval's two sides in log space,
 * each widened by sqrt 2.  The confidence interval covers the true ratio;
 * a re-measurement carries its own error besides this one's, so the
 * difference of the two estimates has twice the variance, and this is
 * the interval it falls in at the confidence's level.  Needs
 * 0 < lo <= est <= hi, all finite, else AX_EINVAL (outputs NaN).
 */
int ax_stats_ratio_prediction(double est, double lo, double hi, double *pred_lo,
			      double *pred_hi);

#endif
