/*
 * tests/unit/test_db.c - core/db on real SQLite files in a temporary
 * directory, with real processes for the concurrent-writer case.  A
 * second, plain SQLite connection plays "a newer axbench" by raising
 * user_version.
 */
#include "core/db.h"
#include "core/db_internal.h" /* ax_dbi_migration: an older schema */
#include "core/error.h"
#include "tests/unit/ax_test.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/ax_test_db.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	snprintf(p, 512, "%s/%s", tmpdir, name);
	return p;
}

/* Whole file contents (malloc'd) and size; NULL when unreadable. */
static char *slurp(const char *path, long *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	rewind(f);
	buf = malloc((size_t)*size + 1);
	if (fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int same_bytes(const char *path, const char *want, long want_size)
{
	long size = -1;
	char *got = slurp(path, &size);
	int same = got && size == want_size && !memcmp(got, want, size);

	free(got);
	return same;
}

static int exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	fwrite(data, 1, len, f);
	fclose(f);
}

static struct ax_db *open_ok(const char *path)
{
	char err[512] = "";
	struct ax_db *db = NULL;
	int rc = ax_db_open(path, 0, &db, err, sizeof(err));

	if (rc)
		printf("#   open %s: %s\n", path, err);
	AX_CHECK_INT(rc, 0);
	return db;
}

static int64_t add_run(struct ax_db *db, const char *fingerprint)
{
	struct ax_db_host h = {"testhost", "Linux 6.1",	      "Test CPU",   2,
			       1,	   (int64_t)24 << 30, "{\"pus\":2}"};
	struct ax_db_device d = {
	    .fingerprint = fingerprint,
	    .name = "llvmpipe",
	    .vendor = "Mesa",
	    .type = "cpu",
	    .driver_name = "llvmpipe",
	    .driver_info = "Mesa 22.3.6",
	    .vendor_id = 0x10005,
	    .api_version = (1u << 22) | (3u << 12),
	    .properties_json = "{}",
	};
	struct ax_db_run r = {0};
	int64_t id = 0;

	AX_CHECK_INT(ax_db_host_upsert(db, &h, &r.host_id), 0);
	AX_CHECK_INT(ax_db_device_upsert(db, &d, &r.device_id), 0);
	r.axbench_version = "0.1";
	r.git_sha = "abc123";
	r.argv_json = "[\"axbench\",\"run\"]";
	r.config_json = "{}";
	r.profile = "quick";
	r.label = "bench/one";
	AX_CHECK_INT(ax_db_run_begin(db, &r, &id), 0);
	AX_CHECK(id > 0);
	return id;
}

static int add_result(struct ax_db *db, int64_t run_id, const char *suite,
		      int k)
{
	double secs[5], vals[5];
	struct ax_db_result r = {
	    .run_id = run_id,
	    .suite = suite,
	    .case_label = "copy",
	    .params_json = "{\"size\":1024}",
	    .unit = "GB/s",
	    .higher_is_better = true,
	    .work = 2048,
	    .timing_mode = "gpu-timestamp",
	    .stop_reason = "noise",
	    .status = "ok",
	    .n = 5,
	    .median = 10 + k,
	    .min = 9,
	    .max = 12,
	    .mean = 10.5,
	    .stddev = 1,
	    .q1 = 9.5,
	    .q3 = 11,
	    .mad = 0.5,
	    .ci_lo = 9.5,
	    .ci_hi = 11,
	    .rel_noise = 0.05,
	    .extra_json = "{\"bytes\":2048}",
	};

	for (int i = 0; i < 5; i++) {
		secs[i] = 1e-6 * (i + 1);
		vals[i] = 10 + i + k;
	}
	return ax_db_result_add(db, &r, secs, vals, 5, NULL);
}

static int cmp_uuid(const void *a, const void *b) { return strcmp(a, b); }

/* RFC 4122 version 4: 36 lower-case hex digits and dashes, the version
 * nibble 4, the variant bits 10 (8, 9, a or b), and no two alike. */
static void uuid_format(void)
{
	enum { N = 1000 };
	static char u[N][37];

	for (int i = 0; i < N; i++)
		ax_uuid_v4(u[i]);
	for (int i = 0; i < N; i++) {
		const char *a = u[i];
		bool ok = strlen(a) == 36;

		for (int k = 0; ok && k < 36; k++) {
			bool dash = k == 8 || k == 13 || k == 18 || k == 23;
			ok = dash ? a[k] == '-'
				  : strchr("0123456789abcdef", a[k]) != NULL;
		}
		AX_CHECK(ok);
		AX_CHECK(a[14] == '4');
		AX_CHECK(strchr("89ab", a[19]) != NULL);
	}
	qsort(u, N, sizeof(u[0]), cmp_uuid);
	for (int i = 1; i < N; i++)
		AX_CHECK(strcmp(u[i - 1], u[i]) != 0);
}

static void migrate_and_reopen(void)
{
	const char *p = tmp_path("fresh.db");
	struct ax_db *db = open_ok(p);
	int64_t id;

	if (!db)
		return;
	AX_CHECK_INT(ax_db_schema_version(db), AX_DB_SCHEMA_VERSION);
	AX_CHECK_INT(ax_db_last_run(db, &id), AX_ENOTFOUND);
	ax_db_close(db);

	db = open_ok(p);
	AX_CHECK_INT(ax_db_schema_version(db), AX_DB_SCHEMA_VERSION);
	ax_db_close(db);

	/* Read-only opening sees the same schema and cannot write. */
	char err[512];
	AX_CHECK_INT(ax_db_open(p, AX_DB_READONLY, &db, err, sizeof(err)), 0);
	AX_CHECK_INT(ax_db_schema_version(db), AX_DB_SCHEMA_VERSION);
	struct ax_db_run r = {0};
	AX_CHECK(ax_db_run_begin(db, &r, &id) != 0);
	AX_CHECK(strstr(ax_db_errmsg(db), "fresh.db") != NULL);
	ax_db_close(db);

	/* The file really is a WAL-mode SQLite database at our version. */
	sqlite3 *h;
	sqlite3_stmt *st;
	AX_CHECK_INT(sqlite3_open(p, &h), SQLITE_OK);
	sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, NULL);
	AX_CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	AX_CHECK_STR((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_prepare_v2(h,
			   "SELECT count(*) FROM sqlite_schema WHERE type"
			   " = 'table'",
			   -1, &st, NULL);
	AX_CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	AX_CHECK_INT(sqlite3_column_int(st, 0), 13);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

static void newer_schema_refused_untouched(void)
{
	const char *p = tmp_path("newer.db");
	struct ax_db *db = open_ok(p);
	char err[512] = "", *before;
	long size;
	sqlite3 *h;

	ax_db_close(db);
	AX_CHECK_INT(sqlite3_open(p, &h), SQLITE_OK);
	/* Back in rollback-journal mode, so that switching it to WAL
	 * before checking the version would change the header bytes. */
	AX_CHECK_INT(sqlite3_exec(h,
				  "PRAGMA journal_mode=DELETE;"
				  "PRAGMA user_version=99",
				  0, 0, 0),
		     SQLITE_OK);
	sqlite3_close(h);
	before = slurp(p, &size);
	AX_CHECK(before != NULL);

	AX_CHECK_INT(ax_db_open(p, 0, &db, err, sizeof(err)), AX_EDBVERSION);
	AX_CHECK(db == NULL);
	AX_CHECK(strstr(err, p) != NULL);
	char want[128];
	snprintf(want, sizeof(want),
		 "newer axbench (schema 99, this build knows %d); upgrade "
		 "axbench or use another --db",
		 AX_DB_SCHEMA_VERSION);
	AX_CHECK(strstr(err, want));
	AX_CHECK(same_bytes(p, before, size));
	AX_CHECK_INT(ax_db_open(p, AX_DB_READONLY, &db, err, sizeof(err)),
		     AX_EDBVERSION);
	AX_CHECK(same_bytes(p, before, size));
	free(before);
}

/* A database written by the first schema: readers read an upgraded
 * private copy and leave the file byte for byte; a writer upgrades it. */
static void old_schema_read_from_copy(void)
{
	const char *p = tmp_path("v1.db");
	sqlite3 *h;
	AX_CHECK_INT(sqlite3_open(p, &h), SQLITE_OK);
	AX_CHECK_INT(sqlite3_exec(h, ax_dbi_migration(1), 0, 0, 0), SQLITE_OK);
	AX_CHECK_INT(sqlite3_exec(h,
				  "PRAGMA user_version=1;"
				  "INSERT INTO run (uuid, started_at, status)"
				  " VALUES ('u', '2026-01-01', 'running')",
				  0, 0, 0),
		     SQLITE_OK);
	sqlite3_close(h);
	long size;
	char *before = slurp(p, &size), err[512] = "";
	struct ax_db *db = NULL;
	AX_CHECK_INT(ax_db_open(p, AX_DB_READONLY, &db, err, sizeof(err)), 0);
	AX_CHECK(db && ax_db_note(db) &&
		 strstr(ax_db_note(db), "schema is older"));
	AX_CHECK_INT(ax_db_schema_version(db), AX_DB_SCHEMA_VERSION);
	json_t *runs = NULL;
	AX_CHECK_INT(ax_db_runs(db, NULL, &runs), 0);
	/* No owner recorded: the run cannot be judged, and keeps its status. */
	AX_CHECK_STR(json_string_value(
			 json_object_get(json_array_get(runs, 0), "status")),
		     "running");
	json_decref(runs);
	ax_db_close(db);
	AX_CHECK(same_bytes(p, before, size));
	free(before);
	db = open_ok(p);
	AX_CHECK_INT(ax_db_schema_version(db), AX_DB_SCHEMA_VERSION);
	AX_CHECK(ax_db_note(db) == NULL);
	ax_db_close(db);
}

/* A database of schema 4, the last before run labels: a reader reads an
 * upgraded private copy where the old run has no label (null, not a
 * guess) and still its kind; the file is left byte for byte; a writer
 * upgrades it in place and stores labels from then on. */
static void v4_schema_gains_labels(void)
{
	const char *p = tmp_path("v4.db");
	sqlite3 *h;
	AX_CHECK_INT(sqlite3_open(p, &h), SQLITE_OK);
	for (int v = 1; v <= 4; v++)
		AX_CHECK_INT(sqlite3_exec(h, ax_dbi_migration(v), 0, 0, 0),
			     SQLITE_OK);
	AX_CHECK_INT(sqlite3_exec(h,
				  "PRAGMA user_version=4;"
				  "INSERT INTO run (uuid, started_at, status,"
				  " config_json) VALUES ('u', '2026-01-01',"
				  " 'complete', '{\"command\":\"tune\"}');"
				  "INSERT INTO baseline (uuid, name, run_id,"
				  " created_at) VALUES ('b', 'old', 1,"
				  " '2026-01-01')",
				  0, 0, 0),
		     SQLITE_OK);
	sqlite3_close(h);
	long size;
	char *before = slurp(p, &size), err[512] = "";
	struct ax_db *db = NULL;
	AX_CHECK_INT(ax_db_open(p, AX_DB_READONLY, &db, err, sizeof(err)), 0);
	AX_CHECK(db && ax_db_note(db) &&
		 strstr(ax_db_note(db), "schema is older"));
	json_t *runs = NULL;
	AX_CHECK_INT(ax_db_runs(db, NULL, &runs), 0);
	json_t *r = json_array_get(runs, 0);
	AX_CHECK(json_is_null(json_object_get(r, "label")));
	AX_CHECK_STR(json_string_value(json_object_get(r, "kind")), "tune");
	json_decref(runs);
	ax_db_close(db);
	AX_CHECK(same_bytes(p, before, size));
	free(before);

	db = open_ok(p);
	if (!db)
		return;
	AX_CHECK_INT(ax_db_schema_version(db), AX_DB_SCHEMA_VERSION);
	/* Schema 6: the old baseline is a baseline of its one run. */
	int64_t *ids = NULL;
	int n = 0;
	AX_CHECK_INT(ax_db_baseline_runs(db, "old", &ids, &n), 0);
	AX_CHECK(n == 1 && ids && ids[0] == 1);
	free(ids);
	int64_t id = add_run(db, "fp-v4");
	ax_db_close(db);
	AX_CHECK_INT(sqlite3_open(p, &h), SQLITE_OK);
	sqlite3_stmt *st;
	AX_CHECK_INT(sqlite3_prepare_v2(h, "SELECT label FROM run ORDER BY id",
					-1, &st, NULL),
		     SQLITE_OK);
	AX_CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	AX_CHECK_INT(sqlite3_column_type(st, 0), SQLITE_NULL);
	AX_CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	AX_CHECK_STR((const char *)sqlite3_column_text(st, 0), "bench/one");
	sqlite3_finalize(st);
	sqlite3_close(h);
	AX_CHECK(id == 2);
}

static void text_file_refused_untouched(void)
{
	const char *p = tmp_path("notes.txt");
	static const char text[] = "these are my notes, not a database\n";
	char err[512] = "";
	struct ax_db *db = NULL;

	write_file(p, text, sizeof(text) - 1);
	AX_CHECK_INT(ax_db_open(p, 0, &db, err, sizeof(err)), AX_EDB);
	AX_CHECK(db == NULL);
	AX_CHECK(strstr(err, p) != NULL);
	AX_CHECK(strstr(err, "not an SQLite database") != NULL);
	AX_CHECK(same_bytes(p, text, sizeof(text) - 1));
	AX_CHECK(!exists(tmp_path("notes.txt-wal")));
	AX_CHECK_INT(ax_db_open(p, AX_DB_READONLY, &db, err, sizeof(err)),
		     AX_EDB);
	AX_CHECK(same_bytes(p, text, sizeof(text) - 1));
}

static void corrupt_file_refused_untouched(void)
{
	const char *p = tmp_path("corrupt.db");
	char junk[4096], err[512] = "";
	struct ax_db *db = NULL;

	/* The right magic, then garbage where the page size should be. */
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 37 + 11);
	memcpy(junk, "SQLite format 3", 16);
	write_file(p, junk, sizeof(junk));
	AX_CHECK_INT(ax_db_open(p, 0, &db, err, sizeof(err)), AX_EDB);
	AX_CHECK(db == NULL);
	AX_CHECK(strstr(err, p) != NULL);
	AX_CHECK(same_bytes(p, junk, sizeof(junk)));
}

static void unwritable_path_refused(void)
{
	char err[512] = "";
	struct ax_db *db = NULL;
	const char *p = tmp_path("no/such/dir/x.db");

	AX_CHECK_INT(ax_db_open(p, 0, &db, err, sizeof(err)), AX_EDB);
	AX_CHECK(db == NULL);
	AX_CHECK(strstr(err, p) != NULL);
	AX_CHECK(strstr(err, "does not exist") != NULL);
	AX_CHECK(!exists(tmp_path("no")));

	/* A parent that is a file, not a directory (root ignores modes,
	 * so this is the unwritable case every user hits). */
	write_file(tmp_path("plain"), "x", 1);
	p = tmp_path("plain/x.db");
	AX_CHECK_INT(ax_db_open(p, 0, &db, err, sizeof(err)), AX_EDB);
	AX_CHECK(strstr(err, p) != NULL);
	AX_CHECK(strstr(err, "not a directory") != NULL);

	/* Read-only never creates. */
	p = tmp_path("absent.db");
	AX_CHECK_INT(ax_db_open(p, AX_DB_READONLY, &db, err, sizeof(err)),
		     AX_ENOTFOUND);
	AX_CHECK(strstr(err, p) != NULL);
	AX_CHECK(!exists(p));
}

/* As a user the modes stop (ax_test_unprivileged): a 0444 database in
 * a directory that user may write, and a new one in a 0555 directory. */
static void open_readonly_files(void *dir)
{
	char p[600], err[512] = "";
	struct ax_db *db = NULL;

	snprintf(p, sizeof(p), "%s/ro.db", (const char *)dir);
	AX_CHECK_INT(ax_db_open(p, 0, &db, err, sizeof(err)), AX_EDB);
	AX_CHECK(db == NULL);
	AX_CHECK(strstr(err, p) == err);
	AX_CHECK(strstr(err, "is not writable") != NULL);
	printf("#   %s\n", err);
	AX_CHECK_INT(ax_db_open(p, AX_DB_READONLY, &db, err, sizeof(err)), 0);
	ax_db_close(db);
	db = NULL;
	snprintf(p, sizeof(p), "%s/ro/new.db", (const char *)dir);
	AX_CHECK_INT(ax_db_open(p, 0, &db, err, sizeof(err)), AX_EDB);
	AX_CHECK(db == NULL);
	AX_CHECK(strstr(err, "cannot create the database") != NULL);
	AX_CHECK(strstr(err, "is not writable") != NULL);
	AX_CHECK(!exists(p));
}

static void unwritable_file_refused(void)
{
	/* A directory of its own that "nobody" may enter and write (tmpdir
	 * is 0700), sticky as /tmp; in it ro/, which nobody may write. */
	char dir[] = "/tmp/ax_test_db_ro.XXXXXX", p[600], why[256];

	AX_CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/ro.db", dir);
	ax_db_close(open_ok(p));
	AX_CHECK(chmod(p, 0444) == 0);
	snprintf(p, sizeof(p), "%s/ro", dir);
	AX_CHECK(mkdir(p, 0555) == 0 && chmod(p, 0555) == 0);
	AX_CHECK(chmod(dir, 01777) == 0);
	int rc =
	    ax_test_unprivileged(open_readonly_files, dir, why, sizeof(why));
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	AX_CHECK(system(p) == 0);
	if (rc)
		AX_SKIP("%s", why);
}

static int count_results(const char *p, int *samples)
{
	struct ax_db_filter f = {.with_samples = true};
	struct ax_db *db = open_ok(p);
	json_t *res = NULL;
	size_t i;
	json_t *r;
	int n;

	if (!db)
		return -1;
	AX_CHECK_INT(ax_db_results(db, &f, &res), 0);
	n = (int)json_array_size(res);
	*samples = 0;
	json_array_foreach(res, i, r) *samples +=
	    (int)json_array_size(json_object_get(r, "samples"));
	json_decref(res);
	ax_db_close(db);
	return n;
}

/* Fork n writers that each open p (fresh or not) and add per results. */
static void run_writers(const char *p, int n, int per, bool own_run,
			int64_t run_id)
{
	pid_t pids[8];

	for (int w = 0; w < n; w++) {
		pids[w] = fork();
		if (pids[w] == 0) {
			char err[512];
			struct ax_db *db;
			int bad = 0, checks = ax_test_failed_checks;

			if (ax_db_open(p, 0, &db, err, sizeof(err))) {
				fprintf(stderr, "writer: %s\n", err);
				_exit(2);
			}
			if (own_run)
				run_id = add_run(db, "fp-writer");
			for (int i = 0; i < per && !bad; i++)
				bad = add_result(db, run_id, "bandwidth", i);
			if (bad)
				fprintf(stderr, "writer: %s\n",
					ax_db_errmsg(db));
			ax_db_close(db);
			_exit(bad || ax_test_failed_checks != checks ? 1 : 0);
		}
	}
	for (int w = 0; w < n; w++) {
		int status = -1;

		waitpid(pids[w], &status, 0);
		AX_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

static void two_writers_lose_nothing(void)
{
	const char *p = tmp_path("shared.db");
	struct ax_db *db = open_ok(p);
	int64_t run_id;
	int samples = 0;

	if (!db)
		return;
	run_id = add_run(db, "fp-shared");
	ax_db_close(db);
	run_writers(p, 2, 50, false, run_id);
	AX_CHECK_INT(count_results(p, &samples), 100);
	AX_CHECK_INT(samples, 500);
}

static void two_creators_race(void)
{
	/* Both processes find no file and create, migrate and write it. */
	const char *p = tmp_path("race.db");
	int samples = 0;

	run_writers(p, 2, 20, true, 0);
	AX_CHECK_INT(count_results(p, &samples), 40);
	AX_CHECK_INT(samples, 200);
}

static void results_round_trip(void)
{
	const char *p = tmp_path("results.db");
	struct ax_db *db = open_ok(p);
	json_t *res = NULL, *r, *runs = NULL;
	int64_t run1, run2, last = 0, rid = 0;

	if (!db)
		return;
	run1 = add_run(db, "fp-a");
	AX_CHECK_INT(add_result(db, run1, "bandwidth", 0), 0);
	run2 = add_run(db, "fp-b");
	AX_CHECK_INT(add_result(db, run2, "transfer", 1), 0);

	/* A failed result: no samples, NaN summary. */
	struct ax_db_result fr = {
	    .run_id = run2,
	    .suite = "transfer",
	    .case_label = "h2d",
	    .params_json = "{}",
	    .unit = "GB/s",
	    .status = "error",
	    .error_text = "fence timeout",
	    .median = NAN,
	};
	AX_CHECK_INT(ax_db_result_add(db, &fr, NULL, NULL, 0, &rid), 0);
	AX_CHECK(rid > 0);
	AX_CHECK_INT(ax_db_run_finish(db, run2, "complete"), 0);
	AX_CHECK_INT(ax_db_run_finish(db, 9999, "complete"), AX_ENOTFOUND);
	AX_CHECK_INT(ax_db_last_run(db, &last), 0);
	AX_CHECK_INT(last, run2);

	/* A result for a run that does not exist is refused. */
	fr.run_id = 9999;
	AX_CHECK_INT(ax_db_result_add(db, &fr, NULL, NULL, 0, NULL), AX_EINVAL);

	struct ax_db_filter f = {
	    .run_ids = &run1, .n_run_ids = 1, .with_samples = true};
	AX_CHECK_INT(ax_db_results(db, &f, &res), 0);
	AX_CHECK_INT(json_array_size(res), 1);
	r = json_array_get(res, 0);
	AX_CHECK_INT(json_integer_value(json_object_get(r, "run_id")), run1);
	AX_CHECK_STR(json_string_value(json_object_get(r, "suite")),
		     "bandwidth");
	AX_CHECK_STR(json_string_value(json_object_get(r, "case")), "copy");
	AX_CHECK_INT(json_integer_value(
			 json_object_get(json_object_get(r, "params"), "size")),
		     1024);
	AX_CHECK_INT(json_string_length(json_object_get(r, "params_hash")), 16);
	AX_CHECK(json_is_true(json_object_get(r, "higher_is_better")));
	AX_CHECK_NEAR(json_real_value(json_object_get(r, "median")), 10, 0);
	AX_CHECK_NEAR(json_real_value(json_object_get(r, "ci_hi")), 11, 0);
	AX_CHECK_NEAR(json_real_value(json_object_get(r, "rel_noise")), 0.05,
		      0);
	AX_CHECK_INT(json_integer_value(json_object_get(r, "n")), 5);
	AX_CHECK_INT(json_integer_value(
			 json_object_get(json_object_get(r, "extra"), "bytes")),
		     2048);
	AX_CHECK(json_is_null(json_object_get(r, "shader_hash")));
	AX_CHECK_INT(json_string_length(json_object_get(r, "uuid")), 36);
	AX_CHECK_INT(json_string_length(json_object_get(r, "run_uuid")), 36);
	AX_CHECK(json_string_value(json_object_get(r, "started_at"))[10] ==
		 'T');
	json_t *dev = json_object_get(r, "device");
	AX_CHECK_STR(json_string_value(json_object_get(dev, "fingerprint")),
		     "fp-a");
	AX_CHECK_STR(json_string_value(json_object_get(dev, "name")),
		     "llvmpipe");
	AX_CHECK(json_is_null(json_object_get(dev, "pci_bus_id")));
	/* versions as text beside the packed integers (docs/JSON.md); the
	 * driver's text comes from the properties, which here lack it */
	AX_CHECK_STR(json_string_value(json_object_get(dev, "api_version")),
		     "1.3.0");
	AX_CHECK_INT(
	    json_integer_value(json_object_get(dev, "api_version_packed")),
	    (1 << 22) | (3 << 12));
	AX_CHECK(json_is_null(json_object_get(dev, "driver_version")));
	AX_CHECK(
	    json_is_integer(json_object_get(dev, "driver_version_packed")));
	json_t *host = json_object_get(r, "host");
	AX_CHECK_STR(json_string_value(json_object_get(host, "hostname")),
		     "testhost");
	AX_CHECK_INT(json_integer_value(json_object_get(host, "cores")), 2);
	json_t *s = json_object_get(r, "samples");
	AX_CHECK_INT(json_array_size(s), 5);
	AX_CHECK_NEAR(json_real_value(json_array_get(s, 4)), 14, 0);
	AX_CHECK_NEAR(
	    json_real_value(json_array_get(json_object_get(r, "seconds"), 0)),
	    1e-6, 0);
	json_decref(res);

	/* Filters: suite, device, since; samples only on request. */
	struct ax_db_filter g = {.suite = "transfer"};
	AX_CHECK_INT(ax_db_results(db, &g, &res), 0);
	AX_CHECK_INT(json_array_size(res), 2);
	r = json_array_get(res, 1);
	AX_CHECK_STR(json_string_value(json_object_get(r, "status")), "error");
	AX_CHECK_STR(json_string_value(json_object_get(r, "error")),
		     "fence timeout");
	AX_CHECK(json_is_null(json_object_get(r, "median")));
	/* stored as 0 (the struct's zeros), read as null: a failed result
	 * has no figure; n stays an integer */
	AX_CHECK(json_is_null(json_object_get(r, "min")));
	AX_CHECK(json_is_null(json_object_get(r, "ci_lo")));
	AX_CHECK(json_is_null(json_object_get(r, "rel_noise")));
	AX_CHECK(json_is_integer(json_object_get(r, "n")));
	AX_CHECK(json_is_null(json_object_get(r, "extra")));
	AX_CHECK(json_object_get(r, "samples") == NULL);
	json_decref(res);
	struct ax_db_filter h = {.device_fingerprint = "fp-a"};
	AX_CHECK_INT(ax_db_results(db, &h, &res), 0);
	AX_CHECK_INT(json_array_size(res), 1);
	json_decref(res);
	struct ax_db_filter later = {.since = "2999-01-01"};
	AX_CHECK_INT(ax_db_results(db, &later, &res), 0);
	AX_CHECK_INT(json_array_size(res), 0);
	json_decref(res);
	struct ax_db_filter earlier = {.since = "2000-01-01"};
	AX_CHECK_INT(ax_db_results(db, &earlier, &res), 0);
	AX_CHECK_INT(json_array_size(res), 3);
	json_decref(res);

	/* Runs: newest first, with result counts and parsed argv. */
	AX_CHECK_INT(ax_db_runs(db, NULL, &runs), 0);
	AX_CHECK_INT(json_array_size(runs), 2);
	r = json_array_get(runs, 0);
	AX_CHECK_INT(json_integer_value(json_object_get(r, "id")), run2);
	AX_CHECK_INT(json_integer_value(json_object_get(r, "n_results")), 2);
	AX_CHECK_STR(json_string_value(json_object_get(r, "status")),
		     "complete");
	AX_CHECK(json_is_string(json_object_get(r, "finished_at")));
	AX_CHECK_STR(
	    json_string_value(json_array_get(json_object_get(r, "argv"), 1)),
	    "run");
	/* A run has no power or CPU figures of its own: its results do. */
	AX_CHECK(json_object_get(r, "power") == NULL);
	AX_CHECK(json_object_get(r, "cpu") == NULL);
	r = json_array_get(runs, 1);
	AX_CHECK_STR(json_string_value(json_object_get(r, "status")),
		     "running");
	AX_CHECK(json_is_null(json_object_get(r, "finished_at")));
	json_decref(runs);
	AX_CHECK_INT(ax_db_runs(db, &g, &runs), 0);
	AX_CHECK_INT(json_array_size(runs), 1);
	json_decref(runs);
	ax_db_close(db);
}

/* A run's kind comes from what each command writes: a monitor's profile,
 * tune's and recommend's {"command": ...}; anything else, text that is
 * not JSON included, is a plain run.  The label reads back as given, in
 * the run and in each of its results. */
static void run_kinds_and_labels(void)
{
	struct ax_db *db = open_ok(tmp_path("kinds.db"));
	if (!db)
		return;
	static const struct {
		const char *profile, *config, *label, *kind;
	} rows[] = {
	    {"quick", "{\"warmup\":2}", "ci/main \u00e9", "run"},
	    {NULL, "{\"command\":\"tune\"}", NULL, "tune"},
	    {"monitor", "{\"command\":[\"./train.sh\"]}", "m", "monitor"},
	    {"recommend", "{\"command\":\"recommend\"}", "r", "recommend"},
	    {"recommend", "{\"warmup\":1}", "old", "run"},
	    {NULL, "not json {", "x", "run"},
	    {NULL, "{\"command\":\"frobnicate\"}", "y", "run"},
	};
	enum { N = sizeof(rows) / sizeof(rows[0]) };
	int64_t ids[N];
	for (int i = 0; i < N; i++) {
		struct ax_db_run r = {.config_json = rows[i].config,
				      .profile = rows[i].profile,
				      .label = rows[i].label};
		AX_CHECK_INT(ax_db_run_begin(db, &r, &ids[i]), 0);
	}
	AX_CHECK_INT(add_result(db, ids[0], "bandwidth", 0), 0);
	json_t *runs = NULL, *res = NULL;
	AX_CHECK_INT(ax_db_runs(db, NULL, &runs), 0);
	AX_CHECK_INT(json_array_size(runs), N);
	/* Newest first: the same started_at falls back to the id. */
	for (int i = 0; i < N; i++) {
		json_t *r = json_array_get(runs, N - 1 - i);
		AX_CHECK_INT(json_integer_value(json_object_get(r, "id")),
			     ids[i]);
		AX_CHECK_STR(json_string_value(json_object_get(r, "kind")),
			     rows[i].kind);
		if (rows[i].label)
			AX_CHECK_STR(
			    json_string_value(json_object_get(r, "label")),
			    rows[i].label);
		else
			AX_CHECK(json_is_null(json_object_get(r, "label")));
	}
	struct ax_db_filter f = {.run_ids = &ids[0], .n_run_ids = 1};
	AX_CHECK_INT(ax_db_results(db, &f, &res), 0);
	AX_CHECK_STR(json_string_value(
			 json_object_get(json_array_get(res, 0), "run_label")),
		     "ci/main \u00e9");
	json_decref(res);
	json_decref(runs);
	ax_db_close(db);
}

static void upserts_are_idempotent(void)
{
	struct ax_db *db = open_ok(tmp_path("upsert.db"));
	struct ax_db_host h = {"h", "os", "cpu", 2, 1, 1024, NULL};
	struct ax_db_device d = {.fingerprint = "fp", .name = "one"};
	int64_t a = 0, b = 0;
	json_t *runs = NULL;

	if (!db)
		return;
	AX_CHECK_INT(ax_db_host_upsert(db, &h, &a), 0);
	AX_CHECK_INT(ax_db_host_upsert(db, &h, &b), 0);
	AX_CHECK(a > 0 && a == b);
	h.cores = 4;
	AX_CHECK_INT(ax_db_host_upsert(db, &h, &b), 0);
	AX_CHECK(b != a);
	AX_CHECK_INT(ax_db_device_upsert(db, &d, &a), 0);
	d.name = "renamed";
	AX_CHECK_INT(ax_db_device_upsert(db, &d, &b), 0);
	AX_CHECK(a > 0 && a == b);

	struct ax_db_run r = {.host_id = 0, .device_id = a};
	AX_CHECK_INT(ax_db_run_begin(db, &r, &b), 0);
	AX_CHECK_INT(ax_db_runs(db, NULL, &runs), 0);
	AX_CHECK_STR(
	    json_string_value(json_object_get(
		json_object_get(json_array_get(runs, 0), "device"), "name")),
	    "renamed");
	AX_CHECK(
	    json_is_null(json_object_get(json_array_get(runs, 0), "host")));
	json_decref(runs);
	ax_db_close(db);
}

static void baselines(void)
{
	struct ax_db *db = open_ok(tmp_path("baseline.db"));
	int64_t run1, run2, got = 0;
	json_t *list = NULL;

	if (!db)
		return;
	run1 = add_run(db, "fp");
	run2 = add_run(db, "fp");
	AX_CHECK_INT(ax_db_baseline_run(db, "main", &got), AX_ENOTFOUND);
	AX_CHECK(strstr(ax_db_errmsg(db), "main") != NULL);
	AX_CHECK_INT(ax_db_baseline_save(db, "main", &run1, 1), 0);
	AX_CHECK_INT(ax_db_baseline_run(db, "main", &got), 0);
	AX_CHECK_INT(got, run1);
	AX_CHECK_INT(ax_db_baseline_save(db, "main", &run2, 1), 0);
	AX_CHECK_INT(ax_db_baseline_run(db, "main", &got), 0);
	AX_CHECK_INT(got, run2);
	AX_CHECK_INT(ax_db_baseline_save(db, "nightly", &run1, 1), 0);
	int64_t ghost = 4242, both_and_ghost[] = {run1, run2, 4242};
	AX_CHECK_INT(ax_db_baseline_save(db, "ghost", &ghost, 1), AX_ENOTFOUND);
	AX_CHECK_INT(ax_db_baseline_save(db, "", &run1, 1), AX_EINVAL);
	AX_CHECK_INT(ax_db_baseline_save(db, "none", &run1, 0), AX_EINVAL);
	/* One missing run of three: nothing saved (one transaction). */
	AX_CHECK_INT(ax_db_baseline_save(db, "pair", both_and_ghost, 3),
		     AX_ENOTFOUND);
	AX_CHECK_INT(ax_db_baseline_run(db, "pair", &got), AX_ENOTFOUND);
	/* Two runs: the newest is its run_id, both its runs. */
	AX_CHECK_INT(ax_db_baseline_save(db, "pair", both_and_ghost, 2), 0);
	AX_CHECK_INT(ax_db_baseline_run(db, "pair", &got), 0);
	AX_CHECK_INT(got, run2);
	int64_t *ids = NULL;
	int n = 0;
	AX_CHECK_INT(ax_db_baseline_runs(db, "pair", &ids, &n), 0);
	AX_CHECK_INT(n, 2);
	AX_CHECK(ids && ids[0] == run1 && ids[1] == run2);
	free(ids);
	/* Saved again with one run: the list is replaced, not grown. */
	AX_CHECK_INT(ax_db_baseline_save(db, "pair", &run1, 1), 0);
	AX_CHECK_INT(ax_db_baseline_runs(db, "pair", &ids, &n), 0);
	AX_CHECK_INT(n, 1);
	AX_CHECK(ids && ids[0] == run1);
	free(ids);
	AX_CHECK_INT(ax_db_baseline_runs(db, "nope", &ids, &n), AX_ENOTFOUND);
	AX_CHECK(ids == NULL);
	AX_CHECK_INT(ax_db_baseline_save(db, "pair", &run2, 1), 0);
	AX_CHECK_INT(ax_db_baseline_save(db, "pair", both_and_ghost, 2), 0);
	json_t *all = NULL;
	AX_CHECK_INT(ax_db_baselines(db, &all), 0);
	json_t *pair = json_array_get(all, 2);
	AX_CHECK_STR(json_string_value(json_object_get(pair, "name")), "pair");
	AX_CHECK_INT(json_array_size(json_object_get(pair, "run_ids")), 2);
	json_decref(all);
	AX_CHECK_INT(ax_db_baseline_save(db, "pair", &run2, 1), 0);

	AX_CHECK_INT(ax_db_baselines(db, &list), 0);
	AX_CHECK_INT(json_array_size(list), 3);
	AX_CHECK_STR(
	    json_string_value(json_object_get(json_array_get(list, 0), "name")),
	    "main");
	AX_CHECK_INT(json_integer_value(
			 json_object_get(json_array_get(list, 0), "run_id")),
		     run2);
	AX_CHECK_STR(
	    json_string_value(json_object_get(json_array_get(list, 1), "name")),
	    "nightly");
	json_decref(list);
	ax_db_close(db);
}

static void sessions_and_trials(void)
{
	struct ax_db *db = open_ok(tmp_path("tune.db"));
	struct ax_db_device d = {.fingerprint = "fp-tune", .name = "gpu"};
	int64_t dev = 0, sid = 0, tid[3], other = 0;
	json_t *s = NULL, *t, *list = NULL;

	if (!db)
		return;
	AX_CHECK_INT(ax_db_device_upsert(db, &d, &dev), 0);
	struct ax_db_session ss = {
	    .device_id = dev,
	    .suite = "gemm",
	    .shape_json = "{\"m\":256}",
	    .strategy = "bo",
	    .objective = "GFLOP/s",
	    .seed = 42,
	    .budget = 30,
	    .space_json = "[{\"name\":\"tile_m\"}]",
	};
	AX_CHECK_INT(ax_db_session_begin(db, &ss, &sid), 0);
	for (int i = 0; i < 3; i++) {
		struct ax_db_trial tr = {
		    .session_id = sid,
		    .index = i,
		    .params_json = "{\"tile_m\":32}",
		    .status = i == 1 ? "compile-failed" : "ok",
		    .value = i == 1 ? NAN : 100.0 * (i + 1),
		    .seconds = 1e-3,
		    .compile_ms = 12.5,
		    .error_text = i == 1 ? "too much shared memory" : NULL,
		};
		AX_CHECK_INT(ax_db_trial_add(db, &tr, &tid[i]), 0);
	}
	/* The same index twice is refused. */
	struct ax_db_trial dup = {.session_id = sid, .index = 0};
	AX_CHECK_INT(ax_db_trial_add(db, &dup, NULL), AX_EINVAL);
	AX_CHECK_INT(ax_db_session_finish(db, sid, "budget", tid[2]), 0);
	ss.suite = "conv";
	ss.seed = UINT64_MAX;
	AX_CHECK_INT(ax_db_session_begin(db, &ss, &other), 0);

	AX_CHECK_INT(ax_db_session_get(db, sid, &s), 0);
	AX_CHECK_STR(json_string_value(json_object_get(s, "suite")), "gemm");
	AX_CHECK_STR(json_string_value(json_object_get(s, "strategy")), "bo");
	AX_CHECK_INT(json_integer_value(json_object_get(s, "seed")), 42);
	AX_CHECK_INT(json_integer_value(json_object_get(s, "budget")), 30);
	AX_CHECK_STR(json_string_value(json_object_get(s, "stop_reason")),
		     "budget");
	AX_CHECK_INT(json_integer_value(json_object_get(s, "best_trial_id")),
		     tid[2]);
	AX_CHECK(json_is_string(json_object_get(s, "finished_at")));
	AX_CHECK_INT(json_integer_value(
			 json_object_get(json_object_get(s, "shape"), "m")),
		     256);
	AX_CHECK_STR(json_string_value(json_object_get(
			 json_object_get(s, "device"), "fingerprint")),
		     "fp-tune");
	t = json_object_get(s, "trials");
	AX_CHECK_INT(json_array_size(t), 3);
	AX_CHECK_INT(
	    json_integer_value(json_object_get(json_array_get(t, 2), "index")),
	    2);
	AX_CHECK_NEAR(
	    json_real_value(json_object_get(json_array_get(t, 2), "value")),
	    300, 0);
	AX_CHECK(json_is_null(json_object_get(json_array_get(t, 1), "value")));
	AX_CHECK_STR(
	    json_string_value(json_object_get(json_array_get(t, 1), "status")),
	    "compile-failed");
	AX_CHECK_INT(
	    json_integer_value(json_object_get(
		json_object_get(json_array_get(t, 0), "params"), "tile_m")),
	    32);
	json_decref(s);

	struct ax_db_filter f = {.suite = "conv"};
	AX_CHECK_INT(ax_db_sessions(db, &f, &list), 0);
	AX_CHECK_INT(json_array_size(list), 1);
	s = json_array_get(list, 0);
	AX_CHECK_STR(json_string_value(json_object_get(s, "seed")),
		     "18446744073709551615");
	AX_CHECK(json_is_null(json_object_get(s, "finished_at")));
	AX_CHECK_INT(json_array_size(json_object_get(s, "trials")), 0);
	json_decref(list);
	AX_CHECK_INT(ax_db_sessions(db, NULL, &list), 0);
	AX_CHECK_INT(json_array_size(list), 2);
	json_decref(list);
	AX_CHECK_INT(ax_db_session_get(db, 777, &s), AX_ENOTFOUND);
	AX_CHECK_INT(ax_db_session_finish(db, 777, "x", 0), AX_ENOTFOUND);
	ax_db_close(db);
}

/* Schema 4: a result's power row and series, a CPU baseline and the
 * speed-up land with the result and read back; NANs stay null. */
static void efficiency_round_trip(void)
{
	struct ax_db *db = open_ok(tmp_path("power.db"));
	if (!db)
		return;
	int64_t run = add_run(db, "fp-power"), host = 0, bid = 0, got = 0;
	json_t *res = NULL, *ser = NULL;
	double med = 0;
	struct ax_db_host h = {"testhost", "Linux 6.1",	      "Test CPU",   2,
			       1,	   (int64_t)24 << 30, "{\"pus\":2}"};
	AX_CHECK_INT(ax_db_host_upsert(db, &h, &host), 0);
	struct ax_db_cpu_baseline b = {.host_id = host,
				       .suite = "gemm",
				       .shape_json = "{\"m\":64}",
				       .library = "OpenBLAS",
				       .version = "0.3.21",
				       .corename = "Haswell",
				       .threads = 2,
				       .unit = "GFLOP/s",
				       .status = "ok",
				       .n = 5,
				       .median = 40,
				       .ci_lo = 39,
				       .ci_hi = 41,
				       .rel_noise = 0.01};
	AX_CHECK_INT(ax_db_cpu_baseline_find(db, &b, &got, &med), AX_ENOTFOUND);
	AX_CHECK_INT(ax_db_cpu_baseline_add(db, &b, &bid), 0);
	AX_CHECK_INT(ax_db_cpu_baseline_find(db, &b, &got, &med), 0);
	AX_CHECK_INT(got, bid);
	AX_CHECK_NEAR(med, 40, 0);
	b.threads = 1; /* another thread count is another baseline */
	AX_CHECK_INT(ax_db_cpu_baseline_find(db, &b, &got, &med), AX_ENOTFOUND);

	struct ax_tel_reading rd[3];
	for (int i = 0; i < 3; i++) {
		ax_tel_reading_clear(&rd[i]);
		rd[i].t = 100.0 + 0.1 * i;
		rd[i].power_w = 50 + i;
	}
	struct ax_db_series ser_row = {.run_id = run,
				       .kind = "case",
				       .source = "RAPL",
				       .interval_s = 0.1,
				       .t0 = 100.0,
				       .timed_from_s = 0.1,
				       .readings = rd,
				       .n = 3};
	struct ax_db_power pw = {.source = "RAPL",
				 .readings = 3,
				 .seconds = 0.2,
				 .mean_w = 51,
				 .max_w = 52,
				 .idle_w = NAN,
				 .energy_rep_j = 0.5,
				 .energy_rep_net_j = NAN,
				 .temp_mean_c = NAN,
				 .temp_max_c = NAN,
				 .sm_mhz = NAN,
				 .mem_mhz = NAN,
				 .mem_peak_b = NAN,
				 .mem_budget_b = NAN,
				 .perf_per_w = 2.0,
				 .perf_per_w_unit = "GFLOP/s/W",
				 .throttled = -1,
				 .throttle_evidence = "no clock or reason data",
				 .series = &ser_row};
	struct ax_db_result r = {.run_id = run,
				 .suite = "gemm",
				 .params_json = "{\"m\":64}",
				 .unit = "GFLOP/s",
				 .higher_is_better = true,
				 .status = "ok",
				 .median = 102,
				 .cpu_baseline_id = bid,
				 .speedup_vs_cpu = 2.55,
				 .power = &pw};
	int64_t rid = 0;
	AX_CHECK_INT(ax_db_result_add(db, &r, NULL, NULL, 0, &rid), 0);
	struct ax_db_filter f = {.run_ids = &run, .n_run_ids = 1};
	AX_CHECK_INT(ax_db_results(db, &f, &res), 0);
	json_t *x = json_array_get(res, 0);
	json_t *p = json_object_get(x, "power");
	AX_CHECK(json_is_object(p));
	AX_CHECK_STR(json_string_value(json_object_get(p, "source")), "RAPL");
	AX_CHECK_NEAR(json_real_value(json_object_get(p, "mean_w")), 51, 0);
	AX_CHECK(json_is_null(json_object_get(p, "idle_w"))); /* not 0 */
	AX_CHECK(json_is_null(json_object_get(p, "throttled")));
	AX_CHECK_STR(json_string_value(json_object_get(p, "perf_per_w_unit")),
		     "GFLOP/s/W");
	AX_CHECK_NEAR(json_real_value(json_object_get(x, "speedup_vs_cpu")),
		      2.55, 0);
	json_t *c = json_object_get(x, "cpu");
	AX_CHECK_STR(json_string_value(json_object_get(c, "corename")),
		     "Haswell");
	AX_CHECK_INT(ax_db_result_series(db, rid, &ser), 0);
	AX_CHECK_INT(json_array_size(json_object_get(ser, "t")), 3);
	AX_CHECK_NEAR(
	    json_real_value(json_array_get(json_object_get(ser, "t"), 2)), 0.2,
	    1e-9);
	AX_CHECK(
	    json_is_null(json_array_get(json_object_get(ser, "temp_c"), 0)));
	json_t *no_series = NULL;
	AX_CHECK_INT(ax_db_result_series(db, rid + 100, &no_series),
		     AX_ENOTFOUND);
	AX_CHECK(no_series == NULL);

	/* A result without a sensor: a row with the reason, no figure; and
	 * no baseline id means no speed-up, even with a figure given. */
	struct ax_db_power none = {.reason = "no sensor for llvmpipe",
				   .seconds = NAN,
				   .mean_w = NAN,
				   .max_w = NAN,
				   .idle_w = NAN,
				   .energy_rep_j = NAN,
				   .energy_rep_net_j = NAN,
				   .temp_mean_c = NAN,
				   .temp_max_c = NAN,
				   .sm_mhz = NAN,
				   .mem_mhz = NAN,
				   .mem_peak_b = NAN,
				   .mem_budget_b = NAN,
				   .perf_per_w = NAN,
				   .throttled = -1};
	r.power = &none;
	r.cpu_baseline_id = 0;
	AX_CHECK_INT(ax_db_result_add(db, &r, NULL, NULL, 0, &rid), 0);
	json_decref(res);
	AX_CHECK_INT(ax_db_results(db, &f, &res), 0);
	x = json_array_get(res, 1);
	p = json_object_get(x, "power");
	AX_CHECK(json_is_null(json_object_get(p, "source")));
	AX_CHECK(json_is_null(json_object_get(p, "mean_w")));
	AX_CHECK(json_is_null(json_object_get(p, "perf_per_w_unit")));
	AX_CHECK(json_is_null(json_object_get(x, "speedup_vs_cpu")));
	AX_CHECK(json_is_null(json_object_get(x, "cpu")));
	json_decref(res);
	json_decref(ser);
	ax_db_close(db);
}

/* The CPU baselines of one key, newest first, as ax_db_cpu_baselines_each
 * gives them; stops after `stop_at` (0: never). */
struct cpu_seen {
	int n, stop_at;
	int64_t id[8];
	struct ax_db_cpu_row row[8]; /* figures only: texts die with fn */
};

static int see_cpu(void *ctx, const struct ax_db_cpu_row *c)
{
	struct cpu_seen *s = ctx;
	if (s->n < 8) {
		s->id[s->n] = c->id;
		s->row[s->n] = *c;
		s->row[s->n].created_at = s->row[s->n].stop_reason = NULL;
		s->row[s->n].library = s->row[s->n].unit = NULL;
	}
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 7 : 0;
}

static struct ax_db_cpu_baseline cpu_key(int64_t host)
{
	return (struct ax_db_cpu_baseline){.host_id = host,
					   .suite = "gemm",
					   .shape_json = "{\"m\":256}",
					   .library = "OpenBLAS",
					   .version = "0.3.21",
					   .corename = "Haswell",
					   .threads = 2,
					   .unit = "GFLOP/s",
					   .status = "ok",
					   .stop_reason = "noise",
					   .n = 9,
					   .median = 150,
					   .ci_lo = 148,
					   .ci_hi = 152,
					   .rel_noise = 0.01};
}

/* A result names its baseline (bid: taken under load); the document
 * carries its load and the verdict against the run's noise target (none
 * stored: the interval is not judged). */
static void cpu_baseline_in_results(struct ax_db *db, int64_t bid)
{
	int64_t run = add_run(db, "fp-cpuload");
	struct ax_db_result r = {.run_id = run,
				 .suite = "gemm",
				 .unit = "GFLOP/s",
				 .higher_is_better = true,
				 .status = "ok",
				 .median = 30,
				 .cpu_baseline_id = bid,
				 .speedup_vs_cpu = 30 / 14.4};
	AX_CHECK_INT(ax_db_result_add(db, &r, NULL, NULL, 0, NULL), 0);
	json_t *res = NULL;
	struct ax_db_filter f = {.run_ids = &run, .n_run_ids = 1};
	AX_CHECK_INT(ax_db_results(db, &f, &res), 0);
	json_t *c = json_object_get(json_array_get(res, 0), "cpu");
	AX_CHECK_INT(json_integer_value(json_object_get(c, "id")), bid);
	AX_CHECK_NEAR(json_real_value(json_object_get(c, "busy_other")), 1.5,
		      0);
	AX_CHECK_INT(json_integer_value(json_object_get(c, "online_cpus")), 2);
	AX_CHECK_NEAR(json_real_value(json_object_get(c, "rel_noise")), 0.01,
		      0);
	AX_CHECK_STR(json_string_value(json_object_get(c, "stop_reason")),
		     "noise");
	AX_CHECK_STR(json_string_value(json_object_get(c, "fit")),
		     "under-load");
	json_decref(res);
}

/* Schema 8: a baseline keeps the load it was taken under (NULL where
 * unknown, never 0), the stored ones come newest first, and the reuse
 * rule tells clean from taken under load, of unknown load or too noisy
 * (issue 33: 14.4 GFLOP/s measured on a busy machine against 144-199). */
static void cpu_baseline_load_and_reuse_rule(void)
{
	struct ax_db *db = open_ok(tmp_path("cpuload.db"));
	if (!db)
		return;
	int64_t host = 0, id[3] = {0};
	struct ax_db_host h = {"testhost", "Linux 6.1",	     "Test CPU",   2,
			       1,	   (int64_t)8 << 30, "{\"pus\":2}"};
	AX_CHECK_INT(ax_db_host_upsert(db, &h, &host), 0);
	struct ax_db_cpu_baseline b = cpu_key(host);
	AX_CHECK_INT(ax_db_cpu_baseline_add(db, &b, &id[0]), 0); /* unknown */
	b.load_known = true;
	b.load_1m = 0.4;
	b.busy_other = 0.2; /* a tenth of 2 CPUs: at the limit, clean */
	b.online_cpus = 2;
	AX_CHECK_INT(ax_db_cpu_baseline_add(db, &b, &id[1]), 0);
	b.busy_other = 1.5;
	b.median = 14.4;
	AX_CHECK_INT(ax_db_cpu_baseline_add(db, &b, &id[2]), 0);

	struct cpu_seen s = {0};
	AX_CHECK_INT(ax_db_cpu_baselines_each(db, &b, see_cpu, &s), 0);
	AX_CHECK_INT(s.n, 3);
	AX_CHECK_INT(s.id[0], id[2]);
	AX_CHECK_INT(s.id[2], id[0]);
	AX_CHECK_NEAR(s.row[0].busy_other, 1.5, 0);
	AX_CHECK_INT(s.row[0].online_cpus, 2);
	AX_CHECK_NEAR(s.row[1].load_1m, 0.4, 0);
	AX_CHECK_NEAR(s.row[1].rel_noise, 0.01, 0);
	AX_CHECK(isnan(s.row[2].busy_other) && isnan(s.row[2].load_1m));
	AX_CHECK_INT(s.row[2].online_cpus, AX_DB_NONE);
	AX_CHECK_INT(ax_db_cpu_fit(&s.row[0], 0.02), AX_DB_CPU_LOADED);
	AX_CHECK_INT(ax_db_cpu_fit(&s.row[1], 0.02), AX_DB_CPU_CLEAN);
	AX_CHECK_INT(ax_db_cpu_fit(&s.row[2], 0.02), AX_DB_CPU_LOAD_UNKNOWN);
	/* Wider than a 0.5 % target: noisy; no target: not judged. */
	AX_CHECK_INT(ax_db_cpu_fit(&s.row[1], 0.005), AX_DB_CPU_NOISY);
	AX_CHECK_INT(ax_db_cpu_fit(&s.row[1], NAN), AX_DB_CPU_CLEAN);
	s.row[1].rel_noise = NAN;
	AX_CHECK_INT(ax_db_cpu_fit(&s.row[1], 0.02), AX_DB_CPU_NOISY);
	char why[256];
	ax_db_cpu_fit_why(&s.row[0], 0.02, why, sizeof(why));
	AX_CHECK(strstr(why, "1.50 of 2 CPUs busy, above 0.20") != NULL);
	AX_CHECK_STR(ax_db_cpu_fit_name(AX_DB_CPU_LOADED), "under-load");
	AX_CHECK_STR(ax_db_cpu_fit_why(&s.row[1], NAN, why, sizeof(why)), "");

	/* fn's nonzero return stops the walk and is returned. */
	struct cpu_seen one = {.stop_at = 1};
	AX_CHECK_INT(ax_db_cpu_baselines_each(db, &b, see_cpu, &one), 7);
	AX_CHECK_INT(one.n, 1);
	/* Another kernel is another key: nothing. */
	struct cpu_seen none = {0};
	b.corename = "Zen";
	AX_CHECK_INT(ax_db_cpu_baselines_each(db, &b, see_cpu, &none), 0);
	AX_CHECK_INT(none.n, 0);

	cpu_baseline_in_results(db, id[2]);
	ax_db_close(db);
}

/* A baseline stored by schema 7 has no load: after the upgrade it reads
 * as unknown (NULL, not 0), which the rule does not reuse. */
static void v7_cpu_baseline_load_unknown(void)
{
	const char *p = tmp_path("v7cpu.db");
	sqlite3 *h;
	char sh[17], *sql;
	ax_dbi_hash_hex("{\"m\":256}", sh);
	AX_CHECK_INT(sqlite3_open(p, &h), SQLITE_OK);
	for (int v = 1; v <= 7; v++)
		AX_CHECK_INT(sqlite3_exec(h, ax_dbi_migration(v), 0, 0, 0),
			     SQLITE_OK);
	sql = sqlite3_mprintf(
	    "PRAGMA user_version=7;"
	    "INSERT INTO host (uuid, fingerprint, created_at)"
	    " VALUES ('h', 'fp', '2026-01-01');"
	    "INSERT INTO cpu_baseline (uuid, host_id, suite, shape_json,"
	    " shape_hash, library, version, corename, threads, unit, status,"
	    " n, median, ci_lo, ci_hi, rel_noise, created_at)"
	    " VALUES ('old', 1, 'gemm', '{\"m\":256}', %Q, 'OpenBLAS',"
	    " '0.3.21', 'Haswell', 2, 'GFLOP/s', 'ok', 9, 14.4, 14, 15,"
	    " 0.01, '2026-01-01')",
	    sh);
	AX_CHECK_INT(sqlite3_exec(h, sql, 0, 0, 0), SQLITE_OK);
	sqlite3_free(sql);
	sqlite3_close(h);
	struct ax_db *db = open_ok(p);
	if (!db)
		return;
	AX_CHECK_INT(ax_db_schema_version(db), AX_DB_SCHEMA_VERSION);
	struct ax_db_cpu_baseline b = cpu_key(1);
	struct cpu_seen s = {0};
	AX_CHECK_INT(ax_db_cpu_baselines_each(db, &b, see_cpu, &s), 0);
	AX_CHECK_INT(s.n, 1);
	AX_CHECK_NEAR(s.row[0].median, 14.4, 0);
	AX_CHECK(isnan(s.row[0].busy_other) && isnan(s.row[0].load_1m));
	AX_CHECK_INT(s.row[0].online_cpus, AX_DB_NONE);
	AX_CHECK_INT(ax_db_cpu_fit(&s.row[0], 0.02), AX_DB_CPU_LOAD_UNKNOWN);
	ax_db_close(db);
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

AX_TEST_MAIN(
    AX_TEST(uuid_format), AX_TEST(migrate_and_reopen),
    AX_TEST(newer_schema_refused_untouched), AX_TEST(old_schema_read_from_copy),
    AX_TEST(v4_schema_gains_labels), AX_TEST(text_file_refused_untouched),
    AX_TEST(corrupt_file_refused_untouched), AX_TEST(unwritable_path_refused),
    AX_TEST(unwritable_file_refused), AX_TEST(two_writers_lose_nothing),
    AX_TEST(two_creators_race), AX_TEST(results_round_trip),
    AX_TEST(run_kinds_and_labels), AX_TEST(efficiency_round_trip),
    AX_TEST(cpu_baseline_load_and_reuse_rule),
    AX_TEST(v7_cpu_baseline_load_unknown), AX_TEST(upserts_are_idempotent),
    AX_TEST(baselines), AX_TEST(sessions_and_trials), AX_TEST(cleanup))
