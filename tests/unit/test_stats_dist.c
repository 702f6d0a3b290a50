/*
 * tests/unit/test_stats_dist.c - core/stats_dist on synthetic samples
 * drawn with fixed seeds (GSL's MT19937), so every run sees the same
 * numbers: unimodal ones are never split, two or three clusters are
 * found with their values and shares, outlier groups are not modes.
 */
#include "core/error.h"
#include "core/stats_dist.h"

#include "tests/unit/ax_test.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#define SEEDS 100

/* n draws of a lognormal around median m with log-sd sigma. */
static void draw(gsl_rng *r, double *x, int n, double m, double sigma)
{
	for (int i = 0; i < n; i++)
		x[i] = m * exp(gsl_ran_gaussian(r, sigma));
}

static gsl_rng *rng(unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	return r;
}

static void quantiles_of_one_to_21(void)
{
	double x[21];
	for (int i = 0; i < 21; i++)
		x[i] = 21 - i; /* descending, so the function has to sort */
	struct ax_dist d;
	AX_CHECK_INT(ax_stats_dist_describe(x, 21, &d), 0);
	/* GSL: position (n - 1) p = 2 -> 3; 10 -> 11; 18 -> 19. */
	AX_CHECK_NEAR(d.p10, 3, 1e-12);
	AX_CHECK_NEAR(d.p50, 11, 1e-12);
	AX_CHECK_NEAR(d.p90, 19, 1e-12);
	AX_CHECK_INT(d.n, 21);
	AX_CHECK_NEAR(x[0], 21, 0); /* not modified */
	/* Evenly spread values are one mode, not 21. */
	AX_CHECK_INT(d.n_modes, 1);
}

/* One lognormal cluster (the shape of a quiet latency result): never two
 * modes, its peak near the median, all of the samples in it. */
static void unimodal_is_never_split(void)
{
	int split = 0;
	for (unsigned long seed = 1; seed <= SEEDS; seed++) {
		gsl_rng *r = rng(seed);
		double x[50];
		draw(r, x, 50, 13.0, 0.10);
		struct ax_dist d;
		AX_CHECK_INT(ax_stats_dist_describe(x, 50, &d), 0);
		split += d.multimodal;
		/* The peak of 50 draws wanders by about one sigma. */
		AX_CHECK_NEAR(d.modes[0].value, 13.0, 13.0 * 0.15);
		if (!d.multimodal)
			AX_CHECK_NEAR(d.modes[0].share, 1, 1e-12);
		AX_CHECK(d.p10 < d.p50 && d.p50 < d.p90);
		gsl_rng_free(r);
	}
	AX_CHECK_INT(split, 0);
}

/* A right-skewed tail (10 + gamma(2, 2): a fixed cost plus queueing) is
 * one mode, not a second one in the tail, but for the rare draw whose
 * tail clumps (1 seed of these 100: the documented false-split rate). */
static void skewed_tail_is_one_mode(void)
{
	int split = 0;
	for (unsigned long seed = 1; seed <= SEEDS; seed++) {
		gsl_rng *r = rng(seed);
		double x[50];
		for (int i = 0; i < 50; i++)
			x[i] = 10 + gsl_ran_gamma(r, 2, 2);
		struct ax_dist d;
		AX_CHECK_INT(ax_stats_dist_describe(x, 50, &d), 0);
		split += d.multimodal;
		gsl_rng_free(r);
	}
	AX_CHECK(split <= 1);
}

/* 30 samples near 13 and 20 near 50 (the two states of the latency
 * suite on a 2-vCPU VM): two modes, at their values, 60 % and 40 %. */
static void two_clusters_are_two_modes(void)
{
	for (unsigned long seed = 1; seed <= SEEDS; seed++) {
		gsl_rng *r = rng(seed);
		double x[50];
		draw(r, x, 30, 13.0, 0.08);
		draw(r, x + 30, 20, 50.0, 0.15);
		struct ax_dist d;
		AX_CHECK_INT(ax_stats_dist_describe(x, 50, &d), 0);
		AX_CHECK(d.multimodal);
		AX_CHECK_INT(d.n_modes, 2);
		AX_CHECK_NEAR(d.modes[0].value, 13.0, 13.0 * 0.10);
		AX_CHECK_NEAR(d.modes[1].value, 50.0, 50.0 * 0.20);
		AX_CHECK_NEAR(d.modes[0].share, 0.6, 1e-12);
		AX_CHECK_NEAR(d.modes[1].share, 0.4, 1e-12);
		gsl_rng_free(r);
	}
}

/* Three equal clusters 4x apart: Silverman's bandwidth oversmooths them
 * into one at 60 samples (a documented limit), not at 150. */
