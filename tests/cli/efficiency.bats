#!/usr/bin/env bats
# Efficiency beside time (issue 13): every measured result stores its
# power row - the figures of its timed span where a sensor measured it,
# the reason where none did (never a 0) - with the sensor's time series,
# and --sustain applies the slowdown rule.  The sensor here is a fixture
# RAPL tree (helper.bash), this VM having none.
load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	export AXBENCH_NVML_LIB="$BATS_TEST_TMPDIR/no-libnvidia-ml.so.1"
}

teardown() { stop_rapl_fixture; }

GEMM=(gemm -p m=64 -p n=64 -p k=64 --cpu-baseline off)

@test "without a sensor a result stores the reason and no figure" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	run "$AX" --db "$DB" run "${GEMM[@]}" "${FAST[@]}"
	assert_success
	assert_output --partial "power: no sensor for llvmpipe"
	[ "$(sql "select count(*) from result_power where source is null
		and reason like 'no sensor for llvmpipe%' and mean_w is null
		and energy_rep_j is null and perf_per_w is null")" = 1 ]
	[ "$(sql "select count(*) from telemetry_series")" = 0 ]
	run "$AX" --db "$DB" --json results
	assert_success
	echo "$output" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
p = r["power"]
assert p["source"] is None and "RAPL" in p["reason"], p
assert p["mean_w"] is None and p["energy_rep_j"] is None, p'
}

@test "with a RAPL sensor a result stores power, energy per repetition, perf/W and its series" {
	rapl_fixture
	run "$AX" --db "$DB" run "${GEMM[@]}" "${FAST[@]}" --idle 0.3
	assert_success
	assert_output --partial "power: RAPL, idle"
	# The figures hang together: energy per repetition is the timed
	# span's mean power times the median time of a repetition, perf/W
	# the median over that power, net energy that less the idle power.
	secs=$(sql "select group_concat(seconds) from sample")
	sql "select p.mean_w, p.energy_rep_j, p.energy_rep_net_j, p.idle_w,
		p.perf_per_w, p.perf_per_w_unit, x.median, p.readings
		from result_power p join result x on x.id = p.result_id" |
		SECS="$secs" python3 -c '
import os, statistics, sys
w, e, net, idle, ppw, unit, med, n = sys.stdin.read().strip().split("|")
w, e, net, idle, ppw, med = map(float, (w, e, net, idle, ppw, med))
rep = statistics.median(map(float, os.environ["SECS"].split(",")))
assert w > 0 and idle > 0, (w, idle)
assert abs(e - w * rep) <= 1e-9 * e, (e, w, rep)
assert abs(net - (w - idle) * rep) <= 1e-9 * e, (net, w, idle, rep)
assert abs(ppw - med / w) <= 1e-9 * ppw, (ppw, med, w)
assert unit == "GFLOP/s/W", unit
assert int(n) >= 2, n'
	# The case's series and the idle series, each with its samples.
	[ "$(sql "select count(*) from telemetry_series where kind = 'idle'")" = 1 ]
	[ "$(sql "select count(*) from telemetry_series s join result_power p
		on p.series_id = s.id where s.kind = 'case'
		and s.timed_from_s >= 0")" = 1 ]
	[ "$(sql "select count(*) >= 2 from telemetry_sample t join
		telemetry_series s on s.id = t.series_id where s.kind = 'case'")" = 1 ]
	# A timed span of at least a second: under load (CI's ASan pass)
	# the fixture's writer can miss a shorter one, which then has no
	# energy at all.
	run "$AX" --db "$DB" run "${GEMM[@]}" "${FAST[@]}" --idle 0 \
		--min-time 1 --max-time 2
	assert_success
	[ "$(sql "select count(*) from result_power where idle_w is null
		and energy_rep_net_j is null and energy_rep_j > 0")" = 1 ]
}

@test "--sustain samples for the whole span and stores the slowdown rule's evidence" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	run "$AX" --db "$DB" run "${GEMM[@]}" --sustain 0.5 --warmup 1
	assert_success
	assert_output --partial "time-limit"
	# No sensor here, so throttled is the slowdown rule's alone: the
	# median time of the last 20 % of the stored samples over that of
	# the first 20 %, more than 5 % slower is throttled.  Recomputed from
	# the samples (read as the doubles stored), it must agree with the
	# flag and with the figures of the evidence.
	python3 - "$DB" <<'EOF'
