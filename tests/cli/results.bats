#!/usr/bin/env bats
load helper
bats_require_minimum_version 1.5.0

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

@test "the table: +-ci as run prints it, 'verified', a label column where runs differ, notes on stderr, the case column short" {
	run --separate-stderr "$AX" --db "$DB" results
	assert_success
	assert_line --index 0 --regexp '^id +run +suite +case +median +unit +\+-ci +n +W .*%spec +status$'
	# three rows: an interval in percent, %spec "?" (lavapipe has no
	# spec), "verified" (the stored "ok") last
	[ "$(grep -cE '^[0-9]+ +[0-9]+ +bandwidth +op=[a-z]+ size=8K +[0-9.e+-]+ GB/s +[0-9.]+% +[0-9]+ .* \? verified$' <<<"$output")" -eq 3 ]
	refute_output --partial "spec unknown"
	[[ "$stderr" == *"%spec: spec unknown for "* ]]
	# both runs have the default label: no label column
	refute_line --index 0 --partial "label"
	sqlite3 "$DB" "update run set label = 'before' where id = 1"
	run --separate-stderr "$AX" --db "$DB" results
	assert_line --index 0 --regexp '^id +run +label +suite '
	[ "$(grep -c '^[0-9]* *1 *before  *bandwidth' <<<"$output")" -eq 2 ]
	# -v: the whole stored case; the CSV keeps "ok"
	run --separate-stderr "$AX" --db "$DB" -v results
	[[ "$stderr" != *"leaves out"* ]]
	run "$AX" --db "$DB" results --csv
	assert_output --partial ",ok,"
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

@test "results --json --samples is written as it is read: one document, the stored samples, and --json is the same less them" {
	d=$BATS_TEST_TMPDIR
	"$AX" --db "$DB" --json results --samples >"$d/s.json"
	"$AX" --db "$DB" --json results >"$d/p.json"
	python3 - "$DB" "$d/s.json" "$d/p.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
text = open(sys.argv[2]).read()
streamed = json.loads(text)  # one document: text after it would raise
plain = json.load(open(sys.argv[3]))
ids = [i for (i,) in db.execute("select id from result order by id")]
assert [r["id"] for r in streamed] == ids, streamed
for r in streamed:
    rows = db.execute("select value, seconds from sample where result_id = ?"
                      " order by idx", (r["id"],)).fetchall()
    assert len(rows) == r["n"] > 0, r
    assert r["samples"] == [v for v, _ in rows], r["id"]
    assert r["seconds"] == [s for _, s in rows], r["id"]
    del r["samples"], r["seconds"]
assert streamed == plain
# The layout jansson gives the whole array with JSON_INDENT(2).
lines = text.split("\n")
assert lines[:2] == ["[", "  {"] and lines[-2:] == ["]", ""], lines
assert all(l.startswith("  ") for l in lines[1:-2])
assert text.count("\n  },\n  {\n") == len(ids) - 1
PY
}

@test "results --json and --csv streamed: --device keeps its results, and a selection of none writes nothing" {
	name=$(sql "select name from device limit 1")
	all=$("$AX" --db "$DB" --json results --samples)
	[ "$("$AX" --db "$DB" --device "$name" --json results --samples)" = "$all" ]
	[ "$("$AX" --db "$DB" --device "$name" results --csv)" = \
		"$("$AX" --db "$DB" results --csv)" ]
	for args in "--device nosuch --json results" "--device 0 --json results" \
		"--json results --suite gemm" "--device nosuch results --csv"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$AX" --db "$DB" $args
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ -n "$stderr" ]
	done
	# An empty database: an empty array, a bare header.
	sql "PRAGMA foreign_keys = ON; delete from sample; delete from result"
	[ "$("$AX" --db "$DB" --json results --samples)" = "[]" ]
	[ "$("$AX" --db "$DB" results --csv | wc -l)" -eq 1 ]
}

# A copy of configs/ whose specs.yaml also lists this machine's first
# device by its own PCI ids (lavapipe's), so "% of spec" is computed end
# to end; the figures are made up and never checked, only that a number
# comes out.
specs_with_this_device() {
	cfg=$BATS_TEST_TMPDIR/configs
	# -L: in scripts/asan.sh's tree configs/ is a link to the real one
	cp -rL configs "$cfg"
	"$AX" devices --json | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
print("""  - name: this test device
    vendor_id: %d
    device_ids: [%d]
    fp32_tflops: 1
    memory_gbps: 100
    source: tests/cli/results.bats (made-up figures)""" % (d["vendor_id"], d["device_id"]))' >>"$cfg/specs.yaml"
	export AXBENCH_CONFIG_DIR=$cfg
}

@test "results: a device not in configs/specs.yaml (lavapipe) is spec unknown, in the table and in --json" {
	run "$AX" --db "$DB" results
	assert_success
	assert_output --partial "%spec"
	assert_output --partial "spec unknown for"
	assert_output --partial "matched by PCI ids only"
	"$AX" --db "$DB" --json results | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d and all(r["spec"]["status"] == "unknown" for r in d), d
assert all(r["spec"]["figure"] == "memory bandwidth" for r in d)
assert all(r["spec"]["percent"] is None for r in d)'
}

@test "results: a specs entry with this device's PCI ids gives % of spec in the table, --json and --csv" {
	specs_with_this_device
	run "$AX" --db "$DB" results
	assert_success
	refute_output --partial "spec unknown"
	# The %spec column of every row is a percentage.
	echo "$output" | awk 'NR > 1 && $1 ~ /^[0-9]+$/ {
		if ($(NF - 1) !~ /^[0-9]+(\.[0-9]+)?%$/) exit 1 }'
	"$AX" --db "$DB" --json results | python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d:
    s = r["spec"]
    assert s["status"] == "compared", s
    assert s["figure"] == "memory bandwidth" and s["value"] == 100, s
    assert isinstance(s["percent"], float) and s["percent"] > 0, s
    assert abs(s["percent"] - 100 * r["median"] / 100) < 1e-9, s
    assert s["product"] == "this test device" and "results.bats" in s["source"]'
	"$AX" --db "$DB" results --csv | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["spec.status"] == "compared" for r in rows)
assert all(float(r["spec.percent"]) > 0 for r in rows)'
}

@test "results: a malformed specs.yaml is refused with FILE:LINE:COL (exit 2); a missing one makes every device spec unknown" {
	specs_with_this_device
	printf '    colour: green\n' >>"$AXBENCH_CONFIG_DIR/specs.yaml"
	run "$AX" --db "$DB" results
	assert_failure 2
	assert_output --regexp "specs\.yaml:[0-9]+:[0-9]+: unknown key 'colour'"
	rm "$AXBENCH_CONFIG_DIR/specs.yaml"
	run --separate-stderr "$AX" --db "$DB" results
	assert_success
	refute_output --partial "spec unknown"
	[[ "$stderr" == *"specs.yaml not found"* ]]
	[[ "$stderr" == *"%spec: spec unknown for "* ]]
	run --separate-stderr "$AX" --db "$DB" --json results
	assert_success
	[ -z "$stderr" ]
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert all(r["spec"]["reason"] == "no specs file" for r in d)'
}
