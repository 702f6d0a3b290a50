/*
 * core/db_wait.c - waiting for another process's write lock (see
 * ax_db_set_lock_wait in core/db.h).
 *
 * SQLite's own busy timeout sleeps inside the library: it cannot be
 * stopped by Ctrl-C and says nothing while it waits.  This handler backs
 * off the same way but checks the stop flag between sleeps and tells the
 * caller, about every 5 s, how long it has waited and for how long it
 * will.  A write that gives up has written nothing (its transaction never
 * began), so the caller still holds what it meant to store.
 */
#include "core/db_internal.h"

#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#define SAY_EVERY_S 5.0

/* Process-wide, as the signal flag it watches is. */
static struct {
	double limit_s;
	const volatile int *stop;
	ax_db_wait_fn on_wait;
	void *ctx;
} wait_cfg = {AX_DB_LOCK_WAIT_S, NULL, NULL, NULL};
#define FIRST_SLEEP_MS 10
#define LONGEST_SLEEP_MS 1000

double ax_dbi_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int ax_dbi_on_busy(void *arg, int count)
{
	struct ax_db *db = arg;
	double now = ax_dbi_now();
	if (count == 0) {
		db->busy_since = now;
		db->busy_said = 0;
		db->stopped = false;
	}
	if (db->no_wait)
		return 0;
	if (wait_cfg.stop && *wait_cfg.stop) {
		db->stopped = true;
		return 0;
	}
	double waited = now - db->busy_since;
	double left = wait_cfg.limit_s - waited;
	if (left <= 0)
		return 0;
	if (wait_cfg.on_wait && waited - db->busy_said >= SAY_EVERY_S) {
		db->busy_said = waited;
		wait_cfg.on_wait(wait_cfg.ctx, db->path, waited,
				 wait_cfg.limit_s);
	}
	int ms = count < 7 ? FIRST_SLEEP_MS << count : LONGEST_SLEEP_MS;
	if (ms > LONGEST_SLEEP_MS)
		ms = LONGEST_SLEEP_MS;
	if (ms > left * 1000)
		ms = (int)(left * 1000) + 1;
	usleep((useconds_t)ms * 1000);
	return 1;
}

double ax_dbi_lock_wait_s(void) { return wait_cfg.limit_s; }

void ax_db_set_lock_wait(double limit_s, const volatile int *stop,
			 ax_db_wait_fn on_wait, void *ctx)
{
	wait_cfg.limit_s = limit_s >= 0 ? limit_s : AX_DB_LOCK_WAIT_S;
	wait_cfg.stop = stop;
	wait_cfg.on_wait = on_wait;
	wait_cfg.ctx = ctx;
}
