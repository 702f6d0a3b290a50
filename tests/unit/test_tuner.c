/* tests/unit/test_tuner.c - strategies, stopping rules and replay. */
#include "tuner/replay.h"
#include "tuner/strategy.h"

#include "core/error.h"

#include "ax_test.h"

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#define TINY "tests/fixtures/tuner/tiny.json"

static struct ax_landscape *tiny(void)
{
	struct ax_landscape *l = NULL;
	char err[512];
	int rc = ax_replay_load(TINY, &l, err, sizeof(err));
	if (rc)
		printf("# %s\n", err);
	return l;
}

static long find3(const struct ax_landscape *l, double bx, double ty,
		  double mode)
{
	double v[3] = {bx, ty, mode};
	return ax_space_find(l->space, v);
}

static void test_replay_load(void)
{
	struct ax_landscape *l = tiny(), *lz = NULL;
	char err[512];
	AX_CHECK(l != NULL);
	if (!l)
		return;
	AX_CHECK_INT(l->n, 105);
	AX_CHECK_INT(l->nfailed, 12);
	AX_CHECK_NEAR(l->optimum, 1.0, 1e-12);
	AX_CHECK_STR(l->kernel_name, "tiny");
	AX_CHECK_INT(ax_space_dim_kind(l->space, 0), AX_DIM_LOG2);
	AX_CHECK_INT(ax_space_dim_kind(l->space, 2), AX_DIM_CATEGORICAL);
	/* mode "b" is choice 1; the excluded configuration is absent. */
	AX_CHECK_INT(find3(l, 8, 4, 1), (long)l->opt_index);
	AX_CHECK_INT(find3(l, 32, 6, 0), -1);
	AX_CHECK(isnan(l->cost[find3(l, 32, 4, 1)]));
	AX_CHECK(isnan(l->cost[find3(l, 1, 2, 2)]));
	AX_CHECK_NEAR(l->cost[find3(l, 2, 5, 0)], 1 + 0.3 * 4 + 0.2 + 0.5,
		      1e-6);
	AX_CHECK_INT(ax_replay_load(TINY ".gz", &lz, err, sizeof(err)), 0);
	if (lz) {
		AX_CHECK_INT(lz->n, 105);
		AX_CHECK_NEAR(lz->optimum, l->optimum, 0);
	}
	ax_landscape_destroy(lz);
	ax_landscape_destroy(l);
}

/* Write text to a temporary file (gzip when gz), load it, return rc. */
static int load_text(const char *text, int gz, char *err, size_t n,
		     struct ax_landscape **out)
{
	char path[] = "/tmp/ax_tuner_testXXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -100;
	if (gz) {
		gzFile f = gzdopen(fd, "wb");
		gzwrite(f, text, (unsigned)strlen(text));
		gzclose(f);
	} else {
		ssize_t w = write(fd, text, strlen(text));
		(void)w;
		close(fd);
	}
	int rc = ax_replay_load(path, out, err, n);
	unlink(path);
	return rc;
}

#define HEAD                                                                   \
	"{\"tune_params_keys\": [\"a\"], \"tune_params\": {\"a\": [1, 2, "     \
	"3]}, \"cache\": {"

