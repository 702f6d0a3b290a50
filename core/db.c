/*
 * core/db.c - the SQLite store (see core/db.h for the contract).
 *
 * Opening is careful about never writing to a file that is not ours: an
 * existing file is first checked for the SQLite header and probed through
 * a read-only connection (readable schema, user_version not newer than
 * this build) before the read-write connection switches it to WAL, since
 * that switch alone rewrites the header.  All SQL is static text with
 * bound parameters; only integer schema versions are formatted into a
 * PRAGMA, which cannot take parameters.
 */
#include "core/db.h"
#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ctype.h>
#include <libgen.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define AX_DB_BUSY_MS 10000
#define AX_NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

struct ax_db {
	sqlite3 *h;
	char *path;
	int version;
	char msg[768];
};

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

static const char *const migrations[AX_DB_SCHEMA_VERSION] = {
	migration_1,
};

/* ---- errors ---------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int fail(struct ax_db *db, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->msg, sizeof(db->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* Map an SQLite failure while doing `what` to an AX_E* code and a
 * message naming the database file. */
static int fail_sql(struct ax_db *db, int rc, const char *what)
{
	int prim = rc & 0xff;

	if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
		return fail(db, AX_EDB,
			    "%s: database stayed locked for %d s while %s; "
			    "another axbench is writing it, retry when it "
			    "is done", db->path, AX_DB_BUSY_MS / 1000, what);
	if (prim == SQLITE_CONSTRAINT)
		return fail(db, AX_EINVAL, "%s: %s while %s (%s)", db->path,
			    sqlite3_errmsg(db->h), what,
			    "a referenced id does not exist or a value "
			    "is missing");
	if (prim == SQLITE_NOMEM)
		return fail(db, AX_ENOMEM, "%s: out of memory while %s",
			    db->path, what);
	return fail(db, AX_EDB, "%s: %s while %s", db->path,
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

void ax_uuid_v4(char out[37])
{
	unsigned char b[16];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t r = getrandom(b + got, sizeof(b) - got, 0);

		if (r > 0)
			got += (size_t)r;
		else if (r < 0 && errno != EINTR)
			break;
	}
	if (got < sizeof(b)) {
		/* getrandom cannot fail on Linux >= 3.17 with a seeded
		 * pool; keep the output well-formed regardless. */
		FILE *f = fopen("/dev/urandom", "rb");

		if (!f || fread(b, 1, sizeof(b), f) != sizeof(b))
			abort();
		fclose(f);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* FNV-1a 64 as 16 hex digits: a short stable key for identical canonical
 * texts (parameter sets, host fingerprints), not a security hash. */
static void hash_hex(const char *s, char out[17])
{
	uint64_t h = UINT64_C(1469598103934665603);

	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(1099511628211);
	}
	snprintf(out, 17, "%016" PRIx64, h);
}

static int prepare(struct ax_db *db, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : fail_sql(db, rc, "preparing a query");
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_uuid(sqlite3_stmt *st, int i)
{
	char u[37];

	ax_uuid_v4(u);
	sqlite3_bind_text(st, i, u, -1, SQLITE_TRANSIENT);
}

/* Ids of 0 mean "none" in the API and NULL in the table. */
static void bind_id(sqlite3_stmt *st, int i, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

/* Run a statement to completion (no rows expected, or one RETURNING id
 * written to *id), finalize it, and report failure as doing `what`. */
static int step_done(struct ax_db *db, sqlite3_stmt *st, int64_t *id,
		     const char *what)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		if (id)
			*id = sqlite3_column_int64(st, 0);
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE) {
		rc = fail_sql(db, rc, what);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	return 0;
}

static int exec(struct ax_db *db, const char *sql, const char *what)
{
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail_sql(db, rc, what);
}

static int begin(struct ax_db *db)
{
	return exec(db, "BEGIN IMMEDIATE", "starting a write transaction");
}

static int commit(struct ax_db *db)
{
	return exec(db, "COMMIT", "committing");
}

/* Roll back after a failure; returns err so callers can chain. */
static int rollback(struct ax_db *db, int err)
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
static int check_header(const char *path, bool *exists, bool *empty,
			char *err, size_t errlen)
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
			       "an axbench database file with --db", path);
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
			       "another --db or move the file away", path);
	return 0;
}

/* Can h read the schema?  An SQLite result code; *objects (may be NULL)
 * gets the number of schema objects (tables, indexes ...). */
static int read_schema(sqlite3 *h, int *objects)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_schema",
				    -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && objects)
			*objects = sqlite3_column_int(st, 0);
		rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
	}
	sqlite3_finalize(st);
	return rc;
}

