#!/usr/bin/env bats
# axbench report with systems side by side (issue 15): two machines'
# databases make one report with one colour per system, ratios to the
# reference, an overview, the run's facts, and text that fits its chart;
# checked in the HTML, by an SVG geometry estimate, and in headless
# Chromium through the DevTools protocol (tests/cli/report_check.py).
load helper
bats_require_minimum_version 1.5.0

setup() {
	ax_setup
	T="$BATS_TEST_TMPDIR"
	CHECK="$BATS_TEST_DIRNAME/report_check.py"
}

# This machine's runs in $DB, and $T/other.db: a copy whose device is
# renamed and whose figures (medians, intervals, samples) are 0.8 of
# these, with gemm failed, as a slower second machine's database.
two_machines() {
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K,64K \
		"${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run gemm -p m=64 -p n=64 -p k=64 \
		--cpu-baseline off "${FAST[@]}"
	assert_success
	cp "$DB" "$T/other.db"
	sqlite3 "$T/other.db" "
	    UPDATE device SET name = 'Other GPU 8000';
	    UPDATE result SET median = median * 0.8, min = min * 0.8,
		max = max * 0.8, mean = mean * 0.8, q1 = q1 * 0.8,
		q3 = q3 * 0.8, ci_lo = ci_lo * 0.8, ci_hi = ci_hi * 0.8;
	    UPDATE sample SET value = value * 0.8;
	    UPDATE result SET status = 'failed-verification',
		error_text = 'checksum mismatch' WHERE suite = 'gemm';"
}

# The report's HTML before its embedded data (whose JSON repeats every
# stored string).
shown() { sed '/<h2 id="data">/,$d' "$1"; }

# The per-case section of a report.
per_case() { sed -n '/<h2 id="medians">/,/<h2 id="roofline">/p' "$1"; }

@test "two databases make one report of two systems, with ratios" {
	two_machines
	sum=$(cat "$DB" "$T/other.db" | md5sum)
	run "$AX" report "$DB" "$T/other.db" -o "$T/r.html"
	assert_success
	# Read-only: neither database changed.
	[ "$(cat "$DB" "$T/other.db" | md5sum)" = "$sum" ]
	shown "$T/r.html" >"$T/shown"
	grep -qF 'on 2 systems from 2 databases' "$T/shown"
	# Each system its colour (a square glyph in it) and number.
	grep -qF '<span class="sw c0">■</span>#1 ' "$T/shown"
	grep -qF '<span class="sw c1">■</span>#2 ' "$T/shown"
	grep -qF 'Other GPU 8000</span>' "$T/shown"
	grep -qF 'fill="#0072B2"' "$T/shown"
	grep -qF 'fill="#E69F00"' "$T/shown"
	# The systems table: the differing device row marked, the run's
	# facts shown.
	grep -qF '<tr class="diff"><th scope="row">Device' "$T/shown"
	grep -qF '<th scope="row">Command line</th>' "$T/shown"
	grep -qF 'run bandwidth -p op=copy -p size=16K,64K' "$T/shown"
	grep -qF '<th scope="row">Commit</th>' "$T/shown"
	# The overview: 0.8 on the two shared bandwidth cases; the failed
	# gemm is left out of the mean and said.
	grep -qF 'over the 2 cases that every system measured' "$T/shown"
	grep -qF '0.80× (-20 %, slower); 0 wins, 2 losses, 0 ties' \
		"$T/shown"
	grep -qF '1 case measured (or passed) on some systems only is left' \
		"$T/shown"
	# Per case: the ratio beside each bar (before "% of spec", which
	# follows it); the failure as a failure.
	[ "$(grep -cE '· 0\.80× \(-20 %, slower\)( · [^<]*)?</text>' \
		"$T/shown")" -eq 2 ]
	grep -qF '>failed: failed verification (no figure)</text>' \
		"$T/shown"
	# The other machine as the reference: this one is 1.25x faster.
	run "$AX" report "$DB" --db-extra "$T/other.db" --reference 8000 \
		-o "$T/ref.html"
	assert_success
	grep -qF '1.25× faster (+25 %); 2 wins, 0 losses, 0 ties' \
		"$T/ref.html"
	# No text passes its SVG's edge, by a conservative estimate
	# (characters x font size x 0.6), in either report.
	for f in r ref; do
		run python3 "$CHECK" geometry "$T/$f.html"
		assert_success
		python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["svgs"] >= 4 and d["texts"] > 50, d
assert not d["overflow"], d["overflow"]' "$output"
	done
}

