/* cli/cmd_recommend.c - `axbench recommend`: placement and data-loading
 * settings from what the database holds, as YAML, JSON or a view for the
 * shell, numactl, Slurm or PyTorch. */
#include "cli/cli.h"

#include "core/db.h"
#include "core/error.h"
#include "core/topo.h"
#include "reports/recommend.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { OPT_FORMAT = 1, OPT_OUTPUT };

static const struct ax_cli_opt recommend_opts[] = {
	{OPT_FORMAT, "format", 'f', "FMT",
	 "yaml (default), json, env, numactl, slurm or torch"},
	{OPT_OUTPUT, "output", 'o', "FILE", "write to FILE (default stdout)"},
	{0},
};

extern const struct ax_cli_cmd ax_cmd_recommend;

/* As in cmd_export.c: a stored device matches by fingerprint, UUID or
 * PCI bus id exactly, or by name substring. */
static bool device_matches(const json_t *dev, const char *sel)
{
	static const char *const exact[] = {"fingerprint", "device_uuid",
					    "pci_bus_id"};
	for (int i = 0; i < 3; i++) {
		const char *v = json_string_value(json_object_get(dev,
								  exact[i]));
		if (v && *v && !strcasecmp(v, sel))
			return true;
	}
	const char *name = json_string_value(json_object_get(dev, "name"));
	return name && strcasestr(name, sel);
}

static int filter_device(const struct ax_cli *cli, json_t *results,
			 const char *sel)
{
	if (!sel || !strcmp(sel, "all"))
		return 0;
	if (isdigit((unsigned char)sel[0]) && !strchr(sel, '-') &&
	    !strchr(sel, ':'))
		return ax_cli_error(cli, AX_EXIT_USAGE,
				    "--device %s: recommendations are keyed "
				    "by device, never by Vulkan index; give "
				    "a name, UUID, PCI bus id or fingerprint",
				    sel);
	for (size_t i = json_array_size(results); i-- > 0;)
		if (!device_matches(json_object_get(json_array_get(results, i),
						    "device"),
				    sel))
			json_array_remove(results, i);
	if (json_array_size(results) == 0)
		return ax_cli_error(cli, AX_EXIT_USAGE,
				    "--device %s: no stored results on a "
				    "device matching it; see `axbench "
				    "results`", sel);
	return 0;
}

/* hwloc's view of the host and of each stored device's PCI bus id. */
static void topology(const json_t *results, json_t **host, json_t **locs)
{
	struct ax_topo *t;
	char err[512];
	*host = NULL;
	*locs = json_object();
	if (ax_topo_create(&t, err, sizeof(err))) {
		fprintf(stderr, "axbench recommend: no topology: %s\n", err);
		return;
	}
	*host = ax_topo_host_json(t);
	size_t i;
	json_t *r;
	json_array_foreach(results, i, r)
	{
		json_t *dev = json_object_get(r, "device");
		const char *fp = json_string_value(json_object_get(
			dev, "fingerprint"));
		if (!fp || json_object_get(*locs, fp))
			continue;
		struct ax_topo_locality loc;
		ax_topo_locality(t, json_string_value(json_object_get(
					    dev, "pci_bus_id")),
				 &loc);
		json_object_set_new(*locs, fp, ax_topo_locality_json(&loc));
	}
	ax_topo_destroy(t);
}

static int write_out(const struct ax_cli *cli, const json_t *doc,
		     const char *format, const char *path)
{
	char tmp[4096], err[256];
	FILE *out = stdout;
	if (path) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		if (!(out = fopen(tmp, "w")))
			return ax_cli_error(cli, AX_EXIT_STORAGE,
					    "cannot write %s: %m", tmp);
	}
	int rc = ax_recommend_write(doc, format, out, err, sizeof(err));
	if (fflush(out) || ferror(out))
		rc = rc ? rc : AX_EIO;
	if (path && fclose(out))
		rc = rc ? rc : AX_EIO;
	if (path && !rc && rename(tmp, path))
		rc = AX_EIO;
	if (path && rc)
		remove(tmp);
	if (rc == AX_EINVAL)
		return ax_cli_error(cli, AX_EXIT_USAGE, "--format: %s", err);
	if (rc)
		return ax_cli_error(cli, AX_EXIT_STORAGE, "cannot write %s",
				    path ? path : "standard output");
	return 0;
}

static int recommend_run(struct ax_cli *cli, const char *format,
			 const char *path)
{
	struct ax_db_filter f = {0};
	struct ax_db *db;
	json_t *results = NULL, *host = NULL, *locs = NULL, *doc = NULL;
	char err[512];
	int rc = ax_cli_open_db(cli, true, &db);
	if (rc)
		return rc;
	if (ax_db_results(db, &f, &results))
		rc = ax_cli_error(cli, AX_EXIT_STORAGE, "%s",
				  ax_db_errmsg(db));
	ax_db_close(db);
	if (!rc)
		rc = filter_device(cli, results, cli->device_sel);
	if (!rc)
		topology(results, &host, &locs);
	if (!rc && ax_recommend_build(results, host, locs,
				      "axbench " AX_VERSION_STRING, &doc, err,
				      sizeof(err)))
		rc = ax_cli_error(cli, AX_EXIT_FAIL, "%s", err);
	if (!rc)
		rc = write_out(cli, doc, format, path);
	json_decref(doc);
	json_decref(results);
	json_decref(host);
	json_decref(locs);
	return rc;
}

static int recommend_main(struct ax_cli *cli, int argc, char **argv)
{
	static const char *const formats[] = {"yaml", "json", "env",
					      "numactl", "slurm", "torch",
					      NULL};
	struct ax_cli_iter it;
	const char *path = NULL, *format = NULL;
	int opt;
	ax_cli_iter_init(&it, cli, &ax_cmd_recommend, argc, argv);
	while ((opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_FORMAT)
			format = it.optarg;
		else if (opt == OPT_OUTPUT)
			path = it.optarg;
	}
	int n_pos = it.n_positional;
	ax_cli_iter_release(&it);
	if (opt == -2)
		return AX_EXIT_OK;
	if (opt < 0)
		return AX_EXIT_USAGE;
	if (n_pos)
		return ax_cli_error(cli, AX_EXIT_USAGE, "recommend takes no "
				    "arguments; use --device / --format");
	if (!format)
		format = cli->json ? "json" : "yaml";
	bool known = false;
	for (int i = 0; formats[i]; i++)
		known |= !strcmp(formats[i], format);
	if (!known)
		return ax_cli_error(cli, AX_EXIT_USAGE, "--format must be "
				    "yaml, json, env, numactl, slurm or torch "
				    "(got '%s')", format);
	return recommend_run(cli, format, path);
}

const struct ax_cli_cmd ax_cmd_recommend = {
	.name = "recommend",
	.summary = "placement and data-loading settings from measurements",
	.usage = "[--format yaml|json|env|numactl|slurm|torch] [-o FILE]",
	.details =
		"Derives, from the results stored in the database, where to "
		"run (device per\nworkload class, NUMA node and CPUs local "
		"to each device) and how to feed\nit (upload path, chunk "
		"size, buffers in flight, pinned memory, batch\nsize, loader "
		"threads, prefetch depth).  Every value carries its basis "
		"(the\nstored results and the rule) and a confidence; where "
		"nothing was\nmeasured it is null with the reason.  Devices "
		"are keyed by PCI bus id or\nUUID, never by Vulkan index.  "
		"--device SEL|all matches stored devices by\nname, UUID, PCI "
		"bus id or fingerprint.",
	.opts = recommend_opts,
	.fn = recommend_main,
};
