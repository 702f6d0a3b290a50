/*
 * suites/peak.c - the arithmetic ceiling: chains of dependent
 * multiply-adds in several independent vec4 accumulators per invocation,
 * over enough workgroups to fill the device (shaders/peak.comp).
 *
 * Work model: groups * wg * iters * acc * 4 lanes * 2 operations (one
 * multiply and one add, fused for floats; dot4: 8, a four-element int8
 * dot product and its accumulate).  The unit is GFLOP/s for every type;
 * for the integer types read it as giga integer operations per second
 * (GIOP/s).  Reports use the f32 figure as "% of measured peak".
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

/* The order is the stored enum's: new types go at the end. */
enum peak_type {
	PEAK_F32,
	PEAK_F16,
	PEAK_I32,
	PEAK_F64,
	PEAK_F16X2,
	PEAK_I64,
	PEAK_I16,
	PEAK_I8,
	PEAK_DOT4,
	PEAK_BF16,
	PEAK_FP8,
	PEAK_MATRIX,
	PEAK_N_TYPES
};
static const char *const peak_types[] = {
    "f32", "f16",  "i32",  "f64", "f16x2",  "i64", "i16",
    "i8",  "dot4", "bf16", "fp8", "matrix", NULL};

/* Operations per lane and chain step: a multiply-add is 2; dot4's step
 * is a four-element int8 dot product added to the lane, 4 multiplies and
 * 4 adds (as vkpeak and the vendors count int8 dot rates). */
static double peak_ops_per_step(enum peak_type t)
{
	return t == PEAK_DOT4 ? 8.0 : 2.0;
}

/* dot4's operands: four packed int8 each, lowest byte first:
 * (1, 1, 1, 1) . (1, 1, -1, 0) = 1, so every lane gains 1 per step. */
#define PEAK_DOT4_A 0x01010101
#define PEAK_DOT4_B 0x00ff0101

struct peak_point {
	uint32_t type; /* enum peak_type */
	uint32_t iters, trips, groups, wg, acc;
	uint32_t cm_m, cm_n, cm_k; /* type=matrix: one matrix's shape */
	uint64_t invocations;
	uint64_t words; /* output words: one per invocation, or per element
			   of matrix's accumulators */
};

/* type=matrix: the tiles are its knobs alone (core/params.h, `when`). */
#define PEAK_MATRIX_ONLY "type=matrix"
#define PEAK_CM_KNOB (AX_PARAM_TUNABLE | AX_PARAM_POW2)

