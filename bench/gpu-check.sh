#!/bin/bash
# bench/gpu-check.sh - one validation pass of axbench on a real GPU (or,
# slower and smaller, on lavapipe), leaving its database and report under
# OUTDIR and printing each figure against the vendor's spec
# (configs/specs.yaml).  Budget: under 8 minutes on a datacenter GPU.
#
# Usage: bench/gpu-check.sh [--small] [--no-build] OUTDIR
#   --small     small shapes for a CPU device (CI runs this on lavapipe)
#   --no-build  use ./axbench as it is
# env AXBENCH (default ./axbench; on a machine without our packages, the
# wrapper scripts/device-bundle.sh makes), GPU_CHECK_DEVICE (--device SEL).
#
# Steps, each a labelled run in OUTDIR/gpu-check.db:
#   build; devices; the quick profile with --validate (any validation
#   message fails it); gemm N^3 fp32, fp16 and coopmat (4096, --small
#   256); bandwidth copy and dma (1G, --small 16M); the transfer chunk
#   sweep (on the dedicated transfer queue where there is one: the
#   suite takes it by itself and says which in each result); tune gemm
#   with a budget of 30 (--small 4); the peaks profile with --validate;
#   the roofline profile at 1G (--small 4M) and its ridge lines; tune gemm
#   kernel=coopmat where the device lists cooperative-matrix shapes; the
#   report.
# A step the device cannot do (coopmat without a cooperative-matrix
# extension) is skipped with its reason, not failed: axbench ends such a
# run 0 with "run N: 0 verified, 0 failed, M skipped".  Any step that
# exits non-zero fails, whatever its message mentions: a refusal (exit 2)
# or a failed verification (1) is never a skip.  Exit 0 when every step
# that ran passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

small=0
build=1
while [ $# -gt 0 ]; do
	case "$1" in
	--small) small=1 ;;
	--no-build) build=0 ;;
	-h | --help)
		sed -n '2,25p' "$0"
		exit 0
		;;
	-*)
		echo "gpu-check: unknown option $1 (see --help)" >&2
		exit 2
		;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || {
	echo "usage: bench/gpu-check.sh [--small] [--no-build] OUTDIR" >&2
	exit 2
}
OUT=$1
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
AX=${AXBENCH:-./axbench}
DB="$OUT/gpu-check.db"
LOG="$OUT/gpu-check.log"
: >"$LOG"
GLOBAL=(--db "$DB")
[ -n "${GPU_CHECK_DEVICE:-}" ] && GLOBAL+=(--device "$GPU_CHECK_DEVICE")

if [ $small = 1 ]; then
	N=256 BW=16M TOTAL=16M CHUNKS=64K..4M BUDGET=4 RL=4M
	MEAS=(--min-samples 3 --max-samples 10 --max-time 1)
else
	N=4096 BW=1G TOTAL=1G CHUNKS=64K..256M BUDGET=30 RL=1G
	MEAS=(--min-samples 5 --max-samples 30 --max-time 3)
fi

failed=0
declare -a STEPS=()
step() { # NAME COMMAND...: run, log, remember pass/skip/fail
	local name=$1 start rc from
	shift
	start=$(date +%s)
	echo "== $name: $*" | tee -a "$LOG"
	from=$(($(wc -l <"$LOG") + 1))
	"$@" >>"$LOG" 2>&1
	rc=$?
	local secs=$(($(date +%s) - start)) verdict=pass
	# A skip is only what axbench itself reports as one: a run that ends
	# 0 with every case skipped (its own last line, in this step's
	# output).  A non-zero exit is a failure, whatever its message says.
	if [ $rc -ne 0 ]; then
		verdict="FAIL (exit $rc)"
		failed=1
	elif tail -n +"$from" "$LOG" | grep -Eq \
		'^axbench: run [0-9]+: 0 verified, 0 failed, [1-9][0-9]* skipped$'; then
		verdict=skip
	fi
	echo "   $verdict in ${secs}s" | tee -a "$LOG"
	STEPS+=("$(printf '%-22s %-14s %4ss' "$name" "$verdict" "$secs")")
}

t0=$(date +%s)
if [ $build = 1 ]; then
	step build make -j"$(nproc)" axbench
fi
step devices "$AX" devices
"$AX" devices --json >"$OUT/devices.json" 2>>"$LOG"
step quick-validate "$AX" "${GLOBAL[@]}" --validate run --profile quick \
	--label gpu-check:quick
gemm=(-p m=$N -p n=$N -p k=$N)
step gemm-f32 "$AX" "${GLOBAL[@]}" run gemm "${gemm[@]}" -p dtype=f32 \
	"${MEAS[@]}" --label gpu-check:gemm-f32
step gemm-f16 "$AX" "${GLOBAL[@]}" run gemm "${gemm[@]}" -p dtype=f16 \
	"${MEAS[@]}" --label gpu-check:gemm-f16
