/*
 * tests/unit/test_attention_gpu.c - the attention suite on the machine's Vulkan
 * device (lavapipe on CPU-only machines): edge shapes (causal, sequences
 * not a multiple of the tiles, seq_q != seq_kv, head_dim 64 and 128) run
 * through the runner and verify, and a corrupted output buffer - the kernel ran
 * correctly, then one element was overwritten - is reported as a failed
 * verification.  Validation-layer messages fail the test.
 */
#include "ax_gpu_test.h"

#include "core/error.h"
#include "suites/attention_ref.h"
#include "suites/runner.h"

#include <stdlib.h>

extern const struct ax_suite ax_suite_attention;

static void point(struct ax_params *p, const char *const *kv)
{
	ax_gpu_point(p, &ax_suite_attention, kv);
}

static void test_shapes_verify(void)
{
	AX_NEED_DEVICE();
	static const char *const cases[][24] = {
	    {"seq_q", "64", "seq_kv", "64", NULL},
	    /* sequences not a multiple of br / bc, several heads */
	    {"batch", "2", "heads", "3", "seq_q", "37", "seq_kv", "53", NULL},
	    /* causal, square and rectangular (bottom-right aligned,
	     * including rows that see no key when seq_q > seq_kv) */
	    {"heads", "2", "seq_q", "45", "seq_kv", "45", "causal", "true",
	     NULL},
	    {"heads", "1", "seq_q", "19", "seq_kv", "50", "causal", "true",
	     NULL},
	    {"heads", "1", "seq_q", "40", "seq_kv", "21", "causal", "true",
	     "br", "8", "bc", "32", NULL},
	    /* head_dim 128 with other tilings */
	    {"heads", "2", "seq_q", "33", "seq_kv", "70", "head_dim", "128",
	     "br", "8", "bc", "16", "tpr", "16", NULL},
	    {"batch", "2", "heads", "1", "seq_q", "17", "seq_kv", "31",
	     "head_dim", "128", "causal", "true", "br", "4", "bc", "8", "tpr",
	     "32", NULL},
	    /* a single query (decoding), one invocation per row */
	    {"heads", "2", "seq_q", "1", "seq_kv", "77", "br", "1", "bc", "64",
	     "tpr", "1", "head_dim", "32", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		AX_CHECK_INT(ax_gpu_run_status(&ax_suite_attention, cases[i]),
			     0);
		/* and the same point on the shared-memory kernel */
		const char *smem[24];
		int n = 0;
		while (cases[i][n] && n < 20) {
			smem[n] = cases[i][n];
			n++;
		}
		smem[n++] = "share";
		smem[n++] = "smem";
		smem[n] = NULL;
		AX_CHECK_INT(ax_gpu_run_status(&ax_suite_attention, smem), 0);
	}
}

static void test_f16_or_skip(void)
{
	AX_NEED_DEVICE();
	int rc = ax_gpu_run_status(
	    &ax_suite_attention,
	    (const char *const[]){"heads", "2", "seq_q", "29", "seq_kv", "41",
				  "causal", "true", "dtype", "f16", NULL});
	if (vk->info->storage16 && vk->info->fp16_arith)
		AX_CHECK_INT(rc, 0);
	else
		AX_CHECK_INT(rc, AX_EUNSUPPORTED);
}

/*
 * A suite identical to attention except that after the (correct) kernel it
 * overwrites one output element with a wrong value, as a miscompiled or
 * racy kernel would: the runner must store the case as failed.
 */
static uint32_t bad_offset;

static void corrupt_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	float bad = 1234.5f;
	uint32_t bits;
	memcpy(&bits, &bad, sizeof(bits));
	ax_suite_attention.record(state, cb, reps);
	ax_vk_cmd_barrier(cb);
	vkCmdFillBuffer(cb, ax_attention_state_output(state)->buf, bad_offset,
			4, bits);
	ax_vk_cmd_barrier(cb);
}

static void test_corrupted_output_fails(void)
{
	AX_NEED_DEVICE();
	struct ax_suite bad = ax_suite_attention;
	bad.record = corrupt_record;
	struct ax_params p;
	struct ax_attention_shape s;
	struct ax_runner_opts o;
	struct ax_runner_result r;
	point(&p, (const char *const[]){"batch", "2", "heads", "2", "seq_q",
					"20", "seq_kv", "24", NULL});
	ax_attention_shape_from_params(&p, &s);
	/* batch 1, head 0, query 13, column 5 */
	bad_offset = (uint32_t)((((1 * 2 + 0) * 20 + 13) * 64 + 5) * 4);
	ax_runner_opts_default(&o);
	o.max_samples = 3, o.max_time_s = 0.5;
	int rc = ax_runner_run_case(vk, &bad, &p, &o, &r);
	printf("#   %s: %s\n", r.status_text, r.error);
	AX_CHECK_INT(rc, AX_EVERIFY);
	AX_CHECK_STR(r.status_text, "failed-verification");
	AX_CHECK_INT(r.n, 0);
	AX_CHECK(strstr(r.error, "batch 1, head 0, query 13, column 5") !=
		 NULL);
	AX_CHECK(strstr(r.error, "1234.5") != NULL);
	ax_runner_result_release(&r);
	/* The same kernel without the overwrite verifies. */
	AX_CHECK_INT(ax_gpu_run_status(&ax_suite_attention,
				       (const char *const[]){
					   "batch", "2", "heads", "2", "seq_q",
					   "20", "seq_kv", "24", NULL}),
		     0);
}

AX_TEST_MAIN(AX_TEST(test_open), AX_TEST(test_shapes_verify),
	     AX_TEST(test_f16_or_skip), AX_TEST(test_corrupted_output_fails),
	     AX_TEST(test_no_validation_messages), AX_TEST(test_close))
