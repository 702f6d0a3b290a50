/*
 * suites/bandwidth.c - device-memory bandwidth: read, write and copy
 * kernels, and vkCmdCopyBuffer device to device ("dma").
 *
 * Work model: bytes read + bytes written per repetition.  read moves the
 * working set once plus one 4-byte partial sum per invocation (written so
 * the loads cannot be optimised away, and checked); write and copy move the
 * working set; copy and dma read half of it and write the other half.
 * Buffers hold random data: zeros and untouched pages inflate figures.
 */
#include "core/error.h"
#include "suites/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum bw_op { BW_READ, BW_WRITE, BW_COPY, BW_DMA };
static const char *const bw_ops[] = {"read", "write", "copy", "dma", NULL};

/* One point: the table binds op, size and the knobs; the rest is derived
 * in bw_point(). */
struct bw_point {
	uint32_t op;		  /* enum bw_op */
	uint64_t size, buf_bytes; /* working set; bytes per buffer */
	uint32_t vec, wg, epi;
	uint32_t n_elems, stride; /* elements of vec words; invocations */
	uint32_t gx, gy;
};

static const struct ax_param_def bw_params[] = {
    {"op", AX_PT_ENUM, 0, 0, bw_ops, BW_COPY, AX_PARAM_SHAPE,
     "read, write or copy kernel, or dma (vkCmdCopyBuffer)",
     AX_KNOB(struct bw_point, op, 3)},
    {"size", AX_PT_INT, 4096, 1LL << 40, NULL, 64LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "working set in bytes (copy/dma: source + destination)",
     AX_FIELD(struct bw_point, size)},
    {"vec", AX_PT_INT, 1, 4, NULL, 4, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "32-bit words per load/store (1, 2 or 4)",
     AX_KNOB(struct bw_point, vec, 1)},
    {"wg", AX_PT_INT, 32, 1024, NULL, 256, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "workgroup size", AX_KNOB(struct bw_point, wg, 0)},
    {"epi", AX_PT_INT, 1, 64, NULL, 4, AX_PARAM_TUNABLE | AX_PARAM_POW2,
     "elements per invocation", AX_KNOB(struct bw_point, epi, 2)},
};
#define N_PARAMS ((int)(sizeof(bw_params) / sizeof(bw_params[0])))

static void bw_point(const struct ax_params *p, struct bw_point *b)
{
	memset(b, 0, sizeof(*b));
	ax_params_store(p, b);
	b->buf_bytes = b->op >= BW_COPY ? b->size / 2 : b->size;
	uint64_t elems = b->buf_bytes / (4ull * b->vec);
	b->n_elems = elems > UINT32_MAX ? UINT32_MAX : (uint32_t)elems;
	b->stride = (uint32_t)((b->n_elems + b->epi - 1) / b->epi);
	uint64_t groups = (b->stride + b->wg - 1) / b->wg;
	b->gx = groups > 65535 ? 65535 : (uint32_t)groups;
	b->gy = (uint32_t)((groups + b->gx - 1) / b->gx);
}

static int bw_check(const struct ax_params *p,
		    const struct ax_vk_device_info *dev, char *why,
		    size_t whylen)
{
	struct bw_point b;
	bw_point(p, &b);
	const VkPhysicalDeviceLimits *l = &dev->limits;
	if (b.wg > l->maxComputeWorkGroupInvocations ||
	    b.wg > l->maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "bandwidth: wg=%u exceeds the device's "
			       "workgroup limit %u",
			       b.wg, l->maxComputeWorkGroupInvocations);
	uint64_t range = b.op == BW_DMA ? dev->max_memory_allocation_size
					: l->maxStorageBufferRange;
	if (b.buf_bytes > range)
		return ax_errf(
		    why, whylen, AX_EINVAL,
		    "bandwidth: size=%llu needs %llu-byte buffers, "
		    "over the device's %s %llu; use size <= %llu",
		    (unsigned long long)b.size, (unsigned long long)b.buf_bytes,
		    b.op == BW_DMA ? "maxMemoryAllocationSize"
				   : "maxStorageBufferRange",
		    (unsigned long long)range,
		    (unsigned long long)(b.op >= BW_COPY ? range * 2 : range));
	if (b.gy > l->maxComputeWorkGroupCount[1])
		return ax_errf(why, whylen, AX_EINVAL,
			       "bandwidth: %u x %u workgroups exceed the "
			       "device's dispatch limit; raise wg or epi",
			       b.gx, b.gy);
	return 0;
}

