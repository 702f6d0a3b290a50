/*
 * suites/d2d.c - device-to-device copies: this device's memory into the
 * memory of device `peer`, one cell of nvbandwidth's device x device
 * matrix per point (`run d2d --device all -p peer=0,1` measures the
 * whole matrix: row = the run's device, column = the peer).
 *
 *   path=staged  through host memory: the source copies into a read-back
 *                buffer, the host memcpy's it into the peer's upload
 *                buffer, the peer copies it into its device memory;
 *   path=direct  no host copy: on one device (the diagonal) a copy within
 *                its memory; between two, the source's memory exported
 *                as an opaque fd (VK_KHR_external_memory_fd) and imported
 *                by the peer, which copies from it into its own memory.
 *                Skipped with the reason where either device lacks the
 *                extension or their driver and device UUIDs differ (the
 *                rule for sharing opaque memory).
 *
 * Work model: the bytes copied per repetition (size); a small size is the
 * copy's latency (time per repetition = size / rate).  Verification: the
 * peer's buffer is read back after the warm-up and every word compared
 * with the pattern the source holds.
 *
 * The peer's logical device is opened by this suite's set-up on the same
 * instance (ax_vk_ctx.inst) and closed at teardown; its fence waits use
 * the case's timeout.  A device group (VK_KHR_device_group) of more than
 * one device is named in the result's facts; copies through a group's
 * peer memory are not built.
 */
#include "core/error.h"
#include "suites/suite.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum d2d_path { D2D_STAGED, D2D_DIRECT };
static const char *const d2d_paths[] = {"staged", "direct", NULL};

struct d2d_point {
	uint32_t peer;
	enum d2d_path path;
	uint64_t size;
};

static const struct ax_param_def d2d_params[] = {
    {"peer", AX_PT_INT, 0, 15, NULL, 0, AX_PARAM_SHAPE,
     "the destination device's index (axbench devices); this device's "
     "own index is the matrix's diagonal",
     AX_FIELD(struct d2d_point, peer)},
    {"path", AX_PT_ENUM, 0, 0, d2d_paths, D2D_STAGED, AX_PARAM_SHAPE,
     "staged (through host memory) or direct (a copy within the device, "
     "or from memory the source exported as an fd and the peer imported)",
     AX_FIELD(struct d2d_point, path)},
    {"size", AX_PT_INT, 4096, 1LL << 30, NULL, 16LL << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES | AX_PARAM_POW2,
     "bytes copied per repetition (small: the latency)",
     AX_FIELD(struct d2d_point, size)},
};
#define N_PARAMS ((int)(sizeof(d2d_params) / sizeof(d2d_params[0])))

static void d2d_point(const struct ax_params *p, struct d2d_point *d)
{
	memset(d, 0, sizeof(*d));
	ax_params_store(p, d);
}

static int d2d_check(const struct ax_params *p,
		     const struct ax_vk_device_info *dev, char *why,
		     size_t whylen)
{
	struct d2d_point d;
	d2d_point(p, &d);
	if (dev->max_memory_allocation_size &&
	    d.size > dev->max_memory_allocation_size)
		return ax_errf(
		    why, whylen, AX_EINVAL,
		    "d2d: size=%llu is over the device's "
		    "maxMemoryAllocationSize %llu; use a smaller "
		    "size",
		    (unsigned long long)d.size,
		    (unsigned long long)dev->max_memory_allocation_size);
	return 0;
}

struct d2d_state {
	struct d2d_point pt;
	struct ax_vk_ctx *src, *peer; /* peer == src on the diagonal */
	bool own_peer;		      /* opened here: closed at teardown */
	struct ax_vk_buffer from, to; /* source memory, the peer's memory */
	struct ax_vk_buffer readback, upload; /* path=staged */
	struct ax_vk_buffer imported;	      /* path=direct, two devices */
	struct ax_vk_slot src_slot, peer_slot;
	bool src_slot_ready, peer_slot_ready;
	uint32_t *pattern;
};

static void d2d_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct d2d_state *s = state;
	if (!s)
		return;
	if (s->peer && s->peer_slot_ready)
		ax_vk_slot_release(s->peer, &s->peer_slot);
	if (s->src_slot_ready)
		ax_vk_slot_release(vk, &s->src_slot);
	if (s->peer) {
		ax_vk_buffer_destroy(s->peer, &s->to);
		ax_vk_buffer_destroy(s->peer, &s->upload);
		ax_vk_buffer_destroy(s->peer, &s->imported);
	}
	ax_vk_buffer_destroy(vk, &s->from);
	ax_vk_buffer_destroy(vk, &s->readback);
	if (s->own_peer)
		ax_vk_close(s->peer); /* a lost one is left to the exit */
	free(s->pattern);
	free(s);
}

