#!/usr/bin/env bats
# Output files and standard output under faults and hostile names (issue
# 11): temporary files made with mkstemp, never through a planted link;
# full disks and closed pipes; escapes of stored text on the terminal;
# invalid UTF-8 in stored text; Ctrl-C in the long readers.
#
# /dev/full is the documented stand-in for a full disk where a real one
# (a small tmpfs, which needs a mount namespace) is not at hand.

load helper

# One real run, made once; each test copies it.
setup_file() {
	cd "$BATS_TEST_DIRNAME/../.." || return 1
	export HOME="$BATS_FILE_TMPDIR" XDG_CACHE_HOME="$BATS_FILE_TMPDIR/cache"
	export AXBENCH_VALIDATE=1
	./axbench --db "$BATS_FILE_TMPDIR/base.db" run bandwidth -p op=copy \
		-p size=64K,256K --min-samples 3 --max-samples 5 --min-time 0 \
		--max-time 0.5 --warmup 1 >/dev/null
}

setup() {
	ax_setup
	cp "$BATS_FILE_TMPDIR/base.db" "$DB"
}

# Run "$@" with stdout a pipe whose reader is already closed (SIGPIPE at
# its default, as under a shell): deterministic, unlike `| head -1`.
closed_stdout() {
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
rc = subprocess.call(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL)
print("rc=%d" % rc)' "$@"
}

# axbench with its stdout on /dev/full.
to_full() { "$AX" --db "$DB" "$@" >/dev/full; }

# Files in directory $1, one a line (hidden ones too), sorted.
files_in() { (cd "$1" && ls -A | sort); }

# in_ns and need_mount (helper.bash): a private mount namespace where a
# tmpfs can be mounted; skips where that is not possible.

# ---- item 3: a closed pipe on stdout ---------------------------------

@test "run | head -1: the run goes on, every case is stored, the run row is complete" {
	export AX DB
	run bash -c '"$AX" --db "$DB" run bandwidth -p op=copy \
		-p size=64K,128K,256K,512K,1M -p wg=64,256 \
		--min-samples 3 --max-samples 5 --min-time 0 --max-time 0.5 \
		--warmup 1 2>/dev/null | head -1; echo "rc=${PIPESTATUS[0]}"'
	assert_line --index 0 --regexp '^suite +case'
	assert_line "rc=0"
	[ "$(sql 'select count(*) from result where run_id = 2')" = 10 ]
	[ "$(sql 'select status from run where id = 2')" = complete ]
	[ "$(sql 'select finished_at is not null from run where id = 2')" = 1 ]
}

@test "stdout a pipe closed before the start: run measures everything, finishes its row, exit 0" {
	run closed_stdout "$AX" --db "$DB" run bandwidth -p op=copy \
		-p size=64K,256K -p wg=64,256 "${FAST[@]}"
	assert_line "rc=0"
	[ "$(sql 'select count(*) from result where run_id = 2')" = 4 ]
	[ "$(sql 'select status from run where id = 2')" = complete ]
	run closed_stdout "$AX" --db "$DB" --json run bandwidth -p op=copy \
		-p size=64K "${FAST[@]}"
	assert_line "rc=0"
	[ "$(sql 'select status from run where id = 3')" = complete ]
}

@test "a reader that went away is not an error for the readers (exit 0, nothing said)" {
	for cmd in "results --samples" devices suites "compare 1 1" export; do
		# shellcheck disable=SC2086
		run closed_stdout "$AX" --db "$DB" $cmd
		echo "$cmd: $output"
		assert_output "rc=0"
	done
}

# ---- item 9: a full stdout ----------------------------------------------

@test "stdout on a full disk (/dev/full): exit 5 naming the reason, for every printing command" {
	for cmd in results devices suites "baseline list" "compare 1 1" \
		export recommend "help" "--help"; do
		# shellcheck disable=SC2086
		run to_full $cmd
		echo "$cmd: $status $output"
		[ "$status" -eq 5 ]
		assert_output --partial \
			"writing standard output failed: No space left on device"
	done
	"$AX" --db "$DB" baseline save b1 --run 1 >/dev/null
	run to_full baseline list
	[ "$status" -eq 5 ]
	# run measures and stores everything first: only the table is lost.
	run to_full run bandwidth -p op=copy -p size=64K,256K "${FAST[@]}"
	[ "$status" -eq 5 ]
	assert_output --partial "writing standard output failed: No space left on device"
	[ "$(sql 'select count(*) from result where run_id = 2')" = 2 ]
	[ "$(sql 'select status from run where id = 2')" = complete ]
}

