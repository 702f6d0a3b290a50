/* cli/cmd_devices.c - `axbench devices`: every Vulkan device, in full. */
#include "cli/cli.h"

#include "core/text.h"
#include "core/topo.h"
#include "core/vk.h"

#include <stdlib.h>
#include <string.h>

/* The device document with its locality, when the topology is known. */
static json_t *device_json(const struct ax_vk_device_info *d,
			   const struct ax_topo *topo)
{
	json_t *o = ax_vk_device_json(d);
	if (o && topo) {
		struct ax_topo_locality loc;
		ax_topo_locality(topo, d->pci_bus_id[0] ? d->pci_bus_id : NULL,
				 &loc);
		json_object_set_new(o, "locality", ax_topo_locality_json(&loc));
	}
	return o;
}

/* A string of the device document, for the terminal: the driver's text
 * is shown with control characters and bidirectional overrides escaped. */
static const char *str(const json_t *o, const char *key)
{
	return ax_term(json_string_value(json_object_get(o, key)));
}

static long long num(const json_t *o, const char *key)
{
	return (long long)json_number_value(json_object_get(o, key));
}

static const char *yes_no(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key)) ? "yes" : "no";
}

static void print_size(const char *label, double bytes)
{
	printf("    %-28s %.1f MiB\n", label, bytes / (1024.0 * 1024.0));
}

static void print_memory(const json_t *d)
{
	const json_t *mem = json_object_get(d, "memory");
	const json_t *heaps = json_object_get(mem, "heaps"), *h;
	size_t i;
	json_array_foreach(heaps, i, h)
	{
		char label[48];
		snprintf(label, sizeof(label), "memory heap %zu%s", i,
			 json_is_true(json_object_get(h, "device_local"))
			     ? " (device)"
			     : "");
		print_size(label,
			   json_number_value(json_object_get(h, "size")));
	}
	printf("    %-28s %zu types\n", "memory types",
	       json_array_size(json_object_get(mem, "types")));
}

static void print_queues(const json_t *d)
{
	const json_t *q;
	size_t i;
	json_array_foreach(json_object_get(d, "queue_families"), i, q)
	{
		char flags[64] = "";
		const json_t *f;
		size_t k;
		json_array_foreach(json_object_get(q, "flags"), k, f) snprintf(
		    flags + strlen(flags), sizeof(flags) - strlen(flags),
		    "%s%s", k ? " " : "", json_string_value(f));
		printf("    queue family %-15zu %s x%lld\n", i, flags,
		       num(q, "count"));
	}
}

static void print_limits(const json_t *d)
{
	const json_t *l = json_object_get(d, "limits");
	const json_t *size = json_object_get(l, "max_workgroup_size");
	const json_t *feat = json_object_get(d, "features");
	printf("    %-28s %lld\n", "subgroup size", num(d, "subgroup_size"));
	printf("    %-28s %lld bytes\n", "shared memory",
	       num(l, "max_shared_memory"));
	printf("    %-28s %lld (size %lld x %lld x %lld)\n",
	       "workgroup invocations", num(l, "max_invocations"),
	       (long long)json_integer_value(json_array_get(size, 0)),
	       (long long)json_integer_value(json_array_get(size, 1)),
	       (long long)json_integer_value(json_array_get(size, 2)));
	print_size(
	    "maxStorageBufferRange",
	    json_number_value(json_object_get(l, "max_storage_buffer_range")));
	print_size("maxMemoryAllocationSize",
		   json_number_value(
		       json_object_get(l, "max_memory_allocation_size")));
	printf("    %-28s fp16 %s, int8 %s, cooperative matrix %s "
	       "(KHR) %s (NV)\n",
	       "features", yes_no(feat, "fp16"), yes_no(feat, "int8"),
	       yes_no(feat, "cooperative_matrix"),
	       yes_no(feat, "cooperative_matrix_nv"));
	printf("    %-28s %s (period %.3g ns)\n", "timestamps",
	       yes_no(feat, "timestamps"),
	       json_number_value(json_object_get(l, "timestamp_period_ns")));
}

/* One line per shape: what kernel=coopmat's cm_m/cm_n/cm_k can be. */
static void print_coopmat(const json_t *d)
{
	const json_t *shapes = json_object_get(d, "cooperative_matrix_shapes");
	size_t i;
	const json_t *c;
	json_array_foreach(shapes, i, c)
	{
		printf("    %-28s %lldx%lldx%lld  A %s B %s C %s D %s  %s "
		       "scope (%s)\n",
		       i ? "" : "cooperative-matrix shapes", num(c, "m"),
		       num(c, "n"), num(c, "k"), str(c, "a"), str(c, "b"),
		       str(c, "c"), str(c, "d"), str(c, "scope"),
		       str(c, "extension"));
	}
}

static void print_locality(const json_t *d)
{
	const json_t *loc = json_object_get(d, "locality");
	if (!loc)
		return;
	const json_t *nodes = json_object_get(loc, "numa_nodes");
	bool whole = json_is_true(json_object_get(loc, "whole_machine"));
	printf("    %-28s NUMA %s, CPUs %s (%lld cores)%s%s\n", "locality",
	       json_is_string(nodes) && *json_string_value(nodes)
		   ? json_string_value(nodes)
		   : "unknown",
	       str(loc, "cpuset"), num(loc, "cores"),
	       whole ? ": whole machine - " : "",
	       whole ? str(loc, "reason") : "");
}

/* The text view, from the same document as --json. */
static void print_device(const json_t *d)
{
	printf("%lld: %s\n", num(d, "index"), str(d, "name"));
	printf("    %-28s %s (0x%04llx), device 0x%04llx, %s\n", "vendor",
	       str(d, "vendor"), num(d, "vendor_id"), num(d, "device_id"),
	       str(d, "type"));
	printf("    %-28s %s %s (%s)\n", "driver", str(d, "driver_name"),
	       str(d, "driver_version"), str(d, "driver_info"));
	printf("    %-28s %s\n", "Vulkan API", str(d, "api_version"));
	printf("    %-28s %s\n", "device UUID", str(d, "device_uuid"));
	printf("    %-28s %s\n", "driver UUID", str(d, "driver_uuid"));
	printf("    %-28s %s\n", "PCI bus id",
	       json_is_string(json_object_get(d, "pci_bus_id"))
		   ? str(d, "pci_bus_id")
		   : "none (the driver does not report a PCI bus id)");
	printf("    %-28s %s\n", "fingerprint", str(d, "fingerprint"));
	print_memory(d);
	print_queues(d);
	print_limits(d);
	print_coopmat(d);
	print_locality(d);
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
	json_t *a = json_array();
	for (int i = 0; i < ax_vk_device_count(inst); i++)
		json_array_append_new(
		    a, device_json(ax_vk_device_info(inst, i), topo));
	if (app->json) {
		json_dumpf(a, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		size_t i;
		json_t *d;
		json_array_foreach(a, i, d) print_device(d);
	}
	json_decref(a);
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
