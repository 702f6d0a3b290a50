/* cli/cmd_recommend.c - `axbench recommend`: placement and data-loading
 * settings from what the database holds, as YAML, JSON or a view for the
 * shell, numactl, Slurm or PyTorch. */
#include "app/recommend_measure.h"
#include "app/session.h"
#include "app/suite_doc.h"
#include "cli/cli.h"
#include "cli/session_opts.h"

#include "core/db.h"
#include "core/error.h"
#include "core/outfile.h"
#include "core/topo.h"
#include "core/vk.h"
#include "reports/recommend.h"
#include "suites/registry.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum { OPT_FORMAT = 1, OPT_OUTPUT, OPT_MEASURE, OPT_SLO_MS };

static const struct ax_cli_opt recommend_opts[] = {
    {OPT_FORMAT, "format", 'f', "FMT",
     "yaml (default; json with --json), or a view for the shell, "
     "numactl, Slurm or PyTorch"},
    {OPT_OUTPUT, "output", 'o', "FILE", "write to FILE (default stdout)"},
    {OPT_MEASURE, "measure", 'm', NULL,
     "first run what the database lacks for the device (the suites of "
     "configs/recommend.yaml with too few results), then recommend "
     "(default: measure nothing)"},
    {OPT_SLO_MS, "slo-ms", 0, "MS",
     "also name, per layer suite and shape, the largest batch whose "
     "stored p99 latency meets MS milliseconds (latency_batch; results "
     "of scenario=single or server at several batches) (default: off)"},
    AX_SESSION_LABEL_OPT,
    {0},
};

extern const struct ax_cli_cmd ax_cmd_recommend;

/* Is dev's fingerprint among the first n of devs? */
static bool device_seen(const struct ax_db_device_row *const *devs, size_t n,
			const struct ax_db_device_row *dev)
{
	for (size_t j = 0; j < n; j++)
		if (!strcmp(devs[j]->fingerprint, dev->fingerprint))
			return true;
	return false;
}

/* The distinct devices of results by fingerprint, in the order results
 * first name them (borrowed; free the array).  Devices are few, so a
 * list will do.  NULL (and *n 0) when out of memory. */
static const struct ax_db_device_row **
distinct_devices(const struct ax_db_results *results, size_t *n)
{
	const struct ax_db_device_row **devs = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < results->n; i++) {
		const struct ax_db_device_row *dev = &results->v[i]->device;
		if (!dev->fingerprint || device_seen(devs, *n, dev))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			const struct ax_db_device_row **v =
			    realloc(devs, cap * sizeof(*v));
			if (!v)
				break;
			devs = v;
		}
		devs[(*n)++] = dev;
	}
	return devs;
}

/* The host and the locality of every stored device (by fingerprint), as
 * core/topo.h's documents: what the recommendation shows of them. */
static void topology(const struct ax_db_results *results, json_t **host,
		     json_t **locs)
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
	size_t n;
	const struct ax_db_device_row **devs = distinct_devices(results, &n);
	for (size_t i = 0; i < n; i++) {
		struct ax_topo_locality loc;
		ax_topo_locality(t, devs[i]->pci_bus_id, &loc);
		json_object_set_new(*locs, devs[i]->fingerprint,
				    ax_topo_locality_json(&loc));
	}
	free(devs);
	ax_topo_destroy(t);
}

