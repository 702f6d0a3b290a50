#!/bin/bash
# bench/model.sh - the model layers (issue 36) on this device: a decoder
# prefill, a decode step, an encoder and a ResNet block at a scale a CPU
# driver runs, each with tokens/s (or items/s), p50/p90/p99 and the glue
# overhead (the pass's GPU time over its kernels each timed alone).
# Goal (issue 36): the prefill layer's glue overhead within 15 %
# (<= 1.15 x the sum of its kernels); the decode step's is printed,
# with no goal (its kernels are small, so barriers and launches weigh).
# Usage: bench/model.sh [AXBENCH]   (SCALE=16 TOKENS=64 by default)
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/goal.sh
AX=${1:-${AXBENCH:-./axbench}}
SCALE=${SCALE:-16}
TOKENS=${TOKENS:-64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"
unset AXBENCH_VALIDATE AXBENCH_DB
runit() { # NAME ARGS...: one case, its figures as bench_model lines
	local name=$1
	shift
	if ! "$AX" --db "$DB" -q run "$@" >"$tmp/run.out" 2>&1; then
		cat "$tmp/run.out"
		echo "bench_model|$name|failed"
		return 1
	fi
	"$AX" --db "$DB" results --json --run last | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = (d["results"] if isinstance(d, dict) else d)[-1]
e = r.get("extra") or {}
lat, prof = e.get("latency") or {}, e.get("profile") or {}
print("bench_model|%s|%.4g %s|p50 %.3g ms|p90 %.3g ms|p99 %.3g ms|glue %.3f|%.3g GFLOP/s" % (
    sys.argv[1], r["median"], r["unit"], lat.get("p50_ms", float("nan")),
    lat.get("p90_ms", float("nan")), lat.get("p99_ms", float("nan")),
    prof.get("glue_overhead", float("nan")), e.get("gflops", float("nan"))))
print("glue|%s|%.6f" % (sys.argv[1], prof.get("glue_overhead", float("nan"))))
' "$name" | tee -a "$tmp/lines" | grep '^bench_model'
}
runit prefill decoder -p scale="$SCALE" -p tokens="$TOKENS"
runit decode decoder -p scale="$SCALE" -p tokens=1 -p depth=1024
runit encoder encoder -p scale=2 -p tokens=128
runit resnet resnet -p scale=4 -p size=28
glue() { sed -n "s/^glue|$1|//p" "$tmp/lines"; }
echo "bench_model_glue|prefill|$(glue prefill)|decode|$(glue decode)"
bench_goal "decoder prefill (scale=$SCALE, $TOKENS tokens) glue overhead, at most" "$(glue prefill)" '<=' 1.15 x
