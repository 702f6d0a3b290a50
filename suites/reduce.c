/*
 * suites/reduce.c - sum of 32-bit words: a memory-bound reduction
 * (shaders/reduce.comp), the pattern of every norm, loss and softmax
 * denominator.  Two dispatches per repetition: workgroup partials, then
 * one workgroup over the partials.
 *
 * Work model: bytes read and written per repetition (the input once, each
 * partial written and read once, the result written once), so the figure
 * is GB/s and sits beside bandwidth's read kernel as a memory ceiling.
 * Verification: the integer sum (mod 2^32) is exact in any order, so the
 * host compares every bit with its own sum of the same input.
 */
#include "core/error.h"
#include "suites/suite.h"

#include <stdlib.h>
#include <string.h>

struct reduce_point {
	uint64_t size;
	uint32_t wg, epi, sg_size;
	uint32_t n_vec4, groups;
};

static const struct ax_param_def reduce_params[] = {
    {"size", AX_PT_INT, 4096, 1LL << 40, NULL, 16LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "input bytes (32-bit words)", AX_FIELD(struct reduce_point, size)},
    {"wg", AX_PT_INT, 32, 1024, NULL, 256, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup size", AX_KNOB(struct reduce_point, wg, 0)},
    {"epi", AX_PT_INT, 1, 64, NULL, 4, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "16-byte loads per invocation", AX_KNOB(struct reduce_point, epi, 1)},
    AX_SUITE_SG_SIZE_PARAM(struct reduce_point, sg_size, NULL),
};
#define N_PARAMS ((int)(sizeof(reduce_params) / sizeof(reduce_params[0])))

static void reduce_point(const struct ax_params *p, struct reduce_point *r)
{
	memset(r, 0, sizeof(*r));
	ax_params_store(p, r);
	uint64_t n = r->size / 16;
	r->n_vec4 = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	uint64_t per_group = (uint64_t)r->wg * r->epi;
	uint64_t groups = (n + per_group - 1) / per_group;
	r->groups = groups > UINT32_MAX ? UINT32_MAX : (uint32_t)groups;
}

static int reduce_check(const struct ax_params *p,
			const struct ax_vk_device_info *dev, char *why,
			size_t whylen)
{
	struct reduce_point r;
	reduce_point(p, &r);
	const VkPhysicalDeviceLimits *l = &dev->limits;
	if (r.wg > l->maxComputeWorkGroupInvocations ||
	    r.wg > l->maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "reduce: wg=%u exceeds the device's workgroup "
			       "limit %u",
			       r.wg, l->maxComputeWorkGroupInvocations);
	if (r.size > l->maxStorageBufferRange)
		return ax_errf(why, whylen, AX_EINVAL,
			       "reduce: size=%llu is over the device's "
			       "maxStorageBufferRange %llu",
			       (unsigned long long)r.size,
			       (unsigned long long)l->maxStorageBufferRange);
	if (ax_suite_check_subgroup_size("reduce", r.sg_size, r.wg, dev, why,
					 whylen))
		return AX_EINVAL;
	if (r.groups > l->maxComputeWorkGroupCount[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "reduce: %u workgroups exceed the device's "
			       "maxComputeWorkGroupCount %u; raise wg or epi",
			       r.groups, l->maxComputeWorkGroupCount[0]);
	return 0;
}

struct reduce_state {
	struct reduce_point pt;
	struct ax_vk_buffer src, partials, result;
	struct ax_vk_pipeline pipe;
	uint32_t want; /* the host's sum of the input */
	struct ax_vk_ctx *vk;
};

static void reduce_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct reduce_state *s = state;
	if (!s)
		return;
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->src);
	ax_vk_buffer_destroy(vk, &s->partials);
	ax_vk_buffer_destroy(vk, &s->result);
	free(s);
}

/* Random input (zeros would let a kernel that reads nothing pass), its
 * host sum, and a result word that no correct run leaves as it is. */
