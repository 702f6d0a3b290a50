/*
 * suites/conv.c - 2-D convolution (NCHW or NHWC, fp32 or fp16 storage) as
 * an implicit GEMM (shaders/conv.comp), verified against a double-precision
 * CPU reference (suites/conv_ref.c).
 */
#include "suites/conv_ref.h"
#include "suites/data.h"
#include "suites/suite.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const layouts[] = {"nchw", "nhwc", NULL};
static const char *const dtypes[] = {"f32", "f16", NULL};
static const char *const shares[] = {"smem", "subgroup", NULL};

#define SHAPE AX_PARAM_SHAPE
#define TUNE (AX_PARAM_TUNABLE | AX_PARAM_POW2)

static const struct ax_param_def conv_params[] = {
    {"n", AX_PT_INT, 1, 4096, NULL, 1, SHAPE, "batch size (images)",
     AX_FIELD(struct ax_conv_point, sh.n)},
    {"c", AX_PT_INT, 1, 16384, NULL, 16, SHAPE, "input channels",
     AX_FIELD(struct ax_conv_point, sh.c)},
    {"h", AX_PT_INT, 1, 16384, NULL, 32, SHAPE, "input height",
     AX_FIELD(struct ax_conv_point, sh.h)},
    {"w", AX_PT_INT, 1, 16384, NULL, 32, SHAPE, "input width",
     AX_FIELD(struct ax_conv_point, sh.w)},
    {"k", AX_PT_INT, 1, 16384, NULL, 32, SHAPE, "output channels",
     AX_FIELD(struct ax_conv_point, sh.k)},
    {"r", AX_PT_INT, 1, 32, NULL, 3, SHAPE, "filter height",
     AX_FIELD(struct ax_conv_point, sh.r)},
    {"s", AX_PT_INT, 1, 32, NULL, 3, SHAPE, "filter width",
     AX_FIELD(struct ax_conv_point, sh.s)},
    {"stride", AX_PT_INT, 1, 16, NULL, 1, SHAPE, "stride (both axes)",
     AX_FIELD(struct ax_conv_point, sh.stride)},
    {"pad", AX_PT_INT, 0, 32, NULL, 1, SHAPE,
     "zero padding on each side (both axes)",
     AX_FIELD(struct ax_conv_point, sh.pad)},
    {"dilation", AX_PT_INT, 1, 16, NULL, 1, SHAPE,
     "filter dilation (both axes)", AX_FIELD(struct ax_conv_point, sh.dil)},
    {"layout", AX_PT_ENUM, 0, 0, layouts, 0, SHAPE,
     "nchw (weights KCRS) or nhwc (weights KRSC)",
     AX_KNOB(struct ax_conv_point, layout, 6)},
    {"dtype", AX_PT_ENUM, 0, 0, dtypes, 0, SHAPE,
     "storage type; f16 needs 16-bit storage and float16, and "
     "accumulates in fp32",
     AX_FIELD(struct ax_conv_point, dtype)},
    /* Defaults by measurement on lavapipe (n=8 c=64 28x28 k=64 3x3):
     * 64 x 128 tiles of 8 x 16 blocks ran about 3x the former 32 x 64
     * tiles of 4 x 4, in one run (7.9 against 2.6 GFLOP/s): each value
     * loaded from shared memory feeds more FMAs, and the workgroup (64
     * invocations, 6 KiB of shared memory) is within the smallest
     * Vulkan limits. */
    {"tile_k", AX_PT_INT, 4, 256, NULL, 64, TUNE,
     "output channels per workgroup (GEMM M tile)",
     AX_KNOB(struct ax_conv_point, t.bm, 1)},
    {"tile_pq", AX_PT_INT, 4, 256, NULL, 128, TUNE,
     "output pixels per workgroup (GEMM N tile)",
     AX_KNOB(struct ax_conv_point, t.bn, 2)},
    {"tile_c", AX_PT_INT, 1, 64, NULL, 8, TUNE,
     "input channels per step staged in shared memory",
     AX_KNOB(struct ax_conv_point, t.bk, 3)},
    {"tm", AX_PT_INT, 4, 16, NULL, 8, TUNE,
     "output channels per invocation (register tile)",
     AX_KNOB(struct ax_conv_point, t.tm, 4)},
    {"tn", AX_PT_INT, 4, 16, NULL, 16, TUNE,
     "output pixels per invocation (register tile)",
     AX_KNOB(struct ax_conv_point, t.tn, 5)},
    {"share", AX_PT_ENUM, 0, 0, shares, 0, AX_PARAM_TUNABLE,
     "smem (tiles staged in shared memory) or subgroup (no shared "
     "memory: groups of 8 lanes share output channels by subgroup "
     "shuffles and read through texel buffers; for CPU drivers)",
     AX_KNOB(struct ax_conv_point, t.share, 7)},
    {"mr", AX_PT_INT, 1, 16, NULL, 1, TUNE,
     "share=subgroup: output channels per micro-tile (at most tm): "
     "their accumulators stay in registers over 8 input channels",
     AX_KNOB(struct ax_conv_point, t.mr, 8)},
};

