/*
 * core/db.c - the SQLite store (see core/db.h for the contract): the
 * schema, opening, probing and migrating, and the helpers the writes
 * (db_write.c) and reads (db_read.c) share (db_internal.h).
 *
 * Opening is careful about never writing to a file that is not ours: an
 * existing file is first checked for the SQLite header and probed through
 * a read-only connection (readable schema, user_version not newer than
 * this build) before the read-write connection switches it to WAL, since
 * that switch alone rewrites the header.  All SQL is static text with
 * bound parameters; only integer schema versions are formatted into a
 * PRAGMA, which cannot take parameters.
 */
#include "core/db_internal.h"

#include "core/error.h"
#include "core/hash.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uuid/uuid.h>

/* ---- schema ---------------------------------------------------------- */

/*
 * Migration 1: DESIGN section 6.  Every table carries a UUID so that
 * databases from many machines merge; timestamps are ISO-8601 UTC text
 * so that they sort and compare as strings.
 */
static const char *const migration_1 =
    "CREATE TABLE host ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " fingerprint TEXT UNIQUE NOT NULL, hostname TEXT, os TEXT,"
    " cpu_model TEXT, cores INTEGER, numa_nodes INTEGER,"
    " memory_bytes INTEGER, topology_json TEXT,"
    " created_at TEXT NOT NULL);"
    "CREATE TABLE device ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " fingerprint TEXT UNIQUE NOT NULL, name TEXT, vendor TEXT,"
    " type TEXT, driver_name TEXT, driver_info TEXT,"
    " vendor_id INTEGER, device_id INTEGER, driver_id INTEGER,"
    " api_version INTEGER, driver_version INTEGER,"
    " device_uuid TEXT, driver_uuid TEXT, pci_bus_id TEXT,"
    " properties_json TEXT, created_at TEXT NOT NULL,"
    " updated_at TEXT NOT NULL);"
    "CREATE TABLE run ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " host_id INTEGER REFERENCES host(id),"
    " device_id INTEGER REFERENCES device(id),"
    " started_at TEXT NOT NULL, finished_at TEXT,"
    " status TEXT NOT NULL, axbench_version TEXT, git_sha TEXT,"
    " argv_json TEXT, config_json TEXT, profile TEXT);"
    "CREATE INDEX run_started ON run(started_at);"
    "CREATE INDEX run_device ON run(device_id);"
    "CREATE TABLE result ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
    " suite TEXT NOT NULL, case_label TEXT, params_json TEXT,"
    " params_hash TEXT, shader_hash TEXT, unit TEXT,"
    " higher_is_better INTEGER NOT NULL, work REAL,"
    " timing_mode TEXT, stop_reason TEXT, status TEXT NOT NULL,"
    " error_text TEXT, n INTEGER NOT NULL, median REAL, min REAL,"
    " max REAL, mean REAL, stddev REAL, q1 REAL, q3 REAL, mad REAL,"
    " ci_lo REAL, ci_hi REAL, rel_noise REAL, extra_json TEXT,"
    " created_at TEXT NOT NULL);"
    "CREATE INDEX result_run ON result(run_id);"
    "CREATE INDEX result_suite ON result(suite, params_hash);"
    "CREATE TABLE sample ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " result_id INTEGER NOT NULL REFERENCES result(id)"
    "  ON DELETE CASCADE,"
    " idx INTEGER NOT NULL, seconds REAL, value REAL,"
    " UNIQUE(result_id, idx));"
    "CREATE TABLE tune_session ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " device_id INTEGER REFERENCES device(id), suite TEXT NOT NULL,"
    " shape_json TEXT, strategy TEXT, objective TEXT, seed INTEGER,"
    " budget INTEGER, space_json TEXT, stop_reason TEXT,"
    " best_trial_id INTEGER, started_at TEXT NOT NULL,"
    " finished_at TEXT);"
    "CREATE INDEX tune_session_device ON tune_session(device_id, suite);"
    "CREATE TABLE trial ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " session_id INTEGER NOT NULL REFERENCES tune_session(id)"
    "  ON DELETE CASCADE,"
    " idx INTEGER NOT NULL, params_json TEXT, status TEXT NOT NULL,"
    " value REAL, seconds REAL, compile_ms REAL,"
    " result_id INTEGER REFERENCES result(id), error_text TEXT,"
    " created_at TEXT NOT NULL, UNIQUE(session_id, idx));"
    "CREATE TABLE baseline ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " name TEXT UNIQUE NOT NULL,"
    " run_id INTEGER NOT NULL REFERENCES run(id),"
    " created_at TEXT NOT NULL);";

