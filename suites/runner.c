/* suites/runner.c - the one timing loop (see runner.h). */
#include "suites/runner.h"

#include "core/error.h"
#include "core/stats_dist.h"
#include "suites/stall.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define AX_MAX_REPS (1u << 20)

void ax_runner_opts_default(struct ax_runner_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = 2;
	o->min_samples = 5;
	o->max_samples = 50;
	o->max_noise = 0.02;
	o->min_time_s = 0.05;
	o->max_time_s = 3.0;
	o->timeout_s = 10.0;
	o->target_sample_s = 0.002;
	o->mode = AX_MODE_BATCH;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Everything one case's sampling needs, so helpers take one pointer. */
struct case_run {
	struct ax_vk_ctx *vk;
	const struct ax_suite *suite;
	const struct ax_runner_opts *opts;
	void *state;
	struct ax_vk_buffer scrub; /* cold mode only */
	uint32_t scrub_pattern;
	double empty_submit_s;	/* host fallback calibration */
	bool warming;		/* warm-up: lazy compilation may run */
	bool host;		/* timed by host_op (ax_suite host_timed) */
	struct ax_stall *stall; /* test-only fault injection, or NULL */
	struct ax_runner_result *out;
	const struct ax_params *p; /* the point */
};

/* Repetitions a latency distribution of point p needs (ax_suite
 * latency_passes), 0 for a point sampled as usual. */
static int latency_passes(const struct ax_suite *s, const struct ax_params *p)
{
	return s->latency_passes && p ? s->latency_passes(p) : 0;
}

static uint64_t timeout_ns(const struct ax_runner_opts *o)
{
	return (uint64_t)(o->timeout_s * 1e9);
}

/* Drivers may compile a pipeline at its first dispatch (lavapipe's LLVM
 * takes seconds for big unrolled kernels), inside the fence wait: warm-up
 * submissions get at least this long.  A sanitized build (make asan)
 * gets three times as long: ASan intercepts every allocation of the
 * driver's compiler too, and an attention kernel's first dispatch ran
 * past 60 s there on a loaded 2-core machine. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AX_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(AX_SANITIZED)
#define AX_WARMUP_TIMEOUT_S 180.0
#define AX_WARMUP_AFTER_HANG_S 30.0
#else
#define AX_WARMUP_TIMEOUT_S 60.0
#define AX_WARMUP_AFTER_HANG_S 10.0
#endif

/* After a hang (opts->short_warmup_floor) a warm-up that outlasts the
 * shorter floor counts as another hang: the next case runs on a new
 * logical device, whose first dispatch compiles its pipeline again, so
 * the floor stays long enough for an ordinary compile (a tune's next
 * trial under ASan on a loaded machine ran past 0.5 s), while five
 * kernels that each hang in their warm-up cost 10 s each, not 60. */
static uint64_t sample_timeout_ns(const struct case_run *cr)
{
	double t = cr->opts->timeout_s;
	double floor = cr->opts->short_warmup_floor ? AX_WARMUP_AFTER_HANG_S
						    : AX_WARMUP_TIMEOUT_S;
	if (cr->warming && t < floor)
		t = floor;
	return (uint64_t)(t * 1e9);
}

const char *ax_case_status_name(enum ax_case_status s)
{
	switch (s) {
	case AX_CASE_OK:
		return "ok";
	case AX_CASE_FAILED_VERIFICATION:
		return "failed-verification";
	case AX_CASE_TIMEOUT:
		return "timeout";
	case AX_CASE_SKIPPED:
		return "skipped";
	case AX_CASE_INVALID:
		return "invalid";
	case AX_CASE_COMPILE_FAILED:
		return "compile-failed";
	case AX_CASE_INTERRUPTED:
		return "interrupted";
	case AX_CASE_ERROR:
		break;
	}
	return "error";
}

static enum ax_case_status outcome_for(int rc)
{
	switch (rc) {
	case 0:
		return AX_CASE_OK;
	case AX_EVERIFY:
		return AX_CASE_FAILED_VERIFICATION;
	case AX_ETIMEOUT:
		return AX_CASE_TIMEOUT;
	case AX_EUNSUPPORTED:
		return AX_CASE_SKIPPED;
	case AX_EINVAL:
		return AX_CASE_INVALID;
	case AX_ECOMPILE:
		return AX_CASE_COMPILE_FAILED;
	case AX_EINTR:
		return AX_CASE_INTERRUPTED;
	default:
		return AX_CASE_ERROR;
	}
}

static int fail(struct case_run *cr, int rc, enum ax_case_status outcome,
		const char *msg)
{
	struct ax_runner_result *out = cr->out;
	out->status = rc;
	out->outcome = outcome;
	out->status_text = ax_case_status_name(outcome);
	if (msg && msg != out->error)
		snprintf(out->error, sizeof(out->error), "%s", msg);
	return rc;
}

/*
 * One GPU sample: reps repetitions between two timestamps in one
 * submission.  Without timestamps: host time of the submission minus the
 * calibrated cost of an empty one.  Returns seconds per repetition.
 */
static int gpu_sample(struct case_run *cr, uint32_t reps, double *sec)
{
	struct ax_vk_ctx *vk = cr->vk;
	bool ts = vk->timestamps != VK_NULL_HANDLE;
	VkCommandBuffer cb;
	int rc = ax_vk_cmd_begin(vk, false, &cb);
	if (rc)
		return rc;
	if (ts)
		ax_vk_cmd_reset_timestamps(vk, cb, 0, 2);
	if (cr->scrub.buf) {
		/* A new pattern each time, so no cache can keep a copy. */
		vkCmdFillBuffer(cb, cr->scrub.buf, 0, VK_WHOLE_SIZE,
				cr->scrub_pattern++);
		ax_vk_cmd_barrier(cb);
	}
	if (ts)
		ax_vk_cmd_timestamp(vk, cb, 0);
	if (!cr->warming)
		ax_stall_record(cr->stall, cb);
	cr->suite->record(cr->state, cb, reps);
	if (ts)
		ax_vk_cmd_timestamp(vk, cb, 1);
	double t0 = now_s();
	rc = ax_vk_cmd_submit_wait(vk, cb, false, sample_timeout_ns(cr));
	double host = now_s() - t0;
	if (rc)
		return rc;
	double ns;
	if (ts) {
		rc = ax_vk_timestamp_delta_ns(vk, 0, 1, &ns);
		*sec = ns / 1e9 / reps;
	} else {
		double t = host - cr->empty_submit_s;
		*sec = (t > 0 ? t : host) / reps;
	}
	return rc;
}

/* Each repetition timed alone, its untimed preparation before it. */
static int host_sample_prepared(struct case_run *cr, uint32_t reps, double *sec)
{
	char *err = cr->out->error;
	size_t len = sizeof(cr->out->error);
	double busy = 0;
	for (uint32_t i = 0; i < reps; i++) {
		int rc = cr->suite->host_prepare(cr->state, err, len);
		if (rc)
			return rc;
		double t0 = now_s();
		rc = cr->suite->host_op(cr->state, err, len);
		busy += now_s() - t0;
		if (rc)
			return rc;
	}
	*sec = busy / reps;
	return 0;
}

static int host_sample(struct case_run *cr, uint32_t reps, double *sec)
{
	if (cr->suite->host_prepare)
		return host_sample_prepared(cr, reps, sec);
	double t0 = now_s();
	for (uint32_t i = 0; i < reps; i++) {
		int rc = cr->suite->host_op(cr->state, cr->out->error,
					    sizeof(cr->out->error));
		if (rc)
			return rc;
	}
	*sec = (now_s() - t0) / reps;
	return 0;
}

static int sample(struct case_run *cr, uint32_t reps, double *sec)
{
	if (!cr->host)
		return gpu_sample(cr, reps, sec);
	return host_sample(cr, reps, sec);
}

/* Median host time of an empty submission, for devices without
 * timestamps. */
static int calibrate_empty(struct case_run *cr)
{
	double t[7];
	for (int i = 0; i < 7; i++) {
		VkCommandBuffer cb;
		int rc = ax_vk_cmd_begin(cr->vk, false, &cb);
		if (rc)
			return rc;
		double t0 = now_s();
		rc = ax_vk_cmd_submit_wait(cr->vk, cb, false,
					   timeout_ns(cr->opts));
		t[i] = now_s() - t0;
		if (rc)
			return rc;
	}
	struct ax_summary s;
	ax_stats_summarize(t, 7, 0.95, &s);
	cr->empty_submit_s = s.median;
	return 0;
}

/* A buffer larger than the last-level cache for cold mode: twice the host
 * L3 for CPU devices (lavapipe), else 256 MiB (bigger than any GPU L2),
 * within the allocation limit.  Capped at 256 MiB even for CPUs: VMs
 * report a socket's whole L3 (hundreds of MiB) although one core complex
 * sees a fraction of it, and refilling a GiB before every sample made
 * single samples run into the fence timeout. */
static int create_scrub(struct case_run *cr)
{
	const struct ax_vk_device_info *info = cr->vk->info;
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
	VkDeviceSize size = 256ull << 20;
	if (info->type == VK_PHYSICAL_DEVICE_TYPE_CPU && l3 > 0)
		size = 2ull * (VkDeviceSize)l3;
	if (size < (64ull << 20))
		size = 64ull << 20;
	if (size > (256ull << 20))
		size = 256ull << 20;
	if (info->max_memory_allocation_size &&
	    size > info->max_memory_allocation_size / 2)
		size = info->max_memory_allocation_size / 2;
	size &= ~(VkDeviceSize)3;
	return ax_vk_buffer_create(cr->vk, size, 0, AX_MEM_DEVICE, &cr->scrub);
}

/* Probes of one repetition that choose_reps takes the fastest of, when
 * the first is short enough for more to cost little. */
#define AX_REP_PROBES 3
#define AX_REP_PROBE_CHEAP_S 0.05

/* What the timing loop needs: the work to time and where samples go. */
struct timing {
	const struct ax_suite *suite;
	const struct ax_params *p;
	const struct ax_runner_opts *opts;
	int (*one)(void *ctx, uint32_t reps, double *sec);
	void *ctx;
	struct ax_runner_samples *out;
};

/* Batch mode: repetitions per sample so that one sample lasts at least
 * target_sample_s (timer resolution and submission overhead vanish).  The
 * fastest of a few one-repetition probes decides: one probe that the
 * scheduler preempted (a loaded machine) would otherwise look many times
 * slower than the work is and leave the samples far below the target. */
static int choose_reps(const struct timing *t, uint32_t *reps)
{
	const struct ax_runner_opts *o = t->opts;
	*reps = 1;
	/* A latency distribution is one of single repetitions. */
	if (o->mode == AX_MODE_COLD || latency_passes(t->suite, t->p) > 0)
		return 0;
	double sec = 0;
	for (int i = 0; i < AX_REP_PROBES; i++) {
		double probe;
		int rc = t->one(t->ctx, 1, &probe);
		if (rc)
			return rc;
		if (i == 0 || probe < sec)
			sec = probe;
		if (sec > AX_REP_PROBE_CHEAP_S)
			break;
	}
	if (sec <= 0)
		sec = 1e-7;
	double want = ceil(o->target_sample_s / sec);
	/* Keep one submission far from the fence timeout. */
	double cap = floor(o->timeout_s / 4 / sec);
	if (want > cap)
		want = cap;
	if (want > AX_MAX_REPS)
		want = AX_MAX_REPS;
	*reps = want < 1 ? 1 : (uint32_t)want;
	return 0;
}

/* A sample's figure in the suite's unit, from seconds per repetition. */
static double value_of(const struct ax_suite *s, const struct ax_params *p,
		       double sec)
{
	if (s->metric == AX_METRIC_TIME)
		return sec * s->scale;
	return s->work(p) / sec / s->scale;
}

static void store_sample(struct ax_runner_samples *out,
			 const struct ax_suite *s, const struct ax_params *p,
			 double sec)
{
	out->seconds[out->n] = sec;
	out->values[out->n] = value_of(s, p, sec);
	out->n++;
}

static int sample_loop(const struct timing *t, uint32_t reps)
{
	const struct ax_runner_opts *o = t->opts;
	struct ax_runner_samples *out = t->out;
	int cap = o->max_samples > 0 ? o->max_samples : 1;
	int lat = latency_passes(t->suite, t->p);
	int min_n = o->min_samples > lat ? o->min_samples : lat;
	if (cap < lat)
		cap = lat;
	out->seconds = calloc((size_t)cap, sizeof(double));
	out->values = calloc((size_t)cap, sizeof(double));
	if (!out->seconds || !out->values)
		return AX_ENOMEM;
	double start = now_s();
	out->stop_reason = "max-samples";
	while (out->n < cap) {
		if (o->stop && *o->stop) {
			out->stop_reason = "interrupted";
			break;
		}
		double sec;
		int rc = t->one(t->ctx, reps, &sec);
		if (rc) {
			/* Sampling stopped because this sample failed: the
			 * reason is the error's, not the limit it had set. */
			out->stop_reason =
			    rc == AX_EINTR ? "interrupted" : "error";
			return rc;
		}
		store_sample(out, t->suite, t->p, sec);
		ax_stats_summarize(out->values, out->n, 0.95, &out->summary);
		if (o->progress)
			o->progress(o->progress_ctx, out->n,
				    out->summary.median);
		double elapsed = now_s() - start;
		bool enough = out->n >= min_n && elapsed >= o->min_time_s;
		if (enough && out->summary.rel_noise <= o->max_noise) {
			out->stop_reason = "noise";
			break;
		}
		if (out->n >= min_n && elapsed >= o->max_time_s) {
			out->stop_reason = "time-limit";
			break;
		}
	}
	return 0;
}

int ax_runner_time_fn(const struct ax_suite *suite, const struct ax_params *p,
		      const struct ax_runner_opts *opts,
		      int (*one)(void *ctx, uint32_t reps, double *sec),
		      void *ctx, struct ax_runner_samples *out)
{
	memset(out, 0, sizeof(*out));
	struct timing t = {suite, p, opts, one, ctx, out};
	uint32_t reps = 1;
	int rc = choose_reps(&t, &reps);
	out->reps_per_sample = reps;
	if (rc)
		return rc;
	if (opts->phase)
		opts->phase(opts->phase_ctx, AX_PHASE_TIMED);
	rc = sample_loop(&t, reps);
	if (opts->phase)
		opts->phase(opts->phase_ctx, AX_PHASE_DONE);
	return rc;
}

static int warm_up_and_verify(struct case_run *cr)
{
	struct ax_runner_result *out = cr->out;
	int warm = cr->opts->warmup > 0 ? cr->opts->warmup : 1;
	cr->warming = true;
	/* Host-timed suites wait on fences of their own with the context's
	 * timeout: the warm-up's longer floor is theirs too (a first
	 * dispatch may compile). */
	cr->vk->timeout_ns = sample_timeout_ns(cr);
	for (int i = 0; i < warm; i++) {
		double sec;
		int rc = sample(cr, 1, &sec);
		if (rc)
			return rc;
	}
	cr->warming = false;
	cr->vk->timeout_ns = timeout_ns(cr->opts);
	/* The output is checked before any time counts. */
	if (!cr->suite->verify)
		return 0;
	return cr->suite->verify(cr->state, out->error, sizeof(out->error));
}

/* The timing loop's sample: one submission (or host_op loop) of a case. */
static int case_sample(void *ctx, uint32_t reps, double *sec)
{
	return sample(ctx, reps, sec);
}

/* The samples become the result's (it owns and frees them). */
static void keep_samples(struct ax_runner_result *out,
			 const struct ax_runner_samples *s)
{
	out->stop_reason = s->stop_reason;
	out->n = s->n;
	out->seconds = s->seconds;
	out->values = s->values;
	out->summary = s->summary;
	out->reps_per_sample = s->reps_per_sample;
}

/* Everything before the first timed sample: the host-time calibration,
 * cold mode's scrub buffer, warm-up and verification. */
static int prepare(struct case_run *cr)
{
	struct ax_vk_ctx *vk = cr->vk;
	int rc = 0;
	if (!cr->host && !vk->timestamps)
		rc = calibrate_empty(cr);
	if (rc == 0 && cr->opts->mode == AX_MODE_COLD && !cr->host)
		rc = create_scrub(cr);
	if (rc == 0)
		rc = warm_up_and_verify(cr);
	return rc;
}

static const char *timing_mode(const struct case_run *cr)
{
	if (cr->host)
		return "host";
	return cr->vk->timestamps ? "gpu-timestamp" : "host-minus-empty";
}

/* Check the point before anything is built: parameter rules first, then
 * the suite's device-specific validity predicate. */
static int check_point(struct case_run *cr, const struct ax_params *p)
{
	struct ax_runner_result *out = cr->out;
	int rc = ax_params_check(p, out->error, sizeof(out->error));
	if (rc == 0 && cr->suite->check)
		rc = cr->suite->check(p, cr->vk->info, out->error,
				      sizeof(out->error));
	return rc;
}

/* The samples' shape (core/stats_dist.h) in the result's extra: a median
 * alone hides two modes (the latency suite on a 2-vCPU VM,
 * docs/RELIABILITY.md).  Nothing with too few samples to tell. */
static void add_distribution(struct ax_runner_result *out)
{
	struct ax_dist d;
	if (ax_stats_dist_describe(out->values, out->n, &d))
		return;
	if (!out->extra)
		out->extra = json_object();
	if (json_is_object(out->extra))
		json_object_set_new(out->extra, "distribution",
				    ax_stats_dist_json(&d));
}

/* A latency distribution's percentiles (GSL's quantiles, linear
 * interpolation) of the repetitions' seconds, in the result's extra. */
static void add_latency(struct ax_runner_result *out)
{
	size_t n = (size_t)out->n;
	double *t = malloc(n * sizeof(double));
	if (!t)
		return;
	memcpy(t, out->seconds, n * sizeof(double));
	gsl_sort(t, 1, n);
	if (!out->extra)
		out->extra = json_object();
	json_object_set_new(
	    out->extra, "latency",
	    json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:s}", "passes", out->n,
		      "p50_ms",
		      gsl_stats_quantile_from_sorted_data(t, 1, n, 0.5) * 1e3,
		      "p90_ms",
		      gsl_stats_quantile_from_sorted_data(t, 1, n, 0.9) * 1e3,
		      "p99_ms",
		      gsl_stats_quantile_from_sorted_data(t, 1, n, 0.99) * 1e3,
		      "min_ms", t[0] * 1e3, "max_ms", t[n - 1] * 1e3,
		      "timed_by", out->timing_mode));
	free(t);
}

