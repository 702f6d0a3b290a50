/*
 * tests/unit/test_stats.c - core/stats against values worked out by hand
 * (the arithmetic is in the comments).
 */
#include "core/error.h"
#include "core/stats.h"

#include "tests/unit/ax_test.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

static void summary_of_one_to_ten(void)
{
	/* Shuffled, so the function has to sort. */
	double x[10] = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
	struct ax_summary s;

	AX_CHECK_INT(ax_stats_summarize(x, 10, 0.95, &s), 0);
	AX_CHECK_INT(s.n, 10);
	AX_CHECK_NEAR(s.min, 1, 0);
	AX_CHECK_NEAR(s.max, 10, 0);
	AX_CHECK_NEAR(s.median, 5.5, 1e-12);
	AX_CHECK_NEAR(s.mean, 5.5, 1e-12);
	/* sum (x - 5.5)^2 = 82.5, over n - 1 = 9. */
	AX_CHECK_NEAR(s.stddev, sqrt(82.5 / 9), 1e-12);
	/* GSL: position (n-1)f = 2.25 -> 3 + 0.25; 6.75 -> 7 + 0.75. */
	AX_CHECK_NEAR(s.q1, 3.25, 1e-12);
	AX_CHECK_NEAR(s.q3, 7.75, 1e-12);
	AX_CHECK_NEAR(s.iqr, 4.5, 1e-12);
	/* |x - 5.5| = .5 .5 1.5 1.5 2.5 2.5 3.5 3.5 4.5 4.5 -> 2.5. */
	AX_CHECK_NEAR(s.mad, 2.5, 1e-12);
	/* n = 10: P(B <= 1) = 11/1024, so [x(2), x(9)] covers
	 * 1 - 22/1024; k = 3 would give 1 - 112/1024 < 0.95. */
	AX_CHECK_NEAR(s.ci_lo, 2, 0);
	AX_CHECK_NEAR(s.ci_hi, 9, 0);
	AX_CHECK_NEAR(s.ci_level, 1 - 22.0 / 1024, 1e-12);
	AX_CHECK_NEAR(s.rel_noise, 3.5 / 5.5, 1e-12);
	/* The input is not modified. */
	AX_CHECK_NEAR(x[0], 7, 0);
	AX_CHECK_NEAR(x[9], 6, 0);
}

static void median_ci_n30(void)
{
	double x[30];
	struct ax_summary s;

	for (int i = 0; i < 30; i++)
		x[i] = 100 + i; /* x(k) = 99 + k */
	AX_CHECK_INT(ax_stats_summarize(x, 30, 0.95, &s), 0);
	/* sum_{i<=9} C(30,i) / 2^30 = 0.0213870; with i <= 10 it is
	 * 0.0493686, too much: so [x(10), x(21)]. */
	AX_CHECK_NEAR(s.ci_lo, 109, 0);
	AX_CHECK_NEAR(s.ci_hi, 120, 0);
	AX_CHECK_NEAR(s.ci_level, 1 - 2 * 0.02138697262853384, 1e-9);
	AX_CHECK_NEAR(s.median, 114.5, 1e-12);
}

static void small_samples_widen(void)
{
	double one[1] = {4}, three[3] = {3, 1, 2};
	struct ax_summary s;

	AX_CHECK_INT(ax_stats_summarize(one, 1, 0.95, &s), 0);
	AX_CHECK_NEAR(s.median, 4, 0);
	AX_CHECK_NEAR(s.stddev, 0, 0);
	AX_CHECK_NEAR(s.rel_noise, 0, 0);
	AX_CHECK_NEAR(s.ci_lo, 4, 0);
	AX_CHECK_NEAR(s.ci_hi, 4, 0);

	/* Three samples reach only 1 - 2/8 = 0.75: [min, max]. */
	AX_CHECK_INT(ax_stats_summarize(three, 3, 0.95, &s), 0);
	AX_CHECK_NEAR(s.ci_lo, 1, 0);
	AX_CHECK_NEAR(s.ci_hi, 3, 0);
	AX_CHECK_NEAR(s.ci_level, 0.75, 1e-12);
	AX_CHECK_NEAR(s.rel_noise, 0.5, 1e-12);
}

static void summarize_rejects_bad_input(void)
{
	double x[2] = {1, NAN};
	struct ax_summary s;

	AX_CHECK_INT(ax_stats_summarize(x, 0, 0.95, &s), AX_EINVAL);
	AX_CHECK_INT(ax_stats_summarize(x, 2, 0.95, &s), AX_EINVAL);
	AX_CHECK_INT(ax_stats_summarize(x, 1, 1.5, &s), AX_EINVAL);
}

