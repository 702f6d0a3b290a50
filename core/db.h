/*
 * core/db.h - the SQLite store of every host, device, run, result, raw
 * sample, tuning session, trial and baseline (DESIGN section 6).
 *
 * The only module that includes sqlite3.h.  The database is opened in WAL
 * mode with foreign keys and a busy timeout, migrated with PRAGMA
 * user_version (one transaction per step).  A file written by a newer
 * axbench is refused with AX_EDBVERSION; a file that is not an SQLite
 * database, or an unwritable path, gives AX_EDB with a message naming the
 * path, and the file is left byte-for-byte untouched.
 *
 * Rows carry a UUID beside their integer id so that databases from many
 * machines can be merged.  Every write is its own committed transaction:
 * a result and its samples land together or not at all.
 *
 * Queries return the typed rows of core/db_rows.h, so that reports/ and
 * cli/ never see SQLite; the listings below give the same rows as the
 * documents of docs/JSON.md (core/db_json.c makes them), for writers that
 * print them whole.  The JSON shapes are documented at each function.
 */
#ifndef AX_DB_H
#define AX_DB_H

#include "core/db_rows.h"
#include "core/telemetry.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AX_DB_SCHEMA_VERSION 9

struct ax_db;

enum ax_db_open_flags {
	AX_DB_READONLY = 1u << 0, /* never create or migrate */
};

/* Open (and create/migrate unless read-only) the database at path.  On
 * failure *out is NULL and err holds "PATH: what is wrong; what to do". */
int ax_db_open(const char *path, unsigned flags, struct ax_db **out, char *err,
	       size_t errlen);
void ax_db_close(struct ax_db *db);

/*
 * Waiting for another process's write lock, for every handle of this
 * process.  A write that finds the database locked backs off (10 ms
 * doubling to 1 s) and retries for up to limit_s seconds in all
 * (AX_DB_LOCK_WAIT_S by default; a negative limit_s restores it), calling
 * on_wait(ctx, path, waited, limit) about every 5 s so that the user sees
 * why nothing happens; *stop (a signal flag; may be NULL) ends the wait at
 * once.  A write that still finds the lock fails with AX_EBUSY, or with
 * AX_EINTR when *stop ended the wait; nothing of it was written then.
 */
#define AX_DB_LOCK_WAIT_S 60.0
typedef void (*ax_db_wait_fn)(void *ctx, const char *path, double waited_s,
			      double limit_s);
void ax_db_set_lock_wait(double limit_s, const volatile int *stop,
			 ax_db_wait_fn on_wait, void *ctx);

/* Something the user should know about how the file was opened (read
 * from a private copy, and why), or NULL (borrowed). */
const char *ax_db_note(const struct ax_db *db);

/* Last error message of this handle (borrowed). */
const char *ax_db_errmsg(const struct ax_db *db);

/* Schema version of the open file (after migration). */
int ax_db_schema_version(const struct ax_db *db);

/* A random RFC 4122 version-4 UUID, 36 chars + NUL. */
void ax_uuid_v4(char out[37]);

/* ---- writes ---------------------------------------------------------- */

struct ax_db_host {
	const char *hostname, *os, *cpu_model;
	int cores, numa_nodes;
	int64_t memory_bytes;
	const char *topology_json; /* may be NULL */
};
/* Insert or find (by the fingerprint of the fields above) a host row. */
int ax_db_host_upsert(struct ax_db *db, const struct ax_db_host *h,
		      int64_t *id);

struct ax_db_device {
	const char *fingerprint; /* stable identity: see core/vk.h */
	const char *name, *vendor, *type, *driver_name, *driver_info;
	uint32_t vendor_id, device_id, driver_id, api_version, driver_version;
	const char *device_uuid, *driver_uuid, *pci_bus_id; /* may be NULL */
	const char *properties_json; /* everything `devices --json` shows */
};
/* Insert or find (by fingerprint) a device row, refreshing its JSON. */
int ax_db_device_upsert(struct ax_db *db, const struct ax_db_device *d,
			int64_t *id);

struct ax_db_run {
	int64_t host_id, device_id;
	const char *axbench_version, *git_sha;
	const char *argv_json;	 /* the command line as a JSON array */
	const char *config_json; /* profile / measurement settings */
	const char *profile;	 /* may be NULL */
	const char *label;	 /* the run's name for people; may be NULL */
};
/* Insert a run with status "running" and started_at = now. */
int ax_db_run_begin(struct ax_db *db, const struct ax_db_run *r, int64_t *id);
/* Set finished_at = now and status ("complete", "interrupted", "failed"). */
int ax_db_run_finish(struct ax_db *db, int64_t run_id, const char *status);

