/* tests/unit/test_db_plan.c - the history queries step through indices:
 * EXPLAIN QUERY PLAN of each shows no sort in a temporary B-tree and no
 * full scan of the result or sample table, so a report or a listing of a
 * year of runs starts at once and holds one row (issue 18). */
#include "core/db.h"
#include "core/db_internal.h" /* ax_dbi_history_queries */
#include "core/error.h"
#include "tests/unit/ax_test.h"
#include <sqlite3.h>
#include <unistd.h>

static char path[512];

/* The plan of sql, one detail per line, into buf. */
static void plan_of(sqlite3 *h, const char *sql, char *buf, size_t len)
{
	char q[8192];
	sqlite3_stmt *st;
	buf[0] = 0;
	snprintf(q, sizeof(q), "EXPLAIN QUERY PLAN %s", sql);
	int rc = sqlite3_prepare_v2(h, q, -1, &st, NULL);
	AX_CHECK_INT(rc, SQLITE_OK);
	if (rc) {
		printf("#   %s\n", sqlite3_errmsg(h));
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "%s\n",
			 (const char *)sqlite3_column_text(st, 3));
	}
	sqlite3_finalize(st);
}

static struct ax_db *db;

/* A new database through ax_db_open, whose connection has the SQL
 * functions the queries call. */
static sqlite3 *open_fresh(void)
{
	char err[512];
	snprintf(path, sizeof(path), "/tmp/ax_plan_%d.db", (int)getpid());
	unlink(path);
	AX_CHECK_INT(ax_db_open(path, 0, &db, err, sizeof(err)), 0);
	return db ? db->h : NULL;
}

static void close_fresh(sqlite3 *h)
{
	char p[600];
	(void)h;
	ax_db_close(db);
	db = NULL;
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
}

static void history_queries_use_indices(void)
{
	sqlite3 *h = open_fresh();
	char plan[8192];
	for (int i = 0; h && ax_dbi_history_queries[i].name; i++) {
		const struct ax_dbi_query *q = &ax_dbi_history_queries[i];
		plan_of(h, q->sql, plan, sizeof(plan));
		bool sorts = strstr(plan, "TEMP B-TREE") != NULL;
		bool scans =
		    strstr(plan, "SCAN x") || strstr(plan, "SCAN sample");
		if (sorts || scans)
			printf("#   %s:\n#   %s", q->name, plan);
		AX_CHECK(!sorts);
		AX_CHECK(!scans);
		AX_CHECK(*plan != 0);
	}
	/* The listing walks runs in start order through run_started and
	 * finds each run's results through result_run. */
	plan_of(h, ax_dbi_history_queries[0].sql, plan, sizeof(plan));
	AX_CHECK(strstr(plan, "run_started") != NULL);
	AX_CHECK(strstr(plan, "result_run") != NULL);
	close_fresh(h);
}

/* Deleting a run (db prune) checks every table that refers to it or to
 * its results: each check must be an index search, not a table scan. */
static void prune_checks_use_indices(void)
{
	static const char *const checks[][2] = {
	    {"SELECT 1 FROM trial WHERE result_id = ?", "trial_result"},
	    {"SELECT 1 FROM baseline_run WHERE run_id = ?", "baseline_run_run"},
	    {"SELECT 1 FROM result WHERE run_id = ?", "result_run"},
	    {"SELECT 1 FROM telemetry_series WHERE result_id = ?",
	     "telemetry_series_result"},
	    {"SELECT 1 FROM telemetry_series WHERE run_id = ?",
	     "telemetry_series_run"},
	    {"SELECT 1 FROM result_power WHERE series_id = ?",
	     "result_power_series"},
	};
	sqlite3 *h = open_fresh();
	char plan[4096];
	for (size_t i = 0; h && i < sizeof(checks) / sizeof(*checks); i++) {
		plan_of(h, checks[i][0], plan, sizeof(plan));
		if (!strstr(plan, checks[i][1]))
			printf("#   %s:\n#   %s", checks[i][0], plan);
		AX_CHECK(strstr(plan, checks[i][1]) != NULL);
	}
	close_fresh(h);
}

AX_TEST_MAIN(AX_TEST(history_queries_use_indices),
	     AX_TEST(prune_checks_use_indices))
