#!/usr/bin/env bats
# tests/run.sh itself, on bats files of its own: AX_TEST_RETRY gives a
# second run only to a failure whose output it names (the ASan tracer's
# crash); a test's own failure stands, whatever a second run would say.
load helper

setup() {
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/unit" "$T/bats"
	# "@" kept out of the text: bats takes any line that starts with it
	# for a test of this file, even inside a here-document.
	AT=@
	# Each fails on its first run only (a count kept in a file): once
	# with the message the retry names, once with a plain assertion.
	cat >"$T/bats/tracer.bats" <<EOF2
${AT}test "tracer: fails once as the tracer does" {
	n=\$(cat "$T/tracer.n" 2>/dev/null || echo 0)
	echo \$((n + 1)) >"$T/tracer.n"
	if [ "\$n" = 0 ]; then echo "Tracer caught signal 11"; false; fi
}
EOF2
	cat >"$T/bats/own.bats" <<EOF2
${AT}test "own: fails once on its own" {
	n=\$(cat "$T/own.n" 2>/dev/null || echo 0)
	echo \$((n + 1)) >"$T/own.n"
	[ "\$n" != 0 ]
}
EOF2
}

@test "run.sh: only the failure AX_TEST_RETRY names is run again" {
	cd "$BATS_TEST_DIRNAME/../.."
	# A clean environment: the bats running this file must not leak its
	# own state (its variables, its libexec directory first on PATH) into
	# the bats processes run.sh starts.
	run env -i PATH=/usr/bin:/bin HOME="$HOME" AX_TEST_UNIT="$T/unit" \
		AX_TEST_BATS="$T/bats" \
		AX_TEST_RETRY='Tracer caught signal' AX_PHASE_LOG="$T/phases" \
		tests/run.sh
	assert_failure 1
	assert_output --partial "'tracer: fails once as the tracer does': Tracer caught signal; once more"
	refute_output --partial "'own: fails once on its own'"
	assert_output --partial "1 passed, 1 failed"
	# The plain failure ran once: no second run hid it.
	[ "$(cat "$T/own.n")" = 1 ]
	[ "$(cat "$T/tracer.n")" = 2 ]
}
