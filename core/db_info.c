/* core/db_info.c - what a database holds (`db info`) and whether it holds
 * it soundly (`db check`): SQLite's own checks of pages and references,
 * then axbench's rules that the schema alone does not enforce. */
#include "core/db_internal.h"

#include "core/db_admin.h"
#include "core/error.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tables whose rows `db info` counts, in the order it lists them. */
static const char *const counted[AX_DB_INFO_N_COUNTS] = {
    "host",	    "device",		"run",
    "result",	    "sample",		"tune_session",
    "trial",	    "baseline",		"cpu_baseline",
    "result_power", "telemetry_series", "telemetry_sample",
};

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? strdup(s) : NULL;
}

/* Text column i, or NULL; false when it is not NULL but could not be
 * copied. */
static bool take_text(sqlite3_stmt *st, int i, char **out)
{
	*out = col_dup(st, i);
	return *out || sqlite3_column_type(st, i) == SQLITE_NULL;
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

static bool host_row(sqlite3_stmt *st, struct ax_db_info *info)
{
	struct ax_db_info_host *v =
	    realloc(info->hosts, (info->n_hosts + 1) * sizeof(*v));
	if (!v)
		return false;
	info->hosts = v;
	struct ax_db_info_host *h = &v[info->n_hosts++];
	memset(h, 0, sizeof(*h));
	h->cores = sqlite3_column_type(st, 2) == SQLITE_NULL
		       ? -1
		       : sqlite3_column_int64(st, 2);
	h->runs = sqlite3_column_int64(st, 3);
	h->memory_bytes = sqlite3_column_type(st, 4) == SQLITE_NULL
			      ? -1
			      : sqlite3_column_int64(st, 4);
	return take_text(st, 0, &h->hostname) &&
	       take_text(st, 1, &h->cpu_model) && take_text(st, 5, &h->os) &&
	       take_text(st, 6, &h->fingerprint);
}

static bool device_row(sqlite3_stmt *st, struct ax_db_info *info)
{
	struct ax_db_info_device *v =
	    realloc(info->devices, (info->n_devices + 1) * sizeof(*v));
	if (!v)
		return false;
	info->devices = v;
	struct ax_db_info_device *d = &v[info->n_devices++];
	memset(d, 0, sizeof(*d));
	d->runs = sqlite3_column_int64(st, 5);
	return take_text(st, 0, &d->name) && take_text(st, 1, &d->vendor) &&
	       take_text(st, 2, &d->type) &&
	       take_text(st, 3, &d->driver_info) &&
	       take_text(st, 4, &d->fingerprint);
}

static bool span_row(sqlite3_stmt *st, struct ax_db_info *info)
{
	return take_text(st, 0, &info->first_run) &&
	       take_text(st, 1, &info->last_run);
}

/* Each row of sql through row(st, info); false from it: out of memory. */
static int rows(struct ax_db *db, const char *sql,
		bool (*row)(sqlite3_stmt *, struct ax_db_info *),
		struct ax_db_info *info)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db, sql, &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (!row(st, info)) {
			sqlite3_finalize(st);
			return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
		}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ax_dbi_fail_sql(db, rc, "reading");
}

int ax_db_info(struct ax_db *db, struct ax_db_info **out)
{
	struct ax_db_info *info = calloc(1, sizeof(*info));
	*out = NULL;
	if (!info)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	info->schema_version = db->version;
	int rc = 0;
	for (int i = 0; i < AX_DB_INFO_N_COUNTS && !rc; i++) {
		info->counts[i].table = counted[i];
		rc = count_rows(db, counted[i], &info->counts[i].rows);
	}
	if (!rc)
		rc = rows(db,
			  "SELECT hostname, cpu_model, cores, (SELECT count(*)"
			  " FROM run WHERE host_id = h.id), memory_bytes, os,"
			  " fingerprint FROM host h ORDER BY id",
			  host_row, info);
	if (!rc)
		rc = rows(db,
			  "SELECT name, vendor, type, driver_info, fingerprint,"
			  " (SELECT count(*) FROM run WHERE device_id = d.id)"
			  " FROM device d ORDER BY id",
			  device_row, info);
	if (!rc)
		rc =
		    rows(db, "SELECT min(started_at), max(started_at) FROM run",
			 span_row, info);
	if (rc) {
		ax_db_info_free(info);
		return rc;
	}
	*out = info;
	return 0;
}

