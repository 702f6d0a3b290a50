#!/usr/bin/env bats
# axbench run latency and the samples' distribution shape (issue 33, part
# 6): every ok result of 20 or more samples stores its p10 / p50 / p90 and
# modes, and `results` names the multimodal ones.  Whether a real run is
# multimodal depends on the machine's state, so the text is tested on a
# stored distribution; the run tests assert only what holds at any load.
load helper

setup() { ax_setup; }

TWENTY=(--min-samples 20 --max-samples 20 --min-time 0 --max-time 5 --warmup 1)

dist() {
	sql "select json_extract(extra_json, '\$.distribution$1') from result"
}

@test "a latency result of 20 samples carries its distribution" {
	run "$AX" --db "$DB" run latency -p groups=1 -p barrier=true "${TWENTY[@]}"
	assert_success
	[ "$(sql "select n from result where status='ok'")" -eq 20 ]
	# Quantiles in order, p50 the stored median.
	run sql "select json_extract(extra_json, '\$.distribution.p10') <= json_extract(extra_json, '\$.distribution.p50')
		and json_extract(extra_json, '\$.distribution.p50') <= json_extract(extra_json, '\$.distribution.p90')
		and abs(json_extract(extra_json, '\$.distribution.p50') - median) <= 1e-9 * median from result"
	assert_output 1
	# At least one mode, shares summing to 1, multimodal iff several.
	n=$(sql "select json_array_length(extra_json, '\$.distribution.modes') from result")
	[ "$n" -ge 1 ]
	run sql "select abs(sum(json_extract(m.value, '\$.share')) - 1) < 1e-9,
		min(json_extract(m.value, '\$.value')) > 0
		from result, json_each(result.extra_json, '\$.distribution.modes') m"
	assert_output "1|1"
	if [ "$n" -ge 2 ]; then want=1; else want=0; fi
	[ "$(dist .multimodal)" = "$want" ]
}

@test "fewer than 20 samples store no distribution" {
	run "$AX" --db "$DB" run latency -p groups=1 "${FAST[@]}"
	assert_success
	[ -z "$(dist)" ]
}

@test "results names a multimodal result with its modes and p10/p50/p90" {
	run "$AX" --db "$DB" run latency -p groups=1 -p barrier=false,true "${FAST[@]}"
	assert_success
	sql "update result set extra_json = json_set(extra_json, '\$.distribution',
		json('{\"p10\":11,\"p50\":13,\"p90\":52,\"modes\":[{\"value\":12,\"share\":0.6},{\"value\":50,\"share\":0.4}],\"multimodal\":true}'))
		where id = 2"
	sql "update result set extra_json = json_set(extra_json, '\$.distribution',
		json('{\"p10\":11,\"p50\":12,\"p90\":13,\"modes\":[{\"value\":12,\"share\":1}],\"multimodal\":false}'))
		where id = 1"
	run "$AX" --db "$DB" results
	assert_success
	assert_output --partial "result 2 (latency groups=1 barrier=true mode=dispatch) is multimodal: modes 12 us (60%), 50 us (40%); p10 11, p50 13, p90 52 us"
	refute_output --partial "result 1 (latency"
	run "$AX" --db "$DB" results --json
	assert_success
	run python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[1]["extra"]["distribution"]["modes"][1]["share"], d[0]["extra"]["distribution"]["multimodal"])' <<<"$output"
	assert_output "0.4 False"
}

@test "latency mode=roundtrip is host-timed per launch and verified; dispatch stays GPU-timed" {
	run "$AX" --db "$DB" run latency -p groups=1,4 -p mode=dispatch,roundtrip "${FAST[@]}"
	assert_success
	run sql "select json_extract(params_json, '\$.mode'), timing_mode, count(*) from result
		where status = 'ok' and unit = 'us' and median > 0 group by 1, 2 order by 1"
	assert_output "dispatch|gpu-timestamp|2
roundtrip|host|2"
	[ "$(sql "select count(*) from result where status != 'ok'")" -eq 0 ]
}

@test "suites latency documents the round-trip mode" {
	run "$AX" suites latency
	assert_success
	assert_output --partial "roundtrip"
	assert_output --partial "submit"
}