import re, sqlite3, statistics, sys
c = sqlite3.connect(sys.argv[1])
(rid, n, thr, ev), = c.execute("""select x.id, x.n, p.throttled,
	p.throttle_evidence from result x
	join result_power p on p.result_id = x.id""").fetchall()
secs = [s for s, in c.execute("select seconds from sample"
				" where result_id = ? order by idx", (rid,))]
assert n >= 10 and len(secs) == n, (n, len(secs))
k = n // 5
first = statistics.median(secs[:k])
last = statistics.median(secs[n - k:])
slower = last / first - 1
assert abs(slower - 0.05) > 1e-9, slower     # not on the edge of the rule
want = 1 if slower > 0.05 else 0
assert thr == want, ("throttled", thr, "the rule says", want, slower, ev)
m = re.search(r"the last 20 % of (\d+) samples took ([-+][0-9.]+) % the time"
	      r" per repetition of the first 20 % \(median (\S+) s against"
	      r" (\S+) s\)(: slower by more than 5 %)?$", ev)
assert m, ev
assert int(m.group(1)) == n, (m.group(1), n)
assert abs(float(m.group(2)) - 100 * slower) <= 0.051, (m.group(2), slower)
assert abs(float(m.group(3)) - last) <= 1e-3 * last, (m.group(3), last)
assert abs(float(m.group(4)) - first) <= 1e-3 * first, (m.group(4), first)
assert bool(m.group(5)) == bool(want), (ev, want)
EOF
}

@test "--sustain refuses the options it replaces, exit 2, nothing stored" {
	run "$AX" --db "$DB" run "${GEMM[@]}" --sustain 1 --max-time 2
	assert_failure 2
	assert_output --partial "--sustain 1 sets how long each case samples"
	assert_output --partial "drop --min-time, --max-time"
	[ ! -e "$DB" ]
	run "$AX" --db "$DB" run "${GEMM[@]}" --cpu-baseline sometimes
	assert_failure 2
	assert_output --partial "auto, off or always"
}

@test "tune --objective energy without a sensor is refused before anything is stored, exit 2" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	run "$AX" --db "$DB" tune gemm -p m=64 -p n=64 -p k=64 --objective energy --budget 3
	assert_failure 2
	assert_output --partial "--objective energy needs the device's power: no sensor for llvmpipe"
	[ ! -e "$DB" ]
	run "$AX" tune --replay tests/fixtures/tuner/tiny.json --objective edp
	assert_failure 2
	assert_output --partial "--replay tunes a recorded landscape's time, or with time,energy the Pareto front of one that records energy or power"
	run "$AX" tune --replay tests/fixtures/tuner/tiny.json --objective time,energy
	assert_failure 2
	assert_output --partial "this landscape records no energy"
}

@test "tune --objective energy minimises the sensor's joules per repetition and keeps the objective on resume" {
	rapl_fixture
	run "$AX" --db "$DB" --json tune gemm -p m=64 -p n=64 -p k=64 \
		--objective energy --budget 4 --retime 1 --cpu-baseline off
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["objective"] == "energy" and d["objective_unit"] == "J", d
assert d["best_objective"] > 0 and d["default_objective"] > 0, d'
	[ "$(sql "select objective from tune_session")" = energy ]
	# Each trial keeps the figure the tuner was told: its result's
	# energy per repetition.
	[ "$(sql "select count(*) from trial t join result_power p on
		p.result_id = t.result_id where t.status = 'ok'
		and t.objective_value = p.energy_rep_j")" = 4 ]
	run "$AX" --db "$DB" tune --resume 1 --objective time
	assert_failure 2
	assert_output --partial "session 1 minimises energy"
	# export writes the objective its choice was made for, with the
	# energy figures it compared.
	"$AX" --db "$DB" export --format json -o "$BATS_TEST_TMPDIR/t.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
e = d["devices"][0]["suites"]["gemm"][0]
assert e["objective"] == "energy", e
assert e["energy_rep_j"] > 0 and e["default_energy_rep_j"] > 0, e
if e["choice"] == "tuned":
    assert e["energy_rep_j"] < 0.95 * e["default_energy_rep_j"], e
else:
    assert "energy" in e["reason"], e' "$BATS_TEST_TMPDIR/t.json"
}

