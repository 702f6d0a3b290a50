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
	[ -s "$out/gpu-check.db" ]
	[ -s "$out/report.html" ]
	[ -s "$out/devices.json" ]
	[ -s "$out/results.json" ]
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

@test "gpu-check prints % of spec and the goals where specs.yaml lists the device" {
	# Made-up figures for lavapipe's own ids (only lavapipe is here).
	cfg=$BATS_TEST_TMPDIR/configs
	# -L: in scripts/asan.sh's tree configs/ is a link to the real one
	cp -rL configs "$cfg"
	"$AX" devices --json | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
print("""  - name: this test device
    vendor_id: %d
    device_ids: [%d]
    fp32_tflops: 1
    fp16_tflops: 1
    fp16_kind: made up
    memory_gbps: 100
    source: tests/cli/gpu_check.bats (made-up figures)""" % (d["vendor_id"], d["device_id"]))' >>"$cfg/specs.yaml"
	out="$BATS_TEST_TMPDIR/gc"
	AXBENCH="$AX" AXBENCH_CONFIG_DIR="$cfg" run bench/gpu-check.sh --small --no-build "$out"
	assert_success
	assert_output --regexp "gemm +256x256x256 f32 tiled .*GFLOP/s +[0-9.]+ +goal 60%: (met|short by [0-9.]+ points); fp32 1000 \(this test device\)"
	assert_output --regexp "bandwidth +op=copy size=16M .*GB/s +[0-9.]+ +goal 85%: .*memory bandwidth 100"
}
