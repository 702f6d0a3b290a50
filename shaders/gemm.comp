#version 450
/*
 * gemm.comp - C = op(A) * op(B), row-major, batched over gl_WorkGroupID.z.
 *
 * One module covers the whole tuning space: every knob is a specialization
 * constant (suites/gemm.c validates a point before building it).  Each
 * workgroup computes a BM x BN tile of C; each invocation a TM x TN block of
 * it held in registers.  K is walked in BK-deep slices staged in shared
 * memory, optionally double-buffered so one barrier per slice suffices.
 *
 * Shared tiles are stored k-major (As[k][m], Bs[k][n]) as vec4 so the inner
 * loop reads an invocation's TM rows and TN columns with vec4 loads: on
 * CPU drivers (lavapipe) every non-uniform load is a per-lane scalar loop,
 * so fewer, wider loads matter more than bank conflicts do.
 *
 * -DAX_F16: A, B and C are stored as float16, arithmetic stays fp32.
 *
 * Bindings: 0-2 A, B, C as scalars; 3-5 the same buffers as 4-vectors;
 * 6-7 A and B as 2-vectors.  Aliased views let one module load VEC
 * elements at once where a whole aligned vector is inside the matrix.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/gemm.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#ifdef AX_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define ST float16_t
#define ST2 f16vec2
#define ST4 f16vec4
#else
#define ST float
#define ST2 vec2
#define ST4 vec4
#endif

layout(local_size_x_id = 0, local_size_y_id = 1,
       local_size_z = 1) in;

layout(constant_id = 0) const uint WG_X = 16;
layout(constant_id = 1) const uint WG_Y = 16;
layout(constant_id = 2) const uint BM = 64;
layout(constant_id = 3) const uint BN = 64;
layout(constant_id = 4) const uint BK = 16;
layout(constant_id = 5) const uint TM = 4;
layout(constant_id = 6) const uint TN = 4;
layout(constant_id = 7) const uint VEC = 4;   /* global load width 1, 2, 4 */
layout(constant_id = 8) const uint DBUF = 0;  /* 1: two shared buffers */
layout(constant_id = 9) const uint TRANS_A = 0;  /* A stored K x M */
layout(constant_id = 10) const uint TRANS_B = 0; /* B stored N x K */
layout(constant_id = 11) const uint SHARE = 0;   /* 0 smem, 1 subgroup */
/* 1 when B is not transposed and N % 4 == 0 (set by the host from the
 * shape), so SHARE = 1 can read B as vec4 without a runtime branch. */
layout(constant_id = 12) const uint B_VEC4 = 0;
/* SHARE = 1: 1 walks the tiles of C column by column (see wg_tile). */
layout(constant_id = 13) const uint COLMAJOR = 0;
/* SHARE = 1: rows of C per micro-tile, a power of two up to TM. */
layout(constant_id = 14) const uint MR = 1;
/* SHARE = 1: 1 reads A and B through the texel views At and Bt. */
layout(constant_id = 15) const uint TEX = 0;

/* TM is at most 64, TN 32 (checked on the host); arrays are sized for
 * the maximum and the unused part is removed once constants are known. */
#define MAX_TM 64
#define MAX_TN 32

layout(std430, binding = 0) readonly buffer A_ { ST a[]; };
layout(std430, binding = 1) readonly buffer B_ { ST b[]; };
layout(std430, binding = 2) writeonly buffer C_ { ST c[]; };
layout(std430, binding = 3) readonly buffer A4_ { ST4 a4[]; };
layout(std430, binding = 4) readonly buffer B4_ { ST4 b4[]; };
layout(std430, binding = 5) writeonly buffer C4_ { ST4 c4[]; };
layout(std430, binding = 6) readonly buffer A2_ { ST2 a2[]; };
layout(std430, binding = 7) readonly buffer B2_ { ST2 b2[]; };
/* A and B as four elements a texel (R32G32B32A32, or R16G16B16A16 with
 * AX_F16): lavapipe gathers a texel fetch with vector instructions where
 * it loads a storage buffer lane by lane. */