/* The suite's measurement after the samples (ax_suite after): a failure
 * fails the case. */
static void run_after(struct case_run *cr)
{
	struct ax_runner_result *out = cr->out;
	if (!out->extra)
		out->extra = json_object();
	char err[sizeof(out->error)] = "";
	int rc = cr->suite->after(cr->state, cr->p, out->seconds, out->n,
				  out->extra, err, sizeof(err));
	if (rc)
		fail(cr, rc, outcome_for(rc), err[0] ? err : ax_strerror(rc));
}

static void finish_ok(struct case_run *cr)
{
	struct ax_runner_result *out = cr->out;
	if (out->n == 0)
		return (void)fail(cr, AX_EINTR, AX_CASE_INTERRUPTED,
				  "interrupted before the first sample");
	out->status = 0;
	out->outcome = AX_CASE_OK;
	out->status_text = ax_case_status_name(AX_CASE_OK);
	ax_stats_summarize(out->values, out->n, 0.95, &out->summary);
	if (cr->suite->describe)
		out->extra = cr->suite->describe(cr->state);
	add_distribution(out);
	if (latency_passes(cr->suite, cr->p) > 0)
		add_latency(out);
	if (cr->suite->after)
		run_after(cr);
}

/* Work that merely overran its timeout usually finishes soon after: wait
 * a grace period, so the device stays usable and the case's buffers can
 * be released.  An injected stall (stall.h) is let go before the grace
 * period, or only after it with "hold". */
