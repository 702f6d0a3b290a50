#!/usr/bin/env bats
# The fill suite: one value stored over a buffer, every word checked on the
# host before its time counts.  It was added as its shader, its one .c
# file and the registry's table (issue 32: a knob is declared once).
load helper

setup() { ax_setup; }

@test "fill verifies across sizes and tiles, GB/s with its bytes stored" {
	run "$AX" --db "$DB" run fill -p size=4K,1M -p wg=32,1024 \
		-p epi=1,64 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status = 'ok'
		and unit = 'GB/s'")" -eq 8 ]
	[ "$(sql "select count(*) from result where
		json_extract(extra_json, '$.bytes') = work")" -eq 8 ]
}

@test "fill: described by its table, a bad knob refused with its range" {
	run "$AX" suites fill
	assert_success
	assert_output --partial "roles: bandwidth-peak"
	assert_output --partial "16-byte stores per invocation"
	run "$AX" --db "$DB" run fill -p epi=3
	assert_failure 2
	assert_output --partial "epi must be a power of two, an integer from 1 to 64 (got 3)"
}

@test "tune fill: every trial verified" {
	run "$AX" --db "$DB" --json tune fill -p size=64K --budget 4 \
		--strategy random --seed 2
	assert_success
	[ "$(sql "select count(*) from trial where status = 'ok'")" -eq 4 ]
}
