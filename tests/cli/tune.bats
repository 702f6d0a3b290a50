#!/usr/bin/env bats
# axbench tune: replay of recorded landscapes, live tuning on lavapipe,
# Ctrl-C keeps the session and --resume continues it.
load helper

setup() { ax_setup; }

LANDSCAPE=../shared/landscapes/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz

@test "tune --replay on a recorded landscape runs and reports" {
	[ -f "$LANDSCAPE" ] || skip "shared landscapes absent"
	run "$AX" --json tune --replay "$LANDSCAPE" --budget 40 --seed 7
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["points"] > 1000 and 0 < d["evals"] <= 40, d
assert d["best_over_optimum"] >= 1.0
assert d["best_found"] == min(x for x in d["trace"] if x is not None)
assert d["stop_reason"]'
}

@test "tune --replay on the landscape a clone ships (README's command), no ../shared needed; it replays as its source does" {
	shipped=examples/landscapes/convolution_RTX_3090.json.gz
	run "$AX" --json tune --replay "$shipped" --budget 20 --seed 3
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/shipped.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["points"] == 6768 and d["evals"] == 20, d
assert d["best_over_optimum"] >= 1.0' "$BATS_TEST_TMPDIR/shipped.json"
	grep -qF "tune --replay $shipped" README.md
	# Cut to what a replay reads, it is the same landscape as the file
	# it came from.
	src=../shared/landscapes/benchmark_hub/currently_unused/cachefiles/KernelTuner_data/convolution/RTX_3090.json.gz
	[ -f "$src" ] || skip "shared landscapes absent"
	run "$AX" --json tune --replay "$src" --budget 20 --seed 3
	assert_success
	[ "$(grep -v 'ms_per\|landscape' "$BATS_TEST_TMPDIR/shipped.json")" = \
		"$(echo "$output" | grep -v 'ms_per\|landscape')" ]
}

@test "tune --replay is deterministic for a seed" {
	[ -f "$LANDSCAPE" ] || skip "shared landscapes absent"
	a=$("$AX" --json tune --replay "$LANDSCAPE" --budget 25 --seed 11 --strategy bo | grep -v ms_per)
	b=$("$AX" --json tune --replay "$LANDSCAPE" --budget 25 --seed 11 --strategy bo | grep -v ms_per)
	[ "$a" = "$b" ]
}

@test "tune --replay of a file that is not a landscape is a usage error" {
	echo '{"hello": 1}' > "$BATS_TEST_TMPDIR/x.json"
	run "$AX" tune --replay "$BATS_TEST_TMPDIR/x.json"
	assert_failure 2
	assert_output --partial "x.json"
}

@test "live tune stores every trial and is never worse than the defaults" {
	run "$AX" --db "$DB" --json tune bandwidth -p op=copy -p size=64K --budget 6 --strategy random --seed 2
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["trials"] == 6, d
assert d["best"] >= d["default"], d
assert d["speedup"] >= 1.0'
	[ "$(sql 'select count(*) from trial')" -eq 6 ]
	[ "$(sql "select count(*) from trial t join result r on r.id = t.result_id")" -eq 6 ]
	[ "$(sql 'select stop_reason from tune_session')" != "" ]
	# the defaults: measured first, and paired with the best at the end
	[ "$(sql "select count(*) from result where extra_json like '%\"role\":\"default\"%'")" -eq 2 ]
}

@test "tune refuses a tunable given as a shape, and an unknown suite" {
	run "$AX" --db "$DB" tune bandwidth -p wg=64
	assert_failure 2
	assert_output --partial "wg is what tune searches"
	run "$AX" --db "$DB" tune nosuch
	assert_failure 2
	[ ! -e "$DB" ] || [ "$(sql 'select count(*) from tune_session')" -eq 0 ]
}

@test "Ctrl-C keeps the session's trials and --resume continues it" {
	"$AX" --db "$DB" tune bandwidth -p op=copy -p size=1M --budget 200 --strategy grid >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_trials 3
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	kept=$(sql 'select count(*) from trial')
	[ "$kept" -ge 3 ]
	[ "$(sql 'pragma integrity_check')" = "ok" ]
	[ "$(sql 'select stop_reason from tune_session')" = "interrupted" ]
	# resume with a small total budget: the stored trials count towards it
	sql "update tune_session set budget = $((kept + 2))"
	run "$AX" --db "$DB" --json tune bandwidth --resume 1
	assert_success
	[ "$(sql 'select count(*) from trial')" -eq $((kept + 2)) ]
	[ "$(sql 'select count(distinct params_json) from trial')" -eq $((kept + 2)) ]
}

@test "a trial that hangs the device: tune goes on with a new logical device" {
	# AXBENCH_TEST_STALL (suites/stall.h, test-only) holds the second
	# trial's timed submission (the third case: the defaults are measured
	# first) past the grace period (10 x 0.5 s): the device stays hung,
	# as a real hang would leave it.
	AXBENCH_TEST_STALL=3:hold run "$AX" --db "$DB" tune bandwidth \
		-p op=copy -p size=64K --budget 4 --strategy random --seed 3 \
		--timeout 0.5
	assert_success
	# The message names the trial whose work hung (issue 34 item 12).
	assert_output --partial "axbench tune: the device hung in case op=copy size=64K "
	assert_output --partial "; going on with a new logical device (1 of at most 3)"
	[ "$(sql "select status from trial where idx = 1")" = timeout ]
	# Every later trial and the final re-timing ran on the new device.
	[ "$(sql "select count(*) from trial where status = 'ok'")" -eq 3 ]
	[ "$(sql "select count(*) from result where status = 'ok' and
		json_extract(extra_json, '$.role') in ('retime', 'default')")" -ge 2 ]
	# The run says a device was lost.
	[ "$(sql 'select status from run')" = failed ]
}
