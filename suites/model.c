/*
 * suites/model.c - whole model layers as one command buffer per forward
 * pass (issue 36): the buffers, the list of dispatches (steps) a layer
 * is, the passes' timing hooks, the check against the CPU reference
 * (suites/model_ref.c), and what is measured after the timed passes:
 * each kernel timed alone (the glue overhead) and the server scenario's
 * rate search.  The three layer suites are in suites/model_layers.c.
 *
 * Kernels: shaders/model_*.comp (matrix products, norms, element-wise
 * steps, head permutes with rotary positions, im2col) and
 * shaders/attention.comp, the attention suite's own kernel, with its
 * KV_GROUP constant for grouped-query attention.
 */
#include "suites/model.h"

#include "core/error.h"
#include "core/hash.h"
#include "suites/attention_ref.h"
#include "suites/cpu_baseline.h"
#include "suites/data.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Lanes per group of attention's subgroup kernel (suites/attention.c). */
#define ATT_SG 8
#define ATT_SG_REGS 256
/* Most words of push constants a model kernel takes. */
#define MODEL_PUSH_WORDS 12
/* Grid-stride kernels: invocations a group, and the most groups. */
#define MODEL_WG 256
#define MODEL_MAX_GROUPS 65535u
/* Passes of the profile: each kernel alone, and whole passes. */
#define PROFILE_ROUNDS 5

struct step {
	const char *name; /* the breakdown's key: "qkv", "attention", ... */
	uint32_t layer;
	struct ax_vk_pipeline pipe;
	bool built;
	uint32_t push[MODEL_PUSH_WORDS];
	uint32_t push_size;
	uint32_t g[3];
};

/* The activations a pass reads and writes, each rows x width floats
 * unless named. */
enum {
	B_X0,	/* the input, never written: every pass starts from it */
	B_PING, /* layer outputs, alternating */
	B_PONG,
	B_N1, /* normed input, merged heads, 1x1 output */
	B_A,  /* projection outputs */
	B_H,  /* the residual stream inside a layer */
	B_QH, /* queries, head-major */
	B_KH, /* encoder: keys and values, head-major */
	B_VH,
	B_OH,  /* attention output, head-major */
	B_ACT, /* rows x ffn: the FFN's inner activations */
	B_BIG, /* rows x the widest projection (qkv, gate+up, im2col) */
	B_COUNT
};

struct model_state {
	struct ax_vk_ctx *vk;
	enum ax_model_kind kind;
	struct model_point pt;
	struct ax_model_dims d;
	struct ax_model_data data;
	struct ax_vk_buffer buf[B_COUNT];
	struct ax_vk_buffer *w; /* layers x tensors, as data.t */
	int n_w;
	struct step *steps;
	int n_steps, cap_steps;
	const char *skip; /* test-only: a step left out of every pass */
	struct ax_vk_slot slot;
	bool have_slot;
	int out_buf; /* B_PING or B_PONG: the last layer's output */
	char hash[17];
};

void ax_model_dims_of(enum ax_model_kind kind, const struct model_point *pt,
		      struct ax_model_dims *d)
{
	uint32_t s = pt->scale ? pt->scale : 1;
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->batch = pt->batch;
	d->layers = pt->layers;
	d->f16 = pt->dtype == 1;
	if (kind == AX_MODEL_RESNET) {
		d->size = pt->size;
		d->channels = pt->channels / s ? pt->channels / s : 1;
		d->mid = pt->mid / s ? pt->mid / s : 1;
		return;
	}
	d->tokens = pt->tokens;
	d->depth = kind == AX_MODEL_DECODER ? pt->depth : 0;
	d->heads = pt->heads / s ? pt->heads / s : 1;
	d->kv_heads = kind == AX_MODEL_DECODER
			  ? (pt->kv_heads / s ? pt->kv_heads / s : 1)
			  : d->heads;
	d->head_dim = pt->head_dim;
	d->ffn = pt->ffn / s ? pt->ffn / s : 1;
	d->hidden = d->heads * d->head_dim;
}

static void point_of(const struct ax_params *p, struct model_point *pt)
{
	memset(pt, 0, sizeof(*pt));
	ax_params_store(p, pt);
}

/* ---- checks ---- */

static uint32_t att_invocations(const struct model_point *pt)
{
	if (pt->att_share == 0)
		return pt->att_br * pt->att_tpr;
	uint32_t lanes = (pt->att_br + pt->att_rpl - 1) / pt->att_rpl;
	return (lanes + ATT_SG - 1) / ATT_SG * ATT_SG;
}

