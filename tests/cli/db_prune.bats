#!/usr/bin/env bats
# axbench db prune: the retention policy (the newest N runs of each series
# and the newest of each ISO week before them), what it always keeps
# (baselines' runs, tuning sessions, running runs), --run, the dry run,
# --yes with VACUUM, and --json.  A year of CI history is made fast by
# copying one real run's rows with fresh UUIDs and chosen start times,
# as bench/load.sh does.
load helper

setup() { ax_setup; }

# One real run, run 1 ("seed"): 6 results of 100 samples each, so that
# removing a few copies frees whole pages.
seed_run() {
	"$AX" --db "$DB" -q run bandwidth -p op=read,copy -p size=4K..16K \
		--min-samples 100 --max-samples 100 --min-time 0 \
		--max-time 5 --warmup 1 --label seed >/dev/null
}

# SQL for a copy of run 1 as run $1 (its results and samples, fresh
# UUIDs), started at $2, with label $3 (SQL: 'text' or NULL) and config
# $4 (SQL; default run 1's).
copy_sql() {
	cat <<EOF
INSERT INTO run (id, uuid, host_id, device_id, started_at, finished_at,
		 status, axbench_version, git_sha, argv_json, config_json,
		 profile, label)
SELECT $1, lower(hex(randomblob(16))), host_id, device_id, '$2', '$2',
       status, axbench_version, git_sha, argv_json, ${4:-config_json},
       profile, $3
FROM run WHERE id = 1;
INSERT INTO result (uuid, run_id, suite, case_label, params_json,
		    params_hash, shader_hash, unit, higher_is_better, work,
		    timing_mode, stop_reason, status, error_text, n, median,
		    min, max, mean, stddev, q1, q3, mad, ci_lo, ci_hi,
		    rel_noise, extra_json, created_at)
SELECT lower(hex(randomblob(16))), $1, suite, case_label, params_json,
       params_hash, shader_hash, unit, higher_is_better, work, timing_mode,
       stop_reason, status, error_text, n, median, min, max, mean, stddev,
       q1, q3, mad, ci_lo, ci_hi, rel_noise, extra_json, created_at
FROM result WHERE run_id = 1 ORDER BY id;
INSERT INTO sample (uuid, result_id, idx, seconds, value)
SELECT lower(hex(randomblob(16))), r2.id, s.idx, s.seconds, s.value
FROM result r2
JOIN result r1 ON r1.run_id = 1 AND r1.case_label = r2.case_label
JOIN sample s ON s.result_id = r1.id
WHERE r2.run_id = $1;
EOF
}

# The history the policy tests read (ISO weeks of 2025 run Monday to
# Sunday; the 12th is a Sunday, the 13th a Monday):
#   series "ci" (kind run): 2-4 in W02 (4 late on Sunday), 5-6 in W03,
#     7 in W05, 8-13 in W06;
#   series host/device (label NULL): 14-18, all in W02;
#   series "ci" of kind recommend: 19, alone, in W01.
history() {
	seed_run
	{
		echo "BEGIN;"
		copy_sql 2 2025-01-06T08:00:00.000Z "'ci'"
		copy_sql 3 2025-01-08T08:00:00.000Z "'ci'"
		copy_sql 4 2025-01-12T23:30:00.000Z "'ci'"
		copy_sql 5 2025-01-13T00:30:00.000Z "'ci'"
		copy_sql 6 2025-01-15T08:00:00.000Z "'ci'"
		copy_sql 7 2025-01-27T08:00:00.000Z "'ci'"
		for d in 3 4 5 6 7 8; do
			copy_sql $((5 + d)) 2025-02-0${d}T08:00:00.000Z "'ci'"
		done
		for d in 6 7 8 9 10; do
			copy_sql $((8 + d)) "2025-01-$(printf %02d $d)T09:00:00.000Z" NULL
		done
		copy_sql 19 2025-01-01T08:00:00.000Z "'ci'" \
			"'{\"command\": \"recommend\"}'"
		echo "COMMIT;"
	} | sql
}

# "a b c": the ids in the --json document $1's removed.runs, sorted.
removed_ids() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(str(i) for i in sorted(d["removed"]["runs"])))' "$1"
}

runs_left() { sql "select group_concat(id, ' ') from (select id from run order by id)"; }

@test "db prune: the newest N of each series and the newest of each ISO week before them" {
	history
	"$AX" --db "$DB" --json db prune --keep-last 3 >"$BATS_TEST_TMPDIR/w.json"
	python3 docs/json/check.py db_prune <"$BATS_TEST_TMPDIR/w.json"
	# ci: 11-13 newest; W06's newest (13) is among them, so 8-10 go;
	# W05: 7; W03: 6, not 5; W02: 4 (Sunday 23:30 is still W02), not 2
	# or 3.  host/device: 16-18 newest, 14 and 15 go (same week).  The
	# recommend run is a series of its own: kept.
	[ "$(removed_ids "$BATS_TEST_TMPDIR/w.json")" = "2 3 5 8 9 10 14 15" ]
	python3 - "$BATS_TEST_TMPDIR/w.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dry_run"] is True and d["bytes_after"] is None, d
