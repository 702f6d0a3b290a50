/*
 * suites/transfer.c - host <-> device transfers: staged through
 * host-visible buffers and vkCmdCopyBuffer, or direct CPU copies into
 * device-local host-visible memory; one direction or both at once.
 *
 * Work model: bytes moved per repetition (chunk x chunks per repetition,
 * twice that for bidir).  One repetition moves
 * count = max(inflight, ceil(total / chunk)) chunks, pipelined through
 * `inflight` slots (staging buffer, command buffer, fence), and ends with
 * every slot waited on, so the runner's host clock sees the whole cost.
 *
 * source=pageable: the application's data lives in malloc'd memory and is
 * memcpy'd to / from a per-slot staging buffer (what most programs do).
 * source=pinned: the data lives in one host-visible Vulkan allocation
 * that the copy command reads or writes directly (no memcpy).  With
 * path=direct the CPU copies between the host data (pageable or pinned)
 * and device-local host-visible memory; no queue is involved and
 * `inflight` has no effect.
 */
#include "core/error.h"
#include "suites/suite.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum xf_dir { XF_H2D, XF_D2H, XF_BIDIR };
enum xf_path { XF_STAGED, XF_DIRECT };
enum xf_source { XF_PAGEABLE, XF_PINNED };

static const char *const xf_dirs[] = {"h2d", "d2h", "bidir", NULL};
static const char *const xf_paths[] = {"staged", "direct", NULL};
static const char *const xf_sources[] = {"pageable", "pinned", NULL};

#define XF_MAX_SLOTS 4
#define XF_VERIFY_PIECE (16u << 20)

struct xf_point {
	enum xf_dir dir;
	enum xf_path path;
	enum xf_source source;
	uint64_t chunk, total, count,
	    bytes; /* bytes = chunk * count, per lane */
	uint32_t inflight;
	int n_lanes;
};

static const struct ax_param_def xf_params[] = {
    {"direction", AX_PT_ENUM, 0, 0, xf_dirs, XF_H2D, AX_PARAM_SHAPE,
     "h2d (host to device), d2h (device to host) or bidir (one of "
     "each in flight together)",
     AX_FIELD(struct xf_point, dir)},
    {"path", AX_PT_ENUM, 0, 0, xf_paths, XF_STAGED, AX_PARAM_SHAPE,
     "staged (host-visible buffer + vkCmdCopyBuffer) or direct (CPU "
     "copy into device-local host-visible memory)",
     AX_FIELD(struct xf_point, path)},
    {"source", AX_PT_ENUM, 0, 0, xf_sources, XF_PAGEABLE, AX_PARAM_SHAPE,
     "pageable (malloc'd data, memcpy'd to/from staging) or pinned "
     "(data in host-visible memory the copy reads/writes itself)",
     AX_FIELD(struct xf_point, source)},
    {"chunk", AX_PT_INT, 4096, 256LL << 20, NULL, 1LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "bytes per transfer (one copy command or memcpy)",
     AX_FIELD(struct xf_point, chunk)},
    {"total", AX_PT_INT, 4096, 1LL << 30, NULL, 8LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "bytes per repetition and direction, at least inflight chunks "
     "(above the last-level cache for memory-bound figures)",
     AX_FIELD(struct xf_point, total)},
    {"inflight", AX_PT_INT, 1, XF_MAX_SLOTS, NULL, 2, AX_PARAM_TUNABLE,
     "transfers in flight: staging buffers and fences in rotation",
     AX_FIELD(struct xf_point, inflight)},
};
#define XF_N_PARAMS ((int)(sizeof(xf_params) / sizeof(xf_params[0])))

static void xf_point(const struct ax_params *p, struct xf_point *x)
{
	memset(x, 0, sizeof(*x));
	ax_params_store(p, x);
	x->count = (x->total + x->chunk - 1) / x->chunk;
	if (x->count < x->inflight)
		x->count = x->inflight;
	x->bytes = x->chunk * x->count;
	x->n_lanes = x->dir == XF_BIDIR ? 2 : 1;
}

