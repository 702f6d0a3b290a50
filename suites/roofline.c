/*
 * suites/roofline.c - the measured roofline: one kernel whose arithmetic
 * intensity is a parameter (shaders/roofline.comp).  Each input element
 * (four lanes) gets `fma` dependent multiply-adds per lane and one add
 * into a partial sum, so a sweep of fma walks from a read-bandwidth
 * kernel (fma=0: 0.25 FLOP/byte in f32, 0.125 in f64) to the peak kernel
 * fed from memory (fma=512: 256 FLOP/byte in f32).  The bandwidth the
 * low points reach and the rate the high points reach meet at the ridge
 * point, which `results` and the report compute from the sweep
 * (reports/roofline.h) and set against the peak and bandwidth suites of
 * the same run.
 *
 * Work model: FLOPs = elements * 4 lanes * (2 * fma + 1); bytes = the
 * input once plus one partial sum (a word) per invocation (declared, so each
 * result is a point on the roofline at work / bytes).
 *
 * Verification: with a = -1, b = 3 a lane ends at x (fma even) or 3 - x
 * (odd) exactly; inputs are integers 0..15, so each invocation's partial
 * sum has a closed form, every one checked.
 */
#include "core/error.h"
#include "suites/suite.h"

#include <stdlib.h>
#include <string.h>

enum rl_type { RL_F32, RL_F64, RL_F16 };
static const char *const rl_types[] = {"f32", "f64", "f16", NULL};

#define RL_ADDEND 3

struct rl_point {
	uint32_t type; /* enum rl_type */
	uint32_t fma, wg, groups, ilp;
	uint64_t size;
	uint32_t lane_bytes, sum_bytes; /* per lane: input, partial sum */
	uint64_t n_elems, invocations;
};

static const struct ax_param_def rl_params[] = {
    {"type", AX_PT_ENUM, 0, 0, rl_types, RL_F32, AX_PARAM_SHAPE,
     "precision of the input and the multiply-adds: f32, f64 "
     "(shaderFloat64) or f16 (shaderFloat16, 16-bit storage; summed in "
     "f32)",
     AX_FIELD(struct rl_point, type)},
    {"fma", AX_PT_INT, 0, 4096, NULL, 16, AX_PARAM_SHAPE,
     "multiply-adds per lane of each element: the intensity, "
     "(2*fma + 1) / (4 bytes f32, 8 f64, 2 f16) FLOP per byte",
     AX_KNOB(struct rl_point, fma, 1)},
    {"size", AX_PT_INT, 4096, 1LL << 40, NULL, 64LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "input bytes (larger than the caches, or the low points measure a "
     "cache)",
     AX_FIELD(struct rl_point, size)},
    {"wg", AX_PT_INT, 32, 1024, NULL, 256, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup size", AX_KNOB(struct rl_point, wg, 0)},
    /* 2048: on lavapipe 512 groups read 0.69 GFLOP/s at fma=0 and
     * 2048 2.05 (64 MiB, wg=256, ilp=4): its threads do better with
     * many short invocations than with few long ones. */
    {"groups", AX_PT_INT, 1, 65535, NULL, 2048, AX_PARAM_TUNABLE,
     "workgroups (each invocation strides over the input)",
     AX_FIELD(struct rl_point, groups)},
    {"ilp", AX_PT_INT, 1, 8, NULL, 4, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "elements in flight per invocation (independent chains)",
     AX_KNOB(struct rl_point, ilp, 2)},
};
#define N_PARAMS ((int)(sizeof(rl_params) / sizeof(rl_params[0])))

static void rl_point(const struct ax_params *p, struct rl_point *r)
{
	memset(r, 0, sizeof(*r));
	ax_params_store(p, r);
	r->lane_bytes = r->type == RL_F64 ? 8 : r->type == RL_F16 ? 2 : 4;
	r->sum_bytes = r->type == RL_F64 ? 8 : 4;
	r->n_elems = r->size / (4ull * r->lane_bytes);
	r->invocations = (uint64_t)r->groups * r->wg;
}

static int rl_check(const struct ax_params *p,
		    const struct ax_vk_device_info *dev, char *why,
		    size_t whylen)
{
	struct rl_point r;
	rl_point(p, &r);
	if (r.type == RL_F64 && !dev->fp64_arith)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "roofline type=f64: %s lacks shaderFloat64",
			       dev->name);
	if (r.type == RL_F16 && !(dev->fp16_arith && dev->storage16))
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "roofline type=f16: %s lacks %s", dev->name,
			       dev->fp16_arith ? "16-bit storage buffers"
					       : "shaderFloat16");
	const VkPhysicalDeviceLimits *l = &dev->limits;
	if (r.wg > l->maxComputeWorkGroupInvocations ||
	    r.wg > l->maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "roofline: wg=%u exceeds the device's "
			       "workgroup limit %u",
			       r.wg, l->maxComputeWorkGroupInvocations);
	if (r.groups > l->maxComputeWorkGroupCount[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "roofline: groups=%u exceeds "
			       "maxComputeWorkGroupCount %u",
			       r.groups, l->maxComputeWorkGroupCount[0]);
	if (r.size > l->maxStorageBufferRange ||
	    r.invocations * r.sum_bytes > l->maxStorageBufferRange)
		return ax_errf(why, whylen, AX_EINVAL,
			       "roofline: size=%llu (or %llu partial sums) is "
			       "over the device's maxStorageBufferRange %u",
			       (unsigned long long)r.size,
			       (unsigned long long)r.invocations,
			       l->maxStorageBufferRange);
	if (r.n_elems > UINT32_MAX)
		return ax_errf(why, whylen, AX_EINVAL,
			       "roofline: %llu elements exceed the kernel's "
			       "32-bit index; lower size",
			       (unsigned long long)r.n_elems);
	return 0;
}

