/*
 * tests/unit/ax_gpu_test.h - what the suites' GPU tests share: the
 * machine's Vulkan device (validation on with AXBENCH_VALIDATE=1), a
 * parameter point from name/value pairs, and the opening, closing and
 * "no validation message" test cases.  Without a device every GPU test
 * skips with the reason ("ok N - name # skip no Vulkan device: ..."):
 * each one starts with AX_NEED_DEVICE(), test_open first of all.
 */
#ifndef AX_GPU_TEST_H
#define AX_GPU_TEST_H

#include "ax_test.h"

#include "suites/runner.h"
#include "suites/suite.h"

#include <stdbool.h>
#include <stdlib.h>

static struct ax_vk_instance *inst;
static struct ax_vk_ctx *vk;
static char ax_gpu_no_device[1024] = "test_open did not run";

/* Ends the test as a skip, with test_open's reason, without a device. */
#define AX_NEED_DEVICE()                                                       \
	do {                                                                   \
		if (!vk)                                                       \
			AX_SKIP("no Vulkan device: %s", ax_gpu_no_device);     \
	} while (0)

static void test_open(void)
{
	const char *val = getenv("AXBENCH_VALIDATE");
	bool validate = val && strcmp(val, "1") == 0;
	int idx;
	if (ax_vk_instance_create(validate, &inst, ax_gpu_no_device,
				  sizeof(ax_gpu_no_device)) ||
	    ax_vk_select(inst, NULL, &idx, ax_gpu_no_device,
			 sizeof(ax_gpu_no_device)) ||
	    ax_vk_open(inst, idx, &vk, ax_gpu_no_device,
		       sizeof(ax_gpu_no_device)))
		vk = NULL;
	AX_NEED_DEVICE();
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

/*
 * Measure suite s (or a copy with a hook replaced) at kv with few
 * samples: its runner status, with r filled (the caller releases it).
 * Prints the point, the status and the median in the suite's unit.
 */
static inline int ax_gpu_run(const struct ax_suite *s, const char *const *kv,
			     struct ax_runner_result *r)
{
	struct ax_params p;
	struct ax_runner_opts o;
	ax_gpu_point(&p, s, kv);
	ax_runner_opts_default(&o);
	o.warmup = 1, o.min_samples = 2, o.max_samples = 3;
	o.min_time_s = 0, o.max_time_s = 0.5;
	int rc = ax_runner_run_case(vk, s, &p, &o, r);
	char label[512];
	ax_params_label(&p, 0, label, sizeof(label));
	printf("#   %s: %s %.3g %s%s%s\n", label, r->status_text,
	       r->n ? r->summary.median : 0.0, s->unit, rc ? " - " : "",
	       rc ? r->error : "");
	return rc;
}

/* ax_gpu_run, keeping only the status. */
static inline int ax_gpu_run_status(const struct ax_suite *s,
				    const char *const *kv)
{
	struct ax_runner_result r;
	int rc = ax_gpu_run(s, kv, &r);
	ax_runner_result_release(&r);
	return rc;
}

static void test_no_validation_messages(void)
{
	AX_NEED_DEVICE();
	AX_CHECK_INT(ax_vk_validation_messages(inst), 0);
}

static void test_close(void)
{
	if (vk)
		ax_vk_close(vk);
	if (inst)
		ax_vk_instance_destroy(inst);
	bool had = vk != NULL;
	vk = NULL, inst = NULL;
	if (!had)
		AX_SKIP("no Vulkan device: %s", ax_gpu_no_device);
}

#endif
