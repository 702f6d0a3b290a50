/*
 * app/session.h - one measurement session: what `run`, `tune` and
 * `recommend --measure` share between choosing a device and exiting.
 *
 *   ax_session_init            nothing opened yet
 *   ax_session_choose_device   the Vulkan instance and --device
 *   ax_session_open_db         the database, read-write (once)
 *   ax_session_begin_run       the logical device, host and device rows,
 *                              the run row
 *   ax_session_measure         one case through the runner, stored with
 *                              its samples as it finishes; a device lost
 *                              by an earlier case is replaced first
 *   ax_session_measure_pair    two cases in alternating rounds (paired
 *                              A/B), both stored with the judgement
 *   ax_session_finish          the run's final status, the validation
 *                              verdict, everything closed
 *
 * The runner-result-to-database mapping lives here and nowhere else, and
 * so does the rule for a lost device: the old context is left alone
 * (pending work cannot be reclaimed) and the session goes on with a new
 * logical device, at most AX_SESSION_MAX_REOPENS times; after that the
 * runner stores the remaining cases as skipped, with the reason.
 * Telemetry hooks in here too (app/session_power.c): the device's sensor
 * is opened with the logical device and an idle baseline measured; each
 * case is sampled from its set-up to its end and the figures of its timed
 * span stored with the result, or the reason there are none.
 */
#ifndef AX_APP_SESSION_H
#define AX_APP_SESSION_H

#include "app/app.h"
#include "core/db.h"
#include "suites/cpu_baseline.h"
#include "suites/runner.h"

#include <jansson.h>
#include <stdint.h>

#define AX_SESSION_MAX_REOPENS 3

/* Idle baseline before the first case, seconds, by default. */
#define AX_SESSION_IDLE_S 1.0

enum ax_cpu_baseline_mode {
	AX_CPU_BASELINE_AUTO,	/* once per (shape, host), then from the db */
	AX_CPU_BASELINE_OFF,	/* no CPU comparison */
	AX_CPU_BASELINE_ALWAYS, /* measure again every run */
};

/* What a session measures beside time (issue 13); ax_session_init sets
 * the defaults, a command changes them before ax_session_begin_run. */
struct ax_session_efficiency {
	double interval_s; /* telemetry sampling (AX_TEL_INTERVAL_DEFAULT) */
	double idle_s;	   /* idle baseline (AX_SESSION_IDLE_S; 0: none) */
	bool sustain;	   /* --sustain: apply the slowdown rule */
	bool no_power;	   /* open no sensor and say nothing of power (ab:
			      one sensor cannot tell two interleaved sides
			      apart, so a pair stores none) */
	enum ax_cpu_baseline_mode cpu;
};

struct ax_vk_instance;
struct ax_vk_ctx;
struct ax_vk_device_info;
struct ax_db;
struct ax_tel_source;

/* Fields are read-only for callers. */
struct ax_session {
	struct ax_app *app;
	const char *command; /* "run", "tune": names messages */
	struct ax_vk_instance *inst;
	int device_index;
	const struct ax_vk_device_info *info; /* the chosen device */
	struct ax_vk_ctx *vk;		      /* after ax_session_begin_run */
	struct ax_db *db;
	int64_t run_id, host_id, device_id;
	int reopens;		       /* logical devices opened after a loss */
	bool was_lost;		       /* some case lost its device */
	double grace_spent_s;	       /* waited for overrunning work, in all */
	char lost_case[512];	       /* the case that lost it last */
	const char *lost_how;	       /* "hung" or "was lost" */
	bool said_limit;	       /* no more new devices: said */
	int n_ok, n_failed, n_skipped; /* stored results by outcome */
	bool store_failed;	       /* a measured result was not stored */
	struct ax_session_efficiency eff;
	struct ax_tel_source *tel; /* the device's sensor; NULL: none */
	char tel_reason[512];	   /* why there is none */
	double idle_w;		   /* idle power, NAN when not measured */
	/* CPU baselines (app/session_cpu.c), decided at the first one */
	bool cpu_ready;
	int cpu_threads;	   /* 0: no baselines (off, or no library) */
	struct ax_cpu_lib cpu_lib; /* what a stored baseline must match */
	/* Called at each of a case's phases after telemetry's mark (NULL:
	 * none): run --concurrent starts the devices' timed spans
	 * together. */
	void (*phase_hook)(void *ctx, enum ax_runner_phase phase);
	void *phase_ctx;
};

