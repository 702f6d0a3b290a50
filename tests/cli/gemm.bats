#!/usr/bin/env bats
# axbench run gemm: every variant verifies on the machine's device at small
# shapes, edge tiles included; impossible points are refused with the limit.
load helper
# These tests check the kernels; the OpenBLAS baseline beside each new
# shape (about a second each on lavapipe) has its own tests in
# efficiency.bats, so it is off here.
FAST+=(--cpu-baseline off)

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

@test "gemm share=subgroup: storage or texel reads and every micro-tile height verify" {
	# tex=true (the default) reads A and B through texel views, tex=false
	# through storage buffers; mr=1 (the default) to mr=tm=16 the order
	# of the k steps; trans_b=true takes B element by element.
	run "$AX" --db "$DB" run gemm -p m=37 -p n=70 -p k=45 -p share=subgroup \
		-p tex=true,false -p mr=1,4,16 -p trans_b=false,true "${FAST[@]}"
	assert_success
	[ "$(ok_count)" -eq 12 ]
	run "$AX" --db "$DB" run gemm -p mr=32 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "mr=32 rows per micro-tile exceed tm=16"
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

# lavapipe has no VK_NV_cooperative_matrix: the tensor-core kernel is built
# (make) and checked by spirv-val (shaders.bats) but never runs here.
@test "gemm coopmat is skipped with the reason, never a 0" {
	if "$AX" devices --json | grep -q '"cooperative_matrix_nv": true'; then
		skip "this device has VK_NV_cooperative_matrix"
	fi
	run "$AX" --db "$DB" run gemm -p kernel=coopmat -p dtype=f16 -p acc=f32,f16 \
		-p m=64 -p n=64 -p k=64 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='skipped'")" -eq 2 ]
	run sql "select distinct error_text from result"
	assert_output --partial "has no VK_NV_cooperative_matrix"
	assert_output --partial "GL_KHR_cooperative_matrix"
	[ "$(sql "select count(*) from result where median > 0")" -eq 0 ]
}

@test "gemm coopmat: dtype=f32, shapes off the tile and acc=f16 on tiled are refused (exit 2) naming the rule" {
	run "$AX" --db "$DB" run gemm -p kernel=coopmat -p dtype=f32 -p m=64 -p n=64 -p k=64 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "gemm kernel=coopmat: dtype=f32 is not supported"
	assert_output --partial "use -p dtype=f16"
	run "$AX" --db "$DB" run gemm -p kernel=coopmat -p dtype=f16 -p m=1000 -p n=64 -p k=64 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "m=1000 must be a multiple of bm=64 (wg_sm*sg_m*cm_m"
	run "$AX" --db "$DB" run gemm -p kernel=coopmat -p dtype=f16 -p m=64 -p n=64 -p k=40 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "k=40 must be a multiple of bk=32 (cm_ks*cm_k"
	run "$AX" --db "$DB" run gemm -p acc=f16 -p m=16 -p n=16 -p k=16 "${FAST[@]}"
	assert_failure 2
	assert_output --partial "gemm acc=f16: only kernel=coopmat accumulates in float16"
	[ ! -e "$DB" ] || [ "$(sql "select count(*) from result")" -eq 0 ]
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

@test "gemm's cooperative-matrix tiles are tunables of kernel=coopmat alone, and tune says why there is nothing to search here" {
	run "$AX" suites gemm --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d[0] if isinstance(d, list) else d
p = {x["name"]: x for x in d["params"]}
for k in ("cm_m", "cm_n", "cm_k", "sg_m", "sg_n", "wg_sm", "wg_sn", "cm_ks"):
    assert p[k]["kind"] == "tunable" and p[k]["when"] == "kernel=coopmat", p[k]
for k in ("bm", "bn", "tm", "share", "sg_size"):
    assert p[k]["when"] == "kernel=tiled", p[k]
assert p["kernel"]["kind"] == "shape" and p["acc"]["kind"] != "tunable"
'
	run "$AX" suites gemm
	assert_output --partial "cm_m x cm_n x cm_k a shape the device lists"
	# lavapipe has no cooperative matrix: no point to try, and the reason
	if ! "$AX" devices --json | grep -q '"cooperative_matrix_nv": true'; then
		run "$AX" --db "$DB" tune gemm -p kernel=coopmat -p dtype=f16 -p m=64 -p n=64 -p k=64 --budget 2
		assert_failure 2
		assert_output --partial "at the defaults: gemm kernel=coopmat:"
		assert_output --partial "has no VK_NV_cooperative_matrix"
		[ "$(sql "select count(*) from tune_session")" -eq 0 ]
	fi
}

@test "tune gemm (kernel=tiled) searches the tiled knobs only; the export names no coopmat tile" {
	run "$AX" --db "$DB" tune gemm -p m=32 -p n=32 -p k=32 --strategy random --budget 3 --retime 1
	assert_success
	[ "$(sql "select count(*) from trial where json_extract(params_json, '$.cm_m') is not null and json_extract(params_json, '$.cm_m') != 16")" -eq 0 ]
	run "$AX" --db "$DB" export -o "$BATS_TEST_TMPDIR/t.yaml"
	assert_success
	# the whole point (params:) names every parameter; tuned: only the knobs
	python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
e = d["devices"][0]["suites"]["gemm"][0]
assert "cm_m" not in e["tuned"] and "bm" in e["tuned"], e["tuned"]
' "$BATS_TEST_TMPDIR/t.yaml"
}