layout(binding = 8) uniform samplerBuffer At;
layout(binding = 9) uniform samplerBuffer Bt;

layout(push_constant) uniform P {
	uint M, N, K;
} pc;

const uint NT = WG_X * WG_Y;
const uint NBUF = DBUF + 1;
shared vec4 As[NBUF * BK * BM / 4];
shared vec4 Bs[NBUF * BK * BN / 4];

/*
 * Element (r, col) of a rows x cols row-major matrix stored at base;
 * zero outside the matrix, so edge tiles need no other special case.
 */
float ld_a(uint base, uint r, uint col, uint rows, uint cols)
{
	if (r >= rows || col >= cols)
		return 0.0;
	return float(a[base + r * cols + col]);
}

float ld_b(uint base, uint r, uint col, uint rows, uint cols)
{
	if (r >= rows || col >= cols)
		return 0.0;
	return float(b[base + r * cols + col]);
}

/* Write v as As[kk][mm] (scalar element view of the vec4 array). */
void st_as(uint buf, uint kk, uint mm, float v)
{
	uint e = buf * BK * BM + kk * BM + mm;
	As[e >> 2][e & 3] = v;
}

void st_bs(uint buf, uint kk, uint nn, float v)
{
	uint e = buf * BK * BN + kk * BN + nn;
	Bs[e >> 2][e & 3] = v;
}

/*
 * Stage slice k0 of the A tile.  The tile is BM x BK in C's row / K index
 * space; its contiguous global dimension is K (or M when transposed), read
 * VEC elements at a time where a whole aligned vector is in bounds.
 */
void load_a(uint buf, uint base, uint m0, uint k0, uint t)
{
	const uint CR = TRANS_A == 0 ? BM : BK;      /* tile rows in memory */
	const uint CC = TRANS_A == 0 ? BK : BM;      /* contiguous extent */
	const uint NV = CR * CC / VEC;
	uint rows = TRANS_A == 0 ? pc.M : pc.K;
	uint cols = TRANS_A == 0 ? pc.K : pc.M;
	uint r0 = TRANS_A == 0 ? m0 : k0;
	uint c0 = TRANS_A == 0 ? k0 : m0;
	for (uint i = 0; i < (NV + NT - 1) / NT; i++) {
		uint v = i * NT + t;
		if (NV % NT != 0 && v >= NV)
			break;
		uint tr = v / (CC / VEC), tc = (v % (CC / VEC)) * VEC;
		uint gr = r0 + tr, gc = c0 + tc;
		float x[4];
		if (VEC == 4 && cols % 4 == 0 && gr < rows && gc + 3 < cols) {
			vec4 w = vec4(a4[(base + gr * cols + gc) >> 2]);
			x[0] = w.x; x[1] = w.y; x[2] = w.z; x[3] = w.w;
		} else if (VEC == 2 && cols % 2 == 0 && gr < rows &&
			   gc + 1 < cols) {
			vec2 w = vec2(a2[(base + gr * cols + gc) >> 1]);
			x[0] = w.x; x[1] = w.y;
		} else {
			for (uint j = 0; j < VEC; j++)
				x[j] = ld_a(base, gr, gc + j, rows, cols);
		}
		for (uint j = 0; j < VEC; j++) {
			if (TRANS_A == 0)
				st_as(buf, tc + j, tr, x[j]);
			else
				st_as(buf, tr, tc + j, x[j]);
		}
	}
}