/*
 * Migration 2: who owns a run (issue 11).  A run left "running" by a
 * process that was killed stays so forever unless its owner can be
 * checked: the process id, the kernel's boot id and the process's start
 * time (clock ticks after boot) name one process on one machine across
 * pid reuse.  A tuning session names the run that is resuming it, so that
 * a second `tune --resume` of it is refused while that run's process
 * lives (core/db_owner.c), and keeps its stop rule, so that a resume stops
 * as the session was started to.
 */
static const char *const migration_2 =
    "ALTER TABLE run ADD COLUMN owner_pid INTEGER;"
    "ALTER TABLE run ADD COLUMN owner_boot TEXT;"
    "ALTER TABLE run ADD COLUMN owner_start INTEGER;"
    "ALTER TABLE tune_session ADD COLUMN owner_run_id INTEGER;"
    "ALTER TABLE tune_session ADD COLUMN stop_rule TEXT;";

/*
 * Migration 3: transfer (issue 12).  A tuning session names the session
 * whose trials it used as a prior, so that a resume keeps that prior and
 * a report can say where a short session's knowledge came from.
 */
static const char *const migration_3 =
    "ALTER TABLE tune_session ADD COLUMN prior_session_id INTEGER"
    " REFERENCES tune_session(id);";

/*
 * Migration 4: efficiency (issue 13).  A result's power, energy,
 * temperatures, clocks and memory over its timed span, with the reason
 * where no sensor measured it (result_power: a row, never a 0 for what
 * was not measured); the telemetry time series of a case, an idle
 * baseline or a monitor (telemetry_series / telemetry_sample: a sample is
 * named by its series' UUID and its index, so merging needs no UUID per
 * sample); and the host CPU's time for a shape through a CPU library,
 * measured once per (host, shape, threads, library) and named by every
 * result that is compared with it (cpu_baseline, result.speedup_vs_cpu:
 * how many times the device's figure beats the CPU's).  A trial keeps
 * the figure its session minimised (tune --objective time|energy|edp:
 * seconds, joules or joule-seconds per repetition).
 */
static const char *const migration_4 =
    "CREATE TABLE cpu_baseline ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " host_id INTEGER NOT NULL REFERENCES host(id),"
    " suite TEXT NOT NULL, shape_json TEXT NOT NULL,"
    " shape_hash TEXT NOT NULL, library TEXT NOT NULL,"
    " version TEXT, corename TEXT, config TEXT, note TEXT,"
    " threads INTEGER NOT NULL, unit TEXT, status TEXT NOT NULL,"
    " error_text TEXT, stop_reason TEXT, n INTEGER NOT NULL,"
    " median REAL, ci_lo REAL, ci_hi REAL, rel_noise REAL,"
    " created_at TEXT NOT NULL);"
    "CREATE INDEX cpu_baseline_key ON cpu_baseline(host_id, suite,"
    " shape_hash);"
    "ALTER TABLE result ADD COLUMN cpu_baseline_id INTEGER"
    " REFERENCES cpu_baseline(id);"
    "ALTER TABLE result ADD COLUMN speedup_vs_cpu REAL;"
    "CREATE TABLE telemetry_series ("
    " id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL,"
    " run_id INTEGER REFERENCES run(id) ON DELETE CASCADE,"
    " result_id INTEGER REFERENCES result(id) ON DELETE CASCADE,"
    " device_id INTEGER REFERENCES device(id), kind TEXT NOT NULL,"
    " source TEXT, interval_s REAL, timed_from_s REAL,"
    " created_at TEXT NOT NULL);"
    "CREATE INDEX telemetry_series_result ON telemetry_series(result_id);"
    "CREATE INDEX telemetry_series_run ON telemetry_series(run_id);"
    "CREATE TABLE telemetry_sample ("
    " series_id INTEGER NOT NULL REFERENCES telemetry_series(id)"
    "  ON DELETE CASCADE,"
    " idx INTEGER NOT NULL, t REAL NOT NULL, power_w REAL,"
    " energy_j REAL, temp_c REAL, sm_mhz REAL, mem_mhz REAL,"
    " mem_used_b REAL, throttle INTEGER,"
    " PRIMARY KEY (series_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE result_power ("
    " result_id INTEGER PRIMARY KEY REFERENCES result(id)"
    "  ON DELETE CASCADE,"
    " source TEXT, reason TEXT, readings INTEGER, seconds REAL,"
    " mean_w REAL, max_w REAL, idle_w REAL, energy_rep_j REAL,"
    " energy_rep_net_j REAL, temp_mean_c REAL, temp_max_c REAL,"
    " sm_mhz REAL, mem_mhz REAL, mem_peak_b REAL, mem_budget_b REAL,"
    " perf_per_w REAL, perf_per_w_unit TEXT, throttled INTEGER,"
    " throttle_evidence TEXT, series_id INTEGER"
    "  REFERENCES telemetry_series(id));"
    "ALTER TABLE trial ADD COLUMN objective_value REAL;";