void ax_db_info_free(struct ax_db_info *info)
{
	if (!info)
		return;
	for (size_t i = 0; i < info->n_hosts; i++)
		free(info->hosts[i].hostname), free(info->hosts[i].cpu_model),
		    free(info->hosts[i].os), free(info->hosts[i].fingerprint);
	for (size_t i = 0; i < info->n_devices; i++) {
		struct ax_db_info_device *d = &info->devices[i];
		free(d->name), free(d->vendor), free(d->type);
		free(d->driver_info), free(d->fingerprint);
	}
	free(info->hosts);
	free(info->devices);
	free(info->first_run);
	free(info->last_run);
	free(info);
}

static json_t *text_json(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *hosts_json(const struct ax_db_info *info)
{
	json_t *a = json_array();
	for (size_t i = 0; i < info->n_hosts; i++) {
		const struct ax_db_info_host *h = &info->hosts[i];
		json_array_append_new(
		    a, json_pack(
			   "{s:o,s:o,s:o,s:o,s:o,s:o,s:I}", "hostname",
			   text_json(h->hostname), "cpu_model",
			   text_json(h->cpu_model), "cores",
			   h->cores < 0 ? json_null() : json_integer(h->cores),
			   "memory_bytes",
			   h->memory_bytes < 0 ? json_null()
					       : json_integer(h->memory_bytes),
			   "os", text_json(h->os), "fingerprint",
			   text_json(h->fingerprint), "runs",
			   (json_int_t)h->runs));
	}
	return a;
}

static json_t *devices_json(const struct ax_db_info *info)
{
	json_t *a = json_array();
	for (size_t i = 0; i < info->n_devices; i++) {
		const struct ax_db_info_device *d = &info->devices[i];
		json_array_append_new(
		    a,
		    json_pack("{s:o,s:o,s:o,s:o,s:o,s:I}", "name",
			      text_json(d->name), "vendor",
			      text_json(d->vendor), "type", text_json(d->type),
			      "driver_info", text_json(d->driver_info),
			      "fingerprint", text_json(d->fingerprint), "runs",
			      (json_int_t)d->runs));
	}
	return a;
}

json_t *ax_db_info_json(const struct ax_db_info *info)
{
	json_t *counts = json_object();
	for (int i = 0; i < AX_DB_INFO_N_COUNTS; i++)
		json_object_set_new(counts, info->counts[i].table,
				    json_integer(info->counts[i].rows));
	return json_pack("{s:i,s:o,s:o,s:o,s:{s:o,s:o}}", "schema_version",
			 info->schema_version, "counts", counts, "hosts",
			 hosts_json(info), "devices", devices_json(info),
			 "runs_span", "first", text_json(info->first_run),
			 "last", text_json(info->last_run));
}

#define INTEGRITY_CHECK "SQLite integrity_check"
#define FOREIGN_KEY_CHECK "SQLite foreign_key_check"

/* axbench's own rules, each a query that lists every row that breaks
 * it: what a report, compare or merge would trip on.  Every row is
 * counted and the first AX_DB_CHECK_LISTED are kept as examples, so a
 * file with 156 012 bad rows is not reported as having five. */
static const struct rule {
	const char *name, *sql;
} rules[] = {
    {"every result has its run",
     "SELECT 'result ' || id FROM result WHERE run_id NOT IN"
     " (SELECT id FROM run)"},
    {"every sample has its result",
     "SELECT 'sample ' || id FROM sample WHERE result_id NOT IN"
     " (SELECT id FROM result)"},
    {"every run names a host and a device that exist",
     "SELECT 'run ' || id FROM run WHERE host_id NOT IN (SELECT id FROM"
     " host) OR device_id NOT IN (SELECT id FROM device)"},
    {"every trial has its session",
     "SELECT 'trial ' || id FROM trial WHERE session_id NOT IN"
     " (SELECT id FROM tune_session)"},
    {"every baseline names runs that exist",
     "SELECT 'baseline ' || name FROM baseline WHERE run_id NOT IN"
     " (SELECT id FROM run) OR id IN (SELECT baseline_id FROM baseline_run"
     " WHERE run_id NOT IN (SELECT id FROM run))"},
    {"an ok result has a median and as many samples as its n",
     "SELECT 'result ' || id FROM result x WHERE status = 'ok' AND"
     " (median IS NULL OR n != (SELECT count(*) FROM sample WHERE"
     " result_id = x.id))"},
    {"every row's UUID is 36 characters",
     "SELECT t || ' ' || uuid FROM (SELECT 'run' AS t, uuid FROM run UNION"
     " ALL SELECT 'result', uuid FROM result UNION ALL SELECT 'host', uuid"
     " FROM host UNION ALL SELECT 'device', uuid FROM device) WHERE"
     " length(uuid) != 36"},
    {"a finished run has a finish time",
     "SELECT 'run ' || id FROM run WHERE status IN ('complete', 'failed')"
     " AND finished_at IS NULL"},
};

/* Count a problem p of check number i in r, keeping it as an example
 * while fewer than AX_DB_CHECK_LISTED of that check are kept; false
 * when out of memory. */
static bool add_problem(struct ax_db_check_report *r, size_t i, const char *p)
{
	struct ax_db_check_count *c = &r->counts[i];
	c->found++;
	r->n_found++;
	if (c->listed >= AX_DB_CHECK_LISTED)
		return true;
	struct ax_db_check_problem *v =
	    realloc(r->problems, (r->n_problems + 1) * sizeof(*v));
	if (!v)
		return false;
	r->problems = v;
	if (!(v[r->n_problems].problem = strdup(p ? p : "?")))
		return false;
	v[r->n_problems++].check = r->checks[i];
	c->listed++;
	return true;
}

/* Run the check query sql as check number r->n_checks, counting a
 * problem per row; skip_ok passes rows that say "ok" (integrity_check
 * says so when all is well). */
static int check_query(struct ax_db *db, const char *name, const char *sql,
		       bool skip_ok, struct ax_db_check_report *r)
{
	sqlite3_stmt *st;
	size_t i = r->n_checks++;
	r->checks[i] = name;
	int rc = ax_dbi_prepare(db, sql, &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 0);
		if (skip_ok && p && !strcmp(p, "ok"))
			continue;
		if (!add_problem(r, i, p)) {
			sqlite3_finalize(st);
			return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ax_dbi_fail_sql(db, rc, "checking");
}

/* SQLite's integrity_check stops after this many messages (it cannot
 * count without listing); a count that reaches it is marked capped. */
#define INTEGRITY_MAX 10000
#define STR_(x) #x
#define STR(x) STR_(x)

int ax_db_check(struct ax_db *db, struct ax_db_check_report **out)
{
	enum { N_CHECKS = 2 + sizeof(rules) / sizeof(*rules) };
	struct ax_db_check_report *r = calloc(1, sizeof(*r));
	*out = NULL;
	if (r) {
		r->checks = calloc(N_CHECKS, sizeof(*r->checks));
		r->counts = calloc(N_CHECKS, sizeof(*r->counts));
	}
	if (!r || !r->checks || !r->counts) {
		ax_db_check_report_free(r);
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	}
	int rc = check_query(db, INTEGRITY_CHECK,
			     "PRAGMA integrity_check(" STR(INTEGRITY_MAX) ")",
			     true, r);
	r->counts[0].capped = r->counts[0].found >= INTEGRITY_MAX;
	if (!rc)
		rc = check_query(db, FOREIGN_KEY_CHECK,
				 "SELECT \"table\" || ' row ' || rowid || "
				 "' names a missing ' || parent FROM"
				 " pragma_foreign_key_check",
				 false, r);
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules) && !rc; i++)
		rc = check_query(db, rules[i].name, rules[i].sql, false, r);
	if (rc) {
		ax_db_check_report_free(r);
		return rc;
	}
	r->ok = r->n_found == 0;
	*out = r;
	return 0;
}

void ax_db_check_report_free(struct ax_db_check_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_problems; i++)
		free(r->problems[i].problem);
	free(r->problems);
	free(r->checks);
	free(r->counts);
	free(r);
}

json_t *ax_db_check_json(const struct ax_db_check_report *r)
{
	json_t *checks = json_array(), *problems = json_array();
	json_t *counts = json_array();
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct ax_db_check_count *c = &r->counts[i];
		json_array_append_new(checks, json_string(r->checks[i]));
		json_array_append_new(
		    counts,
		    json_pack("{s:s,s:I,s:I,s:b}", "check", r->checks[i],
			      "found", (json_int_t)c->found, "listed",
			      (json_int_t)c->listed, "capped", c->capped));
	}
	for (size_t i = 0; i < r->n_problems; i++)
		json_array_append_new(problems,
				      json_pack("{s:s,s:s}", "check",
						r->problems[i].check, "problem",
						r->problems[i].problem));
	return json_pack("{s:b,s:o,s:o,s:I,s:o}", "ok", r->ok, "checks", checks,
			 "counts", counts, "problem_count",
			 (json_int_t)r->n_found, "problems", problems);
}