struct rl_state {
	struct rl_point pt;
	struct ax_vk_ctx *vk;
	struct ax_vk_buffer src, out;
	struct ax_vk_pipeline pipe;
	uint8_t *x; /* the input's lane values, 0..15 */
};

static const char *rl_shader_name(enum rl_type t)
{
	return t == RL_F64   ? "roofline_f64"
	       : t == RL_F16 ? "roofline_f16"
			     : "roofline";
}

static void rl_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct rl_state *s = state;
	if (!s)
		return;
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->src);
	ax_vk_buffer_destroy(vk, &s->out);
	free(s->x);
	free(s);
}

/* IEEE half of a small non-negative integer (0..15): exact. */
static uint16_t half_of_small(unsigned v)
{
	if (v == 0)
		return 0;
	int e = 0;
	while ((v >> (e + 1)) != 0)
		e++;
	/* v = 1.m * 2^e: mantissa is v's bits below the top one. */
	unsigned m = (v - (1u << e)) << (10 - e);
	return (uint16_t)(((unsigned)(e + 15) << 10) | m);
}

/* The input: random integers 0..15 per lane, in the type's format. */
static int rl_input(struct rl_state *s)
{
	uint64_t lanes = s->pt.n_elems * 4;
	size_t bytes = (size_t)(lanes * s->pt.lane_bytes);
	uint32_t *words = malloc((size_t)((lanes + 3) / 4) * 4);
	void *host = malloc(bytes);
	s->x = malloc((size_t)lanes);
	int rc = words && host && s->x ? 0 : AX_ENOMEM;
	if (!rc) {
		ax_vk_fill_random_words(words, (size_t)((lanes + 3) / 4), 11);
		const uint8_t *b = (const uint8_t *)words;
		for (uint64_t i = 0; i < lanes; i++) {
			unsigned v = b[i] & 15u;
			s->x[i] = (uint8_t)v;
			if (s->pt.type == RL_F64)
				((double *)host)[i] = v;
			else if (s->pt.type == RL_F16)
				((uint16_t *)host)[i] = half_of_small(v);
			else
				((float *)host)[i] = (float)v;
		}
		rc = ax_vk_upload(s->vk, &s->src, 0, host, bytes);
	}
	free(words);
	free(host);
	return rc;
}

