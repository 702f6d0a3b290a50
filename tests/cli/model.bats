#!/usr/bin/env bats
# The model layers (issue 36): decoder (prefill and decode), encoder and
# resnet run whole layers at small scale, verified against the CPU
# reference; each result carries its latency percentiles over at least
# 200 passes, the per-kernel profile and glue overhead; a kernel left
# out of the chain fails the case; the server scenario searches rates;
# recommend --slo-ms names a batch that a run at that batch meets.
load helper
bats_require_minimum_version 1.5.0

setup() { ax_setup; }

DEC=(-p scale=32 -p tokens=16)
ENC=(-p scale=8 -p tokens=16)
RES=(-p scale=8 -p size=4)

ex() { sql "select json_extract(extra_json, '$.$1') from result where $2"; }

@test "decoder prefill and decode, encoder and resnet verify, with p50/p90/p99 over 200 passes" {
	run "$AX" --db "$DB" run decoder "${DEC[@]}" "${FAST[@]}"
	assert_success
	# a decode step: 4 new tokens against 64 cached positions
	run "$AX" --db "$DB" run decoder -p scale=32 -p tokens=4 -p depth=64 "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run encoder "${ENC[@]}" "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run resnet "${RES[@]}" "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='ok'")" -eq 4 ]
	[ "$(sql "select count(*) from result where json_extract(extra_json, '$.latency.passes') >= 200")" -eq 4 ]
	[ "$(sql "select count(*) from result where json_extract(extra_json, '$.latency.p50_ms') <= json_extract(extra_json, '$.latency.p90_ms') and json_extract(extra_json, '$.latency.p90_ms') <= json_extract(extra_json, '$.latency.p99_ms')")" -eq 4 ]
	# the samples are the passes, one repetition each
	[ "$(sql "select count(*) from sample s join result r on r.id = s.result_id where r.suite='resnet'")" -ge 200 ]
	[ "$(sql "select unit from result where suite='decoder' limit 1")" = "tokens/s" ]
	[ "$(ex layer.phase "suite='decoder' and case_label like '%depth=64%'")" = "decode" ]
	[ "$(ex layer.phase "suite='decoder' and case_label not like '%depth=64%'")" = "prefill" ]
	[ "$(ex layer.items_per_pass "suite='decoder' and case_label like '%depth=64%'")" = "4.0" ]
}

@test "every result has its kernels timed alone and the glue overhead" {
	run "$AX" --db "$DB" run decoder "${DEC[@]}" -p scenario=offline "${FAST[@]}"
	assert_success
	glue=$(ex profile.glue_overhead "status='ok'")
	awk -v g="$glue" 'BEGIN { exit !(g > 0.3 && g < 10) }'
	# 14 dispatches a decoder layer, 13 names (two residual adds)
	[ "$(ex 'profile.kernels' "status='ok'" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -eq 13 ]
	[ "$(sql "select json_extract(extra_json, '$.dispatches_per_layer') from result")" -eq 14 ]
	awk -v g="$(ex gflops "status='ok'")" 'BEGIN { exit !(g > 0) }'
	[ "$(sql "select timing_mode from result")" = "gpu-timestamp" ]
}

@test "fp16 storage verifies against the reference of the rounded inputs" {
	run "$AX" --db "$DB" run decoder encoder "${DEC[@]}" -p dtype=f16 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='ok'")" -eq 2 ]
}

@test "a kernel left out of the chain fails verification (test-only fault injection)" {
	AXBENCH_TEST_MODEL_SKIP=swiglu run "$AX" --db "$DB" run decoder "${DEC[@]}" "${FAST[@]}"
	assert_failure
	[ "$(sql "select status from result")" = "failed-verification" ]
	[[ "$(sql "select error_text from result")" == *"exceeds the fp32 tolerance"* ]]
	AXBENCH_TEST_MODEL_SKIP=im2col run "$AX" --db "$DB" run resnet "${RES[@]}" "${FAST[@]}"
	assert_failure
	[ "$(sql "select count(*) from result where status='failed-verification'")" -eq 2 ]
}

@test "a layer that breaks a rule is refused with the rule named" {
	run --separate-stderr "$AX" --db "$DB" run decoder -p heads=6 -p kv_heads=4 "${FAST[@]}"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"heads 6 is not a multiple of kv_heads 4"* ]]
}

@test "the server scenario searches Poisson rates against slo_ms" {
	run "$AX" --db "$DB" run resnet "${RES[@]}" -p scenario=server -p slo_ms=50 "${FAST[@]}"
	assert_success
	steps=$(ex 'server.steps' "status='ok'")
	[ "$(echo "$steps" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -ge 2 ]
	awk -v r="$(ex server.max_rate_per_s "status='ok'")" 'BEGIN { exit !(r > 0) }'
	[ "$(ex server.slo_ms "status='ok'")" -eq 50 ]
}

@test "recommend --slo-ms names the largest batch meeting the SLO, and a run at it meets it" {
	run "$AX" --db "$DB" run resnet "${RES[@]}" -p batch=1,2 "${FAST[@]}"
	assert_success
	p99=$(ex latency.p99_ms "case_label like '%batch=2%'")
	slo=$(awk -v p="$p99" 'BEGIN { printf "%.3f", p * 10 }')
	run --separate-stderr "$AX" --db "$DB" --json recommend --slo-ms "$slo"
	assert_success
	pick() { echo "$output" | python3 -c "import json,sys; d=json.load(sys.stdin)['latency_batch'][0]; print(d$1)"; }
	[ "$(pick "['batch']")" -eq 2 ]
	[ "$(pick "['verified']")" = "None" ]
	run "$AX" --db "$DB" run resnet "${RES[@]}" -p batch=2 "${FAST[@]}"
	assert_success
	run --separate-stderr "$AX" --db "$DB" --json recommend --slo-ms "$slo"
	assert_success
	[ "$(pick "['verified']['met']")" = "True" ]
	# an SLO no batch meets names none, with the reason
	run --separate-stderr "$AX" --db "$DB" --json recommend --slo-ms 0.001
	assert_success
	[ "$(pick "['batch']")" = "None" ]
	[[ "$(pick "['reason']")" == *"no measured batch meets"* ]]
}

@test "the report shows the latency percentiles and the curve against batch" {
	run "$AX" --db "$DB" run resnet "${RES[@]}" -p batch=1,2 "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR/r.html"
	assert_success
	grep -q 'Latency of model layers' "$BATS_TEST_TMPDIR/r.html"
	grep -q 'Latency against batch' "$BATS_TEST_TMPDIR/r.html"
}
