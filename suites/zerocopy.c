/*
 * suites/zerocopy.c - a kernel on data that starts and ends in host
 * memory: staged (copied into device memory, the kernel, copied back) or
 * zero-copy (the kernel reads and writes the host memory in place).
 *
 * The application's input is `size` bytes in host memory, and it wants
 * the output there too.  One repetition is the whole way:
 *   path=staged  memcpy the input into a staging buffer, copy it into
 *                device-local memory, the kernel's passes, copy the
 *                output into a read-back buffer, memcpy it out;
 *   path=host    the data lives in host-visible system memory Vulkan
 *                allocated (the application wrote it there), bound as
 *                storage buffers: the passes alone;
 *   path=import  the data lives in the application's own allocation
 *                (aligned_alloc), imported with VK_EXT_external_memory_
 *                host: the passes alone, no Vulkan allocation at all.
 * The access pattern decides which wins, which is what this suite is for:
 *   pattern=once    one pass reading every word once;
 *   pattern=reuse   `reads` passes over every word (an iterative kernel:
 *                   zero-copy crosses the bus each pass, staging once);
 *   pattern=sparse  one pass reading one word every `stride` bytes
 *                   (staging copies all of it, zero-copy only what is
 *                   read).
 * shaders/zerocopy.comp folds each pass into the output, so a skipped
 * pass or a stale read fails the check against the CPU's fold.
 *
 * Work model: the bytes of input the kernel reads per repetition (passes
 * x words read x 4): the same for every path of one pattern and size, so
 * the paths' figures compare as speeds of one job.
 */
#include "core/error.h"
#include "suites/suite.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum zc_pattern { ZC_ONCE, ZC_REUSE, ZC_SPARSE };
enum zc_path { ZC_STAGED, ZC_HOST, ZC_IMPORT };

static const char *const zc_patterns[] = {"once", "reuse", "sparse", NULL};
static const char *const zc_paths[] = {"staged", "host", "import", NULL};

#define ZC_READS_DEFAULT 8
#define ZC_STRIDE_DEFAULT 256
#define ZC_WG 256
#define ZC_MAX_GROUPS 4096u

struct zc_point {
	enum zc_pattern pattern;
	enum zc_path path;
	uint64_t size;
	uint32_t reads, stride;
	/* derived in zc_point() */
	uint32_t passes, stride_words;
	uint64_t n_in, n_out; /* words */
};

static const struct ax_param_def zc_params[] = {
    {"pattern", AX_PT_ENUM, 0, 0, zc_patterns, ZC_ONCE, AX_PARAM_SHAPE,
     "once (every word read once), reuse (every word read `reads` "
     "times, one pass each) or sparse (one word every `stride` bytes)",
     AX_FIELD(struct zc_point, pattern)},
    {"path", AX_PT_ENUM, 0, 0, zc_paths, ZC_STAGED, AX_PARAM_SHAPE,
     "staged (copied to device memory and back), host (host-visible "
     "system memory read in place) or import (the application's "
     "allocation imported with VK_EXT_external_memory_host)",
     AX_FIELD(struct zc_point, path)},
    {"size", AX_PT_INT, 64LL << 10, 1LL << 30, NULL, 16LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "bytes of input in host memory", AX_FIELD(struct zc_point, size)},
    {"reads", AX_PT_INT, 2, 64, NULL, ZC_READS_DEFAULT, AX_PARAM_SHAPE,
     "pattern=reuse: passes over the data", AX_FIELD(struct zc_point, reads)},
    {"stride", AX_PT_INT, 8, 65536, NULL, ZC_STRIDE_DEFAULT,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "pattern=sparse: bytes from one word read to the next",
     AX_FIELD(struct zc_point, stride)},
};
#define N_PARAMS ((int)(sizeof(zc_params) / sizeof(zc_params[0])))

static void zc_point(const struct ax_params *p, struct zc_point *z)
{
	memset(z, 0, sizeof(*z));
	ax_params_store(p, z);
	z->n_in = z->size / 4;
	z->passes = z->pattern == ZC_REUSE ? z->reads : 1;
	z->stride_words = z->pattern == ZC_SPARSE ? z->stride / 4 : 1;
	z->n_out = z->n_in / z->stride_words;
}

