# Shared set-up for the bats files: run from the repository root, with a
# private HOME (pipeline cache) and database, and Vulkan validation on.
load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

ax_setup() {
	cd "$BATS_TEST_DIRNAME/../.." || return 1
	export HOME="$BATS_TEST_TMPDIR"
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
	export AXBENCH_VALIDATE=1
	unset AXBENCH_DB
	DB="$BATS_TEST_TMPDIR/ax.db"
	AX="$PWD/axbench"
}

# Fast measurement settings for functional tests (figures are not checked).
FAST=(--min-samples 3 --max-samples 5 --min-time 0 --max-time 0.5 --warmup 1)

sql() { sqlite3 "$DB" "$@"; }

# Rows of table $2 committed in database $1; 0 while the file or its
# schema does not exist yet.
n_rows() {
	[ -s "$1" ] || { echo 0; return; }
	sqlite3 -readonly "$1" "select count(*) from $2" 2>/dev/null || echo 0
}

# Wait until database $1 holds at least $3 rows of table $2.  Polls, never
# a fixed sleep; gives up (and fails, saying so) only after 300 s, far
# beyond any load, so a slow machine is never mistaken for a bug.
wait_rows() {
	for _ in $(seq 1500); do
		[ "$(n_rows "$1" "$2")" -ge "$3" ] && return 0
		sleep 0.2
	done
	echo "timed out waiting for $3 rows of $2 in $1" >&2
	return 1
}
wait_results() { wait_rows "$1" result "$2"; }
n_results() { n_rows "$1" result; }
wait_trials() { wait_rows "$DB" trial "$1"; }

# Run $1 with bash as root of a private user and mount namespace, where a
# tmpfs can be mounted (and remounted read-only, or filled) for real;
# need_mount skips the test where that is not possible.
in_ns() {
	unshare --user --map-root-user --mount bash -c "$1" ||
		return $?
}

need_mount() {
	unshare --user --map-root-user --mount \
		bash -c 'mount -t tmpfs -o size=64k tmpfs "$1"' _ \
		"$BATS_TEST_TMPDIR" 2>/dev/null ||
		skip "cannot mount a tmpfs here (no user namespaces)"
}

# The fixture RAPL sensor (tests/fixtures/rapl.sh) under
# $BATS_TEST_TMPDIR/root, named by AXBENCH_SYSFS_ROOT; stopped by teardown.
source "$BATS_TEST_DIRNAME/../fixtures/rapl.sh"
rapl_fixture() {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/root"
	rapl_start "$AXBENCH_SYSFS_ROOT"
}

# Stop rapl_fixture's writer (call from teardown).
stop_rapl_fixture() { rapl_stop; }
