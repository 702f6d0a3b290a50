#!/usr/bin/env bats
# axbench monitor: live telemetry, or the energy of a command's run.  On
# this machine (lavapipe, no RAPL) it has no sensor and says why; with a
# fixture RAPL tree under AXBENCH_SYSFS_ROOT it has power and energy.
load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	export AXBENCH_NVML_LIB="$BATS_TEST_TMPDIR/no-libnvidia-ml.so.1"
}

teardown() { stop_rapl_fixture; }

# Whether a mean of $1 W over $2 s is the fixture's power: RAPL_FIXTURE_W
# by the wall clock, its counter lagging less than the writer's longest
# lag (tests/fixtures/rapl.sh) at each end, so within RAPL_FIXTURE_W *
# (lag + 0.05 s for the reader's own delays) / $2, whatever the load.
# Waits for two more writes first, so that the lag is known up to the
# last reading.
fixture_power_near() {
	local f="$AXBENCH_SYSFS_ROOT/sys/class/powercap/intel-rapl:0/energy_uj"
	local e cur lag
	for _ in 1 2; do
		read -r e <"$f"
		for _ in $(seq 500); do
			read -r cur <"$f"
			[ "$cur" != "$e" ] && break
			sleep 0.02
		done
	done
	read -r lag <"$AXBENCH_SYSFS_ROOT/rapl_max_lag_us"
	python3 - "$1" "$2" "$RAPL_FIXTURE_W" "$lag" <<'PY'
import sys
mean, secs, want, lag_us = (float(x) for x in sys.argv[1:5])
tol = want * (lag_us / 1e6 + 0.05) / secs
print("%g W over %g s; the fixture's %g W within %.3g W (its longest lag "
      "%.3f s)" % (mean, secs, want, tol, lag_us / 1e6))
assert abs(mean - want) <= tol, "not the fixture's power"
PY
}

# Each sample's power_w of monitor's --json document on stdin (device 0)
# is its energy step over its time step, and the summary's mean is the
# energy over the seconds: what holds whatever the load.  Prints the
# summary's mean power and seconds.
samples_consistent() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
dev = d["devices"][0]
s, sm = dev["samples"], dev["summary"]
assert len(s) >= 2, s
for a, b in zip(s, s[1:]):
    want = (b["energy_j"] - a["energy_j"]) / (b["t"] - a["t"])
    assert abs(b["power_w"] - want) <= 1e-3 * abs(want) + 1e-3, (a, b, want)
assert abs(sm["seconds"] - (s[-1]["t"] - s[0]["t"])) <= 1e-5, sm
e = s[-1]["energy_j"] - s[0]["energy_j"]
assert abs(sm["energy_j"] - e) <= 1e-5 * s[-1]["energy_j"] + 1e-4, (sm, e)
assert abs(sm["mean_power_w"] * sm["seconds"] - sm["energy_j"]) <= \
    1e-3 * sm["energy_j"] + 1e-4, sm
m = max(x["power_w"] for x in s if x["power_w"] is not None)
assert abs(sm["max_power_w"] - m) <= 1e-4 * m, (sm, m)
print(sm["mean_power_w"], sm["seconds"])'
}

@test "monitor without a sensor names the device and the reason, exit 0" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	run "$AX" monitor --duration 5
	assert_success
	assert_output --partial "no sensor for llvmpipe"
	assert_output --partial "RAPL: $AXBENCH_SYSFS_ROOT/sys/class/powercap: No such file or directory"
	run "$AX" --json monitor
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
dev = d["devices"][0]
assert dev["source"] is None and "RAPL" in dev["reason"], dev
assert dev["samples"] == [], dev'
	# --csv: the header alone on stdout, the reason on stderr
	run --separate-stderr "$AX" monitor --csv --duration 5
	assert_success
	assert_output "device,time_s,power_w,energy_j,temp_c,sm_mhz,mem_mhz,mem_used_bytes,throttle"
	[[ "$stderr" == *"no sensor for llvmpipe"* ]]
}