assert d["policy"] == {"mode": "retention", "keep_last": 3, "weekly": True,
                       "run_ids": None}, d["policy"]
assert d["kept"] == 11, d
by = d["kept_by"]
assert (by["last"], by["weekly"]) == (3 + 3 + 1 + 1, 3), by
assert d["removed"]["results"] == 8 * 6 and d["removed"]["samples"] == 8 * 600, d
EOF
	# --no-weekly: only the newest 3 of each series.
	"$AX" --db "$DB" --json db prune --keep-last 3 --no-weekly >"$BATS_TEST_TMPDIR/n.json"
	[ "$(removed_ids "$BATS_TEST_TMPDIR/n.json")" = "2 3 4 5 6 7 8 9 10 14 15" ]
	# The default keeps 30 a series: nothing here goes.
	run "$AX" --db "$DB" db prune
	assert_success
	assert_output --partial "would remove 0 runs"
}

@test "db prune: baselines' runs, tuning sessions and running runs are always kept" {
	history
	"$AX" --db "$DB" -q tune bandwidth -p op=copy -p size=4K --budget 3 \
		--retime 0 --label ci >/dev/null
	"$AX" --db "$DB" -q baseline save old --run 3
	"$AX" --db "$DB" -q baseline save pair --runs 8,9
	sql "update run set status = 'running' where id = 2"
	sql "update run set started_at = '2025-01-01T00:00:00.000Z' where id = 20"
	"$AX" --db "$DB" --json db prune --keep-last 1 --no-weekly >"$BATS_TEST_TMPDIR/p.json"
	# ci keeps 13 (newest), 2 (running), 3, 8, 9 (baselines); the tuning
	# run (20, label ci, kind tune) stays though it is the oldest.
	[ "$(removed_ids "$BATS_TEST_TMPDIR/p.json")" = "4 5 6 7 10 11 12 14 15 16 17" ]
	python3 - "$BATS_TEST_TMPDIR/p.json" <<'EOF'
import json, sys
by = json.load(open(sys.argv[1]))["kept_by"]
assert (by["baseline"], by["tune"], by["running"]) == (3, 1, 1), by
EOF
}

@test "db prune --run: a baseline's run is refused (exit 2), naming the baseline and the fix; nothing changes" {
	history
	"$AX" --db "$DB" -q baseline save main --runs 3,4
	"$AX" --db "$DB" -q tune bandwidth -p op=copy -p size=4K --budget 3 --retime 0 >/dev/null
	sql "update run set status = 'running' where id = 5"
	sum=$(sha256sum "$DB")
	run "$AX" --db "$DB" db prune --run 2 --run 4 --yes
	assert_failure 2
	assert_output --partial "run 4 is used by baseline 'main'"
	assert_output --partial "nothing was removed"
	assert_output --partial "axbench baseline save main --run ID"
	run "$AX" --db "$DB" db prune --run 20 --yes
	assert_failure 2
	assert_output --partial "run 20 is a tuning session's"
	run "$AX" --db "$DB" db prune --run 5 --yes
	assert_failure 2
	assert_output --partial "run 5 is still running"
	run "$AX" --db "$DB" db prune --run 99 --yes
	assert_failure 2
	assert_output --partial "--run 99 names no run"
	run "$AX" --db "$DB" db prune --run 2 --keep-last 3
	assert_failure 2
	assert_output --partial "give --run or the policy's options, not both"
	run "$AX" --db "$DB" db prune --run x
	assert_failure 2
	assert_output --partial "--run 'x' is not a run id"
	[ "$(sha256sum "$DB")" = "$sum" ]
	[ "$(sql 'select count(*) from run')" = 20 ]
	# The runs named and free to go, exactly those.
	run "$AX" --db "$DB" --json db prune --run 2 --run 6 --yes
	assert_success
	[ "$(echo "$output" | python3 -c 'import json,sys; print(json.load(sys.stdin)["removed"]["runs"])')" = "[2, 6]" ]
	[ "$(sql 'select count(*) from run where id in (2, 6)')" = 0 ]
	[ "$(sql 'select count(*) from run')" = 18 ]
}

