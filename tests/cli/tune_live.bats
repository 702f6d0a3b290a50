#!/usr/bin/env bats
# Live tuning a person can follow and trust (issue 12, section 4): the
# progress line, the defaults measured first, the final re-timing and
# the paired verdict saying what they do, the message after Ctrl-C, `tune --resume ID` alone, and
# points the suite's check accepts but the kernel got wrong.  Real runs on
# lavapipe, real SQLite files, a real SIGINT.
load helper

setup() { ax_setup; }

TUNE=(tune bandwidth -p op=copy -p size=64K --strategy random --seed 2)

@test "live tune: one progress line per trial with budget, ETA, figure, status, best and its parameters, defaults" {
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 4
	assert_success
	# Not a terminal: a plain line per trial.
	[ "$(grep -c '^trial [1-4]/4 ' <<<"$output")" -eq 4 ]
	grep -E '^trial 1/4 \(ETA [0-9]+:[0-9]{2}\): [0-9.e+]+ GB/s ok \| best [0-9.e+]+ GB/s \(vec=[0-9]+ wg=[0-9]+ epi=[0-9]+\) \| defaults [0-9.e+]+ GB/s$' <<<"$output"
	grep -E '^trial 4/4 \(ETA 0:00\): ' <<<"$output"
}

@test "live tune: the defaults are measured first, stored with role default, and named apart from the re-timed ones" {
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 3
	assert_success
	first=$(grep -n 'measuring the defaults first' <<<"$output" | cut -d: -f1)
	trial1=$(grep -n '^trial 1/3 ' <<<"$output" | cut -d: -f1)
	[ -n "$first" ]
	[ "$first" -lt "$trial1" ]
	# Stored before any trial's result; at the end the defaults are
	# measured again, paired with the best (side A, role default, just
	# before side B, role retime): the session holds both.
	[ "$(sql "select json_extract(extra_json, '$.role') from result order by id limit 1")" = default ]
	[ "$(sql "select json_extract(extra_json, '$.role') || ' ' || json_extract(extra_json, '$.pair.side') from result order by id desc limit 2" | tr '\n' ,)" = "retime B,default A," ]
	[ "$(sql "select count(*) from result where json_extract(extra_json, '$.role') = 'default'")" -eq 2 ]
	assert_output --partial "measured first, before the trials"
	assert_output --partial "measured beside the best in alternating rounds at the end"
}

@test "live tune: the final re-timing says what it is doing" {
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 3 --retime 2
	assert_success
	assert_output --partial "axbench tune: re-timing the 2 best points with full sampling, one after the other, to pick the candidate"
	[ "$(grep -c 'axbench tune: re-timed [12]/2 (vec=' <<<"$output")" -ge 1 ]
	assert_output --partial "axbench tune: measuring the best (vec="
	assert_output --partial ") and the defaults in alternating rounds (ABBA"
	grep -E '^axbench tune: paired: best [0-9.e+]+ GB/s, defaults [0-9.e+]+ GB/s; speed-up [0-9.e+]+x \[[0-9.e+]+, [0-9.e+]+\], [0-9]+ rounds' <<<"$output"
}

@test "live tune: on a terminal the progress line is rewritten in place" {
	command -v script >/dev/null || skip "no script(1) for a terminal"
	script -qec "'$AX' --db '$DB' ${TUNE[*]} --budget 2" "$BATS_TEST_TMPDIR/tty" >/dev/null
	grep -q $'\r\033\[Ktrial 2/2 (ETA ' "$BATS_TEST_TMPDIR/tty"
}

@test "live tune --json and -q print no progress" {
	run "$AX" --db "$DB" --json "${TUNE[@]}" --budget 2
	assert_success
	refute_output --partial "trial 1/2"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["default_first"] > 0 and d["default"] > 0, d'
	run "$AX" --db "$DB" -q "${TUNE[@]}" --budget 2 --seed 3
	assert_success
	refute_output --partial "trial 1/2"
	refute_output --partial "axbench tune: re-timing"
}

