#!/usr/bin/env bats
# axbench compare: verdicts from real runs whose samples are edited with
# sqlite3, the exit codes, and the JSON / Markdown / JUnit files agreeing.
load helper

# Enough samples for a verdict (compare needs 5 a side); figures unchecked.
CMP=(--min-samples 20 --max-samples 20 --min-time 0 --max-time 5 --warmup 2)

setup() {
	ax_setup
	AX="${AXBENCH_BIN:-$AX}"
	T="$BATS_TEST_TMPDIR"
}

measure() {
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=64K,256K \
		"${CMP[@]}"
	assert_success
}

# Pin the measured samples of $DB to a deterministic +/-2 % spread around
# each result's real median.  Under the validation layer on two shared
# cores lavapipe's samples spread by +/-30 %, where a true 10 % change is
# rightly "ambiguous" at n = 20; these tests check compare's plumbing and
# exit codes, the unit tests its statistics.
steady() {
	sqlite3 "$DB" "UPDATE sample SET value = (SELECT median FROM result
		WHERE result.id = sample.result_id) *
		(1 + (((idx * 7) % 11) - 5) * 0.004);"
}

# A steady copy of the database whose samples are all 10 % slower.
slower_copy() {
	steady
	cp "$DB" "$1"
	sqlite3 "$1" "UPDATE sample SET value = value * 0.9,
		seconds = seconds / 0.9;
		UPDATE result SET median = median * 0.9, q1 = q1 * 0.9,
		q3 = q3 * 0.9;"
}

# Overwrite every sample of the database with a deterministic +/-20 %
# spread around center, permuted by mult so the two sides differ.
noisy_copy() { # dest center mult
	cp "$DB" "$1"
	sqlite3 "$1" "UPDATE sample SET value = $2 *
		(1 + (((idx * $3) % 11) - 5) * 0.04);
		UPDATE result SET median = $2;"
}

@test "a run against itself: all same, exit 0" {
	measure
	run "$AX" --db "$DB" compare 1 last
	assert_success
	assert_output --partial "0 slower, 0 faster, 2 same, 0 ambiguous"
	run "$AX" --db "$DB" compare "$DB" "$DB:1" --strict
	assert_success
}

@test "last~N names the N-th run before the newest, in compare, results and baseline save" {
	measure
	measure
	# two real runs: their verdict may be anything (exit 0 or 1), the
	# runs compared may not
	run "$AX" --db "$DB" compare last~1 last
	[ "$status" -le 1 ]
	assert_line --index 0 --partial "compare run 1 (BASE) with run 2 (CAND)"
	run "$AX" --db "$DB" compare last~2 last
	assert_failure 2
	assert_output --partial "holds 2 runs of \`axbench run\`, so 'last' is the newest and 'last~1' the oldest"
	run "$AX" --db "$DB" compare last~x last
	assert_failure 2
	run "$AX" --db "$DB" --json results --run last~1
	assert_success
	run python3 -c 'import json,sys; print(sorted({r["run_id"] for r in json.load(sys.stdin)}))' <<<"$output"
	assert_output "[1]"
	run "$AX" --db "$DB" results --run last~9
	assert_failure 2
	assert_output --partial "holds 2 runs, so the newest is last and the oldest last~1"
	run "$AX" --db "$DB" baseline save before --run last~1
	assert_success
	assert_output --partial "run 1"
}

@test "10% slower copy: slower, exit 1, and the three files agree" {
	measure
	slower_copy "$T/slow.db"
	run "$AX" --db "$DB" compare 1 "$T/slow.db" --json "$T/c.json" \
		--markdown "$T/c.md" --junit "$T/c.xml"
	assert_failure 1
	assert_output --partial "2 slower"
	[ -s "$T/c.json" ]
	[ -s "$T/c.md" ]
	[ -s "$T/c.xml" ]
	run python3 - "$T/c.json" "$T/c.md" "$T/c.xml" <<-'EOF'
	import json, sys, xml.etree.ElementTree as ET
	j = json.load(open(sys.argv[1]))
	md = open(sys.argv[2]).read()
	x = ET.parse(sys.argv[3]).getroot()
	slow = [r for r in j["rows"] if r["verdict"] == "slower"]
	assert j["summary"]["slower"] == 2 == len(slow), j["summary"]
	assert j["summary"]["regressions"] == 2
	for r in slow:
	    lo, hi = r["improvement_ci_pct"]
	    assert -15 < lo <= hi < -2, (lo, hi)
	    assert r["p_value"] < 0.05
	assert md.count("| **slower (regression)** |") == 2, md
	assert "2 slower" in md
	assert x.get("tests") == "2" and x.get("failures") == "2", x.attrib
	fails = x.findall(".//testcase/failure")
	assert len(fails) == 2 and all("slower" in f.get("message") for f in fails)
	print("agree")
	EOF
	assert_success
	assert_output "agree"
}

