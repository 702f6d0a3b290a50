/*
 * tests/unit/ax_gpu_test.h - what the suites' GPU tests share: the
 * machine's Vulkan device (validation on with AXBENCH_VALIDATE=1), a
 * parameter point from name/value pairs, and the opening, closing and
 * "no validation message" test cases.  Without a device the GPU tests
 * check nothing and say so.
 */
#ifndef AX_GPU_TEST_H
#define AX_GPU_TEST_H

#include "ax_test.h"

#include "suites/suite.h"

#include <stdbool.h>
#include <stdlib.h>

static struct ax_vk_instance *inst;
static struct ax_vk_ctx *vk;

static void test_open(void)
{
	char err[1024];
	const char *val = getenv("AXBENCH_VALIDATE");
	bool validate = val && strcmp(val, "1") == 0;
	int idx;
	if (ax_vk_instance_create(validate, &inst, err, sizeof(err)) ||
	    ax_vk_select(inst, NULL, &idx, err, sizeof(err)) ||
	    ax_vk_open(inst, idx, &vk, err, sizeof(err))) {
		printf("#   no Vulkan device: %s\n", err);
		vk = NULL;
	}
}

/* p = suite's defaults with kv[0]=kv[1], kv[2]=kv[3] ... (NULL ends). */
static void ax_gpu_point(struct ax_params *p, const struct ax_suite *suite,
			 const char *const *kv)
{
	char err[256];
	ax_params_init(p, suite->params, suite->n_params);
	for (int i = 0; kv[i]; i += 2) {
		int rc = ax_params_set(p, kv[i], kv[i + 1], err, sizeof(err));
		if (rc)
			printf("#   %s\n", err);
		AX_CHECK_INT(rc, 0);
	}
}

static void test_no_validation_messages(void)
{
	if (!vk)
		return;
	AX_CHECK_INT(ax_vk_validation_messages(inst), 0);
}

static void test_close(void)
{
	if (vk)
		ax_vk_close(vk);
	if (inst)
		ax_vk_instance_destroy(inst);
}

#endif
