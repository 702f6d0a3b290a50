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
 * The reduction is walked as (r, s) outer and channel blocks of BK inner,
 * so no index needs a division in the loops: every invocation keeps the
 * decoded coordinates of the pixels it stages in registers, and only adds
 * the filter offset and the channel.  (On CPU drivers such as lavapipe an
 * integer division is a per-lane scalar loop: decoding C*R*S and N*P*Q
 * indices per element cost more than the arithmetic.)
 *
 * Each workgroup computes a BM x BN output tile; each invocation a TM x TN
 * register block, read from shared memory as vec4s (TM, TN multiples of 4).
 * All tile sizes are powers of two, so the workgroup size and BN divide one
 * another.  Every tunable is a specialization constant: one SPIR-V module
 * covers the whole search space.  AX_F16 selects fp16 storage; arithmetic
 * stays fp32.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/conv.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */
#extension GL_EXT_control_flow_attributes : enable
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
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
layout(constant_id = 3) const uint BK = 8;  /* channels per step */
layout(constant_id = 4) const uint TM = 4;  /* channels per invocation */
layout(constant_id = 5) const uint TN = 4;  /* pixels per invocation */
layout(constant_id = 6) const uint NHWC = 0;
/* 0: shared-memory tiles (main_smem); 1: no shared memory (main_subgroup) */
layout(constant_id = 7) const uint SHARE = 0;
/* SHARE = 1: output channels per micro-tile, a power of two up to TM */
layout(constant_id = 8) const uint MR = 1;

const uint TX = BN / TN; /* invocations along pixels */
const uint WG = (BM / TM) * TX;
/* Staging of the input tile: each invocation owns JT pixels (fixed for the
 * whole kernel) and every KT-th channel of the block. */
const uint JW = WG < BN ? WG : BN;
const uint JT = BN / JW;
const uint KT = WG / JW;

layout(std430, binding = 0) readonly buffer In { ELEM x[]; };
layout(std430, binding = 1) readonly buffer Wt { ELEM wt[]; };
layout(std430, binding = 2) writeonly buffer Out { ELEM y[]; };
/* The input and the weights as texel views, one element a texel (R32 or
 * R16), for SHARE = 1. */
layout(binding = 3) uniform samplerBuffer Xt;
layout(binding = 4) uniform samplerBuffer Wtt;

layout(push_constant) uniform Shape {
	uint n, c, h, w, k, r, s, stride, pad, dil, p, q;
} sh;

shared vec4 As[BK * BM / 4]; /* weights, [kk][m] */
shared vec4 Bs[BK * BN / 4]; /* input, [kk][j] */

void st_a(uint kk, uint m, float v)
{
	uint e = kk * BM + m;
	As[e >> 2][e & 3] = v;
}

void st_b(uint kk, uint j, float v)
{
	uint e = kk * BN + j;
	Bs[e >> 2][e & 3] = v;
}

/* Weights of filter tap (r, s) and channels c0 .. c0+BK-1, zero past the
 * ends; channels vary fastest across invocations. */
void load_a(uint m0, uint c0, uint rs, uint crs)
{
	uint rsn = sh.r * sh.s;
	for (uint e = gl_LocalInvocationID.x; e < BM * BK; e += WG) {
		uint kk = e % BK, m = e / BK;
		uint ci = c0 + kk, gm = m0 + m;
		float v = 0.0;
		if (ci < sh.c && gm < sh.k)
			v = float(wt[gm * crs + (NHWC != 0 ? rs * sh.c + ci :
							     ci * rsn + rs)]);
		st_a(kk, m, v);
	}
}