@test "monitor on this machine's real /sys says no sensor and exits 0" {
	unset AXBENCH_SYSFS_ROOT
	[ ! -e /sys/class/powercap ] || skip "this machine has RAPL"
	run "$AX" monitor
	assert_success
	assert_output --partial "no sensor for llvmpipe"
	assert_output --partial "RAPL: /sys/class/powercap: No such file or directory"
}

@test "monitor with a fixture RAPL tree prints power and energy rows" {
	rapl_fixture
	run "$AX" monitor --duration 0.6 --interval 0.1
	assert_success
	assert_output --partial "# 0: llvmpipe"
	assert_output --partial "(RAPL)"
	assert_output --partial "power_W  energy_J"
	# A row with a power figure in watts, and the summary.
	echo "$output" | grep -E '^ +0 +[0-9.]+ +[0-9]+\.[0-9]{2} +[0-9.]+ ' >/dev/null
	assert_output --regexp "energy [0-9]+\.[0-9]{3} J over [0-9.]+ s, mean [0-9.]+ W"
	# Each row's watts are its energy step over its time step (to the
	# rounding of the columns: 3 decimals of s and J, 2 of W).
	echo "$output" | python3 -c '
import re, sys
rows = [l.split()[1:4] for l in sys.stdin if re.match(r" +0 +[0-9.]+ ", l)]
assert len(rows) >= 3, rows
for a, b in zip(rows, rows[1:]):
    dt = float(b[0]) - float(a[0])
    want = (float(b[2]) - float(a[2])) / dt
    tol = (abs(want) * 1.1e-3 + 1.1e-3) / dt + 0.006
    assert abs(float(b[1]) - want) <= tol, (a, b, want)'
	# The mean is the energy over the time, and the fixture's 10 W.
	local sum e secs mean
	sum=$(echo "$output" | sed -nE 's/.*: energy ([0-9.]+) J over ([0-9.]+) s, mean ([0-9.]+) W.*/\1 \2 \3/p')
	echo "summary: $sum"
	read -r e secs mean <<<"$sum"
	python3 -c 'import sys; e, s, m = map(float, sys.argv[1:4]); assert abs(m * s - e) <= 0.01 * e + 0.01, (e, s, m)' "$e" "$secs" "$mean"
	fixture_power_near "$mean" "$secs"
}

@test "monitor --csv: a header and rows of 9 fields, unmeasured fields empty" {
	rapl_fixture
	run "$AX" monitor --csv -t 0.5 -i 0.1
	assert_success
	[ "${lines[0]}" = "device,time_s,power_w,energy_j,temp_c,sm_mhz,mem_mhz,mem_used_bytes,throttle" ]
	[ "${#lines[@]}" -ge 3 ]
	for l in "${lines[@]:1}"; do
		[ "$(echo "$l" | awk -F, '{print NF}')" = 9 ]
		[[ "$l" == 0,* ]]
	done
	# Temperature is not measured by RAPL: empty, never 0.
	[ "$(echo "${lines[2]}" | cut -d, -f5)" = "" ]
	[ -n "$(echo "${lines[2]}" | cut -d, -f4)" ]
	# Each row's watts are its energy step over its time step (time_s
	# has 3 decimals: a step is known to 1 ms).
	printf '%s\n' "${lines[@]:1}" | python3 -c '
import csv, sys
rows = [[float(x) if x else None for x in r] for r in csv.reader(sys.stdin)]
for a, b in zip(rows, rows[1:]):
    dt = b[1] - a[1]
    want = (b[3] - a[3]) / dt
    assert abs(b[2] - want) <= abs(want) * 1.1e-3 / dt + 1e-3, (a, b, want)'
}

@test "monitor --json: devices with source, samples and a summary" {
	rapl_fixture
	run "$AX" --json monitor -t 0.5 -i 0.1
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["interval_s"] == 0.1, d
dev = d["devices"][0]
assert dev["source"] == "RAPL" and dev["reason"] is None, dev
s = dev["samples"]
assert len(s) >= 2, s
assert all(x["temp_c"] is None for x in s), s
assert any(x["power_w"] and x["power_w"] > 0 for x in s), s
sm = dev["summary"]
assert sm["energy_j"] > 0 and sm["mean_power_w"] > 0, sm
assert sm["throttled"] is False, sm'
	# Watts from the counter, and the fixture's 10 W.
	local got
	got=$(echo "$output" | samples_consistent)
	fixture_power_near $got
}

