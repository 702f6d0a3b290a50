/*
 * core/stats_dist.c - quantiles and modes of a sample (see stats_dist.h):
 * a kernel density estimate of ln(value) whose peaks are merged until
 * every two neighbours are separated by a deep enough valley and each
 * holds enough samples.  GSL sorts, takes the quantiles and the spread
 * and evaluates the Gaussian kernel.
 */
#include "core/stats_dist.h"

#include "core/error.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The density on its grid and the basins cut from it. */
struct kde {
	double t[AX_DIST_GRID], f[AX_DIST_GRID];
	int n_peaks;
	int peak[AX_DIST_GRID];	  /* grid index of each basin's peak */
	int valley[AX_DIST_GRID]; /* grid index of the cut after basin k */
	int count[AX_DIST_GRID];  /* samples in basin k */
};

/* Silverman's rule of thumb on the sorted logs y. */
static double bandwidth(const double *y, int n)
{
	double sd = gsl_stats_sd(y, 1, (size_t)n);
	double iqr = gsl_stats_quantile_from_sorted_data(y, 1, (size_t)n, .75) -
		     gsl_stats_quantile_from_sorted_data(y, 1, (size_t)n, .25);
	double spread = iqr > 0 && iqr / 1.349 < sd ? iqr / 1.349 : sd;
	double h = 0.9 * spread * pow(n, -0.2);
	return h > AX_DIST_MIN_BW ? h : AX_DIST_MIN_BW;
}

static void density(struct kde *k, const double *y, int n, double h)
{
	double lo = y[0] - 3 * h, hi = y[n - 1] + 3 * h;
	for (int g = 0; g < AX_DIST_GRID; g++) {
		k->t[g] = lo + (hi - lo) * g / (AX_DIST_GRID - 1);
		double sum = 0;
		for (int i = 0; i < n; i++)
			sum += gsl_ran_gaussian_pdf(k->t[g] - y[i], h);
		k->f[g] = sum / n;
	}
}

/* Every local maximum a basin, cut at the lowest point between peaks;
 * the samples counted into their basins. */
static void basins(struct kde *k, const double *y, int n)
{
	k->n_peaks = 0;
	for (int g = 1; g + 1 < AX_DIST_GRID; g++)
		if (k->f[g] > k->f[g - 1] && k->f[g] >= k->f[g + 1])
			k->peak[k->n_peaks++] = g;
	for (int p = 0; p + 1 < k->n_peaks; p++) {
		int v = k->peak[p];
		for (int g = k->peak[p]; g <= k->peak[p + 1]; g++)
			if (k->f[g] < k->f[v])
				v = g;
		k->valley[p] = v;
	}
	memset(k->count, 0, sizeof(k->count));
	for (int i = 0, p = 0; i < n; i++) {
		while (p + 1 < k->n_peaks && y[i] > k->t[k->valley[p]])
			p++;
		k->count[p]++;
	}
}

/* How weak the cut after basin p is: its valley over the lower peak,
 * plus 1 when either side is too small to be a mode (AX_DIST_MIN_SHARE,
 * AX_DIST_MIN_COUNT) (so that such a cut
 * goes before any dip). */
static double weakness(const struct kde *k, int p, int n)
{
	double lower = fmin(k->f[k->peak[p]], k->f[k->peak[p + 1]]);
	double w = lower > 0 ? k->f[k->valley[p]] / lower : 1;
	int small = (int)ceil(AX_DIST_MIN_SHARE * n - 1e-9);
	if (small < AX_DIST_MIN_COUNT)
		small = AX_DIST_MIN_COUNT;
	if (k->count[p] < small || k->count[p + 1] < small)
		w += 1;
	return w;
}

/* Basins p and p + 1 become one, with the higher of their peaks. */
static void merge(struct kde *k, int p)
{
	if (k->f[k->peak[p + 1]] > k->f[k->peak[p]])
		k->peak[p] = k->peak[p + 1];
	k->count[p] += k->count[p + 1];
	for (int q = p + 1; q + 1 < k->n_peaks; q++) {
		k->peak[q] = k->peak[q + 1];
		k->count[q] = k->count[q + 1];
		k->valley[q - 1] = k->valley[q];
	}
	k->n_peaks--;
}

/* Merge the weakest cut while it is too weak to keep. */
static void merge_weak(struct kde *k, int n)
{
	while (k->n_peaks > 1) {
		int worst = 0;
		double w = weakness(k, 0, n);
		for (int p = 1; p + 1 < k->n_peaks; p++) {
			double wp = weakness(k, p, n);
			if (wp > w)
				w = wp, worst = p;
		}
		if (w <= AX_DIST_DIP)
			return;
		merge(k, worst);
	}
}

static int valid(const double *x, int n, const struct ax_dist *out)
{
	if (!x || !out || n < AX_DIST_MIN_N)
		return 0;
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]) || x[i] <= 0)
			return 0;
	return 1;
}

/* The modes from sorted logs y (one when they are all but equal). */
static int find_modes(const double *y, int n, struct ax_dist *out)
{
	struct kde *k = malloc(sizeof(*k));
	if (!k)
		return AX_ENOMEM;
	out->bandwidth = bandwidth(y, n);
	density(k, y, n, out->bandwidth);
	basins(k, y, n);
	if (k->n_peaks == 0) { /* a plateau on the grid: one mode */
		k->n_peaks = 1;
		k->peak[0] = AX_DIST_GRID / 2;
		k->count[0] = n;
	}
	merge_weak(k, n);
	out->n_modes = k->n_peaks;
	for (int p = 0; p < k->n_peaks && p < AX_DIST_MAX_MODES; p++)
		out->modes[p] = (struct ax_dist_mode){exp(k->t[k->peak[p]]),
						      (double)k->count[p] / n};
	if (out->n_modes > AX_DIST_MAX_MODES) /* cannot: shares >= 1/10 */
		out->n_modes = AX_DIST_MAX_MODES;
	out->multimodal = out->n_modes >= 2;
	free(k);
	return 0;
}

int ax_stats_dist_describe(const double *x, int n, struct ax_dist *out)
{
	if (!valid(x, n, out))
		return AX_EINVAL;
	double *s = malloc((size_t)n * sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	memcpy(s, x, (size_t)n * sizeof(*s));
	gsl_sort(s, 1, (size_t)n);
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->p10 = gsl_stats_quantile_from_sorted_data(s, 1, (size_t)n, .10);
	out->p50 = gsl_stats_quantile_from_sorted_data(s, 1, (size_t)n, .50);
	out->p90 = gsl_stats_quantile_from_sorted_data(s, 1, (size_t)n, .90);
	for (int i = 0; i < n; i++)
		s[i] = log(s[i]); /* still sorted: log is increasing */
	int rc = find_modes(s, n, out);
	free(s);
	return rc;
}

json_t *ax_stats_dist_json(const struct ax_dist *d)
{
	json_t *modes = json_array();
	for (int i = 0; modes && i < d->n_modes; i++)
		json_array_append_new(
		    modes, json_pack("{s:f,s:f}", "value", d->modes[i].value,
				     "share", d->modes[i].share));
	return json_pack("{s:f,s:f,s:f,s:o*,s:b}", "p10", d->p10, "p50", d->p50,
			 "p90", d->p90, "modes", modes, "multimodal",
			 d->multimodal);
}
