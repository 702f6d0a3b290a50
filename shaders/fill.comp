#version 450
/*
 * fill.comp - device-memory fill (suites/fill.c): every invocation stores
 * EPI 16-byte vectors of one word value, coalesced (store k of invocation
 * t is at t + k * stride, stride = the invocations with work), the
 * pattern of a buffer clear or a tensor initialised to a constant.
 * Each constant_id is written here and in the parameter table of
 * suites/fill.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares.
 */
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint EPI = 4;

layout(std430, binding = 0) writeonly buffer Dst_ { uvec4 dst[]; };

layout(push_constant) uniform Push {
	uint n_vec4; /* 16-byte elements */
	uint stride; /* invocations with work */
	uint value;  /* the word written */
} pc;

void main()
{
	uint t = gl_WorkGroupID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
		 gl_GlobalInvocationID.x;
	if (t >= pc.stride)
		return;
	uvec4 v = uvec4(pc.value);
	for (uint e = 0; e < EPI; e++) {
		uint i = t + e * pc.stride;
		if (i >= pc.n_vec4)
			break;
		dst[i] = v;
	}
}
