#!/bin/bash
# bench/roofline.sh - the measured roofline (`axbench run --profile
# roofline`): each sweep's ridge point against the ridge the same run's
# peak and bandwidth suites give (peak / bandwidth), and their ratio.
# Goal (issue 37): the f32 sweep's ridge within 25 % of peak / bandwidth,
# 0.75 <= ratio <= 1.25.  Figures move between runs on a shared machine;
# the ratio is from one run.
# Usage: bench/roofline.sh [AXBENCH]
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/goal.sh
AX=${1:-${AXBENCH:-./axbench}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DB="$tmp/bench.db"
unset AXBENCH_VALIDATE AXBENCH_DB
if ! "$AX" --db "$DB" -q run --profile roofline >"$tmp/run.out" 2>&1; then
	cat "$tmp/run.out"
	echo "bench_roofline|failed"
	exit 1
fi
"$AX" --db "$DB" results --run last 2>"$tmp/notes" >"$tmp/table"
grep -E '^[0-9]+ +[0-9]+ +(roofline|peak|bandwidth)' "$tmp/table" |
	awk '{print "  " $3, $4, $5, $6, $7}'
grep '^roofline:' "$tmp/notes"
ratio() { # PRECISION -> the sweep's ridge / the run's peak / bandwidth
	sed -n "s/^roofline: run [0-9]* roofline $1 .*the sweep's ridge is \([0-9.]*\)x.*/\1/p" "$tmp/notes"
}
f32=$(ratio f32)
f64=$(ratio f64)
echo "bench_roofline|f32|${f32:-n/a}|f64|${f64:-n/a}"
bench_goal "roofline f32 ridge / (peak / bandwidth), at least" "$f32" '>=' 0.75 x
bench_goal "roofline f32 ridge / (peak / bandwidth), at most" "$f32" '<=' 1.25 x
