/*
 * core/topo.h - the host machine as hwloc sees it, and where a PCI device
 * sits in it.
 *
 * The only module that includes hwloc.h.  The topology is loaded once,
 * with PCI devices, and answers two questions: what is this host (for the
 * database's host row and the report's system table), and which NUMA
 * node(s) and CPUs are local to a device given by PCI bus id (for
 * `axbench devices` and `axbench recommend`).
 *
 * "No locality information" is a normal answer, not an error: drivers
 * without VK_EXT_pci_bus_info (lavapipe) give no bus id, and VMs report
 * numa_node = -1 with every CPU local.  Such answers say "whole machine",
 * carry AX_TOPO_CONF_LOW and a reason a person can read.
 */
#ifndef AX_TOPO_H
#define AX_TOPO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ax_topo;

/* Summary of the host.  Strings are "" when hwloc does not know. */
struct ax_topo_host {
	char hostname[256];
	char os[256];	     /* "Linux 6.1.0-18-amd64 x86_64" */
	char cpu_model[256]; /* of the first package */
	int packages, cores, pus, numa_nodes;
	int64_t memory_bytes; /* total over NUMA nodes */
	int64_t llc_bytes;    /* one last-level cache; 0 if unknown */
	char cpuset[256];     /* all PUs as a list, e.g. "0-1" */
};

enum ax_topo_confidence {
	AX_TOPO_CONF_LOW,  /* whole machine, for want of information */
	AX_TOPO_CONF_HIGH, /* the platform states the device's locality */
};

/* Where a device sits.  Lists are hwloc list strings ("0-3,8"). */
struct ax_topo_locality {
	char pci_bus_id[32]; /* normalised "dddd:bb:dd.f"; "" without one */
	bool found;	     /* the bus id names a PCI device hwloc knows */
	bool whole_machine;  /* the local CPUs are all CPUs */
	char numa_nodes[64]; /* OS indexes of the local NUMA nodes */
	int numa_node;	     /* the first of them, -1 when unknown */
	char cpuset[256];    /* OS indexes of the local PUs */
	int cores, pus;	     /* local cores and PUs */
	enum ax_topo_confidence confidence;
	char reason[256]; /* why confidence is low; "" when high */
};

/*
 * Load the topology of this machine with its PCI devices.  *out is the
 * caller's to ax_topo_destroy.  On failure (hwloc cannot read the
 * machine) returns AX_EIO with a message in err.
 */
int ax_topo_create(struct ax_topo **out, char *err, size_t errlen);
void ax_topo_destroy(struct ax_topo *t);

/* Fill *out with the host summary.  Never fails once loaded. */
void ax_topo_host(const struct ax_topo *t, struct ax_topo_host *out);

/*
 * The host as a JSON object (a new reference), for the host row's
 * topology_json and `--json` output: the ax_topo_host fields plus
 * "caches" [{"level","bytes","count"}], "numa" [{"os_index","cpuset",
 * "memory_bytes"}] and "pci_devices" [{"bus_id","class","vendor_id",
 * "device_id","name"}].  NULL only when out of memory.
 */
json_t *ax_topo_host_json(const struct ax_topo *t);

/*
 * Locality of the PCI device pci_bus_id ("dddd:bb:dd.f" or "bb:dd.f",
 * hexadecimal; NULL or "" when the driver gives none).  *out is always
 * filled: with the whole machine, AX_TOPO_CONF_LOW and a reason when
 * there is no bus id, no such device, or the platform gives the device
 * no locality narrower than the machine.  Returns 0, or AX_EINVAL (out
 * still filled as for an unknown device) when pci_bus_id is not in
 * either form.
 */
int ax_topo_locality(const struct ax_topo *t, const char *pci_bus_id,
		     struct ax_topo_locality *out);

/* out as a JSON object with the field names above and "confidence"
 * "high" / "low" (a new reference; NULL only when out of memory). */
json_t *ax_topo_locality_json(const struct ax_topo_locality *out);

/*
 * The CPUs of loc that this process may run on, as a list ("0-3") into
 * out: loc's cpuset intersected with the process's current binding, which
 * a batch scheduler (Slurm's task plugin, a cgroup) may have narrowed, so
 * that `taskset -c` with the answer never asks for a CPU the task was not
 * given.  Returns 0, or AX_ENOTFOUND with the reason in why (out "") when
 * there is nothing to bind to: loc has low confidence (its "locality" is
 * the whole machine for want of information), or none of its CPUs is
 * allowed here.
 */
int ax_topo_bind_list(const struct ax_topo *t,
		      const struct ax_topo_locality *loc, char *out, size_t len,
		      char *why, size_t whylen);

/* "high" or "low". */
const char *ax_topo_confidence_name(enum ax_topo_confidence c);

#endif
