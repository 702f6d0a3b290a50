#!/usr/bin/env bats
# Issue 11, item 19: `export` and `run --tuned` never make things slower.
# A tuned point is exported only when it was measured beside the defaults
# (same run, fully sampled) and beat them beyond noise by compare's
# statistics; otherwise the defaults, with the reason.
#
# The databases are built with real runs.  Whether a real point beats the
# defaults on this machine is noise, so where the statistics decide, the
# test makes the verdict certain by rewriting the stored samples with
# sqlite3 (set_samples: a named stand-in for a faster or slower kernel).
load helper
bats_require_minimum_version 1.5.0

MEASURE=(--min-samples 6 --max-samples 6 --min-time 0 --max-time 2 --warmup 1)

setup() {
	ax_setup
	# one run: wg=64 (tuned) beside wg=256 (the default), op=copy 64K
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=64K -p wg=64,256 \
		"${MEASURE[@]}" >/dev/null 2>&1
}

# id of the newest result of run $1 (max: the newest) whose wg is $2
rid() {
	sql "select max(id) from result where run_id = $1 and
	     json_extract(params_json, '$.wg') = $2"
}

# Stand-in: result $1's six samples become $2 * (1, 1.001, ... 1.005), its
# median $2 * 1.0025, so compare's verdict between two results is certain.
set_samples() {
	sql "update sample set value = $2 * (1 + 0.001 * idx)
	     where result_id = $1;
	     update result set median = $2 * 1.0025 where id = $1"
}

# Field $2 of the bandwidth entry of export document $1, as Python prints it
field() {
	python3 - "$1" "$2" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
e = doc["devices"][0]["suites"]["bandwidth"][0]
v = e
for k in sys.argv[2].split("."):
    v = v[k]
print(v)
PY
}

# wg of the newest run's only result
newest_wg() {
	sql "select json_extract(params_json, '$.wg') from result
	     where run_id = (select max(id) from run)"
}

@test "export: a tuned point whose samples are all slower than the defaults is not exported" {
	set_samples "$(rid 1 64)" 1.0
	set_samples "$(rid 1 256)" 2.0
	run "$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/t.yaml"
	assert_success
	assert_output --partial "bandwidth"
	assert_output --partial "defaults: no tuned point beat the defaults"
	T="$BATS_TEST_TMPDIR/t.yaml"
	[ "$(field "$T" choice)" = defaults ]
	[ "$(field "$T" params.wg)" = 256 ]
	[ "$(field "$T" speedup)" = None ]
	field "$T" reason | grep -q "was slower"
	# run --tuned runs the defaults
	run "$AX" --db "$DB" run --tuned "$T" "${FAST[@]}"
	assert_success
	[ "$(newest_wg)" -eq 256 ]
}

@test "export: a point faster beyond noise is exported with compare's evidence, and run --tuned runs it" {
	set_samples "$(rid 1 64)" 4.0
	set_samples "$(rid 1 256)" 2.0
	run "$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/t.yaml"
	assert_success
	assert_output --partial "tuned, 2x the defaults"
	T="$BATS_TEST_TMPDIR/t.yaml"
	[ "$(field "$T" choice)" = tuned ]
	[ "$(field "$T" params.wg)" = 64 ]
	[ "$(field "$T" speedup)" = 2.0 ]
	[ "$(field "$T" evidence.verdict)" = faster ]
	[ "$(field "$T" evidence.default_result_id)" = "$(rid 1 256)" ]
	run "$AX" --db "$DB" run --tuned "$T" "${FAST[@]}"
	assert_success
	[ "$(newest_wg)" -eq 64 ]
}

@test "export: a point within noise of the defaults is not exported" {
	set_samples "$(rid 1 64)" 2.01
	set_samples "$(rid 1 256)" 2.0
	"$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/t.yaml" 2>/dev/null
	T="$BATS_TEST_TMPDIR/t.yaml"
	[ "$(field "$T" choice)" = defaults ]
	field "$T" reason | grep -q "was same"
}

@test "export: a point measured in another run than the defaults is not exported" {
	# the history holds a fast wg=64 from a later run (another binary,
	# other settings...): never set against run 1's defaults
	set_samples "$(rid 1 64)" 1.0
	set_samples "$(rid 1 256)" 2.0
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=64K -p wg=64 \
		"${MEASURE[@]}" >/dev/null 2>&1
	set_samples "$(rid 2 64)" 50.0
	"$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/t.yaml" 2>/dev/null
	T="$BATS_TEST_TMPDIR/t.yaml"
	[ "$(field "$T" choice)" = defaults ]
	[ "$(field "$T" params.wg)" = 256 ]
}

@test "export: tuning trials (light sampling) never count against the defaults" {
	set_samples "$(rid 1 256)" 2.0
	set_samples "$(rid 1 64)" 4.0
	sql "update result set extra_json = json_set(coalesce(extra_json, '{}'),
	     '$.role', 'trial') where id = $(rid 1 64)"
	"$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/t.yaml" 2>/dev/null
	T="$BATS_TEST_TMPDIR/t.yaml"
	[ "$(field "$T" choice)" = defaults ]
	field "$T" reason | grep -q "same run as the defaults"
}

