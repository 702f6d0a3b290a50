/*
 * tests/unit/test_cpu_baseline.c - the CPU baselines through the real
 * OpenBLAS (Debian's libopenblas.so.0) on small shapes: every layout
 * each suite has, a wrong output reported as failed, a missing or wrong
 * library named, and a suite without a baseline.
 */
#include "ax_test.h"

#include "core/error.h"
#include "suites/cpu_baseline.h"
#include "suites/registry.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Short runs: these check what is measured, not how fast. */
static void quick_opts(struct ax_runner_opts *o)
{
	ax_runner_opts_default(o);
	o->warmup = 1;
	o->min_samples = 3;
	o->max_samples = 20;
	o->min_time_s = 0.01;
	o->max_time_s = 0.2;
	o->target_sample_s = 0.001;
}

/* suite's point from "name=value ..." (shape parameters only). */
static const struct ax_suite *point(const char *suite, const char *spec,
				    struct ax_params *p)
{
	const struct ax_suite *s = ax_suite_find(suite);
	ax_params_init(p, s->params, s->n_params);
	char buf[256], err[256];
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
		char *eq = strchr(tok, '=');
		*eq = '\0';
		int rc = ax_params_set(p, tok, eq + 1, err, sizeof(err));
		if (rc)
			printf("#   %s\n", err);
		AX_CHECK_INT(rc, 0);
	}
	return s;
}

static int run_point(const char *suite, const char *spec, int threads,
		     struct ax_cpu_result *r)
{
	struct ax_params p;
	struct ax_runner_opts o;
	quick_opts(&o);
	const struct ax_suite *s = point(suite, spec, &p);
	return ax_cpu_baseline_run(s, &p, threads, &o, r);
}

/* A baseline that ran: verified, sampled, and its library recorded. */
static void check_ok(const char *suite, const char *spec, int threads)
{
	struct ax_cpu_result r;
	int rc = run_point(suite, spec, threads, &r);
	if (rc)
		printf("#   %s %s: %s\n", suite, spec, r.error);
	AX_CHECK_INT(rc, 0);
	AX_CHECK(r.n >= 3);
	AX_CHECK(r.summary.median > 0);
	AX_CHECK(r.reps_per_sample >= 1);
	AX_CHECK(r.stop_reason != NULL);
	AX_CHECK_STR(r.lib.name, "OpenBLAS");
	AX_CHECK(r.lib.corename[0] != '\0');
	AX_CHECK(strcmp(r.lib.corename, "unknown") != 0);
	AX_CHECK_INT(r.lib.threads, threads);
	AX_CHECK(strncmp(r.lib.config, "OpenBLAS ", 9) == 0);
	AX_CHECK(strcmp(r.lib.version, "unknown") != 0);
	AX_CHECK(strstr(r.lib.config, r.lib.version) != NULL);
	ax_cpu_result_release(&r);
}

static void test_gemm_layouts(void)
{
	check_ok("gemm", "m=33 n=17 k=29", 1);
	check_ok("gemm", "m=33 n=17 k=29 trans_a=1", 2);
	check_ok("gemm", "m=33 n=17 k=29 trans_b=1", 1);
	check_ok("gemm", "m=20 n=40 k=12 trans_a=1 trans_b=1", 2);
	check_ok("gemm", "m=24 n=8 k=16 batch=3 trans_a=1", 2);
	check_ok("gemm", "m=64 n=64 k=64 batch=2 trans_b=1", 1);
}

static void test_conv_layouts(void)
{
	const char *shape = "n=2 c=3 h=9 w=11 k=5 r=3 s=3 stride=2 pad=1 "
			    "dilation=2";
	char spec[160];
	snprintf(spec, sizeof(spec), "%s layout=nchw", shape);
	check_ok("conv", spec, 2);
	snprintf(spec, sizeof(spec), "%s layout=nhwc", shape);
	check_ok("conv", spec, 1);
	/* 1x1, stride 1, no pad: the input is the matrix (no im2col). */
	check_ok("conv", "n=3 c=8 h=5 w=6 k=4 r=1 s=1 pad=0 layout=nchw", 1);
	check_ok("conv", "n=3 c=8 h=5 w=6 k=4 r=1 s=1 pad=0 layout=nhwc", 2);
	check_ok("conv", "n=1 c=4 h=8 w=8 k=6 r=5 s=3 pad=2 layout=nhwc", 2);
}

/* Every stride, pad and dilation mix on a small input whose edge taps
 * fall wholly into the padding, in both layouts: the im2col bounds. */
static void test_conv_edges(void)
{
	for (int layout = 0; layout < 2; layout++)
		for (int stride = 1; stride <= 3; stride++)
			for (int pad = 0; pad <= 2; pad++)
				for (int dil = 1; dil <= 2; dil++) {
					char spec[160];
					snprintf(spec, sizeof(spec),
						 "n=2 c=2 h=7 w=6 k=3 r=3 s=3 "
						 "stride=%d pad=%d dilation=%d "
						 "layout=%s",
						 stride, pad, dil,
						 layout ? "nhwc" : "nchw");
					check_ok("conv", spec, 1 + layout);
				}
}