@test "db prune: a dry run changes nothing; --yes removes runs, results and samples, and VACUUM shrinks the file" {
	history
	sum=$(sha256sum "$DB")
	run "$AX" --db "$DB" db prune --keep-last 3
	assert_success
	assert_line --regexp '^       2  2025-01-06 08:00:00  run +ci$'
	assert_output --partial "would remove 8 runs, 48 results, 4800 samples"
	assert_output --partial "nothing was removed; pass --yes to remove them"
	[ "$(sha256sum "$DB")" = "$sum" ]
	samples=$(sql "select count(*) from sample")
	bytes=$(stat -c %s "$DB")
	run "$AX" --db "$DB" db prune --keep-last 3 --yes
	assert_success
	assert_output --partial "removed 8 runs, 48 results, 4800 samples"
	assert_output --regexp "bytes before, [0-9]+ bytes after VACUUM"
	[ "$(runs_left)" = "1 4 6 7 11 12 13 16 17 18 19" ]
	[ "$(sql 'select count(*) from result where run_id in (2,3,5,8,9,10,14,15)')" = 0 ]
	[ "$(sql 'select count(*) from result')" = $((11 * 6)) ]
	[ "$(sql 'select count(*) from sample')" = $((samples - 4800)) ]
	# No orphans: every sample has its result, every result its run.
	[ "$(sql 'select count(*) from sample where result_id not in (select id from result)')" = 0 ]
	[ "$(sql 'pragma foreign_key_check')" = "" ]
	[ "$(stat -c %s "$DB")" -lt "$bytes" ]
	[ ! -s "$DB-wal" ]
	# Again: nothing more to remove, and nothing is written.
	sum=$(sha256sum "$DB")
	run "$AX" --db "$DB" db prune --keep-last 3 --yes
	assert_success
	assert_output --partial "removed 0 runs"
	[ "$(sha256sum "$DB")" = "$sum" ]
}

@test "db prune --json: one document its schema accepts, dry run and --yes" {
	history
	"$AX" --db "$DB" --json db prune --keep-last 2 >"$BATS_TEST_TMPDIR/d.json"
	python3 docs/json/check.py db_prune <"$BATS_TEST_TMPDIR/d.json"
	"$AX" --db "$DB" --json db prune --keep-last 2 --yes >"$BATS_TEST_TMPDIR/y.json"
	python3 docs/json/check.py db_prune <"$BATS_TEST_TMPDIR/y.json"
	python3 - "$BATS_TEST_TMPDIR/d.json" "$BATS_TEST_TMPDIR/y.json" <<'EOF'
import json, sys
d, y = (json.load(open(p)) for p in sys.argv[1:])
assert d["dry_run"] is True and y["dry_run"] is False
assert d["removed"] == y["removed"], (d["removed"], y["removed"])
assert y["bytes_after"] < y["bytes_before"], y
EOF
}

@test "db prune: --keep-last 0, negative or not a number is exit 2 naming the option and the rule" {
	seed_run
	sum=$(sha256sum "$DB")
	for v in 0 -3 x 2.5; do
		run "$AX" --db "$DB" db prune --keep-last "$v" --yes
		assert_failure 2
		assert_output --partial "--keep-last must be an integer from 1 to 1000000 (got '$v')"
	done
	[ "$(sha256sum "$DB")" = "$sum" ]
	run "$AX" --db "$DB" db prune extra
	assert_failure 2
	assert_output --partial "takes no arguments"
	run "$AX" --db "$DB" db prnue
	assert_failure 2
	assert_output --partial "did you mean 'prune'?"
	run "$AX" --db "$DB" db
	assert_failure 2
	assert_output --partial "give a subcommand"
}

@test "db prune: a missing database is not created, a foreign one is refused untouched" {
	run "$AX" --db "$BATS_TEST_TMPDIR/none.db" db prune --yes
	assert_failure 2
	[ ! -e "$BATS_TEST_TMPDIR/none.db" ]
	sqlite3 "$BATS_TEST_TMPDIR/other.db" "create table t(x); insert into t values (1)"
	sum=$(sha256sum "$BATS_TEST_TMPDIR/other.db")
	run "$AX" --db "$BATS_TEST_TMPDIR/other.db" db prune --yes
	assert_failure 5
	assert_output --partial "not axbench's"
	[ "$(sha256sum "$BATS_TEST_TMPDIR/other.db")" = "$sum" ]
}

@test "db prune --yes: Ctrl-C while it waits for another writer's lock removes nothing (exit 130)" {
	history
	sum=$(sha256sum "$DB")
	# Another writer holds the lock until its input closes.
	mkfifo "$BATS_TEST_TMPDIR/hold"
	sqlite3 "$DB" <"$BATS_TEST_TMPDIR/hold" >"$BATS_TEST_TMPDIR/held" &
	holder=$!
	exec 7>"$BATS_TEST_TMPDIR/hold"
	echo "BEGIN IMMEDIATE; SELECT 'locked';" >&7
	for _ in $(seq 1500); do
		grep -q locked "$BATS_TEST_TMPDIR/held" && break
		sleep 0.2
	done
	grep -q locked "$BATS_TEST_TMPDIR/held"
	"$AX" --db "$DB" db prune --keep-last 3 --yes \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	for _ in $(seq 1500); do
		grep -q "is locked by another process" "$BATS_TEST_TMPDIR/err" && break
		sleep 0.2
	done
	grep -q "is locked by another process" "$BATS_TEST_TMPDIR/err"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	exec 7>&-
	wait "$holder" || true
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" = 130 ]
	[ "$(sha256sum "$DB")" = "$sum" ]
	[ "$(sql 'select count(*) from run')" = 19 ]
}
