#!/usr/bin/env bats
# axbench run transfer: every direction, path and source stores a verified
# result that says which queue and memory it used; impossible points are
# refused before anything runs.
load helper

setup() { ax_setup; }

# Small and fast: 64 KiB chunks, 4 per repetition.
SMALL=(-p chunk=64K -p total=256K)

@test "run transfer stores verified results for every direction, path and source" {
	run "$AX" --db "$DB" run transfer \
		-p direction=h2d,d2h,bidir -p path=staged,direct \
		-p source=pageable,pinned "${SMALL[@]}" "${FAST[@]}"
	assert_success
	assert_output --partial "verified"
	[ "$(sql "select count(*) from result where suite='transfer'")" -eq 12 ]
	[ "$(sql "select count(*) from result where status='ok' and median > 0")" -eq 12 ]
	# every combination is there exactly once
	run sql "select count(distinct params_hash) from result"
	assert_output 12
	for d in h2d d2h bidir; do
		for p in staged direct; do
			for s in pageable pinned; do
				q="select count(*) from result where status='ok' and json_extract(params_json,'\$.direction')='$d' and json_extract(params_json,'\$.path')='$p' and json_extract(params_json,'\$.source')='$s'"
				[ "$(sql "$q")" -eq 1 ]
			done
		done
	done
	# transfers are host-timed (the CPU takes part)
	run sql "select distinct timing_mode from result"
	assert_output host
}

@test "work counts bytes moved: chunk x chunks, twice for bidir" {
	run "$AX" --db "$DB" run transfer -p direction=h2d,bidir \
		-p inflight=2 "${SMALL[@]}" "${FAST[@]}"
	assert_success
	run sql "select json_extract(params_json,'\$.direction'), work, json_extract(extra_json,'\$.chunks_per_rep'), json_extract(extra_json,'\$.transfers_per_rep'), json_extract(extra_json,'\$.bytes_per_rep') from result order by 1"
	assert_line "bidir|524288.0|4|8|524288"
	assert_line "h2d|262144.0|4|4|262144"
}

@test "a repetition moves at least inflight chunks" {
	run "$AX" --db "$DB" run transfer -p chunk=64K -p total=64K \
		-p inflight=3 "${FAST[@]}"
	assert_success
	run sql "select work, json_extract(extra_json,'\$.chunks_per_rep'), json_extract(extra_json,'\$.inflight') from result"
	assert_output "196608.0|3|3"
}

@test "describe says which queue and memory the transfer used" {
	run "$AX" --db "$DB" run transfer -p path=staged,direct \
		-p direction=h2d,d2h "${SMALL[@]}" "${FAST[@]}"
	assert_success
	# staged copies name their queue and why; the fallback is explicit
	run sql "select distinct json_extract(extra_json,'\$.queue') || ':' || json_extract(extra_json,'\$.reason') from result where json_extract(params_json,'\$.path')='staged'"
	assert_output --regexp '^(compute:no dedicated transfer queue family|transfer:dedicated transfer queue family)$'
	# direct writes use no queue
	run sql "select distinct json_extract(extra_json,'\$.queue') from result where json_extract(params_json,'\$.path')='direct'"
	assert_output none
	run sql "select distinct json_extract(extra_json,'\$.memory.device') from result where json_extract(params_json,'\$.path')='direct'"
	assert_output "device-local host-visible"
	run sql "select json_extract(extra_json,'\$.memory.staging') from result where json_extract(params_json,'\$.path')='staged' and json_extract(params_json,'\$.direction')='d2h'"
	assert_output --regexp '^host-visible'
}

@test "lavapipe has no dedicated transfer family: the compute queue is used and said so" {
	"$AX" --json devices >"$BATS_TEST_TMPDIR/dev.json" 2>/dev/null ||
		skip "devices --json not available"
	grep -q llvmpipe "$BATS_TEST_TMPDIR/dev.json" || skip "not lavapipe"
	run "$AX" --db "$DB" --device llvmpipe run transfer "${SMALL[@]}" "${FAST[@]}"
	assert_success
	run sql "select json_extract(extra_json,'\$.queue'), json_extract(extra_json,'\$.reason') from result"
	assert_output "compute|no dedicated transfer queue family"
}

@test "a point over the device's memory limits is refused (exit 2) naming the limit" {
	"$AX" --db "$DB" run transfer "${SMALL[@]}" "${FAST[@]}" >/dev/null
	before=$(sha256sum "$DB")
	# 4 x 256 MiB in flight each way: far over half of any CPU heap we
	# test on, and over maxMemoryAllocationSize on small devices
	run "$AX" --db "$DB" run transfer -p chunk=256M -p inflight=4 \
		-p direction=bidir -p total=1G "${FAST[@]}"
	assert_failure 2
	assert_output --regexp 'maxMemoryAllocationSize|memory heap [0-9]+'
	assert_output --partial "use a smaller chunk"
	[ "$(sha256sum "$DB")" = "$before" ]
}

@test "out-of-range transfer parameters are refused (exit 2) naming the rule" {
	run "$AX" --db "$DB" run transfer -p inflight=5 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "inflight"
	run "$AX" --db "$DB" run transfer -p chunk=3000 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "chunk"
	run "$AX" --db "$DB" run transfer -p direction=sideways "${FAST[@]}"
	assert_failure 2
	assert_output --partial "h2d"
	[ ! -e "$DB" ]
}
