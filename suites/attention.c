/*
 * suites/attention.c - scaled dot-product attention, flash-attention style
 * (shaders/attention.comp), fp32 or fp16 storage, causal or not, verified
 * against a double-precision CPU reference (suites/attention_ref.c).
 */
#include "suites/attention_ref.h"
#include "suites/data.h"
#include "suites/suite.h"

#include "core/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtypes[] = {"f32", "f16", NULL};
static const char *const shares[] = {"smem", "subgroup", NULL};

/* Lanes per group of the subgroup kernel (shaders/attention.comp, SG). */
#define ATT_SG 8
/* Most query values (rpl * head_dim) one lane of it holds. */
#define ATT_SG_REGS 256

#define SHAPE AX_PARAM_SHAPE
#define TUNE (AX_PARAM_TUNABLE | AX_PARAM_POW2)

static const struct ax_param_def att_params[] = {
    {"batch", AX_PT_INT, 1, 4096, NULL, 1, SHAPE, "batch size",
     AX_FIELD(struct ax_attention_point, sh.batch)},
    {"heads", AX_PT_INT, 1, 1024, NULL, 4, SHAPE, "attention heads",
     AX_FIELD(struct ax_attention_point, sh.heads)},
    {"seq_q", AX_PT_INT, 1, 1 << 20, NULL, 256, SHAPE, "query sequence length",
     AX_FIELD(struct ax_attention_point, sh.sq)},
    {"seq_kv", AX_PT_INT, 1, 1 << 20, NULL, 256, SHAPE,
     "key/value sequence length", AX_FIELD(struct ax_attention_point, sh.skv)},
    {"head_dim", AX_PT_INT, 4, 512, NULL, 64, SHAPE,
     "head dimension D, a multiple of 4*tpr (64 and 128 are typical)",
     AX_KNOB(struct ax_attention_point, sh.d, 4)},
    {"causal", AX_PT_BOOL, 0, 1, NULL, 0, SHAPE,
     "mask future keys: query i sees key j <= i + seq_kv - seq_q",
     AX_KNOB(struct ax_attention_point, sh.causal, 5)},
    {"dtype", AX_PT_ENUM, 0, 0, dtypes, 0, SHAPE,
     "storage type; f16 needs 16-bit storage and float16, and "
     "computes in fp32",
     AX_FIELD(struct ax_attention_point, dtype)},
    {"br", AX_PT_INT, 1, 128, NULL, 16, TUNE, "query rows per workgroup (Br)",
     AX_KNOB(struct ax_attention_point, t.br, 1)},
    /* Default 8: one key per lane of a subgroup group; on lavapipe
     * 1.5x bc=16 with share=subgroup (bench/attention.sh). */
    {"bc", AX_PT_INT, 1, 256, NULL, 8, TUNE,
     "keys and values per shared-memory block (Bc)",
     AX_KNOB(struct ax_attention_point, t.bc, 2)},
    {"tpr", AX_PT_INT, 1, 64, NULL, 8, TUNE,
     "invocations per query row; the workgroup is br x tpr "
     "(share=smem only)",
     AX_KNOB(struct ax_attention_point, t.tpr, 3)},
    /* Default subgroup: on lavapipe it is several times the smem
     * kernel (see shaders/attention.comp and bench/attention.sh);
     * GPUs run either, and the tuner picks smem where it wins. */
    {"share", AX_PT_ENUM, 0, 0, shares, 1, AX_PARAM_TUNABLE,
     "how invocations share K and V: smem (blocks staged in shared "
     "memory), or subgroup (no shared memory: groups of 8 lanes pass "
     "keys and values round by subgroup shuffles; for CPU drivers)",
     AX_KNOB(struct ax_attention_point, share, 6)},
    {"rpl", AX_PT_INT, 1, 8, NULL, 2, TUNE,
     "share=subgroup: query rows per lane (the workgroup is "
     "br / rpl invocations, rounded up to a multiple of 8)",
     AX_KNOB(struct ax_attention_point, rpl, 7)},
};

#define N_ATT_PARAMS ((int)(sizeof(att_params) / sizeof(att_params[0])))

