#version 450
/*
 * Device-memory bandwidth: read, write or copy, with the load width, the
 * workgroup size and the elements per invocation as specialization
 * constants.  The same buffer is bound at three bindings with 1-, 2- and
 * 4-word element types; VEC selects one, and the branch on a constant is
 * folded away when the pipeline is built, so the loads really are that wide.
 *
 * Indexing is coalesced: element e of invocation t is at t + e * stride,
 * stride = the number of invocations that have work.
 *
 * On lavapipe (Mesa 22.3) every load and store here is a loop over the 8
 * lanes of a SIMD batch, one scalar access per word with a bounds check,
 * so copy reaches about a tenth of vkCmdCopyBuffer (a memcpy): 2.1 vs
 * 23.5 GB/s at size=256M on a loaded 2-core VM.  Measured there, giving
 * each invocation EPI consecutive elements instead (t * EPI + e) changed
 * nothing, nor did clamping the index instead of the break below; a
 * smaller EPI helped (epi=4: 2.1 GB/s, epi=16: 0.9, epi=64: 0.4-0.6).
 * So the layout stays the GPU-coalesced one.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/bandwidth.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VEC = 4;  /* 1, 2 or 4 words per load */
layout(constant_id = 2) const uint EPI = 4;  /* elements per invocation */
layout(constant_id = 3) const uint OP = 0;   /* 0 read, 1 write, 2 copy */

layout(std430, binding = 0) readonly buffer S1 { uint s1[]; };
layout(std430, binding = 1) readonly buffer S2 { uvec2 s2[]; };
layout(std430, binding = 2) readonly buffer S4 { uvec4 s4[]; };
layout(std430, binding = 3) writeonly buffer D1 { uint d1[]; };
layout(std430, binding = 4) writeonly buffer D2 { uvec2 d2[]; };
layout(std430, binding = 5) writeonly buffer D4 { uvec4 d4[]; };
layout(std430, binding = 6) writeonly buffer Sums { uint sums[]; };

layout(push_constant) uniform Push {
	uint n_elems; /* elements of VEC words */
	uint stride;  /* invocations with work */
	uint seed;    /* write pattern */
} pc;

uint pattern(uint word) { return (word * 2654435761u) ^ pc.seed; }

uint load_sum(uint i)
{
	if (VEC == 4) {
		uvec4 v = s4[i];
		return v.x + v.y + v.z + v.w;
	}
	if (VEC == 2) {
		uvec2 v = s2[i];
		return v.x + v.y;
	}
	return s1[i];
}

void store_pattern(uint i)
{
	uint w = i * VEC;
	if (VEC == 4)
		d4[i] = uvec4(pattern(w), pattern(w + 1), pattern(w + 2),
			      pattern(w + 3));
	else if (VEC == 2)
		d2[i] = uvec2(pattern(w), pattern(w + 1));
	else
		d1[i] = pattern(w);
}

void copy_elem(uint i)
{
	if (VEC == 4)
		d4[i] = s4[i];
	else if (VEC == 2)
		d2[i] = s2[i];
	else
		d1[i] = s1[i];
}

void main()
{
	uint t = gl_WorkGroupID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
		 gl_GlobalInvocationID.x;
	if (t >= pc.stride)
		return;
	uint acc = 0;
	for (uint e = 0; e < EPI; e++) {
		uint i = t + e * pc.stride;
		if (i >= pc.n_elems)
			break;
		if (OP == 0)
			acc += load_sum(i);
		else if (OP == 1)
			store_pattern(i);
		else
			copy_elem(i);
	}
	/* One word per invocation keeps the reads observable and checkable. */
	if (OP == 0)
		sums[t] = acc;
}