static int check_attention(const char *suite, const struct model_point *pt,
			   const struct ax_model_dims *d,
			   const struct ax_vk_device_info *dev, char *why,
			   size_t whylen)
{
	if (d->heads % d->kv_heads)
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: heads %u is not a multiple of kv_heads %u "
			       "(after scale=%u); change kv_heads or scale",
			       suite, d->heads, d->kv_heads, pt->scale);
	if (d->head_dim % 2)
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: head_dim %u must be even (rotary pairs)",
			       suite, d->head_dim);
	struct ax_attention_shape s = {d->batch,	d->heads,    d->tokens,
				       ax_model_cap(d), d->head_dim, true,
				       d->f16};
	struct ax_attention_tiles t = {pt->att_br, pt->att_bc, pt->att_tpr};
	int rc = ax_attention_check_limits(&s, &t, &dev->limits, why, whylen);
	if (rc || pt->att_share == 0)
		return rc;
	if (dev->subgroup_size < ATT_SG || dev->subgroup_size % ATT_SG)
		return ax_errf(
		    why, whylen, AX_EUNSUPPORTED,
		    "%s att_share=subgroup: %s has subgroups of %u "
		    "lanes, not a multiple of %d; use att_share=smem",
		    suite, dev->name, dev->subgroup_size, ATT_SG);
	if (pt->att_bc % ATT_SG)
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s att_share=subgroup: att_bc=%u must be a "
			       "multiple of %d",
			       suite, pt->att_bc, ATT_SG);
	if ((uint64_t)pt->att_rpl * d->head_dim > ATT_SG_REGS)
		return ax_errf(
		    why, whylen, AX_EINVAL,
		    "%s att_share=subgroup: att_rpl*head_dim = %u "
		    "exceeds %d; lower att_rpl or use att_share=smem",
		    suite, pt->att_rpl * d->head_dim, ATT_SG_REGS);
	if (att_invocations(pt) > dev->limits.maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: %u attention invocations exceed "
			       "maxComputeWorkGroupSize[0] %u",
			       suite, att_invocations(pt),
			       dev->limits.maxComputeWorkGroupSize[0]);
	return 0;
}

static int check_gemm(const char *suite, const struct model_point *pt,
		      const struct ax_vk_device_info *dev, char *why,
		      size_t whylen)
{
	const VkPhysicalDeviceLimits *l = &dev->limits;
	uint32_t wg = pt->gemm_wg, tile = wg * pt->gemm_tm;
	uint64_t shared = 2ull * pt->gemm_bk * tile * sizeof(float);
	if (wg * wg > l->maxComputeWorkGroupInvocations ||
	    wg > l->maxComputeWorkGroupSize[0] ||
	    wg > l->maxComputeWorkGroupSize[1])
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: gemm_wg=%u is %u invocations, above the "
			       "device's %u (maxComputeWorkGroupInvocations)",
			       suite, wg, wg * wg,
			       l->maxComputeWorkGroupInvocations);
	if (shared > l->maxComputeSharedMemorySize)
		return ax_errf(
		    why, whylen, AX_EINVAL,
		    "%s: gemm tiles need %llu bytes of shared memory "
		    "(2 x gemm_bk x gemm_wg x gemm_tm floats), above "
		    "maxComputeSharedMemorySize %u; lower gemm_bk or "
		    "gemm_tm",
		    suite, (unsigned long long)shared,
		    l->maxComputeSharedMemorySize);
	return 0;
}

/* Elements of the widest intermediate, per row (B_BIG). */
static size_t big_width(const struct ax_model_dims *d)
{
	if (d->kind == AX_MODEL_RESNET)
		return 9 * (size_t)d->mid;
	size_t qkv = (size_t)(d->heads + 2 * d->kv_heads) * d->head_dim;
	size_t gu = d->kind == AX_MODEL_DECODER ? 2 * (size_t)d->ffn : 0;
	return qkv > gu ? qkv : gu;
}

static int check_sizes(const char *suite, const struct ax_model_dims *d,
		       const struct ax_vk_device_info *dev, char *why,
		       size_t whylen)
{
	uint64_t esz = d->f16 ? 2 : 4;
	uint64_t rows = ax_model_rows(d);
	uint64_t widest = rows * big_width(d) * esz;
	uint64_t range = dev->limits.maxStorageBufferRange;
	for (int i = 0; i < ax_model_tensor_count(d->kind); i++)
		if (ax_model_tensor_elems(d, i) * esz > widest)
			widest = ax_model_tensor_elems(d, i) * esz;
	if (widest > range)
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: a buffer of %llu bytes exceeds "
			       "maxStorageBufferRange %llu; lower batch, "
			       "tokens or raise scale",
			       suite, (unsigned long long)widest,
			       (unsigned long long)range);
	if (rows * big_width(d) > UINT32_MAX)
		return ax_errf(why, whylen, AX_EINVAL,
			       "%s: %llu elements in one buffer exceed the "
			       "kernels' 32-bit indices; lower batch or tokens",
			       suite,
			       (unsigned long long)(rows * big_width(d)));
	return 0;
}

int ax_model_check_point(enum ax_model_kind kind, const struct ax_params *p,
			 const struct ax_vk_device_info *dev, char *why,
			 size_t whylen)
{
	const char *suite = kind == AX_MODEL_DECODER   ? "decoder"
			    : kind == AX_MODEL_ENCODER ? "encoder"
						       : "resnet";
	struct model_point pt;
	struct ax_model_dims d;
	point_of(p, &pt);
	ax_model_dims_of(kind, &pt, &d);
	if (d.f16 && !(dev->storage16 && dev->fp16_arith))
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "%s dtype=f16 needs 16-bit storage buffers and "
			       "shaderFloat16, which %s lacks; use dtype=f32",
			       suite, dev->name);
	int rc = check_gemm(suite, &pt, dev, why, whylen);
	if (!rc && kind != AX_MODEL_RESNET)
		rc = check_attention(suite, &pt, &d, dev, why, whylen);
	if (!rc)
		rc = check_sizes(suite, &d, dev, why, whylen);
	return rc;
}

/* ---- building the steps ---- */

static const char *variant(const struct model_state *s, const char *shader,
			   char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", shader, s->d.f16 ? "_f16" : "");
	return buf;
}

