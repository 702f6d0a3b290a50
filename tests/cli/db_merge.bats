#!/usr/bin/env bats
# axbench db merge / info / check (issue 16): the databases of several
# machines become one, matched on UUIDs and fingerprints, in one
# transaction; merging twice adds nothing; foreign, newer and damaged
# files are refused untouched.
load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	T="$BATS_TEST_TMPDIR"
	A="$T/a.db"
	B="$T/b.db"
	M="$T/m.db"
}

cnt() { sqlite3 "$1" "select count(*) from $2"; }

# Two machines' databases: runs, a tuning session, a baseline "main" in
# each (a name clash).
two() {
	"$AX" --db "$A" run bandwidth -p op=copy -p size=16K,64K "${FAST[@]}"
	"$AX" --db "$A" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	"$AX" --db "$A" tune bandwidth -p op=copy -p size=16K --budget 3 \
		--strategy random --seed 1 >/dev/null
	"$AX" --db "$A" baseline save main --runs 1
	"$AX" --db "$B" run bandwidth -p op=read -p size=16K "${FAST[@]}"
	"$AX" --db "$B" baseline save main --runs 1
}

@test "merge: every row of both, once; merging again adds nothing" {
	two
	run "$AX" db merge "$M" "$A" "$B"
	assert_success
	assert_output --partial "merged 2 databases into $M:"
	assert_output --partial 'baseline "main" was taken, so the merged one is named "b:main"'
	for t in run result sample tune_session trial; do
		want=$(($(cnt "$A" $t) + $(cnt "$B" $t)))
		[ "$(cnt "$M" $t)" = "$want" ] || { echo "$t"; false; }
	done
	# One machine: its host and device once.
	[ "$(cnt "$M" host)" = 1 ]
	[ "$(cnt "$M" device)" = 1 ]
	# References follow the rows: each result's run is the run of the
	# same UUID, each trial's result and session likewise.
	[ "$(sqlite3 "$M" "attach '$A' as a;
		select count(*) from result x join run r on r.id = x.run_id
		join a.result ax on ax.uuid = x.uuid
		join a.run ar on ar.id = ax.run_id where ar.uuid != r.uuid")" = 0 ]
	[ "$(sqlite3 "$M" "select count(*) from trial t
		join result x on x.id = t.result_id")" = "$(cnt "$A" trial)" ]
	[ "$(sqlite3 "$M" "select count(*) from tune_session
		where best_trial_id is null")" = \
	  "$(sqlite3 "$A" "select count(*) from tune_session
		where best_trial_id is null")" ]
	[ "$(sqlite3 "$M" "select name from baseline order by name" | tr '\n' ' ')" = "b:main main " ]
	run "$AX" --db "$M" db check
	assert_success
	assert_output --partial ': 10 checks, 0 problems'
	sum=$(sqlite3 "$M" "select count(*) || '/' || (select count(*) from sample) from result")
	run "$AX" db merge "$M" "$A" "$B"
	assert_success
	assert_output --partial ': 0 new runs, 0 results, 0 samples, 0 tuning sessions, 0 baselines; already there: 4 runs'
	[ "$(sqlite3 "$M" "select count(*) || '/' || (select count(*) from sample) from result")" = "$sum" ]
	# The report of the merged database names every run.
	run "$AX" --db "$M" report -o "$T/r.html"
	assert_success
	assert_output --partial "in 4 runs written to"
}

@test "merge --json and info --json follow their schemas" {
	two
	"$AX" --json db merge "$M" "$A" "$B" >"$T/m.json"
	python3 docs/json/check.py db_merge <"$T/m.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tables"]["run"] == {"added": 4, "skipped": 0}, d["tables"]["run"]
assert d["renamed_baselines"] == {"b:main": "main"}, d
assert d["bytes_before"] == 0 and d["bytes_after"] > 0, d' "$T/m.json"
	"$AX" --db "$M" --json db info >"$T/i.json"
	python3 docs/json/check.py db_info <"$T/i.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 9 and d["counts"]["run"] == 4, d
assert len(d["hosts"]) == 1 and d["hosts"][0]["runs"] == 4, d' "$T/i.json"
	"$AX" --db "$M" --json db check >"$T/c.json"
	python3 docs/json/check.py db_check <"$T/c.json"
	run "$AX" --db "$M" db info
	assert_success
	assert_output --regexp 'schema 9, [0-9]+ bytes'
	assert_output --regexp 'run +4'
}

