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

@test "values from a table: help lists them and others are refused by name" {
	run "$AX" help tune
	assert_output --partial "one of bo, random, grid or anneal"
	run "$AX" tune bandwidth --strategy nope
	assert_failure 2
	assert_output --partial "--strategy must be bo, random, grid or anneal (got 'nope')"
	run "$AX" help recommend
	assert_output --partial "one of yaml, json, env, numactl, slurm or torch"
	run "$AX" export --format=xml
	assert_failure 2
	assert_output --partial "--format must be yaml or json (got 'xml')"
}

@test "too many or too few arguments name the count and show the usage" {
	run "$AX" results extra
	assert_failure 2
	assert_output --partial "axbench results: takes no arguments (got 1); usage: axbench results"
	run "$AX" compare 1
	assert_failure 2
	assert_output --partial "takes 2 arguments (got 1)"
	run "$AX" suites a b
	assert_failure 2
	assert_output --partial "takes at most 1 argument (got 2)"
}

@test "global options before the command, with their values inline or not" {
	run "$AX" --db="$DB" -q --device 0 suites
	assert_success
	run "$AX" --db "$DB" -d0 --json suites gemm
	assert_success
	assert_output --partial '"name": "gemm"'
	run "$AX" --nope suites
	assert_failure 2
	assert_output --partial "unknown option '--nope'"
}

@test "a subcommand's page is its own: kernel run --help, help db merge; the global options once, under help" {
	run "$AX" kernel run --help
	assert_success
	assert_line --index 0 "usage: axbench kernel run FILE.yaml [any option of \`axbench run\`]"
	run "$AX" kernel tune -h
	assert_line --index 0 --partial "usage: axbench kernel tune FILE.yaml"
	run "$AX" kernel export --help
	assert_line --index 0 --partial "usage: axbench kernel export FILE.yaml"
	run "$AX" help db merge
	assert_success
	assert_line --index 0 --partial "usage: axbench db merge "
	run "$AX" help db merg
	assert_failure 2
	assert_output --partial "db has no subcommand 'merg'; did you mean 'merge'?"
	# a command's page points to the global options instead of listing them
	run "$AX" help results
	refute_output --partial "Global options:"
	refute_output --partial "Exit codes:"
	assert_output --partial "Global options and exit codes: \`axbench help\` (--db, --device,"
	run "$AX" help
	assert_output --partial "Global options:"
	assert_output --partial "--workdir DIR"
}
