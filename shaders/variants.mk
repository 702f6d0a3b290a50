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

VARIANTS += conv_f16
conv_f16_SRC := conv.comp
conv_f16_DEFS := -DAX_F16

VARIANTS += attention_f16
attention_f16_SRC := attention.comp
attention_f16_DEFS := -DAX_F16
