#!/bin/sh
# Installs the Debian 12 packages axbench needs, if any is missing.
# As root: apt-get update + install.  Otherwise: print the command, exit 2.
set -eu
PKGS="build-essential pkg-config libvulkan-dev mesa-vulkan-drivers
vulkan-validationlayers vulkan-tools glslc spirv-tools libhwloc-dev hwloc
libyaml-dev libsqlite3-dev sqlite3 libgsl-dev libjansson-dev zlib1g-dev
bats bats-assert bats-support python3 python3-yaml tidy"
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
