/*
 * app/ab.h - `axbench ab` and `axbench kernel compare`: two variants of
 * one case measured in alternating rounds and judged on the per-round
 * ratios (suites/runner.h ax_runner_pair), the verdict under compare's
 * rules (reports/compare_paired.h).
 *
 * A variant is a suite (or a kernel file, suites/kernel.h) at a
 * parameter set: the parameters both sides share, then the side's own
 * (which win), then an exported tuned file's point for the side.  In one
 * process both cases are set up, verified and kept open on one device
 * and measured round by round (app/session.h ax_session_measure_pair),
 * and the run is stored with kind "ab", both results carrying
 * extra.pair.  In process mode (a side names another executable or
 * environment variables: two builds or drivers that cannot share a
 * process) each round of a side is a process: `EXE run SUITE ...` (or
 * `EXE kernel run FILE ...`) of that one case into a temporary database
 * with a fixed number of samples, whose median is the round's value.
 * Only options that every `run` since 0.1 knows are passed, so an older
 * build can be the other side.  Process mode stores nothing in the
 * database: the verdict and its document are its output.
 */
#ifndef AX_APP_AB_H
#define AX_APP_AB_H

#include "app/app.h"
#include "reports/compare.h"
#include "suites/runner.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* At most this many NAME=VALUE per side (and shared), and VAR=VAL. */
#define AX_AB_MAX_PARAMS 64
#define AX_AB_MAX_ENV 16

/* What one side is, as the command line said it. */
struct ax_ab_side {
	const char *kernel; /* FILE.yaml, or NULL: the suite */
	const char *params[AX_AB_MAX_PARAMS]; /* NAME=VALUE, this side's */
	int n_params;
	const char *tuned; /* an `axbench export` document, or NULL */
	const char *exe;   /* process mode: the axbench binary; NULL: this */
	const char *env[AX_AB_MAX_ENV]; /* process mode: VAR=VAL */
	int n_env;
};

struct ax_ab_opts {
	const char *command; /* names messages: "ab", "kernel compare" */
	const char *suite; /* a built-in suite, or NULL with kernels */
	const char *params[AX_AB_MAX_PARAMS]; /* NAME=VALUE, both sides */
	int n_params;
	struct ax_ab_side a, b;
	/* Rounds, samples per round, noise target, time limit, level (the
	 * stop and progress fields are set by ax_ab_run). */
	struct ax_runner_pair_opts pair;
	int warmup;	  /* untimed repetitions per side (per process) */
	double threshold; /* minimum effect, fraction (compare's 2 %) */
	const char *label; /* --label (checked), or NULL */
};

/* Fill o with the defaults: rounds 10..100 of 3 samples, noise 1 %,
 * 60 s, warm-up 2, threshold 2 %. */
void ax_ab_opts_default(struct ax_ab_opts *o);

/* One side as measured. */
struct ax_ab_side_result {
	char suite[128];
	const char *kernel; /* the file, or NULL (borrowed from the opts) */
	json_t *process;    /* process mode: {"exe", "env"}; else NULL */
	char label[512];    /* "n=65536 iters=282" */
	json_t *params;	    /* the point (owned) */
	int64_t result_id;  /* 0: not stored (process mode) */
	double median;	    /* of the rounds' values, in the unit */
	const char *status; /* "ok", or what stopped it */
};

/* The outcome of ax_ab_run (release with ax_ab_result_release). */
struct ax_ab_result {
	bool process; /* process mode */
	int64_t run_id;
	char device[256]; /* "" in process mode */
	char unit[32];
	bool higher_is_better;
	struct ax_ab_side_result a, b;
	struct ax_runner_pair_result pair; /* the rounds and judgement */
	struct ax_compare_stat stat;	   /* the verdict, B against A */
	double mde; /* smallest change this measurement could call */
	bool interrupted;
	char error[1024]; /* why a side could not be measured, or "" */
};

/*
 * Measure A against B as o says, printing progress on stderr (a line
 * per round, rewritten on a terminal; -q: none).  Returns 0 with *out
 * filled, or the exit code after printing the error: 2 for bad input
 * (an unknown parameter or suite, a missing kernel file, a sweep where
 * one value is needed, A and B the same by omission), 4, 5; 1 when a
 * side failed (verification, compile: out->error says which); 130
 * when interrupted (out holds what was measured).
 */
int ax_ab_run(struct ax_app *app, const struct ax_ab_opts *o,
	      struct ax_ab_result *out);
void ax_ab_result_release(struct ax_ab_result *r);

/* The exit status of a judged comparison, compare's rules: 1 slower,
 * 3 ambiguous under strict, else 0. */
int ax_ab_exit(const struct ax_ab_result *r, bool strict);

/* The document of --json (docs/JSON.md#ab); the caller's reference. */
json_t *ax_ab_json(const struct ax_ab_result *r);

/* "B is 9.1 % slower than A [8.4 %, 9.8 %]" (ratios for large
 * changes) into buf. */
const char *ax_ab_change_text(const struct ax_ab_result *r, char *buf,
			      size_t len);

#endif
