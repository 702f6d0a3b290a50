/*
 * core/stats.c - robust sample summaries and the Mann-Whitney /
 * Hodges-Lehmann comparison, on top of GSL.
 *
 * Timing samples are skewed (a few slow outliers from preemption, page
 * faults, frequency changes), so everything here is rank based: the median
 * and its order-statistic interval rather than mean +- t*sd, and the
 * Hodges-Lehmann shift rather than a difference of means.
 */
#include "core/stats.h"
#include "core/error.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Up to this many pairs the U distribution is counted exactly. */
#define AX_STATS_EXACT_PAIRS 2500

static int all_finite(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

static double *sorted_copy(const double *x, int n)
{
	double *s = malloc((size_t)n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, (size_t)n * sizeof(*s));
	gsl_sort(s, 1, (size_t)n);
	return s;
}

/*
 * Coverage of [x_(k), x_(n-k+1)] (1-based order statistics) as an interval
 * for the median: the median lies outside it only when fewer than k
 * samples fall on one side, i.e. 1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2).
 */
static double median_ci_coverage(int k, int n)
{
	return 1.0 -
	       2.0 * gsl_cdf_binomial_P((unsigned)(k - 1), 0.5, (unsigned)n);
}

/* The largest k whose interval still reaches conf; 1 ([min, max]) when
 * even that falls short.  Coverage falls as k grows, so bisect. */
static int median_ci_rank(int n, double conf)
{
	int lo = 1, hi = (n + 1) / 2;

	if (median_ci_coverage(1, n) < conf)
		return 1;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (median_ci_coverage(mid, n) >= conf)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int ax_stats_summarize(const double *x, int n, double conf,
		       struct ax_summary *out)
{
	double *s;
	int k;

	if (!x || n < 1 || !out || !(conf > 0 && conf < 1) || !all_finite(x, n))
		return AX_EINVAL;
	s = sorted_copy(x, n);
	if (!s)
		return AX_ENOMEM;
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = gsl_stats_median_from_sorted_data(s, 1, (size_t)n);
	out->q1 = gsl_stats_quantile_from_sorted_data(s, 1, (size_t)n, 0.25);
	out->q3 = gsl_stats_quantile_from_sorted_data(s, 1, (size_t)n, 0.75);
	out->iqr = out->q3 - out->q1;
	out->mean = gsl_stats_mean(s, 1, (size_t)n);
	/* GSL divides by n - 1, which is 0/0 for one sample. */
	out->stddev = n > 1 ? gsl_stats_sd_m(s, 1, (size_t)n, out->mean) : 0;

	k = median_ci_rank(n, conf);
	out->ci_lo = s[k - 1];
	out->ci_hi = s[n - k];
	out->ci_level = median_ci_coverage(k, n);
	if (n >= 2) {
		double half = (out->ci_hi - out->ci_lo) / 2;

		/* A zero median with any spread has unbounded relative
		 * noise; say so rather than divide by zero. */
		if (out->median != 0)
			out->rel_noise = half / fabs(out->median);
		else
			out->rel_noise = half > 0 ? HUGE_VAL : 0;
	}

	/* gsl_stats_mad0 reorders its work array, so it may reuse s. */
	out->mad = gsl_stats_mad0(x, 1, (size_t)n, s);
	free(s);
	return 0;
}

/* ---- the Mann-Whitney U distribution ---------------------------------- */

/*
 * Number of orderings of m a's and n b's (out of C(m+n, m)) giving each
 * value u = 0..mn of U, counted with the recurrence on the largest
 * element: f(i, j, u) = f(i - 1, j, u) + f(i, j - 1, u - i).  Only
 * additions of positive numbers, so doubles keep full relative precision
 * even where the counts exceed 2^53.  Returns a malloc'd array of mn + 1
 * counts, or NULL.
 */
static double *u_counts(int m, int n)
{
	double **prev, **cur, *res = NULL;
	int ok = 1;

	prev = calloc((size_t)n + 1, sizeof(*prev));
	cur = calloc((size_t)n + 1, sizeof(*cur));
	if (!prev || !cur)
		goto out;
	/* i = 0: with no a's, U is 0 whatever the b's. */
	for (int j = 0; j <= n && ok; j++) {
		prev[j] = calloc(1, sizeof(double));
		ok = prev[j] != NULL;
		if (ok)
			prev[j][0] = 1;
	}
	for (int i = 1; i <= m && ok; i++) {
		for (int j = 0; j <= n && ok; j++) {
			int len = i * j + 1;

			cur[j] = calloc((size_t)len, sizeof(double));
			if (!(ok = cur[j] != NULL))
				break;
			for (int u = 0; u < len; u++) {
				if (u <= (i - 1) * j)
					cur[j][u] += prev[j][u];
				if (j > 0 && u >= i && u - i <= i * (j - 1))
					cur[j][u] += cur[j - 1][u - i];
			}
		}
		for (int j = 0; j <= n; j++) {
			free(prev[j]);
			prev[j] = cur[j];
			cur[j] = NULL;
		}
	}
	if (ok) {
		res = prev[n];
		prev[n] = NULL;
	}
out:
	for (int j = 0; prev && cur && j <= n; j++) {
		free(prev[j]);
		free(cur[j]);
	}
	free(prev);
	free(cur);
	return res;
}

/* Rank sum of b in the pooled sample (mid-ranks for ties) and the tie
 * term sum(t^3 - t) over groups of equal values. */
static void rank_sum(const double *sa, int na, const double *sb, int nb,
		     double *rsum_b, double *ties)
{
	int i = 0, j = 0, rank = 0;

	*rsum_b = 0;
	*ties = 0;
	while (i < na || j < nb) {
		double v =
		    i < na && (j >= nb || sa[i] <= sb[j]) ? sa[i] : sb[j];
		int ca = 0, cb = 0;
		double t, mid;

		while (i < na && sa[i] == v)
			i++, ca++;
		while (j < nb && sb[j] == v)
			j++, cb++;
		t = ca + cb;
		mid = rank + (t + 1) / 2;
		*rsum_b += cb * mid;
		*ties += t * t * t - t;
		rank += ca + cb;
	}
}

/* ---- Hodges-Lehmann from the differences b_j - a_i ------------------- */

/* Map a double to an unsigned key with the same order (finite values). */
static uint64_t dkey(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

static double dval(uint64_t k)
{
	uint64_t u = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
	double x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/* Number of pairs with b_j - a_i <= d.  For sorted inputs the set of j
 * grows as a_i grows (rounding is monotone), so one pass suffices. */
static int64_t count_le(const double *sa, int na, const double *sb, int nb,
			double d)
{
	int64_t c = 0;
	int j = 0;

	for (int i = 0; i < na; i++) {
		while (j < nb && sb[j] - sa[i] <= d)
			j++;
		c += j;
	}
	return c;
}

/*
 * The k-th smallest (1-based) of the na*nb differences without storing
 * them: bisect over the bit patterns of doubles, at most 64 passes, so
 * the answer is exactly one of the computed differences.
 */
static double kth_diff(const double *sa, int na, const double *sb, int nb,
		       int64_t k)
{
	double dmin = sb[0] - sa[na - 1], dmax = sb[nb - 1] - sa[0];
	uint64_t lo, hi;

	if (count_le(sa, na, sb, nb, dmin) >= k)
		return dmin;
	lo = dkey(dmin); /* count(lo) < k */
	hi = dkey(dmax); /* count(hi) = na*nb >= k */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (count_le(sa, na, sb, nb, dval(mid)) >= k)
			hi = mid;
		else
			lo = mid;
	}
	return dval(hi);
}

/*
 * Rank k of the lower CI end: the CI [d_(k), d_(mn-k+1)] misses the true
 * shift with probability 2 P(U <= k - 1), so k - 1 is the largest c with
 * P(U <= c) <= alpha / 2.  Exact counts when given, normal otherwise.
 */
static int64_t shift_ci_rank(const double *counts, int na, int nb, double conf)
{
	double mn = (double)na * nb, alpha2 = (1 - conf) / 2;
	int64_t c;

	if (counts) {
		double total = 0, cum = 0;

		for (int u = 0; u <= na * nb; u++)
			total += counts[u];
		c = -1;
		while (c + 1 <= na * nb &&
		       (cum + counts[c + 1]) / total <= alpha2)
			cum += counts[++c];
	} else {
		double sd = sqrt(mn * (na + nb + 1) / 12.0);
		double z = gsl_cdf_ugaussian_Qinv(alpha2);

		c = (int64_t)floor(mn / 2 - 0.5 - z * sd);
	}
	if (c < 0)
		c = 0;
	if (c > (int64_t)((mn - 1) / 2))
		c = (int64_t)((mn - 1) / 2);
	return c + 1;
}

static void hodges_lehmann(const double *sa, int na, const double *sb, int nb,
			   int64_t k, struct ax_shift_test *out)
{
	int64_t mn = (int64_t)na * nb;

	if (mn % 2)
		out->shift = kth_diff(sa, na, sb, nb, mn / 2 + 1);
	else
		out->shift = (kth_diff(sa, na, sb, nb, mn / 2) +
			      kth_diff(sa, na, sb, nb, mn / 2 + 1)) /
			     2;
	out->shift_lo = kth_diff(sa, na, sb, nb, k);
	out->shift_hi = kth_diff(sa, na, sb, nb, mn - k + 1);
}

/* Two-sided exact p: twice the smaller tail at u, capped at 1. */
static double exact_p(const double *counts, int mn, double u)
{
	double total = 0, lower = 0, upper = 0, p;

	for (int v = 0; v <= mn; v++) {
		total += counts[v];
		if (v <= u)
			lower += counts[v];
		if (v >= u)
			upper += counts[v];
	}
	p = 2 * fmin(lower, upper) / total;
	return p < 1 ? p : 1;
}

static void normal_approx(double u, int na, int nb, double ties,
			  struct ax_shift_test *out)
{
	double mn = (double)na * nb, n = na + nb;
	double var = mn / 12.0 * ((n + 1) - ties / (n * (n - 1)));
	double d = u - mn / 2;

	if (!(var > 0)) {
		/* Every value tied: no evidence of any shift. */
		out->z = 0;
		out->p_value = 1;
		return;
	}
	/* Continuity correction towards the mean, never past it. */
	d = d > 0 ? fmax(d - 0.5, 0) : fmin(d + 0.5, 0);
	out->z = d / sqrt(var);
	out->p_value = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(out->z)));
}

int ax_stats_shift_test(const double *a, int na, const double *b, int nb,
			double conf, struct ax_shift_test *out)
{
	double *sa, *sb, *counts = NULL, rsum, ties;
	int rc = 0;

	if (!a || !b || na < 1 || nb < 1 || !out || !(conf > 0 && conf < 1) ||
	    !all_finite(a, na) || !all_finite(b, nb))
		return AX_EINVAL;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	if (!sa || !sb) {
		rc = AX_ENOMEM;
		goto out;
	}
	memset(out, 0, sizeof(*out));
	rank_sum(sa, na, sb, nb, &rsum, &ties);
	out->u = rsum - (double)nb * (nb + 1) / 2;

	/* U's distribution is symmetric in (m, n); counting over the larger
	 * side keeps the tables small. */
	if ((double)na * nb <= AX_STATS_EXACT_PAIRS)
		counts = u_counts(na > nb ? na : nb, na > nb ? nb : na);
	normal_approx(out->u, na, nb, ties, out);
	if (counts && ties == 0)
		out->p_value = exact_p(counts, na * nb, out->u);
	hodges_lehmann(sa, na, sb, nb, shift_ci_rank(counts, na, nb, conf),
		       out);
out:
	free(counts);
	free(sa);
	free(sb);
	return rc;
}

double ax_stats_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	return gsl_cdf_tdist_Pinv(p, df);
}