@test "gemm, conv and attention store a speed-up over the host CPU (OpenBLAS), measured once per shape under auto" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	run "$AX" --db "$DB" run gemm conv attention --profile quick "${FAST[@]}"
	assert_success
	assert_output --partial "CPU baseline of gemm:"
	assert_output --partial "x verified"
	# speedup_vs_cpu is the device median over the CPU median (both in
	# the suite's unit, higher is better), beside the baseline it came
	# from; the CPU library and the kernel that ran are kept.
	[ "$(sql "select count(*) from result x join cpu_baseline c on
		c.id = x.cpu_baseline_id where c.status = 'ok'
		and c.library = 'OpenBLAS' and c.corename <> ''
		and abs(x.speedup_vs_cpu - x.median / c.median)
		    <= 1e-9 * x.speedup_vs_cpu")" = 3 ]
	[ "$(sql "select count(*) from cpu_baseline")" = 3 ]
	# auto: the second run reads the stored baselines (marked clean
	# here, whatever load this machine had while they were measured:
	# the reuse rule has its own test below) ...
	sql "update cpu_baseline set busy_other = 0, rel_noise = 0"
	run "$AX" --db "$DB" run gemm --profile quick "${FAST[@]}"
	assert_success
	refute_output --partial "CPU baseline of gemm:"
	[ "$(sql "select count(*) from cpu_baseline")" = 3 ]
	[ "$(sql "select count(distinct cpu_baseline_id) from result where suite = 'gemm'")" = 1 ]
	# ... always measures again; off compares with nothing.
	run "$AX" --db "$DB" run gemm --profile quick "${FAST[@]}" --cpu-baseline always
	assert_success
	[ "$(sql "select count(*) from cpu_baseline where suite = 'gemm'")" = 2 ]
	run "$AX" --db "$DB" run gemm --profile quick "${FAST[@]}" --cpu-baseline off
	assert_success
	[ "$(sql "select speedup_vs_cpu is null and cpu_baseline_id is null
		from result order by id desc limit 1")" = 1 ]
	# Suites without a CPU counterpart have none.
	[ "$(sql "select count(*) from result where suite not in
		('gemm','conv','attention') and cpu_baseline_id is not null")" = 0 ]
	run "$AX" --db "$DB" --json results --suite gemm
	assert_success
	echo "$output" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["cpu"]["library"] == "OpenBLAS" and r["cpu"]["threads"] >= 1, r["cpu"]
assert r["speedup_vs_cpu"] > 0, r'
}

CPUG=(gemm -p m=64 -p n=64 -p k=64 "${FAST[@]}")
# The baseline the newest result used.
last_cpu() { sql "select cpu_baseline_id from result order by id desc limit 1"; }

@test "a CPU baseline taken under load or wider than the noise target is measured again under auto; the newest clean one is reused; results says which one a speed-up used" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	"$AX" --db "$DB" run "${CPUG[@]}"
	# Every baseline keeps its interval and the load it was taken under.
	[ "$(sql "select count(*) from cpu_baseline where ci_lo <= median
		and median <= ci_hi and rel_noise >= 0 and load_1m >= 0
		and online_cpus >= 1 and busy_other between 0 and online_cpus")" = 1 ]
	# Taken under load (others kept every CPU busy; written here, so
	# that the test does not hang on this machine's real load): measured
	# again, the old one kept for history.
	sql "update cpu_baseline set busy_other = online_cpus, rel_noise = 0"
	run "$AX" --db "$DB" run "${CPUG[@]}"
	assert_success
	assert_output --partial "CPU baseline of gemm: measuring it again: stored baseline 1 is not reused: it was taken under load: other processes kept"
	[ "$(sql "select count(*) from cpu_baseline")" = 2 ]
	[ "$(last_cpu)" = 2 ]
	# 1 clean, the newer 2 under load: the newest clean one (1) is
	# reused and nothing is measured.
	sql "update cpu_baseline set busy_other = 0 where id = 1;
		update cpu_baseline set busy_other = online_cpus, rel_noise = 0
		where id = 2"
	run "$AX" --db "$DB" run "${CPUG[@]}"
	assert_success
	refute_output --partial "CPU baseline of gemm:"
	[ "$(sql "select count(*) from cpu_baseline")" = 2 ]
	[ "$(last_cpu)" = 1 ]
	# 1's interval wider than the run's noise target (2 %): measured again.
	sql "update cpu_baseline set rel_noise = 0.5 where id = 1"
	run "$AX" --db "$DB" run "${CPUG[@]}"
	assert_success
	assert_output --partial "stored baseline 2 is not reused: it was taken under load"
	[ "$(sql "select count(*) from cpu_baseline")" = 3 ]
	[ "$(last_cpu)" = 3 ]
	# results names the baseline each speed-up used, its median and
	# interval, when and under which load, and whether it is reusable.
	sql "update cpu_baseline set busy_other = 0, rel_noise = 0.001 where id = 3"
	run "$AX" --db "$DB" results
	assert_success
	assert_line --regexp '^vs-cpu of results 1, 3: CPU baseline 1, [0-9.]+ GFLOP/s \[[0-9.]+, [0-9.]+\], taken 20[0-9-]+T[0-9:.]+Z; other processes kept 0\.00 of [0-9]+ CPUs busy, load average [0-9.]+; noisy \(measured again when next needed\)$'
	assert_line --regexp '^vs-cpu of result 2: CPU baseline 2, .*; other processes kept ([0-9]+)\.00 of \1 CPUs busy, .*; under-load \(measured again when next needed\)$'
	assert_line --regexp '^vs-cpu of result 4: CPU baseline 3, .*; clean \(reusable\)$'
	run "$AX" --db "$DB" --json results
	assert_success
	echo "$output" | python3 -c '
