/* core/db_read.c - queries and the JSON documents they return (see
 * core/db.h). */
#include "core/db_internal.h"

#include "core/error.h"
#include "core/text.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reads ------------------------------------------------------------ */

/* One integer from a query with an optional text parameter. */
static int query_id(struct ax_db *db, const char *sql, const char *arg,
		    int64_t *out, const char *what_missing)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, sql, &st);

	if (rc)
		return rc;
	if (arg)
		ax_dbi_bind_text(st, 1, arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return ax_dbi_fail(db, AX_ENOTFOUND, "%s: %s", db->path,
				   what_missing);
	return ax_dbi_fail_sql(db, rc, "reading");
}

int ax_db_last_run(struct ax_db *db, int64_t *run_id)
{
	/* A monitor's run holds a telemetry series and no results: "last"
	 * means the last measurement. */
	return query_id(db,
			"SELECT id FROM run WHERE profile IS NOT 'monitor'"
			" ORDER BY started_at DESC, id DESC LIMIT 1",
			NULL, run_id,
			"the database holds no runs yet; run `axbench run` "
			"first");
}

int ax_db_run_exists(struct ax_db *db, int64_t run_id)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, "SELECT 1 FROM run WHERE id = ?", &st);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return ax_dbi_fail(db, AX_ENOTFOUND,
				   "%s holds no run %" PRId64
				   "; list its runs with `axbench runs`",
				   db->path, run_id);
	return ax_dbi_fail_sql(db, rc, "looking up a run");
}

int ax_db_baseline_run(struct ax_db *db, const char *name, int64_t *run_id)
{
	int rc = query_id(db, "SELECT run_id FROM baseline WHERE name = ?",
			  name ? name : "", run_id, "no such baseline");

	if (rc == AX_ENOTFOUND)
		ax_dbi_fail(db, rc,
			    "%s: no baseline named \"%s\"; save one with "
			    "`axbench baseline save NAME`",
			    db->path, name ? name : "");
	return rc;
}

int ax_db_baseline_runs(struct ax_db *db, const char *name, int64_t **ids,
			int *n)
{
	int64_t newest;
	*ids = NULL;
	*n = 0;
	int rc = ax_db_baseline_run(db, name, &newest);
	if (rc)
		return rc;
	sqlite3_stmt *st;
	if ((rc = ax_dbi_prepare(db,
				 "SELECT r.run_id FROM baseline_run r JOIN"
				 " baseline b ON b.id = r.baseline_id"
				 " WHERE b.name = ? ORDER BY r.run_id",
				 &st)))
		return rc;
	ax_dbi_bind_text(st, 1, name);
	int cap = 8;
	int64_t *v = malloc(sizeof(*v) * (size_t)cap);
	while (v && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			int64_t *grown =
			    realloc(v, sizeof(*v) * (size_t)cap * 2);
			if (!grown) {
				free(v);
				v = NULL;
				break;
			}
			v = grown;
			cap *= 2;
		}
		v[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (!v)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	if (rc != SQLITE_DONE) {
		free(v);
		*n = 0;
		return ax_dbi_fail_sql(db, rc, "reading a baseline's runs");
	}
	/* A baseline whose run list is empty is its one run. */
	if (*n == 0)
		v[(*n)++] = newest;
	*ids = v;
	return 0;
}

/* Column i as JSON: integers, finite reals and text as themselves, NULL
 * and non-finite reals as null (JSON has no NaN or infinity).  Text that
 * is not valid UTF-8 (which jansson refuses) is repaired with a warning
 * naming the field, never dropped (core/text.h). */
static json_t *col_json(sqlite3_stmt *st, int i, const char *table,
			const char *key)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT: {
		double v = sqlite3_column_double(st, i);

		return isfinite(v) ? json_real(v) : json_null();
	}
	case SQLITE_TEXT: {
		const char *text = (const char *)sqlite3_column_text(st, i);
		json_t *j = json_string(text);
		char what[96];
		if (j)
			return j;
		snprintf(what, sizeof(what), "the stored %s %s", table, key);
		return ax_text_json_string(text, what);
	}
	default:
		return json_null();
	}
}

