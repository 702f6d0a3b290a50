#version 450
/*
 * shaders/attention.comp - O = softmax(Q K^T * scale) V, flash-attention
 * style: one workgroup owns BR query rows of one (batch, head) and streams
 * the keys and values through shared memory in blocks of BC, keeping a
 * running row maximum m and row sum l (online softmax), so the Sq x Skv
 * score matrix never exists in memory.
 *
 * Each query row is served by TPR invocations (the workgroup is BR x TPR):
 * they split the BC scores of a block and the D output columns of the row
 * (D / TPR columns each, in vec4 groups, held in registers); each holds
 * the row's query in registers.  Partial row
 * maxima and sums are combined through small shared arrays instead of
 * subgroup operations, so any subgroup size works.
 *
 * Causal masking is bottom-right aligned: query i sees key j when
 * j <= i + (Skv - Sq), the convention of FlashAttention 2 and KV caches;
 * blocks wholly in the future are skipped.  A row that sees no key at all
 * (only when Sq > Skv) is written as zeros.
 *
 * Tunables (BR, BC, TPR, SHARE, RPL) and the head dimension D are
 * specialization constants; AX_F16 selects fp16 storage, arithmetic stays
 * fp32.  SHARE picks the kernel: 0 the shared-memory one described above,
 * 1 the subgroup one (main_subgroup, below), which uses no shared memory
 * and no barrier.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/attention.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */
#extension GL_EXT_control_flow_attributes : enable
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#ifdef AX_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define VEC4 f16vec4
#else
#define VEC4 vec4
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BR = 16;  /* query rows per group */
layout(constant_id = 2) const uint BC = 16;  /* keys per block */
layout(constant_id = 3) const uint TPR = 8;  /* invocations per row */
layout(constant_id = 4) const uint D = 64;   /* head dimension */
layout(constant_id = 5) const uint CAUSAL = 0;
layout(constant_id = 6) const uint SHARE = 0; /* 0 smem, 1 subgroup */
layout(constant_id = 7) const uint RPL = 1;   /* SHARE 1: rows per lane */
/* Grouped-query attention: query heads per key/value head (1: plain
 * multi-head).  Query head h reads key/value head h / KV_GROUP, and K and
 * V hold heads / KV_GROUP heads per batch (suites/model.c's decoder). */
layout(constant_id = 8) const uint KV_GROUP = 1;

const uint D4 = D / 4;       /* vec4 groups per row */
const uint G = D4 / TPR;     /* vec4 groups per invocation */
/* Stand-in for -infinity that keeps exp() and subtraction finite. */
const float NEG = -1.0e30;

layout(std430, binding = 0) readonly buffer Qb { VEC4 qv[]; };
layout(std430, binding = 1) readonly buffer Kb { VEC4 kv[]; };
layout(std430, binding = 2) readonly buffer Vb { VEC4 vv[]; };
layout(std430, binding = 3) writeonly buffer Ob { VEC4 ov[]; };

layout(push_constant) uniform Shape {
	uint sq, skv;
	float scale;
} sh;

shared vec4 Ks[BC * D4];
shared vec4 Vs[BC * D4];
shared float Ss[BR * BC];  /* scores, then probabilities */
shared float Mx[BR * TPR]; /* partial row maxima */
shared float Lx[BR * TPR]; /* partial row sums */

/* The key/value head of this workgroup's (batch, query head). */
uint kv_head()
{
	uint kvh = gl_NumWorkGroups.y / KV_GROUP;
	return gl_WorkGroupID.z * kvh + gl_WorkGroupID.y / KV_GROUP;
}

/* Load one block of keys and values of this (batch, head) into shared
 * memory, zero-filling rows past the end. */
void load_kv(uint base, uint k0)
{
	for (uint e = gl_LocalInvocationID.x; e < BC * D4;
	     e += gl_WorkGroupSize.x) {
		vec4 a = vec4(0.0), b = vec4(0.0);
		if (k0 + e / D4 < sh.skv) {
			a = vec4(kv[base + k0 * D4 + e]);
			b = vec4(vv[base + k0 * D4 + e]);
		}
		Ks[e] = a;
		Vs[e] = b;
	}
}

/* Last key (exclusive) any row of this group may see. */
uint kv_end(uint q0)
{
	if (CAUSAL == 0)
		return sh.skv;
	int last = int(min(q0 + BR, sh.sq)) - 1 + int(sh.skv) - int(sh.sq);
	return uint(clamp(last + 1, 0, int(sh.skv)));
}

