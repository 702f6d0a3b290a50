#!/usr/bin/env bats
# The --json contract (docs/JSON.md): every command's stdout is exactly
# one JSON document, which its schema in docs/json accepts
# (docs/json/check.py, python3-jsonschema); a failed result's figures are
# null, never 0; booleans are JSON booleans; versions are "X.Y.Z" text;
# times ISO 8601 UTC.
load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	T="$BATS_TEST_TMPDIR"
	WORK="$T/work"
	mkdir -p "$WORK"
	export AXBENCH_NVML_LIB="$T/no-libnvidia-ml.so.1"
}

teardown() { stop_rapl_fixture; }

# Enough samples a side for compare (5), few enough to be quick.
FIVE=(--min-samples 5 --max-samples 5 --min-time 0 --max-time 0.5 --warmup 1)

# doc SCHEMA ARGS...: axbench ARGS with stdout alone in $T/doc.json
# (stderr apart), then that file checked against docs/json/SCHEMA: one
# document, valid, no "true"/"false" strings.  The command's exit status
# is left in $cmd_status; the check's decides.
doc() {
	local schema=$1
	shift
	cmd_status=0
	"$AX" "$@" >"$T/doc.json" 2>"$T/doc.err" || cmd_status=$?
	python3 docs/json/check.py "$schema" <"$T/doc.json"
}

# py CODE: python3 CODE with the last document as `d`.
py() {
	python3 -c "import json, re; d = json.load(open('$T/doc.json'))
$1"
}

@test "the checker refuses trailing text, a string boolean and a failed figure of 0" {
	run python3 docs/json/check.py results <<<'[] []'
	assert_failure 1
	assert_output --partial "not exactly one JSON document"
	run python3 docs/json/check.py baseline <<<'[{"name": "x", "run_id": 1, "created_at": "2026-01-01T00:00:00.000Z", "pinned": "true"}]'
	assert_failure 1
	assert_output --partial "a boolean written as the string"
	# before this contract: a failed result's median was 0.0 and the
	# device's api_version the packed integer
	"$AX" --db "$DB" --workdir "$WORK" run ingest -p size=1M -p chunk=256K \
		"${FIVE[@]}"
	"$AX" --db "$DB" --json results >"$T/r.json"
	python3 docs/json/check.py results <"$T/r.json"
	python3 - "$T/r.json" >"$T/bad.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	d[0]["status"] = "failed-verification"
	d[0]["median"] = 0.0
	print(json.dumps(d))
	EOF
	run python3 docs/json/check.py results <"$T/bad.json"
	assert_failure 1
	assert_output --partial "0.0 is not of type 'null'"
	python3 - "$T/r.json" >"$T/bad.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	d[0]["device"]["api_version"] = d[0]["device"]["api_version_packed"]
	print(json.dumps(d))
	EOF
	run python3 docs/json/check.py results <"$T/bad.json"
	assert_failure 1
	assert_output --partial "api_version"
}

@test "devices --json: versions as X.Y.Z text beside the packed integers, features booleans" {
	doc devices devices --json
	[ "$cmd_status" -eq 0 ]
	py '
x = d[0]
assert re.fullmatch(r"\d+\.\d+\.\d+", x["api_version"]), x["api_version"]
p = x["api_version_packed"]
assert x["api_version"] == "%d.%d.%d" % ((p >> 22) & 0x7f, (p >> 12) & 0x3ff, p & 0xfff)
assert isinstance(x["driver_version_packed"], int)
assert all(isinstance(v, bool) for v in x["features"].values()), x["features"]'
}

@test "suites --json and suites NAME --json: typed defaults, -p text beside them" {
	doc suites suites --json
	[ "$cmd_status" -eq 0 ]
	py '
s = {x["name"]: {p["name"]: p for p in x["params"]} for x in d}
assert s["gemm"]["trans_a"]["default"] is False
assert s["gemm"]["trans_a"]["default_text"] == "false"
assert s["bandwidth"]["size"]["default"] == 64 << 20
assert s["bandwidth"]["size"]["default_text"] == "64M"
assert s["bandwidth"]["op"]["default"] == "copy"'
	doc suites suites latency --json
	py 'assert [p["default"] for p in d["params"] if p["name"] == "barrier"] == [True]'
}