struct ax_db_result {
	int64_t run_id;
	const char *suite, *case_label;
	const char *params_json; /* canonical, from ax_params_to_json */
	const char *shader_hash; /* may be NULL */
	const char *unit;	 /* "GB/s", "GFLOP/s", "us" ... */
	bool higher_is_better;
	double work;		 /* bytes or FLOPs per measured repetition */
	const char *timing_mode; /* "gpu-timestamp" or "host" */
	const char *stop_reason; /* "noise", "max-samples", "time-limit" ... */
	const char *status;	 /* "ok", "failed-verification", "error",
				    "skipped", "timeout" */
	const char *error_text;	 /* why, when status is not "ok"; may be NULL */
	/* summary of the per-sample values (in unit); n == 0 when none */
	int n;
	double median, min, max, mean, stddev, q1, q3, mad, ci_lo, ci_hi;
	double rel_noise;
	const char *extra_json; /* suite-specific facts; may be NULL */
	/* The CPU baseline this result is compared with (0: none) and
	 * how many times the device's figure beats it (NAN: none). */
	int64_t cpu_baseline_id;
	double speedup_vs_cpu;
	/* Power over the timed span, stored with the result (NULL: the
	 * result was measured before telemetry existed, or not at all). */
	const struct ax_db_power *power;
};

/* A telemetry time series: the readings of one case, one idle baseline
 * or one monitor, times stored relative to t0. */
struct ax_db_series {
	int64_t run_id, result_id, device_id; /* 0: none */
	const char *kind;		      /* "case", "idle", "monitor" */
	const char *source;		      /* "NVML", "RAPL" ... */
	double interval_s;
	double t0;	     /* CLOCK_MONOTONIC seconds of t = 0 */
	double timed_from_s; /* where the timed span began (NAN: n/a) */
	const struct ax_tel_reading *readings;
	size_t n;
};

/* A result's power figures; NAN for what was not measured.  source
 * NULL with reason set: no sensor, and why. */
struct ax_db_power {
	const char *source, *reason;
	int readings;
	/* The figures (core/db_rows.h: AX_DB_POWER_FIGURES) */
	AX_DB_POWER_FIGURES(AX_DB_FIGURE_FIELD)
	const char *perf_per_w_unit; /* "GFLOP/s/W", NULL when NAN */
	int throttled;		     /* 1, 0; -1: unknown */
	const char *throttle_evidence;
	const struct ax_db_series *series; /* stored with it; may be NULL */
};
/* Insert a result and its n raw samples (seconds per repetition and the
 * value in unit), with its power row and telemetry series when r->power
 * is set, in one transaction.  seconds/values may be NULL if n is
 * 0.  Writes the new id to *id when id is not NULL. */
int ax_db_result_add(struct ax_db *db, const struct ax_db_result *r,
		     const double *seconds, const double *values, int n,
		     int64_t *id);

struct ax_db_session {
	int64_t device_id;
	const char *suite, *shape_json, *strategy, *objective;
	uint64_t seed;
	int budget;
	const char *space_json;	  /* parameter table, for resume */
	const char *stop_rule;	  /* "ei", "gain", "none"; NULL: default */
	int64_t prior_session_id; /* the session used as a prior; 0: none */
	const char *mode;	  /* "batch" or "cold"; NULL: batch */
};
int ax_db_session_begin(struct ax_db *db, const struct ax_db_session *s,
			int64_t *id);
/* Make run_id the owner of a tuning session, in one transaction:
 * AX_EBUSY (with a message naming the other run and its process) while
 * another run whose process lives owns it.  run_id 0 only looks. */
int ax_db_session_claim(struct ax_db *db, int64_t session_id, int64_t run_id);
/* Store a time-and-energy session's Pareto front (a JSON array,
 * app/tune_pareto.c), replacing any stored before. */
int ax_db_session_set_front(struct ax_db *db, int64_t session_id,
			    const char *front_json);
/* Record how the session ended and which trial was best (0 if none). */
int ax_db_session_finish(struct ax_db *db, int64_t session_id,
			 const char *stop_reason, int64_t best_trial_id);

struct ax_db_trial {
	int64_t session_id;
	int index; /* 0-based evaluation number */
	const char *params_json;
	const char *status; /* "ok", "invalid", "failed-verification",
			       "compile-failed", "timeout", "error" */
	double value;	    /* objective in unit (NAN when failed) */
	double seconds;	    /* median seconds per repetition */
	double compile_ms;
	double objective_value; /* what the tuner minimised (NAN: none) */
	int64_t result_id;	/* 0 when the trial made no result row */
	const char *error_text;
};
int ax_db_trial_add(struct ax_db *db, const struct ax_db_trial *t, int64_t *id);

