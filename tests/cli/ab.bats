#!/usr/bin/env bats
# axbench ab and kernel compare: paired A/B in alternating rounds.  The
# kernel bench/kernels/fma.yaml does `iters` multiply-adds per element
# for a fixed work model, so iters=768 is three times the work of 256: a
# difference that holds at any load.  Shapes are small and rounds few.
load helper
bats_require_minimum_version 1.5.0

setup() { ax_setup; }

K=bench/kernels/fma.yaml
# Small, short: at most 16 rounds, each of 3 samples of a few ms.
SHORT=(-p n=4096 --rounds 8 --max-rounds 16 --max-time 3)

@test "ab: three times the work is called slower, exit 1" {
	run "$AX" --db "$DB" ab --kernel "$K" "${SHORT[@]}" \
		--a iters=256 --b iters=768
	assert_failure 1
	assert_output --partial "verdict: slower"
	assert_output --regexp "B is [0-9.]+x slower than A"
	assert_output --partial "minimum detectable effect:"
	# A pair stores no power, so it says nothing of a sensor.
	refute_output --partial "power:"
}

@test "ab: an identical pair is never called slower (exit 0)" {
	run "$AX" --db "$DB" ab --kernel "$K" "${SHORT[@]}" \
		--a iters=256 --b iters=256
	assert_success
	refute_output --partial "verdict: slower"
}

@test "ab: stored as one run of kind ab, both results with extra.pair" {
	run "$AX" --db "$DB" ab --kernel "$K" "${SHORT[@]}" \
		--a iters=256 --b iters=768 --label pair
	assert_failure 1
	run "$AX" --db "$DB" runs --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
runs = json.load(sys.stdin)
assert len(runs) == 1 and runs[0]["kind"] == "ab", runs
assert runs[0]["n_results"] == 2 and runs[0]["label"] == "pair", runs'
	run "$AX" --db "$DB" results --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
rows = sorted(json.load(sys.stdin), key=lambda r: r["id"])
sides = [r["extra"]["pair"] for r in rows]
assert [p["side"] for p in sides] == ["A", "B"], sides
assert sides[1]["other_result_id"] == rows[0]["id"], sides
for p in sides:
    assert p["speedup_lo"] <= p["speedup"] <= p["speedup_hi"] < 1, p
    assert p["rounds"] >= 8, p
assert rows[1]["params"]["iters"] == 768, rows[1]["params"]'
}

@test "ab: bad input is exit 2 with the input named" {
	run "$AX" --db "$DB" ab --kernel "$K" --a itrs=256 --b iters=768
	assert_failure 2
	assert_output --partial "--a itrs=256: unknown parameter 'itrs'"
	run "$AX" --db "$DB" ab --kernel "$K"
	assert_failure 2
	assert_output --partial "A and B are the same"
	run "$AX" --db "$DB" kernel compare "$BATS_TEST_TMPDIR/none.yaml" \
		--a iters=256 --b iters=768
	assert_failure 2
	assert_output --partial "none.yaml"
	run "$AX" --db "$DB" ab bandwidth -p sise=1M --a op=copy --b op=read
	assert_failure 2
	assert_output --partial "-p sise=1M: unknown parameter"
	run "$AX" --db "$DB" ab bandwidth --a size=1M,2M --b size=1M
	assert_failure 2
	assert_output --partial "one value per parameter"
	run "$AX" --db "$DB" ab --a op=copy --b op=read
	assert_failure 2
	assert_output --partial "name the suite"
	[ ! -e "$DB" ]
}

@test "ab: a kernel file against a suite of the same unit, one side each" {
	# fma.yaml and peak both read GFLOP/s; the verdict is not asserted.
	run "$AX" --db "$DB" --json ab peak --rounds 3 --max-time 2 \
		--a-kernel "$K" --a "n=4096 iters=256" --b "iters=64 groups=4"
	[ "$status" -le 1 ]
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["a"]["suite"] == "kernel:fma" and d["b"]["suite"] == "peak", d
assert d["unit"] == "GFLOP/s" and d["rounds"] >= 3, d'
	run "$AX" --db "$DB" ab bandwidth --a-kernel "$K" --a n=4096 --b op=read
	assert_failure 2
	assert_output --partial "reads GFLOP/s and B (bandwidth) GB/s: a ratio needs one unit"
	run "$AX" --db "$DB" ab peak --a-kernel "$K" --b-kernel "$K" --a iters=64
	assert_failure 2
	assert_output --partial "a suite (peak) and two kernel files"
}