double ax_stats_replicate_spread(const double *const *groups, const int *sizes,
				 int n_groups, int *df)
{
	double ss = 0;
	int n = 0, used = 0;
	*df = 0;
	for (int g = 0; g < n_groups; g++) {
		if (sizes[g] < 1)
			continue;
		double mean = 0;
		for (int i = 0; i < sizes[g]; i++) {
			if (!(groups[g][i] > 0) || !isfinite(groups[g][i]))
				return NAN;
			mean += log(groups[g][i]);
		}
		mean /= sizes[g];
		for (int i = 0; i < sizes[g]; i++) {
			double d = log(groups[g][i]) - mean;
			ss += d * d;
		}
		n += sizes[g];
		used++;
	}
	*df = n - used;
	if (*df < 1)
		return NAN;
	/* A spread of logs is a relative spread; exp()-1 keeps it exact
	 * for large ones. */
	return expm1(sqrt(ss / *df));
}

/* ---- paired differences: Wilcoxon signed-rank ------------------------ */

/* Up to this many differences the signed-rank distribution is counted
 * exactly (n (n + 1) / 2 + 1 cells). */
#define AX_STATS_EXACT_SIGNED 200

/* P(W+ = w) for w in 0..n(n+1)/2 under the null (each rank's sign a fair
 * coin): the distribution of a sum of distinct ranks, built one rank at a
 * time and kept as probabilities so that no count overflows. */
