#!/usr/bin/env bats
# axbench tune --prior: a new session learns from an earlier one (another
# device, another shape, an earlier driver), names the one it used and
# why, stores it, keeps it on --resume, and refuses a prior from another
# parameter space.
load helper

setup() { ax_setup; }

TINY=tests/fixtures/tuner/tiny.json
BW=(tune bandwidth -p op=copy --budget 6 --retime 0)

# A SQL expression of a trial's tunables ("vec,wg,epi"), the tunables
# being bandwidth's as `axbench suites bandwidth` lists them.
bw_point() {
	"$AX" suites bandwidth --json >"$BATS_TEST_TMPDIR/bw.json"
	sqlite3 :memory: "select group_concat('json_extract(params_json, ''\$.'
		|| json_extract(value, '\$.name') || ''')', ' || '','' || ')
		from json_each(readfile('$BATS_TEST_TMPDIR/bw.json'), '\$.params')
		where json_extract(value, '\$.kind') = 'tunable'"
}

# Session $1 was started with session $2 as its prior and measured that
# session's best points first: its first $3 trials (default 5: bo's
# initial design opens with up to 5 of them, tuner/bo.c), in order, are
# the prior's successful trials fastest first.  Compared on the tunables
# only: a prior of another shape has another shape.
assert_prior_opens() {
	local k=${3:-5} pt got best
	[ "$(sql "select prior_session_id from tune_session where id = $1")" = "$2" ]
	pt=$(bw_point)
	[[ "$pt" == *"'\$.wg')"* ]]
	got=$(sql "select $pt from trial where session_id = $1
		order by idx limit $k")
	best=$(sql "select $pt from trial where session_id = $2
		and status = 'ok' order by seconds limit $k")
	[ "$(echo "$best" | wc -l)" -eq "$k" ]
	assert_equal "$got" "$best"
}

# Sessions $1 and $2 measured the same points in the same order (both
# cold, with the same seed: bo's space-filling design alone), as far as
# the shorter goes.
assert_same_points() {
	local k
	k=$(sql "select min(n) from (select count(*) n from trial
		where session_id in ($1, $2) group by session_id)")
	[ "$k" -ge 3 ]
	assert_equal \
		"$(sql "select params_json from trial where session_id = $1 order by idx limit $k")" \
		"$(sql "select params_json from trial where session_id = $2 order by idx limit $k")"
}

# A landscape with other parameters than tiny.json's.
other_space() {
	python3 - "$1" <<'EOF'
import json, sys
cache = {}
for a in (1, 2, 4, 8):
    for b in (1, 2, 3):
        cache["%d,%d" % (a, b)] = {"wg": a, "unroll": b, "time": 1.0 + a * b}
json.dump({"tune_params_keys": ["wg", "unroll"],
           "tune_params": {"wg": [1, 2, 4, 8], "unroll": [1, 2, 3]},
           "cache": cache}, open(sys.argv[1], "w"))
EOF
}

@test "tune --replay --prior FILE: the prior is named with what of it was used" {
	run "$AX" tune --replay "$TINY" --prior "$TINY" --budget 40 --seed 2
	assert_success
	assert_output --partial "prior: $TINY (a bo session of 100 evaluations there): "
	assert_output --regexp "[0-9]+ successes used, 0 left out, [0-9]+ failed"
	run "$AX" --json tune --replay "$TINY" --prior "$TINY" --budget 40
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["prior"]
assert p["landscape"].endswith("tiny.json"), p
assert p["used"] >= 5 and p["left_out"] == 0, p
assert d["best_over_optimum"] == 1.0, d'
	run "$AX" --json tune --replay "$TINY" --budget 40
	assert_success
	echo "$output" | python3 -c '
import json, sys
assert json.load(sys.stdin)["prior"] is None'
}

@test "tune --replay --prior of another parameter space is refused, naming both sides" {
	other_space "$BATS_TEST_TMPDIR/other.json"
	run "$AX" tune --replay "$TINY" --prior "$BATS_TEST_TMPDIR/other.json"
	assert_failure 2
	assert_output --partial "only here: bx, ty, mode; only in the prior: wg, unroll"
	assert_output --partial "a prior must search the same parameter space"
	run "$AX" tune --replay "$TINY" --prior "$BATS_TEST_TMPDIR/missing.json"
	assert_failure 2
	assert_output --partial "missing.json: cannot open"
}

@test "live: a second session takes the first of the same shape as its prior, says so and stores it" {
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K
	assert_success
	assert_output --partial "tuning cold, with no prior: none: no earlier bandwidth session of this shape or device"
	assert_output --partial "prior:    none ("
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K
	assert_success
	assert_output --partial "axbench tune: prior: session 1 (the same shape on this device): 6 successful trials used"
	assert_output --partial "prior:    session 1 (the same shape on this device)"
	[ "$(sql 'select prior_session_id from tune_session where id = 2')" = 1 ]
	[ "$(sql 'select count(*) from tune_session where id = 1 and prior_session_id is null')" = 1 ]
	assert_prior_opens 2 1
	run "$AX" --db "$DB" --json "${BW[@]}" -p size=64K
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["prior"]
# The newest same-shape session is session 2.
assert p["session_id"] == 2 and p["used"] == 6, p
assert p["basis"] == "the same shape on this device", p'
	assert_prior_opens 3 2
}

@test "live: with no session of the same shape, another shape on this device is the prior" {
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K
	assert_success
	run "$AX" --db "$DB" "${BW[@]}" -p size=128K
	assert_success
	assert_output --partial "prior: session 1 (another shape on this device)"
	assert_prior_opens 2 1
}

@test "live: --prior none tunes cold, and a session with too few successes is no prior" {
	run "$AX" --db "$DB" tune bandwidth -p op=copy -p size=64K --budget 3 --retime 0
	assert_success
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K
	assert_success
	assert_output --partial "no earlier bandwidth session of this shape or device (1 looked at) has 5 successful trials in this space"
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K --prior none
	assert_success
	assert_output --partial "tuning cold, with no prior: none: --prior none"
	[ "$(sql 'select count(*) from tune_session where prior_session_id is not null')" = 0 ]
	# Cold all three: the same seed's design, not session 2's best
	# points (which auto would have taken).
	assert_same_points 1 2
	assert_same_points 2 3
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K --prior 1
	assert_failure 2
	assert_output --partial "--prior 1: only 3 of the prior's evaluations are successes"
	[ "$(sql 'select count(*) from tune_session')" = 3 ]
	# Named, a session with enough successes is the prior.
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K --prior 2
	assert_success
	assert_output --partial "prior: session 2 (--prior SESSION): 6 successful trials used"
	assert_prior_opens 4 2
}

@test "live: a --prior that cannot be a prior is a usage error before anything is measured" {
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K
	assert_success
	run "$AX" --db "$DB" tune reduce --prior 1 --budget 6
	assert_failure 2
	assert_output --partial "--prior 1: that session tuned bandwidth, not reduce; a prior must tune the same suite"
	run "$AX" --db "$DB" "${BW[@]}" --prior 99
	assert_failure 2
	assert_output --partial "--prior 99: no such tuning session in $DB"
	run "$AX" --db "$DB" "${BW[@]}" --prior soon
	assert_failure 2
	assert_output --partial "--prior: expected auto, none or a tuning session id (got 'soon')"
	run "$AX" --db "$DB" "${BW[@]}" --strategy random --prior 1
	assert_failure 2
	assert_output --partial "only --strategy bo has a model to take a prior"
	[ "$(sql 'select count(*) from tune_session')" = 1 ]
	run "$AX" --db "$DB" "${BW[@]}" --strategy random
	assert_success
	assert_output --partial "tuning cold, with no prior: none: strategy random has no model to take one"
	[ "$(sql 'select count(*) from tune_session where id = 2 and prior_session_id is null')" = 1 ]
	# The refusals left session 1 a good prior: named, it is taken.
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K --prior 1
	assert_success
	assert_prior_opens 3 1
}

@test "live: --resume keeps the session's prior, and another --prior with it is refused" {
	run "$AX" --db "$DB" "${BW[@]}" -p size=64K
	assert_success
	run "$AX" --db "$DB" tune bandwidth -p op=copy -p size=64K --budget 3 --retime 0
	assert_success
	assert_prior_opens 2 1 3
	run "$AX" --db "$DB" tune --resume 2 --budget 5 --retime 0
	assert_success
	assert_output --partial "prior: session 1 (the session's own prior, kept on resume)"
	# Resumed, it goes on with the prior's fourth and fifth best.
	[ "$(sql 'select count(*) from trial where session_id = 2')" = 5 ]
	assert_prior_opens 2 1 5
	run "$AX" --db "$DB" tune --resume 2 --prior none
	assert_failure 2
	assert_output --partial "--prior: session 2 keeps the prior it was started with (session 1)"
	run "$AX" --db "$DB" tune --resume 1 --prior 2
	assert_failure 2
	assert_output --partial "session 1 keeps the prior it was started with (none: it tuned cold)"
	run "$AX" --db "$DB" tune --resume 1 --prior none --budget 7 --retime 0
	assert_success
}