void main_smem()
{
	uint row = gl_LocalInvocationID.x / TPR;
	uint lane = gl_LocalInvocationID.x % TPR;
	uint bh = gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y;
	uint qbase = bh * sh.sq * D4;
	uint kbase = kv_head() * sh.skv * D4;
	uint q0 = gl_WorkGroupID.x * BR;
	int qi = int(q0 + row);
	int shift = int(sh.skv) - int(sh.sq);

	vec4 o[G];
	[[unroll]] for (uint g = 0; g < G; g++)
		o[g] = vec4(0.0);
	float m = NEG, l = 0.0;

	/* The row's query lives in registers: with tpr = 1 every key and
	 * value read below is uniform across the workgroup, a broadcast. */
	vec4 qr[D4];
	[[unroll]] for (uint d = 0; d < D4; d++)
		qr[d] = vec4(0.0);
	if (q0 + row < sh.sq)
		[[unroll]] for (uint d = 0; d < D4; d++)
			qr[d] = vec4(qv[qbase + (q0 + row) * D4 + d]);
	uint kend = kv_end(q0);
	for (uint k0 = 0; k0 < kend; k0 += BC) {
		load_kv(kbase, k0);
		barrier();

		/* Scores for this invocation's keys, and their maximum. */
		float pmax = NEG;
		for (uint j = lane; j < BC; j += TPR) {
			int kj = int(k0 + j);
			bool vis = kj < int(sh.skv) &&
				   (CAUSAL == 0 || kj <= qi + shift);
			float sc = 2.0 * NEG;
			if (vis) {
				float acc = 0.0;
				[[unroll]] for (uint d = 0; d < D4; d++)
					acc += dot(qr[d], Ks[j * D4 + d]);
				sc = acc * sh.scale;
			}
			Ss[row * BC + j] = sc;
			pmax = max(pmax, sc);
		}
		Mx[row * TPR + lane] = pmax;
		barrier();

		float mnew = m;
		for (uint t = 0; t < TPR; t++)
			mnew = max(mnew, Mx[row * TPR + t]);
		float psum = 0.0;
		for (uint j = lane; j < BC; j += TPR) {
			float pj = exp(Ss[row * BC + j] - mnew);
			Ss[row * BC + j] = pj;
			psum += pj;
		}
		Lx[row * TPR + lane] = psum;
		barrier();

		float alpha = exp(m - mnew);
		float bsum = 0.0;
		for (uint t = 0; t < TPR; t++)
			bsum += Lx[row * TPR + t];
		l = l * alpha + bsum;
		m = mnew;
		[[unroll]] for (uint g = 0; g < G; g++)
			o[g] *= alpha;
		for (uint j = 0; j < BC; j++) {
			float pj = Ss[row * BC + j];
			uint vb = j * D4 + lane;
			[[unroll]] for (uint g = 0; g < G; g++)
				o[g] = fma(vec4(pj), Vs[vb + g * TPR], o[g]);
		}
		barrier();
	}

	if (q0 + row >= sh.sq)
		return;
	float inv = l > 0.0 ? 1.0 / l : 0.0;
	[[unroll]] for (uint g = 0; g < G; g++)
		ov[qbase + (q0 + row) * D4 + lane + g * TPR] = VEC4(o[g] * inv);
}

/*
 * SHARE = 1: no shared memory, no barriers, no branch in the key loop.
 * Lanes work in groups of G = 8; each lane owns RPL whole query rows (their
 * queries and outputs in registers).  A block of BC keys is read BC / G
 * rows per lane, lane l reading keys k0 + c * G + l of K and V as vec4s,
 * and every lane of the group gets every key's values by subgroup
 * shuffles from a constant lane.
 *
 * Why: lavapipe (Mesa 22.3) turns every load inside a loop into an
 * 8-step per-lane loop with a bounds check per word, shared memory
 * included, and a barrier into a coroutine switch; a shuffle from a
 * constant lane is an extract and a splat.  Here each element of K and V
 * is loaded once per group and then feeds RPL fused multiply-adds per
 * lane, instead of being stored to and reloaded from shared memory.  On
 * GPUs the shared-memory kernel (SHARE = 0) is the classic choice; the
 * tuner sees both.
 *
 * Keys past the end (and, causally, in a row's future) are clamped for
 * the load and their score selected to 2 * NEG, so exp() makes them 0
 * even while the row's running maximum is still NEG.
 */
const uint SG = 8;
/* Key rows each lane loads.  The module is specialized whole, so with
 * SHARE = 0 and BC < SG this function's arrays would have no element,
 * which is invalid SPIR-V even though it never runs: keep at least one. */
const uint KPL = BC >= SG ? BC / SG : 1u;

