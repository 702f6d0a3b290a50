/*
 * core/db_internal.h - what the files of core/db share (db.c: schema,
 * opening, probing and migrating; db_write.c: inserts and updates;
 * db_read.c: queries and their JSON).  Only core/db*.c include it; the
 * sqlite3 types are named by their struct tags so that this header need
 * not include sqlite3.h.
 */
#ifndef AX_DB_INTERNAL_H
#define AX_DB_INTERNAL_H

#include "core/db.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sqlite3;
struct sqlite3_stmt;

#define AX_NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

/* core/db_sidecar.c: which of a database's -wal and -shm existed before
 * a connection was opened, so that what a reader or a probe made is
 * removed when this process's last connection to the file is closed. */
struct ax_dbi_sidecars {
	bool noted; /* note was called and tidy not yet */
	bool keep;  /* a writer's: counted, never removed (SQLite's own
		       last writer removes them) */
	bool had_wal, had_shm;
	dev_t dev;
	ino_t ino;
};
/* Note what exists beside path, before a connection opens it. */
void ax_dbi_sidecars_note(const char *path, struct ax_dbi_sidecars *s);
/* After that connection was closed: remove the -wal (empty) and -shm it
 * made, unless another connection, here or in any process, has the
 * file open. */
void ax_dbi_sidecars_tidy(const char *path, struct ax_dbi_sidecars *s);

struct ax_db {
	struct sqlite3 *h;
	char *path;
	int version;
	char msg[768];
	/* Waiting for another process's lock (see ax_db_set_lock_wait). */
	double busy_since, busy_said; /* monotonic seconds */
	bool stopped;		      /* the last wait ended by *stop */
	bool no_wait;		      /* best-effort writes: never wait */
	/* A private copy read instead of path (see open_private_copy);
	 * removed at close.  NULL when path itself is open; SQLite's
	 * allocation (core/db_check.c join), so sqlite3_free'd. */
	char *copy_dir;
	char note[512];			 /* see ax_db_note */
	struct ax_dbi_sidecars sidecars; /* a reader's: tidied at close */
};

/* The SQL of migration v (1-based). */
const char *ax_dbi_migration(int v);
/* core/db_check.c: the file's tables and columns are those of schema
 * `version`; its pages pass PRAGMA quick_check (time-boxed). */
int ax_dbi_check_shape(struct sqlite3 *h, int version, const char *path,
		       char *err, size_t errlen);
int ax_dbi_quick_check(struct sqlite3 *h, const char *path, char *err,
		       size_t errlen);
/* Replace db->h by a read-write connection to a private copy of db->path
 * and its -wal; ax_dbi_remove_copy deletes the copy. */
int ax_dbi_private_copy(struct ax_db *db, char *err, size_t errlen);
void ax_dbi_remove_copy(struct ax_db *db);
/* core/db_owner.c: runs left "running" by a process that is gone on
 * this machine become "abandoned" (best effort: errors are ignored). */
void ax_dbi_mark_abandoned(struct ax_db *db);
/* Bind this process as a run's owner to parameters first..first+2
 * (owner_pid, owner_boot, owner_start). */
void ax_dbi_bind_owner(struct sqlite3_stmt *st, int first);
/* A run's status as readers show it: "abandoned" for a "running" run
 * whose owner process on this machine is gone.  r: the run table's alias. */
#define AX_RUN_STATUS_SQL(r)                                                   \
	"ax_run_status(" r ".status, " r ".owner_pid, " r ".owner_boot, " r    \
	".owner_start, (SELECT hostname FROM host WHERE host.id = " r          \
	".host_id))"

/*
 * A run's kind as readers show it: "monitor" (a monitor's telemetry, no
 * results), "tune" (a live tuning session: its trials and re-timings),
 * "recommend" (recommend --measure), "ab" (a paired A/B comparison:
 * both sides' results, suites/runner.h), else "run".  Read from what every
 * schema already holds, so older runs have a kind too: a monitor's
 * profile is "monitor", and tune (since the first live session) and
 * recommend (since schema 5) write {"command": NAME} as the run's
 * config.  Text that is not JSON is a plain run, never an SQL error.
 * r: the run table's alias.
 */
#define AX_RUN_KIND_SQL(r)                                                     \
	"(CASE WHEN " r ".profile IS 'monitor' THEN 'monitor' ELSE"            \
	" coalesce(CASE WHEN json_valid(" r ".config_json) THEN"               \
	" CASE json_extract(" r ".config_json, '$.command')"                   \
	" WHEN 'tune' THEN 'tune' WHEN 'recommend' THEN 'recommend'"           \
	" WHEN 'ab' THEN 'ab' END"                                             \
	" END, 'run') END)"

/* Monotonic seconds. */
double ax_dbi_now(void);
/* The total wait for a lock now in force (ax_db_set_lock_wait). */
double ax_dbi_lock_wait_s(void);
/* The SQLite busy handler of every connection (arg: the ax_db). */
int ax_dbi_on_busy(void *arg, int count);
/* Install the busy handler and the SQL functions readers use. */
void ax_dbi_setup_connection(struct ax_db *db);

/* Set db's message; returns err. */
int ax_dbi_fail(struct ax_db *db, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Map an SQLite failure while doing `what` to an AX_E* code and a
 * message naming the database file. */
int ax_dbi_fail_sql(struct ax_db *db, int rc, const char *what);

/* The key of a canonical text (parameter sets, host fingerprints). */
void ax_dbi_hash_hex(const char *s, char out[17]);
int ax_dbi_prepare(struct ax_db *db, const char *sql, struct sqlite3_stmt **st);
/* NULL binds NULL. */
void ax_dbi_bind_text(struct sqlite3_stmt *st, int i, const char *s);
/* A new random UUID. */
void ax_dbi_bind_uuid(struct sqlite3_stmt *st, int i);
/* Ids of 0 mean "none" in the API and NULL in the table. */
void ax_dbi_bind_id(struct sqlite3_stmt *st, int i, int64_t id);
/* Run a statement to completion (no rows expected, or one RETURNING id
 * written to *id), finalize it, and report failure as doing `what`. */
int ax_dbi_step_done(struct ax_db *db, struct sqlite3_stmt *st, int64_t *id,
		     const char *what);
/* Literal SQL only (tests/cli/hostile.bats checks every call). */
int ax_dbi_exec(struct ax_db *db, const char *sql, const char *what);
int ax_dbi_begin(struct ax_db *db);
int ax_dbi_commit(struct ax_db *db);
/* Roll back after a failure; returns err so callers can chain. */
int ax_dbi_rollback(struct ax_db *db, int err);

/* A query the readers run, by name, for tests that check its plan. */
struct ax_dbi_query {
	const char *name, *sql;
};
/* The history queries (core/db_read.c), ending in {NULL, NULL}: each
 * must step through indices in its order, with no sort in memory. */
extern const struct ax_dbi_query ax_dbi_history_queries[];

#endif
