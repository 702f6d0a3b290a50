# Shared set-up for the bats files: run from the repository root, with a
# private HOME (pipeline cache) and database, and Vulkan validation on.
# bats-support and bats-assert: the files each one's load.bash sources,
# sourced here in its order without its `$(dirname ...)` per file (15
# forks in every test: 20 empty tests took 2.86 s with them, 1.50 s
# without).  A load.bash with any other line is loaded as it is.
for _ax_lib in /usr/lib/bats/bats-support /usr/lib/bats/bats-assert; do
	_ax_files=()
	while IFS= read -r _ax_line; do
		if [[ $_ax_line =~ ^source\ \"\$\(dirname\ \"\$\{BASH_SOURCE\[0\]\}\"\)/([^\"]+)\"$ ]]; then
			_ax_files+=("$_ax_lib/${BASH_REMATCH[1]}")
		elif [[ $_ax_line =~ ^[[:space:]]*(#|$) ]]; then
			continue
		else
			_ax_files=()
			break
		fi
	done <"$_ax_lib/load.bash"
	if [ ${#_ax_files[@]} -gt 0 ]; then
		for _ax_f in "${_ax_files[@]}"; do source "$_ax_f"; done
	else
		load "$_ax_lib/load.bash"
	fi
done
unset _ax_lib _ax_files _ax_line _ax_f

# Mesa's on-disk shader cache, shared by every test of the run: lavapipe
# compiles a pipeline with LLVM, which is most of a cold test's time (a
# gemm test's 12 cases: 14 s cold, 1.5 s warm), and the same shaders
# with the same constants recur across tests.  Mesa's cache is safe for
# concurrent processes (files written whole, then renamed).  Each test
# still creates every pipeline through the driver, and axbench's own
# pipeline cache stays private to each test (XDG_CACHE_HOME, below).
# tests/run.sh names one directory for the unit and bats tests alike.
export MESA_SHADER_CACHE_DIR="${AX_TEST_SHADER_CACHE:-$BATS_RUN_TMPDIR/mesa_shader_cache}"

# Debian's python3, the one scripts/deps.sh --test installs python3-yaml
# and python3-jsonschema for, first on PATH for the tests and what they
# run: a python3 shim earlier on PATH (pyenv's, say) is a chain of shell
# scripts that costs 0.6 s of CPU a call on a 2-core machine, against
# 0.04 s, and the suite calls python3 hundreds of times.
if [ -x /usr/bin/python3 ] && [ "$(type -P python3)" != /usr/bin/python3 ]; then
	[ -e "$BATS_RUN_TMPDIR/bin/python3" ] || {
		mkdir -p "$BATS_RUN_TMPDIR/bin"
		ln -sf /usr/bin/python3 "$BATS_RUN_TMPDIR/bin/python3"
	}
	case ":$PATH:" in
	*":$BATS_RUN_TMPDIR/bin:"*) ;;
	*) export PATH="$BATS_RUN_TMPDIR/bin:$PATH" ;;
	esac
fi

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

# Run axbench with arguments "$@" as the user nobody (uid 65534), with
# HOME=$NOBODY_HOME.  Only as root (callers check).  nobody runs a copy
# of $AX, with configs/ beside it as axbench finds them, in a directory
# of its own under /tmp, removed afterwards: the checkout itself may sit
# below a directory nobody cannot enter (a clone in a mode-0700 mktemp -d
# or in /root), where exec of $AX fails with EACCES.  What the sanitizer
# build preloads (LD_PRELOAD) and its LeakSanitizer suppressions are
# copied there too, for the same reason.  The working directory is /.
as_nobody() {
	local d f pre="" lsan=${LSAN_OPTIONS-} rc=0
	d=$(mktemp -d /tmp/axbench-nobody.XXXXXX) || return 1
	chmod 755 "$d"
	cp "$AX" "$d/axbench" &&
		cp -rL "$BATS_TEST_DIRNAME/../../configs" "$d/configs" ||
		{ rm -rf "$d"; return 1; }
	for f in ${LD_PRELOAD//:/ }; do
		cp "$f" "$d/" || { rm -rf "$d"; return 1; }
		pre="$pre${pre:+:}$d/${f##*/}"
	done
	if [[ $lsan =~ suppressions=([^:]*) ]]; then
		cp "${BASH_REMATCH[1]}" "$d/lsan.supp" || { rm -rf "$d"; return 1; }
		lsan=${lsan/${BASH_REMATCH[1]}/$d/lsan.supp}
	fi
	chmod -R a+rX "$d"
	(cd / && LD_PRELOAD=$pre LSAN_OPTIONS=$lsan \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="${NOBODY_HOME:-/nonexistent}" \
		XDG_CACHE_HOME="${NOBODY_HOME:-/nonexistent}/cache" \
		"$d/axbench" "$@") || rc=$?
	rm -rf "$d"
	return $rc
}
