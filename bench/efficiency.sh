#!/bin/bash
# bench/efficiency.sh - the efficiency figures of issue 13, measured here:
#
#   1. the speed-up over the host CPU: gemm 1024^3, conv and attention at
#      their default shapes, each on the device and through OpenBLAS (the
#      CPU baseline, measured again: --cpu-baseline always), with the
#      library, the kernel that ran and the thread count;
#   2. the cost of telemetry: gemm 512^3 measured with a sensor (a fixture
#      RAPL tree, 10 Hz) and without one, interleaved over ROUNDS rounds,
#      the ratio of the medians of the medians (goal: within 2 %).
#
# Usage: bench/efficiency.sh [AXBENCH]; env ROUNDS (default 4).
# Figures move on a shared machine: compare the ratios of one run.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/goal.sh # bench_goal: the lines make bench gathers
# shellcheck source=tests/fixtures/rapl.sh
source tests/fixtures/rapl.sh
AX=${1:-./axbench}
ROUNDS=${ROUNDS:-4}
tmp=$(mktemp -d)
trap 'rapl_stop; rm -rf "$tmp"' EXIT
unset AXBENCH_VALIDATE AXBENCH_DB
export AXBENCH_NVML_LIB="$tmp/no-nvml.so"
OPTS=(--min-samples 5 --max-samples 20 --min-time 0.5 --max-time 3)

# Every result of one run: suite, device median, CPU median, speed-up,
# the CPU's library, kernel and threads.
speedups() {
	"$AX" --db "$tmp/s.db" --json results | python3 -c '
import json, sys
for r in json.load(sys.stdin):
    c = r.get("cpu") or {}
    print("  %-10s %10.4g %10.4g %8s   %s %s, %s kernel, %s threads" % (
        r["suite"], r["median"] if r["median"] is not None else float("nan"),
        c.get("median") or float("nan"),
        "%.3fx" % r["speedup_vs_cpu"] if r.get("speedup_vs_cpu") else "-",
        c.get("library"), c.get("version"), c.get("corename"),
        c.get("threads")))'
}

echo "-- speed-up over the host CPU (GFLOP/s; device / OpenBLAS)"
echo "  suite          device        cpu  speed-up"
export AXBENCH_SYSFS_ROOT="$tmp/nosensor"
for args in "gemm -p m=1024 -p n=1024 -p k=1024" "conv attention"; do
	# shellcheck disable=SC2086
	"$AX" --db "$tmp/s.db" -q run $args --cpu-baseline always \
		"${OPTS[@]}" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
done
speedups

# The tests' fixture RAPL sensor: 0.5 J every 50 ms.
rapl_start "$tmp/rapl"

median_of() { # root -> the median of one gemm 512^3 run
	AXBENCH_SYSFS_ROOT=$1 "$AX" --db "$tmp/t.db" --json run gemm \
		-p m=512 -p n=512 -p k=512 --cpu-baseline off --idle 0 \
		"${OPTS[@]}" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["median"])'
}
with=() without=()
for _ in $(seq "$ROUNDS"); do
	with+=("$(median_of "$tmp/rapl")")
	without+=("$(median_of "$tmp/nosensor")")
done
echo
echo "-- telemetry's cost: gemm 512^3, $ROUNDS interleaved rounds (GFLOP/s)"
python3 - "${with[*]}" "${without[*]}" <<'PY' |
import statistics, sys
w = [float(x) for x in sys.argv[1].split()]
o = [float(x) for x in sys.argv[2].split()]
mw, mo = statistics.median(w), statistics.median(o)
r = mw / mo
print("  with a 10 Hz sensor:  %s  median %.4g" % (" ".join("%.4g" % x for x in w), mw))
print("  without a sensor:     %s  median %.4g" % (" ".join("%.4g" % x for x in o), mo))
print("  with / without: %.3f; goal within 2 %%: %s" % (r, "met" if abs(r - 1) <= 0.02 else "NOT met"))
print("bench_telemetry_ratio=%.3f" % r)
PY
	tee "$tmp/ratio"
r=$(sed -n 's/^bench_telemetry_ratio=//p' "$tmp/ratio")
bench_goal "efficiency: telemetry's cost, abs(with / without - 1)" \
	"$(python3 -c "print(abs(float('${r:-nan}') - 1) * 100)")" "<=" 2 %