/* One CPU-library measurement of a shape (cpu_baseline row). */
struct ax_db_cpu_baseline {
	int64_t host_id;
	const char *suite, *shape_json; /* canonical shape parameters */
	const char *library, *version, *corename, *config, *note;
	int threads;
	const char *unit, *status, *error_text, *stop_reason;
	int n;
	double median, ci_lo, ci_hi, rel_noise;
	/* The machine's load while it was timed (schema 8; see struct
	 * ax_cpu_load): load_known false stores NULLs, "unknown", never a
	 * quiet 0. */
	bool load_known;
	double load_1m, busy_other;
	int online_cpus;
};
int ax_db_cpu_baseline_add(struct ax_db *db, const struct ax_db_cpu_baseline *b,
			   int64_t *id);
/*
 * The newest "ok" baseline of (host, suite, shape) measured with the same
 * threads, library, version and kernel (corename): *id and *median, or
 * AX_ENOTFOUND.
 */
int ax_db_cpu_baseline_find(struct ax_db *db,
			    const struct ax_db_cpu_baseline *key, int64_t *id,
			    double *median);
/*
 * Every "ok" baseline that ax_db_cpu_baseline_find matches with key,
 * newest first, given to fn (valid during the call only) until fn returns
 * nonzero, which is returned; 0 after the last, or a negative AX_E* code.
 * The caller judges which one it may reuse (ax_db_cpu_fit).
 */
typedef int (*ax_db_cpu_row_fn)(void *ctx, const struct ax_db_cpu_row *c);
int ax_db_cpu_baselines_each(struct ax_db *db,
			     const struct ax_db_cpu_baseline *key,
			     ax_db_cpu_row_fn fn, void *ctx);

/* Store a series without a result (an idle baseline, a monitor). */
int ax_db_series_add(struct ax_db *db, const struct ax_db_series *s,
		     int64_t *id);

/* Name runs run_ids[0..n) (n >= 1, each existing) as baseline NAME,
 * replacing an earlier baseline of that name, in one transaction.
 * Several runs are replicates that compare pools (reports/compare.h). */
int ax_db_baseline_save(struct ax_db *db, const char *name,
			const int64_t *run_ids, int n);

/* ---- reads ----------------------------------------------------------- */

/* The typed listings (ax_db_result_rows ...) are in core/db_rows.h. */

/* Id of the newest run that measured (a monitor's run is not one;
 * AX_ENOTFOUND when the database holds none). */
int ax_db_last_run(struct ax_db *db, int64_t *run_id);
/* 0 when run run_id exists; AX_ENOTFOUND (the message names the database
 * and how to list its runs) when not; AX_EDB when the lookup failed. */
int ax_db_run_exists(struct ax_db *db, int64_t run_id);
/* Run id of baseline NAME, the newest of its runs (AX_ENOTFOUND when
 * there is none). */
int ax_db_baseline_run(struct ax_db *db, const char *name, int64_t *run_id);
/* Every run of baseline NAME, oldest first: *ids (malloc'd, the caller
 * frees it) gets *n of them.  AX_ENOTFOUND when there is no such
 * baseline. */
int ax_db_baseline_runs(struct ax_db *db, const char *name, int64_t **ids,
			int *n);

struct ax_db_filter {
	const int64_t *run_ids;
	int n_run_ids;			/* none: all runs */
	const char *suite;		/* NULL: all suites */
	const char *device_fingerprint; /* NULL: all devices */
	const char *since;		/* ISO-8601 date/time or NULL */
	bool with_samples;		/* include "samples": [values...] */
	const volatile int *stop;	/* non-NULL: reading fails with AX_EINTR
					   once *stop is set (Ctrl-C) */
};

