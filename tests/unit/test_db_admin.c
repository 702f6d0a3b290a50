/*
 * tests/unit/test_db_admin.c - core/db_admin.h on real SQLite files built
 * with core's write API: the typed prune plan (policy and named runs),
 * pruning, merging with its per-table counts and renamed baselines,
 * `db info` and `db check`, and the documents built from those structs.
 */
#include "core/db.h"
#include "core/db_admin.h"
#include "core/error.h"
#include "tests/unit/ax_test.h"

#include <sqlite3.h>

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/ax_test_db_admin.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	snprintf(p, 512, "%s/%s", tmpdir, name);
	return p;
}

static struct ax_db *open_ok(const char *path, unsigned flags)
{
	char err[512] = "";
	struct ax_db *db = NULL;
	int rc = ax_db_open(path, flags, &db, err, sizeof(err));

	if (rc)
		printf("#   open %s: %s\n", path, err);
	AX_CHECK_INT(rc, 0);
	return db;
}

/* A run of label "ci" on the one host and device; finished unless
 * running. */
static int64_t add_run(struct ax_db *db, const char *config, bool running)
{
	struct ax_db_host h = {"testhost", "Linux 6.1",	      "Test CPU", 2,
			       1,	   (int64_t)24 << 30, NULL};
	struct ax_db_device d = {.fingerprint = "fp-admin",
				 .name = "llvmpipe",
				 .vendor = "Mesa",
				 .type = "cpu",
				 .driver_name = "llvmpipe",
				 .driver_info = "Mesa 22.3.6",
				 .properties_json = "{}"};
	struct ax_db_run r = {.axbench_version = "0.1",
			      .argv_json = "[\"axbench\"]",
			      .config_json = config,
			      .label = "ci"};
	int64_t id = 0;
	AX_CHECK_INT(ax_db_host_upsert(db, &h, &r.host_id), 0);
	AX_CHECK_INT(ax_db_device_upsert(db, &d, &r.device_id), 0);
	AX_CHECK_INT(ax_db_run_begin(db, &r, &id), 0);
	if (!running)
		AX_CHECK_INT(ax_db_run_finish(db, id, "complete"), 0);
	return id;
}

/* One ok result of 5 samples. */
static void add_result(struct ax_db *db, int64_t run_id)
{
	double secs[5] = {1e-6, 2e-6, 3e-6, 4e-6, 5e-6};
	double vals[5] = {10, 11, 12, 13, 14};
	struct ax_db_result r = {.run_id = run_id,
				 .suite = "bandwidth",
				 .case_label = "copy",
				 .params_json = "{\"size\":1024}",
				 .unit = "GB/s",
				 .higher_is_better = true,
				 .work = 2048,
				 .timing_mode = "gpu-timestamp",
				 .stop_reason = "noise",
				 .status = "ok",
				 .n = 5,
				 .median = 12,
				 .speedup_vs_cpu = NAN};
	AX_CHECK_INT(ax_db_result_add(db, &r, secs, vals, 5, NULL), 0);
}

/* A run's idle series of 3 readings. */
static void add_series(struct ax_db *db, int64_t run_id)
{
	struct ax_tel_reading rd[3];
	for (int i = 0; i < 3; i++) {
		ax_tel_reading_clear(&rd[i]);
		rd[i].t = 100.0 + 0.1 * i;
		rd[i].power_w = 50 + i;
	}
	struct ax_db_series s = {.run_id = run_id,
				 .kind = "idle",
				 .source = "RAPL",
				 .interval_s = 0.1,
				 .t0 = 100.0,
				 .timed_from_s = NAN,
				 .readings = rd,
				 .n = 3};
	AX_CHECK_INT(ax_db_series_add(db, &s, NULL), 0);
}

/* The history, oldest first: A (baselines "main" and "nightly"), B
 * (removable: one result, an idle series), C ("nightly"), T (a tuning
 * session's), R (still running: this process owns it), D (the newest).
 * Series "ci" of kind run, newest first: D R C B A. */
static struct ids {
	int64_t a, b, c, t, r, d;
} history(const char *path)
{
	struct ids id = {0};
	struct ax_db *db = open_ok(path, 0);
	if (!db)
		return id;
	id.a = add_run(db, "{}", false);
	add_result(db, id.a);
	id.b = add_run(db, "{}", false);
	add_result(db, id.b);
	add_series(db, id.b);
	id.c = add_run(db, "{}", false);
	id.t = add_run(db, "{\"command\":\"tune\"}", false);
	id.r = add_run(db, "{}", true);
	id.d = add_run(db, "{}", false);
	AX_CHECK_INT(ax_db_baseline_save(db, "main", &id.a, 1), 0);
	int64_t nightly[2] = {id.a, id.c};
	AX_CHECK_INT(ax_db_baseline_save(db, "nightly", nightly, 2), 0);
	ax_db_close(db);
	return id;
}

