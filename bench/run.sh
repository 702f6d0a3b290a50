#!/bin/bash
# bench/run.sh - `make bench`: the memory figures of the Foundation goal,
# each beside the host memcpy reference measured in the same run.
#
#   1. bandwidth copy at a 256 MiB working set (128 MiB -> 128 MiB) vs a
#      128 MiB host memcpy, both counted as bytes read + written;
#   2. the best host->device and device->host transfer (sweep of chunk,
#      inflight, staged/direct, pageable/pinned; 256 MiB per repetition so
#      the figure is memory-, not cache-bound) vs a 256 MiB memcpy counted
#      as bytes copied, like the transfer suite counts bytes moved;
#   3. other engineers' bench/*.sh scripts (gemm.sh ...), except tuner.sh,
#      which `make bench-tuner` runs, and gpu-check.sh (run by hand on a
#      GPU machine, with an OUTDIR).
#
# The reference is bench/memcpy: a plain memcpy on ONE host thread (no
# multi-threaded copy), sampled 3 times in each section (before, between
# its two axbench runs, after: the load of a shared machine drifts), each
# sample 5 runs.  Its median is the median of the 3 samples' medians, its
# best the best of their bests.
# Ratios compare medians with medians (and bests with bests) measured in
# this one run: on a shared machine absolute figures move between runs.
# Goal on lavapipe: copy >= 0.95 x memcpy, H2D >= 0.9 x memcpy (medians,
# the unrounded ratio; the figures print rounded to 3 decimals).
# Environment: B (build directory, default build), QUICK=1 (a smaller
# sweep), AXBENCH (binary, default ./axbench), BENCH_SCRIPTS (the
# bench/*.sh to run, by name, space-separated; default every one).
# Every goal, its figure and its verdict ("met", "short by ...") end the
# output as one table, gathered from the bench_goal lines (bench/goal.sh)
# that this script and each bench/*.sh print; a script with none is
# listed as "figures only".  Uses a temporary
# database, never ./axbench.db.  Machine-readable lines start "bench_".
# Exit status: 0 when everything was measured and every goal met; 1 when
# a goal is not met or a measurement (or a bench/*.sh) failed: the last
# lines ("bench: NOT met: ...", "bench: failed: ...") name each one; 2
# when a binary is missing.  make bench fails then too, after printing
# every figure.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/goal.sh # bench_goal: one line per goal, gathered below
B=${B:-build}
AX=${AXBENCH:-./axbench}
MEMCPY=$B/bench/memcpy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DB=$tmp/bench.db
# Benchmarks run without the validation layer (it costs time per call).
unset AXBENCH_VALIDATE AXBENCH_DB
status=0
declare -a not_met=() failures=()
fail() { # WHAT: a measurement that failed, for the summary
	failures+=("$1")
	status=1
}

for f in "$AX" "$MEMCPY"; do
	if [ ! -x "$f" ]; then
		echo "bench: $f is missing; run make B=$B bench" >&2
		exit 2
	fi
done