/* The peer's logical device: this one for the diagonal, else a new one
 * on the same instance.  AX_EINVAL for an index no device has. */
static int open_peer(struct d2d_state *s)
{
	struct ax_vk_ctx *vk = s->src;
	int n = ax_vk_device_count(vk->inst);
	if ((int)s->pt.peer == vk->info->index) {
		s->peer = vk;
		return 0;
	}
	if ((int)s->pt.peer >= n) {
		snprintf(vk->err, sizeof(vk->err),
			 "peer=%u: no such device (this machine has %d: "
			 "axbench devices)",
			 s->pt.peer, n);
		return AX_EINVAL;
	}
	int rc = ax_vk_open(vk->inst, (int)s->pt.peer, &s->peer, vk->err,
			    sizeof(vk->err));
	s->own_peer = rc == 0;
	if (rc == 0)
		s->peer->timeout_ns = vk->timeout_ns;
	return rc;
}

/* path=direct between two devices: can they share opaque memory? */
static int check_sharing(struct d2d_state *s)
{
	const struct ax_vk_device_info *a = s->src->info, *b = s->peer->info;
	if (strcmp(a->device_uuid, b->device_uuid) ||
	    strcmp(a->driver_uuid, b->driver_uuid)) {
		snprintf(s->src->err, sizeof(s->src->err),
			 "path=direct: devices %d and %d differ in device or "
			 "driver UUID, and Vulkan shares opaque memory only "
			 "between devices of one driver and UUID; path=staged "
			 "copies between them",
			 a->index, b->index);
		return AX_EUNSUPPORTED;
	}
	return 0;
}

/* The source's buffer (exported where the peer will import it), with the
 * pattern; the peer's destination. */
static int d2d_buffers(struct d2d_state *s)
{
	struct ax_vk_ctx *vk = s->src;
	uint64_t n = s->pt.size;
	bool shared = s->pt.path == D2D_DIRECT && s->peer != vk;
	int fd = -1;
	int rc = shared ? check_sharing(s) : 0;
	if (!rc && shared)
		rc = ax_vk_buffer_create_exported(vk, n, 0, &s->from, &fd);
	else if (!rc)
		rc = ax_vk_buffer_create(vk, n, 0, AX_MEM_DEVICE, &s->from);
	if (!rc && shared) {
		rc = ax_vk_buffer_import_fd(s->peer, fd, n, &s->from, 0,
					    &s->imported);
		if (rc)
			snprintf(vk->err, sizeof(vk->err), "%s", s->peer->err);
	}
	if (!rc)
		rc = ax_vk_buffer_create(s->peer, n, 0, AX_MEM_DEVICE, &s->to);
	if (!rc && s->pt.path == D2D_STAGED)
		rc = ax_vk_buffer_create(vk, n, 0, AX_MEM_READBACK,
					 &s->readback);
	if (!rc && s->pt.path == D2D_STAGED)
		rc = ax_vk_buffer_create(s->peer, n, 0, AX_MEM_UPLOAD,
					 &s->upload);
	s->pattern = rc ? NULL : malloc(n);
	if (!rc && !s->pattern)
		return AX_ENOMEM;
	if (!rc) {
		ax_vk_fill_random_words(s->pattern, n / 4, 0xd2d0d2d0ULL);
		rc = ax_vk_upload(vk, &s->from, 0, s->pattern, n);
	}
	return rc;
}