void load_b(uint buf, uint base, uint n0, uint k0, uint t)
{
	const uint CR = TRANS_B == 0 ? BK : BN;
	const uint CC = TRANS_B == 0 ? BN : BK;
	const uint NV = CR * CC / VEC;
	uint rows = TRANS_B == 0 ? pc.K : pc.N;
	uint cols = TRANS_B == 0 ? pc.N : pc.K;
	uint r0 = TRANS_B == 0 ? k0 : n0;
	uint c0 = TRANS_B == 0 ? n0 : k0;
	for (uint i = 0; i < (NV + NT - 1) / NT; i++) {
		uint v = i * NT + t;
		if (NV % NT != 0 && v >= NV)
			break;
		uint tr = v / (CC / VEC), tc = (v % (CC / VEC)) * VEC;
		uint gr = r0 + tr, gc = c0 + tc;
		float x[4];
		if (VEC == 4 && cols % 4 == 0 && gr < rows && gc + 3 < cols) {
			vec4 w = vec4(b4[(base + gr * cols + gc) >> 2]);
			x[0] = w.x; x[1] = w.y; x[2] = w.z; x[3] = w.w;
		} else if (VEC == 2 && cols % 2 == 0 && gr < rows &&
			   gc + 1 < cols) {
			vec2 w = vec2(b2[(base + gr * cols + gc) >> 1]);
			x[0] = w.x; x[1] = w.y;
		} else {
			for (uint j = 0; j < VEC; j++)
				x[j] = ld_b(base, gr, gc + j, rows, cols);
		}
		for (uint j = 0; j < VEC; j++) {
			if (TRANS_B == 0)
				st_bs(buf, tr, tc + j, x[j]);
			else
				st_bs(buf, tc + j, tr, x[j]);
		}
	}
}

void main_smem()
{
	const uint TX = BN / TN;
	uint t = gl_LocalInvocationID.y * WG_X + gl_LocalInvocationID.x;
	uint tx = t % TX, ty = t / TX;
	uint m0 = gl_WorkGroupID.y * BM, n0 = gl_WorkGroupID.x * BN;
	uint z = gl_WorkGroupID.z;
	uint abase = z * pc.M * pc.K, bbase = z * pc.K * pc.N;
	uint cbase = z * pc.M * pc.N;

	vec4 acc[MAX_TM][MAX_TN / 4];
	for (uint i = 0; i < TM; i++)
		for (uint j = 0; j < TN / 4; j++)
			acc[i][j] = vec4(0.0);

	uint nk = (pc.K + BK - 1) / BK;
	if (DBUF != 0) {
		load_a(0, abase, m0, 0, t);
		load_b(0, bbase, n0, 0, t);
		barrier();
	}
	for (uint s = 0; s < nk; s++) {
		uint cur = DBUF != 0 ? (s & 1) : 0;
		if (DBUF == 0) {
			load_a(0, abase, m0, s * BK, t);
			load_b(0, bbase, n0, s * BK, t);
			barrier();
		} else if (s + 1 < nk) {
			/* Fill the other buffer while this one is read:
			 * nobody reads it until after the barrier below. */
			load_a(cur ^ 1, abase, m0, (s + 1) * BK, t);
			load_b(cur ^ 1, bbase, n0, (s + 1) * BK, t);
		}
		uint ao = cur * BK * BM / 4 + ty * TM / 4;
		uint bo = cur * BK * BN / 4 + tx * TN / 4;
		for (uint kk = 0; kk < BK; kk++) {
			vec4 av[MAX_TM / 4], bv[MAX_TN / 4];
			for (uint i = 0; i < TM / 4; i++)
				av[i] = As[ao + kk * (BM / 4) + i];
			for (uint j = 0; j < TN / 4; j++)
				bv[j] = Bs[bo + kk * (BN / 4) + j];
			for (uint i = 0; i < TM; i++)
				for (uint j = 0; j < TN / 4; j++)
					acc[i][j] = fma(vec4(av[i >> 2][i & 3]),
							bv[j], acc[i][j]);
		}
		barrier();
	}

	for (uint i = 0; i < TM; i++) {
		uint gr = m0 + ty * TM + i;
		if (gr >= pc.M)
			break;
		for (uint j = 0; j < TN / 4; j++) {
			uint gc = n0 + tx * TN + j * 4;
			uint e = cbase + gr * pc.N + gc;
			if (pc.N % 4 == 0 && gc + 3 < pc.N) {
				c4[e >> 2] = ST4(acc[i][j]);
			} else {
				for (uint q = 0; q < 4; q++)
					if (gc + q < pc.N)
						c[e + q] = ST(acc[i][j][q]);
			}
		}
	}
}

