/*
 * suites/model_layers.c - the layer suites (issue 36): decoder (Llama-3-8B
 * class), encoder (BERT-base class) and resnet (a ResNet-50 bottleneck
 * block), each one forward pass per repetition through suites/model.c.
 *
 * Defaults are the real shapes; `scale` divides heads, kv_heads and ffn
 * (channels and mid for resnet) so that a CPU driver runs a layer in
 * milliseconds.  scenario (MLPerf's meanings): single (one request at a
 * time, host-timed, at least `passes` of them: p50/p90/p99), offline
 * (passes back to back, GPU-timed: throughput) or server (single's
 * passes, then Poisson arrivals at rising rates: the highest rate whose
 * p99 meets slo_ms).
 */
#include "suites/model.h"

#include <stddef.h>

static const char *const dtypes[] = {"f32", "f16", NULL};
static const char *const scenarios[] = {"single", "offline", "server", NULL};
static const char *const shares[] = {"smem", "subgroup", NULL};

#define SHAPE AX_PARAM_SHAPE
#define TUNE (AX_PARAM_TUNABLE | AX_PARAM_POW2)
#define MP struct model_point

#define COMMON_PARAMS(ITEM)                                                    \
	{"batch",                                                              \
	 AX_PT_INT,                                                            \
	 1,                                                                    \
	 4096,                                                                 \
	 NULL,                                                                 \
	 1,                                                                    \
	 SHAPE,                                                                \
	 ITEM " per forward pass",                                             \
	 AX_FIELD(MP, batch)},                                                 \
	    {"layers",                                                         \
	     AX_PT_INT,                                                        \
	     1,                                                                \
	     64,                                                               \
	     NULL,                                                             \
	     1,                                                                \
	     SHAPE,                                                            \
	     "layers stacked in one pass, each with its own weights",          \
	     AX_FIELD(MP, layers)},                                            \
	    {"scale",                                                          \
	     AX_PT_INT,                                                        \
	     1,                                                                \
	     64,                                                               \
	     NULL,                                                             \
	     1,                                                                \
	     SHAPE | AX_PARAM_POW2,                                            \
	     "divides the layer's widths (at least 1 each) to bring the "      \
	     "real shape down to what a CPU driver runs quickly",              \
	     AX_FIELD(MP, scale)},                                             \
	    {"dtype",                                                          \
	     AX_PT_ENUM,                                                       \
	     0,                                                                \
	     0,                                                                \
	     dtypes,                                                           \
	     0,                                                                \
	     SHAPE,                                                            \
	     "storage of weights and activations; f16 computes in fp32",       \
	     AX_FIELD(MP, dtype)},                                             \
	    {"scenario",                                                       \
	     AX_PT_ENUM,                                                       \
	     0,                                                                \
	     0,                                                                \
	     scenarios,                                                        \
	     0,                                                                \
	     SHAPE,                                                            \
	     "single: one request at a time, host time of record + submit + "  \
	     "fence, p50/p90/p99; offline: passes back to back, GPU time, "    \
	     "throughput; server: single, then Poisson arrivals searched "     \
	     "for the highest rate whose p99 meets slo_ms",                    \
	     AX_FIELD(MP, scenario)},                                          \
	    {"passes",                                                         \
	     AX_PT_INT,                                                        \
	     200,                                                              \
	     1000000,                                                          \
	     NULL,                                                             \
	     200,                                                              \
	     0,                                                                \
	     "single and server: at least this many timed passes (one a "      \
	     "sample), and requests per server rate step",                     \
	     AX_FIELD(MP, passes)},                                            \
	    {"slo_ms",                                                         \
	     AX_PT_INT,                                                        \
	     1,                                                                \
	     1000000,                                                          \
	     NULL,                                                             \
	     100,                                                              \
	     SHAPE,                                                            \
	     "server: the p99 latency target in milliseconds",                 \
	     AX_FIELD(MP, slo_ms)},                                            \
	    {"gemm_wg",                                                        \
	     AX_PT_INT,                                                        \
	     4,                                                                \
	     32,                                                               \
	     NULL,                                                             \
	     8,                                                                \
	     TUNE,                                                             \
	     "matrix products: the workgroup is gemm_wg x gemm_wg",            \
	     AX_FIELD(MP, gemm_wg)},                                           \
	    {"gemm_tm",                                                        \
	     AX_PT_INT,                                                        \
	     1,                                                                \
	     8,                                                                \
	     NULL,                                                             \
	     4,                                                                \
	     TUNE,                                                             \
	     "matrix products: each invocation's block is gemm_tm x gemm_tm",  \
	     AX_FIELD(MP, gemm_tm)},                                           \
	{                                                                      \
		"gemm_bk", AX_PT_INT, 4, 64, NULL, 16, TUNE,                   \
		    "matrix products: depth of the shared-memory slices",      \
		    AX_FIELD(MP, gemm_bk)                                      \
	}