/*
 * Results matching f as a JSON array of objects, oldest first:
 * {"id", "uuid", "run_id", "run_uuid", "started_at", "suite", "case",
 *  "params" (object), "params_hash", "shader_hash", "unit",
 *  "higher_is_better", "work", "timing_mode", "stop_reason", "status",
 *  "error", "n", "median", "min", "max", "mean", "stddev", "q1", "q3",
 *  "mad", "ci_lo", "ci_hi", "rel_noise" (these eleven null unless status
 *  is "ok": a failed result has no figure), "extra" (object or null),
 *  "run_status" (the run's status as readers see it: "abandoned" for a
 *  run whose process on this machine is gone), "run_label" (the run's
 *  label; null for runs stored before schema 5),
 *  "device": {"id", "fingerprint", "name", "vendor", "type",
 *             "driver_name", "driver_info", "api_version" ("1.3.230"),
 *             "api_version_packed" (Vulkan's packed integer),
 *             "pci_bus_id", "device_uuid", "vendor_id", "device_id",
 *             "driver_version" (the vendor's text, as `devices` shows
 *             it; null where the row's properties lack it),
 *             "driver_version_packed"},
 *  "host": {"id", "hostname", "cpu_model", "cores"},
 *  "power": null (measured before schema 4) or {"source" (null: no
 *           sensor), "reason", "readings", "seconds", "mean_w",
 *           "max_w", "idle_w", "energy_rep_j", "energy_rep_net_j",
 *           "temp_mean_c", "temp_max_c", "sm_mhz", "mem_mhz",
 *           "mem_peak_b", "mem_budget_b", "perf_per_w",
 *           "perf_per_w_unit", "throttled" (true/false/null),
 *           "throttle_evidence", "series_id"},
 *  "speedup_vs_cpu": number or null,
 *  "cpu": null or {"id", "library", "version", "corename", "threads",
 *         "note", "median", "ci_lo", "ci_hi", "n", "unit", "created_at",
 *         "rel_noise", "stop_reason", "load_1m", "busy_other",
 *         "online_cpus", "fit"},
 *  "samples": [...] when with_samples, "seconds": [...] likewise}
 * *out is a new reference.
 */
int ax_db_results(struct ax_db *db, const struct ax_db_filter *f, json_t **out);

/*
 * What ax_db_results_each calls for each result: r is the object
 * ax_db_results would append, freed after fn returns unless fn keeps a
 * reference (json_incref).  0 goes on; any other value stops the listing
 * and is returned as it is.
 */
typedef int (*ax_db_result_fn)(void *ctx, json_t *r);

/*
 * The results of ax_db_results, one at a time and in its order, to fn:
 * one statement stepped through indices with no sort, so memory holds
 * one result (with its samples when f->with_samples) however long the
 * history.  Returns 0, fn's nonzero value, AX_EINTR when *f->stop is
 * set, or an AX_E* code with ax_db_errmsg.
 */
int ax_db_results_each(struct ax_db *db, const struct ax_db_filter *f,
		       ax_db_result_fn fn, void *ctx);

/* Runs (newest first) as [{"id","uuid","started_at","finished_at","status"
 * (as readers see it: "abandoned" too), "kind" ("run", "tune", "monitor"
 * or "recommend"), "profile", "label" (null before schema 5),
 * "axbench_version","git_sha","argv","n_results","device","host"}],
 * limited to f's run ids / device / since. */
int ax_db_runs(struct ax_db *db, const struct ax_db_filter *f, json_t **out);

/* Sessions and their trials: [{"id","suite","strategy","seed","budget",
 * "stop_reason","started_at","finished_at","stop_rule",
 * "prior_session_id" (null: tuned cold),"shape","device",
 * "objective" ("time", "energy", "edp"; "live" from before objectives),
 * "mode" ("batch" or "cold": how trials were sampled; "batch" before
 * schema 9), "front" (objective "time,energy": the stored Pareto front,
 * else null),
 * "trials":[{"index","params","status","value","seconds","compile_ms",
 * "objective_value","created_at"}]}] */
int ax_db_sessions(struct ax_db *db, const struct ax_db_filter *f,
		   json_t **out);

/* One session with its trials (shape as above) for --resume. */
int ax_db_session_get(struct ax_db *db, int64_t session_id, json_t **out);

/* The telemetry series of result result_id (AX_ENOTFOUND when it has
 * none): {"id", "kind", "source", "interval_s", "timed_from_s",
 * "t": [...], "power_w": [...], "energy_j", "temp_c", "sm_mhz",
 * "mem_mhz", "mem_used_b": [...] (null where not measured)}. */
int ax_db_result_series(struct ax_db *db, int64_t result_id, json_t **out);

/* Baselines as [{"name","run_id","created_at"}]. */
int ax_db_baselines(struct ax_db *db, json_t **out);

/* ---- pruning (core/db_prune.c) ---------------------------------------- */

/* Pruning, merging, `db info` and `db check` (core/db_prune.c,
 * core/db_merge.c, core/db_info.c) are declared in core/db_admin.h, with
 * the typed results they return. */

#endif
