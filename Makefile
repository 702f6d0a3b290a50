# axbench - build, test and benchmark.  See README.md.
#
# Sources are found by wildcard, so a new module needs no Makefile edit:
#   core/ suites/ tuner/ reports/ app/ -> build/libax.a (app/ is the
#                                  application layer: unit tests link it)
#   cli/                           -> ./axbench
#   shaders/*.comp                 -> SPIR-V embedded as C arrays
#   tests/unit/test_*.c            -> one binary each, linked with libax.a
#   bench/*.c                      -> one binary each

PKGS    := vulkan sqlite3 yaml-0.1 gsl hwloc jansson zlib uuid
# libshaderc (core/glsl.c: user kernels' GLSL compiled at run time), linked
# statically.  Debian 12's libshaderc.so.1 leaves glslang's symbols to the
# program (glslc carries its own copy) and was built against glslang 11.13
# while glslang-dev ships 12.0: linked with that, its GlslangToSpv crashes
# on 12's syntax tree.  libshaderc_combined.a uses only glslang's public
# API (ShaderLang.h, GlslangToSpv.h: the same in 11.13 and 12.0) and
# SPIRV-Tools' libspirv.hpp and optimizer.hpp (no layout change from
# 2022.4 to 2023.1), so with glslang-dev's and spirv-tools' own static
# libraries, in one group because they refer to each other, it is whole
# and consistent.  Only programs that call core/glsl pull any of it in.
SHADERC_PKGS := shaderc_combined glslang SPIRV-Tools
SHADERC_LIBS := -Wl,--start-group \
	$(shell pkg-config --libs $(SHADERC_PKGS) 2>/dev/null) -lSPIRV \
	-Wl,--end-group -lstdc++
CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter \
           -Wno-missing-field-initializers \
           -I. -I$(B) \
           $(shell pkg-config --cflags $(PKGS) $(SHADERC_PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(SHADERC_LIBS) \
           -lm -lpthread
GLSLC   ?= glslc
VERSION := 0.1.0
# The commit the binary was built from, "-dirty" when the work tree had
# changes: --version prints it and every stored run keeps it.  The
# objects that use it depend on $(B)/git-sha, rewritten only when the
# SHA changes, so a new commit rebuilds them (and nothing else).
GIT_SHA := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell \
	git rev-parse -q --verify HEAD >/dev/null 2>&1 && \
	! git diff --quiet HEAD -- 2>/dev/null && echo -dirty)
GIT_SHA_STAMP = $(B)/git-sha
CFLAGS  += -DAX_VERSION_STRING='"$(VERSION)"' -DAX_GIT_SHA_STRING='"$(GIT_SHA)"'
# core/glsl.c's SPIR-V cache key names the compilers it is linked with
# (glslang's version it reads from glslang's build_info.h).
SHADERC_VERSION := shaderc $(shell pkg-config --modversion shaderc \
	2>/dev/null) spirv-tools $(shell pkg-config --modversion SPIRV-Tools \
	2>/dev/null)
CFLAGS  += -DAX_SHADERC_VERSION='"$(SHADERC_VERSION)"'
B       := build
NPROC   := $(shell nproc 2>/dev/null || echo 1)

LIB_SRC   := $(sort $(wildcard core/*.c suites/*.c tuner/*.c reports/*.c \
	app/*.c))
CLI_SRC   := $(sort $(wildcard cli/*.c))
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
SHADERS   := $(sort $(wildcard shaders/*.comp))

# Extra SPIR-V variants built from one source with -D flags (fp16 etc.).
-include shaders/variants.mk

# Can $(GLSLC) compile GL_KHR_cooperative_matrix?  Debian 12's cannot, so
# gemm kernel=coopmat uses GL_NV_cooperative_matrix; where it can,
# AX_GLSLC_KHR_COOPMAT changes the reason suites/gemm.c gives a device
# that has only VK_KHR_cooperative_matrix (a KHR kernel is a follow-up).
KHR_COOPMAT := $(shell $(GLSLC) --target-env=vulkan1.3 -o /dev/null \
	scripts/khr_coopmat_probe.comp >/dev/null 2>&1 && echo yes)
ifeq ($(KHR_COOPMAT),yes)
CFLAGS  += -DAX_GLSLC_KHR_COOPMAT
endif

SHADER_NAMES := $(basename $(notdir $(SHADERS))) $(VARIANTS)
SHADER_INC   := $(SHADER_NAMES:%=$(B)/shaders/%.inc)
LIB_OBJ   := $(LIB_SRC:%.c=$(B)/%.o) $(B)/shaders/table.o
CLI_OBJ   := $(CLI_SRC:%.c=$(B)/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)

.PHONY: all deps run test test-stress unit check check-deps check-format \
	check-tests format bench bench-tuner clean print-ldlibs
all: axbench

deps:
	@scripts/deps.sh

axbench: $(CLI_OBJ) $(B)/libax.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/libax.a $(LDLIBS)

$(GIT_SHA_STAMP): FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(GIT_SHA)" ] || echo "$(GIT_SHA)" >$@
$(B)/app/session.o $(B)/cli/cmd_monitor.o $(B)/cli/main.o: $(GIT_SHA_STAMP)
.PHONY: FORCE
FORCE:

$(B)/libax.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/%.o: %.c $(B)/shaders/table.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# Shaders: glslc writes the SPIR-V words as a C initializer list (-mfmt=c).
# NAME_ENV (shaders/variants.mk) raises a shader's target environment
# (the cooperative-matrix kernels need the Vulkan memory model of 1.2).
$(B)/shaders/%.inc: shaders/%.comp $(wildcard shaders/*.glsl shaders/*.h) \
	shaders/variants.mk
	@mkdir -p $(dir $@)
	$(GLSLC) --target-env=$(or $($*_ENV),vulkan1.1) -O -Ishaders -mfmt=c \
	    $($*_DEFS) -o $@ $<

# Variants: shaders/variants.mk sets NAME_SRC, NAME_DEFS (and NAME_ENV).
define variant_rule
$(B)/shaders/$(1).inc: shaders/$($(1)_SRC) \
	$(wildcard shaders/*.glsl shaders/*.h) shaders/variants.mk
	@mkdir -p $$(dir $$@)
	$(GLSLC) --target-env=$(or $($(1)_ENV),vulkan1.1) -O -Ishaders \
	    -mfmt=c $($(1)_DEFS) -o $$@ $$<
endef
$(foreach v,$(VARIANTS),$(eval $(call variant_rule,$(v))))

# The shaders no device here can run (shaders/variants.mk SPV_FILES) are
# also kept as SPIR-V binaries, so tests/cli/shaders.bats can hand them
# to spirv-val: for them that and the build are the only checks.
$(B)/shaders/%.spv: $(B)/shaders/%.inc
	@mkdir -p $(dir $@)
	$(GLSLC) --target-env=$(or $($*_ENV),vulkan1.1) -O -Ishaders \
	    $($*_DEFS) -o $@ shaders/$(or $($*_SRC),$*.comp)
SPV_OUT := $(SPV_FILES:%=$(B)/shaders/%.spv)

$(B)/shaders/table.c $(B)/shaders/table.h &: $(SHADER_INC) $(SPV_OUT) \
	scripts/embed-shaders.sh
	@mkdir -p $(B)/shaders
	scripts/embed-shaders.sh $(B)/shaders $(SHADER_NAMES)

$(B)/shaders/table.o: $(B)/shaders/table.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/tests/%: tests/unit/%.c $(B)/libax.a tests/unit/ax_test.h tests/unit/ax_gpu_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(B)/libax.a $(LDLIBS)

# The fake NVML that test_telemetry loads through AXBENCH_NVML_LIB, in a
# current and a pre-535 (no ClocksEventReasons) build.
$(B)/tests/libnvml_stub.so: tests/unit/nvml_stub.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $<
$(B)/tests/libnvml_stub_old.so: tests/unit/nvml_stub.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -fPIC -DNVML_STUB_OLD -o $@ $<
$(B)/tests/test_telemetry: $(B)/tests/libnvml_stub.so \
	$(B)/tests/libnvml_stub_old.so

$(B)/bench/%: bench/%.c $(B)/libax.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(B)/libax.a $(LDLIBS)

unit: $(UNIT_BIN)

# The whole set-up on a fresh machine: deps, build, quick profile, report.
run: deps
	@$(MAKE) --no-print-directory axbench
	./axbench run --profile quick
	./axbench results --run last
	./axbench report -o axbench-report.html

# The build is a phase of its own (scripts/phase.sh: .ci/run prints how
# long each phase took), -j with the shader table first (as in
# scripts/asan.sh); tests/run.sh runs the tests in parallel.
test:
	@scripts/deps.sh --test
	@scripts/phase.sh build sh -c '$(MAKE) --no-print-directory \
	    $(B)/shaders/table.h && $(MAKE) --no-print-directory -j$(NPROC) \
	    axbench unit check'
	@tests/run.sh

# The whole suite three times under a CPU hog on every core (stress-ng):
# a test that depends on the machine's speed or load fails here.
test-stress:
	@scripts/deps.sh --test stress-ng
	@$(MAKE) --no-print-directory axbench unit check
	@scripts/test-stress.sh

# The source rules: module arrows and one home per library header
# (check-deps), and one format (check-format; make format fixes it).
check: check-deps check-format check-tests

check-deps:
	@scripts/check-deps.sh

check-format:
	@scripts/check-format.sh

# Test rules a test cannot keep itself (scripts/check-tests.sh: no
# assertion chained with && in a bats test).
check-tests:
	@scripts/check-tests.sh

format:
	@scripts/check-format.sh --fix

bench: deps
	@$(MAKE) --no-print-directory axbench $(BENCH_BIN)
	@bench/run.sh

bench-tuner: deps
	@$(MAKE) --no-print-directory axbench $(BENCH_BIN)
	@bench/tuner.sh
	@bench/pareto.sh

clean:
	rm -rf build build-asan axbench

# The libraries every program links with, for the scripts that link their
# own (scripts/asan.sh, scripts/fuzz-smoke.sh): one list, this one.
print-ldlibs:
	@echo '$(LDLIBS)'

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

# ---- reliability (docs/RELIABILITY.md) ----------------------------------
# asan: ASan + UBSan build in build-asan/ (binary build-asan/axbench); runs
# the unit tests and every bats file against that binary.
# valgrind: memcheck on the unit tests that open no Vulkan device (lavapipe
# under valgrind trips the fence timeouts of the GPU tests; asan covers
# those), suppressions in tests/valgrind.supp.
# fuzz-smoke: each libFuzzer target in tests/fuzz for FUZZ_SECONDS (20).
.PHONY: asan valgrind fuzz-smoke
FUZZ_SECONDS ?= 20
VG_UNIT := $(filter-out %_gpu $(B)/tests/test_runner,$(UNIT_BIN))

asan:
	@scripts/deps.sh --test clang libclang-rt-14-dev
	@scripts/asan.sh

valgrind:
	@scripts/deps.sh --test valgrind
	@$(MAKE) --no-print-directory $(VG_UNIT)
	@st=0; for t in $(VG_UNIT); do echo "# valgrind: $$t"; \
	    valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite --show-leak-kinds=definite \
	    --num-callers=40 --suppressions=tests/valgrind.supp $$t \
	    || st=1; done; exit $$st

fuzz-smoke:
	@scripts/deps.sh clang libclang-rt-14-dev
	@scripts/fuzz-smoke.sh $(FUZZ_SECONDS)
