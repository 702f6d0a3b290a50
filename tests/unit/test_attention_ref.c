/*
 * tests/unit/test_attention_ref.c - the CPU side of the attention suite:
 * the exact FLOP count (causal included), the validity predicate's
 * messages, the reference on a hand-computed case, and the checker: a
 * correct output passes, a corrupted one is reported as a failed result.
 */
#include "ax_test.h"

#include "core/error.h"
#include "suites/attention_ref.h"
#include "suites/conv_ref.h"
#include "suites/suite.h"

extern const struct ax_suite ax_suite_attention;

static void point(struct ax_params *p, const char *const *kv)
{
	char err[256];
	ax_params_init(p, ax_suite_attention.params,
		       ax_suite_attention.n_params);
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
	for (int i = 0; i < 3; i++) {
		l.maxComputeWorkGroupSize[i] = 1024;
		l.maxComputeWorkGroupCount[i] = 65535;
	}
	l.maxStorageBufferRange = 128u << 20;
	return l;
}

static void test_flops(void)
{
	struct ax_params p;
	point(&p,
	      (const char *const[]){"batch", "3", "heads", "2", "seq_q", "100",
				    "seq_kv", "60", "head_dim", "128", NULL});
	AX_CHECK_NEAR(ax_suite_attention.work(&p), 4.0 * 3 * 2 * 100 * 60 * 128,
		      0.0);
	/* Causal, Sq = Skv = 100: 1 + 2 + ... + 100 = 5050 pairs. */
	point(&p, (const char *const[]){"seq_q", "100", "seq_kv", "100",
					"causal", "true", NULL});
	struct ax_attention_shape s;
	ax_attention_shape_from_params(&p, &s);
	AX_CHECK_NEAR(ax_attention_pairs(&s), 5050, 0.0);
	AX_CHECK_NEAR(ax_suite_attention.work(&p), 4.0 * 4 * 64 * 5050, 0.0);
	/* Bottom-right: Sq 3, Skv 5 -> rows see 3, 4, 5 keys. */
	s.sq = 3, s.skv = 5;
	AX_CHECK_NEAR(ax_attention_pairs(&s), 12, 0.0);
	/* Sq 5, Skv 3 -> 0, 0, 1, 2, 3. */
	s.sq = 5, s.skv = 3;
	AX_CHECK_INT(ax_attention_visible(&s, 1), 0);
	AX_CHECK_INT(ax_attention_visible(&s, 2), 1);
	AX_CHECK_NEAR(ax_attention_pairs(&s), 6, 0.0);
}

static void test_limits(void)
{
	VkPhysicalDeviceLimits lim = lavapipe_like();
	struct ax_params p;
	struct ax_attention_shape s;
	struct ax_attention_tiles t;
	char why[512];
	point(&p, (const char *const[]){NULL});
	ax_attention_shape_from_params(&p, &s);
	ax_attention_tiles_from_params(&p, &t);
	AX_CHECK_INT(ax_attention_check_limits(&s, &t, &lim, why, sizeof(why)),
		     0);
	/* The defaults fit the smallest shared memory Vulkan allows. */
	AX_CHECK(ax_attention_shared_bytes(&s, &t) <= 16384);
	/* head_dim 128, br 64, bc 64, tpr 8:
	 * (2*64*128 + 64*64 + 2*64*8) * 4 = 86016 bytes. */
	point(&p, (const char *const[]){"head_dim", "128", "br", "64", "bc",
					"64", NULL});
	ax_attention_shape_from_params(&p, &s);
	ax_attention_tiles_from_params(&p, &t);
	AX_CHECK_INT(ax_attention_check_limits(&s, &t, &lim, why, sizeof(why)),
		     AX_EINVAL);
	AX_CHECK(strstr(why, "86016") != NULL);
	AX_CHECK(strstr(why, "maxComputeSharedMemorySize 32768") != NULL);
	/* head_dim 64 with tpr 32: 64 is not a multiple of 4*32. */
	point(&p, (const char *const[]){"tpr", "32", NULL});
	ax_attention_shape_from_params(&p, &s);
	ax_attention_tiles_from_params(&p, &t);
	AX_CHECK_INT(ax_attention_check_limits(&s, &t, &lim, why, sizeof(why)),
		     AX_EINVAL);
	AX_CHECK(strstr(why, "head_dim 64") != NULL);
	/* 128 x 64 = 8192 invocations. */
	point(&p, (const char *const[]){"br", "128", "tpr", "64", "head_dim",
					"256", "bc", "1", NULL});
	ax_attention_shape_from_params(&p, &s);
	ax_attention_tiles_from_params(&p, &t);
	AX_CHECK_INT(ax_attention_check_limits(&s, &t, &lim, why, sizeof(why)),
		     AX_EINVAL);
	AX_CHECK(strstr(why, "8192") != NULL);
}

