#!/usr/bin/env bats
# axbench run attention: small problems run on the device and verify
# against the double-precision CPU reference - causal, sequences that are
# not a multiple of the tiles, head_dim 64 and 128 - and impossible points
# are refused before anything runs, naming the limit and the value.
load helper
# These tests check the kernels; the OpenBLAS baseline beside each new
# shape (about a second each on lavapipe) has its own tests in
# efficiency.bats, so it is off here.
FAST+=(--cpu-baseline off)

setup() { ax_setup; }

ok_results() { sql "select count(*) from result where suite='attention' and status='ok' and median > 0"; }

@test "attention at small shapes, causal and not, verifies" {
	run "$AX" --db "$DB" run attention -p heads=2 -p seq_q=64 \
		-p seq_kv=64 -p causal=false,true "${FAST[@]}"
	assert_success
	assert_output --partial "verified"
	[ "$(ok_results)" -eq 2 ]
	# causal work: 64*65/2 unmasked pairs per head
	[ "$(sql "select count(*) from result where extra_json like '%\"unmasked_pairs\":2080,%'")" -eq 1 ]
}

@test "attention: sequences not a multiple of br or bc, seq_q != seq_kv" {
	run "$AX" --db "$DB" run attention -p batch=2 -p heads=3 -p seq_q=37 \
		-p seq_kv=53 -p causal=false,true "${FAST[@]}"
	assert_success
	[ "$(ok_results)" -eq 2 ]
}

@test "attention: head_dim 128 with other tiles, and a single query row" {
	run "$AX" --db "$DB" run attention -p heads=2 -p seq_q=33 \
		-p seq_kv=70 -p head_dim=128 -p br=8 -p tpr=16 "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run attention -p heads=2 -p seq_q=1 \
		-p seq_kv=77 -p br=1 -p bc=64 -p tpr=1 -p head_dim=32 \
		"${FAST[@]}"
	assert_success
	[ "$(ok_results)" -eq 2 ]
}

@test "attention: batch sweep" {
	run "$AX" --db "$DB" run attention -p batch=1,2,4 -p heads=1 \
		-p seq_q=32 -p seq_kv=32 "${FAST[@]}"
	assert_success
	[ "$(ok_results)" -eq 3 ]
}

@test "attention: fp16 storage verifies, or is skipped with the reason" {
	run "$AX" --db "$DB" run attention -p dtype=f16 -p heads=2 \
		-p seq_q=29 -p seq_kv=41 -p causal=true "${FAST[@]}"
	assert_success
	status_=$(sql "select status from result")
	if [ "$status_" = "skipped" ]; then
		[ -n "$(sql "select error_text from result")" ]
	else
		[ "$status_" = "ok" ]
	fi
}

@test "attention: tiles over the shared-memory limit are refused, naming the limit and the value" {
	run "$AX" --db "$DB" run attention -p head_dim=128 -p br=64 \
		-p bc=64 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "86016 bytes of shared memory"
	assert_output --regexp "over maxComputeSharedMemorySize [0-9]+"
}

@test "attention: head_dim that the row's invocations cannot split is refused" {
	run "$AX" --db "$DB" run attention -p head_dim=64 -p tpr=32 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "head_dim 64 must be a multiple of 4*tpr = 128"
}

@test "suites attention states the causal FLOP formula" {
	run "$AX" suites attention
	assert_success
	assert_output --partial "4*B*H*Sq*Skv*D"
	assert_output --partial "clamp(i + Skv - Sq + 1, 0, Skv)"
}
