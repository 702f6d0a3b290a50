#!/usr/bin/env bats
# sg_size: the subgroup size a pipeline requires (VK_EXT_subgroup_size_
# control), a tunable of reduce and gemm.  lavapipe can require one size
# only (8, ../shared/PLATFORM.md), so here the tests check the knob's
# points, its refusals and what tune says, not a speed.
load helper
bats_require_minimum_version 1.5.0

setup() { ax_setup; }

# The sizes this device can require, as "MIN MAX CONTROL".
sizes() {
	"$AX" devices --json | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
s = d["subgroup_sizes"]
print(s["min"], s["max"], int(d["features"]["subgroup_size_control"]))'
}

@test "reduce and gemm verify at each subgroup size the device can require" {
	read -r min max control <<<"$(sizes)"
	[ "$control" -eq 1 ] || skip "no VK_EXT_subgroup_size_control"
	run "$AX" --db "$DB" run reduce -p size=64K -p "sg_size=0,$min,$max" "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='ok' and suite='reduce'")" -ge 2 ]
	run "$AX" --db "$DB" run gemm -p m=64 -p n=64 -p k=64 -p "sg_size=$max" "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='ok' and suite='gemm' and json_extract(params_json, '$.sg_size') = $max")" -eq 1 ]
}

@test "a size beyond the device's range is skipped in a sweep and refused alone, naming the range" {
	read -r min max control <<<"$(sizes)"
	[ "$max" -lt 128 ] || skip "the device can require every size"
	run --separate-stderr "$AX" --db "$DB" run reduce -p size=64K -p sg_size=0,128 "${FAST[@]}"
	assert_success
	[[ "$stderr" == *"skipping reduce"*"sg_size=128"*"use 0 (the driver's choice)"* ]]
	[ "$(sql "select count(*) from result")" -eq 1 ]
	run "$AX" --db "$DB" run reduce -p size=64K -p sg_size=128 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "sg_size=128"
	assert_output --partial "use 0 (the driver's choice)"
}

@test "a size that is not a power of two is refused by the parameter's own rule" {
	run "$AX" --db "$DB" run reduce -p size=64K -p sg_size=12 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "sg_size"
}

@test "kernel=coopmat refuses sg_size: its workgroup is subgroups of the driver's size" {
	run "$AX" --db "$DB" run gemm -p kernel=coopmat -p dtype=f16 -p m=64 -p n=64 -p k=64 -p sg_size=8 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "use sg_size=0"
}

@test "tune searches sg_size and says when the device has one size only" {
	read -r min max control <<<"$(sizes)"
	run --separate-stderr "$AX" --db "$DB" tune reduce -p size=64K --strategy grid --budget 4 --retime 1
	assert_success
	[ "$(sql "select count(*) from trial")" -ge 1 ]
	# every trial's point names its subgroup size, one the device allows
	[ "$(sql "select count(*) from result where suite='reduce' and json_extract(params_json, '$.sg_size') not in (0, $min, $max)")" -eq 0 ]
	if [ "$min" -eq "$max" ]; then
		[[ "$stderr" == *"sg_size: "*"only"* ]]
	fi
	run "$AX" suites reduce
	assert_success
	assert_output --regexp "sg_size +int +tunable +0 +0,1,2,4,8,16,32,64,128 "
}

@test "a workgroup larger than sg_size x maxComputeWorkgroupSubgroups is skipped, naming the limit" {
	read -r min max control <<<"$(sizes)"
	[ "$control" -eq 1 ] || skip "no VK_EXT_subgroup_size_control"
	subgroups=$("$AX" devices --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["subgroup_sizes"]["max_workgroup_subgroups"])')
	big=$((min * subgroups * 2))
	[ "$big" -le 1024 ] || skip "the device's limit is beyond reduce's largest workgroup"
	run --separate-stderr "$AX" --db "$DB" run reduce -p size=64K -p "wg=32,$big" -p "sg_size=$min" "${FAST[@]}"
	assert_success
	[[ "$stderr" == *"skipping reduce"*"wg=$big"*"maxComputeWorkgroupSubgroups"* ]]
	[ "$(sql "select count(*) from result where status='ok'")" -eq 1 ]
}
