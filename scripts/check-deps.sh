#!/bin/sh
# Enforces DESIGN section 2: cli -> app -> {reports, tuner, suites} -> core
# (the application layer, app/, under a thin CLI; DESIGN 2a), and
# each third-party header in exactly one module.  Prints every violation.
set -u
cd "$(dirname "$0")/.." || exit 2
bad=0
violate() { echo "check-deps: $1" >&2; bad=1; }

only_in() { # header, allowed-file-regex
	for f in $(grep -rlE "#include <$1>" core suites tuner reports app cli 2>/dev/null); do
		echo "$f" | grep -qE "$2" || violate "$f includes <$1>; only $2 may"
	done
}
only_in 'sqlite3\.h' '^core/db[a-z_]*\.c$'
only_in 'yaml\.h' '^core/config[a-z_]*\.[ch]$'
only_in 'hwloc\.h' '^core/topo[a-z_]*\.c$'
only_in 'uuid/uuid\.h' '^core/db\.c$'
only_in 'shaderc/shaderc\.h' '^core/glsl[a-z_]*\.c$'
only_in 'vulkan/vulkan\.h' '^(core/vk[a-z_]*\.[ch]|suites/[a-z_]*\.[ch])$'

# Module arrows, on project includes ("dir/file.h").
for f in $(find core tuner reports suites app -name '*.[ch]' 2>/dev/null); do
	mod=${f%%/*}
	for inc in $(grep -oE '#include "[a-z]+/' "$f" | sed 's/.*"//; s/\///'); do
		case "$mod:$inc" in
		core:core | core:shaders | tuner:tuner | tuner:core | suites:suites | \
		suites:core | suites:shaders | reports:reports | reports:core | \
		app:app | app:core | app:suites | app:tuner | app:reports) ;;
		*) violate "$f ($mod/) includes $inc/: arrows go cli -> app -> {reports, tuner, suites} -> core" ;;
		esac
	done
done
# The tuner never sees Vulkan; reports never see Vulkan.
for f in $(grep -rlE '#include "core/vk' tuner reports 2>/dev/null); do
	violate "$f includes core/vk*: the tuner and reports never see Vulkan"
done
# cli/ and app/ may include suite headers (which bring the Vulkan header)
# but never use a Vulkan type, constant or call themselves: string
# literals and comment lines are left out of the search.
for f in cli/*.[ch] app/*.[ch]; do
	sed -e 's/"\([^"\\]\|\\.\)*"//g' -e 's|/\*.*\*/||g' \
	    -e '/^[[:space:]]*\(\*\|\/\*\)/d' "$f" |
		grep -nE '\b(Vk[A-Z][A-Za-z0-9]*|VK_[A-Z0-9_]+|vk[A-Z][A-Za-z0-9]*)\b' |
		while IFS= read -r hit; do
			echo "check-deps: $f: Vulkan in ${f%%/*}/: $hit" >&2
			echo bad
		done
done | grep -q bad && bad=1
[ $bad = 0 ] && echo "check-deps: include rules hold"
exit $bad