static double *signed_rank_pmf(int n)
{
	int top = n * (n + 1) / 2;
	double *p = calloc((size_t)top + 1, sizeof(*p));

	if (!p)
		return NULL;
	p[0] = 1;
	for (int r = 1, reach = 0; r <= n; r++) {
		reach += r;
		for (int w = reach; w >= 0; w--)
			p[w] = (p[w] + (w >= r ? p[w - r] : 0)) / 2;
	}
	return p;
}

/* Ranks of |d| (midranks for ties) summed over the positive d; *ties gets
 * sum(t^3 - t) over groups of equal |d|, for the variance correction. */
static double positive_rank_sum(const double *d, int n, double *ties)
{
	double *mag = malloc((size_t)n * sizeof(*mag));
	size_t *order = malloc((size_t)n * sizeof(*order));
	double w = 0;

	*ties = 0;
	if (!mag || !order) {
		free(mag);
		free(order);
		return NAN;
	}
	for (int i = 0; i < n; i++)
		mag[i] = fabs(d[i]);
	gsl_sort_index(order, mag, 1, (size_t)n);
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && mag[order[j + 1]] == mag[order[i]])
			j++;
		double rank = (i + j + 2) / 2.0, t = j - i + 1;
		*ties += t * t * t - t;
		for (int k = i; k <= j; k++)
			if (d[order[k]] > 0)
				w += rank;
		i = j + 1;
	}
	free(mag);
	free(order);
	return w;
}