static void test_replay_hostile(void)
{
	struct ax_landscape *l = NULL;
	char err[512];
	/* Python's NaN / Infinity are failures, not errors. */
	AX_CHECK_INT(load_text(HEAD "\"1\": {\"a\": 1, \"time\": NaN}, "
				    "\"2\": {\"a\": 2, \"time\": Infinity}, "
				    "\"3\": {\"a\": 3, \"time\": 0.5}}}",
			       1, err, sizeof(err), &l),
		     0);
	if (l) {
		AX_CHECK_INT(l->nfailed, 2);
		AX_CHECK_NEAR(l->optimum, 0.5, 0);
	}
	ax_landscape_destroy(l);
	l = NULL;
	/* Negative and zero times are failures too; all failed: error. */
	AX_CHECK_INT(load_text(HEAD "\"1\": {\"a\": 1, \"time\": -1}, "
				    "\"2\": {\"a\": 2, \"time\": 0}}}",
			       0, err, sizeof(err), &l),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "no") || strstr(err, "none"));
	/* A value outside tune_params names the entry. */
	AX_CHECK_INT(load_text(HEAD "\"9\": {\"a\": 9, \"time\": 1}}}", 0, err,
			       sizeof(err), &l),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "\"9\"") != NULL);
	/* The same configuration under two keys. */
	AX_CHECK_INT(load_text(HEAD "\"1\": {\"a\": 1, \"time\": 1}, "
				    "\"x\": {\"a\": 1, \"time\": 2}}}",
			       0, err, sizeof(err), &l),
		     AX_EINVAL);
	/* Duplicate JSON keys, truncated JSON, not a cache file. */
	AX_CHECK_INT(load_text(HEAD "\"1\": {\"a\": 1, \"time\": 1}, "
				    "\"1\": {\"a\": 2, \"time\": 2}}}",
			       0, err, sizeof(err), &l),
		     AX_EINVAL);
	AX_CHECK_INT(
	    load_text(HEAD "\"1\": {\"a\": 1, \"ti", 1, err, sizeof(err), &l),
	    AX_EINVAL);
	AX_CHECK_INT(load_text("[1, 2, 3]", 0, err, sizeof(err), &l),
		     AX_EINVAL);
	AX_CHECK_INT(load_text("{\"cache\": {}}", 0, err, sizeof(err), &l),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "tune_params") != NULL);
	AX_CHECK_INT(
	    ax_replay_load("/nonexistent/x.json", &l, err, sizeof(err)),
	    AX_EIO);
	AX_CHECK(l == NULL);
}

/* Run a whole session recording the proposals. */
static size_t session(const struct ax_landscape *l, const char *strategy,
		      uint64_t seed, size_t budget, size_t *seq)
{
	struct ax_tuner *t;
	struct ax_tuner_options o;
	char err[256];
	ax_tuner_options_init(&o);
	o.budget = budget;
	o.stop_rule = AX_STOP_NONE;
	o.ei_threshold = 0;
	if (ax_tuner_create(&t, l->space, strategy, seed, &o, err, sizeof(err)))
		return 0;
	size_t n = 0, i;
	while (ax_tuner_ask(t, &i) == 0) {
		seq[n++] = i;
		double c = l->cost[i];
		AX_CHECK_INT(
		    ax_tuner_tell(t, i,
				  isnan(c) ? AX_TRIAL_FAILED : AX_TRIAL_OK, c),
		    0);
	}
	AX_CHECK(ax_tuner_stop_reason(t) != NULL);
	ax_tuner_destroy(t);
	return n;
}

static void test_deterministic_per_seed(void)
{
	struct ax_landscape *l = tiny();
	if (!l)
		return;
	const char *names[] = {"bo", "random", "anneal", "grid"};
	size_t a[105], b[105], c[105];
	for (int s = 0; s < 4; s++) {
		size_t na = session(l, names[s], 5, 40, a);
		size_t nb = session(l, names[s], 5, 40, b);
		AX_CHECK_INT(na, 40);
		AX_CHECK_INT(nb, 40);
		AX_CHECK(memcmp(a, b, sizeof(size_t) * 40) == 0);
		if (s < 3) { /* seeded strategies differ across seeds */
			session(l, names[s], 6, 40, c);
			AX_CHECK(memcmp(a, c, sizeof(size_t) * 40) != 0);
		}
	}
	ax_landscape_destroy(l);
}

/* Run every strategy to exhaustion: each point exactly once, failed
 * points never again, then AX_ENOTFOUND with a reason. */
