#version 450
/*
 * roofline.comp - a kernel whose arithmetic intensity is a parameter: each
 * invocation streams the input (grid-stride, ILP elements in flight), runs
 * FMA dependent multiply-adds x = x * a + b on every lane of each element
 * and adds the result to its partial sum, written once at the end as
 * one word.  With
 * FMA = 0 it is a read-bandwidth kernel; with FMA in the hundreds it is
 * the peak kernel fed from memory.  Swept over FMA (suites/roofline.c),
 * its rate draws the measured roofline and its ridge point.
 *
 * The host passes a = -1, b = 3: each lane ends at x (FMA even) or 3 - x
 * (odd), exactly; inputs are small integers, so every partial sum has a
 * closed form the host checks.
 *
 * Default build: f32 (vec4, 16 bytes an element).  -DAX_F64: dvec4 (32
 * bytes; shaderFloat64).  -DAX_F16: f16vec4 (8 bytes; shaderFloat16 and
 * 16-bit storage), summed in f32.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/roofline.c (AX_KNOB), the only two places; test_registry checks
 * that every id the table binds is one this shader declares. */
#extension GL_EXT_control_flow_attributes : require
#if defined(AX_F64)
#define TV dvec4
#define SV dvec4
#define S double
#elif defined(AX_F16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#define TV f16vec4
#define SV vec4
#define S float
#else
#define TV vec4
#define SV vec4
#define S float
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint FMA = 0; /* multiply-adds per lane */
layout(constant_id = 2) const uint ILP = 4; /* elements in flight */

layout(std430, binding = 0) readonly buffer In_ { TV src[]; };
layout(std430, binding = 1) writeonly buffer Out_ { S partial[]; };

layout(push_constant) uniform P {
	uint n; /* input elements */
	int a, b;
} pc;

#define MAX_ILP 8

/* fma dependent multiply-adds on each lane of v. */
TV chain(TV v, TV a, TV b)
{
	for (uint f = 0; f < FMA; f++)
		v = fma(v, a, b);
	return v;
}

void main()
{
	uint gid = gl_GlobalInvocationID.x;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	TV a = TV(pc.a), b = TV(pc.b);
	SV acc = SV(0);
	/* Whole sweeps of stride * ILP elements, with no bound checks in
	 * them (a load under a condition is a masked gather on CPU
	 * drivers), then the rest one element at a time. */
	uint sweep = stride * ILP;
	uint whole = pc.n - pc.n % sweep;
	for (uint base = gid; base < whole; base += sweep) {
		TV v[MAX_ILP];
		[[unroll]] for (uint u = 0; u < ILP; u++)
			v[u] = src[base + u * stride];
		for (uint f = 0; f < FMA; f++)
			[[unroll]] for (uint u = 0; u < ILP; u++)
				v[u] = fma(v[u], a, b);
		[[unroll]] for (uint u = 0; u < ILP; u++)
			acc += SV(v[u]);
	}
	for (uint i = whole + gid; i < pc.n; i += stride)
		acc += SV(chain(src[i], a, b));
	/* One word per invocation: the lanes' sum (exact: small integers). */
	partial[gid] = acc.x + acc.y + acc.z + acc.w;
}
