/*
 * core/db_admin.h - keeping the database file itself: which runs a
 * retention policy removes and removing them (core/db_prune.c), merging
 * the databases of many machines (core/db_merge.c), what a database holds
 * and whether it holds it soundly (core/db_info.c).
 *
 * Each returns a typed result filled from SQLite, freed by its own
 * function.  JSON is made only where a document is written: each *_json
 * function builds the `--json` document's part that core knows (the caller
 * adds file sizes and paths) from the struct.  The documents are those of
 * docs/JSON.md.
 */
#ifndef AX_DB_ADMIN_H
#define AX_DB_ADMIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ax_db;

/* ---- pruning (core/db_prune.c) ---------------------------------------- */

/*
 * Which runs `db prune` removes.  Runs form series: the run's label (for
 * runs stored before labels, its host and device) and its kind.  In each
 * series the newest keep_last runs are kept and, when weekly, the newest
 * run of every ISO week (UTC, by started_at).  Whatever the policy says,
 * a run is kept that a baseline uses (baseline.run_id, baseline_run), a
 * tuning session's run (kind "tune", or a run whose results trials name:
 * trial.result_id has no ON DELETE CASCADE and later sessions use trials
 * as priors) and a run still running as readers see it.  With run_ids,
 * exactly those runs are removed instead, and each must be removable.
 */
struct ax_db_prune_opts {
	int keep_last; /* >= 1; ignored with run_ids */
	bool weekly;
	const int64_t *run_ids; /* non-NULL: these runs, not the policy */
	int n_run_ids;
	const volatile int *stop; /* Ctrl-C: AX_EINTR, nothing removed */
};

/* Why a named run must stay (the first reason that keeps it). */
enum ax_db_prune_reason {
	AX_DB_PRUNE_BASELINE = 1, /* a baseline uses it */
	AX_DB_PRUNE_TUNE,	  /* a tuning session's */
	AX_DB_PRUNE_RUNNING,	  /* still running as readers see it */
};

/* A run that goes.  NULL text: the column is NULL. */
struct ax_db_prune_run {
	int64_t id;
	char *started_at, *kind, *label, *status;
};

/* A run of run_ids that must stay. */
struct ax_db_prune_refusal {
	int64_t id;
	enum ax_db_prune_reason reason;
	char **baselines; /* AX_DB_PRUNE_BASELINE: their names, by name */
	size_t n_baselines;
};

struct ax_db_prune_plan {
	int64_t total; /* runs in the database */
	int64_t kept;
	/* Kept runs by the first reason that keeps each; not_named: with
	 * run_ids, the runs not asked for. */
	struct {
		int64_t baseline, tune, running, last, weekly, not_named;
	} kept_by;
	struct ax_db_prune_run *removed; /* oldest first (start, then id) */
	size_t n_removed;
	/* What the removed runs hold. */
	int64_t results, samples, telemetry_series, telemetry_readings;
	struct ax_db_prune_refusal *refused; /* run_ids that must stay */
	size_t n_refused;
	int64_t *missing; /* run_ids that name no run, once each */
	size_t n_missing;
};

/* What o would remove, read without writing.  *out: free it with
 * ax_db_prune_plan_free. */
int ax_db_prune_plan(struct ax_db *db, const struct ax_db_prune_opts *o,
		     struct ax_db_prune_plan **out);

/*
 * Remove what ax_db_prune_plan says, deciding again inside one
 * BEGIN IMMEDIATE transaction (so a run that became a baseline in the
 * meantime stays); the cascades of the schema remove the runs' results,
 * samples, power rows and telemetry.  *out: the plan that was carried
 * out.  AX_EINVAL (nothing removed) when run_ids holds a refused or
 * missing run; AX_EINTR when *o->stop was set before the commit (the
 * database is as it was).  Call ax_db_vacuum after it to shrink the file.
 */
int ax_db_prune(struct ax_db *db, const struct ax_db_prune_opts *o,
		struct ax_db_prune_plan **out);

void ax_db_prune_plan_free(struct ax_db_prune_plan *p);

/*
 * The `db prune --json` document (docs/JSON.md#db-prune) up to the file
 * sizes, which the caller appends: {"dry_run", "policy": {"mode"
 * ("retention" or "runs"), "keep_last", "weekly", "run_ids"} (null where
 * the mode has none), "kept", "kept_by": {"baseline", "tune", "running",
 * "last", "weekly", "not_named"}, "removed": {"runs": [ids], "results",
 * "samples", "telemetry_series", "telemetry_readings"}}.  NULL when out
 * of memory.
 */
json_t *ax_db_prune_json(const struct ax_db_prune_plan *p,
			 const struct ax_db_prune_opts *o, bool dry_run);

/* VACUUM, then a truncating WAL checkpoint, so that the file on disk
 * shrinks to what it holds.  Outside any transaction. */
int ax_db_vacuum(struct ax_db *db);

/* ---- merging (core/db_merge.c) ---------------------------------------- */

/* The tables a merge counts, in the order its summary lists them. */
enum ax_db_merge_table {
	AX_DB_MERGE_HOST,
	AX_DB_MERGE_DEVICE,
	AX_DB_MERGE_RUN,
	AX_DB_MERGE_RESULT,
	AX_DB_MERGE_SAMPLE,
	AX_DB_MERGE_TUNE_SESSION,
	AX_DB_MERGE_TRIAL,
	AX_DB_MERGE_BASELINE,
	AX_DB_MERGE_BASELINE_RUN,
	AX_DB_MERGE_CPU_BASELINE,
	AX_DB_MERGE_RESULT_POWER,
	AX_DB_MERGE_TELEMETRY_SERIES,
	AX_DB_MERGE_TELEMETRY_SAMPLE,
	AX_DB_MERGE_N_TABLES
};

