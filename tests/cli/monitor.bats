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
assert sm["idle_power_w"] >= 0 and sm["net_energy_j"] is not None, sm'
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
