#!/usr/bin/env bats
# axbench recommend on lavapipe: a document an independent YAML parser
# accepts, numbers equal to the stored measurements they cite, and null
# plus a reason where nothing was measured.
load helper

setup() {
	ax_setup
	"$AX" --db "$DB" run transfer -p direction=h2d \
		-p source=pageable,pinned -p chunk=64K,256K,1M -p total=4M \
		"${FAST[@]}" >/dev/null
	"$AX" --db "$DB" results --json >"$BATS_TEST_TMPDIR/results.json"
}

@test "recommend: valid YAML, cited numbers equal stored ones, nulls with reasons" {
	run "$AX" --db "$DB" recommend -o "$BATS_TEST_TMPDIR/rec.yaml"
	assert_success
	python3 -c 'import yaml,sys; yaml.safe_load(open(sys.argv[1]))' \
		"$BATS_TEST_TMPDIR/rec.yaml"
	python3 - "$BATS_TEST_TMPDIR/rec.yaml" "$BATS_TEST_TMPDIR/results.json" <<'PY'
import json, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
res = {r["id"]: r for r in json.load(open(sys.argv[2]))}
assert doc["schema"] == "axbench.recommend/v1"
dev = doc["devices"][0]
assert dev["key"].startswith(("pci:", "uuid:")), dev["key"]

def settings(node):
    if isinstance(node, dict):
        if {"value", "basis", "confidence", "reason"} <= set(node):
            yield node
        else:
            for v in node.values():
                yield from settings(v)
    elif isinstance(node, list):
        for v in node:
            yield from settings(v)

def cites(node):
    if isinstance(node, dict):
        if "result_id" in node and "value" in node:
            yield node
        for v in node.values():
            yield from cites(v)
    elif isinstance(node, list):
        for v in node:
            yield from cites(v)

n = 0
for s in settings(doc):
    n += 1
    if s["value"] is None:
        assert s["reason"] and s["basis"] is None, s
    else:
        assert s["basis"] and s["confidence"] in ("high", "medium", "low"), s
for c in cites(doc):
    assert c["value"] == res[c["result_id"]]["median"], c
assert n >= 10, n

up = dev["upload"]["chunk_size"]
assert up["value"] in (65536, 262144, 1048576), up
chosen = res[up["basis"]["chosen"]["result_id"]]
peak = res[up["basis"]["peak"]["result_id"]]
assert chosen["params"]["chunk"] == up["value"]
assert chosen["median"] >= 0.9 * peak["median"]
for p in up["basis"]["sweep"]:
    if p["chunk"] < up["value"]:
        assert res[p["result_id"]]["median"] < 0.9 * peak["median"]
assert up["basis"]["fit"]["model"].startswith("T(n) = alpha + n / beta")
assert dev["data_loading"]["pinned_memory"]["value"] in (True, False)
for k in ("batch_size", "loader_threads", "prefetch_depth"):
    s = dev["data_loading"][k]
    assert s["value"] is None and s["reason"], s
assert doc["workloads"]["gemm"]["value"] is None
assert doc["workloads"]["gemm"]["reason"]
loc = dev["locality"]["cpuset"]
assert loc["value"] and loc["confidence"] == "low" and loc["reason"], loc
PY
}

@test "recommend views: json, env, numactl, slurm, torch" {
	run "$AX" --db "$DB" recommend --format json
	assert_success
	echo "$output" | python3 -c 'import json,sys; json.load(sys.stdin)'
	run "$AX" --db "$DB" recommend --format env
	assert_success
	assert_output --partial "export OMP_NUM_THREADS="
	run "$AX" --db "$DB" recommend --format numactl
	assert_success
	assert_output --regexp '^numactl '
	# lavapipe is a CPU device: no GPU is requested for it
	run "$AX" --db "$DB" recommend --format slurm
	assert_success
	assert_output --partial "#SBATCH --exclusive"
	refute_output --partial "--gpu"
	"$AX" --db "$DB" recommend --format torch -o "$BATS_TEST_TMPDIR/dl.py"
	python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' \
		"$BATS_TEST_TMPDIR/dl.py"
	grep -q "pin_memory=" "$BATS_TEST_TMPDIR/dl.py"
}

@test "recommend: bad format or a Vulkan index is a usage error" {
	run "$AX" --db "$DB" recommend --format xml
	assert_failure 2
	run "$AX" --db "$DB" --device 0 recommend
	assert_failure 2
	assert_output --partial "never by Vulkan index"
}

# A copy of configs/ whose recommend.yaml measures the shipped suites and
# cases with fewer samples and smaller transfers and files (16K..1M
# chunks of 4M, a 4M data file): what --measure runs and stores is what
# the test checks, not the figures.  AXBENCH_CONFIG_DIR names it.
small_recommend_config() {
	cp -rL configs "$BATS_TEST_TMPDIR/configs"
	python3 - "$BATS_TEST_TMPDIR/configs/recommend.yaml" <<'PY'
import sys, yaml
path = sys.argv[1]
doc = yaml.safe_load(open(path))
doc["measure"].update(min_samples=3, max_samples=3, min_time_s=0,
                      max_time_s=0.1, warmup=1)
suites = doc["suites"]
suites["ingest"]["params"]["size"] = "4M"
suites["transfer"]["params"]["total"] = "4M"
for case in suites["transfer"]["cases"]:
    if case.get("chunk") == "16K..16M":
        case["chunk"] = "16K..1M"
yaml.safe_dump(doc, open(path, "w"), sort_keys=False)
PY
	export AXBENCH_CONFIG_DIR="$BATS_TEST_TMPDIR/configs"
}

@test "recommend --measure runs only what is missing, then recommends from it" {
	small_recommend_config
	"$AX" --db "$DB" recommend --measure --format json >"$BATS_TEST_TMPDIR/rec.json"
	# stdout is the document alone; the measurements went to the database
	python3 -c '
import json, sys
d = json.load(sys.stdin)
up = d["devices"][0]["upload"]
assert up["chunk_size"]["value"] is not None, up["chunk_size"]
assert d["devices"][0]["data_loading"]["batch_size"]["value"] is not None' <"$BATS_TEST_TMPDIR/rec.json"
	n=$(sql "select count(*) from result where status='ok'")
	[ "$n" -gt 20 ]
	# Its run is recommend's, as `axbench runs` tells it; setup's is a
	# plain run.
	run "$AX" --db "$DB" runs
	assert_success
	assert_line --index 1 --regexp '^ 2  .*  recommend +recommend +'
	assert_line --index 2 --regexp '^ 1  .*  run +- +'
	[ "${#lines[@]}" -eq 3 ]
	[ "$(sql "select count(distinct json_extract(params_json, '\$.chunk')) from result where suite='transfer'")" -ge 3 ]
	run "$AX" --db "$DB" recommend --measure --format json
	assert_success
	[ "$(sql "select count(*) from result")" -eq "$n" ]
}
