#version 450
// A compute-bound kernel for paired comparisons (bench/ab.sh,
// tests/cli/ab.bats): each element runs a chain of `iters` dependent
// multiply-adds, acc = acc * m + c.  m and c come in as push constants
// (1 and 0), so the compiler can neither fold the chain nor know its
// result, and the output equals the input whatever `iters` is: every
// configuration verifies against the reference.
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push {
	uint n;
	uint iters;
	float m;
	float c;
} pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.n)
		return;
	float acc = x[i];
	for (uint k = 0; k < pc.iters; k++)
		acc = acc * pc.m + pc.c;
	y[i] = acc;
}