/*
 * Migration 5: run labels (issue 15).  A run carries a name its owner
 * chose (`run --label`; by default HOST/DEVICE), so that `axbench runs`
 * lists runs a person can tell apart and a CI script can check which run
 * it names as a baseline.  Runs stored before keep NULL: nobody gave
 * them a label, and one made up now would claim what nobody said.
 */
static const char *const migration_5 = "ALTER TABLE run ADD COLUMN label TEXT;";

/*
 * Migration 6: a baseline of several runs (issue 15).  Between processes
 * a measurement moves more than within one, so a baseline saved from
 * several runs (`baseline save NAME --last K`) lets compare see that
 * spread and not call it a regression.  baseline.run_id stays the newest
 * of them, and every existing baseline becomes a baseline of its one run.
 */
static const char *const migration_6 =
    "CREATE TABLE baseline_run ("
    " baseline_id INTEGER NOT NULL REFERENCES baseline(id)"
    "  ON DELETE CASCADE,"
    " run_id INTEGER NOT NULL REFERENCES run(id),"
    " PRIMARY KEY (baseline_id, run_id)) WITHOUT ROWID;"
    "INSERT INTO baseline_run (baseline_id, run_id)"
    " SELECT id, run_id FROM baseline;";

/*
 * Migration 7: history at scale (issue 18).  Deleting a run (`db prune`)
 * makes SQLite look for rows that still name it or its results: without
 * an index on the referring column each such check scans its whole
 * table, once per deleted row.  trial.result_id, baseline_run.run_id
 * and result_power.series_id had none.
 */
static const char *const migration_7 =
    "CREATE INDEX trial_result ON trial(result_id);"
    "CREATE INDEX baseline_run_run ON baseline_run(run_id);"
    "CREATE INDEX result_power_series ON result_power(series_id);";

/*
 * Migration 8: a CPU baseline's machine load (issue 33).  A baseline
 * measured while other processes kept the cores busy reads the CPU's
 * leftover share (sgemm 256^3 read 14.4 GFLOP/s where the quiet machine
 * gives 144-199), and every speed-up that reused it inherited the error.
 * Each baseline now keeps the 1-minute load average, the CPUs' worth of
 * time other processes used during it and the CPUs it could run on, so
 * that one taken under load is measured again (app/session_cpu.c) and
 * results can say under which load a speed-up's baseline was taken.
 * Baselines stored before keep NULL: their load is unknown, not zero.
 */
static const char *const migration_8 =
    "ALTER TABLE cpu_baseline ADD COLUMN load_1m REAL;"
    "ALTER TABLE cpu_baseline ADD COLUMN busy_other REAL;"
    "ALTER TABLE cpu_baseline ADD COLUMN online_cpus INTEGER;";