@test "-q prints the summary and only the rows that regressed; nothing to show, the summary alone" {
	measure
	steady
	cp "$DB" "$T/slow.db"
	sqlite3 "$T/slow.db" "UPDATE sample SET value = value * 0.9
		WHERE result_id = (SELECT MIN(id) FROM result);
		UPDATE result SET median = median * 0.9
		WHERE id = (SELECT MIN(id) FROM result);"
	run "$AX" --db "$DB" compare 1 "$T/slow.db" -q
	assert_failure 1
	assert_line --index 0 --partial "1 slower, 0 faster, 1 same"
	assert_line --index 0 --partial "1 regression "
	assert_output --partial "slower"
	[ "$(grep -c 'size=64K' <<<"$output")" -eq 1 ]
	refute_output --partial "size=256K"
	run "$AX" --db "$DB" compare 1 "$DB" -q
	assert_success
	assert_line --index 0 --partial "0 regressions"
	[ "${#lines[@]}" -eq 1 ]
}

@test "the slower copy passes under a per-suite threshold of 15%" {
	measure
	slower_copy "$T/slow.db"
	run "$AX" --db "$DB" compare 1 "$T/slow.db" \
		--threshold-for 'band*=15' --json "$T/c.json"
	assert_success
	run python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print(s["same"], s["slower"])' "$T/c.json"
	assert_output "2 0"
}

@test "the candidate as base: faster, which passes" {
	measure
	slower_copy "$T/slow.db"
	run "$AX" --db "$DB" compare "$T/slow.db:1" 1
	assert_success
	assert_output --partial "0 slower, 2 faster"
}

@test "a tiny difference in samples that missed their noise target: noisy, exit 0; --strict judges them: ambiguous, 3" {
	measure
	noisy_copy "$T/base.db" 10 7
	noisy_copy "$T/cand.db" 10.05 5
	run "$AX" compare "$T/base.db" "$T/cand.db:last" --markdown "$T/m.md"
	assert_success
	assert_output --partial "0 slower, 0 faster, 0 same, 0 ambiguous, 2 noisy"
	assert_output --partial "missed the noise target of +/-2%"
	grep -q "| noisy |" "$T/m.md"
	run "$AX" compare "$T/base.db" "$T/cand.db" --strict
	assert_failure 3
	assert_output --partial "2 ambiguous, 0 noisy"
}

@test "a 10% drop through samples that missed their noise target is noisy, not a regression; --strict judges the samples alone; 3x slower stays slower" {
	measure
	noisy_copy "$T/base.db" 10 7
	noisy_copy "$T/cand.db" 9 5
	run "$AX" compare "$T/base.db" "$T/cand.db"
	assert_success
	assert_output --partial "2 noisy"
	assert_output --partial "0 regressions"
	run "$AX" compare "$T/base.db" "$T/cand.db" --strict
	assert_failure 3
	assert_output --partial "2 ambiguous, 0 noisy"
	# A change far beyond the noise is no noise: 3 times slower.
	noisy_copy "$T/far.db" 3.3 5
	run "$AX" compare "$T/base.db" "$T/far.db"
	assert_failure 1
	assert_output --partial "2 slower"
}

@test "--json after the command: alone on stdout with no FILE or '-', a file after BASE and CAND" {
	measure
	for form in "compare 1 last --json" "compare 1 last --json -" \
		"compare --json 1 last" "--json compare 1 last"; do
		# shellcheck disable=SC2086
		run "$AX" --db "$DB" $form
		echo "$form: $status"
		assert_success
		# exactly one JSON document on stdout, nothing else
		run python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["summary"]["same"])' <<<"$output"
		assert_output "2"
	done
	run "$AX" --db "$DB" compare 1 last --json "$T/c.json"
	assert_success
	assert_output --partial "2 same"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/c.json"
	run "$AX" --db "$DB" compare 1 last --json="$T/d.json"
	assert_success
	[ -s "$T/d.json" ]
}