# ---- item 7: the temporary file --------------------------------------

@test "report/export/recommend -o F: a link planted at F.tmp is not followed, an existing F.tmp is kept" {
	d="$BATS_TEST_TMPDIR/out"
	mkdir "$d"
	echo precious >"$d/victim"
	for cmd in report export recommend; do
		ln -s victim "$d/$cmd.out.tmp"
		run "$AX" --db "$DB" $cmd -o "$d/$cmd.out"
		assert_success
		[ -s "$d/$cmd.out" ]
		[ ! -L "$d/$cmd.out" ]
		[ "$(readlink "$d/$cmd.out.tmp")" = victim ]
	done
	[ "$(cat "$d/victim")" = precious ]
	echo "someone's file" >"$d/keep.tmp"
	run "$AX" --db "$DB" export -o "$d/keep"
	assert_success
	[ "$(cat "$d/keep.tmp")" = "someone's file" ]
	# Nothing else was left behind: no temporary file of ours.
	run files_in "$d"
	assert_output "$(printf '%s\n' export.out export.out.tmp keep keep.tmp \
		recommend.out recommend.out.tmp report.out report.out.tmp victim)"
}

@test "-o F keeps F's permissions; a new F gets 0666 less the umask" {
	f="$BATS_TEST_TMPDIR/r.html"
	(umask 027 && "$AX" --db "$DB" report -o "$f" 2>/dev/null)
	[ "$(stat -c %a "$f")" = 640 ]
	chmod 604 "$f"
	"$AX" --db "$DB" report -o "$f" 2>/dev/null
	[ "$(stat -c %a "$f")" = 604 ]
}

@test "-o F where F is a link to a file: the file is replaced, the link kept" {
	d="$BATS_TEST_TMPDIR"
	echo old >"$d/real.yaml"
	ln -s real.yaml "$d/link.yaml"
	run "$AX" --db "$DB" export -o "$d/link.yaml"
	assert_success
	[ -L "$d/link.yaml" ]
	grep -q 'axbench.tuned/v1' "$d/real.yaml"
}

@test "-o on a full disk (/dev/full): exit 5 with 'No space left on device', for every writer" {
	for cmd in "report -o" "export -o" "recommend -o" "compare 1 1 --json" \
		"compare 1 1 --markdown" "compare 1 1 --junit"; do
		# shellcheck disable=SC2086
		run "$AX" --db "$DB" -q $cmd /dev/full
		echo "$cmd: $status $output"
		[ "$status" -eq 5 ]
		assert_output --partial "/dev/full: No space left on device"
	done
	# Still the device: the old code renamed F.tmp over F, which as
	# root replaced /dev/full itself with a regular file.
	[ -c /dev/full ]
}

@test "-o into a missing directory or onto a directory: exit 5 naming it" {
	run "$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/no/such/x.yaml"
	assert_failure 5
	assert_output --partial "$BATS_TEST_TMPDIR/no/such"
	assert_output --partial "No such file or directory"
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR"
	assert_failure 5
	assert_output --partial "Is a directory"
}

# ---- item 8: compare's files on a full disk ------------------------

@test "compare --json/--markdown/--junit on a full disk: old files kept whole, 'No space left on device', exit 5" {
	need_mount
	mkdir -p "$BATS_TEST_TMPDIR/full"
	export AX DB BATS_TEST_TMPDIR
	run in_ns 'd="$BATS_TEST_TMPDIR/full"
		mount -t tmpfs -o size=64k tmpfs "$d" || exit 99
		for f in c.json c.md c.xml; do echo "old $f" >"$d/$f"; done
		dd if=/dev/zero of="$d/fill" bs=4k 2>/dev/null
		"$AX" --db "$DB" -q compare 1 1 --json "$d/c.json" \
			--markdown "$d/c.md" --junit "$d/c.xml"
		echo "rc=$?"
		for f in c.json c.md c.xml; do echo "$f=$(cat "$d/$f")"; done
		echo "left=$(ls -A "$d" | tr "\n" " ")"'
	assert_line "rc=5"
	assert_output --partial "c.json: No space left on device"
	assert_output --partial "c.md: No space left on device"
	assert_output --partial "c.xml: No space left on device"
	assert_line "c.json=old c.json"
	assert_line "c.md=old c.md"
	assert_line "c.xml=old c.xml"
	assert_line "left=c.json c.md c.xml fill "
}

