#version 450
/*
 * model_gemm.comp - C[M x N] = A[M x K] * B[K x N], row-major, the matrix
 * products of the model layers (suites/model.c): projections of a decoder
 * or encoder layer, and the 1x1 and im2col'd 3x3 convolutions of a ResNet
 * block.  Every edge is bounds-checked, so any M, N, K run.
 *
 * Each workgroup computes a (WG_Y*TM) x (WG_X*TM) tile of C, each
 * invocation a TM x TM block of it in registers; K is walked in BK-deep
 * slices staged in shared memory.  WG_X/WG_Y, TM and BK are the layer's
 * gemm tunables (gemm_wg, gemm_tm, gemm_bk).
 */
#extension GL_EXT_control_flow_attributes : enable
#include "model_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;
layout(constant_id = 0) const uint WG_X = 16;
layout(constant_id = 1) const uint WG_Y = 16;
layout(constant_id = 2) const uint TM = 4;
layout(constant_id = 3) const uint BK = 16;

const uint BM = WG_Y * TM;
const uint BN = WG_X * TM;
#define MAX_TM 8

layout(std430, binding = 0) readonly buffer A_ { ST a[]; };
layout(std430, binding = 1) readonly buffer B_ { ST b[]; };
layout(std430, binding = 2) writeonly buffer C_ { ST c[]; };

layout(push_constant) uniform Shape {
	uint m, n, k;
} sh;

shared float As[BK * BM]; /* As[kk][row] */
shared float Bs[BK * BN]; /* Bs[kk][col] */

void main()
{
	uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
	uint tid = ty * WG_X + tx;
	uint nthreads = WG_X * WG_Y;
	uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;

	float acc[MAX_TM][MAX_TM];
	[[unroll]] for (uint i = 0; i < TM; i++)
		[[unroll]] for (uint j = 0; j < TM; j++)
			acc[i][j] = 0.0;

	for (uint k0 = 0; k0 < sh.k; k0 += BK) {
		for (uint e = tid; e < BK * BM; e += nthreads) {
			uint r = e / BK, kk = e % BK;
			uint gr = row0 + r, gk = k0 + kk;
			As[kk * BM + r] =
			    gr < sh.m && gk < sh.k ? float(a[gr * sh.k + gk])
						   : 0.0;
		}
		for (uint e = tid; e < BK * BN; e += nthreads) {
			uint kk = e / BN, cc = e % BN;
			uint gk = k0 + kk, gc = col0 + cc;
			Bs[kk * BN + cc] =
			    gk < sh.k && gc < sh.n ? float(b[gk * sh.n + gc])
						   : 0.0;
		}
		barrier();
		for (uint kk = 0; kk < BK; kk++) {
			float ar[MAX_TM], br[MAX_TM];
			[[unroll]] for (uint i = 0; i < TM; i++)
				ar[i] = As[kk * BM + ty * TM + i];
			[[unroll]] for (uint j = 0; j < TM; j++)
				br[j] = Bs[kk * BN + tx * TM + j];
			[[unroll]] for (uint i = 0; i < TM; i++)
				[[unroll]] for (uint j = 0; j < TM; j++)
					acc[i][j] += ar[i] * br[j];
		}
		barrier();
	}
	[[unroll]] for (uint i = 0; i < TM; i++) {
		uint gr = row0 + ty * TM + i;
		[[unroll]] for (uint j = 0; j < TM; j++) {
			uint gc = col0 + tx * TM + j;
			if (gr < sh.m && gc < sh.n)
				c[gr * sh.n + gc] = ST(acc[i][j]);
		}
	}
}