static void test_never_reproposed(void)
{
	struct ax_landscape *l = tiny();
	if (!l)
		return;
	const char *const *names = ax_tuner_strategies();
	for (int s = 0; names[s]; s++) {
		size_t seq[105];
		unsigned char seen[105] = {0};
		size_t n = session(l, names[s], 3, 0, seq);
		AX_CHECK_INT(n, 105);
		for (size_t j = 0; j < n; j++) {
			AX_CHECK(!seen[seq[j]]);
			seen[seq[j]] = 1;
		}
	}
	/* Telling twice, or an index out of range, is refused. */
	struct ax_tuner *t;
	char err[256];
	AX_CHECK_INT(
	    ax_tuner_create(&t, l->space, "bo", 1, NULL, err, sizeof(err)), 0);
	size_t i;
	AX_CHECK_INT(ax_tuner_ask(t, &i), 0);
	AX_CHECK_INT(ax_tuner_tell(t, i, AX_TRIAL_FAILED, 0), 0);
	AX_CHECK_INT(ax_tuner_tell(t, i, AX_TRIAL_OK, 1.0), AX_EINVAL);
	AX_CHECK_INT(ax_tuner_tell(t, 105, AX_TRIAL_OK, 1.0), AX_EINVAL);
	for (int k = 0; k < 30; k++) {
		size_t j;
		AX_CHECK_INT(ax_tuner_ask(t, &j), 0);
		AX_CHECK(j != i);
		ax_tuner_tell(t, j, AX_TRIAL_FAILED, 0);
	}
	ax_tuner_destroy(t);
	AX_CHECK_INT(
	    ax_tuner_create(&t, l->space, "nope", 1, NULL, err, sizeof(err)),
	    AX_EINVAL);
	AX_CHECK(strstr(err, "bo, random") != NULL);
	ax_landscape_destroy(l);
}

static void test_bo_finds_optimum(void)
{
	struct ax_landscape *l = tiny();
	if (!l)
		return;
	double trace[40];
	struct ax_replay_result r;
	struct ax_tuner_options o;
	char err[256];
	ax_tuner_options_init(&o);
	o.budget = 40;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		AX_CHECK_INT(ax_replay_run(l, "bo", seed, &o, trace, 40, &r,
					   err, sizeof(err)),
			     0);
		AX_CHECK(r.evals <= 40);
		AX_CHECK_NEAR(r.best_found, 1.0, 1e-12);
		AX_CHECK_INT(r.best_index, l->opt_index);
		AX_CHECK(strstr(r.stop_reason, "budget") ||
			 strstr(r.stop_reason, "expected improvement"));
		for (size_t e = 1; e < r.evals; e++)
			AX_CHECK(trace[e] <= trace[e - 1]);
	}
	ax_landscape_destroy(l);
}

static void test_stopping_rules(void)
{
	struct ax_landscape *l = tiny();
	if (!l)
		return;
	struct ax_replay_result r;
	struct ax_tuner_options o;
	char err[256];
	ax_tuner_options_init(&o);
	o.budget = 17;
	ax_replay_run(l, "random", 1, &o, NULL, 0, &r, err, sizeof(err));
	AX_CHECK_INT(r.evals, 17);
	AX_CHECK_STR(r.stop_reason, "budget of 17 evaluations reached");
	/* "gain": grid walks index order; after the optimum no 1 % gain
	 * in 20 evaluations stops it well before the end. */
	ax_tuner_options_init(&o);
	o.stop_rule = AX_STOP_GAIN;
	ax_replay_run(l, "grid", 1, &o, NULL, 0, &r, err, sizeof(err));
	AX_CHECK(r.evals < 105);
	AX_CHECK(strstr(r.stop_reason, "no gain of 1%") != NULL);
	/* bo with the default "ei" rule: on this smooth landscape the model
	 * runs out of expected improvement long before the end. */
	ax_tuner_options_init(&o);
	ax_replay_run(l, "bo", 1, &o, NULL, 0, &r, err, sizeof(err));
	AX_CHECK(r.evals < 105);
	AX_CHECK(strstr(r.stop_reason, "expected improvement below") != NULL);
	AX_CHECK_NEAR(r.best_found, 1.0, 1e-12);
	/* A spent time limit stops before the first proposal. */
	ax_tuner_options_init(&o);
	o.time_limit_s = 1e-9;
	ax_replay_run(l, "random", 1, &o, NULL, 0, &r, err, sizeof(err));
	AX_CHECK_INT(r.evals, 0);
	AX_CHECK(strstr(r.stop_reason, "time limit") != NULL);
	ax_landscape_destroy(l);
}

