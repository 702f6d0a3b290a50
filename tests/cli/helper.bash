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
