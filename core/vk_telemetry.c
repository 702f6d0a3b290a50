/* core/vk_telemetry.c - a Vulkan device as core/telemetry names it, so
 * that the telemetry module itself needs no Vulkan header. */
#include "core/telemetry.h"
#include "core/vk.h"

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