/* ---- check: is the point possible on this device? ---- */

static bool has_type(const struct ax_vk_device_info *dev,
		     VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid,
		     uint32_t *heap)
{
	const VkPhysicalDeviceMemoryProperties *m = &dev->memory;
	for (uint32_t i = 0; i < m->memoryTypeCount; i++) {
		VkMemoryPropertyFlags f = m->memoryTypes[i].propertyFlags;
		if ((f & want) == want && !(f & avoid)) {
			*heap = m->memoryTypes[i].heapIndex;
			return true;
		}
	}
	return false;
}

/* The heap a kind of buffer will most likely come from (the same
 * preferences as core/vk_buffer.c), for the memory budget. */
static uint32_t heap_of(const struct ax_vk_device_info *dev, bool device,
			bool host)
{
	const VkMemoryPropertyFlags dl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
				    hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
	uint32_t heap = 0;
	if (device && host)
		has_type(dev, dl | hv, 0, &heap);
	else if (device)
		has_type(dev, dl, 0, &heap);
	else if (!has_type(dev, hv, dl, &heap))
		has_type(dev, hv, 0, &heap);
	return heap;
}

/* Bytes of Vulkan memory the point needs per lane, added per heap. */
static void xf_budget(const struct xf_point *x,
		      const struct ax_vk_device_info *dev, uint64_t *per_heap,
		      uint64_t *host_bytes)
{
	bool direct = x->path == XF_DIRECT;
	for (int l = 0; l < x->n_lanes; l++) {
		per_heap[heap_of(dev, true, direct)] += x->bytes;
		if (x->source == XF_PINNED)
			per_heap[heap_of(dev, false, true)] += x->bytes;
		else
			*host_bytes += x->bytes;
		if (!direct && x->source == XF_PAGEABLE)
			per_heap[heap_of(dev, false, true)] +=
			    x->chunk * x->inflight;
	}
}

static int xf_check_memory(const struct xf_point *x,
			   const struct ax_vk_device_info *dev, char *why,
			   size_t whylen)
{
	uint64_t per_heap[VK_MAX_MEMORY_HEAPS] = {0}, host = 0;
	xf_budget(x, dev, per_heap, &host);
	const VkPhysicalDeviceMemoryProperties *m = &dev->memory;
	for (uint32_t h = 0; h < m->memoryHeapCount; h++) {
		uint64_t half = m->memoryHeaps[h].size / 2;
		if (per_heap[h] > half)
			return ax_errf(
			    why, whylen, AX_EINVAL,
			    "transfer: %llu chunks of %llu bytes "
			    "need %llu bytes of memory heap %u, "
			    "over half its size (%llu of %llu); "
			    "use a smaller chunk, total or "
			    "inflight",
			    (unsigned long long)x->count,
			    (unsigned long long)x->chunk,
			    (unsigned long long)per_heap[h], h,
			    (unsigned long long)half,
			    (unsigned long long)m->memoryHeaps[h].size);
	}
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t ram =
	    pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
	if (ram && host > ram / 2)
		return ax_errf(why, whylen, AX_EINVAL,
			       "transfer: %llu bytes of pageable host memory "
			       "exceed half the machine's RAM (%llu bytes); "
			       "use a smaller total",
			       (unsigned long long)host,
			       (unsigned long long)ram);
	return 0;
}

