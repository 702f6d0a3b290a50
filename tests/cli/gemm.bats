#!/usr/bin/env bats
# axbench run gemm: every variant verifies on the machine's device at small
# shapes, edge tiles included; impossible points are refused with the limit.
load helper

setup() { ax_setup; }

ok_count() { sql "select count(*) from result where suite='gemm' and status='ok'"; }

@test "gemm fp32 edge shapes verify: tails in m, n, k, a single row, one column" {
	run "$AX" --db "$DB" run gemm -p m=1,67,130 -p n=3,70 -p k=37 -p share=smem,subgroup "${FAST[@]}"
	assert_success
	[ "$(ok_count)" -eq 12 ]
}

@test "gemm transposes, batch, vector widths and double buffering verify" {
	run "$AX" --db "$DB" run gemm -p m=45 -p n=38 -p k=21 -p batch=2 \
		-p trans_a=false,true -p trans_b=false,true -p vec=1,4 -p dbuf=true -p share=smem "${FAST[@]}"
	assert_success
	[ "$(ok_count)" -eq 8 ]
	run "$AX" --db "$DB" run gemm -p m=45 -p n=38 -p k=21 -p batch=2 \
		-p trans_a=false,true -p trans_b=false,true -p share=subgroup "${FAST[@]}"
	assert_success
	[ "$(ok_count)" -eq 12 ]
}

@test "gemm other tile shapes verify" {
	run "$AX" --db "$DB" run gemm -p m=100 -p n=90 -p k=33 -p bm=32 -p bn=64 \
		-p tm=4 -p tn=8 -p wg_x=8 -p wg_y=8 -p bk=8 "${FAST[@]}"
	assert_success
	[ "$(ok_count)" -eq 1 ]
}

@test "gemm f16 runs and verifies, or is skipped with a reason" {
	run "$AX" --db "$DB" run gemm -p dtype=f16 -p m=50 -p n=36 -p k=40 -p trans_b=true "${FAST[@]}"
	assert_success
	st=$(sql "select status from result where suite='gemm'")
	if [ "$st" = ok ]; then
		[ "$(sql "select count(*) from result where median > 0")" -eq 1 ]
	else
		[ "$st" = skipped ]
		[ -n "$(sql "select error_text from result")" ]
	fi
}

@test "gemm coopmat is skipped with the reason, never a 0" {
	run "$AX" --db "$DB" run gemm -p kernel=coopmat -p m=32 -p n=32 -p k=32 "${FAST[@]}"
	assert_success
	[ "$(sql "select status from result")" = skipped ]
	run sql "select error_text from result"
	assert_output --partial "cooperative"
	[ "$(sql "select count(*) from result where median > 0")" -eq 0 ]
}

@test "a point over the shared-memory limit is refused (exit 2) naming the limit and the value" {
	run "$AX" --db "$DB" run gemm -p bm=256 -p bn=256 -p bk=32 -p tm=16 -p tn=16 -p wg_x=16 -p wg_y=16 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "bytes of shared memory exceeds maxComputeSharedMemorySize"
	assert_output --regexp "= 65536 bytes"
}

@test "mismatched register blocks and workgroup are refused (exit 2)" {
	run "$AX" --db "$DB" run gemm -p wg_x=16 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "register blocks"
}

@test "suites gemm lists the tunables" {
	run "$AX" suites gemm
	assert_success
	for p in bm bn bk tm tn wg_x wg_y vec dbuf trans_a batch dtype; do
		assert_output --partial "$p"
	done
}
