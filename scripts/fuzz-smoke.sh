#!/bin/bash
# make fuzz-smoke: build each libFuzzer target in tests/fuzz/fuzz_*.c with
# clang -fsanitize=fuzzer,address,undefined against a sanitized libax
# (build-fuzz/), and run it for a bounded time from its seed corpus
# tests/fuzz/corpus/NAME/.  New inputs go to build-fuzz/fuzz/corpus-NAME
# (the seeds stay untouched); a crash leaves build-fuzz/fuzz/crash-NAME-*
# and fails the run.  Reproduce one with: build-fuzz/fuzz/fuzz_NAME FILE
#
# usage: scripts/fuzz-smoke.sh [SECONDS_PER_TARGET] [NAME...]
#        (default 20 s, every target; env FUZZ_SECONDS also sets it)
set -u
cd "$(dirname "$0")/.." || exit 2
secs=${1:-${FUZZ_SECONDS:-20}}
[ $# -gt 0 ] && shift
B=build-fuzz
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
SAN="$SAN -fno-omit-frame-pointer"
PKGS="vulkan sqlite3 yaml-0.1 gsl hwloc jansson zlib shaderc"

make --no-print-directory B=$B CC=clang \
	OPT="-O1 $SAN -fsanitize=fuzzer-no-link" $B/shaders/table.h || exit 2
make --no-print-directory -j"$(nproc)" B=$B CC=clang \
	OPT="-O1 $SAN -fsanitize=fuzzer-no-link" $B/libax.a || exit 2
mkdir -p $B/fuzz
# The Makefile's libraries, libshaderc's static ones among them.
LDLIBS=$(make --no-print-directory -s print-ldlibs) || exit 2

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		n=$(basename "$f" .c)
		names+=("${n#fuzz_}")
	done
fi

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Each target built, then run for SECONDS on a core of its own, nproc at
# a time (libFuzzer is single-threaded: one target per core gives each
# its full time), their reports in the order of the names.
status=0
built=()
for n in "${names[@]}"; do
	src=tests/fuzz/fuzz_$n.c
	bin=$B/fuzz/fuzz_$n
	# shellcheck disable=SC2046,SC2086
	clang -O1 -g $SAN -fsanitize=fuzzer -std=gnu11 -D_GNU_SOURCE -I. \
		-I$B $(pkg-config --cflags $PKGS) -o "$bin" "$src" \
		$B/libax.a $LDLIBS || {
		status=1
		echo "not ok fuzz $n: it does not build"
		continue
	}
	built+=("$n")
done

fuzz_one() { # NAME: runs it, its exit status in $B/fuzz/NAME.rc
	mkdir -p "$B/fuzz/corpus-$1"
	"$B/fuzz/fuzz_$1" -max_total_time="$secs" -timeout=20 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$B/fuzz/crash-$1-" \
		"$B/fuzz/corpus-$1" "tests/fuzz/corpus/$1" \
		>"$B/fuzz/$1.log" 2>&1
	echo $? >"$B/fuzz/$1.rc"
}
cores=$(nproc 2>/dev/null || echo 1)
echo "# fuzz: ${built[*]}, $secs s each, $cores at a time"
for n in "${built[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n; done
	fuzz_one "$n" &
done
wait
for n in "${built[@]}"; do
	rc=$(cat "$B/fuzz/$n.rc")
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|Done [0-9]+ runs' \
		"$B/fuzz/$n.log" | sed "s/^/# $n: /"
	if [ "$rc" -ne 0 ]; then
		status=1
		echo "not ok fuzz $n (exit $rc): see $B/fuzz/$n.log"
		grep -E 'ERROR:|runtime error|SUMMARY|Test unit written' \
			"$B/fuzz/$n.log" | head -5
	else
		echo "ok fuzz $n"
	fi
done
exit $status
