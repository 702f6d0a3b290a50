/*
 * tests/unit/test_topo.c - core/topo on the machine the tests run on.
 * Only facts true of every Linux machine are asserted (at least one core,
 * a cpuset covering the PUs), plus the "no locality" answers.
 */
#include "core/error.h"
#include "core/topo.h"
#include "tests/unit/ax_test.h"

#include <unistd.h>

static struct ax_topo *load(void)
{
	char err[256] = "";
	struct ax_topo *t = NULL;
	int rc = ax_topo_create(&t, err, sizeof(err));

	if (rc)
		printf("#   ax_topo_create: %s\n", err);
	AX_CHECK_INT(rc, 0);
	return t;
}

static void host_summary(void)
{
	struct ax_topo *t = load();
	struct ax_topo_host h;

	if (!t)
		return;
	ax_topo_host(t, &h);
	AX_CHECK(h.cores >= 1);
	AX_CHECK(h.pus >= h.cores);
	AX_CHECK(h.numa_nodes >= 1);
	AX_CHECK(h.packages >= 1);
	AX_CHECK(h.memory_bytes > 0);
	AX_CHECK(h.cpuset[0] >= '0' && h.cpuset[0] <= '9');
	AX_CHECK(h.hostname[0] != '\0');
	AX_CHECK(strncmp(h.os, "Linux", 5) == 0);
	/* hwloc counts the PUs it may use; so does sysconf. */
	AX_CHECK_INT(h.pus, sysconf(_SC_NPROCESSORS_ONLN));

	json_t *j = ax_topo_host_json(t);
	AX_CHECK(j != NULL);
	AX_CHECK_INT(json_integer_value(json_object_get(j, "cores")), h.cores);
	AX_CHECK_STR(json_string_value(json_object_get(j, "cpuset")), h.cpuset);
	AX_CHECK(json_is_array(json_object_get(j, "pci_devices")));
	AX_CHECK_INT(json_array_size(json_object_get(j, "numa")), h.numa_nodes);
	/* Round trip through text, as the database stores it. */
	char *text = json_dumps(j, JSON_COMPACT);
	json_t *back = json_loads(text, 0, NULL);
	AX_CHECK(json_equal(j, back));
	free(text);
	json_decref(back);
	json_decref(j);
	ax_topo_destroy(t);
}

static void no_bus_id_is_whole_machine(void)
{
	struct ax_topo *t = load();
	struct ax_topo_locality l;
	struct ax_topo_host h;

	if (!t)
		return;
	ax_topo_host(t, &h);
	AX_CHECK_INT(ax_topo_locality(t, NULL, &l), 0);
	AX_CHECK(l.whole_machine);
	AX_CHECK(!l.found);
	AX_CHECK_STR(l.cpuset, h.cpuset);
	AX_CHECK_INT(l.cores, h.cores);
	AX_CHECK_INT(l.pus, h.pus);
	AX_CHECK_INT(l.confidence, AX_TOPO_CONF_LOW);
	AX_CHECK_STR(l.reason, "driver gives no PCI bus id; locality is the "
			       "whole machine");
	AX_CHECK_STR(l.pci_bus_id, "");

	AX_CHECK_INT(ax_topo_locality(t, "", &l), 0);
	AX_CHECK(l.whole_machine);

	json_t *j = ax_topo_locality_json(&l);
	AX_CHECK_STR(json_string_value(json_object_get(j, "confidence")),
		     "low");
	AX_CHECK(json_is_null(json_object_get(j, "pci_bus_id")));
	AX_CHECK(json_is_string(json_object_get(j, "reason")));
	json_decref(j);
	ax_topo_destroy(t);
}

static void bogus_bus_ids(void)
{
	static const char *const bad[] = {
	    "not-a-bus-id",	     "zz:00.0", "0000:00:00",
	    "0000:00:00.9",	     "00:40.0", "-1:00.0",
	    "0000:00:00.0 trailing", "::.",
	};
	struct ax_topo *t = load();
	struct ax_topo_locality l;

	if (!t)
		return;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		AX_CHECK_INT(ax_topo_locality(t, bad[i], &l), AX_EINVAL);
		AX_CHECK(l.whole_machine);
		AX_CHECK_INT(l.confidence, AX_TOPO_CONF_LOW);
		AX_CHECK(strstr(l.reason, "is not dddd:bb:dd.f") != NULL);
	}
	/* Well formed but absent: a normal "unknown" answer. */
	AX_CHECK_INT(ax_topo_locality(t, "ffff:ff:1f.7", &l), 0);
	AX_CHECK(!l.found && l.whole_machine);
	AX_CHECK_INT(l.confidence, AX_TOPO_CONF_LOW);
	AX_CHECK_STR(l.pci_bus_id, "ffff:ff:1f.7");
	AX_CHECK(strstr(l.reason, "no PCI device ffff:ff:1f.7") != NULL);
	ax_topo_destroy(t);
}

static void real_pci_device(void)
{
	struct ax_topo *t = load();
	struct ax_topo_locality l, shortform;
	const char *bus;
	json_t *j, *pci;

	if (!t)
		return;
	j = ax_topo_host_json(t);
	pci = json_array_get(json_object_get(j, "pci_devices"), 0);
	if (!pci) {
		printf("# no PCI devices visible: skipping the lookup\n");
		json_decref(j);
		ax_topo_destroy(t);
		return;
	}
	bus = json_string_value(json_object_get(pci, "bus_id"));
	AX_CHECK_INT(ax_topo_locality(t, bus, &l), 0);
	AX_CHECK(l.found);
	AX_CHECK_STR(l.pci_bus_id, bus);
	AX_CHECK(l.cores >= 1 && l.pus >= l.cores);
	AX_CHECK(l.cpuset[0] != '\0');
	/* Whole machine means low confidence with a reason; a narrower
	 * locality is stated by the platform. */
	AX_CHECK(l.whole_machine == (l.confidence == AX_TOPO_CONF_LOW));
	AX_CHECK(l.whole_machine == (l.reason[0] != '\0'));
	/* "bb:dd.f" means domain 0. */
	if (strncmp(bus, "0000:", 5) == 0) {
		AX_CHECK_INT(ax_topo_locality(t, bus + 5, &shortform), 0);
		AX_CHECK(shortform.found);
		AX_CHECK_STR(shortform.pci_bus_id, bus);
	}
	json_decref(j);
	ax_topo_destroy(t);
}

AX_TEST_MAIN(AX_TEST(host_summary), AX_TEST(no_bus_id_is_whole_machine),
	     AX_TEST(bogus_bus_ids), AX_TEST(real_pci_device))
