#version 450
/*
 * model_norm.comp - RMSNorm (mode 0: x / sqrt(mean(x^2) + eps) * gamma,
 * Llama) or LayerNorm (mode 1: (x - mean) / sqrt(var + eps) * gamma +
 * beta, BERT) of each row of a [rows x cols] matrix, one workgroup a row
 * (suites/model.c).  Statistics in fp32 through shared memory.
 */
#include "model_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;

layout(std430, binding = 0) readonly buffer X_ { ST x[]; };
layout(std430, binding = 1) readonly buffer G_ { ST gamma[]; };
layout(std430, binding = 2) readonly buffer B_ { ST beta[]; };
layout(std430, binding = 3) writeonly buffer Y_ { ST y[]; };

layout(push_constant) uniform Shape {
	uint rows, cols, mode;
	float eps;
} sh;

shared float s1[WG], s2[WG];

void main()
{
	uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
	if (row >= sh.rows)
		return;
	uint t = gl_LocalInvocationID.x;
	uint base = row * sh.cols;
	float sum = 0.0, sq = 0.0;
	for (uint i = t; i < sh.cols; i += WG) {
		float v = float(x[base + i]);
		sum += v;
		sq += v * v;
	}
	s1[t] = sum;
	s2[t] = sq;
	barrier();
	for (uint off = WG / 2; off > 0; off /= 2) {
		if (t < off) {
			s1[t] += s1[t + off];
			s2[t] += s2[t + off];
		}
		barrier();
	}
	float n = float(sh.cols);
	float mean = sh.mode == 1 ? s1[0] / n : 0.0;
	float var = s2[0] / n - mean * mean;
	float inv = inversesqrt(max(var, 0.0) + sh.eps);
	for (uint i = t; i < sh.cols; i += WG) {
		float v = (float(x[base + i]) - mean) * inv * float(gamma[i]);
		if (sh.mode == 1)
			v += float(beta[i]);
		y[base + i] = ST(v);
	}
}