@test "in headless Chromium: two colours, the ratios, nothing overflows, no request" {
	command -v chromium >/dev/null ||
		skip "chromium is not installed (Debian package chromium)"
	two_machines
	run "$AX" report "$DB" "$T/other.db" -o "$T/r.html"
	assert_success
	run timeout 600 python3 "$CHECK" browser "$T/r.html"
	assert_success
	echo "$output" >"$T/cdp.json"
	run python3 - "$T/cdp.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	# Bars of system 0 and of system 1, one fill each, and they differ.
	f = d["fills"]
	assert len(f["0"]) == 1 and len(f["1"]) == 1, f
	assert f["0"] != f["1"], f
	text = " ".join(d["svg_text"])
	assert "0.80× (-20 %, slower)" in text, text[:300]
	assert "reference" in text
	# Rendered text boxes inside their SVG (getBoundingClientRect).
	assert d["texts"] > 50 and not d["overflow"], d["overflow"]
	# Nothing fetched, nothing logged (a CSP refusal would be).
	assert d["requests"] == [], d["requests"]
	assert d["console"] == [], d["console"]
	print("ok", d["svgs"], d["texts"])
	EOF
	assert_success
	assert_output --partial "ok"
}

@test "--runs, --label-by run, --reference, --include-tune and their errors" {
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" tune bandwidth -p op=copy -p size=16K --budget 3 \
		--strategy random --seed 1
	assert_success
	# Unlabelled runs on one device are one system by default...
	run "$AX" --db "$DB" report --runs 1,2 -o "$T/a.html"
	assert_success
	grep -qF 'One system, <span class="sys">' "$T/a.html"
	# ...and two with --label-by run, compared with the second.
	run "$AX" --db "$DB" report --runs 1,2 --label-by run \
		--reference 'run 2' -o "$T/b.html"
	assert_success
	shown "$T/b.html" >"$T/shown"
	# (each run carries its default label, HOST/DEVICE)
	grep -qE '#1 [^<]*llvmpipe[^<]* \(run 1\)</span>' "$T/shown"
	grep -qE '#2 [^<]*llvmpipe[^<]* \(run 2\)</span> <span class="badge">reference</span>' \
		"$T/shown"
	grep -qF 'selection: runs 1 2; systems by run' "$T/shown"
	run "$AX" --db "$DB" report --devices llvmpipe,lavapipe -o "$T/d.html"
	assert_failure 2
	run "$AX" --db "$DB" report --devices llvmpipe -o "$T/d.html"
	assert_success
	# Tuning measurements: their own section, out of the case charts.
	run "$AX" --db "$DB" report -o "$T/t.html"
	assert_success
	shown "$T/t.html" >"$T/shown"
	grep -qF 'Best point of each session' "$T/shown"
	grep -qE 'measurements of tuning sessions are left out' "$T/shown"
	per_case "$T/t.html" >"$T/cases"
	grep -qF '>op=copy size=16K</text>' "$T/cases"
	run ! grep -qE '(wg|vec|epi)=[0-9]+' "$T/cases"
	run "$AX" --db "$DB" report --include-tune -o "$T/t.html"
	assert_success
	per_case "$T/t.html" >"$T/cases"
	grep -qE '>([a-z]+=[0-9K]+ )*(wg|vec|epi)=[0-9]+' "$T/cases"
	# Mistakes exit 2 and write nothing.
	run "$AX" --db "$DB" report --reference nosuch -o "$T/x.html"
	assert_failure 2
	assert_output --partial "--reference 'nosuch' matches no system; the systems are 1 "
	run "$AX" --db "$DB" report --runs 1,,2 -o "$T/x.html"
	assert_failure 2
	assert_output --partial "has an empty item"
	run "$AX" --db "$DB" report --devices llvmpipe,nosuch -o "$T/x.html"
	assert_failure 2
	assert_output --partial "--device 'nosuch' matches no stored device"
	run "$AX" --db "$DB" report --label-by colour -o "$T/x.html"
	assert_failure 2
	assert_output --partial "label, run, device or host"
	run "$AX" --db "$DB" report "$T/missing.db" -o "$T/x.html"
	assert_failure 2
	assert_output --partial "missing.db"
	run "$AX" --db "$DB" report "$DB" -o "$T/x.html"
	assert_failure 2
	assert_output --partial "is named twice"
	[ ! -e "$T/x.html" ]
}