#define ATTENTION_PARAMS                                                       \
	{"att_br",                                                             \
	 AX_PT_INT,                                                            \
	 1,                                                                    \
	 128,                                                                  \
	 NULL,                                                                 \
	 16,                                                                   \
	 TUNE,                                                                 \
	 "attention: query rows per workgroup",                                \
	 AX_FIELD(MP, att_br)},                                                \
	    {"att_bc",                                                         \
	     AX_PT_INT,                                                        \
	     1,                                                                \
	     256,                                                              \
	     NULL,                                                             \
	     8,                                                                \
	     TUNE,                                                             \
	     "attention: keys per block",                                      \
	     AX_FIELD(MP, att_bc)},                                            \
	    {"att_tpr",                                                        \
	     AX_PT_INT,                                                        \
	     1,                                                                \
	     64,                                                               \
	     NULL,                                                             \
	     8,                                                                \
	     TUNE,                                                             \
	     "attention (att_share=smem): invocations per query row",          \
	     AX_FIELD(MP, att_tpr),                                            \
	     .when = "att_share=smem"},                                        \
	    {"att_share",                                                      \
	     AX_PT_ENUM,                                                       \
	     0,                                                                \
	     0,                                                                \
	     shares,                                                           \
	     1,                                                                \
	     0,                                                                \
	     "attention: smem or subgroup kernel (`suites attention`)",        \
	     AX_FIELD(MP, att_share)},                                         \
	{                                                                      \
		"att_rpl", AX_PT_INT, 1, 8, NULL, 2, TUNE,                     \
		    "attention (att_share=subgroup): query rows per lane",     \
		    AX_FIELD(MP, att_rpl), .when = "att_share=subgroup"        \
	}

static const struct ax_param_def decoder_params[] = {
    {"tokens", AX_PT_INT, 1, 65536, NULL, 512, SHAPE,
     "new tokens per sequence: the prompt of a prefill (512: llama-bench "
     "pp512), 1..8 for a decode step",
     AX_FIELD(MP, tokens)},
    {"depth", AX_PT_INT, 0, 1 << 20, NULL, 0, SHAPE,
     "positions already in the KV cache (0: prefill; llama-bench -d)",
     AX_FIELD(MP, depth)},
    {"heads", AX_PT_INT, 1, 256, NULL, 32, SHAPE, "query heads",
     AX_FIELD(MP, heads)},
    {"kv_heads", AX_PT_INT, 1, 256, NULL, 8, SHAPE,
     "key/value heads (grouped-query attention); heads is a multiple",
     AX_FIELD(MP, kv_heads)},
    {"head_dim", AX_PT_INT, 8, 256, NULL, 128, SHAPE,
     "head dimension; hidden = heads x head_dim", AX_FIELD(MP, head_dim)},
    {"ffn", AX_PT_INT, 1, 1 << 18, NULL, 14336, SHAPE, "FFN width (SwiGLU)",
     AX_FIELD(MP, ffn)},
    COMMON_PARAMS("sequences"),
    ATTENTION_PARAMS,
};

static const struct ax_param_def encoder_params[] = {
    {"tokens", AX_PT_INT, 1, 65536, NULL, 128, SHAPE,
     "sequence length (128 or 384 are typical)", AX_FIELD(MP, tokens)},
    {"heads", AX_PT_INT, 1, 256, NULL, 12, SHAPE, "attention heads",
     AX_FIELD(MP, heads)},
    {"head_dim", AX_PT_INT, 8, 256, NULL, 64, SHAPE,
     "head dimension; hidden = heads x head_dim", AX_FIELD(MP, head_dim)},
    {"ffn", AX_PT_INT, 1, 1 << 18, NULL, 3072, SHAPE, "FFN width (GELU)",
     AX_FIELD(MP, ffn)},
    COMMON_PARAMS("sequences"),
    ATTENTION_PARAMS,
};

static const struct ax_param_def resnet_params[] = {
    {"size", AX_PT_INT, 1, 1024, NULL, 56, SHAPE,
     "image height and width at the block", AX_FIELD(MP, size)},
    {"channels", AX_PT_INT, 1, 8192, NULL, 256, SHAPE,
     "channels in and out of the block", AX_FIELD(MP, channels)},
    {"mid", AX_PT_INT, 1, 8192, NULL, 64, SHAPE,
     "channels of the 3x3 convolution", AX_FIELD(MP, mid)},
    COMMON_PARAMS("images"),
};

#define N_OF(t) ((int)(sizeof(t) / sizeof((t)[0])))

static void dims(enum ax_model_kind kind, const struct ax_params *p,
		 struct ax_model_dims *d)
{
	struct model_point pt = {0};
	ax_params_store(p, &pt);
	ax_model_dims_of(kind, &pt, d);
}