static int zc_check(const struct ax_params *p,
		    const struct ax_vk_device_info *dev, char *why,
		    size_t whylen)
{
	struct zc_point z;
	zc_point(p, &z);
	if (z.pattern != ZC_REUSE && z.reads != ZC_READS_DEFAULT)
		return ax_errf(why, whylen, AX_EINVAL,
			       "zerocopy: reads applies to pattern=reuse "
			       "only; leave it out or add -p pattern=reuse");
	if (z.pattern != ZC_SPARSE && z.stride != ZC_STRIDE_DEFAULT)
		return ax_errf(why, whylen, AX_EINVAL,
			       "zerocopy: stride applies to pattern=sparse "
			       "only; leave it out or add -p pattern=sparse");
	if (z.stride_words > z.n_in)
		return ax_errf(why, whylen, AX_EINVAL,
			       "zerocopy: stride=%u is larger than size=%llu; "
			       "use a smaller stride",
			       z.stride, (unsigned long long)z.size);
	if (z.size > dev->limits.maxStorageBufferRange || z.n_in > UINT32_MAX)
		return ax_errf(why, whylen, AX_EINVAL,
			       "zerocopy: size=%llu is over the device's "
			       "maxStorageBufferRange %u; use a smaller size",
			       (unsigned long long)z.size,
			       dev->limits.maxStorageBufferRange);
	if (z.path == ZC_IMPORT && !dev->host_import)
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "zerocopy: path=import needs "
			       "VK_EXT_external_memory_host, which %s lacks",
			       dev->name);
	return 0;
}

struct zc_state {
	struct zc_point pt;
	struct ax_vk_ctx *vk;
	/* The application's data: malloc'd (staged), a Vulkan host
	 * mapping (host) or its own imported allocation (import). */
	uint32_t *app_in, *app_out;
	void *own_in, *own_out;	     /* what this suite allocated itself */
	uint32_t *expect;	     /* the CPU's fold of the passes */
	struct ax_vk_buffer in, out; /* what the kernel binds */
	struct ax_vk_buffer stage_in, stage_out; /* path=staged */
	struct ax_vk_pipeline pipe;
	struct ax_vk_slot slot;
	bool slot_ready;
	uint32_t groups;
};

static void zc_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct zc_state *s = state;
	if (!s)
		return;
	if (s->slot_ready)
		ax_vk_slot_release(vk, &s->slot);
	ax_vk_pipeline_destroy(vk, &s->pipe);
	ax_vk_buffer_destroy(vk, &s->in);
	ax_vk_buffer_destroy(vk, &s->out);
	ax_vk_buffer_destroy(vk, &s->stage_in);
	ax_vk_buffer_destroy(vk, &s->stage_out);
	/* Imported memory is freed after its buffers are gone; a lost
	 * device may still use it, so then it stays until exit. */
	if (!vk->lost) {
		free(s->own_in);
		free(s->own_out);
	}
	free(s->expect);
	free(s);
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* The application's buffers where the path keeps them. */
static int zc_alloc(struct zc_state *s)
{
	struct ax_vk_ctx *vk = s->vk;
	uint64_t in_b = s->pt.n_in * 4, out_b = s->pt.n_out * 4;
	VkBufferUsageFlags st = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	int rc = 0;
	switch (s->pt.path) {
	case ZC_STAGED:
		s->own_in = s->app_in = malloc(in_b);
		s->own_out = s->app_out = malloc(out_b);
		if (!s->app_in || !s->app_out)
			return AX_ENOMEM;
		rc = ax_vk_buffer_create(vk, in_b, st, AX_MEM_DEVICE, &s->in);
		if (!rc)
			rc = ax_vk_buffer_create(vk, out_b, st, AX_MEM_DEVICE,
						 &s->out);
		if (!rc)
			rc = ax_vk_buffer_create(vk, in_b, 0, AX_MEM_UPLOAD,
						 &s->stage_in);
		if (!rc)
			rc = ax_vk_buffer_create(vk, out_b, 0, AX_MEM_READBACK,
						 &s->stage_out);
		return rc;
	case ZC_HOST:
		rc = ax_vk_buffer_create(vk, in_b, st, AX_MEM_UPLOAD, &s->in);
		if (!rc)
			rc = ax_vk_buffer_create(vk, out_b, st, AX_MEM_READBACK,
						 &s->out);
		s->app_in = s->in.map;
		s->app_out = s->out.map;
		return rc;
	case ZC_IMPORT: {
		/* Address and size in whole units of the import alignment;
		 * the binding's range is the data's. */
		uint64_t a = vk->info->host_import_align;
		uint64_t in_a = round_up(in_b, a), out_a = round_up(out_b, a);
		s->own_in = s->app_in = aligned_alloc(a, in_a);
		s->own_out = s->app_out = aligned_alloc(a, out_a);
		if (!s->app_in || !s->app_out)
			return AX_ENOMEM;
		rc = ax_vk_buffer_import_host(vk, s->app_in, in_a, st, &s->in);
		if (!rc)
			rc = ax_vk_buffer_import_host(vk, s->app_out, out_a, st,
						      &s->out);
		return rc;
	}
	}
	return AX_EINVAL;
}

