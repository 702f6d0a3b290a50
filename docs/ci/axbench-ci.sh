#!/bin/bash
# axbench's CI regression check, as the GitHub Actions and GitLab CI files
# beside it run it.  It works under `bash -e`, the default shell of a CI
# step: every command whose failure is an answer (a regression, a failed
# result) is caught with `|| status=$?`, so the summary and the report are
# written whatever the verdict, and the step exits with the verdict.
#
#   axbench-ci.sh baseline   on the reference branch: RUNS runs of the
#                            profile, saved together as baseline NAME
#   axbench-ci.sh check      on every change: one run, compared with the
#                            baseline; summary, JUnit, JSON and report
#
# Settings (environment):
#   AXBENCH            the binary (default: axbench on PATH)
#   AXBENCH_DB         the database, kept between jobs (default axbench.db)
#   AXBENCH_BASELINE   the baseline's name (default main)
#   AXBENCH_RUNS       runs in a baseline (default 3): separate processes,
#                      so the noise between processes is in it
#   AXBENCH_ROUNDS     passes over the cases in each run (default 3)
#   AXBENCH_RUN_ARGS   what to run (default "--profile ci")
#   AXBENCH_OUT        where the files go (default axbench-out)
#   GITHUB_STEP_SUMMARY, when set, gets the Markdown summary too.
#
# Exit status: compare's (0 same / faster / noisy, 1 slower or a result
# failed, 2 nothing comparable, 5 storage), else the run's.
set -euo pipefail

ax=${AXBENCH:-axbench}
export AXBENCH_DB=${AXBENCH_DB:-axbench.db}
name=${AXBENCH_BASELINE:-main}
runs=${AXBENCH_RUNS:-3}
rounds=${AXBENCH_ROUNDS:-3}
out=${AXBENCH_OUT:-axbench-out}
read -r -a what <<<"${AXBENCH_RUN_ARGS:---profile ci}"
mkdir -p "$out"

baseline() {
	local status=0
	for _ in $(seq "$runs"); do
		"$ax" run "${what[@]}" --rounds "$rounds" || status=$?
	done
	[ "$status" -eq 0 ] || return "$status"
	"$ax" baseline save "$name" --last "$runs"
}

check() {
	local run_status=0 status=0
	"$ax" run "${what[@]}" --rounds "$rounds" || run_status=$?
	"$ax" compare "baseline:$name" last --markdown "$out/compare.md" \
		--junit "$out/compare.xml" --json "$out/compare.json" ||
		status=$?
	if [ -s "$out/compare.md" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		cat "$out/compare.md" >>"$GITHUB_STEP_SUMMARY"
	fi
	"$ax" report -o "$out/axbench-report.html" || true
	[ "$status" -ne 0 ] || status=$run_status
	return "$status"
}

case "${1:-}" in
baseline) baseline ;;
check) check ;;
*)
	echo "usage: $0 baseline|check (see the comment at its top)" >&2
	exit 2
	;;
esac
