/* core/vk_slot.c - submission slots (see vk.h). */
#include "core/error.h"
#include "core/vk_internal.h"

#include <stdbool.h>
#include <stdio.h>

static int slot_fail(struct ax_vk_ctx *ctx, VkResult r, const char *call)
{
	snprintf(ctx->err, sizeof(ctx->err), "%s: %s", call,
		 ax_vk_result_name(r));
	if (r == VK_ERROR_DEVICE_LOST)
		ax_vk_mark_lost(ctx);
	return ax_vk_error_from(r);
}

int ax_vk_slot_init(struct ax_vk_ctx *ctx, bool transfer, struct ax_vk_slot *s)
{
	s->transfer = transfer;
	s->busy = false;
	VkCommandBufferAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	    .commandPool = transfer ? ctx->transfer_pool : ctx->compute_pool,
	    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	    .commandBufferCount = 1,
	};
	VkResult r = vkAllocateCommandBuffers(ctx->dev, &ai, &s->cb);
	if (r != VK_SUCCESS)
		return slot_fail(ctx, r, "vkAllocateCommandBuffers");
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	r = vkCreateFence(ctx->dev, &fi, NULL, &s->fence);
	if (r != VK_SUCCESS)
		return slot_fail(ctx, r, "vkCreateFence");
	return 0;
}

int ax_vk_slot_begin(struct ax_vk_ctx *ctx, struct ax_vk_slot *s)
{
	VkCommandBufferBeginInfo bi = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	/* Both pools have RESET_COMMAND_BUFFER_BIT: begin resets. */
	VkResult r = vkBeginCommandBuffer(s->cb, &bi);
	return r == VK_SUCCESS ? 0 : slot_fail(ctx, r, "vkBeginCommandBuffer");
}

int ax_vk_slot_submit(struct ax_vk_ctx *ctx, struct ax_vk_slot *s)
{
	VkResult r = vkEndCommandBuffer(s->cb);
	if (r != VK_SUCCESS)
		return slot_fail(ctx, r, "vkEndCommandBuffer");
	int rc = ax_vk_submit(
	    ctx, s->transfer ? ctx->transfer_queue : ctx->compute_queue, &s->cb,
	    1, s->fence);
	if (rc == 0)
		s->busy = true;
	return rc;
}

int ax_vk_slot_wait(struct ax_vk_ctx *ctx, struct ax_vk_slot *s)
{
	if (!s->busy)
		return 0;
	bool stopped;
	VkResult r =
	    ax_vk_wait_fence(ctx, s->fence, ctx->timeout_ns, true, &stopped);
	if (r == VK_TIMEOUT) {
		/* Pending work cannot be reclaimed safely: the runner skips
		 * teardown and later cases on a lost context. */
		ax_vk_mark_lost(ctx);
		if (stopped) {
			snprintf(ctx->err, sizeof(ctx->err),
				 "interrupted while waiting for the GPU work");
			return AX_EINTR;
		}
		snprintf(ctx->err, sizeof(ctx->err),
			 "vkWaitForFences: timed out after %.3g s",
			 (double)ctx->timeout_ns / 1e9);
		return AX_ETIMEOUT;
	}
	if (r == VK_SUCCESS)
		r = vkResetFences(ctx->dev, 1, &s->fence);
	if (r != VK_SUCCESS)
		return slot_fail(ctx, r, "vkWaitForFences");
	s->busy = false;
	return 0;
}

void ax_vk_slot_release(struct ax_vk_ctx *ctx, struct ax_vk_slot *s)
{
	if (ctx->lost)
		return;
	bool stopped;
	if (s->busy && ax_vk_wait_fence(ctx, s->fence, ctx->timeout_ns, true,
					&stopped) != VK_SUCCESS) {
		/* Its work may still run: freeing under it is not safe. */
		ax_vk_mark_lost(ctx);
		return;
	}
	VkCommandPool pool =
	    s->transfer ? ctx->transfer_pool : ctx->compute_pool;
	if (s->cb)
		vkFreeCommandBuffers(ctx->dev, pool, 1, &s->cb);
	if (s->fence)
		vkDestroyFence(ctx->dev, s->fence, NULL);
	s->cb = VK_NULL_HANDLE;
	s->fence = VK_NULL_HANDLE;
	s->busy = false;
}
