/*
 * core/db_check.c - is an existing file fit to be used, before anything
 * is measured into it?
 *
 *  - Its shape: every table and column that axbench's schema of the
 *    file's version has.  A file whose schema was altered by hand (a
 *    column dropped, a table renamed) would otherwise be accepted at
 *    open and refused at the first insert, after the measuring.  The
 *    expected shape is not written out twice: it is read from an
 *    in-memory database built by the same migrations.
 *  - Its pages (writers only): PRAGMA quick_check, time-boxed so that a
 *    very large file does not delay a run; a damaged file is refused
 *    untouched rather than appended to.
 *  - A private copy for readers that cannot read the file in place (its
 *    committed results still in a -wal file in a directory axbench may
 *    not write, or a schema older than this build's): the file and its
 *    -wal are copied into a fresh temporary directory, and the copy is
 *    opened, recovered and upgraded there.  The original is not touched.
 */
#include "core/db_internal.h"

#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* quick_check gives up after this long, and the file is then used
 * unchecked: a very large history must not delay every run. */
#define QUICK_CHECK_BOX_S 3.0

/* ---- shape ------------------------------------------------------------ */

/* The tables of h, in name order (skipping SQLite's own). */
static int next_table(sqlite3_stmt *st, const char **name)
{
	int rc = sqlite3_step(st);
	*name =
	    rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	return rc;
}