/* "file:PATH?immutable=1" with PATH percent-encoded as RFC 3986 wants. */
static char *immutable_uri(const char *path)
{
	size_t n = strlen(path);
	char *uri = malloc(3 * n + 32), *o = uri;
	if (!uri)
		return NULL;
	o += sprintf(o, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (isalnum(*p) || strchr("/._-~", *p))
			*o++ = (char)*p;
		else
			o += sprintf(o, "%%%02X", *p);
	}
	strcpy(o, "?immutable=1");
	return uri;
}

/*
 * Open path read-only.  A WAL database in a directory nobody may write to
 * (read-only media) cannot be read the usual way, since SQLite must create
 * its -shm file: there the file is opened as immutable, which is exactly
 * true of such media.
 */
static int open_ro(const char *path, sqlite3 **out)
{
	sqlite3 *h = NULL;
	int rc = sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(h, AX_DB_BUSY_MS);
		rc = read_schema(h, NULL);
	}
	char *copy = strdup(path);
	bool dir_ro = copy && access(dirname(copy), W_OK) != 0;
	free(copy);
	if ((rc & 0xff) == SQLITE_CANTOPEN && dir_ro) {
		char *uri = immutable_uri(path);
		sqlite3_close(h);
		h = NULL;
		rc = uri ? sqlite3_open_v2(uri, &h,
					   SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
					   NULL)
			 : SQLITE_NOMEM;
		free(uri);
		if (rc == SQLITE_OK)
			rc = read_schema(h, NULL);
	}
	*out = h;
	return rc;
}

/*
 * Read-only look at an existing database: can SQLite read its schema,
 * and is its schema version one this build understands?  Nothing is
 * written, whatever the answer.
 */
static int probe(const char *path, int *version, char *err, size_t errlen)
{
	sqlite3 *h = NULL;
	int rc, v = 0, objects = 0;

	rc = open_ro(path, &h);
	if (rc == SQLITE_OK)
		rc = read_schema(h, &objects);
	if (rc == SQLITE_OK)
		rc = read_user_version(h, &v);
	if (rc != SQLITE_OK) {
		int prim = rc & 0xff;

		ax_errf(err, errlen, AX_EDB,
			"%s: %s (%s); axbench left it untouched: restore it "
			"from a backup or pass another --db", path,
			prim == SQLITE_NOTADB || prim == SQLITE_CORRUPT
				? "the database is corrupt"
				: "cannot read the database",
			h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
		sqlite3_close(h);
		return AX_EDB;
	}
	sqlite3_close(h);
	*version = v;
	if (v > AX_DB_SCHEMA_VERSION)
		return newer_schema(err, errlen, path, v);
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
		rc = ax_errf(err, errlen, AX_EDB,
			     "%s: cannot create the database: %s %s%s%s; "
			     "create the directory, fix its permissions or "
			     "pass another --db", path, dir,
			     errno == ENOENT ? "does not exist"
			     : errno == ENOTDIR ? "is not a directory"
						: "is not writable",
			     errno == ENOENT || errno == ENOTDIR ? "" : ": ",
			     errno == ENOENT || errno == ENOTDIR
				     ? "" : strerror(errno));
	free(copy);
	return rc;
}

static int set_pragmas(struct ax_db *db)
{
	sqlite3_stmt *st;
	int rc;

	sqlite3_busy_timeout(db->h, AX_DB_BUSY_MS);
	/* Changing the journal mode takes an exclusive lock without the
	 * busy handler, so two processes creating one file retry here. */
	for (int tries = 0;; tries++) {
		rc = sqlite3_prepare_v2(db->h, "PRAGMA journal_mode=WAL", -1,
					&st, NULL);
		if (rc != SQLITE_OK)
			return fail_sql(db, rc, "enabling WAL");
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc == SQLITE_ROW)
			break;
		if ((rc & 0xff) != SQLITE_BUSY || tries >= AX_DB_BUSY_MS / 10)
			return fail_sql(db, rc, "enabling WAL");
		usleep(10000);
	}
	rc = exec(db, "PRAGMA foreign_keys=ON", "enabling foreign keys");
	if (!rc)
		rc = exec(db, "PRAGMA synchronous=NORMAL", "setting sync mode");
	return rc;
}

/* Apply migration v (1-based) in one transaction, unless another process
 * got there first. */
static int migrate_one(struct ax_db *db, int v)
{
	char pragma[64];
	int cur = 0, rc;

	if ((rc = begin(db)))
		return rc;
	if ((rc = read_user_version(db->h, &cur)) != SQLITE_OK)
		return rollback(db, fail_sql(db, rc, "reading the schema"));
	if (cur >= v) {
		db->version = cur;
		return rollback(db, 0);
	}
	rc = exec(db, migrations[v - 1], "creating the schema");
	if (rc)
		return rollback(db, rc);
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%d", v);
	if ((rc = exec(db, pragma, "recording the schema version")))
		return rollback(db, rc);
	if ((rc = commit(db)))
		return rollback(db, rc);
	db->version = v;
	return 0;
}