struct bw_state {
	struct bw_point pt;
	struct ax_vk_buffer src, dst, sums;
	struct ax_vk_pipeline pipe;
	uint32_t seed;
	uint32_t *host_src; /* what src holds, for verification */
	struct ax_vk_ctx *vk;
};

static void bw_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct bw_state *s = state;
	if (!s)
		return;
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->src);
	ax_vk_buffer_destroy(vk, &s->dst);
	ax_vk_buffer_destroy(vk, &s->sums);
	free(s->host_src);
	free(s);
}

static int bw_buffers(struct ax_vk_ctx *vk, struct bw_state *s)
{
	const VkBufferUsageFlags ssbo = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	uint64_t bytes = s->pt.buf_bytes;
	int rc = 0;
	if (s->pt.op != BW_WRITE) {
		rc = ax_vk_buffer_create(vk, bytes, ssbo, AX_MEM_DEVICE,
					 &s->src);
		s->host_src = malloc(bytes);
		if (!rc && !s->host_src)
			rc = AX_ENOMEM;
		if (!rc) {
			ax_vk_fill_random_words(s->host_src, bytes / 4, 42);
			rc = ax_vk_upload(vk, &s->src, 0, s->host_src, bytes);
		}
	}
	if (!rc && s->pt.op != BW_READ)
		rc = ax_vk_buffer_create(vk, bytes, ssbo, AX_MEM_DEVICE,
					 &s->dst);
	if (!rc)
		rc = ax_vk_buffer_create(vk, 4ull * (s->pt.stride + 1), ssbo,
					 AX_MEM_DEVICE, &s->sums);
	return rc;
}

static int bw_pipeline(struct ax_vk_ctx *vk, struct bw_state *s,
		       const struct ax_params *p)
{
	const struct bw_point *b = &s->pt;
	struct ax_vk_spec spec[AX_MAX_PARAMS];
	int n = ax_suite_spec(p, spec);
	int rc =
	    ax_vk_pipeline_create(vk, "bandwidth", 7, 12, spec, n, &s->pipe);
	if (rc)
		return rc;
	/* Unused bindings point at a valid buffer: the sums buffer. */
	const struct ax_vk_buffer *src = b->op == BW_WRITE ? &s->sums : &s->src;
	const struct ax_vk_buffer *dst = b->op == BW_READ ? &s->sums : &s->dst;
	struct ax_vk_binding bind[7] = {
	    {src, 0, 0}, {src, 0, 0}, {src, 0, 0},	{dst, 0, 0},
	    {dst, 0, 0}, {dst, 0, 0}, {&s->sums, 0, 0},
	};
	return ax_vk_pipeline_bind(vk, &s->pipe, bind, 7);
}