struct ax_db_merge_count {
	const char *table; /* its name in the schema */
	int64_t added;	   /* rows copied into the output */
	int64_t skipped;   /* rows it held already (same UUID/fingerprint) */
};

/* A baseline whose name the output gave another baseline. */
struct ax_db_merge_rename {
	char *name; /* "SOURCE:NAME" (or "SOURCE:NAME#2", ...) */
	char *old;  /* its name in the input */
};

struct ax_db_merge_summary {
	struct ax_db_merge_count tables[AX_DB_MERGE_N_TABLES];
	struct ax_db_merge_rename *renamed; /* in the order made */
	size_t n_renamed;
};

/*
 * Merge the databases at paths[0..n) into out, in one transaction, each
 * opened read-only in turn (closed before the next): hosts and devices matched
 * on their fingerprint, every other row on its UUID (telemetry readings, power
 * rows and baseline run lists on the rows they belong to), references mapped,
 * so that merging a file twice adds nothing.  A baseline whose name out already
 * gives another baseline becomes "SOURCE:NAME" (sources[i]: a short name of
 * input i).  Streams row by row: memory does not grow with the inputs
 * (out's page cache is set to 64 MiB).
 * *stop (may be NULL) interrupts with AX_EINTR.  On any failure nothing
 * was merged.  On success *summary counts every table (0 for those the
 * inputs had no rows of); free it with ax_db_merge_summary_free.
 */
int ax_db_merge(struct ax_db *out, const char *const *paths,
		const char *const *sources, int n, const volatile int *stop,
		struct ax_db_merge_summary **summary);

void ax_db_merge_summary_free(struct ax_db_merge_summary *s);

/* The `db merge --json` document's part of s (docs/JSON.md#db-merge):
 * {"tables": {TABLE: {"added", "skipped"}} (every table, in the order
 * above), "renamed_baselines": {"NEW": "OLD"}}.  NULL when out of memory. */
json_t *ax_db_merge_json(const struct ax_db_merge_summary *s);

/* ---- info and check (core/db_info.c) ---------------------------------- */

/* The tables `db info` counts, in the order it lists them. */
#define AX_DB_INFO_N_COUNTS 12

struct ax_db_info_count {
	const char *table;
	int64_t rows;
};

/* NULL text: the column is NULL. */
struct ax_db_info_host {
	char *hostname, *cpu_model, *os, *fingerprint;
	int64_t cores;	      /* -1: not stored */
	int64_t memory_bytes; /* -1: not stored */
	int64_t runs;
};

struct ax_db_info_device {
	char *name, *vendor, *type, *driver_info, *fingerprint;
	int64_t runs;
};

struct ax_db_info {
	int schema_version;
	struct ax_db_info_count counts[AX_DB_INFO_N_COUNTS];
	struct ax_db_info_host *hosts; /* by id */
	size_t n_hosts;
	struct ax_db_info_device *devices; /* by id */
	size_t n_devices;
	char *first_run, *last_run; /* start times; NULL without runs */
};

/* What db holds.  *out: free it with ax_db_info_free. */
int ax_db_info(struct ax_db *db, struct ax_db_info **out);

void ax_db_info_free(struct ax_db_info *info);

/* The `db info --json` document but its "path" and "bytes", which the
 * caller appends (docs/JSON.md#db-info): {"schema_version", "counts":
 * {TABLE: n}, "hosts": [{"hostname", "cpu_model", "cores", "runs"}],
 * "devices": [{"name", "vendor", "type", "driver_info", "fingerprint",
 * "runs"}], "runs_span": {"first", "last"}}, null where the struct has
 * none.  NULL when out of memory. */
json_t *ax_db_info_json(const struct ax_db_info *info);

/* Each check keeps at most this many of its problems as examples; all
 * are counted. */
#define AX_DB_CHECK_LISTED 5

struct ax_db_check_problem {
	const char *check; /* the check's name, one of checks[] */
	char *problem;	   /* what breaks it: "result 12", ... */
};

/* What one check found. */
struct ax_db_check_count {
	int64_t found; /* rows (or messages) that break it, all counted */
	size_t listed; /* how many of them are in problems[] */
	bool capped;   /* found stopped at a limit: "at least found" */
};

struct ax_db_check_report {
	bool ok;	     /* no problems */
	const char **checks; /* the checks run, in order (static names) */
	struct ax_db_check_count *counts; /* one per check, in that order */
	size_t n_checks;
	int64_t n_found;		      /* every problem of every check */
	struct ax_db_check_problem *problems; /* the first few per check */
	size_t n_problems;		      /* listed, not found */
};

/*
 * Check db: SQLite's integrity_check and foreign_key_check, then
 * axbench's own rules (every result has its run, an ok result has as many
 * samples as its n, ...).  *out: free it with ax_db_check_report_free.
 * Returns 0 whether or not problems were found; an AX_E* code when the
 * checks could not run.
 */
int ax_db_check(struct ax_db *db, struct ax_db_check_report **out);

void ax_db_check_report_free(struct ax_db_check_report *r);

/* The `db check --json` document but its "path", which the caller
 * appends (docs/JSON.md#db-check): {"ok", "checks": [names], "counts":
 * [{"check", "found", "listed", "capped"}], "problem_count", "problems":
 * [{"check", "problem"}]}.  NULL when out of memory. */
json_t *ax_db_check_json(const struct ax_db_check_report *r);

#endif