static void prune_plan_policy(void)
{
	const char *p = tmp_path("policy.db");
	struct ids id = history(p);
	struct ax_db *db = open_ok(p, AX_DB_READONLY);
	if (!db)
		return;
	struct ax_db_prune_opts o = {.keep_last = 1, .weekly = false};
	struct ax_db_prune_plan *plan = NULL;
	AX_CHECK_INT(ax_db_prune_plan(db, &o, &plan), 0);
	if (!plan) {
		ax_db_close(db);
		return;
	}
	AX_CHECK_INT(plan->total, 6);
	AX_CHECK_INT(plan->kept, 5);
	AX_CHECK_INT(plan->kept_by.baseline, 2); /* A, C */
	AX_CHECK_INT(plan->kept_by.tune, 1);
	AX_CHECK_INT(plan->kept_by.running, 1);
	AX_CHECK_INT(plan->kept_by.last, 1); /* D */
	AX_CHECK_INT(plan->kept_by.weekly, 0);
	AX_CHECK_INT(plan->kept_by.not_named, 0);
	AX_CHECK_INT(plan->n_removed, 1);
	if (plan->n_removed == 1) {
		const struct ax_db_prune_run *r = &plan->removed[0];
		AX_CHECK_INT(r->id, id.b);
		AX_CHECK_STR(r->kind, "run");
		AX_CHECK_STR(r->label, "ci");
		AX_CHECK_STR(r->status, "complete");
		AX_CHECK(r->started_at && strlen(r->started_at) == 24);
	}
	AX_CHECK_INT(plan->results, 1);
	AX_CHECK_INT(plan->samples, 5);
	AX_CHECK_INT(plan->telemetry_series, 1);
	AX_CHECK_INT(plan->telemetry_readings, 3);
	AX_CHECK_INT(plan->n_refused, 0);
	AX_CHECK_INT(plan->n_missing, 0);

	/* The document: the struct's numbers, integers as integers. */
	json_t *doc = ax_db_prune_json(plan, &o, true);
	const json_t *pol = json_object_get(doc, "policy");
	const json_t *rem = json_object_get(doc, "removed");
	AX_CHECK(json_is_true(json_object_get(doc, "dry_run")));
	AX_CHECK_STR(json_string_value(json_object_get(pol, "mode")),
		     "retention");
	AX_CHECK_INT(json_integer_value(json_object_get(pol, "keep_last")), 1);
	AX_CHECK(json_is_false(json_object_get(pol, "weekly")));
	AX_CHECK(json_is_null(json_object_get(pol, "run_ids")));
	AX_CHECK_INT(json_integer_value(json_object_get(doc, "kept")), 5);
	AX_CHECK_INT(json_integer_value(json_object_get(
			 json_object_get(doc, "kept_by"), "baseline")),
		     2);
	AX_CHECK_INT(
	    json_integer_value(json_array_get(json_object_get(rem, "runs"), 0)),
	    id.b);
	AX_CHECK(json_is_integer(json_object_get(rem, "telemetry_readings")));
	AX_CHECK_INT(json_object_size(doc), 5);
	json_decref(doc);
	ax_db_prune_plan_free(plan);
	ax_db_close(db);
}

