/*
 * core/db_owner.c - which process owns a run, and is it still alive?
 *
 * A run row says "running" from its first write to its last.  A process
 * killed in between (SIGKILL, a crash, a node lost) leaves it so forever.
 * Each run therefore records its owner: the process id, the kernel's boot
 * id and the process's start time in clock ticks after boot (field 22 of
 * /proc/PID/stat), which together name one process on one machine even
 * when pids are reused.  The SQL function ax_run_status(status, pid, boot,
 * start, hostname) shows such a run as "abandoned" to every reader when
 * its owner ran on this machine and is gone; the next writer stores that
 * verdict.  A run from another machine cannot be checked and keeps its
 * status.
 */
#include "core/db_internal.h"

#include "core/error.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct owner {
	int64_t pid;
	char boot[40];
	int64_t start;
	char host[256];
};

/* Start time of pid in clock ticks after boot, or -1 when it is gone. */
static int64_t process_start(int64_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name, field 2, may hold spaces and parentheses:
	 * fields are counted after its last ')'. */
	char *p = strrchr(buf, ')');
	long long start = -1;
	if (p && sscanf(p + 2,
			"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
			"%*d %*d %*d %*d %*d %*d %lld",
			&start) != 1)
		start = -1;
	return start;
}

static void read_boot_id(char *out, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	out[0] = '\0';
	if (f) {
		if (fgets(out, (int)len, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

/* This process, read once. */
static const struct owner *me(void)
{
	static struct owner o;
	if (!o.pid) {
		o.pid = getpid();
		read_boot_id(o.boot, sizeof(o.boot));
		o.start = process_start(o.pid);
		if (gethostname(o.host, sizeof(o.host) - 1) != 0)
			o.host[0] = '\0';
	}
	return &o;
}

/* Is the owner recorded as (pid, boot, start) on host gone?  Only a
 * process of this machine can be known to be gone. */
static bool owner_gone(int64_t pid, const char *boot, int64_t start,
		       const char *host)
{
	const struct owner *o = me();
	if (pid <= 0 || !boot || !host || !o->boot[0] || strcmp(host, o->host))
		return false;
	if (strcmp(boot, o->boot) != 0)
		return true; /* this machine rebooted since */
	return process_start(pid) != start;
}

/* ax_run_status(status, owner_pid, owner_boot, owner_start, hostname) */
static void run_status_fn(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
	const char *status = (const char *)sqlite3_value_text(v[0]);
	if (argc == 5 && status && strcmp(status, "running") == 0 &&
	    sqlite3_value_type(v[1]) == SQLITE_INTEGER &&
	    owner_gone(sqlite3_value_int64(v[1]),
		       (const char *)sqlite3_value_text(v[2]),
		       sqlite3_value_int64(v[3]),
		       (const char *)sqlite3_value_text(v[4])))
		status = "abandoned";
	if (status)
		sqlite3_result_text(ctx, status, -1, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

void ax_dbi_setup_connection(struct ax_db *db)
{
	sqlite3_busy_handler(db->h, ax_dbi_on_busy, db);
	sqlite3_create_function(db->h, "ax_run_status", 5,
				SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
				run_status_fn, NULL, NULL);
}

void ax_dbi_bind_owner(sqlite3_stmt *st, int first)
{
	const struct owner *o = me();
	sqlite3_bind_int64(st, first, o->pid);
	ax_dbi_bind_text(st, first + 1, o->boot[0] ? o->boot : NULL);
	sqlite3_bind_int64(st, first + 2, o->start);
}

void ax_dbi_mark_abandoned(struct ax_db *db)
{
	if (db->version < 2)
		return;
	/* Another writer's lock only delays this until the next open. */
	db->no_wait = true;
	sqlite3_exec(db->h,
		     "UPDATE run SET status = 'abandoned', finished_at = "
		     "coalesce(finished_at, " AX_NOW ") WHERE status = "
		     "'running' AND " AX_RUN_STATUS_SQL("run") " = 'abandoned'",
		     NULL, NULL, NULL);
	db->no_wait = false;
}

/* The run that owns a tuning session now, and is it alive (its status
 * as readers see it is "running")?  0 when none. */
static int session_owner(struct ax_db *db, int64_t session_id, int64_t *run,
			 int64_t *pid, bool *alive)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "SELECT s.owner_run_id, run.owner_pid, " AX_RUN_STATUS_SQL(
		"run") " = 'running' FROM tune_session s"
		       " LEFT JOIN run ON run.id = s.owner_run_id"
		       " WHERE s.id = ?",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, session_id);
	rc = sqlite3_step(st);
	*run = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	*pid = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
	*alive = rc == SQLITE_ROW && sqlite3_column_int(st, 2) == 1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ax_dbi_fail_sql(db, rc, "reading a tuning session");
	if (rc == SQLITE_DONE)
		return ax_dbi_fail(db, AX_ENOTFOUND,
				   "%s: no tuning session %" PRId64, db->path,
				   session_id);
	return 0;
}

/* AX_EBUSY naming the other run when a live run other than run_id owns
 * the session; 0 when it is free (or run_id's). */
static int refuse_if_owned(struct ax_db *db, int64_t session_id, int64_t run_id)
{
	int64_t owner = 0, pid = 0;
	bool alive = false;
	int rc = session_owner(db, session_id, &owner, &pid, &alive);
	if (rc || !owner || owner == run_id || !alive)
		return rc;
	return ax_dbi_fail(db, AX_EBUSY,
			   "tuning session %" PRId64 " is being continued by "
			   "run %" PRId64 " (process %" PRId64 "); wait for "
			   "it to end, or stop it first",
			   session_id, owner, pid);
}

int ax_db_session_claim(struct ax_db *db, int64_t session_id, int64_t run_id)
{
	if (run_id == 0) /* a look only: no write lock needed */
		return refuse_if_owned(db, session_id, 0);
	sqlite3_stmt *st = NULL;
	int rc = ax_dbi_begin(db);
	if (!rc)
		rc = refuse_if_owned(db, session_id, run_id);
	if (!rc)
		rc = ax_dbi_prepare(db,
				    "UPDATE tune_session SET owner_run_id = ?"
				    " WHERE id = ?",
				    &st);
	if (!rc) {
		ax_dbi_bind_id(st, 1, run_id);
		sqlite3_bind_int64(st, 2, session_id);
		rc = ax_dbi_step_done(db, st, NULL, "claiming a session");
	}
	if (!rc)
		rc = ax_dbi_commit(db);
	return rc ? ax_dbi_rollback(db, rc) : 0;
}