@test "ab --json: one document with the documented fields" {
	run --separate-stderr "$AX" --db "$DB" ab --kernel "$K" "${SHORT[@]}" \
		--a iters=256 --b iters=768 --json
	assert_failure 1
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("mode", "run_id", "device", "unit", "higher_is_better", "a", "b",
          "rounds", "stop_reason", "round_values", "speedup", "speedup_lo",
          "speedup_hi", "level", "p_value", "improvement_pct",
          "improvement_ci_pct", "change_text", "threshold_pct",
          "min_detectable_effect_pct", "verdict", "reason", "interrupted",
          "error"):
    assert k in d, k
for s in ("a", "b"):
    for k in ("suite", "case", "kernel", "params", "result_id", "median",
              "status", "process"):
        assert k in d[s], (s, k)
assert d["mode"] == "in-process" and d["verdict"] == "slower", d
assert d["unit"] == "GFLOP/s" and d["a"]["suite"] == "kernel:fma", d
assert len(d["round_values"]["a"]) == d["rounds"] >= 8, d
lo, hi = d["improvement_ci_pct"]
assert lo <= d["improvement_pct"] <= hi < -d["threshold_pct"], d
assert d["min_detectable_effect_pct"] > d["threshold_pct"] == 2, d'
}

@test "kernel compare: two files naming one kernel, and one file at two sets" {
	# 12x the work (iters 64 against 768), not 3x: under ASan beside
	# other tests on 2 cores a 3x change once read 27 % slower with an
	# interval reaching into the threshold (ambiguous, exit 0).
	for it in 64 768; do
		sed 's|file: fma.comp|file: '"$PWD"'/bench/kernels/fma.comp|; s|default: 256,|default: '"$it"',|' \
			"$K" >"$BATS_TEST_TMPDIR/fma$it.yaml"
	done
	run "$AX" --db "$DB" kernel compare "$BATS_TEST_TMPDIR/fma64.yaml" \
		"$BATS_TEST_TMPDIR/fma768.yaml" "${SHORT[@]}"
	assert_failure 1
	assert_output --partial "verdict: slower"
	run "$AX" --db "$DB" kernel compare "$K" "${SHORT[@]}" \
		--a iters=768 --b iters=64
	assert_success
	assert_output --partial "verdict: faster"
}

@test "ab --exe: process mode with this same build gives a verdict" {
	# 12x the work at the default n: a process round costs start-up and
	# a compile, and under ASan on a loaded CI 3x at n=4096 read only
	# 1.5x slower, its interval reaching into the threshold (flaky).
	run "$AX" --db "$DB" ab --kernel "$K" -p n=65536 --rounds 8 \
		--max-rounds 8 --a iters=64 --b iters=768 --exe "$AX" -v
	assert_failure 1
	assert_output --partial "alternating processes"
	assert_output --partial "round 8"
	assert_output --partial "verdict: slower"
	# Process mode stores nothing.
	[ ! -e "$DB" ]
}

@test "ab: a process side that cannot start is a usage error" {
	run "$AX" --db "$DB" ab --kernel "$K" --a iters=256 --b iters=768 \
		--exe "$BATS_TEST_TMPDIR/no-such-axbench"
	assert_failure 2
	assert_output --partial "no-such-axbench"
	run "$AX" --db "$DB" ab --kernel "$K" --b-env NOEQUALS
	assert_failure 2
	assert_output --partial "write VAR=VALUE"
}

@test "ab: Ctrl-C judges and keeps the rounds measured (exit 130)" {
	"$AX" --db "$DB" ab --kernel "$K" -p n=4096 --rounds 100000 \
		--max-time 600 --a iters=256 --b iters=768 -v \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	for _ in $(seq 1500); do
		grep -q "^round 3 " "$BATS_TEST_TMPDIR/err" && break
		sleep 0.1
	done
	grep -q "^round 3 " "$BATS_TEST_TMPDIR/err"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err"
	[ "$rc" = 130 ]
	grep -q "stopped: interrupted" "$BATS_TEST_TMPDIR/out"
	run "$AX" --db "$DB" runs --json
	assert_output --partial '"status": "interrupted"'
	assert_output --partial '"n_results": 2'
}

@test "ab: a side that fails verification fails the comparison (exit 1), named" {
	# m = 2 doubles each element per iteration: B's output differs from
	# its reference configuration's (iters=256).
	sed 's|file: fma.comp|file: '"$PWD"'/bench/kernels/fma.comp|; s|value: 1}|value: 2}|' \
		"$K" >"$BATS_TEST_TMPDIR/wrong.yaml"
	run "$AX" --db "$DB" kernel compare "$K" "$BATS_TEST_TMPDIR/wrong.yaml" \
		"${SHORT[@]}" --a iters=256 --b iters=282
	assert_failure 1
	assert_output --partial "B (kernel:fma n=4096 iters=282): failed-verification"
	assert_output --partial "no paired round was measured"
}