/* The n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j, sorted: the
 * Hodges-Lehmann estimate is their median and the interval two of their
 * order statistics. */
static double *walsh_averages(const double *d, int n, size_t *m)
{
	*m = (size_t)n * (size_t)(n + 1) / 2;
	double *w = malloc(*m * sizeof(*w));
	size_t k = 0;

	if (!w)
		return NULL;
	for (int i = 0; i < n; i++)
		for (int j = i; j < n; j++)
			w[k++] = (d[i] + d[j]) / 2;
	gsl_sort(w, 1, *m);
	return w;
}

/* Rank c + 1 of the lower interval end, c the largest with
 * P(W+ <= c) <= alpha / 2 (exact pmf when given, else normal); also the
 * coverage that rank achieves. */
static size_t signed_ci_rank(const double *pmf, int n, double conf,
			     double *level)
{
	double m = (double)n * (n + 1) / 2, alpha2 = (1 - conf) / 2;
	double sd = sqrt(n * (n + 1.0) * (2 * n + 1) / 24);
	long c = -1;

	if (pmf) {
		double cum = 0;
		while (c + 1 < m / 2 && cum + pmf[c + 1] <= alpha2)
			cum += pmf[++c];
		*level = 1 - 2 * cum;
	} else {
		c = (long)floor(m / 2 - 0.5 -
				gsl_cdf_ugaussian_Qinv(alpha2) * sd);
		*level = conf;
	}
	if (c < 0) {
		/* Too few differences for conf: [min, max], and say what it
		 * achieves (1 - 2^(1-n) when every sign is free). */
		c = 0;
		*level = 1 - 2 * pow(0.5, n);
		return 1;
	}
	return (size_t)c + 1;
}