@test "run --json and results --json: a failed result has null figures and an integer n" {
	doc run --db "$DB" --json run bandwidth -p op=copy -p size=64K "${FAST[@]}"
	[ "$cmd_status" -eq 0 ]
	py 'r = d["results"][0]; assert r["status"] == "ok" and r["median"] > 0, r'
	AXBENCH_INGEST_CORRUPT=1 doc run --db "$DB" --workdir "$WORK" --json \
		run ingest -p size=1M -p chunk=256K "${FAST[@]}"
	[ "$cmd_status" -eq 1 ]
	py '
r = d["results"][0]
assert r["status"] == "failed-verification", r
assert r["median"] is None and r["ci_lo"] is None and r["ci_hi"] is None, r
assert r["n"] == 0 and type(r["n"]) is int, r'
	doc run --db "$DB" --json run gemm -p m=16 -p n=16 -p k=16 \
		-p trans_a=true "${FAST[@]}"
	[ "$cmd_status" -eq 0 ]
	doc results --db "$DB" --json results --samples
	[ "$cmd_status" -eq 0 ]
	py '
figs = ("median", "min", "max", "mean", "stddev", "q1", "q3", "mad",
        "ci_lo", "ci_hi", "rel_noise")
bad = [r for r in d if r["status"] != "ok"]
assert len(bad) == 1 and bad[0]["suite"] == "ingest", bad
assert all(bad[0][k] is None for k in figs), bad[0]
assert bad[0]["n"] == 0 and type(bad[0]["n"]) is int
for r in d:
    if r["status"] == "ok":
        assert all(isinstance(r[k], float) for k in ("median", "ci_lo", "ci_hi")), r
    dev = r["device"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", dev["api_version"]), dev
    assert isinstance(dev["api_version_packed"], int), dev
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["started_at"])
g = [r for r in d if r["suite"] == "gemm"][0]
assert g["params"]["trans_a"] is True and g["params"]["trans_b"] is False, g["params"]'
	# the database holds NULL, not 0, and the canonical parameters (what
	# params_hash hashes) keep the words
	run sql "select quote(median), n from result where status != 'ok'"
	assert_output "NULL|0"
	run sql "select json_extract(params_json, '\$.trans_a') = 'true' from result where suite = 'gemm'"
	assert_output 1
	# a database from before this contract stored zeros: read as null
	sql "update result set median = 0, min = 0, max = 0, ci_lo = 0,
		ci_hi = 0, rel_noise = 0 where status != 'ok'"
	doc results --db "$DB" --json results
	py 'assert [r["median"] for r in d if r["status"] != "ok"] == [None]'
	run "$AX" --db "$DB" results --csv --suite ingest
	assert_success
	echo "$output" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows[0]["median"] == "" and rows[0]["n"] == "0", rows'
}

@test "export, recommend, compare and baseline list --json on one database" {
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=64K "${FIVE[@]}"
	AXBENCH_INGEST_CORRUPT=1 run "$AX" --db "$DB" --workdir "$WORK" \
		run ingest -p size=1M -p chunk=256K "${FIVE[@]}"
	assert_failure 1
	doc export --db "$DB" --json export
	[ "$cmd_status" -eq 0 ]
	py '
dev = d["devices"][0]
assert re.fullmatch(r"\d+\.\d+\.\d+", dev["api_version"]), dev
assert isinstance(dev["api_version_packed"], int), dev
e = dev["suites"]["bandwidth"][0]
assert isinstance(e["value"], float) and e["higher_is_better"] is True, e
assert "ingest" not in dev["suites"]'
	doc export --db "$DB" export --format json
	[ "$cmd_status" -eq 0 ]
	doc recommend --db "$DB" --json recommend
	[ "$cmd_status" -eq 0 ]
	doc recommend --db "$DB" recommend --format json
	[ "$cmd_status" -eq 0 ]
	doc compare --db "$DB" --json compare 1 1
	[ "$cmd_status" -eq 0 ]
	py 'assert d["summary"]["same"] == 1, d["summary"]'
	# the failed side's median is null (compare exits 2: nothing to
	# compare, after its document)
	doc compare --db "$DB" --json compare 2 2
	[ "$cmd_status" -eq 2 ]
	py '
r = d["rows"][0]
assert r["base"]["median"] is None and r["base"]["n"] == 0, r
assert r["regression"] is False'
	doc runs --db "$DB" --json runs
	[ "$cmd_status" -eq 0 ]
	py 'assert [r["id"] for r in d] == sorted((r["id"] for r in d), reverse=True), d'
	"$AX" --db "$DB" baseline save nightly --run 1
	doc baseline --db "$DB" --json baseline list
	[ "$cmd_status" -eq 0 ]
	py 'assert d == [{"name": "nightly", "run_id": 1, "run_ids": [1], "created_at": d[0]["created_at"]}], d'
}

@test "tune --json: a live session with typed best_params, and a replay" {
	doc tune --db "$DB" --json tune bandwidth -p op=copy -p size=64K \
		--budget 3 --strategy random --seed 2
	[ "$cmd_status" -eq 0 ]
	py '
assert d["best_params"]["op"] == "copy" and isinstance(d["best_params"]["wg"], int)
assert d["objective"] == "time"'
	LANDSCAPE=../shared/landscapes/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz
	[ -f "$LANDSCAPE" ] || skip "shared landscapes absent"
	doc tune --json tune --replay "$LANDSCAPE" --budget 10 --seed 7
	[ "$cmd_status" -eq 0 ]
	py 'assert d["evals"] == 10 and d["prior"] is None, d'
}