static int migrate(struct ax_db *db)
{
	int rc = read_user_version(db->h, &db->version);

	if (rc != SQLITE_OK)
		return fail_sql(db, rc, "reading the schema version");
	for (int v = db->version + 1; v <= AX_DB_SCHEMA_VERSION; v++) {
		if ((rc = migrate_one(db, v)))
			return rc;
	}
	if (db->version > AX_DB_SCHEMA_VERSION)
		return newer_schema(db->msg, sizeof(db->msg), db->path,
				    db->version);
	return 0;
}

static int open_readonly(struct ax_db *db, char *err, size_t errlen)
{
	int rc = open_ro(db->path, &db->h);

	if (rc != SQLITE_OK)
		return ax_errf(err, errlen, AX_EDB, "%s: cannot open (%s)",
			       db->path, sqlite3_errstr(rc));
	if (db->version < AX_DB_SCHEMA_VERSION)
		return ax_errf(err, errlen, AX_EDB,
			       "%s has schema %d, older than this build's "
			       "%d; open it once without read-only access "
			       "to upgrade it", db->path, db->version,
			       AX_DB_SCHEMA_VERSION);
	return 0;
}

static int open_readwrite(struct ax_db *db, char *err, size_t errlen)
{
	int rc = sqlite3_open_v2(db->path, &db->h,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
				 NULL);

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
			       "pass another --db", db->path);
	rc = set_pragmas(db);
	if (!rc)
		rc = migrate(db);
	if (rc)
		ax_errf(err, errlen, rc, "%s", db->msg);
	return rc;
}

int ax_db_open(const char *path, unsigned flags, struct ax_db **out,
	       char *err, size_t errlen)
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
			       "--db", path);
	db = calloc(1, sizeof(*db));
	if (!db || !(db->path = strdup(path))) {
		free(db);
		return ax_errf(err, errlen, AX_ENOMEM, "out of memory");
	}
	if (exists && !empty)
		rc = probe(path, &db->version, err, errlen);
	else if (!exists)
		rc = check_dir(path, err, errlen);
	if (!rc && (flags & AX_DB_READONLY))
		rc = open_readonly(db, err, errlen);
	else if (!rc)
		rc = open_readwrite(db, err, errlen);
	if (rc) {
		ax_db_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

void ax_db_close(struct ax_db *db)
{
	if (!db)
		return;
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

/* ---- writes ----------------------------------------------------------- */

int ax_db_host_upsert(struct ax_db *db, const struct ax_db_host *h,
		      int64_t *id)
{
	char key[1024], fp[17];
	sqlite3_stmt *st;
	int rc;

	snprintf(key, sizeof(key), "%s|%s|%s|%d|%d|%" PRId64,
		 h->hostname ? h->hostname : "", h->os ? h->os : "",
		 h->cpu_model ? h->cpu_model : "", h->cores, h->numa_nodes,
		 h->memory_bytes);
	hash_hex(key, fp);
	rc = prepare(db,
		     "INSERT INTO host (uuid, fingerprint, hostname, os,"
		     " cpu_model, cores, numa_nodes, memory_bytes,"
		     " topology_json, created_at)"
		     " VALUES (?,?,?,?,?,?,?,?,?," AX_NOW ")"
		     " ON CONFLICT(fingerprint) DO UPDATE SET topology_json ="
		     " coalesce(excluded.topology_json, topology_json)"
		     " RETURNING id", &st);
	if (rc)
		return rc;
	bind_uuid(st, 1);
	bind_text(st, 2, fp);
	bind_text(st, 3, h->hostname);
	bind_text(st, 4, h->os);
	bind_text(st, 5, h->cpu_model);
	sqlite3_bind_int(st, 6, h->cores);
	sqlite3_bind_int(st, 7, h->numa_nodes);
	sqlite3_bind_int64(st, 8, h->memory_bytes);
	bind_text(st, 9, h->topology_json);
	return step_done(db, st, id, "recording the host");
}

int ax_db_device_upsert(struct ax_db *db, const struct ax_db_device *d,
			int64_t *id)
{
	sqlite3_stmt *st;
	int rc;

	if (!d->fingerprint)
		return fail(db, AX_EINVAL, "device without a fingerprint");
	rc = prepare(db,
		     "INSERT INTO device (uuid, fingerprint, name, vendor,"
		     " type, driver_name, driver_info, vendor_id, device_id,"
		     " driver_id, api_version, driver_version, device_uuid,"
		     " driver_uuid, pci_bus_id, properties_json, created_at,"
		     " updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		     AX_NOW "," AX_NOW ") ON CONFLICT(fingerprint) DO UPDATE"
		     " SET name = excluded.name,"
		     " driver_info = excluded.driver_info,"
		     " pci_bus_id = coalesce(excluded.pci_bus_id, pci_bus_id),"
		     " properties_json = excluded.properties_json,"
		     " updated_at = excluded.updated_at RETURNING id", &st);
	if (rc)
		return rc;
	bind_uuid(st, 1);
	bind_text(st, 2, d->fingerprint);
	bind_text(st, 3, d->name);
	bind_text(st, 4, d->vendor);
	bind_text(st, 5, d->type);
	bind_text(st, 6, d->driver_name);
	bind_text(st, 7, d->driver_info);
	sqlite3_bind_int64(st, 8, d->vendor_id);
	sqlite3_bind_int64(st, 9, d->device_id);
	sqlite3_bind_int64(st, 10, d->driver_id);
	sqlite3_bind_int64(st, 11, d->api_version);
	sqlite3_bind_int64(st, 12, d->driver_version);
	bind_text(st, 13, d->device_uuid);
	bind_text(st, 14, d->driver_uuid);
	bind_text(st, 15, d->pci_bus_id);
	bind_text(st, 16, d->properties_json);
	return step_done(db, st, id, "recording the device");
}

int ax_db_run_begin(struct ax_db *db, const struct ax_db_run *r,
		    int64_t *id)
{
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "INSERT INTO run (uuid, host_id, device_id,"
			 " started_at, status, axbench_version, git_sha,"
			 " argv_json, config_json, profile) VALUES (?,?,?,"
			 AX_NOW ",'running',?,?,?,?,?) RETURNING id", &st);

	if (rc)
		return rc;
	bind_uuid(st, 1);
	bind_id(st, 2, r->host_id);
	bind_id(st, 3, r->device_id);
	bind_text(st, 4, r->axbench_version);
	bind_text(st, 5, r->git_sha);
	bind_text(st, 6, r->argv_json);
	bind_text(st, 7, r->config_json);
	bind_text(st, 8, r->profile);
	return step_done(db, st, id, "starting a run");
}