/* What the run row records besides the command line. */
struct ax_session_run {
	const char *config_json; /* measurement settings, JSON text */
	const char *profile;	 /* profile name, or NULL */
	const char *label;	 /* --label (checked), or NULL: HOST/DEVICE */
};

/* A fresh logical device for the next pass of `run --rounds`: the old
 * one is closed (it is idle between cases) and another opened, so
 * allocations, pipelines and the driver's threads start anew, as in a
 * new process.  Returns 0 or the exit code (after printing why). */
int ax_session_reopen_device(struct ax_session *s);

/* For callers that drive the runner themselves (run --split): a device
 * lost by an earlier case replaced by the session's rule, and a case's
 * end noted as ax_session_measure notes it (the lost device, the grace
 * spent). */
void ax_session_ensure_device(struct ax_session *s);
void ax_session_note_case(struct ax_session *s,
			  const struct ax_runner_result *r, const char *label);

/* One measured and stored case. */
struct ax_session_case {
	struct ax_runner_result r; /* release with ax_session_case_release */
	char label[512];	   /* "op=copy size=64M", see below */
	int64_t result_id;	   /* 0 when it could not be stored */
	/* What was stored beside the time; NAN when not measured. */
	double mean_w, perf_per_w, energy_rep_j, speedup_vs_cpu;
};

struct ax_session_timing;

/* An empty session for command ("run", "tune"); nothing is opened. */
void ax_session_init(struct ax_session *s, struct ax_app *app,
		     const char *command);

/* Create the instance and resolve --device (s->info).  Returns 0 or the
 * exit code (after printing the error). */
int ax_session_choose_device(struct ax_session *s);

/* The same with the device given by its index (run --device all):
 * 0 or the exit code (after printing the error). */
int ax_session_choose_device_at(struct ax_session *s, int index);

/* Open the database read-write, unless already open.  0 or exit code. */
int ax_session_open_db(struct ax_session *s);

/* Open the logical device, register host and device, begin the run row
 * (opening the database first if needed).  0 or the exit code. */
int ax_session_begin_run(struct ax_session *s,
			 const struct ax_session_run *run);

/*
 * Measure suite at point p with opts and store the result with its
 * samples, before returning.  extra (may be NULL, borrowed) holds fields
 * the caller adds to the result's extra JSON (a tuning session's id and
 * the trial's role); the session adds the suite's own facts, bytes moved,
 * repetitions per sample and setup / compile times.  Returns 0, or
 * AX_EXIT_STORAGE after printing what could not be stored (out->r is
 * filled either way).
 */
int ax_session_measure(struct ax_session *s, const struct ax_suite *suite,
		       const struct ax_params *p,
		       const struct ax_runner_opts *opts, const json_t *extra,
		       struct ax_session_case *out);
void ax_session_case_release(struct ax_session_case *c);

/* ax_session_measure in two halves: time the case (may run on a thread
 * of its own, one per session: it touches only s's device, sensor and
 * t), then store it (the CPU baseline, the database: from the thread
 * that owns the database connection).  Release t->c afterwards with
 * ax_session_case_release. */
void ax_session_time_case(struct ax_session *s, const struct ax_suite *suite,
			  const struct ax_params *p,
			  const struct ax_runner_opts *opts,
			  struct ax_session_timing *t);
int ax_session_store_case(struct ax_session *s, const struct ax_suite *suite,
			  const struct ax_params *p,
			  const struct ax_runner_opts *opts, const json_t *extra,
			  struct ax_session_timing *t);

/*
 * Finish the run row: "interrupted" when a signal arrived, "failed" when
 * rc is nonzero or a device was lost, else "complete"; then the
 * validation verdict, and everything is closed (whatever was opened:
 * any step may have failed).  Returns the exit code (130 for an
 * interrupt when rc was 0).
 */
int ax_session_finish(struct ax_session *s, int rc);

/* One side of a paired measurement (ax_session_measure_pair). */
struct ax_session_pair_side {
	const struct ax_suite *suite;
	const struct ax_params *p;
	const json_t *extra; /* fields for its stored result (borrowed) */
	struct ax_session_case c; /* out: release with
				     ax_session_case_release */
};

