/* tests/unit/test_prior.c - transfer: another session's trials as a prior
 * for bo (tuner/prior.h), on synthetic correlated landscapes. */
#include "tuner/prior.h"
#include "tuner/replay.h"
#include "tuner/strategy.h"

#include "core/error.h"

#include "ax_test.h"

#define TINY "tests/fixtures/tuner/tiny.json"

/* A 16 x 12 x 8 grid: x and y are positions, z a third knob. */
#define NX 16
#define NY 12
#define NZ 8
#define NPTS (NX * NY * NZ)

static const char *const names[3] = {"x", "y", "z"};

/* A small deterministic wobble per point, so no landscape is smooth. */
static double wobble(int i, unsigned salt)
{
	unsigned h = (unsigned)i * 2654435761u ^ (salt * 40503u);
	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return (double)(h % 1000) / 1000.0;
}

/* A bowl with its bottom at (ox, oy, oz): cost 1 there, growing as the
 * product of the distances, so the one-parameter slices mislead. */
static double bowl(int x, int y, int z, int ox, int oy, int oz, double scale,
		   unsigned salt, int i)
{
	double dx = (x - ox) / (double)NX, dy = (y - oy) / (double)NY,
	       dz = (z - oz) / (double)NZ;
	double r2 = 3 * dx * dx + 2 * dy * dy + dz * dz + 4 * fabs(dx * dy);
	return scale * (1 + 6 * r2 + 0.03 * wobble(i, salt));
}

struct land {
	struct ax_space *s;
	double cost[NPTS];
	double vals[NPTS * 3];
	double opt;
};

static int make_land(struct land *l, int ox, int oy, int oz, double scale,
		     unsigned salt)
{
	char err[256];
	int i = 0;
	l->opt = INFINITY;
	for (int x = 0; x < NX; x++)
		for (int y = 0; y < NY; y++)
			for (int z = 0; z < NZ; z++, i++) {
				l->vals[i * 3] = x;
				l->vals[i * 3 + 1] = y;
				l->vals[i * 3 + 2] = z;
				l->cost[i] =
				    bowl(x, y, z, ox, oy, oz, scale, salt, i);
				if (l->cost[i] < l->opt)
					l->opt = l->cost[i];
			}
	int rc = ax_space_create_points(&l->s, 3, names, NULL, l->vals, NPTS,
					err, sizeof(err));
	if (rc)
		printf("# %s\n", err);
	return rc;
}

/* The trials of a bo session of budget evaluations on l: what a user who
 * tuned that device first has stored. */
static size_t session_on(const struct land *l, uint64_t seed, size_t budget,
			 double *vals, double *cost)
{
	struct ax_tuner *t;
	struct ax_tuner_options o;
	char err[256];
	size_t n = 0, i;
	ax_tuner_options_init(&o);
	o.budget = budget;
	o.stop_rule = AX_STOP_NONE;
	if (ax_tuner_create(&t, l->s, "bo", seed, &o, err, sizeof(err)))
		return 0;
	while (ax_tuner_ask(t, &i) == 0) {
		memcpy(vals + n * 3, l->vals + i * 3, 3 * sizeof(double));
		cost[n++] = l->cost[i];
		ax_tuner_tell(t, i, AX_TRIAL_OK, l->cost[i]);
	}
	ax_tuner_destroy(t);
	return n;
}