static int xf_check(const struct ax_params *p,
		    const struct ax_vk_device_info *dev, char *why,
		    size_t whylen)
{
	struct xf_point x;
	xf_point(p, &x);
	uint32_t heap;
	if (x.path == XF_DIRECT &&
	    !has_type(dev,
		      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
			  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
		      0, &heap))
		return ax_errf(why, whylen, AX_EUNSUPPORTED,
			       "transfer: path=direct needs device-local "
			       "host-visible memory, and %s has no such "
			       "memory type; use path=staged",
			       dev->name);
	uint64_t max = dev->max_memory_allocation_size;
	if (max && x.bytes > max)
		return ax_errf(
		    why, whylen, AX_EINVAL,
		    "transfer: %llu chunks of %llu bytes need a "
		    "%llu-byte buffer, over the device's "
		    "maxMemoryAllocationSize %llu; use a smaller "
		    "chunk, total or inflight",
		    (unsigned long long)x.count, (unsigned long long)x.chunk,
		    (unsigned long long)x.bytes, (unsigned long long)max);
	return xf_check_memory(&x, dev, why, whylen);
}

/* ---- state ---- */

struct xf_slot {
	struct ax_vk_slot sub;	     /* command buffer and fence */
	struct ax_vk_buffer staging; /* staged pageable only */
	uint64_t chunk_index;	     /* the chunk in flight */
};

/* One direction: device data, host data and the slots moving it. */
struct xf_lane {
	bool up;		    /* host to device */
	struct ax_vk_buffer dev;    /* count chunks, device side */
	struct ax_vk_buffer pinned; /* source=pinned: the host data */
	unsigned char *pageable;    /* source=pageable: the host data */
	unsigned char *host;	    /* whichever of the two is used */
	struct xf_slot slot[XF_MAX_SLOTS];
};

struct xf_state {
	struct ax_vk_ctx *vk;
	struct xf_point pt;
	struct xf_lane lane[2];
	json_t *describe;
};

static void xf_lane_release(struct ax_vk_ctx *vk, struct xf_lane *l)
{
	for (int i = 0; i < XF_MAX_SLOTS; i++) {
		struct xf_slot *s = &l->slot[i];
		ax_vk_slot_release(vk, &s->sub);
		ax_vk_buffer_destroy(vk, &s->staging);
	}
	ax_vk_buffer_destroy(vk, &l->dev);
	ax_vk_buffer_destroy(vk, &l->pinned);
	free(l->pageable);
}

static void xf_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct xf_state *s = state;
	if (!s)
		return;
	for (int l = 0; l < 2; l++)
		xf_lane_release(vk, &s->lane[l]);
	json_decref(s->describe);
	free(s);
}

static int xf_slot_init(struct xf_state *s, struct xf_lane *l,
			struct xf_slot *slot, char *err, size_t errlen)
{
	struct ax_vk_ctx *vk = s->vk;
	int rc = ax_vk_slot_init(vk, true, &slot->sub);
	if (rc)
		return ax_errf(err, errlen, rc, "transfer: %s on %s", vk->err,
			       vk->info->name);
	if (s->pt.source == XF_PINNED)
		return 0;
	return ax_vk_buffer_create(vk, s->pt.chunk, 0,
				   l->up ? AX_MEM_UPLOAD : AX_MEM_READBACK,
				   &slot->staging);
}

/* Host data: malloc'd (pageable) or one host-visible allocation. */
static int xf_host_data(struct xf_state *s, struct xf_lane *l)
{
	if (s->pt.source == XF_PINNED) {
		int rc = ax_vk_buffer_create(
		    s->vk, s->pt.bytes, 0,
		    l->up ? AX_MEM_UPLOAD : AX_MEM_READBACK, &l->pinned);
		l->host = l->pinned.map;
		return rc;
	}
	/* Page-aligned like any large malloc, without depending on it. */
	if (posix_memalign((void **)&l->pageable, 4096, s->pt.bytes))
		return AX_ENOMEM;
	l->host = l->pageable;
	return 0;
}

/* Fill a device buffer with a word pattern (a one-shot submission), so
 * the destination of an upload never starts out equal to the source. */