static struct step *new_step(struct model_state *s, const char *name)
{
	if (s->n_steps == s->cap_steps) {
		int cap = s->cap_steps ? 2 * s->cap_steps : 32;
		struct step *n = realloc(s->steps, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		s->steps = n;
		s->cap_steps = cap;
	}
	struct step *st = &s->steps[s->n_steps];
	memset(st, 0, sizeof(*st));
	st->name = name;
	return st;
}

struct kernel {
	const char *name, *shader;
	const struct ax_vk_buffer *bufs[4];
	uint32_t n_bufs;
	const uint32_t *push;
	uint32_t push_words;
	const struct ax_vk_spec *spec;
	int n_spec;
	uint32_t g[3];
};

static int add_kernel(struct model_state *s, uint32_t layer,
		      const struct kernel *k)
{
	char shader[64];
	struct step *st = new_step(s, k->name);
	if (!st)
		return AX_ENOMEM;
	st->layer = layer;
	memcpy(st->push, k->push, k->push_words * 4);
	st->push_size = k->push_words * 4;
	memcpy(st->g, k->g, sizeof(st->g));
	int rc = ax_vk_pipeline_create(
	    s->vk, variant(s, k->shader, shader, sizeof(shader)), k->n_bufs,
	    st->push_size, k->spec, k->n_spec, &st->pipe);
	if (rc)
		return rc;
	st->built = true;
	s->n_steps++;
	struct ax_vk_binding b[4];
	for (uint32_t i = 0; i < k->n_bufs; i++)
		b[i] = (struct ax_vk_binding){k->bufs[i], 0, 0};
	return ax_vk_pipeline_bind(s->vk, &st->pipe, b, k->n_bufs);
}

static uint32_t stride_groups(uint64_t n)
{
	uint64_t g = (n + MODEL_WG - 1) / MODEL_WG;
	return g > MODEL_MAX_GROUPS ? MODEL_MAX_GROUPS : g ? (uint32_t)g : 1;
}

static const struct ax_vk_spec wg_spec[] = {{0, MODEL_WG}};

static int gemm(struct model_state *s, uint32_t l, const char *name,
		const struct ax_vk_buffer *a, const struct ax_vk_buffer *b,
		const struct ax_vk_buffer *c, size_t m, size_t n, size_t k)
{
	const struct model_point *pt = &s->pt;
	uint32_t tile = pt->gemm_wg * pt->gemm_tm;
	struct ax_vk_spec spec[] = {{0, pt->gemm_wg},
				    {1, pt->gemm_wg},
				    {2, pt->gemm_tm},
				    {3, pt->gemm_bk}};
	uint32_t push[] = {(uint32_t)m, (uint32_t)n, (uint32_t)k};
	struct kernel kn = {name,
			    "model_gemm",
			    {a, b, c},
			    3,
			    push,
			    3,
			    spec,
			    4,
			    {(uint32_t)((n + tile - 1) / tile),
			     (uint32_t)((m + tile - 1) / tile), 1}};
	return add_kernel(s, l, &kn);
}

enum { NORM_RMS, NORM_LAYER };

static int norm(struct model_state *s, uint32_t l, const char *name,
		const struct ax_vk_buffer *x, const struct ax_vk_buffer *g,
		const struct ax_vk_buffer *beta, const struct ax_vk_buffer *y,
		uint32_t mode)
{
	size_t rows = ax_model_rows(&s->d);
	float eps = mode == NORM_RMS ? AX_MODEL_RMS_EPS : AX_MODEL_LN_EPS;
	uint32_t push[4] = {(uint32_t)rows, (uint32_t)ax_model_width(&s->d),
			    mode};
	memcpy(&push[3], &eps, 4);
	static const struct ax_vk_spec spec[] = {{0, 64}};
	uint32_t gx =
	    rows > MODEL_MAX_GROUPS ? MODEL_MAX_GROUPS : (uint32_t)rows;
	struct kernel k = {name,
			   "model_norm",
			   {x, g, beta, y},
			   4,
			   push,
			   4,
			   spec,
			   1,
			   {gx, (uint32_t)((rows + gx - 1) / gx), 1}};
	return add_kernel(s, l, &k);
}

enum { OP_ADD, OP_ADD_RELU, OP_RELU, OP_SWIGLU, OP_GELU };

static int eltwise(struct model_state *s, uint32_t l, const char *name,
		   const struct ax_vk_buffer *a, const struct ax_vk_buffer *b,
		   const struct ax_vk_buffer *y, size_t n, size_t f,
		   uint32_t op)
{
	uint32_t push[] = {(uint32_t)n, (uint32_t)f, op};
	struct kernel k = {name,
			   "model_eltwise",
			   {a, b ? b : a, y},
			   3,
			   push,
			   3,
			   wg_spec,
			   1,
			   {stride_groups(n), 1, 1}};
	return add_kernel(s, l, &k);
}

/* model_permute.comp's push constants. */
struct heads_push {
	uint32_t batch, tokens, heads, d, ld, col0, cap, pos0, rpos0, mode,
	    rope;
	float theta;
};

static int permute(struct model_state *s, uint32_t l, const char *name,
		   const struct ax_vk_buffer *src,
		   const struct ax_vk_buffer *dst, const struct heads_push *hp)
{
	uint32_t push[MODEL_PUSH_WORDS];
	memcpy(push, hp, sizeof(*hp));
	uint64_t n = (uint64_t)hp->batch * hp->tokens * hp->heads * hp->d;
	struct kernel k = {
	    name, "model_permute",	   {src, dst}, 2, push, 12, wg_spec,
	    1,	  {stride_groups(n), 1, 1}};
	return add_kernel(s, l, &k);
}

/* Token-major columns col0.. of src to head-major dst at pos0, rotated
 * at rpos0 when rope. */
static int to_heads(struct model_state *s, uint32_t l, const char *name,
		    const struct ax_vk_buffer *src,
		    const struct ax_vk_buffer *dst, uint32_t heads, size_t ld,
		    size_t col0, uint32_t cap, uint32_t pos0, bool rope)
{
	const struct ax_model_dims *d = &s->d;
	struct heads_push hp = {d->batch,    d->tokens,	   heads,
				d->head_dim, (uint32_t)ld, (uint32_t)col0,
				cap,	     pos0,	   d->depth,
				0,	     rope,	   AX_MODEL_ROPE_THETA};
	return permute(s, l, name, src, dst, &hp);
}

static int merge_heads(struct model_state *s, uint32_t l,
		       const struct ax_vk_buffer *src,
		       const struct ax_vk_buffer *dst)
{
	const struct ax_model_dims *d = &s->d;
	struct heads_push hp = {
	    d->batch, d->tokens, d->heads, d->head_dim, 0, 0, 0, 0, 0, 1, 0, 0};
	return permute(s, l, "merge_heads", src, dst, &hp);
}

static int attention(struct model_state *s, uint32_t l,
		     const struct ax_vk_buffer *q, const struct ax_vk_buffer *k,
		     const struct ax_vk_buffer *v, bool causal)
{
	const struct ax_model_dims *d = &s->d;
	const struct model_point *pt = &s->pt;
	uint32_t cap = ax_model_cap(d);
	struct ax_vk_spec spec[] = {{0, att_invocations(pt)},
				    {1, pt->att_br},
				    {2, pt->att_bc},
				    {3, pt->att_tpr},
				    {4, d->head_dim},
				    {5, causal},
				    {6, pt->att_share},
				    {7, pt->att_rpl},
				    {8, d->heads / d->kv_heads}};
	float scale = (float)(1.0 / sqrt((double)d->head_dim));
	uint32_t push[3] = {d->tokens, cap};
	memcpy(&push[2], &scale, 4);
	char shader[32];
	snprintf(shader, sizeof(shader), "attention");
	struct kernel kn = {
	    "attention",
	    shader,
	    {q, k, v, &s->buf[B_OH]},
	    4,
	    push,
	    3,
	    spec,
	    9,
	    {(d->tokens + pt->att_br - 1) / pt->att_br, d->heads, d->batch}};
	return add_kernel(s, l, &kn);
}

static const struct ax_vk_buffer *weight(const struct model_state *s,
					 uint32_t l, int i)
{
	return &s->w[(size_t)l * ax_model_tensor_count(s->kind) + i];
}

static int decoder_layer(struct model_state *s, uint32_t l,
			 const struct ax_vk_buffer *in,
			 const struct ax_vk_buffer *out)
{
	const struct ax_model_dims *d = &s->d;
	struct ax_vk_buffer *b = s->buf;
	size_t T = ax_model_rows(d), H = d->hidden, F = d->ffn;
	size_t D = d->head_dim, qw = (size_t)(d->heads + 2 * d->kv_heads) * D;
	uint32_t cap = ax_model_cap(d);
	int rc = norm(s, l, "attn_norm", in, weight(s, l, 0), weight(s, l, 0),
		      &b[B_N1], NORM_RMS);
	if (!rc)
		rc = gemm(s, l, "qkv", &b[B_N1], weight(s, l, 1), &b[B_BIG], T,
			  qw, H);
	if (!rc)
		rc = to_heads(s, l, "rope_q", &b[B_BIG], &b[B_QH], d->heads, qw,
			      0, d->tokens, 0, true);
	if (!rc)
		rc = to_heads(s, l, "rope_k", &b[B_BIG], weight(s, l, 6),
			      d->kv_heads, qw, d->heads * D, cap, d->depth,
			      true);
	if (!rc)
		rc = to_heads(s, l, "store_v", &b[B_BIG], weight(s, l, 7),
			      d->kv_heads, qw, (d->heads + d->kv_heads) * D,
			      cap, d->depth, false);
	if (!rc)
		rc = attention(s, l, &b[B_QH], weight(s, l, 6), weight(s, l, 7),
			       true);
	if (!rc)
		rc = merge_heads(s, l, &b[B_OH], &b[B_N1]);
	if (!rc)
		rc = gemm(s, l, "attn_out", &b[B_N1], weight(s, l, 2), &b[B_A],
			  T, H, H);
	if (!rc)
		rc = eltwise(s, l, "residual", in, &b[B_A], &b[B_H], T * H, 0,
			     OP_ADD);
	if (!rc)
		rc = norm(s, l, "ffn_norm", &b[B_H], weight(s, l, 3),
			  weight(s, l, 3), &b[B_N1], NORM_RMS);
	if (!rc)
		rc = gemm(s, l, "ffn_gate_up", &b[B_N1], weight(s, l, 4),
			  &b[B_BIG], T, 2 * F, H);
	if (!rc)
		rc = eltwise(s, l, "swiglu", &b[B_BIG], NULL, &b[B_ACT], T * F,
			     F, OP_SWIGLU);
	if (!rc)
		rc = gemm(s, l, "ffn_down", &b[B_ACT], weight(s, l, 5), &b[B_A],
			  T, H, F);
	if (!rc)
		rc = eltwise(s, l, "residual", &b[B_H], &b[B_A], out, T * H, 0,
			     OP_ADD);
	return rc;
}

static int encoder_layer(struct model_state *s, uint32_t l,
			 const struct ax_vk_buffer *in,
			 const struct ax_vk_buffer *out)
{
	const struct ax_model_dims *d = &s->d;
	struct ax_vk_buffer *b = s->buf;
	size_t T = ax_model_rows(d), H = d->hidden, F = d->ffn;
	uint32_t n = d->tokens;
	int rc = gemm(s, l, "qkv", in, weight(s, l, 0), &b[B_BIG], T, 3 * H, H);
	if (!rc)
		rc = to_heads(s, l, "split_heads", &b[B_BIG], &b[B_QH],
			      d->heads, 3 * H, 0, n, 0, false);
	if (!rc)
		rc = to_heads(s, l, "split_heads", &b[B_BIG], &b[B_KH],
			      d->heads, 3 * H, H, n, 0, false);
	if (!rc)
		rc = to_heads(s, l, "split_heads", &b[B_BIG], &b[B_VH],
			      d->heads, 3 * H, 2 * H, n, 0, false);
	if (!rc)
		rc = attention(s, l, &b[B_QH], &b[B_KH], &b[B_VH], false);
	if (!rc)
		rc = merge_heads(s, l, &b[B_OH], &b[B_N1]);
	if (!rc)
		rc = gemm(s, l, "attn_out", &b[B_N1], weight(s, l, 1), &b[B_A],
			  T, H, H);
	if (!rc)
		rc = eltwise(s, l, "residual", in, &b[B_A], &b[B_H], T * H, 0,
			     OP_ADD);
	if (!rc)
		rc = norm(s, l, "layer_norm", &b[B_H], weight(s, l, 2),
			  weight(s, l, 3), &b[B_N1], NORM_LAYER);
	if (!rc)
		rc = gemm(s, l, "ffn_up", &b[B_N1], weight(s, l, 4), &b[B_ACT],
			  T, F, H);
	if (!rc)
		rc = eltwise(s, l, "gelu", &b[B_ACT], NULL, &b[B_ACT], T * F, 0,
			     OP_GELU);
	if (!rc)
		rc = gemm(s, l, "ffn_down", &b[B_ACT], weight(s, l, 5), &b[B_A],
			  T, H, F);
	if (!rc)
		rc = eltwise(s, l, "residual", &b[B_N1], &b[B_A], &b[B_H],
			     T * H, 0, OP_ADD);
	if (!rc)
		rc = norm(s, l, "layer_norm", &b[B_H], weight(s, l, 6),
			  weight(s, l, 7), out, NORM_LAYER);
	return rc;
}

static int resnet_layer(struct model_state *s, uint32_t l,
			const struct ax_vk_buffer *in,
			const struct ax_vk_buffer *out)
{
	const struct ax_model_dims *d = &s->d;
	struct ax_vk_buffer *b = s->buf;
	size_t P = ax_model_rows(d), C = d->channels, M = d->mid;
	int rc = gemm(s, l, "conv1x1_reduce", in, weight(s, l, 0), &b[B_N1], P,
		      M, C);
	if (!rc)
		rc = eltwise(s, l, "relu", &b[B_N1], NULL, &b[B_N1], P * M, 0,
			     OP_RELU);
	if (!rc) {
		uint32_t push[] = {d->batch, d->size, d->size, (uint32_t)M};
		struct kernel k = {"im2col",
				   "model_im2col",
				   {&b[B_N1], &b[B_BIG]},
				   2,
				   push,
				   4,
				   wg_spec,
				   1,
				   {stride_groups((uint64_t)P * 9 * M), 1, 1}};
		rc = add_kernel(s, l, &k);
	}
	if (!rc)
		rc = gemm(s, l, "conv3x3", &b[B_BIG], weight(s, l, 1), &b[B_A],
			  P, M, 9 * M);
	if (!rc)
		rc = eltwise(s, l, "relu", &b[B_A], NULL, &b[B_A], P * M, 0,
			     OP_RELU);
	if (!rc)
		rc = gemm(s, l, "conv1x1_expand", &b[B_A], weight(s, l, 2),
			  &b[B_H], P, C, M);
	if (!rc)
		rc = eltwise(s, l, "residual_relu", &b[B_H], in, out, P * C, 0,
			     OP_ADD_RELU);
	return rc;
}

static int build_layers(struct model_state *s)
{
	int rc = 0;
	for (uint32_t l = 0; !rc && l < s->d.layers; l++) {
		const struct ax_vk_buffer *in =
		    l == 0 ? &s->buf[B_X0] : &s->buf[l % 2 ? B_PING : B_PONG];
		int out = l % 2 ? B_PONG : B_PING;
		s->out_buf = out;
		if (s->kind == AX_MODEL_DECODER)
			rc = decoder_layer(s, l, in, &s->buf[out]);
		else if (s->kind == AX_MODEL_ENCODER)
			rc = encoder_layer(s, l, in, &s->buf[out]);
		else
			rc = resnet_layer(s, l, in, &s->buf[out]);
	}
	return rc;
}

/* ---- buffers ---- */

static int scratch_buffers(struct model_state *s)
{
	const struct ax_model_dims *d = &s->d;
	size_t rows = ax_model_rows(d), w = ax_model_width(d);
	size_t act = d->kind == AX_MODEL_RESNET ? 1 : rows * d->ffn;
	size_t kv = d->kind == AX_MODEL_ENCODER ? rows * w : 1;
	size_t n[B_COUNT] = {0,	       rows * w, rows * w, rows * w,
			     rows * w, rows * w, rows * w, kv,
			     kv,       rows * w, act,	   rows * big_width(d)};
	int rc = ax_suite_upload_floats(s->vk, &s->buf[B_X0], s->data.x,
					rows * w, d->f16);
	for (int i = 1; !rc && i < B_COUNT; i++)
		rc = ax_suite_upload_floats(s->vk, &s->buf[i], NULL, n[i],
					    d->f16);
	return rc;
}

static int weight_buffers(struct model_state *s)
{
	int nt = ax_model_tensor_count(s->kind);
	s->n_w = (int)s->d.layers * nt;
	s->w = calloc((size_t)s->n_w, sizeof(*s->w));
	if (!s->w)
		return AX_ENOMEM;
	int rc = 0;
	for (int i = 0; !rc && i < s->n_w; i++)
		rc = ax_suite_upload_floats(
		    s->vk, &s->w[i], s->data.t[i],
		    ax_model_tensor_elems(&s->d, i % nt), s->d.f16);
	return rc;
}

/* One hash of every pipeline's SPIR-V, in step order (spirv_hash). */
static void hash_steps(struct model_state *s)
{
	char all[64 * 17];
	size_t len = 0;
	for (int i = 0; i < s->n_steps && len + 17 < sizeof(all); i++)
		if (s->steps[i].layer == 0)
			len +=
			    (size_t)snprintf(all + len, sizeof(all) - len, "%s",
					     s->steps[i].pipe.shader_hash);
	ax_hash_hex(all, len, s->hash);
}

void ax_model_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct model_state *s = state;
	if (!s)
		return;
	if (s->have_slot)
		ax_vk_slot_release(vk, &s->slot);
	for (int i = 0; i < s->n_steps; i++)
		if (s->steps[i].built)
			ax_vk_pipeline_destroy(vk, &s->steps[i].pipe);
	for (int i = 0; i < B_COUNT; i++)
		ax_vk_buffer_destroy(vk, &s->buf[i]);
	for (int i = 0; s->w && i < s->n_w; i++)
		ax_vk_buffer_destroy(vk, &s->w[i]);
	free(s->w);
	free(s->steps);
	ax_model_data_free(&s->data);
	free(s);
}

