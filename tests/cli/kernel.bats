#!/usr/bin/env bats
# axbench kernel: a user's own GLSL shader, described in YAML, compiled at
# run time with libshaderc, verified against a reference configuration,
# measured, tuned and exported as the suite kernel:NAME.  Small shapes
# only (lavapipe on two cores).
load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	K="$PWD/examples/kernels"
}

# A copy of example $1 in the test's directory, with its shader, so that
# a test may edit it.
copy_example() {
	cp "$K/$1.yaml" "$K/$1.comp" "$BATS_TEST_TMPDIR/"
	echo "$BATS_TEST_TMPDIR/$1.yaml"
}

@test "kernel check: the three examples compile, run and verify" {
	run "$AX" kernel check "$K/saxpy.yaml" -p n=65536 -p wg=128 -p ept=4
	assert_success
	assert_output --partial "kernel:saxpy: 3 parameters, unit GB/s"
	assert_output --partial "ok: verified"
	run "$AX" kernel check "$K/transpose.yaml" -p n=256 -p tile=32 \
		-p rows=8 -p pad=0
	assert_success
	assert_output --partial "ok: verified"
	run "$AX" kernel check "$K/reduce.yaml" -p n=65536 -p wg=256 -p ept=16
	assert_success
	assert_output --partial "ok: verified"
}

@test "kernel check: an off-by-one guarded by a define fails verification" {
	f=$(copy_example saxpy)
	sed -i 's|  file: saxpy.comp|  file: saxpy.comp\n  defines: {OFF_BY_ONE: 1}|' \
		"$f"
	run "$AX" kernel check "$f" -p n=4096 -p wg=32 -p ept=2
	assert_failure 1
	assert_output --partial "failed-verification"
	assert_output --partial "buffer y["
	assert_output --partial "differ from the reference n=4096 wg=64 ept=1"
}

@test "kernel check: a wrong shader at the reference configuration is said to be checked by nothing independent, with how to check it" {
	f=$(copy_example saxpy)
	# y = a*x, the +y forgotten: wrong at every configuration, the
	# reference included, so only an expect file could catch it.
	sed -i 's|y\[i\] = pc.a \* x\[i\] + y\[i\];|y[i] = pc.a * x[i];|' \
		"$BATS_TEST_TMPDIR/saxpy.comp"
	run ! grep -q '+ y\[i\]' "$BATS_TEST_TMPDIR/saxpy.comp"
	run --separate-stderr "$AX" kernel check "$f" -p n=4096
	assert_success
	assert_output --partial "ok: ran, checked against nothing independent (the reference configuration itself)"
	refute_output --partial "ok: verified"
	[[ "$stderr" == *"a wrong result here passes"* ]]
	[[ "$stderr" == *"expect: FILE"* ]]
	# Another configuration is verified against that reference.
	run --separate-stderr "$AX" kernel check "$f" -p n=4096 -p wg=128
	assert_success
	assert_output --partial "ok: verified against reference n=4096 wg=64 ept=1"
	[[ "$stderr" != *"nothing independent"* ]]
}

@test "kernel check: a compile error names the shader's file and line" {
	f=$(copy_example transpose)
	# an undeclared name on the line that declares tx
	line=$(grep -n 'uint tx = ' "$BATS_TEST_TMPDIR/transpose.comp" |
		cut -d: -f1)
	sed -i "${line}s/.*/\tuint tx = undeclared_thing, ty = 0;/" \
		"$BATS_TEST_TMPDIR/transpose.comp"
	run "$AX" kernel check "$f" -p n=64
	assert_failure 2
	assert_output --partial "compile-failed"
	assert_output --partial "transpose.comp:$line: error: 'undeclared_thing' : undeclared identifier"
	# each of the compiler's lines on a line of its own
	refute_output --partial '\x0a'
	assert_output --regexp $'\n  [^ ]*transpose.comp:'"$line"': error:'
	assert_output --partial "tile=16"
}

@test "kernel check: a file error is FILE:LINE:COL; a rule names itself" {
	f=$(copy_example transpose)
	sed -i 's/^  - rows <= tile$/  - rows <= tiles/' "$f"
	run "$AX" kernel check "$f"
	assert_failure 2
	assert_output --regexp "transpose.yaml:[0-9]+:5: a constraint: expression \"rows <= tiles\" uses unknown variable 'tiles'"
	run "$AX" kernel check "$K/transpose.yaml" -p n=64 -p tile=4 -p rows=8
	assert_failure 2
	assert_output --partial 'constraint "rows <= tile"'
	run "$AX" kernel check "$K/transpose.yaml" -p tile=12
	assert_failure 2
	assert_output --partial "tile must be one of 4, 8, 16, 32, 64 (got 12)"
	run "$AX" kernel check
	assert_failure 2
	run "$AX" kernel frobnicate x.yaml
	assert_failure 2
	assert_output --partial "no subcommand 'frobnicate'"
}