static int bw_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		    void **state, char *err, size_t errlen)
{
	struct bw_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	bw_point(p, &s->pt);
	s->vk = vk;
	s->seed = 0x5eed1234u;
	int rc = bw_buffers(vk, s);
	if (!rc && s->pt.op != BW_DMA)
		rc = bw_pipeline(vk, s, p);
	if (rc) {
		ax_errf(err, errlen, rc, "bandwidth setup: %s",
			vk->err[0] ? vk->err : ax_strerror(rc));
		bw_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

static void bw_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct bw_state *s = state;
	struct {
		uint32_t n_elems, stride, seed;
	} push = {s->pt.n_elems, s->pt.stride, s->seed};
	VkBufferCopy region = {.size = s->pt.buf_bytes};
	for (uint32_t r = 0; r < reps; r++) {
		/* Each repetition completes before the next: back-to-back
		 * dispatches of the same work must not overlap. */
		if (r)
			ax_vk_cmd_barrier(cb);
		if (s->pt.op == BW_DMA)
			vkCmdCopyBuffer(cb, s->src.buf, s->dst.buf, 1, &region);
		else
			ax_vk_cmd_dispatch(cb, &s->pipe, &push, s->pt.gx,
					   s->pt.gy, 1);
	}
}

/* Partial sum of invocation t, exactly as the shader computes it. */
static uint32_t expected_sum(const struct bw_state *s, uint32_t t)
{
	uint32_t acc = 0;
	for (uint32_t e = 0; e < s->pt.epi; e++) {
		uint64_t i = t + (uint64_t)e * s->pt.stride;
		if (i >= s->pt.n_elems)
			break;
		for (uint32_t w = 0; w < s->pt.vec; w++)
			acc += s->host_src[i * s->pt.vec + w];
	}
	return acc;
}

static int verify_words(const uint32_t *got, uint64_t n_words,
			const struct bw_state *s, char *why, size_t whylen)
{
	for (uint64_t w = 0; w < n_words; w++) {
		uint32_t want;
		if (s->pt.op == BW_READ)
			want = expected_sum(s, (uint32_t)w);
		else if (s->pt.op == BW_WRITE)
			want = ((uint32_t)w * 2654435761u) ^ s->seed;
		else
			want = s->host_src[w];
		if (got[w] != want)
			return ax_errf(why, whylen, AX_EVERIFY,
				       "bandwidth %s: word %llu is 0x%08x, "
				       "expected 0x%08x",
				       bw_ops[s->pt.op], (unsigned long long)w,
				       got[w], want);
	}
	return 0;
}

static int bw_verify(void *state, char *why, size_t whylen)
{
	struct bw_state *s = state;
	uint64_t n_words;
	if (s->pt.op == BW_READ)
		n_words = s->pt.stride;
	else if (s->pt.op == BW_DMA)
		n_words = s->pt.buf_bytes / 4;
	else /* kernels move whole elements only */
		n_words = (uint64_t)s->pt.n_elems * s->pt.vec;
	struct ax_vk_buffer *out = s->pt.op == BW_READ ? &s->sums : &s->dst;
	uint32_t *got = malloc(n_words * 4);
	if (!got)
		return AX_ENOMEM;
	int rc = ax_vk_download(s->vk, out, 0, got, n_words * 4);
	if (rc)
		ax_errf(why, whylen, rc, "bandwidth: reading the output: %s",
			s->vk->err);
	else
		rc = verify_words(got, n_words, s, why, whylen);
	free(got);
	return rc;
}

static double bw_work(const struct ax_params *p)
{
	struct bw_point b;
	bw_point(p, &b);
	if (b.op == BW_READ)
		return (double)b.size + 4.0 * b.stride;
	return (double)b.size;
}

static const char *bw_shader(const struct ax_params *p)
{
	struct bw_point b;
	bw_point(p, &b);
	return b.op == BW_DMA ? NULL : "bandwidth";
}

static json_t *bw_describe(void *state)
{
	struct bw_state *s = state;
	return json_pack("{s:I,s:i,s:[i,i]}", "buffer_bytes",
			 (json_int_t)s->pt.buf_bytes, "invocations",
			 (int)s->pt.stride, "workgroups", (int)s->pt.gx,
			 (int)s->pt.gy);
}

static const char *const bw_curve_group[] = {"op", NULL};
static const struct ax_suite_curve bw_curve = {
    "size", bw_curve_group, "Bandwidth against working-set size",
    "working set (bytes)"};
static const struct ax_suite_need bw_needs[] = {{NULL, 1}, {NULL, 0}};

const struct ax_suite ax_suite_bandwidth = {
    .name = "bandwidth",
    .summary = "device-memory read/write/copy kernels and "
	       "vkCmdCopyBuffer, across working-set sizes",
    .work_model = "GB/s = (bytes read + bytes written) / time / 1e9; "
		  "copy and dma read half the working set and write the "
		  "other half; read also writes one 4-byte checked sum "
		  "per invocation, which is counted",
    .unit = "GB/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = bw_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct bw_point),
    .check = bw_check,
    .setup = bw_setup,
    .record = bw_record,
    .verify = bw_verify,
    .work = bw_work,
    .bytes = bw_work, /* the bytes the kernel moves are its work */
    .roles = AX_ROLE_BANDWIDTH_PEAK | AX_ROLE_WORKLOAD,
    .curve = &bw_curve,
    .recommend_needs = bw_needs,
    .shader = bw_shader,
    .describe = bw_describe,
    .teardown = bw_teardown,
};
