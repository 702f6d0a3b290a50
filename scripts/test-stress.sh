#!/bin/bash
# make test-stress: the whole test suite (tests/run.sh) ROUNDS times (3) while
# a CPU hog keeps every core busy, then every test that failed in any round,
# with the rounds it failed in.  A test that passes alone but fails here
# depends on the machine's speed or load, which CI's shared 2-core VMs do
# not promise.
#   STRESS_ROUNDS=N   rounds (default 3)
# The hog is stress-ng --cpu N (one worker per core, N = nproc) when
# installed, else one shell busy loop per core.  Logs: build/test-stress/.
set -u
cd "$(dirname "$0")/.." || exit 2
rounds=${STRESS_ROUNDS:-3}
cores=$(nproc)
logs=build/test-stress
mkdir -p "$logs"
rm -f "$logs"/round-*

hog_pids=()
stop_hog() {
	[ ${#hog_pids[@]} -gt 0 ] && kill "${hog_pids[@]}" 2>/dev/null
	wait "${hog_pids[@]}" 2>/dev/null
	hog_pids=()
}
trap stop_hog EXIT
trap 'stop_hog; exit 130' INT TERM

if command -v stress-ng >/dev/null 2>&1; then
	hog="stress-ng --cpu $cores"
	stress-ng --cpu "$cores" --quiet >/dev/null 2>&1 &
	hog_pids+=($!)
else
	hog="$cores busy loops (stress-ng is not installed)"
	for _ in $(seq "$cores"); do
		bash -c 'while :; do :; done' &
		hog_pids+=($!)
	done
fi
echo "test-stress: $rounds rounds of tests/run.sh under $hog"

for r in $(seq "$rounds"); do
	start=$(date +%s)
	tests/run.sh >"$logs/round-$r.log" 2>&1
	rc=$?
	echo "test-stress: round $r: $(tail -n 1 "$logs/round-$r.log")" \
	     "(exit $rc, $(($(date +%s) - start)) s, log $logs/round-$r.log)"
done
stop_hog

# Every failed test, once, with the rounds it failed in.
for r in $(seq "$rounds"); do
	sed -n 's/^not ok [0-9]* //p' "$logs/round-$r.log" >"$logs/round-$r.failed"
done
failed=$(sort -u "$logs"/round-*.failed)
if [ -z "$failed" ]; then
	echo "test-stress: no test failed in $rounds rounds under load"
	exit 0
fi
echo "test-stress: tests that failed under load:"
while IFS= read -r name; do
	in=""
	for r in $(seq "$rounds"); do
		grep -qxF -- "$name" "$logs/round-$r.failed" && in="$in $r"
	done
	echo "  $name (round$in)"
done <<<"$failed"
exit 1
