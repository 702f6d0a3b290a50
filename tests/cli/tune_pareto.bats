#!/usr/bin/env bats
# A time/energy Pareto front (issue 39, item 3): `tune --objective
# time,energy` on a replayed landscape that records power, and live on
# lavapipe with the RAPL fixture; the front is printed, stored with the
# session and `export --pick` chooses from it.  No shared landscape records
# energy, so the replay runs on a SYNTHETIC one made by
# tests/fixtures/pareto_landscape.py (a clock axis trades time for energy,
# its front known exactly).
load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	LAND="$BATS_TEST_TMPDIR/clock.json"
	python3 tests/fixtures/pareto_landscape.py "$LAND"
}

teardown() { stop_rapl_fixture; }

@test "tune --replay --objective time,energy finds the landscape's front and prints it, knee marked" {
	run "$AX" tune --replay "$LAND" --objective time,energy --budget 40 --seed 1
	assert_success
	assert_output --regexp "Pareto front of time and energy: [0-9]+ points measured \(the whole landscape's front has 6\); they reach 100\.0 % of its hypervolume"
	[ "$(grep -c '^  knee ' <<<"$output")" -eq 1 ]
	# Fastest first: the highest clock; the knee at a clock in between.
	grep -E '^ +1\.1 ms .*core_clock=1900$' <<<"$output"
	run --separate-stderr "$AX" --json tune --replay "$LAND" --objective time,energy --budget 40 --seed 1
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["front"]
assert d["objective"] == "time,energy", d["objective"]
pts = f["points"]
assert f["landscape_front"] == 6 and f["hypervolume_ratio"] > 0.999, f
assert sum(p["knee"] for p in pts) == 1, pts
t = [p["time_ms"] for p in pts]
e = [p["energy_j"] for p in pts]
assert t == sorted(t) and e == sorted(e, reverse=True), pts
# energy is the recorded power (W) times the time (ms)
for p in pts:
    c = p["params"]["core_clock"]
    w = 60 + 120 * (c / 2000.0) ** 2
    assert abs(p["energy_j"] - w * p["time_ms"] * 1e-3) < 1e-9, p'
}

@test "a Pareto replay of a landscape without energy, or with anneal, is refused with the reason" {
	run "$AX" tune --replay tests/fixtures/tuner/tiny.json --objective time,energy
	assert_failure 2
	assert_output --partial "this landscape records no energy"
	run "$AX" tune --replay "$LAND" --objective time,energy --strategy anneal
	assert_failure 2
	assert_output --partial "strategy anneal walks one objective"
}

@test "live tune --objective time,energy re-times the front and the defaults, stores the front, export --pick chooses from it" {
	rapl_fixture
	run "$AX" --db "$DB" tune bandwidth -p op=copy -p size=64K --objective time,energy \
		--budget 4 --cpu-baseline off
	assert_success
	assert_output --partial "tuning cold, with no prior: a time,energy session searches without one"
	assert_output --partial "re-timing the "
	assert_output --partial "Pareto front of time and energy per repetition (re-timed; fastest first"
	[ "$(grep -c '^  knee ' <<<"$output")" -eq 1 ]
	[ "$(sql 'select objective from tune_session')" = time,energy ]
	# Each trial keeps its energy; the front its re-timed figures, each
	# naming its stored result, one knee, the defaults among candidates.
	[ "$(sql "select count(*) from trial t join result_power p on
		p.result_id = t.result_id where t.status = 'ok'
		and t.objective_value = p.energy_rep_j")" -ge 1 ]
	sql 'select front_json from tune_session' | python3 -c '
import json, sys
f = json.load(sys.stdin)
assert len(f) >= 1 and sum(p["knee"] for p in f) == 1, f
for p in f:
    assert p["seconds"] > 0 and p["energy_j"] > 0 and p["result_id"] > 0, p
t = [p["seconds"] for p in f]
assert t == sorted(t), f'
	for pick in knee fastest least-energy; do
		run --separate-stderr "$AX" --db "$DB" export --format json --pick "$pick"
		assert_success
		echo "$output" | python3 -c '
import json, sys
e = json.load(sys.stdin)["devices"][0]["suites"]["bandwidth"][0]
assert e["objective"] == "time,energy" and e["pick"] == sys.argv[1], e
assert ("Pareto front" in e["reason"]) or ("front" in e["reason"]), e' "$pick"
	done
	run "$AX" --db "$DB" export --pick slowest
	assert_failure 2
	run "$AX" --db "$DB" tune --resume 1 --objective time
	assert_failure 2
	assert_output --partial "session 1 minimises time,energy"
}

@test "tune --objective time,energy without a sensor is refused before anything is stored" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	run "$AX" --db "$DB" tune bandwidth --objective time,energy --budget 2
	assert_failure 2
	assert_output --partial "--objective time,energy needs the device's power"
	[ ! -e "$DB" ]
}