static void mann_whitney_exact(void)
{
	double a[3] = {5, 1, 3}, b[4] = {8, 2, 6, 4};
	struct ax_shift_test t;

	AX_CHECK_INT(ax_stats_shift_test(a, 3, b, 4, 0.95, &t), 0);
	/* Pairs with b > a: 2:1, 4:2, 6:3, 8:3 -> U = 9 of mn = 12. */
	AX_CHECK_NEAR(t.u, 9, 0);
	/* P(U >= 9) = P(U <= 3) = partitions of 0..3 in a 3x4 box
	 * (1 + 1 + 2 + 3 = 7) over C(7,3) = 35; two-sided 14/35. */
	AX_CHECK_NEAR(t.p_value, 0.4, 1e-12);

	/* Complete separation: U = 12, p = 2/35. */
	double lo[3] = {1, 2, 3}, hi[4] = {4, 5, 6, 7};
	AX_CHECK_INT(ax_stats_shift_test(lo, 3, hi, 4, 0.95, &t), 0);
	AX_CHECK_NEAR(t.u, 12, 0);
	AX_CHECK_NEAR(t.p_value, 2.0 / 35, 1e-12);
	AX_CHECK(t.z > 0);
	/* The other way round U is 0 and the shift negative. */
	AX_CHECK_INT(ax_stats_shift_test(hi, 4, lo, 3, 0.95, &t), 0);
	AX_CHECK_NEAR(t.u, 0, 0);
	AX_CHECK_NEAR(t.p_value, 2.0 / 35, 1e-12);
	AX_CHECK(t.z < 0 && t.shift < 0);
}

static void mann_whitney_ties(void)
{
	double a[4] = {1, 2, 2, 3}, b[4] = {2, 3, 3, 4};
	struct ax_shift_test t;

	AX_CHECK_INT(ax_stats_shift_test(a, 4, b, 4, 0.95, &t), 0);
	/* Mid-ranks: 1 ->1, 2 -> 3, 3 -> 6, 4 -> 8; R_b = 3+6+6+8 = 23,
	 * U = 23 - 10 = 13.  Var = 16/12 (9 - 2(27-3)/56); with the
	 * continuity correction z = 4.5 / sqrt(Var). */
	AX_CHECK_NEAR(t.u, 13, 0);
	AX_CHECK_NEAR(t.z, 1.365698202000489, 1e-9);
	AX_CHECK_NEAR(t.p_value, 0.17203370892182296, 1e-9);

	double same[3] = {5, 5, 5};
	AX_CHECK_INT(ax_stats_shift_test(same, 3, same, 3, 0.95, &t), 0);
	AX_CHECK_NEAR(t.p_value, 1, 0);
	AX_CHECK_NEAR(t.shift, 0, 0);
}

static void hodges_lehmann_exact(void)
{
	double a[5] = {1, 2, 3, 4, 5}, b[5] = {11, 12, 13, 14, 15};
	struct ax_shift_test t;

	AX_CHECK_INT(ax_stats_shift_test(a, 5, b, 5, 0.95, &t), 0);
	/* Differences are 10 + d, d = -4..4 with multiplicity 5 - |d|. */
	AX_CHECK_NEAR(t.shift, 10, 0);
	/* m = n = 5: P(U <= c) counts 1,2,4,7 of 252 for c = 0..3, so the
	 * largest c with P <= 0.025 (6.3 of 252) is 2: k = 3, the 3rd and
	 * 23rd differences, 7 and 13. */
	AX_CHECK_NEAR(t.shift_lo, 7, 0);
	AX_CHECK_NEAR(t.shift_hi, 13, 0);
	AX_CHECK_NEAR(t.u, 25, 0);
	AX_CHECK_NEAR(t.p_value, 2.0 / 252, 1e-12);
}

static void hodges_lehmann_normal(void)
{
	double a[60], b[60];
	struct ax_shift_test t;

	for (int i = 0; i < 60; i++) {
		a[i] = i;
		b[59 - i] = i + 100.5;
	}
	AX_CHECK_INT(ax_stats_shift_test(a, 60, b, 60, 0.95, &t), 0);
	AX_CHECK_NEAR(t.shift, 100.5, 0);
	/* mn = 3600 > exact limit: c = floor(1800 - 0.5 - 1.959964 *
	 * sqrt(3600 * 121 / 12)) = 1426, k = 1427 -> differences 93.5 and
	 * 107.5 (counted from the sorted list of all 3600). */
	AX_CHECK_NEAR(t.shift_lo, 93.5, 0);
	AX_CHECK_NEAR(t.shift_hi, 107.5, 0);
	AX_CHECK_NEAR(t.u, 3600, 0);
	AX_CHECK(t.p_value < 1e-15);
}