static const struct ax_param_def peak_params[] = {
    {"type", AX_PT_ENUM, 0, 0, peak_types, PEAK_F32, AX_PARAM_SHAPE,
     "arithmetic: f32, f16 (f16vec4), f16x2 (f16vec2 pairs, the packed "
     "shape) or f64 fma; i64, i32, i16 or i8 multiply-add; dot4, int8 "
     "dot products of four (VK_KHR_shader_integer_dot_product); matrix, "
     "fp16 tensor cores with fp32 accumulation (VK_NV_cooperative_matrix; "
     "cm_m x cm_n x cm_k a shape the device lists); bf16 and fp8 are "
     "named so that they are skipped with the reason",
     AX_FIELD(struct peak_point, type)},
    {"iters", AX_PT_INT, 8, 1 << 24, NULL, 4096, AX_PARAM_SHAPE,
     "chain length per accumulator (rounded up to a multiple of 8)",
     AX_FIELD(struct peak_point, iters)},
    {"groups", AX_PT_INT, 1, 65535, NULL, 256, AX_PARAM_TUNABLE,
     "workgroups per dispatch", AX_FIELD(struct peak_point, groups)},
    {"wg", AX_PT_INT, 1, 1024, NULL, 64, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup size", AX_KNOB(struct peak_point, wg, 0)},
    {"acc", AX_PT_INT, 1, 16, NULL, 8, AX_PARAM_TUNABLE,
     "independent vec4 accumulators per invocation (type=matrix: "
     "accumulator matrices per subgroup)",
     AX_KNOB(struct peak_point, acc, 1)},
    {"cm_m", AX_PT_INT, 8, 32, NULL, 16, PEAK_CM_KNOB,
     "rows (M) of one cooperative matrix (axbench devices lists the "
     "shapes)",
     AX_KNOB(struct peak_point, cm_m, 3), .when = PEAK_MATRIX_ONLY},
    {"cm_n", AX_PT_INT, 8, 32, NULL, 16, PEAK_CM_KNOB,
     "columns (N) of one cooperative matrix",
     AX_KNOB(struct peak_point, cm_n, 4), .when = PEAK_MATRIX_ONLY},
    {"cm_k", AX_PT_INT, 8, 32, NULL, 16, PEAK_CM_KNOB,
     "depth (K) of one cooperative matrix", AX_KNOB(struct peak_point, cm_k, 5),
     .when = PEAK_MATRIX_ONLY},
};
#define N_PARAMS ((int)(sizeof(peak_params) / sizeof(peak_params[0])))

static void peak_point(const struct ax_params *p, struct peak_point *k)
{
	memset(k, 0, sizeof(*k));
	ax_params_store(p, k);
	k->trips =
	    (uint32_t)(((uint64_t)k->iters + PEAK_UNROLL - 1) / PEAK_UNROLL);
	k->invocations = (uint64_t)k->groups * k->wg;
	k->words = k->invocations;
	/* matrix: one subgroup a workgroup, acc matrices each. */
	if (k->type == PEAK_MATRIX)
		k->words = (uint64_t)k->groups * k->acc * k->cm_m * k->cm_n;
}

/* The device feature a type needs, NULL where it has it. */
static const char *peak_missing(enum peak_type t,
				const struct ax_vk_device_info *dev)
{
	switch (t) {
	case PEAK_F16:
		return !dev->fp16_arith	 ? "shaderFloat16"
		       : !dev->storage16 ? "16-bit storage buffers"
					 : NULL;
	case PEAK_F16X2:
		return dev->fp16_arith ? NULL : "shaderFloat16";
	case PEAK_F64:
		return dev->fp64_arith ? NULL : "shaderFloat64";
	case PEAK_I64:
		return dev->int64_arith ? NULL : "shaderInt64";
	case PEAK_I16:
		return dev->int16_arith ? NULL : "shaderInt16";
	case PEAK_I8:
		return dev->int8_arith ? NULL : "shaderInt8";
	case PEAK_DOT4:
		return dev->int_dot ? NULL
				    : "shaderIntegerDotProduct "
				      "(VK_KHR_shader_integer_dot_product)";
	default:
		return NULL;
	}
}

/* bf16 and fp8 have no scalar arithmetic in GLSL at all (GL_EXT_bfloat16
 * and GL_EXT_float8 give them conversions, dot products and cooperative
 * matrices only), and Debian 12's glslang 11.13 knows neither
 * extension: there is no chain of multiply-adds to build, so they are
 * skipped on every device, with the reason. */
static const char *peak_not_built(enum peak_type t)
{
	if (t == PEAK_BF16)
		return "peak type=bf16 is not built: bfloat16 has no GLSL "
		       "arithmetic to chain (GL_EXT_bfloat16, glslang 15.3+, "
		       "gives it conversions, dot products and cooperative "
		       "matrices only); its rate is a matrix rate";
	if (t == PEAK_FP8)
		return "peak type=fp8 is not built: fp8 has no GLSL "
		       "arithmetic to chain (GL_EXT_float8, glslang 15.4+, "
		       "gives it conversions and cooperative matrices only); "
		       "its rate is a matrix rate";
	return NULL;
}

/* type=matrix needs the extension, what its shader declares, and the
 * shape among those the device lists: skipped without them. */
static int peak_check_matrix(const struct peak_point *k,
			     const struct ax_vk_device_info *dev, char *why,
			     size_t whylen)
{
	if (!dev->coopmat_nv)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "peak type=matrix: %s lists no cooperative-"
			       "matrix shape (%s)",
			       dev->name, ax_vk_coopmat_absent(dev));
	if (!dev->vulkan_memory_model || !dev->fp16_arith)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "peak type=matrix: %s lacks %s, which the "
			       "shader needs",
			       dev->name,
			       dev->fp16_arith ? "vulkanMemoryModel"
					       : "shaderFloat16");
	if (!ax_vk_coopmat_nv_lists(dev, k->cm_m, k->cm_n, k->cm_k, false)) {
		char shapes[512];
		ax_vk_coopmat_nv_shapes_text(dev, shapes, sizeof(shapes));
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "peak type=matrix: %s lists no shape %ux%ux%u "
			       "with f16 A and B and f32 C at subgroup scope; "
			       "it lists: %s",
			       dev->name, k->cm_m, k->cm_n, k->cm_k,
			       shapes[0] ? shapes : "none");
	}
	return 0;
}