/* Random input, a poisoned output and the CPU's fold of the passes. */
static int zc_fill(struct zc_state *s)
{
	const struct zc_point *z = &s->pt;
	ax_vk_fill_random_words(s->app_in, z->n_in, 0x2e60c0ffULL);
	memset(s->app_out, 0xa5, z->n_out * 4);
	s->expect = malloc(z->n_out * 4);
	if (!s->expect)
		return AX_ENOMEM;
	for (uint64_t j = 0; j < z->n_out; j++) {
		uint32_t v = s->app_in[j * z->stride_words], acc = v;
		for (uint32_t r = 1; r < z->passes; r++)
			acc = acc * 3u + v;
		s->expect[j] = acc;
	}
	return 0;
}

static int zc_build(struct zc_state *s)
{
	int rc = zc_alloc(s);
	if (!rc)
		rc = zc_fill(s);
	if (!rc)
		rc = ax_vk_pipeline_create(s->vk, "zerocopy", 2, 12, NULL, 0,
					   &s->pipe);
	struct ax_vk_binding b[2] = {{&s->in, 0, s->pt.n_in * 4},
				     {&s->out, 0, s->pt.n_out * 4}};
	if (!rc)
		rc = ax_vk_pipeline_bind(s->vk, &s->pipe, b, 2);
	if (!rc)
		rc = ax_vk_slot_init(s->vk, false, &s->slot);
	s->slot_ready = rc == 0;
	uint64_t groups = (s->pt.n_out + ZC_WG - 1) / ZC_WG;
	s->groups = groups > ZC_MAX_GROUPS ? ZC_MAX_GROUPS : (uint32_t)groups;
	return rc;
}