/* Evaluations until within 5 % of l's optimum (budget + 1 if never). */
static size_t evals_to5(const struct land *l, const struct ax_prior *p,
			uint64_t seed, size_t budget)
{
	struct ax_tuner *t;
	struct ax_tuner_options o;
	char err[256];
	size_t n = 0, i;
	ax_tuner_options_init(&o);
	o.budget = budget;
	o.stop_rule = AX_STOP_NONE;
	o.prior = p;
	if (ax_tuner_create(&t, l->s, "bo", seed, &o, err, sizeof(err))) {
		printf("# %s\n", err);
		return budget + 1;
	}
	size_t hit = budget + 1;
	while (hit > budget && ax_tuner_ask(t, &i) == 0) {
		n++;
		ax_tuner_tell(t, i, AX_TRIAL_OK, l->cost[i]);
		if (l->cost[i] <= 1.05 * l->opt)
			hit = n;
	}
	ax_tuner_destroy(t);
	return hit;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Median over seeds 1..7 of evals_to5, cold (other NULL) or with a prior
 * from a 60-evaluation session on other. */
static size_t median_to5(const struct land *target, const struct land *other,
			 size_t budget)
{
	size_t e[7];
	static double vals[NPTS * 3], cost[NPTS];
	for (int k = 0; k < 7; k++) {
		struct ax_prior *p = NULL;
		char err[256];
		if (other) {
			size_t n = session_on(other, (uint64_t)k + 100, 60,
					      vals, cost);
			if (ax_prior_create(&p, target->s, 3, names, vals, cost,
					    n, 1, err, sizeof(err)))
				printf("# %s\n", err);
		}
		e[k] = evals_to5(target, p, (uint64_t)k + 1, budget);
		ax_prior_destroy(p);
	}
	qsort(e, 7, sizeof(size_t), cmp_size);
	return e[3];
}

/* Two devices alike: the other's optimum one step off, its times 3x and
 * its wobble its own.  The prior must at least halve the evaluations. */
static void test_prior_halves_evaluations(void)
{
	static struct land a, b;
	if (make_land(&a, 11, 3, 5, 1.0, 1) || make_land(&b, 12, 3, 5, 3.0, 2))
		return;
	size_t cold = median_to5(&a, NULL, 200);
	size_t warm = median_to5(&a, &b, 200);
	printf("# correlated: median evaluations to 5 %%: cold %zu, prior "
	       "%zu\n",
	       cold, warm);
	AX_CHECK(warm <= 200);
	AX_CHECK(2 * warm <= cold);
	ax_space_destroy(a.s);
	ax_space_destroy(b.s);
}

/* A prior whose optimum is in the opposite corner: the data set it aside
 * and every session still reaches the optimum, at little extra cost. */
static void test_misleading_prior_recovers(void)
{
	static struct land a, b;
	if (make_land(&a, 11, 3, 5, 1.0, 1) || make_land(&b, 1, 10, 1, 1.0, 3))
		return;
	size_t cold = median_to5(&a, NULL, 200);
	size_t warm = median_to5(&a, &b, 200);
	printf("# misleading: median evaluations to 5 %%: cold %zu, prior "
	       "%zu\n",
	       cold, warm);
	AX_CHECK(warm <= 200);
	AX_CHECK(warm <= cold + cold / 2 + 5);
	ax_space_destroy(a.s);
	ax_space_destroy(b.s);
}

/* Another parameter set is refused, naming what differs on each side. */
static void test_other_space_refused(void)
{
	static struct land a;
	struct ax_prior *p = NULL;
	char err[512];
	double vals[6 * 3] = {0}, cost[6] = {1, 2, 3, 4, 5, 6};
	const char *other[3] = {"x", "y", "w"};
	if (make_land(&a, 3, 3, 3, 1.0, 1))
		return;
	AX_CHECK_INT(ax_prior_create(&p, a.s, 3, other, vals, cost, 6, 1, err,
				     sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(p == NULL);
	printf("# %s\n", err);
	AX_CHECK(strstr(err, "only here: z") != NULL);
	AX_CHECK(strstr(err, "only in the prior: w") != NULL);
	/* Fewer dimensions on the other side: refused too. */
	AX_CHECK_INT(ax_prior_create(&p, a.s, 2, other, vals, cost, 6, 1, err,
				     sizeof(err)),
		     AX_EINVAL);
	ax_space_destroy(a.s);
}

/* Values this space lacks are left out, failures counted apart, order of
 * the other session's columns free; fewer than 5 successes refused. */
static void test_mapping_and_too_few(void)
{
	static struct land a;
	struct ax_prior *p = NULL;
	char err[512];
	/* Columns in another order: z, x, y. */
	const char *order[3] = {"z", "x", "y"};
	double vals[8 * 3] = {
	    0, 11, 3, /* the other's best: a point here */
	    1, 10, 3, 2, 9, 4,	3, 8,
	    5, 4,  7, 6, 0, 40, 0, /* x = 40 is no level here: left out */
	    0, 0,  0, 1, 1, 1,	   /* failures */
	};
	double cost[8] = {1, 2, 3, 4, 5, 1.5, NAN, -1};
	if (make_land(&a, 3, 3, 3, 1.0, 1))
		return;
	AX_CHECK_INT(ax_prior_create(&p, a.s, 3, order, vals, cost, 8, 1, err,
				     sizeof(err)),
		     0);
	if (p) {
		size_t top[AX_PRIOR_TOP];
		double want[3] = {11, 3, 0};
		AX_CHECK_INT(ax_prior_used(p), 5);
		AX_CHECK_INT(ax_prior_left_out(p), 1);
		AX_CHECK_INT(ax_prior_failed(p), 2);
		AX_CHECK_INT(ax_prior_top(p, AX_PRIOR_TOP, top), 5);
		AX_CHECK_INT((long)top[0], ax_space_find(a.s, want));
		/* The mean is lower at the other's best than at its worst. */
		double worst[3] = {7, 6, 4};
		AX_CHECK(ax_prior_mean(p, top[0]) <
			 ax_prior_mean(p, (size_t)ax_space_find(a.s, worst)));
	}
	ax_prior_destroy(p);
	p = NULL;
	AX_CHECK_INT(ax_prior_create(&p, a.s, 3, order, vals, cost, 4, 1, err,
				     sizeof(err)),
		     AX_EINVAL);
	printf("# %s\n", err);
	AX_CHECK(strstr(err, "only 4 of the prior's evaluations") != NULL);
	AX_CHECK(strstr(err, "at least 5") != NULL);
	ax_space_destroy(a.s);
}

/* Same seed and prior, same session; the tuner refuses a prior built for
 * another space; the prior's best points are measured first. */
static void test_deterministic_and_first_points(void)
{
	static struct land a, b, c;
	static double vals[60 * 3], cost[60];
	struct ax_prior *p = NULL;
	struct ax_tuner *t = NULL;
	struct ax_tuner_options o;
	char err[256];
	if (make_land(&a, 11, 3, 5, 1.0, 1) ||
	    make_land(&b, 12, 3, 5, 3.0, 2) || make_land(&c, 1, 1, 1, 1.0, 4))
		return;
	size_t n = session_on(&b, 7, 60, vals, cost);
	AX_CHECK_INT(ax_prior_create(&p, a.s, 3, names, vals, cost, n, 1, err,
				     sizeof(err)),
		     0);
	AX_CHECK_INT(evals_to5(&a, p, 3, 200), evals_to5(&a, p, 3, 200));
	ax_tuner_options_init(&o);
	o.prior = p;
	AX_CHECK_INT(ax_tuner_create(&t, c.s, "bo", 1, &o, err, sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(t == NULL);
	AX_CHECK_INT(ax_tuner_create(&t, a.s, "bo", 1, &o, err, sizeof(err)),
		     0);
	size_t top[AX_PRIOR_TOP], k = ax_prior_top(p, AX_PRIOR_TOP, top);
	AX_CHECK_INT(k, AX_PRIOR_TOP);
	for (size_t j = 0; t && j < k; j++) {
		size_t i = 0;
		AX_CHECK_INT(ax_tuner_ask(t, &i), 0);
		AX_CHECK_INT(i, top[j]);
		ax_tuner_tell(t, i, AX_TRIAL_OK, a.cost[i]);
	}
	ax_tuner_destroy(t);
	ax_prior_destroy(p);
	ax_space_destroy(a.s);
	ax_space_destroy(b.s);
	ax_space_destroy(c.s);
}

/* The replay path: a bo session on another landscape file as the prior;
 * here the same tiny file, which is the most correlated prior there is. */
static void test_replay_prior(void)
{
	struct ax_landscape *l = NULL;
	struct ax_prior *p = NULL;
	char err[512];
	if (ax_replay_load(TINY, &l, err, sizeof(err))) {
		printf("# %s\n", err);
		AX_CHECK(0);
		return;
	}
	AX_CHECK_INT(ax_replay_prior(l, l, 1, 30, &p, err, sizeof(err)), 0);
	if (p) {
		AX_CHECK(ax_prior_used(p) >= AX_PRIOR_MIN_OK);
		AX_CHECK_INT(ax_prior_used(p) + ax_prior_failed(p) +
				 ax_prior_left_out(p),
			     30);
		size_t top[1];
		AX_CHECK_INT(ax_prior_top(p, 1, top), 1);
		AX_CHECK_INT((long)top[0], (long)l->opt_index);
	}
	ax_prior_destroy(p);
	ax_landscape_destroy(l);
}

AX_TEST_MAIN(AX_TEST(test_prior_halves_evaluations),
	     AX_TEST(test_misleading_prior_recovers),
	     AX_TEST(test_other_space_refused),
	     AX_TEST(test_mapping_and_too_few),
	     AX_TEST(test_deterministic_and_first_points),
	     AX_TEST(test_replay_prior))
