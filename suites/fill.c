/*
 * suites/fill.c - device-memory fill: one word value stored over a buffer
 * (shaders/fill.comp), as a clear or a constant initialiser does.
 *
 * Work model: the bytes written per repetition.  Verification: the buffer
 * starts as a pattern that is not the value, and after the warm-up the
 * host reads it all back and checks every word, so a store the kernel
 * skipped fails before any time counts.
 *
 * It is the demonstration that a suite is its shader, this file and one
 * line of suites/registry.c: each knob is declared once, in its table row
 * (AX_KNOB: the field it fills and its constant_id).
 */
#include "core/error.h"
#include "suites/suite.h"

#include <stdlib.h>
#include <string.h>

#define FILL_VALUE 0x5eedf111u
#define FILL_POISON 0xdeadbeefu

struct fill_point {
	uint64_t size;
	uint32_t wg, epi;
	uint32_t n_vec4, stride, gx, gy; /* derived in fill_point() */
};

static const struct ax_param_def fill_params[] = {
    {"size", AX_PT_INT, 4096, 1LL << 40, NULL, 64LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2, "bytes written",
     AX_FIELD(struct fill_point, size)},
    {"wg", AX_PT_INT, 32, 1024, NULL, 256, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup size", AX_KNOB(struct fill_point, wg, 0)},
    {"epi", AX_PT_INT, 1, 64, NULL, 4, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "16-byte stores per invocation", AX_KNOB(struct fill_point, epi, 1)},
};
#define N_PARAMS ((int)(sizeof(fill_params) / sizeof(fill_params[0])))

static void fill_point(const struct ax_params *p, struct fill_point *f)
{
	memset(f, 0, sizeof(*f));
	ax_params_store(p, f);
	uint64_t n = f->size / 16;
	f->n_vec4 = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	f->stride = (uint32_t)((f->n_vec4 + f->epi - 1) / f->epi);
	uint64_t groups = (f->stride + f->wg - 1) / f->wg;
	f->gx = groups > 65535 ? 65535 : (uint32_t)groups;
	f->gy = (uint32_t)((groups + f->gx - 1) / f->gx);
}

static int fill_check(const struct ax_params *p,
		      const struct ax_vk_device_info *dev, char *why,
		      size_t whylen)
{
	struct fill_point f;
	fill_point(p, &f);
	const VkPhysicalDeviceLimits *l = &dev->limits;
	if (f.wg > l->maxComputeWorkGroupInvocations ||
	    f.wg > l->maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "fill: wg=%u exceeds the device's workgroup "
			       "limit %u",
			       f.wg, l->maxComputeWorkGroupInvocations);
	if (f.size > l->maxStorageBufferRange || f.size / 16 > UINT32_MAX)
		return ax_errf(why, whylen, AX_EINVAL,
			       "fill: size=%llu is over the device's "
			       "maxStorageBufferRange %u; use a smaller size",
			       (unsigned long long)f.size,
			       l->maxStorageBufferRange);
	if (f.gy > l->maxComputeWorkGroupCount[1])
		return ax_errf(why, whylen, AX_EINVAL,
			       "fill: %u x %u workgroups exceed the device's "
			       "dispatch limit; raise wg or epi",
			       f.gx, f.gy);
	return 0;
}

struct fill_state {
	struct fill_point pt;
	struct ax_vk_ctx *vk;
	struct ax_vk_buffer dst;
	struct ax_vk_pipeline pipe;
};

static void fill_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct fill_state *s = state;
	if (!s)
		return;
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->dst);
	free(s);
}

/* The buffer, poisoned, and the pipeline with the table's knobs. */
static int fill_build(struct fill_state *s, const struct ax_params *p)
{
	uint64_t bytes = s->pt.size;
	int rc = ax_vk_buffer_create(s->vk, bytes,
				     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
				     AX_MEM_DEVICE, &s->dst);
	uint32_t *poison = rc ? NULL : malloc(bytes);
	if (!rc && !poison)
		return AX_ENOMEM;
	for (uint64_t i = 0; poison && i < bytes / 4; i++)
		poison[i] = FILL_POISON;
	if (!rc)
		rc = ax_vk_upload(s->vk, &s->dst, 0, poison, bytes);
	free(poison);
	struct ax_vk_spec spec[AX_MAX_PARAMS];
	int n = ax_suite_spec(p, spec);
	if (!rc)
		rc = ax_vk_pipeline_create(s->vk, "fill", 1, 12, spec, n,
					   &s->pipe);
	struct ax_vk_binding bind = {&s->dst, 0, 0};
	if (!rc)
		rc = ax_vk_pipeline_bind(s->vk, &s->pipe, &bind, 1);
	return rc;
}

static int fill_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		      void **state, char *err, size_t errlen)
{
	struct fill_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	fill_point(p, &s->pt);
	s->vk = vk;
	int rc = fill_build(s, p);
	if (rc) {
		ax_errf(err, errlen, rc, "fill setup: %s",
			vk->err[0] ? vk->err : ax_strerror(rc));
		fill_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

static void fill_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct fill_state *s = state;
	uint32_t push[3] = {s->pt.n_vec4, s->pt.stride, FILL_VALUE};
	for (uint32_t r = 0; r < reps; r++) {
		/* Repetitions write the same buffer: one after another. */
		if (r)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &s->pipe, push, s->pt.gx, s->pt.gy, 1);
	}
}

static int fill_verify(void *state, char *why, size_t whylen)
{
	struct fill_state *s = state;
	uint64_t words = (uint64_t)s->pt.n_vec4 * 4;
	uint32_t *got = malloc(words * 4);
	if (!got)
		return AX_ENOMEM;
	int rc = ax_vk_download(s->vk, &s->dst, 0, got, words * 4);
	if (rc)
		ax_errf(why, whylen, rc, "fill: reading the buffer: %s",
			s->vk->err);
	for (uint64_t w = 0; !rc && w < words; w++)
		if (got[w] != FILL_VALUE)
			rc = ax_errf(why, whylen, AX_EVERIFY,
				     "fill: word %llu is 0x%08x, expected "
				     "0x%08x",
				     (unsigned long long)w, got[w], FILL_VALUE);
	free(got);
	return rc;
}

static double fill_work(const struct ax_params *p)
{
	struct fill_point f;
	fill_point(p, &f);
	return 16.0 * f.n_vec4;
}

static const char *fill_shader(const struct ax_params *p) { return "fill"; }

const struct ax_suite ax_suite_fill = {
    .name = "fill",
    .summary = "device-memory fill: one value stored over a buffer",
    .work_model = "GB/s = bytes written / time / 1e9",
    .unit = "GB/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = fill_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct fill_point),
    .check = fill_check,
    .setup = fill_setup,
    .record = fill_record,
    .verify = fill_verify,
    .work = fill_work,
    .bytes = fill_work, /* what it writes is all it moves */
    .roles = AX_ROLE_BANDWIDTH_PEAK,
    .shader = fill_shader,
    .teardown = fill_teardown,
};