/* D = 4, two keys with logits 0 and ln 3 after scaling: weights 1/4, 3/4. */
static void test_reference_by_hand(void)
{
	struct ax_attention_shape s = {
	    .batch = 1, .heads = 1, .sq = 1, .skv = 2, .d = 4};
	float q[4] = {1, 0, 0, 0};
	float k[8] = {0, 0, 0, 0, (float)log(3.0), 0, 0, 0};
	float v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	double out[4], lg[2], tsc;
	ax_attention_ref_row(&s, q, k, v, 0, 0, 1.0, out, lg, &tsc);
	AX_CHECK_NEAR(out[0], 0.25 * 1 + 0.75 * 5, 1e-7);
	AX_CHECK_NEAR(out[3], 0.25 * 4 + 0.75 * 8, 1e-7);
	AX_CHECK(tsc > 0 && tsc < 1e-4);
	/* Causal with Sq = Skv = 2: query 0 sees only key 0. */
	s.sq = 2, s.causal = true;
	float q2[8] = {1, 0, 0, 0, 1, 0, 0, 0};
	ax_attention_ref_row(&s, q2, k, v, 0, 0, 1.0, out, lg, NULL);
	AX_CHECK_NEAR(out[1], 2, 1e-12);
	/* Sq 3 > Skv 2: query 0 sees nothing and is all zeros. */
	s.sq = 3;
	ax_attention_ref_row(&s, q2, k, v, 0, 0, 1.0, out, lg, NULL);
	AX_CHECK_NEAR(fabs(out[0]) + fabs(out[3]), 0, 0);
}

static void reference_output(const struct ax_attention_shape *s, const float *q,
			     const float *k, const float *v, float *o)
{
	double ref[64], lg[64];
	for (int64_t r = 0; r < s->batch * s->heads * s->sq; r++) {
		ax_attention_ref_row(s, q, k, v, r / s->sq, r % s->sq,
				     1.0 / sqrt((double)s->d), ref, lg, NULL);
		for (int64_t d = 0; d < s->d; d++)
			o[r * s->d + d] = (float)ref[d];
	}
}

/* A correct output passes; a corrupted element fails with its position,
 * for fp32 and fp16 tolerances and in sampled verification. */
static void test_checker_catches_corruption(void)
{
	for (int f16 = 0; f16 < 2; f16++) {
		struct ax_attention_shape s = {.batch = 2,
					       .heads = 3,
					       .sq = 7,
					       .skv = 11,
					       .d = 16,
					       .causal = true,
					       .f16 = f16};
		size_t nq = ax_attention_q_count(&s);
		size_t nkv = ax_attention_kv_count(&s);
		float *q = malloc(nq * 4), *k = malloc(nkv * 4);
		float *v = malloc(nkv * 4), *o = malloc(nq * 4);
		ax_conv_fill_inputs(q, nq, 5, s.f16);
		ax_conv_fill_inputs(k, nkv, 6, s.f16);
		ax_conv_fill_inputs(v, nkv, 7, s.f16);
		reference_output(&s, q, k, v, o);
		char why[512] = "";
		AX_CHECK_INT(ax_attention_ref_verify(&s, q, k, v, o, 1e9, why,
						     sizeof(why)),
			     0);
		/* batch 1, head 2, query 4, column 9 */
		size_t at = (size_t)(((1 * 3 + 2) * 7 + 4) * 16 + 9);
		float keep = o[at];
		o[at] += 0.01f;
		AX_CHECK_INT(ax_attention_ref_verify(&s, q, k, v, o, 1e9, why,
						     sizeof(why)),
			     AX_EVERIFY);
		AX_CHECK(strstr(why, "batch 1, head 2, query 4, column 9") !=
			 NULL);
		o[at] = keep;
		o[nq - 1] += 0.5f;
		AX_CHECK_INT(ax_attention_ref_verify(&s, q, k, v, o, 10, why,
						     sizeof(why)),
			     AX_EVERIFY);
		free(q), free(k), free(v), free(o);
	}
}

AX_TEST_MAIN(AX_TEST(test_flops), AX_TEST(test_limits),
	     AX_TEST(test_reference_by_hand),
	     AX_TEST(test_checker_catches_corruption))