static void three_clusters_are_three_modes(void)
{
	for (unsigned long seed = 1; seed <= SEEDS; seed++) {
		gsl_rng *r = rng(seed);
		double x[150];
		draw(r, x, 50, 10.0, 0.05);
		draw(r, x + 50, 50, 40.0, 0.05);
		draw(r, x + 100, 50, 160.0, 0.05);
		struct ax_dist d;
		AX_CHECK_INT(ax_stats_dist_describe(x, 150, &d), 0);
		AX_CHECK_INT(d.n_modes, 3);
		for (int m = 0; m < 3 && m < d.n_modes; m++)
			AX_CHECK_NEAR(d.modes[m].share, 1.0 / 3, 1e-12);
		gsl_rng_free(r);
	}
}

/* Three preempted samples out of 50 (6 %, under AX_DIST_MIN_SHARE) are
 * outliers, not a mode; five (10 %) are one. */
static void outliers_are_not_a_mode(void)
{
	gsl_rng *r = rng(7);
	double x[50];
	draw(r, x, 47, 13.0, 0.05);
	draw(r, x + 47, 3, 100.0, 0.05);
	struct ax_dist d;
	AX_CHECK_INT(ax_stats_dist_describe(x, 50, &d), 0);
	AX_CHECK(!d.multimodal);
	AX_CHECK_INT(d.n_modes, 1);
	AX_CHECK_NEAR(d.modes[0].share, 1, 1e-12);
	draw(r, x, 45, 13.0, 0.05);
	draw(r, x + 45, 5, 100.0, 0.05);
	AX_CHECK_INT(ax_stats_dist_describe(x, 50, &d), 0);
	AX_CHECK_INT(d.n_modes, 2);
	AX_CHECK_NEAR(d.modes[1].share, 0.1, 1e-12);
	gsl_rng_free(r);
}

/* Equal values: one mode at that value (the bandwidth floor keeps the
 * density finite). */
static void constant_sample(void)
{
	double x[AX_DIST_MIN_N];
	for (int i = 0; i < AX_DIST_MIN_N; i++)
		x[i] = 7.0;
	struct ax_dist d;
	AX_CHECK_INT(ax_stats_dist_describe(x, AX_DIST_MIN_N, &d), 0);
	AX_CHECK_INT(d.n_modes, 1);
	AX_CHECK_NEAR(d.modes[0].value, 7.0, 7.0 * 0.005);
	AX_CHECK_NEAR(d.p10, 7.0, 0);
	AX_CHECK_NEAR(d.bandwidth, AX_DIST_MIN_BW, 0);
}

static void refuses_what_it_cannot_describe(void)
{
	double x[AX_DIST_MIN_N];
	for (int i = 0; i < AX_DIST_MIN_N; i++)
		x[i] = i + 1;
	struct ax_dist d;
	AX_CHECK_INT(ax_stats_dist_describe(x, AX_DIST_MIN_N, &d), 0);
	AX_CHECK_INT(ax_stats_dist_describe(x, AX_DIST_MIN_N - 1, &d),
		     AX_EINVAL);
	AX_CHECK_INT(ax_stats_dist_describe(NULL, AX_DIST_MIN_N, &d),
		     AX_EINVAL);
	x[3] = 0; /* no log of it */
	AX_CHECK_INT(ax_stats_dist_describe(x, AX_DIST_MIN_N, &d), AX_EINVAL);
	x[3] = NAN;
	AX_CHECK_INT(ax_stats_dist_describe(x, AX_DIST_MIN_N, &d), AX_EINVAL);
	x[3] = -4;
	AX_CHECK_INT(ax_stats_dist_describe(x, AX_DIST_MIN_N, &d), AX_EINVAL);
}

static void json_document(void)
{
	gsl_rng *r = rng(3);
	double x[40];
	draw(r, x, 20, 10.0, 0.05);
	draw(r, x + 20, 20, 40.0, 0.05);
	struct ax_dist d;
	AX_CHECK_INT(ax_stats_dist_describe(x, 40, &d), 0);
	json_t *j = ax_stats_dist_json(&d);
	AX_CHECK(j != NULL);
	AX_CHECK(json_is_true(json_object_get(j, "multimodal")));
	json_t *modes = json_object_get(j, "modes");
	AX_CHECK_INT(json_array_size(modes), 2);
	AX_CHECK_NEAR(
	    json_real_value(json_object_get(json_array_get(modes, 1), "share")),
	    0.5, 1e-12);
	AX_CHECK_NEAR(json_real_value(json_object_get(j, "p50")), d.p50, 0);
	AX_CHECK(json_is_real(json_object_get(j, "p10")));
	AX_CHECK(json_is_real(json_object_get(j, "p90")));
	AX_CHECK_INT(json_object_size(j), 5);
	json_decref(j);
	gsl_rng_free(r);
}

AX_TEST_MAIN(AX_TEST(quantiles_of_one_to_21), AX_TEST(unimodal_is_never_split),
	     AX_TEST(skewed_tail_is_one_mode),
	     AX_TEST(two_clusters_are_two_modes),
	     AX_TEST(three_clusters_are_three_modes),
	     AX_TEST(outliers_are_not_a_mode), AX_TEST(constant_sample),
	     AX_TEST(refuses_what_it_cannot_describe), AX_TEST(json_document))
