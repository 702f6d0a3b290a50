#version 450
/*
 * reduce.comp - sum of 32-bit words (mod 2^32), a memory-bound reduction
 * in two passes of one pipeline (suites/reduce.c):
 *   pass 0: each workgroup sums WG * EPI uvec4 loads of the input into
 *           one partial (coalesced: load k of invocation t of group g is
 *           at g * WG * EPI + k * WG + t), then a shared-memory tree;
 *   pass 1: one workgroup sums the partials into result[0].
 * Integer sums are exact in any order, so the host checks every bit.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/reduce.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint EPI = 4;

layout(std430, binding = 0) readonly buffer In_ { uvec4 src[]; };
layout(std430, binding = 1) buffer Partials_ { uint partials[]; };
layout(std430, binding = 2) writeonly buffer Result_ { uint result[]; };

layout(push_constant) uniform Push {
	uint n_vec4;   /* input elements */
	uint n_groups; /* pass 0 workgroups = partials */
	uint pass;
} pc;

shared uint tree[gl_WorkGroupSize.x];

/* Sum of every invocation's acc, in invocation 0. */
uint workgroup_sum(uint acc)
{
	uint t = gl_LocalInvocationID.x;
	tree[t] = acc;
	barrier();
	for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ /= 2) {
		if (t < half_)
			tree[t] += tree[t + half_];
		barrier();
	}
	return tree[0];
}

void main()
{
	uint t = gl_LocalInvocationID.x;
	uint acc = 0;
	if (pc.pass == 0) {
		uint base = gl_WorkGroupID.x * gl_WorkGroupSize.x * EPI + t;
		for (uint k = 0; k < EPI; k++) {
			uint i = base + k * gl_WorkGroupSize.x;
			if (i < pc.n_vec4) {
				uvec4 v = src[i];
				acc += v.x + v.y + v.z + v.w;
			}
		}
	} else {
		for (uint i = t; i < pc.n_groups; i += gl_WorkGroupSize.x)
			acc += partials[i];
	}
	uint sum = workgroup_sum(acc);
	if (t == 0) {
		if (pc.pass == 0)
			partials[gl_WorkGroupID.x] = sum;
		else
			result[0] = sum;
	}
}
