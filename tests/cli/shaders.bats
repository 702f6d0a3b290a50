#!/usr/bin/env bats
# The shaders no device here can run (shaders/variants.mk SPV_FILES: the
# cooperative-matrix gemm, which needs VK_NV_cooperative_matrix) are built
# by make, kept as build/shaders/NAME.spv, and checked statically here.
load helper

# The SPIR-V of the build under test: beside the binary's own build
# (scripts/asan.sh tests build-asan/axbench, whose shaders are in
# build-asan/shaders), else the default build's.
setup() {
	ax_setup
	local dir
	for dir in "$(dirname "$(readlink -f "$AX")")/shaders" build/shaders; do
		[ -s "$dir/gemm_coopmat.spv" ] && break
	done
	SPV=("$dir/gemm_coopmat.spv" "$dir/gemm_coopmat_acc16.spv"
		"$dir/peak_matrix.spv")
}

@test "the cooperative-matrix SPIR-V (gemm, peak type=matrix) passes spirv-val for Vulkan 1.2" {
	command -v spirv-val >/dev/null || skip "spirv-val is not installed (Debian: spirv-tools)"
	for f in "${SPV[@]}"; do
		[ -s "$f" ] || fail "$f is missing: run make"
		run spirv-val --target-env vulkan1.2 "$f"
		assert_success
		refute_output
	done
}

# core/vk_device.c enables what these capabilities need (shaderFloat16,
# vulkanMemoryModel, VK_NV_cooperative_matrix; GroupNonUniform is core
# 1.1): a shader change that declares another one must enable it there too.
@test "the cooperative-matrix shaders declare only the capabilities the device code enables" {
	command -v spirv-dis >/dev/null || skip "spirv-dis is not installed (Debian: spirv-tools)"
	for f in "${SPV[@]}"; do
		[ -s "$f" ] || fail "$f is missing: run make"
		run bash -c "spirv-dis '$f' | awk '\$1 == \"OpCapability\" { print \$2 }' | sort | tr '\n' ' '"
		assert_success
		assert_output "CooperativeMatrixNV Float16 GroupNonUniform Shader VulkanMemoryModel "
		run bash -c "spirv-dis '$f' | grep -E 'OpMemoryModel|OpExtension '"
		assert_output --partial "OpMemoryModel Logical Vulkan"
		assert_output --partial 'OpExtension "SPV_NV_cooperative_matrix"'
	done
}