double ax_runner_grace_s(double timeout_s)
{
	double grace = timeout_s * 10;
	return grace < 2 ? 2 : grace > 60 ? 60 : grace;
}

static void wait_for_overrun(struct case_run *cr)
{
	double grace = cr->opts->grace_s;
	if (grace == 0)
		grace = ax_runner_grace_s(cr->opts->timeout_s);
	if (!ax_stall_holds(cr->stall))
		ax_stall_release(cr->stall);
	double t0 = now_s();
	ax_vk_recover(cr->vk, grace > 0 ? (uint64_t)(grace * 1e9) : 0);
	cr->out->grace_waited_s = now_s() - t0;
}

/* A fence wait that Ctrl-C ended left its work pending.  An injected
 * stall is let go and the work given a moment to finish, so that the
 * context closes properly; work that is still running (a real hang) is
 * left to the process exit, as a hang's is. */
#define AX_STOP_SETTLE_NS 1000000000ull

static void settle_interrupted(struct case_run *cr)
{
	ax_stall_release(cr->stall);
	ax_vk_settle(cr->vk, AX_STOP_SETTLE_NS);
}

static void note_injected(char *error, size_t len)
{
	size_t used = strlen(error);
	snprintf(error + used, len - used,
		 " [stall injected by " AX_STALL_ENV ", test-only]");
}

