#!/bin/sh
# Enforces DESIGN section 2: cli -> app -> {reports, tuner, suites} -> core
# (the application layer, app/, under a thin CLI; DESIGN 2a), and
# each third-party header in exactly one module, also where a file reaches
# it through a project header.  Prints every violation.
set -u
cd "$(dirname "$0")/.." || exit 2
bad=0
violate() { echo "check-deps: $1" >&2; bad=1; }

# The third-party headers a file reaches: its own #include <...> and,
# through every project header it includes ("dir/file.h", found from
# the root or build/ as -I. -Ibuild find it), theirs, to any depth.
# $reach holds "file header" for every file of every module.
SRC_DIRS="core suites tuner reports cli app"
reach=$(mktemp) || exit 2
trap 'rm -f "$reach"' EXIT
# shellcheck disable=SC2086
find $SRC_DIRS -name '*.[ch]' 2>/dev/null | sort | awk '
function walk(f, line, m, inc, n, i, parts) {
	if (f in seen)
		return
	seen[f] = 1 # a cycle stops here
	while ((getline line < f) > 0) {
		if (match(line, /^[ \t]*#[ \t]*include[ \t]*<[^>]*>/)) {
			m = substr(line, RSTART, RLENGTH)
			sub(/^[^<]*</, "", m); sub(/>$/, "", m)
			has[f, m] = 1; list[f] = list[f] " " m
		} else if (match(line, /^[ \t]*#[ \t]*include[ \t]*"[^"]*"/)) {
			inc = substr(line, RSTART, RLENGTH)
			sub(/^[^"]*"/, "", inc); sub(/"$/, "", inc)
			if ((getline line < inc) >= 0) { close(inc) } else
				inc = "build/" inc
			deps[f] = deps[f] " " inc
		}
	}
	close(f)
	n = split(deps[f], parts, " ")
	for (i = 1; i <= n; i++) {
		walk(parts[i])
		add(f, parts[i])
	}
}
function add(f, g, n, i, hs) {
	n = split(list[g], hs, " ")
	for (i = 1; i <= n; i++)
		if (!has[f, hs[i]]) { has[f, hs[i]] = 1; list[f] = list[f] " " hs[i] }
}
{ walk($0); files[++nf] = $0 }
END {
	for (i = 1; i <= nf; i++) {
		n = split(list[files[i]], hs, " ")
		for (j = 1; j <= n; j++) print files[i], hs[j]
	}
}' >"$reach"
# The project header through which f reaches <h> (empty: directly).
through() { # file, header-regex
	grep -qE "#include <$2>" "$1" && return
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"); do
		grep -qE "^$inc ($2)\$" "$reach" && echo "$inc" && return
	done
}

only_in() { # header-regex, allowed-file-regex
	for f in $(awk -v h="^($1)\$" '$2 ~ h { print $1 }' "$reach" |
		grep -vE "$2"); do
		via=$(through "$f" "$1")
		h=$(echo "$1" | sed 's/\\//g')
		violate "$f includes <$h>${via:+ through $via}; only $2 may"
	done
}
# Vulkan by direct include only: suite headers bring it to cli/ on
# purpose (cli/ is held to no Vulkan names below instead).
only_in_direct() { # header, allowed-file-regex
	# shellcheck disable=SC2086
	for f in $(grep -rlE "#include <$1>" $SRC_DIRS 2>/dev/null); do
		echo "$f" | grep -qE "$2" || violate "$f includes <$1>; only $2 may"
	done
}
only_in 'sqlite3\.h' '^core/db[a-z_]*\.c$'
only_in 'yaml\.h' '^core/config[a-z_]*\.[ch]$'
only_in 'hwloc\.h' '^core/topo[a-z_]*\.c$'
only_in 'uuid/uuid\.h' '^core/db\.c$'
only_in 'shaderc/shaderc\.h' '^core/glsl[a-z_]*\.c$'
only_in_direct 'vulkan/vulkan\.h' '^(core/vk[a-z_]*\.[ch]|suites/[a-z_]*\.[ch])$'

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