static void prune_plan_named(void)
{
	const char *p = tmp_path("named.db");
	struct ids id = history(p);
	struct ax_db *db = open_ok(p, 0);
	if (!db)
		return;
	int64_t want[] = {id.a, id.t, id.r, id.b, 999, 999};
	struct ax_db_prune_opts o = {.run_ids = want, .n_run_ids = 6};
	struct ax_db_prune_plan *plan = NULL;
	AX_CHECK_INT(ax_db_prune_plan(db, &o, &plan), 0);
	if (plan) {
		AX_CHECK_INT(plan->kept, 5);
		AX_CHECK_INT(plan->kept_by.not_named, 2); /* C, D */
		AX_CHECK_INT(plan->n_removed, 1);
		AX_CHECK_INT(plan->n_missing, 1);
		AX_CHECK_INT(plan->n_missing ? plan->missing[0] : 0, 999);
		/* In the order of the series: run R, A, then tune's T. */
		AX_CHECK_INT(plan->n_refused, 3);
	}
	if (plan && plan->n_refused == 3) {
		const struct ax_db_prune_refusal *f = plan->refused;
		AX_CHECK_INT(f[0].id, id.r);
		AX_CHECK_INT(f[0].reason, AX_DB_PRUNE_RUNNING);
		AX_CHECK_INT(f[0].n_baselines, 0);
		AX_CHECK_INT(f[1].id, id.a);
		AX_CHECK_INT(f[1].reason, AX_DB_PRUNE_BASELINE);
		AX_CHECK_INT(f[1].n_baselines, 2);
		if (f[1].n_baselines == 2) {
			AX_CHECK_STR(f[1].baselines[0], "main");
			AX_CHECK_STR(f[1].baselines[1], "nightly");
		}
		AX_CHECK_INT(f[2].id, id.t);
		AX_CHECK_INT(f[2].reason, AX_DB_PRUNE_TUNE);
	}
	ax_db_prune_plan_free(plan);

	/* Refused runs: nothing is removed. */
	plan = NULL;
	AX_CHECK_INT(ax_db_prune(db, &o, &plan), AX_EINVAL);
	AX_CHECK(plan == NULL);
	/* B alone goes, with what it holds. */
	struct ax_db_prune_opts just_b = {.run_ids = &id.b, .n_run_ids = 1};
	AX_CHECK_INT(ax_db_prune(db, &just_b, &plan), 0);
	AX_CHECK_INT(plan ? (long long)plan->n_removed : -1, 1);
	json_t *doc = plan ? ax_db_prune_json(plan, &just_b, false) : NULL;
	const json_t *pol = json_object_get(doc, "policy");
	AX_CHECK_STR(json_string_value(json_object_get(pol, "mode")), "runs");
	AX_CHECK(json_is_null(json_object_get(pol, "keep_last")));
	AX_CHECK(json_is_null(json_object_get(pol, "weekly")));
	AX_CHECK_INT(json_integer_value(
			 json_array_get(json_object_get(pol, "run_ids"), 0)),
		     id.b);
	json_decref(doc);
	ax_db_prune_plan_free(plan);
	AX_CHECK_INT(ax_db_vacuum(db), 0);
	struct ax_db_info *info = NULL;
	AX_CHECK_INT(ax_db_info(db, &info), 0);
	AX_CHECK_INT(info ? info->counts[2].rows : -1, 5); /* run */
	AX_CHECK_INT(info ? info->counts[4].rows : -1, 5); /* sample */
	AX_CHECK_INT(info ? info->counts[11].rows : -1, 0);
	ax_db_info_free(info);
	ax_db_close(db);
}

static void info_of_a_history(void)
{
	const char *p = tmp_path("info.db");
	history(p);
	struct ax_db *db = open_ok(p, AX_DB_READONLY);
	struct ax_db_info *info = NULL;
	if (!db)
		return;
	AX_CHECK_INT(ax_db_info(db, &info), 0);
	if (!info) {
		ax_db_close(db);
		return;
	}
	AX_CHECK_INT(info->schema_version, AX_DB_SCHEMA_VERSION);
	static const struct {
		const char *table;
		int64_t rows;
	} want[AX_DB_INFO_N_COUNTS] = {
	    {"host", 1},
	    {"device", 1},
	    {"run", 6},
	    {"result", 2},
	    {"sample", 10},
	    {"tune_session", 0},
	    {"trial", 0},
	    {"baseline", 2},
	    {"cpu_baseline", 0},
	    {"result_power", 0},
	    {"telemetry_series", 1},
	    {"telemetry_sample", 3},
	};
	for (int i = 0; i < AX_DB_INFO_N_COUNTS; i++) {
		AX_CHECK_STR(info->counts[i].table, want[i].table);
		AX_CHECK_INT(info->counts[i].rows, want[i].rows);
	}
	AX_CHECK_INT(info->n_hosts, 1);
	AX_CHECK_INT(info->n_devices, 1);
	if (info->n_hosts == 1 && info->n_devices == 1) {
		AX_CHECK_STR(info->hosts[0].hostname, "testhost");
		AX_CHECK_STR(info->hosts[0].cpu_model, "Test CPU");
		AX_CHECK_INT(info->hosts[0].cores, 2);
		AX_CHECK_INT(info->hosts[0].runs, 6);
		AX_CHECK_STR(info->devices[0].fingerprint, "fp-admin");
		AX_CHECK_STR(info->devices[0].driver_info, "Mesa 22.3.6");
		AX_CHECK_INT(info->devices[0].runs, 6);
	}
	AX_CHECK(info->first_run && info->last_run &&
		 strcmp(info->first_run, info->last_run) <= 0);

	json_t *doc = ax_db_info_json(info);
	const json_t *h = json_array_get(json_object_get(doc, "hosts"), 0);
	AX_CHECK(json_is_integer(json_object_get(h, "cores")));
	AX_CHECK_INT(json_integer_value(json_object_get(
			 json_object_get(doc, "counts"), "sample")),
		     10);
	AX_CHECK_STR(json_string_value(json_object_get(
			 json_object_get(doc, "runs_span"), "first")),
		     info->first_run);
	json_decref(doc);
	ax_db_info_free(info);
	ax_db_close(db);
}