static void test_attention_masks(void)
{
	check_ok("attention", "batch=2 heads=2 seq_q=70 seq_kv=70 head_dim=16",
		 2);
	check_ok("attention",
		 "batch=2 heads=2 seq_q=70 seq_kv=70 head_dim=16 causal=1", 1);
	/* More queries than keys, causal: the first rows see no key and
	 * output zeros. */
	check_ok("attention",
		 "batch=1 heads=3 seq_q=80 seq_kv=24 head_dim=8 causal=1", 2);
	check_ok("attention",
		 "batch=1 heads=1 seq_q=16 seq_kv=130 head_dim=32 causal=1", 1);
}

/* fp16 shapes: fp32 arithmetic on the fp16-rounded inputs, said so. */
static void test_f16_is_fp32_on_rounded_inputs(void)
{
	const char *cases[][2] = {
	    {"gemm", "m=32 n=16 k=24 dtype=f16"},
	    {"conv", "n=1 c=3 h=8 w=8 k=4 dtype=f16 layout=nhwc"},
	    {"attention", "seq_q=32 seq_kv=32 head_dim=16 dtype=f16 causal=1"},
	};
	for (int i = 0; i < 3; i++) {
		struct ax_cpu_result r;
		int rc = run_point(cases[i][0], cases[i][1], 1, &r);
		AX_CHECK_INT(rc, 0);
		AX_CHECK_STR(r.lib.note,
			     "fp32 arithmetic on fp16-rounded inputs");
		ax_cpu_result_release(&r);
	}
	struct ax_cpu_result r;
	AX_CHECK_INT(run_point("gemm", "m=8 n=8 k=8", 1, &r), 0);
	AX_CHECK_STR(r.lib.note, "");
	ax_cpu_result_release(&r);
}

/* Values are the suite's unit by the suite's formula, as the runner's. */
static void test_values_in_suite_unit(void)
{
	struct ax_params p;
	struct ax_runner_opts o;
	quick_opts(&o);
	const struct ax_suite *s = point("conv", "n=2 c=4 h=6 w=6 k=3", &p);
	struct ax_cpu_result r;
	AX_CHECK_INT(ax_cpu_baseline_run(s, &p, 1, &o, &r), 0);
	for (int i = 0; i < r.n; i++)
		AX_CHECK_NEAR(r.values[i], s->work(&p) / r.seconds[i] / 1e9,
			      1e-9 * r.values[i]);
	ax_cpu_result_release(&r);
}

/* A wrong CPU output is reported and never timed. */
static void test_wrong_output_fails_verification(void)
{
	const char *cases[][2] = {
	    {"gemm", "m=16 n=16 k=16 trans_b=1"},
	    {"conv", "n=1 c=2 h=6 w=6 k=3 layout=nhwc"},
	    {"attention", "seq_q=16 seq_kv=16 head_dim=8"},
	};
	ax_cpu_baseline_test_corrupt(true);
	for (int i = 0; i < 3; i++) {
		struct ax_cpu_result r;
		int rc = run_point(cases[i][0], cases[i][1], 1, &r);
		AX_CHECK_INT(rc, AX_EVERIFY);
		AX_CHECK_INT(r.status, AX_EVERIFY);
		AX_CHECK_INT(r.n, 0);
		AX_CHECK(r.values == NULL);
		AX_CHECK(strstr(r.error, "CPU baseline") != NULL);
		AX_CHECK(strstr(r.error, "reference") != NULL ||
			 strstr(r.error, "expected") != NULL);
		printf("#   %s\n", r.error);
		ax_cpu_result_release(&r);
	}
	ax_cpu_baseline_test_corrupt(false);
}

static void test_missing_library_named(void)
{
	struct ax_cpu_result r;
	setenv("AXBENCH_OPENBLAS_LIB", "/nonexistent", 1);
	AX_CHECK_INT(run_point("gemm", "m=8 n=8 k=8", 1, &r), AX_ENOTFOUND);
	AX_CHECK(strstr(r.error, "/nonexistent") != NULL);
	AX_CHECK(strstr(r.error, "cannot open") != NULL);
	AX_CHECK_STR(r.lib.name, "OpenBLAS");
	AX_CHECK_STR(r.lib.version, "unknown");
	AX_CHECK_INT(r.n, 0);
	printf("#   %s\n", r.error);
	ax_cpu_result_release(&r);
	/* A CBLAS that is not OpenBLAS (GSL's) is refused by name. */
	setenv("AXBENCH_OPENBLAS_LIB", "libgslcblas.so.0", 1);
	AX_CHECK_INT(run_point("gemm", "m=8 n=8 k=8", 1, &r), AX_ENOTFOUND);
	AX_CHECK(strstr(r.error, "libgslcblas.so.0") != NULL);
	AX_CHECK(strstr(r.error, "openblas_set_num_threads") != NULL);
	printf("#   %s\n", r.error);
	ax_cpu_result_release(&r);
	unsetenv("AXBENCH_OPENBLAS_LIB");
	AX_CHECK_INT(run_point("gemm", "m=8 n=8 k=8", 1, &r), 0);
	ax_cpu_result_release(&r);
}