int ax_model_setup(enum ax_model_kind kind, struct ax_vk_ctx *vk,
		   const struct ax_params *p, void **state, char *err,
		   size_t errlen)
{
	struct model_state *s = calloc(1, sizeof(*s));
	if (!s)
		return ax_errf(err, errlen, AX_ENOMEM, "out of memory");
	s->vk = vk;
	s->kind = kind;
	point_of(p, &s->pt);
	ax_model_dims_of(kind, &s->pt, &s->d);
	/* Test-only fault injection: AXBENCH_TEST_MODEL_SKIP=STEP leaves
	 * that step out of every pass, so tests prove a wrong kernel in
	 * the chain fails the case. */
	s->skip = getenv("AXBENCH_TEST_MODEL_SKIP");
	int rc = ax_model_data_make(&s->d, &s->data);
	if (!rc)
		rc = scratch_buffers(s);
	if (!rc)
		rc = weight_buffers(s);
	if (!rc)
		rc = build_layers(s);
	if (!rc)
		rc = ax_vk_slot_init(vk, false, &s->slot);
	s->have_slot = rc == 0;
	if (rc) {
		ax_errf(err, errlen, rc, "%s setup failed: %s",
			kind == AX_MODEL_DECODER   ? "decoder"
			: kind == AX_MODEL_ENCODER ? "encoder"
						   : "resnet",
			vk->err[0] ? vk->err : ax_strerror(rc));
		ax_model_teardown(vk, s);
		return rc;
	}
	hash_steps(s);
	*state = s;
	return 0;
}

