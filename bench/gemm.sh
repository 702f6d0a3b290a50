#!/bin/bash
# bench/gemm.sh - gemm fp32 at 1024^3 with the default parameters and with
# the best of a small sweep, beside the measured fp32 peak, and the ratios.
# Figures move from run to run on shared machines: compare the ratios
# printed by one run, not absolute numbers across runs.
#
# Usage: bench/gemm.sh [AXBENCH] ; env GEMM_SIZE (default 1024).
set -euo pipefail
cd "$(dirname "$0")/.."
AX=${1:-./axbench}
N=${GEMM_SIZE:-1024}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"
OPTS=(--min-samples 3 --max-samples 10 --min-time 0.5 --max-time 5)

median() { # suite, -p args... -> median of the one result, or "failed"
	"$AX" --db "$DB" --json run "$@" "${OPTS[@]}" | python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]
print(r["median"] if r["status"] == "ok" else "failed:" + r["status"])'
}

peak=$(median peak -p type=f32)
def=$(median gemm -p m=$N -p n=$N -p k=$N)

# The sweep: tile order, register-block shape, workgroup, and the
# shared-memory kernel.  Defaults are share=subgroup tm=32 bm=256
# colmajor=true; "tm=8 bm=64 bk=16 colmajor=false" were the defaults
# before the tm and tile-order changes.
sweep=(
	"-p colmajor=false"
	"-p tm=16 -p bm=128"
	"-p tm=8 -p bm=64 -p bk=16 -p colmajor=false"
	"-p tn=16 -p bn=128"
	"-p tn=16 -p bn=128 -p colmajor=false"
	"-p tn=16 -p bn=256 -p wg_x=16"
	"-p share=smem -p tm=8 -p bm=64 -p bk=16"
	"-p share=smem -p tm=8 -p bm=64 -p bk=16 -p dbuf=true"
	"-p share=smem -p tm=4 -p tn=4 -p bm=64 -p wg_x=16 -p wg_y=16"
)
best=$def
best_cfg="defaults"
for cfg in "${sweep[@]}"; do
	# shellcheck disable=SC2086
	v=$(median gemm -p m=$N -p n=$N -p k=$N $cfg)
	printf '  gemm %s %s: %s GFLOP/s\n' "$N^3" "$cfg" "$v"
	if python3 -c "import sys; sys.exit(0 if float('$v') > float('$best') else 1)" 2>/dev/null; then
		best=$v
		best_cfg=$cfg
	fi
done

python3 - "$peak" "$def" "$best" "$best_cfg" "$N" <<'PY'
import sys
peak, d, b = (float(x) for x in sys.argv[1:4])
cfg, n = sys.argv[4], sys.argv[5]
print(f"peak fp32:                 {peak:8.2f} GFLOP/s")
print(f"gemm fp32 {n}^3 defaults:  {d:8.2f} GFLOP/s  ({100*d/peak:5.1f} % of peak)")
print(f"gemm fp32 {n}^3 best:      {b:8.2f} GFLOP/s  ({100*b/peak:5.1f} % of peak; {cfg})")
print(f"defaults / best:           {d/b:8.2f}")
PY
