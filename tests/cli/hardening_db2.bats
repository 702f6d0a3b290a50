#!/usr/bin/env bats
# Hardening round two for databases, profiles and specs (issue 34, items
# 3, 4, 7, 8, 10, 11).  Real SQLite files made with axbench and the
# sqlite3 shell, real processes and signals; no fakes.

load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	T="$BATS_TEST_TMPDIR"
}

# A small real database: one verified result.
one_result() {
	"$AX" --db "${1:-$DB}" run bandwidth -p op=read -p size=4K \
		"${FAST[@]}" >/dev/null 2>&1
}

# $2 host rows whose UUID is 32 characters (a UUID without its dashes)
# added to database $1 behind axbench's back.
bad_uuid_hosts() {
	sqlite3 "$1" "with recursive n(i) as (select 1 union all
		select i + 1 from n where i < $2)
		insert into host (uuid, fingerprint, created_at)
		select lower(hex(randomblob(16))), 'fp-' || i, 'now' from n"
}

@test "db check counts every problem and lists the first 5 of each check" {
	one_result
	bad_uuid_hosts "$DB" 300
	run -5 "$AX" --db "$DB" db check
	assert_output --partial "every row's UUID is 36 characters: first 5 of 300 listed"
	assert_output --partial ": 10 checks, 300 problems"
	assert_output --partial "fails 1 check (300 problems)"
	[ "$(grep -c '^problem: ' <<<"$output")" = 5 ]
	run -5 --separate-stderr "$AX" --db "$DB" --json db check
	python3 docs/json/check.py db_check <<<"$output"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["problem_count"] == 300, d["problem_count"]
assert len(d["problems"]) == 5, d["problems"]
c = {x["check"]: x for x in d["counts"]}
u = c["every row'"'"'s UUID is 36 characters"]
assert u["found"] == 300 and u["listed"] == 5, u
assert sum(x["found"] for x in d["counts"]) == 300, d["counts"]
assert [x["check"] for x in d["counts"]] == d["checks"], d' "$output"
}

# A real database $1 large enough that merging it takes seconds: one
# measured result and $2 more host rows (whole UUIDs), made with sqlite3.
big_input() {
	one_result "$1"
	sqlite3 "$1" "with recursive n(i) as (select 1 union all
		select i + 1 from n where i < $2)
		insert into host (uuid, fingerprint, created_at)
		select lower(hex(randomblob(4)) || '-' || hex(randomblob(2))
			|| '-' || hex(randomblob(2)) || '-' || hex(randomblob(2))
			|| '-' || hex(randomblob(6))), 'fp-' || i, 'now' from n"
}

# Wait (up to 60 s) until directory $1 holds an entry (dot files too)
# whose name contains $2.
wait_entry() {
	for _ in $(seq 600); do
		ls -A "$1" | grep -qF "$2" && return 0
		sleep 0.1
	done
	echo "no $2 in $1 after 60 s" >&2
	return 1
}

@test "a killed merge into a new OUT leaves no OUT, only a named temporary, cleaned by the next merge" {
	big_input "$T/big.db" 400000
	mkdir "$T/out"
	"$AX" db merge "$T/out/new.db" "$T/big.db" >"$T/merge.log" 2>&1 &
	pid=$!
	# The output side appears (under whatever name) once the inputs
	# were checked; stop the merge there, mid-transaction.
	wait_entry "$T/out" new.db
	kill -STOP "$pid"
	ls -a "$T/out" >"$T/during"
	kill -KILL "$pid"
	wait "$pid" || true
	cat "$T/during"
	# While it ran and after it was killed: no new.db (nor its -wal,
	# -shm), only the temporary name with the merging process's id.
	run ! grep -E '^new\.db' "$T/during"
	grep -qx ".new.db.merging-$pid" "$T/during"
	[ ! -e "$T/out/new.db" ]
	[ -e "$T/out/.new.db.merging-$pid" ]
	# The next merge removes the dead process's leftover, says so, and
	# builds the whole output.
	run "$AX" db merge "$T/out/new.db" "$T/big.db"
	assert_success
	assert_output --partial "removed $T/out/.new.db.merging-$pid"
	[ "$(ls -a "$T/out" | grep -c merging)" = 0 ]
	[ "$(sqlite3 "$T/out/new.db" 'select count(*) from host')" = 400001 ]
	[ "$(sqlite3 "$T/out/new.db" 'select count(*) from run')" = 1 ]
}

