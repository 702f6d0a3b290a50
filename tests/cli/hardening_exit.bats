#!/usr/bin/env bats
# Exit codes that match their cause (storage 5, usage 2), selectors that
# match nothing said as such, empty and very long arguments, a landscape
# that is not an object, and tune's printed end agreeing with the stored
# one.  The promises are in docs/RELIABILITY.md ("Exit codes and
# selectors").  One real run, made once in setup_file, is shared: tests
# that write copy it first.
load helper

setup_file() {
	cd "$BATS_TEST_DIRNAME/../.." || return 1
	export HOME="$BATS_FILE_TMPDIR" XDG_CACHE_HOME="$BATS_FILE_TMPDIR/cache"
	export AXBENCH_VALIDATE=1
	unset AXBENCH_DB
	export BASE_DB="$BATS_FILE_TMPDIR/base.db"
	./axbench --db "$BASE_DB" run bandwidth -p size=64K -p op=copy \
		"${FAST[@]}" >/dev/null
}

setup() {
	ax_setup
	cp "$BASE_DB" "$DB"
}

# in_ns and need_mount (helper.bash): a private mount namespace where a
# tmpfs can be mounted; skips where that is not possible.

# ---- exit codes: storage is 5, the caller's mistake is 2 ---------------

@test "baseline save on a full disk exits 5 (storage), not 2" {
	need_mount
	export AX DB BATS_TEST_TMPDIR
	# A real full disk: a tmpfs with room for the shared-memory index
	# of the database (32 KiB) and nothing more.
	run in_ns 'd="$BATS_TEST_TMPDIR/full"; mkdir -p "$d"
		mount -t tmpfs -o size=2m tmpfs "$d" || exit 99
		cp "$DB" "$d/ax.db"
		free=$(df -k --output=avail "$d" | tail -1)
		dd if=/dev/zero of="$d/filler" bs=1k count=$((free - 32)) \
			2>/dev/null
		"$AX" --db "$d/ax.db" baseline save nightly; echo "rc=$?"'
	assert_line "rc=5"
	assert_output --partial "database or disk is full"
}

@test "baseline save of a run that does not exist stays a usage error" {
	run "$AX" --db "$DB" baseline save nightly --run 99
	assert_failure 2
	assert_output --partial "--run 99"
	assert_output --partial "holds no run 99"
	[ "$(sql 'select count(*) from baseline')" = 0 ]
}

# ---- selectors that match nothing ---------------------------------------

@test "report --since with a date that is not one: 2, naming value and formats" {
	for bad in NOT-A-DATE 2024-02-30 2024-13-01 2024-5-1 "2024-05-01T25:00" ""; do
		run "$AX" --db "$DB" report --since "$bad" -o "$BATS_TEST_TMPDIR/r.html"
		assert_failure 2
		[ -n "$bad" ] || continue
		assert_output --partial "--since '$bad' is not a date"
		assert_output --partial "YYYY-MM-DD"
	done
	[ ! -e "$BATS_TEST_TMPDIR/r.html" ]
	run "$AX" --db "$DB" report --since 2000-01-01T00:00Z -o "$BATS_TEST_TMPDIR/r.html"
	assert_success
	assert_output --partial "report of 1 results"
}

@test "report --since after every run says so (2) instead of an empty report" {
	run "$AX" --db "$DB" report --since 2999-01-01 -o "$BATS_TEST_TMPDIR/r.html"
	assert_failure 2
	assert_output --partial "no run or tuning session"
	[ ! -e "$BATS_TEST_TMPDIR/r.html" ]
}

@test "report --run and --device that match nothing: 2, no file" {
	run "$AX" --db "$DB" report --run 99 -o "$BATS_TEST_TMPDIR/r.html"
	assert_failure 2
	assert_output --partial "holds no run 99"
	run "$AX" --db "$DB" report --device nosuch -o "$BATS_TEST_TMPDIR/r.html"
	assert_failure 2
	assert_output --partial "--device 'nosuch' matches no stored device"
	run "$AX" --db "$DB" report --run 1 --device nosuch -o "$BATS_TEST_TMPDIR/r.html"
	assert_failure 2
	[ ! -e "$BATS_TEST_TMPDIR/r.html" ]
	# The device that is stored does match.
	run "$AX" --db "$DB" report --device llvmpipe -o "$BATS_TEST_TMPDIR/r.html"
	assert_success
}

