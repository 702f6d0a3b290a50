/* cli/cmd_export.c - `axbench export`: the best measured parameters per
 * device, suite and shape as a versioned YAML or JSON document. */
#include "cli/cli.h"
#include "core/interrupt.h"

#include "core/config.h"
#include "core/db.h"
#include "core/error.h"
#include "core/outfile.h"
#include "reports/export.h"
#include "suites/registry.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
	OPT_SUITE = 1,
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_SHAPES,
	OPT_TUNED_ONLY,
	OPT_PICK
};

#define MAX_SHAPES 64

static const struct ax_cli_opt export_opts[] = {
    {OPT_SUITE, "suite", 's', "NAME", "only this suite (default: every suite)"},
    {OPT_FORMAT, "format", 'f', "FMT",
     "document format: yaml (default; json with --json)"},
    {OPT_OUTPUT, "output", 'o', "FILE", "write to FILE (default stdout)"},
    {OPT_SHAPES, "shapes", 0, "FILTER",
     "only shapes matching SUITE[:NAME=VALUE,...] (repeatable; default: every "
     "shape)"},
    {OPT_TUNED_ONLY, "tuned-only", 0, NULL,
     "only the shapes whose tuned point beat the defaults (default: every "
     "shape, the others with their defaults)"},
    {OPT_PICK, "pick", 0, "WHICH",
     "of a shape tuned with --objective time,energy, the point of its "
     "Pareto front to export: knee (the balanced trade), fastest or "
     "least-energy (default knee)"},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_export;

/* The document to path (NULL: stdout) through core/outfile.h: all or
 * nothing, never through a planted link. */
static int write_doc(const struct ax_app *app, const json_t *doc, bool json,
		     const char *path)
{
	char err[512];
	struct ax_outfile o;
	if (ax_outfile_open(&o, path, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "%s", err);
	int rc = json ? json_dumpf(doc, o.f, JSON_INDENT(2)) : 0;
	if (json)
		fputc('\n', o.f);
	else
		rc = ax_config_emit_yaml(doc, o.f);
	if (ax_interrupted) {
		ax_outfile_abort(&o);
		return ax_app_error(app, AX_EXIT_INTERRUPTED,
				    "interrupted; %s left as it was", o.path);
	}
	/* A write error (sticky on the stream) is reported by commit with
	 * its errno; anything else the writer refused is said here. */
	if (rc && !ferror(o.f)) {
		ax_outfile_abort(&o);
		return ax_app_error(app, AX_EXIT_STORAGE, "cannot write %s: %s",
				    o.path, ax_strerror(rc));
	}
	if (ax_outfile_commit(&o, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "%s", err);
	return 0;
}

/* One shape's choice on stderr: what was tuned and by how much, or why
 * it keeps its defaults. */
static void say_choice(const struct ax_export_choice *c)
{
	fprintf(stderr, "axbench export: %s %s on %s: ", c->suite, c->shape,
		c->device ? c->device : "?");
	if (isfinite(c->speedup) && c->rounds > 0)
		fprintf(stderr,
			"tuned, %.3gx [%.3g, %.3g] the defaults, %d paired "
			"rounds\n",
			c->speedup, c->speedup_lo, c->speedup_hi, c->rounds);
	else if (isfinite(c->speedup))
		fprintf(stderr,
			"tuned, %.3gx the defaults (no interval: not measured "
			"in paired rounds)\n",
			c->speedup);
	else
		fprintf(stderr, "%s: %s\n", c->tuned ? "tuned" : "defaults",
			c->reason);
}

/* What export chose, for the person running it, on stderr: a line per
 * tuned shape; the shapes that keep their defaults line by line with -v
 * (or when nothing was tuned: then each reason is the news), else
 * counted in one line; then what the document holds. */
static void summarise(const struct ax_app *app, const struct ax_export_out *o,
		      const char *path)
{
	size_t tuned = 0, left_out = 0;
	if (app->verbosity < 0)
		return;
	for (size_t i = 0; i < o->n; i++)
		tuned += o->choices[i].tuned,
		    left_out += o->choices[i].left_out;
	size_t kept = o->n - tuned;
	bool each = app->verbosity > 0 || tuned == 0;
	for (size_t i = 0; i < o->n; i++)
		if (o->choices[i].tuned || each)
			say_choice(&o->choices[i]);
	if (kept && !each && !left_out)
		fprintf(stderr,
			"axbench export: %zu shape%s kept the defaults: no "
			"tuned point beat them beyond noise (-v gives each "
			"reason)\n",
			kept, kept == 1 ? "" : "s");
	fprintf(stderr, "axbench export: %s: %zu shape%s tuned",
		path ? path : "stdout", tuned, tuned == 1 ? "" : "s");
	if (left_out)
		fprintf(stderr, ", %zu left out (--tuned-only)\n", left_out);
	else
		fprintf(stderr, ", %zu with the defaults%s\n", kept,
			kept && tuned ? " (--tuned-only leaves them out)" : "");
}

struct export_args {
	const char *suite, *path;
	bool json, tuned_only;
	enum ax_export_pick pick;
	struct ax_export_shape shapes[MAX_SHAPES];
	int n_shapes;
};

/* Every suite, the loaded kernel's too (`kernel export`). */
static int load_schema(struct ax_config_schema *schema, int max)
{
	const struct ax_suite *all[64];
	int n = ax_suite_all(all, max < 64 ? max : 64);
	for (int i = 0; i < n; i++)
		schema[i] = (struct ax_config_schema){
		    all[i]->name, all[i]->params, all[i]->n_params};
	return n;
}

static int export_run(struct ax_app *app, const struct export_args *a,
		      const struct ax_config_schema *schema, int n)
{
	/* samples: the choice is made from them, as compare makes it */
	struct ax_db_filter f = {
	    .suite = a->suite, .with_samples = true, .stop = &ax_interrupted};
	struct ax_export_opts opts = {.shapes = a->shapes,
				      .n_shapes = a->n_shapes,
				      .tuned_only = a->tuned_only,
				      .pick = a->pick};
	struct ax_db *db;
	struct ax_db_results results = {0};
	struct ax_db_sessions sessions = {0};
	struct ax_export_out out = {0};
	char err[1024];
	if (a->suite && !ax_suite_find(a->suite))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--suite %s: no such "
				    "suite; see `axbench suites`",
				    a->suite);
	int rc = ax_app_db(app, &db);
	if (rc)
		return rc;
	if (ax_db_result_rows(db, &f, &results) ||
	    ax_db_session_rows(db, &f, &sessions))
		rc = ax_app_error(
		    app, ax_interrupted ? AX_EXIT_INTERRUPTED : AX_EXIT_STORAGE,
		    "%s", ax_db_errmsg(db));
	/* A known suite with nothing stored would export an empty
	 * document that looks like success. */
	if (!rc && a->suite && results.n == 0)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "export: --suite %s: no stored results of "
				  "that suite in %s; measure or tune it "
				  "first (`axbench run %s`)",
				  a->suite, app->db_path, a->suite);
	if (!rc)
		rc = ax_app_filter_device(app, &results, app->device_sel);
	if (!rc && ax_export_build(&results, &sessions, schema, n, &opts,
				   "axbench " AX_VERSION_STRING, &out, err,
				   sizeof(err)))
		rc = ax_app_error(app, AX_EXIT_FAIL, "%s", err);
	if (!rc)
		rc = write_doc(app, out.doc, a->json, a->path);
	if (!rc)
		summarise(app, &out, a->path);
	ax_export_out_free(&out);
	ax_db_results_free(&results);
	ax_db_sessions_free(&sessions);
	return rc;
}

static int add_shapes(struct ax_app *app, struct export_args *a,
		      const char *text, const struct ax_config_schema *schema,
		      int n)
{
	char err[1024];
	if (a->n_shapes == MAX_SHAPES)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--shapes: at most %d filters", MAX_SHAPES);
	if (ax_export_shape_parse(text, schema, n, &a->shapes[a->n_shapes], err,
				  sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE, "%s", err);
	a->n_shapes++;
	return 0;
}

static int export_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	struct ax_config_schema schema[64];
	struct export_args *a = calloc(1, sizeof(*a));
	const char *format = NULL;
	int opt, rc = 0;
	if (!a)
		return ax_app_error(app, AX_EXIT_FAIL, "out of memory");
	int n = load_schema(schema, 64);
	ax_cli_iter_init(&it, app, &ax_cmd_export, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_SUITE)
			a->suite = it.optarg;
		else if (opt == OPT_FORMAT)
			format = it.optarg;
		else if (opt == OPT_OUTPUT)
			a->path = it.optarg;
		else if (opt == OPT_SHAPES)
			rc = add_shapes(app, a, it.optarg, schema, n);
		else if (opt == OPT_TUNED_ONLY)
			a->tuned_only = true;
		else if (opt == OPT_PICK)
			for (int k = 0; ax_export_picks()[k]; k++)
				if (!strcmp(it.optarg, ax_export_picks()[k]))
					a->pick = (enum ax_export_pick)k;
	}
	if (rc == 0)
		rc = ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (rc == AX_CLI_CONTINUE) {
		a->json = format ? !strcmp(format, "json") : app->json;
		rc = export_run(app, a, schema, n);
	}
	free(a);
	return rc;
}

