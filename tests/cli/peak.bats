#!/usr/bin/env bats
# axbench run peak / latency: the arithmetic-ceiling kernels and the
# empty-dispatch probe run and verify their closed-form results.
load helper

setup() { ax_setup; }

@test "peak f32 and i32 run and verify" {
	run "$AX" --db "$DB" run peak -p type=f32,i32 -p iters=64 -p groups=8 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where suite='peak' and status='ok' and median > 0 and unit='GFLOP/s'")" -eq 2 ]
}

@test "peak f16 runs and verifies, or is skipped with a reason" {
	run "$AX" --db "$DB" run peak -p type=f16 -p iters=64 -p groups=4 "${FAST[@]}"
	assert_success
	st=$(sql "select status from result")
	[ "$st" = ok ] || { [ "$st" = skipped ] && [ -n "$(sql "select error_text from result")" ]; }
}

@test "peak with odd accumulator counts and workgroup sizes verifies" {
	run "$AX" --db "$DB" run peak -p acc=1,3 -p wg=32 -p iters=24 -p groups=3 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='ok'")" -eq 2 ]
}

@test "latency reports microseconds, lower is better, verified" {
	run "$AX" --db "$DB" run latency -p barrier=true,false "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where suite='latency' and status='ok' and unit='us' and median > 0")" -eq 2 ]
}

@test "peak wg over the device limit is refused (exit 2)" {
	run "$AX" --db "$DB" run peak -p wg=1024 -p groups=1 -p iters=8 "${FAST[@]}"
	if [ "$status" -ne 0 ]; then
		assert_failure 2
		assert_output --partial "maxComputeWorkGroup"
	fi
}