static int peak_check(const struct ax_params *p,
		      const struct ax_vk_device_info *dev, char *why,
		      size_t whylen)
{
	struct peak_point k;
	peak_point(p, &k);
	if (k.type == PEAK_MATRIX) {
		int rc = peak_check_matrix(&k, dev, why, whylen);
		if (rc)
			return rc;
	}
	const char *absent = peak_not_built((enum peak_type)k.type);
	if (absent)
		return ax_errf(why, whylen, AX_EUNSUPPORTED, "%s", absent);
	const char *missing = peak_missing((enum peak_type)k.type, dev);
	if (missing)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "peak type=%s: %s lacks %s", peak_types[k.type],
			       dev->name, missing);
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
	if (k.words * 4 > l->maxStorageBufferRange)
		return ax_errf(why, whylen, AX_EINVAL,
			       "peak: %llu output words exceed "
			       "maxStorageBufferRange %u",
			       (unsigned long long)k.words,
			       l->maxStorageBufferRange);
	return 0;
}

struct peak_state {
	struct peak_point k;
	struct ax_vk_ctx *vk;
	struct ax_vk_buffer out;
	struct ax_vk_pipeline pipe;
};

/* The build of shaders/peak.comp for type t (shaders/variants.mk). */
static const char *peak_shader_name(enum peak_type t)
{
	static const char *const names[PEAK_N_TYPES] = {
	    [PEAK_F32] = "peak",	 [PEAK_F16] = "peak_f16",
	    [PEAK_I32] = "peak_i32",	 [PEAK_F64] = "peak_f64",
	    [PEAK_F16X2] = "peak_f16x2", [PEAK_I64] = "peak_i64",
	    [PEAK_I16] = "peak_i16",	 [PEAK_I8] = "peak_i8",
	    [PEAK_DOT4] = "peak_dot4",	 [PEAK_MATRIX] = "peak_matrix",
	};
	/* bf16 and fp8 never get this far (peak_check); "peak" keeps
	 * the name lookup total. */
	return t < PEAK_N_TYPES && names[t] ? names[t] : "peak";
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
	uint64_t bytes = (s->k.words * 4 + 15) & ~15ull;
	struct ax_vk_spec spec[AX_MAX_PARAMS + 1];
	int n = ax_suite_spec(p, spec);
	/* matrix: a workgroup is one subgroup (its local size is the
	 * device's subgroup size, not wg), so the work needs no device. */
	for (int i = 0; s->k.type == PEAK_MATRIX && i < n; i++)
		if (spec[i].id == 0)
			spec[i].value = vk->info->subgroup_size;
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
	if (s->k.type == PEAK_DOT4) {
		push.a = (int32_t)PEAK_DOT4_A;
		push.b = (int32_t)PEAK_DOT4_B;
	}
	if (s->k.type == PEAK_MATRIX)
		push.a = 1; /* A = +-1, B = 1, C starts at PEAK_ADDEND */
	for (uint32_t r = 0; r < reps; r++) {
		if (r)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &s->pipe, &push, s->k.groups, 1, 1);
	}
}

/* What invocation g writes: the sum over its accumulators' lanes of the
 * start value x0 (even chain length) or 3 - x0 (odd); for dot4, of
 * x0 + steps (a . b = 1). */