static int xf_fill_device(struct ax_vk_ctx *vk, struct ax_vk_buffer *b,
			  uint32_t word)
{
	VkCommandBuffer cb;
	int rc = ax_vk_cmd_begin(vk, true, &cb);
	if (rc)
		return rc;
	vkCmdFillBuffer(cb, b->buf, 0, VK_WHOLE_SIZE, word);
	return ax_vk_cmd_submit_wait(vk, cb, true, vk->timeout_ns);
}

/* Uploads read random host data into a device buffer holding a fixed
 * pattern; downloads read random device data into zeroed host memory.
 * Either way a transfer that moved nothing fails verification. */
static int xf_lane_fill(struct xf_state *s, struct xf_lane *l, uint64_t seed)
{
	uint64_t bytes = s->pt.bytes;
	if (l->up) {
		ax_vk_fill_random_words((uint32_t *)l->host, bytes / 4, seed);
		int rc = ax_vk_flush(s->vk, &l->pinned);
		return rc ? rc : xf_fill_device(s->vk, &l->dev, 0xdeadbeefu);
	}
	memset(l->host, 0, bytes);
	if (l->dev.map) {
		/* Mapped device memory (UMA, BAR, CPU drivers): fill it in
		 * place rather than through a second host copy. */
		ax_vk_fill_random_words((uint32_t *)l->dev.map, bytes / 4,
					seed);
		return ax_vk_flush(s->vk, &l->dev);
	}
	uint32_t *tmp = malloc(bytes);
	if (!tmp)
		return AX_ENOMEM;
	ax_vk_fill_random_words(tmp, bytes / 4, seed);
	int rc = ax_vk_upload(s->vk, &l->dev, 0, tmp, bytes);
	free(tmp);
	return rc;
}

static int xf_lane_init(struct xf_state *s, struct xf_lane *l, bool up,
			char *err, size_t errlen)
{
	l->up = up;
	enum ax_vk_mem kind =
	    s->pt.path == XF_DIRECT ? AX_MEM_DEVICE_HOST : AX_MEM_DEVICE;
	int rc = ax_vk_buffer_create(s->vk, s->pt.bytes, 0, kind, &l->dev);
	if (rc == 0)
		rc = xf_host_data(s, l);
	for (uint32_t i = 0;
	     rc == 0 && s->pt.path == XF_STAGED && i < s->pt.inflight; i++)
		rc = xf_slot_init(s, l, &l->slot[i], err, errlen);
	if (rc == 0)
		rc = xf_lane_fill(s, l, up ? 0x5eed0001u : 0x5eed0002u);
	return rc;
}

/* ---- describe: which queue and memory the case used ---- */

static void xf_describe_queue(const struct xf_state *s, json_t *o)
{
	const struct ax_vk_ctx *vk = s->vk;
	if (s->pt.path == XF_DIRECT) {
		json_object_set_new(o, "queue", json_string("none"));
		json_object_set_new(o, "reason",
				    json_string("direct path: the CPU copies "
						"into device-local "
						"host-visible memory"));
		return;
	}
	json_object_set_new(
	    o, "queue",
	    json_string(vk->dedicated_transfer ? "transfer" : "compute"));
	json_object_set_new(o, "queue_family",
			    json_integer(vk->transfer_family));
	json_object_set_new(o, "reason",
			    json_string(vk->dedicated_transfer
					    ? "dedicated transfer queue "
					      "family"
					    : "no dedicated transfer "
					      "queue family"));
}

static const char *host_memory_name(const struct xf_state *s, bool up)
{
	if (s->pt.source == XF_PAGEABLE)
		return "pageable (malloc)";
	return ax_vk_mem_name(up ? AX_MEM_UPLOAD : AX_MEM_READBACK);
}

