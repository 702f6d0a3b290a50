#!/usr/bin/env bats
# axbench fleet slurm (issue 16): the scripts it writes, its errors, and
# a real one-node Slurm cluster (tests/fixtures/slurm.sh: munged,
# slurmctld and slurmd on loopback, every file under one temporary
# directory) running a 3-task array into per-task databases, then the
# afterok merge job's `db merge` and `report`.
# The cluster takes every core it finds (slurm.conf from the CPU count),
# and its jobs wait on wall-clock bounds: it runs alone (tests/run.sh).
# bats file_tags=serial

load helper
bats_require_minimum_version 1.5.0

TINY=tests/fixtures/fleet-tiny.yaml

setup_file() {
	cd "$BATS_TEST_DIRNAME/../.." || return 1
	source tests/fixtures/slurm.sh
	# A short path: munged's socket must fit a sockaddr_un (108 bytes).
	SLURM_DIR=$(mktemp -d /tmp/axslurm.XXXXXX)
	export SLURM_DIR
	# Missing packages (a machine where scripts/deps.sh --test could not
	# install them) skip the cluster's tests; installed daemons that do
	# not start fail them, with their logs.
	if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null
	then
		echo "slurm-wlm or munge is not installed" >"$SLURM_DIR/skip"
	elif ! slurm_start "$SLURM_DIR"; then
		echo "$SLURM_WHY" >"$SLURM_DIR/failed"
	fi
}

teardown_file() {
	source tests/fixtures/slurm.sh
	slurm_stop "$SLURM_DIR"
	rm -rf "$SLURM_DIR"
}

setup() {
	ax_setup
	T="$BATS_TEST_TMPDIR"
	export SLURM_CONF="$SLURM_DIR/slurm.conf"
}

need_cluster() {
	[ ! -f "$SLURM_DIR/skip" ] || skip "$(cat "$SLURM_DIR/skip")"
	if [ -f "$SLURM_DIR/failed" ]; then
		cat "$SLURM_DIR/failed" >&2
		return 1
	fi
}

# The script between "# ==> NAME <==" and the next marker of the dry
# run's output in $output.
script_of() {
	awk -v want="$1" '/^# ==> /{on = index($0, want) > 0; next} on' \
		<<<"$output"
}

# A job's state (COMPLETED, FAILED, CANCELLED...) from scontrol.
job_state() {
	scontrol show job "$1" -o 2>/dev/null |
		grep -o 'JobState=[A-Z_]*' | cut -d= -f2
}

# Wait for job $1 to end: polls, bounded at 300 s, far beyond three tiny
# tasks on a loaded machine.
wait_job() {
	local s
	for _ in $(seq 1500); do
		s=$(job_state "$1")
		case "$s" in
		COMPLETED) return 0 ;;
		FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | \
			BOOT_FAIL | DEADLINE | PREEMPTED)
			echo "job $1 ended $s" >&2
			return 1 ;;
		esac
		sleep 0.2
	done
	echo "job $1 still '$s' after 300 s" >&2
	return 1
}

@test "--dry-run prints both scripts and the sbatch lines, and writes nothing" {
	run "$AX" fleet slurm --nodes 3 --profile quick --dir "$T/fleet" \
		--gpus no --time 20 --partition batch --dry-run
	assert_success
	assert_output --partial "# ==> $T/fleet/axbench-array.sbatch <=="
	assert_output --partial "# ==> $T/fleet/axbench-merge.sbatch <=="
	assert_output --partial "#SBATCH --array=0-2"
	assert_output --partial "#SBATCH --time=20"
	assert_output --partial "#SBATCH --partition=batch"
	assert_output --partial "#SBATCH --exclusive"
	refute_output --partial "--gpus-per-task"
	assert_output --partial 'db="$DIR/db/${HOSTNAME}-${SLURM_ARRAY_TASK_ID}.db"'
	assert_output --partial "PROFILE=(--profile 'quick')"
	# the running binary's own path (/proc/self/exe), links resolved
	assert_output --partial "AX='$(readlink -f "$AX")'"
	assert_output --partial '"$AX" db merge "$DIR/merged.db" "${dbs[@]}"'
	assert_output --partial 'report -o "$DIR/report.html"'
	assert_output --partial "--dependency=afterok:ARRAY_JOB --kill-on-invalid-dep=yes"
	[ ! -e "$T/fleet" ]
	script_of axbench-array.sbatch >"$T/a.sh"
	script_of axbench-merge.sbatch >"$T/m.sh"
	bash -n "$T/a.sh"
	bash -n "$T/m.sh"
	head -n 1 "$T/a.sh" | grep -qx '#!/bin/bash'
}

