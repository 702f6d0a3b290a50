/*
 * core/db_rows.h - the read side of the store as C structs: results (with
 * their device, host, power, CPU baseline and raw samples), runs, tuning
 * sessions with their trials, telemetry series and baselines.
 *
 * Readers (app/, reports/, cli/) take these structs; JSON is made from
 * them only where a document is written (core/db_json.c: `--json`, the
 * report's embedded data, export), so a stored quantity is one column, one
 * field here and the writer that shows it.
 *
 * Conventions, for every row:
 *   - a figure that was not measured (SQL NULL, a failed result's summary)
 *     is NAN; an integer that was not stored is AX_DB_NONE; an id that names
 *     nothing is 0; a text that was not stored is NULL;
 *   - texts are valid UTF-8 (stored text that is not is repaired once, with
 *     a warning naming the field: core/text.h);
 *   - a row read from the database owns its texts and documents (row->mem);
 *     one built by hand (a test) may point anywhere and leave mem NULL.
 * Stored documents whose shape belongs to a suite (parameters, extra facts,
 * a session's shape and space, a run's command line) stay parsed JSON
 * beside the typed view readers use, so a writer can show them exactly as
 * they were stored.
 */
#ifndef AX_DB_ROWS_H
#define AX_DB_ROWS_H

#include "core/telemetry.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ax_db;
struct ax_db_filter;
struct ax_param_def;
struct ax_params;

/* An integer the row did not store. */
#define AX_DB_NONE (-1)

/* What a row owns (an arena of its texts and the documents it holds). */
struct ax_db_mem;

/* ---- parameters --------------------------------------------------------- */

enum ax_db_value_type {
	AX_DB_VALUE_NULL,
	AX_DB_VALUE_INT,
	AX_DB_VALUE_REAL,
	AX_DB_VALUE_TEXT,
	AX_DB_VALUE_BOOL,
	AX_DB_VALUE_OTHER, /* an array or object: shown as its JSON text */
};

/* One stored parameter.  num holds INT, REAL and BOOL (0/1) values; text
 * holds TEXT values and OTHER's JSON text. */
struct ax_db_param {
	const char *name;
	enum ax_db_value_type type;
	double num;
	int64_t i; /* INT's exact value */
	const char *text;
};

/* A stored parameter set, in its stored (canonical, sorted) order. */
struct ax_db_params {
	struct ax_db_param *v;
	int n;
};

/* The parameter named name, or NULL. */
const struct ax_db_param *ax_db_param_find(const struct ax_db_params *p,
					   const char *name);
/* Its number (INT, REAL, BOOL), else NAN (absent or text). */
double ax_db_param_num(const struct ax_db_params *p, const char *name);
/* Its text (TEXT), else NULL. */
const char *ax_db_param_text(const struct ax_db_params *p, const char *name);
/* The value as a label shows it: 64, 0.5, f32, true (into buf). */
const char *ax_db_param_value_text(const struct ax_db_param *v, char *buf,
				   size_t len);

/* Do two stored values hold the same type and value? */
bool ax_db_param_equal(const struct ax_db_param *a,
		       const struct ax_db_param *b);
/* The point of a parameter table (defs[0..n)) that stored parameters
 * name: each set as its text (an integer, a text, true/false), the rest
 * at their defaults.  AX_EINVAL (err says which and why) for one the
 * table refuses. */
int ax_db_params_point(struct ax_params *p, const struct ax_param_def *defs,
		       int n, const struct ax_db_params *src, char *err,
		       size_t errlen);
/* Fill role's point struct (core/params.h) from stored parameters, as
 * ax_role_point does from a document: an integer missing or of another
 * type reads 0, a text NULL (texts point into p's row). */
void ax_db_role_point(unsigned role, const struct ax_db_params *p, void *out);

/* ---- what listings join in ---------------------------------------------- */

/* A run's device.  id 0: the run names none (every other field unset). */
struct ax_db_device_row {
	int64_t id;
	const char *fingerprint, *name, *vendor, *type, *driver_name,
	    *driver_info, *pci_bus_id, *device_uuid;
	const char *api_version;    /* "1.3.230"; NULL: not stored */
	const char *driver_version; /* the vendor's text, as `devices` shows
				       it; NULL where the properties lack it */
	int64_t vendor_id, device_id, api_version_packed,
	    driver_version_packed; /* AX_DB_NONE: not stored */
};

