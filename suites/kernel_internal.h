/*
 * suites/kernel_internal.h - what suites/kernel.c (the suite built from
 * a description file, its rules and work model) and suites/kernel_run.c
 * (set-up, dispatch, verification) share.
 */
#ifndef AX_SUITES_KERNEL_INTERNAL_H
#define AX_SUITES_KERNEL_INTERNAL_H

#include "core/kernel_desc.h"
#include "suites/kernel.h"

#include <stdbool.h>
#include <stdint.h>

/* The reference configuration's outputs for one point (the last one
 * asked for: a tuning session asks for the same shape again and again). */
struct ax_kernel_ref {
	char *key; /* canonical JSON of the reference point; NULL: empty */
	uint32_t *words[AX_KERNEL_MAX_BUFFERS]; /* outputs; NULL for inputs */
};

struct ax_kernel {
	struct ax_suite suite;
	/* The suite's parameter table: the hooks find the kernel from a
	 * point's defs pointer (ax_kernel_of). */
	struct ax_param_def defs[AX_MAX_PARAMS];
	struct ax_kernel_desc *desc;
	char *source; /* the GLSL text */
	size_t source_len;
	char suite_name[sizeof(AX_KERNEL_SUITE_PREFIX) + AX_KERNEL_NAME_MAX];
	char summary[256], work_model[512], constraints[4096];
	bool registered;
	struct ax_kernel_ref ref;
};

/* The kernel whose suite p is a point of. */
struct ax_kernel *ax_kernel_of(const struct ax_params *p);

/* Evaluate e at p (dev NULL: no device limits known).  AX_EINVAL with
 * "FILE:LINE:COL: what: message" in err. */
int ax_kernel_eval(const struct ax_kernel *k, const struct ax_kernel_expr *e,
		   const char *what, const struct ax_params *p,
		   const struct ax_vk_device_info *dev, int64_t *out, char *err,
		   size_t errlen);

int ax_kernel_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		    void **state, char *err, size_t errlen);
void ax_kernel_record(void *state, VkCommandBuffer cb, uint32_t reps);
int ax_kernel_verify(void *state, char *why, size_t whylen);
json_t *ax_kernel_describe(void *state);
const char *ax_kernel_spirv_hash(void *state);
void ax_kernel_teardown(struct ax_vk_ctx *vk, void *state);
void ax_kernel_ref_clear(struct ax_kernel_ref *r);

#endif