int ax_db_run_finish(struct ax_db *db, int64_t run_id, const char *status)
{
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "UPDATE run SET finished_at = " AX_NOW ", status = ?"
			 " WHERE id = ?", &st);

	if (rc)
		return rc;
	bind_text(st, 1, status ? status : "complete");
	sqlite3_bind_int64(st, 2, run_id);
	if ((rc = step_done(db, st, NULL, "finishing a run")))
		return rc;
	if (sqlite3_changes(db->h) == 0)
		return fail(db, AX_ENOTFOUND, "%s: no run with id %" PRId64,
			    db->path, run_id);
	return 0;
}

static int insert_result(struct ax_db *db, const struct ax_db_result *r,
			 int64_t *id)
{
	double stats[11] = {r->median, r->min, r->max, r->mean, r->stddev,
			    r->q1, r->q3, r->mad, r->ci_lo, r->ci_hi,
			    r->rel_noise};
	char ph[17];
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "INSERT INTO result (uuid, run_id, suite, case_label,"
			 " params_json, params_hash, shader_hash, unit,"
			 " higher_is_better, work, timing_mode, stop_reason,"
			 " status, error_text, n, median, min, max, mean,"
			 " stddev, q1, q3, mad, ci_lo, ci_hi, rel_noise,"
			 " extra_json, created_at) VALUES (?,?,?,?,?,?,?,?,"
			 "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?," AX_NOW ")"
			 " RETURNING id", &st);

	if (rc)
		return rc;
	hash_hex(r->params_json ? r->params_json : "{}", ph);
	bind_uuid(st, 1);
	sqlite3_bind_int64(st, 2, r->run_id);
	bind_text(st, 3, r->suite);
	bind_text(st, 4, r->case_label);
	bind_text(st, 5, r->params_json ? r->params_json : "{}");
	bind_text(st, 6, ph);
	bind_text(st, 7, r->shader_hash);
	bind_text(st, 8, r->unit);
	sqlite3_bind_int(st, 9, r->higher_is_better);
	sqlite3_bind_double(st, 10, r->work);
	bind_text(st, 11, r->timing_mode);
	bind_text(st, 12, r->stop_reason);
	bind_text(st, 13, r->status ? r->status : "ok");
	bind_text(st, 14, r->error_text);
	sqlite3_bind_int(st, 15, r->n);
	/* SQLite stores a NaN as NULL, which reads back as JSON null. */
	for (int i = 0; i < 11; i++)
		sqlite3_bind_double(st, 16 + i, stats[i]);
	bind_text(st, 27, r->extra_json);
	return step_done(db, st, id, "storing a result");
}

