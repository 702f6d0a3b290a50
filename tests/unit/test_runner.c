/*
 * tests/unit/test_runner.c - the runner's stop rules, statuses and timing
 * modes on the real Vulkan device (without one each test skips, with the
 * reason).
 *
 * A small host-timed suite defined here spins for a fixed time per
 * repetition: its samples are steady, so the noise rule, the sample cap,
 * the time limit and the stop flag can each be made to decide.  A real
 * suite (bandwidth) checks the GPU-timestamp path.
 */
#include "ax_test.h"

#include "core/error.h"
#include "suites/registry.h"
#include "suites/runner.h"

#include <math.h>
#include <string.h>
#include <time.h>

static struct ax_vk_instance *inst;
static struct ax_vk_ctx *vk;
static char no_device[512]; /* why open_device found none */

/* Every test needs the device: without one it skips with the reason. */
#define NEED_DEVICE()                                                          \
	do {                                                                   \
		if (!vk)                                                       \
			AX_SKIP("no Vulkan device: %s", no_device);            \
	} while (0)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const verdicts[] = {"pass", "fail", "invalid", "unsupported",
				       NULL};
static const struct ax_param_def spin_params[] = {
    {"us", AX_PT_INT, 1, 100000, NULL, 100, AX_PARAM_SHAPE,
     "microseconds per repetition"},
    {"verdict", AX_PT_ENUM, 0, 0, verdicts, 0, AX_PARAM_SHAPE,
     "what verify / check answer"},
};

struct spin {
	double seconds;
	int verdict;
};

static int spin_check(const struct ax_params *p,
		      const struct ax_vk_device_info *dev, char *why, size_t n)
{
	int64_t v = ax_params_get(p, "verdict");
	if (v == 2)
		return ax_errf(why, n, AX_EINVAL, "spin: invalid on purpose");
	if (v == 3)
		return ax_errf(why, n, AX_EUNSUPPORTED, "spin: no feature");
	return 0;
}

static int spin_setup(struct ax_vk_ctx *v, const struct ax_params *p,
		      void **state, char *err, size_t n)
{
	struct spin *s = calloc(1, sizeof(*s));
	s->seconds = (double)ax_params_get(p, "us") / 1e6;
	s->verdict = (int)ax_params_get(p, "verdict");
	*state = s;
	return 0;
}

static int spin_op(void *state, char *err, size_t n)
{
	struct spin *s = state;
	double end = now_s() + s->seconds;
	while (now_s() < end)
		;
	return 0;
}

static int spin_verify(void *state, char *why, size_t n)
{
	struct spin *s = state;
	if (s->verdict == 1)
		return ax_errf(why, n, AX_EVERIFY, "spin: wrong on purpose");
	return 0;
}

static double spin_work(const struct ax_params *p) { return 1.0; }

static void spin_teardown(struct ax_vk_ctx *v, void *state) { free(state); }

static const struct ax_suite spin_suite = {
    .name = "spin",
    .summary = "busy-waits a fixed time (test suite)",
    .work_model = "one op per repetition",
    .unit = "op/s",
    .metric = AX_METRIC_RATE,
    .scale = 1,
    .higher_is_better = true,
    .params = spin_params,
    .n_params = 2,
    .check = spin_check,
    .setup = spin_setup,
    .host_op = spin_op,
    .verify = spin_verify,
    .work = spin_work,
    .teardown = spin_teardown,
};

static void run_spin(int us, int verdict, const struct ax_runner_opts *o,
		     struct ax_runner_result *r)
{
	struct ax_params p;
	ax_params_init(&p, spin_params, 2);
	p.v[0] = us;
	p.v[1] = verdict;
	ax_runner_run_case(vk, &spin_suite, &p, o, r);
}