/* Column i holding JSON text, parsed; null when NULL or unparsable.
 * Invalid UTF-8 inside is repaired with a warning, so the document is
 * kept (jansson would refuse it whole).  Valid text, nearly all of it,
 * takes the direct path: the warning's wording is made only when needed. */
static json_t *col_parsed(sqlite3_stmt *st, int i, const char *table,
			  const char *key)
{
	const char *text = (const char *)sqlite3_column_text(st, i);
	json_t *j = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
	char what[96];
	if (j || !text)
		return j ? j : json_null();
	snprintf(what, sizeof(what), "the stored %s %s", table, key);
	return ax_text_json_loads(text, JSON_DECODE_ANY, what);
}

/* Set keys[0..n) of obj from columns first..first+n; "*" prefix means
 * the column holds JSON text to parse.  table names the row in warnings
 * ("the stored device name"). */
static void set_cols(json_t *obj, sqlite3_stmt *st, int first,
		     const char *const *keys, int n, const char *table)
{
	for (int i = 0; i < n; i++) {
		bool parsed = keys[i][0] == '*';
		const char *key = keys[i] + parsed;
		json_object_set_new(obj, key,
				    parsed
					? col_parsed(st, first + i, table, key)
					: col_json(st, first + i, table, key));
	}
}

#define NKEYS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * The device and host columns every listing joins in, and their keys.
 * The driver's version as text is the one `devices` wrote into the
 * device's properties (decoded by the vendor's packing rule, which only
 * core/vk knows); a row whose properties lack it or are not JSON reads
 * null.  json_valid first: json_extract on bad text would fail the whole
 * query, and a damaged row must not hide every result.
 */
#define DEV_COLS                                                               \
	"d.id, d.fingerprint, d.name, d.vendor, d.type, d.driver_name,"        \
	" d.driver_info, d.api_version, d.pci_bus_id, d.device_uuid,"          \
	" d.vendor_id, d.device_id, d.driver_version,"                         \
	" CASE WHEN json_valid(d.properties_json) THEN"                        \
	" json_extract(d.properties_json, '$.driver_version') END"
#define HOST_COLS "h.id, h.hostname, h.cpu_model, h.cores"
static const char *const dev_keys[] = {
    "id",
    "fingerprint",
    "name",
    "vendor",
    "type",
    "driver_name",
    "driver_info",
    "api_version_packed",
    "pci_bus_id",
    "device_uuid",
    "vendor_id",
    "device_id",
    "driver_version_packed",
    "driver_version",
};
static const char *const host_keys[] = {"id", "hostname", "cpu_model", "cores"};

/* A joined device or host object; null when the row had none. */
static json_t *sub_object(sqlite3_stmt *st, int first, const char *const *keys,
			  int n, const char *table)
{
	json_t *o;

	if (sqlite3_column_type(st, first) == SQLITE_NULL)
		return json_null();
	o = json_object();
	set_cols(o, st, first, keys, n, table);
	return o;
}

/*
 * A joined device object: as sub_object, with the Vulkan API version
 * as "X.Y.Z" text (as `devices --json` writes it: one format in every
 * document) beside the packed integer the row stores.  The packing is
 * Vulkan's: 3-bit variant, 7-bit major, 10-bit minor, 12-bit patch.
 */
static json_t *device_object(sqlite3_stmt *st, int first)
{
	json_t *o = sub_object(st, first, dev_keys, NKEYS(dev_keys), "device");
	json_t *packed = json_object_get(o, "api_version_packed");
	char text[32];

	if (!json_is_object(o))
		return o;
	if (json_is_integer(packed)) {
		json_int_t v = json_integer_value(packed);

		snprintf(text, sizeof(text), "%lld.%lld.%lld",
			 (long long)((v >> 22) & 0x7f),
			 (long long)((v >> 12) & 0x3ff),
			 (long long)(v & 0xfff));
		json_object_set_new(o, "api_version", json_string(text));
	} else {
		json_object_set_new(o, "api_version", json_null());
	}
	if (!json_is_string(json_object_get(o, "driver_version")))
		json_object_set_new(o, "driver_version", json_null());
	return o;
}

