# Extra SPIR-V builds of one source with -D flags (see the Makefile).
# One block per variant: VARIANTS += name, name_SRC, name_DEFS.

VARIANTS += gemm_f16
gemm_f16_SRC := gemm.comp
gemm_f16_DEFS := -DAX_F16

VARIANTS += peak_f16
peak_f16_SRC := peak.comp
peak_f16_DEFS := -DAX_PEAK_F16

VARIANTS += peak_i32
peak_i32_SRC := peak.comp
peak_i32_DEFS := -DAX_PEAK_I32

VARIANTS += peak_f16x2
peak_f16x2_SRC := peak.comp
peak_f16x2_DEFS := -DAX_PEAK_F16X2

VARIANTS += peak_f64
peak_f64_SRC := peak.comp
peak_f64_DEFS := -DAX_PEAK_F64

VARIANTS += peak_i64
peak_i64_SRC := peak.comp
peak_i64_DEFS := -DAX_PEAK_I64

VARIANTS += peak_i16
peak_i16_SRC := peak.comp
peak_i16_DEFS := -DAX_PEAK_I16

VARIANTS += peak_i8
peak_i8_SRC := peak.comp
peak_i8_DEFS := -DAX_PEAK_I8

VARIANTS += peak_dot4
peak_dot4_SRC := peak.comp
peak_dot4_DEFS := -DAX_PEAK_DOT4

VARIANTS += conv_f16
conv_f16_SRC := conv.comp
conv_f16_DEFS := -DAX_F16

VARIANTS += attention_f16
attention_f16_SRC := attention.comp
attention_f16_DEFS := -DAX_F16

# Tensor cores through VK_NV_cooperative_matrix (suites/gemm.c,
# kernel=coopmat): glslang writes such shaders for the Vulkan memory
# model, which needs SPIR-V 1.5 (vulkan1.2).  acc16 accumulates in fp16.
gemm_coopmat_ENV := vulkan1.2
VARIANTS += gemm_coopmat_acc16
gemm_coopmat_acc16_SRC := gemm_coopmat.comp
gemm_coopmat_acc16_DEFS := -DAX_ACC16
gemm_coopmat_acc16_ENV := vulkan1.2
# peak type=matrix: the tensor-core chain (shaders/peak_matrix.comp).
peak_matrix_ENV := vulkan1.2
# Kept as .spv too: no device here runs them, so spirv-val
# (tests/cli/shaders.bats) and the build are their only checks.
SPV_FILES += gemm_coopmat gemm_coopmat_acc16 peak_matrix

# The roofline sweep per precision (suites/roofline.c).
VARIANTS += roofline_f64
roofline_f64_SRC := roofline.comp
roofline_f64_DEFS := -DAX_F64

VARIANTS += roofline_f16
roofline_f16_SRC := roofline.comp
roofline_f16_DEFS := -DAX_F16

# The model layers' kernels in fp16 storage (suites/model.c, dtype=f16).
VARIANTS += model_gemm_f16
model_gemm_f16_SRC := model_gemm.comp
model_gemm_f16_DEFS := -DAX_F16
VARIANTS += model_norm_f16
model_norm_f16_SRC := model_norm.comp
model_norm_f16_DEFS := -DAX_F16
VARIANTS += model_eltwise_f16
model_eltwise_f16_SRC := model_eltwise.comp
model_eltwise_f16_DEFS := -DAX_F16
VARIANTS += model_permute_f16
model_permute_f16_SRC := model_permute.comp
model_permute_f16_DEFS := -DAX_F16
VARIANTS += model_im2col_f16
model_im2col_f16_SRC := model_im2col.comp
model_im2col_f16_DEFS := -DAX_F16
