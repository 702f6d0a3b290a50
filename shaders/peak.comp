#version 450
/*
 * peak.comp - arithmetic ceiling: ACC independent vec4 accumulators, each
 * a dependent chain of ITERS multiply-adds x = x * a + b.
 *
 * a and b come from push constants, so no compiler can fold the chain,
 * and the host passes a = -1: then x alternates between x0 and b - x0,
 * exactly, in every type - the result has a closed form the host checks
 * (suites/peak.c).  Start values are small integers, so the final sum of
 * accumulators is exact in fp16 too.
 *
 * Default build: fp32 fma.  -DAX_PEAK_F16: float16 fma (needs
 * shaderFloat16).  -DAX_PEAK_I32: int32 multiply + add.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/peak.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */
#extension GL_EXT_control_flow_attributes : require
#ifdef AX_PEAK_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#define T4 f16vec4
#define MAD(x, a, b) fma(x, T4(a), T4(b))
#elif defined(AX_PEAK_I32)
#define T int
#define T4 ivec4
#define MAD(x, a, b) ((x) * (a) + (b))
#else
#define T float
#define T4 vec4
#define MAD(x, a, b) fma(x, T4(a), T4(b))
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACC = 8;    /* vec4 accumulators */
layout(constant_id = 2) const uint UNROLL = 8; /* steps per loop trip */

layout(std430, binding = 0) writeonly buffer O_ { T o[]; };

layout(push_constant) uniform P {
	uint trips; /* chain length = trips * UNROLL */
	int a, b;   /* multiplier and addend, as integers */
} pc;

#define MAX_ACC 16

void main()
{
	uint gid = gl_GlobalInvocationID.x;
	T a = T(pc.a), b = T(pc.b);
	T4 x[MAX_ACC];
	[[unroll]] for (uint j = 0; j < ACC; j++)
		x[j] = T4((gid + 4 * j) % 16, (gid + 4 * j + 1) % 16,
			  (gid + 4 * j + 2) % 16, (gid + 4 * j + 3) % 16);
	for (uint i = 0; i < pc.trips; i++) {
		[[unroll]] for (uint u = 0; u < UNROLL; u++)
			[[unroll]] for (uint j = 0; j < ACC; j++)
				x[j] = MAD(x[j], a, b);
	}
	T4 s = T4(0);
	[[unroll]] for (uint j = 0; j < ACC; j++)
		s += x[j];
	o[gid] = s.x + s.y + s.z + s.w;
}