/* The recommendation to path (NULL: stdout) through core/outfile.h. */
static int write_out(const struct ax_app *app, const json_t *doc,
		     const char *format, const char *path)
{
	char err[512];
	struct ax_outfile o;
	if (ax_outfile_open(&o, path, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "%s", err);
	int rc = ax_recommend_write(doc, format, o.f, err, sizeof(err));
	/* A write error (sticky on the stream) is reported by commit with
	 * its errno; a refused format or anything else is said here. */
	if (rc && (rc == AX_EINVAL || !ferror(o.f))) {
		ax_outfile_abort(&o);
		if (rc == AX_EINVAL)
			return ax_app_error(app, AX_EXIT_USAGE, "--format: %s",
					    err);
		return ax_app_error(app, AX_EXIT_STORAGE, "cannot write %s: %s",
				    o.path, ax_strerror(rc));
	}
	if (ax_outfile_commit(&o, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "%s", err);
	return 0;
}

/* The stored results the rules read: on the selected device, with their
 * byte counts filled in and their parameters typed, as the document
 * cites them (app/suite_doc.h). */
static int read_results(struct ax_app *app, struct ax_db_results *results)
{
	struct ax_db_filter f = {0};
	struct ax_db *db;
	int rc = ax_app_db(app, &db);
	if (rc) {
		memset(results, 0, sizeof(*results));
		return rc;
	}
	if (ax_db_result_rows(db, &f, results))
		return ax_app_error(app, AX_EXIT_STORAGE, "%s",
				    ax_db_errmsg(db));
	if ((rc = ax_app_filter_device(app, results, app->device_sel)))
		return rc;
	for (size_t i = 0; i < results->n; i++) {
		ax_app_fill_row_bytes(results->v[i]);
		ax_app_type_row_params(results->v[i]);
	}
	return 0;
}

static int recommend_run(struct ax_app *app, const char *format,
			 const char *path, double slo_ms)
{
	struct ax_db_results results;
	json_t *host = NULL, *locs = NULL, *doc = NULL;
	char err[512];
	int rc = read_results(app, &results);
	if (!rc)
		topology(&results, &host, &locs);
	if (!rc && ax_recommend_build(&results, ax_app_suites(), host, locs,
				      "axbench " AX_VERSION_STRING, &doc, err,
				      sizeof(err)))
		rc = ax_app_error(app, AX_EXIT_FAIL, "%s", err);
	if (!rc && slo_ms > 0 &&
	    ax_recommend_add_latency(doc, &results, slo_ms, err, sizeof(err)))
		rc = ax_app_error(app, AX_EXIT_FAIL, "%s", err);
	if (!rc)
		rc = write_out(app, doc, format, path);
	json_decref(doc);
	ax_db_results_free(&results);
	json_decref(host);
	json_decref(locs);
	return rc;
}

static int recommend_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	const char *path = NULL, *format = NULL, *label = NULL;
	bool measure = false;
	double slo_ms = 0;
	int opt, bad = 0;
	ax_cli_iter_init(&it, app, &ax_cmd_recommend, argc, argv);
	while (!bad && (opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_FORMAT)
			format = it.optarg;
		else if (opt == OPT_OUTPUT)
			path = it.optarg;
		else if (opt == OPT_MEASURE)
			measure = true;
		else if (opt == OPT_SLO_MS)
			bad = ax_cli_parse_double(&it, 0.001, 1e7, &slo_ms);
		else if (opt == AX_OPT_LABEL) {
			label = it.optarg;
			bad = ax_app_check_label(app, "recommend", label);
		}
	}
	int rc = bad ? bad : ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (rc != AX_CLI_CONTINUE)
		return rc;
	/* Only --measure stores a run: a label without one would name
	 * nothing, silently. */
	if (label && !measure)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "recommend --label names the run that "
				    "--measure stores, and without --measure "
				    "nothing is measured; add --measure, or "
				    "leave --label out");
	if (!format)
		format = app->json ? "json" : "yaml";
	if (measure && (rc = ax_recommend_measure_missing(app, label)))
		return rc;
	return recommend_run(app, format, path, slo_ms);
}

static const struct ax_cli_choice recommend_choices[] = {
    {OPT_FORMAT, ax_recommend_formats},
    {0},
};

const struct ax_cli_cmd ax_cmd_recommend = {
    .name = "recommend",
    .summary = "placement and data-loading settings from measurements",
    .usage = "[--measure] [--format FMT] [-o FILE]",
    .details = "Derives, from the results stored in the database, where to "
	       "run (device per\nworkload class, NUMA node and CPUs local "
	       "to each device) and how to feed\nit (upload path, chunk "
	       "size, buffers in flight, pinned memory, batch\nsize, loader "
	       "threads, prefetch depth).  Every value carries its basis "
	       "(the\nstored results and the rule) and a confidence; where "
	       "nothing was\nmeasured it is null with the reason.  Devices "
	       "are keyed by PCI bus id or\nUUID, never by Vulkan index.  "
	       "--device SEL|all matches stored devices by\nname, UUID, PCI "
	       "bus id or fingerprint.",
    .examples = {"axbench recommend                        # settings from "
		 "what is stored",
		 "axbench recommend --measure -f numactl   # measure what is "
		 "missing first"},
    .opts = recommend_opts,
    .choices = recommend_choices,
    .needs = AX_APP_READ_ONLY_DB,
    .fn = recommend_main,
};