/*
 * Migration 9 (issue 39): the sampling mode a tuning session measured in,
 * and the Pareto front of a session tuned for time and energy.  A kernel
 * tuned warm (batch: repetitions back to back, caches hot) can have
 * another optimum cold (caches scrubbed before every sample), and an
 * export must say which conditions its configuration was chosen under:
 * "batch" or "cold", NULL (read as batch, the only mode tune had) for
 * sessions stored before.  front_json is the front of the re-timed points
 * and the defaults (app/tune_pareto.c), NULL for other objectives.
 */
static const char *const migration_9 =
    "ALTER TABLE tune_session ADD COLUMN mode TEXT;"
    "ALTER TABLE tune_session ADD COLUMN front_json TEXT;";

static const char *const migrations[AX_DB_SCHEMA_VERSION] = {
    migration_1, migration_2, migration_3, migration_4, migration_5,
    migration_6, migration_7, migration_8, migration_9,
};

const char *ax_dbi_migration(int v)
{
	return v >= 1 && v <= AX_DB_SCHEMA_VERSION ? migrations[v - 1] : "";
}

/* ---- errors ---------------------------------------------------------- */

int ax_dbi_fail(struct ax_db *db, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ax_vfmt_fit(db->msg, sizeof(db->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* Map an SQLite failure while doing `what` to an AX_E* code and a
 * message naming the database file. */
int ax_dbi_fail_sql(struct ax_db *db, int rc, const char *what)
{
	int prim = rc & 0xff;

	if ((prim == SQLITE_BUSY || prim == SQLITE_LOCKED) && db->stopped)
		return ax_dbi_fail(db, AX_EINTR,
				   "%s: interrupted while waiting for another "
				   "process's lock on the database, before %s",
				   db->path, what);
	if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
		return ax_dbi_fail(
		    db, AX_EBUSY,
		    "%s: the database stayed locked by another process for "
		    "%.0f s, so axbench gave up %s; let the other writer "
		    "finish, or wait longer (AXBENCH_LOCK_WAIT=SECONDS)",
		    db->path, ax_dbi_lock_wait_s(), what);
	if (prim == SQLITE_CONSTRAINT)
		return ax_dbi_fail(db, AX_EINVAL, "%s: %s while %s (%s)",
				   db->path, sqlite3_errmsg(db->h), what,
				   "a referenced id does not exist or a value "
				   "is missing");
	if (prim == SQLITE_NOMEM)
		return ax_dbi_fail(db, AX_ENOMEM, "%s: out of memory while %s",
				   db->path, what);
	return ax_dbi_fail(db, AX_EDB, "%s: %s while %s", db->path,
			   sqlite3_errmsg(db->h), what);
}

const char *ax_db_errmsg(const struct ax_db *db)
{
	return db ? db->msg : "no database";
}

int ax_db_schema_version(const struct ax_db *db)
{
	return db ? db->version : 0;
}

/* ---- small helpers ---------------------------------------------------- */

/* libuuid reads the kernel's random source (getrandom) and sets the
 * version 4 and RFC 4122 variant bits. */
void ax_uuid_v4(char out[37])
{
	uuid_t u;

	uuid_generate_random(u);
	uuid_unparse_lower(u, out);
}

/* The key of a canonical text (parameter sets, host fingerprints). */
void ax_dbi_hash_hex(const char *s, char out[17])
{
	ax_hash_hex(s ? s : "", s ? strlen(s) : 0, out);
}

int ax_dbi_prepare(struct ax_db *db, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0
			       : ax_dbi_fail_sql(db, rc, "preparing a query");
}

void ax_dbi_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void ax_dbi_bind_uuid(sqlite3_stmt *st, int i)
{
	char u[37];

	ax_uuid_v4(u);
	sqlite3_bind_text(st, i, u, -1, SQLITE_TRANSIENT);
}

/* Ids of 0 mean "none" in the API and NULL in the table. */
void ax_dbi_bind_id(sqlite3_stmt *st, int i, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

/* Run a statement to completion (no rows expected, or one RETURNING id
 * written to *id), finalize it, and report failure as doing `what`. */
int ax_dbi_step_done(struct ax_db *db, sqlite3_stmt *st, int64_t *id,
		     const char *what)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		if (id)
			*id = sqlite3_column_int64(st, 0);
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE) {
		rc = ax_dbi_fail_sql(db, rc, what);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	return 0;
}

int ax_dbi_exec(struct ax_db *db, const char *sql, const char *what)
{
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : ax_dbi_fail_sql(db, rc, what);
}

int ax_dbi_begin(struct ax_db *db)
{
	return ax_dbi_exec(db, "BEGIN IMMEDIATE",
			   "starting a write transaction");
}

int ax_dbi_commit(struct ax_db *db)
{
	return ax_dbi_exec(db, "COMMIT", "committing");
}

/* Roll back after a failure; returns err so callers can chain. */
int ax_dbi_rollback(struct ax_db *db, int err)
{
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

static int read_user_version(sqlite3 *h, int *v)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- opening ---------------------------------------------------------- */

static int newer_schema(char *err, size_t errlen, const char *path, int v)
{
	return ax_errf(err, errlen, AX_EDBVERSION,
		       "%s was written by a newer axbench (schema %d, this "
		       "build knows %d); upgrade axbench or use another --db",
		       path, v, AX_DB_SCHEMA_VERSION);
}

/* A non-empty file must start with the SQLite magic before we let SQLite
 * anywhere near it with write access.  *empty is set for a 0-byte file,
 * which SQLite treats as a new database. */
static int check_header(const char *path, bool *exists, bool *empty, char *err,
			size_t errlen)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	struct stat sb;
	int fd;
	ssize_t got;

	*exists = *empty = false;
	if (stat(path, &sb) != 0) {
		/* Missing file or directory: check_dir explains. */
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return ax_errf(err, errlen, AX_EDB,
			       "%s: cannot use this database path (%s); "
			       "check the directory or pass another --db",
			       path, strerror(errno));
	}
	*exists = true;
	if (!S_ISREG(sb.st_mode))
		return ax_errf(err, errlen, AX_EDB,
			       "%s is not a regular file; pass the path of "
			       "an axbench database file with --db",
			       path);
	if (sb.st_size == 0) {
		*empty = true;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ax_errf(err, errlen, AX_EDB,
			       "%s: cannot read the database (%s); fix its "
			       "permissions or pass another --db",
			       path, strerror(errno));
	got = read(fd, head, sizeof(head));
	close(fd);
	if (got != (ssize_t)sizeof(head) || memcmp(head, magic, 16) != 0)
		return ax_errf(err, errlen, AX_EDB,
			       "%s is not an SQLite database (no SQLite "
			       "header), so axbench will not touch it; pass "
			       "another --db or move the file away",
			       path);
	return 0;
}

/* Can h read the schema?  An SQLite result code; *objects (may be NULL)
 * gets the number of schema objects (tables, indexes ...). */
static int read_schema(sqlite3 *h, int *objects)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_schema", -1,
				    &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && objects)
			*objects = sqlite3_column_int(st, 0);
		rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
	}
	sqlite3_finalize(st);
	return rc;
}

/* "file:PATH?immutable=1" with PATH percent-encoded as RFC 3986 wants;
 * sqlite3_free it. */
static char *immutable_uri(const char *path)
{
	sqlite3_str *uri = sqlite3_str_new(NULL);

	sqlite3_str_appendall(uri, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (isalnum(*p) || strchr("/._-~", *p))
			sqlite3_str_appendchar(uri, 1, (char)*p);
		else
			sqlite3_str_appendf(uri, "%%%02X", *p);
	}
	sqlite3_str_appendall(uri, "?immutable=1");
	if (sqlite3_str_errcode(uri) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(uri));
		return NULL;
	}
	return sqlite3_str_finish(uri);
}

