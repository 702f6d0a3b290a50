#!/usr/bin/env bats
load helper

setup() { ax_setup; }

@test "suites lists bandwidth and transfer" {
	run "$AX" suites
	assert_success
	assert_output --partial "bandwidth"
	assert_output --partial "transfer"
}

@test "suites NAME shows the parameter table" {
	run "$AX" suites bandwidth
	assert_success
	assert_output --partial "GB/s"
	assert_output --regexp "size +bytes +shape"
	assert_output --regexp "wg +int +tunable"
}

@test "suites --json agrees with the parameter table" {
	run "$AX" suites --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = {s["name"]: s for s in json.load(sys.stdin)}
bw = {p["name"]: p for p in d["bandwidth"]["params"]}
assert bw["op"]["kind"] == "shape" and "copy" in bw["op"]["range"]
assert bw["vec"]["kind"] == "tunable"
assert d["bandwidth"]["higher_is_better"] is True
'
}

@test "suites with an unknown name is a usage error" {
	run "$AX" suites nosuch
	assert_failure 2
	assert_output --partial "no suite 'nosuch'"
}

@test "suites declare their roles; reports and recommend read them there" {
	run "$AX" suites --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = {s["name"]: s for s in json.load(sys.stdin)}
assert d["peak"]["roles"] == ["compute-peak"], d["peak"]
assert "bandwidth-peak" in d["bandwidth"]["roles"]
assert d["transfer"]["roles"] == ["transfer"]
assert d["transfer"]["curve"]["x"] == "chunk"
assert d["conv"]["batch_param"] == "n"
needs = {n["param"]: n["distinct"] for n in d["transfer"]["recommend_needs"]}
assert needs == {"chunk": 3, "inflight": 2, "source": 2}, needs
assert d["reduce"]["roles"] == ["bandwidth-peak"]
'
	run "$AX" suites gemm
	assert_output --partial "roles: workload"
}