@test "a merge into an existing OUT still writes OUT itself in one transaction" {
	one_result "$T/a.db"
	one_result "$T/b.db"
	run "$AX" db merge "$T/b.db" "$T/a.db"
	assert_success
	[ "$(sqlite3 "$T/b.db" 'select count(*) from run')" = 2 ]
	[ "$(ls -a "$T" | grep -c merging)" = 0 ]
}

# The entries of directory $1 (dot files too), one line.
entries() { ls -A "$1" | tr '\n' ' '; }

@test "a refused newer-schema WAL database gets no -wal or -shm beside it (run, db info, db merge)" {
	mkdir "$T/d"
	N="$T/d/n2.db"
	one_result "$N"
	sqlite3 "$N" "pragma user_version = 99"
	[ "$(sqlite3 "$N" 'pragma journal_mode')" = wal ]
	[ "$(entries "$T/d")" = "n2.db " ]
	cp "$N" "$T/n2.orig"
	run -5 "$AX" --db "$N" run bandwidth -p op=read -p size=4K "${FAST[@]}"
	assert_output --partial "written by a newer axbench (schema 99"
	[ "$(entries "$T/d")" = "n2.db " ]
	run -5 "$AX" --db "$N" db info
	[ "$(entries "$T/d")" = "n2.db " ]
	run -5 "$AX" db merge "$T/out.db" "$N"
	[ "$(entries "$T/d")" = "n2.db " ]
	[ ! -e "$T/out.db" ]
	cmp "$N" "$T/n2.orig"
}

@test "readers and db merge leave nothing beside the databases they only read" {
	mkdir "$T/d"
	A="$T/d/a.db"
	one_result "$A"
	[ "$(entries "$T/d")" = "a.db " ]
	cp "$A" "$T/a.orig"
	"$AX" --db "$A" results >/dev/null
	[ "$(entries "$T/d")" = "a.db " ]
	"$AX" --db "$A" db info >/dev/null
	"$AX" --db "$A" db check >/dev/null
	"$AX" --db "$A" report -o "$T/r.html" >/dev/null
	[ "$(entries "$T/d")" = "a.db " ]
	"$AX" db merge "$T/m.db" "$A" >/dev/null
	[ "$(entries "$T/d")" = "a.db " ]
	cmp "$A" "$T/a.orig"
	# A database another process has open keeps its -wal and -shm, and
	# that process's lock: a reader removes only what it made.
	(
		printf 'BEGIN IMMEDIATE;\nUPDATE host SET os = os;\n'
		sleep 3
		printf 'COMMIT;\n'
	) | sqlite3 "$A" &
	holder=$!
	for _ in $(seq 100); do
		[ -e "$A-shm" ] && break
		sleep 0.05
	done
	"$AX" --db "$A" results >/dev/null
	[ -e "$A-wal" ]
	[ -e "$A-shm" ]
	wait "$holder"
	[ "$(sqlite3 "$A" 'pragma integrity_check')" = ok ]
}

