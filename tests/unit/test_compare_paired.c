/*
 * tests/unit/test_compare_paired.c - a paired measurement's verdict under
 * compare's rules (reports/compare_paired.h).
 */
#include "reports/compare_paired.h"

#include "tests/unit/ax_test.h"
#include <math.h>

static void judge(double s, double lo, double hi, double p,
		  struct ax_compare_stat *st, double *mde)
{
	struct ax_compare_paired_in in = {s, lo, hi, p, 20};
	ax_compare_paired(&in, 0.02, 0.05, st, mde);
}

/* 10 % more work per element reads about 0.91: slower, beyond 2 %. */
static void slower_beyond_threshold(void)
{
	struct ax_compare_stat st;
	double mde;
	judge(0.909, 0.90, 0.92, 1e-4, &st, &mde);
	AX_CHECK_INT(st.verdict, AX_VERDICT_SLOWER);
	AX_CHECK_NEAR(st.impr_hi, -0.08, 1e-12);
	AX_CHECK_NEAR(mde, 0.02 + 0.01, 1e-12);
}

/* Identical sides: a tight interval around 1 is "same"; a wide one
 * straddling the band is "ambiguous", never "slower". */
static void identical_sides(void)
{
	struct ax_compare_stat st;
	double mde;
	judge(1.001, 0.995, 1.008, 0.7, &st, &mde);
	AX_CHECK_INT(st.verdict, AX_VERDICT_SAME);
	judge(0.99, 0.96, 1.02, 0.3, &st, &mde);
	AX_CHECK_INT(st.verdict, AX_VERDICT_AMBIGUOUS);
	AX_CHECK_NEAR(mde, 0.02 + 0.03, 1e-12);
}

/* Significant but reaching into the band: ambiguous; faster beyond it:
 * faster; no rounds: ambiguous with no MDE. */
static void faster_and_edges(void)
{
	struct ax_compare_stat st;
	double mde;
	judge(1.03, 1.01, 1.05, 0.01, &st, &mde);
	AX_CHECK_INT(st.verdict, AX_VERDICT_AMBIGUOUS);
	judge(1.5, 1.4, 1.6, 0.001, &st, &mde);
	AX_CHECK_INT(st.verdict, AX_VERDICT_FASTER);
	struct ax_compare_paired_in none = {NAN, NAN, NAN, NAN, 0};
	ax_compare_paired(&none, 0.02, 0.05, &st, &mde);
	AX_CHECK_INT(st.verdict, AX_VERDICT_AMBIGUOUS);
	AX_CHECK(isnan(mde));
}

AX_TEST_MAIN(AX_TEST(slower_beyond_threshold), AX_TEST(identical_sides),
	     AX_TEST(faster_and_edges))
