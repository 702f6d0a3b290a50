#!/bin/bash
# bench/anchors.sh - issue 35: axbench's own kernels against the best
# public Vulkan shaders at the same shape, on the same device, both tuned
# by `axbench kernel tune` / `axbench tune`, then measured interleaved
# (`axbench ab`, paired rounds) and printed as ratios.  Printed, never
# asserted (bench_goal lines).
#
#   bench/anchors.sh DIR      DIR: a checkout of github.com/google/uVkCompute
#   ANCHORS_UVK=DIR make bench
#
# The project never downloads the anchors and holds none of their code:
# bench/anchors/*.yaml describe their shaders for `axbench kernel`, and
# this script copies each shader beside its description in a temporary
# folder.  Without DIR it says so and exits 0.
#
# Anchors:
#   gemm  benchmarks/matmul/matmul_tiled_fp32.glsl  m = n = k = ANCHORS_GEMM
#         (default 1024), fp32, against `gemm` (row-major, same shape)
#   conv  benchmarks/convolution/conv2d_tiled.glsl  3x3, 32 -> 32
#         channels, 32 x 32 output, NHWC, no padding, against `conv
#         layout=nhwc pad=0` at the same shape
# Each side is tuned with ANCHORS_BUDGET evaluations (default 20); the
# paired comparison then runs the anchor's best (A) against axbench's
# best and against axbench's device defaults (B), and the script prints
# B / A with its 95 % interval.  The anchor's outputs are checked against
# another of its own configurations (bench/anchors/*.yaml, verify), and
# axbench's against its CPU reference.  About 11 min (646 s) on lavapipe with
# the default budget.  AX=path picks the binary; ANCHORS_ONLY=gemm or
# conv runs one of the two.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/goal.sh # bench_goal: the lines make bench gathers
AX=${AX:-$PWD/axbench}
UVK=${1:-${ANCHORS_UVK:-}}
BUDGET=${ANCHORS_BUDGET:-20}
GEMM_N=${ANCHORS_GEMM:-1024}
ONLY=${ANCHORS_ONLY:-}
gemm_tuned= gemm_default= peak_pct= conv_tuned= conv_default=

if [ -z "$UVK" ]; then
	echo "anchors: skipped: no anchor checkout given; run" \
		"bench/anchors.sh DIR (or ANCHORS_UVK=DIR make bench) with DIR" \
		"a checkout of github.com/google/uVkCompute"
	exit 0
fi
MATMUL=$UVK/benchmarks/matmul/matmul_tiled_fp32.glsl
CONV=$UVK/benchmarks/convolution/conv2d_tiled.glsl
for f in "$MATMUL" "$CONV"; do
	if [ ! -f "$f" ]; then
		echo "anchors: $f: no such file; DIR must be a checkout of" \
			"github.com/google/uVkCompute (its benchmarks/ folder)" >&2
		exit 2
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
unset AXBENCH_VALIDATE AXBENCH_DB
DB=$tmp/anchors.db
cp bench/anchors/uvk_matmul.yaml bench/anchors/uvk_conv.yaml "$tmp/"
cp "$MATMUL" "$CONV" "$tmp/"

# best_params of a tune --json document as "a=1 b=2" (tunables only).
best_params() { # JSON
	python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d.get("best_params") or {}
print(" ".join("%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v)
               for k, v in p.items()))
EOF
}

# tune_side NAME CMD...: run a tune --json, print its best parameters.
tune_side() {
	local name=$1
	shift
	if ! "$AX" --db "$DB" --json "$@" --budget "$BUDGET" \
		>"$tmp/$name.json" 2>"$tmp/$name.err"; then
		echo "anchors: $name: tuning failed:" >&2
		tail -5 "$tmp/$name.err" >&2
		return 1
	fi
	best_params "$tmp/$name.json"
}

# pair LABEL AB-ARGS...: one paired comparison; prints the ratio line and
# sets RATIO (B / A) and LO.
pair() {
	local label=$1
	shift
	"$AX" --db "$DB" --json ab "$@" --max-time 40 >"$tmp/ab.json" \
		2>"$tmp/ab.err"
	local rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		echo "anchors: $label: ab failed (exit $rc):" >&2
		tail -5 "$tmp/ab.err" >&2
		RATIO=nan LO=nan
		return 1
	fi
	read -r RATIO LO HI MA MB ROUNDS < <(python3 - "$tmp/ab.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = lambda x: "nan" if x is None else "%.4g" % x
print(f(d["speedup"]), f(d["speedup_lo"]), f(d["speedup_hi"]),
      f(d["a"]["median"]), f(d["b"]["median"]), d["rounds"])
EOF
	)
	printf "  %-34s %8s %8s  %6sx [%s, %s]  %s rounds\n" "$label" "$MA" \
		"$MB" "$RATIO" "$LO" "$HI" "$ROUNDS"
}