/* A run's host.  id 0: none. */
struct ax_db_host_row {
	int64_t id;
	const char *hostname, *cpu_model;
	int64_t cores; /* AX_DB_NONE: not stored */
};

/*
 * The figures of a result's power row, one line each: its name is the
 * result_power column, the field of struct ax_db_power (what is written)
 * and of struct ax_db_power_row (what is read), and the key of the
 * document's "power".  The insert, the select, the reader and the writer
 * of the document all walk this list, so a new figure is a schema step
 * (core/db.c), one line here and whatever measures and shows it.
 */
#define AX_DB_POWER_FIGURES(X)                                                 \
	X(seconds) /* what the energy covers */                                \
	X(mean_w)  /* mean power over the timed span */                        \
	X(max_w)                                                               \
	X(idle_w)	    /* the device's idle power before the case */      \
	X(energy_rep_j)	    /* energy per repetition */                        \
	X(energy_rep_net_j) /* the same less idle power */                     \
	X(temp_mean_c)                                                         \
	X(temp_max_c)                                                          \
	X(sm_mhz)	/* mean core clock */                                  \
	X(mem_mhz)	/* mean memory clock */                                \
	X(mem_peak_b)	/* device memory in use at most */                     \
	X(mem_budget_b) /* what the device offered */                          \
	X(perf_per_w)	/* the result's unit per watt */
#define AX_DB_FIGURE_FIELD(name) double name;

/* A result's power row.  present false: measured before power was stored
 * (schema < 4).  source NULL with reason set: no sensor, and why. */
struct ax_db_power_row {
	bool present;
	const char *source, *reason, *perf_per_w_unit, *throttle_evidence;
	int64_t readings;			/* AX_DB_NONE: not stored */
	AX_DB_POWER_FIGURES(AX_DB_FIGURE_FIELD) /* NAN: not measured */
	int throttled;				/* 1, 0; AX_DB_NONE: unknown */
	int64_t series_id;			/* 0: none */
};

/* The CPU baseline a result is compared with.  id 0: none. */
struct ax_db_cpu_row {
	int64_t id;
	const char *library, *version, *corename, *note, *unit, *created_at,
	    *stop_reason;
	int64_t threads, n; /* AX_DB_NONE: not stored */
	double median, ci_lo, ci_hi, rel_noise;
	/* The machine's load while it was timed (schema 8), NAN or
	 * AX_DB_NONE where unknown (stored before): the 1-minute load
	 * average, the CPUs' worth of time other processes used (mean over
	 * the timed span) and the online CPUs it could run on. */
	double load_1m, busy_other;
	int64_t online_cpus;
};

/*
 * May a stored CPU baseline stand for the CPU today?  Judged in this
 * order: its load unknown (stored before schema 8), taken under load
 * (other processes used more than AX_DB_CPU_BUSY_MAX of its CPUs), its
 * interval wider than noise_target (rel_noise above it; NAN: not
 * judged), else clean.  Only a clean one is reused (app/session_cpu.c);
 * OpenBLAS splits a call evenly over its threads, so a call waits for
 * its slowest thread, and a tenth of the machine taken by others already
 * costs more than the 2 % a noise target allows.  The 1-minute load
 * average is kept but not judged: it counts axbench's own threads (a
 * CPU device's case just ran on every core) and lags by a minute.
 */
#define AX_DB_CPU_BUSY_MAX 0.10
enum ax_db_cpu_fit {
	AX_DB_CPU_CLEAN,
	AX_DB_CPU_LOAD_UNKNOWN,
	AX_DB_CPU_LOADED,
	AX_DB_CPU_NOISY,
};
enum ax_db_cpu_fit ax_db_cpu_fit(const struct ax_db_cpu_row *c,
				 double noise_target);
/* "clean", "load-unknown", "under-load", "noisy". */
const char *ax_db_cpu_fit_name(enum ax_db_cpu_fit f);
/* Why c is not clean, in words ("other processes kept 1.2 of 2 CPUs
 * busy, above 0.2"), into buf; "" when clean. */
const char *ax_db_cpu_fit_why(const struct ax_db_cpu_row *c,
			      double noise_target, char *buf, size_t len);

/* ---- results ------------------------------------------------------------ */

