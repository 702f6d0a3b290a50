#!/bin/sh
# bench/tuner.sh - replay every recorded landscape through every strategy and
# print one table (run by `make bench-tuner`; see bench/bench_tuner.c for the
# columns): each strategy under the default stop rule beside --no-early-stop.  The landscapes live outside the repository, in
# ../shared/landscapes; without them the benchmark is skipped, not failed.
#
# Environment: B (build directory, default build), SEEDS (seeds per
# strategy, default 20), BO_SEEDS (seeds for bo, default SEEDS), JOBS
# (landscapes replayed at once, default the number of CPUs), LANDSCAPES
# (directory, default ../shared/landscapes).
set -u
cd "$(dirname "$0")/.." || exit 2
bin=${B:-build}/bench/bench_tuner
dir=${LANDSCAPES:-../shared/landscapes}
seeds=${SEEDS:-20}
bo_seeds=${BO_SEEDS:-$seeds}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

if [ ! -x "$bin" ]; then
	echo "tuner.sh: $bin is missing; run make B=${B:-build} $bin" >&2
	exit 2
fi
if [ ! -d "$dir" ]; then
	echo "tuner.sh: no landscapes at $dir; skipping the tuner benchmark"
	exit 0
fi
files=$(find "$dir" -name '*.json' -o -name '*.json.gz' | sort)
if [ -z "$files" ]; then
	echo "tuner.sh: no .json/.json.gz landscapes under $dir; skipping"
	exit 0
fi

start=$(date +%s)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One job per landscape, JOBS at a time; each writes its own rows so the
# table keeps the landscape order whatever finishes first.
i=0
for f in $files; do
	i=$((i + 1))
	echo "$i $f"
done >"$tmp/list"
# Biggest files first, so the slowest replays do not start last.
while read -r n f; do
	echo "$(wc -c <"$f") $n $f"
done <"$tmp/list" | sort -rn | cut -d' ' -f2- >"$tmp/order"
xargs -P "$jobs" -n 2 sh -c \
	'"$0" -n "'"$seeds"'" -N "'"$bo_seeds"'" "$2" >"'"$tmp"'/$1.out" \
	 2>"'"$tmp"'/$1.err"' "$bin" <"$tmp/order"

echo "Tuner replay benchmark: median best/optimum over seeds (bo: $bo_seeds" \
     "seeds, others: $seeds); random* is exact (expected, median)."
echo "Cells a/b: the default stop rule (ei) / --no-early-stop; evals: the" \
     "default rule's median evaluations of a budget of 100, 220; 1%?: its" \
     "medians at 100 and 220 within 1 % of --no-early-stop's"
"$bin" -H
status=0
for n in $(seq 1 "$i"); do
	cat "$tmp/$n.out"
	if [ -s "$tmp/$n.err" ]; then
		grep -q 'skipped' "$tmp/$n.err" || status=1
		sed 's/^/# /' "$tmp/$n.err"
	fi
done
echo "# $(($(date +%s) - start)) s wall time, $jobs landscapes at a time"
exit $status