/* Samples taken before a failure are stored with the failed case: say
 * that they are there and what they are. */
static void note_partial(struct ax_runner_result *out)
{
	size_t used = strlen(out->error);
	snprintf(out->error + used, sizeof(out->error) - used,
		 "; the %d sample%s before it %s kept, a partial result",
		 out->n, out->n == 1 ? "" : "s", out->n == 1 ? "is" : "are");
}

/* A case set up, warmed up and verified, its repetitions per sample
 * chosen: what ax_runner_run_case samples in one go and a paired
 * measurement in rounds. */
struct ax_runner_case {
	struct case_run cr;
	const struct ax_params *p;
	uint32_t reps;
	int cap; /* room in out->seconds and out->values */
};

/* The end of a case, measured or not: its device left usable where it
 * can be, its error said, its buffers and state released. */
static int close_case(struct case_run *cr, int rc)
{
	struct ax_runner_result *out = cr->out;
	struct ax_vk_ctx *vk = cr->vk;
	if (rc == AX_ETIMEOUT && vk->lost)
		wait_for_overrun(cr);
	else if (rc == AX_EINTR && vk->lost)
		settle_interrupted(cr);
	if (rc && !out->error[0])
		snprintf(out->error, sizeof(out->error), "%s",
			 vk->err[0] ? vk->err : ax_strerror(rc));
	if (rc && out->n > 0)
		note_partial(out);
	if (rc && ax_stall_recorded(cr->stall))
		note_injected(out->error, sizeof(out->error));
	ax_stall_destroy(vk, cr->stall);
	if (rc)
		fail(cr, rc, outcome_for(rc), NULL);
	else
		finish_ok(cr);
	ax_vk_buffer_destroy(vk, &cr->scrub);
	/* Also after a loss: host memory is freed, and the ax_vk_*_destroy
	 * calls a suite makes are no-ops on a lost context. */
	cr->suite->teardown(vk, cr->state);
	return out->status;
}