static void test_noise_rule_stops_early(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	struct ax_runner_result r;
	ax_runner_opts_default(&o);
	/* Any noise meets this target, so the rule must stop at the first
	 * sample it may: min_samples, whatever the machine's load does to
	 * the spread (test_sample_cap shows an unreachable target does not
	 * stop). */
	o.max_noise = 1e9;
	o.max_samples = 5000;
	o.min_time_s = 0;
	o.max_time_s = 1e6;
	run_spin(200, 0, &o, &r);
	AX_CHECK_INT(r.status, 0);
	AX_CHECK_STR(r.stop_reason, "noise");
	AX_CHECK_INT(r.n, o.min_samples);
	AX_CHECK_STR(r.timing_mode, "host");
	/* A 200 us op: at most 5000 op/s on any machine (a preempted spin
	 * only lasts longer), and a positive rate. */
	AX_CHECK(r.summary.median > 0 && r.summary.median <= 5000 * 1.001);
	ax_runner_result_release(&r);
}

static void test_sample_cap(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	struct ax_runner_result r;
	ax_runner_opts_default(&o);
	/* The noise rule never stops: even identical samples (a coarse
	 * clock can give two) have a relative noise of 0, not below 0. */
	o.max_noise = -1;
	o.min_samples = 3;
	o.max_samples = 7;
	o.max_time_s = 60;
	run_spin(50, 0, &o, &r);
	AX_CHECK_INT(r.status, 0);
	AX_CHECK_STR(r.stop_reason, "max-samples");
	AX_CHECK_INT(r.n, 7);
	ax_runner_result_release(&r);
}

static void test_time_limit(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	struct ax_runner_result r;
	ax_runner_opts_default(&o);
	o.max_noise = -1; /* never stops, as in test_sample_cap */
	o.min_samples = 2;
	o.max_samples = 100000;
	o.min_time_s = 0;
	o.max_time_s = 0.05;
	run_spin(100, 0, &o, &r);
	AX_CHECK_INT(r.status, 0);
	/* 100000 samples of at least 100 us would take 10 s or more: the
	 * stop reason and the count show that the limit decided, on any
	 * machine and with any clock, without timing the test itself. */
	AX_CHECK_STR(r.stop_reason, "time-limit");
	AX_CHECK(r.n >= 2 && r.n < 100000);
	ax_runner_result_release(&r);
}

static void test_batch_reps_reach_target(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	struct ax_runner_result r;
	ax_runner_opts_default(&o);
	o.target_sample_s = 0.02;
	o.max_samples = 5;
	run_spin(10, 0, &o, &r);
	/* 20 ms of 10 us repetitions: at most 2000 per sample, since a
	 * repetition never lasts less than 10 us.  At least 20 unless all
	 * three probes took over 1 ms, i.e. the scheduler preempted each of
	 * three 10 us spins: the fastest probe decides (see choose_reps). */
	AX_CHECK(r.reps_per_sample >= 20 && r.reps_per_sample <= 2000);
	ax_runner_result_release(&r);
	o.mode = AX_MODE_COLD;
	run_spin(100, 0, &o, &r);
	AX_CHECK_INT(r.reps_per_sample, 1);
	ax_runner_result_release(&r);
}

static void test_stop_flag_interrupts(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	struct ax_runner_result r;
	volatile int stop = 1;
	ax_runner_opts_default(&o);
	o.stop = &stop;
	run_spin(50, 0, &o, &r);
	AX_CHECK_INT(r.status, AX_EINTR);
	AX_CHECK_STR(r.status_text, "interrupted");
	AX_CHECK_INT(r.n, 0);
	ax_runner_result_release(&r);
}

static void test_failed_verification_has_no_time(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	struct ax_runner_result r;
	ax_runner_opts_default(&o);
	run_spin(50, 1, &o, &r);
	AX_CHECK_INT(r.status, AX_EVERIFY);
	AX_CHECK_STR(r.status_text, "failed-verification");
	AX_CHECK_INT(r.n, 0);
	AX_CHECK(strstr(r.error, "wrong on purpose") != NULL);
	ax_runner_result_release(&r);
}

static void test_check_decides_invalid_and_skipped(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	struct ax_runner_result r;
	ax_runner_opts_default(&o);
	run_spin(50, 2, &o, &r);
	AX_CHECK_INT(r.status, AX_EINVAL);
	AX_CHECK_STR(r.status_text, "invalid");
	ax_runner_result_release(&r);
	run_spin(50, 3, &o, &r);
	AX_CHECK_INT(r.status, AX_EUNSUPPORTED);
	AX_CHECK_STR(r.status_text, "skipped");
	AX_CHECK(strstr(r.error, "no feature") != NULL);
	ax_runner_result_release(&r);
}