static void shift_rejects_bad_input(void)
{
	double a[2] = {1, 2};
	struct ax_shift_test t;

	AX_CHECK_INT(ax_stats_shift_test(a, 0, a, 2, 0.95, &t), AX_EINVAL);
	AX_CHECK_INT(ax_stats_shift_test(a, 2, a, 2, 0, &t), AX_EINVAL);
}

/* Student's t: the tabulated 97.5 % points, and NAN outside the domain. */
static void t_quantiles(void)
{
	AX_CHECK_NEAR(ax_stats_t_quantile(0.975, 1), 12.706, 0.001);
	AX_CHECK_NEAR(ax_stats_t_quantile(0.975, 4), 2.776, 0.001);
	AX_CHECK_NEAR(ax_stats_t_quantile(0.975, 30), 2.042, 0.001);
	AX_CHECK(isnan(ax_stats_t_quantile(0.975, 0)));
	AX_CHECK(isnan(ax_stats_t_quantile(1.0, 3)));
}

/* The spread between replicates: each group centred on its own mean, so
 * a shift between BASE and CAND is no spread; hand-computed figures. */
static void replicate_spread(void)
{
	int df;
	/* logs ln(100), ln(110): deviations +/-0.04766, pooled sd over
	 * df = 1 is 0.06741, exp()-1 = 0.06972. */
	double a[] = {100, 110}, b[] = {50};
	const double *g[] = {a, b};
	int n[] = {2, 1};
	AX_CHECK_NEAR(ax_stats_replicate_spread(g, n, 2, &df), 0.06972, 1e-4);
	AX_CHECK_INT(df, 1);
	/* The same spread at half the level on the other side: a shift. */
	double c[] = {50, 55};
	const double *g2[] = {a, c};
	int n2[] = {2, 2};
	AX_CHECK_NEAR(ax_stats_replicate_spread(g2, n2, 2, &df), 0.06972, 1e-4);
	AX_CHECK_INT(df, 2);
	/* One replicate a side: no spread to tell. */
	int n3[] = {1, 1};
	AX_CHECK(isnan(ax_stats_replicate_spread(g, n3, 2, &df)));
	double bad[] = {100, 0};
	const double *g4[] = {bad};
	int n4[] = {2};
	AX_CHECK(isnan(ax_stats_replicate_spread(g4, n4, 1, &df)));
}

/* R's wilcox.test example (Hollander & Wolfe, depression scores x - y):
 * V = 40, two-sided p = 20/512; the n = 9 table gives c = 5
 * (P(W+ <= 5) = 10/512 <= 0.025, with 6 it is 14/512), so the interval is
 * Walsh averages 6 and 40 of 45, [0.010, 0.786], pseudo-median 0.46 --
 * the figures R prints, and an enumeration of all 512 sign patterns. */
static void signed_rank_exact(void)
{
	double x[] = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
	double y[] = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
	double d[9];
	struct ax_signed_rank t;
	for (int i = 0; i < 9; i++)
		d[i] = x[i] - y[i];
	AX_CHECK_INT(ax_stats_signed_rank(d, 9, 0.95, &t), 0);
	AX_CHECK_NEAR(t.w_plus, 40, 0);
	AX_CHECK_NEAR(t.p_value, 20.0 / 512, 1e-12);
	AX_CHECK_NEAR(t.center, 0.46, 1e-9);
	AX_CHECK_NEAR(t.lo, 0.010, 1e-9);
	AX_CHECK_NEAR(t.hi, 0.786, 1e-9);
	AX_CHECK_NEAR(t.ci_level, 1 - 20.0 / 512, 1e-12);
}

/* Too few rounds for 95 %: [min, max] and the level it reaches; a centre
 * of 0 gives p = 1; bad input is refused. */
static void signed_rank_small_and_bad(void)
{
	double d[] = {0.1, -0.1, 0.2, -0.2, 0.05};
	struct ax_signed_rank t;
	AX_CHECK_INT(ax_stats_signed_rank(d, 5, 0.95, &t), 0);
	AX_CHECK_NEAR(t.lo, -0.2, 0);
	AX_CHECK_NEAR(t.hi, 0.2, 0);
	AX_CHECK_NEAR(t.ci_level, 1 - 2.0 / 32, 1e-12);
	AX_CHECK(t.p_value > 0.5);
	double nan_d[] = {0.1, NAN};
	AX_CHECK_INT(ax_stats_signed_rank(nan_d, 2, 0.95, &t), AX_EINVAL);
	AX_CHECK_INT(ax_stats_signed_rank(d, 0, 0.95, &t), AX_EINVAL);
}

/* Above the exact table's reach the normal form serves: 400 rounds all
 * 1 % faster with a little alternating noise are called so. */