/*
 * The WHERE clause shared by the listings.  Only fixed fragments are
 * concatenated (sqlite3_str_appendall, never a format); every value is
 * bound: run ids travel as one JSON array read back by json_each.
 */
struct where {
	sqlite3_str *sql;
	const char *args[4];
	int nargs;
	char *ids_json;
};

/* The statement's head, " WHERE 1" and one " AND" per filter, with its
 * argument: the caller may add more before prepare_where. */
static int build_where(struct where *w, const char *head,
		       const struct ax_db_filter *f, const char *time_col,
		       bool runs)
{
	w->sql = sqlite3_str_new(NULL);
	sqlite3_str_appendall(w->sql, head);
	sqlite3_str_appendall(w->sql, " WHERE 1");
	w->nargs = 0;
	w->ids_json = NULL;
	if (!f)
		return 0;
	if (runs && f->n_run_ids > 0) {
		json_t *a = json_array();

		for (int i = 0; i < f->n_run_ids; i++)
			json_array_append_new(a, json_integer(f->run_ids[i]));
		w->ids_json = json_dumps(a, JSON_COMPACT);
		json_decref(a);
		if (!w->ids_json)
			return AX_ENOMEM;
		/* The unary + keeps SQLite from looking the runs up by id:
		 * it walks them in start order instead (run_started), so
		 * the results come sorted with no sort in memory. */
		sqlite3_str_appendall(w->sql,
				      " AND +r.id IN"
				      " (SELECT value FROM json_each(?))");
		w->args[w->nargs++] = w->ids_json;
	}
	if (f->suite) {
		/* As above: filtered on the way, never sorted. */
		sqlite3_str_appendall(w->sql, " AND +x.suite = ?");
		w->args[w->nargs++] = f->suite;
	}
	if (f->device_fingerprint) {
		sqlite3_str_appendall(w->sql, " AND d.fingerprint = ?");
		w->args[w->nargs++] = f->device_fingerprint;
	}
	if (f->since) {
		sqlite3_str_appendall(w->sql, " AND ");
		sqlite3_str_appendall(w->sql, time_col);
		sqlite3_str_appendall(w->sql, " >= ?");
		w->args[w->nargs++] = f->since;
	}
	return 0;
}

static void where_free(struct where *w)
{
	sqlite3_free(sqlite3_str_finish(w->sql));
	w->sql = NULL;
	free(w->ids_json);
	w->ids_json = NULL;
}

/* Ends the statement with tail, prepares it and binds its arguments
 * (copied: SQLITE_TRANSIENT); w is freed either way. */
static int prepare_where(struct ax_db *db, struct where *w, const char *tail,
			 sqlite3_stmt **st)
{
	sqlite3_str_appendall(w->sql, tail);
	int oom = sqlite3_str_errcode(w->sql) != SQLITE_OK;
	char *sql = sqlite3_str_finish(w->sql);
	int rc = oom || !sql ? ax_dbi_fail(db, AX_ENOMEM, "out of memory")
			     : ax_dbi_prepare(db, sql, st);

	sqlite3_free(sql);
	w->sql = NULL;
	for (int i = 0; !rc && i < w->nargs; i++)
		ax_dbi_bind_text(*st, i + 1, w->args[i]);
	where_free(w);
	return rc;
}

/* The statement that reads one result's raw samples, prepared once per
 * listing and reset for each result: a listing of 10 000 results would
 * otherwise compile it 10 000 times. */
#define SAMPLES_SQL                                                            \
	"SELECT value, seconds FROM sample WHERE result_id = ? ORDER BY idx"

/* Append the raw samples of result id (st: SAMPLES_SQL) to r as "samples"
 * and "seconds". */
