/*
 * reports/roofline.h - the measured roofline: the ridge point of an
 * intensity sweep (the roofline suite's results, or any suite declaring
 * the roofline role) and the ridge the same run's ceiling suites imply.
 *
 * A sweep's points are (intensity = work / bytes, rate = median GFLOP/s).
 * The memory roof is the best rate per intensity, rate / intensity, in
 * GB/s: the low points are bandwidth-bound, so their quotient is the
 * bandwidth the kernel reached; the compute roof is the best rate.  The
 * ridge, where the two meet, is roof / bandwidth in FLOP per byte.  The
 * reference is the same quotient from the run's own ceilings: the best
 * GFLOP/s of the compute-peak suites at the sweep's precision (the
 * "type" or "dtype" parameter) over the best GB/s of the bandwidth-peak
 * suites.  `results` prints both, the report draws the sweep.
 */
#ifndef AX_REPORTS_ROOFLINE_H
#define AX_REPORTS_ROOFLINE_H

#include "core/db_rows.h"
#include "core/roles.h"

#include <stdint.h>

/* A roofline from points (ai[i] FLOP/byte, rate[i] GFLOP/s). */
struct ax_roofline_fit {
	int n;		  /* points that entered (finite and positive) */
	double bandwidth; /* GB/s: max rate / ai */
	double peak;	  /* GFLOP/s: max rate */
	double ridge;	  /* FLOP/byte: peak / bandwidth */
	double ai_lo, ai_hi;
};

/* Fit n points; out->n is 0 (and the figures NAN) when none enters. */
void ax_roofline_fit(const double *ai, const double *rate, int n,
		     struct ax_roofline_fit *out);

/* One sweep of a listing: the ok results of one run, device, suite and
 * precision, at two or more intensities. */
struct ax_roofline_sweep {
	int64_t run_id;
	/* Borrowed from the rows; first is the sweep's first row. */
	const char *suite, *precision, *device, *fingerprint;
	const struct ax_db_result_row *first;
	struct ax_roofline_fit fit;
	/* The same run's ceilings, NAN where it has none. */
	double ref_peak, ref_bandwidth, ref_ridge;
	/* The points, in listing order (malloc'd; fit.n of them enter the
	 * fit, n_points are kept). */
	double *ai, *rate;
	int n_points;
};

struct ax_roofline_sweeps {
	struct ax_roofline_sweep *v;
	int n;
};

/* Every sweep of l (suites with the roofline role in doc), ordered by
 * run, device, suite and precision, each with the references from l's
 * results of the same run and device.  0 or AX_ENOMEM (*out empty);
 * free with ax_roofline_sweeps_free. */
int ax_roofline_sweeps(const struct ax_db_results *l,
		       const struct ax_suite_doc *doc,
		       struct ax_roofline_sweeps *out);
void ax_roofline_sweeps_free(struct ax_roofline_sweeps *s);

/* "ridge 9.5 FLOP/B = 93.6 GFLOP/s / 9.9 GB/s (11 points); the run's
 * peak / bandwidth: 9.4 FLOP/B (94 / 10): 1.01x" into buf. */
const char *ax_roofline_sweep_text(const struct ax_roofline_sweep *s, char *buf,
				   size_t len);

#endif
