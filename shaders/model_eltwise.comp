#version 450
/*
 * model_eltwise.comp - the element-wise steps of the model layers
 * (suites/model.c), one op a dispatch:
 *   0 add       y = a + b            (residual)
 *   1 add_relu  y = max(a + b, 0)    (ResNet block output)
 *   2 relu      y = max(a, 0)
 *   3 swiglu    y[r][j] = silu(a[r][j]) * a[r][f + j], a is rows x 2f
 *   4 gelu      y = GELU(a), the tanh form (BERT)
 * Grid-stride: any element count runs on a capped grid.
 */
#include "model_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;

layout(std430, binding = 0) readonly buffer A_ { ST a[]; };
layout(std430, binding = 1) readonly buffer B_ { ST b[]; };
layout(std430, binding = 2) writeonly buffer Y_ { ST y[]; };

layout(push_constant) uniform Shape {
	uint n, f, op;
} sh;

float gelu(float v)
{
	const float k = 0.7978845608028654; /* sqrt(2 / pi) */
	return 0.5 * v * (1.0 + tanh(k * (v + 0.044715 * v * v * v)));
}

void main()
{
	uint stride = gl_NumWorkGroups.x * WG;
	for (uint i = gl_GlobalInvocationID.x; i < sh.n; i += stride) {
		float v;
		if (sh.op == 0u) {
			v = float(a[i]) + float(b[i]);
		} else if (sh.op == 1u) {
			v = max(float(a[i]) + float(b[i]), 0.0);
		} else if (sh.op == 2u) {
			v = max(float(a[i]), 0.0);
		} else if (sh.op == 3u) {
			uint r = i / sh.f, j = i % sh.f;
			float g = float(a[r * 2u * sh.f + j]);
			float u = float(a[r * 2u * sh.f + sh.f + j]);
			v = g / (1.0 + exp(-g)) * u;
		} else {
			v = gelu(float(a[i]));
		}
		y[i] = ST(v);
	}
}