static int d2d_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		     void **state, char *err, size_t errlen)
{
	struct d2d_state *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	d2d_point(p, &s->pt);
	s->src = vk;
	int rc = open_peer(s);
	if (!rc)
		rc = d2d_buffers(s);
	if (!rc)
		rc = ax_vk_slot_init(vk, false, &s->src_slot);
	s->src_slot_ready = rc == 0;
	if (!rc)
		rc = ax_vk_slot_init(s->peer, false, &s->peer_slot);
	s->peer_slot_ready = rc == 0;
	if (rc) {
		ax_errf(err, errlen, rc, "d2d setup: %s",
			vk->err[0] ? vk->err : ax_strerror(rc));
		d2d_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

/* Record one copy on ctx's slot, submit it and wait. */
static int copy_on(struct ax_vk_ctx *ctx, struct ax_vk_slot *slot,
		   const struct ax_vk_buffer *from,
		   const struct ax_vk_buffer *to, uint64_t bytes)
{
	int rc = ax_vk_slot_begin(ctx, slot);
	if (rc)
		return rc;
	VkBufferCopy c = {.size = bytes};
	vkCmdCopyBuffer(slot->cb, from->buf, to->buf, 1, &c);
	rc = ax_vk_slot_submit(ctx, slot);
	return rc ? rc : ax_vk_slot_wait(ctx, slot);
}

static int d2d_host_op(void *state, char *err, size_t errlen)
{
	struct d2d_state *s = state;
	uint64_t n = s->pt.size;
	int rc;
	struct ax_vk_ctx *failed = s->src;
	s->peer->timeout_ns = s->src->timeout_ns; /* the runner's, now */
	if (s->pt.path == D2D_STAGED) {
		rc = copy_on(s->src, &s->src_slot, &s->from, &s->readback, n);
		if (!rc) {
			ax_vk_invalidate(s->src, &s->readback);
			memcpy(s->upload.map, s->readback.map, n);
			ax_vk_flush(s->peer, &s->upload);
			failed = s->peer;
			rc = copy_on(s->peer, &s->peer_slot, &s->upload, &s->to,
				     n);
		}
	} else {
		const struct ax_vk_buffer *from =
		    s->peer == s->src ? &s->from : &s->imported;
		failed = s->peer;
		rc = copy_on(s->peer, &s->peer_slot, from, &s->to, n);
	}
	if (rc)
		return ax_errf(err, errlen, rc, "d2d: %s",
			       failed->err[0] ? failed->err : ax_strerror(rc));
	return 0;
}

static int d2d_verify(void *state, char *why, size_t whylen)
{
	struct d2d_state *s = state;
	uint64_t n = s->pt.size;
	uint32_t *got = malloc(n);
	if (!got)
		return AX_ENOMEM;
	int rc = ax_vk_download(s->peer, &s->to, 0, got, n);
	if (rc)
		ax_errf(why, whylen, rc, "d2d: reading the peer's buffer: %s",
			s->peer->err);
	for (uint64_t w = 0; !rc && w < n / 4; w++)
		if (got[w] != s->pattern[w])
			rc = ax_errf(why, whylen, AX_EVERIFY,
				     "d2d: word %llu on device %u is 0x%08x, "
				     "the source holds 0x%08x",
				     (unsigned long long)w, s->pt.peer, got[w],
				     s->pattern[w]);
	free(got);
	return rc;
}

static double d2d_work(const struct ax_params *p)
{
	struct d2d_point d;
	d2d_point(p, &d);
	return (double)d.size;
}

/* Which device the copy went to, by what stays true across machines
 * and orders (its fingerprint), not only its index. */
static json_t *d2d_describe(void *state)
{
	struct d2d_state *s = state;
	const struct ax_vk_device_info *pi = s->peer->info;
	return json_pack("{s:{s:i,s:s,s:s},s:b,s:i}", "peer", "index",
			 pi->index, "name", pi->name, "fingerprint",
			 pi->fingerprint, "diagonal", s->peer == s->src,
			 "device_group_size", s->src->info->group_size);
}

const struct ax_suite ax_suite_d2d = {
    .name = "d2d",
    .summary = "device-to-device copies: staged through the host, or "
	       "direct (exported / imported memory)",
    .work_model = "GB/s = bytes copied / time / 1e9 (time per repetition "
		  "at a small size: the latency); one point is one cell of "
		  "the device x device matrix (row: this device, column: "
		  "peer)",
    .unit = "GB/s",
    .metric = AX_METRIC_RATE,
    .scale = 1e9,
    .higher_is_better = true,
    .params = d2d_params,
    .n_params = N_PARAMS,
    .config_size = sizeof(struct d2d_point),
    .check = d2d_check,
    .setup = d2d_setup,
    .host_op = d2d_host_op,
    .verify = d2d_verify,
    .work = d2d_work,
    .bytes = d2d_work,
    .roles = AX_ROLE_D2D,
    .describe = d2d_describe,
    .teardown = d2d_teardown,
};