@test "run ids: overflowing, signed or zero are invalid, unknown ones match nothing" {
	for bad in 99999999999999999999 9223372036854775808 0 -1 +1 " 1" 1x; do
		run "$AX" --db "$DB" results --run "$bad"
		assert_failure 2
		assert_output --partial "--run must be a run id"
		assert_output --partial "from 1 to 9223372036854775807"
		assert_output --partial "(got '$bad')"
	done
	run "$AX" --db "$DB" results --run 9223372036854775807
	assert_failure 2
	assert_output --partial "holds no run 9223372036854775807"
	run "$AX" --db "$DB" -v results --run 1
	assert_success
	assert_output --partial "op=copy size=64K"
}

@test "compare: a run id that overflows or names no run is a usage error" {
	run "$AX" --db "$DB" compare 1 99999999999999999999
	assert_failure 2
	assert_output --partial "'99999999999999999999' is not a run id"
	run "$AX" --db "$DB" compare 1 99
	assert_failure 2
	assert_output --partial "holds no run 99"
	refute_output --partial "holds no results"
}

@test "results --suite and --device that select nothing: 2, saying why" {
	run "$AX" --db "$DB" results --suite nosuch
	assert_failure 2
	assert_output --partial "--suite 'nosuch': no such suite"
	run "$AX" --db "$DB" results --suite gemm
	assert_failure 2
	assert_output --partial "no stored results of that suite"
	run "$AX" --db "$DB" --device nosuch results
	assert_failure 2
	assert_output --partial "--device nosuch"
	run "$AX" --db "$DB" results --suite bandwidth
	assert_success
}

@test "did you mean: a suite, a baseline subcommand, a baseline name, a kernel file key" {
	run "$AX" --db "$DB" results --suite gem
	assert_failure 2
	assert_output --partial "no such suite (\`axbench suites\` lists them); did you mean 'gemm'?"
	run "$AX" --db "$DB" baseline sav main --run 1
	assert_failure 2
	assert_output --partial "no subcommand 'sav'; did you mean 'save'?"
	run "$AX" --db "$DB" baseline save main --run 1
	assert_success
	run "$AX" --db "$DB" compare baseline:mian last
	assert_failure 2
	assert_output --partial "no baseline named \"mian\"; did you mean 'main'?"
	run "$AX" --db "$DB" compare baseline:zzzzzz last
	assert_failure 2
	assert_output --partial "save one with"
	sed 's/^dispatch:/dispach:/' examples/kernels/saxpy.yaml >"$BATS_TEST_TMPDIR/saxpy.yaml"
	cp examples/kernels/saxpy.comp "$BATS_TEST_TMPDIR/"
	run "$AX" kernel check "$BATS_TEST_TMPDIR/saxpy.yaml"
	assert_failure 2
	assert_output --partial "unknown key 'dispach' in the kernel file (did you mean 'dispatch'?); allowed keys: "
}

@test "export --suite with nothing stored and recommend --device nosuch: 2" {
	run "$AX" --db "$DB" export --suite gemm -o "$BATS_TEST_TMPDIR/t.yaml"
	assert_failure 2
	assert_output --partial "--suite gemm: no stored results"
	[ ! -e "$BATS_TEST_TMPDIR/t.yaml" ]
	run "$AX" --db "$DB" --device nosuch recommend
	assert_failure 2
	assert_output --partial "--device nosuch"
}

@test "the global --device before report or compare selects too (was ignored)" {
	run "$AX" --db "$DB" --device nosuch report -o "$BATS_TEST_TMPDIR/r.html"
	assert_failure 2
	assert_output --partial "--device 'nosuch' matches no stored device"
	[ ! -e "$BATS_TEST_TMPDIR/r.html" ]
	run "$AX" --db "$DB" --device nosuch compare 1 1
	assert_failure 2
	assert_output --partial "--device nosuch: no stored results"
	run "$AX" --db "$DB" --device llvmpipe compare 1 1
	assert_success
}