static void test_suite_without_baseline(void)
{
	AX_CHECK(!ax_cpu_baseline_has(ax_suite_find("bandwidth")));
	AX_CHECK(!ax_cpu_baseline_has(ax_suite_find("transfer")));
	AX_CHECK(ax_cpu_baseline_has(ax_suite_find("gemm")));
	AX_CHECK(ax_cpu_baseline_has(ax_suite_find("conv")));
	AX_CHECK(ax_cpu_baseline_has(ax_suite_find("attention")));
	struct ax_cpu_result r;
	AX_CHECK_INT(run_point("bandwidth", "", 1, &r), AX_EUNSUPPORTED);
	AX_CHECK(strstr(r.error, "bandwidth has no CPU baseline") != NULL);
	ax_cpu_result_release(&r);
}

static void test_bad_requests(void)
{
	struct ax_cpu_result r;
	AX_CHECK_INT(run_point("gemm", "m=8 n=8 k=8", 0, &r), AX_EINVAL);
	AX_CHECK(strstr(r.error, "threads") != NULL);
	ax_cpu_result_release(&r);
	/* The dilated filter does not fit: the suite's own rule and text. */
	AX_CHECK_INT(run_point("conv", "h=4 w=4 r=5 s=5 pad=0", 1, &r),
		     AX_EINVAL);
	AX_CHECK(strstr(r.error, "dilated filter") != NULL);
	ax_cpu_result_release(&r);
}

static void count_phase(void *ctx, enum ax_runner_phase phase)
{
	(*(int *)ctx)++;
}

/* The phase callback marks a device case's telemetry window: the CPU's
 * work never enters it. */
static void test_phase_not_called(void)
{
	int calls = 0;
	struct ax_params p;
	struct ax_runner_opts o;
	quick_opts(&o);
	o.phase = count_phase;
	o.phase_ctx = &calls;
	const struct ax_suite *s = point("gemm", "m=8 n=8 k=8", &p);
	struct ax_cpu_result r;
	AX_CHECK_INT(ax_cpu_baseline_run(s, &p, 1, &o, &r), 0);
	AX_CHECK_INT(calls, 0);
	ax_cpu_result_release(&r);
}

static void test_stop_flag_interrupts(void)
{
	volatile int stop = 1;
	struct ax_params p;
	struct ax_runner_opts o;
	quick_opts(&o);
	o.stop = &stop;
	const struct ax_suite *s = point("gemm", "m=8 n=8 k=8", &p);
	struct ax_cpu_result r;
	AX_CHECK_INT(ax_cpu_baseline_run(s, &p, 1, &o, &r), AX_EINTR);
	AX_CHECK_STR(r.stop_reason, "interrupted");
	AX_CHECK_INT(r.n, 0);
	ax_cpu_result_release(&r);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The load a baseline was taken under (issue 33) is measured on every
 * run: other processes' busy CPUs within [0, the CPUs it may use], over
 * a window of at least AX_CPU_LOAD_MIN_S even for a shape that samples
 * in milliseconds, and the load average.  What the figures are depends
 * on the machine; that they are there and in range does not. */
static void test_load_is_recorded(void)
{
	struct ax_cpu_result r;
	double t0 = wall_s();
	AX_CHECK_INT(run_point("gemm", "m=8 n=8 k=8", 1, &r), 0);
	double took = wall_s() - t0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	AX_CHECK(r.load.known);
	AX_CHECK(r.load.online_cpus >= 1 && r.load.online_cpus <= online);
	AX_CHECK(r.load.busy_other >= 0 &&
		 r.load.busy_other <= r.load.online_cpus);
	AX_CHECK(r.load.load_1m >= 0);
	AX_CHECK(took >= AX_CPU_LOAD_MIN_S);
	ax_cpu_result_release(&r);
	/* Interrupted before the first sample: no load to speak of. */
	volatile int stop = 1;
	struct ax_params p;
	struct ax_runner_opts o;
	quick_opts(&o);
	o.stop = &stop;
	const struct ax_suite *s = point("gemm", "m=8 n=8 k=8", &p);
	AX_CHECK_INT(ax_cpu_baseline_run(s, &p, 1, &o, &r), AX_EINTR);
	AX_CHECK(!r.load.known && isnan(r.load.busy_other));
	ax_cpu_result_release(&r);
}

AX_TEST_MAIN(AX_TEST(test_gemm_layouts), AX_TEST(test_conv_layouts),
	     AX_TEST(test_conv_edges), AX_TEST(test_attention_masks),
	     AX_TEST(test_f16_is_fp32_on_rounded_inputs),
	     AX_TEST(test_values_in_suite_unit),
	     AX_TEST(test_wrong_output_fails_verification),
	     AX_TEST(test_missing_library_named),
	     AX_TEST(test_suite_without_baseline), AX_TEST(test_bad_requests),
	     AX_TEST(test_phase_not_called), AX_TEST(test_stop_flag_interrupts),
	     AX_TEST(test_load_is_recorded))