/* Closed-form random search against cases worked by hand. */
static void test_random_expectation(void)
{
	struct ax_landscape *l = tiny();
	if (!l)
		return;
	double ex, med, p;
	/* k = N: the optimum is certainly found. */
	ax_replay_random_stats(l, l->n, &ex, &med, &p);
	AX_CHECK_NEAR(ex, 1, 1e-12);
	AX_CHECK_NEAR(med, 1, 1e-12);
	AX_CHECK_NEAR(p, 1, 1e-12);
	/* k = 1: the mean ratio over valid points (given a success), and
	 * P(within 5 %) = (#within) / N. */
	double sum = 0;
	int within = 0;
	for (size_t i = 0; i < l->n; i++)
		if (!isnan(l->cost[i])) {
			sum += l->cost[i] / l->optimum;
			within += l->cost[i] <= 1.05 * l->optimum;
		}
	ax_replay_random_stats(l, 1, &ex, &med, &p);
	AX_CHECK_NEAR(ex, sum / (l->n - l->nfailed), 1e-9);
	AX_CHECK_NEAR(p, (double)within / l->n, 1e-12);
	/* k = 2: P(miss the only point within 5 %) = (N-1)(N-2)/N(N-1). */
	ax_replay_random_stats(l, 2, NULL, NULL, &p);
	AX_CHECK_INT(within, 1);
	AX_CHECK_NEAR(p, 1 - (104.0 * 103) / (105.0 * 104), 1e-12);
	ax_landscape_destroy(l);
}

/* A 262 144-point space is above the exhaustive-EI limit: bo switches to
 * multi-start local search and must still beat blind luck by far. */
static const struct ax_param_def big_defs[] = {
    {"a", AX_PT_INT, 0, 7, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"b", AX_PT_INT, 0, 7, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"c", AX_PT_INT, 0, 7, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"d", AX_PT_INT, 0, 7, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"e", AX_PT_INT, 0, 7, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"f", AX_PT_INT, 0, 7, NULL, 0, AX_PARAM_TUNABLE, ""},
};

static void test_bo_large_space(void)
{
	struct ax_space *s;
	struct ax_tuner *t;
	char err[256];
	AX_CHECK_INT(ax_space_create_params(&s, big_defs, 6, NULL, NULL, 0, 1,
					    err, sizeof(err)),
		     0);
	AX_CHECK_INT(ax_space_size(s), 262144);
	struct ax_tuner_options o;
	ax_tuner_options_init(&o);
	o.budget = 45;
	o.stop_rule = AX_STOP_NONE;
	AX_CHECK_INT(ax_tuner_create(&t, s, "bo", 2, &o, err, sizeof(err)), 0);
	static unsigned char seen[262144];
	size_t i, n = 0;
	double best = INFINITY;
	while (ax_tuner_ask(t, &i) == 0) {
		AX_CHECK(!seen[i]);
		seen[i] = 1;
		double c = 1;
		for (int d = 0; d < 6; d++) {
			double v = ax_space_value(s, i, d) - 3;
			c += v * v / 10;
		}
		best = c < best ? c : best;
		ax_tuner_tell(t, i, AX_TRIAL_OK, c);
		n++;
	}
	printf("# best after %zu: %g (optimum 1; a random point: 4.3)\n", n,
	       best);
	AX_CHECK_INT(n, 45);
	AX_CHECK(best < 1.45);
	ax_tuner_destroy(t);
	/* Here the EI maximum is only sampled, so the "ei" rule never fires,
	 * even on a flat landscape past its minimum. */
	ax_tuner_options_init(&o);
	o.budget = 40;
	o.min_evals = 12;
	AX_CHECK_INT(ax_tuner_create(&t, s, "bo", 3, &o, err, sizeof(err)), 0);
	for (n = 0; ax_tuner_ask(t, &i) == 0; n++)
		ax_tuner_tell(t, i, AX_TRIAL_OK, 1 + 1e-6 * (double)(i % 7));
	AX_CHECK_INT(n, 40);
	AX_CHECK_STR(ax_tuner_stop_reason(t),
		     "budget of 40 evaluations reached");
	ax_tuner_destroy(t);
	ax_space_destroy(s);
}