@test "more selectors than a command holds are refused, not dropped" {
	args=()
	for i in $(seq 65); do args+=(--run 1); done
	run "$AX" --db "$DB" results "${args[@]}"
	assert_failure 2
	assert_output --partial "at most 64 --run"
	run "$AX" --db "$DB" report "${args[@]}" -o "$BATS_TEST_TMPDIR/r.html"
	assert_failure 2
	assert_output --partial "at most 64 --run"
}

# ---- clearer messages ---------------------------------------------------

@test "empty option values are usage errors naming the option" {
	run "$AX" --db '' results
	assert_failure 2
	assert_output --partial "option --db needs a value (PATH), got an empty string"
	run "$AX" --db= results
	assert_failure 2
	assert_output --partial "option --db needs a value"
	run "$AX" --db "$DB" report -o ''
	assert_failure 2
	assert_output --partial "option --output needs a value (FILE), got an empty string"
	run "$AX" --db "$DB" export --suite ''
	assert_failure 2
	run "$AX" --db "$DB" compare 1 1 --json ''
	assert_failure 2
	refute_output --partial "axbench axbench"
}

@test "a very long argument is cut in the message, the reason never" {
	long=$(printf 'a%.0s' $(seq 3000))
	run "$AX" --db "/tmp/$long.db" results
	assert_failure
	assert_output --partial " [...] "
	assert_output --partial "File name too long"
	[ "${#output}" -lt 1100 ]
	run "$AX" tune --replay "/tmp/$long.json"
	assert_failure 2
	assert_output --partial ".json: cannot open; check the path"
	[ "${#output}" -lt 1100 ]
	run "$AX" --db "$DB" results --run "$long"
	assert_failure 2
	assert_output --partial "--run must be a run id, a whole number"
	[ "${#output}" -lt 1100 ]
	run "$AX" --db "$DB" report --device "$long" -o "$BATS_TEST_TMPDIR/r.html"
	assert_failure 2
	assert_output --partial "matches no stored device"
}

@test "tune --replay of a top-level JSON array names its position and why" {
	printf '\n\n  [1, 2]\n' >"$BATS_TEST_TMPDIR/a.json"
	run "$AX" tune --replay "$BATS_TEST_TMPDIR/a.json"
	assert_failure 2
	assert_output --partial "a.json:3:3: the top level is a JSON array"
	assert_output --partial "one JSON object"
	refute_output --partial ":-1:-1:"
}

# ---- tune's printed end is the stored one -------------------------------

# The reason in "session N: STRATEGY on SUITE, N trials (REASON)".
printed_reason() {
	sed -n 's/^session [0-9]*: .* trials (\(.*\))$/\1/p' <<<"$1"
}

@test "tune: a trial that cannot be stored ends as 'error', printed and stored" {
	# A trigger stands in for a full disk at the trial insert (a fake:
	# filling a disk exactly between the session row and the first
	# trial is not repeatable).
	sql "create trigger disk_full before insert on trial begin
		select raise(fail, 'fake full disk'); end"
	run "$AX" --db "$DB" tune bandwidth -p op=copy -p size=64K --budget 2 \
		--strategy grid
	assert_failure 5
	assert_output --partial "storing the trial"
	[ "$(printed_reason "$output")" = error ]
	[ "$(sql 'select stop_reason from tune_session')" = error ]
}

@test "tune: SIGINT while re-timing ends as 'interrupted', printed and stored" {
	# The first re-timing (the fourth case: the defaults are measured
	# first, then two trials) is stalled on the device by
	# the test-only AXBENCH_TEST_STALL until its 3 s fence timeout, so
	# the signal sent after the second trial lands while re-timing, on
	# any machine under any load.
	AXBENCH_TEST_STALL=4 "$AX" --db "$DB" tune bandwidth -p op=copy \
		-p size=64K --budget 2 --strategy grid --retime 3 --timeout 3 \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_trials 2
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	out=$(cat "$BATS_TEST_TMPDIR/out")
	[ "$(printed_reason "$out")" = interrupted ]
	[ "$(sql 'select stop_reason from tune_session')" = interrupted ]
	# It was the re-timing that the signal cut short.
	[ "$(sql "select count(*) from result
		where extra_json like '%\"role\":\"retime\"%'")" -ge 1 ]
}