@test "--gpus yes asks one GPU per task, bound to the closest" {
	run "$AX" fleet slurm -N 2 --profile "$TINY" --dir "$T/f" --gpus yes \
		--dry-run
	assert_success
	assert_output --partial "#SBATCH --gpus-per-task=1"
	assert_output --partial "#SBATCH --gpu-bind=closest"
	refute_output --partial "#SBATCH --exclusive"
	# a profile file is passed as an absolute --config
	assert_output --partial "PROFILE=(--config '$(readlink -f "$TINY")')"
}

@test "a path with quotes, spaces and \$(...) is one word in the scripts: a task runs there and nothing else" {
	dir="$T/it's \$(touch $T/pwned) \`touch $T/pwned2\` \"x\""
	run "$AX" fleet slurm --nodes 1 --profile "$TINY" --dir "$dir" \
		--gpus no --dry-run
	assert_success
	script_of axbench-array.sbatch >"$T/a.sh"
	# The array task itself, run as Slurm would run task 0 on host h.
	HOSTNAME=h SLURM_ARRAY_TASK_ID=0 run bash "$T/a.sh"
	assert_success
	[ -s "$dir/db/h-0.db" ]
	[ ! -e "$T/pwned" ]
	[ ! -e "$T/pwned2" ]
	[ "$(sqlite3 "$dir/db/h-0.db" 'select count(*) from run')" = 1 ]
}

@test "a control character in a path is refused before anything is written (exit 2)" {
	run "$AX" fleet slurm --nodes 1 --profile quick \
		--dir "$T/a"$'\n'"b" --gpus no
	assert_failure 2
	assert_output --partial "holds a control character"
	assert_output --partial "choose a path without one"
	[ ! -e "$T/a" ]
	[ ! -e "$T/a"$'\n'"b" ]
	run "$AX" fleet slurm --nodes 1 --profile quick --dir "$T/d" \
		--partition 'a b' --dry-run
	assert_failure 2
	assert_output --partial "is not a Slurm partition name"
}

@test "missing options, an unknown profile and an unknown subcommand are usage errors" {
	run "$AX" fleet slurm --profile quick --dir "$T/d"
	assert_failure 2
	assert_output --partial "--nodes N is required"
	run "$AX" fleet slurm --nodes 1 --profile nosuch --dir "$T/d"
	assert_failure 2
	assert_output --partial "no profile 'nosuch'"
	run "$AX" fleet slurm --nodes 1 --profile "$T/none.yaml" --dir "$T/d"
	assert_failure 2
	assert_output --partial "cannot read the profile file"
	run "$AX" fleet slurm --nodes 0 --profile quick --dir "$T/d"
	assert_failure 2
	run "$AX" fleet squeue
	assert_failure 2
	assert_output --partial "no subcommand 'squeue'; it is slurm or cpuset"
	run "$AX" fleet cpuset --nodes 2
	assert_failure 2
}

