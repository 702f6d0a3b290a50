/*
 * suites/cpu_baseline.h - the host CPU's time for a suite's work, through
 * OpenBLAS, so a GPU result can say how many times faster it is than the
 * machine's own processor (issue 13).
 *
 * gemm, conv and attention have a baseline: the same shape, with the same
 * input data (the suites' own fill functions and seeds), computed on the
 * CPU with OpenBLAS's cblas_sgemm (gemm: one call per batch entry; conv:
 * im2col + sgemm; attention: scaled Q.K^T by sgemm, a masked softmax, .V
 * by sgemm).  fp16 shapes compute in fp32 on the fp16-rounded inputs
 * (lib.note says so).  The output is checked by the suite's own CPU
 * reference before any time counts, and it is timed by the runner's own
 * repetition choice and stop rule (ax_runner_time_fn), so values are in
 * the suite's unit by the suite's formula and the speed-up is a plain
 * ratio of medians.
 *
 * OpenBLAS is loaded with dlopen ("libopenblas.so.0", or the file that
 * AXBENCH_OPENBLAS_LIB names), never linked: axbench links GSL's
 * libgslcblas, which exports the same cblas_* names, and linking both
 * would let one of them silently serve every call.  OPENBLAS_CORETYPE is
 * left as the user set it (some machines need it); the kernel that ran
 * and the thread count OpenBLAS took are recorded instead.
 */
#ifndef AX_CPU_BASELINE_H
#define AX_CPU_BASELINE_H

#include "suites/model_ref.h"
#include "suites/runner.h"

#include <stdbool.h>
#include <stdint.h>

/* The library that ran the baseline. */
struct ax_cpu_lib {
	char name[32];	   /* "OpenBLAS" */
	char version[32];  /* "0.3.21", "unknown" */
	char config[256];  /* openblas_get_config() */
	char corename[64]; /* openblas_get_corename(): the kernel that ran */
	int threads;	   /* what openblas_get_num_threads() says after
			      setting */
	char note[128];	   /* e.g. "fp32 arithmetic on fp16-rounded inputs",
			      or "" */
};

/*
 * The machine's load while a baseline was timed (issue 33): whether the
 * figure is the CPU's or the share other processes left it.  busy_other
 * is the CPUs' worth of time that everything but this process used on
 * the CPUs it may run on (online and in its affinity mask), mean over the
 * sampling and at least AX_CPU_LOAD_MIN_S: /proc/stat's busy time of
 * those CPUs (user, nice, system, irq, softirq, steal) less this
 * process's own (getrusage: every thread, OpenBLAS's and the driver's),
 * over the wall time.  /proc/stat counts in clock ticks, so a window of
 * a few ticks could not tell a tenth of a CPU; a shorter sampling is
 * followed by a wait (the CPU's workers sleep meanwhile).  load_1m is
 * the 1-minute load average at the end (getloadavg), which counts this
 * process too.  known false: /proc/stat could not be read.
 */
#define AX_CPU_LOAD_MIN_S 0.25
struct ax_cpu_load {
	bool known;
	double load_1m;	   /* NAN: none */
	double busy_other; /* in CPUs, in [0, online_cpus]; NAN unless
			      known */
	int online_cpus;   /* the CPUs counted */
};

struct ax_cpu_result {
	int status;	  /* 0, AX_EVERIFY, AX_EUNSUPPORTED, AX_ENOTFOUND,
			     AX_ENOMEM, AX_EINTR, AX_EINVAL */
	char error[1024]; /* why, when status != 0 */
	const char *stop_reason;   /* as the runner's: "noise", "max-samples",
				      "time-limit", "interrupted" */
	int n;			   /* samples */
	double *seconds, *values;  /* per repetition; values in the suite's
				      unit (owned) */
	struct ax_summary summary; /* of values (core/stats.h) */
	uint32_t reps_per_sample;
	struct ax_cpu_lib lib;
	struct ax_cpu_load load; /* known once sampling ended */
};

/* Has suite a CPU baseline?  (gemm, conv, attention: by suite->name). */
bool ax_cpu_baseline_has(const struct ax_suite *suite);

/*
 * Measure the suite's work at shape p (a point of suite's own parameter
 * table; only its shape parameters matter) on the host CPU with `threads`
 * threads (>= 1), with the same stop rule and statistics as the runner
 * (opts: warmup, min/max samples, noise, min/max time, target_sample_s,
 * timeout_s as the cap of one sample, the stop flag, progress).
 * opts->phase is not called: it marks a device case's timed span for
 * telemetry, which the CPU's work must not enter.  Always fills out
 * (release it afterwards); returns out->status:
 *   AX_EUNSUPPORTED  the suite has no baseline
 *   AX_EINVAL        threads < 1, or p breaks a parameter rule
 *   AX_ENOTFOUND     OpenBLAS could not be loaded (error says why)
 *   AX_ENOMEM        the shape does not fit in host memory
 *   AX_EVERIFY       the CPU output differs from the reference (no time)
 *   AX_EINTR         the stop flag was set before the first sample
 * lib is filled as far as the library was loaded (name always).
 */
int ax_cpu_baseline_run(const struct ax_suite *suite, const struct ax_params *p,
			int threads, const struct ax_runner_opts *opts,
			struct ax_cpu_result *out);
void ax_cpu_result_release(struct ax_cpu_result *r);

/* The library a baseline with `threads` threads would run on (loaded,
 * threads set, nothing timed): what a stored baseline must match to be
 * reused.  0, AX_ENOTFOUND (why says), AX_EINVAL. */
int ax_cpu_lib_query(int threads, struct ax_cpu_lib *lib, char *why,
		     size_t len);

/*
 * Test-only: while on, every run adds 1 to the first output element after
 * the warm-up, before verification, so tests prove that a wrong CPU
 * output is reported as AX_EVERIFY and never timed.  Not thread-safe;
 * nothing but tests calls it.
 */
void ax_cpu_baseline_test_corrupt(bool on);

/*
 * C = A B (row-major, no transposes) through OpenBLAS with its own
 * thread count, for CPU references of whole layers (suites/model.c), or
 * NULL when OpenBLAS cannot be loaded (the reference then multiplies
 * with a plain loop).  Loaded once; not thread-safe on first call.
 */
ax_model_sgemm_fn ax_cpu_reference_sgemm(void);

#endif