struct ax_db_result_row {
	int64_t id, run_id;
	const char *uuid, *run_uuid, *started_at, *suite, *case_label,
	    *params_hash, *shader_hash, *unit, *timing_mode, *stop_reason,
	    *status, *error;
	const char *run_status; /* as readers see it: "abandoned" for a run
				   whose process on this machine is gone */
	const char *run_label;	/* NULL before schema 5 */
	bool ok;		/* status is "ok" */
	bool higher_is_better;
	double work; /* bytes or FLOPs per repetition; NAN: none */
	int64_t n;   /* stored samples */
	/* The summary, NAN unless ok: a failed result has no figure. */
	double median, min, max, mean, stddev, q1, q3, mad, ci_lo, ci_hi,
	    rel_noise;
	double noise_target;   /* the run's max_noise (a fraction); NAN: none */
	double speedup_vs_cpu; /* NAN: none */
	struct ax_db_params params;
	/* Facts of the suite (extra): the ones every reader shares, typed;
	 * the rest through ax_db_extra_num / ax_db_extra_text. */
	double bytes, input_bytes; /* moved per repetition; NAN: unknown */
	bool sustained;		   /* a sustained case (telemetry series) */
	int64_t tune_session;	   /* measured by that session; 0: none */
	const char *tune_role;	   /* "trial", "retime", ...; NULL: none */
	struct ax_db_device_row device;
	struct ax_db_host_row host;
	struct ax_db_power_row power;
	struct ax_db_cpu_row cpu;
	/* Raw samples (with_samples): values in unit and seconds per
	 * repetition, n_samples of each; NULL otherwise. */
	const double *samples, *seconds;
	size_t n_samples;
	/* The database this row came from, where a reader reads several
	 * (set by the reader; NULL: the only one). */
	const char *source;
	/* The stored documents, for writers (NULL: none stored). */
	json_t *params_doc, *extra_doc;
	struct ax_db_mem *mem;
};

/* A number or text of the suite's facts by dotted path ("stages.read"):
 * NAN / NULL when absent or of another type. */
double ax_db_extra_num(const struct ax_db_result_row *r, const char *path);
const char *ax_db_extra_text(const struct ax_db_result_row *r,
			     const char *path);

/* Free a row read from the database (NULL: nothing). */
void ax_db_result_row_free(struct ax_db_result_row *r);

/*
 * What ax_db_result_rows_each calls for each result, oldest first.  fn may
 * keep the row: it sets *row to NULL and frees it later with
 * ax_db_result_row_free; otherwise the row is freed after fn returns.  0
 * goes on; any other value stops the listing and is returned as it is.
 */
typedef int (*ax_db_result_row_fn)(void *ctx, struct ax_db_result_row **row);

/* Results matching f, one at a time: memory holds one result (with its
 * samples when f->with_samples) however long the history.  Returns 0,
 * fn's nonzero value, AX_EINTR when *f->stop is set, or an AX_E* code with
 * ax_db_errmsg. */
int ax_db_result_rows_each(struct ax_db *db, const struct ax_db_filter *f,
			   ax_db_result_row_fn fn, void *ctx);

/* A list of results, oldest first. */
struct ax_db_results {
	struct ax_db_result_row **v;
	size_t n, cap;
};
/* Every result matching f into *out (empty first; the caller frees it
 * with ax_db_results_free, also after a failure). */
int ax_db_result_rows(struct ax_db *db, const struct ax_db_filter *f,
		      struct ax_db_results *out);
/* Append r (taken: the list frees it); AX_ENOMEM when it cannot. */
int ax_db_results_push(struct ax_db_results *l, struct ax_db_result_row *r);
void ax_db_results_free(struct ax_db_results *l);

/* ---- runs --------------------------------------------------------------- */

struct ax_db_run_row {
	int64_t id;
	const char *uuid, *started_at, *finished_at, *profile, *label,
	    *axbench_version, *git_sha;
	const char *status;	 /* as readers see it: "abandoned" too */
	const char *kind;	 /* "run", "tune", "monitor" or "recommend" */
	const char *const *argv; /* the command line; argc 0: not stored */
	int argc;
	int64_t n_results;
	struct ax_db_device_row device;
	struct ax_db_host_row host;
	const char *source; /* as for results */
	json_t *argv_doc;   /* as stored, for writers */
	struct ax_db_mem *mem;
};

/* Runs matching f's run ids, device, since (and holding results of f's
 * suite), newest first. */
struct ax_db_runs {
	struct ax_db_run_row **v;
	size_t n;
};
int ax_db_run_rows(struct ax_db *db, const struct ax_db_filter *f,
		   struct ax_db_runs *out);
