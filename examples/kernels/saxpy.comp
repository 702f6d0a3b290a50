#version 450
// y = a * x + y over n floats.  The workgroup size is a specialization
// constant (no recompile per value); elements per thread is a define, so
// each value is its own compile (the loop is unrolled at compile time).
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Push {
	uint n;
	float a;
} pc;

void main()
{
	uint wg = gl_WorkGroupSize.x;
	uint base = gl_WorkGroupID.x * wg * EPT + gl_LocalInvocationID.x;
	for (uint e = 0; e < EPT; e++) {
		uint i = base + e * wg;
#if defined(OFF_BY_ONE) && EPT > 1
		// A deliberate bug in the unrolled path only, for the tests:
		// the reference (EPT 1) is right, so verification catches it.
		i += 1;
#endif
		if (i < pc.n)
			y[i] = pc.a * x[i] + y[i];
	}
}
