#!/usr/bin/env bats
# axbench baseline: naming runs for `compare baseline:NAME`.
load helper

setup() {
	ax_setup
	AX="${AXBENCH_BIN:-$AX}"
}

two_runs() {
	for i in 1 2; do
		run "$AX" --db "$DB" run bandwidth -p size=64K "${FAST[@]}"
		assert_success
	done
}

@test "save defaults to the last run; list shows it; saving again moves it" {
	two_runs
	run "$AX" --db "$DB" baseline save nightly
	assert_success
	assert_output "baseline nightly = run 2"
	run "$AX" --db "$DB" baseline save nightly --run 1
	assert_success
	run "$AX" --db "$DB" baseline list
	assert_success
	assert_line --regexp '^nightly +1 '
	[ "$(sql 'select count(*) from baseline')" = 1 ]
	run "$AX" --db "$DB" --json baseline list
	assert_success
	run python3 -c 'import json,sys; b=json.load(sys.stdin); print(b[0]["name"], b[0]["run_id"])' <<<"$output"
	assert_output "nightly 1"
}

@test "an empty list says how to save one" {
	two_runs
	run "$AX" --db "$DB" baseline list
	assert_success
	assert_output --partial "no baselines"
}

@test "bad names, unknown runs and missing databases exit 2, unchanged" {
	two_runs
	run "$AX" --db "$DB" baseline save 'a:b'
	assert_failure 2
	assert_output --partial "letters, digits"
	run "$AX" --db "$DB" baseline save ok --run 99
	assert_failure 2
	run "$AX" --db "$DB" baseline save ok --run soon
	assert_failure 2
	[ "$(sql 'select count(*) from baseline')" = 0 ]
	run "$AX" --db "$BATS_TEST_TMPDIR/none.db" baseline save x
	assert_failure 2
	[ ! -e "$BATS_TEST_TMPDIR/none.db" ]
	run "$AX" --db "$DB" baseline frobnicate
	assert_failure 2
	assert_output --partial "baseline save NAME"
}
