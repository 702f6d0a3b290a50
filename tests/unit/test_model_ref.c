/*
 * tests/unit/test_model_ref.c - the model layers' host side
 * (suites/model_ref.h): FLOPs counted by hand, synthetic data that is the
 * same every time, a forward pass that does not depend on which sgemm
 * multiplies, and a check that passes the reference and fails a wrong
 * element or a NaN, naming it.
 */
#include "ax_test.h"

#include "core/error.h"
#include "suites/model_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct ax_model_dims tiny_decoder = {.kind = AX_MODEL_DECODER,
						  .batch = 1,
						  .tokens = 2,
						  .depth = 3,
						  .heads = 2,
						  .kv_heads = 1,
						  .head_dim = 4,
						  .ffn = 8,
						  .hidden = 8,
						  .layers = 1};

static void test_flops(void)
{
	/* Products: 2 tokens x 8 hidden x (qkv 16 + out 8 + ffn 3*8) x 2
	 * = 1536; attention: token 0 sees 4 positions, token 1 sees 5: 9
	 * pairs x 4 head_dim x 4 x 2 heads = 288. */
	AX_CHECK_NEAR(ax_model_flops(&tiny_decoder), 1824, 1e-9);
	AX_CHECK_NEAR(ax_model_items(&tiny_decoder), 2, 1e-9);
	struct ax_model_dims r = {.kind = AX_MODEL_RESNET,
				  .batch = 2,
				  .size = 3,
				  .channels = 8,
				  .mid = 2,
				  .layers = 2};
	/* 18 pixels x 2 x (8*2 + 9*2*2 + 2*8) x 2 layers */
	AX_CHECK_NEAR(ax_model_flops(&r), 18.0 * 2 * 68 * 2, 1e-9);
	AX_CHECK_INT((int)ax_model_tensor_elems(&r, 1), 36);
}

/* C = A B by columns first: a different order of the same sums. */
static void other_sgemm(int m, int n, int k, const float *a, const float *b,
			float *c)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double s = 0;
			for (int kk = 0; kk < k; kk++)
				s += (double)a[(size_t)i * k + kk] *
				     b[(size_t)kk * n + j];
			c[(size_t)i * n + j] = (float)s;
		}
}

static void test_forward_and_check(void)
{
	enum ax_model_kind kinds[] = {AX_MODEL_DECODER, AX_MODEL_ENCODER,
				      AX_MODEL_RESNET};
	for (int t = 0; t < 3; t++) {
		struct ax_model_dims d = tiny_decoder;
		d.kind = kinds[t];
		d.layers = 2;
		d.size = 3, d.channels = 8, d.mid = 4;
		if (d.kind == AX_MODEL_ENCODER)
			d.kv_heads = d.heads, d.depth = 0;
		struct ax_model_data m1, m2;
		AX_CHECK_INT(ax_model_data_make(&d, &m1), 0);
		AX_CHECK_INT(ax_model_data_make(&d, &m2), 0);
		size_t n = ax_model_rows(&d) * ax_model_width(&d);
		AX_CHECK(!memcmp(m1.x, m2.x, n * sizeof(float)));
		float *a = malloc(n * sizeof(float));
		float *b = malloc(n * sizeof(float));
		AX_CHECK_INT(ax_model_ref_forward(&m1, NULL, a), 0);
		AX_CHECK_INT(ax_model_ref_forward(&m2, other_sgemm, b), 0);
		char why[512];
		AX_CHECK_INT(ax_model_check(&d, b, a, why, sizeof(why)), 0);
		double ss = 0;
		for (size_t i = 0; i < n; i++)
			ss += (double)a[i] * a[i];
		AX_CHECK(ss > 0 && isfinite(ss)); /* not all zero */
		b[n / 2] += 1.0f;
		AX_CHECK_INT(ax_model_check(&d, b, a, why, sizeof(why)),
			     AX_EVERIFY);
		AX_CHECK(strstr(why, "exceeds the fp32 tolerance") != NULL);
		b[n / 2] = NAN;
		AX_CHECK_INT(ax_model_check(&d, b, a, why, sizeof(why)),
			     AX_EVERIFY);
		free(a), free(b);
		ax_model_data_free(&m1);
		ax_model_data_free(&m2);
	}
}

AX_TEST_MAIN(AX_TEST(test_flops), AX_TEST(test_forward_and_check))