@test "kernel run: results are stored as kernel:NAME for every command" {
	run "$AX" --db "$DB" kernel run "$K/reduce.yaml" -p n=65536 \
		-p wg=64,256 -p ept=1,8 "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where suite = 'kernel:reduce'
		and status = 'ok'")" -eq 4 ]
	# the SPIR-V's hash is kept per result: wg is a define (a compile
	# each), ept a specialization constant (the same SPIR-V)
	[ "$(sql "select count(distinct shader_hash) from result")" -eq 2 ]
	[ "$(sql "select count(*) from result where
		json_extract(extra_json, '$.compile_ms') > 0")" -eq 4 ]
	[ "$(sql "select count(*) from result where
		json_extract(extra_json, '$.spirv_key') is not null")" -eq 4 ]
	run "$AX" --db "$DB" results --suite kernel:reduce
	assert_success
	assert_output --partial "kernel:reduce"
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR/r.html"
	assert_success
	grep -qF 'kernel:reduce' "$BATS_TEST_TMPDIR/r.html"
}

@test "kernel run: a second process reads the SPIR-V cache" {
	run "$AX" --db "$DB" kernel run "$K/saxpy.yaml" -p n=4096 "${FAST[@]}"
	assert_success
	ls "$XDG_CACHE_HOME/axbench/spirv/"*.spv
	run "$AX" --db "$DB" kernel run "$K/saxpy.yaml" -p n=4096 "${FAST[@]}"
	assert_success
	[ "$(sql "select group_concat(json_extract(extra_json,
		'$.spirv_cached'), ',') from result order by id")" = "0,1" ]
}

@test "kernel tune and export: the transpose example on a small shape" {
	run "$AX" --db "$DB" --json kernel tune "$K/transpose.yaml" -p n=256 \
		--budget 8 --strategy random --seed 3
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["suite"] == "kernel:transpose", d
assert d["trials"] >= 1 and d["speedup"] >= 1.0, d'
	run "$AX" --db "$DB" kernel export "$K/transpose.yaml" \
		-o "$BATS_TEST_TMPDIR/tuned.yaml"
	assert_success
	grep -q 'kernel:transpose' "$BATS_TEST_TMPDIR/tuned.yaml"
	run "$AX" --db "$DB" kernel run "$K/transpose.yaml" \
		--tuned "$BATS_TEST_TMPDIR/tuned.yaml" "${FAST[@]}"
	assert_success
}

@test "kernel run and tune: the three examples end to end, small shapes" {
	for k in saxpy:4096 transpose:64 reduce:4096; do
		run "$AX" --db "$DB" kernel run "$K/${k%%:*}.yaml" \
			-p n="${k#*:}" "${FAST[@]}"
		assert_success
		# the default strategy (bo), as a user would run it
		run "$AX" --db "$DB" kernel tune "$K/${k%%:*}.yaml" \
			-p n="${k#*:}" --budget 4 --seed 1
		assert_success
	done
	[ "$(sql "select count(distinct suite) from result
		where status = 'ok'")" -eq 3 ]
	# every trial verified: none failed, and each tuning session has
	# its trials (at most the budget; bo may stop early)
	[ "$(sql "select count(*) from result where status != 'ok'")" -eq 0 ]
	[ "$(sql "select count(*) from tune_session")" -eq 3 ]
	[ "$(sql "select min(c) from (select count(*) c from trial
		group by session_id)")" -ge 2 ]
}