#define N_CONV_PARAMS ((int)(sizeof(conv_params) / sizeof(conv_params[0])))

struct conv_state {
	struct ax_vk_ctx *vk;
	struct ax_conv_shape sh;
	struct ax_conv_tiles t;
	struct ax_vk_buffer x, w, y;
	struct ax_vk_pipeline pipe;
	bool have_pipe;
	uint32_t push[12];
	uint32_t gx, gy;
	float *hx, *hw; /* the inputs as the device sees them */
};

static int conv_check(const struct ax_params *p,
		      const struct ax_vk_device_info *dev, char *why,
		      size_t whylen)
{
	struct ax_conv_shape s;
	struct ax_conv_tiles t;
	int rc = ax_conv_shape_from_params(p, &s, why, whylen);
	if (rc)
		return rc;
	if (s.f16 && !(dev->storage16 && dev->fp16_arith))
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "dtype=f16 needs 16-bit storage buffers "
			       "and shaderFloat16, which %s lacks; use "
			       "dtype=f32",
			       dev->name);
	ax_conv_tiles_from_params(p, &t);
	if (t.share && (dev->subgroup_size < 8 || dev->subgroup_size % 8))
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "share=subgroup: %s has subgroups of %u lanes; "
			       "it needs a multiple of 8; use share=smem",
			       dev->name, dev->subgroup_size);
	return ax_conv_check_limits(&s, &t, &dev->limits, why, whylen);
}

static void conv_free(struct ax_vk_ctx *vk, struct conv_state *st)
{
	if (st->have_pipe)
		ax_vk_pipeline_destroy(vk, &st->pipe);
	ax_vk_buffer_destroy(vk, &st->x);
	ax_vk_buffer_destroy(vk, &st->w);
	ax_vk_buffer_destroy(vk, &st->y);
	free(st->hx);
	free(st->hw);
	free(st);
}

static void conv_teardown(struct ax_vk_ctx *vk, void *state)
{
	if (state)
		conv_free(vk, state);
}

static int conv_buffers(struct conv_state *st)
{
	struct ax_conv_shape *s = &st->sh;
	size_t nx = ax_conv_input_count(s), nw = ax_conv_weight_count(s);
	st->hx = malloc(nx * sizeof(float));
	st->hw = malloc(nw * sizeof(float));
	if (!st->hx || !st->hw)
		return AX_ENOMEM;
	ax_conv_case_inputs(s, st->hx, st->hw);
	int rc = ax_suite_upload_floats(st->vk, &st->x, st->hx, nx, s->f16);
	if (!rc)
		rc = ax_suite_upload_floats(st->vk, &st->w, st->hw, nw, s->f16);
	if (!rc)
		rc = ax_suite_upload_floats(st->vk, &st->y, NULL,
					    ax_conv_output_count(s), s->f16);
	return rc;
}

