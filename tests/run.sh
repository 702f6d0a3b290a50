#!/bin/bash
# tests/run.sh [BATS_FILE...]: every unit-test binary and every bats file
# (or the bats files named), in parallel; prints TAP as it goes and ends
# with the line "N passed, N failed" (skipped tests count as passed, as in
# TAP, and are counted on the line before).
#
# Order: the unit binaries, AX_TEST_JOBS at a time, beside the bats tests
# not tagged serial, AX_TEST_JOBS files at a time (one bats process per
# file, the files that run axbench most first); then the tests tagged serial
# (`# bats test_tags=serial` or `# bats file_tags=serial`) one at a time,
# with the machine to themselves.  README.md "Tests" names each serial
# test and why.
#
# A unit binary fails when it prints "not ok", exits non-zero, or reports
# fewer results than its TAP plan ("1..N") announced (an abort() half-way);
# a bats pass likewise.  The 20 slowest tests (bats --timing) are listed
# before the closing line.
#
# Environment:
#   AX_TEST_JOBS    parallel jobs (default: 2 per core, see below)
#   AX_TEST_UNITS_BESIDE  0: the unit binaries first, alone (default 1:
#                   beside the bats files)
#   AX_TEST_UNIT    directory of the unit binaries (default build/tests)
#   AX_TEST_BATS    directory of the bats files (default tests/cli)
#   AX_TEST_LABEL   prefix of the phase names (scripts/phase.bash), "asan-"
#   AX_TEST_RETRY   an extended regex: a failed unit binary or bats test
#                   whose output matches it, and shows no "not ok" line or
#                   sanitizer ERROR of its own, runs once more, said in the
#                   log (scripts/asan.sh: LeakSanitizer's tracer crash)
#   AX_PHASE_LOG    file the phase times are appended to (.ci/run)
#   AX_TEST_SHADER_CACHE  Mesa's shader cache directory for every test
#                   (default: a new one for this run, removed after it)
set -u
cd "$(dirname "$0")/.." || exit 2
root=$PWD
# shellcheck source=scripts/phase.bash
source scripts/phase.bash
export AXBENCH_VALIDATE=1 # Vulkan validation on: any message fails

# Two jobs per core: part of a functional test's time is process
# start-up, polling and lock waits that leave a core idle.
jobs=${AX_TEST_JOBS:-$((2 * $(nproc 2>/dev/null || echo 1)))}
unit_dir=${AX_TEST_UNIT:-build/tests}
bats_dir=${AX_TEST_BATS:-tests/cli}
label=${AX_TEST_LABEL:-}
retry=${AX_TEST_RETRY:-}
# A failure that is the test's own: never retried.
OWN_FAILURE='^not ok |ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:'

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Mesa's shader cache, shared by every test of this run (see
# tests/cli/helper.bash): each shader is compiled by LLVM once, not once
# per test.  A cache given from outside is used as it is (.ci/run: the
# ASan pass and make test compile the same shaders with the same
# lavapipe, so the second pass finds them compiled).
export AX_TEST_SHADER_CACHE=${AX_TEST_SHADER_CACHE:-$work/mesa_shader_cache}
export MESA_SHADER_CACHE_DIR=$AX_TEST_SHADER_CACHE
log=$work/log
: >"$log"
status=0

# ---- unit binaries ------------------------------------------------------

# The TAP of program $1 (a unit binary or a bats file; its output $2,
# exit status $3) is whole: a plan, as many results as it announced, exit
# 0 unless a test failed.  Prints a "not ok" line naming what is wrong
# otherwise.
check_tap() {
	local name=$1 out=$2 rc=$3 plan results
	plan=$(grep -m1 -oE '^1\.\.[0-9]+$' "$out")
	results=$(grep -cE '^(not )?ok [0-9]+' "$out")
	if [ -z "$plan" ]; then
		echo "not ok $name: no TAP plan (exit $rc)"
	elif [ "$results" -ne "${plan#1..}" ]; then
		echo "not ok $name: $results of ${plan#1..} results (exit $rc)"
	elif [ "$rc" -ne 0 ] && ! grep -qE '^not ok ' "$out"; then
		echo "not ok $name: exit $rc with every test ok"
	fi
}

