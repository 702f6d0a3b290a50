/* core/db_info.c - what a database holds (`db info`) and whether it holds
 * it soundly (`db check`): SQLite's own checks of pages and references,
 * then axbench's rules that the schema alone does not enforce. */
#include "core/db_internal.h"

#include "core/error.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

/* Tables whose rows `db info` counts, in the order it lists them. */
static const char *const counted[] = {
    "host",	    "device",		"run",
    "result",	    "sample",		"tune_session",
    "trial",	    "baseline",		"cpu_baseline",
    "result_power", "telemetry_series", "telemetry_sample",
};

/* One row of one column as JSON, or NULL. */
static json_t *value_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return json_string((const char *)sqlite3_column_text(st, i));
	default:
		return json_null();
	}
}

/* Rows of sql as objects with keys[0..n), appended to arr. */
static int rows(struct ax_db *db, const char *sql, const char *const *keys,
		int n, json_t *arr)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, sql, &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();
		for (int i = 0; i < n; i++)
			json_object_set_new(o, keys[i], value_json(st, i));
		json_array_append_new(arr, o);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ax_dbi_fail_sql(db, rc, "reading");
}

static int count_rows(struct ax_db *db, const char *table, int64_t *n)
{
	sqlite3_stmt *st;
	/* table is one of the constant names above, never data; quoted as
	 * an identifier all the same. */
	char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", table);
	int rc = sql ? ax_dbi_prepare(db, sql, &st)
		     : ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	sqlite3_free(sql);
	if (rc)
		return rc;
	rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : ax_dbi_fail_sql(db, rc, "counting");
}

int ax_db_info(struct ax_db *db, json_t **out)
{
	static const char *const host_keys[] = {"hostname", "cpu_model",
						"cores", "runs"};
	static const char *const dev_keys[] = {
	    "name", "vendor", "type", "driver_info", "fingerprint", "runs"};
	static const char *const span_keys[] = {"first", "last"};
	json_t *o = json_object(), *counts = json_object();
	json_t *hosts = json_array(), *devs = json_array(),
	       *span = json_array();
	*out = NULL;
	json_object_set_new(o, "schema_version", json_integer(db->version));
	json_object_set_new(o, "counts", counts);
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "devices", devs);
	int rc = 0;
	for (size_t i = 0; i < sizeof(counted) / sizeof(*counted) && !rc; i++) {
		int64_t n = 0;
		rc = count_rows(db, counted[i], &n);
		json_object_set_new(counts, counted[i], json_integer(n));
	}
	if (!rc)
		rc = rows(db,
			  "SELECT hostname, cpu_model, cores, (SELECT count(*)"
			  " FROM run WHERE host_id = h.id) FROM host h ORDER"
			  " BY id",
			  host_keys, 4, hosts);
	if (!rc)
		rc = rows(db,
			  "SELECT name, vendor, type, driver_info, fingerprint,"
			  " (SELECT count(*) FROM run WHERE device_id = d.id)"
			  " FROM device d ORDER BY id",
			  dev_keys, 6, devs);
	if (!rc)
		rc =
		    rows(db, "SELECT min(started_at), max(started_at) FROM run",
			 span_keys, 2, span);
	json_object_set(o, "runs_span", json_array_get(span, 0));
	json_decref(span);
	if (rc) {
		json_decref(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* axbench's own rules, each a query that lists what breaks it (at most
 * a few examples each): what a report, compare or merge would trip on. */
static const struct rule {
	const char *name, *sql;
} rules[] = {
    {"every result has its run",
     "SELECT 'result ' || id FROM result WHERE run_id NOT IN"
     " (SELECT id FROM run) LIMIT 5"},
    {"every sample has its result",
     "SELECT 'sample ' || id FROM sample WHERE result_id NOT IN"
     " (SELECT id FROM result) LIMIT 5"},
    {"every run names a host and a device that exist",
     "SELECT 'run ' || id FROM run WHERE host_id NOT IN (SELECT id FROM"
     " host) OR device_id NOT IN (SELECT id FROM device) LIMIT 5"},
    {"every trial has its session",
     "SELECT 'trial ' || id FROM trial WHERE session_id NOT IN"
     " (SELECT id FROM tune_session) LIMIT 5"},
    {"every baseline names runs that exist",
     "SELECT 'baseline ' || name FROM baseline WHERE run_id NOT IN"
     " (SELECT id FROM run) OR id IN (SELECT baseline_id FROM baseline_run"
     " WHERE run_id NOT IN (SELECT id FROM run)) LIMIT 5"},
    {"an ok result has a median and as many samples as its n",
     "SELECT 'result ' || id FROM result x WHERE status = 'ok' AND"
     " (median IS NULL OR n != (SELECT count(*) FROM sample WHERE"
     " result_id = x.id)) LIMIT 5"},
    {"every row's UUID is 36 characters",
     "SELECT t || ' ' || uuid FROM (SELECT 'run' AS t, uuid FROM run UNION"
     " ALL SELECT 'result', uuid FROM result UNION ALL SELECT 'host', uuid"
     " FROM host UNION ALL SELECT 'device', uuid FROM device) WHERE"
     " length(uuid) != 36 LIMIT 5"},
    {"a finished run has a finish time",
     "SELECT 'run ' || id FROM run WHERE status IN ('complete', 'failed')"
     " AND finished_at IS NULL LIMIT 5"},
};

/* Run one check query, appending {"check", "problem"} per row. */
static int check_query(struct ax_db *db, const char *name, const char *sql,
		       json_t *problems)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, sql, &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 0);
		json_array_append_new(problems,
				      json_pack("{s:s,s:s}", "check", name,
						"problem", p ? p : "?"));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ax_dbi_fail_sql(db, rc, "checking");
}

/* SQLite's integrity_check says "ok" when all is well. */
static int integrity(struct ax_db *db, json_t *problems)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, "PRAGMA integrity_check(20)", &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 0);
		if (p && strcmp(p, "ok"))
			json_array_append_new(
			    problems,
			    json_pack("{s:s,s:s}", "check",
				      "SQLite integrity_check", "problem", p));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ax_dbi_fail_sql(db, rc, "checking");
}

int ax_db_check(struct ax_db *db, json_t **out)
{
	json_t *problems = json_array(), *checks = json_array();
	*out = NULL;
	int rc = integrity(db, problems);
	json_array_append_new(checks, json_string("SQLite integrity_check"));
	if (!rc) {
		rc = check_query(
		    db, "SQLite foreign_key_check",
		    "SELECT \"table\" || ' row ' || rowid || ' names"
		    " a missing ' || parent FROM"
		    " pragma_foreign_key_check LIMIT 20",
		    problems);
		json_array_append_new(checks,
				      json_string("SQLite foreign_key_check"));
	}
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules) && !rc; i++) {
		rc = check_query(db, rules[i].name, rules[i].sql, problems);
		json_array_append_new(checks, json_string(rules[i].name));
	}
	if (rc) {
		json_decref(problems);
		json_decref(checks);
		return rc;
	}
	*out = json_pack("{s:b,s:o,s:o}", "ok", json_array_size(problems) == 0,
			 "checks", checks, "problems", problems);
	return *out ? 0 : ax_dbi_fail(db, AX_ENOMEM, "out of memory");
}
