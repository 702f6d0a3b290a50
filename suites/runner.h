/*
 * suites/runner.h - the one timing loop (DESIGN section 5).
 *
 * For one case the runner checks the point against the device, sets the
 * suite up, warms up, verifies the output against the CPU reference, then
 * samples until the relative noise of the median is below a target or a
 * sample / time limit is reached, and records why it stopped.
 *
 * GPU suites are timed with timestamps written before and after the
 * measured repetitions inside one submission (scaled by timestampPeriod,
 * masked to timestampValidBits).  Devices without compute timestamps fall
 * back to host time of the whole submission minus the time of an empty
 * submission; host-timed suites use a monotonic clock.  The mode used is
 * recorded with the result.
 *
 * batch mode: each sample is `reps` back-to-back repetitions, reps chosen
 * so that one sample lasts at least target_sample_s; the sample value is
 * the time per repetition.  cold mode: one repetition per sample, after a
 * scrub of a buffer larger than the last-level cache.
 */
#ifndef AX_RUNNER_H
#define AX_RUNNER_H

#include "core/stats.h"
#include "suites/suite.h"

enum ax_run_mode { AX_MODE_BATCH, AX_MODE_COLD };

/* Where a case is: telemetry counts power over the timed span only. */
enum ax_runner_phase {
	AX_PHASE_TIMED, /* the first timed sample is about to run */
	AX_PHASE_DONE,	/* the last timed sample has finished */
};

struct ax_runner_opts {
	int warmup; /* untimed repetitions before sampling */
	int min_samples, max_samples;
	double max_noise;	 /* target rel. half-width of median CI */
	double min_time_s;	 /* keep sampling at least this long */
	double max_time_s;	 /* stop sampling after this long */
	double timeout_s;	 /* fence timeout for one submission (warm-up
				    submissions get at least 60 s: drivers may
				    compile the pipeline at first dispatch) */
	double target_sample_s;	 /* batch mode: minimum duration of a sample */
	double grace_s;		 /* how long work that overran timeout_s is
				    waited for before the device counts as
				    hung: 0 the default (ax_runner_grace_s),
				    < 0 not at all (a session's budget for
				    hangs is spent, app/session.c) */
	bool short_warmup_floor; /* warm-up gets at least 10 s (30 s in a
				    sanitized build), not 60 s: a session
				    sets it after a hang, when a warm-up
				    that outlasts that is taken as another
				    hang, not as compilation */
	enum ax_run_mode mode;
	volatile int *stop; /* set asynchronously to stop early */
	/* Called after each sample (may be NULL). */
	void (*progress)(void *ctx, int n_samples, double median_value);
	void *progress_ctx;
	/* Called as the case enters a phase (may be NULL). */
	void (*phase)(void *ctx, enum ax_runner_phase phase);
	void *phase_ctx;
};

/* Defaults: warmup 2, samples 5..50, noise 2 %, min 0.05 s, max 3 s,
 * timeout 10 s, batch samples of at least 2 ms. */
void ax_runner_opts_default(struct ax_runner_opts *o);

/* The default grace period for a fence timeout of timeout_s: ten times
 * it, from 2 to 60 s. */
double ax_runner_grace_s(double timeout_s);

/* What became of a case: the stored status, typed. */
enum ax_case_status {
	AX_CASE_OK,
	AX_CASE_FAILED_VERIFICATION, /* output differs from the reference */
	AX_CASE_TIMEOUT,	     /* a fence wait timed out */
	AX_CASE_SKIPPED,	/* unsupported here, or the device was lost */
	AX_CASE_INVALID,	/* the point breaks a rule or device limit */
	AX_CASE_COMPILE_FAILED, /* the driver could not build the pipeline */
	AX_CASE_INTERRUPTED,	/* stopped before the first sample */
	AX_CASE_ERROR,		/* anything else, with the reason */
};

/* "ok", "failed-verification", "timeout", "skipped", "invalid",
 * "compile-failed", "interrupted", "error": the text stored. */
const char *ax_case_status_name(enum ax_case_status s);

struct ax_runner_result {
	int status; /* 0, AX_EVERIFY, AX_EUNSUPPORTED, ... */
	enum ax_case_status outcome;
	const char *status_text;   /* ax_case_status_name(outcome) */
	char error[1024];	   /* why, when status != 0 */
	const char *stop_reason;   /* "noise", "max-samples", "time-limit",
				      "interrupted", or NULL */
	const char *timing_mode;   /* "gpu-timestamp", "host-minus-empty",
				      "host" */
	int n;			   /* samples */
	double *seconds;	   /* per repetition, n entries (owned) */
	double *values;		   /* in the suite's unit, n entries (owned) */
	struct ax_summary summary; /* of values */
	uint32_t reps_per_sample;
	double setup_ms, compile_ms;
	int rebuilds;	       /* times a paired case was built again */
	double grace_waited_s; /* waited for overrunning work (0: none) */
	char shader_hash[17];
	json_t *extra; /* the suite's describe(), owned, or NULL */
};

