#!/usr/bin/env bats
# Tuning as the kernel will run (issue 39, item 4): `tune --mode cold`
# samples every trial, the re-timing and the paired verdict with the caches
# scrubbed before each single repetition, stores the mode with the session,
# keeps it on --resume, and the report puts warm and cold optima side by
# side.  Real runs on lavapipe, real SQLite files.
load helper
bats_require_minimum_version 1.5.0

setup() { ax_setup; }

# A small copy: in batch mode a sample is many back-to-back repetitions.
TUNE=(tune bandwidth -p op=copy -p size=64K --strategy random --seed 2)

@test "tune --mode cold: every measurement is one repetition a sample, and the session stores cold" {
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 2 --mode cold
	assert_success
	assert_output --partial "(cold mode: caches scrubbed before each single repetition)"
	[ "$(sql 'select mode from tune_session')" = cold ]
	# Every result of the session, defaults, trials, re-timing and the
	# paired rounds: one repetition per sample.
	[ "$(sql "select count(*) from result where json_extract(extra_json, '$.reps_per_sample') != 1")" -eq 0 ]
	[ "$(sql 'select count(*) from result')" -ge 4 ]
	# The export says under which mode a tuned point was chosen.
	run --separate-stderr "$AX" --db "$DB" export --format json
	assert_success
	echo "$output" | python3 -c '
import json, sys
entries = [e for d in json.load(sys.stdin)["devices"] for s in d["suites"].values() for e in s]
assert entries, "no entry"
for e in entries:
    assert "mode" in e, e
    assert e["mode"] == ("cold" if e["choice"] == "tuned" else None), e
'
}

@test "tune in batch mode (the default) stores batch and samples back to back" {
	run "$AX" --db "$DB" --json "${TUNE[@]}" --budget 2
	assert_success
	[ "$(echo "$output" | python3 -c 'import json,sys; print(json.load(sys.stdin)["mode"])')" = batch ]
	[ "$(sql 'select mode from tune_session')" = batch ]
	[ "$(sql "select min(json_extract(extra_json, '$.reps_per_sample')) from result")" -gt 1 ]
}

@test "tune --resume keeps the session's mode and refuses another" {
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 2 --mode cold
	assert_success
	run "$AX" --db "$DB" tune --resume 1 --mode batch --budget 3
	assert_failure 2
	assert_output --partial "--mode batch: session 1 samples its trials in cold mode; --resume continues it so"
	[ "$(sql 'select count(*) from trial')" -eq 2 ]
	run "$AX" --db "$DB" tune --resume 1 --budget 3
	assert_success
	[ "$(sql 'select count(*) from trial')" -eq 3 ]
	[ "$(sql "select count(*) from result where json_extract(extra_json, '$.reps_per_sample') != 1")" -eq 0 ]
	run "$AX" --db "$DB" tune bandwidth --mode warm
	assert_failure 2
	assert_output --partial "warm"
}

@test "the report sets a cold session's optimum beside the warm one's" {
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 2 --mode cold
	assert_success
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 2
	assert_success
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR/r.html"
	assert_success
	python3 - "$BATS_TEST_TMPDIR/r.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
i = html.index("<h3>Warm and cold optima</h3>")
table = html[i:html.index("</table>", i)]
rows = re.findall(r"<tr><td>(.*?)</tr>", table)
assert len(rows) == 1, rows
row = re.sub("<[^>]+>", "", rows[0])
assert "session 2:" in row and "session 1:" in row, row
assert "the same point" in row or "different points" in row, row
# Only the unusual mode is named in a session's name.
assert "random seed 2, cold, session 1" in html
assert "random seed 2, session 2" in html
PY
}

@test "a session stored before modes (schema 8) is a batch session, and the next write upgrades the file" {
	run "$AX" --db "$DB" "${TUNE[@]}" --budget 2
	assert_success
	# The file as axbench before migration 9 left it.
	sql "alter table tune_session drop column mode;
		alter table tune_session drop column front_json;
		pragma user_version = 8"
	run "$AX" --db "$DB" tune --resume 1 --budget 3 --mode cold
	assert_failure 2
	assert_output --partial "--mode cold: session 1 samples its trials in batch mode"
	[ "$(sql 'pragma user_version')" = 9 ]
	[ "$(sql 'select coalesce(mode, "NULL") from tune_session')" = NULL ]
	run "$AX" --db "$DB" tune --resume 1 --budget 3
	assert_success
	[ "$(sql 'select count(*) from trial')" -eq 3 ]
}
