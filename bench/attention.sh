#!/bin/bash
# bench/attention.sh - attention fp32 at seq 512 (queries and keys), head_dim
# 64, 4 heads, with the default parameters and with the best of a small
# sweep (share=smem, first at the old defaults, and share=subgroup at
# several rows per lane), beside the measured fp32 peak, and the ratios.
# Figures move from run to run on shared machines: compare the ratios
# printed by one run, not absolute numbers across runs.
#
# Usage: bench/attention.sh [AXBENCH] ; env ATT_SEQ (default 512),
# ATT_HEAD_DIM (default 64).
set -euo pipefail
cd "$(dirname "$0")/.."
AX=${1:-./axbench}
S=${ATT_SEQ:-512}
D=${ATT_HEAD_DIM:-64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"
# A generous fence timeout: the first dispatch of a big rpl also pays for
# LLVM compiling the fully unrolled kernel.
OPTS=(--min-samples 3 --max-samples 10 --min-time 0.5 --max-time 5
      --timeout 60)
SHAPE=(-p seq_q="$S" -p seq_kv="$S" -p head_dim="$D")

median() { # suite, -p args... -> median of the one result, or "failed"
	{ "$AX" --db "$DB" --json run "$@" "${OPTS[@]}" || true; } |
		python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["results"][0]
except (ValueError, KeyError, IndexError):
    print("failed:refused")
    sys.exit(0)
print(r["median"] if r["status"] == "ok" else "failed:" + r["status"])'
}

faster() { # a b -> success when a is a number above b
	python3 -c 'import sys
try:
    sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)
except ValueError:
    sys.exit(1)' "$1" "$2"
}

peak=$(median peak -p type=f32)
def=$(median attention "${SHAPE[@]}")

# The sweep: the shared-memory kernel, then the subgroup kernel with more
# query rows per lane (each K/V element shuffled round feeds rpl rows).
sweep=(
	"-p share=smem -p bc=16"
	"-p share=smem -p br=32 -p bc=32 -p tpr=4"
	"-p br=16 -p rpl=1"
	"-p br=16 -p rpl=2 -p bc=16"
	"-p br=32 -p rpl=4"
	"-p br=64 -p rpl=4"
)
best=$def
best_cfg="defaults"
for cfg in "${sweep[@]}"; do
	# shellcheck disable=SC2086
	v=$(median attention "${SHAPE[@]}" $cfg)
	printf '  attention seq %s d %s %s: %s GFLOP/s\n' "$S" "$D" "$cfg" "$v"
	if faster "$v" "$best"; then
		best=$v
		best_cfg=$cfg
	fi
done

python3 - "$peak" "$def" "$best" "$best_cfg" "$S" "$D" <<'PY'
import sys
peak, d, b = (float(x) for x in sys.argv[1:4])
cfg, s, hd = sys.argv[4], sys.argv[5], sys.argv[6]
name = f"attention fp32 seq {s} d {hd}"
print(f"peak fp32:                          {peak:8.2f} GFLOP/s")
print(f"{name} defaults: {d:8.2f} GFLOP/s  ({100*d/peak:5.1f} % of peak)")
print(f"{name} best:     {b:8.2f} GFLOP/s  "
      f"({100*b/peak:5.1f} % of peak; {cfg})")
print(f"defaults / best:                    {d/b:8.2f}")
PY
