/*
 * suites/model.h - what the three layer suites (suites/model_layers.c:
 * decoder, encoder, resnet) share with the machinery of suites/model.c:
 * a layer is a list of dispatches (steps) recorded into one command
 * buffer per forward pass, barriers between them.
 */
#ifndef AX_MODEL_H
#define AX_MODEL_H

#include "suites/model_ref.h"
#include "suites/suite.h"

/* What every layer suite's parameter table binds (AX_FIELD). */
struct model_point {
	uint32_t batch, tokens, depth, heads, kv_heads, head_dim, ffn;
	uint32_t scale, layers, size, channels, mid;
	uint32_t dtype, scenario, passes, slo_ms;
	uint32_t gemm_wg, gemm_tm, gemm_bk;
	uint32_t att_br, att_bc, att_tpr, att_share, att_rpl;
};

enum model_scenario { MODEL_SINGLE, MODEL_OFFLINE, MODEL_SERVER };

/* The layer's dimensions at point p of suite kind. */
void ax_model_dims_of(enum ax_model_kind kind, const struct model_point *pt,
		      struct ax_model_dims *d);

/* The hooks every layer suite uses (suites/model.c). */
int ax_model_check_point(enum ax_model_kind kind, const struct ax_params *p,
			 const struct ax_vk_device_info *dev, char *why,
			 size_t whylen);
int ax_model_setup(enum ax_model_kind kind, struct ax_vk_ctx *vk,
		   const struct ax_params *p, void **state, char *err,
		   size_t errlen);
void ax_model_record(void *state, VkCommandBuffer cb, uint32_t reps);
int ax_model_host_op(void *state, char *err, size_t errlen);
bool ax_model_host_timed(const struct ax_params *p);
int ax_model_latency_passes(const struct ax_params *p);
int ax_model_verify(void *state, char *why, size_t whylen);
int ax_model_after(void *state, const struct ax_params *p,
		   const double *seconds, int n, json_t *extra, char *err,
		   size_t errlen);
json_t *ax_model_describe(void *state);
const char *ax_model_spirv_hash(void *state);
void ax_model_teardown(struct ax_vk_ctx *vk, void *state);

#endif
