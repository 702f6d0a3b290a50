#!/usr/bin/env bats
# axbench runs: the stored runs, newest first, to pick one by id; and
# run --label, the name each run carries.
load helper

setup() { ax_setup; }
teardown() { stop_rapl_fixture; }

TINY=(bandwidth -p op=copy -p size=4K)
TUNE=(tune bandwidth -p op=copy -p size=4K --budget 3 --retime 0)

device_name() { sql "select name from device"; }

@test "runs: newest first, each with its kind, label, device, results and status" {
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label "ci main"
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}"
	"$AX" --db "$DB" "${TUNE[@]}" --label tuning
	rapl_fixture # monitor stores a run only where it has a sensor
	"$AX" --db "$DB" monitor --duration 0.3 --interval 0.1
	n_tune=$(sql "select count(*) from result where run_id = 3")
	[ "$n_tune" -ge 3 ]
	dev=$(device_name)
	run "$AX" --db "$DB" runs
	assert_success
	assert_line --index 0 --regexp '^ID +STARTED \(UTC\) +KIND +PROFILE +LABEL +DEVICE +RESULTS +STATUS$'
	assert_line --index 1 --regexp "^ 4  [0-9-]{10} [0-9:]{8}  monitor +monitor +$(hostname)/.* +0  complete$"
	assert_line --index 2 --regexp "^ 3  .*  tune +- +tuning +.* +$n_tune  complete$"
	assert_line --index 3 --regexp "^ 2  .*  run +- +$(hostname)/.* +1  complete$"
	assert_line --index 4 --regexp "^ 1  .*  run +- +ci main +.* +1  complete$"
	[ "${#lines[@]}" -eq 5 ]
	# The default label is HOST/DEVICE, stored as such.
	[ "$(sql 'select label from run where id = 2')" = "$(hostname)/$dev" ]
	[ "$(sql 'select label from run where id = 4')" = "$(hostname)/$dev" ]
	# Every cell of a column starts where its header does.
	col=$(awk 'NR == 1 { print index($0, "LABEL") }' <<<"$output")
	[ "$(cut -c"$col"- <<<"${lines[4]}" | cut -c1-7)" = "ci main" ]
	[ "$(cut -c"$col"- <<<"${lines[2]}" | cut -c1-6)" = "tuning" ]
}

@test "runs --json: one array of the same fields, numbers as numbers, null where nothing is stored" {
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label "ci main"
	"$AX" --db "$DB" "${TUNE[@]}"
	"$AX" --db "$DB" --json runs >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	dev=$(device_name) host=$(hostname) python3 - "$BATS_TEST_TMPDIR/out" <<'EOF'
import json, os, sys
runs = json.load(open(sys.argv[1]))  # the whole of stdout is one document
assert isinstance(runs, list) and len(runs) == 2, runs
keys = ["id", "started_at", "kind", "profile", "label", "device",
        "n_results", "status"]
for r in runs:
    assert list(r) == keys, list(r)
    assert type(r["id"]) is int and type(r["n_results"]) is int, r
    assert r["profile"] is None, r
    assert r["device"] == os.environ["dev"], r
    assert r["status"] == "complete", r
tune, run = runs
assert (tune["id"], tune["kind"]) == (2, "tune"), tune
assert tune["label"] == os.environ["host"] + "/" + os.environ["dev"], tune
assert tune["n_results"] >= 3, tune
assert (run["id"], run["kind"], run["label"]) == (1, "run", "ci main"), run
assert run["n_results"] == 1, run
assert run["started_at"] < tune["started_at"], runs
EOF
	# A database with no run: an empty array, still one document.
	sql "delete from result; delete from trial; delete from tune_session; delete from run"
	run "$AX" --db "$DB" --json runs
	assert_success
	assert_output "[]"
}

@test "runs --limit N shows the newest N and says how many there are; --all every one" {
	for i in 1 2 3; do
		"$AX" --db "$DB" -q run "${TINY[@]}" "${FAST[@]}" --label "r$i"
	done
	run "$AX" --db "$DB" runs --limit 2
	assert_success
	assert_line --index 1 --regexp '^ 3  .*  r3  '
	assert_line --index 2 --regexp '^ 2  .*  r2  '
	assert_line "axbench runs: the newest 2 of 3 runs; --all lists every one"
	refute_line --regexp '^ 1  '
	run "$AX" --db "$DB" runs --all
	assert_success
	assert_line --index 3 --regexp '^ 1  .*  r1  '
	refute_output --partial "newest"
	out=$("$AX" --db "$DB" --json runs --limit 1 2>/dev/null)
	[ "$(python3 -c 'import json,sys; print([r["id"] for r in json.load(sys.stdin)])' <<<"$out")" = "[3]" ]
}

@test "runs: --all with --limit, a bad --limit, arguments and a missing database exit 2" {
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}"
	run "$AX" --db "$DB" runs --all --limit 5
	assert_failure 2
	assert_output --partial "give one of them"
	run "$AX" --db "$DB" runs --limit 0
	assert_failure 2
	run "$AX" --db "$DB" runs --limit many
	assert_failure 2
	run "$AX" --db "$DB" runs 1
	assert_failure 2
	run "$AX" --db "$BATS_TEST_TMPDIR/none.db" runs
	assert_failure 2
	[ ! -e "$BATS_TEST_TMPDIR/none.db" ]
}

