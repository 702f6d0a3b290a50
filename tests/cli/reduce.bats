#!/usr/bin/env bats
# The reduce suite: a sum of 32-bit words, verified bit for bit, swept and
# tuned like the others, and drawn by the report from its declared roles
# and curve (it was added without an edit in reports/).
load helper

setup() { ax_setup; }

@test "reduce verifies across sizes and tiles" {
	run "$AX" --db "$DB" run reduce -p size=4K,64K,1M -p wg=32,1024 \
		-p epi=1,64 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status = 'ok'")" -eq 12 ]
	# bytes moved are stored with each result, for the roofline
	[ "$(sql "select count(*) from result where
		json_extract(extra_json, '$.bytes') = work")" -eq 12 ]
}

@test "reduce in the report: its curve and the memory ceiling" {
	run "$AX" --db "$DB" run reduce -p size=4K,64K,1M "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run gemm -p m=64 -p n=64 -p k=64 "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR/r.html"
	assert_success
	grep -qF 'Reduction rate against input size (higher is better)' \
		"$BATS_TEST_TMPDIR/r.html"
	grep -qF 'ceiling: measured bandwidth' "$BATS_TEST_TMPDIR/r.html"
}

@test "tune reduce: every trial verified, never worse than the defaults" {
	run "$AX" --db "$DB" --json tune reduce -p size=256K --budget 5 \
		--strategy random --seed 4
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["trials"] == 5 and d["speedup"] >= 1.0, d'
	[ "$(sql "select count(*) from trial where status = 'ok'")" -eq 5 ]
}