@test "runs across databases: last is each one's newest, a missing id is said" {
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	assert_success
	cp "$DB" "$T/other.db"
	sqlite3 "$T/other.db" "UPDATE device SET name = 'Other GPU 8000'"
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K "${FAST[@]}"
	assert_success
	# last: run 2 here, run 1 there.
	run "$AX" --db "$DB" report --db-extra "$T/other.db" --runs last \
		-o "$T/r.html"
	assert_success
	python3 - "$T/r.html" <<-'EOF'
	import json, re, sys
	html = open(sys.argv[1], encoding="utf-8").read()
	m = re.search(r'id="axbench-data">(.*?)</script>', html, re.S)
	d = json.loads(m.group(1))
	got = sorted((r["source"].rsplit("/", 1)[1], r["run_id"])
	             for r in d["results"])
	assert got == [("ax.db", 2), ("other.db", 1)], got
	EOF
	# last~1: the run before each one's newest, in the one that has it
	# (it selected every run of both before)
	run "$AX" --db "$DB" report --db-extra "$T/other.db" --runs last~1 \
		-o "$T/r1.html"
	assert_failure 2
	assert_output --partial "the selected runs include none of $T/other.db"
	run "$AX" --db "$DB" report --db-extra "$T/other.db" \
		--runs last~1,last -o "$T/r1.html"
	assert_success
	# runs 1 and 2 here (the table shows a case's newest result), 1 there
	assert_output --partial " in 3 runs written to $T/r1.html"
	run "$AX" --db "$DB" report --db-extra "$T/other.db" --runs last~9 \
		-o "$T/x.html"
	assert_failure 2
	assert_output --partial "no run last~9 in any of the 2 databases"
	# An id only one database holds leaves the other without a run.
	run "$AX" --db "$DB" report --db-extra "$T/other.db" --runs 2 \
		-o "$T/x.html"
	assert_failure 2
	assert_output --partial "the selected runs include none of $T/other.db"
	run "$AX" --db "$DB" report --db-extra "$T/other.db" --runs 7 \
		-o "$T/x.html"
	assert_failure 2
	assert_output --partial "no run 7 in any of the 2 databases"
	[ ! -e "$T/x.html" ]
}

# The runs whose raw samples the report $1 draws, "db run" each.
sampled_runs() {
	python3 - "$1" <<-'PY'
	import json, re, sys
	html = open(sys.argv[1], encoding="utf-8").read()
	m = re.search(r'id="axbench-data">(.*?)</script>', html, re.S)
	d = json.loads(m.group(1))
	print(" ".join(sorted({"%s:%d" % ((r.get("source") or "-")
	                                  .rsplit("/", 1)[-1], r["run_id"])
	                       for r in d["sampled"]})))
	PY
}

