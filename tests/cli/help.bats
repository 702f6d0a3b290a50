#!/usr/bin/env bats
# Every command answers --help, help CMD, and the global options.
load helper

setup() { ax_setup; }

@test "axbench --help lists the commands and exit codes" {
	run "$AX" --help
	assert_success
	assert_output --partial "Commands:"
	assert_output --partial "run"
	assert_output --partial "Exit codes:"
	assert_output --partial "130"
}

@test "axbench --version prints a version" {
	run "$AX" --version
	assert_success
	assert_output --regexp '^axbench [0-9]+\.[0-9]+\.[0-9]+ '
}

@test "every command answers CMD --help and help CMD identically" {
	cmds=$("$AX" --help | awk '/^Commands:/{f=1;next} /^$/{f=0} f{print $1}' | grep -v '^help$')
	[ -n "$cmds" ]
	for c in $cmds; do
		run "$AX" "$c" --help
		assert_success
		assert_output --partial "usage: axbench $c"
		a=$output
		run "$AX" help "$c"
		assert_success
		[[ "$output" == "$a"* ]]
	done
}

@test "no command is a usage error (exit 2)" {
	run "$AX"
	assert_failure 2
	run "$AX" frobnicate
	assert_failure 2
	assert_output --partial "no command 'frobnicate'"
}

@test "an unknown option names itself (exit 2)" {
	run "$AX" run --bogus
	assert_failure 2
	assert_output --partial "unknown option '--bogus'"
}
