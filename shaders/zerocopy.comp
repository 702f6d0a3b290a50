#version 450
/*
 * zerocopy.comp - one pass of the zerocopy suite (suites/zerocopy.c) over
 * data wherever it lives: device memory after a staged upload, or host
 * memory read in place.  Output word j is out = out * 3 + in[j * stride]
 * (the first pass stores in[j * stride]), so every pass reads every
 * touched word again and the result depends on each pass: a pass the
 * device skipped or a word it read twice from a stale copy shows in the
 * check.  Invocations stride through the output (a grid-stride loop), so
 * any size fits one dispatch.
 */
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer In_ { uint src[]; };
layout(std430, binding = 1) buffer Out_ { uint dst[]; };

layout(push_constant) uniform Push {
	uint n_out;  /* output words */
	uint stride; /* input words per output word */
	uint first;  /* 1 on the first pass */
} pc;

void main()
{
	uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint j = gl_GlobalInvocationID.x; j < pc.n_out; j += step) {
		uint v = src[j * pc.stride];
		dst[j] = pc.first != 0u ? v : dst[j] * 3u + v;
	}
}