/* Checks, setup and the stall injection: a case ready to prepare.
 * Failing before setup, nothing is left to release. */
static int set_up(struct case_run *cr, const struct ax_params *p, bool *built)
{
	struct ax_runner_result *out = cr->out;
	struct ax_vk_ctx *vk = cr->vk;
	const struct ax_suite *suite = cr->suite;
	struct ax_stall_mode stall_mode;
	*built = false;
	vk->timeout_ns = timeout_ns(cr->opts);
	cr->host =
	    !suite->record || (suite->host_timed && suite->host_timed(p));
	out->timing_mode = timing_mode(cr);
	if (suite->shader)
		ax_vk_shader_hash(suite->shader(p), out->shader_hash);
	int stall_picked =
	    ax_stall_pick(&stall_mode, out->error, sizeof(out->error));
	if (stall_picked < 0)
		return fail(cr, AX_EINVAL, AX_CASE_ERROR, NULL);
	int rc = check_point(cr, p);
	if (rc)
		return fail(cr, rc, outcome_for(rc), NULL);
	if (vk->lost)
		return fail(cr, AX_EDEVLOST, AX_CASE_SKIPPED,
			    "the device was lost by an earlier case (a timeout "
			    "or device loss)");
	double t0 = now_s(), c0 = vk->compile_ms_total;
	rc = suite->setup(vk, p, &cr->state, out->error, sizeof(out->error));
	out->setup_ms = (now_s() - t0) * 1e3;
	out->compile_ms = vk->compile_ms_total - c0;
	if (rc)
		return fail(cr, rc, outcome_for(rc), NULL);
	*built = true;
	if (suite->spirv_hash)
		snprintf(out->shader_hash, sizeof(out->shader_hash), "%s",
			 suite->spirv_hash(cr->state));
	return stall_picked ? ax_stall_create(vk, &stall_mode, &cr->stall) : 0;
}

