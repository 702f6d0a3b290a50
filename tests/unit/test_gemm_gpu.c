/*
 * tests/unit/test_gemm_gpu.c - the gemm suite on the machine's Vulkan
 * device (lavapipe on CPU-only machines): edge shapes verify through the
 * runner, and a corrupted output - the kernel ran correctly, then one
 * element of C was overwritten - is reported as a failed verification
 * and never as a speed.  Validation-layer messages fail the test.
 */
#include "ax_gpu_test.h"

#include "core/error.h"
#include "suites/gemm_ref.h"
#include "suites/runner.h"

extern const struct ax_suite ax_suite_gemm;

static void point(struct ax_params *p, const char *const *kv)
{
	ax_gpu_point(p, &ax_suite_gemm, kv);
}

static int run_suite(const struct ax_suite *s, const char *const *kv,
		     struct ax_runner_result *r)
{
	struct ax_params p;
	struct ax_runner_opts o;
	point(&p, kv);
	ax_runner_opts_default(&o);
	o.warmup = 1, o.min_samples = 2, o.max_samples = 3;
	o.min_time_s = 0, o.max_time_s = 0.5;
	int rc = ax_runner_run_case(vk, s, &p, &o, r);
	char label[512];
	ax_params_label(&p, false, label, sizeof(label));
	printf("#   %s: %s %.3g GFLOP/s%s%s\n", label, r->status_text,
	       r->n ? r->summary.median : 0.0, rc ? " - " : "",
	       rc ? r->error : "");
	return rc;
}

static void test_edge_shapes_verify(void)
{
	if (!vk)
		return;
	static const char *const cases[][20] = {
	    {"m", "1", "n", "67", "k", "45", NULL},
	    {"m", "70", "n", "33", "k", "19", "trans_a", "true", "vec", "1",
	     NULL},
	    {"m", "29", "n", "65", "k", "18", "trans_b", "true", "vec", "2",
	     "dbuf", "true", "batch", "3", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ax_runner_result r;
		AX_CHECK_INT(run_suite(&ax_suite_gemm, cases[i], &r), 0);
		AX_CHECK(r.n >= 2 && r.summary.median > 0);
		ax_runner_result_release(&r);
	}
}

/* Element of C overwritten after the kernel: row 5, column 7 of 33x20. */
#define BAD_INDEX (5 * 20 + 7)

static void corrupt_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	float bad = 1234.5f;
	uint32_t bits;
	memcpy(&bits, &bad, sizeof(bits));
	ax_suite_gemm.record(state, cb, reps);
	ax_vk_cmd_barrier(cb);
	vkCmdFillBuffer(cb, ax_gemm_state_output(state)->buf, BAD_INDEX * 4, 4,
			bits);
	ax_vk_cmd_barrier(cb);
}

static void test_corrupted_output_fails(void)
{
	if (!vk)
		return;
	static const char *const kv[] = {"m", "33", "n", "20", "k", "17", NULL};
	struct ax_suite bad = ax_suite_gemm;
	bad.record = corrupt_record;
	struct ax_runner_result r;
	int rc = run_suite(&bad, kv, &r);
	AX_CHECK_INT(rc, AX_EVERIFY);
	AX_CHECK_STR(r.status_text, "failed-verification");
	AX_CHECK_INT(r.n, 0);
	AX_CHECK(strstr(r.error, "C[batch 0][5][7] = 1234.5") != NULL);
	ax_runner_result_release(&r);
	/* The same point without the overwrite verifies. */
	AX_CHECK_INT(run_suite(&ax_suite_gemm, kv, &r), 0);
	ax_runner_result_release(&r);
}

/* This test needs the device: without one it fails, not skips. */
static void open_first(void)
{
	test_open();
	AX_CHECK(vk != NULL);
}

AX_TEST_MAIN(AX_TEST(open_first), AX_TEST(test_edge_shapes_verify),
	     AX_TEST(test_corrupted_output_fails),
	     AX_TEST(test_no_validation_messages), AX_TEST(test_close))