@test "a time 18 times longer reads '18.x× slower', a failed side 'failed-verification', never 0" {
	run "$AX" --db "$DB" run latency "${CMP[@]}"
	assert_success
	steady
	cp "$DB" "$T/slow.db"
	sqlite3 "$T/slow.db" "UPDATE sample SET value = value * 18.6;
		UPDATE result SET median = median * 18.6;"
	run "$AX" --db "$DB" compare 1 "$T/slow.db"
	assert_failure 1
	assert_output --regexp "18\.[0-9]× slower"
	refute_output --partial "%"" ["
	sqlite3 "$T/slow.db" "UPDATE result SET status = 'failed-verification',
		median = 0"
	run "$AX" --db "$DB" compare 1 "$T/slow.db" --json -
	assert_failure 1
	# one document, checked against its schema (a bool parameter is a
	# JSON boolean, a failed median null)
	python3 docs/json/check.py compare <<<"$output"
	run python3 -c 'import json,sys; r=json.load(sys.stdin)["rows"]; print([x["candidate"]["median"] for x in r], r[0]["params"]["barrier"])' <<<"$output"
	assert_output --partial "True"
	assert_output --partial "None"
	refute_output --partial "0.0"
	run "$AX" --db "$DB" compare 1 "$T/slow.db"
	assert_output --partial "failed-verification"
}

@test "the text table keeps cases whole; a narrow terminal puts the case on its own line" {
	run "$AX" --db "$DB" run gemm -p m=16 -p n=16 -p k=16,32 "${CMP[@]}"
	assert_success
	run "$AX" --db "$DB" compare 1 1
	assert_success
	assert_output --partial "m=16 n=16 k=16 batch=1 dtype=f32 trans_a=false trans_b=false kernel="
	assert_output --partial "m=16 n=16 k=32 batch=1 dtype=f32 trans_a=false trans_b=false kernel="
	assert_output --partial "device: llvmpipe"
	COLUMNS=60 run "$AX" --db "$DB" compare 1 1
	assert_output --partial "    case: m=16 n=16 k=32"
}

@test "baseline:NAME resolves through the database" {
	measure
	run "$AX" --db "$DB" baseline save main --run 1
	assert_success
	slower_copy "$T/slow.db"
	run "$AX" --db "$T/slow.db" compare "$DB:baseline:main" last
	assert_failure 1
	run "$AX" --db "$DB" compare baseline:nope last
	assert_failure 2
	assert_output --partial "nope"
}

@test "a failed candidate result is listed and counts as a regression" {
	measure
	cp "$DB" "$T/bad.db"
	sqlite3 "$T/bad.db" "UPDATE result SET status = 'failed-verification',
		error_text = 'max error 3 > 1e-5' WHERE id = 1"
	run "$AX" --db "$DB" compare 1 "$T/bad.db" --junit "$T/x.xml"
	assert_failure 1
	assert_output --partial "failed-verification (max error 3 > 1e-5)"
	grep -q 'failures="1"' "$T/x.xml"
}

@test "nothing comparable, bad specs and bad options exit 2" {
	run "$AX" --db "$DB" run transfer -p chunk=64K -p total=256K "${FAST[@]}"
	assert_success
	measure
	run "$AX" --db "$DB" compare 1 2
	assert_failure 2
	assert_output --partial "only in BASE"
	assert_output --partial "nothing comparable"
	run "$AX" --db "$DB" compare 1
	assert_failure 2
	run "$AX" --db "$DB" compare 1 no-such.db
	assert_failure 2
	assert_output --partial "no-such.db"
	run "$AX" --db "$DB" compare 1 99
	assert_failure 2
	run "$AX" --db "$DB" compare 1 2 --threshold lots
	assert_failure 2
	assert_output --partial "--threshold"
	run "$AX" --db "$DB" compare 1 2 --threshold-for gemm
	assert_failure 2
	assert_output --partial "GLOB=PCT"
}

@test "an unwritable output file is a storage error, after the others" {
	measure
	run "$AX" --db "$DB" compare 1 1 --json "$T/ok.json" \
		--markdown "$T/no/such/dir.md"
	assert_failure 5
	[ -s "$T/ok.json" ]
}