@test "export: the defaults measured twice are never a speed-up" {
	set_samples "$(rid 1 64)" 1.0
	set_samples "$(rid 1 256)" 2.0
	# a second measurement of the defaults, in run 1, far faster
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=64K \
		"${MEASURE[@]}" >/dev/null 2>&1
	id=$(rid 2 256)
	sql "update result set run_id = 1 where id = $id"
	set_samples "$id" 9.0
	"$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/t.yaml" 2>/dev/null
	T="$BATS_TEST_TMPDIR/t.yaml"
	[ "$(field "$T" choice)" = defaults ]
	[ "$(field "$T" speedup)" = None ]
}

@test "tune: the default point is measured as the defaults only, and identical parameters are no speed-up" {
	# transfer has one tunable (inflight 1..4): grid tries all four and
	# --retime 4 would re-time the default point beside the defaults
	run "$AX" --db "$DB" --json tune transfer -p chunk=4K -p total=16K \
		--strategy grid --budget 4 --retime 4 --no-early-stop
	assert_success
	s=$(sql "select max(id) from tune_session")
	n=$(sql "select count(*) from result where
		 json_extract(extra_json, '$.tune_session') = $s and
		 json_extract(extra_json, '$.role') = 'retime' and
		 json_extract(params_json, '$.inflight') = 2")
	[ "$n" -eq 0 ]
	n=$(sql "select count(*) from result where
		 json_extract(extra_json, '$.tune_session') = $s and
		 json_extract(extra_json, '$.role') = 'default'")
	# as the defaults: first (the reference of the progress line) and
	# at the end beside the re-timed points, never as a candidate
	[ "$n" -eq 2 ]
	echo "$output" | sed -n '/^{/,/^}/p' | python3 -c '
import json, sys
o = json.load(sys.stdin)
# the defaults as the answer: a speed-up of exactly 1, never more
if o["best_params"]["inflight"] == 2:
    assert o["speedup"] == 1.0, o
else:
    assert o["speedup"] > 1.0, o'
}

@test "export: booleans are YAML booleans" {
	"$AX" --db "$DB" run gemm -p m=64 -p n=64 -p k=64 "${FAST[@]}" \
		>/dev/null 2>&1
	"$AX" --db "$DB" export --suite gemm -o "$BATS_TEST_TMPDIR/g.yaml" \
		2>/dev/null
	grep -q "^        trans_a: false$" "$BATS_TEST_TMPDIR/g.yaml"
	grep -q "^        tex: true$" "$BATS_TEST_TMPDIR/g.yaml"
	run ! grep -q '"false"\|"true"' "$BATS_TEST_TMPDIR/g.yaml"
	python3 - "$BATS_TEST_TMPDIR/g.yaml" <<'PY'
import sys, yaml
e = yaml.safe_load(open(sys.argv[1]))["devices"][0]["suites"]["gemm"][0]
assert e["shape"]["trans_a"] is False and e["tuned"]["tex"] is True, e
PY
}

@test "export --shapes limits the shapes exported; bad filters exit 2 naming the rule" {
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=128K "${FAST[@]}" \
		>/dev/null 2>&1
	run "$AX" --db "$DB" export --shapes bandwidth:size=128K \
		-o "$BATS_TEST_TMPDIR/s.yaml"
	assert_success
	python3 - "$BATS_TEST_TMPDIR/s.yaml" <<'PY'
import sys, yaml
es = yaml.safe_load(open(sys.argv[1]))["devices"][0]["suites"]["bandwidth"]
assert [e["shape"]["size"] for e in es] == [131072], es
PY
	run "$AX" --db "$DB" export --shapes bandwidth:size=128K \
		--shapes bandwidth:size=64K -o "$BATS_TEST_TMPDIR/s.yaml"
	assert_success
	[ "$(grep -c '^    - shape:' "$BATS_TEST_TMPDIR/s.yaml")" -eq 2 ]
	run "$AX" --db "$DB" export --shapes bandwidth:wg=64
	assert_failure 2
	assert_output --partial "wg is a tunable parameter, not part of a shape"
	run "$AX" --db "$DB" export --shapes warp
	assert_failure 2
	assert_output --partial "unknown suite 'warp'"
	run "$AX" --db "$DB" export --shapes bandwidth:size
	assert_failure 2
	assert_output --partial "'size' is not NAME=VALUE"
	"$AX" help export | grep -q -- "--shapes SUITE\[:NAME=VALUE,...\]"
}

@test "run --tuned refuses a document written before export measured its choice" {
	cat >"$BATS_TEST_TMPDIR/old.yaml" <<'YAML'
schema: axbench.tuned/v1
devices:
- fingerprint: "x"
  suites:
    bandwidth:
    - params: {op: copy, size: 64K, wg: 64}
      speedup: 1.19
YAML
	run "$AX" --db "$DB" run --tuned "$BATS_TEST_TMPDIR/old.yaml" "${FAST[@]}"
	assert_failure 2
	assert_output --partial "has no choice (tuned or defaults)"
	assert_output --partial "write it again with \`axbench export\`"
}

@test "export --tuned-only and run --tuned --dry-run: a shape that kept its defaults is said to, never called tuned" {
	# a second shape, 256K, in its own run: its wg=64 is made slower than
	# its defaults; 64K's wg=64 faster
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=256K -p wg=64,256 \
		"${MEASURE[@]}" >/dev/null 2>&1
	set_samples "$(rid 1 64)" 4.0
	set_samples "$(rid 1 256)" 2.0
	set_samples "$(rid 2 64)" 1.0
	set_samples "$(rid 2 256)" 2.0
	T="$BATS_TEST_TMPDIR/all.yaml"
	run --separate-stderr "$AX" --db "$DB" export -o "$T"
	assert_success
	# stderr: the tuned shape, one line counting the other, the totals
	grep -qF '"size":65536} on ' <<<"$stderr"
	run ! grep -qF '"size":262144}' <<<"$stderr"
	grep -qF '1 shape kept the defaults: no tuned point beat them beyond noise (-v gives each reason)' <<<"$stderr"
	grep -qF "$T: 1 shape tuned, 1 with the defaults (--tuned-only leaves them out)" <<<"$stderr"
	# -v: each shape with its reason
	run --separate-stderr "$AX" --db "$DB" -v export -o "$T"
	assert_success
	grep -qF '"size":262144} on ' <<<"$stderr"
	grep -qF 'defaults: no tuned point beat the defaults' <<<"$stderr"
	# the dry run labels each case by the file's choice
	run "$AX" --db "$DB" run --tuned "$T" --dry-run
	assert_success
	grep -Eq '^bandwidth +.*size=64K.*  tuned: .*wg=64' <<<"$output"
	grep -Eq '^bandwidth +.*size=256K.*  defaults \(no tuned point beat them\): .*wg=256' <<<"$output"
	assert_output --partial "2 cases on "
	assert_output --partial ", 1 with tuned parameters, 1 with the defaults (the file measured no tuned point faster)"
	run "$AX" --db "$DB" --json run --tuned "$T" --dry-run
	assert_success
	python3 -c '
import json, sys
d = {c["case"]: c for c in json.load(sys.stdin)["cases"]}
t = [c for c in d.values() if c["tuned"]]
k = [c for c in d.values() if c["tuned_defaults"]]
assert len(t) == 1 and t[0]["params"]["size"] == 65536, d
assert len(k) == 1 and k[0]["params"]["size"] == 262144, d
assert not k[0]["tuned"], d' <<<"$output"
	# the real run says the same on stderr
	run --separate-stderr "$AX" --db "$DB" run --tuned "$T" "${FAST[@]}"
	assert_success
	grep -qF -- "--tuned gave 2 of 2 cases their parameters (2 from this device, 0 from another): 1 tuned, 1 the defaults (no tuned point beat them)" <<<"$stderr"
	# --tuned-only: the document holds the tuned shape alone
	O="$BATS_TEST_TMPDIR/only.yaml"
	run --separate-stderr "$AX" --db "$DB" export --tuned-only -o "$O"
	assert_success
	grep -qF "$O: 1 shape tuned, 1 left out (--tuned-only)" <<<"$stderr"
	run ! grep -qF 'kept the defaults' <<<"$stderr"
	python3 - "$O" <<-'PY'
	import sys, yaml
	doc = yaml.safe_load(open(sys.argv[1]))
	(dev,) = doc["devices"]
	(e,) = dev["suites"]["bandwidth"]
	assert e["choice"] == "tuned" and e["shape"]["size"] == 65536, e
	PY
	run "$AX" --db "$DB" run --tuned "$O" --dry-run
	assert_success
	assert_output --partial "1 case on "
	run ! grep -qF "defaults (no tuned" <<<"$output"
}

@test "export --tuned-only with nothing tuned: an empty document, each reason said" {
	set_samples "$(rid 1 64)" 1.0
	set_samples "$(rid 1 256)" 2.0
	O="$BATS_TEST_TMPDIR/only.yaml"
	run --separate-stderr "$AX" --db "$DB" export --tuned-only -o "$O"
	assert_success
	grep -qF 'defaults: no tuned point beat the defaults' <<<"$stderr"
	grep -qF "$O: 0 shapes tuned, 1 left out (--tuned-only)" <<<"$stderr"
	[ "$(python3 -c 'import sys, yaml; print(len(yaml.safe_load(open(sys.argv[1]))["devices"]))' "$O")" -eq 0 ]
	run "$AX" --db "$DB" run --tuned "$O" --dry-run
	assert_failure
	assert_output --partial "$O"
}