/* Synthetic landscapes for the stop rules: three integer tunables 0..9
 * (1 000 points), cost a function of them. */
static const struct ax_param_def cube_defs[] = {
    {"a", AX_PT_INT, 0, 9, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"b", AX_PT_INT, 0, 9, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"c", AX_PT_INT, 0, 9, NULL, 0, AX_PARAM_TUNABLE, ""},
};

typedef double (*cost_fn)(const double *v);

/* Within 0.01 % everywhere: nothing left to gain once the model knows. */
static double flat_cost(const double *v)
{
	return 1 + 1e-5 * (double)(((int)(7 * v[0] + 3 * v[1] + v[2])) % 10);
}

/* A shallow bowl whose bottom is the far corner (9, 9, 9), 2 % below
 * its rim: nearly flat, but every step towards the corner pays, so a
 * better region stays likely until it is found. */
static double corner_cost(const double *v)
{
	double s = 0;
	for (int d = 0; d < 3; d++)
		s += (9 - v[d]) * (9 - v[d]);
	return 1 + 0.02 * s / 243;
}

/* A session of bo with stop rule under budget on the cube; returns the
 * evaluations made, the best cost into *best and the reason into why. */
static size_t cube_session(cost_fn f, enum ax_stop_rule rule, uint64_t seed,
			   size_t budget, double *best, char *why,
			   size_t whylen)
{
	struct ax_space *s;
	struct ax_tuner *t;
	struct ax_tuner_options o;
	char err[256];
	*best = INFINITY;
	if (ax_space_create_params(&s, cube_defs, 3, NULL, NULL, 0, 1, err,
				   sizeof(err)))
		return 0;
	ax_tuner_options_init(&o);
	o.budget = budget;
	o.stop_rule = rule;
	AX_CHECK_INT(ax_tuner_create(&t, s, "bo", seed, &o, err, sizeof(err)),
		     0);
	size_t i, n = 0;
	while (ax_tuner_ask(t, &i) == 0) {
		double v[3];
		for (int d = 0; d < 3; d++)
			v[d] = ax_space_value(s, i, d);
		double c = f(v);
		*best = c < *best ? c : *best;
		ax_tuner_tell(t, i, AX_TRIAL_OK, c);
		n++;
	}
	snprintf(why, whylen, "%s", ax_tuner_stop_reason(t));
	ax_tuner_destroy(t);
	ax_space_destroy(s);
	return n;
}

/* "ei" stops a flat landscape early, but never before its minimum. */
static void test_ei_rule_stops_on_flat(void)
{
	char why[160];
	double best;
	size_t least = 0;
	struct ax_space *s;
	char err[256];
	if (!ax_space_create_params(&s, cube_defs, 3, NULL, NULL, 0, 1, err,
				    sizeof(err))) {
		least = ax_tuner_min_evals(s, 0);
		ax_space_destroy(s);
	}
	AX_CHECK_INT(least, 30); /* 10 per varying parameter */
	for (uint64_t seed = 1; seed <= 3; seed++) {
		size_t n = cube_session(flat_cost, AX_STOP_EI, seed, 200, &best,
					why, sizeof(why));
		printf("# flat, seed %llu: stopped after %zu: %s\n",
		       (unsigned long long)seed, n, why);
		AX_CHECK(n >= least && n < 100);
		AX_CHECK(strstr(why, "expected improvement below") != NULL);
	}
	/* "none" ignores the model and spends the budget. */
	size_t n = cube_session(flat_cost, AX_STOP_NONE, 1, 60, &best, why,
				sizeof(why));
	AX_CHECK_INT(n, 60);
	AX_CHECK_STR(why, "budget of 60 evaluations reached");
}

/* ... and does not stop while a better region is still likely: on the
 * bowl every session reaches the bottom before it stops. */
static void test_ei_rule_waits_for_better_region(void)
{
	char why[160];
	double best;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		size_t n = cube_session(corner_cost, AX_STOP_EI, seed, 300,
					&best, why, sizeof(why));
		printf("# corner, seed %llu: %zu evaluations, best %g: %s\n",
		       (unsigned long long)seed, n, best, why);
		AX_CHECK_NEAR(best, 1.0, 1e-12);
	}
}