/* ---- passes ---- */

static void record_step(VkCommandBuffer cb, const struct step *st)
{
	ax_vk_cmd_dispatch(cb, &st->pipe, st->push_size ? st->push : NULL,
			   st->g[0], st->g[1], st->g[2]);
}

/* One forward pass: every step, a barrier before each (the first one's
 * orders the pass after whatever came before it in cb). */
static void record_pass(const struct model_state *s, VkCommandBuffer cb)
{
	for (int i = 0; i < s->n_steps; i++) {
		if (s->skip && !strcmp(s->skip, s->steps[i].name))
			continue;
		ax_vk_cmd_barrier(cb);
		record_step(cb, &s->steps[i]);
	}
}

void ax_model_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	for (uint32_t r = 0; r < reps; r++)
		record_pass(state, cb);
}

/* One request as an application makes it: record the pass, submit it,
 * wait for its fence. */
int ax_model_host_op(void *state, char *err, size_t errlen)
{
	struct model_state *s = state;
	int rc = ax_vk_slot_begin(s->vk, &s->slot);
	if (!rc) {
		record_pass(s, s->slot.cb);
		rc = ax_vk_slot_submit(s->vk, &s->slot);
	}
	if (!rc)
		rc = ax_vk_slot_wait(s->vk, &s->slot);
	if (rc)
		return ax_errf(err, errlen, rc, "forward pass: %s",
			       rc == AX_ETIMEOUT ? "the fence did not signal"
						 : s->vk->err);
	return 0;
}

