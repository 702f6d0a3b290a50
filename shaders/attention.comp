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
 * Tunables (BR, BC, TPR) and the head dimension D are specialization
 * constants; AX_F16 selects fp16 storage, arithmetic stays fp32.
 */
#extension GL_EXT_control_flow_attributes : enable
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

void main()
{
	uint row = gl_LocalInvocationID.x / TPR;
	uint lane = gl_LocalInvocationID.x % TPR;
	uint bh = gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y;
	uint qbase = bh * sh.sq * D4;
	uint kbase = bh * sh.skv * D4;
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
