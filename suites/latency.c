/*
 * suites/latency.c - cost of one nearly empty dispatch, back to back
 * (shaders/peak_empty.comp).  A suite of its own because its unit is
 * time ("us", lower is better) where peak's is a rate.
 *
 * Work model: none; the value is microseconds per dispatch, including
 * the barrier between dispatches when barrier=true (the dependent case
 * every multi-kernel pipeline pays).  Two modes: dispatch (GPU
 * timestamps around back-to-back dispatches in one submission) and
 * roundtrip (host time from recording one dispatch through
 * vkQueueSubmit to vkWaitForFences returning, per launch: clpeak's
 * kernel-launch latency, enqueue then finish).  Verification: the last
 * dispatch writes its token and the host reads it back; in roundtrip
 * mode each launch writes a new token, so the one read back is the last
 * launch's.
 */
#include "core/error.h"
#include "suites/suite.h"

#include <stdlib.h>

#define LAT_TOKEN 0xa11c0de5u

enum lat_mode { LAT_DISPATCH, LAT_ROUNDTRIP };
static const char *const lat_modes[] = {"dispatch", "roundtrip", NULL};

struct lat_point {
	uint32_t groups;
	bool barrier;
	enum lat_mode mode;
};

static const struct ax_param_def lat_params[] = {
    {"groups", AX_PT_INT, 1, 65535, NULL, 1, AX_PARAM_SHAPE,
     "workgroups per dispatch (one invocation each)",
     AX_FIELD(struct lat_point, groups)},
    {"barrier", AX_PT_BOOL, 0, 1, NULL, 1, AX_PARAM_SHAPE,
     "full memory barrier between consecutive dispatches (dispatch "
     "mode; a round trip has one dispatch)",
     AX_FIELD(struct lat_point, barrier)},
    {"mode", AX_PT_ENUM, 0, 0, lat_modes, LAT_DISPATCH, AX_PARAM_SHAPE,
     "dispatch (GPU time per back-to-back dispatch) or roundtrip (host "
     "time per launch: record one dispatch, submit, wait for its fence)",
     AX_FIELD(struct lat_point, mode)},
};
#define N_PARAMS ((int)(sizeof(lat_params) / sizeof(lat_params[0])))

struct lat_state {
	struct ax_vk_ctx *vk;
	struct ax_vk_buffer out;
	struct ax_vk_pipeline pipe;
	struct ax_vk_slot slot; /* roundtrip: the launch's buffer and fence */
	uint32_t launches;	/* roundtrip: the token of the next launch */
	struct lat_point pt;
};

static int lat_check(const struct ax_params *p,
		     const struct ax_vk_device_info *dev, char *why,
		     size_t whylen)
{
	struct lat_point pt;
	ax_params_store(p, &pt);
	uint32_t g = pt.groups;
	if (g > dev->limits.maxComputeWorkGroupCount[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "latency: groups=%u exceeds "
			       "maxComputeWorkGroupCount %u",
			       g, dev->limits.maxComputeWorkGroupCount[0]);
	return 0;
}

static void lat_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct lat_state *s = state;
	if (!s)
		return;
	ax_vk_slot_release(vk, &s->slot);
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->out);
	free(s);
}

static int lat_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		     void **state, char *err, size_t errlen)
{
	struct lat_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	s->vk = vk;
	ax_params_store(p, &s->pt);
	uint32_t zero[4] = {0};
	int rc = ax_vk_buffer_create(vk, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
				     AX_MEM_DEVICE, &s->out);
	if (!rc)
		rc = ax_vk_upload(vk, &s->out, 0, zero, sizeof(zero));
	if (!rc)
		rc = ax_vk_pipeline_create(vk, "peak_empty", 1, 4, NULL, 0,
					   &s->pipe);
	if (!rc) {
		struct ax_vk_binding b = {&s->out, 0, 0};
		rc = ax_vk_pipeline_bind(vk, &s->pipe, &b, 1);
	}
	if (!rc && s->pt.mode == LAT_ROUNDTRIP)
		rc = ax_vk_slot_init(vk, false, &s->slot);
	if (rc) {
		ax_errf(err, errlen, rc, "latency setup: %s", vk->err);
		lat_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

static void lat_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct lat_state *s = state;
	uint32_t token = LAT_TOKEN;
	for (uint32_t r = 0; r < reps; r++) {
		/* Without the barrier the dispatches write the same word
		 * unordered; the value is the same, so that is benign.  With
		 * it, every repetition is one barrier and one dispatch, the
		 * first too (it waits for the timestamp before it): a
		 * one-repetition sample, such as the runner's probes, then
		 * times the same work as a long one. */
		if (s->pt.barrier)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &s->pipe, &token, s->pt.groups, 1, 1);
	}
}

/* The token launch i writes: a new one each launch, in roundtrip mode. */
static uint32_t lat_token(const struct lat_state *s, uint32_t i)
{
	return s->pt.mode == LAT_ROUNDTRIP ? LAT_TOKEN + i : LAT_TOKEN;
}

/* One launch, all of it timed: record the dispatch, submit, wait for
 * the fence (clpeak: clEnqueueNDRangeKernel, then clFinish). */
static int lat_host_op(void *state, char *err, size_t errlen)
{
	struct lat_state *s = state;
	uint32_t token = lat_token(s, s->launches);
	int rc = ax_vk_slot_begin(s->vk, &s->slot);
	if (!rc) {
		ax_vk_cmd_dispatch(s->slot.cb, &s->pipe, &token, s->pt.groups,
				   1, 1);
		rc = ax_vk_slot_submit(s->vk, &s->slot);
	}
	if (!rc)
		rc = ax_vk_slot_wait(s->vk, &s->slot);
	if (rc)
		return ax_errf(err, errlen, rc, "latency round trip: %s",
			       rc == AX_ETIMEOUT ? "the fence did not signal"
						 : s->vk->err);
	s->launches++;
	return 0;
}

static bool lat_host_timed(const struct ax_params *p)
{
	return ax_params_get(p, "mode") == LAT_ROUNDTRIP;
}

static int lat_verify(void *state, char *why, size_t whylen)
{
	struct lat_state *s = state;
	uint32_t want = lat_token(s, s->launches ? s->launches - 1 : 0);
	uint32_t got = 0;
	int rc = ax_vk_download(s->vk, &s->out, 0, &got, 4);
	if (rc)
		return ax_errf(why, whylen, rc, "latency: reading back: %s",
			       s->vk->err);
	if (got != want)
		return ax_errf(why, whylen, AX_EVERIFY,
			       "latency: the dispatch wrote 0x%08x, expected "
			       "0x%08x",
			       got, want);
	return 0;
}

static double lat_work(const struct ax_params *p) { return 1.0; }

static const char *lat_shader(const struct ax_params *p)
{
	return "peak_empty";
}

const struct ax_suite ax_suite_latency = {
    .name = "latency",
    .summary = "time per nearly empty compute dispatch: back to back, "
	       "or a submit-to-fence round trip",
    .work_model = "us per dispatch (including the barrier when "
		  "barrier=true; mode=roundtrip: host time from recording "
		  "one dispatch to its fence wait returning); lower is better",
    .unit = "us",
    .metric = AX_METRIC_TIME,
    .scale = 1e6,
    .higher_is_better = false,
    .params = lat_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct lat_point),
    .check = lat_check,
    .setup = lat_setup,
    .record = lat_record,
    .host_op = lat_host_op,
    .host_timed = lat_host_timed,
    .verify = lat_verify,
    .work = lat_work,
    .roles = AX_ROLE_LATENCY,
    .shader = lat_shader,
    .teardown = lat_teardown,
};