static const char *const *export_formats(void)
{
	static const char *const names[] = {"yaml", "json", NULL};
	return names;
}

static const struct ax_cli_choice export_choices[] = {
    {OPT_FORMAT, export_formats},
    {OPT_PICK, ax_export_picks},
    {0},
};

const struct ax_cli_cmd ax_cmd_export = {
    .name = "export",
    .summary = "write per-shape parameters (tuned only if proven faster) "
	       "as YAML or JSON",
    .usage = "[--suite NAME] [--shapes FILTER]... [--tuned-only] [--format "
	     "FMT] [-o FILE]",
    .details =
	"Writes a versioned document (schema axbench.tuned/v1): for each "
	"device\n(by fingerprint, with name, UUID and PCI bus id), suite and "
	"shape, the\nparameters to use, their measured figure and unit, and "
	"the run / result /\nsession they came from.  `axbench run --tuned "
	"FILE` reads it back.\n\nA tuned point is exported only when it was "
	"measured beside the defaults\n(same run, both fully sampled; tuning "
	"trials do not count) and beat them\nbeyond noise by the rules of "
	"`axbench compare` (a 2 % minimum effect).\n`axbench tune` measures "
	"its best point and the defaults in alternating\n(paired) rounds at "
	"the end: such a point is tuned only when the lower\nend of its "
	"speed-up's 95 % interval clears the threshold, and the entry\n"
	"keeps speedup, speedup_lo, speedup_hi and rounds.  Points measured "
	"one\nafter the other (a run, a session stored before pairing) are "
	"judged by\ntheir samples (Mann-Whitney U, the Hodges-Lehmann "
	"shift's interval);\ntheir speed-up, a ratio of medians, has no "
	"interval.\nOtherwise the shape gets the default parameters "
	"(choice: defaults) and\nthe reason in the document; its speedup is "
	"null.  --tuned-only leaves\nthose shapes out.  stderr has a line "
	"per tuned shape and one counting\nthe rest (-v: a line each, with "
	"its reason).\n\n--shapes SUITE[:NAME=VALUE,...] "
	"exports only that suite's shapes whose\nnamed shape parameters "
	"have those values (values as -p takes them);\nrepeat it for "
	"more: a shape matching any filter is exported.  E.g.\n  axbench "
	"export --shapes gemm:m=256,n=256 --shapes bandwidth:size=64K\n"
	"--device matches a stored device by name, UUID, PCI bus id or "
	"fingerprint.",
    .examples = {"axbench export -o tuned.yaml             # every suite",
		 "axbench export --tuned-only -o tuned.yaml  # what beat the "
		 "defaults",
		 "axbench export --shapes gemm:m=256,n=256 --format json"},
    .opts = export_opts,
    .choices = export_choices,
    .needs = AX_APP_READ_ONLY_DB,
    .fn = export_main,
};