/*
 * SHARE = 1: no shared memory and no barriers.  Lanes are taken in groups
 * of 8 (G); a group computes TM rows x (G * TN) columns of C, lane l
 * owning the TN contiguous columns l * TN ... (one vec4 load of B per
 * four of them).  The TM values of A that every lane of the group needs
 * at step k are loaded once, one k per lane, and handed round with
 * subgroup broadcasts.
 *
 * Why: lavapipe (Mesa 22.3) turns every load whose address is not built
 * from constants into an 8-iteration per-lane loop, shared memory
 * included, while a broadcast from a constant lane is one extract and
 * splat.  The shared-memory kernel pays TM + TN lane loads (plus the
 * staging stores and coroutine switches at each barrier) per k for
 * TM * TN FMAs; this one pays TN + TM / 8.  On GPUs with real vector
 * loads, SHARE = 0 is the classic choice.
 *
 * Two knobs go further on CPU drivers:
 * - TEX = 1 reads A and B through uniform texel buffers (At, Bt).
 *   lavapipe fetches a texel for all 8 lanes with vector gathers, where
 *   a storage-buffer load runs the per-lane loop above with a bounds
 *   check per component: at 1024^3 tex=1 read 65-74 GFLOP/s against
 *   38-46 (2-core Cooper Lake VM, LLVM 15).
 * - MR: the G k steps of B are staged first and the TM x TN block is
 *   then run MR rows at a time, so the MR * TN accumulators of a
 *   micro-tile stay in the 16 vector registers over the G steps; with
 *   MR = TM (every accumulator live at every step) LLVM spills them and
 *   each FMA pays a reload and a store.  mr=1 beat mr=tm by ~20 %.
 *
 * Every index is clamped into the matrix instead of branched on: in
 * lavapipe an if with a lane-varying condition runs both sides under a
 * mask, so the K loop holds no branch at all; an A value past K is
 * selected to zero, which makes whatever B value pairs with it harmless.
 */
const uint G = 8;

/* Element e of A: At holds four elements a texel, as Bt does, so that
 * a 512 x 512 A fits the smallest maxTexelBufferElements (65536). */
float a_at(uint e)
{
	if (TEX == 0)
		return float(a[e]);
	return texelFetch(At, int(e >> 2))[e & 3];
}

/*
 * op(B)[k][n .. n + 3], clamped into the matrix (columns past N repeat
 * the last one: they compute C columns that are never stored).
 */
vec4 b_row4(uint bbase, uint k, uint n)
{
	if (B_VEC4 != 0) {
		uint e4 = (bbase + k * pc.N) / 4 + min(n / 4, pc.N / 4 - 1);
		return TEX != 0 ? texelFetch(Bt, int(e4)) : vec4(b4[e4]);
	}
	vec4 v;
	[[unroll]] for (uint j = 0; j < 4; j++) {
		uint nn = min(n + j, pc.N - 1);
		uint e = TRANS_B == 0 ? k * pc.N + nn : nn * pc.K + k;
		v[j] = float(b[bbase + e]);
	}
	return v;
}

/* Value of a from lane q of this lane's group of G. */
float bcast(float a, uint q, uint gbase)
{
	/* lavapipe's subgroups are exactly G wide, and it folds the size
	 * to a constant, so there the lane index is a constant too. */
	return subgroupShuffle(a, gl_SubgroupSize == G ? q : gbase + q);
}

