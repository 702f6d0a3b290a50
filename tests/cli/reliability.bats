#!/usr/bin/env bats
# Faults: signals, SIGKILL, concurrent writers, read-only and full storage,
# fence timeouts and shapes the device cannot hold.  Each test states the
# promise of docs/RELIABILITY.md it proves.  Figures are never checked;
# every wait is bounded by a poll on the database, not a fixed sleep.
load helper

setup() { ax_setup; }

# 18 cases of at least 1 s each on any machine (--min-time): after the
# second result the run has 16 s or more to go, so the signal always
# lands mid-run; a missed signal still fails the test within a minute.
SLOW=(bandwidth -p size=4K..1M -p op=read,copy --min-samples 3
      --max-samples 100000 --min-time 1 --max-time 1 --max-noise 0.001
      --warmup 1)



# Every stored result has exactly its n samples: a result and its samples
# are committed together or not at all.
assert_results_whole() {
	local bad
	bad=$(sqlite3 "$1" 'select count(*) from result r where r.n !=
		(select count(*) from sample s where s.result_id = r.id)')
	[ "$bad" = 0 ]
}

# Start the slow run in the background, signal it after two results.
interrupt_run() {
	"$AX" --db "$DB" run "${SLOW[@]}" >"$BATS_TEST_TMPDIR/out" \
		2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_results "$DB" 2
	before=$(n_results "$DB")
	kill "-$1" "$pid"
	rc=0
	wait "$pid" || rc=$?
}

# $1: the exit status the signal gives (130 SIGINT, 143 SIGTERM).
check_interrupted() {
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq "$1" ]
	kept=$(sql 'select count(*) from result')
	[ "$kept" -ge 2 ]
	[ "$kept" -lt 18 ]
	[ "$(sql 'pragma integrity_check')" = ok ]
	[ "$(sql 'select status from run')" = interrupted ]
	[ -n "$(sql 'select finished_at from run')" ]
	assert_results_whole "$DB"
	grep -q interrupted "$BATS_TEST_TMPDIR/err"
}

@test "SIGINT during run: exit 130, results so far kept, run interrupted" {
	interrupt_run INT
	check_interrupted 130
}

@test "SIGTERM during run: exit 143, results so far kept, run interrupted" {
	interrupt_run TERM
	check_interrupted 143
}

@test "SIGTERM during tune: exit 143, trials kept, session interrupted" {
	"$AX" --db "$DB" tune bandwidth -p op=copy -p size=256K --budget 200 \
		--strategy grid >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_trials 2
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	[ "$(sql 'select count(*) from trial')" -ge 2 ]
	[ "$(sql 'pragma integrity_check')" = ok ]
	[ "$(sql 'select stop_reason from tune_session')" = interrupted ]
	[ "$(sql 'select status from run')" = interrupted ]
}

@test "SIGKILL mid-run: the database opens and holds every committed result" {
	interrupt_run KILL
	[ "$rc" -eq 137 ]
	# What a reader saw committed just before the kill must survive it.
	[ "$before" -ge 2 ]
	[ "$(sql 'pragma integrity_check')" = ok ]
	[ "$(sql 'select count(*) from result')" -ge "$before" ]
	assert_results_whole "$DB"
	# A killed run cannot mark itself: it stays "running" (known gap).
	[ "$(sql 'select status from run')" = running ]
	# axbench itself reads and writes the file afterwards.
	run "$AX" --db "$DB" results --json
	assert_success
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read "${FAST[@]}"
	assert_success
	[ "$(sql 'select count(*) from run')" = 2 ]
}

@test "two runs writing one database at once: every result of both is there" {
	local args=(bandwidth -p size=4K..64K -p op=read,copy --min-samples 3
		    --max-samples 20 --min-time 0.05 --max-time 0.1 --warmup 1)
	# Both start on a database that does not exist yet: creation and
	# migration race too.
	"$AX" --db "$DB" run "${args[@]}" >"$BATS_TEST_TMPDIR/a" 2>&1 &
	a=$!
	"$AX" --db "$DB" run "${args[@]}" >"$BATS_TEST_TMPDIR/b" 2>&1 &
	b=$!
	ra=0 rb=0
	wait "$a" || ra=$?
	wait "$b" || rb=$?
	cat "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	[ "$ra" -eq 0 ]
	[ "$rb" -eq 0 ]
	[ "$(sql 'select count(*) from run where status = "complete"')" = 2 ]
	[ "$(sql 'select count(distinct run_id) from result')" = 2 ]
	[ "$(sql 'select count(*) from result group by run_id' | sort -u)" = 10 ]
	[ "$(sql 'pragma integrity_check')" = ok ]
	assert_results_whole "$DB"
	[ "$(sql 'select count(*) from device')" = 1 ]
	[ "$(sql 'select count(*) from host')" = 1 ]
}

