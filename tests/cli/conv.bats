#!/usr/bin/env bats
# axbench run conv: small convolutions run on the device and verify against
# the CPU reference, edge shapes included; impossible points are refused
# before anything runs, naming the limit and the value.
load helper
# These tests check the kernels; the OpenBLAS baseline beside each new
# shape (about a second each on lavapipe) has its own tests in
# efficiency.bats, so it is off here.
FAST+=(--cpu-baseline off)

setup() { ax_setup; }

ok_results() { sql "select count(*) from result where suite='conv' and status='ok' and median > 0"; }

@test "conv at its defaults runs, verifies and is stored with its GFLOP/s" {
	run "$AX" --db "$DB" run conv "${FAST[@]}"
	assert_success
	assert_output --partial "verified"
	[ "$(ok_results)" -eq 1 ]
	[ "$(sql "select unit from result")" = "GFLOP/s" ]
	# the work model's inputs travel with the result
	run sql "select extra_json from result"
	assert_output --partial '"p":32,"q":32'
}

@test "conv: stride 2 with padding, odd sizes, NCHW and NHWC" {
	run "$AX" --db "$DB" run conv -p n=2 -p c=5 -p h=13 -p w=11 -p k=7 \
		-p stride=2 -p pad=2 -p layout=nchw,nhwc "${FAST[@]}"
	assert_success
	[ "$(ok_results)" -eq 2 ]
	# P = (13 + 4 - 3) / 2 + 1 = 8, Q = (11 + 4 - 3) / 2 + 1 = 7
	[ "$(sql "select count(*) from result where extra_json like '%\"p\":8,\"q\":7%'")" -eq 2 ]
}

@test "conv: share=smem and share=subgroup verify alike, micro-tiles included" {
	run "$AX" --db "$DB" run conv -p n=2 -p c=5 -p h=13 -p w=11 -p k=7 \
		-p stride=2 -p pad=2 -p layout=nchw,nhwc -p share=smem,subgroup \
		-p tile_k=16 -p tile_pq=32 -p tm=8 -p tn=4 -p mr=1,8 "${FAST[@]}"
	assert_success
	[ "$(ok_results)" -eq 8 ]
	run "$AX" --db "$DB" run conv -p c=9 -p r=5 -p s=3 -p dilation=2 \
		-p pad=1 -p dtype=f32,f16 -p share=subgroup "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run conv -p share=subgroup -p tile_pq=32 -p tn=8 \
		"${FAST[@]}"
	assert_failure 2
	assert_output --partial "share=subgroup: tile_pq/tn = 4 invocations along the pixels must be a multiple of 8"
}

@test "conv: dilation 2 and 3 with a 5x3 filter" {
	run "$AX" --db "$DB" run conv -p c=3 -p h=17 -p w=15 -p k=9 -p r=5 \
		-p s=3 -p dilation=2,3 -p pad=1 -p layout=nhwc "${FAST[@]}"
	assert_success
	[ "$(ok_results)" -eq 2 ]
}

@test "conv: batch sweep of a 1x1 convolution, K not a multiple of the tile" {
	run "$AX" --db "$DB" run conv -p n=1,2,4 -p c=19 -p h=6 -p w=6 \
		-p k=33 -p r=1 -p s=1 -p pad=0 -p tile_k=16 -p tm=8 "${FAST[@]}"
	assert_success
	[ "$(ok_results)" -eq 3 ]
}

@test "conv: fp16 storage verifies, or is skipped with the reason" {
	run "$AX" --db "$DB" run conv -p dtype=f16 -p n=2 -p c=6 -p h=9 \
		-p w=7 -p k=5 -p stride=2 "${FAST[@]}"
	assert_success
	status_=$(sql "select status from result")
	if [ "$status_" = "skipped" ]; then
		[ -n "$(sql "select error_text from result")" ]
	else
		[ "$status_" = "ok" ]
	fi
}

@test "conv: tiles over the shared-memory limit are refused, naming the limit and the value" {
	run "$AX" --db "$DB" run conv -p tile_k=256 -p tile_pq=256 \
		-p tile_c=64 -p tm=16 -p tn=16 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "131072 bytes of shared memory"
	assert_output --regexp "over maxComputeSharedMemorySize [0-9]+"
}

@test "conv: a filter larger than the padded input is refused (exit 2)" {
	run "$AX" --db "$DB" run conv -p h=2 -p w=2 -p r=5 -p s=5 -p pad=0 \
		"${FAST[@]}"
	assert_failure 2
	assert_output --partial "the dilated filter is 5x5"
}

@test "suites conv shows the parameters and the work model" {
	run "$AX" suites conv
	assert_success
	assert_output --partial "2*N*K*P*Q*C*R*S"
	assert_output --regexp "tile_pq +int +tunable"
	assert_output --regexp "layout +enum +shape"
}