/* Does table have column in h?  1 yes, 0 no, -1 the table is missing. */
static int has_column(sqlite3 *h, const char *table, const char *column)
{
	sqlite3_stmt *st;
	int found = -1;
	if (sqlite3_prepare_v2(h,
			       "SELECT name = ?2 FROM pragma_table_info(?1)"
			       " ORDER BY name = ?2 DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		found = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return found;
}

/* Compare every column of the reference's table with h's. */
static int compare_table(sqlite3 *ref, sqlite3 *h, const char *table,
			 char *what, size_t len)
{
	sqlite3_stmt *st;
	int rc = 0;
	if (sqlite3_prepare_v2(ref, "SELECT name FROM pragma_table_info(?)", -1,
			       &st, NULL) != SQLITE_OK)
		return AX_EDB;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(st, 0);
		int has = has_column(h, table, col);
		if (has < 0)
			rc = ax_errf(what, len, AX_EDB, "table %s is missing",
				     table);
		else if (has == 0)
			rc = ax_errf(what, len, AX_EDB,
				     "table %s has no column %s", table, col);
	}
	sqlite3_finalize(st);
	return rc;
}

/* An in-memory database with schema version `version`. */
static int reference_schema(int version, sqlite3 **ref)
{
	int rc = sqlite3_open(":memory:", ref);
	for (int v = 1; rc == SQLITE_OK && v <= version; v++)
		rc = sqlite3_exec(*ref, ax_dbi_migration(v), NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : AX_EDB;
}

int ax_dbi_check_shape(sqlite3 *h, int version, const char *path, char *err,
		       size_t errlen)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *st = NULL;
	char what[256] = "";
	int rc = version > 0 ? reference_schema(version, &ref) : 0;
	if (rc || version <= 0) {
		sqlite3_close(ref);
		return rc ? ax_errf(err, errlen, AX_ENOMEM,
				    "%s: cannot build the reference schema",
				    path)
			  : 0;
	}
	if (sqlite3_prepare_v2(ref,
			       "SELECT name FROM sqlite_schema WHERE type ="
			       " 'table' ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		rc = AX_EDB;
	const char *table;
	while (rc == 0 && next_table(st, &table) == SQLITE_ROW)
		rc = compare_table(ref, h, table, what, sizeof(what));
	sqlite3_finalize(st);
	sqlite3_close(ref);
	if (rc)
		return ax_errf(err, errlen, AX_EDB,
			       "%s: its tables are not those of axbench's "
			       "schema %d (%s): the file was altered outside "
			       "axbench; axbench left it untouched: pass "
			       "another --db, or restore the file",
			       path, version, what[0] ? what : "unreadable");
	return 0;
}

/* ---- pages ------------------------------------------------------------ */

static int past_box(void *arg) { return ax_dbi_now() > *(const double *)arg; }

int ax_dbi_quick_check(sqlite3 *h, const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	double deadline = ax_dbi_now() + QUICK_CHECK_BOX_S;
	char first[256] = "";
	int rc = sqlite3_prepare_v2(h, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return 0; /* the probe already read the schema */
	sqlite3_progress_handler(h, 1000, past_box, &deadline);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(first, sizeof(first), "%s",
			 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_progress_handler(h, 0, NULL, NULL);
	if (rc == SQLITE_INTERRUPT)
		return 0; /* too large to check in time: used unchecked */
	if (rc == SQLITE_ROW && strcmp(first, "ok") == 0)
		return 0;
	return ax_errf(err, errlen, AX_EDB,
		       "%s: the database is damaged (quick_check: %s); "
		       "axbench will not write to it and left it untouched: "
		       "recover what it holds with `sqlite3 %s .recover | "
		       "sqlite3 NEW.db` and pass --db NEW.db, or restore it "
		       "from a backup",
		       path, first[0] ? first : sqlite3_errstr(rc), path);
}

/* ---- private copy ----------------------------------------------------- */

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno == ENOENT ? 0 : -1;
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	char buf[1 << 16];
	ssize_t got = 0;
	int bad = out < 0;
	while (!bad && (got = read(in, buf, sizeof(buf))) > 0)
		bad = write(out, buf, (size_t)got) != got;
	int saved = errno;
	bad = bad || got < 0;
	close(in);
	if (out >= 0 && close(out) != 0)
		bad = 1;
	errno = saved;
	return bad ? -1 : 0;
}

/* dir/name, to be freed with sqlite3_free (NULL when out of memory). */
static char *join(const char *dir, const char *name)
{
	return sqlite3_mprintf("%s/%s", dir, name);
}

void ax_dbi_remove_copy(struct ax_db *db)
{
	static const char *const names[] = {"copy.db", "copy.db-wal",
					    "copy.db-shm", "copy.db-journal"};
	if (!db->copy_dir)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = join(db->copy_dir, names[i]);
		if (p)
			unlink(p);
		sqlite3_free(p);
	}
	rmdir(db->copy_dir);
	sqlite3_free(db->copy_dir);
	db->copy_dir = NULL;
}

/* Copy path and path-wal into a fresh temporary directory; *copy gets
 * the copied database's path (sqlite3_free it). */
static int copy_pair(struct ax_db *db, char **copy)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = join(tmp && *tmp ? tmp : "/tmp", "axbench-db-XXXXXX");
	char *wal = sqlite3_mprintf("%s-wal", db->path);
	*copy = NULL;
	if (!dir || !wal || !mkdtemp(dir)) {
		sqlite3_free(dir);
		sqlite3_free(wal);
		return -1;
	}
	db->copy_dir = dir;
	*copy = join(dir, "copy.db");
	char *copy_wal = join(dir, "copy.db-wal");
	int rc = *copy && copy_wal && copy_file(db->path, *copy) == 0 &&
			 copy_file(wal, copy_wal) == 0
		     ? 0
		     : -1;
	sqlite3_free(wal);
	sqlite3_free(copy_wal);
	return rc;
}

int ax_dbi_private_copy(struct ax_db *db, char *err, size_t errlen)
{
	char *copy = NULL;
	int rc = 0;
	if (copy_pair(db, &copy) != 0) {
		rc = ax_errf(err, errlen, AX_EDB,
			     "%s: cannot read it in place, and copying it to "
			     "a temporary directory failed (%s); free space "
			     "in $TMPDIR or open it where axbench may write",
			     db->path, strerror(errno));
		sqlite3_free(copy);
		return rc;
	}
	sqlite3_close(db->h);
	db->h = NULL;
	if (sqlite3_open_v2(copy, &db->h, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK)
		rc = ax_errf(err, errlen, AX_EDB, "%s: cannot open its copy %s",
			     db->path, copy);
	sqlite3_free(copy);
	return rc;
}
