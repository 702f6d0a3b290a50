/*
 * suites/peak.c - the arithmetic ceiling: chains of dependent
 * multiply-adds in several independent vec4 accumulators per invocation,
 * over enough workgroups to fill the device (shaders/peak.comp).
 *
 * Work model: groups * wg * iters * acc * 4 lanes * 2 operations (one
 * multiply and one add, fused for floats).  The unit is GFLOP/s for
 * every type; for type=i32 read it as giga integer operations per
 * second.  Reports use the f32 figure as "% of measured peak".
 *
 * Verification: with multiplier -1 and addend 3 every chain alternates
 * between its start value and 3 minus it, exactly in every type, so each
 * invocation's sum of accumulators has a closed form checked here.
 */
#include "core/error.h"
#include "suites/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEAK_UNROLL 8 /* chain steps per loop trip in the shader */
#define PEAK_ADDEND 3

enum peak_type { PEAK_F32, PEAK_F16, PEAK_I32 };
static const char *const peak_types[] = {"f32", "f16", "i32", NULL};

struct peak_point {
	uint32_t type; /* enum peak_type */
	uint32_t iters, trips, groups, wg, acc;
	uint64_t invocations;
};

static const struct ax_param_def peak_params[] = {
    {"type", AX_PT_ENUM, 0, 0, peak_types, PEAK_F32, AX_PARAM_SHAPE,
     "arithmetic: f32 fma, f16 fma (needs shaderFloat16) or i32 "
     "multiply-add",
     AX_FIELD(struct peak_point, type)},
    {"iters", AX_PT_INT, 8, 1 << 24, NULL, 4096, AX_PARAM_SHAPE,
     "chain length per accumulator (rounded up to a multiple of 8)",
     AX_FIELD(struct peak_point, iters)},
    {"groups", AX_PT_INT, 1, 65535, NULL, 256, AX_PARAM_TUNABLE,
     "workgroups per dispatch", AX_FIELD(struct peak_point, groups)},
    {"wg", AX_PT_INT, 1, 1024, NULL, 64, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup size", AX_KNOB(struct peak_point, wg, 0)},
    {"acc", AX_PT_INT, 1, 16, NULL, 8, AX_PARAM_TUNABLE,
     "independent vec4 accumulators per invocation",
     AX_KNOB(struct peak_point, acc, 1)},
};
#define N_PARAMS ((int)(sizeof(peak_params) / sizeof(peak_params[0])))

static void peak_point(const struct ax_params *p, struct peak_point *k)
{
	memset(k, 0, sizeof(*k));
	ax_params_store(p, k);
	k->trips =
	    (uint32_t)(((uint64_t)k->iters + PEAK_UNROLL - 1) / PEAK_UNROLL);
	k->invocations = (uint64_t)k->groups * k->wg;
}

static int peak_check(const struct ax_params *p,
		      const struct ax_vk_device_info *dev, char *why,
		      size_t whylen)
{
	struct peak_point k;
	peak_point(p, &k);
	if (k.type == PEAK_F16 && !dev->fp16_arith)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "peak type=f16: %s lacks shaderFloat16",
			       dev->name);
	if (k.type == PEAK_F16 && !dev->storage16)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "peak type=f16: %s lacks 16-bit storage "
			       "buffers",
			       dev->name);
	const VkPhysicalDeviceLimits *l = &dev->limits;
	if (k.wg > l->maxComputeWorkGroupInvocations ||
	    k.wg > l->maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "peak: wg=%u exceeds maxComputeWorkGroupSize "
			       "%u / maxComputeWorkGroupInvocations %u",
			       k.wg, l->maxComputeWorkGroupSize[0],
			       l->maxComputeWorkGroupInvocations);
	if (k.groups > l->maxComputeWorkGroupCount[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "peak: groups=%u exceeds "
			       "maxComputeWorkGroupCount %u",
			       k.groups, l->maxComputeWorkGroupCount[0]);
	if (k.invocations * 4 > l->maxStorageBufferRange)
		return ax_errf(why, whylen, AX_EINVAL,
			       "peak: %llu output words exceed "
			       "maxStorageBufferRange %u",
			       (unsigned long long)k.invocations,
			       l->maxStorageBufferRange);
	return 0;
}

struct peak_state {
	struct peak_point k;
	struct ax_vk_ctx *vk;
	struct ax_vk_buffer out;
	struct ax_vk_pipeline pipe;
};

static const char *peak_shader_name(enum peak_type t)
{
	return t == PEAK_F16 ? "peak_f16" : t == PEAK_I32 ? "peak_i32" : "peak";
}

static void peak_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct peak_state *s = state;
	if (!s)
		return;
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->out);
	free(s);
}