static void test_gpu_suite_uses_timestamps(void)
{
	NEED_DEVICE();
	const struct ax_suite *bw = ax_suite_find("bandwidth");
	struct ax_params p;
	struct ax_runner_opts o;
	struct ax_runner_result r;
	char err[256];
	AX_CHECK(bw != NULL);
	ax_params_init(&p, bw->params, bw->n_params);
	AX_CHECK_INT(ax_params_set(&p, "size", "64K", err, sizeof(err)), 0);
	ax_runner_opts_default(&o);
	o.max_samples = 5;
	ax_runner_run_case(vk, bw, &p, &o, &r);
	AX_CHECK_INT(r.status, 0);
	AX_CHECK_STR(r.timing_mode, vk->info->timestamps ? "gpu-timestamp"
							 : "host-minus-empty");
	AX_CHECK(r.n >= 1 && r.values[0] > 0 && r.seconds[0] > 0);
	/* value and seconds agree through the work model */
	AX_CHECK_NEAR(r.values[0], bw->work(&p) / r.seconds[0] / 1e9,
		      1e-9 * r.values[0]);
	AX_CHECK(r.shader_hash[0] != '\0');
	ax_runner_result_release(&r);
}

/* Paired rounds of two open cases: B spins three times as long, so its
 * speed is a third of A's whatever the load (a preempted round slows the
 * side it hits, and the signed-rank estimate moves by one rank for it);
 * each side's result keeps every round's samples. */
static void test_paired_cases(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	ax_runner_opts_default(&o);
	struct ax_params pa, pb;
	ax_params_init(&pa, spin_params, 2);
	ax_params_init(&pb, spin_params, 2);
	pa.v[0] = 200; /* B does five times the work of A */
	pb.v[0] = 1000;
	struct ax_runner_result ra, rb;
	struct ax_runner_case *ca, *cb;
	AX_CHECK_INT(ax_runner_case_open(vk, &spin_suite, &pa, &o, &ra, &ca),
		     0);
	AX_CHECK_INT(ax_runner_case_open(vk, &spin_suite, &pb, &o, &rb, &cb),
		     0);
	struct ax_runner_pair_opts po;
	ax_runner_pair_opts_default(&po);
	/* Seven samples a round, each round its median: a spin preempted
	 * past its end (milliseconds on a loaded machine) moves a round
	 * only when four of its seven samples are hit, so the interval
	 * stays on the side of the real 5x difference under load. */
	po.min_rounds = 8;
	po.max_rounds = 20;
	po.samples_per_round = 7;
	po.max_noise = 0.05;
	struct ax_runner_pair_side a = {ax_runner_case_round, ca};
	struct ax_runner_pair_side b = {ax_runner_case_round, cb};
	struct ax_runner_pair_result pr;
	AX_CHECK_INT(ax_runner_pair(&a, &b, &po, &pr), 0);
	AX_CHECK(pr.rounds >= 8 && pr.rounds <= 20);
	/* The ratio is 0.2 on a quiet machine; fixed per-sample costs that
	 * grow under load pull it towards 1, never past 0.5 here. */
	AX_CHECK(pr.speedup > 0.1 && pr.speedup < 0.5);
	AX_CHECK(pr.lo <= pr.speedup && pr.speedup <= pr.hi);
	AX_CHECK(pr.hi < 1);
	AX_CHECK(!strcmp(pr.stop_reason, "noise") ||
		 !strcmp(pr.stop_reason, "max-rounds"));
	AX_CHECK_INT(ax_runner_case_close(ca, 0), 0);
	AX_CHECK_INT(ax_runner_case_close(cb, 0), 0);
	AX_CHECK_INT(ra.n, pr.rounds * po.samples_per_round);
	AX_CHECK_STR(ra.stop_reason, "paired");
	AX_CHECK(ra.summary.median > rb.summary.median);
	ax_runner_pair_result_release(&pr);
	ax_runner_result_release(&ra);
	ax_runner_result_release(&rb);
}