static int insert_samples(struct ax_db *db, int64_t result_id,
			  const double *seconds, const double *values, int n)
{
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "INSERT INTO sample (uuid, result_id, idx, seconds,"
			 " value) VALUES (?,?,?,?,?)", &st);

	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		sqlite3_reset(st);
		bind_uuid(st, 1);
		sqlite3_bind_int64(st, 2, result_id);
		sqlite3_bind_int(st, 3, i);
		if (seconds)
			sqlite3_bind_double(st, 4, seconds[i]);
		else
			sqlite3_bind_null(st, 4);
		if (values)
			sqlite3_bind_double(st, 5, values[i]);
		else
			sqlite3_bind_null(st, 5);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE) {
			rc = fail_sql(db, rc, "storing samples");
			sqlite3_finalize(st);
			return rc;
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int ax_db_result_add(struct ax_db *db, const struct ax_db_result *r,
		     const double *seconds, const double *values, int n,
		     int64_t *id)
{
	int64_t rid = 0;
	int rc;

	if (n < 0 || (n > 0 && !seconds && !values))
		return fail(db, AX_EINVAL,
			    "result of %s: %d samples but no sample arrays",
			    r->suite ? r->suite : "?", n);
	if ((rc = begin(db)))
		return rc;
	if ((rc = insert_result(db, r, &rid)) ||
	    (rc = insert_samples(db, rid, seconds, values, n)) ||
	    (rc = commit(db)))
		return rollback(db, rc);
	if (id)
		*id = rid;
	return 0;
}

int ax_db_session_begin(struct ax_db *db, const struct ax_db_session *s,
			int64_t *id)
{
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "INSERT INTO tune_session (uuid, device_id, suite,"
			 " shape_json, strategy, objective, seed, budget,"
			 " space_json, started_at) VALUES (?,?,?,?,?,?,?,?,?,"
			 AX_NOW ") RETURNING id", &st);

	if (rc)
		return rc;
	bind_uuid(st, 1);
	bind_id(st, 2, s->device_id);
	bind_text(st, 3, s->suite);
	bind_text(st, 4, s->shape_json);
	bind_text(st, 5, s->strategy);
	bind_text(st, 6, s->objective);
	/* The 64-bit seed is kept by bit pattern; reads undo the cast. */
	sqlite3_bind_int64(st, 7, (int64_t)s->seed);
	sqlite3_bind_int(st, 8, s->budget);
	bind_text(st, 9, s->space_json);
	return step_done(db, st, id, "starting a tuning session");
}

int ax_db_session_finish(struct ax_db *db, int64_t session_id,
			 const char *stop_reason, int64_t best_trial_id)
{
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "UPDATE tune_session SET finished_at = " AX_NOW ","
			 " stop_reason = ?, best_trial_id = ? WHERE id = ?",
			 &st);

	if (rc)
		return rc;
	bind_text(st, 1, stop_reason);
	bind_id(st, 2, best_trial_id);
	sqlite3_bind_int64(st, 3, session_id);
	if ((rc = step_done(db, st, NULL, "finishing a tuning session")))
		return rc;
	if (sqlite3_changes(db->h) == 0)
		return fail(db, AX_ENOTFOUND,
			    "%s: no tuning session with id %" PRId64,
			    db->path, session_id);
	return 0;
}

int ax_db_trial_add(struct ax_db *db, const struct ax_db_trial *t,
		    int64_t *id)
{
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "INSERT INTO trial (uuid, session_id, idx,"
			 " params_json, status, value, seconds, compile_ms,"
			 " result_id, error_text, created_at) VALUES"
			 " (?,?,?,?,?,?,?,?,?,?," AX_NOW ") RETURNING id",
			 &st);

	if (rc)
		return rc;
	bind_uuid(st, 1);
	sqlite3_bind_int64(st, 2, t->session_id);
	sqlite3_bind_int(st, 3, t->index);
	bind_text(st, 4, t->params_json);
	bind_text(st, 5, t->status ? t->status : "ok");
	sqlite3_bind_double(st, 6, t->value);
	sqlite3_bind_double(st, 7, t->seconds);
	sqlite3_bind_double(st, 8, t->compile_ms);
	bind_id(st, 9, t->result_id);
	bind_text(st, 10, t->error_text);
	return step_done(db, st, id, "storing a tuning trial");
}

static int run_exists(struct ax_db *db, int64_t run_id)
{
	sqlite3_stmt *st;
	int rc = prepare(db, "SELECT 1 FROM run WHERE id = ?", &st);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return fail(db, AX_ENOTFOUND,
			    "%s: no run with id %" PRId64 "; list runs with "
			    "`axbench results`", db->path, run_id);
	return fail_sql(db, rc, "looking up a run");
}

int ax_db_baseline_save(struct ax_db *db, const char *name, int64_t run_id)
{
	sqlite3_stmt *st;
	int rc;

	if (!name || !*name)
		return fail(db, AX_EINVAL,
			    "baseline name is empty; give it a name");
	if ((rc = begin(db)))
		return rc;
	if ((rc = run_exists(db, run_id)))
		return rollback(db, rc);
	rc = prepare(db,
		     "INSERT INTO baseline (uuid, name, run_id, created_at)"
		     " VALUES (?,?,?," AX_NOW ") ON CONFLICT(name) DO UPDATE"
		     " SET run_id = excluded.run_id,"
		     " created_at = excluded.created_at", &st);
	if (rc)
		return rollback(db, rc);
	bind_uuid(st, 1);
	bind_text(st, 2, name);
	sqlite3_bind_int64(st, 3, run_id);
	if ((rc = step_done(db, st, NULL, "saving a baseline")) ||
	    (rc = commit(db)))
		return rollback(db, rc);
	return 0;
}

