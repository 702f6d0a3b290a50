#!/usr/bin/env bats
# The roofline suite: a stream whose intensity is a parameter, verified
# in closed form; a sweep of it gives the ridge point that `results` and
# the report set against the same run's peak and bandwidth.
load helper
bats_require_minimum_version 1.5.0

setup() { ax_setup; }

SMALL=(-p size=256K -p groups=16 -p wg=64)

@test "roofline verifies in f32, f64 and f16, each stored with its bytes" {
	run "$AX" --db "$DB" run roofline -p type=f32,f64,f16 -p fma=0,3 "${SMALL[@]}" "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='ok' or (status='skipped' and error_text like '%lacks%')")" -eq 6 ]
	[ "$(sql "select count(*) from result where status='ok' and json_extract(extra_json, '$.bytes') > 0")" -ge 2 ]
	# f32 at fma=3: 256 KiB = 16384 elements of 4 lanes, 7 FLOPs a lane
	[ "$(sql "select work from result where case_label like '%type=f32 fma=3%'")" = "458752.0" ]
}

@test "an odd chain length and a partial last sweep still verify (the tail loop)" {
	# 65536 elements over 3 x 32 invocations x ilp 8: not a whole number
	# of sweeps, so the kernel's tail loop runs.
	run "$AX" --db "$DB" run roofline -p size=1M -p groups=3 -p wg=32 -p ilp=8 -p fma=5 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='ok'")" -eq 1 ]
}

@test "results prints a sweep's ridge and the run's peak / bandwidth" {
	run "$AX" --db "$DB" run roofline -p fma=0,4,64 "${SMALL[@]}" "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run peak -p type=f32 -p iters=64 -p groups=8 "${FAST[@]}"
	assert_success
	run --separate-stderr "$AX" --db "$DB" results --run last~1
	assert_success
	[[ "$stderr" == *"roofline: run 1 roofline f32 on "*": ridge "*" FLOP/B = "*"(3 points, "*"the run has no f32 peak and bandwidth"* ]]
	# The same run with its ceilings: the ratio is printed.
	run "$AX" --db "$DB" run roofline peak bandwidth -p fma=0,64 -p type=f32 -p iters=64 -p op=read -p size=256K "${FAST[@]}"
	assert_success
	run --separate-stderr "$AX" --db "$DB" results --run last
	assert_success
	[[ "$stderr" == *"roofline: run 3 roofline f32 on "*"the run's peak / bandwidth: "*"FLOP/B ("*" GFLOP/s / "*" GB/s), the sweep's ridge is "*"x that"* ]]
}

@test "the report draws each sweep on its system's roofline, with its ridge" {
	run "$AX" --db "$DB" run roofline -p fma=0,8 "${SMALL[@]}" "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR/r.html"
	assert_success
	grep -q "Intensity sweep (roofline f32, run 1): ridge " "$BATS_TEST_TMPDIR/r.html"
	grep -q "roofline sweep f32 (run 1): ridge " "$BATS_TEST_TMPDIR/r.html"
}

@test "the roofline profile sweeps f32 and f64 beside peak and bandwidth" {
	run "$AX" --db "$DB" run --profile roofline --dry-run
	assert_success
	[ "$(echo "$output" | grep -c "roofline .*fma=")" -eq 22 ]
	assert_output --partial "peak"
	assert_output --partial "op=read"
}