struct att_state {
	struct ax_vk_ctx *vk;
	struct ax_attention_shape sh;
	struct ax_attention_tiles t;
	uint32_t share, rpl;
	struct ax_vk_buffer q, k, v, o;
	struct ax_vk_pipeline pipe;
	bool have_pipe;
	struct {
		uint32_t sq, skv;
		float scale;
	} push;
	float *hq, *hk, *hv; /* the inputs as the device sees them */
};

/* Invocations per workgroup of the subgroup kernel: br / rpl lanes,
 * rounded up to whole groups of ATT_SG so every shuffle reads a lane
 * that runs. */
static uint32_t sg_invocations(const struct ax_attention_tiles *t, uint32_t rpl)
{
	uint32_t lanes = (t->br + rpl - 1) / rpl;
	return (lanes + ATT_SG - 1) / ATT_SG * ATT_SG;
}

static int att_check(const struct ax_params *p,
		     const struct ax_vk_device_info *dev, char *why,
		     size_t whylen)
{
	struct ax_attention_shape s;
	struct ax_attention_tiles t;
	ax_attention_shape_from_params(p, &s);
	ax_attention_tiles_from_params(p, &t);
	if (s.f16 && !(dev->storage16 && dev->fp16_arith))
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "dtype=f16 needs 16-bit storage "
			       "buffers and shaderFloat16, which %s lacks; "
			       "use dtype=f32",
			       dev->name);
	/* Both kernels are held to the shared-memory kernel's limits, so
	 * a point valid for one is valid for the other. */
	int rc = ax_attention_check_limits(&s, &t, &dev->limits, why, whylen);
	struct ax_attention_point pt;
	ax_attention_point_from_params(p, &pt);
	if (rc || pt.share != 1)
		return rc;
	uint32_t rpl = pt.rpl;
	if (dev->subgroup_size < ATT_SG || dev->subgroup_size % ATT_SG)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "attention share=subgroup: %s has subgroups "
			       "of %u lanes; it needs a multiple of %d; use "
			       "share=smem",
			       dev->name, dev->subgroup_size, ATT_SG);
	if (t.bc % ATT_SG)
		return ax_errf(why, whylen, AX_EINVAL,
			       "attention share=subgroup: bc=%u must be a "
			       "multiple of %d (each lane of a group loads "
			       "bc/%d keys); raise bc or use share=smem",
			       t.bc, ATT_SG, ATT_SG);
	/* Queries and outputs of a lane's rows stay in registers, fully
	 * unrolled: past this, GPUs spill and LLVM on CPU drivers takes
	 * seconds to compile the kernel (about 9 s for 512 on lavapipe). */
	if ((int64_t)rpl * s.d > ATT_SG_REGS)
		return ax_errf(why, whylen, AX_EINVAL,
			       "attention share=subgroup: rpl*head_dim = "
			       "%lld query values per lane (and as many "
			       "outputs) exceeds %d; lower rpl or use "
			       "share=smem",
			       (long long)rpl * s.d, ATT_SG_REGS);
	if (sg_invocations(&t, rpl) > dev->limits.maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "attention share=subgroup: %u invocations "
			       "exceed maxComputeWorkGroupSize[0] %u; raise "
			       "rpl or lower br",
			       sg_invocations(&t, rpl),
			       dev->limits.maxComputeWorkGroupSize[0]);
	return 0;
}

static void att_free(struct ax_vk_ctx *vk, struct att_state *st)
{
	if (st->have_pipe)
		ax_vk_pipeline_destroy(vk, &st->pipe);
	ax_vk_buffer_destroy(vk, &st->q);
	ax_vk_buffer_destroy(vk, &st->k);
	ax_vk_buffer_destroy(vk, &st->v);
	ax_vk_buffer_destroy(vk, &st->o);
	free(st->hq);
	free(st->hk);
	free(st->hv);
	free(st);
}

static void att_teardown(struct ax_vk_ctx *vk, void *state)
{
	if (state)
		att_free(vk, state);
}

