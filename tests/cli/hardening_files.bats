#!/usr/bin/env bats
# Files a user names as input (issue 34, items 1, 2, 5 and 12): a FIFO, a
# device or a directory is refused before it is read (opened without
# blocking, then fstat), with what it is; a file too large is refused with
# its size and what it is; an ingest data file that shrinks during a run
# is said as such, and the case's stop reason is the error's.
#
# Everything here is real: FIFOs made with mkfifo, /dev/zero and
# /dev/urandom, /proc/self/maps, and a file truncated by another process
# while axbench reads it.  Each command that could block runs under
# `timeout`, so a regression fails instead of hanging the suite.

load helper

setup() {
	ax_setup
	W="$BATS_TEST_TMPDIR"
}

# A kernel of the test's own: dst = 2 * src, src read from src.bin, dst
# checked against want.bin, its shader double.comp (includes none).
double_kernel() {
	cat >"$W/double.comp" <<'GLSL'
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
	cat >"$W/double.yaml" <<'YAML'
schema: axbench.kernel/v1
shader: {file: double.comp}
params:
  n: {values: [1024], shape: true}
buffers:
  - {name: src, elements: n, init: file, file: src.bin, role: in}
  - {name: dst, elements: n, role: out, expect: want.bin}
dispatch: [n / 64]
YAML
	head -c 4096 /dev/zero >"$W/src.bin"
	head -c 4096 /dev/zero >"$W/want.bin"
}

# The kernel with its shader file replaced by $1.
with_shader() {
	double_kernel
	sed -i "s|file: double.comp|file: $1|" "$W/double.yaml"
}

# ---- item 1: FIFOs among a kernel's files ----------------------------

@test "kernel check: a FIFO as the shader file is refused at once, exit 2, saying it is a FIFO" {
	mkfifo "$W/fifo.comp"
	with_shader fifo.comp
	run timeout -k 5 20 "$AX" kernel check "$W/double.yaml"
	assert_failure 2
	assert_output --partial "shader file $W/fifo.comp is a FIFO"
	assert_output --partial "not a regular file"
}

@test "kernel check: a FIFO as an init file or an expect file is refused, exit 2" {
	double_kernel
	rm "$W/src.bin"
	mkfifo "$W/src.bin"
	run timeout -k 5 20 "$AX" kernel check "$W/double.yaml"
	assert_failure 2
	assert_output --partial "init file $W/src.bin is a FIFO"
	rm "$W/src.bin"
	head -c 4096 /dev/zero >"$W/src.bin"
	rm "$W/want.bin"
	mkfifo "$W/want.bin"
	run timeout -k 5 20 "$AX" kernel check "$W/double.yaml"
	assert_failure 2
	assert_output --partial "expect file $W/want.bin is a FIFO"
}

@test "kernel check: a FIFO named by #include is refused, exit 2" {
	double_kernel
	mkfifo "$W/fifo.glsl"
	sed -i 's|^layout(local_size_x = 64) in;|#include "fifo.glsl"\n&|' \
		"$W/double.comp"
	sed -i 's|^#version 450|&\n#extension GL_GOOGLE_include_directive : require|' \
		"$W/double.comp"
	run timeout -k 5 20 "$AX" kernel check "$W/double.yaml"
	assert_failure 2
	assert_output --partial "fifo.glsl is a FIFO"
}

@test "a FIFO as the kernel file, a profile or a replay landscape is refused, exit 2" {
	mkfifo "$W/k.yaml" "$W/p.yaml" "$W/l.json"
	run timeout -k 5 20 "$AX" kernel check "$W/k.yaml"
	assert_failure 2
	assert_output --partial "$W/k.yaml is a FIFO"
	run timeout -k 5 20 "$AX" --db "$DB" run --config "$W/p.yaml" --dry-run
	assert_failure 2
	assert_output --partial "$W/p.yaml is a FIFO"
	run timeout -k 5 20 "$AX" tune --replay "$W/l.json" --budget 3
	assert_failure 2
	assert_output --partial "$W/l.json is a FIFO"
	[ ! -e "$DB" ]
}

