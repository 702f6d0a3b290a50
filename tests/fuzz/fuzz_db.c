/*
 * tests/fuzz/fuzz_db.c - libFuzzer target for the database open path on
 * arbitrary file bytes.  Each input becomes a file, opened read-only and
 * then read-write with ax_db_open.  A refused file must be left
 * byte-for-byte as it was (no WAL switch, no migration, nothing written
 * to a -wal file); an accepted one must answer the read queries the
 * commands use.
 * Inputs start from real databases in the seed corpus, so mutations reach
 * SQLite's page parser and axbench's schema checks.
 */
#include "core/db.h"
#include "core/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], path[96], wal[104], shm[104];

static void init_paths(void)
{
	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "/tmp/ax-fuzz-db-%d", (int)getpid());
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/f.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	snprintf(shm, sizeof(shm), "%s-shm", path);
}

static int write_file(const uint8_t *data, size_t size)
{
	unlink(wal);
	unlink(shm);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t put = fwrite(data, 1, size, f);
	return fclose(f) == 0 && put == size ? 0 : -1;
}

/* 0 when the file still holds exactly data[0..size). */
static int same(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	uint8_t *buf = malloc(size + 1);
	size_t got = buf ? fread(buf, 1, size + 1, f) : 0;
	fclose(f);
	int rc = buf && got == size && memcmp(buf, data, size) == 0 ? 0 : -1;
	free(buf);
	return rc;
}

static void read_all(struct ax_db *db)
{
	json_t *j = NULL;
	struct ax_db_filter f = {.with_samples = true};
	int64_t id;
	if (ax_db_results(db, &f, &j) == 0)
		json_decref(j);
	if (ax_db_runs(db, &f, &j) == 0)
		json_decref(j);
	if (ax_db_sessions(db, &f, &j) == 0)
		json_decref(j);
	if (ax_db_baselines(db, &j) == 0)
		json_decref(j);
	ax_db_last_run(db, &id);
}

static void try_open(const uint8_t *data, size_t size, unsigned flags)
{
	struct ax_db *db = NULL;
	char err[1024];
	err[0] = '\0';
	/* Left by an earlier accepted open, not by this one. */
	unlink(wal);
	unlink(shm);
	int rc = ax_db_open(path, flags, &db, err, sizeof(err));
	if (rc != 0) {
		/* Refused: a message, and not one byte changed. */
		if (db || !err[0])
			__builtin_trap();
		if (size > 0 && same(data, size) != 0)
			__builtin_trap();
		/* SQLite's read-only probe of a WAL-mode file may leave an
		 * empty -wal (and a -shm index); nothing may be written
		 * into it. */
		struct stat sb;
		if (size > 0 && stat(wal, &sb) == 0 && sb.st_size != 0)
			__builtin_trap();
		return;
	}
	read_all(db);
	ax_db_close(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	init_paths();
	if (write_file(data, size))
		return 0;
	try_open(data, size, AX_DB_READONLY);
	/* The read-only open must not have written either. */
	if (size > 0 && same(data, size) != 0)
		__builtin_trap();
	try_open(data, size, 0);
	return 0;
}