/*
 * Open path read-only.  A WAL database in a directory nobody may write to
 * (read-only media) cannot be read the usual way, since SQLite must create
 * its -shm file: there the file is opened as immutable, which is exactly
 * true of such media.
 */
static int open_ro(const char *path, sqlite3 **out, bool *immutable)
{
	sqlite3 *h = NULL;
	*immutable = false;
	int rc = sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(h, (int)(ax_dbi_lock_wait_s() * 1000));
		rc = read_schema(h, NULL);
	}
	char *copy = strdup(path);
	bool dir_ro = copy && access(dirname(copy), W_OK) != 0;
	free(copy);
	if ((rc & 0xff) == SQLITE_CANTOPEN && dir_ro) {
		char *uri = immutable_uri(path);
		sqlite3_close(h);
		h = NULL;
		rc = uri ? sqlite3_open_v2(
			       uri, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
			       NULL)
			 : SQLITE_NOMEM;
		sqlite3_free(uri);
		if (rc == SQLITE_OK)
			rc = read_schema(h, NULL);
		*immutable = rc == SQLITE_OK;
	}
	*out = h;
	return rc;
}

/* What a failed read-only look says, and what to do about it: only a
 * damaged file calls for a backup. */
static const char *probe_problem(int prim)
{
	switch (prim) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return "the database is corrupt";
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return "the database is locked by another process";
	case SQLITE_PERM:
	case SQLITE_AUTH:
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
		return "axbench may not read the database or its directory";
	default:
		return "cannot read the database";
	}
}

