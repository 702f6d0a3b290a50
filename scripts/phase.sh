#!/bin/bash
# scripts/phase.sh NAME CMD...: runs CMD as phase NAME of a test run
# (scripts/phase.bash: the seconds it took go to AX_PHASE_LOG when that
# names a file) and exits with CMD's status.
set -u
[ $# -ge 2 ] || {
	echo "usage: scripts/phase.sh NAME CMD..." >&2
	exit 2
}
# shellcheck source=scripts/phase.bash
source "$(dirname "$0")/phase.bash"
phase_begin "$1"
shift
"$@"
rc=$?
phase_end $rc
exit $rc