# Output $1 of a failed run may be retried: it matches AX_TEST_RETRY and
# has no failure of the test's own.
retryable() {
	[ -n "$retry" ] && grep -qE "$retry" "$1" && ! grep -qE "$OWN_FAILURE" "$1"
}

run_unit() { # binary, output file: runs it, its status in FILE.rc
	"$1" >"$2" 2>&1
	echo $? >"$2.rc"
}

run_units() {
	local t n=0 bins=()
	for t in "$unit_dir"/test_*; do
		[ -f "$t" ] && [ -x "$t" ] && bins+=("$t")
	done
	for t in "${bins[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		run_unit "$t" "$work/unit-$n" &
		n=$((n + 1))
	done
	wait
	n=0
	for t in "${bins[@]}"; do
		local out=$work/unit-$n rc
		rc=$(cat "$out.rc")
		if [ "$rc" -ne 0 ] && retryable "$out"; then
			echo "# $t: $(grep -m1 -oE "$retry" "$out"); once more"
			run_unit "$t" "$out"
			rc=$(cat "$out.rc")
		fi
		echo "# unit: $t"
		cat "$out"
		check_tap "$t" "$out" "$rc"
		n=$((n + 1))
	done
}

# Waits for the unit binaries and prints their TAP.
finish_units() {
	[ -n "$unit_pid" ] || return 0
	# Polled: the bats pool's `wait` may have reaped it already.
	while kill -0 "$unit_pid" 2>/dev/null; do sleep 0.5; done
	wait "$unit_pid" 2>/dev/null
	unit_pid=
	tee -a "$log" <"$work/unit.log"
	cat "$work/unit.phase"
	grep -qE '^not ok ' "$work/unit.log" && status=1
}