static const char *probe_advice(int prim)
{
	switch (prim) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return "axbench left it untouched: recover what it holds "
		       "(sqlite3 FILE .recover | sqlite3 NEW.db), restore it "
		       "from a backup, or pass another --db";
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return "retry when the other process is done";
	case SQLITE_PERM:
	case SQLITE_AUTH:
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
		return "fix the permissions of the file and its directory, "
		       "or pass another --db";
	default:
		return "axbench left it untouched; pass another --db";
	}
}

/*
 * Read-only look at an existing database: can SQLite read its schema,
 * and is its schema version one this build understands?  Nothing is
 * written, whatever the answer.
 */
static int probe_open(const char *path, bool writing, int *version, char *err,
		      size_t errlen)
{
	sqlite3 *h = NULL;
	int rc, v = 0, objects = 0;
	bool immutable;

	rc = open_ro(path, &h, &immutable);
	if (rc == SQLITE_OK)
		rc = read_schema(h, &objects);
	if (rc == SQLITE_OK)
		rc = read_user_version(h, &v);
	if (rc != SQLITE_OK) {
		int prim = rc & 0xff;

		ax_errf(err, errlen, AX_EDB, "%s: %s (%s); %s", path,
			probe_problem(prim),
			h ? sqlite3_errmsg(h) : sqlite3_errstr(rc),
			probe_advice(prim));
		sqlite3_close(h);
		return AX_EDB;
	}
	*version = v;
	if (v > AX_DB_SCHEMA_VERSION) {
		sqlite3_close(h);
		return newer_schema(err, errlen, path, v);
	}
	rc = ax_dbi_check_shape(h, v, path, err, errlen);
	if (!rc && writing)
		rc = ax_dbi_quick_check(h, path, err, errlen);
	sqlite3_close(h);
	if (rc)
		return rc;
	/* Version 0 with tables is another program's database (our first
	 * migration creates tables and version together), and a negative
	 * version is nobody's: axbench adds nothing to either. */
	if (v < 0 || (v == 0 && objects > 0))
		return ax_errf(err, errlen, AX_EDB,
			       "%s: an SQLite database that is not axbench's "
			       "(schema version %d, %d schema objects); "
			       "axbench left it untouched: pass another --db",
			       path, v, objects);
	return 0;
}

/* The probe above, leaving nothing beside the file: a file it refuses
 * (or a reader's) must not gain a -wal and -shm (core/db_sidecar.c). */
static int probe(const char *path, bool writing, int *version, char *err,
		 size_t errlen)
{
	struct ax_dbi_sidecars sc;
	ax_dbi_sidecars_note(path, &sc);
	int rc = probe_open(path, writing, version, err, errlen);
	ax_dbi_sidecars_tidy(path, &sc);
	return rc;
}