static int add_samples(struct ax_db *db, sqlite3_stmt *st, int64_t id,
		       json_t *r)
{
	json_t *vals = json_array(), *secs = json_array();
	int rc;

	json_object_set_new(r, "samples", vals);
	json_object_set_new(r, "seconds", secs);
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_array_append_new(vals, col_json(st, 0, "sample", "value"));
		json_array_append_new(secs,
				      col_json(st, 1, "sample", "seconds"));
	}
	return rc == SQLITE_DONE ? 0
				 : ax_dbi_fail_sql(db, rc, "reading samples");
}

static const char *const result_keys[] = {
    "id",	    "uuid",	   "run_id",	  "run_uuid",
    "started_at",   "suite",	   "case",	  "*params",
    "params_hash",  "shader_hash", "unit",	  "higher_is_better",
    "work",	    "timing_mode", "stop_reason", "status",
    "error",	    "n",	   "median",	  "min",
    "max",	    "mean",	   "stddev",	  "q1",
    "q3",	    "mad",	   "ci_lo",	  "ci_hi",
    "rel_noise",    "*extra",	   "run_status",  "speedup_vs_cpu",
    "noise_target", "run_label",
};

/* The result's power row (result_power p) and CPU baseline (c). */
#define POWER_COLS                                                             \
	"p.result_id, p.source, p.reason, p.readings, p.seconds, p.mean_w,"    \
	" p.max_w, p.idle_w, p.energy_rep_j, p.energy_rep_net_j,"              \
	" p.temp_mean_c, p.temp_max_c, p.sm_mhz, p.mem_mhz, p.mem_peak_b,"     \
	" p.mem_budget_b, p.perf_per_w, p.perf_per_w_unit, p.throttled,"       \
	" p.throttle_evidence, p.series_id"
static const char *const power_keys[] = {
    "result_id",    "source",		"reason",      "readings",
    "seconds",	    "mean_w",		"max_w",       "idle_w",
    "energy_rep_j", "energy_rep_net_j", "temp_mean_c", "temp_max_c",
    "sm_mhz",	    "mem_mhz",		"mem_peak_b",  "mem_budget_b",
    "perf_per_w",   "perf_per_w_unit",	"throttled",   "throttle_evidence",
    "series_id",
};
#define CPU_COLS                                                               \
	"c.id, c.library, c.version, c.corename, c.threads, c.note,"           \
	" c.median, c.ci_lo, c.ci_hi, c.n, c.unit, c.created_at"
static const char *const cpu_keys[] = {
    "id",     "library", "version", "corename", "threads", "note",
    "median", "ci_lo",	 "ci_hi",   "n",	"unit",	   "created_at",
};

/* The noise target the result's run asked for (the runner's max_noise, a
 * fraction), from the run's stored settings: compare calls a change
 * between results that missed it "noisy".  NULL for runs that keep none
 * (a tuning session, a monitor run) and for settings that are not JSON. */
#define NOISE_TARGET_SQL                                                       \
	"CASE WHEN json_valid(r.config_json) THEN"                             \
	" json_extract(r.config_json, '$.max_noise') END"

/* The summary figures of result_keys: a speed only where the result
 * is one. */
static const char *const figure_keys[] = {
    "median", "min", "max",   "mean",  "stddev",    "q1",
    "q3",     "mad", "ci_lo", "ci_hi", "rel_noise",
};

/*
 * A result that is not "ok" has no figure: its summary is null, never 0
 * (DESIGN: a failed result is never reported as a speed).  Rows stored
 * before the session wrote NULL for them hold zeros, and a timed-out
 * case may hold the summary of the samples before its timeout; both
 * read null here, so every reader sees one rule.  "n" stays the count
 * of stored samples.
 */
static void null_failed_figures(json_t *o)
{
	const char *status = json_string_value(json_object_get(o, "status"));

	if (status && strcmp(status, "ok") == 0)
		return;
	for (int i = 0; i < NKEYS(figure_keys); i++)
		json_object_set_new(o, figure_keys[i], json_null());
}