# A private mount namespace where a tmpfs can be mounted (in_ns and
# need_mount, helper.bash): as root, or as a user through an unprivileged
# user namespace.  Skips where neither works.
@test "read-only database directory: clear error, exit 5, nothing written" {
	need_mount
	mkdir -p "$BATS_TEST_TMPDIR/ro"
	export AX BATS_TEST_TMPDIR
	run in_ns 'mount -t tmpfs -o size=1m tmpfs "$BATS_TEST_TMPDIR/ro" &&
		mount -o remount,ro "$BATS_TEST_TMPDIR/ro" &&
		"$AX" --db "$BATS_TEST_TMPDIR/ro/ax.db" run bandwidth \
			-p size=4K -p op=read --max-samples 3 --min-samples 3
		rc=$?; echo "files=[$(ls -A "$BATS_TEST_TMPDIR/ro")]"; exit $rc'
	assert_failure 5
	assert_output --partial "ro/ax.db: cannot create the database"
	assert_output --partial "is not writable"
	assert_line "files=[]"
}

# Run as an unprivileged user: root ignores file modes.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || skip "no setpriv"
		[ "$1" = "$AX" ] || return 2
		shift
		NOBODY_HOME=$RO as_nobody "$@"
	else
		"$@"
	fi
}

@test "read-only database file: clear error, exit 5, file unchanged" {
	# Outside BATS_TEST_TMPDIR (mode 700), so that "nobody" reaches it.
	RO=$(mktemp -d /tmp/axbench-ro.XXXXXX)
	run "$AX" --db "$RO/ax.db" run bandwidth -p size=4K -p op=read \
		"${FAST[@]}"
	assert_success
	chmod 444 "$RO/ax.db"
	chmod 777 "$RO"
	sum=$(sha256sum <"$RO/ax.db")
	run as_user "$AX" --db "$RO/ax.db" run bandwidth -p size=4K \
		-p op=read "${FAST[@]}"
	assert_failure 5
	assert_output --partial "ax.db is not writable; fix its permissions"
	# Reading still works.
	run as_user "$AX" --db "$RO/ax.db" results
	assert_success
	assert_output --partial "op=read size=4K"
	[ "$(sha256sum <"$RO/ax.db")" = "$sum" ]
	rm -rf "$RO"
}

@test "database on read-only media: writing refused with exit 5, file unchanged" {
	need_mount
	mkdir -p "$BATS_TEST_TMPDIR/ro"
	export AX BATS_TEST_TMPDIR FASTS="${FAST[*]}"
	run in_ns 'd="$BATS_TEST_TMPDIR/ro"
		mount -t tmpfs -o size=8m tmpfs "$d" || exit 99
		"$AX" --db "$d/ax.db" run bandwidth -p size=4K -p op=read \
			$FASTS >/dev/null 2>&1 || exit 98
		sum=$(sha256sum <"$d/ax.db")
		mount -o remount,ro "$d" || exit 97
		"$AX" --db "$d/ax.db" run bandwidth -p size=4K -p op=read \
			$FASTS; echo "rc=$?"
		[ "$(sha256sum <"$d/ax.db")" = "$sum" ] && echo unchanged'
	assert_success
	assert_line "rc=5"
	assert_output --regexp "ro/ax.db(:| is not writable)"
	assert_line "unchanged"
}

@test "database on read-only media can be read (results)" {
	need_mount
	mkdir -p "$BATS_TEST_TMPDIR/ro"
	export AX BATS_TEST_TMPDIR FASTS="${FAST[*]}"
	run in_ns 'd="$BATS_TEST_TMPDIR/ro"
		mount -t tmpfs -o size=8m tmpfs "$d" || exit 99
		"$AX" --db "$d/ax.db" run bandwidth -p size=4K -p op=read \
			$FASTS >/dev/null 2>&1 || exit 98
		mount -o remount,ro "$d" || exit 97
		"$AX" --db "$d/ax.db" results'
	assert_success
	assert_output --partial "op=read size=4K"
}