import json, sys
rs = json.load(sys.stdin)
assert [r["cpu"]["id"] for r in rs] == [1, 2, 1, 3], rs
fits = [r["cpu"]["fit"] for r in rs]
assert fits == ["noisy", "under-load", "noisy", "clean"], fits
c = rs[3]["cpu"]
assert c["ci_lo"] <= c["median"] <= c["ci_hi"], c
assert c["busy_other"] == 0 and c["online_cpus"] >= 1, c
assert c["load_1m"] >= 0 and c["rel_noise"] == 0.001, c
assert c["stop_reason"] in ("noise", "max-samples", "time-limit"), c
for r in rs:
    assert abs(r["speedup_vs_cpu"] - r["median"] / r["cpu"]["median"]) <= 1e-9 * r["speedup_vs_cpu"], r'
	python3 docs/json/check.py results <<<"$output"
}

@test "a CPU baseline stored before its load was kept (schema 7) is of unknown load: measured again once, then the clean one is reused" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	"$AX" --db "$DB" run "${CPUG[@]}"
	# The file as axbench before migration 8 left it.
	sql "alter table cpu_baseline drop column load_1m;
		alter table cpu_baseline drop column busy_other;
		alter table cpu_baseline drop column online_cpus;
		alter table tune_session drop column mode;
		alter table tune_session drop column front_json;
		update cpu_baseline set rel_noise = 0; pragma user_version = 7"
	run "$AX" --db "$DB" results
	assert_success
	assert_output --partial "its schema is older than this build's"
	assert_line --regexp '^vs-cpu of result 1: CPU baseline 1, .*; load not recorded; load-unknown \(measured again when next needed\)$'
	run "$AX" --db "$DB" run "${CPUG[@]}"
	assert_success
	assert_output --partial "stored baseline 1 is not reused: its machine load is unknown (stored before axbench kept it)"
	[ "$(sql 'pragma user_version')" = 9 ]
	[ "$(sql "select group_concat(id || ':' || coalesce(busy_other, 'null') ||
		':' || (median > 0), ' ') from (select * from cpu_baseline
		order by id)" | sed 's/:[0-9.]*:1$/:known:1/')" = "1:null:1 2:known:1" ]
	[ "$(last_cpu)" = 2 ]
	# The new one, clean, is reused from then on; the old one is kept.
	sql "update cpu_baseline set busy_other = 0, rel_noise = 0 where id = 2"
	run "$AX" --db "$DB" run "${CPUG[@]}"
	assert_success
	refute_output --partial "CPU baseline of gemm:"
	[ "$(sql "select count(*) from cpu_baseline")" = 2 ]
	[ "$(last_cpu)" = 2 ]
}

@test "without OpenBLAS the run goes on and says there is no speed-up" {
	export AXBENCH_SYSFS_ROOT="$BATS_TEST_TMPDIR/empty"
	export AXBENCH_OPENBLAS_LIB="$BATS_TEST_TMPDIR/no-libopenblas.so.0"
	run "$AX" --db "$DB" run gemm -p m=64 -p n=64 -p k=64 "${FAST[@]}"
	assert_success
	assert_output --partial "no speed-up over the CPU: OpenBLAS:"
	assert_output --partial "no-libopenblas.so.0"
	[ "$(sql "select count(*) from cpu_baseline")" = 0 ]
	[ "$(sql "select speedup_vs_cpu is null from result")" = 1 ]
}