step gemm-coopmat "$AX" "${GLOBAL[@]}" run gemm "${gemm[@]}" -p dtype=f16 \
	-p kernel=coopmat "${MEAS[@]}" --label gpu-check:gemm-coopmat
step bandwidth "$AX" "${GLOBAL[@]}" run bandwidth -p op=copy,dma \
	-p size=$BW "${MEAS[@]}" --label gpu-check:bandwidth
step transfer "$AX" "${GLOBAL[@]}" run transfer -p direction=h2d,d2h \
	-p source=pinned -p chunk=$CHUNKS -p total=$TOTAL "${MEAS[@]}" \
	--label gpu-check:transfer
step tune-gemm "$AX" "${GLOBAL[@]}" tune gemm "${gemm[@]}" \
	--budget $BUDGET --label gpu-check:tune
# Every precision's peak (bf16 and fp8 are skipped, with why), and the
# roofline sweep beside its ceilings at a size past the caches (its ridge
# is printed by `results`, below).
step peaks "$AX" "${GLOBAL[@]}" --validate run --profile peaks \
	--label gpu-check:peaks
step roofline "$AX" "${GLOBAL[@]}" run --profile roofline -p size=$RL \
	"${MEAS[@]}" --label gpu-check:roofline
"$AX" "${GLOBAL[@]}" results --run last 2>&1 >/dev/null |
	grep '^roofline:' | tee -a "$LOG"
# The cooperative-matrix tiles are tunables where the device lists shapes.
if grep -q '"cooperative_matrix_nv": true' "$OUT/devices.json"; then
	step tune-coopmat "$AX" "${GLOBAL[@]}" tune gemm "${gemm[@]}" \
		-p dtype=f16 -p kernel=coopmat --budget $BUDGET \
		--label gpu-check:tune-coopmat
fi
step report "$AX" "${GLOBAL[@]}" report -o "$OUT/report.html"
total=$(($(date +%s) - t0))

echo
echo "steps (log: $LOG):"
printf '  %s\n' "${STEPS[@]}"
echo "  total ${total}s"
echo
"$AX" "${GLOBAL[@]}" results --json 2>>"$LOG" >"$OUT/results.json"
command -v python3 >/dev/null ||
	echo "no python3 here: the table is left out; $OUT/results.json" \
		"holds every figure"
command -v python3 >/dev/null && python3 - "$OUT/results.json" <<'EOF'
import json, sys

# Each figure beside the vendor's spec (configs/specs.yaml, through
# results' own fields): "spec unknown" where the device has no entry.
rows = json.load(open(sys.argv[1]))
keep = ("gpu-check:gemm", "gpu-check:bandwidth", "gpu-check:transfer")


def case(r):
    p = r.get("params") or {}
    if r["suite"] == "gemm":
        return "%sx%sx%s %s %s" % (p.get("m"), p.get("n"), p.get("k"),
                                   p.get("dtype"), p.get("kernel"))
    if r["suite"] == "transfer":
        queue = (r.get("extra") or {}).get("queue", "?")
        return "%s chunk=%s (%s queue)" % (p.get("direction"),
                                           p.get("chunk"), queue)
    return r["case"]


# The issue's goals on an H200, as % of the spec figure.
GOALS = {("gemm", "f32", "tiled"): 60, ("gemm", "f16", "coopmat"): 40,
         ("bandwidth", "copy"): 85}


def goal(r):
    p = r.get("params") or {}
    if r["suite"] == "gemm":
        return GOALS.get(("gemm", p.get("dtype"), p.get("kernel")))
    return GOALS.get((r["suite"], p.get("op")))


print("%-9s %-34s %11s %-8s %8s  %s" %
      ("suite", "case", "median", "unit", "% spec", "goal / spec figure"))
for r in rows:
    if not (r.get("run_label") or "").startswith(keep):
        continue
    if r.get("status") != "ok":
        print("%-9s %-34s %s: %s" % (r["suite"], case(r), r.get("status"),
                                     r.get("error")))
        continue
    spec = r.get("spec") or {}
    pct, g = spec.get("percent"), goal(r)
    note = ""
    if spec.get("status") == "compared":
        note = "%s %g (%s)" % (spec.get("figure"), spec.get("value"),
                               spec.get("product"))
        if g is not None:
            note = ("goal %d%%: %s; " % (g, "met" if pct >= g else
                    "short by %.1f points" % (g - pct))) + note
    elif spec.get("status") == "unknown":
        note = "spec unknown: %s" % spec.get("reason")
    print("%-9s %-34s %11.4g %-8s %8s  %s" %
          (r["suite"], case(r), r["median"], r["unit"],
           "%.1f" % pct if pct is not None else
           {"unknown": "unknown"}.get(spec.get("status"), "-"), note))
EOF
echo
echo "database: $DB"
echo "report:   $OUT/report.html"
exit $failed
