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

#include <stdint.h>

struct sqlite3;
struct sqlite3_stmt;

#define AX_DB_BUSY_MS 10000
#define AX_NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

struct ax_db {
	struct sqlite3 *h;
	char *path;
	int version;
	char msg[768];
};

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

#endif