/* Rebuilt between blocks of 2 rounds: a real case is torn down, set up,
 * warmed up and verified again twice in 6 rounds; every round's samples
 * are kept in the one result, and the blocks are told apart. */
static void test_pair_rebuilds_between_blocks(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	ax_runner_opts_default(&o);
	struct ax_params p;
	ax_params_init(&p, spin_params, 2);
	struct ax_runner_result ra, rb;
	struct ax_runner_case *ca, *cb;
	AX_CHECK_INT(ax_runner_case_open(vk, &spin_suite, &p, &o, &ra, &ca), 0);
	AX_CHECK_INT(ax_runner_case_open(vk, &spin_suite, &p, &o, &rb, &cb), 0);
	struct ax_runner_pair_opts po;
	ax_runner_pair_opts_default(&po);
	po.min_rounds = po.max_rounds = 6;
	po.block_rounds = 2;
	po.max_rebuild_share = 0; /* never grow the blocks */
	struct ax_runner_pair_side a = {ax_runner_case_round, ca,
					ax_runner_case_rebuild};
	struct ax_runner_pair_side b = {ax_runner_case_round, cb,
					ax_runner_case_rebuild};
	struct ax_runner_pair_result pr;
	AX_CHECK_INT(ax_runner_pair(&a, &b, &po, &pr), 0);
	AX_CHECK_INT(pr.rounds, 6);
	AX_CHECK_INT(pr.blocks.blocks, 3);
	AX_CHECK_INT(pr.block[0], 0);
	AX_CHECK_INT(pr.block[5], 2);
	AX_CHECK(pr.rebuild_s > 0);
	AX_CHECK(isfinite(pr.blocks.half_width));
	AX_CHECK_INT(ax_runner_case_close(ca, 0), 0);
	AX_CHECK_INT(ax_runner_case_close(cb, 0), 0);
	AX_CHECK_INT(ra.rebuilds, 2);
	AX_CHECK_INT(ra.n, 6 * po.samples_per_round);
	AX_CHECK_STR(ra.status_text, "ok");
	ax_runner_pair_result_release(&pr);
	ax_runner_result_release(&ra);
	ax_runner_result_release(&rb);
}

/* A side whose speed is fixed within a build and differs between builds
 * (as a transpose's does with where its buffers land): B reads 1.0 or
 * 1.2 from one build to the next, with a little noise between rounds.
 * Judged on rounds alone the interval is far narrower than that spread;
 * with blocks it covers both builds' figures. */
struct placed_side {
	double speed, noise;
	int rounds, builds;
};

static int placed_round(void *ctx, int samples, double *value)
{
	struct placed_side *s = ctx;
	s->rounds++;
	*value = s->speed * (1 + s->noise * ((s->rounds % 3) - 1));
	return 0;
}

static int placed_rebuild(void *ctx)
{
	struct placed_side *s = ctx;
	s->builds++;
	if (s->noise > 0)
		s->speed = s->builds % 2 ? 1.2 : 1.0;
	return 0;
}

static void pair_placed(int block_rounds, struct ax_runner_pair_result *pr)
{
	struct placed_side sa = {1.0, 0, 0, 0}, sb = {1.0, 0.002, 0, 0};
	struct ax_runner_pair_side a = {placed_round, &sa, placed_rebuild};
	struct ax_runner_pair_side b = {placed_round, &sb, placed_rebuild};
	struct ax_runner_pair_opts po;
	ax_runner_pair_opts_default(&po);
	po.min_rounds = po.max_rounds = 40;
	po.block_rounds = block_rounds;
	po.max_rebuild_share = 0;
	AX_CHECK_INT(ax_runner_pair(&a, &b, &po, pr), 0);
}

