#version 450
/*
 * shaders/conv.comp - 2-D convolution as an implicit GEMM.
 *
 * The output is viewed as a matrix [K][N*P*Q] (output channels x output
 * pixels) and the reduction runs over C*R*S.  The weight matrix is read
 * straight from the weight buffer (KCRS for NCHW, KRSC for NHWC, so the
 * reduction index walks memory contiguously in both layouts); the input
 * matrix is the im2col view of the input, gathered on the fly into
 * shared memory with zero padding, so no im2col buffer is ever written.
 *
 * Each workgroup computes a BM x BN output tile; each invocation a TM x TN
 * register tile, strided across the workgroup tile so that neighbouring
 * invocations touch neighbouring pixels (coalesced loads and stores).
 * Every tunable is a specialization constant: one SPIR-V module covers the
 * whole search space.  AX_F16 selects fp16 storage; arithmetic stays fp32.
 */
#extension GL_EXT_control_flow_attributes : enable
#ifdef AX_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define ELEM float16_t
#else
#define ELEM float
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BM = 32; /* output channels per group */
layout(constant_id = 2) const uint BN = 64; /* output pixels per group */
layout(constant_id = 3) const uint BK = 8;  /* reduction step */
layout(constant_id = 4) const uint TM = 4;  /* channels per invocation */
layout(constant_id = 5) const uint TN = 4;  /* pixels per invocation */
layout(constant_id = 6) const uint NHWC = 0;

const uint TX = BN / TN; /* invocations along pixels */
const uint TY = BM / TM; /* invocations along channels */

layout(std430, binding = 0) readonly buffer In { ELEM x[]; };
layout(std430, binding = 1) readonly buffer Wt { ELEM wt[]; };
layout(std430, binding = 2) writeonly buffer Out { ELEM y[]; };

layout(push_constant) uniform Shape {
	uint n, c, h, w, k, r, s, stride, pad, dil, p, q;
} sh;

shared float As[BK * BM]; /* weights, [kk][m] */
shared float Bs[BK * BN]; /* im2col input, [kk][j] */

/* Element (reduction index gk, pixel gj) of the im2col matrix, or 0 in the
 * padding and past the edges. */
float im2col(uint gk, uint gj, uint crs, uint npq)
{
	if (gk >= crs || gj >= npq)
		return 0.0;
	uint ci, ri, si;
	if (NHWC != 0) {
		ci = gk % sh.c;
		uint rs = gk / sh.c;
		ri = rs / sh.s;
		si = rs % sh.s;
	} else {
		uint rs = sh.r * sh.s;
		ci = gk / rs;
		uint t = gk % rs;
		ri = t / sh.s;
		si = t % sh.s;
	}
	uint pq = sh.p * sh.q;
	uint ni = gj / pq;
	uint t2 = gj % pq;
	uint pi = t2 / sh.q, qi = t2 % sh.q;
	int hi = int(pi * sh.stride + ri * sh.dil) - int(sh.pad);
	int wi = int(qi * sh.stride + si * sh.dil) - int(sh.pad);
	if (hi < 0 || hi >= int(sh.h) || wi < 0 || wi >= int(sh.w))
		return 0.0;
	uint idx = NHWC != 0 ?
		((ni * sh.h + uint(hi)) * sh.w + uint(wi)) * sh.c + ci :
		((ni * sh.c + ci) * sh.h + uint(hi)) * sh.w + uint(wi);
	return float(x[idx]);
}

void load_tiles(uint k0, uint m0, uint j0, uint crs, uint npq)
{
	uint tid = gl_LocalInvocationID.x;
	uint nthr = gl_WorkGroupSize.x;
	/* Weights: kk fastest, as the reduction index is contiguous. */
	for (uint e = tid; e < BM * BK; e += nthr) {
		uint kk = e % BK, m = e / BK;
		uint gk = k0 + kk, gm = m0 + m;
		float v = 0.0;
		if (gk < crs && gm < sh.k)
			v = float(wt[gm * crs + gk]);
		As[kk * BM + m] = v;
	}
	/* Input: pixels fastest for NCHW (w is contiguous), channels
	 * fastest for NHWC (c is contiguous). */
	for (uint e = tid; e < BN * BK; e += nthr) {
		uint kk, j;
		if (NHWC != 0) {
			kk = e % BK;
			j = e / BK;
		} else {
			j = e % BN;
			kk = e / BN;
		}
		Bs[kk * BN + j] = im2col(k0 + kk, j0 + j, crs, npq);
	}
}

void store(float acc[TM][TN], uint m0, uint j0, uint tx, uint ty, uint npq)
{
	uint pq = sh.p * sh.q;
	[[unroll]] for (uint j = 0; j < TN; j++) {
		uint gj = j0 + tx + j * TX;
		if (gj >= npq)
			continue;
		uint ni = gj / pq, t = gj % pq;
		[[unroll]] for (uint i = 0; i < TM; i++) {
			uint gm = m0 + ty + i * TY;
			if (gm >= sh.k)
				continue;
			uint idx = NHWC != 0 ? (ni * pq + t) * sh.k + gm :
					       (ni * sh.k + gm) * pq + t;
			y[idx] = ELEM(acc[i][j]);
		}
	}
}

void main()
{
	uint tid = gl_LocalInvocationID.x;
	uint tx = tid % TX, ty = tid / TX;
	uint crs = sh.c * sh.r * sh.s;
	uint npq = sh.n * sh.p * sh.q;
	uint m0 = gl_WorkGroupID.y * BM;
	uint j0 = gl_WorkGroupID.x * BN;

	float acc[TM][TN];
	[[unroll]] for (uint i = 0; i < TM; i++)
		[[unroll]] for (uint j = 0; j < TN; j++)
			acc[i][j] = 0.0;

	for (uint k0 = 0; k0 < crs; k0 += BK) {
		load_tiles(k0, m0, j0, crs, npq);
		barrier();
		for (uint kk = 0; kk < BK; kk++) {
			float a[TM], b[TN];
			[[unroll]] for (uint i = 0; i < TM; i++)
				a[i] = As[kk * BM + ty + i * TY];
			[[unroll]] for (uint j = 0; j < TN; j++)
				b[j] = Bs[kk * BN + tx + j * TX];
			[[unroll]] for (uint i = 0; i < TM; i++)
				[[unroll]] for (uint j = 0; j < TN; j++)
					acc[i][j] = fma(a[i], b[j], acc[i][j]);
		}
		barrier();
	}
	store(acc, m0, j0, tx, ty, npq);
}
