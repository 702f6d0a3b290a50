#version 450
/*
 * peak.comp - arithmetic ceiling: ACC independent accumulators of four
 * lanes each, every lane a dependent chain of ITERS multiply-adds
 * x = x * a + b.
 *
 * a and b come from push constants, so no compiler can fold the chain,
 * and the host passes a = -1: then x alternates between x0 and b - x0,
 * exactly, in every type - the result has a closed form the host checks
 * (suites/peak.c).  Start values are small integers (lane l of
 * invocation g starts at (g + l) % 16), so every sum is exact in every
 * type, fp16 and int8 included.
 *
 * One source, one build per type (shaders/variants.mk):
 *   default        f32 fma on vec4
 *   AX_PEAK_F16    f16 fma on f16vec4 (shaderFloat16; writes fp16)
 *   AX_PEAK_F16X2  f16 fma on f16vec2 pairs, the packed-math shape
 *   AX_PEAK_F64    f64 fma on dvec4 (shaderFloat64)
 *   AX_PEAK_I32 / AX_PEAK_I64 / AX_PEAK_I16 / AX_PEAK_I8
 *                  integer multiply + add (shaderInt64 / shaderInt16 /
 *                  shaderInt8)
 *   AX_PEAK_DOT4   x = dot(a8x4, b8x4) + x on int32 lanes, a and b four
 *                  packed int8 each (OpSDotAccSat of
 *                  VK_KHR_shader_integer_dot_product: 4 multiplies and
 *                  4 adds per step).  The host passes a . b = 1, so each
 *                  lane ends at x0 + steps.  glslang 11 has no GLSL
 *                  spelling for it, so the instruction is declared
 *                  through GL_EXT_spirv_intrinsics.
 * Every type but f16 sums its lanes in 32 bits (int or float) and
 * writes that word.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/peak.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */
#extension GL_EXT_control_flow_attributes : require
#define W 4 /* lanes per accumulator vector */
#define SUM float
#if defined(AX_PEAK_F16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#define TV f16vec4
#define OUT float16_t
#elif defined(AX_PEAK_F16X2)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#undef W
#define W 2
#define T float16_t
#define TV f16vec2
#elif defined(AX_PEAK_F64)
#define T double
#define TV dvec4
#elif defined(AX_PEAK_I32) || defined(AX_PEAK_DOT4)
#define T int
#define TV ivec4
#elif defined(AX_PEAK_I64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define T int64_t
#define TV i64vec4
#elif defined(AX_PEAK_I16)
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#define T int16_t
#define TV i16vec4
#elif defined(AX_PEAK_I8)
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define T int8_t
#define TV i8vec4
#else
#define T float
#define TV vec4
#endif
#if defined(AX_PEAK_I32) || defined(AX_PEAK_I64) || defined(AX_PEAK_I16) || \
    defined(AX_PEAK_I8) || defined(AX_PEAK_DOT4)
#undef SUM
#define SUM int
#define MAD(x, a, b) ((x) * (a) + (b))
#else
#define MAD(x, a, b) fma(x, TV(a), TV(b))
#endif
#ifndef OUT
#define OUT SUM
#endif

#ifdef AX_PEAK_DOT4
#extension GL_EXT_spirv_intrinsics : require
/* OpSDotAccSat (4453) with the 4x8-bit packed format (literal 0):
 * capabilities DotProduct (6019) and DotProductInput4x8BitPacked
 * (6018). */
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"],
		  capabilities = [6019, 6018], id = 4453)
int sdot_acc_sat(uint a, uint b, int acc, spirv_literal int packed_format);
#undef MAD
#define MAD(v, pa, pb)                                                         \
	ivec4(sdot_acc_sat(pa, pb, v.x, 0), sdot_acc_sat(pa, pb, v.y, 0),      \
	      sdot_acc_sat(pa, pb, v.z, 0), sdot_acc_sat(pa, pb, v.w, 0))
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACC = 8;    /* accumulators of 4 lanes */
layout(constant_id = 2) const uint UNROLL = 8; /* steps per loop trip */

layout(std430, binding = 0) writeonly buffer O_ { OUT o[]; };

layout(push_constant) uniform P {
	uint trips; /* chain length = trips * UNROLL */
	int a, b;   /* multiplier and addend (dot4: four packed int8 each) */
} pc;

#define MAX_ACC 16
#define NV (ACC * 4 / W) /* accumulator vectors */

void main()
{
	uint gid = gl_GlobalInvocationID.x;
#ifdef AX_PEAK_DOT4
	uint a = uint(pc.a), b = uint(pc.b);
#else
	T a = T(pc.a), b = T(pc.b);
#endif
	TV x[MAX_ACC * 4 / W];
	[[unroll]] for (uint j = 0; j < NV; j++)
		[[unroll]] for (uint c = 0; c < W; c++)
			x[j][c] = T((gid + W * j + c) % 16);
	for (uint i = 0; i < pc.trips; i++) {
		[[unroll]] for (uint u = 0; u < UNROLL; u++)
			[[unroll]] for (uint j = 0; j < NV; j++)
				x[j] = MAD(x[j], a, b);
	}
	SUM s = SUM(0);
	[[unroll]] for (uint j = 0; j < NV; j++)
		[[unroll]] for (uint c = 0; c < W; c++)
			s += SUM(x[j][c]);
	o[gid] = OUT(s);
}
