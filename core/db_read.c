/* core/db_read.c - the look-ups of single ids (the last run, a baseline's
 * runs, a CPU baseline); the listings are core/db_rows.c. */
#include "core/db_internal.h"

#include "core/error.h"
#include "core/suggest.h"
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

/* "; did you mean 'main'?" for the saved baseline nearest to name, or
 * "" (into buf). */
static const char *nearest_baseline(struct ax_db *db, const char *name,
				    char *buf, size_t len)
{
	sqlite3_stmt *st;
	struct ax_suggest sg;
	char best[256] = "";
	buf[0] = '\0';
	if (ax_dbi_prepare(db, "SELECT name FROM baseline ORDER BY name", &st))
		return buf;
	ax_suggest_init(&sg, name);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 0);
		int before = sg.distance;
		ax_suggest_add(&sg, n ? n : "");
		if (sg.distance < before) /* the text dies with the next step */
			snprintf(best, sizeof(best), "%s", n);
	}
	sqlite3_finalize(st);
	if (best[0])
		snprintf(buf, len, "; did you mean '%s'?", ax_term(best));
	return buf;
}

int ax_db_baseline_run(struct ax_db *db, const char *name, int64_t *run_id)
{
	int rc = query_id(db, "SELECT run_id FROM baseline WHERE name = ?",
			  name ? name : "", run_id, "no such baseline");

	if (rc == AX_ENOTFOUND) {
		char hint[300];
		nearest_baseline(db, name ? name : "", hint, sizeof(hint));
		ax_dbi_fail(db, rc, "%s: no baseline named \"%s\"%s%s",
			    db->path, name ? name : "", hint,
			    hint[0] ? ""
				    : "; save one with "
				      "`axbench baseline save NAME`");
	}
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