# ---- item 10: stored text on the terminal ------------------------------

# ESC [31m, U+202E RIGHT-TO-LEFT OVERRIDE and U+2066 LEFT-TO-RIGHT ISOLATE,
# as SQL.
EVIL_SQL="'evil' || char(27) || '[31m' || char(8238) || char(8294) || 'x'"

# Fails when $1 holds a raw ESC, BEL or a bidirectional control.
no_raw_controls() {
	! printf '%s' "$1" | grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\x{202a}|\x{202b}|\x{202c}|\x{202d}|\x{202e}|\x{2066}|\x{2067}|\x{2068}|\x{2069}'
}

@test "control characters and bidi overrides in stored text reach the terminal escaped" {
	sql "update device set name = $EVIL_SQL;
	     update result set case_label = $EVIL_SQL, error_text = $EVIL_SQL,
	       status = 'failed' where id = 1"
	run "$AX" --db "$DB" results
	assert_output --partial 'evil\x1b[31m\u202e\u2066x'
	no_raw_controls "$output"
	run "$AX" --db "$DB" compare 1 1
	assert_output --partial 'evil\x1b[31m\u202e\u2066x'
	no_raw_controls "$output"
	"$AX" --db "$DB" baseline save ok --run 1 >/dev/null
	sql "update baseline set name = $EVIL_SQL"
	run "$AX" --db "$DB" baseline list
	assert_output --partial 'evil\x1b[31m\u202e\u2066x'
	no_raw_controls "$output"
	# JSON carries the text itself, escaped the JSON way.
	run "$AX" --db "$DB" --json results
	assert_output --partial 'evil\u001B[31m'
}

# ---- item 14: invalid UTF-8 in stored text -----------------------------

@test "invalid UTF-8 in stored text: replaced by U+FFFD with a warning, no field dropped" {
	sql "update device set name = 'llvm' || cast(x'ff' as text) || 'pipe';
	     update result set params_json = '{\"op\":\"c' ||
	       cast(x'fe' as text) || 'py\",\"size\":65536}' where id = 1"
	run "$AX" --db "$DB" --json results
	assert_success
	assert_output --partial 'warning: the stored device name is not valid UTF-8'
	assert_output --partial 'warning: the stored result params is not valid UTF-8'
	json=$("$AX" --db "$DB" --json results 2>/dev/null)
	[ "$(jq -r '.[0].device.name' <<<"$json")" = "llvm�pipe" ]
	[ "$(jq -r '.[0].params.op' <<<"$json")" = "c�py" ]
	[ "$(jq -r '[.[] | select(.params == null)] | length' <<<"$json")" = 0 ]
	run "$AX" --db "$DB" export --format json
	assert_success
	doc=$("$AX" --db "$DB" export --format json 2>/dev/null)
	grep -q '"name": "llvm�pipe"' <<<"$doc"
	# A database path that is not UTF-8 in compare's JSON labels.
	bad="$BATS_TEST_TMPDIR/$(printf 'x\xff').db"
	cp "$DB" "$bad"
	out=$("$AX" --db "$DB" --json compare "$bad:1" 1 2>/dev/null)
	[ "$(jq -r .base <<<"$out")" = "$BATS_TEST_TMPDIR/x�.db run 1" ]
	# ... and in the command line a run stores: repaired, not dropped.
	"$AX" --db "$bad" run bandwidth -p op=copy -p size=64K "${FAST[@]}" \
		>/dev/null 2>&1
	argv=$(sqlite3 "$bad" "select argv_json from run order by id desc limit 1")
	[ "$(jq -r '.[2]' <<<"$argv")" = "$BATS_TEST_TMPDIR/x�.db" ]
}

# ---- item 11: Ctrl-C in the long readers and writers -------------------

