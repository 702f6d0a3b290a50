#!/bin/bash
# bench/load.sh - load figures (printed, never asserted):
#  1. a 10 000-trial replay tuning session (random; bo for 1 000) on the
#     largest shared landscape;
#  2. a database of 1 000 000 samples in 1 000 runs, made with SQL from a
#     real small run's rows: time and peak memory of `results`, `report`
#     and `compare`;
#  3. hostile inputs at full size (a 55 MB dense Kernel Tuner cache, YAML
#     nested 100 000 deep would take minutes, so 20 000).
# Uses /usr/bin/time -v (Debian package `time`).  AX=path overrides the
# binary (default ./axbench).  Run from the repository root.
set -u
cd "$(dirname "$0")/.." || exit 2
AX=${AX:-$PWD/axbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${LOAD_KEEP:-}" ] && trap - EXIT && echo "load: keeping $tmp"
export HOME=$tmp XDG_CACHE_HOME=$tmp/cache
unset AXBENCH_VALIDATE AXBENCH_DB

# "LABEL: S s, N MiB peak (exit RC)" for the command after the label.
measure() {
	local label=$1
	shift
	/usr/bin/time -v -o "$tmp/t" "$@" >"$tmp/out" 2>&1
	local rc=$?
	awk -v l="$label" -v rc="$rc" '
		/Elapsed \(wall clock\)/ {
			n = split($NF, a, ":"); s = a[n]
			if (n > 1) s += a[n - 1] * 60
			if (n > 2) s += a[n - 2] * 3600
		}
		/Maximum resident set size/ { kb = $NF }
		END {
			printf "load: %-44s %8.2f s %8.1f MiB peak (exit %d)\n", l, s, kb / 1024, rc
		}' "$tmp/t"
}

big=$(ls -S ../shared/landscapes/*/cachefiles/*/*.json.gz 2>/dev/null |
      head -1)
if [ -n "$big" ]; then
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
# Duplicate run 1 999 times with fresh UUIDs: 1 000 runs x 10 results x
# 100 samples = 1 000 000 samples.
sqlite3 "$db" <<'SQL'
PRAGMA foreign_keys = ON;
CREATE TEMP TABLE k(i INTEGER PRIMARY KEY);
WITH RECURSIVE c(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM c WHERE i < 1000)
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
WHERE r2.run_id > 1;
COMMIT;
SQL
echo "load: database $(sqlite3 "$db" 'select count(*) from run') runs," \
	"$(sqlite3 "$db" 'select count(*) from result') results," \
	"$(sqlite3 "$db" 'select count(*) from sample') samples," \
	"$(($(stat -c %s "$db") / 1048576)) MiB"
measure "results (table, all runs)" "$AX" --db "$db" results
measure "results --json --samples (all runs)" \
	"$AX" --db "$db" --json results --samples
measure "report (all runs)" "$AX" --db "$db" report -o "$tmp/r.html"
echo "load:   report size $(($(stat -c %s "$tmp/r.html" 2>/dev/null || echo 0) / 1024)) KiB"
measure "compare 1 1000" "$AX" --db "$db" compare 1 1000
head -3 "$tmp/out" | sed "s/^/load:   /"

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