# tune_both WHAT YAML ANCHOR_SHAPE SUITE SUITE_SHAPE: tune the anchor
# kernel and the suite at their shapes (-p lists), print both bests and
# the table header; sets ANCHOR and OURS (each "name=value ...").
tune_both() {
	local what=$1 yaml=$2 ashape=$3 suite=$4 sshape=$5
	# shellcheck disable=SC2086
	ANCHOR=$(tune_side "uvk_$what" kernel tune "$yaml" $ashape) || return 1
	# shellcheck disable=SC2086
	OURS=$(tune_side "$suite" tune "$suite" $sshape) || return 1
	echo "  anchor best:  $ANCHOR"
	echo "  axbench best: $OURS"
	header
}

header() {
	printf "  %-34s %8s %8s  %s\n" "" "anchor" "axbench" \
		"axbench / anchor (95 % interval)"
}

echo "anchors: $("$AX" --version); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); budget $BUDGET"
start=$(date +%s)

# --- gemm -------------------------------------------------------------
run_gemm() {
	shape="-p m=$GEMM_N -p n=$GEMM_N -p k=$GEMM_N"
	echo "gemm ${GEMM_N}^3 fp32: tuning the anchor and axbench ($BUDGET evaluations each)"
	tune_both gemm "$tmp/uvk_matmul.yaml" "$shape" gemm "$shape" || return 1
	# shellcheck disable=SC2086
	pair "gemm tuned" gemm $shape --a-kernel "$tmp/uvk_matmul.yaml" \
		--a "$ANCHOR" --b "$OURS"
	gemm_tuned=$RATIO
	# B names one parameter at its default, so that A and B differ in what
	# the command line says even if the tune kept every default.
	# shellcheck disable=SC2086
	pair "gemm defaults" gemm $shape --a-kernel "$tmp/uvk_matmul.yaml" \
		--a "$ANCHOR" --b batch=1
	gemm_default=$RATIO
	# The fraction of the measured peak: the best gemm against `peak`.
	"$AX" --db "$DB" --json run peak -p acc=8,16 >"$tmp/peak.json" \
		2>"$tmp/peak.err"
	gemm_best=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"])' "$tmp/gemm.json")
	peak=$(python3 - "$tmp/peak.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d.get("results", []) if r.get("status") == "ok"]
print(max((r["median"] for r in rows), default=float("nan")))
EOF
	)
	peak_pct=$(python3 -c "print(100 * float('$gemm_best') / float('$peak'))")
	printf "  gemm best %.4g GFLOP/s = %.1f %% of the measured peak (%.4g GFLOP/s, run peak)\n" \
		"$gemm_best" "$peak_pct" "$peak"
}

# --- conv -------------------------------------------------------------
run_conv() {
	cshape="-p oh=32 -p ow=32 -p oc=32 -p ih=34 -p iw=34 -p ic=32"
	oshape="-p n=1 -p c=32 -p h=34 -p w=34 -p k=32 -p r=3 -p s=3 -p pad=0 -p layout=nhwc"
	echo "conv 3x3 32->32 at 32x32, NHWC, no padding: tuning both"
	tune_both conv "$tmp/uvk_conv.yaml" "$cshape" conv "$oshape" || return 1
	# The two sides name their shapes differently, so each side's goes in
	# its own --a / --b (a tune's best parameters hold its shape).
	b_shape=${oshape//-p /}
	pair "conv tuned" conv --a-kernel "$tmp/uvk_conv.yaml" \
		--a "$ANCHOR" --b "$OURS"
	conv_tuned=$RATIO
	pair "conv defaults" conv --a-kernel "$tmp/uvk_conv.yaml" \
		--a "$ANCHOR" --b "$b_shape"
	conv_default=$RATIO
}

[ "$ONLY" = conv ] || run_gemm || exit 1
[ "$ONLY" = gemm ] || run_conv || exit 1
echo "anchors: load after: $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - start)) s in all"
bench_goal "anchors: gemm tuned / anchor tuned" "$gemm_tuned" ">=" 1.1 x
bench_goal "anchors: gemm defaults / anchor tuned" "$gemm_default" ">=" 1.0 x
bench_goal "anchors: gemm best, % of measured peak" "$peak_pct" ">=" 40 %
bench_goal "anchors: conv tuned / anchor tuned" "$conv_tuned" ">=" 1.1 x
bench_goal "anchors: conv defaults / anchor tuned" "$conv_default" ">=" 1.0 x