# The unit binaries run beside the bats tests that are not serial (one
# binary, test_point_fuzz_gpu, takes most of their half minute, a core
# the bats tests can use meanwhile; the bats pool counts their job as
# one of its AX_TEST_JOBS); their TAP is printed once they are all done,
# before the serial tests.  AX_TEST_UNITS_BESIDE=0 (scripts/asan.sh)
# runs them first, alone.
unit_pid=
if [ $# -eq 0 ]; then
	(
		phase_begin "${label}unit"
		run_units >"$work/unit.log"
		rc=0
		grep -qE '^not ok ' "$work/unit.log" && rc=1
		phase_end $rc >"$work/unit.phase"
	) &
	unit_pid=$!
	[ "${AX_TEST_UNITS_BESIDE:-1}" = 0 ] && finish_units
fi

# ---- bats ---------------------------------------------------------------

if [ $# -gt 0 ]; then
	bats_files=()
	for f in "$@"; do bats_files+=("$bats_dir/$(basename "$f")"); done
else
	bats_files=("$bats_dir"/*.bats)
fi

# A bats file's cost, roughly: how many times it runs axbench.  The
# parallel pass starts the dearest files first, so that no long file
# starts last and leaves the other cores idle at the end.
file_cost() { grep -o '"$AX"' "$1" | wc -l; }

run_bats_file() { # file, output: its tests not tagged serial
	bats --tap --timing --filter-tags '!serial' "$1" >"$2" 2>&1
	echo $? >"$2.rc"
}

# The bats tests not tagged serial: one bats process per file, $jobs
# files at a time, each file's TAP shown when it ends and kept in
# $work/parallel.tap, checked like a unit binary's (check_tap).
bats_parallel() {
	local f n=0 done_n=0 order=() shown=()
	while IFS=$'\t' read -r _ f; do order+=("$f"); done < <(
		for f in "${bats_files[@]}"; do
			printf '%s\t%s\n' "$(file_cost "$f")" "$f"
		done | sort -t$'\t' -k1,1nr -k2)
	: >"$work/parallel.tap"
	show_finished() {
		local i out
		for i in "${!order[@]}"; do
			out=$work/bats-$i
			[ -z "${shown[$i]:-}" ] && [ -s "$out.rc" ] || continue
			shown[$i]=1
			{
				echo "# bats: ${order[$i]}"
				cat "$out"
				check_tap "bats ${order[$i]}" "$out" "$(cat "$out.rc")"
			} | tee -a "$work/parallel.tap"
		done
	}
	for f in "${order[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n
			show_finished
		done
		run_bats_file "$f" "$work/bats-$n" &
		n=$((n + 1))
	done
	wait
	show_finished
}

# The tests tagged serial, in one bats process, one at a time.
bats_serial() {
	local rc
	bats --tap --timing --filter-tags serial "${bats_files[@]}" 2>&1 |
		tee "$work/serial.tap"
	rc=${PIPESTATUS[0]}
	check_tap "bats (serial)" "$work/serial.tap" "$rc" |
		tee -a "$work/serial.tap"
}

# The tests of TAP file $1 that failed only in a way AX_TEST_RETRY names
# run once more, alone; a pass replaces the failure, said in its line.
retry_bats() {
	local tap=$1 at num name file re out=$work/retry.tap
	# at: the failure's line in the TAP file (test numbers restart in
	# each file, so they do not name a failure; the line does).
	while IFS=$'\t' read -r at num name file; do
		# Only a failure AX_TEST_RETRY names is tried again: any other
		# is the test's own, and stands.
		grep -qE "$retry" "$work/block-$at" || continue
		re=$(printf '%s' "$name" | sed 's#[][\.*^$(){}?+|]#\\&#g')
		echo "# '$name': $(grep -m1 -oE "$retry" "$work/block-$at"); once more"
		if bats --tap -f "^$re\$" "$file" >"$out" 2>&1 &&
		   grep -q '^ok 1 ' "$out"; then
			python3 - "$tap" "$at" "$num" "$name" <<'PY'
import sys
path, at, num, name = sys.argv[1:]
lines = open(path, errors="replace").read().split("\n")
lines[int(at)] = "ok %s %s # passed when retried: the first run failed " \
                 "only as AX_TEST_RETRY allows" % (num, name)
open(path, "w").write("\n".join(lines))
PY
		else
			cat "$out"
		fi
	done < <(python3 - "$tap" "$work" <<'PY'
import re, sys
tap, work = sys.argv[1:]
lines = open(tap, errors="replace").read().split("\n")
for i, line in enumerate(lines):
    m = re.match(r"not ok (\d+) (.*?)( in \d+ms)?$", line)
    if not m:
        continue
    block = []
    for l in lines[i + 1:]:
        if not l.startswith("#"):
            break
        block.append(l)
    f = re.search(r"\(in test file (\S+), line \d+\)", "\n".join(block))
    if f:
        open("%s/block-%d" % (work, i), "w").write("\n".join(block))
        print(i, m.group(1), m.group(2), f.group(1), sep="\t")
PY
)
}


if [ ${#bats_files[@]} -gt 0 ]; then
	for pass in parallel serial; do
		# The serial tests have the machine to themselves.
		[ $pass = serial ] && finish_units
		phase_begin "${label}bats-$pass"
		if [ $pass = parallel ]; then
			echo "# bats, $jobs files at a time: ${#bats_files[@]} files"
			bats_parallel
		else
			echo "# bats, the tests tagged serial, one at a time"
			bats_serial
		fi
		if [ -n "$retry" ]; then
			retry_bats "$work/$pass.tap" >>"$work/$pass.retries"
			cat "$work/$pass.retries" 2>/dev/null
		fi
		cat "$work/$pass.tap" >>"$log"
		rc=0
		grep -qE '^not ok ' "$work/$pass.tap" && rc=1 && status=1
		phase_end $rc
	done
fi

finish_units

# ---- summary ------------------------------------------------------------

# The slowest bats tests, from the " in Nms" bats --timing appends.
slowest=$(sed -nE 's/^(not )?ok [0-9]+ (.*) in ([0-9]+)ms$/\3\t\2/p' "$log" |
	sort -rn | head -20)
if [ -n "$slowest" ]; then
	echo "# the 20 slowest tests (ms):"
	printf '%s\n' "$slowest" | sed 's/^/#   /'
fi
passed=$(grep -cE '^ok ' "$log")
failed=$(grep -cE '^not ok ' "$log")
skipped=$(grep -ciE '^ok .*# skip' "$log")
[ "$skipped" -gt 0 ] && echo "# $skipped skipped"
[ "$failed" -gt 0 ] && status=1
echo "$passed passed, $failed failed"
exit $status