static json_t *result_row(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int n = NKEYS(result_keys);

	set_cols(o, st, 0, result_keys, n, "result");
	null_failed_figures(o);
	json_object_set_new(o, "higher_is_better",
			    json_boolean(sqlite3_column_int(st, 11)));
	json_object_set_new(o, "device", device_object(st, n));
	json_object_set_new(o, "host",
			    sub_object(st, n + NKEYS(dev_keys), host_keys,
				       NKEYS(host_keys), "host"));
	int at = n + NKEYS(dev_keys) + NKEYS(host_keys);
	json_t *power =
	    sub_object(st, at, power_keys, NKEYS(power_keys), "result_power");
	if (json_is_object(power)) {
		json_object_del(power, "result_id");
		json_t *t = json_object_get(power, "throttled");
		if (json_is_integer(t))
			json_object_set_new(
			    power, "throttled",
			    json_boolean(json_integer_value(t) != 0));
	}
	json_object_set_new(o, "power", power);
	json_object_set_new(o, "cpu",
			    sub_object(st, at + NKEYS(power_keys), cpu_keys,
				       NKEYS(cpu_keys), "cpu_baseline"));
	return o;
}

/* Step st, turning each row into an object with row() and appending it
 * to a new array; on_row may add to each object.  Stops with AX_EINTR
 * when *stop (may be NULL) is set: a reader of a large database answers
 * Ctrl-C within one row. */
static int collect(struct ax_db *db, sqlite3_stmt *st,
		   json_t *(*row)(sqlite3_stmt *),
		   int (*on_row)(struct ax_db *, int64_t, json_t *),
		   const volatile int *stop, json_t **out)
{
	json_t *arr = json_array();
	int rc, err = 0;

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (stop && *stop) {
			err = ax_dbi_fail(db, AX_EINTR, "interrupted");
			break;
		}
		json_t *o = row(st);

		json_array_append_new(arr, o);
		if (on_row)
			err = on_row(db, sqlite3_column_int64(st, 0), o);
	}
	if (!err && rc != SQLITE_DONE)
		err = ax_dbi_fail_sql(db, rc, "reading");
	sqlite3_finalize(st);
	if (err) {
		json_decref(arr);
		return err;
	}
	*out = arr;
	return 0;
}

/* The listing of ax_db_results.  Ordered by run start, run and result
 * id, which the run_started and result_run indices give in that order:
 * SQLite steps through them with no sort, so the first row comes at
 * once and memory holds one row, whatever the history (checked with
 * EXPLAIN QUERY PLAN in tests/unit/test_db_plan.c). */
#define RESULTS_SQL                                                            \
	"SELECT x.id, x.uuid, x.run_id, r.uuid, r.started_at,"                 \
	" x.suite, x.case_label, x.params_json, x.params_hash,"                \
	" x.shader_hash, x.unit, x.higher_is_better, x.work,"                  \
	" x.timing_mode, x.stop_reason, x.status, x.error_text, x.n,"          \
	" x.median, x.min, x.max, x.mean, x.stddev, x.q1, x.q3,"               \
	" x.mad, x.ci_lo, x.ci_hi, x.rel_noise, x.extra_json,"                 \
	" " AX_RUN_STATUS_SQL(                                                 \
	    "r") ", x.speedup_vs_cpu, " NOISE_TARGET_SQL                       \
		 ", r.label, " DEV_COLS ", " HOST_COLS ", " POWER_COLS         \
		 ", " CPU_COLS " FROM run r JOIN result x ON x.run_id = r.id"  \
		 " LEFT JOIN device d ON d.id = r.device_id"                   \
		 " LEFT JOIN host h ON h.id = r.host_id"                       \
		 " LEFT JOIN result_power p ON p.result_id = x.id"             \
		 " LEFT JOIN cpu_baseline c ON c.id = x.cpu_baseline_id"
#define RESULTS_ORDER " ORDER BY r.started_at, r.id, x.id"

/* The listing as each filter makes it, and the samples' query: the
 * history queries whose plans tests/unit/test_db_plan.c checks. */