static double signed_rank_p(const double *pmf, int n, double w, double ties)
{
	double m = (double)n * (n + 1) / 2;

	if (pmf && ties == 0) {
		double lower = 0, upper = 0;
		for (int v = 0; v <= (int)m; v++) {
			if (v <= w)
				lower += pmf[v];
			if (v >= w)
				upper += pmf[v];
		}
		return fmin(1, 2 * fmin(lower, upper));
	}
	double var = n * (n + 1.0) * (2 * n + 1) / 24 - ties / 48;
	if (!(var > 0))
		return 1;
	double dev = w - m / 2;
	dev = dev > 0 ? fmax(dev - 0.5, 0) : fmin(dev + 0.5, 0);
	return fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(dev) / sqrt(var)));
}

int ax_stats_signed_rank(const double *d, int n, double conf,
			 struct ax_signed_rank *out)
{
	if (!d || n < 1 || !out || !(conf > 0 && conf < 1) || !all_finite(d, n))
		return AX_EINVAL;
	memset(out, 0, sizeof(*out));
	out->n = n;
	size_t m;
	double ties, *w = walsh_averages(d, n, &m);
	double *pmf = n <= AX_STATS_EXACT_SIGNED ? signed_rank_pmf(n) : NULL;
	out->w_plus = positive_rank_sum(d, n, &ties);
	if (!w || (n <= AX_STATS_EXACT_SIGNED && !pmf) || isnan(out->w_plus)) {
		free(w);
		free(pmf);
		return AX_ENOMEM;
	}
	/* Ties among |d| make the exact table only approximate: the normal
	 * form with the tie correction is used then (ties is 0 when every
	 * |d| differs). */
	out->p_value = signed_rank_p(pmf, n, out->w_plus, ties);
	out->center = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	size_t k = signed_ci_rank(pmf, n, conf, &out->ci_level);
	out->lo = w[k - 1];
	out->hi = w[m - k];
	free(w);
	free(pmf);
	return 0;
}

/* The median of d[0..n) (n >= 1), d reordered. */
static double median_in_place(double *d, int n)
{
	gsl_sort(d, 1, (size_t)n);
	return gsl_stats_median_from_sorted_data(d, 1, (size_t)n);
}

int ax_stats_block_spread(const double *d, const int *block, int n, double conf,
			  struct ax_block_spread *out)
{
	memset(out, 0, sizeof(*out));
	out->center = out->half_width = out->p_value = NAN;
	if (n < 1 || !(conf > 0 && conf < 1))
		return AX_EINVAL;
	double *tmp = malloc(sizeof(double) * (size_t)n);
	double *med = malloc(sizeof(double) * (size_t)n);
	if (!tmp || !med) {
		free(tmp);
		free(med);
		return AX_ENOMEM;
	}
	int b = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && block[j] == block[i])
			tmp[j - i] = d[j], j++;
		med[b++] = median_in_place(tmp, j - i);
		i = j;
	}
	free(tmp);
	out->blocks = b;
	int rc = 0;
	if (b >= 3) {
		double mean = gsl_stats_mean(med, 1, (size_t)b);
		double se = gsl_stats_sd_m(med, 1, (size_t)b, mean) / sqrt(b);
		double t = ax_stats_t_quantile(0.5 + conf / 2, b - 1);
		out->center = mean;
		out->half_width = t * se;
		out->p_value = se > 0
				   ? 2 * gsl_cdf_tdist_Q(fabs(mean) / se, b - 1)
				   : (mean == 0 ? 1 : 0);
	} else {
		rc = AX_EINVAL;
	}
	free(med);
	return rc;
}

int ax_stats_ratio_prediction(double est, double lo, double hi, double *pred_lo,
			      double *pred_hi)
{
	*pred_lo = *pred_hi = NAN;
	if (!(isfinite(est) && isfinite(lo) && isfinite(hi) && lo > 0 &&
	      lo <= est && est <= hi))
		return AX_EINVAL;
	double c = log(est);
	*pred_lo = exp(c - M_SQRT2 * (c - log(lo)));
	*pred_hi = exp(c + M_SQRT2 * (log(hi) - c));
	return 0;
}