static int reduce_buffers(struct ax_vk_ctx *vk, struct reduce_state *s)
{
	const VkBufferUsageFlags ssbo = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	uint64_t words = s->pt.size / 4;
	uint32_t *host = malloc(s->pt.size);
	if (!host)
		return AX_ENOMEM;
	ax_vk_fill_random_words(host, words, 7);
	s->want = 0;
	for (uint64_t i = 0; i < words; i++)
		s->want += host[i];
	uint32_t poison = ~s->want;
	int rc =
	    ax_vk_buffer_create(vk, s->pt.size, ssbo, AX_MEM_DEVICE, &s->src);
	if (!rc)
		rc = ax_vk_upload(vk, &s->src, 0, host, s->pt.size);
	if (!rc)
		rc = ax_vk_buffer_create(vk, 4ull * s->pt.groups, ssbo,
					 AX_MEM_DEVICE, &s->partials);
	if (!rc)
		rc =
		    ax_vk_buffer_create(vk, 4, ssbo, AX_MEM_DEVICE, &s->result);
	if (!rc)
		rc = ax_vk_upload(vk, &s->result, 0, &poison, 4);
	free(host);
	return rc;
}

static int reduce_pipeline(struct ax_vk_ctx *vk, struct reduce_state *s,
			   const struct ax_params *p)
{
	struct ax_vk_spec spec[AX_MAX_PARAMS];
	int n = ax_suite_spec(p, spec);
	int rc = ax_vk_pipeline_create(vk, "reduce", 3, 12, spec, n, &s->pipe);
	if (rc)
		return rc;
	struct ax_vk_binding bind[3] = {
	    {&s->src, 0, 0}, {&s->partials, 0, 0}, {&s->result, 0, 0}};
	return ax_vk_pipeline_bind(vk, &s->pipe, bind, 3);
}

static int reduce_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
			void **state, char *err, size_t errlen)
{
	struct reduce_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	reduce_point(p, &s->pt);
	s->vk = vk;
	int rc = reduce_buffers(vk, s);
	if (!rc)
		rc = reduce_pipeline(vk, s, p);
	if (rc) {
		ax_errf(err, errlen, rc, "reduce setup: %s",
			vk->err[0] ? vk->err : ax_strerror(rc));
		reduce_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

static void reduce_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct reduce_state *s = state;
	struct {
		uint32_t n_vec4, n_groups, pass;
	} push = {s->pt.n_vec4, s->pt.groups, 0};
	for (uint32_t r = 0; r < reps; r++) {
		/* Pass 1 reads pass 0's partials; the next repetition's
		 * pass 0 overwrites them. */
		if (r)
			ax_vk_cmd_barrier(cb);
		push.pass = 0;
		ax_vk_cmd_dispatch(cb, &s->pipe, &push, s->pt.groups, 1, 1);
		ax_vk_cmd_barrier(cb);
		push.pass = 1;
		ax_vk_cmd_dispatch(cb, &s->pipe, &push, 1, 1, 1);
	}
}

static int reduce_verify(void *state, char *why, size_t whylen)
{
	struct reduce_state *s = state;
	uint32_t got = 0;
	int rc = ax_vk_download(s->vk, &s->result, 0, &got, 4);
	if (rc)
		return ax_errf(why, whylen, rc,
			       "reduce: reading the result: %s", s->vk->err);
	if (got != s->want)
		return ax_errf(why, whylen, AX_EVERIFY,
			       "reduce: the sum is 0x%08x, the host's is "
			       "0x%08x",
			       got, s->want);
	return 0;
}

/* The input once, each partial written and read once, the result. */
static double reduce_work(const struct ax_params *p)
{
	struct reduce_point r;
	reduce_point(p, &r);
	return (double)r.n_vec4 * 16 + 8.0 * r.groups + 4;
}

static const char *reduce_shader(const struct ax_params *p) { return "reduce"; }

static const struct ax_suite_curve reduce_curve = {
    "size", NULL, "Reduction rate against input size", "input (bytes)"};

const struct ax_suite ax_suite_reduce = {
    .name = "reduce",
    .summary = "sum of 32-bit words: a memory-bound reduction "
	       "(workgroup partials, then one workgroup)",
    .work_model = "GB/s = (input bytes + 8 bytes per workgroup partial "
		  "+ 4) / time / 1e9",
    .unit = "GB/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = reduce_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct reduce_point),
    .check = reduce_check,
    .setup = reduce_setup,
    .record = reduce_record,
    .verify = reduce_verify,
    .work = reduce_work,
    .bytes = reduce_work,
    .roles = AX_ROLE_BANDWIDTH_PEAK,
    .curve = &reduce_curve,
    .shader = reduce_shader,
    .teardown = reduce_teardown,
};
