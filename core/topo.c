/*
 * core/topo.c - host topology and PCI device locality through hwloc 2.
 *
 * hwloc attaches each PCI device below the CPU-side object (package, NUMA
 * group or the machine) whose CPUs are local to it; the device's locality
 * is that "non-I/O ancestor".  When the platform knows nothing (a VM with
 * numa_node = -1) that ancestor is the whole machine, which we report
 * with low confidence rather than as a fact.
 */
#include "core/topo.h"
#include "core/error.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct ax_topo {
	hwloc_topology_t h;
	struct ax_topo_host host;
};

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static int nb(const struct ax_topo *t, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(t->h, type);

	return n > 0 ? n : 0;
}

static int64_t llc_bytes(hwloc_topology_t h)
{
	static const hwloc_obj_type_t levels[] = {
	    HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
	    HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE,
	};

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		hwloc_obj_t c = hwloc_get_obj_by_type(h, levels[i], 0);

		if (c && c->attr)
			return (int64_t)c->attr->cache.size;
	}
	return 0;
}

/* The summary is computed once at load; hwloc's own infos first, the
 * C library where hwloc says nothing. */
static void load_host(struct ax_topo *t)
{
	struct ax_topo_host *s = &t->host;
	hwloc_obj_t root = hwloc_get_root_obj(t->h);
	hwloc_obj_t pkg = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, 0);
	const char *name = hwloc_obj_get_info_by_name(root, "HostName");
	const char *osn = hwloc_obj_get_info_by_name(root, "OSName");
	const char *rel = hwloc_obj_get_info_by_name(root, "OSRelease");
	const char *arch = hwloc_obj_get_info_by_name(root, "Architecture");
	struct utsname u;

	if ((!name || !osn) && uname(&u) == 0) {
		name = name ? name : u.nodename;
		if (!osn) {
			snprintf(s->os, sizeof(s->os), "%s %s %s", u.sysname,
				 u.release, u.machine);
		}
	}
	copy_str(s->hostname, sizeof(s->hostname), name);
	if (osn)
		snprintf(s->os, sizeof(s->os), "%s%s%s%s%s", osn,
			 rel ? " " : "", rel ? rel : "", arch ? " " : "",
			 arch ? arch : "");
	copy_str(s->cpu_model, sizeof(s->cpu_model),
		 pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL);
	/* /proc/cpuinfo pads some model names with blanks. */
	for (size_t n = strlen(s->cpu_model);
	     n > 0 && s->cpu_model[n - 1] == ' ';)
		s->cpu_model[--n] = '\0';
	s->packages = nb(t, HWLOC_OBJ_PACKAGE);
	s->cores = nb(t, HWLOC_OBJ_CORE);
	s->pus = nb(t, HWLOC_OBJ_PU);
	s->numa_nodes = nb(t, HWLOC_OBJ_NUMANODE);
	s->memory_bytes = (int64_t)root->total_memory;
	s->llc_bytes = llc_bytes(t->h);
	hwloc_bitmap_list_snprintf(s->cpuset, sizeof(s->cpuset), root->cpuset);
}

int ax_topo_create(struct ax_topo **out, char *err, size_t errlen)
{
	struct ax_topo *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return ax_errf(err, errlen, AX_ENOMEM, "out of memory");
	if (hwloc_topology_init(&t->h) != 0) {
		free(t);
		return ax_errf(err, errlen, AX_EIO,
			       "hwloc: cannot initialise a topology");
	}
	/* Bridges and OS devices only as far as they lead to something;
	 * every PCI function, so that any bus id a driver reports can be
	 * looked up. */
	hwloc_topology_set_io_types_filter(t->h,
					   HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	hwloc_topology_set_type_filter(t->h, HWLOC_OBJ_PCI_DEVICE,
				       HWLOC_TYPE_FILTER_KEEP_ALL);
	if (hwloc_topology_load(t->h) != 0) {
		hwloc_topology_destroy(t->h);
		free(t);
		return ax_errf(err, errlen, AX_EIO,
			       "hwloc: cannot read this machine's topology "
			       "(is /sys mounted?)");
	}
	load_host(t);
	*out = t;
	return 0;
}

void ax_topo_destroy(struct ax_topo *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->h);
	free(t);
}

void ax_topo_host(const struct ax_topo *t, struct ax_topo_host *out)
{
	*out = t->host;
}

/* ---- JSON -------------------------------------------------------------- */

static json_t *caches_json(hwloc_topology_t h)
{
	json_t *arr = json_array();

	for (int level = 1; level <= 5; level++) {
		hwloc_obj_type_t type = HWLOC_OBJ_L1CACHE + (level - 1);
		hwloc_obj_t c;
		int n;

		/* Data caches only: instruction caches do not hold the
		 * working sets we measure. */
		if (hwloc_get_type_depth(h, type) < 0)
			continue;
		c = hwloc_get_obj_by_type(h, type, 0);
		n = hwloc_get_nbobjs_by_type(h, type);
		if (!c || n <= 0)
			continue;
		json_array_append_new(
		    arr,
		    json_pack("{s:i, s:I, s:i}", "level", level, "bytes",
			      (json_int_t)c->attr->cache.size, "count", n));
	}
	return arr;
}

