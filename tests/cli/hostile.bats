#!/usr/bin/env bats
# Hostile input: database strings in the HTML report, SQL and shell
# injection (source checks), Kernel Tuner caches built to exhaust memory,
# time or the stack, and a YAML billion-laughs profile.  Peak memory is
# measured with GNU time (/usr/bin/time -v) and bounded generously: the
# bounds catch unbounded growth, not a few MiB.
load helper

setup() { ax_setup; }

# Peak RSS in KiB of the command after "--", from GNU time; the command's
# own exit status is kept in $rc and its output in $BATS_TEST_TMPDIR/o.
peak_kb() {
	rc=0
	/usr/bin/time -v -o "$BATS_TEST_TMPDIR/time" "$@" \
		>"$BATS_TEST_TMPDIR/o" 2>&1 || rc=$?
	kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' \
		"$BATS_TEST_TMPDIR/time")
	echo "peak RSS ${kb} KiB, exit $rc: $*" >&3
}

# Every string a user or another machine can put into the database.
poison_db() {
	sql <<'EOF'
update device set name = '<script>alert(1)</script>',
	vendor = '"><img src=x onerror=alert(2)>',
	driver_info = '</script><script>alert(7)</script>';
update host set hostname = '</script><script>alert(3)</script>',
	cpu_model = '<svg onload=alert(8)>';
update run set profile = '<b onmouseover=alert(9)>p</b>',
	argv_json = json_array('axbench', '</script><svg onload=alert(4)>',
			       '--db', '"><iframe src=javascript:alert(10)>');
update result set case_label = '<iframe src=javascript:alert(5)>',
	params_json = json_set(params_json, '$.op',
			       '</script><script>alert(6)</script>',
			       '$."<img src=x onerror=alert(11)>"', 1);
update result set status = 'failed-verification',
	error_text = '<script>alert(12)</script>',
	stop_reason = '<i onclick=alert(13)>'
	where id = (select max(id) from result);
insert into baseline (uuid, name, run_id, created_at)
	values ('b', '<script>alert(14)</script>', 1, '2024-01-01');
EOF
}

# Tags and attributes of an HTML file, parsed as a browser would tokenise
# it (script content ends at the first "</script").
html_tags() {
	python3 - "$1" <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        names = sorted(a for a, _ in attrs)
        print(tag, *names)
        for a, v in attrs:
            if a.startswith("on") or (v or "").lower().startswith(
                    "javascript:"):
                print("DANGER", tag, a, v)
P().feed(open(sys.argv[1], encoding="utf-8").read())
EOF
}

@test "report: every database string is escaped (no tag or handler injected)" {
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read,copy "${FAST[@]}"
	assert_success
	# The benign report gets the same failed result as the hostile one
	# (with plain text), so that both have the "needs attention" table
	# whether or not a real result came out noisy.
	sql "update result set status = 'failed-verification',
		error_text = 'plain', stop_reason = 'noise'
		where id = (select max(id) from result)"
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR/benign.html"
	assert_success
	poison_db
	run "$AX" --db "$DB" report -o "$BATS_TEST_TMPDIR/hostile.html"
	assert_success
	html_tags "$BATS_TEST_TMPDIR/benign.html" | sort -u >"$BATS_TEST_TMPDIR/t0"
	html_tags "$BATS_TEST_TMPDIR/hostile.html" | sort -u >"$BATS_TEST_TMPDIR/t1"
	# The hostile report has no tag or attribute the benign one lacks.
	run comm -13 "$BATS_TEST_TMPDIR/t0" "$BATS_TEST_TMPDIR/t1"
	assert_output ""
	run grep -c DANGER "$BATS_TEST_TMPDIR/t1"
	assert_output 0
	# One script element (the JSON data), as in the benign report.
	[ "$(grep -c '^script' "$BATS_TEST_TMPDIR/t1")" = 1 ]
	# The data is shown, escaped, not dropped.
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$BATS_TEST_TMPDIR/hostile.html"
	grep -q 'alert(5)' "$BATS_TEST_TMPDIR/hostile.html"
	# The embedded JSON still parses and holds the strings verbatim.
	python3 - "$BATS_TEST_TMPDIR/hostile.html" <<'EOF'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="axbench-data">(.*?)</script>',
              html, re.S)
assert m, "no data block"
data = json.loads(m.group(1))
text = json.dumps(data)
for s in ("<script>alert(1)</script>", "</script><script>alert(3)</script>"):
    assert s in text or s.replace("/", "\\/") in text, s