@test "a tune session beside two runs: two systems, an overall figure, samples of a plain run" {
	# Two systems (labels A and B, two databases), then a tuning
	# session in the first: its run carries the default label, so it
	# used to be a third system, measured nowhere in the case charts.
	run "$AX" --db "$DB" run bandwidth -p op=copy -p size=16K,64K \
		--label A "${FAST[@]}"
	assert_success
	cp "$DB" "$T/b.db"
	sqlite3 "$T/b.db" "
	    UPDATE device SET name = 'Other GPU 8000';
	    UPDATE run SET label = 'B';
	    UPDATE result SET median = median * 0.8, ci_lo = ci_lo * 0.8,
		ci_hi = ci_hi * 0.8;"
	run "$AX" --db "$DB" tune bandwidth -p op=copy -p size=16K \
		--budget 3 --retime 0 --strategy random --seed 1
	assert_success
	[ "$(sql "select count(*) from run")" -eq 2 ]
	run "$AX" report "$DB" "$T/b.db" -o "$T/r.html"
	assert_success
	shown "$T/r.html" >"$T/shown"
	grep -qF ' in 3 runs on 2 systems;' "$T/shown"
	grep -qF '; 1 tune run makes no system' "$T/shown"
	grep -qF '#1 A</span>' "$T/shown"
	grep -qF '#2 B</span>' "$T/shown"
	run ! grep -qF '#3 ' "$T/shown"
	run ! grep -qF 'not measured' "$T/shown"
	# The overall figure, over the two cases both systems measured.
	grep -qF 'over the 2 cases that every system measured' "$T/shown"
	grep -qE '0\.80× \(-20 %, slower\); 0 wins, 2 losses, 0 ties' \
		"$T/shown"
	run ! grep -qF 'No case was measured by every system' "$T/shown"
	# The systems table lists no tune run; the Tuning section still
	# charts the session.
	run ! grep -qF 'ax.db run 2 (' "$T/shown"
	grep -qF 'Tuner convergence on bandwidth' "$T/shown"
	# Samples: of each database's newest plain run, not the tune run.
	[ "$(sampled_runs "$T/r.html")" = "ax.db:1 b.db:1" ]
	# One database: --run 1, the default and last never draw run 2...
	for sel in "--run 1" "" "--samples-for last" "--run 1 --samples-for last"; do
		# shellcheck disable=SC2086
		run "$AX" --db "$DB" report $sel -o "$T/s.html"
		assert_success
		[ "$(sampled_runs "$T/s.html")" = "-:1" ]
	done
	grep -qF 'on 1 system; ' "$T/s.html"
	# ...an explicit id is drawn, but only from the selected runs.
	run "$AX" --db "$DB" report --samples-for 2 -o "$T/s.html"
	assert_success
	[ "$(sampled_runs "$T/s.html")" = "-:2" ]
	run "$AX" --db "$DB" report --run 1 --samples-for 2 -o "$T/x.html"
	assert_failure 2
	assert_output --partial "--samples-for 2: the selection (--runs, --since) leaves out that run"
	[ ! -e "$T/x.html" ]
	# --include-tune: the tune run is a system again, its trials charted.
	run "$AX" --db "$DB" report --include-tune -o "$T/t.html"
	assert_success
	grep -qF 'on 2 systems; ' "$T/t.html"
	grep -qF 'Tuner convergence on bandwidth' "$T/t.html"
}