# ---- item 2: a FIFO as the ingest file -------------------------------

@test "run ingest -p file=FIFO is refused up front, exit 2, nothing stored" {
	mkfifo "$W/data"
	run timeout -k 5 20 "$AX" --db "$DB" run ingest -p file="$W/data" -p size=1M \
		"${FAST[@]}"
	assert_failure 2
	assert_output --partial "file=$W/data is a FIFO"
	assert_output --partial "not a regular file"
	[ "$(n_rows "$DB" result)" -eq 0 ]
}

# ---- item 5: an ingest file that shrinks during the run ---------------

@test "ingest: a file that shrinks during the run says so; stop reason error, samples kept as partial" {
	head -c 4M /dev/urandom >"$W/data.bin"
	# --mode cold: one repetition per sample, so every sample reads the
	# file's 4 MiB once.  Setup reads it at most 8 times (checksums, 3
	# raw passes, warm-up, 3 profiled repetitions): once the process has
	# read 40 times that, sampling has begun, with most of its 1000
	# samples still to take.
	"$AX" --db "$DB" run ingest -p file="$W/data.bin" -p size=4M \
		--mode cold --min-samples 1000 --max-samples 1000 --min-time 0 \
		--max-time 120 --warmup 1 >"$W/out" 2>&1 &
	pid=$!
	want=$((40 * 4 * 1024 * 1024))
	for _ in $(seq 30000); do
		read -r _ rchar <"/proc/$pid/io" || break
		[ "$rchar" -ge "$want" ] && break
		sleep 0.01
	done
	truncate -s 1M "$W/data.bin"
	timeout 120 tail --pid="$pid" -f /dev/null || kill "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$W/out"
	[ "$rc" -eq 1 ]
	run sql "select status, stop_reason from result"
	assert_output "error|error"
	n=$(sql "select n from result")
	[ "$n" -gt 0 ]
	[ "$n" -lt 1000 ]
	[ "$(sql "select count(*) from sample")" -eq "$n" ]
	run sql "select error_text from result"
	assert_output --partial "file=$W/data.bin shrank from 4.0 MiB to 1.0 MiB during the run"
	assert_output --partial "the $n samples before it are kept, a partial result"
	refute_output --partial "Input/output error"
}

# ---- item 12: messages for devices and oversized shaders --------------

@test "a shader /dev/zero or /dev/urandom is 'not a regular file', a 20 MiB shader 'larger than the 4 MiB a shader file may be'" {
	with_shader /dev/zero
	run timeout -k 5 20 "$AX" kernel check "$W/double.yaml"
	assert_failure 2
	assert_output --partial "shader file /dev/zero is a character device, not a regular file"
	refute_output --partial "YAML"
	with_shader /dev/urandom
	run timeout -k 5 20 "$AX" kernel check "$W/double.yaml"
	assert_failure 2
	assert_output --partial "shader file /dev/urandom is a character device, not a regular file"
	head -c 20M /dev/zero | tr '\0' ' ' >"$W/big.comp"
	with_shader big.comp
	run timeout -k 5 20 "$AX" kernel check "$W/double.yaml"
	assert_failure 2
	assert_output --partial "shader file $W/big.comp is 20.0 MiB, larger than the 4 MiB a shader file may be"
	refute_output --partial "YAML"
}

@test "run ingest -p file=/proc/self/maps says its size cannot be known, not '0 bytes'" {
	run timeout -k 5 20 "$AX" --db "$DB" run ingest -p file=/proc/self/maps \
		-p size=4K "${FAST[@]}"
	assert_failure 2
	assert_output --partial "size cannot be known"
	assert_output --partial "not a regular data file"
	refute_output --partial "has 0 bytes"
	[ "$(n_rows "$DB" result)" -eq 0 ]
}