/* Run one case.  Always fills out (release it afterwards); returns
 * out->status.  AX_EDEVLOST / AX_ETIMEOUT leave vk marked lost. */
int ax_runner_run_case(struct ax_vk_ctx *vk, const struct ax_suite *suite,
		       const struct ax_params *p,
		       const struct ax_runner_opts *opts,
		       struct ax_runner_result *out);
void ax_runner_result_release(struct ax_runner_result *r);

/* The median seconds per repetition of a measured case (what the tuner
 * minimises and what a repetition's energy is taken over); NAN for a
 * case that failed or has no samples. */
double ax_runner_median_seconds(const struct ax_runner_result *r);

/* Samples of one timed piece of work (ax_runner_time_fn). */
struct ax_runner_samples {
	const char *stop_reason;   /* as ax_runner_result's */
	int n;			   /* samples */
	double *seconds;	   /* per repetition, n entries */
	double *values;		   /* in the suite's unit, n entries */
	struct ax_summary summary; /* of values */
	uint32_t reps_per_sample;
};

/*
 * The runner's repetition choice and stop rule, for work the caller has
 * warmed up and verified: every case goes through it, and so does work
 * timed outside a suite (the CPU baselines, suites/cpu_baseline.h), so
 * both stop by one rule.  Batch mode chooses repetitions per sample from
 * the fastest of up to three one-repetition probes (at least
 * target_sample_s a sample, at most timeout_s / 4); cold mode takes 1.
 * Then one(ctx, reps, &sec) is called per sample, sec being seconds per
 * repetition, until the stop rule of opts holds (noise, max_samples,
 * max_time_s, the stop flag).  Each sample is kept as seconds and as the
 * suite's value at p (suite->metric, work, scale); opts->progress is
 * called after each, and opts->phase with AX_PHASE_TIMED before the
 * first and AX_PHASE_DONE after the last.  Always fills out;
 * out->seconds and out->values are the caller's to free, also on
 * failure.  Returns 0, AX_ENOMEM or one's error.
 */
int ax_runner_time_fn(const struct ax_suite *suite, const struct ax_params *p,
		      const struct ax_runner_opts *opts,
		      int (*one)(void *ctx, uint32_t reps, double *sec),
		      void *ctx, struct ax_runner_samples *out);

/* ---- cases kept open, and paired measurement ------------------------ */

/* A case set up, warmed up and verified, ready to be sampled in rounds. */
struct ax_runner_case;

/*
 * The first half of ax_runner_run_case: the point checked, the suite set
 * up, warmed up and its output verified against the reference, the
 * repetitions per sample chosen.  out (the caller's, alive until the case
 * is closed) is filled as run_case fills it.  On success *c is the open
 * case; on failure *c is NULL, everything is released and out says why
 * (release out as after run_case).  Returns out->status.
 */
int ax_runner_case_open(struct ax_vk_ctx *vk, const struct ax_suite *suite,
			const struct ax_params *p,
			const struct ax_runner_opts *opts,
			struct ax_runner_result *out,
			struct ax_runner_case **c);

/*
 * One round of an open case (ctx is the struct ax_runner_case *):
 * `samples` samples at the case's repetitions, appended to its result;
 * *value is their median in the suite's unit.  The shape of
 * ax_runner_pair_side.round.  The result's stop reason becomes "paired".
 * Returns 0 or the sample's error (close the case with it).
 */
int ax_runner_case_round(void *ctx, int samples, double *value);

/*
 * Build the open case again where it stands: the suite torn down and set
 * up anew (fresh buffers, so fresh memory; a fresh pipeline), warmed up
 * and verified again; the repetitions and every sample taken are kept.
 * A paired measurement rebuilds its cases between blocks of rounds so
 * that what a case's placement in memory does to its speed varies within
 * the measurement, as it varies between processes, and is in the
 * interval (docs/RELIABILITY.md).  ctx is the struct ax_runner_case *
 * (the shape of ax_runner_pair_side.rebuild).  Returns 0 or the error to
 * close the case with.
 */
int ax_runner_case_rebuild(void *ctx);