/* ---- reads ------------------------------------------------------------ */

/* One integer from a query with an optional text parameter. */
static int query_id(struct ax_db *db, const char *sql, const char *arg,
		    int64_t *out, const char *what_missing)
{
	sqlite3_stmt *st;
	int rc = prepare(db, sql, &st);

	if (rc)
		return rc;
	if (arg)
		bind_text(st, 1, arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return fail(db, AX_ENOTFOUND, "%s: %s", db->path,
			    what_missing);
	return fail_sql(db, rc, "reading");
}

int ax_db_last_run(struct ax_db *db, int64_t *run_id)
{
	return query_id(db,
			"SELECT id FROM run ORDER BY started_at DESC, id DESC"
			" LIMIT 1", NULL, run_id,
			"the database holds no runs yet; run `axbench run` "
			"first");
}

int ax_db_baseline_run(struct ax_db *db, const char *name, int64_t *run_id)
{
	int rc = query_id(db, "SELECT run_id FROM baseline WHERE name = ?",
			  name ? name : "", run_id, "no such baseline");

	if (rc == AX_ENOTFOUND)
		fail(db, rc, "%s: no baseline named \"%s\"; save one with "
		     "`axbench baseline save NAME`", db->path,
		     name ? name : "");
	return rc;
}

/* Column i as JSON: integers, finite reals and text as themselves, NULL
 * and non-finite reals as null (JSON has no NaN or infinity). */
static json_t *col_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT: {
		double v = sqlite3_column_double(st, i);

		return isfinite(v) ? json_real(v) : json_null();
	}
	case SQLITE_TEXT:
		return json_string((const char *)sqlite3_column_text(st, i));
	default:
		return json_null();
	}
}

/* Column i holding JSON text, parsed; null when NULL or unparsable. */
static json_t *col_parsed(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	json_t *j = s ? json_loads(s, JSON_DECODE_ANY, NULL) : NULL;

	return j ? j : json_null();
}

/* Set keys[0..n) of obj from columns first..first+n; "*" prefix means
 * the column holds JSON text to parse. */
static void set_cols(json_t *obj, sqlite3_stmt *st, int first,
		     const char *const *keys, int n)
{
	for (int i = 0; i < n; i++) {
		if (keys[i][0] == '*')
			json_object_set_new(obj, keys[i] + 1,
					    col_parsed(st, first + i));
		else
			json_object_set_new(obj, keys[i],
					    col_json(st, first + i));
	}
}

#define NKEYS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The device and host columns every listing joins in, and their keys. */
#define DEV_COLS                                                           \
	"d.id, d.fingerprint, d.name, d.vendor, d.type, d.driver_name,"    \
	" d.driver_info, d.api_version, d.pci_bus_id, d.device_uuid,"      \
	" d.vendor_id, d.device_id, d.driver_version"
#define HOST_COLS "h.id, h.hostname, h.cpu_model, h.cores"
static const char *const dev_keys[] = {
	"id", "fingerprint", "name", "vendor", "type", "driver_name",
	"driver_info", "api_version", "pci_bus_id", "device_uuid",
	"vendor_id", "device_id", "driver_version",
};
static const char *const host_keys[] = {"id", "hostname", "cpu_model",
					"cores"};

/* A joined device or host object; null when the row had none. */
static json_t *sub_object(sqlite3_stmt *st, int first,
			  const char *const *keys, int n)
{
	json_t *o;

	if (sqlite3_column_type(st, first) == SQLITE_NULL)
		return json_null();
	o = json_object();
	set_cols(o, st, first, keys, n);
	return o;
}

/*
 * The WHERE clause shared by the listings.  Only fixed fragments are
 * concatenated; every value is bound: run ids travel as one JSON array
 * read back by json_each.
 */
struct where {
	char sql[512];
	const char *args[4];
	int nargs;
	char *ids_json;
};

static int build_where(struct where *w, const struct ax_db_filter *f,
		       const char *time_col, bool runs)
{
	strcpy(w->sql, " WHERE 1");
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
		strcat(w->sql, " AND r.id IN (SELECT value FROM json_each(?))");
		w->args[w->nargs++] = w->ids_json;
	}
	if (f->suite) {
		strcat(w->sql, " AND x.suite = ?");
		w->args[w->nargs++] = f->suite;
	}
	if (f->device_fingerprint) {
		strcat(w->sql, " AND d.fingerprint = ?");
		w->args[w->nargs++] = f->device_fingerprint;
	}
	if (f->since) {
		strcat(w->sql, " AND ");
		strcat(w->sql, time_col);
		strcat(w->sql, " >= ?");
		w->args[w->nargs++] = f->since;
	}
	return 0;
}

