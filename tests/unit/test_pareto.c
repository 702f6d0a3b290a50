/* tests/unit/test_pareto.c - two objectives (tuner/pareto.h and the
 * tuner's time-and-energy mode, tuner/strategy.h): the front, its knee and
 * hypervolume against a brute-force count, and bo finding a known front. */
#include "tuner/pareto.h"
#include "tuner/space.h"
#include "tuner/strategy.h"

#include "core/error.h"

#include "ax_test.h"

/* Brute force: i is dominated when some j is no worse in both and better
 * in one. */
static int dominated(const double *a, const double *b, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (a[j] <= a[i] && b[j] <= b[i] &&
		    (a[j] < a[i] || b[j] < b[i]))
			return 1;
	return 0;
}

static void test_front_matches_brute_force(void)
{
	double a[200], b[200];
	size_t f[200];
	unsigned h = 12345;
	for (int i = 0; i < 200; i++) {
		h = h * 1103515245u + 12345u;
		a[i] = 1 + (h >> 8) % 1000;
		h = h * 1103515245u + 12345u;
		b[i] = 1 + (h >> 8) % 1000;
	}
	a[7] = NAN; /* a failure is never on the front */
	b[9] = 0;
	size_t m = ax_pareto_front(a, b, 200, f);
	size_t want = 0;
	for (size_t i = 0; i < 200; i++)
		want += !(i == 7 || i == 9) && !dominated(a, b, 200, i);
	AX_CHECK(m == want);
	for (size_t j = 0; j < m; j++) {
		AX_CHECK(!dominated(a, b, 200, f[j]));
		AX_CHECK(f[j] != 7 && f[j] != 9);
		if (j)
			AX_CHECK(a[f[j]] > a[f[j - 1]] &&
				 b[f[j]] < b[f[j - 1]]);
	}
}

static void test_knee_and_hypervolume(void)
{
	/* An L-shaped front: (1, 100), (2, 2), (100, 1); the middle one is
	 * the balanced trade. */
	double a[] = {1, 2, 100, 50}, b[] = {100, 2, 1, 50};
	size_t f[4];
	size_t m = ax_pareto_front(a, b, 4, f);
	AX_CHECK(m == 3);
	AX_CHECK(f[ax_pareto_knee(a, b, f, m)] == 1);
	/* Two points: the faster one. */
	size_t two[2] = {0, 2};
	AX_CHECK(ax_pareto_knee(a, b, two, 2) == 0);
	/* One point at the box's low corner dominates the whole box. */
	size_t one[1] = {1};
	AX_CHECK(fabs(ax_pareto_hypervolume(a, b, one, 1, 2, 2, 20, 20) - 1) <
		 1e-12);
	/* The corner itself dominates nothing; a point halfway (in log
	 * scale) in both dominates a quarter. */
	double c[] = {20, sqrt(40)}, d[] = {20, sqrt(40)};
	size_t p0[1] = {0}, p1[1] = {1};
	AX_CHECK(ax_pareto_hypervolume(c, d, p0, 1, 2, 2, 20, 20) == 0);
	AX_CHECK(fabs(ax_pareto_hypervolume(c, d, p1, 1, 2, 2, 20, 20) - 0.25) <
		 1e-9);
	/* Adding a front point never lowers the hypervolume. */
	double h3 = ax_pareto_hypervolume(a, b, f, 3, 1, 1, 110, 110);
	double h2 = ax_pareto_hypervolume(a, b, two, 2, 1, 1, 110, 110);
	AX_CHECK(h3 > h2);
}

/* A 12 x 10 grid: x a clock (faster, more power), y a tile (a bowl). */
#define NX 12
#define NY 10
static double time_of(int x, int y)
{
	return (1 + 0.2 * (y - 4) * (y - 4)) * 10.0 / (x + 3);
}
static double energy_of(int x, int y)
{
	double power = 20 + 2.0 * (x + 3) * (x + 3);
	return power * time_of(x, y);
}

static int grid_space(struct ax_space **s)
{
	static const char *const names[2] = {"x", "y"};
	enum ax_dim_kind kinds[2] = {AX_DIM_NUMERIC, AX_DIM_NUMERIC};
	double v[NX * NY * 2];
	for (int x = 0; x < NX; x++)
		for (int y = 0; y < NY; y++) {
			v[(x * NY + y) * 2] = x;
			v[(x * NY + y) * 2 + 1] = y;
		}
	char err[256];
	return ax_space_create_points(s, 2, names, kinds, v, NX * NY, err,
				      sizeof(err));
}

static void test_bo_finds_the_front(void)
{
	struct ax_space *s;
	AX_CHECK(grid_space(&s) == 0);
	double a[NX * NY], b[NX * NY];
	size_t truth[NX * NY];
	for (int i = 0; i < NX * NY; i++) {
		a[i] = time_of(i / NY, i % NY);
		b[i] = energy_of(i / NY, i % NY);
	}
	size_t m = ax_pareto_front(a, b, NX * NY, truth);
	AX_CHECK(m >= 3); /* the clock makes a real trade */
	struct ax_tuner_options o;
	ax_tuner_options_init(&o);
	o.budget = 40;
	o.objectives = 2;
	struct ax_tuner *t;
	char err[256];
	AX_CHECK(ax_tuner_create(&t, s, "bo", 3, &o, err, sizeof(err)) == 0);
	/* One objective's tell is refused in this mode. */
	size_t i;
	AX_CHECK(ax_tuner_ask(t, &i) == 0);
	AX_CHECK(ax_tuner_tell(t, i, AX_TRIAL_OK, a[i]) == AX_EINVAL);
	AX_CHECK(ax_tuner_tell2(t, i, AX_TRIAL_OK, a[i], b[i]) == 0);
	while (ax_tuner_ask(t, &i) == 0)
		AX_CHECK(ax_tuner_tell2(t, i, AX_TRIAL_OK, a[i], b[i]) == 0);
	size_t f[NX * NY];
	size_t k = ax_tuner_front(t, NX * NY, f);
	double lo_a = a[truth[0]], lo_b = b[truth[m - 1]];
	double ref_a = 1.1 * a[truth[m - 1]], ref_b = 1.1 * b[truth[0]];
	double whole =
	    ax_pareto_hypervolume(a, b, truth, m, lo_a, lo_b, ref_a, ref_b);
	double got =
	    ax_pareto_hypervolume(a, b, f, k, lo_a, lo_b, ref_a, ref_b);
	/* 40 of 120 points: bo's front covers nearly all of the true
	 * one's hypervolume. */
	AX_CHECK(got / whole > 0.95);
	/* best is the knee, first of top, and on the measured front. */
	size_t best, top[4];
	AX_CHECK(ax_tuner_best(t, &best, NULL) == 0);
	AX_CHECK(ax_tuner_top(t, 4, top) >= 1 && top[0] == best);
	int on = 0;
	for (size_t j = 0; j < k; j++)
		on |= f[j] == best;
	AX_CHECK(on);
	AX_CHECK(!isnan(ax_tuner_cost2(t, best)));
	ax_tuner_destroy(t);
	/* anneal walks one objective: refused, with the reason. */
	AX_CHECK(ax_tuner_create(&t, s, "anneal", 3, &o, err, sizeof(err)) ==
		 AX_EINVAL);
	AX_CHECK(strstr(err, "anneal walks one objective") != NULL);
	ax_space_destroy(s);
}

AX_TEST_MAIN(AX_TEST(test_front_matches_brute_force),
	     AX_TEST(test_knee_and_hypervolume),
	     AX_TEST(test_bo_finds_the_front))