/*
 * Measure two variants on the session's device in alternating rounds
 * (ax_runner_pair with po; each case set up, warmed up and verified once
 * with opts) and store both results with every round's samples, A
 * first.  Each side's extra JSON gets "pair": side ("A" / "B"), rounds,
 * stop_reason, speedup, speedup_lo, speedup_hi (B's speed over A's),
 * p_value, level, and on B other_result_id (A's result).  A side that
 * cannot run (invalid, failed verification ...) is stored with its
 * reason and no pairing is done; its partner, never sampled, is not
 * stored (its result_id stays 0).  No power is stored: one sensor
 * cannot tell two interleaved sides apart.  *pr is the judgement
 * (release it).  Returns 0 or the exit code of a storage failure.
 */
int ax_session_measure_pair(struct ax_session *s,
			    const struct ax_runner_opts *opts,
			    const struct ax_runner_pair_opts *po,
			    struct ax_session_pair_side *a,
			    struct ax_session_pair_side *b,
			    struct ax_runner_pair_result *pr);

/* The defaults (what ax_session_init sets). */
void ax_session_efficiency_default(struct ax_session_efficiency *e);

/* "auto", "off", "always" (NULL-terminated, enum order). */
const char *const *ax_cpu_baseline_modes(void);

/* --sustain S: each case samples for S seconds, whatever the noise.
 * Refuses (AX_EXIT_USAGE, named) when the command line also set the
 * sampling time, noise or sample count, which --sustain replaces. */
int ax_session_apply_sustain(struct ax_app *app, double sustain_s,
			     unsigned measure_set, struct ax_runner_opts *o);

/* ---- app/session_power.c: telemetry of the session's cases ---------- */

/* Open the sensor of the session's device and measure the idle power
 * (s->tel, s->tel_reason, s->idle_w); never fails the run. */
void ax_session_power_open(struct ax_session *s);
void ax_session_power_close(struct ax_session *s);

/* Has the chosen device (s->info) a sensor?  0, or AX_ENOTFOUND with
 * the reason in why; opens nothing that stays open. */
int ax_session_power_probe(const struct ax_session *s, char *why, size_t len);

/* One case's telemetry: started before the runner, its phase callback
 * given to the runner, finished into the power row stored with the
 * result. */
struct ax_session_power {
	struct ax_session *s;
	struct ax_tel_sampler *sampler;
	double t0;
	size_t timed_from, timed_to;
	bool have_from, have_to;
	double mem_used_b, mem_budget_b; /* VK_EXT_memory_budget, NAN */
	char unit[40], evidence[512], reason[256];
	struct ax_db_series series;
	struct ax_db_power row;
};
void ax_session_power_start(struct ax_session *s, struct ax_session_power *cp,
			    struct ax_runner_opts *opts);
/* The power row for the result (NULL for a case that was not measured:
 * a failed or skipped one); valid until ax_session_power_release. */
const struct ax_db_power *
ax_session_power_finish(struct ax_session_power *cp,
			const struct ax_suite *suite,
			const struct ax_runner_result *r);
void ax_session_power_release(struct ax_session_power *cp);

/* One case timed but not yet stored (ax_session_time_case), so that
 * several sessions can time one case at once (run --concurrent) and
 * store afterwards, one at a time, from one thread. */
struct ax_session_timing {
	struct ax_session_case c;
	struct ax_session *s;
	struct ax_session_power power;
	const struct ax_db_power *row; /* power row, or NULL */
	void (*power_phase)(void *, enum ax_runner_phase);
	void *power_ctx;
};

/* ---- app/session_cpu.c: the speed-up over the host CPU ---------------- */

/*
 * For a verified result r of a suite with a CPU baseline: the baseline of
 * its shape (from the database under --cpu-baseline auto, else measured
 * now with opts and stored) and the speed-up, device figure over CPU
 * figure in the suite's direction.  *baseline_id 0 and *speedup NAN when
 * there is none (off, no library, a failed or interrupted baseline).
 */
void ax_session_cpu_compare(struct ax_session *s, const struct ax_suite *suite,
			    const struct ax_params *p,
			    const struct ax_runner_opts *opts,
			    const struct ax_runner_result *r,
			    int64_t *baseline_id, double *speedup);

/* "op=copy size=64M" plus the tunables that differ from their defaults. */
void ax_session_case_label(const struct ax_params *p, char *buf, size_t len);

#endif
