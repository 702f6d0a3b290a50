/* cli/cmd_export.c - `axbench export`: the best measured parameters per
 * device, suite and shape as a versioned YAML or JSON document. */
#include "cli/cli.h"

#include "core/config.h"
#include "core/db.h"
#include "core/error.h"
#include "core/outfile.h"
#include "reports/export.h"
#include "suites/registry.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { OPT_SUITE = 1, OPT_FORMAT, OPT_OUTPUT };

static const struct ax_cli_opt export_opts[] = {
    {OPT_SUITE, "suite", 's', "NAME", "only this suite"},
    {OPT_FORMAT, "format", 'f', "FMT",
     "document format: yaml (default; json with --json)"},
    {OPT_OUTPUT, "output", 'o', "FILE", "write to FILE (default stdout)"},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_export;

/* The document to path (NULL: stdout) through core/outfile.h: all or
 * nothing, never through a planted link. */
static int write_doc(const struct ax_cli *cli, const json_t *doc, bool json,
		     const char *path)
{
	char err[512];
	struct ax_outfile o;
	if (ax_outfile_open(&o, path, err, sizeof(err)))
		return ax_cli_error(cli, AX_EXIT_STORAGE, "%s", err);
	int rc = json ? json_dumpf(doc, o.f, JSON_INDENT(2)) : 0;
	if (json)
		fputc('\n', o.f);
	else
		rc = ax_config_emit_yaml(doc, o.f);
	if (ax_cli_interrupted) {
		ax_outfile_abort(&o);
		return ax_cli_error(cli, AX_EXIT_INTERRUPTED,
				    "interrupted; %s left as it was", o.path);
	}
	/* A write error (sticky on the stream) is reported by commit with
	 * its errno; anything else the writer refused is said here. */
	if (rc && !ferror(o.f)) {
		ax_outfile_abort(&o);
		return ax_cli_error(cli, AX_EXIT_STORAGE, "cannot write %s: %s",
				    o.path, ax_strerror(rc));
	}
	if (ax_outfile_commit(&o, err, sizeof(err)))
		return ax_cli_error(cli, AX_EXIT_STORAGE, "%s", err);
	return 0;
}

static int export_run(struct ax_cli *cli, const char *suite, bool json,
		      const char *path)
{
	struct ax_config_schema schema[64];
	struct ax_db_filter f = {.suite = suite, .stop = &ax_cli_interrupted};
	struct ax_db *db;
	json_t *results = NULL, *sessions = NULL, *doc = NULL;
	char err[1024];
	int n = ax_suite_count < 64 ? ax_suite_count : 64;
	for (int i = 0; i < n; i++)
		schema[i] = (struct ax_config_schema){ax_suites[i]->name,
						      ax_suites[i]->params,
						      ax_suites[i]->n_params};
	if (suite && !ax_suite_find(suite))
		return ax_cli_error(cli, AX_EXIT_USAGE,
				    "--suite %s: no such "
				    "suite; see `axbench suites`",
				    suite);
	int rc = ax_cli_open_db(cli, true, &db);
	if (rc)
		return rc;
	if (ax_db_results(db, &f, &results) ||
	    ax_db_sessions(db, &f, &sessions))
		rc = ax_cli_error(cli,
				  ax_cli_interrupted ? AX_EXIT_INTERRUPTED
						     : AX_EXIT_STORAGE,
				  "%s", ax_db_errmsg(db));
	ax_db_close(db);
	if (!rc)
		rc = ax_cli_filter_device(cli, results, cli->device_sel);
	if (!rc && ax_export_build(results, sessions, schema, n,
				   "axbench " AX_VERSION_STRING, &doc, err,
				   sizeof(err)))
		rc = ax_cli_error(cli, AX_EXIT_FAIL, "%s", err);
	if (!rc)
		rc = write_doc(cli, doc, json, path);
	json_decref(doc);
	json_decref(results);
	json_decref(sessions);
	return rc;
}

static int export_main(struct ax_cli *cli, int argc, char **argv)
{
	struct ax_cli_iter it;
	const char *suite = NULL, *path = NULL, *format = NULL;
	int opt;
	ax_cli_iter_init(&it, cli, &ax_cmd_export, argc, argv);
	while ((opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_SUITE)
			suite = it.optarg;
		else if (opt == OPT_FORMAT)
			format = it.optarg;
		else if (opt == OPT_OUTPUT)
			path = it.optarg;
	}
	int rc = ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (rc != AX_CLI_CONTINUE)
		return rc;
	bool json = format ? !strcmp(format, "json") : cli->json;
	return export_run(cli, suite, json, path);
}

static const char *const *export_formats(void)
{
	static const char *const names[] = {"yaml", "json", NULL};
	return names;
}

static const struct ax_cli_choice export_choices[] = {
    {OPT_FORMAT, export_formats},
    {0},
};

const struct ax_cli_cmd ax_cmd_export = {
    .name = "export",
    .summary = "write the best measured parameters as YAML or JSON",
    .usage = "[--suite NAME] [--format FMT] [-o FILE]",
    .details = "Writes a versioned document (schema axbench.tuned/v1): for "
	       "each device\n(by fingerprint, with name, UUID and PCI bus "
	       "id), suite and shape, the\nbest stored parameters, their "
	       "measured figure and unit, the speed-up\nover the default "
	       "parameters, and the run / result / session it came\nfrom.  "
	       "`axbench run --tuned FILE` reads it back.  --device "
	       "matches a\nstored device by name, UUID, PCI bus id or "
	       "fingerprint.",
    .opts = export_opts,
    .choices = export_choices,
    .fn = export_main,
};
