#!/usr/bin/env bats
# bench/gpu-check.sh, the one script a GPU machine runs, here on lavapipe
# with its small shapes: every step runs or is skipped with its reason,
# and the database, report and table are left where asked.
load helper

setup() { ax_setup; }

@test "gpu-check --small runs every step on lavapipe and leaves its files" {
	out="$BATS_TEST_TMPDIR/gc"
	AXBENCH="$AX" run bench/gpu-check.sh --small --no-build "$out"
	assert_success
	for step in devices quick-validate gemm-f32 gemm-f16 bandwidth \
		transfer tune-gemm report; do
		assert_output --regexp "  $step +pass"
	done
	# lavapipe has no cooperative-matrix extension: skipped, with why
	assert_output --regexp "  gemm-coopmat +skip"
	assert_output --regexp "f16 coopmat +skipped: .*cooperative_matrix"
	assert_output --regexp "% spec"
	assert_output --regexp "gemm +256x256x256 f32 tiled .*GFLOP/s +unknown"
	assert_output --regexp "bandwidth +op=dma size=16M .*GB/s +unknown"
	[ -s "$out/gpu-check.db" ] && [ -s "$out/report.html" ]
	[ -s "$out/devices.json" ] && [ -s "$out/results.json" ]
	[ "$(sqlite3 "$out/gpu-check.db" "select count(*) from tune_session")" = 1 ]
}

@test "gpu-check refuses a bad option and a missing OUTDIR, exit 2" {
	run bench/gpu-check.sh --no-such-option "$BATS_TEST_TMPDIR/x"
	assert_failure 2
	assert_output --partial "unknown option --no-such-option"
	run bench/gpu-check.sh
	assert_failure 2
	assert_output --partial "usage: bench/gpu-check.sh"
}
