#!/usr/bin/env bats
# axbench baseline: naming runs for `compare baseline:NAME`.
load helper

setup() {
	ax_setup
	AX="${AXBENCH_BIN:-$AX}"
}
teardown() { stop_rapl_fixture; }

TINY=(bandwidth -p op=copy -p size=4K)

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

@test "save refuses a tuning session unless --allow-tune, and writes nothing" {
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label "ci ref"
	"$AX" --db "$DB" tune "${TINY[@]}" --budget 3 --retime 0 --label tuning
	n=$(sql "select count(*) from result where run_id = 2")
	sum=$(sha256sum "$DB")
	# Right after a tune, "last" is the tuning session's run.
	run "$AX" --db "$DB" baseline save main
	assert_failure 2
	assert_output --partial "baseline save: run 2 (--run last: the newest run; label \"tuning\") is a tuning session ($n results)"
	assert_output --partial "a tuning session measures many configurations once each, not the profile's cases"
	assert_output --partial 'pick a run that measured the cases to compare with from `axbench runs` and pass --run ID, or pass --allow-tune'
	run "$AX" --db "$DB" baseline save main --run 2
	assert_failure 2
	assert_output --partial "baseline save: run 2 (label \"tuning\") is a tuning session"
	[ "$(sql 'select count(*) from baseline')" = 0 ]
	[ "$(sha256sum "$DB")" = "$sum" ]
	# The fix the message names: pick the run, or say the tune is meant.
	run "$AX" --db "$DB" baseline save main --run 1
	assert_success
	assert_output "baseline main = run 1"
	run "$AX" --db "$DB" baseline save tuned --run last --allow-tune
	assert_success
	assert_output "baseline tuned = run 2"
	[ "$(sql 'select name || ":" || run_id from baseline order by name' | tr '\n' ' ')" = "main:1 tuned:2 " ]
	run "$AX" --db "$DB" baseline list --allow-tune
	assert_failure 2
}

@test "save refuses a monitor run and a run that stored no results, even with --allow-tune" {
	rapl_fixture # monitor stores a run only where it has a sensor
	"$AX" --db "$DB" monitor --duration 0.3 --interval 0.1
	[ "$(sql 'select profile from run where id = 1')" = monitor ]
	run "$AX" --db "$DB" baseline save m --run 1 --allow-tune
	assert_failure 2
	assert_output --partial "baseline save: run 1 (label \"$(hostname)/"
	assert_output --partial "is a monitor run: it holds power readings and no results"
	assert_output --partial '`axbench runs`'
	# "last" is the newest run that measured: there is none yet.
	run "$AX" --db "$DB" baseline save m
	assert_failure 2
	assert_output --partial "holds no runs yet"
	# A run interrupted before its first result was stored.
	sql "insert into run (uuid, started_at, finished_at, status, label)
	     values ('u2', '2030-01-01T00:00:00.000Z',
	             '2030-01-01T00:00:01.000Z', 'interrupted', 'cut short')"
	run "$AX" --db "$DB" baseline save m --allow-tune
	assert_failure 2
	assert_output --partial "baseline save: run 2 (--run last: the newest run; label \"cut short\") stored no results (status interrupted)"
	[ "$(sql 'select count(*) from baseline')" = 0 ]
}

@test "several runs make one baseline (--runs, --last K); compare pools them; list names them" {
	two_runs
	run "$AX" --db "$DB" run bandwidth -p size=64K "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" baseline save main --runs 1,2
	assert_success
	assert_output "baseline main = runs 1 and 2"
	run "$AX" --db "$DB" baseline list
	assert_line --regexp '^main +1,2 '
	run "$AX" --db "$DB" baseline save main --last 3
	assert_success
	assert_output "baseline main = runs 3, 2 and 1"
	run "$AX" --db "$DB" --json baseline list
	run python3 -c 'import json,sys; b=json.load(sys.stdin)[0]; print(b["run_id"], b["run_ids"])' <<<"$output"
	assert_output "3 [1, 2, 3]"
	run "$AX" --db "$DB" compare baseline:main 3 --json -
	assert_success
	run python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["base"], d["rows"][0]["replicates"]["base"], d["rows"][0]["base"]["replicates"])' <<<"$output"
	assert_output "baseline:main (runs 1,2,3) 3 3"
}

@test "--last asks for more runs than there are, or --run and --runs together: exit 2, nothing saved" {
	two_runs
	"$AX" --db "$DB" monitor --duration 0.2 >/dev/null 2>&1 || true
	run "$AX" --db "$DB" baseline save main --last 3
	assert_failure 2
	assert_output --partial "--last 3, but"
	assert_output --partial "holds 2 runs of \`axbench run\` with results"
	run "$AX" --db "$DB" baseline save main --run 1 --runs 1,2
	assert_failure 2
	assert_output --partial "give one of --run, --runs and --last"
	run "$AX" --db "$DB" baseline save main --runs 1,99
	assert_failure 2
	run "$AX" --db "$DB" baseline save main --last 0
	assert_failure 2
	[ "$(sql 'select count(*) from baseline')" = 0 ]
}