/* The repetitions per sample the open case chose (its probe). */
uint32_t ax_runner_case_reps(const struct ax_runner_case *c);

/*
 * One piece of a job shared across devices (run --split): exactly reps
 * repetitions as one sample, appended to the case's result (stop reason
 * "split"); *sec is seconds per repetition.  Returns 0 or the sample's
 * error (close the case with it: a timeout leaves the device lost).
 */
int ax_runner_case_work(struct ax_runner_case *c, uint32_t reps, double *sec);

/* The second half: the result summarised over every sample taken (or
 * failed with rc when rc != 0), the suite torn down, c freed.  Returns
 * the result's status. */
int ax_runner_case_close(struct ax_runner_case *c, int rc);

/*
 * Paired A/B measurement (suites/runner_pair.c): two variants measured in
 * alternating rounds, A then B, then B then A (ABBA), and judged on the
 * per-round ratios.  Whatever the machine does that lasts longer than a
 * round -- another process, a clock change, a warmer chip -- slows both
 * sides of that round alike and cancels in the ratio, which is why this
 * verdict survives a machine whose speed drifts between processes.  A
 * side is anything that measures one round: an open case
 * (ax_runner_case_round), another device's case, or another process.
 */
struct ax_runner_pair_side {
	/* Measure one round of `samples` samples; *value in the suite's
	 * unit (the median of the round).  Non-zero stops the pairing. */
	int (*round)(void *ctx, int samples, double *value);
	void *ctx;
	/* Build the side again between blocks (ax_runner_case_rebuild), or
	 * NULL where a side cannot be rebuilt (another process is fresh
	 * each round). */
	int (*rebuild)(void *ctx);
};

struct ax_runner_pair_result;

struct ax_runner_pair_opts {
	int min_rounds, max_rounds;
	int samples_per_round;
	double max_noise;  /* stop once the speed-up's interval is within
			      +/- this fraction of it */
	double max_time_s; /* stop after this long (past min_rounds) */
	double conf;	   /* level of the interval (0.95) */
	bool higher_is_better;
	/* Rebuild both sides (their .rebuild) after this many rounds, and
	 * judge on the spread between the blocks as well as between rounds;
	 * 0: never.  A block grows where a rebuild would take more than
	 * max_rebuild_share of the time the rounds take. */
	int block_rounds;
	double max_rebuild_share;
	volatile int *stop; /* set asynchronously to stop early */
	/* Called after each round with the judgement so far (may be NULL). */
	void (*progress)(void *ctx, const struct ax_runner_pair_result *r);
	void *progress_ctx;
};

/* Defaults: 10..100 rounds of 3 samples, noise 1 %, 60 s, 95 %; blocks
 * of 10 rounds, rebuilds at most 25 % of the rounds' time. */
void ax_runner_pair_opts_default(struct ax_runner_pair_opts *o);

struct ax_runner_pair_result {
	int rounds;
	double *a, *b;		    /* each round's value per side (owned) */
	double *log_speedup;	    /* per round: log(B's speed / A's speed) */
	struct ax_signed_rank test; /* of log_speedup */
	/* B's speed over A's (above 1: B is faster), the Hodges-Lehmann
	 * estimate of the per-round ratios and its interval; NAN before
	 * the first round. */
	double speedup, lo, hi;
	double half_width; /* (hi - lo) / 2 / speedup */
	double p_value;	   /* the verdict's: the rounds' test's, or the
			      blocks' where that is larger */
	int *block;	   /* per round: its block (owned) */
	struct ax_block_spread blocks; /* of log_speedup by block; .blocks
					  counts them, the rest is NAN
					  below 3 blocks */
	double rebuild_s;	       /* seconds spent rebuilding */
	const char *stop_reason;       /* "noise", "max-rounds", "time-limit",
					  "interrupted", "error" */
	int failed_side;	       /* 1 (A) or 2 (B) when a side's error
					  stopped the rounds, else 0 */
};

/*
 * Alternate rounds of a and b until the stop rule of o holds (at least
 * min_rounds, then the interval within max_noise, or max_rounds, or
 * max_time_s, or the stop flag).  Always fills out (release it); returns
 * 0, AX_EINVAL (bad options), AX_ENOMEM or a side's error, which stops
 * the rounds with what was measured kept.
 */
int ax_runner_pair(const struct ax_runner_pair_side *a,
		   const struct ax_runner_pair_side *b,
		   const struct ax_runner_pair_opts *o,
		   struct ax_runner_pair_result *out);
void ax_runner_pair_result_release(struct ax_runner_pair_result *r);

#endif