/* Stop rules by name; "none" runs to the budget on the flat cube, and in
 * a space too large to scan "ei" never fires (its EI is only sampled). */
static void test_stop_rule_names(void)
{
	enum ax_stop_rule r;
	char err[128];
	AX_CHECK_INT(ax_stop_rule_parse("gain", &r, err, sizeof(err)), 0);
	AX_CHECK_INT(r, AX_STOP_GAIN);
	AX_CHECK_INT(ax_stop_rule_parse("none", &r, err, sizeof(err)), 0);
	AX_CHECK_INT(r, AX_STOP_NONE);
	AX_CHECK_INT(ax_stop_rule_parse("ei", &r, err, sizeof(err)), 0);
	AX_CHECK_INT(r, AX_STOP_EI);
	AX_CHECK_INT(ax_stop_rule_parse("patience", &r, err, sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "'patience'") && strstr(err, "ei, gain or none"));
	AX_CHECK_STR(ax_stop_rule_name(AX_STOP_EI), "ei");
	struct ax_tuner_options o;
	ax_tuner_options_init(&o);
	AX_CHECK_INT(o.stop_rule, AX_STOP_EI);
}

/* Five tunables 0..5 (7 776 points): bo's local proposals. */
static const struct ax_param_def five_defs[] = {
    {"a", AX_PT_INT, 0, 5, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"b", AX_PT_INT, 0, 5, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"c", AX_PT_INT, 0, 5, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"d", AX_PT_INT, 0, 5, NULL, 0, AX_PARAM_TUNABLE, ""},
    {"e", AX_PT_INT, 0, 5, NULL, 0, AX_PARAM_TUNABLE, ""},
};

static int differing(const struct ax_space *s, size_t i, size_t j)
{
	int n = 0;
	for (int d = 0; d < ax_space_ndims(s); d++)
		n += ax_space_value(s, i, d) != ax_space_value(s, j, d);
	return n;
}

/* local_every 3: after the initial design of 10, every third model
 * proposal differs from the best point measured so far in at most two
 * parameters. */
static void test_bo_local_every_third(void)
{
	struct ax_space *s;
	struct ax_tuner *t;
	char err[256];
	AX_CHECK_INT(ax_space_create_params(&s, five_defs, 5, NULL, NULL, 0, 1,
					    err, sizeof(err)),
		     0);
	struct ax_tuner_options o;
	ax_tuner_options_init(&o);
	AX_CHECK_INT(o.local_every, 0);
	o.local_every = 3;
	o.budget = 60;
	o.stop_rule = AX_STOP_NONE;
	AX_CHECK_INT(ax_tuner_create(&t, s, "bo", 4, &o, err, sizeof(err)), 0);
	size_t i, n = 0, best = 0, far = 0;
	double best_cost = INFINITY;
	for (; ax_tuner_ask(t, &i) == 0; n++) {
		if (n >= 10 && (n - 10) % 3 == 2 && differing(s, i, best) > 2)
			far++;
		double c = 1;
		for (int d = 0; d < 5; d++) {
			double v = ax_space_value(s, i, d) - 1 - 0.5 * (d % 3);
			c += v * v * (1 + d);
		}
		if (c < best_cost) {
			best_cost = c;
			best = i;
		}
		ax_tuner_tell(t, i, AX_TRIAL_OK, c);
	}
	AX_CHECK_INT(n, 60);
	AX_CHECK_INT(far, 0);
	ax_tuner_destroy(t);
	ax_space_destroy(s);
}

AX_TEST_MAIN(AX_TEST(test_bo_large_space), AX_TEST(test_replay_load),
	     AX_TEST(test_replay_hostile), AX_TEST(test_deterministic_per_seed),
	     AX_TEST(test_never_reproposed), AX_TEST(test_bo_finds_optimum),
	     AX_TEST(test_stopping_rules), AX_TEST(test_random_expectation),
	     AX_TEST(test_ei_rule_stops_on_flat),
	     AX_TEST(test_ei_rule_waits_for_better_region),
	     AX_TEST(test_stop_rule_names), AX_TEST(test_bo_local_every_third))
