/* core/vk_internal.h - shared between core/vk*.c only. */
#ifndef AX_VK_INTERNAL_H
#define AX_VK_INTERNAL_H

#include "core/vk.h"

/* Map a VkResult to an AX_E* code. */
int ax_vk_error_from(VkResult r);
/* Fill info from a physical device (properties, limits, features);
 * instance resolves the extension queries vulkan.h does not export. */
void ax_vk_describe_device(VkInstance instance, VkPhysicalDevice phys,
			   int index, struct ax_vk_device_info *info);
VkPhysicalDevice ax_vk_physical(const struct ax_vk_instance *inst, int index);
VkInstance ax_vk_handle(const struct ax_vk_instance *inst);
/* vkWaitForFences on one fence up to timeout_ns, in slices of
 * AX_VK_STOP_SLICE_MS that look at the stop flag (ax_vk_set_stop) when
 * stoppable: *stopped is then set and VK_TIMEOUT returned. */
VkResult ax_vk_wait_fence(struct ax_vk_ctx *ctx, VkFence fence,
			  uint64_t timeout_ns, bool stoppable, bool *stopped);
/* A context on this instance was lost and left alive (see ax_vk_close). */
void ax_vk_mark_leaked(struct ax_vk_instance *inst);

#endif