static int zc_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		    void **state, char *err, size_t errlen)
{
	struct zc_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	zc_point(p, &s->pt);
	s->vk = vk;
	int rc = zc_build(s);
	if (rc) {
		ax_errf(err, errlen, rc, "zerocopy setup: %s",
			vk->err[0] ? vk->err : ax_strerror(rc));
		zc_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

static void record_passes(struct zc_state *s, VkCommandBuffer cb)
{
	for (uint32_t r = 0; r < s->pt.passes; r++) {
		uint32_t push[3] = {(uint32_t)s->pt.n_out, s->pt.stride_words,
				    r == 0};
		if (r)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &s->pipe, push, s->groups, 1, 1);
	}
}

static void record_copy(VkCommandBuffer cb, const struct ax_vk_buffer *from,
			const struct ax_vk_buffer *to, uint64_t bytes)
{
	VkBufferCopy c = {.size = bytes};
	vkCmdCopyBuffer(cb, from->buf, to->buf, 1, &c);
}

/* One repetition, from the application's input to its output. */
static int zc_host_op(void *state, char *err, size_t errlen)
{
	struct zc_state *s = state;
	uint64_t in_b = s->pt.n_in * 4, out_b = s->pt.n_out * 4;
	bool staged = s->pt.path == ZC_STAGED;
	if (staged) {
		memcpy(s->stage_in.map, s->app_in, in_b);
		ax_vk_flush(s->vk, &s->stage_in);
	}
	int rc = ax_vk_slot_begin(s->vk, &s->slot);
	if (rc)
		return ax_errf(err, errlen, rc, "zerocopy: %s", s->vk->err);
	VkCommandBuffer cb = s->slot.cb;
	if (staged) {
		record_copy(cb, &s->stage_in, &s->in, in_b);
		ax_vk_cmd_barrier(cb);
	}
	record_passes(s, cb);
	ax_vk_cmd_barrier(cb);
	if (staged)
		record_copy(cb, &s->out, &s->stage_out, out_b);
	rc = ax_vk_slot_submit(s->vk, &s->slot);
	if (!rc)
		rc = ax_vk_slot_wait(s->vk, &s->slot);
	if (rc)
		return ax_errf(err, errlen, rc, "zerocopy: %s",
			       s->vk->err[0] ? s->vk->err : ax_strerror(rc));
	if (staged) {
		ax_vk_invalidate(s->vk, &s->stage_out);
		memcpy(s->app_out, s->stage_out.map, out_b);
	} else {
		ax_vk_invalidate(s->vk, &s->out);
	}
	return 0;
}

static int zc_verify(void *state, char *why, size_t whylen)
{
	struct zc_state *s = state;
	for (uint64_t j = 0; j < s->pt.n_out; j++)
		if (s->app_out[j] != s->expect[j])
			return ax_errf(why, whylen, AX_EVERIFY,
				       "zerocopy: output word %llu is 0x%08x, "
				       "expected 0x%08x",
				       (unsigned long long)j, s->app_out[j],
				       s->expect[j]);
	return 0;
}

static double zc_work(const struct ax_params *p)
{
	struct zc_point z;
	zc_point(p, &z);
	return 4.0 * (double)z.n_out * z.passes;
}

/* What crosses between host and device memory at the least: the words
 * read, each pass, and the output written back. */
static double zc_bytes(const struct ax_params *p)
{
	struct zc_point z;
	zc_point(p, &z);
	return zc_work(p) + 4.0 * (double)z.n_out;
}

static const char *zc_shader(const struct ax_params *p) { return "zerocopy"; }

static json_t *zc_describe(void *state)
{
	struct zc_state *s = state;
	json_t *o = json_pack("{s:i,s:I}", "passes", (int)s->pt.passes,
			      "words_read", (json_int_t)s->pt.n_out);
	json_object_set_new(o, "memory_flags",
			    json_integer((json_int_t)s->in.props));
	if (s->pt.path == ZC_IMPORT)
		json_object_set_new(
		    o, "import_align",
		    json_integer((json_int_t)s->vk->info->host_import_align));
	return o;
}

static const struct ax_suite_need zc_needs[] = {{"path", 2}, {NULL, 0}};

const struct ax_suite ax_suite_zerocopy = {
    .name = "zerocopy",
    .summary = "a kernel on host data: staged copies against host memory "
	       "read in place (VK_EXT_external_memory_host)",
    .work_model = "GB/s = input bytes the kernel reads (passes x words "
		  "read x 4) / time / 1e9, time from the host input to the "
		  "host output (staging copies included where staged)",
    .unit = "GB/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = zc_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct zc_point),
    .check = zc_check,
    .setup = zc_setup,
    .host_op = zc_host_op,
    .verify = zc_verify,
    .work = zc_work,
    .bytes = zc_bytes,
    .roles = AX_ROLE_ZEROCOPY,
    .recommend_needs = zc_needs,
    .shader = zc_shader,
    .describe = zc_describe,
    .teardown = zc_teardown,
};