/* A new file needs a writable directory; say which and why not. */
static int check_dir(const char *path, char *err, size_t errlen)
{
	char *copy = strdup(path);
	const char *dir;
	struct stat sb;
	int rc = 0;

	if (!copy)
		return AX_ENOMEM;
	dir = dirname(copy);
	if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
		errno = ENOTDIR;
	else if (access(dir, W_OK | X_OK) == 0)
		errno = 0;
	if (errno)
		rc = ax_errf(
		    err, errlen, AX_EDB,
		    "%s: cannot create the database: %s %s%s%s; "
		    "create the directory, fix its permissions or "
		    "pass another --db",
		    path, dir,
		    errno == ENOENT    ? "does not exist"
		    : errno == ENOTDIR ? "is not a directory"
				       : "is not writable",
		    errno == ENOENT || errno == ENOTDIR ? "" : ": ",
		    errno == ENOENT || errno == ENOTDIR ? "" : strerror(errno));
	free(copy);
	return rc;
}

static int set_pragmas(struct ax_db *db)
{
	sqlite3_stmt *st;
	int rc;

	ax_dbi_setup_connection(db);
	/* Changing the journal mode takes an exclusive lock without the
	 * busy handler, so two processes creating one file retry here. */
	double since = ax_dbi_now();
	for (;;) {
		rc = sqlite3_prepare_v2(db->h, "PRAGMA journal_mode=WAL", -1,
					&st, NULL);
		if (rc != SQLITE_OK)
			return ax_dbi_fail_sql(db, rc, "enabling WAL");
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc == SQLITE_ROW)
			break;
		if ((rc & 0xff) != SQLITE_BUSY ||
		    ax_dbi_now() - since >= ax_dbi_lock_wait_s())
			return ax_dbi_fail_sql(db, rc, "enabling WAL");
		usleep(10000);
	}
	rc = ax_dbi_exec(db, "PRAGMA foreign_keys=ON", "enabling foreign keys");
	if (!rc)
		rc = ax_dbi_exec(db, "PRAGMA synchronous=NORMAL",
				 "setting sync mode");
	return rc;
}

/* Apply migration v (1-based) in one transaction, unless another process
 * got there first. */
static int migrate_one(struct ax_db *db, int v)
{
	int cur = 0, rc;

	if ((rc = ax_dbi_begin(db)))
		return rc;
	if ((rc = read_user_version(db->h, &cur)) != SQLITE_OK)
		return ax_dbi_rollback(
		    db, ax_dbi_fail_sql(db, rc, "reading the schema"));
	if (cur >= v) {
		db->version = cur;
		return ax_dbi_rollback(db, 0);
	}
	rc = ax_dbi_exec(db, migrations[v - 1], "creating the schema");
	if (rc)
		return ax_dbi_rollback(db, rc);
	char *pragma = sqlite3_mprintf("PRAGMA user_version=%d", v);
	rc = pragma ? ax_dbi_exec(db, pragma, "recording the schema version")
		    : ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	sqlite3_free(pragma);
	if (rc)
		return ax_dbi_rollback(db, rc);
	if ((rc = ax_dbi_commit(db)))
		return ax_dbi_rollback(db, rc);
	db->version = v;
	return 0;
}

static int migrate(struct ax_db *db)
{
	int rc = read_user_version(db->h, &db->version);

	if (rc != SQLITE_OK)
		return ax_dbi_fail_sql(db, rc, "reading the schema version");
	for (int v = db->version + 1; v <= AX_DB_SCHEMA_VERSION; v++) {
		if ((rc = migrate_one(db, v)))
			return rc;
	}
	if (db->version > AX_DB_SCHEMA_VERSION)
		return newer_schema(db->msg, sizeof(db->msg), db->path,
				    db->version);
	return 0;
}

/* Committed results that an immutable open would not see. */
static bool wal_has_frames(const char *path)
{
	char *wal = sqlite3_mprintf("%s-wal", path);
	struct stat sb;
	bool frames = false;
	if (wal) {
		/* A WAL header alone is 32 bytes; frames follow it. */
		frames = stat(wal, &sb) == 0 && sb.st_size > 32;
	}
	sqlite3_free(wal);
	return frames;
}

/*
 * Readers never write to the file.  Two files cannot be read in place
 * without writing: one whose committed results still sit in its -wal in
 * a directory axbench may not write (an immutable open would hide them),
 * and one with an older schema.  Both are read from a private copy,
 * recovered and upgraded there (core/db_check.c), and the reader is told.
 */
