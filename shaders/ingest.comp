#version 450
/*
 * ingest.comp - the light kernel a data loader runs on each chunk it
 * uploads (suites/ingest.c): two 32-bit sums of the chunk's words, plain
 * and position-weighted (s1 = sum w[i], s2 = sum (i + 1) * w[i], both mod
 * 2^32), so that a lost, repeated or swapped word changes the result.
 * Integer sums are exact in any order: each workgroup sums its part in
 * shared memory and adds it to the chunk's pair with one atomic each, and
 * the host compares every bit with its own sums of the file.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/ingest.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint EPI = 16;

layout(std430, binding = 0) readonly buffer Ring_ { uvec4 ring[]; };
layout(std430, binding = 1) buffer Sums_ { uint sums[]; };

layout(push_constant) uniform Push {
	uint first_vec4; /* the chunk's slot in the ring, in uvec4 */
	uint n_vec4;	 /* uvec4 of the chunk (the tail zero-padded) */
	uint chunk;	 /* the chunk's index: its pair is sums[2 * chunk] */
} pc;

shared uint tree1[gl_WorkGroupSize.x];
shared uint tree2[gl_WorkGroupSize.x];

void main()
{
	/* Coalesced like reduce.comp: load k of invocation t of group g is
	 * uvec4 g * WG * EPI + k * WG + t of the chunk. */
	uint t = gl_LocalInvocationID.x;
	uint base = gl_WorkGroupID.x * gl_WorkGroupSize.x * EPI + t;
	uint s1 = 0, s2 = 0;
	for (uint k = 0; k < EPI; k++) {
		uint j = base + k * gl_WorkGroupSize.x;
		if (j < pc.n_vec4) {
			uvec4 v = ring[pc.first_vec4 + j];
			uint w = 4u * j; /* word index of v.x, from 0 */
			s1 += v.x + v.y + v.z + v.w;
			s2 += v.x * (w + 1u) + v.y * (w + 2u) + v.z * (w + 3u) +
			      v.w * (w + 4u);
		}
	}
	tree1[t] = s1;
	tree2[t] = s2;
	barrier();
	for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ /= 2) {
		if (t < half_) {
			tree1[t] += tree1[t + half_];
			tree2[t] += tree2[t + half_];
		}
		barrier();
	}
	if (t == 0) {
		atomicAdd(sums[2 * pc.chunk], tree1[0]);
		atomicAdd(sums[2 * pc.chunk + 1], tree2[0]);
	}
}