static json_t *xf_describe_memory(const struct xf_state *s)
{
	const struct xf_lane *l = &s->lane[0];
	json_t *m = json_object();
	json_object_set_new(m, "device",
			    json_string(ax_vk_mem_name(s->pt.path == XF_DIRECT
							   ? AX_MEM_DEVICE_HOST
							   : AX_MEM_DEVICE)));
	json_object_set_new(m, "device_type", json_integer(l->dev.type_index));
	json_object_set_new(m, "host", json_string(host_memory_name(s, l->up)));
	if (s->pt.path == XF_STAGED && s->pt.source == XF_PAGEABLE)
		json_object_set_new(
		    m, "staging",
		    json_string(ax_vk_mem_name(l->up ? AX_MEM_UPLOAD
						     : AX_MEM_READBACK)));
	return m;
}

static int xf_describe_build(struct xf_state *s)
{
	json_t *o = json_object();
	if (!o)
		return AX_ENOMEM;
	xf_describe_queue(s, o);
	json_object_set_new(o, "chunks_per_rep",
			    json_integer((json_int_t)s->pt.count));
	json_object_set_new(
	    o, "transfers_per_rep",
	    json_integer((json_int_t)(s->pt.count * s->pt.n_lanes)));
	json_object_set_new(
	    o, "bytes_per_rep",
	    json_integer((json_int_t)(s->pt.bytes * s->pt.n_lanes)));
	json_object_set_new(
	    o, "inflight",
	    json_integer(s->pt.path == XF_DIRECT ? 1 : s->pt.inflight));
	json_object_set_new(o, "memory", xf_describe_memory(s));
	s->describe = o;
	return 0;
}

static json_t *xf_describe(void *state)
{
	return json_incref(((struct xf_state *)state)->describe);
}