/* Rows removed behind core's back, with foreign keys off: the checks
 * name them. */
static void check_finds_problems(void)
{
	const char *p = tmp_path("check.db");
	struct ids id = history(p);
	struct ax_db *db = open_ok(p, AX_DB_READONLY);
	struct ax_db_check_report *r = NULL;
	if (!db)
		return;
	AX_CHECK_INT(ax_db_check(db, &r), 0);
	AX_CHECK(r && r->ok);
	AX_CHECK_INT(r ? (long long)r->n_checks : -1, 10);
	AX_CHECK_INT(r ? (long long)r->n_problems : -1, 0);
	if (r && r->n_checks)
		AX_CHECK_STR(r->checks[0], "SQLite integrity_check");
	ax_db_check_report_free(r);
	ax_db_close(db);

	sqlite3 *h = NULL;
	char *sql = sqlite3_mprintf("PRAGMA foreign_keys = OFF;"
				    " DELETE FROM run WHERE id = %lld",
				    (long long)id.b);
	AX_CHECK_INT(sqlite3_open(p, &h), SQLITE_OK);
	AX_CHECK_INT(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	sqlite3_free(sql);

	db = open_ok(p, AX_DB_READONLY);
	r = NULL;
	AX_CHECK_INT(db ? ax_db_check(db, &r) : -1, 0);
	AX_CHECK(r && !r->ok);
	bool orphan = false;
	for (size_t i = 0; r && i < r->n_problems; i++)
		orphan =
		    orphan || (!strcmp(r->problems[i].check,
				       "every result has its run") &&
			       !strncmp(r->problems[i].problem, "result ", 7));
	AX_CHECK(orphan);
	json_t *doc = r ? ax_db_check_json(r) : NULL;
	AX_CHECK(json_is_false(json_object_get(doc, "ok")));
	AX_CHECK_INT(json_array_size(json_object_get(doc, "problems")),
		     r ? (long long)r->n_problems : -1);
	AX_CHECK_INT(json_array_size(json_object_get(doc, "checks")), 10);
	json_decref(doc);
	ax_db_check_report_free(r);
	ax_db_close(db);
}

static struct ax_db_merge_summary *merge(const char *out, const char *in,
					 const char *source)
{
	struct ax_db *db = open_ok(out, 0);
	struct ax_db_merge_summary *s = NULL;
	if (!db)
		return NULL;
	AX_CHECK_INT(ax_db_merge(db, &in, &source, 1, NULL, &s), 0);
	ax_db_close(db);
	return s;
}

static void merge_counts_and_renames(void)
{
	const char *a = tmp_path("merge_a.db"), *b = tmp_path("merge_b.db");
	const char *out = tmp_path("merged.db");
	history(a);
	struct ax_db *db = open_ok(b, 0);
	int64_t run = db ? add_run(db, "{}", false) : 0;
	AX_CHECK_INT(db ? ax_db_baseline_save(db, "main", &run, 1) : -1, 0);
	ax_db_close(db);

	struct ax_db_merge_summary *s = merge(out, a, "a");
	const struct ax_db_merge_count *t = s ? s->tables : NULL;
	AX_CHECK(s != NULL);
	for (int i = 0; t && i < AX_DB_MERGE_N_TABLES; i++)
		AX_CHECK(t[i].table != NULL);
	AX_CHECK_STR(t ? t[AX_DB_MERGE_TELEMETRY_SAMPLE].table : NULL,
		     "telemetry_sample");
	AX_CHECK_INT(t ? t[AX_DB_MERGE_RUN].added : -1, 6);
	AX_CHECK_INT(t ? t[AX_DB_MERGE_SAMPLE].added : -1, 10);
	AX_CHECK_INT(t ? t[AX_DB_MERGE_BASELINE].added : -1, 2);
	AX_CHECK_INT(t ? t[AX_DB_MERGE_BASELINE_RUN].added : -1, 3);
	AX_CHECK_INT(t ? t[AX_DB_MERGE_TELEMETRY_SAMPLE].added : -1, 3);
	AX_CHECK_INT(t ? t[AX_DB_MERGE_TRIAL].added : -1, 0);
	AX_CHECK_INT(s ? (long long)s->n_renamed : -1, 0);
	ax_db_merge_summary_free(s);

	/* Again: nothing added; then b, whose "main" is taken. */
	s = merge(out, a, "a");
	AX_CHECK_INT(s ? s->tables[AX_DB_MERGE_RUN].added : -1, 0);
	AX_CHECK_INT(s ? s->tables[AX_DB_MERGE_RUN].skipped : -1, 6);
	AX_CHECK_INT(s ? s->tables[AX_DB_MERGE_HOST].skipped : -1, 1);
	ax_db_merge_summary_free(s);
	s = merge(out, b, "b");
	AX_CHECK_INT(s ? (long long)s->n_renamed : -1, 1);
	if (s && s->n_renamed == 1) {
		AX_CHECK_STR(s->renamed[0].name, "b:main");
		AX_CHECK_STR(s->renamed[0].old, "main");
	}
	json_t *doc = s ? ax_db_merge_json(s) : NULL;
	const json_t *tables = json_object_get(doc, "tables");
	AX_CHECK_INT(json_object_size(tables), AX_DB_MERGE_N_TABLES);
	AX_CHECK_INT(json_integer_value(json_object_get(
			 json_object_get(tables, "run"), "added")),
		     1);
	AX_CHECK_STR(json_string_value(json_object_get(
			 json_object_get(doc, "renamed_baselines"), "b:main")),
		     "main");
	json_decref(doc);
	ax_db_merge_summary_free(s);
}

/* The first column of sql's first row in the database at path, as text
 * ("" when none), into buf. */
static const char *sql_text(const char *path, const char *sql, char *buf,
			    size_t len)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	snprintf(buf, len, "%s", "");
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) ==
		SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, len, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return buf;
}