# A database large enough to take a moment: result 1 of the real run with
# $2 samples (its real values, repeated), copied by SQL until there are
# 2^$3 results.  Built once per file, at $1, under a lock: tests of a
# file run in parallel (tests/run.sh), and two may want it at once.
big_db() {
	(
		flock 9 || exit 1
		[ -s "$1" ] || build_big_db "$@"
	) 9>"$1.lock"
}
build_big_db() {
	local db=$1 samples=$2 doublings=$3
	cp "$BATS_FILE_TMPDIR/base.db" "$db.new"
	sqlite3 "$db.new" >/dev/null <<SQL || return 1
PRAGMA foreign_keys = ON;
DELETE FROM result WHERE id > 1;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k
                        WHERE i < $samples - 1)
INSERT OR IGNORE INTO sample (uuid, result_id, idx, seconds, value)
  SELECT lower(hex(randomblob(16))), 1, k.i, s.seconds, s.value
  FROM k JOIN sample s ON s.result_id = 1 AND s.idx = k.i % 3;
UPDATE result SET n = $samples WHERE id = 1;
SQL
	for _ in $(seq "$doublings"); do
		sqlite3 "$db.new" <<'SQL' || return 1
BEGIN;
CREATE TEMP TABLE m AS
  SELECT id AS old, id + (SELECT max(id) FROM result) AS new FROM result;
INSERT INTO result (id, uuid, run_id, suite, case_label, params_json,
  params_hash, shader_hash, unit, higher_is_better, work, timing_mode,
  stop_reason, status, error_text, n, median, min, max, mean, stddev, q1,
  q3, mad, ci_lo, ci_hi, rel_noise, extra_json, created_at)
SELECT m.new, lower(hex(randomblob(16))), run_id, suite, case_label,
  params_json, params_hash, shader_hash, unit, higher_is_better, work,
  timing_mode, stop_reason, status, error_text, n, median, min, max, mean,
  stddev, q1, q3, mad, ci_lo, ci_hi, rel_noise, extra_json, created_at
FROM result JOIN m ON m.old = result.id;
INSERT INTO sample (uuid, result_id, idx, seconds, value)
SELECT lower(hex(randomblob(16))), m.new, idx, seconds, value
FROM sample JOIN m ON m.old = sample.result_id;
COMMIT;
SQL
	done
	mv "$db.new" "$db"
}

# Wait (polling, bounded at 300 s) until process $1 has a file matching
# the pattern $2 open, or has a file matching glob $3 in directory $4.
wait_open() {
	for _ in $(seq 3000); do
		ls -l "/proc/$1/fd" 2>/dev/null | grep -q -- "$2" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
wait_file() {
	for _ in $(seq 3000); do
		compgen -G "$1" >/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

@test "Ctrl-C during report -o F: exit 130, its temporary file removed, F left as it was" {
	big="$BATS_FILE_TMPDIR/big.db"
	big_db "$big" 50 12
	d="$BATS_TEST_TMPDIR/rep"
	mkdir "$d"
	echo "the old report" >"$d/r.html"
	"$AX" --db "$big" report -o "$d/r.html" 2>"$d/../err" &
	pid=$!
	# The temporary file exists while the report is written (seconds).
	wait_file "$d/.r.html.*" "$pid"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$d/../err"
	[ "$rc" -eq 130 ]
	grep -q "report: interrupted; .*r.html left as it was" "$d/../err"
	[ "$(cat "$d/r.html")" = "the old report" ]
	run files_in "$d"
	assert_output "r.html"
}

@test "Ctrl-C during results --samples: exit 130, said so" {
	big="$BATS_FILE_TMPDIR/big.db"
	big_db "$big" 50 12
	"$AX" --db "$big" --json results --samples >/dev/null \
		2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_open "$pid" "big.db"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 130 ]
	grep -q "interrupted" "$BATS_TEST_TMPDIR/err"
}

@test "Ctrl-C during export -o F: exit 130, no file written" {
	many="$BATS_FILE_TMPDIR/many.db"
	big_db "$many" 1 15
	d="$BATS_TEST_TMPDIR/exp"
	mkdir "$d"
	"$AX" --db "$many" export -o "$d/t.yaml" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_open "$pid" "many.db"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 130 ]
	grep -q "interrupted" "$BATS_TEST_TMPDIR/err"
	run files_in "$d"
	assert_output ""
}