@test "kernel tune: the constraints and the device prune the space" {
	# transpose: rows <= tile and tile * rows <= max_invocations; a grid
	# over the whole space runs only the valid points, each verified
	run "$AX" --db "$DB" --json kernel tune "$K/transpose.yaml" -p n=64 \
		--strategy grid --budget 1000 --retime 0
	assert_success
	n=$(echo "$output" | python3 -c '
import json, sys; print(json.load(sys.stdin)["trials"])')
	[ "$(sql "select count(*) from trial where status != 'ok'")" -eq 0 ]
	[ "$(sql "select count(*) from trial where
		json_extract(params_json, '$.rows') >
		json_extract(params_json, '$.tile')")" -eq 0 ]
	# Exactly the points the example's constraints leave on this
	# device's limits (devices --json), each tried once: every value
	# of every tunable, each constraint evaluated as written.
	run "$AX" devices --json
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/devices.json"
	sql "select params_json from trial" >"$BATS_TEST_TMPDIR/tried"
	python3 - "$K/transpose.yaml" "$BATS_TEST_TMPDIR/devices.json" \
		"$BATS_TEST_TMPDIR/tried" "$n" <<'EOF'
import itertools, json, sys, yaml
desc = yaml.safe_load(open(sys.argv[1]))
lim = json.load(open(sys.argv[2]))[0]["limits"]
tried = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
n = int(sys.argv[4])
env = {"max_invocations": lim["max_invocations"],
       "max_shared_memory": lim["max_shared_memory"],
       "max_group_size_x": lim["max_workgroup_size"][0],
       "max_group_size_y": lim["max_workgroup_size"][1],
       "max_group_size_z": lim["max_workgroup_size"][2]}
tun = [k for k, v in desc["params"].items() if v.get("tunable")]
assert tun == ["tile", "rows", "pad", "diagonal"], tun
rules = [c.replace("&&", " and ").replace("||", " or ")
         for c in desc["constraints"]]
assert len(rules) == 4, rules
space = list(itertools.product(*(desc["params"][k]["values"] for k in tun)))
valid = {vals for vals in space
         if all(eval(r, {}, dict(env, n=64, **dict(zip(tun, vals))))
                for r in rules)}
assert 20 < len(valid) < len(space), (len(valid), len(space))
got = [tuple(p[k] for k in tun) for p in tried]
assert all(p["n"] == 64 for p in tried), tried
assert n == len(valid), ("trials", n, "valid points", len(valid))
assert len(got) == len(set(got)) == len(valid), (len(got), len(set(got)))
assert set(got) == valid, (sorted(valid - set(got)), sorted(set(got) - valid))
EOF
	[ "$(sql "select stop_reason from tune_session")" = "every one of the $n points was tried" ]
}

# A kernel written here: dst = 2 * src, with src read from a file and
# dst checked against an expect file (no reference configuration).
double_kernel() {
	cat >"$BATS_TEST_TMPDIR/double.comp" <<'GLSL'
#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer S { float src[]; };
layout(std430, binding = 1) writeonly buffer D { float dst[]; };
void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < src.length())
		dst[i] = 2.0 * src[i];
}
GLSL
	cat >"$BATS_TEST_TMPDIR/double.yaml" <<'YAML'
schema: axbench.kernel/v1
shader: {file: double.comp}
params:
  n: {values: [1024], shape: true}
buffers:
  - {name: src, elements: n, init: file, file: src.bin, role: in}
  - {name: dst, elements: n, role: out, expect: want.bin}
dispatch: [n / 64]
YAML
	python3 -c '
import struct, sys
d = sys.argv[1]
src = [i * 0.5 - 100 for i in range(1024)]
open(d + "/src.bin", "wb").write(struct.pack("<1024f", *src))
open(d + "/want.bin", "wb").write(struct.pack("<1024f", *[2 * x for x in src]))
' "$BATS_TEST_TMPDIR"
}

@test "kernel check: input from a file, outputs checked against a file" {
	double_kernel
	run "$AX" kernel check "$BATS_TEST_TMPDIR/double.yaml"
	assert_success
	assert_output --partial "kernel:double: 1 parameter, unit us"
	assert_output --partial "ok: verified against expect files"
	# one wrong expected word is caught, with its index
	python3 -c '
import struct, sys
f = open(sys.argv[1] + "/want.bin", "r+b"); f.seek(4 * 700)
f.write(struct.pack("<f", 12345.0))' "$BATS_TEST_TMPDIR"
	run "$AX" kernel check "$BATS_TEST_TMPDIR/double.yaml"
	assert_failure 1
	assert_output --partial "buffer dst[700] is 500, expected 12345"
	assert_output --partial "1 of 1024 elements differ from the expect files"
	# a data file shorter than the buffer is said, not read past
	head -c 100 "$BATS_TEST_TMPDIR/src.bin" >"$BATS_TEST_TMPDIR/short"
	mv "$BATS_TEST_TMPDIR/short" "$BATS_TEST_TMPDIR/src.bin"
	run "$AX" kernel check "$BATS_TEST_TMPDIR/double.yaml"
	assert_failure
	assert_output --partial "src.bin holds 25 4-byte words; the buffer needs 1024"
}

@test "kernel help: every subcommand has help and examples" {
	run "$AX" help kernel
	assert_success
	assert_output --partial "kernel check"
	assert_output --partial "kernel tune"
	run "$AX" kernel check --help
	assert_success
	assert_output --partial "FILE.yaml"
	run "$AX" kernel tune --help
	assert_success
	assert_output --partial "--budget"
}
