#!/bin/bash
# bench/load.sh - load figures (printed, never asserted):
#  1. a 10 000-trial replay tuning session (random; bo for 1 000) on the
#     largest shared landscape;
#  2. a database of 1 000 000 samples in 1 000 runs, made with SQL from a
#     real small run's rows: time and peak memory of `results`,
#     `results --json --samples`, `report` and `compare`;
#  3. a database of 10 000 runs (100 000 results) made the same way: runs
#     2 to 9 000 keep their summaries (n, median, CI ...) but no samples,
#     runs 9 001 to 10 000 (the newest) and the real run 1 have their 100
#     samples per result, 1 001 000 samples in all.  Samples for every
#     run would be 10 000 000 rows, minutes to build and a 1 GiB file;
#     the newest runs are the ones a report shows in detail.  Time and
#     peak memory of `report` and `results --json --samples`;
#  4. hostile inputs at full size (a 55 MB dense Kernel Tuner cache, YAML
#     nested 100 000 deep would take minutes, so 20 000);
#  5. the goals of issue 18 ("history at scale"), each with its measured
#     figure and PASS or MISS.  A MISS is printed, never an exit status:
#     the script exits 0 unless it could not build its databases.
# Uses /usr/bin/time -v (Debian package `time`).  AX=path overrides the
# binary (default ./axbench).  LOAD_QUICK=1 skips the 10 000-run part
# (3) and the replay (1); LOAD_KEEP=1 keeps the temporary directory;
# LOAD_TIMEOUT (seconds, default 600) stops one command that runs longer
# (its figure then says exit 124).  Run from the repository root.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/goal.sh # bench_goal: the lines make bench gathers
AX=${AX:-$PWD/axbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${LOAD_KEEP:-}" ] && trap - EXIT && echo "load: keeping $tmp"
export HOME=$tmp XDG_CACHE_HOME=$tmp/cache
unset AXBENCH_VALIDATE AXBENCH_DB

# "LABEL: S s, N MiB peak (exit RC)" for the command after the label; the
# figures are also left in secs, mib and rc for the goals table.  Output
# goes to $tmp/out, or to $OUT when set (a stream too big to keep).
measure() {
	local label=$1
	shift
	/usr/bin/time -v -o "$tmp/t" timeout "${LOAD_TIMEOUT:-600}" "$@" \
		>"${OUT:-$tmp/out}" 2>"$tmp/err"
	rc=$?
	read -r secs mib < <(awk '
		/Elapsed \(wall clock\)/ {
			n = split($NF, a, ":"); s = a[n]
			if (n > 1) s += a[n - 1] * 60
			if (n > 2) s += a[n - 2] * 3600
		}
		/Maximum resident set size/ { kb = $NF }
		END { printf "%.2f %.1f\n", s, kb / 1024 }' "$tmp/t")
	printf "load: %-44s %8.2f s %8.1f MiB peak (exit %d)\n" \
		"$label" "$secs" "$mib" "$rc"
	[ "$rc" -eq 0 ] || head -3 "$tmp/err" | sed 's/^/load:   /'
	cat "$tmp/err" >>"${OUT:-$tmp/out}"
}

# Goals table rows: "goal label", measured, limit, unit, exit status of
# the command measured.  A figure of a command that failed is a MISS.
goals=()
goal() {
	goals+=("$1|$2|$3|$4|$5")
}

big=$(ls -S ../shared/landscapes/*/cachefiles/*/*.json.gz 2>/dev/null |
      head -1)
if [ -n "${LOAD_QUICK:-}" ]; then
	echo "load: LOAD_QUICK: replay skipped"
elif [ -n "$big" ]; then
	echo "load: landscape $big"
	# --no-early-stop: only the budget ends these sessions.
	for s in grid random; do
		measure "replay $s, budget 10000" "$AX" tune --replay "$big" \
			--strategy "$s" --budget 10000 --no-early-stop
		grep -E 'evaluations' "$tmp/out" | sed 's/^/load:   /'
	done
	measure "replay bo, budget 1000" \
		"$AX" tune --replay "$big" --strategy bo --budget 1000 \
		--no-early-stop
	grep -E 'evaluations|per proposal' "$tmp/out" | sed 's/^/load:   /'
else
	echo "load: no shared landscape (../shared/landscapes): replay skipped"
fi

# A real run: 10 results of 100 samples (bandwidth, 4K..64K, read+copy).
db=$tmp/load.db
"$AX" --db "$db" run bandwidth -p size=4K..64K -p op=read,copy \
	--min-samples 100 --max-samples 100 --min-time 0 --max-time 30 \
	--warmup 1 >/dev/null 2>&1 || { echo "load: seed run failed"; exit 1; }
sqlite3 "$db" ".backup '$tmp/seed.db'" || exit 1

# grow DB FIRST LAST SAMPLES: copies of run 1 as runs FIRST..LAST (fresh
# UUIDs, one second apart), with run 1's samples when SAMPLES is 1 and
# none when 0 (their results keep run 1's n and figures).
grow() {
	sqlite3 "$1" <<SQL
PRAGMA foreign_keys = ON;
CREATE TEMP TABLE k(i INTEGER PRIMARY KEY);
WITH RECURSIVE c(i) AS (SELECT $2 UNION ALL SELECT i + 1 FROM c WHERE i < $3)
INSERT INTO k SELECT i FROM c;
BEGIN;
INSERT INTO run (id, uuid, host_id, device_id, started_at, finished_at,
		 status, axbench_version, git_sha, argv_json, config_json,
		 profile)
SELECT k.i, lower(hex(randomblob(16))), host_id, device_id,
       strftime('%Y-%m-%dT%H:%M:%fZ', started_at, '+' || k.i || ' seconds'),
       finished_at, status, axbench_version, git_sha, argv_json,
       config_json, profile
FROM run, k WHERE run.id = 1;
INSERT INTO result (uuid, run_id, suite, case_label, params_json,
		    params_hash, shader_hash, unit, higher_is_better, work,
		    timing_mode, stop_reason, status, error_text, n, median,
		    min, max, mean, stddev, q1, q3, mad, ci_lo, ci_hi,
		    rel_noise, extra_json, created_at)
SELECT lower(hex(randomblob(16))), k.i, suite, case_label, params_json,
       params_hash, shader_hash, unit, higher_is_better, work, timing_mode,
       stop_reason, status, error_text, n, median, min, max, mean, stddev,
       q1, q3, mad, ci_lo, ci_hi, rel_noise, extra_json, created_at
FROM result, k WHERE result.run_id = 1 ORDER BY k.i, result.id;
INSERT INTO sample (uuid, result_id, idx, seconds, value)
SELECT lower(hex(randomblob(16))), r2.id, s.idx, s.seconds, s.value
FROM result r2
JOIN result r1 ON r1.run_id = 1 AND r1.case_label = r2.case_label
JOIN sample s ON s.result_id = r1.id
WHERE $4 AND r2.run_id BETWEEN $2 AND $3;
COMMIT;
SQL
}

# "N runs, N results, N samples, N MiB" of database $1.
describe() {
	echo "$(sqlite3 "$1" 'select count(*) from run') runs," \
		"$(sqlite3 "$1" 'select count(*) from result') results," \
		"$(sqlite3 "$1" 'select count(*) from sample') samples," \
		"$(($(stat -c %s "$1") / 1048576)) MiB"
}

# "S" seconds since the epoch, with fractions.
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Duplicate run 1 999 times: 1 000 runs x 10 results x 100 samples =
# 1 000 000 samples.
t0=$(now)
grow "$db" 2 1000 1 || { echo "load: building the database failed"; exit 1; }
echo "load: database $(describe "$db"), built in $(took "$t0") s"
measure "results (table, all runs)" "$AX" --db "$db" results
# The JSON document is checked, not only timed: every result once, with
# as many samples as the database holds.
measure "results --json --samples (all runs)" \
	"$AX" --db "$db" --json results --samples
goal "1 000 runs: results --json --samples peak" "$mib" 64 MiB "$rc"
python3 - "$tmp/out" "$(sqlite3 "$db" 'select count(*) from result')" \
	"$(sqlite3 "$db" 'select count(*) from sample')" <<'PY'
import json, os, sys
path, results, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    with open(path) as f:
        d = json.load(f)
    got = (len(d), sum(len(r["samples"]) for r in d))
    ok = got == (results, samples)
    print("load:   %.1f MiB of JSON, %d results, %d samples (%s)" % (
        os.path.getsize(path) / 1048576, got[0], got[1],
        "as stored" if ok else "the database holds %d, %d" % (
            results, samples)))
except (ValueError, KeyError, TypeError) as e:
    print("load:   the output is not the results document: %s" % e)
PY
rm -f "$tmp/r.html"
measure "report (all runs)" "$AX" --db "$db" report -o "$tmp/r.html"
html=$(stat -c %s "$tmp/r.html" 2>/dev/null || echo 0)
echo "load:   report size $((html / 1024)) KiB"
goal "1 000 runs: report time" "$secs" 3 s "$rc"
goal "1 000 runs: report peak" "$mib" 120 MiB "$rc"
goal "1 000 runs: report HTML size" \
	"$(awk -v b="$html" 'BEGIN { printf "%.2f", b / 1048576 }')" 5 MiB "$rc"
measure "compare 1 1000" "$AX" --db "$db" compare 1 1000
grep -m 3 . "$tmp/out" | sed "s/^/load:   /"

if [ -z "${LOAD_QUICK:-}" ]; then
	# Runs 2..9 000 without samples, 9 001..10 000 with them (see the
	# top of this file for why).
	db10=$tmp/load10k.db
	cp "$tmp/seed.db" "$db10"
	t0=$(now)
	{ grow "$db10" 2 9000 0 && grow "$db10" 9001 10000 1; } ||
		{ echo "load: building the 10 000-run database failed"; exit 1; }
	echo "load: database $(describe "$db10"), built in $(took "$t0") s"
	# Hundreds of MiB of JSON: counted, not kept.
	OUT=/dev/null measure "results --json --samples (10 000 runs)" \
		"$AX" --db "$db10" --json results --samples
	goal "10 000 runs: results --json --samples peak" "$mib" 64 MiB "$rc"
	rm -f "$tmp/r10.html"
	measure "report (10 000 runs)" "$AX" --db "$db10" report \
		-o "$tmp/r10.html"
	echo "load:   report size" \
		"$(($(stat -c %s "$tmp/r10.html" 2>/dev/null || echo 0) / 1024)) KiB"
	goal "10 000 runs: report time" "$secs" 10 s "$rc"
	goal "10 000 runs: report peak" "$mib" 120 MiB "$rc"
else
	echo "load: LOAD_QUICK: the 10 000-run database skipped"
fi

# Hostile inputs at full size.
{ printf '{"tune_params_keys":["a"],"tune_params":{"a":[0,1]},"cache":{'
  seq -f '"%.0f":{"a":0,"time":1},' 1 2097161 | tr -d '\n'
  printf '"x":{"a":0,"time":1}}}'; } >"$tmp/dense.json"
measure "dense 55 MB cache (2^21+1 entries, refused)" \
	"$AX" tune --replay "$tmp/dense.json" --budget 5
python3 -c 'import sys; d=20000; open(sys.argv[1],"w").write("schema: axbench.profile/v1\nsuites: " + "[" * d + "]" * d + "\n")' \
	"$tmp/deep.yaml"
measure "YAML nested 20000 deep (refused)" \
	"$AX" --db "$tmp/x.db" run --config "$tmp/deep.yaml" --dry-run

# The goals of issue 18, last, so that they are read.
echo "load: goals (issue 18, history at scale)"
printf "load:   %-44s %12s %12s  %s\n" goal measured limit verdict
for g in "${goals[@]}"; do
	IFS='|' read -r what got limit unit grc <<<"$g"
	verdict=$(awk -v g="$got" -v l="$limit" -v rc="$grc" 'BEGIN {
		if (rc != 0) print "MISS (exit " rc ")"
		else print (g + 0 <= l + 0) ? "PASS" : "MISS" }')
	printf "load:   %-44s %12s %12s  %s\n" "$what" "$got $unit" \
		"<= $limit $unit" "$verdict"
	# A figure of a command that failed is no figure.
	[ "$grc" = 0 ] || got=
	bench_goal "load: $what" "$got" "<=" "$limit" "$unit"
done
exit 0