# Hold the write lock of database $1 until file $2 is removed (at most
# 60 s); returns once the lock is held.
hold_lock_until() {
	(
		printf 'BEGIN IMMEDIATE;\nUPDATE host SET os = os;\n'
		printf '.print held\n'
		for _ in $(seq 600); do
			[ -e "$2" ] || break
			sleep 0.1
		done
		printf 'COMMIT;\n'
	) | sqlite3 "$1" >"$T/holder.out" &
	for _ in $(seq 600); do
		grep -q held "$T/holder.out" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

@test "a write lock held by another process is exit 5 (busy), never 1, for db merge, db prune and baseline save" {
	one_result
	one_result
	one_result "$T/in.db"
	touch "$T/hold"
	hold_lock_until "$DB" "$T/hold"
	export AXBENCH_LOCK_WAIT=1
	run -5 "$AX" db merge "$DB" "$T/in.db"
	assert_output --partial "locked by another process"
	run -5 "$AX" --db "$DB" db prune --keep-last 1 --no-weekly --yes
	assert_output --partial "locked by another process"
	run -5 "$AX" --db "$DB" db prune --run 1 --yes
	assert_output --partial "locked by another process"
	run -5 "$AX" --db "$DB" baseline save main --run 1
	assert_output --partial "locked by another process"
	rm "$T/hold"
	wait
	# Nothing was written while it was held.
	[ "$(sqlite3 "$DB" 'select count(*) from run')" = 2 ]
	[ "$(sqlite3 "$DB" 'select count(*) from baseline')" = 0 ]
}

@test "fleet slurm parses the profile before writing or submitting anything (exit 2, FILE:LINE:COL)" {
	run -2 "$AX" fleet slurm -N 2 --profile /etc/passwd --dir "$T/f" --dry-run
	assert_output --partial "/etc/passwd:1:1: a profile is a mapping"
	refute_output --partial "--config '/etc/passwd'"
	[ ! -e "$T/f" ]
	printf 'schema: axbench.profile/v1\nsuites:\n  bandwidth:\n    params:\n      size: 4K\n      nosuch: 3\n' >"$T/bad.yaml"
	run -2 "$AX" fleet slurm -N 2 --profile "$T/bad.yaml" --dir "$T/f"
	assert_output --partial "$T/bad.yaml:6:7: "
	assert_output --partial "nosuch"
	[ ! -e "$T/f" ]
	# A valid profile still makes the scripts.
	run "$AX" fleet slurm -N 2 --profile tests/fixtures/fleet-tiny.yaml \
		--dir "$T/f" --dry-run
	assert_success
	# The script names the profile by its real path (tests/ may be a
	# link, as in make asan's tree).
	assert_output --partial "--config '$(realpath tests/fixtures/fleet-tiny.yaml)'"
	run "$AX" fleet slurm -N 2 --profile quick --dir "$T/f" --dry-run
	assert_success
}

# A copy of configs/ whose specs.yaml lists this machine's first device
# by its own PCI ids with the figure lines "$1" (made-up figures).
specs_for_this_device() {
	cfg=$T/configs
	rm -rf "$cfg"
	cp -rL configs "$cfg"
	"$AX" devices --json | FIGS="$1" python3 -c '
import json, os, sys
d = json.load(sys.stdin)[0]
print("""  - name: this test device
    vendor_id: %d
    device_ids: [%d]
%s
    source: tests/cli/hardening_db2.bats (made-up figures)""" % (d["vendor_id"], d["device_id"], os.environ["FIGS"]))' >>"$cfg/specs.yaml"
	export AXBENCH_CONFIG_DIR=$cfg
}

@test "specs.yaml figures outside a plausible range are refused, naming the range; %spec never overflows its column" {
	one_result
	specs_for_this_device "    memory_gbps: 1e-300"
	run -2 "$AX" --db "$DB" results
	assert_output --regexp "specs\.yaml:[0-9]+:18: memory_gbps must be a number from 0\.1 to 100000 \(GB/s\) \(got 1e-300\)"
	specs_for_this_device "    fp32_tflops: 1e9"
	run -2 "$AX" --db "$DB" results
	assert_output --partial "fp32_tflops must be a number from 0.0001 to 1000 (TFLOP/s) (got 1e9)"
	specs_for_this_device $'    fp16_tflops: 0\n    fp16_kind: dense'
	run -2 "$AX" --db "$DB" results
	assert_output --partial "fp16_tflops must be a number from 0.0001 to 20000 (TFLOP/s) (got 0)"
	# The lowest figure allowed: the %spec cell is still at most 7
	# characters, a percentage, and the status column follows it.
	specs_for_this_device "    memory_gbps: 0.1"
	run "$AX" --db "$DB" results
	assert_success
	echo "$output" | awk 'NR > 1 && $1 ~ /^[0-9]+$/ {
		c = $(NF - 1)
		if (length(c) > 7 || c !~ /^([0-9]+(\.[0-9])?%|>99999%)$/) exit 1
		if ($NF != "verified") exit 1 }'
}
