#!/bin/bash
# bench/multi.sh - several devices (issue 38) on two lavapipe devices (the
# manifest given twice): each device alone against both at once
# (--concurrent), zero-copy against staging per access pattern, the 2x2
# device-to-device matrix, and one job split over two devices that differ
# (device 1 with one lavapipe thread), the even split beside the dynamic
# one.  Goal: with devices that differ, the dynamic split's job rate at
# least 1.1 x the even split's (work goes to the device that is free).
# Usage: bench/multi.sh [AXBENCH]   (needs lavapipe's manifest)
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/goal.sh
AX=${1:-${AXBENCH:-./axbench}}
LVP=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -n 1)
if [ -z "$LVP" ]; then
	echo "bench/multi.sh: no lavapipe manifest; skipped"
	bench_goal "split dynamic over even" "" ">=" 1.1 x
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$LVP" "$tmp/lvp_copy.json"
export VK_ICD_FILENAMES="$LVP:$tmp/lvp_copy.json"
DB="$tmp/bench.db"
unset AXBENCH_VALIDATE AXBENCH_DB
M=(--idle 0 --cpu-baseline off --max-time 2 --max-samples 30)
ax() { "$AX" --db "$DB" "$@"; }

echo "== each device alone, then both at once (--concurrent)"
ax run gemm bandwidth -p m=256 -p size=64M --device all "${M[@]}" -q || exit 1
ax run gemm bandwidth -p m=256 -p size=64M --device all --concurrent "${M[@]}" || exit 1
ax --json results | python3 -c '
import json, sys
rows = json.load(sys.stdin)
for suite in ("gemm", "bandwidth"):
    alone = [r["median"] for r in rows if r["suite"] == suite
             and "concurrent" not in (r.get("extra") or {})]
    both = [r for r in rows if r["suite"] == suite
            and "concurrent" in (r.get("extra") or {})]
    if not alone or not both:
        continue
    agg = both[0]["extra"]["concurrent"]["aggregate"]
    print("bench_multi|concurrent|%s|alone %s|together %s|aggregate %.4g %s|"
          "aggregate over the best alone %.2fx" % (
              suite, " ".join("%.4g" % a for a in alone),
              " ".join("%.4g" % r["median"] for r in both), agg,
              both[0]["unit"], agg / max(alone)))
'

echo "== zero-copy against staging, 64 MiB"
ax run zerocopy -p size=64M -p pattern=once,reuse,sparse \
	-p path=staged,host,import "${M[@]}" -q || exit 1
ax --json recommend 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for dev in d["devices"]:
    zc = dev.get("zero_copy")
    if not isinstance(zc, list):
        continue
    for v in zc:
        print("bench_multi|zerocopy|%s|%s|winner %s (%s) %.2fx|%s" % (
            dev["key"], v["pattern"], v["choice"]["value"], v["path"],
            v["speedup"], v["choice"]["confidence"]))
'

echo "== the 2x2 device matrix"
ax run d2d --device all -p peer=0,1 -p path=staged,direct -p size=4K,64M \
	"${M[@]}" -q || exit 1
ax --json results | python3 -c '
import json, sys
for r in json.load(sys.stdin):
    if r["suite"] != "d2d" or r["status"] != "ok":
        continue
    p = r["params"]
    lat = p["size"] / (r["median"] * 1e9) * 1e6
    print("bench_multi|d2d|run %d -> peer %d|%s|%d B|%.4g GB/s|%.4g us" % (
        r["run_id"], p["peer"], p["path"], p["size"], r["median"], lat))
'

echo "== one job split over two devices that differ (device 1: one thread), 3 times"
for i in 1 2 3; do
	ax run gemm -p m=256 --device all --split --items 128 \
		--device-env 1:LP_NUM_THREADS=1 "${M[@]}" | tee -a "$tmp/split.out" || exit 1
done
ratio=$(ax --json results | python3 -c '
import json, statistics, sys
rate = {}
for r in json.load(sys.stdin):
    s = (r.get("extra") or {}).get("split")
    if s and s["phase"] in ("even", "dynamic"):
        rate.setdefault(s["group"], {})[s["phase"]] = s["job_rate"]
ratios = [g["dynamic"] / g["even"] for g in rate.values() if len(g) == 2]
print("bench_multi|split|dynamic over even per job|" +
      " ".join("%.3f" % x for x in ratios), file=sys.stderr)
print(statistics.median(ratios) if ratios else "")
')
echo "bench_multi|split|dynamic over even, median of 3 jobs|${ratio}x"
bench_goal "split dynamic over even" "$ratio" ">=" 1.1 x
