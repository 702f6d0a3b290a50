#!/bin/sh
# make check-tests: the bats test rules that a test cannot keep by itself.
#
# A chain of test commands as a statement, `[ a ] && [ b ]`, in the
# middle of a bats test does not fail the test when `a` fails: bash's
# errexit ignores every command of an && list but the last (bats 1.8.2
# runs tests under set -e and nothing more).  Each assertion goes on a
# line of its own.  Refused: a statement of test commands joined by &&;
# allowed: a test that guards an action (`[ -s f ] && break`), a chain
# that goes on with || (a condition), one inside a quoted string for
# another shell.
set -u
cd "$(dirname "$0")/.." || exit 2
bad=$(awk '
	/^[ \t]*#/ { next }
	{
		line = $0
		sub(/^[ \t]+/, "", line)
		if (line !~ /^(\[\[? |test |! \[)/) next
		if (line !~ / && (\[\[? |test |! \[)/) next
		if (line ~ /(\|\||\\|&&)[ \t]*$/) next
		if (line ~ / \|\| /) next
		if (line ~ /'"'"'[ \t]*$/) next
		printf "%s:%d: %s\n", FILENAME, FNR, line
	}' tests/cli/*.bats tests/cli/*.bash)
if [ -n "$bad" ]; then
	printf "%s\n" "$bad" | sed 's/^/check-tests: /' >&2
	echo "check-tests: a test command chained with && fails the test only" \
	     "when its last part fails; put each assertion on a line of its own" >&2
	exit 1
fi
echo "check-tests: no assertion chained with && in tests/cli"
