/* cli/cmd_devices.c - `axbench devices`: every Vulkan device, in full. */
#include "cli/cli.h"

#include "core/topo.h"
#include "core/vk.h"

#include <stdlib.h>
#include <string.h>

static json_t *api_version_json(uint32_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%u.%u.%u", VK_API_VERSION_MAJOR(v),
		 VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
	return json_string(buf);
}

static json_t *memory_json(const VkPhysicalDeviceMemoryProperties *m)
{
	json_t *heaps = json_array(), *types = json_array();
	for (uint32_t i = 0; i < m->memoryHeapCount; i++)
		json_array_append_new(
			heaps,
			json_pack("{s:I,s:b}", "size",
				  (json_int_t)m->memoryHeaps[i].size,
				  "device_local",
				  (m->memoryHeaps[i].flags &
				   VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0));
	for (uint32_t i = 0; i < m->memoryTypeCount; i++) {
		VkMemoryPropertyFlags f = m->memoryTypes[i].propertyFlags;
		json_array_append_new(
			types,
			json_pack("{s:i,s:b,s:b,s:b,s:b}", "heap",
				  (int)m->memoryTypes[i].heapIndex,
				  "device_local",
				  (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0,
				  "host_visible",
				  (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0,
				  "host_coherent",
				  (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0,
				  "host_cached",
				  (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0));
	}
	return json_pack("{s:o,s:o}", "heaps", heaps, "types", types);
}

static json_t *queues_json(const struct ax_vk_device_info *d)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < d->n_queue_families; i++) {
		const struct ax_vk_queue_family *q = &d->queue_families[i];
		json_t *flags = json_array();
		if (q->flags & VK_QUEUE_GRAPHICS_BIT)
			json_array_append_new(flags, json_string("graphics"));
		if (q->flags & VK_QUEUE_COMPUTE_BIT)
			json_array_append_new(flags, json_string("compute"));
		if (q->flags & VK_QUEUE_TRANSFER_BIT)
			json_array_append_new(flags, json_string("transfer"));
		json_array_append_new(
			a, json_pack("{s:i,s:o,s:i,s:i}", "family", (int)i,
				     "flags", flags, "count", (int)q->count,
				     "timestamp_valid_bits",
				     (int)q->timestamp_valid_bits));
	}
	return a;
}

static json_t *limits_json(const struct ax_vk_device_info *d)
{
	const VkPhysicalDeviceLimits *l = &d->limits;
	return json_pack(
		"{s:i,s:i,s:[i,i,i],s:[i,i,i],s:I,s:I,s:i,s:f}",
		"max_shared_memory", (int)l->maxComputeSharedMemorySize,
		"max_invocations", (int)l->maxComputeWorkGroupInvocations,
		"max_workgroup_size", (int)l->maxComputeWorkGroupSize[0],
		(int)l->maxComputeWorkGroupSize[1],
		(int)l->maxComputeWorkGroupSize[2], "max_workgroup_count",
		(int)l->maxComputeWorkGroupCount[0],
		(int)l->maxComputeWorkGroupCount[1],
		(int)l->maxComputeWorkGroupCount[2],
		"max_storage_buffer_range", (json_int_t)l->maxStorageBufferRange,
		"max_memory_allocation_size",
		(json_int_t)d->max_memory_allocation_size, "max_push_constants",
		(int)l->maxPushConstantsSize, "timestamp_period_ns",
		(double)l->timestampPeriod);
}

json_t *ax_cli_device_json(const struct ax_vk_device_info *d,
			   const struct ax_topo *topo)
{
	json_t *o = json_pack(
		"{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:s,s:s,s:o,s:s,s:s,s:s}",
		"index", d->index, "name", d->name, "fingerprint",
		d->fingerprint, "vendor", d->vendor, "type",
		ax_vk_device_type_name(d->type), "vendor_id", (int)d->vendor_id,
		"device_id", (int)d->device_id, "driver_name", d->driver_name,
		"driver_info", d->driver_info, "driver_version",
		d->driver_version_text, "api_version",
		api_version_json(d->api_version), "device_uuid", d->device_uuid,
		"driver_uuid", d->driver_uuid, "pci_bus_id", d->pci_bus_id);
	if (!d->pci_bus_id[0])
		json_object_set_new(o, "pci_bus_id", json_null());
	json_object_set_new(o, "memory", memory_json(&d->memory));
	json_object_set_new(o, "queue_families", queues_json(d));
	json_object_set_new(o, "subgroup_size", json_integer(d->subgroup_size));
	json_object_set_new(o, "limits", limits_json(d));
	json_object_set_new(
		o, "features",
		json_pack("{s:b,s:b,s:b,s:b,s:b,s:b}", "fp16", d->fp16_arith,
			  "storage16", d->storage16, "int8", d->int8_arith,
			  "storage8", d->storage8, "cooperative_matrix",
			  d->coopmat, "timestamps", d->timestamps));
	if (topo) {
		struct ax_topo_locality loc;
		ax_topo_locality(topo, d->pci_bus_id[0] ? d->pci_bus_id : NULL,
				 &loc);
		json_object_set_new(o, "locality", ax_topo_locality_json(&loc));
	}
	return o;
}

static void print_size(FILE *out, const char *label, uint64_t bytes)
{
	fprintf(out, "    %-28s %.1f MiB\n", label,
		(double)bytes / (1024.0 * 1024.0));
}

static void print_device(const struct ax_vk_device_info *d,
			 const struct ax_topo *topo)
{
	const VkPhysicalDeviceLimits *l = &d->limits;
	printf("%d: %s\n", d->index, d->name);
	printf("    %-28s %s (0x%04x), device 0x%04x, %s\n", "vendor",
	       d->vendor, d->vendor_id, d->device_id,
	       ax_vk_device_type_name(d->type));
	printf("    %-28s %s %s (%s)\n", "driver", d->driver_name,
	       d->driver_version_text, d->driver_info);
	printf("    %-28s %u.%u.%u\n", "Vulkan API",
	       VK_API_VERSION_MAJOR(d->api_version),
	       VK_API_VERSION_MINOR(d->api_version),
	       VK_API_VERSION_PATCH(d->api_version));
	printf("    %-28s %s\n", "device UUID", d->device_uuid);
	printf("    %-28s %s\n", "driver UUID", d->driver_uuid);
	printf("    %-28s %s\n", "PCI bus id",
	       d->pci_bus_id[0] ? d->pci_bus_id
				: "none (driver lacks VK_EXT_pci_bus_info)");
	printf("    %-28s %s\n", "fingerprint", d->fingerprint);
	for (uint32_t i = 0; i < d->memory.memoryHeapCount; i++) {
		char label[32];
		snprintf(label, sizeof(label), "memory heap %u%s", i,
			 (d->memory.memoryHeaps[i].flags &
			  VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
				 ? " (device)"
				 : "");
		print_size(stdout, label, d->memory.memoryHeaps[i].size);
	}
	printf("    %-28s %u types\n", "memory types",
	       d->memory.memoryTypeCount);
	for (uint32_t i = 0; i < d->n_queue_families; i++) {
		VkQueueFlags f = d->queue_families[i].flags;
		printf("    queue family %-15u %s%s%s x%u\n", i,
		       f & VK_QUEUE_GRAPHICS_BIT ? "graphics " : "",
		       f & VK_QUEUE_COMPUTE_BIT ? "compute " : "",
		       f & VK_QUEUE_TRANSFER_BIT ? "transfer" : "",
		       d->queue_families[i].count);
	}
	printf("    %-28s %u\n", "subgroup size", d->subgroup_size);
	printf("    %-28s %u bytes\n", "shared memory",
	       l->maxComputeSharedMemorySize);
	printf("    %-28s %u (size %u x %u x %u)\n", "workgroup invocations",
	       l->maxComputeWorkGroupInvocations, l->maxComputeWorkGroupSize[0],
	       l->maxComputeWorkGroupSize[1], l->maxComputeWorkGroupSize[2]);
	print_size(stdout, "maxStorageBufferRange", l->maxStorageBufferRange);
	print_size(stdout, "maxMemoryAllocationSize",
		   d->max_memory_allocation_size);
	printf("    %-28s fp16 %s, int8 %s, cooperative matrix %s\n",
	       "features", d->fp16_arith ? "yes" : "no",
	       d->int8_arith ? "yes" : "no", d->coopmat ? "yes" : "no");
	printf("    %-28s %s (period %.3g ns)\n", "timestamps",
	       d->timestamps ? "yes" : "no", (double)l->timestampPeriod);
	if (topo) {
		struct ax_topo_locality loc;
		ax_topo_locality(topo, d->pci_bus_id[0] ? d->pci_bus_id : NULL,
				 &loc);
		printf("    %-28s NUMA %s, CPUs %s (%d cores)%s%s\n",
		       "locality",
		       loc.numa_nodes[0] ? loc.numa_nodes : "unknown",
		       loc.cpuset, loc.cores,
		       loc.whole_machine ? ": whole machine - " : "",
		       loc.whole_machine ? loc.reason : "");
	}
}

extern const struct ax_cli_cmd ax_cmd_devices;

static int devices_main(struct ax_cli *cli, int argc, char **argv)
{
	struct ax_cli_iter it;
	ax_cli_iter_init(&it, cli, &ax_cmd_devices, argc, argv);
	int opt = ax_cli_next(&it);
	int end = ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (end != AX_CLI_CONTINUE)
		return end;
	struct ax_vk_instance *inst;
	int rc = ax_cli_open_vk(cli, &inst, NULL);
	if (rc)
		return rc;
	struct ax_topo *topo = NULL;
	char err[256];
	if (ax_topo_create(&topo, err, sizeof(err)))
		fprintf(stderr, "axbench: no topology: %s\n", err);
	int n = ax_vk_device_count(inst);
	if (cli->json) {
		json_t *a = json_array();
		for (int i = 0; i < n; i++)
			json_array_append_new(
				a, ax_cli_device_json(ax_vk_device_info(inst, i),
						      topo));
		json_dumpf(a, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(a);
	} else {
		for (int i = 0; i < n; i++)
			print_device(ax_vk_device_info(inst, i), topo);
	}
	ax_topo_destroy(topo);
	rc = ax_cli_check_validation(cli, inst, AX_EXIT_OK);
	ax_vk_instance_destroy(inst);
	return rc;
}

static const struct ax_cli_opt devices_opts[] = {{0}};

const struct ax_cli_cmd ax_cmd_devices = {
	.name = "devices",
	.summary = "list every Vulkan device with its limits and locality",
	.usage = "[--json]",
	.details = "Devices are keyed by UUID, PCI bus id or fingerprint; the "
		   "index is the\nVulkan enumeration order and may change "
		   "with drivers and layers.",
	.opts = devices_opts,
	.fn = devices_main,
};