/*
 * The tile of C this workgroup computes, as (column, row) of tiles.
 * lavapipe hands out workgroups in x-major order to its threads, so with
 * COLMAJOR = 0 the two threads at work run neighbours in a row of C and
 * each streams its own K x BN panel of B; with COLMAJOR = 1 the linear
 * id is reread column by column, so they share one panel of B instead.
 */
uvec2 wg_tile()
{
	if (COLMAJOR == 0)
		return gl_WorkGroupID.xy;
	uint id = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
	return uvec2(id / gl_NumWorkGroups.y, id % gl_NumWorkGroups.y);
}


void main_subgroup()
{
	uvec2 wt = wg_tile();
	uint t = gl_LocalInvocationID.y * WG_X + gl_LocalInvocationID.x;
	uint lane = gl_SubgroupInvocationID % G;
	uint gbase = gl_SubgroupInvocationID - lane;
	uint grp = t / G;
	const uint GX = BN / (G * TN);
	uint m0 = wt.y * BM + (grp / GX) * TM;
	uint n0 = wt.x * BN + (grp % GX) * (G * TN) + lane * TN;
	uint z = gl_WorkGroupID.z;
	uint abase = z * pc.M * pc.K, bbase = z * pc.K * pc.N;
	uint cbase = z * pc.M * pc.N;

	vec4 acc[MAX_TM][MAX_TN / 4];
	[[unroll]] for (uint i = 0; i < TM; i++)
		[[unroll]] for (uint j = 0; j < TN / 4; j++)
			acc[i][j] = vec4(0.0);

	/* Clamped row offsets of A: rows past M (and columns past N,
	 * below) compute garbage that is never stored. */
	uint arow[MAX_TM];
	[[unroll]] for (uint i = 0; i < TM; i++) {
		uint r = min(m0 + i, pc.M - 1);
		arow[i] = TRANS_A == 0 ? abase + r * pc.K : abase + r;
	}

	for (uint k0 = 0; k0 < pc.K; k0 += G) {
		uint ka = min(k0 + lane, pc.K - 1);
		float av[MAX_TM];
		[[unroll]] for (uint i = 0; i < TM; i++) {
			uint e = TRANS_A == 0 ? arow[i] + ka
					      : arow[i] + ka * pc.M;
			float v = a_at(e);
			av[i] = k0 + lane < pc.K ? v : 0.0;
		}
		/* B for all G k steps first, then the block in micro-tiles
		 * of MR rows: a micro-tile's accumulators stay in registers
		 * over the G steps (with MR = TM this is the plain k-outer
		 * order, every accumulator reloaded from the stack at each
		 * step once there are more than the registers hold). */
		vec4 bq[G][MAX_TN / 4];
		[[unroll]] for (uint q = 0; q < G; q++) {
			uint kb = min(k0 + q, pc.K - 1);
			[[unroll]] for (uint j = 0; j < TN / 4; j++)
				bq[q][j] = b_row4(bbase, kb, n0 + 4 * j);
		}
		[[unroll]] for (uint t0 = 0; t0 < TM / MR; t0++)
			[[unroll]] for (uint q = 0; q < G; q++)
				[[unroll]] for (uint r = 0; r < MR; r++) {
					uint i = t0 * MR + r;
					float x = bcast(av[i], q, gbase);
					[[unroll]] for (uint j = 0; j < TN / 4; j++)
						acc[i][j] = fma(vec4(x), bq[q][j],
								acc[i][j]);
				}
	}

	[[unroll]] for (uint i = 0; i < TM; i++) {
		uint gr = m0 + i;
		if (gr >= pc.M)
			break;
		[[unroll]] for (uint j = 0; j < TN / 4; j++) {
			uint gc = n0 + j * 4;
			uint e = cbase + gr * pc.N + gc;
			if (pc.N % 4 == 0 && gc + 3 < pc.N) {
				c4[e >> 2] = ST4(acc[i][j]);
			} else {
				for (uint q = 0; q < 4; q++)
					if (gc + q < pc.N)
						c[e + q] = ST(acc[i][j][q]);
			}
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
