/*
 * suites/attention_ref.h - the CPU side of the attention suite: shapes, the
 * validity predicate, the exact FLOP count (causal included), a
 * double-precision reference and the checker.
 *
 * Pure C (no Vulkan calls), so unit tests can feed the checker hand-made
 * and corrupted outputs.  Tensors are [batch][heads][seq][head_dim], rows
 * contiguous.  Causal masking is bottom-right aligned: query i sees key j
 * when j <= i + (seq_kv - seq_q); a query that sees no key outputs zeros.
 */
#ifndef AX_ATTENTION_REF_H
#define AX_ATTENTION_REF_H

#include "core/params.h"
#include "core/vk.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ax_attention_shape {
	int64_t batch, heads, sq, skv, d;
	bool causal;
	bool f16; /* fp16 storage, fp32 arithmetic */
};

struct ax_attention_tiles {
	uint32_t br, bc, tpr; /* query rows, keys per block, rows' lanes */
};

/* What attention's parameter table binds (suites/attention.c, AX_FIELD):
 * the shape, the tiles, the dtype choice, and share and rpl. */
struct ax_attention_point {
	struct ax_attention_shape sh;
	struct ax_attention_tiles t;
	uint32_t dtype, share, rpl;
};

/* All of a point (names as in suites/attention.c), or its shape or tiles
 * alone. */
void ax_attention_point_from_params(const struct ax_params *p,
				    struct ax_attention_point *pt);
void ax_attention_shape_from_params(const struct ax_params *p,
				    struct ax_attention_shape *s);
void ax_attention_tiles_from_params(const struct ax_params *p,
				    struct ax_attention_tiles *t);

/* Elements of Q / O (batch*heads*sq*d) and of K / V (batch*heads*skv*d). */
size_t ax_attention_q_count(const struct ax_attention_shape *s);
size_t ax_attention_kv_count(const struct ax_attention_shape *s);

/* Number of keys query i sees (all of them unless causal). */
int64_t ax_attention_visible(const struct ax_attention_shape *s, int64_t i);

/* Unmasked (query, key) pairs per (batch, head). */
double ax_attention_pairs(const struct ax_attention_shape *s);

/* 4 * D * batch * heads * pairs: 2*D for Q.K^T and 2*D for P.V per pair. */
double ax_attention_flops(const struct ax_attention_shape *s);

uint32_t ax_attention_invocations(const struct ax_attention_tiles *t);
size_t ax_attention_shared_bytes(const struct ax_attention_shape *s,
				 const struct ax_attention_tiles *t);

/*
 * Can the kernel run s with tiles t on a device with these limits?  Checks
 * head_dim divisibility, invocations, shared memory, workgroup counts and
 * maxStorageBufferRange; AX_EINVAL naming the limit, the value and the fix.
 */
int ax_attention_check_limits(const struct ax_attention_shape *s,
			      const struct ax_attention_tiles *t,
			      const VkPhysicalDeviceLimits *lim, char *why,
			      size_t whylen);

/*
 * Reference output row of query i of (batch*heads index) bh, in double:
 * out[0..d); lg is scratch space for seq_kv doubles.  *tol_scale (may be
 * NULL) gets max|v| * (eps terms): the absolute error a correct fp32
 * kernel may make on this row; see ax_attention_ref_verify.
 */
void ax_attention_ref_row(const struct ax_attention_shape *s, const float *q,
			  const float *k, const float *v, int64_t bh, int64_t i,
			  double scale, double *out, double *lg,
			  double *tol_scale);

/*
 * Compare o (device output as float) with the reference.  All rows are
 * checked when the problem has at most max_macs multiply-adds, otherwise
 * an evenly spread sample of rows plus the last one.  The tolerance of an
 * element is tol_scale of its row (fp32 rounding of the D-term logits,
 * the Skv-term sums and exp, times max|v|) plus, for fp16 storage, the
 * rounding of the output: eps16 * |ref|.  0 when all agree, else
 * AX_EVERIFY with the first mismatch in why.
 */
int ax_attention_ref_verify(const struct ax_attention_shape *s, const float *q,
			    const float *k, const float *v, const float *o,
			    double max_macs, char *why, size_t whylen);

/*
 * The suite's inputs for shape s: q (ax_attention_q_count floats), k and v
 * (ax_attention_kv_count each), fp16-rounded when s->f16.  One
 * definition, so the GPU case and its CPU baseline
 * (suites/cpu_baseline.h) see the same numbers.
 */
void ax_attention_case_inputs(const struct ax_attention_shape *s, float *q,
			      float *k, float *v);

/* The suite verifies every row up to this many multiply-adds, a sample
 * past it. */
#define AX_ATTENTION_VERIFY_MACS (1 << 27)

/*
 * The output buffer O of an attention suite state (from
 * ax_suite_attention.setup), so tests can overwrite an element of a
 * correct result and prove that verification fails.  Defined in
 * suites/attention.c; borrowed.
 */
struct ax_vk_buffer *ax_attention_state_output(void *state);

#endif
