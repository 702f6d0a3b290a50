/*
 * core/stats_dist.h - the shape of a set of timing samples: p10 / p50 /
 * p90 and its modes, so that a result whose samples fall in two clusters
 * says so instead of reporting a median between them (the latency suite
 * on a 2-vCPU VM: docs/RELIABILITY.md, "Latency").
 *
 * Method: a Gaussian kernel density estimate of ln(value), bandwidth by
 * Silverman's rule of thumb, h = 0.9 min(sd, IQR / 1.349) n^(-1/5)
 * (floored at AX_DIST_MIN_BW), evaluated on AX_DIST_GRID points; its
 * local maxima are the candidate modes and the minima between them split
 * the samples into basins.  Two neighbouring basins stay apart only when
 * the density at the valley between them is at most AX_DIST_DIP times
 * the lower of their two peaks and each holds at least AX_DIST_MIN_SHARE
 * of the samples and AX_DIST_MIN_COUNT of them; otherwise they merge (the
 * weakest boundary first) into the basin of the higher peak.  A mode's value is
 * its peak, its share the fraction of samples in its basin.
 *
 * Limits: Silverman's rule assumes one normal, so it oversmooths several
 * modes: modes closer than about three bandwidths merge, and three equal
 * clusters 4x apart are told apart only from about 100 samples (two
 * clusters 1.5x apart from 20).  A cluster under AX_DIST_MIN_SHARE or
 * AX_DIST_MIN_COUNT is an outlier group, not a mode.  Below AX_DIST_MIN_N
 * samples nothing is said.  False splits: of 20 to 60 unimodal samples
 * about 1 in 100 to 1 in 500 is called bimodal (lognormal, and a skewed
 * fixed-cost-plus-gamma shape, 500 seeds each); tests/unit/
 * test_stats_dist.c pins its seeds.  Values must be positive (the
 * log scale: latencies and rates are multiplicative, 10 us and 40 us are
 * as far apart as 100 and 400).
 */
#ifndef AX_STATS_DIST_H
#define AX_STATS_DIST_H

#include <jansson.h>
#include <stdbool.h>

#define AX_DIST_MIN_N 20       /* fewer samples: no shape is claimed */
#define AX_DIST_MIN_SHARE 0.10 /* smallest share a mode may have */
#define AX_DIST_MIN_COUNT 5    /* and fewest samples */
#define AX_DIST_MAX_MODES 10   /* 1 / AX_DIST_MIN_SHARE */
#define AX_DIST_DIP 0.5	       /* valley / lower peak to stay apart */
#define AX_DIST_MIN_BW 0.005   /* 0.5 %: finer is timer noise */
#define AX_DIST_GRID 512       /* density evaluated at this many points */

struct ax_dist_mode {
	double value; /* the density's peak, in the samples' unit */
	double share; /* fraction of the samples in its basin */
};

struct ax_dist {
	int n;
	double p10, p50, p90; /* GSL's quantiles (linear interpolation) */
	double bandwidth;     /* of the kernel, in ln(value) */
	int n_modes;	      /* >= 1, ascending by value */
	struct ax_dist_mode modes[AX_DIST_MAX_MODES];
	bool multimodal; /* n_modes >= 2 */
};

/*
 * Describe x[0..n) (not modified).  0, or AX_EINVAL for n below
 * AX_DIST_MIN_N, a value that is not finite or not positive, or NULL
 * arguments; AX_ENOMEM.
 */
int ax_stats_dist_describe(const double *x, int n, struct ax_dist *out);

/* {"p10","p50","p90","modes":[{"value","share"}],"multimodal"}: a new
 * object (docs/JSON.md, result extra "distribution"), or NULL. */
json_t *ax_stats_dist_json(const struct ax_dist *d);

#endif
