/* tests/unit/test_space.c - search-space enumeration, encoding, lookup. */
#include "tuner/space.h"

#include "core/error.h"

#include "ax_test.h"

static const char *const modes[] = {"copy", "read", "write", NULL};

static const struct ax_param_def defs[] = {
    {"n", AX_PT_INT, 1, 1 << 20, NULL, 4096, AX_PARAM_SHAPE, "size"},
    {"tile", AX_PT_INT, 4, 64, NULL, 16, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "tile"},
    {"wg", AX_PT_INT, 1, 4, NULL, 1, AX_PARAM_TUNABLE, "groups"},
    {"mode", AX_PT_ENUM, 0, 0, modes, 0, AX_PARAM_TUNABLE, "mode"},
    {"vec", AX_PT_BOOL, 0, 1, NULL, 0, AX_PARAM_TUNABLE, "vector"},
};

/* The device limit of the test: tile * wg <= 64, and "write" needs vec. */
static int valid(const struct ax_params *p, void *ctx, char *why, size_t n)
{
	int *calls = ctx;
	(*calls)++;
	int64_t tile = ax_params_get(p, "tile"), wg = ax_params_get(p, "wg");
	if (tile * wg > 64)
		return ax_errf(why, n, AX_EINVAL, "tile*wg > 64");
	if (ax_params_get(p, "mode") == 2 && !ax_params_get(p, "vec"))
		return ax_errf(why, n, AX_EINVAL, "write needs vec");
	return 0;
}

static void test_enumerate_with_constraints(void)
{
	struct ax_space *s;
	char err[256];
	int calls = 0;
	AX_CHECK_INT(ax_space_create_params(&s, defs, 5, valid, &calls, 0, 1,
					    err, sizeof(err)),
		     0);
	/* Brute force: tile 4..64 (5 levels) x wg 1..4 x 3 modes x 2. */
	int expect = 0;
	for (int tile = 4; tile <= 64; tile *= 2)
		for (int wg = 1; wg <= 4; wg++)
			for (int m = 0; m < 3; m++)
				for (int v = 0; v < 2; v++)
					expect +=
					    tile * wg <= 64 && !(m == 2 && !v);
	AX_CHECK_INT(ax_space_cartesian(s), 5 * 4 * 3 * 2);
	AX_CHECK_INT(calls, 120);
	AX_CHECK_INT(ax_space_size(s), expect);
	AX_CHECK_INT(ax_space_sampled(s), 0);
	AX_CHECK_INT(ax_space_ndims(s), 4);
	AX_CHECK_STR(ax_space_dim_name(s, 0), "tile");
	for (size_t i = 0; i < ax_space_size(s); i++) {
		struct ax_params p;
		char why[64];
		AX_CHECK_INT(ax_space_point_params(s, i, &p), 0);
		AX_CHECK_INT(valid(&p, &calls, why, sizeof(why)), 0);
		AX_CHECK_INT(ax_params_get(&p, "n"), 4096); /* default */
		double v[4];
		for (int d = 0; d < 4; d++)
			v[d] = ax_space_value(s, i, d);
		AX_CHECK_INT(ax_space_find(s, v), (long)i);
		AX_CHECK_INT(ax_space_find_params(s, &p), (long)i);
	}
	struct ax_params q;
	ax_params_init(&q, defs, 5);
	q.v[1] = 64; /* tile 64 with wg 1: valid */
	AX_CHECK(ax_space_find_params(s, &q) >= 0);
	q.v[2] = 2; /* tile 64 with wg 2 breaks the limit: not in the space */
	AX_CHECK_INT(ax_space_find_params(s, &q), -1);
	ax_space_destroy(s);
}