/* Host inputs: ax_attention_case_inputs. */
static int att_inputs(struct att_state *st)
{
	size_t nq = ax_attention_q_count(&st->sh);
	size_t nkv = ax_attention_kv_count(&st->sh);
	st->hq = malloc(nq * sizeof(float));
	st->hk = malloc(nkv * sizeof(float));
	st->hv = malloc(nkv * sizeof(float));
	if (!st->hq || !st->hk || !st->hv)
		return AX_ENOMEM;
	ax_attention_case_inputs(&st->sh, st->hq, st->hk, st->hv);
	return 0;
}

static int att_buffers(struct att_state *st)
{
	bool f16 = st->sh.f16;
	size_t nq = ax_attention_q_count(&st->sh);
	size_t nkv = ax_attention_kv_count(&st->sh);
	int rc = att_inputs(st);
	if (!rc)
		rc = ax_suite_upload_floats(st->vk, &st->q, st->hq, nq, f16);
	if (!rc)
		rc = ax_suite_upload_floats(st->vk, &st->k, st->hk, nkv, f16);
	if (!rc)
		rc = ax_suite_upload_floats(st->vk, &st->v, st->hv, nkv, f16);
	if (!rc)
		rc = ax_suite_upload_floats(st->vk, &st->o, NULL, nq, f16);
	return rc;
}

static int att_pipeline(struct att_state *st, const struct ax_params *p)
{
	const struct ax_attention_tiles *t = &st->t;
	struct ax_vk_spec spec[AX_MAX_PARAMS + 1];
	int n = ax_suite_spec(p, spec);
	/* constant_id 0 in shaders/attention.comp: the workgroup size */
	spec[n++] =
	    (struct ax_vk_spec){0, st->share ? sg_invocations(t, st->rpl)
					     : ax_attention_invocations(t)};
	int rc = ax_vk_pipeline_create(
	    st->vk, st->sh.f16 ? "attention_f16" : "attention", 4,
	    sizeof(st->push), spec, n, &st->pipe);
	if (rc)
		return rc;
	st->have_pipe = true;
	struct ax_vk_binding b[4] = {
	    {&st->q, 0, 0}, {&st->k, 0, 0}, {&st->v, 0, 0}, {&st->o, 0, 0}};
	return ax_vk_pipeline_bind(st->vk, &st->pipe, b, 4);
}

static int att_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		     void **state, char *err, size_t errlen)
{
	struct att_state *st = calloc(1, sizeof(*st));
	if (!st)
		return ax_errf(err, errlen, AX_ENOMEM, "out of memory");
	st->vk = vk;
	struct ax_attention_point pt;
	ax_attention_point_from_params(p, &pt);
	st->sh = pt.sh;
	st->t = pt.t;
	st->share = pt.share;
	st->rpl = pt.rpl;
	st->push.sq = (uint32_t)st->sh.sq;
	st->push.skv = (uint32_t)st->sh.skv;
	st->push.scale = (float)(1.0 / sqrt((double)st->sh.d));
	int rc = att_buffers(st);
	if (!rc)
		rc = att_pipeline(st, p);
	if (rc) {
		ax_errf(err, errlen, rc, "setup failed: %s",
			vk->err[0] ? vk->err : ax_strerror(rc));
		att_free(vk, st);
		return rc;
	}
	*state = st;
	return 0;
}

static void att_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct att_state *st = state;
	uint32_t gx = (uint32_t)((st->sh.sq + st->t.br - 1) / st->t.br);
	for (uint32_t i = 0; i < reps; i++) {
		/* Repetitions rewrite the same output: order them, so each
		 * is timed as a whole attention pass. */
		if (i)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &st->pipe, &st->push, gx,
				   (uint32_t)st->sh.heads,
				   (uint32_t)st->sh.batch);
	}
}

static int att_verify(void *state, char *why, size_t whylen)
{
	struct att_state *st = state;
	size_t n = ax_attention_q_count(&st->sh);
	bool f16 = st->sh.f16;
	size_t esz = f16 ? 2 : 4;
	float *o = malloc(n * sizeof(float));
	uint16_t *h = f16 ? malloc(n * esz) : NULL;
	int rc = AX_ENOMEM;
	if (!o || (f16 && !h))
		goto out;
	rc = ax_vk_download(st->vk, &st->o, 0, f16 ? (void *)h : o, n * esz);
	if (rc) {
		ax_errf(why, whylen, rc, "reading the output failed: %s",
			st->vk->err);
		goto out;
	}
	for (size_t i = 0; h && i < n; i++)
		o[i] = ax_half_to_float(h[i]);
	rc = ax_attention_ref_verify(&st->sh, st->hq, st->hk, st->hv, o,
				     AX_ATTENTION_VERIFY_MACS, why, whylen);
out:
	free(o);
	free(h);
	return rc;
}