vec4 bcast4(vec4 v, uint q, uint gbase)
{
	/* lavapipe's subgroups are exactly SG wide and it folds the size
	 * to a constant, so there the lane index is a constant too. */
	return subgroupShuffle(v, gl_SubgroupSize == SG ? q : gbase + q);
}

void main_subgroup()
{
	uint t = gl_LocalInvocationID.x;
	uint lane = gl_SubgroupInvocationID % SG;
	uint gbase = gl_SubgroupInvocationID - lane;
	uint bh = gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y;
	uint qbase = bh * sh.sq * D4;
	uint kbase = kv_head() * sh.skv * D4;
	uint q0 = gl_WorkGroupID.x * BR;
	int shift = int(sh.skv) - int(sh.sq);
	uint qlast = min(q0 + BR, sh.sq) - 1;

	/* Rows past the group's BR or past Sq compute a copy of the last
	 * real row and are never stored. */
	uint qrow[RPL];
	vec4 qr[RPL * D4], o[RPL * D4];
	float m[RPL], l[RPL];
	[[unroll]] for (uint r = 0; r < RPL; r++) {
		qrow[r] = min(q0 + t * RPL + r, qlast);
		[[unroll]] for (uint d = 0; d < D4; d++) {
			qr[r * D4 + d] = vec4(qv[qbase + qrow[r] * D4 + d]);
			o[r * D4 + d] = vec4(0.0);
		}
		m[r] = NEG;
		l[r] = 0.0;
	}

	uint kend = kv_end(q0);
	for (uint k0 = 0; k0 < kend; k0 += BC) {
		vec4 kr[KPL * D4], vr[KPL * D4];
		[[unroll]] for (uint c = 0; c < KPL; c++) {
			uint kj = min(k0 + c * SG + lane, sh.skv - 1);
			[[unroll]] for (uint d = 0; d < D4; d++) {
				kr[c * D4 + d] = vec4(kv[kbase + kj * D4 + d]);
				vr[c * D4 + d] = vec4(vv[kbase + kj * D4 + d]);
			}
		}

		float s[RPL * BC];
		[[unroll]] for (uint r = 0; r < RPL; r++)
			[[unroll]] for (uint j = 0; j < BC; j++)
				s[r * BC + j] = 0.0;
		[[unroll]] for (uint j = 0; j < BC; j++) {
			uint c = j / SG, q = j % SG;
			[[unroll]] for (uint d = 0; d < D4; d++) {
				vec4 kb = bcast4(kr[c * D4 + d], q, gbase);
				[[unroll]] for (uint r = 0; r < RPL; r++)
					s[r * BC + j] += dot(qr[r * D4 + d],
							     kb);
			}
		}

		float p[RPL * BC];
		[[unroll]] for (uint r = 0; r < RPL; r++) {
			float mnew = m[r];
			[[unroll]] for (uint j = 0; j < BC; j++) {
				int kj = int(k0 + j);
				bool vis = kj < int(sh.skv) &&
					   (CAUSAL == 0 ||
					    kj <= int(qrow[r]) + shift);
				s[r * BC + j] = vis ? s[r * BC + j] * sh.scale
						    : 2.0 * NEG;
				mnew = max(mnew, s[r * BC + j]);
			}
			float alpha = exp(m[r] - mnew);
			float psum = 0.0;
			[[unroll]] for (uint j = 0; j < BC; j++) {
				p[r * BC + j] = exp(s[r * BC + j] - mnew);
				psum += p[r * BC + j];
			}
			l[r] = l[r] * alpha + psum;
			m[r] = mnew;
			[[unroll]] for (uint d = 0; d < D4; d++)
				o[r * D4 + d] *= alpha;
		}

		[[unroll]] for (uint j = 0; j < BC; j++) {
			uint c = j / SG, q = j % SG;
			[[unroll]] for (uint d = 0; d < D4; d++) {
				vec4 vb = bcast4(vr[c * D4 + d], q, gbase);
				[[unroll]] for (uint r = 0; r < RPL; r++)
					o[r * D4 + d] = fma(vec4(p[r * BC + j]),
							    vb, o[r * D4 + d]);
			}
		}
	}

	[[unroll]] for (uint r = 0; r < RPL; r++) {
		if (t * RPL + r >= BR || q0 + t * RPL + r >= sh.sq)
			break;
		float inv = l[r] > 0.0 ? 1.0 / l[r] : 0.0;
		[[unroll]] for (uint d = 0; d < D4; d++)
			ov[qbase + qrow[r] * D4 + d] =
				VEC4(o[r * D4 + d] * inv);
	}
}

void main()
{
	if (SHARE == 0)
		main_smem();
	else
		main_subgroup();
}
