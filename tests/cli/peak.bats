#!/usr/bin/env bats
# axbench run peak / latency: the arithmetic-ceiling kernels and the
# empty-dispatch probe run and verify their closed-form results.
load helper
bats_require_minimum_version 1.5.0

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

# Each type verifies its closed form, or is skipped naming the feature
# the device lacks; lavapipe has them all (../shared/PLATFORM.md).
@test "peak f64, f16x2, i64, i16, i8 and dot4 verify or name the missing feature" {
	run "$AX" --db "$DB" run peak -p type=f64,f16x2,i64,i16,i8,dot4 -p iters=64 -p groups=8 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result")" -eq 6 ]
	[ "$(sql "select count(*) from result where not (status='ok' and median > 0 or status='skipped' and error_text like '%lacks%')")" -eq 0 ]
	if "$AX" devices --json | python3 -c 'import json,sys; sys.exit(0 if "llvmpipe" in json.load(sys.stdin)[0]["name"] else 1)'; then
		[ "$(sql "select count(*) from result where status='ok'")" -eq 6 ]
	fi
}

@test "peak dot4 counts 8 operations per lane step, the others 2" {
	run "$AX" --db "$DB" run peak -p type=f32,dot4 -p iters=64 -p groups=8 "${FAST[@]}"
	assert_success
	# 8 groups x 64 invocations x 64 steps x 8 accumulators x 4 lanes
	[ "$(sql "select work from result where case_label like '%type=f32%'")" = "2097152.0" ]
	[ "$(sql "select work from result where case_label like '%type=dot4%'")" = "8388608.0" ]
}

@test "peak bf16 and fp8 are skipped on every device, with the reason" {
	run "$AX" --db "$DB" run peak -p type=bf16,fp8 -p iters=64 -p groups=8 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='skipped' and error_text like '%is not built%matrix rate%'")" -eq 2 ]
}

@test "the peaks profile prints one row per precision, verified or skipped" {
	run --separate-stderr "$AX" --db "$DB" run --profile peaks -p iters=64 -p groups=8 "${FAST[@]}"
	assert_success
	for t in f32 f16 f16x2 f64 i64 i32 i16 i8 dot4 matrix bf16 fp8; do
		echo "$output" | grep -E "^peak +type=$t( |$).*(verified|skipped: )"
	done
	[ "$(sql "select count(*) from result")" -eq 12 ]
}

@test "peak type=matrix runs a listed fp16 shape, or is skipped naming what the device lacks" {
	run "$AX" --db "$DB" run peak -p type=matrix -p iters=64 -p groups=8 -p acc=2 "${FAST[@]}"
	assert_success
	st=$(sql "select status from result")
	if [ "$st" = skipped ]; then
		[ -n "$(sql "select error_text from result where error_text like 'peak type=matrix: %'")" ]
	else
		[ "$st" = ok ]
		# 8 subgroups x 2 matrices x 65 steps x 2*16*16*16
		[ "$(sql "select work from result")" = "8519680.0" ]
	fi
	# A shape nobody lists is never run.
	run "$AX" --db "$DB" run peak -p type=matrix -p cm_m=32 -p cm_n=32 -p cm_k=32 -p iters=64 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='skipped' and json_extract(params_json, '$.cm_m') = 32")" -eq 1 ]
}