int ax_runner_case_open(struct ax_vk_ctx *vk, const struct ax_suite *suite,
			const struct ax_params *p,
			const struct ax_runner_opts *opts,
			struct ax_runner_result *out,
			struct ax_runner_case **cp)
{
	memset(out, 0, sizeof(*out));
	*cp = NULL;
	struct ax_runner_case *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(out->error, sizeof(out->error), "out of memory");
		out->status = AX_ENOMEM;
		out->outcome = AX_CASE_ERROR;
		out->status_text = ax_case_status_name(AX_CASE_ERROR);
		return AX_ENOMEM;
	}
	c->cr = (struct case_run){
	    .vk = vk, .suite = suite, .opts = opts, .out = out, .p = p};
	c->p = p;
	c->reps = 1;
	bool built;
	int rc = set_up(&c->cr, p, &built);
	if (rc && !built) {
		free(c);
		return out->status;
	}
	if (rc == 0)
		rc = prepare(&c->cr);
	struct ax_runner_samples none = {0};
	struct timing t = {suite, p, opts, case_sample, &c->cr, &none};
	if (rc == 0)
		rc = choose_reps(&t, &c->reps);
	out->reps_per_sample = c->reps;
	if (rc) {
		close_case(&c->cr, rc);
		free(c);
		return out->status;
	}
	*cp = c;
	return 0;
}

