#!/bin/bash
# bench/merge.sh - `axbench db merge` at fleet scale (issue 16), printed,
# never asserted: 100 databases of 10 000 results each (1 000 runs of 10
# results, 5 samples a result: 50 000 samples a database), as 100
# machines would write them, merged into one.  Prints the time and peak
# memory of the merge, of merging the same 100 again (idempotent: adds
# nothing), and of `db check` and `report` on the result.  The merge
# streams row by row, so its peak memory should not grow with the
# inputs.  Each database is a copy of one built by SQL from a real small
# run, with fresh UUIDs and its own host and device fingerprints, so
# nothing is shared between machines but the schema.
# MERGE_N=K merges K databases instead of 100; MERGE_KEEP=1 keeps the
# temporary directory.  AX=path picks the binary.
# Uses /usr/bin/time -v (Debian package `time`).  Run from the repository
# root.
set -u
cd "$(dirname "$0")/.." || exit 2
AX=${AX:-$PWD/axbench}
N=${MERGE_N:-100}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${MERGE_KEEP:-}" ] && trap - EXIT && echo "merge: keeping $tmp"
export HOME=$tmp XDG_CACHE_HOME=$tmp/cache
unset AXBENCH_VALIDATE AXBENCH_DB

# A version-4-shaped UUID in SQL, as axbench writes them (36 characters):
# db check holds every row's UUID to that.
UUID="lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||
 substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) ||
 '-' || hex(randomblob(6)))"

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
			printf "merge: %-44s %8.2f s %8.1f MiB peak (exit %d)\n", l, s, kb / 1024, rc
		}' "$tmp/t"
}

# One machine's database: a real run of 10 results of 5 samples, then
# 999 more runs like it by SQL.
seed=$tmp/seed.db
"$AX" --db "$seed" run bandwidth -p size=4K..64K -p op=read,copy \
	--min-samples 5 --max-samples 5 --min-time 0 --max-time 30 \
	--warmup 1 >/dev/null 2>&1 || { echo "merge: seed run failed"; exit 1; }
sqlite3 "$seed" <<SQL
CREATE TEMP TABLE k(i INTEGER PRIMARY KEY);
WITH RECURSIVE c(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM c WHERE i < 1000)
INSERT INTO k SELECT i FROM c;
BEGIN;
INSERT INTO run (id, uuid, host_id, device_id, started_at, finished_at,
		 status, axbench_version, git_sha, argv_json, config_json,
		 profile, label)
SELECT k.i, $UUID, host_id, device_id,
       strftime('%Y-%m-%dT%H:%M:%fZ', started_at, '+' || k.i || ' minutes'),
       finished_at, status, axbench_version, git_sha, argv_json,
       config_json, profile, label
FROM run, k WHERE run.id = 1;
INSERT INTO result (uuid, run_id, suite, case_label, params_json,
		    params_hash, shader_hash, unit, higher_is_better, work,
		    timing_mode, stop_reason, status, error_text, n, median,
		    min, max, mean, stddev, q1, q3, mad, ci_lo, ci_hi,
		    rel_noise, extra_json, created_at)
SELECT $UUID, k.i, suite, case_label, params_json,
       params_hash, shader_hash, unit, higher_is_better, work, timing_mode,
       stop_reason, status, error_text, n, median, min, max, mean, stddev,
       q1, q3, mad, ci_lo, ci_hi, rel_noise, extra_json, created_at
FROM result, k WHERE result.run_id = 1 ORDER BY k.i, result.id;
INSERT INTO sample (uuid, result_id, idx, seconds, value)
SELECT $UUID, r2.id, s.idx, s.seconds, s.value
FROM result r2
JOIN result r1 ON r1.run_id = 1 AND r1.case_label = r2.case_label
JOIN sample s ON s.result_id = r1.id
WHERE r2.run_id > 1;
COMMIT;
SQL
sqlite3 "$seed" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
echo "merge: one database: $(sqlite3 "$seed" 'select count(*) from run') runs," \
	"$(sqlite3 "$seed" 'select count(*) from result') results," \
	"$(sqlite3 "$seed" 'select count(*) from sample') samples," \
	"$(($(stat -c %s "$seed") / 1048576)) MiB"

# N machines: fresh UUIDs everywhere, a host and device of their own.
start=$(date +%s.%N)
mkdir -p "$tmp/nodes"
for i in $(seq -w 1 "$N"); do
	f=$tmp/nodes/node$i.db
	cp "$seed" "$f"
	sqlite3 "$f" "BEGIN;
		UPDATE host SET uuid = $UUID,
			fingerprint = fingerprint || '-$i',
			hostname = 'node$i';
		UPDATE device SET uuid = $UUID,
			fingerprint = fingerprint || '-$i';
		UPDATE run SET uuid = $UUID;
		UPDATE result SET uuid = $UUID;
		UPDATE sample SET uuid = $UUID;
		COMMIT; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
done
echo "merge: $N databases built in" \
	"$(echo "$(date +%s.%N) - $start" | bc | xargs printf '%.1f') s," \
	"$(du -sm "$tmp/nodes" | cut -f1) MiB in all"

out=$tmp/fleet.db
measure "db merge of $N databases" "$AX" db merge "$out" "$tmp"/nodes/*.db
sed 's/^/merge:   /' "$tmp/out" | head -3
echo "merge:   merged file $(($(stat -c %s "$out") / 1048576)) MiB," \
	"$(sqlite3 "$out" 'select count(*) from run') runs," \
	"$(sqlite3 "$out" 'select count(*) from result') results," \
	"$(sqlite3 "$out" 'select count(*) from sample') samples"
measure "db merge of the same $N again (adds nothing)" \
	"$AX" db merge "$out" "$tmp"/nodes/*.db
sed 's/^/merge:   /' "$tmp/out" | head -3
measure "db check of the merged file" "$AX" --db "$out" db check
sed 's/^/merge:   /' "$tmp/out" | tail -1
measure "report of the merged file" "$AX" --db "$out" report \
	-o "$tmp/r.html" --samples-for none
sed 's/^/merge:   /' "$tmp/out" | tail -1
