#!/usr/bin/env bats
# Run profiles: every shipped profile validates, and malformed ones fail
# with FILE:LINE:COL and exit 2 before anything runs.
load helper

setup() { ax_setup; }

@test "every shipped profile passes run --config FILE --dry-run" {
	# configs/ also holds data files (defaults.yaml, specs.yaml): the
	# profiles are the files of that schema.
	for f in $(grep -l '^schema: axbench.profile/v1' configs/*.yaml); do
		run "$AX" --db "$DB" run --config "$f" --dry-run
		assert_success
		assert_output --regexp '[0-9]+ cases'
	done
	[ ! -e "$DB" ] || [ "$(sql 'select count(*) from result')" = 0 ]
}

# The fixture's first line is "# expect: LINE:COL message"; the message
# part may name the synthetic unit-test schema, so only the position and
# the kind of error are checked here.
expect_position() {
	local f="tests/fixtures/config/$1" what="$2"
	local pos
	pos=$(sed -n '1s/^# expect: \([0-9]*:[0-9]*\).*/\1/p' "$f")
	run "$AX" --db "$DB" run --config "$f" --dry-run
	assert_failure 2
	assert_output --partial "$f:$pos: $what"
}

@test "syntax error: line and column, exit 2" {
	expect_position syntax.yaml "YAML syntax error"
}

@test "unknown key: line and column, allowed keys listed" {
	expect_position unknown_key.yaml "unknown key 'warmpu' in measure (did you mean 'warmup'?); allowed keys: min_samples"
}

@test "wrong type: line and column" {
	expect_position wrong_type.yaml "measure.max_samples must be an integer"
}

@test "unknown suite: line and column, known suites listed" {
	expect_position unknown_suite.yaml "unknown suite 'gemmm'; known suites: "
	assert_output --partial "bandwidth"
}

@test "unknown parameter: line and column, known parameters listed" {
	expect_position unknown_param.yaml "unknown parameter 'tile' for suite bandwidth; known parameters: op, size"
}

@test "out of range: line and column of the value" {
	printf 'schema: axbench.profile/v1\nsuites:\n  transfer:\n    params: {inflight: 9}\n' \
		>"$BATS_TEST_TMPDIR/range.yaml"
	run "$AX" --db "$DB" run --config "$BATS_TEST_TMPDIR/range.yaml" --dry-run
	assert_failure 2
	assert_output --partial "range.yaml:4:24: suite transfer: inflight must be an integer from 1 to 4 (got 9)"
	expect_position bad_list.yaml "suite bandwidth: size must be a power of two"
}

@test "billion laughs: aliases refused at the first alias" {
	expect_position billion_laughs.yaml "YAML alias *a is not allowed"
}

@test "duplicate keys and a missing schema are refused" {
	expect_position duplicate_key.yaml "duplicate key 'bandwidth' in suites (first at line 4)"
	expect_position missing_schema.yaml "the profile has no 'schema' key"
}

@test "a missing profile file is an error naming the file" {
	run "$AX" --db "$DB" run --config "$BATS_TEST_TMPDIR/nope.yaml" --dry-run
	assert_failure
	assert_output --partial "nope.yaml"
}
