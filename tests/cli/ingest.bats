#!/usr/bin/env bats
# axbench run ingest: a file read in chunks, uploaded and checksummed on
# the device.  Every result is verified against the CPU's sums, a
# corrupted chunk fails, a generated file never outlives the run, and bad
# files are refused before anything is measured.
load helper

setup() {
	ax_setup
	WORK="$BATS_TEST_TMPDIR/work"
	mkdir -p "$WORK"
}

# Small: 1 MiB in 256 KiB chunks.
SMALL=(-p size=1M -p chunk=256K)

extra() {
	sql "select json_extract(extra_json, '\$.$1') from result where suite='ingest' order by id desc limit 1"
}

@test "ingest stores a verified rate with its stages, bound and raw-read limit" {
	run "$AX" --db "$DB" --workdir "$WORK" run ingest "${SMALL[@]}" \
		-p compute=none,checksum -p io=pread,mmap "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where suite='ingest' and status='ok' and median > 0")" -eq 4 ]
	# every result splits its time into stages and names the bound one
	run sql "select count(*) from result where suite='ingest' and json_extract(extra_json,'\$.stages.read_s') > 0 and json_extract(extra_json,'\$.stages.upload_s') > 0 and json_extract(extra_json,'\$.stages.wall_s') > 0 and json_extract(extra_json,'\$.bound') in ('read','upload','compute') and json_extract(extra_json,'\$.raw_read_gbps') > 0"
	assert_output 4
	# the checksum kernel's time shows where it runs, and only there
	run sql "select count(*) from result where json_extract(params_json,'\$.compute')='checksum' and json_extract(extra_json,'\$.stages.compute_s') > 0"
	assert_output 2
	run sql "select distinct work from result"
	assert_output 1048576.0
	run sql "select distinct timing_mode from result"
	assert_output host
}

@test "a corrupted chunk fails verification and reports no figure" {
	AXBENCH_INGEST_CORRUPT=1 run "$AX" --db "$DB" --workdir "$WORK" \
		run ingest "${SMALL[@]}" "${FAST[@]}"
	assert_failure 1
	assert_output --partial "failed-verification"
	assert_output --partial "chunk 0"
	assert_output --partial "test-only"
	run sql "select status, n from result where suite='ingest'"
	assert_output "failed-verification|0"
	# without the hook the same point passes
	run "$AX" --db "$DB" --workdir "$WORK" run ingest "${SMALL[@]}" "${FAST[@]}"
	assert_success
}

@test "a generated file is gone after the run, and while it runs" {
	run "$AX" --db "$DB" --workdir "$WORK" run ingest "${SMALL[@]}" \
		-p readers=1,2 "${FAST[@]}"
	assert_success
	run ls -A "$WORK"
	assert_output ""
	# the result names the file it read and says it was generated
	run extra generated
	assert_output --partial "unlinked"
}

@test "Ctrl-C keeps the results so far and leaves no generated file" {
	"$AX" --db "$DB" --workdir "$WORK" run ingest -p size=4M \
		-p chunk=64K,128K,256K,512K,1M -p readers=1,2,3,4 \
		--min-samples 5 --max-samples 50 --min-time 0.5 --max-time 1 \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_results "$DB" 1
	# mid-run the data file already has no name in the directory
	run ls -A "$WORK"
	assert_output ""
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	run ls -A "$WORK"
	assert_output ""
	[ "$(sql "select count(*) from result where status='ok'")" -ge 1 ]
}

@test "a file smaller than one chunk is read as one short chunk" {
	head -c 10007 /dev/urandom >"$WORK/small.bin"
	run "$AX" --db "$DB" run ingest -p file="$WORK/small.bin" \
		-p size=10007 -p chunk=64K -p io=pread,mmap "${FAST[@]}"
	assert_success
	[ "$(sql "select count(*) from result where status='ok'")" -eq 2 ]
	run extra chunks_per_rep
	assert_output 1
	run extra file
	assert_output "$WORK/small.bin"
}

@test "a user's file is read from its start: size bytes of it" {
	head -c 3000000 /dev/urandom >"$WORK/data.bin"
	run "$AX" --db "$DB" run ingest -p file="$WORK/data.bin" \
		-p size=2M -p chunk=512K "${FAST[@]}"
	assert_success
	run sql "select status, work, json_extract(extra_json,'\$.chunks_per_rep') from result"
	assert_output "ok|2097152.0|4"
	# the file is the user's: it stays
	[ -s "$WORK/data.bin" ]
}

@test "a missing file, a directory or a short file: exit 2 naming the path" {
	run "$AX" --db "$DB" run ingest -p file="$WORK/nope.bin" "${FAST[@]}"
	assert_failure 2
	assert_output --partial "$WORK/nope.bin"
	assert_output --partial "No such file"
	run "$AX" --db "$DB" run ingest -p file="$WORK" "${FAST[@]}"
	assert_failure 2
	assert_output --partial "not a regular file"
	head -c 1000 /dev/urandom >"$WORK/short.bin"
	run "$AX" --db "$DB" run ingest -p file="$WORK/short.bin" -p size=4K \
		"${FAST[@]}"
	assert_failure 2
	assert_output --partial "has 1000 bytes, fewer than size=4096"
	assert_output --partial "size=1000"
	# nothing was measured or stored
	[ "$(n_results "$DB")" -eq 0 ]
}

