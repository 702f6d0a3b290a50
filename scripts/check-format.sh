#!/bin/sh
# make check-format: every C source and header is as .clang-format (and
# clang-format 14, Debian 12's) writes it.  Names each file that differs
# and the command that fixes it.  make format rewrites them (--fix).
set -u
cd "$(dirname "$0")/.." || exit 2
files=$(find cli core suites tuner reports bench tests shaders \
	-name '*.[ch]' -not -path 'tests/fuzz/corpus/*' | sort)
if [ "${1:-}" = "--fix" ]; then
	# shellcheck disable=SC2086
	exec clang-format -i $files
fi
bad=0
for f in $files; do
	if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "check-format: $f differs from .clang-format" >&2
		bad=1
	fi
done
if [ $bad = 0 ]; then
	echo "check-format: every C file follows .clang-format"
else
	echo "check-format: run 'make format' and commit the result" >&2
fi
exit $bad
