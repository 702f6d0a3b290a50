/*
 * model_common.glsl - the storage type of the model layers' kernels
 * (suites/model.c): float, or float16 with -DAX_F16.  Arithmetic is fp32
 * in both; values are widened on load and rounded on store.
 */
#extension GL_EXT_shader_16bit_storage : require
#ifdef AX_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define ST float16_t
#else
#define ST float
#endif