static double att_work(const struct ax_params *p)
{
	struct ax_attention_shape s;
	ax_attention_shape_from_params(p, &s);
	return ax_attention_flops(&s);
}

static const char *att_shader(const struct ax_params *p)
{
	struct ax_attention_shape s;
	ax_attention_shape_from_params(p, &s);
	return s.f16 ? "attention_f16" : "attention";
}

struct ax_vk_buffer *ax_attention_state_output(void *state)
{
	return &((struct att_state *)state)->o;
}

static json_t *att_describe(void *state)
{
	const struct att_state *st = state;
	return json_pack(
	    "{s:[i,I,I],s:i,s:I,s:I,s:s,s:s}", "workgroups",
	    (int)((st->sh.sq + st->t.br - 1) / st->t.br),
	    (json_int_t)st->sh.heads, (json_int_t)st->sh.batch, "invocations",
	    (int)(st->share ? sg_invocations(&st->t, st->rpl)
			    : ax_attention_invocations(&st->t)),
	    "shared_bytes",
	    (json_int_t)(st->share
			     ? 0
			     : ax_attention_shared_bytes(&st->sh, &st->t)),
	    "unmasked_pairs", (json_int_t)ax_attention_pairs(&st->sh),
	    "causal_alignment", "bottom-right", "verified",
	    ax_attention_flops(&st->sh) / 2 > AX_ATTENTION_VERIFY_MACS
		? "sampled"
		: "all");
}

/* Compulsory traffic: Q, K, V read and O written once each. */
static double att_bytes(const struct ax_params *p)
{
	struct ax_attention_shape s;
	ax_attention_shape_from_params(p, &s);
	double es = s.f16 ? 2 : 4;
	return es * (2.0 * (double)ax_attention_q_count(&s) +
		     2.0 * (double)ax_attention_kv_count(&s));
}

/* One batch's input (Q, K and V): what a data loader uploads per step. */
static double att_input_bytes(const struct ax_params *p)
{
	struct ax_attention_shape s;
	ax_attention_shape_from_params(p, &s);
	double es = s.f16 ? 2 : 4;
	return es * ((double)ax_attention_q_count(&s) +
		     2.0 * (double)ax_attention_kv_count(&s));
}

/* recommend's batch-size knee. */
static const struct ax_suite_need att_needs[] = {{"batch", 3}, {NULL, 0}};

const struct ax_suite ax_suite_attention = {
    .name = "attention",
    .summary = "softmax(Q.K^T/sqrt(d)).V, flash-attention tiling, "
	       "fp32/fp16, causal or not",
    .work_model = "4*D FLOPs per unmasked (query, key) pair (2*D for "
		  "Q.K^T, 2*D for P.V), times batch*heads: "
		  "4*B*H*Sq*Skv*D non-causal; causal (query i sees keys "
		  "j <= i + Skv - Sq) counts sum over i of "
		  "clamp(i + Skv - Sq + 1, 0, Skv) pairs, "
		  "= Sq*(Sq+1)/2 when Sq = Skv. Softmax exp/max/sum "
		  "are not counted",
    .constraints = "head_dim is a multiple of 4*tpr\n"
		   "share=subgroup: bc a multiple of 8, rpl*head_dim <= 256",
    .unit = "GFLOP/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = att_params,
    .n_params = N_ATT_PARAMS,
    .config_size = sizeof(struct ax_attention_point),
    .check = att_check,
    .setup = att_setup,
    .record = att_record,
    .verify = att_verify,
    .work = att_work,
    .bytes = att_bytes,
    .input_bytes = att_input_bytes,
    .roles = AX_ROLE_WORKLOAD,
    .batch_param = "batch",
    .recommend_needs = att_needs,
    .shader = att_shader,
    .describe = att_describe,
    .teardown = att_teardown,
};