@test "a workdir that does not exist: exit 2 naming it" {
	run "$AX" --db "$DB" --workdir "$WORK/missing" run ingest "${SMALL[@]}" \
		"${FAST[@]}"
	assert_failure 2
	assert_output --partial "$WORK/missing"
	assert_output --partial "--workdir"
	[ "$(n_results "$DB")" -eq 0 ]
}

@test "the workdir defaults to the database's directory" {
	mkdir -p "$WORK/dbdir"
	run "$AX" --db "$WORK/dbdir/ax.db" run ingest "${SMALL[@]}" "${FAST[@]}"
	assert_success
	DB="$WORK/dbdir/ax.db"
	run extra file
	assert_output --regexp "^$WORK/dbdir/axbench-ingest-"
	run ls -A "$WORK/dbdir"
	assert_output "ax.db"
}

# Run axbench with --workdir on a filesystem that refuses O_DIRECT and
# keeps its files in memory: a ramfs in a private mount namespace, else
# /dev/shm where its tmpfs refuses O_DIRECT (before Linux 6.6); skips
# where neither can be had.
in_ramfs() {
	mkdir -p "$WORK/ram"
	if unshare --user --map-root-user --mount \
		bash -c 'mount -t ramfs ramfs "$1"' _ "$WORK/ram" 2>/dev/null; then
		run unshare --user --map-root-user --mount bash -c \
			'mount -t ramfs ramfs "$1" && shift && exec "$@"' _ \
			"$WORK/ram" "$AX" --db "$DB" --workdir "$WORK/ram" "$@"
		return
	fi
	[ -d /dev/shm ] && [ -w /dev/shm ] ||
		skip "no ramfs (no user namespaces) and no /dev/shm"
	shm=$(mktemp -d /dev/shm/axbench-bats-XXXXXX)
	if dd if=/dev/zero of="$shm/probe" bs=4096 count=1 oflag=direct \
		2>/dev/null; then
		rm -rf "$shm"
		skip "no ramfs (no user namespaces), and /dev/shm takes O_DIRECT"
	fi
	rm -f "$shm/probe"
	run "$AX" --db "$DB" --workdir "$shm" "$@"
	rm -rf "$shm"
}

@test "io=direct is skipped with the reason where the filesystem refuses O_DIRECT" {
	in_ramfs run ingest "${SMALL[@]}" -p io=direct,pread "${FAST[@]}"
	assert_success
	run sql "select json_extract(params_json,'\$.io'), status from result order by 1"
	assert_line --index 0 "direct|skipped"
	assert_line --index 1 "pread|ok"
	run sql "select error_text from result where status='skipped'"
	assert_output --regexp "(ramfs|tmpfs) filesystem"
	assert_output --partial "refuses O_DIRECT"
	assert_output --partial "use io=pread"
}

@test "io=direct runs where the filesystem takes O_DIRECT" {
	dd if=/dev/zero of="$WORK/probe" bs=4096 count=1 oflag=direct \
		2>/dev/null || skip "$WORK refuses O_DIRECT"
	rm -f "$WORK/probe"
	run "$AX" --db "$DB" --workdir "$WORK" run ingest "${SMALL[@]}" \
		-p io=direct "${FAST[@]}"
	assert_success
	run sql "select status, json_extract(extra_json,'\$.direct_bounce') is not null from result"
	assert_output "ok|1"
}

@test "cache=cold is skipped where the pages cannot be dropped" {
	in_ramfs run ingest "${SMALL[@]}" -p cache=cold "${FAST[@]}"
	assert_success
	run sql "select status from result"
	assert_output skipped
	run sql "select error_text from result"
	assert_output --partial "stayed in memory"
	assert_output --partial "--workdir"
}

@test "cache=cold reads from storage: the pages are dropped before each repetition" {
	fs=$(stat -f -c %T "$WORK")
	case "$fs" in
	tmpfs | ramfs | overlayfs) skip "$WORK is on $fs" ;;
	esac
	run "$AX" --db "$DB" --workdir "$WORK" run ingest "${SMALL[@]}" \
		-p cache=cold "${FAST[@]}"
	assert_success
	run sql "select status, json_extract(extra_json,'\$.resident_after_drop') <= 0.1 from result"
	assert_output "ok|1"
}

@test "suites ingest documents the text parameter and the rules" {
	run "$AX" suites ingest
	assert_success
	assert_line --regexp '^  file +text +shape +auto'
	assert_output --partial "must take O_DIRECT"
	run "$AX" --json suites ingest
	assert_success
	assert_output --partial '"roles": ['
	assert_output --partial '"ingest"'
}