EOF
}

@test "results --json and --csv carry hostile strings without breaking format" {
	run "$AX" --db "$DB" run bandwidth -p size=4K -p op=read,copy "${FAST[@]}"
	assert_success
	poison_db
	"$AX" --db "$DB" results --json >"$BATS_TEST_TMPDIR/r.json"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d) == 2, d' \
		"$BATS_TEST_TMPDIR/r.json"
	"$AX" --db "$DB" results --csv >"$BATS_TEST_TMPDIR/r.csv"
	python3 - "$BATS_TEST_TMPDIR/r.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) == 3, rows
assert len({len(r) for r in rows}) == 1, "ragged CSV"
EOF
}

@test "SQL only through prepared statements (source check of core/db*.c)" {
	DBC=(core/db.c core/db_write.c core/db_read.c core/db_rows.c core/db_prune.c)
	# Only core/db*.c may talk to SQLite.
	run grep -rlE 'sqlite3_(exec|prepare|mprintf)' cli core suites tuner reports
	assert_output --regexp '^(core/db(_[a-z]+)?\.c\s*)+$'
	# No SQL is built with printf-style formatting of data: the one
	# format in these files that makes SQL is the integer-only
	# user_version pragma; db.c's others make a file URI and a path.
	run grep -nE 'sqlite3_(v?mprintf|snprintf|str_v?appendf)\(' "${DBC[@]}"
	assert_success
	bad=$(echo "$output" | grep -vE '^core/db\.c:[0-9]+:[[:space:]]*(char \*pragma = sqlite3_mprintf\("PRAGMA user_version=%d", v\);|char \*wal = sqlite3_mprintf\("%s-wal", path\);|sqlite3_str_appendf\(uri, "%%%02X", \*p\);)$' || true)
	[ -z "$bad" ]
	# sqlite3_exec appears only in ax_dbi_exec() and ax_dbi_rollback(),
	# and every ax_dbi_exec() call passes a literal or an allow-listed
	# constant: the migration text and the integer-only user_version
	# pragma.
	[ "$(cat "${DBC[@]}" | grep -c 'sqlite3_exec(')" = 2 ]
	run grep -nE 'ax_dbi_exec\(db, ' "${DBC[@]}"
	assert_success
	bad=$(grep -hE 'ax_dbi_exec\(db, ' "${DBC[@]}" |
	      grep -vE 'ax_dbi_exec\(db, ("|migrations\[v - 1\],|pragma,)' || true)
	[ -z "$bad" ]
	[ "$(cat "${DBC[@]}" | grep -c 'sqlite3_mprintf("PRAGMA')" = 1 ]
	# Dynamic WHERE clauses are appended from literals and the constant
	# head, time column and tail only (a call may wrap its literal).
	python3 - "${DBC[@]}" <<'EOF'
import re, sys
src = "".join(open(f).read() for f in sys.argv[1:])
calls = re.findall(r"sqlite3_str_append\w*\(\s*w(?:->|\.)sql\b[^;]*;", src)
ok = re.compile(r'sqlite3_str_appendall\(\s*w(?:->|\.)sql,\s*'
                r'((\s*"([^"\\]|\\.)*")+|time_col|head|tail)\);$')
bad = [c for c in calls if not ok.match(c)]
assert len(calls) >= 8 and not bad, bad
EOF
	run grep -hnE 'build_where\([^)]*\)' "${DBC[@]}"
	bad=$(echo "$output" | grep -v 'static int build_where' |
	      grep -vE 'build_where\(&?[a-z]+, [A-Z_]+, &?[a-z]+, "[a-z_.]+", (true|false)\)' |
	      grep -vE 'build_where\(&w, head, f, time_col, runs\)' ||
	      true)
	[ -z "$bad" ]
	# prepare_listing forwards its head to build_where: every call of it
	# passes a constant head and time column.
	run grep -hE 'prepare_listing\(db,' "${DBC[@]}"
	[ "${#lines[@]}" -ge 2 ]
	bad=$(echo "$output" | grep -vE 'prepare_listing\(db, [A-Z_]+, f, "[a-z_.]+",' || true)
	[ -z "$bad" ]
}

@test "no path or option passes through a shell (source check)" {
	# Nothing reaches a shell or word expansion anywhere.
	run grep -rnE '\b(system|popen|wordexp)[[:space:]]*\(' \
		--include='*.c' --include='*.h' cli core suites tuner reports
	assert_failure
	assert_output ""
	# Two processes are started, each as an argv vector (no shell):
	# `monitor -- CMD ARGS` runs the user's own command (execvp), and
	# `fleet slurm` runs sbatch and sinfo (posix_spawn of the file found
	# in PATH).  Nothing else execs.
	run grep -rnE '\b(execl|execlp|execle|execv|execvp|execvpe|execve|posix_spawnp?)[[:space:]]*\(' \
		--include='*.c' --include='*.h' cli core suites tuner reports
	assert_success
	[ "${#lines[@]}" = 2 ]
	# grep -r lists files in directory order: sort them.
	mapfile -t lines < <(printf '%s\n' "${lines[@]}" | sort)
	[[ "${lines[0]}" =~ ^cli/cmd_fleet\.c:[0-9]+:[[:space:]]*rc\ =\ posix_spawn\(\&pid,\ path,\ \&fa,\ NULL,\ argv,\ environ\)\;$ ]]
	[[ "${lines[1]}" =~ ^cli/cmd_monitor\.c:[0-9]+:[[:space:]]*execvp\(m-\>cmd\[0\],\ m-\>cmd\)\;$ ]]
}

@test "hostile --db path and argv are stored as data, not run" {
	local odd="$BATS_TEST_TMPDIR/\$(touch pwned);\`touch pwned2\`'\"x.db"
	run "$AX" --db "$odd" run bandwidth -p size=4K -p op=read "${FAST[@]}"
	assert_success
	[ -f "$odd" ]
	[ ! -e pwned ]
	[ ! -e pwned2 ]
	[ ! -e "$BATS_TEST_TMPDIR/pwned" ]
	run sqlite3 "$odd" 'select argv_json from run'
	assert_output --partial "touch pwned"
}

# A Kernel Tuner cache document: keys, values of "a", cache entries.
kt() {
	printf '{"tune_params_keys":["a"],"tune_params":{"a":%s},"cache":{%s}}' \
		"$1" "$2" >"$BATS_TEST_TMPDIR/$3"
}

@test "replay: huge numbers are refused or replayed, never crash" {
	kt '[1,123456789012345678901234567890]' '"0":{"a":1,"time":1}' big_int.json
	run "$AX" tune --replay "$BATS_TEST_TMPDIR/big_int.json" --budget 5
	assert_failure 2
	assert_output --partial "big_int.json:1:"
	assert_output --partial "too big integer"
	kt '[1,1e999]' '"0":{"a":1,"time":1}' overflow.json
	run "$AX" tune --replay "$BATS_TEST_TMPDIR/overflow.json" --budget 5
	assert_failure 2
	assert_output --partial "real number overflow"
	kt '[1e308,-1e308,0]' '"0":{"a":1e308,"time":1e308},"1":{"a":-1e308,"time":1e-308},"2":{"a":0,"time":-5}' extreme.json
	for s in bo random grid anneal; do
		run "$AX" tune --replay "$BATS_TEST_TMPDIR/extreme.json" \
			--budget 10 --strategy "$s"
		assert_success
		assert_output --partial "(3 points, 1 failed)"
		assert_output --partial "best found 1e-308, optimum 1e-308"
	done
}

@test "replay --json with extreme costs still prints a JSON document" {
	kt '[1e308,-1e308,0]' '"0":{"a":1e308,"time":1e308},"1":{"a":-1e308,"time":1e-308},"2":{"a":0,"time":-5}' extreme.json
	run "$AX" --json tune --replay "$BATS_TEST_TMPDIR/extreme.json" \
		--budget 10 --strategy random
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["best_found"] == 1e-308 and d["evals"] == 3, d'
}

@test "replay: NaN and Infinity are failures; a cache of only failures is refused" {
	kt '[NaN,Infinity,-Infinity,1]' '"0":{"a":NaN,"time":NaN},"1":{"a":Infinity,"time":-Infinity},"2":{"a":1,"time":Infinity}' nan.json
	run "$AX" tune --replay "$BATS_TEST_TMPDIR/nan.json" --budget 5
	assert_failure 2
	assert_output --partial "none of the 3 configurations has a valid time"
	kt '[1,2,3]' '"0":{"a":1,"time":NaN},"1":{"a":2,"time":2.5},"2":{"a":3,"time":"CompilationFailedConfig"}' some.json
	run "$AX" --json tune --replay "$BATS_TEST_TMPDIR/some.json" --budget 5 --strategy random
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["best_found"] == 2.5 and d["evals"] == 3, d'
}

@test "replay: deep nesting is refused without exhausting the stack" {
	python3 -c '
import sys
d = 200000
open(sys.argv[1], "w").write("{\"tune_params_keys\":" + "[" * d + "]" * d + "}")
open(sys.argv[2], "w").write("{\"tune_params_keys\":[\"a\"],\"tune_params\":{\"a\":[0]},\"cache\":{\"0\":{\"a\":0,\"time\":1,\"x\":" + "{\"y\":" * d + "1" + "}" * d + "}}}")
' "$BATS_TEST_TMPDIR/deep1.json" "$BATS_TEST_TMPDIR/deep2.json"
	for f in deep1 deep2; do
		peak_kb "$AX" tune --replay "$BATS_TEST_TMPDIR/$f.json" --budget 5
		[ "$rc" -eq 2 ]
		grep -q "maximum parsing depth reached" "$BATS_TEST_TMPDIR/o"
		[ "$kb" -lt 65536 ]
	done
}

@test "replay: 10^7 entries are refused within bounded memory" {
	# Ten million distinct entries, about 270 MB of JSON: refused at the
	# 64 MiB limit after reading only that much.
	{ printf '{"tune_params_keys":["a"],"tune_params":{"a":[0]},"cache":{'
	  seq -f '"%.0f":{"a":0,"time":1},' 1 10000000 | tr -d '\n'
	  printf '"x":{"a":0,"time":1}}}'; } >"$BATS_TEST_TMPDIR/e7.json"
	peak_kb "$AX" tune --replay "$BATS_TEST_TMPDIR/e7.json" --budget 5
	cat "$BATS_TEST_TMPDIR/o"
	[ "$rc" -eq 2 ]
	grep -q "more than 64 MiB of JSON" "$BATS_TEST_TMPDIR/o"
	[ "$kb" -lt 262144 ]
	rm -f "$BATS_TEST_TMPDIR/e7.json"
	# A gzip bomb (100 MB of zeros in 0.4 MB) stops at the same limit.
	head -c 100000000 /dev/zero | gzip -1 >"$BATS_TEST_TMPDIR/zero.json.gz"
	peak_kb "$AX" tune --replay "$BATS_TEST_TMPDIR/zero.json.gz" --budget 5
	[ "$rc" -eq 2 ]
	grep -q "more than 64 MiB of JSON" "$BATS_TEST_TMPDIR/o"
	[ "$kb" -lt 262144 ]
}

@test "run --config: YAML billion laughs refused with exit 2 in bounded memory" {
	peak_kb "$AX" --db "$DB" run --config tests/fixtures/config/billion_laughs.yaml
	cat "$BATS_TEST_TMPDIR/o"
	[ "$rc" -eq 2 ]
	grep -q "YAML alias \*a is not allowed" "$BATS_TEST_TMPDIR/o"
	[ "$kb" -lt 65536 ]
	[ ! -e "$DB" ]
	# Deeply nested flow collections: refused, never a crash.  (Time
	# grows with the square of the depth in libyaml's scanner: 10^5
	# levels take over a minute - see docs/RELIABILITY.md.)
	python3 -c 'import sys; d=10000; open(sys.argv[1],"w").write("schema: axbench.profile/v1\nsuites: " + "[" * d + "]" * d + "\n")' \
		"$BATS_TEST_TMPDIR/deep.yaml"
	peak_kb "$AX" --db "$DB" run --config "$BATS_TEST_TMPDIR/deep.yaml" --dry-run
	cat "$BATS_TEST_TMPDIR/o"
	[ "$rc" -eq 2 ]
	[ "$kb" -lt 262144 ]
	# A profile over the 4 MiB size limit is refused before parsing.
	{ echo 'schema: axbench.profile/v1'; echo 'description: |';
	  head -c 5000000 /dev/zero | tr '\0' 'x' | fold -w 100 | sed 's/^/  /'; } \
		>"$BATS_TEST_TMPDIR/big.yaml"
	peak_kb "$AX" --db "$DB" run --config "$BATS_TEST_TMPDIR/big.yaml" --dry-run
	[ "$rc" -eq 2 ]
	[ "$kb" -lt 65536 ]
}