void main_smem()
{
	uint tid = gl_LocalInvocationID.x;
	uint tx = tid % TX, ty = tid / TX;
	uint crs = sh.c * sh.r * sh.s;
	uint npq = sh.n * sh.p * sh.q;
	uint pq = sh.p * sh.q;
	uint m0 = gl_WorkGroupID.y * BM;
	uint j0 = gl_WorkGroupID.x * BN;
	/* Channel stride of the input. */
	uint cstr = NHWC != 0 ? 1 : sh.h * sh.w;

	/* Decode this invocation's staging pixels once. */
	uint jl0 = tid % JW, kk0 = tid / JW;
	int pbase[JT], ph[JT], pw[JT];
	[[unroll]] for (uint i = 0; i < JT; i++) {
		uint gj = j0 + jl0 + i * JW;
		uint ni = gj / pq, t = gj % pq;
		ph[i] = int((t / sh.q) * sh.stride) - int(sh.pad);
		pw[i] = int((t % sh.q) * sh.stride) - int(sh.pad);
		/* Past the last pixel: an impossible row, never loaded. */
		if (gj >= npq)
			ph[i] = -(1 << 30);
		pbase[i] = int(ni * sh.h * sh.w * sh.c);
	}

	vec4 acc[TM][TN / 4];
	[[unroll]] for (uint i = 0; i < TM; i++)
		[[unroll]] for (uint j = 0; j < TN / 4; j++)
			acc[i][j] = vec4(0.0);

	for (uint rs = 0; rs < sh.r * sh.s; rs++) {
		int dr = int((rs / sh.s) * sh.dil);
		int ds = int((rs % sh.s) * sh.dil);
		/* Offsets of this tap in the staged pixels; -1: padding. */
		int off[JT];
		[[unroll]] for (uint i = 0; i < JT; i++) {
			int hi = ph[i] + dr, wi = pw[i] + ds;
			bool in_ = hi >= 0 && hi < int(sh.h) && wi >= 0 &&
				   wi < int(sh.w);
			int pix = hi * int(sh.w) + wi;
			off[i] = !in_ ? -1 :
				 pbase[i] + (NHWC != 0 ? pix * int(sh.c) : pix);
		}
		for (uint c0 = 0; c0 < sh.c; c0 += BK) {
			load_a(m0, c0, rs, crs);
			for (uint kk = kk0; kk < BK; kk += KT) {
				uint ci = c0 + kk;
				[[unroll]] for (uint i = 0; i < JT; i++) {
					float v = 0.0;
					if (off[i] >= 0 && ci < sh.c)
						v = float(x[uint(off[i]) +
							    ci * cstr]);
					st_b(kk, jl0 + i * JW, v);
				}
			}
			barrier();
			uint ao = ty * (TM / 4), bo = tx * (TN / 4);
			for (uint kk = 0; kk < BK; kk++) {
				vec4 a[TM / 4], b[TN / 4];
				[[unroll]] for (uint i = 0; i < TM / 4; i++)
					a[i] = As[kk * (BM / 4) + ao + i];
				[[unroll]] for (uint j = 0; j < TN / 4; j++)
					b[j] = Bs[kk * (BN / 4) + bo + j];
				[[unroll]] for (uint i = 0; i < TM; i++)
					[[unroll]] for (uint j = 0; j < TN / 4;
							j++)
						acc[i][j] = fma(
							vec4(a[i >> 2][i & 3]),
							b[j], acc[i][j]);
			}
			barrier();
		}
	}

	/* Store the TM x TN block: channels m0 + ty*TM + i, pixels
	 * j0 + tx*TN + j. */
	[[unroll]] for (uint j = 0; j < TN; j++) {
		uint gj = j0 + tx * TN + j;
		if (gj >= npq)
			break;
		uint ni = gj / pq, t = gj % pq;
		[[unroll]] for (uint i = 0; i < TM; i++) {
			uint gm = m0 + ty * TM + i;
			if (gm >= sh.k)
				break;
			uint idx = NHWC != 0 ? (ni * pq + t) * sh.k + gm :
					       (ni * sh.k + gm) * pq + t;
			y[idx] = ELEM(acc[i][j >> 2][j & 3]);
		}
	}
}

/*
 * SHARE = 1: the implicit GEMM with no shared memory and no barriers, as
 * gemm's share=subgroup (shaders/gemm.comp says why it suits CPU
 * drivers).  Invocations work in groups of G = 8 lanes that share TM
 * output channels; lane l owns the TN pixels base + l + G * j, so
 * neighbouring lanes read neighbouring pixels.  For each filter tap and
 * block of G input channels, each lane fetches one channel of the TM
 * weights (handed round with subgroup shuffles from constant lanes) and
 * the G channels of its TN pixels, all through texel views (lavapipe
 * gathers a texel fetch with vector instructions), then runs the TM x TN
 * block in micro-tiles of MR channels whose accumulators stay in
 * registers over the G channels.  Indices are clamped, never branched
 * on: a channel past C has weight 0; a pixel in the padding, input 0.
 */
const uint G = 8;

float bcast(float v, uint q, uint gbase)
{
	return subgroupShuffle(v, gl_SubgroupSize == G ? q : gbase + q);
}