static void signed_rank_normal(void)
{
	double d[400];
	struct ax_signed_rank t;
	for (int i = 0; i < 400; i++)
		d[i] = 0.01 + (i % 2 ? 0.002 : -0.002) * (1 + i % 7);
	AX_CHECK_INT(ax_stats_signed_rank(d, 400, 0.95, &t), 0);
	AX_CHECK(t.p_value < 1e-9);
	AX_CHECK(t.lo >= 0.0089 && t.hi <= 0.0111 && t.hi > t.lo);
	AX_CHECK(t.lo <= t.center && t.center <= t.hi);
}

/* Blocks of a paired measurement: medians 2, 4 and 6 of blocks of 2, 3
 * and 2 rounds; mean 4, sd 2, t(0.975, 2) = 4.302653 over sqrt(3); with
 * 2 degrees of freedom p = 1 - t / sqrt(2 + t^2) = 1 - sqrt(12/14).  Two
 * blocks are too few for an interval, and say how many there were. */
static void block_spread(void)
{
	double d[] = {1, 3, 2, 9, 4, 7, 5};
	int block[] = {0, 0, 1, 1, 1, 2, 2};
	struct ax_block_spread b;
	AX_CHECK_INT(ax_stats_block_spread(d, block, 7, 0.95, &b), 0);
	AX_CHECK_INT(b.blocks, 3);
	AX_CHECK_NEAR(b.center, 4, 1e-12);
	AX_CHECK_NEAR(b.half_width, 4.302653 * 2 / sqrt(3), 1e-5);
	AX_CHECK_NEAR(b.p_value, 1 - sqrt(12.0 / 14), 1e-9);
	AX_CHECK_INT(ax_stats_block_spread(d, block, 5, 0.95, &b), AX_EINVAL);
	AX_CHECK_INT(b.blocks, 2);
	AX_CHECK(isnan(b.half_width));
}

/* The prediction interval of a ratio: log sides widened by sqrt 2, so
 * 1.2 [1.1, 1.4] predicts 1.2 * (1.1 / 1.2)^sqrt2 to 1.2 * (1.4 / 1.2)^sqrt2.
 * Then what it is for: two independent estimates of one ratio (log
 * normal, sd 0.05, a seeded RNG), each with its exact 95 % interval; the
 * second lies in the first's confidence interval only ~83 % of the time,
 * in its prediction interval ~95 %. */
static void ratio_prediction(void)
{
	double lo, hi;
	AX_CHECK_INT(ax_stats_ratio_prediction(1.2, 1.1, 1.4, &lo, &hi), 0);
	AX_CHECK_NEAR(lo, 1.2 * pow(1.1 / 1.2, M_SQRT2), 1e-12);
	AX_CHECK_NEAR(hi, 1.2 * pow(1.4 / 1.2, M_SQRT2), 1e-12);
	AX_CHECK_INT(ax_stats_ratio_prediction(1.2, 1.3, 1.4, &lo, &hi),
		     AX_EINVAL);
	AX_CHECK(isnan(lo) && isnan(hi));
	AX_CHECK_INT(ax_stats_ratio_prediction(1, 0, 2, &lo, &hi), AX_EINVAL);
	AX_CHECK_INT(ax_stats_ratio_prediction(NAN, 1, 2, &lo, &hi), AX_EINVAL);

	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 33);
	int n = 20000, in_ci = 0, in_pred = 0;
	const double sd = 0.05, h = 1.959964 * sd;
	for (int i = 0; i < n; i++) {
		double c1 = log(1.25) + gsl_ran_gaussian(rng, sd);
		double c2 = log(1.25) + gsl_ran_gaussian(rng, sd);
		AX_CHECK_INT(ax_stats_ratio_prediction(exp(c1), exp(c1 - h),
						       exp(c1 + h), &lo, &hi),
			     0);
		in_ci += fabs(c2 - c1) <= h;
		in_pred += exp(c2) >= lo && exp(c2) <= hi;
	}
	gsl_rng_free(rng);
	AX_CHECK(fabs((double)in_ci / n - 0.834) < 0.01);
	AX_CHECK(fabs((double)in_pred / n - 0.95) < 0.006);
}

AX_TEST_MAIN(AX_TEST(summary_of_one_to_ten), AX_TEST(median_ci_n30),
	     AX_TEST(small_samples_widen), AX_TEST(summarize_rejects_bad_input),
	     AX_TEST(mann_whitney_exact), AX_TEST(mann_whitney_ties),
	     AX_TEST(hodges_lehmann_exact), AX_TEST(hodges_lehmann_normal),
	     AX_TEST(shift_rejects_bad_input), AX_TEST(t_quantiles),
	     AX_TEST(replicate_spread), AX_TEST(signed_rank_exact),
	     AX_TEST(signed_rank_small_and_bad), AX_TEST(signed_rank_normal),
	     AX_TEST(block_spread), AX_TEST(ratio_prediction))