static void test_pair_blocks_cover_builds(void)
{
	struct ax_runner_pair_result pr;
	pair_placed(5, &pr);
	AX_CHECK_INT(pr.blocks.blocks, 8);
	AX_CHECK(pr.lo < 1.02 && pr.hi > 1.18);
	AX_CHECK(pr.p_value >= pr.test.p_value);
	ax_runner_pair_result_release(&pr);
	pair_placed(0, &pr); /* never rebuilt: one build, one speed */
	AX_CHECK_INT(pr.blocks.blocks, 1);
	AX_CHECK(pr.hi - pr.lo < 0.01);
	ax_runner_pair_result_release(&pr);
}

/* A case that fails verification never opens: no case, the status said,
 * nothing to close. */
static void test_case_open_fails_cleanly(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	ax_runner_opts_default(&o);
	struct ax_params p;
	ax_params_init(&p, spin_params, 2);
	p.v[1] = 1;
	struct ax_runner_result r;
	struct ax_runner_case *c = (struct ax_runner_case *)&r;
	AX_CHECK_INT(ax_runner_case_open(vk, &spin_suite, &p, &o, &r, &c),
		     AX_EVERIFY);
	AX_CHECK(c == NULL);
	AX_CHECK_STR(r.status_text, "failed-verification");
	ax_runner_result_release(&r);
}

/* The stop flag ends the rounds with what was measured kept; bad options
 * are refused. */
static void test_pair_stop_and_bad_opts(void)
{
	NEED_DEVICE();
	struct ax_runner_opts o;
	ax_runner_opts_default(&o);
	struct ax_params p;
	ax_params_init(&p, spin_params, 2);
	struct ax_runner_result r;
	struct ax_runner_case *c;
	AX_CHECK_INT(ax_runner_case_open(vk, &spin_suite, &p, &o, &r, &c), 0);
	struct ax_runner_pair_side s = {ax_runner_case_round, c};
	struct ax_runner_pair_opts po;
	struct ax_runner_pair_result pr;
	ax_runner_pair_opts_default(&po);
	volatile int stop = 1;
	po.stop = &stop;
	AX_CHECK_INT(ax_runner_pair(&s, &s, &po, &pr), 0);
	AX_CHECK_STR(pr.stop_reason, "interrupted");
	AX_CHECK_INT(pr.rounds, 0);
	AX_CHECK(isnan(pr.speedup));
	ax_runner_pair_result_release(&pr);
	po.stop = NULL;
	po.min_rounds = 0;
	AX_CHECK_INT(ax_runner_pair(&s, &s, &po, &pr), AX_EINVAL);
	ax_runner_pair_result_release(&pr);
	AX_CHECK_INT(ax_runner_case_close(c, 0), AX_EINTR);
	AX_CHECK_STR(r.status_text, "interrupted");
	ax_runner_result_release(&r);
}

static void open_device(void)
{
	const char *v = getenv("AXBENCH_VALIDATE");
	bool validate = v && *v && strcmp(v, "0") != 0;
	if (ax_vk_instance_create(validate, &inst, no_device,
				  sizeof(no_device)) ||
	    ax_vk_open(inst, 0, &vk, no_device, sizeof(no_device)))
		vk = NULL;
}

static void test_no_validation_messages(void)
{
	NEED_DEVICE();
	ax_vk_close(vk);
	AX_CHECK_INT(ax_vk_validation_messages(inst), 0);
	ax_vk_instance_destroy(inst);
}

static const struct ax_test_case tests[] = {
    AX_TEST(test_noise_rule_stops_early),
    AX_TEST(test_sample_cap),
    AX_TEST(test_time_limit),
    AX_TEST(test_batch_reps_reach_target),
    AX_TEST(test_stop_flag_interrupts),
    AX_TEST(test_failed_verification_has_no_time),
    AX_TEST(test_check_decides_invalid_and_skipped),
    AX_TEST(test_gpu_suite_uses_timestamps),
    AX_TEST(test_paired_cases),
    AX_TEST(test_case_open_fails_cleanly),
    AX_TEST(test_pair_stop_and_bad_opts),
    AX_TEST(test_pair_rebuilds_between_blocks),
    AX_TEST(test_pair_blocks_cover_builds),
    AX_TEST(test_no_validation_messages),
};

int main(void)
{
	open_device();
	return ax_test_run(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
