#!/bin/sh
# bench/tuner.sh - replay every recorded landscape through every strategy and
# print one table (run by `make bench-tuner`; see bench/bench_tuner.c for the
# columns): each strategy under the default stop rule beside --no-early-stop;
# then the transfer table (bench/bench_transfer.c): every landscape tuned
# cold and with a prior from each other GPU's sweep of the same kernel.
# The landscapes live outside the repository, in
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

# Transfer: each landscape tuned cold and with a prior from every other
# landscape of the same kernel (the same directory: the same sweep on
# another GPU); see bench/bench_transfer.c for the columns.
start=$(date +%s)
tbin=${B:-build}/bench/bench_transfer
: >"$tmp/pairs"
for d in $(for f in $files; do dirname "$f"; done | sort -u); do
	same=$(find "$d" -maxdepth 1 \( -name '*.json' -o -name '*.json.gz' \) | sort)
	[ "$(echo "$same" | wc -l)" -ge 2 ] || continue
	for t in $same; do
		others=$(echo "$same" | grep -vxF "$t" | tr '\n' ' ')
		echo "$t $others" >>"$tmp/pairs"
	done
done
if [ -s "$tmp/pairs" ] && [ -x "$tbin" ]; then
	echo
	echo "Transfer: bo cold vs with a prior from another GPU's bo session" \
	     "(100 evaluations there), $bo_seeds seeds, default stop rule."
	echo "rho: the landscapes' rank correlation (common points); to5%: median evaluations to within 5 % of the optimum, cold/prior;" \
	     "saved: cold / prior; @N: median best/optimum, cold/prior; the" \
	     "'cold, other seeds' row is the noise floor"
	"$tbin" -H
	n=0
	while read -r line; do
		n=$((n + 1))
		echo "$n $line"
	done <"$tmp/pairs" >"$tmp/plist"
	# shellcheck disable=SC2016
	xargs -P "$jobs" -L 1 sh -c \
		'n=$1; shift; "$0" -n "'"$bo_seeds"'" "$@" >"'"$tmp"'/t$n.out" \
		 2>"'"$tmp"'/t$n.err"' "$tbin" <"$tmp/plist"
	for k in $(seq 1 "$n"); do
		cat "$tmp/t$k.out"
		if [ -s "$tmp/t$k.err" ]; then
			status=1
			sed 's/^/# /' "$tmp/t$k.err"
		fi
	done
	echo "# $(($(date +%s) - start)) s wall time for the transfer table"
fi
exit $status
