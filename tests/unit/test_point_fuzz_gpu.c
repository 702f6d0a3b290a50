/*
 * tests/unit/test_point_fuzz_gpu.c - the suites' own checks against their
 * kernels: random points of every tunable suite, drawn from the space
 * `axbench tune` searches (every point that ax_params_check and the
 * suite's check accept on this device), on small shapes, must verify.  A
 * point the check accepts but the kernel computes wrongly is a point the
 * tuner would try and lose a trial on - or, worse, one `run` accepts.
 *
 * The seed is fixed, so the same points are drawn on every run; a time
 * bound stops the draw early on a slow machine (and says so) rather than
 * let the test run long.  Validation-layer messages fail the test.
 */
#include "ax_gpu_test.h"

#include "suites/registry.h"
#include "tuner/space.h"

#include <time.h>

#define FUZZ_SEED 12
#define FUZZ_TIME_BOUND_S 50.0

/* A small shape per tunable suite, with odd sizes where the suite allows
 * them so that edge tiles are exercised.  A new tunable suite must add
 * its own (the test fails until it does). */
static const struct fuzz_shape {
	const char *suite;
	int points;
	const char *kv[16];
} shapes[] = {
    /* One shape of each suite first, so that a time bound reached on a
     * loaded machine still leaves every suite fuzzed; then more shapes. */
    {"gemm", 8, {"m", "37", "n", "52", "k", "21", NULL}},
    {"attention",
     6,
     {"heads", "1", "seq_q", "19", "seq_kv", "33", "head_dim", "64", NULL}},
    {"conv", 6, {"c", "5", "h", "9", "w", "7", "k", "6", "pad", "1", NULL}},
    {"bandwidth", 4, {"op", "copy", "size", "64K", NULL}},
    {"reduce", 4, {"size", "64K", NULL}},
    {"peak", 3, {"iters", "64", NULL}},
    {"transfer", 2, {"chunk", "64K", "total", "256K", NULL}},
    {"ingest", 3, {"size", "1M", NULL}},
    {"fill", 3, {"size", "64K", NULL}},
    {"roofline", 3, {"size", "64K", "fma", "3", NULL}},
    /* Model layers: odd token counts and image sizes for the edge tiles
     * of every product; offline, so a point is not 200 timed passes. */
    {"decoder",
     2,
     {"scale", "32", "tokens", "7", "depth", "5", "scenario", "offline", NULL}},
    {"encoder", 2, {"scale", "8", "tokens", "9", "scenario", "offline", NULL}},
    {"resnet", 2, {"scale", "8", "size", "5", "scenario", "offline", NULL}},
    {"gemm",
     4,
     {"m", "20", "n", "12", "k", "33", "batch", "2", "trans_a", "true",
      "trans_b", "true", NULL}},
    {"gemm",
     3,
     {"m", "29", "n", "40", "k", "18", "dtype", "f16", "trans_b", "true",
      NULL}},
    {"attention",
     4,
     {"heads", "2", "seq_q", "9", "seq_kv", "9", "head_dim", "32", "causal",
      "true", NULL}},
    {"attention",
     2,
     {"heads", "1", "seq_q", "11", "seq_kv", "17", "head_dim", "64", "dtype",
      "f16", NULL}},
    {"conv",
     4,
     {"c", "3", "h", "8", "w", "8", "k", "5", "stride", "2", "layout", "nhwc",
      NULL}},
    {"conv", 2, {"c", "4", "h", "6", "w", "5", "k", "3", "dtype", "f16", NULL}},
    {"bandwidth", 2, {"op", "read", "size", "16K", NULL}},
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* splitmix64: a fixed, portable sequence for a fixed seed. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct fuzz_ctx {
	const struct ax_suite *suite;
	const struct ax_params *shape;
};

/* The shape's values with point t's tunables. */
static void merge(const struct fuzz_ctx *c, const struct ax_params *t,
		  struct ax_params *p)
{
	*p = *c->shape;
	for (int k = 0; k < p->n; k++)
		if (p->defs[k].flags & AX_PARAM_TUNABLE)
			p->v[k] = t->v[k];
}

/* Exactly what `axbench tune` and `axbench run` accept (app/tune_live.c
 * point_valid, suites/runner.c check_point). */
static int valid(const struct ax_params *t, void *vctx, char *why, size_t n)
{
	const struct fuzz_ctx *c = vctx;
	struct ax_params p;
	merge(c, t, &p);
	int rc = ax_params_check(&p, why, n);
	if (rc == 0 && c->suite->check)
		rc = c->suite->check(&p, vk->info, why, n);
	return rc;
}

static const struct fuzz_shape *shape_of(const struct ax_suite *s)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (strcmp(shapes[i].suite, s->name) == 0)
			return &shapes[i];
	return NULL;
}

