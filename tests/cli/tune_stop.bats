#!/usr/bin/env bats
# axbench tune --stop-rule: the default stops early only when the model is
# sure going on cannot pay; the old no-gain rule stays available by name;
# the rule and the reason it stopped are printed and stored.
load helper

setup() { ax_setup; }

TINY=tests/fixtures/tuner/tiny.json

@test "tune --replay: the default stop rule is ei, printed with its reason" {
	run "$AX" tune --replay "$TINY" --budget 100 --seed 1
	assert_success
	assert_output --partial "stop rule ei"
	run "$AX" --json tune --replay "$TINY" --budget 100 --seed 1
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["stop_rule"] == "ei", d
assert d["stop_reason"], d'
}

@test "tune --stop-rule gain keeps the old no-1%-gain rule" {
	run "$AX" tune --replay "$TINY" --strategy grid --stop-rule gain --budget 105
	assert_success
	assert_output --partial "stop rule gain"
	assert_output --partial "no gain of 1% or more in the last 20 evaluations"
}

@test "tune --stop-rule none and --no-early-stop spend the whole budget" {
	for opt in "--stop-rule none" --no-early-stop; do
		# shellcheck disable=SC2086
		run "$AX" tune --replay "$TINY" --budget 60 $opt
		assert_success
		assert_output --partial "stop rule none: 60 evaluations (budget of 60 evaluations reached)"
	done
}

@test "tune --stop-rule with an unknown name is a usage error naming the rules" {
	run "$AX" tune --replay "$TINY" --stop-rule patience
	assert_failure 2
	assert_output --partial "--stop-rule must be ei, gain or none (got 'patience')"
}

@test "tune --no-early-stop with another --stop-rule is refused, not guessed" {
	run "$AX" tune --replay "$TINY" --no-early-stop --stop-rule gain
	assert_failure 2
	assert_output --partial "--no-early-stop and --stop-rule gain contradict"
	run "$AX" tune --replay "$TINY" --no-early-stop --stop-rule none --budget 5
	assert_success
}

@test "live tune stores the stop rule's reason" {
	run "$AX" --db "$DB" tune bandwidth -p op=copy -p size=64K --budget 3 --strategy random --stop-rule none --retime 0
	assert_success
	[ "$(sql 'select stop_reason from tune_session')" = "budget of 3 evaluations reached" ]
}

@test "a session keeps its stop rule: --resume stops by it, and another rule is refused" {
	run "$AX" --db "$DB" tune bandwidth -p op=copy -p size=64K --budget 3 \
		--strategy random --seed 2 --no-early-stop
	assert_success
	[ "$(sql 'select stop_rule from tune_session')" = none ]
	run "$AX" --db "$DB" tune --resume 1 --stop-rule ei
	assert_failure 2
	assert_output --partial "session 1 stops by the rule none"
	# No rule given: the stored one, so the new budget is spent whole.
	run "$AX" --db "$DB" tune --resume 1 --budget 5
	assert_success
	[ "$(sql 'select count(*) from trial')" -eq 5 ]
	[ "$(sql 'select stop_rule from tune_session')" = none ]
}