@test "runs never cuts a label, and shows a stored control character escaped" {
	long=$(printf 'é%.0s' $(seq 100)) # 100 characters, 200 bytes: allowed
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label "$long"
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label short
	[ "$(sql 'select label from run where id = 1')" = "$long" ]
	run "$AX" --db "$DB" runs
	assert_success
	assert_line --index 2 --partial "  $long  "
	# Column widths count characters, not bytes: the device column of
	# both rows starts at the same character.
	dev=$(device_name)
	a=$(python3 -c 'import sys; print(sys.argv[1].index(sys.argv[2]))' "${lines[1]}" "$dev")
	b=$(python3 -c 'import sys; print(sys.argv[1].index(sys.argv[2]))' "${lines[2]}" "$dev")
	[ "$a" = "$b" ]
	# A label written by something else than axbench reaches the
	# terminal as visible text.
	sql "update run set label = 'x' || char(27) || '[2J' where id = 2"
	run "$AX" --db "$DB" runs
	assert_success
	assert_line --index 1 --partial '  x\x1b[2J  '
}

@test "run --label: a bad label is refused before anything is measured (exit 2)" {
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}"
	for bad in "$(printf 'a\tb')" "$(printf 'a\x1b[31m')" "$(printf 'x\xff')" \
		"$(printf 'main\xe2\x80\xae')" "$(printf 'x%.0s' $(seq 101))"; do
		run "$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label "$bad"
		assert_failure 2
		assert_output --partial "run --label '"
		assert_output --partial "a run's label is 1 to 100 characters of UTF-8 without control characters"
		assert_output --partial "leave --label out for the default, HOST/DEVICE"
		refute_output --partial "verified"
	done
	run "$AX" --db "$DB" run "${TINY[@]}" --label "$(printf 'x%.0s' $(seq 101))"
	assert_output --partial "this one has 101 characters"
	run "$AX" --db "$DB" run "${TINY[@]}" --label "$(printf 'a\tb')"
	assert_output --partial 'holds the control character \x09 (character 2)'
	run "$AX" --db "$DB" run "${TINY[@]}" --label ""
	assert_failure 2
	[ "$(sql 'select count(*) from run')" = 1 ]
	# tune checks it too, before its session or run is stored; and a
	# label with nothing to name is refused.
	run "$AX" --db "$DB" "${TUNE[@]}" --label "$(printf 'a\nb')"
	assert_failure 2
	assert_output --partial "tune --label '"
	run "$AX" --db "$DB" tune --replay "$BATS_TEST_TMPDIR/x.json" --label x
	assert_failure 2
	assert_output --partial "--replay stores nothing"
	run "$AX" --db "$DB" recommend --label x
	assert_failure 2
	assert_output --partial "add --measure"
	[ "$(sql 'select count(*) from run')" = 1 ]
	[ "$(sql 'select count(*) from tune_session')" = 0 ]
	# A fresh database is not even created.
	run "$AX" --db "$BATS_TEST_TMPDIR/new.db" run "${TINY[@]}" --label "$(printf 'a\tb')"
	assert_failure 2
	[ ! -e "$BATS_TEST_TMPDIR/new.db" ]
}

@test "results --json carries each result's run_label; tune stores its --label" {
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label "ci main"
	"$AX" --db "$DB" "${TUNE[@]}" --label "tuned é"
	"$AX" --db "$DB" --json results >"$BATS_TEST_TMPDIR/out"
	python3 - "$BATS_TEST_TMPDIR/out" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))
labels = {(r["run_id"], r["run_label"]) for r in res}
assert labels == {(1, "ci main"), (2, "tuned é")}, labels
EOF
}

@test "an older database (schema 4, no labels) is read as it is today and upgraded by the next run" {
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label gone
	# The file as axbench before labels left it.
	sql "drop table baseline_run; drop index trial_result;
		drop index result_power_series;
		alter table run drop column label;
		alter table cpu_baseline drop column load_1m;
		alter table cpu_baseline drop column busy_other;
		alter table cpu_baseline drop column online_cpus;
		alter table tune_session drop column mode;
		alter table tune_session drop column front_json; pragma user_version = 4"
	sum=$(sha256sum "$DB")
	run "$AX" --db "$DB" runs
	assert_success
	assert_output --partial "its schema is older than this build's"
	assert_line --regexp '^ 1  .*  run +- +- +.* +1  complete$'
	run "$AX" --db "$DB" --json results
	assert_success
	assert_output --partial '"run_label": null'
	[ "$(sha256sum "$DB")" = "$sum" ]
	"$AX" --db "$DB" run "${TINY[@]}" "${FAST[@]}" --label new
	[ "$(sql 'pragma user_version')" = 9 ]
	[ "$(sql "select id || ':' || coalesce(label, 'NULL') from run order by id" | tr '\n' ' ')" = "1:NULL 2:new " ]
}