static int rl_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		    void **state, char *err, size_t errlen)
{
	struct rl_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	rl_point(p, &s->pt);
	s->vk = vk;
	const VkBufferUsageFlags ssbo = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	uint64_t in_bytes = s->pt.n_elems * 4 * s->pt.lane_bytes;
	uint64_t out_bytes = s->pt.invocations * s->pt.sum_bytes;
	int rc =
	    ax_vk_buffer_create(vk, in_bytes, ssbo, AX_MEM_DEVICE, &s->src);
	if (!rc)
		rc = ax_vk_buffer_create(vk, out_bytes, ssbo, AX_MEM_DEVICE,
					 &s->out);
	if (!rc)
		rc = rl_input(s);
	struct ax_vk_spec spec[AX_MAX_PARAMS];
	int n = ax_suite_spec(p, spec);
	if (!rc)
		rc = ax_vk_pipeline_create(vk, rl_shader_name(s->pt.type), 2,
					   12, spec, n, &s->pipe);
	if (!rc) {
		struct ax_vk_binding b[2] = {{&s->src, 0, 0}, {&s->out, 0, 0}};
		rc = ax_vk_pipeline_bind(vk, &s->pipe, b, 2);
	}
	if (rc) {
		ax_errf(err, errlen, rc, "roofline setup: %s",
			vk->err[0] ? vk->err : ax_strerror(rc));
		rl_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

static void rl_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct rl_state *s = state;
	struct {
		uint32_t n;
		int32_t a, b;
	} push = {(uint32_t)s->pt.n_elems, -1, RL_ADDEND};
	for (uint32_t r = 0; r < reps; r++) {
		if (r)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &s->pipe, &push, s->pt.groups, 1, 1);
	}
}

/* Invocation g's sum: the lane values of the elements g, g + stride,
 * ... after fma steps of x -> 3 - x. */
static double *rl_expected(const struct rl_state *s)
{
	uint64_t inv = s->pt.invocations;
	double *want = calloc((size_t)inv, sizeof(double));
	if (!want)
		return NULL;
	bool odd = s->pt.fma % 2;
	for (uint64_t i = 0; i < s->pt.n_elems * 4; i++) {
		double x = s->x[i];
		want[(i / 4) % inv] += odd ? RL_ADDEND - x : x;
	}
	return want;
}

static int rl_verify(void *state, char *why, size_t whylen)
{
	struct rl_state *s = state;
	uint64_t n = s->pt.invocations;
	void *got = malloc((size_t)(n * s->pt.sum_bytes));
	double *want = rl_expected(s);
	int rc = got && want ? 0 : AX_ENOMEM;
	if (!rc)
		rc = ax_vk_download(s->vk, &s->out, 0, got,
				    (size_t)(n * s->pt.sum_bytes));
	if (rc && rc != AX_ENOMEM)
		ax_errf(why, whylen, rc, "roofline: reading the sums: %s",
			s->vk->err);
	for (uint64_t i = 0; !rc && i < n; i++) {
		double v = s->pt.sum_bytes == 8 ? ((const double *)got)[i]
						: ((const float *)got)[i];
		if (v != want[i])
			rc = ax_errf(why, whylen, AX_EVERIFY,
				     "roofline %s fma=%u: invocation %llu "
				     "summed %.9g, expected %.9g",
				     rl_types[s->pt.type], s->pt.fma,
				     (unsigned long long)i, v, want[i]);
	}
	free(got);
	free(want);
	return rc;
}

static double rl_work(const struct ax_params *p)
{
	struct rl_point r;
	rl_point(p, &r);
	return (double)r.n_elems * 4.0 * (2.0 * r.fma + 1.0);
}

static double rl_bytes(const struct ax_params *p)
{
	struct rl_point r;
	rl_point(p, &r);
	return (double)r.n_elems * 4.0 * r.lane_bytes +
	       (double)r.invocations * r.sum_bytes;
}

static const char *rl_shader(const struct ax_params *p)
{
	struct rl_point r;
	rl_point(p, &r);
	return rl_shader_name((enum rl_type)r.type);
}

static const char *const rl_curve_group[] = {"type", NULL};
static const struct ax_suite_curve rl_curve = {
    "fma", rl_curve_group, "Rate against multiply-adds per element",
    "multiply-adds per lane of each element"};

const struct ax_suite ax_suite_roofline = {
    .name = "roofline",
    .summary = "the measured roofline: a stream whose multiply-adds per "
	       "element (the arithmetic intensity) is a parameter; a sweep "
	       "of fma gives the ridge point",
    .work_model = "GFLOP/s = elements*4*(2*fma + 1) / time / 1e9; bytes "
		  "= the input once + the partial sums (intensity = "
		  "work / bytes)",
    .unit = "GFLOP/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = rl_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct rl_point),
    .check = rl_check,
    .setup = rl_setup,
    .record = rl_record,
    .verify = rl_verify,
    .work = rl_work,
    .bytes = rl_bytes,
    .roles = AX_ROLE_ROOFLINE,
    .curve = &rl_curve,
    .shader = rl_shader,
    .teardown = rl_teardown,
};