@test "db info: two host rows of one machine whose memory changed read apart, and rows alike in text show their fingerprints" {
	"$AX" --db "$A" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	# The VM's memory halved (a new host row, as a run after the change
	# makes), then a third row differing only in its NUMA layout.
	sqlite3 "$A" "
	    INSERT INTO host (uuid, fingerprint, hostname, os, cpu_model, cores,
		numa_nodes, memory_bytes, topology_json, created_at)
	    SELECT uuid || '-2', 'f2' || fingerprint, hostname, os, cpu_model,
		cores, numa_nodes, memory_bytes / 2, topology_json, created_at
	    FROM host WHERE id = 1;
	    INSERT INTO host (uuid, fingerprint, hostname, os, cpu_model, cores,
		numa_nodes, memory_bytes, topology_json, created_at)
	    SELECT uuid || '-3', 'f3' || fingerprint, hostname, os, cpu_model,
		cores, 2, memory_bytes / 2, topology_json, created_at
	    FROM host WHERE id = 1;"
	run "$AX" --db "$A" db info
	assert_success
	[ "$(echo "$output" | grep -c '^host ')" -eq 3 ]
	# Every host line differs from every other.
	[ "$(echo "$output" | grep '^host ' | sed 's/: [0-9]* runs$//' |
		sort -u | wc -l)" -eq 3 ]
	echo "$output" | grep -Eq '^host [^ ]+ \(.*, [0-9]+ cores, [0-9.]+ GiB'
	# The first reads apart by its memory: no fingerprint on its line.
	first=$(echo "$output" | grep -m1 '^host ')
	[[ "$first" != *fingerprint* ]]
	assert_output --partial "[fingerprint f2"
	assert_output --partial "[fingerprint f3"
	"$AX" --db "$A" --json db info >"$T/i.json"
	python3 docs/json/check.py db_info <"$T/i.json"
	python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["hosts"]
assert h[0]["memory_bytes"] == 2 * h[1]["memory_bytes"] > 0, h
assert h[1]["fingerprint"].startswith("f2") and h[0]["os"], h' "$T/i.json"
}

@test "merge refuses a foreign, a newer and a missing input, untouched" {
	"$AX" --db "$A" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	sqlite3 "$T/other.db" "create table t(x); insert into t values (1)"
	cp "$A" "$T/new.db"
	sqlite3 "$T/new.db" "pragma user_version = 99"
	for bad in other new; do
		sum=$(sha256sum "$T/$bad.db")
		run "$AX" db merge "$M" "$A" "$T/$bad.db"
		assert_failure 5
		assert_output --partial "nothing was merged"
		[ "$(sha256sum "$T/$bad.db")" = "$sum" ]
		[ ! -e "$M" ]
	done
	run "$AX" db merge "$M" "$A" "$T/nope.db"
	assert_failure 2
	[ ! -e "$M" ]
	# An existing output that is not axbench's stays as it was.
	sum=$(sha256sum "$T/other.db")
	run "$AX" db merge "$T/other.db" "$A"
	assert_failure 5
	[ "$(sha256sum "$T/other.db")" = "$sum" ]
	# One file named twice.
	run "$AX" db merge "$A" "$A"
	assert_failure 2
	assert_output --partial "named twice (as the output and an input)"
	run "$AX" db merge "$M"
	assert_failure 2
}

@test "merge: Ctrl-C while it waits for the output's lock merges nothing (exit 130)" {
	"$AX" --db "$A" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	"$AX" --db "$M" run bandwidth -p op=read -p size=16K "${FAST[@]}"
	sum=$(sha256sum "$M")
	mkfifo "$T/hold"
	sqlite3 "$M" <"$T/hold" >"$T/held" &
	holder=$!
	exec 7>"$T/hold"
	echo "BEGIN IMMEDIATE; SELECT 'locked';" >&7
	for _ in $(seq 1500); do
		grep -q locked "$T/held" && break
		sleep 0.2
	done
	"$AX" db merge "$M" "$A" >"$T/out" 2>"$T/err" &
	pid=$!
	for _ in $(seq 1500); do
		grep -q "is locked by another process" "$T/err" && break
		sleep 0.2
	done
	grep -q "is locked by another process" "$T/err"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	exec 7>&-
	wait "$holder" || true
	cat "$T/err"
	[ "$rc" = 130 ]
	[ "$(sha256sum "$M")" = "$sum" ]
	[ "$(cnt "$M" run)" = 1 ]
}

@test "check: a result without its run is found (exit 5), named" {
	"$AX" --db "$A" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	sqlite3 "$A" "pragma foreign_keys = off; delete from run"
	run "$AX" --db "$A" db check
	assert_failure 5
	assert_output --partial "problem: every result has its run: result 1"
	assert_output --partial "fails"
	"$AX" --db "$A" --json db check >"$T/c.json" || true
	python3 docs/json/check.py db_check <"$T/c.json"
}