int ax_runner_case_rebuild(void *ctx)
{
	struct ax_runner_case *c = ctx;
	struct case_run *cr = &c->cr;
	struct ax_runner_result *out = cr->out;
	if (cr->vk->lost)
		return AX_EDEVLOST;
	cr->suite->teardown(cr->vk, cr->state);
	cr->state = NULL;
	double c0 = cr->vk->compile_ms_total;
	int rc = cr->suite->setup(cr->vk, c->p, &cr->state, out->error,
				  sizeof(out->error));
	out->compile_ms += cr->vk->compile_ms_total - c0;
	if (rc) {
		cr->state = NULL; /* a failed setup released what it made */
		return rc;
	}
	out->rebuilds++;
	return warm_up_and_verify(cr);
}

int ax_runner_case_close(struct ax_runner_case *c, int rc)
{
	if (!c)
		return AX_EINVAL;
	rc = close_case(&c->cr, rc);
	free(c);
	return rc;
}

/* The timing loop over an open case: its samples become the result's. */
static int sample_case(struct ax_runner_case *c)
{
	const struct ax_runner_opts *o = c->cr.opts;
	struct ax_runner_samples s = {.reps_per_sample = c->reps};
	struct timing t = {c->cr.suite, c->p, o, case_sample, &c->cr, &s};
	if (o->phase)
		o->phase(o->phase_ctx, AX_PHASE_TIMED);
	int rc = sample_loop(&t, c->reps);
	if (o->phase)
		o->phase(o->phase_ctx, AX_PHASE_DONE);
	keep_samples(c->cr.out, &s);
	return rc;
}

