#!/bin/bash
# Runs every unit-test binary and every bats file; prints TAP as it goes and
# ends with the line "N passed, N failed" (tests that were skipped are
# counted as passed by TAP and listed separately).
set -u
cd "$(dirname "$0")/.." || exit 2
export AXBENCH_VALIDATE=1   # Vulkan validation on: any message fails
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	echo "# unit: $t"
	"$t" 2>&1 | tee -a "$log" || status=1
done

bats_files=$(ls tests/cli/*.bats 2>/dev/null)
if [ -n "$bats_files" ]; then
	echo "# bats: $bats_files"
	# shellcheck disable=SC2086
	bats --tap $bats_files 2>&1 | tee -a "$log" || status=1
fi

passed=$(grep -cE '^ok ' "$log")
failed=$(grep -cE '^not ok ' "$log")
skipped=$(grep -cE '^ok .*# skip' "$log")
[ "$skipped" -gt 0 ] && echo "# $skipped skipped"
[ "$failed" -gt 0 ] && status=1
echo "$passed passed, $failed failed"
exit $status
