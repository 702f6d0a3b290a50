#version 450
/*
 * model_im2col.comp - a 3x3, stride 1, padding 1 convolution's patches as
 * rows (suites/model.c's ResNet block): src[b][y][x][c] (NHWC) ->
 * dst[(b*h + y)*w + x][(ky*3 + kx)*c + ci], zero outside the image, so
 * the convolution is one model_gemm.comp product with weights
 * [9c x cout].  Grid-stride over every element of dst.
 */
#include "model_common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;

layout(std430, binding = 0) readonly buffer S_ { ST src[]; };
layout(std430, binding = 1) writeonly buffer D_ { ST dst[]; };

layout(push_constant) uniform Shape {
	uint batch, h, w, c;
} sh;

void main()
{
	uint cols = 9u * sh.c;
	uint total = sh.batch * sh.h * sh.w * cols;
	uint stride = gl_NumWorkGroups.x * WG;
	for (uint i = gl_GlobalInvocationID.x; i < total; i += stride) {
		uint col = i % cols, pix = i / cols;
		uint ci = col % sh.c, tap = col / sh.c;
		int ky = int(tap / 3u) - 1, kx = int(tap % 3u) - 1;
		uint x = pix % sh.w, y = (pix / sh.w) % sh.h;
		uint bi = pix / (sh.w * sh.h);
		int sy = int(y) + ky, sx = int(x) + kx;
		ST v = ST(0.0);
		if (sy >= 0 && sy < int(sh.h) && sx >= 0 && sx < int(sh.w))
			v = src[((bi * sh.h + uint(sy)) * sh.w + uint(sx)) *
				    sh.c + ci];
		dst[i] = v;
	}
}