@test "Ctrl-C prints the exact --resume command; trials that measured a figure count" {
	"$AX" --db "$DB" tune bandwidth -p op=copy -p size=1M --budget 500 \
		--strategy grid --no-early-stop >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_trials 3
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	out=$(cat "$BATS_TEST_TMPDIR/out")
	kept=$(sql 'select count(*) from trial')
	grep -F "axbench tune: interrupted; session 1 keeps its $kept trials" <<<"$out"
	grep -Fx "continue it with: axbench --db $DB tune --resume 1" <<<"$out"
	# A trial cut short after its first sample is stored with its
	# figure, as measured; none is stored without one.
	[ "$(sql "select count(*) from trial where status = 'ok' and value is not null")" -eq "$kept" ]
	grep -F "best so far: " <<<"$out"
	# The printed command, as printed, continues the session.
	sql "update tune_session set budget = $((kept + 2))"
	cmd=$(sed -n 's/^continue it with: axbench //p' <<<"$out")
	run bash -c "'$AX' $cmd"
	assert_success
	[ "$(sql 'select count(*) from trial')" -eq $((kept + 2)) ]
	[ "$(sql 'select count(*) from tune_session')" -eq 1 ]
}

@test "tune --resume ID works without the suite; a suite, shape, strategy or seed that disagrees is refused" {
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 2
	assert_success
	sql "update tune_session set budget = 3"
	run "$AX" --db "$DB" tune --resume 1
	assert_success
	assert_output --partial "session 1: random on bandwidth, 3 trials"
	[ "$(sql 'select count(*) from trial')" -eq 3 ]
	run "$AX" --db "$DB" tune reduce --resume 1
	assert_failure 2
	assert_output --partial "--resume 1: that session tuned bandwidth, not reduce"
	run "$AX" --db "$DB" tune --resume 1 -p size=4K
	assert_failure 2
	assert_output --partial "-p size=4K: --resume continues session 1 with the shape stored with it"
	# The session's strategy and seed make it one search: another one
	# is refused, never silently replaced.
	run "$AX" --db "$DB" tune --resume 1 --strategy grid
	assert_failure 2
	assert_output --partial "--strategy grid: session 1 searches with random"
	run "$AX" --db "$DB" tune --resume 1 --seed 5
	assert_failure 2
	assert_output --partial "--seed 5: session 1 was started with seed 2"
	run "$AX" --db "$DB" tune --resume 1 --strategy random --seed 2 --budget 4
	assert_success
	assert_output --partial "budget 4 for this run, stored trials included (session 1 was started with 3)"
	assert_output --partial "session 1: random on bandwidth, 4 trials"
	[ "$(sql 'select count(*) from trial')" -eq 4 ]
	run "$AX" --db "$DB" tune --resume 7
	assert_failure 2
	assert_output --partial "--resume 7: no such tuning session"
	run "$AX" --db "$DB" tune
	assert_failure 2
	assert_output --partial "tune needs a SUITE, --resume SESSION or --replay FILE"
	[ "$(sql 'select count(*) from trial')" -eq 4 ]
}

@test "gemm share=subgroup with wg_x below the subgroup size is refused before launch, with the reason" {
	run "$AX" --db "$DB" run gemm -p m=256 -p n=256 -p k=256 -p bm=32 \
		-p tm=32 -p bk=2 -p wg_x=2 -p wg_y=4 -p vec=1 -p share=subgroup
	assert_failure 2
	assert_output --partial "gemm share=subgroup: wg_x=2 must be a multiple of the subgroup size"
	refute_output --partial "failed-verification"
	# The same tile with whole subgroup rows verifies.
	run "$AX" --db "$DB" run gemm -p m=256 -p n=256 -p k=256 -p bm=32 \
		-p tm=32 -p bk=2 -p wg_x=8 -p wg_y=1 -p vec=1 -p share=subgroup "${FAST[@]}"
	assert_success
}
