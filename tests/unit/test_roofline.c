/* tests/unit/test_roofline.c - the ridge point of an intensity sweep
 * (reports/roofline.h): a known roofline is recovered, points that
 * cannot enter are left out. */
#include "reports/roofline.h"

#include "ax_test.h"

#include <math.h>

/* Points on min(100 GFLOP/s, 10 GB/s x ai): the ridge is 10 FLOP/B. */
static void test_known_roofline(void)
{
	double ai[8], rate[8];
	for (int i = 0; i < 8; i++) {
		ai[i] = 0.25 * pow(4, i); /* 0.25 .. 4096 */
		rate[i] = fmin(100, 10 * ai[i]);
	}
	struct ax_roofline_fit f;
	ax_roofline_fit(ai, rate, 8, &f);
	AX_CHECK_INT(f.n, 8);
	AX_CHECK_NEAR(f.bandwidth, 10, 1e-12);
	AX_CHECK_NEAR(f.peak, 100, 1e-12);
	AX_CHECK_NEAR(f.ridge, 10, 1e-12);
	AX_CHECK_NEAR(f.ai_lo, 0.25, 1e-12);
	AX_CHECK_NEAR(f.ai_hi, 4096, 1e-9);
}

/* A kernel below its roofs (latency-bound in the middle) moves neither
 * roof: the best bandwidth and the best rate are the sweep's ends. */
static void test_sag_between_the_roofs(void)
{
	double ai[3] = {0.5, 8, 256}, rate[3] = {4, 20, 90};
	struct ax_roofline_fit f;
	ax_roofline_fit(ai, rate, 3, &f);
	AX_CHECK_NEAR(f.bandwidth, 8, 1e-12);
	AX_CHECK_NEAR(f.peak, 90, 1e-12);
	AX_CHECK_NEAR(f.ridge, 90.0 / 8, 1e-12);
}

static void test_unusable_points(void)
{
	double ai[4] = {NAN, 0, 2, 4}, rate[4] = {5, 5, -1, INFINITY};
	struct ax_roofline_fit f;
	ax_roofline_fit(ai, rate, 4, &f);
	AX_CHECK_INT(f.n, 0);
	AX_CHECK(isnan(f.ridge));
	AX_CHECK(isnan(f.bandwidth) && isnan(f.peak));
}

AX_TEST_MAIN(AX_TEST(test_known_roofline), AX_TEST(test_sag_between_the_roofs),
	     AX_TEST(test_unusable_points))
