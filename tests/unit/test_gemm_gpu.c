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

static void test_edge_shapes_verify(void)
{
	AX_NEED_DEVICE();
	static const char *const cases[][20] = {
	    {"m", "1", "n", "67", "k", "45", NULL},
	    {"m", "70", "n", "33", "k", "19", "trans_a", "true", "vec", "1",
	     NULL},
	    {"m", "29", "n", "65", "k", "18", "trans_b", "true", "vec", "2",
	     "dbuf", "true", "batch", "3", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ax_runner_result r;
		AX_CHECK_INT(ax_gpu_run(&ax_suite_gemm, cases[i], &r), 0);
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
	AX_NEED_DEVICE();
	static const char *const kv[] = {"m", "33", "n", "20", "k", "17", NULL};
	struct ax_suite bad = ax_suite_gemm;
	bad.record = corrupt_record;
	struct ax_runner_result r;
	int rc = ax_gpu_run(&bad, kv, &r);
	AX_CHECK_INT(rc, AX_EVERIFY);
	AX_CHECK_STR(r.status_text, "failed-verification");
	AX_CHECK_INT(r.n, 0);
	AX_CHECK(strstr(r.error, "C[batch 0][5][7] = 1234.5") != NULL);
	ax_runner_result_release(&r);
	/* The same point without the overwrite verifies. */
	AX_CHECK_INT(ax_gpu_run(&ax_suite_gemm, kv, &r), 0);
	ax_runner_result_release(&r);
}

AX_TEST_MAIN(AX_TEST(test_open), AX_TEST(test_edge_shapes_verify),
	     AX_TEST(test_corrupted_output_fails),
	     AX_TEST(test_no_validation_messages), AX_TEST(test_close))
