#!/bin/bash
# scripts/device-bundle.sh - axbench and everything it loads, in one
# folder that runs on a machine with none of our packages installed (the
# lent GPU machine reaches no package mirror): the binary, its shared
# libraries with this machine's glibc and dynamic loader (so the host's
# glibc does not matter), the Vulkan loader, the Khronos validation
# layer (for --validate), the configs, and a wrapper that sets them up.
#
# Usage: scripts/device-bundle.sh [DIR]   (default build/device)
# Then, there:  AXBENCH=DIR/axbench bench/gpu-check.sh --no-build OUTDIR
# The wrapper points the Vulkan loader at NVIDIA's ICD where the lent
# machines keep it (/usr/local/nvidia/share/vulkan/icd.d) unless
# VK_DRIVER_FILES is set already.  GPU drivers are the host's: never
# bundled.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-build/device}
make --no-print-directory -j"$(nproc)" axbench >/dev/null
rm -rf "$DIR"
mkdir -p "$DIR/bin" "$DIR/lib" "$DIR/layers"
cp axbench "$DIR/bin/"
cp -r configs "$DIR/configs"

# Every library the binary loads, glibc and the loader included.
ldd axbench | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' |
	while read -r lib; do cp -L "$lib" "$DIR/lib/"; done

# The validation layer: its manifest names the library by file name, so
# it is found through the wrapper's library path.
layer=/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json
if [ -f "$layer" ]; then
	cp "$layer" "$DIR/layers/"
	lib=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layer"]["library_path"])' "$layer")
	cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')" \
		"$DIR/lib/"
else
	echo "device-bundle: no validation layer here ($layer); --validate" \
		"will fail there (apt-get install vulkan-validationlayers)" >&2
fi

cat >"$DIR/axbench" <<'EOF'
#!/bin/sh
# axbench from a bundle (scripts/device-bundle.sh): its own glibc and
# libraries, the host's GPU driver.
here=$(cd "$(dirname "$0")" && pwd)
nv=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nv" ]; then
	VK_DRIVER_FILES=$nv
	export VK_DRIVER_FILES
fi
VK_LAYER_PATH=$here/layers${VK_LAYER_PATH:+:$VK_LAYER_PATH}
AXBENCH_CONFIG_DIR=${AXBENCH_CONFIG_DIR:-$here/configs}
export VK_LAYER_PATH AXBENCH_CONFIG_DIR
exec "$here/lib/ld-linux-x86-64.so.2" --library-path "$here/lib" \
	"$here/bin/axbench" "$@"
EOF
chmod +x "$DIR/axbench"
# Debug sections are most of the size; the carry to the device is capped.
strip --strip-debug "$DIR/bin/axbench" "$DIR"/lib/*.so* 2>/dev/null || true
du -sh "$DIR" | awk '{print "device-bundle: " $2 ", " $1}'
