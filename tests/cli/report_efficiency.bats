#!/usr/bin/env bats
# The report's efficiency section (issue 13) from real runs: with a
# fixture RAPL sensor (helper.bash) a sustained gemm shows its watts,
# perf/W, energy per repetition and its series against time; without a
# sensor the section says so once, with the stored reason.
load helper

setup() {
	ax_setup
	export AXBENCH_NVML_LIB="$BATS_TEST_TMPDIR/no-libnvidia-ml.so.1"
	T="$BATS_TEST_TMPDIR"
}

teardown() { stop_rapl_fixture; }

SUSTAINED=(gemm -p m=64 -p n=64 -p k=64 --cpu-baseline off --sustain 0.5
	--warmup 1)

# The report's HTML before its embedded data, whose JSON repeats every
# stored string.
shown() { sed '/<h2 id="data">/,$d' "$1"; }

# Does file $2 lack text $1?  (A bare "! grep" never fails a bats test:
# errexit ignores a negated command.)
lacks() { ! grep -qF -- "$1" "$2"; }

# The embedded data's results, as JSON on stdout.
embedded() {
	python3 - "$1" <<-'EOF'
	import json, re, sys
	html = open(sys.argv[1], encoding="utf-8").read()
	m = re.search(r'<script type="application/json" id="axbench-data">'
	              r'(.*?)</script>', html, re.S)
	print(json.dumps(json.loads(m.group(1))["results"]))
	EOF
}

@test "with a sensor: W, perf/W, energy per repetition and the series chart" {
	rapl_fixture
	run "$AX" --db "$DB" run "${SUSTAINED[@]}"
	assert_success
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	shown "$T/r.html" >"$T/shown"
	grep -qF '<a href="#efficiency">Efficiency</a>' "$T/shown"
	grep -qF '<h2 id="efficiency">Efficiency</h2>' "$T/shown"
	grep -qF 'gemm: performance per watt, GFLOP/s/W (higher is better)' \
		"$T/shown"
	# Mean / max W, J per repetition and per GFLOP, perf/W: numbers.
	grep -qE '<td class="num">[0-9.]+ / [0-9.]+</td>' "$T/shown"
	grep -qE '<td class="num">[0-9.e-]+ J/GFLOP</td>' "$T/shown"
	grep -qE '<td class="num">[0-9.e-]+ GFLOP/s/W</td>' "$T/shown"
	grep -qF '<th>J per repetition</th>' "$T/shown"
	# The sustained run's power against time, the timed span marked.
	grep -qF 'Sustained runs against time' "$T/shown"
	grep -qF 'aria-label="Power (W)"' "$T/shown"
	grep -qE 'RAPL every 0.1 s, [0-9]+ readings; the timed span starts' \
		"$T/shown"
	grep -qF 'timed span from ' "$T/shown"
	grep -qF 'Not measured: temperature, SM clock.' "$T/shown"
	lacks 'No power sensor' "$T/shown"
	# The series travels in the embedded data, whole (it is short).
	embedded "$T/r.html" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
t = r["telemetry"]
assert t["source"] == "RAPL" and len(t["t"]) >= 3, t
assert len(t["power_w"]) == len(t["t"]) and "thinned_every" not in t, t
assert r["power"]["series_id"] == t["id"], (r["power"], t["id"])'
	if command -v tidy >/dev/null; then
		run tidy -errors -q "$T/r.html"
		assert_success
		assert_output ""
	fi
}

@test "a long series is thinned to 2000 readings, and the caption says so" {
	rapl_fixture
	run "$AX" --db "$DB" run "${SUSTAINED[@]}"
	assert_success
	# 5000 more readings of the stored series, as an hour-long run at
	# 1 s would have (measuring them here would take that hour).
	sql "with recursive k(i) as (select 1000 union all select i + 1
		from k where i < 5999)
	     insert into telemetry_sample (series_id, idx, t, power_w)
	     select p.series_id, i, 10 + i * 0.1, 20 + i % 7
		from k, result_power p"
	n=$(sql "select count(*) from telemetry_sample t join result_power p
		on p.series_id = t.series_id")
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	every=$(((n + 1999) / 2000))
	shown "$T/r.html" | grep -qF "$n readings, 1 in $every drawn"
	embedded "$T/r.html" | N="$n" python3 -c '
import json, os, sys
t = json.load(sys.stdin)[0]["telemetry"]
assert len(t["t"]) <= 2000 and len(t["t"]) == len(t["power_w"]), len(t["t"])
assert t["n_readings"] == int(os.environ["N"]), t["n_readings"]'
}

@test "without a sensor: one line with the stored reason, no figures" {
	export AXBENCH_SYSFS_ROOT="$T/empty"
	run "$AX" --db "$DB" run "${SUSTAINED[@]}"
	assert_success
	run "$AX" --db "$DB" run gemm -p m=64 -p n=64 -p k=64 \
		--cpu-baseline off "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	shown "$T/r.html" >"$T/shown"
	grep -qF '<h2 id="efficiency">Efficiency</h2>' "$T/shown"
	# Both results share the reason: it is quoted once.
	[ "$(grep -c 'No power sensor: no sensor for llvmpipe' "$T/shown")" = 1 ]
	grep -qF "RAPL: $T/empty/sys/class/powercap: No such file or directory" \
		"$T/shown"
	lacks 'performance per watt' "$T/shown"
	lacks '<th>J per repetition</th>' "$T/shown"
	lacks 'Sustained runs against time' "$T/shown"
	# The sustained run's slowdown verdict needs no sensor: it stays.
	grep -qF 'Throttling without a power figure' "$T/shown"
	if command -v tidy >/dev/null; then
		run tidy -errors -q "$T/r.html"
		assert_success
		assert_output ""
	fi
}