static int open_readonly(struct ax_db *db, char *err, size_t errlen)
{
	bool immutable;
	int rc = open_ro(db->path, &db->h, &immutable);

	if (rc != SQLITE_OK)
		return ax_errf(err, errlen, AX_EDB, "%s: cannot open (%s)",
			       db->path, sqlite3_errstr(rc));
	bool hidden_wal = immutable && wal_has_frames(db->path);
	if (!hidden_wal && db->version >= AX_DB_SCHEMA_VERSION) {
		ax_dbi_setup_connection(db);
		return 0;
	}
	snprintf(db->note, sizeof(db->note),
		 "%s: %s, so axbench reads a private copy of it (the file "
		 "is not touched)",
		 db->path,
		 hidden_wal ? "its latest results are in its -wal file, which "
			      "SQLite cannot read in a directory axbench may "
			      "not write"
			    : "its schema is older than this build's; the next "
			      "`axbench run` upgrades it");
	if ((rc = ax_dbi_private_copy(db, err, errlen)))
		return rc;
	ax_dbi_setup_connection(db);
	if ((rc = migrate(db)))
		return ax_errf(err, errlen, rc, "%s", db->msg);
	return 0;
}

static int open_readwrite(struct ax_db *db, char *err, size_t errlen)
{
	int rc = sqlite3_open_v2(
	    db->path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);

	if (rc != SQLITE_OK)
		return ax_errf(err, errlen, AX_EDB,
			       "%s: cannot open for writing (%s); fix its "
			       "permissions or pass another --db",
			       db->path, sqlite3_errstr(rc));
	/* SQLite quietly falls back to read-only on a file it may not
	 * write; say so now rather than at the first insert. */
	if (sqlite3_db_readonly(db->h, "main") == 1)
		return ax_errf(err, errlen, AX_EDB,
			       "%s is not writable; fix its permissions or "
			       "pass another --db",
			       db->path);
	rc = set_pragmas(db);
	if (!rc)
		rc = migrate(db);
	if (rc)
		ax_errf(err, errlen, rc, "%s", db->msg);
	return rc;
}

int ax_db_open(const char *path, unsigned flags, struct ax_db **out, char *err,
	       size_t errlen)
{
	struct ax_db *db;
	bool exists, empty;
	int rc;

	*out = NULL;
	if (!path || !*path)
		return ax_errf(err, errlen, AX_EINVAL,
			       "empty database path; pass --db PATH");
	if ((rc = check_header(path, &exists, &empty, err, errlen)))
		return rc;
	if ((flags & AX_DB_READONLY) && (!exists || empty))
		return ax_errf(err, errlen, AX_ENOTFOUND,
			       "%s: no axbench database there yet; run "
			       "`axbench run` to create one or pass another "
			       "--db",
			       path);
	db = calloc(1, sizeof(*db));
	if (!db || !(db->path = strdup(path))) {
		free(db);
		return ax_errf(err, errlen, AX_ENOMEM, "out of memory");
	}
	bool writing = !(flags & AX_DB_READONLY);
	if (exists && !empty)
		rc = probe(path, writing, &db->version, err, errlen);
	else if (!exists)
		rc = check_dir(path, err, errlen);
	if (!rc && (flags & AX_DB_READONLY)) {
		/* Noted before the connection opens: what it makes is
		 * removed at close. */
		ax_dbi_sidecars_note(path, &db->sidecars);
		rc = open_readonly(db, err, errlen);
	} else if (!rc) {
		rc = open_readwrite(db, err, errlen);
		/* Counted only, so that a reader of the same file in this
		 * process never takes the lock under it. */
		if (!rc)
			ax_dbi_sidecars_note(path, &db->sidecars);
		db->sidecars.keep = true;
	}
	if (!rc && writing)
		ax_dbi_mark_abandoned(db);
	if (rc) {
		ax_db_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

const char *ax_db_note(const struct ax_db *db)
{
	return db && db->note[0] ? db->note : NULL;
}

void ax_db_close(struct ax_db *db)
{
	if (!db)
		return;
	sqlite3_close(db->h);
	ax_dbi_sidecars_tidy(db->path, &db->sidecars);
	ax_dbi_remove_copy(db);
	free(db->path);
	free(db);
}