int ax_runner_run_case(struct ax_vk_ctx *vk, const struct ax_suite *suite,
		       const struct ax_params *p,
		       const struct ax_runner_opts *opts,
		       struct ax_runner_result *out)
{
	struct ax_runner_case *c;
	if (ax_runner_case_open(vk, suite, p, opts, out, &c))
		return out->status;
	return ax_runner_case_close(c, sample_case(c));
}

/* Room for more samples in the case's result. */
static int grow(struct ax_runner_case *c, int more)
{
	struct ax_runner_result *out = c->cr.out;
	if (out->n + more <= c->cap)
		return 0;
	int cap = (out->n + more) * 2;
	double *sec = realloc(out->seconds, sizeof(double) * (size_t)cap);
	if (sec)
		out->seconds = sec;
	double *val =
	    sec ? realloc(out->values, sizeof(double) * (size_t)cap) : NULL;
	if (val)
		out->values = val;
	if (!sec || !val)
		return AX_ENOMEM;
	c->cap = cap;
	return 0;
}

int ax_runner_case_round(void *ctx, int samples, double *value)
{
	struct ax_runner_case *c = ctx;
	struct ax_runner_result *out = c->cr.out;
	const struct ax_suite *s = c->cr.suite;
	*value = NAN;
	if (samples < 1)
		samples = 1;
	int rc = grow(c, samples);
	for (int i = 0; rc == 0 && i < samples; i++) {
		double sec;
		if ((rc = sample(&c->cr, c->reps, &sec)))
			break;
		out->seconds[out->n] = sec;
		out->values[out->n] = value_of(s, c->p, sec);
		out->n++;
	}
	struct ax_summary m;
	if (rc == 0 && ax_stats_summarize(out->values + out->n - samples,
					  samples, 0.95, &m) == 0)
		*value = m.median;
	out->stop_reason = "paired";
	return rc;
}

uint32_t ax_runner_case_reps(const struct ax_runner_case *c) { return c->reps; }

int ax_runner_case_work(struct ax_runner_case *c, uint32_t reps, double *sec)
{
	struct ax_runner_result *out = c->cr.out;
	int rc = grow(c, 1);
	if (rc == 0)
		rc = sample(&c->cr, reps ? reps : 1, sec);
	if (rc)
		return rc;
	out->seconds[out->n] = *sec;
	out->values[out->n] = value_of(c->cr.suite, c->p, *sec);
	out->n++;
	out->stop_reason = "split";
	return 0;
}

void ax_runner_result_release(struct ax_runner_result *r)
{
	free(r->seconds);
	free(r->values);
	json_decref(r->extra);
	memset(r, 0, sizeof(*r));
}

double ax_runner_median_seconds(const struct ax_runner_result *r)
{
	struct ax_summary m;
	if (r->status != 0 || r->n == 0 ||
	    ax_stats_summarize(r->seconds, r->n, 0.95, &m))
		return NAN;
	return m.median;
}
