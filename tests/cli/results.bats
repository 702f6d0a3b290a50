#!/usr/bin/env bats
load helper

setup() {
	ax_setup
	"$AX" --db "$DB" run bandwidth -p op=read,copy -p size=8K "${FAST[@]}" >/dev/null
	"$AX" --db "$DB" run bandwidth -p op=write -p size=8K "${FAST[@]}" >/dev/null
}

@test "results shows every stored result" {
	run "$AX" --db "$DB" results
	assert_success
	assert_output --partial "op=read size=8K"
	assert_output --partial "op=write size=8K"
}

@test "results --run last shows only the newest run" {
	run "$AX" --db "$DB" results --run last --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d) == 1 and d[0]["case"] == "op=write size=8K", d
assert d[0]["device"]["name"] and d[0]["host"]["hostname"] is not None'
}

@test "results --csv has a header and one row per result" {
	run "$AX" --db "$DB" results --csv
	assert_success
	[ "$(echo "$output" | head -1 | cut -d, -f1-5)" = "id,run_id,started_at,device,suite" ]
	[ "$(echo "$output" | wc -l)" -eq 4 ]
	echo "$output" | python3 -c 'import csv,sys; rows=list(csv.DictReader(sys.stdin)); assert all(float(r["median"])>0 for r in rows)'
}

@test "results --suite filters and --samples includes raw samples" {
	run "$AX" --db "$DB" --json results --suite bandwidth --samples
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d) == 3
assert all(len(r["samples"]) == r["n"] for r in d)'
}

@test "results on a missing database says so (exit 2) and creates nothing" {
	run "$AX" --db "$BATS_TEST_TMPDIR/none.db" results
	assert_failure 2
	[ ! -e "$BATS_TEST_TMPDIR/none.db" ]
}

@test "results --run with a bad id is a usage error" {
	run "$AX" --db "$DB" results --run abc
	assert_failure 2
	assert_output --partial "--run must be a run id"
}