const struct ax_dbi_query ax_dbi_history_queries[] = {
    {"results", RESULTS_SQL " WHERE 1" RESULTS_ORDER},
    {"results of some runs", RESULTS_SQL
     " WHERE 1 AND +r.id IN (SELECT value FROM json_each(?))" RESULTS_ORDER},
    {"results since a date",
     RESULTS_SQL " WHERE 1 AND r.started_at >= ?" RESULTS_ORDER},
    {"results of one suite",
     RESULTS_SQL " WHERE 1 AND +x.suite = ?" RESULTS_ORDER},
    {"samples of a result", SAMPLES_SQL},
    {NULL, NULL},
};

int ax_db_results_each(struct ax_db *db, const struct ax_db_filter *f,
		       ax_db_result_fn fn, void *ctx)
{
	struct where w;
	sqlite3_stmt *st, *samples = NULL;
	int rc;

	if ((rc = build_where(&w, RESULTS_SQL, f, "r.started_at", true))) {
		where_free(&w);
		return ax_dbi_fail(db, rc, "out of memory");
	}
	rc = prepare_where(db, &w, RESULTS_ORDER, &st);
	if (rc)
		return rc;
	if (f && f->with_samples &&
	    (rc = ax_dbi_prepare(db, SAMPLES_SQL, &samples))) {
		sqlite3_finalize(st);
		return rc;
	}
	const volatile int *stop = f ? f->stop : NULL;
	int err = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (stop && *stop) {
			err = ax_dbi_fail(db, AX_EINTR, "interrupted");
			break;
		}
		json_t *o = result_row(st);
		if (!o) {
			err = ax_dbi_fail(db, AX_ENOMEM, "out of memory");
			break;
		}
		if (samples)
			err = add_samples(db, samples,
					  sqlite3_column_int64(st, 0), o);
		if (!err)
			err = fn(ctx, o);
		json_decref(o);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ax_dbi_fail_sql(db, rc, "reading results");
	sqlite3_finalize(samples);
	sqlite3_finalize(st);
	return err;
}

static int append_result(void *arr, json_t *r)
{
	return json_array_append(arr, r) ? AX_ENOMEM : 0;
}

int ax_db_results(struct ax_db *db, const struct ax_db_filter *f, json_t **out)
{
	json_t *arr = json_array();

	*out = NULL;
	if (!arr)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	int rc = ax_db_results_each(db, f, append_result, arr);
	if (rc == AX_ENOMEM)
		ax_dbi_fail(db, rc, "out of memory");
	if (rc) {
		json_decref(arr);
		return rc;
	}
	*out = arr;
	return 0;
}

static const char *const run_keys[] = {
    "id",      "uuid",	"started_at",	   "finished_at", "status", "kind",
    "profile", "label", "axbench_version", "git_sha",	  "*argv",  "n_results",
};

static json_t *run_row(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int n = NKEYS(run_keys);

	set_cols(o, st, 0, run_keys, n, "run");
	json_object_set_new(o, "device", device_object(st, n));
	json_object_set_new(o, "host",
			    sub_object(st, n + NKEYS(dev_keys), host_keys,
				       NKEYS(host_keys), "host"));
	return o;
}

#define RUNS_SQL                                                               \
	"SELECT r.id, r.uuid, r.started_at, r.finished_at,"                    \
	" " AX_RUN_STATUS_SQL("r") ", " AX_RUN_KIND_SQL(                       \
	    "r") ","                                                           \
		 " r.profile, r.label, r.axbench_version, r.git_sha, "         \
		 "r.argv_json,"                                                \
		 " (SELECT count(*) FROM result x WHERE x.run_id = "           \
		 "r.id), " DEV_COLS ", " HOST_COLS                             \
		 " FROM run r LEFT JOIN device d ON d.id = r.device_id"        \
		 " LEFT JOIN host h ON h.id = r.host_id"

int ax_db_runs(struct ax_db *db, const struct ax_db_filter *f, json_t **out)
{
	struct ax_db_filter rf;
	struct where w;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	/* Runs have no suite; a suite filter keeps runs holding one. */
	if (f)
		rf = *f;
	else
		memset(&rf, 0, sizeof(rf));
	rf.suite = NULL;
	if ((rc = build_where(&w, RUNS_SQL, &rf, "r.started_at", true))) {
		where_free(&w);
		return ax_dbi_fail(db, rc, "out of memory");
	}
	if (f && f->suite) {
		sqlite3_str_appendall(
		    w.sql, " AND EXISTS (SELECT 1 FROM result x WHERE"
			   " x.run_id = r.id AND x.suite = ?)");
		w.args[w.nargs++] = f->suite;
	}
	rc = prepare_where(db, &w, " ORDER BY r.started_at DESC, r.id DESC",
			   &st);
	if (rc)
		return rc;
	return collect(db, st, run_row, NULL, f ? f->stop : NULL, out);
}