static int prepare_where(struct ax_db *db, const char *head,
			 struct where *w, const char *tail,
			 sqlite3_stmt **st)
{
	size_t len = strlen(head) + strlen(w->sql) + strlen(tail) + 1;
	char *sql = malloc(len);
	int rc;

	if (!sql)
		return fail(db, AX_ENOMEM, "out of memory");
	snprintf(sql, len, "%s%s%s", head, w->sql, tail);
	rc = prepare(db, sql, st);
	free(sql);
	for (int i = 0; !rc && i < w->nargs; i++)
		bind_text(*st, i + 1, w->args[i]);
	return rc;
}

/* Append the raw samples of result id to r as "samples" and "seconds". */
static int add_samples(struct ax_db *db, int64_t id, json_t *r)
{
	json_t *vals = json_array(), *secs = json_array();
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "SELECT value, seconds FROM sample WHERE result_id"
			 " = ? ORDER BY idx", &st);

	json_object_set_new(r, "samples", vals);
	json_object_set_new(r, "seconds", secs);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_array_append_new(vals, col_json(st, 0));
		json_array_append_new(secs, col_json(st, 1));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail_sql(db, rc, "reading samples");
}

static const char *const result_keys[] = {
	"id", "uuid", "run_id", "run_uuid", "started_at", "suite", "case",
	"*params", "params_hash", "shader_hash", "unit", "higher_is_better",
	"work", "timing_mode", "stop_reason", "status", "error", "n",
	"median", "min", "max", "mean", "stddev", "q1", "q3", "mad",
	"ci_lo", "ci_hi", "rel_noise", "*extra",
};

static json_t *result_row(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int n = NKEYS(result_keys);

	set_cols(o, st, 0, result_keys, n);
	json_object_set_new(o, "higher_is_better",
			    json_boolean(sqlite3_column_int(st, 11)));
	json_object_set_new(o, "device",
			    sub_object(st, n, dev_keys, NKEYS(dev_keys)));
	json_object_set_new(o, "host",
			    sub_object(st, n + NKEYS(dev_keys), host_keys,
				       NKEYS(host_keys)));
	return o;
}

/* Step st, turning each row into an object with row() and appending it
 * to a new array; on_row may add to each object. */
static int collect(struct ax_db *db, sqlite3_stmt *st,
		   json_t *(*row)(sqlite3_stmt *),
		   int (*on_row)(struct ax_db *, int64_t, json_t *),
		   json_t **out)
{
	json_t *arr = json_array();
	int rc, err = 0;

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = row(st);

		json_array_append_new(arr, o);
		if (on_row)
			err = on_row(db, sqlite3_column_int64(st, 0), o);
	}
	if (!err && rc != SQLITE_DONE)
		err = fail_sql(db, rc, "reading");
	sqlite3_finalize(st);
	if (err) {
		json_decref(arr);
		return err;
	}
	*out = arr;
	return 0;
}

int ax_db_results(struct ax_db *db, const struct ax_db_filter *f,
		  json_t **out)
{
	struct where w;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	if ((rc = build_where(&w, f, "r.started_at", true)))
		return fail(db, rc, "out of memory");
	rc = prepare_where(
		db,
		"SELECT x.id, x.uuid, x.run_id, r.uuid, r.started_at,"
		" x.suite, x.case_label, x.params_json, x.params_hash,"
		" x.shader_hash, x.unit, x.higher_is_better, x.work,"
		" x.timing_mode, x.stop_reason, x.status, x.error_text, x.n,"
		" x.median, x.min, x.max, x.mean, x.stddev, x.q1, x.q3,"
		" x.mad, x.ci_lo, x.ci_hi, x.rel_noise, x.extra_json, "
		DEV_COLS ", " HOST_COLS
		" FROM result x JOIN run r ON r.id = x.run_id"
		" LEFT JOIN device d ON d.id = r.device_id"
		" LEFT JOIN host h ON h.id = r.host_id",
		&w, " ORDER BY r.started_at, x.id", &st);
	free(w.ids_json);
	if (rc)
		return rc;
	return collect(db, st, result_row,
		       f && f->with_samples ? add_samples : NULL, out);
}

static const char *const run_keys[] = {
	"id", "uuid", "started_at", "finished_at", "status", "profile",
	"axbench_version", "git_sha", "*argv", "n_results",
};