static double peak_expected(const struct peak_point *k, uint64_t g)
{
	uint64_t steps = (uint64_t)k->trips * PEAK_UNROLL;
	double sum = 0;
	for (uint32_t l = 0; l < 4 * k->acc; l++) {
		double x0 = (double)((g + l) % 16);
		if (k->type == PEAK_DOT4)
			sum += x0 + (double)steps;
		else
			sum += steps % 2 ? PEAK_ADDEND - x0 : x0;
	}
	return sum;
}

static bool peak_is_float(enum peak_type t)
{
	return t == PEAK_F32 || t == PEAK_F16 || t == PEAK_F16X2 ||
	       t == PEAK_F64;
}

/* Widen word i of the output to double. */
static double peak_value(enum peak_type t, const void *buf, uint64_t i)
{
	if (!peak_is_float(t))
		return (double)((const int32_t *)buf)[i];
	if (t != PEAK_F16)
		return (double)((const float *)buf)[i];
	uint16_t h = ((const uint16_t *)buf)[i];
	/* Small integers only: exponent and mantissa suffice. */
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e ? (1024.0 + m) * (double)(1u << e) / (1u << 25)
		     : m / (double)(1u << 24);
	return h & 0x8000 ? -v : v;
}

/* matrix: every element of every accumulator ends at c0 + K (a pair of
 * steps adds and takes back K; one last step adds it). */
static int peak_verify_matrix(const struct peak_state *s, const float *got,
			      char *why, size_t whylen)
{
	double want = PEAK_ADDEND + (double)s->k.cm_k;
	for (uint64_t i = 0; i < s->k.words; i++)
		if (got[i] != want)
			return ax_errf(why, whylen, AX_EVERIFY,
				       "peak matrix %ux%ux%u: element %llu is "
				       "%.9g, expected %.9g",
				       s->k.cm_m, s->k.cm_n, s->k.cm_k,
				       (unsigned long long)i, (double)got[i],
				       want);
	return 0;
}

static int peak_verify(void *state, char *why, size_t whylen)
{
	struct peak_state *s = state;
	uint64_t n = s->k.words;
	size_t es = s->k.type == PEAK_F16 ? 2 : 4;
	void *buf = malloc(n * es);
	if (!buf)
		return AX_ENOMEM;
	int rc = ax_vk_download(s->vk, &s->out, 0, buf, n * es);
	if (rc)
		ax_errf(why, whylen, rc, "peak: reading the output: %s",
			s->vk->err);
	if (!rc && s->k.type == PEAK_MATRIX)
		rc = peak_verify_matrix(s, buf, why, whylen);
	for (uint64_t g = 0; !rc && s->k.type != PEAK_MATRIX && g < n; g++) {
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
	if (k.type == PEAK_MATRIX) /* 2*M*N*K a step, the last one too */
		return (double)k.groups * k.acc *
		       ((double)k.trips * PEAK_UNROLL + 1) * 2.0 * k.cm_m *
		       k.cm_n * k.cm_k;
	return (double)k.invocations * k.trips * PEAK_UNROLL * k.acc * 4.0 *
	       peak_ops_per_step((enum peak_type)k.type);
}

static const char *peak_shader(const struct ax_params *p)
{
	struct peak_point k;
	peak_point(p, &k);
	return peak_shader_name((enum peak_type)k.type);
}

const struct ax_suite ax_suite_peak = {
    .name = "peak",
    .summary = "arithmetic ceiling per precision: dependent "
	       "multiply-add chains in independent 4-lane accumulators "
	       "(f32 f16 f16x2 f64 i64 i32 i16 i8, int8 dot4), and fp16 "
	       "tensor cores (matrix)",
    .work_model = "GFLOP/s = groups*wg*iters*acc*4*2 / time / 1e9 "
		  "(multiply + add = 2 operations; dot4: *8, a 4-element "
		  "int8 dot product and its add; for integer types the "
		  "unit counts integer operations); matrix: groups (one "
		  "subgroup each)*acc*(iters+1)*2*cm_m*cm_n*cm_k",
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
