#version 450
/*
 * model_permute.comp - moves attention heads between the token-major
 * layout of the projections and the head-major layout of
 * shaders/attention.comp (suites/model.c):
 *   mode 0: src[b][t][col0 + h*D + d] (row length ld) ->
 *           dst[b][h][pos0 + t][d] (cap positions a head), with rotary
 *           position embedding at position rpos0 + t when rope = 1 (the
 *           rotate-half pairing: d with d + D/2, frequency
 *           theta^(-2i/D), i = d mod D/2)
 *   mode 1: src[b][h][t][d] -> dst[b][t][h*D + d]
 * Grid-stride over batch * tokens * heads * D elements.
 */
#include "model_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;

layout(std430, binding = 0) readonly buffer S_ { ST src[]; };
layout(std430, binding = 1) writeonly buffer D_ { ST dst[]; };

layout(push_constant) uniform Shape {
	uint batch, tokens, heads, d, ld, col0, cap, pos0, rpos0, mode, rope;
	float theta;
} sh;

void main()
{
	uint total = sh.batch * sh.tokens * sh.heads * sh.d;
	uint stride = gl_NumWorkGroups.x * WG;
	for (uint i = gl_GlobalInvocationID.x; i < total; i += stride) {
		uint d = i % sh.d;
		uint h = (i / sh.d) % sh.heads;
		uint t = (i / (sh.d * sh.heads)) % sh.tokens;
		uint bi = i / (sh.d * sh.heads * sh.tokens);
		if (sh.mode == 1u) {
			uint s = ((bi * sh.heads + h) * sh.tokens + t) * sh.d + d;
			dst[(bi * sh.tokens + t) * sh.heads * sh.d + h * sh.d + d] =
			    src[s];
			continue;
		}
		uint row = (bi * sh.tokens + t) * sh.ld + sh.col0 + h * sh.d;
		float v = float(src[row + d]);
		if (sh.rope == 1u) {
			uint half_d = sh.d / 2u;
			uint p = d % half_d;
			float ang = float(sh.rpos0 + t) *
				    pow(sh.theta, -2.0 * float(p) / float(sh.d));
			float c = cos(ang), s = sin(ang);
			v = d < half_d ? v * c - float(src[row + d + half_d]) * s
				       : v * c + float(src[row + d - half_d]) * s;
		}
		uint o = ((bi * sh.heads + h) * sh.cap + sh.pos0 + t) * sh.d + d;
		dst[o] = ST(v);
	}
}
