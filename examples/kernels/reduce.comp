#version 450
// Sum of n 32-bit unsigned words into sum[0].  Each invocation adds EPT
// words, the workgroup reduces in shared memory, and one atomic per
// workgroup adds its partial: integer addition is exact in any order, so
// every configuration must give the reference's sum exactly.
layout(local_size_x = WG) in;
layout(constant_id = 1) const uint EPT = 4;

layout(std430, binding = 0) readonly buffer Data { uint data[]; };
layout(std430, binding = 1) buffer Sum { uint sum[]; };
layout(push_constant) uniform Push {
	uint n;
} pc;

shared uint partial[WG];

void main()
{
	uint lid = gl_LocalInvocationID.x;
	uint base = gl_WorkGroupID.x * WG * EPT + lid;
	uint acc = 0;
	for (uint e = 0; e < EPT; e++) {
		uint i = base + e * WG;
		if (i < pc.n)
			acc += data[i];
	}
	partial[lid] = acc;
	barrier();
	for (uint s = WG / 2; s > 0; s >>= 1) {
		if (lid < s)
			partial[lid] += partial[lid + s];
		barrier();
	}
	if (lid == 0)
		atomicAdd(sum[0], partial[0]);
}
