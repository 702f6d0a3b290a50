#!/bin/sh
# Installs the Debian 12 packages axbench needs, if any is missing.
#   scripts/deps.sh            build + run: compiler, pkg-config, the
#                              libraries (libshaderc-dev, glslang-dev and
#                              spirv-tools: user kernels' GLSL compiled at
#                              run time, linked statically, see the
#                              Makefile), glslc, the Vulkan loader, lavapipe,
#                              OpenBLAS (the CPU baselines dlopen
#                              libopenblas.so.0 at run time; it is never
#                              linked, so the build does not need it)
#   scripts/deps.sh --test     also what the tests use: bats, the
#                              validation layer, sqlite3 and python3-yaml
#                              (independent checkers), python3-jsonschema
#                              (docs/json/check.py), tidy and chromium
#                              (the report must validate and render
#                              offline), time, clang-format (make
#                              check-format), slurm-wlm, slurm-client
#                              and munge (tests/cli/fleet_slurm.bats runs
#                              a one-node cluster; their postinst may try
#                              to start services, which nothing relies on)
#                              and tmux (tests/cli/terminal.bats: the live
#                              lines in a real 80-column terminal)
#   scripts/deps.sh PKG...     also the named packages (asan, fuzzing)
# As root: apt-get update + install.  Otherwise: print the command, exit 2.
set -eu
PKGS="build-essential pkg-config libvulkan-dev mesa-vulkan-drivers
vulkan-validationlayers vulkan-tools glslc spirv-tools libhwloc-dev hwloc
libyaml-dev libsqlite3-dev sqlite3 libgsl-dev libjansson-dev zlib1g-dev
libopenblas-dev libshaderc-dev glslang-dev uuid-dev"
TEST_PKGS="bats bats-assert bats-support python3 python3-yaml
python3-jsonschema tidy chromium time clang-format slurm-wlm slurm-client
munge tmux"
if [ "${1:-}" = "--test" ]; then
	shift
	PKGS="$PKGS $TEST_PKGS"
fi
PKGS="$PKGS $*"
missing=""
for p in $PKGS; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
cmd="apt-get update && apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "axbench: missing Debian packages:$missing" >&2
	echo "axbench: run as root:  $cmd" >&2
	exit 2
fi
echo "axbench: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
