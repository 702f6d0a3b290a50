#!/usr/bin/env bats
load helper

setup() { ax_setup; }

@test "devices --json parses and lists a device with its limits" {
	run "$AX" devices --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert isinstance(d, list) and len(d) >= 1, d
x = d[0]
for k in ("name", "vendor", "type", "driver_name", "api_version",
          "device_uuid", "memory", "queue_families", "limits", "features",
          "subgroup_size", "locality", "fingerprint"):
    assert k in x, k
assert x["limits"]["max_storage_buffer_range"] > 0
assert x["limits"]["max_shared_memory"] > 0
assert any("compute" in q["flags"] for q in x["queue_families"])
loc = x["locality"]
assert loc["cpuset"], loc
if x["pci_bus_id"] is None:
    assert loc["confidence"] == "low" and loc["reason"], loc
'
}

@test "devices prints a readable table" {
	run "$AX" devices
	assert_success
	assert_output --partial "maxStorageBufferRange"
	assert_output --partial "locality"
}

@test "a bad --device selector is a usage error naming the devices" {
	run "$AX" --device no-such-gpu run bandwidth --db "$DB"
	assert_failure 2
	assert_output --partial "--device no-such-gpu"
	assert_output --partial "devices:"
	[ ! -e "$DB" ]
	run "$AX" --device 99 run bandwidth --db "$DB"
	assert_failure 2
	[ ! -e "$DB" ]
}

@test "--device accepts an index, a UUID and a name part" {
	uuid=$("$AX" devices --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["device_uuid"])')
	name=$("$AX" devices --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["name"].split()[0])')
	for sel in 0 "$uuid" "$name"; do
		run "$AX" --device "$sel" --db "$DB" run bandwidth -p size=4K -p op=read "${FAST[@]}"
		assert_success
	done
}

@test "devices: cooperative-matrix support (NV and KHR) and the NV shapes, as text and --json" {
	run "$AX" devices --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
for x in json.load(sys.stdin):
    f = x["features"]
    assert isinstance(f["cooperative_matrix_nv"], bool), f
    assert isinstance(f["vulkan_memory_model"], bool), f
    shapes = x["cooperative_matrix_shapes"]
    assert isinstance(shapes, list), shapes
    assert f["cooperative_matrix_nv"] or shapes == [], shapes
    for s in shapes:
        assert s["extension"] == "VK_NV_cooperative_matrix", s
        assert s["m"] > 0 and s["n"] > 0 and s["k"] > 0, s
'
	run "$AX" devices
	assert_success
	assert_output --regexp 'cooperative matrix (yes|no) \(KHR\) (yes|no) \(NV\)'
}

@test "devices --json: the precisions, subgroup sizes and why no matrix shape is listed" {
	run "$AX" devices --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
for x in json.load(sys.stdin):
    f = x["features"]
    for k in ("fp64", "int64", "int16", "integer_dot_product",
              "subgroup_size_control"):
        assert isinstance(f[k], bool), (k, f)
    s = x["subgroup_sizes"]
    assert 1 <= s["min"] <= x["subgroup_size"] <= s["max"], s
    assert isinstance(s["full_subgroups"], bool), s
    why = x["cooperative_matrix_reason"]
    if x["cooperative_matrix_shapes"]:
        assert why is None, why
    else:
        assert "cooperative_matrix" in why, why
'
	run "$AX" devices
	assert_success
	assert_output --regexp 'fp64 (yes|no), int64 (yes|no), int16 (yes|no), int8 dot product (yes|no)'
	assert_output --regexp 'cooperative-matrix shapes +(none: .*cooperative_matrix|[0-9]+x)'
}
