#!/usr/bin/env bats
# axbench report at scale (issue 18): the page keeps each system's newest
# result per case, every run as one point of its case's history, raw
# samples only of the compared runs, and stays within its size budget.
load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	AX="${AXBENCH_BIN:-$AX}"
	T="$BATS_TEST_TMPDIR"
}

# Three real runs of the same two cases: a history of three points each.
three_runs() {
	for i in 1 2 3; do
		run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K,64K \
			"${FAST[@]}"
		assert_success
	done
}

# The JSON of one embedded block (axbench-data or axbench-history).
block() {
	python3 -c '
import re, sys
html = open(sys.argv[1]).read()
m = re.search(r"<script type=\"application/json\" id=\"%s\">(.*?)</script>" % sys.argv[2], html, re.S)
print(m.group(1))' "$1" "$2"
}

@test "history: one point per run, equal to the stored medians" {
	three_runs
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	assert_output --regexp 'report of 6 results in 3 runs written to .*r.html: [0-9.]+ KiB of its 8.0 MiB budget'
	block "$T/r.html" axbench-history >"$T/h.json"
	sql "SELECT x.params_hash, x.run_id, x.median FROM result x
	     JOIN run r ON r.id = x.run_id ORDER BY r.started_at, r.id" \
		>"$T/db.txt"
	python3 - "$T/h.json" "$T/db.txt" <<'PY'
import json, sys
series = json.load(open(sys.argv[1]))["series"]
want = {}
for line in open(sys.argv[2]):
    h, run, med = line.strip().split("|")
    want.setdefault(h, []).append((int(run), float(med)))
assert len(series) == 2, len(series)
got = sorted((s["run_id"], s["median"]) for s in series)
for runs, meds in got:
    assert runs == [1, 2, 3], runs
match = 0
for pts in want.values():
    runs = [r for r, _ in pts]
    for s in series:
        if all(abs(a - b) <= 1e-5 * abs(b) for a, b in
               zip(s["median"], [m for _, m in pts])):
            match += 1
            break
assert match == 2, (want, series)
PY
	# A sparkline per case, with its tooltip naming the runs.
	[ "$(grep -o '<svg class="spark"' "$T/r.html" | wc -l)" = 2 ]
	grep -qF '<title>3 runs, medians from' "$T/r.html"
}

@test "the page keeps the newest result per case; samples only of the compared run" {
	three_runs
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	grep -qF 'the charts and tables show each system' "$T/r.html"
	block "$T/r.html" axbench-data >"$T/d.json"
	python3 - "$T/d.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
res = d["results"]
# Two cases, each from the newest run, with no raw samples.
assert sorted(r["run_id"] for r in res) == [3, 3], res
assert all("samples" not in r for r in res)
# The default --samples-for last: run 3's results with their samples.
assert sorted(r["run_id"] for r in d["sampled"]) == [3, 3]
assert all(len(r["samples"]) == r["n"] for r in d["sampled"])
# Only the runs shown are embedded; the history names the rest.
assert [r["id"] for r in d["runs"]] == [3], d["runs"]
PY
	grep -qF '<h2 id="samples">Samples of the compared runs</h2>' \
		"$T/r.html"
	grep -qF 'Raw samples of run 3,' "$T/r.html"
}

@test "--samples-for: ids, baseline:NAME and none; a typo is refused" {
	three_runs
	run "$AX" --db "$DB" baseline save main --runs 1
	assert_success
	run "$AX" --db "$DB" report --samples-for 2,baseline:main -o "$T/r.html"
	assert_success
	block "$T/r.html" axbench-data >"$T/d.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(r["run_id"] for r in d["sampled"]) == [1, 1, 2, 2], d["sampled"]' "$T/d.json"
	grep -qF 'Raw samples of runs 2, 1,' "$T/r.html"
	run "$AX" --db "$DB" report --samples-for none -o "$T/n.html"
	assert_success
	grep -qF 'No run' "$T/n.html"
	echo keep >"$T/k.html"
	run "$AX" --db "$DB" report --samples-for baseline:nope -o "$T/k.html"
	[ "$status" -eq 2 ]
	assert_output --partial 'report: --samples-for baseline:nope: no such run or baseline'
	run "$AX" --db "$DB" report --samples-for 9 -o "$T/k.html"
	[ "$status" -eq 2 ]
	run "$AX" --db "$DB" report --samples-for fast -o "$T/k.html"
	[ "$status" -eq 2 ]
	assert_output --partial "--samples-for item 'fast' is not a run"
	[ "$(cat "$T/k.html")" = keep ]
}

@test "--max-size: a report over budget is refused and the old file kept" {
	three_runs
	echo old >"$T/r.html"
	run "$AX" --db "$DB" report --max-size 8K -o "$T/r.html"
	[ "$status" -eq 2 ]
	assert_output --partial 'report: the report would be larger than its budget of 8 KiB (--max-size)'
	assert_output --partial 'or raise --max-size'
	[ "$(cat "$T/r.html")" = old ]
	# No temporary file is left beside it.
	[ "$(ls "$T" | grep -c 'r.html')" = 1 ]
	run "$AX" --db "$DB" report --max-size 2M -o "$T/r.html"
	assert_success
	assert_output --partial 'of its 2.0 MiB budget'
	[ "$(stat -c %s "$T/r.html")" -le $((2 << 20)) ]
	# Over budget inside one large write (the embedded data, 2.4 MB
	# here, past a 1 MiB budget): refused the same way.
	sql "UPDATE result SET extra_json = json_object('pad',
		hex(zeroblob(600000))) WHERE run_id = 3"
	run "$AX" --db "$DB" report --max-size 1M -o "$T/r.html"
	[ "$status" -eq 2 ]
	assert_output --partial 'budget of 1.0 MiB (--max-size)'
	for bad in 0 10 1T5 -1 1K; do
		run "$AX" --db "$DB" report --max-size "$bad" -o "$T/x.html"
		[ "$status" -eq 2 ]
		assert_output --partial -- '--max-size'
	done
}

@test "history marks a run whose median moved beyond its interval" {
	three_runs
	# Set figures: run 2 moves 1 % (inside its interval), run 3 halves
	# (intervals apart): one change for the worse per case.
	sql "UPDATE result SET median = 100, ci_lo = 98, ci_hi = 102
		WHERE run_id = 1;
	     UPDATE result SET median = 101, ci_lo = 99, ci_hi = 103
		WHERE run_id = 2;
	     UPDATE result SET median = 50, ci_lo = 49, ci_hi = 51
		WHERE run_id = 3"
	run "$AX" --db "$DB" report --samples-for none -o "$T/r.html"
	assert_success
	grep -qF '2 changes for the worse marked.' "$T/r.html"
	grep -qF '(-50.5 %, worse)' "$T/r.html"
	block "$T/r.html" axbench-history >"$T/h.json"
	python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["series"]:
    assert s["change"] == [0, 0, -1], s["change"]
    assert s["median"] == [100, 101, 50], s["median"]' "$T/h.json"
	# A 3 % move with intervals apart, and a 10 % one with them
	# overlapping: only the first is a change.
	sql "UPDATE result SET median = 103, ci_lo = 102.5, ci_hi = 103.5
		WHERE run_id = 2;
	     UPDATE result SET median = 113.3, ci_lo = 90, ci_hi = 130
		WHERE run_id = 3"
	run "$AX" --db "$DB" report --samples-for none -o "$T/r.html"
	assert_success
	block "$T/r.html" axbench-history >"$T/h.json"
	python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["series"]:
    assert s["change"] == [0, 1, 0], s["change"]' "$T/h.json"
}