void main_subgroup()
{
	uint tid = gl_LocalInvocationID.x;
	uint tx = tid % TX, ty = tid / TX;
	uint lane = gl_SubgroupInvocationID % G;
	uint gbase = gl_SubgroupInvocationID - lane;
	uint crs = sh.c * sh.r * sh.s;
	uint npq = sh.n * sh.p * sh.q;
	uint pq = sh.p * sh.q;
	uint m0 = gl_WorkGroupID.y * BM + ty * TM;
	uint jb = gl_WorkGroupID.x * BN + (tx - lane) * TN + lane;
	uint cstr = NHWC != 0 ? 1 : sh.h * sh.w;
	/* Channel stride of the weights: KRSC or KCRS. */
	uint wcs = NHWC != 0 ? 1 : sh.r * sh.s;

	int pbase[TN], ph[TN], pw[TN];
	[[unroll]] for (uint j = 0; j < TN; j++) {
		uint gj = jb + G * j;
		uint ni = gj / pq, t = gj % pq;
		ph[j] = int((t / sh.q) * sh.stride) - int(sh.pad);
		pw[j] = int((t % sh.q) * sh.stride) - int(sh.pad);
		if (gj >= npq)
			ph[j] = -(1 << 30);
		pbase[j] = int(ni * sh.h * sh.w * sh.c);
	}
	uint wrow[TM];
	[[unroll]] for (uint i = 0; i < TM; i++)
		wrow[i] = min(m0 + i, sh.k - 1) * crs;

	float acc[TM][TN];
	[[unroll]] for (uint i = 0; i < TM; i++)
		[[unroll]] for (uint j = 0; j < TN; j++)
			acc[i][j] = 0.0;

	for (uint rs = 0; rs < sh.r * sh.s; rs++) {
		int dr = int((rs / sh.s) * sh.dil);
		int ds = int((rs % sh.s) * sh.dil);
		int off[TN];
		[[unroll]] for (uint j = 0; j < TN; j++) {
			int hi = ph[j] + dr, wi = pw[j] + ds;
			bool in_ = hi >= 0 && hi < int(sh.h) && wi >= 0 &&
				   wi < int(sh.w);
			int pix = hi * int(sh.w) + wi;
			off[j] = !in_ ? -1 :
				 pbase[j] + (NHWC != 0 ? pix * int(sh.c) : pix);
		}
		uint wtap = NHWC != 0 ? rs * sh.c : rs;
		for (uint c0 = 0; c0 < sh.c; c0 += G) {
			uint cl = min(c0 + lane, sh.c - 1);
			float wv[TM];
			[[unroll]] for (uint i = 0; i < TM; i++) {
				float v = texelFetch(Wtt, int(wrow[i] + wtap +
							      cl * wcs)).x;
				wv[i] = c0 + lane < sh.c ? v : 0.0;
			}
			float xq[G][TN];
			[[unroll]] for (uint q = 0; q < G; q++) {
				uint ci = min(c0 + q, sh.c - 1);
				[[unroll]] for (uint j = 0; j < TN; j++) {
					int e = max(off[j], 0) + int(ci * cstr);
					float v = texelFetch(Xt, e).x;
					xq[q][j] = off[j] >= 0 ? v : 0.0;
				}
			}
			[[unroll]] for (uint t0 = 0; t0 < TM / MR; t0++)
				[[unroll]] for (uint q = 0; q < G; q++)
					[[unroll]] for (uint r = 0; r < MR; r++) {
						uint i = t0 * MR + r;
						float w = bcast(wv[i], q, gbase);
						[[unroll]] for (uint j = 0; j < TN; j++)
							acc[i][j] = fma(w, xq[q][j],
									acc[i][j]);
					}
		}
	}

	[[unroll]] for (uint j = 0; j < TN; j++) {
		uint gj = jb + G * j;
		if (gj >= npq)
			break;
		uint ni = gj / pq, t = gj % pq;
		[[unroll]] for (uint i = 0; i < TM; i++) {
			uint gm = m0 + i;
			if (gm >= sh.k)
				break;
			uint idx = NHWC != 0 ? (ni * pq + t) * sh.k + gm :
					       (ni * sh.k + gm) * pq + t;
			y[idx] = ELEM(acc[i][j]);
		}
	}
}

void main()
{
	if (SHARE == 0)
		main_smem();
	else
		main_subgroup();
}
