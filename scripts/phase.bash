# Sourced by tests/run.sh, scripts/asan.sh, scripts/phase.sh and .ci/run:
# the time each phase of a test run took, one line "NAME SECONDS STATUS"
# appended to the file AX_PHASE_LOG names (nothing when it is unset or
# empty), so that .ci/run can print where its time went and which phase
# is over its budget.
phase_begin() {
	_phase_name=$1
	_phase_start=$(date +%s)
}

# phase_end [STATUS]: closes the phase phase_begin opened; prints and
# records how long it took.
phase_end() {
	local secs=$(($(date +%s) - _phase_start))
	echo "# phase $_phase_name: $secs s (exit ${1:-0})"
	if [ -n "${AX_PHASE_LOG:-}" ]; then
		echo "$_phase_name $secs ${1:-0}" >>"$AX_PHASE_LOG"
	fi
}