void ax_db_runs_free(struct ax_db_runs *l);

/* ---- tuning sessions ---------------------------------------------------- */

struct ax_db_trial_row {
	int64_t id, result_id; /* result_id 0: no result row */
	int64_t index;	       /* 0-based evaluation number */
	const char *status, *error, *created_at;
	double value, seconds, compile_ms, objective_value; /* NAN: none */
	struct ax_db_params params;
	json_t *params_doc;
};

struct ax_db_session_row {
	int64_t id;
	const char *uuid, *suite, *strategy, *stop_reason, *started_at,
	    *finished_at, *stop_rule;
	const char *objective; /* "time", "energy", "edp"; "live" before
				  objectives */
	const char *mode;      /* "batch" or "cold" ("batch" before schema 9) */
	uint64_t seed;
	bool has_seed;
	int64_t budget;		  /* AX_DB_NONE: not stored */
	int64_t best_trial_id;	  /* 0: none */
	int64_t prior_session_id; /* 0: tuned cold */
	struct ax_db_params shape;
	struct ax_db_device_row device;
	struct ax_db_trial_row *trials; /* by index */
	size_t n_trials;
	const char *source;	       /* as for results */
	json_t *shape_doc, *space_doc; /* as stored */
	json_t *front_doc; /* time,energy: the stored front; NULL: none */
	struct ax_db_mem *mem;
};

struct ax_db_sessions {
	struct ax_db_session_row **v;
	size_t n;
};
/* Sessions matching f's device and since, oldest first. */
int ax_db_session_rows(struct ax_db *db, const struct ax_db_filter *f,
		       struct ax_db_sessions *out);
void ax_db_sessions_free(struct ax_db_sessions *l);
/* One session with its trials; AX_ENOTFOUND (the message says how to list
 * them) when there is none.  Free with ax_db_session_row_free. */
int ax_db_session_row_get(struct ax_db *db, int64_t session_id,
			  struct ax_db_session_row **out);
void ax_db_session_row_free(struct ax_db_session_row *s);

/* ---- telemetry series and baselines ------------------------------------- */

/* A result's telemetry: n readings, NAN where not measured. */
struct ax_db_series_row {
	int64_t id;
	const char *kind, *source;
	double interval_s, timed_from_s;
	size_t n;
	double *t; /* seconds from the series' start */
#define AX_DB_SERIES_FIELD(name) double *name;
	AX_TEL_STORED(AX_DB_SERIES_FIELD) /* core/telemetry.h */
#undef AX_DB_SERIES_FIELD
	struct ax_db_mem *mem;
};
/* The newest series of result result_id; AX_ENOTFOUND when it has none. */
int ax_db_series_row_get(struct ax_db *db, int64_t result_id,
			 struct ax_db_series_row **out);
void ax_db_series_row_free(struct ax_db_series_row *s);

struct ax_db_baseline_row {
	const char *name, *created_at;
	int64_t run_id; /* the newest of its runs */
	const int64_t *run_ids;
	int n_run_ids;
};
struct ax_db_baselines {
	struct ax_db_baseline_row *v;
	size_t n;
	struct ax_db_mem *mem;
};
/* Every baseline, by name. */
int ax_db_baseline_rows(struct ax_db *db, struct ax_db_baselines *out);
void ax_db_baselines_free(struct ax_db_baselines *l);

/* ---- documents (core/db_json.c) ----------------------------------------- */

/* The documents of docs/JSON.md, made from rows (new references; NULL on
 * out of memory).  A row's source, when set, is its "source". */
json_t *ax_db_result_json(const struct ax_db_result_row *r);
json_t *ax_db_results_json(const struct ax_db_results *l);
json_t *ax_db_device_json(const struct ax_db_device_row *d);
json_t *ax_db_run_json(const struct ax_db_run_row *r);
json_t *ax_db_runs_json(const struct ax_db_runs *l);
json_t *ax_db_session_json(const struct ax_db_session_row *s);
json_t *ax_db_sessions_json(const struct ax_db_sessions *l);
json_t *ax_db_series_json(const struct ax_db_series_row *s);
json_t *ax_db_baselines_json(const struct ax_db_baselines *l);
/* A parameter set as a document (the stored one when there is one). */
json_t *ax_db_params_json(const struct ax_db_params *p, const json_t *doc);

#endif
