#!/bin/bash
# bench/peaks.sh - the peak table (`axbench run --profile peaks`), each row
# beside vkpeak's figure for the same precision on this VM's lavapipe
# (issue 37: vkpeak read fp32 vec4 30.4, fp64 vec4 25.4, fp16 vec4 7.4,
# int32 21.9, int16 30.8, int64 14.2, int8 dot 33.4 GFLOPS/GIOPS).
# Goal: each row at least vkpeak's.  The vkpeak figures are of llvmpipe on
# the 2-core CI VM: on another device the rows print with no goal.
# Usage: bench/peaks.sh [AXBENCH]
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/goal.sh
AX=${1:-${AXBENCH:-./axbench}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"
unset AXBENCH_VALIDATE AXBENCH_DB
if ! "$AX" --db "$DB" -q run --profile peaks >/dev/null 2>"$tmp/run.err" ||
	! "$AX" --db "$DB" --json results --run last >"$tmp/run.json" 2>>"$tmp/run.err"; then
	cat "$tmp/run.err"
	echo "bench_peaks|failed"
	exit 1
fi
lavapipe=0
"$AX" devices --json | python3 -c 'import json,sys; sys.exit(0 if "llvmpipe" in json.load(sys.stdin)[0]["name"] else 1)' && lavapipe=1
python3 - "$tmp/run.json" "$lavapipe" >"$tmp/rows" <<'PY'
import json, sys
vkpeak = {"f32": 30.4, "f64": 25.4, "f16": 7.4, "i32": 21.9, "i16": 30.8,
          "i64": 14.2, "dot4": 33.4}
lavapipe = sys.argv[2] == "1"
for r in json.load(open(sys.argv[1])):
    t = r["params"]["type"]
    unit = "GIOP/s" if t[0] == "i" or t == "dot4" else "GFLOP/s"
    if r["status"] != "ok":
        print("row|%s|%s|%s" % (t, r["status"], (r.get("error") or "")[:90]))
        continue
    ref = vkpeak.get(t) if lavapipe else None
    print("row|%s|%.4g %s|%s" % (t, r["median"], unit,
          "vkpeak %.1f, %.2fx" % (ref, r["median"] / ref) if ref else "-"))
    if ref:
        print("goal|%s|%r|%r|%s" % (t, r["median"], ref, unit))
PY
printf '%-7s %-16s %s\n' type rate "against vkpeak"
grep '^row|' "$tmp/rows" | cut -d'|' -f2- | tr '|' '\t' | awk -F'\t' '{printf "%-7s %-16s %s\n", $1, $2, $3}'
grep '^goal|' "$tmp/rows" | while IFS='|' read -r _ t got ref unit; do
	bench_goal "peak $t at least vkpeak's figure" "$got" '>=' "$ref" "$unit"
done