static int xf_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		    void **state, char *err, size_t errlen)
{
	struct xf_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	s->vk = vk;
	xf_point(p, &s->pt);
	int rc = 0;
	for (int l = 0; rc == 0 && l < s->pt.n_lanes; l++)
		rc = xf_lane_init(s, &s->lane[l], l == 0 && s->pt.dir != XF_D2H,
				  err, errlen);
	if (rc == 0)
		rc = xf_describe_build(s);
	if (rc) {
		if (err && !err[0])
			ax_errf(err, errlen, rc, "transfer setup: %s",
				vk->err[0] ? vk->err : ax_strerror(rc));
		xf_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

/* ---- one repetition ---- */

/* Wait for a slot's transfer; for a pageable download, copy its chunk
 * out of the staging buffer into the application's memory. */
static int xf_retire(struct xf_state *s, struct xf_lane *l,
		     struct xf_slot *slot, char *err, size_t errlen)
{
	struct ax_vk_ctx *vk = s->vk;
	if (!slot->sub.busy)
		return 0;
	int rc = ax_vk_slot_wait(vk, &slot->sub);
	if (rc == AX_ETIMEOUT)
		return ax_errf(err, errlen, rc,
			       "transfer: chunk %llu (%llu bytes) did not "
			       "complete within %.3g s (--timeout)",
			       (unsigned long long)slot->chunk_index,
			       (unsigned long long)s->pt.chunk,
			       (double)vk->timeout_ns / 1e9);
	if (rc)
		return ax_errf(err, errlen, rc,
			       "transfer: waiting for a transfer failed on %s "
			       "(%s)",
			       vk->info->name, vk->err);
	if (l->up || s->pt.source == XF_PINNED)
		return 0;
	rc = ax_vk_invalidate(vk, &slot->staging);
	memcpy(l->host + slot->chunk_index * s->pt.chunk, slot->staging.map,
	       s->pt.chunk);
	return rc;
}

static void xf_record_copy(struct xf_state *s, struct xf_lane *l,
			   struct xf_slot *slot, uint64_t i)
{
	uint64_t off = i * s->pt.chunk;
	bool pinned = s->pt.source == XF_PINNED;
	VkBuffer host = pinned ? l->pinned.buf : slot->staging.buf;
	VkDeviceSize host_off = pinned ? off : 0;
	VkBufferCopy region = {
	    .srcOffset = l->up ? host_off : off,
	    .dstOffset = l->up ? off : host_off,
	    .size = s->pt.chunk,
	};
	vkCmdCopyBuffer(slot->sub.cb, l->up ? host : l->dev.buf,
			l->up ? l->dev.buf : host, 1, &region);
	if (l->up)
		return;
	/* Make the copy's writes visible to host reads after the fence. */
	VkMemoryBarrier mb = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	    .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
	    .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(slot->sub.cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
			     VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
			     NULL);
}

/* Record and submit chunk i on the slot (the slot is free). */
static int xf_submit(struct xf_state *s, struct xf_lane *l,
		     struct xf_slot *slot, uint64_t i, char *err, size_t errlen)
{
	struct ax_vk_ctx *vk = s->vk;
	int rc = ax_vk_slot_begin(vk, &slot->sub);
	if (rc == 0) {
		xf_record_copy(s, l, slot, i);
		rc = ax_vk_slot_submit(vk, &slot->sub);
	}
	if (rc)
		return ax_errf(err, errlen, rc,
			       "transfer: submitting chunk "
			       "%llu failed: %s",
			       (unsigned long long)i, vk->err);
	slot->chunk_index = i;
	return 0;
}

/* Chunk i of a lane: free its slot, stage the data, submit the copy. */
static int xf_step(struct xf_state *s, struct xf_lane *l, uint64_t i, char *err,
		   size_t errlen)
{
	struct xf_slot *slot = &l->slot[i % s->pt.inflight];
	int rc = xf_retire(s, l, slot, err, errlen);
	if (rc)
		return rc;
	if (l->up && s->pt.source == XF_PAGEABLE) {
		memcpy(slot->staging.map, l->host + i * s->pt.chunk,
		       s->pt.chunk);
		rc = ax_vk_flush(s->vk, &slot->staging);
		if (rc)
			return rc;
	}
	return xf_submit(s, l, slot, i, err, errlen);
}

/* Wait for the last chunks in the order they were submitted. */
static int xf_drain(struct xf_state *s, struct xf_lane *l, char *err,
		    size_t errlen)
{
	uint64_t n = s->pt.count, k = s->pt.inflight;
	for (uint64_t i = n - k; i < n; i++) {
		int rc = xf_retire(s, l, &l->slot[i % k], err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static int xf_staged_rep(struct xf_state *s, char *err, size_t errlen)
{
	int rc = 0;
	for (uint64_t i = 0; rc == 0 && i < s->pt.count; i++)
		for (int l = 0; rc == 0 && l < s->pt.n_lanes; l++)
			rc = xf_step(s, &s->lane[l], i, err, errlen);
	for (int l = 0; rc == 0 && l < s->pt.n_lanes; l++)
		rc = xf_drain(s, &s->lane[l], err, errlen);
	return rc;
}

/* The CPU copies each chunk between host data and mapped device memory;
 * chunked like the staged path so bidir interleaves the directions. */
static int xf_direct_rep(struct xf_state *s)
{
	int rc = 0;
	for (int l = 0; rc == 0 && l < s->pt.n_lanes; l++)
		if (!s->lane[l].up)
			rc = ax_vk_invalidate(s->vk, &s->lane[l].dev);
	uint64_t c = s->pt.chunk;
	for (uint64_t i = 0; rc == 0 && i < s->pt.count; i++) {
		for (int l = 0; l < s->pt.n_lanes; l++) {
			struct xf_lane *ln = &s->lane[l];
			unsigned char *dev = (unsigned char *)ln->dev.map;
			if (ln->up)
				memcpy(dev + i * c, ln->host + i * c, c);
			else
				memcpy(ln->host + i * c, dev + i * c, c);
		}
	}
	for (int l = 0; rc == 0 && l < s->pt.n_lanes; l++)
		if (s->lane[l].up)
			rc = ax_vk_flush(s->vk, &s->lane[l].dev);
	return rc;
}

static int xf_host_op(void *state, char *err, size_t errlen)
{
	struct xf_state *s = state;
	if (s->pt.path == XF_DIRECT)
		return xf_direct_rep(s);
	return xf_staged_rep(s, err, errlen);
}

/* ---- verify ---- */

static int xf_mismatch(const struct xf_state *s, const struct xf_lane *l,
		       uint64_t at, const uint32_t *dev, const uint32_t *host,
		       char *why, size_t whylen)
{
	size_t w = 0;
	while (dev[w] == host[w])
		w++;
	uint64_t byte = at + 4 * w;
	return ax_errf(why, whylen, AX_EVERIFY,
		       "transfer %s: chunk %llu, byte %llu: device word "
		       "0x%08x, host word 0x%08x (%s)",
		       l->up ? "h2d" : "d2h",
		       (unsigned long long)(byte / s->pt.chunk),
		       (unsigned long long)byte, dev[w], host[w],
		       l->up ? "the device did not receive the source data"
			     : "the host did not receive the device data");
}

/* Compare the lane's device buffer with its host data, piece by piece. */
static int xf_verify_lane(struct xf_state *s, struct xf_lane *l, char *why,
			  size_t whylen)
{
	int rc = ax_vk_invalidate(s->vk, &l->pinned);
	uint64_t piece =
	    s->pt.bytes < XF_VERIFY_PIECE ? s->pt.bytes : XF_VERIFY_PIECE;
	uint32_t *buf = malloc(piece);
	if (!buf)
		return AX_ENOMEM;
	for (uint64_t at = 0; rc == 0 && at < s->pt.bytes; at += piece) {
		uint64_t n =
		    s->pt.bytes - at < piece ? s->pt.bytes - at : piece;
		rc = ax_vk_download(s->vk, &l->dev, at, buf, n);
		if (rc)
			rc = ax_errf(why, whylen, rc, "transfer verify: %s",
				     s->vk->err);
		else if (memcmp(buf, l->host + at, n) != 0)
			rc = xf_mismatch(s, l, at, buf,
					 (const uint32_t *)(l->host + at), why,
					 whylen);
	}
	free(buf);
	return rc;
}

static int xf_verify(void *state, char *why, size_t whylen)
{
	struct xf_state *s = state;
	int rc = 0;
	for (int l = 0; rc == 0 && l < s->pt.n_lanes; l++)
		rc = xf_verify_lane(s, &s->lane[l], why, whylen);
	return rc;
}

static double xf_work(const struct ax_params *p)
{
	struct xf_point x;
	xf_point(p, &x);
	return (double)x.bytes * x.n_lanes;
}

static const char *const xf_curve_group[] = {"direction", "path", "source",
					     NULL};
static const struct ax_suite_curve xf_curve = {
    "chunk", xf_curve_group, "Transfer rate against chunk size",
    "chunk (bytes)"};
/* recommend's chunk size, buffers in flight and pinned gain. */
static const struct ax_suite_need xf_needs[] = {
    {"chunk", 3}, {"inflight", 2}, {"source", 2}, {NULL, 0}};

const struct ax_suite ax_suite_transfer = {
    .name = "transfer",
    .summary = "host<->device transfers: staged copies or direct "
	       "writes, chunk size and transfers in flight",
    .work_model = "bytes moved per repetition: chunk x "
		  "max(inflight, total/chunk), twice that for bidir; "
		  "latency per transfer = time per repetition / "
		  "transfers_per_rep (in the result's extra JSON)",
    .unit = "GB/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = xf_params,
    .n_params = XF_N_PARAMS,
    .config_size = sizeof(struct xf_point),
    .check = xf_check,
    .setup = xf_setup,
    .record = NULL,
    .host_op = xf_host_op,
    .verify = xf_verify,
    .work = xf_work,
    .roles = AX_ROLE_TRANSFER,
    .curve = &xf_curve,
    .recommend_needs = xf_needs,
    .shader = NULL,
    .describe = xf_describe,
    .teardown = xf_teardown,
};
