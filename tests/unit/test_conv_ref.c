/*
 * tests/unit/test_conv_ref.c - the CPU side of the conv suite: shape
 * arithmetic, the validity predicate's messages, fp16 conversions, the
 * reference on hand-computed cases, and the checker: a correct output
 * passes, a corrupted one is reported as a failed result.
 */
#include "ax_test.h"

#include "core/error.h"
#include "suites/conv_ref.h"
#include "suites/data.h"
#include "suites/suite.h"

extern const struct ax_suite ax_suite_conv;

/* A conv point from "name=value" pairs over the suite's defaults. */
static void point(struct ax_params *p, const char *const *kv)
{
	char err[256];
	ax_params_init(p, ax_suite_conv.params, ax_suite_conv.n_params);
	for (int i = 0; kv[i]; i += 2) {
		int rc = ax_params_set(p, kv[i], kv[i + 1], err, sizeof(err));
		if (rc)
			printf("#   %s\n", err);
		AX_CHECK_INT(rc, 0);
	}
}

static VkPhysicalDeviceLimits lavapipe_like(void)
{
	VkPhysicalDeviceLimits l;
	memset(&l, 0, sizeof(l));
	l.maxComputeSharedMemorySize = 32768;
	l.maxComputeWorkGroupInvocations = 1024;
	l.maxComputeWorkGroupSize[0] = 1024;
	l.maxComputeWorkGroupSize[1] = 1024;
	l.maxComputeWorkGroupSize[2] = 1024;
	l.maxComputeWorkGroupCount[0] = 65535;
	l.maxComputeWorkGroupCount[1] = 65535;
	l.maxComputeWorkGroupCount[2] = 65535;
	l.maxStorageBufferRange = 128u << 20;
	return l;
}

static void test_output_size(void)
{
	struct ax_params p;
	struct ax_conv_shape s;
	char why[256];
	/* 7x7, 3x3, stride 2, pad 1: (7 + 2 - 3) / 2 + 1 = 4. */
	point(&p,
	      (const char *const[]){"h", "7", "w", "9", "stride", "2", NULL});
	AX_CHECK_INT(ax_conv_shape_from_params(&p, &s, why, sizeof(why)), 0);
	AX_CHECK_INT(s.p, 4);
	AX_CHECK_INT(s.q, 5);
	/* Dilation 2 makes a 3x3 filter span 5: (7 + 0 - 5) / 1 + 1 = 3. */
	point(&p, (const char *const[]){"h", "7", "w", "7", "pad", "0",
					"dilation", "2", NULL});
	AX_CHECK_INT(ax_conv_shape_from_params(&p, &s, why, sizeof(why)), 0);
	AX_CHECK_INT(s.p, 3);
	/* 2x2 input, 5x5 filter, no padding: refused, sizes named. */
	point(&p, (const char *const[]){"h", "2", "w", "2", "r", "5", "s", "5",
					"pad", "0", NULL});
	AX_CHECK_INT(ax_conv_shape_from_params(&p, &s, why, sizeof(why)),
		     AX_EINVAL);
	AX_CHECK(strstr(why, "5x5") != NULL);
	AX_CHECK(strstr(why, "2x2") != NULL);
}

static void test_flops(void)
{
	struct ax_params p;
	struct ax_conv_shape s;
	point(&p, (const char *const[]){"n", "2", "c", "3", "h", "8", "w", "8",
					"k", "5", NULL});
	AX_CHECK_INT(ax_conv_shape_from_params(&p, &s, NULL, 0), 0);
	/* 2 * N*K*P*Q * C*R*S with P = Q = 8 (pad 1, 3x3). */
	AX_CHECK_NEAR(ax_conv_flops(&s), 2.0 * 2 * 5 * 8 * 8 * 3 * 3 * 3, 0.0);
	AX_CHECK_NEAR(ax_suite_conv.work(&p), ax_conv_flops(&s), 0.0);
}