# The load of a shared machine drifts during a sweep, so memcpy (one
# thread) is sampled before, inside and after each section: mc_sample
# SIZE appends one sample of 5 runs to $tmp/mc.SIZE; mc SIZE KIND prints
# the best of the bests (KIND copy or rw) or the median of the samples'
# medians (copy_median, rw_median): the middle one of an odd number (3
# here), the mean of the middle two of an even number, never the lower.
mc_sample() {
	"$MEMCPY" -r 5 "$1" >>"$tmp/mc.$1" || fail "host memcpy $1"
}
mc() {
	sed -n "s/^memcpy_$1_$2_GBps=//p" "$tmp/mc.$1" | sort -g |
		awk -v kind="$2" '{ v[NR] = $1 }
		END { if (!NR) exit
		      if (kind !~ /median/) print v[NR]
		      else if (NR % 2) print v[(NR + 1) / 2]
		      else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Run axbench into the temp database, then print that run's results as
# one line each: median max status case extra-json.
ax_run() {
	"$AX" --db "$DB" -q run "$@" >"$tmp/run.out" 2>&1
	local rc=$?
	"$AX" --db "$DB" --json results --run last >"$tmp/res.json" \
		2>>"$tmp/run.out" || rc=1
	if [ $rc -ne 0 ]; then
		echo "bench: axbench run $* failed (exit $rc):" >&2
		sed 's/^/  /' "$tmp/run.out" >&2
	fi
	return $rc
}

# best FILTER: the result with the highest median among those whose
# params match the python expression FILTER (p = params dict), as
# "median max name=value..." (or nothing).
best() {
	python3 - "$tmp/res.json" "$1" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
keep = [r for r in rows if r.get("status") == "ok" and r.get("median")
        and eval("(%s)" % sys.argv[2], {}, {"p": r.get("params", {})})]
if keep:
    r = max(keep, key=lambda r: r["median"])
    p = r["params"]
    for k in ("direction", "size", "total"):
        p.pop(k, None)
    def text(k, v):  # byte counts as 4K / 16M, like -p takes them
        if k == "chunk" and v % 1024 == 0:
            for unit in "KMG":
                v //= 1024
                if v < 1024 or v % 1024:
                    return "%d%s" % (v, unit)
        return str(v)
    print("%.3f %.3f %s" % (r["median"], r["max"],
          " ".join("%s=%s" % (k, text(k, v)) for k, v in sorted(p.items()))))
EOF
}

ratio() { # a b -> a/b with 3 decimals, or n/a
	python3 -c 'import sys
a, b = sys.argv[1], sys.argv[2]
print("%.3f" % (float(a) / float(b)) if a and b and float(b) > 0 else "n/a")' \
		"${1:-}" "${2:-}"
}

# goal NAME A B TARGET: whether A / B >= TARGET, compared unrounded
# (0.946 is not 0.95); sets GOAL to "met (RATIO)", "NOT met (RATIO <
# TARGET)" or "n/a (not measured)" and remembers each of the last two for
# the summary (so call it as it is, not in $(...), a subshell).
goal() {
	GOAL=$(python3 -c 'import sys
a, b, t = sys.argv[1], sys.argv[2], float(sys.argv[3])
if not (a and b and float(b) > 0):
    print("n/a (not measured)")
elif float(a) / float(b) >= t:
    print("met (%.4f)" % (float(a) / float(b)))
else:
    print("NOT met (%.4f < %g)" % (float(a) / float(b), t))' \
		"${2:-}" "${3:-}" "$4")
	bench_goal "$1" "$(python3 -c 'import sys
a, b = sys.argv[1], sys.argv[2]
print(float(a) / float(b) if a and b and float(b) > 0 else "")' \
		"${2:-}" "${3:-}")" ">=" "$4" | tee -a "$tmp/goals"
	local why=${GOAL#NOT met }
	why=${why#(}
	case $GOAL in
	met*) ;;
	*) not_met+=("$1 >= $4: ${why%)}") ;;
	esac
}

echo "== axbench memory benchmarks ($(date -u +%Y-%m-%dT%H:%MZ)," \
     "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"

# --- 1. bandwidth copy vs memcpy, read + written -------------------------
echo
echo "-- device copy, 256 MiB working set (GB/s counting read + written)"
mc_sample 128M
cp_best="" dma_best=""
if ax_run bandwidth -p op=copy -p size=256M -p wg=64,256,1024 \
	-p epi=4,16 --max-time 2; then
	cp_best=$(best 'p["op"] == "copy"')
else
	fail "bandwidth op=copy"
fi
mc_sample 128M
if ax_run bandwidth -p op=dma -p size=256M --max-time 2; then
	dma_best=$(best 'p["op"] == "dma"')
else
	fail "bandwidth op=dma"
fi
mc_sample 128M
cp_mc=$(mc 128M rw)
cp_mc_med=$(mc 128M rw_median)
read -r cp_med cp_max cp_case <<<"${cp_best:-}"
read -r dma_med dma_max dma_case <<<"${dma_best:-}"
printf "  %-34s %8s median %8s best   %s\n" \
	"host memcpy 128M->128M, 1 thread" "${cp_mc_med:-n/a}" \
	"${cp_mc:-n/a}" "(median of 3 samples of 5 runs)"
printf "  %-34s %8s median %8s best   %s\n" "bandwidth op=copy (best case)" \
	"${cp_med:-n/a}" "${cp_max:-n/a}" "${cp_case:-}"
printf "  %-34s %8s median %8s best   %s\n" \
	"bandwidth op=dma (vkCmdCopyBuffer)" \
	"${dma_med:-n/a}" "${dma_max:-n/a}" "${dma_case:-}"
r_copy=$(ratio "${cp_med:-}" "$cp_mc_med")
r_copy_best=$(ratio "${cp_max:-}" "$cp_mc")
r_dma=$(ratio "${dma_med:-}" "$cp_mc_med")
goal "copy / 1-thread memcpy (medians)" "${cp_med:-}" "$cp_mc_med" 0.95
echo "  copy / 1-thread memcpy: $r_copy (medians), $r_copy_best (bests);" \
     "dma / memcpy: $r_dma;  goal >= 0.95: $GOAL"

# --- 2. transfers vs memcpy, bytes copied --------------------------------
echo
echo "-- host<->device transfers, 256 MiB per repetition (GB/s of bytes moved)"
chunks=256K,1M,4M,16M,64M
inflight=1,2,4
if [ "${QUICK:-0}" = 1 ]; then
	chunks=1M,16M
	inflight=2,4
fi
mc_sample 256M
tr_ok=1
ax_run transfer -p direction=h2d,d2h -p path=staged \
	-p source=pageable,pinned -p chunk=$chunks -p inflight=$inflight \
	-p total=256M --max-time 1 || tr_ok=0
cp "$tmp/res.json" "$tmp/staged.json"
mc_sample 256M
ax_run transfer -p direction=h2d,d2h -p path=direct \
	-p source=pageable,pinned -p chunk=$chunks -p inflight=1 \
	-p total=256M --max-time 1 || tr_ok=0
python3 -c 'import json, sys
print(json.dumps(json.load(open(sys.argv[1])) + json.load(open(sys.argv[2]))))' \
	"$tmp/staged.json" "$tmp/res.json" >"$tmp/all.json" &&
	mv "$tmp/all.json" "$tmp/res.json"
[ $tr_ok = 1 ] || fail "transfer"
mc_sample 256M
tr_mc=$(mc 256M copy)
tr_mc_med=$(mc 256M copy_median)
printf "  %-34s %8s median %8s best   %s\n" "host memcpy 256M, 1 thread" \
	"${tr_mc_med:-n/a}" "${tr_mc:-n/a}" "(median of 3 samples of 5 runs)"
for dir in h2d d2h; do
	for sel in "staged pageable" "staged pinned" "direct pageable" \
		   "direct pinned"; do
		path=${sel% *} src=${sel#* }
		line=$(best "p['direction'] == '$dir' and \
			p['path'] == '$path' and p['source'] == '$src'")
		read -r m x c <<<"${line:-}"
		printf "  %-34s %8s median %8s best   %s\n" \
			"$dir $sel (best case)" "${m:-n/a}" "${x:-n/a}" "${c:-}"
	done
done
read -r h2d_med h2d_max h2d_case <<<"$(best 'p["direction"] == "h2d"')"
read -r d2h_med d2h_max d2h_case <<<"$(best 'p["direction"] == "d2h"')"
read -r hs_med _ <<<"$(best 'p["direction"] == "h2d" and
	p["path"] == "staged" and p["source"] == "pageable"')"
r_h2d=$(ratio "${h2d_med:-}" "$tr_mc_med")
r_d2h=$(ratio "${d2h_med:-}" "$tr_mc_med")
r_hs=$(ratio "${hs_med:-}" "$tr_mc_med")
goal "best H2D / 1-thread memcpy (medians)" "${h2d_med:-}" "$tr_mc_med" 0.9
echo "  best H2D: ${h2d_med:-n/a} GB/s (${h2d_case:-}), / 1-thread memcpy:" \
     "$r_h2d (medians), $(ratio "${h2d_max:-}" "$tr_mc") (bests);" \
     "goal >= 0.9: $GOAL"
echo "  best D2H: ${d2h_med:-n/a} GB/s (${d2h_case:-}), / 1-thread memcpy: $r_d2h" \
     "(medians), $(ratio "${d2h_max:-}" "$tr_mc") (bests)"
echo "  best staged pageable H2D / memcpy: $r_hs (the path a discrete GPU" \
     "needs: two copies, pipelined)"

echo
echo "bench_memcpy_128M_rw_GBps=$cp_mc_med"
echo "bench_copy_GBps=${cp_med:-}"
echo "bench_copy_ratio=$r_copy"
echo "bench_dma_ratio=$r_dma"
echo "bench_memcpy_256M_copy_GBps=$tr_mc_med"
echo "bench_h2d_GBps=${h2d_med:-}"
echo "bench_h2d_ratio=$r_h2d"
echo "bench_d2h_GBps=${d2h_med:-}"
echo "bench_d2h_ratio=$r_d2h"
echo "bench_h2d_staged_pageable_ratio=$r_hs"
echo "bench_goals_not_met=${#not_met[@]}"

# --- 3. other engineers' benchmark scripts -------------------------------
for s in bench/*.sh; do
	# tuner.sh: make bench-tuner; gpu-check.sh: a validation pass that
	# needs an OUTDIR, run by hand on a GPU machine
	case $s in
	bench/run.sh | bench/tuner.sh | bench/gpu-check.sh | bench/goal.sh)
		continue ;;
	esac
	# BENCH_SCRIPTS="ab.sh load.sh": only these (default every one).
	case " ${BENCH_SCRIPTS:-${s#bench/}} " in
	*" ${s#bench/} "*) ;;
	*) continue ;;
	esac
	[ -x "$s" ] || continue
	echo
	echo "-- $s"
	B=$B "$s" 2>&1 | tee "$tmp/out"
	[ "${PIPESTATUS[0]}" = 0 ] || { echo "bench: $s failed" >&2; fail "$s"; }
	# Its goals, or that it prints figures only.
	if grep -q '^bench_goal|' "$tmp/out"; then
		grep '^bench_goal|' "$tmp/out" >>"$tmp/goals"
	else
		echo "bench_goal|$s: figures only, no goal|-|-|-" >>"$tmp/goals"
	fi
done

# --- the summary table: every figure with a goal, one line each --------
echo
echo "bench: summary, one line per goal (bench/goal.sh)"
printf "  %-62s %14s %22s  %s\n" goal measured target verdict
while IFS='|' read -r _ what got target verdict; do
	printf "  %-62s %14s %22s  %s\n" "$what" "$got" "$target" "$verdict"
done <"$tmp/goals"

# --- summary: every goal not met and every failure, on the last lines ---
echo
if [ ${#not_met[@]} -eq 0 ] && [ ${#failures[@]} -eq 0 ]; then
	echo "bench: every goal met"
fi
for g in "${not_met[@]}"; do
	echo "bench: NOT met: $g"
done
for f in "${failures[@]}"; do
	echo "bench: failed: $f"
done
[ ${#not_met[@]} -eq 0 ] || status=1
exit $status