/* Merge copies a CPU baseline's load (schema 8) with it, unknown load
 * staying NULL. */
static void merge_keeps_cpu_load(void)
{
	const char *a = tmp_path("cpu_a.db"), *out = tmp_path("cpu_out.db");
	struct ax_db *db = open_ok(a, 0);
	if (!db)
		return;
	int64_t run = add_run(db, "{}", false), host = 0;
	struct ax_db_host h = {"testhost", "Linux 6.1",	      "Test CPU", 2,
			       1,	   (int64_t)24 << 30, NULL};
	AX_CHECK_INT(ax_db_host_upsert(db, &h, &host), 0);
	struct ax_db_cpu_baseline b = {.host_id = host,
				       .suite = "gemm",
				       .shape_json = "{\"m\":64}",
				       .library = "OpenBLAS",
				       .threads = 2,
				       .status = "ok",
				       .n = 5,
				       .median = 40,
				       .ci_lo = 39,
				       .ci_hi = 41,
				       .rel_noise = 0.01,
				       .load_known = true,
				       .load_1m = 1.25,
				       .busy_other = 0.75,
				       .online_cpus = 2};
	AX_CHECK_INT(ax_db_cpu_baseline_add(db, &b, NULL), 0);
	b.load_known = false;
	AX_CHECK_INT(ax_db_cpu_baseline_add(db, &b, NULL), 0);
	(void)run;
	ax_db_close(db);
	struct ax_db_merge_summary *s = merge(out, a, "a");
	AX_CHECK_INT(s ? s->tables[AX_DB_MERGE_CPU_BASELINE].added : -1, 2);
	ax_db_merge_summary_free(s);
	char got[128];
	AX_CHECK_STR(sql_text(out,
			      "SELECT group_concat(coalesce(load_1m, 'null')"
			      " || '/' || coalesce(busy_other, 'null') || '/'"
			      " || coalesce(online_cpus, 'null'), ' ') FROM"
			      " (SELECT * FROM cpu_baseline ORDER BY id)",
			      got, sizeof(got)),
		     "1.25/0.75/2 null/null/null");
}

static void cleanup(void)
{
	char cmd[600];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
}

AX_TEST_MAIN(AX_TEST(prune_plan_policy), AX_TEST(prune_plan_named),
	     AX_TEST(info_of_a_history), AX_TEST(check_finds_problems),
	     AX_TEST(merge_counts_and_renames), AX_TEST(merge_keeps_cpu_load),
	     AX_TEST(cleanup))