static int conv_pipeline(struct conv_state *st, const struct ax_params *p)
{
	struct ax_vk_spec spec[AX_MAX_PARAMS + 1];
	int n = ax_suite_spec(p, spec);
	/* constant_id 0 in shaders/conv.comp: the workgroup size */
	spec[n++] = (struct ax_vk_spec){0, ax_conv_invocations(&st->t)};
	int rc = ax_vk_pipeline_create_texel(
	    st->vk, st->sh.f16 ? "conv_f16" : "conv", 5, 3u << 3,
	    sizeof(st->push), spec, n, &st->pipe);
	if (rc)
		return rc;
	st->have_pipe = true;
	/* Bindings 3 and 4 view the input and the weights one element a
	 * texel; share=smem binds one-texel views it never reads, so the
	 * device's maxTexelBufferElements limits only share=subgroup. */
	VkFormat fmt = st->sh.f16 ? VK_FORMAT_R16_SFLOAT : VK_FORMAT_R32_SFLOAT;
	VkDeviceSize one = st->t.share ? 0 : (st->sh.f16 ? 2 : 4);
	struct ax_vk_binding b[5] = {
	    {&st->x, 0, 0},	   {&st->w, 0, 0},	  {&st->y, 0, 0},
	    {&st->x, 0, one, fmt}, {&st->w, 0, one, fmt},
	};
	return ax_vk_pipeline_bind(st->vk, &st->pipe, b, 5);
}

static int conv_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		      void **state, char *err, size_t errlen)
{
	struct conv_state *st = calloc(1, sizeof(*st));
	if (!st)
		return ax_errf(err, errlen, AX_ENOMEM, "out of memory");
	st->vk = vk;
	int rc = ax_conv_shape_from_params(p, &st->sh, err, errlen);
	if (rc) {
		conv_free(vk, st);
		return rc;
	}
	ax_conv_tiles_from_params(p, &st->t);
	const struct ax_conv_shape *s = &st->sh;
	uint32_t v[12] = {s->n, s->c,	   s->h,   s->w,   s->k, s->r,
			  s->s, s->stride, s->pad, s->dil, s->p, s->q};
	memcpy(st->push, v, sizeof(v));
	st->gx = (uint32_t)((s->n * s->p * s->q + st->t.bn - 1) / st->t.bn);
	st->gy = (uint32_t)((s->k + st->t.bm - 1) / st->t.bm);
	rc = conv_buffers(st);
	if (!rc)
		rc = conv_pipeline(st, p);
	if (rc) {
		ax_errf(err, errlen, rc, "setup failed: %s",
			vk->err[0] ? vk->err : ax_strerror(rc));
		conv_free(vk, st);
		return rc;
	}
	*state = st;
	return 0;
}

static void conv_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct conv_state *st = state;
	for (uint32_t i = 0; i < reps; i++) {
		/* Repetitions rewrite the same output: order them, so each
		 * is timed as a whole convolution. */
		if (i)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &st->pipe, st->push, st->gx, st->gy, 1);
	}
}

static int conv_verify(void *state, char *why, size_t whylen)
{
	struct conv_state *st = state;
	size_t n = ax_conv_output_count(&st->sh);
	size_t esz = st->sh.f16 ? 2 : 4;
	float *y = malloc(n * sizeof(float));
	uint16_t *h = st->sh.f16 ? malloc(n * esz) : NULL;
	int rc = AX_ENOMEM;
	if (!y || (st->sh.f16 && !h))
		goto out;
	rc = ax_vk_download(st->vk, &st->y, 0, st->sh.f16 ? (void *)h : y,
			    n * esz);
	if (rc) {
		ax_errf(why, whylen, rc, "reading the output failed: %s",
			st->vk->err);
		goto out;
	}
	for (size_t i = 0; h && i < n; i++)
		y[i] = ax_half_to_float(h[i]);
	rc = ax_conv_ref_verify(&st->sh, st->hx, st->hw, y, AX_CONV_VERIFY_MACS,
				why, whylen);
out:
	free(y);
	free(h);
	return rc;
}