static bool tunable(const struct ax_suite *s)
{
	for (int k = 0; k < s->n_params; k++)
		if (s->params[k].flags & AX_PARAM_TUNABLE)
			return true;
	return false;
}

/* One point: it must verify, and measure. */
static void run_point(const struct ax_suite *s, const struct ax_params *p)
{
	struct ax_runner_opts o;
	struct ax_runner_result r;
	char label[512];
	ax_runner_opts_default(&o);
	o.warmup = 1, o.min_samples = 1, o.max_samples = 2;
	o.min_time_s = 0, o.max_time_s = 0.2;
	int before = ax_vk_validation_messages(inst);
	int rc = ax_runner_run_case(vk, s, p, &o, &r);
	int messages = ax_vk_validation_messages(inst) - before;
	ax_params_label(p, 0, label, sizeof(label));
	printf("#   %s %s: %s%s%s\n", s->name, label, r.status_text,
	       rc ? " - " : "", rc ? r.error : "");
	if (messages)
		printf("#   ^ %d validation message(s)\n", messages);
	AX_CHECK_INT(rc, 0);
	AX_CHECK_INT(messages, 0);
	ax_runner_result_release(&r);
}

/* Draw f->points random valid points of s on its small shape. */
static void fuzz_suite(const struct ax_suite *s, const struct fuzz_shape *f,
		       uint64_t *rng, double deadline)
{
	struct ax_params shape;
	struct ax_space *space;
	char err[512];
	ax_gpu_point(&shape, s, f->kv);
	struct fuzz_ctx c = {s, &shape};
	int rc = ax_space_create_case(&space, &shape, valid, &c, 0, FUZZ_SEED,
				      err, sizeof(err));
	if (rc)
		printf("#   %s: %s\n", s->name, err);
	AX_CHECK_INT(rc, 0);
	if (rc)
		return;
	for (int j = 0; j < f->points && now_s() < deadline; j++) {
		struct ax_params t, p;
		size_t i = next_random(rng) % ax_space_size(space);
		ax_space_point_params(space, i, &t);
		merge(&c, &t, &p);
		run_point(s, &p);
	}
	ax_space_destroy(space);
}

static void test_random_valid_points_verify(void)
{
	AX_NEED_DEVICE();
	uint64_t rng = FUZZ_SEED;
	double deadline = now_s() + FUZZ_TIME_BOUND_S;
	for (int i = 0; i < ax_suite_count; i++) {
		const struct ax_suite *s = ax_suites[i];
		if (tunable(s) && !shape_of(s)) {
			printf("#   %s is tunable but has no small shape "
			       "here\n",
			       s->name);
			AX_CHECK(false);
		}
	}
	for (size_t j = 0; j < sizeof(shapes) / sizeof(shapes[0]); j++) {
		const struct ax_suite *s = ax_suite_find(shapes[j].suite);
		AX_CHECK(s != NULL);
		if (s)
			fuzz_suite(s, &shapes[j], &rng, deadline);
	}
	if (now_s() >= deadline)
		printf("#   time bound of %.0f s reached: later points not "
		       "drawn\n",
		       FUZZ_TIME_BOUND_S);
}

/* The point of issue 12 that computed a wrong C: refused with the
 * reason before anything is built. */
static void test_gemm_subgroup_narrow_rows_refused(void)
{
	AX_NEED_DEVICE();
	extern const struct ax_suite ax_suite_gemm;
	static const char *const kv[] = {
	    "m",   "256", "n",	   "256",      "k", "256",  "bm",
	    "32",  "bk",  "2",	   "wg_x",     "2", "wg_y", "4",
	    "vec", "1",	  "share", "subgroup", NULL};
	struct ax_params p;
	char why[512] = "";
	ax_gpu_point(&p, &ax_suite_gemm, kv);
	AX_CHECK_INT(ax_params_check(&p, why, sizeof(why)), 0);
	int rc = ax_suite_gemm.check(&p, vk->info, why, sizeof(why));
	printf("#   %s\n", why);
	AX_CHECK(rc != 0);
	AX_CHECK(strstr(why, "wg_x=2 must be a multiple of the subgroup "
			     "size") != NULL);
}

AX_TEST_MAIN(AX_TEST(test_open),
	     AX_TEST(test_gemm_subgroup_narrow_rows_refused),
	     AX_TEST(test_random_valid_points_verify),
	     AX_TEST(test_no_validation_messages), AX_TEST(test_close))
