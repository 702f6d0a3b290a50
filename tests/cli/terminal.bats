#!/usr/bin/env bats
# The live progress lines in a real terminal (issue 41, item 1): tmux
# with an 80-column window runs tune and run, and keeps what axbench
# wrote to the terminal (pipe-pane) beside what the screen shows at the
# end.  A line rewritten in place with "\r\e[K" must fit the width, or
# the terminal wraps it and the clear leaves its earlier rows behind.
load helper

setup() {
	ax_setup
	command -v tmux >/dev/null || skip "no tmux (scripts/deps.sh --test installs it)"
	T="$BATS_TEST_TMPDIR"
	SOCK="$T/tmux.sock"
}

teardown() {
	[ -z "${SOCK:-}" ] || tmux -S "$SOCK" kill-server 2>/dev/null || true
}

# in_terminal COLS CMD...: run CMD in a COLS-column tmux window with this
# test's environment; $T/raw gets every byte written to the terminal and
# $T/screen the screen and its history at the end, wrapped rows joined.
in_terminal() {
	local cols=$1
	shift
	local cmd
	printf -v cmd '%q ' env HOME="$HOME" XDG_CACHE_HOME="$XDG_CACHE_HOME" \
		AXBENCH_VALIDATE=1 MESA_SHADER_CACHE_DIR="$MESA_SHADER_CACHE_DIR" \
		TERM=xterm "$@"
	tmux -S "$SOCK" -f /dev/null new-session -d -x "$cols" -y 40 \
		"sleep 0.5; $cmd; echo \"exit=\$?\"; sleep 600"
	tmux -S "$SOCK" set-option -g history-limit 5000 >/dev/null
	tmux -S "$SOCK" pipe-pane -o "cat >>'$T/raw'"
	for _ in $(seq 1 600); do
		tmux -S "$SOCK" capture-pane -p -J -S - >"$T/screen"
		grep -q '^exit=' "$T/screen" && break
		sleep 0.2
	done
	grep -q '^exit=0$' "$T/screen"
}

# Each in-place update of the raw stream (the text after "\r\e[K" up to
# the next \r or \n) that contains MARK is at most COLS - 1 characters.
updates_fit() { # COLS MARK
	python3 - "$T/raw" "$1" "$2" <<-'EOF'
	import sys
	raw = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
	cols, mark = int(sys.argv[2]), sys.argv[3]
	parts = [p.split("\r")[0].split("\n")[0] for p in raw.split("\r\x1b[K")[1:]]
	ups = [p for p in parts if mark in p]
	assert ups, "no update with %r in %r" % (mark, raw[:400])
	long = [p for p in ups if len(p) > cols - 1]
	assert not long, long
	print(len(ups), "updates fit")
	EOF
}

@test "tune at 80 columns: each live line fits, and none is left on the screen" {
	in_terminal 80 "$AX" --db "$DB" tune bandwidth -p op=copy -p size=64K \
		--strategy random --seed 2 --budget 4 --retime 0
	run updates_fit 80 "(ETA "
	assert_success
	# The last update is cleared before the closing lines: nothing of
	# any progress line stays on the screen.
	run grep -c "(ETA \|| defaults" "$T/screen"
	assert_output 0
	grep -q "^axbench tune: " "$T/screen"
}

@test "run at 80 columns: each case's live line fits, and none is left on the screen" {
	in_terminal 80 "$AX" --db "$DB" run gemm -p m=64,96 -p n=64 -p k=64 \
		--max-time 0.5
	run updates_fit 80 "samples, median"
	assert_success
	run grep -c "samples, median" "$T/screen"
	assert_output 0
	# the table's case column shows what differs from gemm's defaults
	grep -Eq '^gemm +m=64 n=64 k=64 +[0-9.]+ GFLOP/s' "$T/screen"
}
