#!/usr/bin/env bats
# The CI recipe as shipped (docs/ci/axbench-ci.sh, run by the GitHub
# Actions and GitLab CI files beside it), under `bash -e` as a CI step
# runs it: a regression still writes the summary, JUnit, JSON and report
# before the step fails with compare's exit status.
load helper

setup() {
	ax_setup
	T="$BATS_TEST_TMPDIR"
	export AXBENCH="$AX" AXBENCH_DB="$DB" AXBENCH_OUT="$T/out"
	export AXBENCH_RUNS=2 AXBENCH_ROUNDS=2
	export AXBENCH_RUN_ARGS="latency --min-samples 10 --max-samples 10 --min-time 0 --max-time 2 --warmup 1"
}

@test "the workflow files parse and run the recipe's two steps" {
	run python3 - docs/ci/github-actions.yml docs/ci/gitlab-ci.yml <<-'EOF'
	import sys, yaml
	gh = yaml.safe_load(open(sys.argv[1]))
	steps = [s.get("run", "") for s in gh["jobs"]["axbench"]["steps"]]
	assert any("axbench-ci.sh baseline" in s for s in steps), steps
	assert any("axbench-ci.sh check" in s for s in steps), steps
	gl = yaml.safe_load(open(sys.argv[2]))
	assert "axbench-ci.sh baseline" in gl["axbench-baseline"]["script"][0]
	assert "axbench-ci.sh check" in gl["axbench-check"]["script"][0]
	assert gl["axbench-check"]["artifacts"]["reports"]["junit"].endswith("compare.xml")
	print("ok")
	EOF
	assert_success
	assert_output "ok"
	run bash -n docs/ci/axbench-ci.sh
	assert_success
}

@test "under bash -e a regression exits 1 after the summary, JUnit, JSON and report are written" {
	run bash -e docs/ci/axbench-ci.sh baseline
	assert_success
	run "$AX" --db "$DB" baseline list --json
	assert_success
	run python3 -c 'import json,sys; b=json.load(sys.stdin); print(b[0]["name"], len(b[0]["run_ids"]))' <<<"$output"
	assert_output "main 2"
	# The baseline's latency made 1000 times shorter, its samples a
	# steady +/-2 % around that: the candidate, measured for real, is
	# then about 1000 times slower, a regression however noisy its own
	# samples are on a loaded machine (its replicates' spread, +/-241 %
	# seen beside other tests, implies a minimum effect of some 600 %).
	sqlite3 "$DB" "UPDATE result SET median = median / 1000;
		UPDATE sample SET value = (SELECT median FROM result
		WHERE result.id = sample.result_id) *
		(1 + (((idx * 7) % 11) - 5) * 0.004)"
	export GITHUB_STEP_SUMMARY="$T/summary.md"
	run bash -e docs/ci/axbench-ci.sh check
	assert_failure 1
	grep -q "slower (regression)" "$T/out/compare.md"
	grep -q "slower (regression)" "$T/summary.md"
	grep -q 'failures="1"' "$T/out/compare.xml"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["regressions"] == 1, d["summary"]' "$T/out/compare.json"
	[ -s "$T/out/axbench-report.html" ]
}

@test "a step without a verb is refused with its usage" {
	run bash -e docs/ci/axbench-ci.sh
	assert_failure 2
	assert_output --partial "usage:"
}

# The README's inline recipe (the sh block under "A CI regression check")
# is copied into CI steps outside GitHub too: its summary line must not
# stop a `bash -e` step where GITHUB_STEP_SUMMARY is unset, and must
# append where it is set.  Only that line runs here: the rest is the
# shipped script's, which the test above runs whole.
@test "the README recipe's job-summary line works under bash -e with GITHUB_STEP_SUMMARY unset and set" {
	line=$(python3 -c '
import re, sys
text = open("README.md").read()
part = text.split("## A CI regression check", 1)[1]
block = re.search(r"```sh\n(.*?)```", part, re.S).group(1)
print("\n".join(l for l in block.splitlines() if "GITHUB_STEP_SUMMARY" in l and not l.lstrip().startswith("#")))
')
	[ -n "$line" ]
	cd "$T"
	echo "| verdict |" >compare.md
	run env -u GITHUB_STEP_SUMMARY bash -e -c "$line; echo after"
	assert_success
	assert_output "after"
	run env GITHUB_STEP_SUMMARY="$T/summary.md" bash -e -c "$line; echo after"
	assert_success
	grep -q "| verdict |" "$T/summary.md"
}