@test "sbatch missing from PATH: exit 2 naming it, the fix and --dry-run" {
	mkdir "$T/empty"
	PATH="$T/empty" run "$AX" fleet slurm --nodes 2 --profile "$TINY" \
		--dir "$T/fleet"
	assert_failure 2
	assert_output --partial "sbatch is not in PATH ($T/empty)"
	assert_output --partial "install Slurm's client (Debian: slurm-client)"
	assert_output --partial "--dry-run prints them"
	# the scripts are left for a submission by hand
	[ -s "$T/fleet/axbench-array.sbatch" ]
	[ -s "$T/fleet/axbench-merge.sbatch" ]
}

@test "fleet cpuset: nothing to bind to on lavapipe, and why" {
	run --separate-stderr "$AX" fleet cpuset
	assert_success
	[ -z "$output" ]
	[[ "$stderr" == *"not bound: "*"no PCI bus id"* ]]
	run --separate-stderr "$AX" fleet cpuset --json
	assert_success
	run python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["cpuset"] is None, d; assert "no PCI bus id" in d["reason"], d; print("ok")' <<<"$output"
	assert_output "ok"
}

@test "configs/slurm holds what fleet slurm writes for its documented example" {
	run "$AX" fleet slurm --nodes 4 --profile quick \
		--dir /shared/axbench-fleet --axbench "$PWD/axbench" \
		--gpus yes --time 60 --dry-run
	assert_success
	script_of axbench-array.sbatch |
		sed "s#^AX='$PWD/axbench'#AX='/opt/axbench/bin/axbench'#" |
		diff - configs/slurm/axbench-array.sbatch
	script_of axbench-merge.sbatch |
		sed "s#^AX='$PWD/axbench'#AX='/opt/axbench/bin/axbench'#" |
		diff - configs/slurm/axbench-merge.sbatch
}

@test "sbatch's refusal is shown with its message (exit 2)" {
	need_cluster
	run "$AX" fleet slurm --nodes 1 --profile "$TINY" --dir "$T/fleet" \
		--partition nosuch
	assert_failure 2
	assert_output --partial "sbatch refused"
	assert_output --partial "invalid partition"
	# sbatch's lines joined, never an escaped line break
	refute_output --partial '\x0a'
	[ "${#lines[@]}" -eq 1 ]
}

@test "a real one-node cluster: 3 tasks, 3 databases, merged once each, one report" {
	need_cluster
	dir="$T/fleet run's dir"
	run "$AX" fleet slurm --nodes 3 --profile "$TINY" --dir "$dir"
	assert_success
	array=$(sed -n 's/^array job \([0-9]*\):.*/\1/p' <<<"$output")
	merge=$(sed -n 's/^merge job \([0-9]*\):.*/\1/p' <<<"$output")
	[ -n "$array" ]
	[ -n "$merge" ]
	assert_output --partial "merged database: $dir/merged.db"
	assert_output --partial "report: $dir/report.html"
	if ! wait_job "$merge"; then
		tail -n 20 "$dir"/log/* "$SLURM_DIR"/slurmctld.log >&2
		return 1
	fi
	host=$(hostname -s)
	sum=0
	for i in 0 1 2; do
		db="$dir/db/$host-$i.db"
		[ -s "$db" ]
		[ "$(sqlite3 "$db" 'select count(*) from run')" = 1 ]
		n=$(sqlite3 "$db" 'select count(*) from result')
		[ "$n" -gt 0 ]
		sum=$((sum + n))
	done
	# Each task's run exactly once, with all of its results.
	[ "$(sqlite3 "$dir/merged.db" 'select count(*) from run')" = 3 ]
	[ "$(sqlite3 "$dir/merged.db" 'select count(distinct uuid) from run')" = 3 ]
	[ "$(sqlite3 "$dir/merged.db" 'select count(*) from result')" = "$sum" ]
	grep -q "report of $sum results in 3 runs" "$dir"/log/axbench-merge-*.out
	grep -q "in 3 runs" "$dir/report.html"
	# The array's tasks all completed; the merge ran after them.
	for i in 0 1 2; do
		[ "$(job_state "${array}_$i")" = COMPLETED ]
	done
}