static void test_limits(void)
{
	VkPhysicalDeviceLimits lim = lavapipe_like();
	struct ax_params p;
	struct ax_conv_shape s;
	struct ax_conv_tiles t;
	char why[512];
	point(&p, (const char *const[]){NULL});
	ax_conv_shape_from_params(&p, &s, NULL, 0);
	ax_conv_tiles_from_params(&p, &t);
	AX_CHECK_INT(ax_conv_check_limits(&s, &t, &lim, why, sizeof(why)), 0);
	/* The defaults fit the smallest shared memory Vulkan allows. */
	AX_CHECK(ax_conv_shared_bytes(&t) <= 16384);
	/* (256 + 256) * 64 * 4 bytes = 131072 > 32768. */
	point(&p,
	      (const char *const[]){"tile_k", "256", "tile_pq", "256", "tile_c",
				    "64", "tm", "16", "tn", "16", NULL});
	ax_conv_tiles_from_params(&p, &t);
	AX_CHECK_INT(ax_conv_check_limits(&s, &t, &lim, why, sizeof(why)),
		     AX_EINVAL);
	AX_CHECK(strstr(why, "maxComputeSharedMemorySize 32768") != NULL);
	AX_CHECK(strstr(why, "131072") != NULL);
	/* 256/4 * 256/4 = 4096 invocations > 1024. */
	point(&p,
	      (const char *const[]){"tile_k", "256", "tile_pq", "256", "tile_c",
				    "1", "tm", "4", "tn", "4", NULL});
	ax_conv_tiles_from_params(&p, &t);
	AX_CHECK_INT(ax_conv_check_limits(&s, &t, &lim, why, sizeof(why)),
		     AX_EINVAL);
	AX_CHECK(strstr(why, "4096") != NULL);
	AX_CHECK(strstr(why, "maxComputeWorkGroupInvocations 1024") != NULL);
	/* A 256 MiB input is over maxStorageBufferRange. */
	point(&p, (const char *const[]){"n", "64", "c", "64", "h", "128", "w",
					"128", NULL});
	ax_conv_shape_from_params(&p, &s, NULL, 0);
	ax_conv_tiles_from_params(&p, &t);
	AX_CHECK_INT(ax_conv_check_limits(&s, &t, &lim, why, sizeof(why)),
		     AX_EINVAL);
	AX_CHECK(strstr(why, "maxStorageBufferRange 134217728") != NULL);
}

static void test_half(void)
{
	AX_CHECK_INT(ax_half_from_float(1.0f), 0x3c00);
	AX_CHECK_INT(ax_half_from_float(-2.0f), 0xc000);
	AX_CHECK_INT(ax_half_from_float(65504.0f), 0x7bff);
	AX_CHECK_INT(ax_half_from_float(65520.0f), 0x7c00);
	AX_CHECK_INT(ax_half_from_float(0x1p-24f), 0x0001);
	AX_CHECK_INT(ax_half_from_float(0x1p-14f), 0x0400);
	AX_CHECK_INT(ax_half_from_float(0.1f), 0x2e66);
	/* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even. */
	AX_CHECK_INT(ax_half_from_float(1.0f + 0x1p-11f), 0x3c00);
	AX_CHECK_INT(ax_half_from_float(1.0f + 3 * 0x1p-11f), 0x3c02);
	AX_CHECK_NEAR(ax_half_to_float(0x3555), 0.333251953125, 0.0);
	AX_CHECK_NEAR(ax_half_to_float(0x0001), 0x1p-24, 0.0);
	AX_CHECK(isinf(ax_half_to_float(0xfc00)));
	/* Every finite half survives the round trip. */
	int bad = 0;
	for (uint32_t h = 0; h < 0x10000; h++)
		if ((h & 0x7c00) != 0x7c00 &&
		    ax_half_from_float(ax_half_to_float((uint16_t)h)) != h)
			bad++;
	AX_CHECK_INT(bad, 0);
}

/* 1 image, 1 channel, 3x3 input 1..9, one 2x2 filter of ones, pad 0:
 * outputs are the sums of each 2x2 window. */
static void test_reference_by_hand(void)
{
	struct ax_conv_shape s = {.n = 1,
				  .c = 1,
				  .h = 3,
				  .w = 3,
				  .k = 1,
				  .r = 2,
				  .s = 2,
				  .stride = 1,
				  .pad = 0,
				  .dil = 1,
				  .p = 2,
				  .q = 2};
	float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1};
	double asum;
	AX_CHECK_NEAR(ax_conv_ref_point(&s, x, w, 0, 0, 0, 0, &asum), 12, 0);
	AX_CHECK_NEAR(asum, 12, 0);
	AX_CHECK_NEAR(ax_conv_ref_point(&s, x, w, 0, 0, 1, 1, NULL), 28, 0);
	/* Pad 1, stride 2: output (0,0) sees only x[0][0] through w[1][1]. */
	s.pad = 1, s.stride = 2;
	float w2[4] = {10, 20, 30, 40};
	AX_CHECK_NEAR(ax_conv_ref_point(&s, x, w2, 0, 0, 0, 0, NULL), 40, 0);
	/* Dilation 2, pad 0: corners 1 + 3 + 7 + 9. */
	s.pad = 0, s.stride = 1, s.dil = 2, s.p = 1, s.q = 1;
	AX_CHECK_NEAR(ax_conv_ref_point(&s, x, w, 0, 0, 0, 0, NULL), 20, 0);
}

/* The same logical tensors in NCHW/KCRS and NHWC/KRSC give the same
 * outputs, each at its own layout's index. */