@test "full location: clear error, exit 5, committed results intact" {
	need_mount
	mkdir -p "$BATS_TEST_TMPDIR/full"
	export AX BATS_TEST_TMPDIR
	# Many samples per result so that the 1 MiB tmpfs fills mid-run: a
	# result of 1500 samples takes about 300 KiB (its rows and the
	# indexes over them), so one or a few are stored first.  At 512 KiB
	# schema 7 left room for none.
	run in_ns 'd="$BATS_TEST_TMPDIR/full"
		mount -t tmpfs -o size=1m tmpfs "$d" || exit 99
		"$AX" --db "$d/ax.db" run bandwidth -p size=4K..64K \
			-p op=read,copy --min-samples 1500 --max-samples 1500 \
			--min-time 0 --max-time 100 --max-noise 0.001 \
			--warmup 0; echo "rc=$?"
		echo "check=$(sqlite3 "$d/ax.db" "pragma integrity_check")"
		echo "stored=$(sqlite3 "$d/ax.db" "select count(*) from result")"
		echo "whole=$(sqlite3 "$d/ax.db" "select count(*) from result r
			where r.n != (select count(*) from sample s
			where s.result_id = r.id)")"'
	assert_line "rc=5"
	assert_output --regexp "storing the result: .*ax.db: (database or disk is full|disk I/O error)"
	assert_line "check=ok"
	assert_line "whole=0"
	stored=$(echo "$output" | sed -n 's/^stored=//p')
	[ "$stored" -ge 1 ]
	[ "$stored" -lt 10 ]
}

# Fence timeouts are caused with AXBENCH_TEST_STALL (suites/stall.h,
# test-only): the named case's first timed submission waits for an event
# only the host sets, so it times out on any machine under any load.  The
# other cases get a timeout they cannot miss: their samples last about
# 2 ms, and warm-up submissions wait at least 60 s.

@test "fence timeout: case failed as timeout with reason, the run goes on, exit 1" {
	# Released as soon as the wait timed out: work that merely overran,
	# so the device stays usable for the other cases.
	AXBENCH_TEST_STALL=1 run "$AX" --db "$DB" run bandwidth \
		-p size=64K,4K -p op=copy,read --timeout 3 "${FAST[@]}"
	assert_failure 1
	assert_output --partial "did not finish within 3 s (fence timeout)"
	refute_output --partial "new logical device"
	[ "$(sql "select status from result where case_label = 'op=copy size=64K'")" = timeout ]
	[ "$(sql "select error_text from result where status = 'timeout'")" = \
	  "the GPU work did not finish within 3 s (fence timeout) [stall injected by AXBENCH_TEST_STALL, test-only]" ]
	[ "$(sql "select count(*) from result where status = 'ok'")" = 3 ]
	[ "$(sql 'select count(*) from result')" = 4 ]
	[ "$(sql 'pragma integrity_check')" = ok ]
	[ "$(sql 'select status, finished_at is not null from run')" = "complete|1" ]
}

@test "a device that stays hung: the run goes on with a new logical device" {
	# Held past the grace period (10 x 0.5 s): the old context is left
	# alone and the next cases run on a new one.
	AXBENCH_TEST_STALL=2:hold run "$AX" --db "$DB" run bandwidth \
		-p size=64K,4K -p op=copy,read --timeout 0.5 "${FAST[@]}"
	assert_failure 1
	assert_output --partial "going on with a new logical device (1 of at most 3)"
	[ "$(sql "select status from result where case_label = 'op=read size=64K'")" = timeout ]
	[ "$(sql "select count(*) from result where status = 'ok'")" = 3 ]
	[ "$(sql 'select count(*) from result')" = 4 ]
}

