/*
 * tests/unit/test_reduce_gpu.c - the reduce suite on the machine's Vulkan
 * device: edge points (one workgroup, idle invocations, many groups)
 * verify bit for bit through the runner, and a reduction that never ran -
 * the result word still holds what setup put there - is reported as a
 * failed verification and never as a speed.  Validation-layer messages
 * fail the test.
 */
#include "ax_gpu_test.h"

#include "core/error.h"
#include "suites/runner.h"

extern const struct ax_suite ax_suite_reduce;

static void test_edge_points_verify(void)
{
	AX_NEED_DEVICE();
	static const char *const cases[][8] = {
	    /* 256 loads, one group of 1024 x 64: nearly all idle */
	    {"size", "4K", "wg", "1024", "epi", "64", NULL},
	    /* 8 groups of 32 x 1 */
	    {"size", "4K", "wg", "32", "epi", "1", NULL},
	    /* the defaults, 256 groups */
	    {"size", "1M", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ax_runner_result r;
		AX_CHECK_INT(ax_gpu_run(&ax_suite_reduce, cases[i], &r), 0);
		AX_CHECK(r.n >= 2 && r.summary.median > 0);
		ax_runner_result_release(&r);
	}
}

static void record_nothing(void *state, VkCommandBuffer cb, uint32_t reps) {}

static void test_reduction_that_never_ran_fails(void)
{
	AX_NEED_DEVICE();
	static const char *const kv[] = {"size", "64K", NULL};
	struct ax_suite bad = ax_suite_reduce;
	bad.record = record_nothing;
	struct ax_runner_result r;
	AX_CHECK_INT(ax_gpu_run(&bad, kv, &r), AX_EVERIFY);
	AX_CHECK_STR(r.status_text, "failed-verification");
	AX_CHECK_INT(r.n, 0);
	AX_CHECK(strstr(r.error, "reduce: the sum is 0x") != NULL);
	ax_runner_result_release(&r);
}

AX_TEST_MAIN(AX_TEST(test_open), AX_TEST(test_edge_points_verify),
	     AX_TEST(test_reduction_that_never_ran_fails),
	     AX_TEST(test_no_validation_messages), AX_TEST(test_close))