static const char *const session_keys[] = {
    "id",	   "uuid",   "suite",	    "strategy",	     "objective",
    "seed",	   "budget", "stop_reason", "best_trial_id", "started_at",
    "finished_at", "*shape", "*space",	    "stop_rule",     "prior_session_id",
};

static json_t *session_row(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int n = NKEYS(session_keys);
	uint64_t seed = (uint64_t)sqlite3_column_int64(st, 5);

	set_cols(o, st, 0, session_keys, n, "session");
	/* JSON integers are signed 64-bit: seeds past that go as text. */
	if (seed > INT64_MAX) {
		char buf[24];

		snprintf(buf, sizeof(buf), "%" PRIu64, seed);
		json_object_set_new(o, "seed", json_string(buf));
	}
	json_object_set_new(o, "device", device_object(st, n));
	return o;
}

static const char *const trial_keys[] = {
    "id",    "index",	   "*params",	      "status",
    "value", "seconds",	   "compile_ms",      "result_id",
    "error", "created_at", "objective_value",
};

static json_t *trial_row(sqlite3_stmt *st)
{
	json_t *o = json_object();

	set_cols(o, st, 0, trial_keys, NKEYS(trial_keys), "trial");
	return o;
}

static int add_trials(struct ax_db *db, int64_t id, json_t *s)
{
	json_t *trials = NULL;
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db,
				"SELECT id, idx, params_json, status, value,"
				" seconds, compile_ms, result_id, error_text,"
				" created_at, objective_value FROM trial"
				" WHERE session_id = ?"
				" ORDER BY idx",
				&st);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = collect(db, st, trial_row, NULL, NULL, &trials)))
		return rc;
	json_object_set_new(s, "trials", trials);
	return 0;
}

#define SESSION_SELECT                                                         \
	"SELECT x.id, x.uuid, x.suite, x.strategy, x.objective, x.seed,"       \
	" x.budget, x.stop_reason, x.best_trial_id, x.started_at,"             \
	" x.finished_at, x.shape_json, x.space_json, x.stop_rule,"             \
	" x.prior_session_id, " DEV_COLS                                       \
	" FROM tune_session x LEFT JOIN device d ON d.id = x.device_id"

int ax_db_sessions(struct ax_db *db, const struct ax_db_filter *f, json_t **out)
{
	struct where w;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	if ((rc = build_where(&w, SESSION_SELECT, f, "x.started_at", false))) {
		where_free(&w);
		return ax_dbi_fail(db, rc, "out of memory");
	}
	rc = prepare_where(db, &w, " ORDER BY x.started_at, x.id", &st);
	if (rc)
		return rc;
	return collect(db, st, session_row, add_trials, f ? f->stop : NULL,
		       out);
}

int ax_db_session_get(struct ax_db *db, int64_t session_id, json_t **out)
{
	json_t *arr = NULL;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	if ((rc = ax_dbi_prepare(db, SESSION_SELECT " WHERE x.id = ?", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, session_id);
	if ((rc = collect(db, st, session_row, add_trials, NULL, &arr)))
		return rc;
	if (json_array_size(arr) == 0) {
		json_decref(arr);
		return ax_dbi_fail(db, AX_ENOTFOUND,
				   "%s: no tuning session with id %" PRId64
				   "; list sessions with `axbench tune --list`",
				   db->path, session_id);
	}
	*out = json_incref(json_array_get(arr, 0));
	json_decref(arr);
	return 0;
}

static const char *const baseline_keys[] = {"name", "run_id", "created_at",
					    "*run_ids"};

static json_t *baseline_row(sqlite3_stmt *st)
{
	json_t *o = json_object();

	set_cols(o, st, 0, baseline_keys, NKEYS(baseline_keys), "baseline");
	return o;
}

int ax_db_baselines(struct ax_db *db, json_t **out)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db,
				"SELECT name, run_id, created_at,"
				" coalesce((SELECT CASE WHEN count(*) THEN"
				"  json_group_array(run_id) END"
				"  FROM (SELECT run_id FROM baseline_run"
				"   WHERE baseline_id = b.id ORDER BY run_id)),"
				"  json_array(run_id))"
				" FROM baseline b ORDER BY name",
				&st);

	*out = NULL;
	if (rc)
		return rc;
	return collect(db, st, baseline_row, NULL, NULL, out);
}

