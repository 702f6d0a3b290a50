#!/bin/bash
# make asan: build axbench, libax and the unit tests with AddressSanitizer
# and UndefinedBehaviorSanitizer (clang) into build-asan/, run every unit
# test, then every bats file against build-asan/axbench.
#
# The bats files take their binary from tests/cli/helper.bash
# (AX="$PWD/axbench" at the repository root), so they run from a mirror
# tree, build-asan/tree: symbolic links to the repository's top level,
# with axbench replaced by the sanitized binary and tests/cli copied.
#
# Leaks: LeakSanitizer is on; suppressions cover
# only allocations made inside the Vulkan loader, the lavapipe driver,
# LLVM and the validation layer (libraries we do not build), listed in
# the generated build-asan/lsan.supp below.  The Vulkan loader dlcloses
# the driver and the layers at vkDestroyInstance; what they keep in their
# own globals then looks leaked, from an "<unknown module>" that no
# suppression can name (seen with Mesa 22.3.6-1+deb12u2: 128 bytes from
# lavapipe in every test that opens a device).  A preloaded no-op dlclose
# (build-asan/libkeep_modules.so, built below) keeps every module mapped
# to process exit, so that memory stays reachable from where it belongs;
# leaks in axbench's own code, which is never unloaded, are unaffected.
#
# usage: scripts/asan.sh [BATS_FILE...]   (default: the unit tests and
#        every tests/cli/*.bats; tests/run.sh runs them, in parallel)
set -u
cd "$(dirname "$0")/.." || exit 2
root=$PWD
B=build-asan
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
SAN="$SAN -fno-omit-frame-pointer"
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck source=scripts/phase.bash
source scripts/phase.bash
phase_begin asan-build

# The shader table first and alone: the Makefile's two-target rule for
# table.c/table.h races under -j.
make --no-print-directory B=$B CC=clang OPT="-O1 $SAN" \
	$B/shaders/table.h || exit 2
make --no-print-directory -j"$jobs" B=$B CC=clang OPT="-O1 $SAN" \
	$B/libax.a unit || exit 2
# The CLI objects, linked here: `make axbench` would write ./axbench.
cli_obj=$(for f in cli/*.c; do echo "$B/${f%.c}.o"; done)
# shellcheck disable=SC2086
make --no-print-directory -j"$jobs" B=$B CC=clang OPT="-O1 $SAN" \
	$cli_obj || exit 2
# The Makefile's libraries (print-ldlibs), libshaderc's static ones too.
# shellcheck disable=SC2046,SC2086
clang -O1 $SAN -o $B/axbench $cli_obj $B/libax.a \
	$(make --no-print-directory -s print-ldlibs) || exit 2

# Driver-side allocations that are still reachable or leaked at exit in
# code we do not build (each is loaded by the Vulkan loader at run time).
cat >$B/lsan.supp <<'SUPP'
# Mesa lavapipe and its LLVM JIT keep per-process caches.
leak:libvulkan_lvp.so
leak:libLLVM
# The Khronos validation layer's global state.
leak:libVkLayer_khronos_validation.so
# The Vulkan loader's layer and ICD lists (freed at instance destroy
# only when every device was destroyed; not after a fence timeout).
leak:libvulkan.so
# hwloc's core keeps component registrations for the process.
leak:libhwloc
# glibc's dlerror() state, reachable only from thread-local storage,
# which LeakSanitizer does not scan here (use_tls=0, below).
leak:_dlerror_run
leak:_dl_exception_create_format
# glibc's dlopen: the dependency list it builds for a library opened
# RTLD_LOCAL (OpenBLAS for the CPU baselines, and in their test GSL's
# libgslcblas, refused as not OpenBLAS), kept with the library, which
# libkeep_modules (below) never unloads.
leak:_dl_map_object_deps
SUPP

# No module is unloaded before exit (see the comment at the top).
cat >$B/keep_modules.c <<'KEEP'
int dlclose(void *handle) { (void)handle; return 0; }
KEEP
cc -shared -fPIC -o $B/libkeep_modules.so $B/keep_modules.c || exit 2
phase_end
export LD_PRELOAD="$root/$B/libkeep_modules.so${LD_PRELOAD:+:$LD_PRELOAD}"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=0:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$root/$B/lsan.supp:print_suppressions=0:use_tls=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export AXBENCH_VALIDATE=1
# hwloc dlopens its plugins and unloads them at topology destroy, so what
# they keep shows as leaks in an "<unknown module>" no suppression can
# name (slow unwinding, which could, deadlocks lavapipe threads in
# libgcc's unwinder).  Without plugins hwloc's built-in Linux backend
# still finds the PCI devices through sysfs.
export HWLOC_PLUGINS_PATH=/nonexistent

# LeakSanitizer's stop-the-world tracer crashed at exit in about one run
# in three of `tune --resume` ("Tracer caught signal 11: addr=0x178",
# then "LeakSanitizer has encountered a fatal error"): with
# LSAN_OPTIONS=verbosity=1 the last line before the crash was "DTLS 4 at
# 0x000000000171-0x002000001273", a dynamic-TLS block with garbage bounds
# that clang 14's runtime walks on glibc 2.36.  use_tls=0 (above) skips
# thread-local roots, and with them that walk: 0 crashes in 10 runs of
# that test, against 2 in 6 before, and no leak in the whole suite but
# glibc's own dlerror state, suppressed above.  Should a tracer crash
# still happen (google/sanitizers#1353), a test that failed that way, and
# only that way, runs once more; any failure of the second run stands.
# Each retry is said in the log.
export AX_TEST_RETRY='Tracer caught signal'
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Mirror tree for bats: everything links back except axbench and the
# bats directory (copied, so BATS_TEST_DIRNAME/../.. is the mirror).
tree=$B/tree
rm -rf "$tree"
mkdir -p "$tree/tests/cli"
for e in "$root"/* "$root"/.[!.]*; do
	n=$(basename "$e")
	case "$n" in axbench|tests|"$B"|.git) continue ;; esac
	ln -s "$e" "$tree/$n"
done
for e in "$root"/tests/*; do
	[ "$(basename "$e")" = cli ] || ln -s "$e" "$tree/tests/"
done
# Every file of tests/cli: the bats files, their helper, and the
# checkers they run beside them (report_check.py).
cp "$root"/tests/cli/* "$tree/tests/cli/"
ln -s "$root/$B/axbench" "$tree/axbench"
# Tests reach the shared landscapes as ../shared from the repository.
[ -e "$root/../shared" ] && ln -sfn "$root/../shared" "$B/shared"

# The unit binaries and the bats files of the mirror tree, in parallel
# and with the serial ones after, as tests/run.sh runs them for make test,
# but one job per core and the unit binaries first: under ASan's
# allocator lavapipe's LLVM compiles a pipeline several times slower, at
# its first dispatch, inside the 60 s fence timeout, and with two jobs a
# core an attention case's compile ran past it (seen in CI's set-up).
export AX_TEST_JOBS=${AX_TEST_JOBS:-$jobs} AX_TEST_UNITS_BESIDE=0
AX_TEST_UNIT=$B/tests AX_TEST_BATS=$tree/tests/cli AX_TEST_LABEL=asan- \
	tests/run.sh "$@" | tee "$log"
status=${PIPESTATUS[0]}
san=$(grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$log")
echo "# asan: $san sanitizer reports"
[ "$san" -gt 0 ] && status=1
exit $status