static json_t *run_row(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int n = NKEYS(run_keys);

	set_cols(o, st, 0, run_keys, n);
	json_object_set_new(o, "device",
			    sub_object(st, n, dev_keys, NKEYS(dev_keys)));
	json_object_set_new(o, "host",
			    sub_object(st, n + NKEYS(dev_keys), host_keys,
				       NKEYS(host_keys)));
	return o;
}

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
	if ((rc = build_where(&w, &rf, "r.started_at", true)))
		return fail(db, rc, "out of memory");
	if (f && f->suite) {
		strcat(w.sql, " AND EXISTS (SELECT 1 FROM result x WHERE"
			      " x.run_id = r.id AND x.suite = ?)");
		w.args[w.nargs++] = f->suite;
	}
	rc = prepare_where(
		db,
		"SELECT r.id, r.uuid, r.started_at, r.finished_at, r.status,"
		" r.profile, r.axbench_version, r.git_sha, r.argv_json,"
		" (SELECT count(*) FROM result x WHERE x.run_id = r.id), "
		DEV_COLS ", " HOST_COLS
		" FROM run r LEFT JOIN device d ON d.id = r.device_id"
		" LEFT JOIN host h ON h.id = r.host_id",
		&w, " ORDER BY r.started_at DESC, r.id DESC", &st);
	free(w.ids_json);
	if (rc)
		return rc;
	return collect(db, st, run_row, NULL, out);
}

static const char *const session_keys[] = {
	"id", "uuid", "suite", "strategy", "objective", "seed", "budget",
	"stop_reason", "best_trial_id", "started_at", "finished_at",
	"*shape", "*space",
};

static json_t *session_row(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int n = NKEYS(session_keys);
	uint64_t seed = (uint64_t)sqlite3_column_int64(st, 5);

	set_cols(o, st, 0, session_keys, n);
	/* JSON integers are signed 64-bit: seeds past that go as text. */
	if (seed > INT64_MAX) {
		char buf[24];

		snprintf(buf, sizeof(buf), "%" PRIu64, seed);
		json_object_set_new(o, "seed", json_string(buf));
	}
	json_object_set_new(o, "device",
			    sub_object(st, n, dev_keys, NKEYS(dev_keys)));
	return o;
}

static const char *const trial_keys[] = {
	"id", "index", "*params", "status", "value", "seconds",
	"compile_ms", "result_id", "error", "created_at",
};

static json_t *trial_row(sqlite3_stmt *st)
{
	json_t *o = json_object();

	set_cols(o, st, 0, trial_keys, NKEYS(trial_keys));
	return o;
}

static int add_trials(struct ax_db *db, int64_t id, json_t *s)
{
	json_t *trials = NULL;
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "SELECT id, idx, params_json, status, value,"
			 " seconds, compile_ms, result_id, error_text,"
			 " created_at FROM trial WHERE session_id = ?"
			 " ORDER BY idx", &st);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = collect(db, st, trial_row, NULL, &trials)))
		return rc;
	json_object_set_new(s, "trials", trials);
	return 0;
}

#define SESSION_SELECT                                                     \
	"SELECT x.id, x.uuid, x.suite, x.strategy, x.objective, x.seed,"   \
	" x.budget, x.stop_reason, x.best_trial_id, x.started_at,"         \
	" x.finished_at, x.shape_json, x.space_json, " DEV_COLS            \
	" FROM tune_session x LEFT JOIN device d ON d.id = x.device_id"

int ax_db_sessions(struct ax_db *db, const struct ax_db_filter *f,
		   json_t **out)
{
	struct where w;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	if ((rc = build_where(&w, f, "x.started_at", false)))
		return fail(db, rc, "out of memory");
	rc = prepare_where(db, SESSION_SELECT, &w,
			   " ORDER BY x.started_at, x.id", &st);
	if (rc)
		return rc;
	return collect(db, st, session_row, add_trials, out);
}

int ax_db_session_get(struct ax_db *db, int64_t session_id, json_t **out)
{
	json_t *arr = NULL;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	if ((rc = prepare(db, SESSION_SELECT " WHERE x.id = ?", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, session_id);
	if ((rc = collect(db, st, session_row, add_trials, &arr)))
		return rc;
	if (json_array_size(arr) == 0) {
		json_decref(arr);
		return fail(db, AX_ENOTFOUND,
			    "%s: no tuning session with id %" PRId64
			    "; list sessions with `axbench tune --list`",
			    db->path, session_id);
	}
	*out = json_incref(json_array_get(arr, 0));
	json_decref(arr);
	return 0;
}

static const char *const baseline_keys[] = {"name", "run_id",
					    "created_at"};

static json_t *baseline_row(sqlite3_stmt *st)
{
	json_t *o = json_object();

	set_cols(o, st, 0, baseline_keys, NKEYS(baseline_keys));
	return o;
}

int ax_db_baselines(struct ax_db *db, json_t **out)
{
	sqlite3_stmt *st;
	int rc = prepare(db,
			 "SELECT name, run_id, created_at FROM baseline"
			 " ORDER BY name", &st);

	*out = NULL;
	if (rc)
		return rc;
	return collect(db, st, baseline_row, NULL, out);
}
