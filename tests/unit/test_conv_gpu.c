/*
 * tests/unit/test_conv_gpu.c - the conv suite on the machine's Vulkan
 * device (lavapipe on CPU-only machines): edge shapes run through the
 * runner and verify, and a corrupted output buffer - the kernel ran
 * correctly, then one element was overwritten - is reported as a failed
 * verification.  Validation-layer messages fail the test.
 */
#include "ax_gpu_test.h"

#include "core/error.h"
#include "suites/conv_ref.h"
#include "suites/runner.h"

#include <stdlib.h>

extern const struct ax_suite ax_suite_conv;

static void point(struct ax_params *p, const char *const *kv)
{
	ax_gpu_point(p, &ax_suite_conv, kv);
}

static void test_shapes_verify(void)
{
	AX_NEED_DEVICE();
	static const char *const cases[][24] = {
	    {NULL},
	    /* stride 2 with padding, odd sizes, both layouts */
	    {"n", "2", "c", "5", "h", "13", "w", "11", "k", "7", "stride", "2",
	     "pad", "2", NULL},
	    {"n", "2", "c", "5", "h", "13", "w", "11", "k", "7", "stride", "2",
	     "pad", "2", "layout", "nhwc", NULL},
	    /* dilation, 5x3 filter, no padding */
	    {"n", "1", "c", "3", "h", "17", "w", "15", "k", "9", "r", "5", "s",
	     "3", "dilation", "2", "pad", "0", NULL},
	    {"n",	 "1", "c",   "3", "h",	    "17",   "w",
	     "15",	 "k", "9",   "r", "5",	    "s",    "3",
	     "dilation", "3", "pad", "1", "layout", "nhwc", NULL},
	    /* 1x1 convolution, K not a multiple of the tile */
	    {"n", "3", "c", "19", "h", "6", "w", "6", "k", "33", "r", "1", "s",
	     "1", "pad", "0", NULL},
	    /* other tilings */
	    {"n",      "2",  "c",  "8",	     "h",  "9",	      "w",
	     "9",      "k",  "16", "tile_k", "16", "tile_pq", "32",
	     "tile_c", "16", "tm", "4",	     "tn", "8",	      NULL},
	    {"n",  "2",	 "c",	   "8",	 "h",	    "9",    "w",      "9",
	     "k",  "16", "tile_k", "64", "tile_pq", "16",   "tile_c", "4",
	     "tm", "8",	 "tn",	   "4",	 "layout",  "nhwc", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		AX_CHECK_INT(ax_gpu_run_status(&ax_suite_conv, cases[i]), 0);
}

static void test_f16_or_skip(void)
{
	AX_NEED_DEVICE();
	int rc = ax_gpu_run_status(
	    &ax_suite_conv,
	    (const char *const[]){"n", "2", "c", "6", "h", "9", "w", "7", "k",
				  "5", "stride", "2", "dtype", "f16", NULL});
	if (vk->info->storage16 && vk->info->fp16_arith)
		AX_CHECK_INT(rc, 0);
	else
		AX_CHECK_INT(rc, AX_EUNSUPPORTED);
}

/*
 * A suite identical to conv except that after the (correct) kernel it
 * overwrites one output element with a wrong value, as a miscompiled or
 * racy kernel would: the runner must store the case as failed.
 */
static uint32_t bad_offset;

static void corrupt_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	float bad = 1234.5f;
	uint32_t bits;
	memcpy(&bits, &bad, sizeof(bits));
	ax_suite_conv.record(state, cb, reps);
	ax_vk_cmd_barrier(cb);
	vkCmdFillBuffer(cb, ax_conv_state_output(state)->buf, bad_offset, 4,
			bits);
	ax_vk_cmd_barrier(cb);
}

static void test_corrupted_output_fails(void)
{
	AX_NEED_DEVICE();
	struct ax_suite bad = ax_suite_conv;
	bad.record = corrupt_record;
	struct ax_params p;
	struct ax_conv_shape s;
	struct ax_runner_opts o;
	struct ax_runner_result r;
	point(&p, (const char *const[]){"n", "2", "c", "4", "h", "8", "w", "8",
					"k", "8", "stride", "2", NULL});
	ax_conv_shape_from_params(&p, &s, NULL, 0);
	bad_offset = (uint32_t)ax_conv_output_index(&s, 1, 3, 2, 1) * 4;
	ax_runner_opts_default(&o);
	o.max_samples = 3, o.max_time_s = 0.5;
	int rc = ax_runner_run_case(vk, &bad, &p, &o, &r);
	printf("#   %s: %s\n", r.status_text, r.error);
	AX_CHECK_INT(rc, AX_EVERIFY);
	AX_CHECK_STR(r.status_text, "failed-verification");
	AX_CHECK_INT(r.n, 0);
	AX_CHECK(strstr(r.error, "n=1 k=3 p=2 q=1") != NULL);
	AX_CHECK(strstr(r.error, "1234.5") != NULL);
	ax_runner_result_release(&r);
	/* The same kernel without the overwrite verifies. */
	AX_CHECK_INT(ax_gpu_run_status(&ax_suite_conv,
				       (const char *const[]){
					   "n", "2", "c", "4", "h", "8", "w",
					   "8", "k", "8", "stride", "2", NULL}),
		     0);
}

AX_TEST_MAIN(AX_TEST(test_open), AX_TEST(test_shapes_verify),
	     AX_TEST(test_f16_or_skip), AX_TEST(test_corrupted_output_fails),
	     AX_TEST(test_no_validation_messages), AX_TEST(test_close))
