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