bool ax_model_host_timed(const struct ax_params *p)
{
	return ax_params_get(p, "scenario") != MODEL_OFFLINE;
}

int ax_model_latency_passes(const struct ax_params *p)
{
	if (ax_params_get(p, "scenario") == MODEL_OFFLINE)
		return 0;
	return (int)ax_params_get(p, "passes");
}

int ax_model_verify(void *state, char *why, size_t whylen)
{
	struct model_state *s = state;
	const struct ax_model_dims *d = &s->d;
	size_t n = ax_model_rows(d) * ax_model_width(d);
	float *got = malloc(n * sizeof(float));
	float *ref = malloc(n * sizeof(float));
	uint16_t *h = d->f16 ? malloc(n * 2) : NULL;
	int rc = AX_ENOMEM;
	if (!got || !ref || (d->f16 && !h))
		goto out;
	rc = ax_vk_download(s->vk, &s->buf[s->out_buf], 0,
			    d->f16 ? (void *)h : got, n * (d->f16 ? 2 : 4));
	if (rc) {
		ax_errf(why, whylen, rc, "reading the layer output: %s",
			s->vk->err);
		goto out;
	}
	for (size_t i = 0; h && i < n; i++)
		got[i] = ax_half_to_float(h[i]);
	rc = ax_model_ref_forward(&s->data, ax_cpu_reference_sgemm(), ref);
	if (!rc)
		rc = ax_model_check(d, got, ref, why, whylen);
out:
	free(got);
	free(ref);
	free(h);
	return rc;
}