static void test_layouts_agree(void)
{
	struct ax_conv_shape a = {.n = 2,
				  .c = 3,
				  .h = 5,
				  .w = 4,
				  .k = 2,
				  .r = 3,
				  .s = 2,
				  .stride = 2,
				  .pad = 1,
				  .dil = 1};
	a.p = (5 + 2 - 3) / 2 + 1, a.q = (4 + 2 - 2) / 2 + 1;
	struct ax_conv_shape b = a;
	b.nhwc = true;
	float xa[120], xb[120], wa[36], wb[36];
	ax_conv_fill_inputs(xa, 120, 1, false);
	ax_conv_fill_inputs(wa, 36, 2, false);
	for (int n = 0; n < 2; n++)
		for (int c = 0; c < 3; c++)
			for (int h = 0; h < 5; h++)
				for (int w = 0; w < 4; w++)
					xb[((n * 5 + h) * 4 + w) * 3 + c] =
					    xa[((n * 3 + c) * 5 + h) * 4 + w];
	for (int k = 0; k < 2; k++)
		for (int c = 0; c < 3; c++)
			for (int r = 0; r < 3; r++)
				for (int t = 0; t < 2; t++)
					wb[((k * 3 + r) * 2 + t) * 3 + c] =
					    wa[((k * 3 + c) * 3 + r) * 2 + t];
	double maxdiff = 0;
	for (int i = 0; i < 2 * 2 * a.p * a.q; i++) {
		int n = i / (2 * a.p * a.q), k = i / (a.p * a.q) % 2;
		int p = i / a.q % a.p, q = i % a.q;
		double ya = ax_conv_ref_point(&a, xa, wa, n, k, p, q, NULL);
		double yb = ax_conv_ref_point(&b, xb, wb, n, k, p, q, NULL);
		maxdiff = fmax(maxdiff, fabs(ya - yb));
	}
	AX_CHECK(maxdiff < 1e-12);
	/* NCHW: ((n*K + k)*P + p)*Q + q; NHWC: ((n*P + p)*Q + q)*K + k. */
	AX_CHECK_INT(ax_conv_output_index(&a, 1, 1, 0, 1),
		     ((1 * 2 + 1) * 3 + 0) * 3 + 1);
	AX_CHECK_INT(ax_conv_output_index(&b, 1, 1, 0, 1),
		     ((1 * 3 + 0) * 3 + 1) * 2 + 1);
}

/* A correct output passes; one corrupted element is reported with its
 * index and coordinates - in full and in sampled verification. */
static void test_checker_catches_corruption(void)
{
	for (int layout = 0; layout < 2; layout++) {
		struct ax_conv_shape s = {.n = 2,
					  .c = 4,
					  .h = 6,
					  .w = 5,
					  .k = 3,
					  .r = 3,
					  .s = 3,
					  .stride = 1,
					  .pad = 1,
					  .dil = 1,
					  .p = 6,
					  .q = 5,
					  .nhwc = layout == 1};
		size_t nx = ax_conv_input_count(&s);
		size_t nw = ax_conv_weight_count(&s);
		size_t ny = ax_conv_output_count(&s);
		float *x = malloc(nx * 4), *w = malloc(nw * 4);
		float *y = malloc(ny * 4);
		ax_conv_fill_inputs(x, nx, 3, false);
		ax_conv_fill_inputs(w, nw, 4, false);
		for (size_t i = 0; i < ny; i++) {
			int n = (int)i / 90, k = (int)i / 30 % 3;
			int p = (int)i / 5 % 6, q = (int)i % 5;
			size_t at = ax_conv_output_index(&s, n, k, p, q);
			y[at] = (float)ax_conv_ref_point(&s, x, w, n, k, p, q,
							 NULL);
		}
		char why[512] = "";
		AX_CHECK_INT(
		    ax_conv_ref_verify(&s, x, w, y, 1e9, why, sizeof(why)), 0);
		size_t bad = ax_conv_output_index(&s, 1, 2, 3, 4);
		float keep = y[bad];
		y[bad] += 0.01f;
		AX_CHECK_INT(
		    ax_conv_ref_verify(&s, x, w, y, 1e9, why, sizeof(why)),
		    AX_EVERIFY);
		AX_CHECK(strstr(why, "n=1 k=2 p=3 q=4") != NULL);
		y[bad] = keep;
		/* The last output is checked even when sampling. */
		y[ny - 1] = -y[ny - 1] + 1.0f;
		AX_CHECK_INT(
		    ax_conv_ref_verify(&s, x, w, y, 10, why, sizeof(why)),
		    AX_EVERIFY);
		free(x), free(w), free(y);
	}
}

/* fp16 storage widens the tolerance by the output's rounding only. */
static void test_tolerance(void)
{
	struct ax_conv_shape s = {.c = 64, .r = 3, .s = 3};
	/* 2 * sqrt(576) * 2^-23 * 100 */
	double t32 = ax_conv_tolerance(&s, 10.0, 100.0);
	AX_CHECK_NEAR(t32, 2 * 24 * 0x1p-23 * 100, 1e-12);
	s.f16 = true;
	double t16 = ax_conv_tolerance(&s, 10.0, 100.0);
	AX_CHECK_NEAR(t16 - t32, 10.0 * 0x1p-10, 1e-12);
}

AX_TEST_MAIN(AX_TEST(test_output_size), AX_TEST(test_flops),
	     AX_TEST(test_limits), AX_TEST(test_half),
	     AX_TEST(test_reference_by_hand), AX_TEST(test_layouts_agree),
	     AX_TEST(test_checker_catches_corruption), AX_TEST(test_tolerance))
