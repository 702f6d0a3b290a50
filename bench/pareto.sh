#!/bin/sh
# bench/pareto.sh - how much of a landscape's time/energy Pareto front
# `tune --replay --objective time,energy` finds, bo against random search.
# No shared landscape records energy or power, so this replays the
# SYNTHETIC clock landscape of tests/fixtures/pareto_landscape.py (its
# front known exactly; a real one with "<sensor>_energy" or "_power"
# fields can be given as $1).  Prints, per strategy and budget, the median
# over SEEDS (default 10) of the share of the whole front's hypervolume the
# measured front reaches (1 = all of it), and the worst seed.
set -u
cd "$(dirname "$0")/.." || exit 2
ax=${AX:-./axbench}
seeds=${SEEDS:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
land=${1:-$tmp/clock.json}
[ $# -ge 1 ] || python3 tests/fixtures/pareto_landscape.py "$land" || exit 2
echo "Pareto replay on $land: median (worst) hypervolume share over $seeds seeds"
printf '%-8s %8s %16s\n' strategy budget "hv share"
for st in bo random; do
	for budget in 20 40; do
		for s in $(seq 1 "$seeds"); do
			"$ax" --json tune --replay "$land" --objective time,energy \
				--strategy "$st" --budget "$budget" --seed "$s" |
				python3 -c 'import json,sys; print(json.load(sys.stdin)["front"]["hypervolume_ratio"])' ||
				exit 1
		done | sort -g | awk -v st="$st" -v b="$budget" '
			{ v[NR] = $1 }
			END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			      printf "%-8s %8d %9.3f (%.3f)\n", st, b, m, v[1] }'
	done
done
