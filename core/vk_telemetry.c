/* core/vk_telemetry.c - a Vulkan device as core/telemetry names it, so
 * that the telemetry module itself needs no Vulkan header. */
#include "core/telemetry.h"
#include "core/vk.h"

#include "core/error.h"

#include <stdio.h>

void ax_vk_telemetry_device(const struct ax_vk_device_info *info,
			    struct ax_tel_device *out)
{
	out->vendor_id = info->vendor_id;
	snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%s",
		 info->pci_bus_id);
	snprintf(out->uuid, sizeof(out->uuid), "%s", info->device_uuid);
	/* lavapipe and other CPU devices draw the host's power. */
	out->kind =
	    info->type == VK_PHYSICAL_DEVICE_TYPE_CPU ? AX_TEL_CPU : AX_TEL_GPU;
	snprintf(out->name, sizeof(out->name), "%s", info->name);
}

int ax_vk_memory_budget(const struct ax_vk_ctx *vk, double *used_b,
			double *budget_b)
{
	if (!vk || !vk->info->memory_budget)
		return AX_EUNSUPPORTED;
	VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {
	    .sType =
		VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT,
	};
	VkPhysicalDeviceMemoryProperties2 props = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
	    .pNext = &budget,
	};
	vkGetPhysicalDeviceMemoryProperties2(vk->phys, &props);
	double used = 0, avail = 0;
	const VkPhysicalDeviceMemoryProperties *m = &props.memoryProperties;
	for (uint32_t i = 0; i < m->memoryHeapCount; i++)
		if (m->memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
			used += (double)budget.heapUsage[i];
			avail += (double)budget.heapBudget[i];
		}
	*used_b = used;
	*budget_b = avail;
	return 0;
}