static void test_encoding(void)
{
	struct ax_space *s;
	char err[256];
	int calls = 0;
	ax_space_create_params(&s, defs, 5, valid, &calls, 0, 1, err,
			       sizeof(err));
	/* tile log2 (1) + wg linear and its alignment (2) + mode one-hot
	 * (3) + vec (1). */
	AX_CHECK_INT(ax_space_enc_dims(s), 7);
	AX_CHECK_INT(ax_space_dim_kind(s, 0), AX_DIM_LOG2);
	AX_CHECK_INT(ax_space_dim_kind(s, 1), AX_DIM_NUMERIC);
	AX_CHECK_INT(ax_space_dim_kind(s, 2), AX_DIM_CATEGORICAL);
	AX_CHECK_INT(ax_space_dim_kind(s, 3), AX_DIM_BOOL);
	double v[4] = {16, 3, 2, 1};
	long i = ax_space_find(s, v);
	AX_CHECK(i >= 0);
	const double *e = ax_space_encoded(s, (size_t)i);
	AX_CHECK_NEAR(e[0], 0.5, 1e-12);     /* log2 16 in [2, 6] */
	AX_CHECK_NEAR(e[1], 2.0 / 3, 1e-12); /* 3 in [1, 4] */
	AX_CHECK_NEAR(e[2], 0, 0);	     /* 3 is odd: valuation 0 of 2 */
	AX_CHECK_NEAR(e[3], 0, 0);
	AX_CHECK_NEAR(e[4], 0, 0);
	AX_CHECK_NEAR(e[5], 1, 0); /* "write" */
	AX_CHECK_NEAR(e[6], 1, 0);
	double v4[4] = {16, 4, 2, 1}, v2[4] = {16, 2, 2, 1};
	AX_CHECK_NEAR(ax_space_encoded(s, ax_space_find(s, v4))[2], 1, 0);
	AX_CHECK_NEAR(ax_space_encoded(s, ax_space_find(s, v2))[2], 0.5, 0);
	for (size_t j = 0; j < ax_space_size(s); j++)
		for (int c = 0; c < 7; c++) {
			double x = ax_space_encoded(s, j)[c];
			AX_CHECK(x >= 0 && x <= 1);
		}
	/* An invalid combination is not in the space. */
	double bad[4] = {64, 2, 0, 0};
	AX_CHECK_INT(ax_space_find(s, bad), -1);
	ax_space_destroy(s);
}

static void test_sampling_over_cap(void)
{
	struct ax_space *s, *s2;
	char err[256];
	int calls = 0;
	AX_CHECK_INT(ax_space_create_params(&s, defs, 5, valid, &calls, 20, 9,
					    err, sizeof(err)),
		     0);
	AX_CHECK_INT(ax_space_sampled(s), 1);
	AX_CHECK(ax_space_size(s) > 10 && ax_space_size(s) <= 20);
	ax_space_create_params(&s2, defs, 5, valid, &calls, 20, 9, err,
			       sizeof(err));
	AX_CHECK_INT(ax_space_size(s2), ax_space_size(s));
	for (size_t i = 0; i < ax_space_size(s); i++) {
		struct ax_params p;
		char why[64];
		ax_space_point_params(s, i, &p);
		AX_CHECK_INT(valid(&p, &calls, why, sizeof(why)), 0);
		for (int d = 0; d < 4; d++) /* same seed, same sample */
			AX_CHECK(ax_space_value(s, i, d) ==
				 ax_space_value(s2, i, d));
	}
	ax_space_destroy(s);
	ax_space_destroy(s2);
}

static void test_explicit_points(void)
{
	const char *names[2] = {"bx", "kind"};
	enum ax_dim_kind kinds[2] = {AX_DIM_AUTO, AX_DIM_CATEGORICAL};
	double pts[] = {16, 0, 32, 0, 64, 1, 128, 2, 256, 2, 32, 2};
	struct ax_space *s;
	char err[256];
	AX_CHECK_INT(ax_space_create_points(&s, 2, names, kinds, pts, 6, err,
					    sizeof(err)),
		     0);
	AX_CHECK_INT(ax_space_size(s), 6);
	AX_CHECK_INT(ax_space_dim_kind(s, 0), AX_DIM_LOG2);
	AX_CHECK_INT(ax_space_enc_dims(s), 4);
	AX_CHECK_NEAR(ax_space_encoded(s, 1)[0], 0.25, 1e-12);
	/* Neighbours of (32, 0): (16, 0) by bx, (32, 2) by kind. */
	size_t nb[8];
	AX_CHECK_INT(ax_space_neighbours(s, 1, nb, 8), 2);
	AX_CHECK((nb[0] == 0 && nb[1] == 5) || (nb[0] == 5 && nb[1] == 0));
	ax_space_destroy(s);

	double dup[] = {1, 0, 2, 0, 1, 0};
	AX_CHECK_INT(ax_space_create_points(&s, 2, names, kinds, dup, 3, err,
					    sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "points 0 and 2") != NULL);
	double nan_pt[] = {1, 0, NAN, 0};
	AX_CHECK_INT(ax_space_create_points(&s, 2, names, NULL, nan_pt, 2, err,
					    sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "point 1: kind") || strstr(err, "point 1: bx"));
}

static void test_no_tunable(void)
{
	struct ax_space *s;
	char err[256];
	AX_CHECK_INT(ax_space_create_params(&s, defs, 1, NULL, NULL, 0, 1, err,
					    sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "tunable") != NULL);
	AX_CHECK(s == NULL);
}

AX_TEST_MAIN(AX_TEST(test_enumerate_with_constraints), AX_TEST(test_encoding),
	     AX_TEST(test_sampling_over_cap), AX_TEST(test_explicit_points),
	     AX_TEST(test_no_tunable))