static int peak_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		      void **state, char *err, size_t errlen)
{
	struct peak_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	peak_point(p, &s->k);
	s->vk = vk;
	uint64_t bytes = (s->k.invocations * 4 + 15) & ~15ull;
	struct ax_vk_spec spec[AX_MAX_PARAMS + 1];
	int n = ax_suite_spec(p, spec);
	/* constant_id 2 in shaders/peak.comp: fixed, not a knob */
	spec[n++] = (struct ax_vk_spec){2, PEAK_UNROLL};
	int rc =
	    ax_vk_buffer_create(vk, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
				AX_MEM_DEVICE, &s->out);
	if (!rc)
		rc = ax_vk_pipeline_create(vk, peak_shader_name(s->k.type), 1,
					   12, spec, n, &s->pipe);
	if (!rc) {
		struct ax_vk_binding b = {&s->out, 0, 0};
		rc = ax_vk_pipeline_bind(vk, &s->pipe, &b, 1);
	}
	if (rc) {
		ax_errf(err, errlen, rc, "peak setup: %s", vk->err);
		peak_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

static void peak_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct peak_state *s = state;
	struct {
		uint32_t trips;
		int32_t a, b;
	} push = {s->k.trips, -1, PEAK_ADDEND};
	for (uint32_t r = 0; r < reps; r++) {
		if (r)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &s->pipe, &push, s->k.groups, 1, 1);
	}
}

/* What invocation g writes: the sum over its accumulators' lanes of the
 * start value x0 (even chain length) or 3 - x0 (odd). */
static double peak_expected(const struct peak_point *k, uint64_t g)
{
	uint64_t steps = (uint64_t)k->trips * PEAK_UNROLL;
	double sum = 0;
	for (uint32_t j = 0; j < k->acc; j++)
		for (uint32_t c = 0; c < 4; c++) {
			double x0 = (double)((g + 4 * j + c) % 16);
			sum += steps % 2 ? PEAK_ADDEND - x0 : x0;
		}
	return sum;
}

/* Widen word i of the output to double. */
static double peak_value(enum peak_type t, const void *buf, uint64_t i)
{
	if (t == PEAK_I32)
		return (double)((const int32_t *)buf)[i];
	if (t == PEAK_F32)
		return (double)((const float *)buf)[i];
	uint16_t h = ((const uint16_t *)buf)[i];
	/* Small integers only: exponent and mantissa suffice. */
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e ? (1024.0 + m) * (double)(1u << e) / (1u << 25)
		     : m / (double)(1u << 24);
	return h & 0x8000 ? -v : v;
}

static int peak_verify(void *state, char *why, size_t whylen)
{
	struct peak_state *s = state;
	uint64_t n = s->k.invocations;
	size_t es = s->k.type == PEAK_F16 ? 2 : 4;
	void *buf = malloc(n * es);
	if (!buf)
		return AX_ENOMEM;
	int rc = ax_vk_download(s->vk, &s->out, 0, buf, n * es);
	if (rc)
		ax_errf(why, whylen, rc, "peak: reading the output: %s",
			s->vk->err);
	for (uint64_t g = 0; !rc && g < n; g++) {
		double got = peak_value(s->k.type, buf, g);
		double want = peak_expected(&s->k, g);
		if (got != want)
			rc = ax_errf(why, whylen, AX_EVERIFY,
				     "peak %s: invocation %llu wrote %.9g, "
				     "expected %.9g",
				     peak_types[s->k.type],
				     (unsigned long long)g, got, want);
	}
	free(buf);
	return rc;
}

static double peak_work(const struct ax_params *p)
{
	struct peak_point k;
	peak_point(p, &k);
	return (double)k.invocations * k.trips * PEAK_UNROLL * k.acc * 4.0 *
	       2.0;
}

static const char *peak_shader(const struct ax_params *p)
{
	struct peak_point k;
	peak_point(p, &k);
	return peak_shader_name((enum peak_type)k.type);
}

const struct ax_suite ax_suite_peak = {
    .name = "peak",
    .summary = "arithmetic ceiling: dependent multiply-add chains in "
	       "independent vec4 accumulators (f32, f16, i32)",
    .work_model = "GFLOP/s = groups*wg*iters*acc*4*2 / time / 1e9 "
		  "(multiply + add = 2 operations; for i32 the unit "
		  "counts integer operations)",
    .unit = "GFLOP/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = peak_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct peak_point),
    .check = peak_check,
    .setup = peak_setup,
    .record = peak_record,
    .verify = peak_verify,
    .work = peak_work,
    .roles = AX_ROLE_COMPUTE_PEAK,
    .shader = peak_shader,
    .teardown = peak_teardown,
};