@test "every output states the minimum detectable effect, per case and as a range; a change below it is not called slower" {
	measure
	noisy_copy "$T/base.db" 10 7
	noisy_copy "$T/cand.db" 9 5
	run "$AX" compare "$T/base.db" "$T/cand.db" --json "$T/c.json" \
		--markdown "$T/c.md"
	assert_success
	assert_output --regexp "can detect changes above [0-9.]+% \(median; range [0-9.]+% to [0-9.]+% over 2 cases\)"
	assert_output --partial "a paired comparison (\`axbench ab\`)"
	assert_output --partial "--rounds"
	assert_output --partial " MDE "
	grep -q "can detect changes above" "$T/c.md"
	grep -q "| MDE |" "$T/c.md"
	grep -q '`axbench ab`' "$T/c.md"
	python3 docs/json/check.py compare <"$T/c.json"
	run python3 - "$T/c.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	s = d["summary"]["mde"]
	assert s["cases"] == 2 and s["min_pct"] <= s["median_pct"] <= s["max_pct"], s
	assert "can detect changes above" in s["text"] and "axbench ab" in s["advice"], s
	for r in d["rows"]:
	    m = r["mde"]
	    # a 10 % drop through +/-20 % samples: the MDE is above it, and
	    # the row is not a regression
	    assert m["effect_pct"] > 10 and r["verdict"] != "slower", (m, r["verdict"])
	    assert abs(m["effect_pct"] - m["threshold_pct"] - m["half_width_pct"]) < 1e-9
	    assert m["runs_a_side"] is None or m["runs_a_side"] > 1, m
	print("ok")
	EOF
	assert_success
	assert_output "ok"
	# The steady 10 % slower copy: called slower, its MDE below 10 %.
	slower_copy "$T/slow.db"
	run "$AX" --db "$DB" compare 1 "$T/slow.db" --json -
	assert_failure 1
	run python3 -c 'import json,sys; print(all(r["verdict"] == "slower" and r["mde"]["effect_pct"] < 10 for r in json.load(sys.stdin)["rows"]))' <<<"$output"
	assert_output "True"
}

@test "'last' skips a tuning session; the tune run is named by its id" {
	measure
	"$AX" --db "$DB" tune bandwidth -p op=copy -p size=4K --budget 3 \
		--retime 0 >/dev/null 2>&1
	[ "$(sql 'select count(*) from run')" = 2 ]
	run "$AX" --db "$DB" compare 1 last
	assert_success
	assert_output --partial "with run 1 (CAND)"
	assert_output --partial "2 same"
	run "$AX" --db "$DB" compare "$DB" 1
	assert_success
	assert_output --partial "compare run 1 (BASE)"
	run "$AX" --db "$DB" compare 1 2
	assert_output --partial "with run 2 (CAND)"
	# A database of tuning sessions only: 'last' names none, and says so.
	"$AX" --db "$T/tune.db" tune bandwidth -p op=copy -p size=4K \
		--budget 2 --retime 0 >/dev/null 2>&1
	run "$AX" --db "$T/tune.db" compare last 1
	assert_failure 2
	assert_output --partial "'last' is the newest run of \`axbench run\`"
	assert_output --partial "\`axbench runs\` lists them"
}

@test "a --tuned run and a default run of the same shape compare as one case, naming the tunables" {
	M=(--min-samples 6 --max-samples 6 --min-time 0 --max-time 2 --warmup 1)
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=64K -p wg=64,256 \
		"${M[@]}" >/dev/null 2>&1
	# wg=64 made certainly faster, so export picks it
	sql "update sample set value = (case when (select json_extract(params_json,
		'$.wg') from result where id = sample.result_id) = 64 then 4
		else 2 end) * (1 + 0.001 * idx);
	     update result set median = (case when json_extract(params_json,
		'$.wg') = 64 then 4 else 2 end) * 1.0025"
	"$AX" --db "$DB" export -o "$T/t.yaml" >/dev/null
	"$AX" --db "$DB" run --tuned "$T/t.yaml" "${M[@]}" >/dev/null 2>&1
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=64K "${M[@]}" \
		>/dev/null 2>&1
	[ "$(sql "select json_extract(params_json, '$.wg') from result where run_id = 2")" = 64 ]
	[ "$(sql "select json_extract(params_json, '$.wg') from result where run_id = 3")" = 256 ]
	run "$AX" --db "$DB" compare 3 2 --markdown "$T/c.md"
	assert_output --partial "0 unmatched"
	assert_output --partial "tunables differ (BASE -> CAND): wg 256 -> 64"
	grep -qF "(tunables differ: wg 256 → 64)" "$T/c.md"
	run "$AX" --db "$DB" compare 3 2 --json -
	python3 docs/json/check.py compare <<<"$output"
	run python3 -c 'import json,sys; r=json.load(sys.stdin)["rows"]; print(len(r), r[0]["tunables"])' <<<"$output"
	assert_output "1 [{'base': 256, 'candidate': 64, 'name': 'wg'}]"
}

@test "a knob added since the baseline (stored by neither its run nor its hash) at its default is no difference" {
	run "$AX" --db "$DB" run reduce -p size=64K "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run reduce -p size=64K "${FAST[@]}"
	assert_success
	# Run 1 as an axbench before sg_size stored it.
	sql "update result set params_json = json_remove(params_json, '$.sg_size'), params_hash = 'before-sg_size' where run_id = 1"
	run "$AX" --db "$DB" compare 1 2
	[ "$status" -le 3 ]
	assert_output --regexp "reduce +size=64K"
	refute_output --partial "tunables differ"
	refute_output --partial "unmatched: "
}
