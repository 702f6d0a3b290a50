#!/usr/bin/env bats
# bench/gpu-check.sh, the one script a GPU machine runs, here on lavapipe
# with its small shapes: every step runs or is skipped with its reason,
# and the database, report and table are left where asked.
load helper

setup() { ax_setup; }

# only_steps REGEX [BINARY]: writes $BATS_TEST_TMPDIR/ax, an AXBENCH for
# gpu-check that runs the steps whose label (gpu-check:NAME) matches
# REGEX with BINARY (default the real $AX) and lets the others pass at
# once, measuring nothing; devices, results and report (no label) always
# run.  The table and verdict tests need two steps, not all of them.
only_steps() {
	cat >"$BATS_TEST_TMPDIR/ax" <<EOF
#!/bin/bash
for a in "\$@"; do
	case \$a in gpu-check:*) [[ \$a =~ ^gpu-check:($1)\$ ]] || exit 0 ;; esac
done
exec "${2:-$AX}" "\$@"
EOF
	chmod +x "$BATS_TEST_TMPDIR/ax"
}

@test "gpu-check --small runs every step on lavapipe and leaves its files" {
	out="$BATS_TEST_TMPDIR/gc"
	AXBENCH="$AX" run bench/gpu-check.sh --small --no-build "$out"
	assert_success
	for step in devices quick-validate gemm-f32 gemm-f16 bandwidth \
		transfer tune-gemm peaks roofline report; do
		assert_output --regexp "  $step +pass"
	done
	# lavapipe has no cooperative-matrix extension: skipped, with why
	assert_output --regexp "  gemm-coopmat +skip"
	assert_output --regexp "f16 coopmat +skipped: .*cooperative_matrix"
	assert_output --regexp "% spec"
	assert_output --regexp "roofline: run [0-9]+ roofline f32 on .*ridge .*the run's peak / bandwidth"
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

@test "gpu-check prints % of spec and each goal's verdict where specs.yaml lists the device" {
	# Made-up figures for lavapipe's own ids (only lavapipe is here),
	# chosen so that each verdict is certain on any machine at any load:
	# fp32 0.1 GFLOP/s, which any gemm passes (goal 60%: met), and
	# memory 10^5 GB/s, which no copy on a CPU comes near (goal 85%:
	# short by about 85 points, the % below 0.2): the ends of the
	# ranges specs.yaml allows (core/config_specs.c).
	cfg=$BATS_TEST_TMPDIR/configs
	# -L: in scripts/asan.sh's tree configs/ is a link to the real one
	cp -rL configs "$cfg"
	"$AX" devices --json | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
print("""  - name: this test device
    vendor_id: %d
    device_ids: [%d]
    fp32_tflops: 0.0001
    memory_gbps: 100000
    source: tests/cli/gpu_check.bats (made-up figures)""" % (d["vendor_id"], d["device_id"]))' >>"$cfg/specs.yaml"
	only_steps 'gemm-f32|bandwidth'
	out="$BATS_TEST_TMPDIR/gc"
	AXBENCH="$BATS_TEST_TMPDIR/ax" AXBENCH_CONFIG_DIR="$cfg" run bench/gpu-check.sh --small --no-build "$out"
	assert_success
	assert_output --regexp "  gemm-f32 +pass"
	assert_output --regexp "  bandwidth +pass"
	assert_output --regexp "gemm +256x256x256 f32 tiled +[0-9.e+]+ GFLOP/s +[0-9.]+  goal 60%: met; fp32 0\.1 \(this test device\)"
	assert_output --regexp "bandwidth +op=copy size=16M +[0-9.e+]+ GB/s +0\.[0-9]  goal 85%: short by 8[45]\.[0-9] points; memory bandwidth 100000 \(this test device\)"
	# dma has no goal: its figure against the spec, no verdict
	assert_output --regexp "bandwidth +op=dma size=16M +[0-9.e+]+ GB/s +[0-9.]+  memory bandwidth 100000 \(this test device\)"
}

@test "gpu-check counts a refusal as a failure, even one naming cooperative matrices" {
	# The coopmat step with kernel=cooperative-matrix, which axbench
	# refuses (exit 2) with a message naming it: a failure, not the skip
	# of a device without the extension (that one ends 0, first test).
	cat >"$BATS_TEST_TMPDIR/refuse" <<EOF
#!/bin/bash
exec "$AX" "\${@/#kernel=coopmat/kernel=cooperative-matrix}"
EOF
	chmod +x "$BATS_TEST_TMPDIR/refuse"
	only_steps gemm-coopmat "$BATS_TEST_TMPDIR/refuse"
	out="$BATS_TEST_TMPDIR/gc"
	AXBENCH="$BATS_TEST_TMPDIR/ax" run bench/gpu-check.sh --small --no-build "$out"
	assert_failure 1
	assert_output --regexp "  gemm-coopmat +FAIL \(exit 2\) "
	refute_output --regexp "gemm-coopmat +skip"
	assert_output --regexp "  gemm-f32 +pass"
	run grep -c "kernel must be tiled or coopmat (got cooperative-matrix)" "$out/gpu-check.log"
	assert_output 1
}