@test "monitor -- CMD passes the exit code through and prints the energy" {
	rapl_fixture
	run "$AX" monitor -- sh -c 'sleep 0.3; exit 3'
	assert_failure 3
	assert_output --regexp "energy [0-9]+\.[0-9]{3} J over"
	run "$AX" --json monitor --idle 0.5 -- sh -c 'sleep 0.3'
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["command"] == {"argv": ["sh", "-c", "sleep 0.3"], "exit_code": 0}, d
sm = d["devices"][0]["summary"]
assert sm["idle_power_w"] >= 0 and sm["net_energy_j"] is not None, sm
idle = sm["idle_power_w"] * sm["seconds"]
net = sm["energy_j"] - idle
assert abs(sm["net_energy_j"] - net) <= 1e-5 * (sm["energy_j"] + idle) + 1e-4, (sm, net)'
	local got
	got=$(echo "$output" | samples_consistent)
	fixture_power_near $got
	# The idle baseline is the fixture's 10 W too.
	run "$AX" monitor --idle 0.5 -- true
	assert_success
	local idle
	idle=$(echo "$output" | sed -nE 's/.*net of idle \(([0-9.]+) W over ([0-9.]+) s\).*/\1 \2/p')
	echo "idle: $idle"
	[ -n "$idle" ]
	fixture_power_near $idle
}

@test "monitor -- CMD: the command gets SIGPIPE as any shell would give it" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	# axbench itself ignores SIGPIPE; the command must not inherit that,
	# or a writer into a closed pipe fails with EPIPE instead of dying.
	run "$AX" monitor -- bash -c 'yes | head -c1 >/dev/null; echo "yes=${PIPESTATUS[0]}"'
	assert_success
	assert_output --partial "yes=141"
}

@test "monitor -- CMD without a sensor still runs it and says so" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	run "$AX" monitor -- sh -c 'echo ran; exit 3'
	assert_failure 3
	assert_output --partial "ran"
	assert_output --partial "no sensor for llvmpipe"
	assert_output --partial "no energy measured for 'sh'"
	run -127 "$AX" monitor -- /nonexistent/cmd
	assert_output --partial "/nonexistent/cmd: No such file or directory"
}

@test "monitor: bad options are usage errors (exit 2)" {
	run "$AX" monitor --interval 0
	assert_failure 2
	assert_output --partial "--interval must be a number from 0.01 to 3600 (got '0')"
	run "$AX" monitor --duration soon
	assert_failure 2
	run "$AX" monitor --bogus
	assert_failure 2
	assert_output --partial "unknown option '--bogus'"
	run "$AX" monitor extra
	assert_failure 2
	run "$AX" monitor --
	assert_failure 2
	assert_output --partial "'--' must be followed by a command"
	run "$AX" monitor -t 1 -- true
	assert_failure 2
	assert_output --partial "--duration and a command contradict"
	run "$AX" --json monitor --csv
	assert_failure 2
}

@test "monitor --db stores each device's series as a run of its own; without --db nothing is written" {
	rapl_fixture
	cd "$BATS_TEST_TMPDIR"
	run "$AX" monitor --duration 0.5 --interval 0.1
	assert_success
	[ ! -e axbench.db ]
	run "$AX" --db "$DB" monitor --duration 0.5 --interval 0.1
	assert_success
	assert_output --partial "stored as run 1 in $DB"
	[ "$(sql "select profile, status from run")" = "monitor|complete" ]
	[ "$(sql "select kind, source from telemetry_series")" = "monitor|RAPL" ]
	[ "$(sql "select count(*) >= 3 from telemetry_sample")" = 1 ]
	[ "$(sql "select count(*) from telemetry_sample where power_w > 0")" -gt 0 ]
	# "last" is the last measurement, not a monitor.
	"$AX" --db "$DB" run gemm -p m=64 -p n=64 -p k=64 --cpu-baseline off "${FAST[@]}"
	"$AX" --db "$DB" monitor --duration 0.3
	run "$AX" --db "$DB" results --run last
	assert_success
	assert_output --partial "gemm"
}
