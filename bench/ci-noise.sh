#!/bin/bash
# bench/ci-noise.sh - does the CI regression check survive the noise
# between processes, and does it still see a real 10 % slowdown?
#
# Two ways of making the check, each measured the same way:
#   single:  the old recipe - a baseline of one run, one candidate run;
#   rounds:  the recommended recipe (docs/ci/axbench-ci.sh) - a baseline
#            of RUNS separate runs (baseline save --last RUNS), each run
#            and each candidate with --rounds ROUNDS.
# For each way, N candidate runs back to back on this machine, each:
#   as measured:       compared with the baseline; the share of cases
#                      called "same" or "noisy" (goal >= 95 %);
#   made 10 % slower:  a copy of the database whose candidate samples are
#                      10 % worse (GB/s x 0.9, times / 0.9); the share
#                      called "slower" (goal >= 90 %).
# Environment: N (default 10), RUNS (3), ROUNDS (3), PROFILE (ci),
# AXBENCH (binary, default ./axbench), WAYS ("single rounds").  Uses a
# temporary database, never ./axbench.db.  Machine-readable lines start
# "bench_".  Run it on a quiet machine: it measures that machine's noise.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/goal.sh # bench_goal: the lines make bench gathers
AX=${AXBENCH:-./axbench}
N=${N:-10}
RUNS=${RUNS:-3}
ROUNDS=${ROUNDS:-3}
PROFILE=${PROFILE:-ci}
WAYS=${WAYS:-single rounds}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset AXBENCH_VALIDATE AXBENCH_DB
[ -x "$AX" ] || {
	echo "ci-noise: $AX is missing; run make" >&2
	exit 2
}

# run_ci DB ROUNDS: one run of the profile, quietly.
run_ci() {
	"$AX" --db "$1" -q run --profile "$PROFILE" --rounds "$2" >/dev/null ||
		echo "ci-noise: a run exited $? (counted as it compares)" >&2
}

# verdicts DB CAND: "same noisy ambiguous slower faster other" of
# compare baseline:b CAND.
verdicts() {
	"$AX" --db "$1" compare baseline:b "$2" --json - 2>/dev/null |
		python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
other = s["incomparable"] + s["unmatched"]
print(s["same"], s["noisy"], s["ambiguous"], s["slower"], s["faster"], other)'
}

# slower_copy DB RUN OUT: OUT is DB with RUN's samples made 10 % worse.
slower_copy() {
	cp "$1" "$3"
	sqlite3 "$3" "UPDATE sample SET value = CASE WHEN (SELECT
		higher_is_better FROM result WHERE id = sample.result_id)
		THEN value * 0.9 ELSE value / 0.9 END WHERE result_id IN
		(SELECT id FROM result WHERE run_id = $2);"
}

measure_way() {
	local way=$1 db=$tmp/$1.db rounds=1 runs=1
	if [ "$way" = rounds ]; then
		rounds=$ROUNDS
		runs=$RUNS
	fi
	local t0=$SECONDS
	for _ in $(seq "$runs"); do run_ci "$db" "$rounds"; done
	"$AX" --db "$db" -q baseline save b --last "$runs" >/dev/null
	local ok=0 all=0 slow=0 slow_all=0
	printf '%-7s %3s  %-36s  %s\n' "$way" run \
		"as measured: same noisy amb slower faster other" \
		"10% slower copy: slower of cases"
	for i in $(seq "$N"); do
		run_ci "$db" "$rounds"
		local cand
		cand=$(sqlite3 "$db" "SELECT max(id) FROM run")
		read -r sa no am sl fa ot <<<"$(verdicts "$db" "$cand")"
		slower_copy "$db" "$cand" "$tmp/slow.db"
		read -r _ _ _ ssl _ _ <<<"$(verdicts "$tmp/slow.db" "$cand")"
		local n=$((sa + no + am + sl + fa))
		ok=$((ok + sa + no))
		all=$((all + n))
		slow=$((slow + ssl))
		slow_all=$((slow_all + n))
		printf '%-7s %3d  %4d %5d %3d %6d %6d %5d %12s  %d of %d\n' \
			"$way" "$i" "$sa" "$no" "$am" "$sl" "$fa" "$ot" "" \
			"$ssl" "$n"
	done
	local secs=$((SECONDS - t0))
	python3 - "$way" "$ok" "$all" "$slow" "$slow_all" "$secs" <<'EOF' |
import sys
way, ok, n, slow, sn, secs = sys.argv[1], *map(int, sys.argv[2:])
same = 100.0 * ok / n if n else float("nan")
det = 100.0 * slow / sn if sn else float("nan")
print(f"{way}: same or noisy {ok}/{n} = {same:.1f} % (goal >= 95 %); "
      f"10 % slower called slower {slow}/{sn} = {det:.1f} % "
      f"(goal >= 90 %); {secs} s")
print(f"bench_ci_noise_{way}_same_pct {same:.1f}")
print(f"bench_ci_noise_{way}_slower_pct {det:.1f}")
EOF
		tee "$tmp/figures.$way"
	bench_goal "ci-noise $way: unchanged called same or noisy" \
		"$(sed -n "s/^bench_ci_noise_${way}_same_pct //p" "$tmp/figures.$way")" \
		">=" 95 %
	bench_goal "ci-noise $way: 10 % slower called slower" \
		"$(sed -n "s/^bench_ci_noise_${way}_slower_pct //p" "$tmp/figures.$way")" \
		">=" 90 %
}

echo "ci-noise: profile $PROFILE, $N candidates per way; rounds way:" \
	"baseline of $RUNS runs, --rounds $ROUNDS"
for way in $WAYS; do measure_way "$way"; done
