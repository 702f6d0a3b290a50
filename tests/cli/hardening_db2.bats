#!/usr/bin/env bats
# Hardening round two for databases, profiles and specs (issue 34, items
# 3, 4, 7, 8, 10, 11).  Real SQLite files made with axbench and the
# sqlite3 shell, real processes and signals; no fakes.

load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	T="$BATS_TEST_TMPDIR"
}

# A small real database: one verified result.
one_result() {
	"$AX" --db "${1:-$DB}" run bandwidth -p op=read -p size=4K \
		"${FAST[@]}" >/dev/null 2>&1
}

# $2 host rows whose UUID is 32 characters (a UUID without its dashes)
# added to database $1 behind axbench's back.
bad_uuid_hosts() {
	sqlite3 "$1" "with recursive n(i) as (select 1 union all
		select i + 1 from n where i < $2)
		insert into host (uuid, fingerprint, created_at)
		select lower(hex(randomblob(16))), 'fp-' || i, 'now' from n"
}

@test "db check counts every problem and lists the first 5 of each check" {
	one_result
	bad_uuid_hosts "$DB" 300
	run -5 "$AX" --db "$DB" db check
	assert_output --partial "every row's UUID is 36 characters: first 5 of 300 listed"
	assert_output --partial ": 10 checks, 300 problems"
	assert_output --partial "fails 1 check (300 problems)"
	[ "$(grep -c '^problem: ' <<<"$output")" = 5 ]
	run -5 --separate-stderr "$AX" --db "$DB" --json db check
	python3 docs/json/check.py db_check <<<"$output"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["problem_count"] == 300, d["problem_count"]
assert len(d["problems"]) == 5, d["problems"]
c = {x["check"]: x for x in d["counts"]}
u = c["every row'"'"'s UUID is 36 characters"]
assert u["found"] == 300 and u["listed"] == 5, u
assert sum(x["found"] for x in d["counts"]) == 300, d["counts"]
assert [x["check"] for x in d["counts"]] == d["checks"], d' "$output"
}
