/* cli/cmd_devices.c - `axbench devices`: every Vulkan device, in full. */
#include "cli/cli.h"

#include "core/text.h"
#include "core/topo.h"
#include "core/vk.h"

#include <stdio.h>

/* The device's locality, when the topology is known (NULL when not). */
static const struct ax_topo_locality *
device_locality(const struct ax_vk_device_info *d, const struct ax_topo *topo,
		struct ax_topo_locality *loc)
{
	if (!topo)
		return NULL;
	ax_topo_locality(topo, d->pci_bus_id[0] ? d->pci_bus_id : NULL, loc);
	return loc;
}

/* --json: the device document with its locality. */
static void print_json(const struct ax_vk_instance *inst,
		       const struct ax_topo *topo)
{
	json_t *a = json_array();
	for (int i = 0; i < ax_vk_device_count(inst); i++) {
		const struct ax_vk_device_info *d = ax_vk_device_info(inst, i);
		struct ax_topo_locality loc;
		json_t *o = ax_vk_device_json(d);
		if (o && device_locality(d, topo, &loc))
			json_object_set_new(o, "locality",
					    ax_topo_locality_json(&loc));
		json_array_append_new(a, o);
	}
	json_dumpf(a, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(a);
}

static void print_size(const char *label, double bytes)
{
	printf("    %-28s %.1f MiB\n", label, bytes / (1024.0 * 1024.0));
}

static void print_memory(const struct ax_vk_device_info *d)
{
	for (uint32_t i = 0; i < d->memory.memoryHeapCount; i++) {
		char label[48];
		snprintf(label, sizeof(label), "memory heap %u%s", i,
			 ax_vk_heap_device_local(d, i) ? " (device)" : "");
		print_size(label, (double)d->memory.memoryHeaps[i].size);
	}
	printf("    %-28s %u types\n", "memory types",
	       d->memory.memoryTypeCount);
}

static void print_queues(const struct ax_vk_device_info *d)
{
	for (uint32_t i = 0; i < d->n_queue_families; i++) {
		const struct ax_vk_queue_family *q = &d->queue_families[i];
		char flags[64];
		ax_vk_queue_flags_text(q->flags, flags, sizeof(flags));
		printf("    queue family %-15u %s x%u\n", i, flags, q->count);
	}
}

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

static void print_limits(const struct ax_vk_device_info *d)
{
	const uint32_t *size = d->limits.maxComputeWorkGroupSize;
	printf("    %-28s %u\n", "subgroup size", d->subgroup_size);
	printf("    %-28s %u bytes\n", "shared memory",
	       d->limits.maxComputeSharedMemorySize);
	printf("    %-28s %u (size %u x %u x %u)\n", "workgroup invocations",
	       d->limits.maxComputeWorkGroupInvocations, size[0], size[1],
	       size[2]);
	print_size("maxStorageBufferRange",
		   (double)d->limits.maxStorageBufferRange);
	print_size("maxMemoryAllocationSize",
		   (double)d->max_memory_allocation_size);
	printf("    %-28s fp16 %s, int8 %s, cooperative matrix %s "
	       "(KHR) %s (NV)\n",
	       "features", yes_no(d->fp16_arith), yes_no(d->int8_arith),
	       yes_no(d->coopmat), yes_no(d->coopmat_nv));
	printf("    %-28s fp64 %s, int64 %s, int16 %s, int8 dot product "
	       "%s\n",
	       "", yes_no(d->fp64_arith), yes_no(d->int64_arith),
	       yes_no(d->int16_arith), yes_no(d->int_dot));
	if (d->subgroup_size_control)
		printf("    %-28s %u..%u%s\n", "required subgroup sizes",
		       d->subgroup_size_min, d->subgroup_size_max,
		       d->compute_full_subgroups ? " (full subgroups too)"
						 : "");
	printf("    %-28s %s (period %.3g ns)\n", "timestamps",
	       yes_no(d->timestamps), (double)d->limits.timestampPeriod);
}

/* One line per shape: what kernel=coopmat's cm_m/cm_n/cm_k can be. */
static void print_coopmat(const struct ax_vk_device_info *d)
{
	const char *why = ax_vk_coopmat_absent(d);
	if (why)
		printf("    %-28s none: %s\n", "cooperative-matrix shapes",
		       why);
	for (uint32_t i = 0; i < d->n_coopmat_nv; i++) {
		const struct ax_vk_coopmat_shape *c = &d->coopmat_nv_shapes[i];
		printf("    %-28s %ux%ux%u  A %s B %s C %s D %s  %s "
		       "scope (%s)\n",
		       i ? "" : "cooperative-matrix shapes", c->m, c->n, c->k,
		       ax_vk_component_type_name(c->a),
		       ax_vk_component_type_name(c->b),
		       ax_vk_component_type_name(c->c),
		       ax_vk_component_type_name(c->d),
		       ax_vk_scope_name(c->scope), AX_VK_COOPMAT_NV_EXT);
	}
}

static void print_locality(const struct ax_topo_locality *loc)
{
	printf("    %-28s NUMA %s, CPUs %s (%d cores)%s%s\n", "locality",
	       loc->numa_nodes[0] ? loc->numa_nodes : "unknown",
	       ax_term(loc->cpuset), loc->cores,
	       loc->whole_machine ? ": whole machine - " : "",
	       loc->whole_machine ? ax_term(loc->reason) : "");
}

/* The text view, from the struct --json is written from; the driver's
 * text is shown with control characters and bidirectional overrides
 * escaped. */
static void print_device(const struct ax_vk_device_info *d,
			 const struct ax_topo_locality *loc)
{
	char api[32];
	ax_vk_api_version_text(d->api_version, api, sizeof(api));
	printf("%d: %s\n", d->index, ax_term(d->name));
	printf("    %-28s %s (0x%04x), device 0x%04x, %s\n", "vendor",
	       d->vendor, d->vendor_id, d->device_id,
	       ax_vk_device_type_name(d->type));
	printf("    %-28s %s %s (%s)\n", "driver", ax_term(d->driver_name),
	       d->driver_version_text, ax_term(d->driver_info));
	printf("    %-28s %s\n", "Vulkan API", api);
	printf("    %-28s %s\n", "device UUID", d->device_uuid);
	printf("    %-28s %s\n", "driver UUID", d->driver_uuid);
	printf("    %-28s %s\n", "PCI bus id",
	       d->pci_bus_id[0]
		   ? d->pci_bus_id
		   : "none (the driver does not report a PCI bus id)");
	printf("    %-28s %s\n", "fingerprint", d->fingerprint);
	if (d->group_size > 1)
		printf("    %-28s %d devices, from device %d "
		       "(VK_KHR_device_group)\n",
		       "device group", d->group_size, d->group_first);
	if (d->twin_of >= 0 && d->twin_of != d->index)
		printf("    %-28s device %d (told apart by their order: "
		       "twin %d)\n",
		       "identical to", d->twin_of, d->twin_rank);
	print_memory(d);
	print_queues(d);
	print_limits(d);
	print_coopmat(d);
	if (loc)
		print_locality(loc);
}

extern const struct ax_cli_cmd ax_cmd_devices;

static int devices_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	ax_cli_iter_init(&it, app, &ax_cmd_devices, argc, argv);
	int opt = ax_cli_next(&it);
	int end = ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (end != AX_CLI_CONTINUE)
		return end;
	struct ax_vk_instance *inst;
	int rc = ax_app_device(app, &inst, NULL);
	if (rc)
		return rc;
	struct ax_topo *topo = NULL;
	char err[256];
	if (ax_topo_create(&topo, err, sizeof(err)))
		fprintf(stderr, "axbench: no topology: %s\n", err);
	if (app->json)
		print_json(inst, topo);
	else
		for (int i = 0; i < ax_vk_device_count(inst); i++) {
			const struct ax_vk_device_info *d =
			    ax_vk_device_info(inst, i);
			struct ax_topo_locality loc;
			print_device(d, device_locality(d, topo, &loc));
		}
	ax_topo_destroy(topo);
	return AX_EXIT_OK;
}

static const struct ax_cli_opt devices_opts[] = {{0}};

const struct ax_cli_cmd ax_cmd_devices = {
    .name = "devices",
    .summary = "list every Vulkan device with its limits and locality",
    .usage = "[--json]",
    .details = "Devices are keyed by UUID, PCI bus id or fingerprint; the "
	       "index is the\nVulkan enumeration order and may change "
	       "with drivers and layers.",
    .examples =
	{"axbench devices                          # every device, with its "
	 "limits",
	 "axbench devices --json                   # the same, for scripts"},
    .opts = devices_opts,
    .needs = AX_APP_NEED_DEVICE,
    .fn = devices_main,
};