static json_t *numa_json(hwloc_topology_t h)
{
	json_t *arr = json_array();
	hwloc_obj_t node = NULL;

	while (
	    (node = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, node))) {
		char cpus[256];

		hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), node->cpuset);
		json_array_append_new(
		    arr, json_pack(
			     "{s:i, s:s, s:I}", "os_index", (int)node->os_index,
			     "cpuset", cpus, "memory_bytes",
			     (json_int_t)node->attr->numanode.local_memory));
	}
	return arr;
}

static void format_busid(hwloc_obj_t pci, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain,
		 pci->attr->pcidev.bus, pci->attr->pcidev.dev,
		 pci->attr->pcidev.func);
}

static json_t *pci_json(hwloc_topology_t h)
{
	json_t *arr = json_array();
	hwloc_obj_t pci = NULL;

	while ((pci = hwloc_get_next_pcidev(h, pci))) {
		char bus[32], cls[8];
		json_t *o;

		format_busid(pci, bus, sizeof(bus));
		snprintf(cls, sizeof(cls), "%04x", pci->attr->pcidev.class_id);
		o = json_pack("{s:s, s:s, s:i, s:i}", "bus_id", bus, "class",
			      cls, "vendor_id", pci->attr->pcidev.vendor_id,
			      "device_id", pci->attr->pcidev.device_id);
		json_object_set_new(o, "name",
				    pci->name ? json_string(pci->name)
					      : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *ax_topo_host_json(const struct ax_topo *t)
{
	const struct ax_topo_host *s = &t->host;
	json_t *o = json_pack(
	    "{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:I, s:s}", "hostname",
	    s->hostname, "os", s->os, "cpu_model", s->cpu_model, "packages",
	    s->packages, "cores", s->cores, "pus", s->pus, "numa_nodes",
	    s->numa_nodes, "memory_bytes", (json_int_t)s->memory_bytes,
	    "llc_bytes", (json_int_t)s->llc_bytes, "cpuset", s->cpuset);

	if (!o)
		return NULL;
	json_object_set_new(o, "caches", caches_json(t->h));
	json_object_set_new(o, "numa", numa_json(t->h));
	json_object_set_new(o, "pci_devices", pci_json(t->h));
	return o;
}

const char *ax_topo_confidence_name(enum ax_topo_confidence c)
{
	return c == AX_TOPO_CONF_HIGH ? "high" : "low";
}

json_t *ax_topo_locality_json(const struct ax_topo_locality *l)
{
	json_t *o = json_pack("{s:b, s:b, s:s, s:s, s:i, s:i, s:s}", "found",
			      l->found, "whole_machine", l->whole_machine,
			      "numa_nodes", l->numa_nodes, "cpuset", l->cpuset,
			      "cores", l->cores, "pus", l->pus, "confidence",
			      ax_topo_confidence_name(l->confidence));

	if (!o)
		return NULL;
	json_object_set_new(o, "pci_bus_id",
			    l->pci_bus_id[0] ? json_string(l->pci_bus_id)
					     : json_null());
	json_object_set_new(o, "numa_node",
			    l->numa_node >= 0 ? json_integer(l->numa_node)
					      : json_null());
	json_object_set_new(
	    o, "reason", l->reason[0] ? json_string(l->reason) : json_null());
	return o;
}

/* ---- locality ---------------------------------------------------------- */

static void fill_from(const struct ax_topo *t, hwloc_obj_t obj,
		      struct ax_topo_locality *out)
{
	hwloc_obj_t root = hwloc_get_root_obj(t->h);

	hwloc_bitmap_list_snprintf(out->cpuset, sizeof(out->cpuset),
				   obj->cpuset);
	hwloc_bitmap_list_snprintf(out->numa_nodes, sizeof(out->numa_nodes),
				   obj->nodeset);
	out->numa_node = hwloc_bitmap_first(obj->nodeset);
	out->pus = hwloc_bitmap_weight(obj->cpuset);
	out->cores = hwloc_get_nbobjs_inside_cpuset_by_type(t->h, obj->cpuset,
							    HWLOC_OBJ_CORE);
	out->whole_machine = hwloc_bitmap_isequal(obj->cpuset, root->cpuset);
}

/* The fallback answer: the whole machine, with low confidence.  On a
 * machine of several NUMA nodes, which one is local is unknown. */
static void whole_machine(const struct ax_topo *t, struct ax_topo_locality *out,
			  const char *why)
{
	fill_from(t, hwloc_get_root_obj(t->h), out);
	if (t->host.numa_nodes > 1)
		out->numa_node = -1;
	out->confidence = AX_TOPO_CONF_LOW;
	snprintf(out->reason, sizeof(out->reason), "%s", why);
}

/* Whether sscanf matched n fields and nothing is left over. */
static bool whole_match(const char *s, int got, int n, int used)
{
	return got == n && used >= 0 && s[used] == '\0';
}

/* Parse "dddd:bb:dd.f" or "bb:dd.f" (hex); 0 or -1. */
static int parse_busid(const char *s, unsigned *dom, unsigned *bus,
		       unsigned *dev, unsigned *fn)
{
	int used = -1, got;

	/* sscanf's %x takes a sign and spaces; a bus id has neither. */
	if (strspn(s, "0123456789abcdefABCDEF:.") != strlen(s))
		return -1;
	got = sscanf(s, "%x:%x:%x.%x%n", dom, bus, dev, fn, &used);
	if (!whole_match(s, got, 4, used)) {
		*dom = 0;
		used = -1;
		got = sscanf(s, "%x:%x.%x%n", bus, dev, fn, &used);
		if (!whole_match(s, got, 3, used))
			return -1;
	}
	if (*dom > 0xffff || *bus > 0xff || *dev > 0x1f || *fn > 7)
		return -1;
	return 0;
}

int ax_topo_locality(const struct ax_topo *t, const char *pci_bus_id,
		     struct ax_topo_locality *out)
{
	unsigned dom, bus, dev, fn;
	hwloc_obj_t pci, anc;
	char why[256];

	memset(out, 0, sizeof(*out));
	if (!pci_bus_id || !*pci_bus_id) {
		whole_machine(t, out,
			      "driver gives no PCI bus id; locality "
			      "is the whole machine");
		return 0;
	}
	if (parse_busid(pci_bus_id, &dom, &bus, &dev, &fn) != 0) {
		snprintf(why, sizeof(why),
			 "PCI bus id \"%.64s\" is not dddd:bb:dd.f; locality "
			 "is the whole machine",
			 pci_bus_id);
		whole_machine(t, out, why);
		return AX_EINVAL;
	}
	snprintf(out->pci_bus_id, sizeof(out->pci_bus_id),
		 "%04x:%02x:%02x.%01x", dom, bus, dev, fn);
	pci = hwloc_get_pcidev_by_busid(t->h, dom, bus, dev, fn);
	if (!pci) {
		snprintf(why, sizeof(why),
			 "hwloc sees no PCI device %s; locality is the "
			 "whole machine",
			 out->pci_bus_id);
		whole_machine(t, out, why);
		return 0;
	}
	out->found = true;
	anc = hwloc_get_non_io_ancestor_obj(t->h, pci);
	fill_from(t, anc, out);
	if (!out->whole_machine) {
		out->confidence = AX_TOPO_CONF_HIGH;
		return 0;
	}
	/* All CPUs local: either the platform said nothing (numa_node -1,
	 * as in VMs) or there is only one node; either way nothing narrower
	 * is known, so placement should not lean on it. */
	out->confidence = AX_TOPO_CONF_LOW;
	if (t->host.numa_nodes > 1)
		out->numa_node = -1;
	snprintf(out->reason, sizeof(out->reason),
		 "the platform gives %s no locality narrower than the "
		 "machine (%s); locality is the whole machine",
		 out->pci_bus_id,
		 t->host.numa_nodes > 1 ? "numa_node unknown, as in VMs"
					: "it has one NUMA node");
	return 0;
}

/* ---- binding ----------------------------------------------------------- */

int ax_topo_bind_list(const struct ax_topo *t,
		      const struct ax_topo_locality *loc, char *out, size_t len,
		      char *why, size_t whylen)
{
	snprintf(out, len, "%s", "");
	if (loc->confidence != AX_TOPO_CONF_HIGH)
		return ax_errf(why, whylen, AX_ENOTFOUND, "%s", loc->reason);
	hwloc_bitmap_t local = hwloc_bitmap_alloc();
	hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
	int rc = AX_ENOMEM;
	if (!local || !allowed) {
		ax_errf(why, whylen, rc, "out of memory");
		goto out;
	}
	rc = AX_ENOTFOUND;
	if (hwloc_bitmap_list_sscanf(local, loc->cpuset) != 0) {
		ax_errf(why, whylen, rc,
			"the local CPU list \"%.64s\" of %s "
			"does not parse",
			loc->cpuset, loc->pci_bus_id);
		goto out;
	}
	/* Without a binding of its own the process may use every CPU of
	 * the topology (which hwloc already restricted to the allowed
	 * ones). */
	if (hwloc_get_cpubind(t->h, allowed, HWLOC_CPUBIND_PROCESS) != 0)
		hwloc_bitmap_copy(allowed,
				  hwloc_topology_get_allowed_cpuset(t->h));
	hwloc_bitmap_and(local, local, allowed);
	if (hwloc_bitmap_iszero(local)) {
		char mine[256];
		hwloc_bitmap_list_snprintf(mine, sizeof(mine), allowed);
		ax_errf(why, whylen, rc,
			"none of the CPUs local to %s (%s) "
			"is among the CPUs this process may use (%s)",
			loc->pci_bus_id, loc->cpuset, mine);
		goto out;
	}
	hwloc_bitmap_list_snprintf(out, len, local);
	rc = 0;
out:
	hwloc_bitmap_free(local);
	hwloc_bitmap_free(allowed);
	return rc;
}
