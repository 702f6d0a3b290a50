#!/bin/bash
# bench/ingest.sh - the data-loading figures of issue 14, measured here:
#
#   warm: the best ingest configuration (page cache warm, no kernel)
#         against the best host-memory -> device transfer of the same run
#         (staged and direct, pageable and pinned, 1 and 4 MiB chunks;
#         goal >= 0.8x: the pipeline should cost little over the copy);
#         the same sweep with the checksum kernel shown beside it;
#   cold: the best ingest configuration with the page cache dropped
#         before every repetition against the raw sequential read of the
#         same file in the same state, measured in the same case
#         (goal >= 0.8x).
#
# Every case is printed with its stages (read, upload, compute: seconds
# per repetition, from the profiled repetitions) and the bound stage.
# The data file is generated under DIR (default a new directory under the
# current one, so on the disk this runs from, not a tmpfs /tmp) and
# removed with it.
#
# Usage: bench/ingest.sh [AXBENCH]; env SIZE (default 256M), DIR.
# Machine-readable lines start "bench_".
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/goal.sh # bench_goal: the lines make bench gathers
AX=${1:-./axbench}
SIZE=${SIZE:-256M}
DIR=${DIR:-$(mktemp -d ./bench-ingest.XXXXXX)}
trap 'rm -rf "$DIR"' EXIT
DB=$DIR/ingest.db
unset AXBENCH_VALIDATE AXBENCH_DB
OPTS=(--min-samples 5 --max-samples 20 --min-time 0.3 --max-time 2)

ax() {
	"$AX" --db "$DB" --workdir "$DIR" -q run "$@" "${OPTS[@]}" \
		>"$DIR/out" 2>&1 || { cat "$DIR/out" >&2; exit 1; }
}

ax transfer -p direction=h2d -p path=staged,direct \
	-p source=pageable,pinned -p chunk=1M,4M -p total="$SIZE"
ax ingest -p size="$SIZE" -p cache=warm -p compute=none,checksum \
	-p chunk=1M,4M -p readers=1,2,4 -p inflight=4,8 -p io=pread,mmap
ax ingest -p size="$SIZE" -p cache=cold -p compute=none \
	-p chunk=1M,4M -p readers=1,2,4 -p inflight=8 -p io=pread,direct

"$AX" --db "$DB" --json results >"$DIR/res.json"
python3 - "$DIR/res.json" <<'EOF' |
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))
        if r.get("status") == "ok" and r.get("median")]

def best(pred):
    keep = [r for r in rows if pred(r)]
    return max(keep, key=lambda r: r["median"]) if keep else None

def label(r):
    p = r["params"]
    return "chunk=%-4s readers=%d inflight=%-2d io=%-6s" % (
        "%dM" % (p["chunk"] >> 20) if p["chunk"] >= 1 << 20
        else "%dK" % (p["chunk"] >> 10),
        p["readers"], p["inflight"], p["io"])

def table(title, pred):
    print("-- " + title)
    print("  %-44s %8s %7s %7s %7s %7s  %-7s %8s" % (
        "case", "GB/s", "read", "upload", "compute", "wall", "bound",
        "raw GB/s"))
    for r in sorted((r for r in rows if pred(r)),
                    key=lambda r: -r["median"]):
        e = r.get("extra") or {}
        s = e.get("stages") or {}
        ms = lambda k: "%7.2f" % (1e3 * s[k]) if k in s else "      -"
        print("  %-44s %8.3f %s %s %s %s  %-7s %8.3f" % (
            label(r), r["median"], ms("read_s"), ms("upload_s"),
            ms("compute_s"), ms("wall_s"), e.get("bound", "-"),
            e.get("raw_read_gbps") or float("nan")))
    print("  (stage columns: ms per repetition)")

ingest = lambda cache, compute: (
    lambda r: r["suite"] == "ingest" and r["params"]["cache"] == cache
    and r["params"]["compute"] == compute)
table("warm page cache, no kernel", ingest("warm", "none"))
table("warm page cache, checksum kernel", ingest("warm", "checksum"))
table("cold (page cache dropped before each repetition), no kernel",
      ingest("cold", "none"))

xf = best(lambda r: r["suite"] == "transfer")
warm = best(ingest("warm", "none"))
warm_ck = best(ingest("warm", "checksum"))
cold = best(ingest("cold", "none"))
print("-- goals (best against the reference of the same run)")
if xf and warm:
    p = xf["params"]
    ratio = warm["median"] / xf["median"]
    print("  warm:  ingest %.3f GB/s (%s) / transfer h2d %.3f GB/s "
          "(%s %s chunk=%dK) = %.2fx  goal >= 0.8: %s" % (
              warm["median"], label(warm).strip(), xf["median"],
              p["path"], p["source"], p["chunk"] >> 10, ratio,
              "met" if ratio >= 0.8 else "NOT met"))
    print("bench_ingest_warm_ratio=%.3f" % ratio)
if xf and warm_ck:
    print("  warm with the checksum kernel: %.3f GB/s = %.2fx the "
          "transfer (bound: %s)" % (
              warm_ck["median"], warm_ck["median"] / xf["median"],
              (warm_ck.get("extra") or {}).get("bound")))
if cold:
    raw = (cold.get("extra") or {}).get("raw_read_gbps")
    ratio = cold["median"] / raw if raw else float("nan")
    print("  cold:  ingest %.3f GB/s (%s) / raw sequential read %.3f "
          "GB/s = %.2fx  goal >= 0.8: %s" % (
              cold["median"], label(cold).strip(), raw or float("nan"),
              ratio, "met" if ratio >= 0.8 else "NOT met"))
    print("bench_ingest_cold_ratio=%.3f" % ratio)
EOF
	tee "$DIR/goals"
bench_goal "ingest warm / transfer h2d" \
	"$(sed -n 's/^bench_ingest_warm_ratio=//p' "$DIR/goals")" ">=" 0.8 x
bench_goal "ingest cold / raw sequential read" \
	"$(sed -n 's/^bench_ingest_cold_ratio=//p' "$DIR/goals")" ">=" 0.8 x