@test "no case shared by every system: each against the reference over the cases the two share" {
	# A measures two cases, B one of them, C the other.
	for l in "A 16K,64K" "B 16K" "C 64K"; do
		set -- $l
		run "$AX" --db "$DB" run bandwidth -p op=copy -p size="$2" \
			--label "$1" "${FAST[@]}"
		assert_success
	done
	# Figures that hold at any load: A 10, B 8, C 12.5 GB/s.
	sql "UPDATE result SET median = CASE run_id WHEN 1 THEN 10
		WHEN 2 THEN 8 ELSE 12.5 END;
	     UPDATE result SET ci_lo = median * 0.99, ci_hi = median * 1.01"
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	shown "$T/r.html" >"$T/shown"
	grep -qF 'on 3 systems' "$T/shown"
	grep -qF 'over the cases that system and the reference both measured' \
		"$T/shown"
	grep -qF '0.80× (-20 %, slower); 0 wins, 1 loss, 0 ties over 1 shared case' \
		"$T/shown"
	grep -qF '1.25× faster (+25 %); 1 win, 0 losses, 0 ties over 1 shared case' \
		"$T/shown"
	run ! grep -qF 'there is no overall figure' "$T/shown"
	# The longer bar texts still fit their chart.
	run python3 "$CHECK" geometry "$T/r.html"
	assert_success
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert not d["overflow"], d["overflow"]' "$output"
}

@test "charts read at a glance in headless Chromium: log axis past 10x, no curve under 3 points, direct labels, speed-ups uncut, spec unknown once" {
	command -v chromium >/dev/null ||
		skip "chromium is not installed (Debian package chromium)"
	# copy and dma at three sizes, read at two; gemm with its CPU
	# baseline (the speed-up table); a tune, whose trials stay out.
	run "$AX" --db "$DB" run bandwidth -p op=copy,dma,read \
		-p size=16K,64K,256K "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run bandwidth -p op=write -p size=16K,64K \
		"${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" run gemm -p m=64 -p n=64 -p k=64 "${FAST[@]}"
	assert_success
	run "$AX" --db "$DB" tune gemm -p m=64 -p n=64 -p k=64 --budget 3 \
		--strategy random --seed 1
	assert_success
	run "$AX" --db "$DB" report -o "$T/r.html"
	assert_success
	run timeout 600 python3 "$CHECK" browser "$T/r.html"
	assert_success
	echo "$output" >"$T/cdp.json"
	run python3 - "$T/cdp.json" "$T/r.html" <<-'EOF'
	import json, re, sys
	d = json.load(open(sys.argv[1]))
	html = open(sys.argv[2]).read()
	data = json.loads(re.search(
	    r'<script type="application/json" id="axbench-data">(.*?)</script>',
	    html, re.S).group(1))
	bw = [r["median"] for r in data["results"]
	      if r["suite"] == "bandwidth" and r["status"] == "ok"]
	# A log axis exactly where the medians are more than 10x apart
	# (measured figures: either may come out).
	bars = re.search(r'aria-label="bandwidth: median.*?</svg>', html,
	                 re.S).group(0)
	assert ("(log scale)" in bars) == (max(bw) > 10 * min(bw)), (bw, bars[-300:])
	curve = re.search(r'aria-label="Bandwidth against.*?</svg>', html,
	                  re.S).group(0)
	# Three series of three sizes are lines; write's two sizes are not.
	assert curve.count("<polyline") == 3, curve.count("<polyline")
	for tag in ("#1 op=copy", "#1 op=dma", "#1 op=read", "#1 op=write"):
	    assert ">%s</text>" % tag in curve, tag
	# Rendered: every text inside its chart, no table cut at the edge,
	# nothing fetched or logged.
	assert not d["overflow"], d["overflow"]
	assert d["wide_cut"] == [], d["wide_cut"]
	assert d["requests"] == [] and d["console"] == [], d
	text = d["body_text"]
	# The tune's trials are left out of the speed-up table, and said to be.
	assert re.search(r"\d+ tuning trials? with a speed-up (is|are) left out",
	                 text), text[:200]
	rows = re.findall(r"[\d.]+\u00d7 (?:slower|faster) than the host CPU", text)
	assert len(rows) == 1, rows
	# lavapipe is in no specs table: said once, not on every bar.
	assert text.count("Spec unknown for") == 1, text.count("Spec unknown for")
	assert "spec unknown" not in " ".join(d["svg_text"])
	print("ok", len(bw))
	EOF
	assert_success
	assert_output --partial "ok"
}