#define LAYER_HOOKS(NAME, KIND)                                                \
	static int NAME##_check(const struct ax_params *p,                     \
				const struct ax_vk_device_info *dev,           \
				char *why, size_t whylen)                      \
	{                                                                      \
		return ax_model_check_point(KIND, p, dev, why, whylen);        \
	}                                                                      \
	static int NAME##_setup(struct ax_vk_ctx *vk,                          \
				const struct ax_params *p, void **state,       \
				char *err, size_t errlen)                      \
	{                                                                      \
		return ax_model_setup(KIND, vk, p, state, err, errlen);        \
	}                                                                      \
	static double NAME##_work(const struct ax_params *p)                   \
	{                                                                      \
		struct ax_model_dims d;                                        \
		dims(KIND, p, &d);                                             \
		return ax_model_items(&d);                                     \
	}                                                                      \
	static double NAME##_input_bytes(const struct ax_params *p)            \
	{                                                                      \
		struct ax_model_dims d;                                        \
		dims(KIND, p, &d);                                             \
		return (double)ax_model_rows(&d) * ax_model_width(&d) *        \
		       (d.f16 ? 2 : 4);                                        \
	}

LAYER_HOOKS(decoder, AX_MODEL_DECODER)
LAYER_HOOKS(encoder, AX_MODEL_ENCODER)
LAYER_HOOKS(resnet, AX_MODEL_RESNET)

static const char *const curve_group[] = {"scenario", "tokens", "depth",
					  "dtype", NULL};
static const char *const encoder_group[] = {"scenario", "tokens", "dtype",
					    NULL};
static const char *const resnet_group[] = {"scenario", "dtype", NULL};
static const struct ax_suite_curve decoder_curve = {
    "batch", curve_group, "Tokens/s against batch", "sequences per pass"};
static const struct ax_suite_curve encoder_curve = {
    "batch", encoder_group, "Sequences/s against batch", "sequences per pass"};
static const struct ax_suite_curve resnet_curve = {
    "batch", resnet_group, "Images/s against batch", "images per pass"};

#define LAYER_SUITE(NAME, SUMMARY, WORK, UNIT, PARAMS, CURVE)                  \
	{                                                                      \
		.name = #NAME, .summary = SUMMARY, .work_model = WORK,         \
		.constraints = NAME##_constraints, .unit = UNIT,               \
		.metric = AX_METRIC_RATE, .scale = 1,                          \
		.higher_is_better = true, .params = PARAMS,                    \
		.n_params = N_OF(PARAMS),                                      \
		.config_size = sizeof(struct model_point),                     \
		.check = NAME##_check, .setup = NAME##_setup,                  \
		.record = ax_model_record, .host_op = ax_model_host_op,        \
		.host_timed = ax_model_host_timed, .verify = ax_model_verify,  \
		.work = NAME##_work, .input_bytes = NAME##_input_bytes,        \
		.roles = AX_ROLE_WORKLOAD, .batch_param = "batch",             \
		.curve = &CURVE, .spirv_hash = ax_model_spirv_hash,            \
		.describe = ax_model_describe,                                 \
		.latency_passes = ax_model_latency_passes,                     \
		.after = ax_model_after, .teardown = ax_model_teardown,        \
	}

static const char decoder_constraints[] =
    "heads (after scale) is a multiple of kv_heads; head_dim is even\n"
    "attention limits as in `suites attention` (att_* tiles)";
static const char encoder_constraints[] =
    "attention limits as in `suites attention` (att_* tiles)";
static const char resnet_constraints[] =
    "gemm tiles fit shared memory: 8 x gemm_bk x gemm_wg x gemm_tm bytes";

const struct ax_suite ax_suite_decoder = LAYER_SUITE(
    decoder,
    "a Llama-3-8B-class decoder layer (RMSNorm, GQA attention with RoPE "
    "over a KV cache, SwiGLU FFN), prefill or decode",
    "tokens per second: batch x tokens new tokens a pass (FLOPs in the "
    "result: 2mnk per product, 4 head_dim per unmasked query-key pair)",
    "tokens/s", decoder_params, decoder_curve);

const struct ax_suite ax_suite_encoder = LAYER_SUITE(
    encoder,
    "a BERT-base-class encoder layer (attention, LayerNorm, GELU FFN), "
    "post-norm",
    "sequences per second: batch sequences of `tokens` a pass", "seq/s",
    encoder_params, encoder_curve);

const struct ax_suite ax_suite_resnet = LAYER_SUITE(
    resnet,
    "a ResNet-50 bottleneck block (1x1, 3x3, 1x1 convolutions with ReLU "
    "and the identity shortcut), NHWC",
    "images per second: batch images a pass (the 3x3 convolution as "
    "im2col + matrix product)",
    "images/s", resnet_params, resnet_curve);