@test "monitor --json: no sensor, a fixture RAPL sensor, and a command" {
	AXBENCH_SYSFS_ROOT="$T/empty" doc monitor --json monitor -t 0.2 -i 0.1
	[ "$cmd_status" -eq 0 ]
	py 'assert d["devices"][0]["source"] is None and d["devices"][0]["samples"] == []'
	rapl_fixture
	doc monitor --json monitor -t 0.3 -i 0.1
	[ "$cmd_status" -eq 0 ]
	py '
s = d["devices"][0]["summary"]
assert s["throttled"] is False and s["energy_j"] > 0, s
assert all(x["temp_c"] is None for x in d["devices"][0]["samples"])'
	# the command's own output would break the document: with --json
	# it goes to stderr, and its exit status is passed through
	doc monitor --json monitor --idle 0.2 -- sh -c 'echo from-cmd; sleep 0.2; exit 3'
	[ "$cmd_status" -eq 3 ]
	py 'assert d["command"]["exit_code"] == 3'
	grep -qx from-cmd "$T/doc.err"
}

@test "run --dry-run --json: the plan as one document, a point beyond the device's limits with its reason" {
	doc plan --db "$DB" --json run bandwidth -p op=copy -p size=4K,1G \
		--dry-run --rounds 2
	[ "$cmd_status" -eq 0 ]
	py '
assert d["rounds"] == 2 and len(d["cases"]) == 1, d
assert d["cases"][0]["params"]["size"] == 4096 and d["cases"][0]["tuned"] is False
assert "maxStorageBufferRange" in d["skipped"][0]["beyond_limits"], d["skipped"]'
	[ ! -e "$DB" ]
}

@test "db prune --json: a dry run and --yes, each one document" {
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=4K "${FIVE[@]}"
	"$AX" --db "$DB" run bandwidth -p op=copy -p size=4K "${FIVE[@]}"
	doc db_prune --db "$DB" --json db prune --keep-last 1 --no-weekly
	[ "$cmd_status" -eq 0 ]
	py '
assert d["dry_run"] is True and d["bytes_after"] is None, d
assert d["removed"]["runs"] == [1] and d["kept"] == 1, d
assert isinstance(d["policy"]["weekly"], bool), d'
	doc db_prune --db "$DB" db prune --keep-last 1 --no-weekly --yes --json
	[ "$cmd_status" -eq 0 ]
	py '
assert d["dry_run"] is False and d["removed"]["runs"] == [1], d
assert isinstance(d["bytes_after"], int) and d["removed"]["samples"] > 0, d'
	doc db_prune --db "$DB" --json db prune --run 2
	[ "$cmd_status" -eq 0 ]
	py 'assert d["policy"] == {"mode": "runs", "keep_last": None, "weekly": None, "run_ids": [2]}, d'
}

@test "fleet slurm --json: a dry run is one document with the scripts, job ids null" {
	doc fleet fleet slurm --nodes 2 --profile quick --dir "$T/fleet" \
		--gpus no --dry-run --json
	[ "$cmd_status" -eq 0 ]
	py 'assert d["dry_run"] is True and d["gpus"] is False, d
assert d["tasks"] == 2 and d["array_job"] is None and d["merge_job"] is None
assert d["merged_db"] == d["dir"] + "/merged.db", d
assert "#SBATCH --array=0-1" in d["scripts"]["array_text"]
assert "db merge" in d["scripts"]["merge_text"]'
}

@test "kernel check --json: a verified case and a wrong one, each one document" {
	doc kernel_check --json kernel check examples/kernels/reduce.yaml \
		-p n=4096 -p wg=32
	[ "$cmd_status" -eq 0 ]
	py '
assert d["status"] == "ok" and d["error"] is None, d
assert d["params"] == {"n": 4096, "wg": 32, "ept": 4}, d
assert d["verified_against"].startswith("reference n=4096 wg=64"), d
assert d["median"] > 0 and d["samples"] == 3, d'
	cp examples/kernels/saxpy.yaml examples/kernels/saxpy.comp "$T/"
	sed -i 's|  file: saxpy.comp|  file: saxpy.comp\n  defines: {OFF_BY_ONE: 1}|' \
		"$T/saxpy.yaml"
	doc kernel_check --json kernel check "$T/saxpy.yaml" -p n=4096 -p ept=4
	[ "$cmd_status" -eq 1 ]
	py '
assert d["status"] == "failed-verification" and d["median"] is None, d
assert "buffer y[" in d["error"], d'
}

@test "ab --json: the paired document, in one process and across processes" {
	doc ab --db "$DB" --json ab bandwidth -p size=64K --a op=copy \
		--b op=copy --rounds 6 --max-rounds 6
	# an A/A pair: the document is checked, whatever the verdict
	[ "$cmd_status" -le 1 ]
	py '
assert d["mode"] == "in-process" and d["rounds"] == 6, d
assert len(d["round_values"]["a"]) == 6 and d["a"]["result_id"] >= 1, d
assert d["speedup_lo"] <= d["speedup"] <= d["speedup_hi"], d
assert d["min_detectable_effect_pct"] >= d["threshold_pct"], d'
	doc ab --db "$DB" --json ab bandwidth -p size=64K --a op=copy \
		--b op=copy --rounds 6 --max-rounds 6 --exe "$AX"
	[ "$cmd_status" -le 1 ]
	py '
assert d["mode"] == "process" and d["run_id"] is None, d
assert d["b"]["process"]["exe"], d'
}