/* ---- after the timed passes: the profile ---- */

static double median_of(double *v, int n)
{
	gsl_sort(v, 1, (size_t)n);
	return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

/* GPU seconds of one submission holding step `only` (or, when only < 0,
 * a whole pass), between two timestamps. */
static int time_once(struct model_state *s, int only, double *sec)
{
	VkCommandBuffer cb;
	int rc = ax_vk_cmd_begin(s->vk, false, &cb);
	if (rc)
		return rc;
	ax_vk_cmd_reset_timestamps(s->vk, cb, 2, 2);
	ax_vk_cmd_timestamp(s->vk, cb, 2);
	if (only < 0) {
		record_pass(s, cb);
	} else {
		ax_vk_cmd_barrier(cb);
		record_step(cb, &s->steps[only]);
	}
	ax_vk_cmd_timestamp(s->vk, cb, 3);
	rc = ax_vk_cmd_submit_wait(s->vk, cb, false, s->vk->timeout_ns);
	double ns = 0;
	if (!rc)
		rc = ax_vk_timestamp_delta_ns(s->vk, 2, 3, &ns);
	*sec = ns / 1e9;
	return rc;
}

static int time_median(struct model_state *s, int only, double *sec)
{
	double t[PROFILE_ROUNDS];
	for (int r = 0; r < PROFILE_ROUNDS; r++) {
		int rc = time_once(s, only, &t[r]);
		if (rc)
			return rc;
	}
	*sec = median_of(t, PROFILE_ROUNDS);
	return 0;
}

/* Each kernel of layer 0 timed alone, by name (a layer's two residual
 * adds are one entry), and the pass they make up. */
static int profile(struct model_state *s, json_t *extra)
{
	if (!s->vk->timestamps)
		return 0; /* no timestamps: no breakdown */
	double pass, sum = 0;
	int rc = time_median(s, -1, &pass);
	json_t *kernels = json_array();
	for (int i = 0; !rc && i < s->n_steps && s->steps[i].layer == 0; i++) {
		if (s->skip && !strcmp(s->skip, s->steps[i].name))
			continue;
		double sec;
		rc = time_median(s, i, &sec);
		if (rc)
			break;
		sum += sec;
		json_t *k = NULL;
		size_t j;
		json_t *e;
		json_array_foreach(
		    kernels, j,
		    e) if (!strcmp(json_string_value(json_object_get(e,
								     "name")),
				   s->steps[i].name)) k = e;
		if (!k) {
			k = json_pack("{s:s,s:f,s:i}", "name", s->steps[i].name,
				      "ms", 0.0, "count", 0);
			json_array_append_new(kernels, k);
		}
		json_object_set_new(
		    k, "ms",
		    json_real(json_real_value(json_object_get(k, "ms")) +
			      sec * 1e3));
		json_object_set_new(
		    k, "count",
		    json_integer(
			json_integer_value(json_object_get(k, "count")) + 1));
	}
	if (rc) {
		json_decref(kernels);
		return rc;
	}
	size_t j;
	json_t *e;
	json_array_foreach(kernels, j, e) json_object_set_new(
	    e, "share",
	    json_real(sum > 0 ? json_real_value(json_object_get(e, "ms")) /
				    1e3 / sum
			      : 0));
	double alone = sum * s->d.layers;
	json_object_set_new(
	    extra, "profile",
	    json_pack("{s:f,s:f,s:f,s:i,s:o,s:s}", "pass_ms", pass * 1e3,
		      "kernels_ms", alone * 1e3, "glue_overhead",
		      alone > 0 ? pass / alone : 0.0, "rounds", PROFILE_ROUNDS,
		      "kernels", kernels, "timed_by",
		      "GPU timestamps: the pass in one submission; each kernel "
		      "of layer 0 in a submission of its own, times layers"));
	json_object_set_new(extra, "gflops",
			    json_real(ax_model_flops(&s->d) / pass / 1e9));
	return 0;
}

/* ---- the server scenario ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts = {(time_t)t, (long)((t - floor(t)) * 1e9)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* Exponential gaps of mean 1/rate from a fixed seed (xorshift64*). */
static double next_gap(uint64_t *st, double rate)
{
	*st ^= *st >> 12, *st ^= *st << 25, *st ^= *st >> 27;
	double u =
	    (double)((*st * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
	return -log(1.0 - u) / rate;
}

/* p99 (and p50) of `n` requests arriving as a Poisson process at `rate`
 * a second, served one at a time in order: a request waits for the one
 * before it; its latency is from its arrival to its fence. */
static int server_round(struct model_state *s, double rate, int n, double *p50,
			double *p99, char *err, size_t errlen)
{
	double *lat = malloc((size_t)n * sizeof(double));
	if (!lat)
		return AX_ENOMEM;
	uint64_t st = 0x5eed0000u + (uint64_t)(rate * 1000);
	double arrive = now_s();
	int rc = 0;
	for (int i = 0; !rc && i < n; i++) {
		arrive += next_gap(&st, rate);
		if (now_s() < arrive)
			sleep_until(arrive);
		rc = ax_model_host_op(s, err, errlen);
		lat[i] = now_s() - arrive;
	}
	if (!rc) {
		gsl_sort(lat, 1, (size_t)n);
		*p50 = gsl_stats_median_from_sorted_data(lat, 1, (size_t)n);
		*p99 = gsl_stats_quantile_from_sorted_data(lat, 1, (size_t)n,
							   0.99);
	}
	free(lat);
	return rc;
}

/* Rate steps: from half the single-stream rate up by 1.5x while p99
 * meets the SLO, then halving the gap to the first that failed. */
#define SERVER_MAX_STEPS 10
#define SERVER_BISECT 3

static int server(struct model_state *s, const double *seconds, int n,
		  json_t *extra, char *err, size_t errlen)
{
	double *t = malloc((size_t)n * sizeof(double));
	if (!t)
		return AX_ENOMEM;
	memcpy(t, seconds, (size_t)n * sizeof(double));
	double service = median_of(t, n);
	free(t);
	double slo = s->pt.slo_ms / 1e3;
	int passes = (int)s->pt.passes;
	json_t *steps = json_array();
	double ok = 0, bad = 0, rate = 0.5 / service;
	int rc = 0, bisect = 0;
	for (int i = 0; !rc && i < SERVER_MAX_STEPS; i++) {
		double p50, p99;
		rc = server_round(s, rate, passes, &p50, &p99, err, errlen);
		if (rc)
			break;
		bool met = p99 <= slo;
		json_array_append_new(
		    steps,
		    json_pack("{s:f,s:f,s:f,s:b}", "rate_per_s", rate, "p50_ms",
			      p50 * 1e3, "p99_ms", p99 * 1e3, "met", met));
		if (met)
			ok = rate;
		else
			bad = rate;
		if (bad == 0)
			rate *= 1.5;
		else if (ok == 0)
			rate /= 2; /* even the first rate missed: go lower */
		else if (bisect++ < SERVER_BISECT)
			rate = (ok + bad) / 2;
		else
			break;
	}
	if (rc) {
		json_decref(steps);
		return rc;
	}
	json_object_set_new(
	    extra, "server",
	    json_pack("{s:i,s:f,s:f,s:i,s:o,s:s}", "slo_ms", (int)s->pt.slo_ms,
		      "max_rate_per_s", ok, "max_items_per_s",
		      ok * ax_model_items(&s->d), "requests_per_step", passes,
		      "steps", steps, "arrivals",
		      "Poisson (exponential gaps, fixed seed), one request a "
		      "pass, served in order"));
	return 0;
}

/* Per-item figures of the passes' latencies (host: record, submit,
 * fence), and each scenario's own. */
int ax_model_after(void *state, const struct ax_params *p,
		   const double *seconds, int n, json_t *extra, char *err,
		   size_t errlen)
{
	struct model_state *s = state;
	const struct ax_model_dims *d = &s->d;
	json_t *layer = json_pack(
	    "{s:I,s:I,s:f,s:f,s:s}", "layers", (json_int_t)d->layers, "batch",
	    (json_int_t)d->batch, "flops_per_pass", ax_model_flops(d),
	    "items_per_pass", ax_model_items(d), "item",
	    d->kind == AX_MODEL_DECODER	  ? "token"
	    : d->kind == AX_MODEL_ENCODER ? "sequence"
					  : "image");
	if (d->kind != AX_MODEL_RESNET) {
		json_object_set_new(layer, "hidden", json_integer(d->hidden));
		json_object_set_new(layer, "heads", json_integer(d->heads));
		json_object_set_new(layer, "kv_heads",
				    json_integer(d->kv_heads));
		json_object_set_new(layer, "ffn", json_integer(d->ffn));
	} else {
		json_object_set_new(layer, "channels",
				    json_integer(d->channels));
		json_object_set_new(layer, "mid", json_integer(d->mid));
	}
	if (d->kind == AX_MODEL_DECODER)
		json_object_set_new(layer, "phase",
				    json_string(d->depth == 0 ? "prefill"
						: d->tokens <= 8
						    ? "decode"
						    : "prefill (chunked)"));
	json_object_set_new(extra, "layer", layer);
	int rc = profile(s, extra);
	if (!rc && s->pt.scenario == MODEL_SERVER && n > 0)
		rc = server(s, seconds, n, extra, err, errlen);
	if (rc && !err[0])
		ax_errf(err, errlen, rc, "after the passes: %s",
			s->vk->err[0] ? s->vk->err : ax_strerror(rc));
	return rc;
}

json_t *ax_model_describe(void *state)
{
	const struct model_state *s = state;
	int per_layer = 0;
	for (int i = 0; i < s->n_steps; i++)
		per_layer += s->steps[i].layer == 0;
	return json_pack("{s:i,s:i,s:s}", "dispatches_per_pass", s->n_steps,
			 "dispatches_per_layer", per_layer, "verified",
			 "the layer output against the CPU reference "
			 "(suites/model_ref.c)");
}

const char *ax_model_spirv_hash(void *state)
{
	return ((struct model_state *)state)->hash;
}