@test "a device that keeps hanging: three new devices, then the rest skipped with the reason" {
	# Every case stalls past its grace period (10 x 0.2 s = 2 s): after
	# the third replacement the remaining cases are not attempted.
	AXBENCH_TEST_STALL=1,2,3,4:hold run "$AX" --db "$DB" run bandwidth \
		-p size=4K,8K,16K,32K,64K -p op=read --timeout 0.2 "${FAST[@]}"
	assert_failure 1
	assert_output --partial "(3 of at most 3)"
	refute_output --partial "(4 of at most 3)"
	[ "$(sql "select count(*) from result where status = 'timeout'")" = 4 ]
	[ "$(sql "select status, error_text from result where case_label = 'op=read size=64K'")" = \
	  "skipped|the device was lost by an earlier case (a timeout or device loss)" ]
	[ "$(sql 'select count(*) from result')" = 5 ]
}

@test "AXBENCH_TEST_STALL that is malformed names itself and the fix" {
	AXBENCH_TEST_STALL=first run "$AX" --db "$DB" run bandwidth \
		-p size=4K -p op=read "${FAST[@]}"
	assert_failure 1
	assert_output --partial "AXBENCH_TEST_STALL=first: expected case numbers"
	assert_output --partial "unset it to measure normally"
}

@test "huge shape: clear error naming the size and the device limit, exit 2" {
	run "$AX" --db "$DB" run bandwidth -p size=1G -p op=read
	assert_failure 2
	assert_output --regexp "1073741824.*maxStorageBufferRange [0-9]+"
	run "$AX" --db "$DB" run gemm -p m=1048576 -p n=1048576 -p k=1048576
	assert_failure 2
	assert_output --regexp "A needs 4398046511104 bytes, over maxStorageBufferRange"
	run "$AX" --db "$DB" run transfer -p total=1G -p chunk=256M -p inflight=4
	assert_failure 2
	assert_output --regexp "need [0-9]+ bytes of memory heap 0"
	# Refused before anything was stored.
	[ ! -e "$DB" ] || [ "$(sql 'select count(*) from result')" = 0 ]
}

@test "a database that is not SQLite is refused and left byte-for-byte" {
	head -c 65536 /dev/urandom >"$DB"
	sum=$(sha256sum <"$DB")
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read "${FAST[@]}"
	assert_failure 5
	assert_output --partial "is not an SQLite database"
	run "$AX" --db "$DB" results
	assert_failure 5
	[ "$(sha256sum <"$DB")" = "$sum" ]
	[ ! -e "$DB-wal" ]
	[ ! -e "$DB-shm" ]
}

@test "a database from a newer axbench is refused, not damaged" {
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read "${FAST[@]}"
	assert_success
	sql 'pragma user_version = 99'
	sum=$(sha256sum <"$DB")
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read "${FAST[@]}"
	assert_failure 5
	assert_output --partial "written by a newer axbench (schema 99"
	[ "$(sha256sum <"$DB")" = "$sum" ]
}

@test "fuzz regression: a corrupt WAL-mode database is refused, nothing written" {
	# Found by tests/fuzz/fuzz_db.c: SQLite's read-only probe of a
	# WAL-mode file creates an empty -wal and a -shm beside it; the
	# database itself and the WAL content must stay untouched.
	cp tests/fuzz/corpus/db/regress-corrupt-wal.db "$DB"
	sum=$(sha256sum <"$DB")
	run "$AX" --db "$DB" results
	assert_failure 5
	assert_output --partial "the database is corrupt"
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read "${FAST[@]}"
	assert_failure 5
	[ "$(sha256sum <"$DB")" = "$sum" ]
	[ ! -s "$DB-wal" ]
}

@test "fuzz regression: another program's SQLite database is refused untouched" {
	sqlite3 "$DB" "create table notes(x); insert into notes values (1);"
	before=$(sha256sum "$DB")
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read "${FAST[@]}"
	assert_failure 5
	assert_output --partial "not axbench's"
	[ "$(sha256sum "$DB")" = "$before" ]
	[ "$(sqlite3 "$DB" 'select count(*) from sqlite_schema')" = 1 ]
}

@test "fuzz regression: a negative schema version is refused, never migrated" {
	sqlite3 "$DB" "pragma user_version = -100728831;"
	before=$(sha256sum "$DB")
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read "${FAST[@]}"
	assert_failure 5
	assert_output --partial "schema version -100728831"
	[ "$(sha256sum "$DB")" = "$before" ]
}