int ax_db_cpu_baseline_find(struct ax_db *db,
			    const struct ax_db_cpu_baseline *key, int64_t *id,
			    double *median)
{
	char sh[17];
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "SELECT id, median FROM cpu_baseline WHERE host_id = ? AND"
	    " suite = ? AND shape_hash = ? AND shape_json = ? AND"
	    " threads = ? AND library = ? AND version IS ? AND"
	    " corename IS ? AND status = 'ok' AND median > 0"
	    " ORDER BY id DESC LIMIT 1",
	    &st);
	if (rc)
		return rc;
	ax_dbi_hash_hex(key->shape_json, sh);
	sqlite3_bind_int64(st, 1, key->host_id);
	ax_dbi_bind_text(st, 2, key->suite);
	ax_dbi_bind_text(st, 3, sh);
	ax_dbi_bind_text(st, 4, key->shape_json);
	sqlite3_bind_int(st, 5, key->threads);
	ax_dbi_bind_text(st, 6, key->library);
	ax_dbi_bind_text(st, 7, key->version);
	ax_dbi_bind_text(st, 8, key->corename);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*median = sqlite3_column_double(st, 1);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ax_dbi_fail_sql(db, rc, "looking up a CPU baseline");
	return AX_ENOTFOUND;
}

/* The series columns, each an array of the samples in time order. */
static const char *const series_cols[] = {
    "t", "power_w", "energy_j", "temp_c", "sm_mhz", "mem_mhz", "mem_used_b",
};

static int series_samples(struct ax_db *db, int64_t series_id, json_t *o)
{
	json_t *arr[NKEYS(series_cols)];
	for (int k = 0; k < NKEYS(series_cols); k++) {
		arr[k] = json_array();
		json_object_set_new(o, series_cols[k], arr[k]);
	}
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db,
				"SELECT t, power_w, energy_j, temp_c, sm_mhz,"
				" mem_mhz, mem_used_b FROM telemetry_sample"
				" WHERE series_id = ? ORDER BY idx",
				&st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, series_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int k = 0; k < NKEYS(series_cols); k++)
			json_array_append_new(
			    arr[k], col_json(st, k, "telemetry_sample",
					     series_cols[k]));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0
				 : ax_dbi_fail_sql(db, rc, "reading telemetry");
}

int ax_db_result_series(struct ax_db *db, int64_t result_id, json_t **out)
{
	static const char *const keys[] = {"id", "kind", "source", "interval_s",
					   "timed_from_s"};
	sqlite3_stmt *st;
	*out = NULL;
	int rc = ax_dbi_prepare(db,
				"SELECT id, kind, source, interval_s,"
				" timed_from_s FROM telemetry_series WHERE"
				" result_id = ? ORDER BY id DESC LIMIT 1",
				&st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, result_id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE
			   ? ax_dbi_fail(db, AX_ENOTFOUND,
					 "%s: result %" PRId64
					 " has no telemetry series",
					 db->path, result_id)
			   : ax_dbi_fail_sql(db, rc, "reading telemetry");
	}
	json_t *o = json_object();
	set_cols(o, st, 0, keys, NKEYS(keys), "telemetry_series");
	int64_t sid = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if ((rc = series_samples(db, sid, o))) {
		json_decref(o);
		return rc;
	}
	*out = o;
	return 0;
}