static double conv_work(const struct ax_params *p)
{
	struct ax_conv_shape s;
	if (ax_conv_shape_from_params(p, &s, NULL, 0))
		return 0.0;
	return ax_conv_flops(&s);
}

static const char *conv_shader(const struct ax_params *p)
{
	struct ax_conv_shape s;
	ax_conv_shape_from_params(p, &s, NULL, 0);
	return s.f16 ? "conv_f16" : "conv";
}

struct ax_vk_buffer *ax_conv_state_output(void *state)
{
	return &((struct conv_state *)state)->y;
}

static json_t *conv_describe(void *state)
{
	const struct conv_state *st = state;
	const struct ax_conv_shape *s = &st->sh;
	return json_pack(
	    "{s:I,s:I,s:I,s:I,s:I,s:[i,i],s:i,s:I,s:s}", "p", (json_int_t)s->p,
	    "q", (json_int_t)s->q, "gemm_m", (json_int_t)s->k, "gemm_n",
	    (json_int_t)(s->n * s->p * s->q), "gemm_k",
	    (json_int_t)(s->c * s->r * s->s), "workgroups", (int)st->gx,
	    (int)st->gy, "invocations", (int)ax_conv_invocations(&st->t),
	    "shared_bytes", (json_int_t)ax_conv_shared_bytes(&st->t),
	    "verified",
	    ax_conv_flops(s) / 2 > AX_CONV_VERIFY_MACS ? "sampled" : "all");
}

static double conv_elem_bytes(const struct ax_conv_shape *s)
{
	return s->f16 ? 2 : 4;
}

/* Compulsory traffic: input, weights and output once each (the implicit
 * GEMM's im2col matrix is never stored). */
static double conv_bytes(const struct ax_params *p)
{
	struct ax_conv_shape s;
	if (ax_conv_shape_from_params(p, &s, NULL, 0))
		return 0.0;
	return conv_elem_bytes(&s) *
	       (double)(ax_conv_input_count(&s) + ax_conv_weight_count(&s) +
			ax_conv_output_count(&s));
}

/* One batch's input: what a data loader uploads per step. */
static double conv_input_bytes(const struct ax_params *p)
{
	struct ax_conv_shape s;
	if (ax_conv_shape_from_params(p, &s, NULL, 0))
		return 0.0;
	return conv_elem_bytes(&s) * (double)ax_conv_input_count(&s);
}

/* recommend's batch-size knee. */
static const struct ax_suite_need conv_needs[] = {{"n", 3}, {NULL, 0}};

const struct ax_suite ax_suite_conv = {
    .name = "conv",
    .summary = "2-D convolution (implicit GEMM), NCHW or NHWC, fp32/fp16",
    .work_model = "2*N*K*P*Q*C*R*S FLOPs per convolution, P and Q the "
		  "output height and width "
		  "(P = (H + 2*pad - dilation*(R-1) - 1) / stride + 1)",
    .constraints = "tm <= tile_k and tn <= tile_pq (the register tile "
		   "fits the workgroup tile)\n"
		   "tile_pq <= 16 * (tile_k/tm)*(tile_pq/tn) (at most 16 "
		   "staged pixels per invocation; share=smem)\n"
		   "share=subgroup: tile_pq/tn a multiple of 8 and mr <= tm",
    .unit = "GFLOP/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = conv_params,
    .n_params = N_CONV_PARAMS,
    .config_size = sizeof(struct ax_conv_point),
    .check = conv_check,
    .setup = conv_setup,
    .record = conv_record,
    .verify = conv_verify,
    .work = conv_work,
    .bytes = conv_bytes,
    .input_bytes = conv_input_bytes,
    .roles = AX_ROLE_WORKLOAD,
    .batch_param = "n",
    .recommend_needs = conv_needs,
    .shader = conv_shader,
    .describe = conv_describe,
    .teardown = conv_teardown,
};
