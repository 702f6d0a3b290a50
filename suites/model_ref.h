/*
 * suites/model_ref.h - the model layers (issue 36) on the host: their
 * dimensions, their synthetic weights (one definition, so the device and
 * the reference multiply the same values), a CPU forward pass of the
 * same layer, the FLOPs of a pass and the output check.  No Vulkan here,
 * so tests/unit/test_model_ref.c checks it alone.
 *
 * Layers, all row-major, activations token-major ([tokens x hidden], or
 * NHWC pixels x channels):
 *   decoder (Llama-3 class): x + attn(rmsnorm(x)), then + SwiGLU FFN of
 *     rmsnorm; grouped-query attention with rotary positions over a KV
 *     cache of `depth` earlier positions plus the `tokens` new ones,
 *     causal (bottom-right: new token t sees positions <= depth + t).
 *   encoder (BERT class, post-norm): h = LN(x + attn(x)), out =
 *     LN(h + W2 gelu(W1 h)); attention not causal; biases are left out
 *     (an element-wise add each, next to the products they follow).
 *   resnet (ResNet-50 bottleneck, identity shortcut): relu(1x1 conv),
 *     relu(3x3 conv, padding 1), 1x1 conv, + x, relu.
 * `layers` stacks the layer: layer l's output is layer l+1's input, each
 * layer with its own weights.
 */
#ifndef AX_MODEL_REF_H
#define AX_MODEL_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ax_model_kind { AX_MODEL_DECODER, AX_MODEL_ENCODER, AX_MODEL_RESNET };

struct ax_model_dims {
	enum ax_model_kind kind;
	uint32_t batch;	 /* sequences (images) per pass */
	uint32_t tokens; /* new tokens per sequence (encoder: its length) */
	uint32_t depth;	 /* decoder: positions already in the KV cache */
	uint32_t heads, kv_heads, head_dim, ffn; /* after scale */
	uint32_t hidden;			 /* heads * head_dim */
	uint32_t size, channels, mid;		 /* resnet */
	uint32_t layers;
	bool f16; /* storage in binary16 (weights and inputs rounded) */
};

/* Epsilons and the rotary base, shared with suites/model.c. */
#define AX_MODEL_RMS_EPS 1e-5f
#define AX_MODEL_LN_EPS 1e-12f
#define AX_MODEL_ROPE_THETA 500000.0f

/* A layer's tensors, in this order for every layer (their names are the
 * describe() keys and the device's buffers). */
#define AX_MODEL_MAX_TENSORS 8
int ax_model_tensor_count(enum ax_model_kind kind);
const char *ax_model_tensor_name(enum ax_model_kind kind, int i);
/* Elements of tensor i of one layer. */
size_t ax_model_tensor_elems(const struct ax_model_dims *d, int i);

/* Rows and columns of the activations a layer reads and writes. */
size_t ax_model_rows(const struct ax_model_dims *d);
size_t ax_model_width(const struct ax_model_dims *d);

/* Positions a decoder layer's KV cache holds (depth + tokens). */
static inline uint32_t ax_model_cap(const struct ax_model_dims *d)
{
	return d->depth + d->tokens;
}

/* The input and every layer's tensors, filled from fixed seeds (values
 * rounded to binary16 when d->f16). */
struct ax_model_data {
	struct ax_model_dims d;
	float *x;  /* rows x width */
	float **t; /* layers * ax_model_tensor_count tensors */
};
int ax_model_data_make(const struct ax_model_dims *d, struct ax_model_data *m);
void ax_model_data_free(struct ax_model_data *m);
static inline float *ax_model_tensor(const struct ax_model_data *m, uint32_t l,
				     int i)
{
	return m->t[(size_t)l * ax_model_tensor_count(m->d.kind) + i];
}

/*
 * The forward pass on the CPU in fp32 (double for the norms' and the
 * softmax's sums): out gets rows x width floats.  The matrix products go
 * through sgemm when it is given (OpenBLAS, suites/cpu_baseline.h), else
 * a plain loop.  AX_ENOMEM or 0.
 */
typedef void (*ax_model_sgemm_fn)(int m, int n, int k, const float *a,
				  const float *b, float *c);
int ax_model_ref_forward(const struct ax_model_data *m, ax_model_sgemm_fn sgemm,
			 float *out);

/* FLOPs of one pass: 2 m n k per product, 4 D per unmasked (query, key)
 * pair of attention; element-wise steps and norms are not counted. */
double ax_model_flops(const struct ax_model_dims *d);
/* Items of one pass: tokens (decoder: batch * tokens), sequences
 * (encoder: batch) or images (resnet: batch). */
double ax_model_items(const struct ax_model_dims *d);

/* The check's tolerance: max |got - ref| over the reference's RMS. */
#define AX_MODEL_TOL_F32 2e-3
#define AX_MODEL_TOL_F16 6e-2
/* 0, or AX_EVERIFY naming the worst element, both values, the error and
 * the tolerance. */
int ax_model_check(const struct ax_model_dims *d, const float *got,
		   const float *ref, char *why, size_t whylen);

#endif
