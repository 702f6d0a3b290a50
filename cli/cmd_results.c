/* cli/cmd_results.c - `axbench results`: what the database holds. */
#include "app/suite_doc.h"
#include "cli/cli.h"
#include "core/interrupt.h"

#include "core/db.h"
#include "core/error.h"
#include "core/specs.h"
#include "core/text.h"
#include "reports/suite_doc.h"
#include "suites/kernel.h"
#include "suites/registry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_RUN = 1, OPT_SUITE, OPT_CSV, OPT_SAMPLES };

static const struct ax_cli_opt results_opts[] = {
    {OPT_RUN, "run", 'r', "ID|last",
     "only this run (repeatable; default: every run)"},
    {OPT_SUITE, "suite", 's', "NAME", "only this suite (default: every suite)"},
    {OPT_CSV, "csv", 0, NULL,
     "print CSV (one row per result; default: a table)"},
    {OPT_SAMPLES, "samples", 0, NULL, "include raw samples (--json)"},
    {0},
};

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : 0.0;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* RFC 4180: quote fields holding a comma, quote or newline. */
static void csv_field(FILE *out, const char *s, bool last)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

/* r's field "key", or "obj.key" inside one of its objects. */
static const json_t *field(const json_t *r, const char *name)
{
	const char *dot = strchr(name, '.');
	if (!dot)
		return json_object_get(r, name);
	char obj[32];
	snprintf(obj, sizeof(obj), "%.*s", (int)(dot - name), name);
	return json_object_get(json_object_get(r, obj), dot + 1);
}

static const char *const csv_cols[] = {"id",
				       "run_id",
				       "started_at",
				       "device",
				       "suite",
				       "case",
				       "status",
				       "unit",
				       "median",
				       "ci_lo",
				       "ci_hi",
				       "min",
				       "max",
				       "n",
				       "stop_reason",
				       "timing_mode",
				       "params",
				       "error",
				       "power.mean_w",
				       "power.energy_rep_j",
				       "power.perf_per_w",
				       "power.perf_per_w_unit",
				       "power.throttled",
				       "power.reason",
				       "speedup_vs_cpu",
				       "cpu.median",
				       "spec.status",
				       "spec.figure",
				       "spec.percent"};
enum { CSV_COLS = (int)(sizeof(csv_cols) / sizeof(csv_cols[0])) };

static void csv_header(void)
{
	for (int i = 0; i < CSV_COLS; i++)
		csv_field(stdout, csv_cols[i], i == CSV_COLS - 1);
}

static void csv_row(const json_t *r)
{
	char buf[64];
	for (int i = 0; i < CSV_COLS; i++) {
		const json_t *v = field(r, csv_cols[i]);
		char *dumped = NULL;
		const char *text = "";
		if (strcmp(csv_cols[i], "device") == 0)
			text = str(json_object_get(r, "device"), "name");
		else if (json_is_string(v))
			text = json_string_value(v);
		else if (json_is_integer(v))
			snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(v)),
			    text = buf;
		else if (json_is_real(v))
			snprintf(buf, sizeof(buf), "%.6g", json_real_value(v)),
			    text = buf;
		else if (json_is_boolean(v))
			text = json_is_true(v) ? "true" : "false";
		else if (json_is_object(v))
			text = dumped =
			    json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
		csv_field(stdout, text ? text : "", i == CSV_COLS - 1);
		free(dumped);
	}
}

/* A stored figure formatted, or "-" where it was not measured. */
static const char *figure(char *buf, size_t len, const json_t *o,
			  const char *key, const char *fmt)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, fmt, json_number_value(v));
	return buf;
}

/*
 * What a result is set against (core/specs.h): the suite document says
 * whether its GB/s are memory bandwidth (the bandwidth-peak role).
 */
struct spec_ctx {
	struct ax_specs *specs; /* NULL: no specs file */
	json_t *suites;		/* the suite document */
};

static int spec_open(const struct ax_app *app, bool note, struct spec_ctx *sc)
{
	sc->suites = ax_app_suite_doc();
	return ax_app_load_specs(app, "results", note, &sc->specs);
}

static void spec_close(struct spec_ctx *sc)
{
	ax_specs_free(sc->specs);
	json_decref(sc->suites);
}

static struct ax_spec_cmp spec_of(const struct spec_ctx *sc, const json_t *r)
{
	return ax_specs_compare_result(
	    sc->specs, r,
	    ax_suite_doc_result_has_role(sc->suites, r,
					 AX_ROLE_BANDWIDTH_PEAK));
}

/* r's "spec" member: its comparison with its device's vendor figure. */
static void add_spec(const struct spec_ctx *sc, json_t *r)
{
	struct ax_spec_cmp c = spec_of(sc, r);
	json_object_set_new(r, "spec", ax_spec_cmp_json(&c));
}

/* The key of r's device and unit in the table of measured peaks. */
static void peak_key(const json_t *r, char *key, size_t len)
{
	snprintf(key, len, "%s\x1f%s",
		 str(json_object_get(r, "device"), "fingerprint"),
		 str(r, "unit"));
}

/* Each device's highest median of a compute-peak suite per unit, in one
 * pass (the table's "% of measured peak"; a history of many results must
 * not cost their square). */
static json_t *measured_peaks(const struct spec_ctx *sc, const json_t *results)
{
	json_t *peaks = json_object();
	size_t i;
	const json_t *o;
	char key[256];
	json_array_foreach(results, i, o)
	{
		if (strcmp(str(o, "status"), "ok") ||
		    !ax_suite_doc_result_has_role(sc->suites, o,
						  AX_ROLE_COMPUTE_PEAK))
			continue;
		peak_key(o, key, sizeof(key));
		double m = num(o, "median");
		const json_t *best = json_object_get(peaks, key);
		if (!best || m > json_number_value(best))
			json_object_set_new(peaks, key, json_real(m));
	}
	return peaks;
}

/* The table's %peak and %spec cells of r. */
static void percent_cells(const struct spec_ctx *sc, const json_t *peaks,
			  const json_t *r, char *peak, char *spec, size_t len)
{
	char key[256];
	bool ok = strcmp(str(r, "status"), "ok") == 0;
	/* A ceiling against itself says nothing (the report leaves it out
	 * too). */
	bool ceiling =
	    ax_suite_doc_result_has_role(sc->suites, r, AX_ROLE_COMPUTE_PEAK);
	peak_key(r, key, sizeof(key));
	const json_t *best = json_object_get(peaks, key);
	double p = ok && !ceiling && best ? json_number_value(best) : NAN;
	struct ax_spec_cmp c = spec_of(sc, r);
	snprintf(peak, len, "-");
	if (isfinite(p) && p > 0)
		snprintf(peak, len, "%.1f%%", 100 * num(r, "median") / p);
	snprintf(spec, len, "-");
	if (c.status == AX_SPEC_COMPARED)
		snprintf(spec, len, "%.1f%%", c.percent);
	else if (c.status == AX_SPEC_UNKNOWN)
		snprintf(spec, len, "unknown");
}

/* Under the table, once: which devices had no spec, and why. */
static void print_spec_notes(const struct spec_ctx *sc, const json_t *results)
{
	json_t *said = json_object();
	size_t i;
	const json_t *r;
	json_array_foreach(results, i, r)
	{
		struct ax_spec_cmp c = spec_of(sc, r);
		const json_t *dev = json_object_get(r, "device");
		const char *fp = str(dev, "fingerprint");
		if (c.status != AX_SPEC_UNKNOWN || json_object_get(said, fp))
			continue;
		json_object_set_new(said, fp, json_true());
		printf("%%spec: spec unknown for %s (PCI %04llx:%04llx): %s; "
		       "devices are matched by PCI ids only, never by name\n",
		       ax_term(str(dev, "name")),
		       (unsigned long long)num(dev, "vendor_id"),
		       (unsigned long long)num(dev, "device_id"), c.why);
	}
	json_decref(said);
}

/* Runs whose results may be partial are said under the table: one
 * still running, or one abandoned by a process that is gone. */
static void print_unfinished_runs(const json_t *results)
{
	size_t idx;
	const json_t *r;
	long long last = 0;
	json_array_foreach(results, idx, r)
	{
		long long run = (long long)num(r, "run_id");
		const char *st = str(r, "run_status");
		if (run == last)
			continue;
		last = run;
		if (strcmp(st, "abandoned") == 0)
			printf(
			    "run %lld is abandoned: its process ended without "
			    "finishing it; its results are those stored "
			    "before\n",
			    run);
		else if (strcmp(st, "running") == 0)
			printf("run %lld is still running (or ran on another "
			       "machine and never finished)\n",
			       run);
	}
}

/* Stored text goes through ax_term: a control character or a
 * bidirectional override reaches the terminal as visible text. */
static void print_table(const struct spec_ctx *sc, const json_t *results)
{
	size_t idx;
	const json_t *r;
	int w = 4;
	json_array_foreach(results, idx, r)
	{
		int len = (int)strlen(ax_term(str(r, "case")));
		if (len > w)
			w = len > 90 ? 90 : len;
	}
	printf("%-6s %-5s %-10s %-*s %12s %-8s %4s %7s %8s %7s %7s %7s %s\n",
	       "id", "run", "suite", w, "case", "median", "unit", "n", "W",
	       "perf/W", "vs-cpu", "%peak", "%spec", "status");
	json_t *peaks = measured_peaks(sc, results);
	json_array_foreach(results, idx, r)
	{
		bool ok = strcmp(str(r, "status"), "ok") == 0;
		char median[32] = "-";
		if (ok)
			snprintf(median, sizeof(median), "%.4g",
				 num(r, "median"));
		char w_[32], pw[32], x[32], pk[32], sp[32];
		const json_t *power = json_object_get(r, "power");
		percent_cells(sc, peaks, r, pk, sp, sizeof(pk));
		printf("%-6lld %-5lld %-10s %-*s %12s %-8s %4d %7s %8s %7s %7s "
		       "%7s %s%s%s\n",
		       (long long)num(r, "id"), (long long)num(r, "run_id"),
		       ax_term(str(r, "suite")), w, ax_term(str(r, "case")),
		       median, ax_term(str(r, "unit")), (int)num(r, "n"),
		       figure(w_, sizeof(w_), power, "mean_w", "%.1f"),
		       figure(pw, sizeof(pw), power, "perf_per_w", "%.3g"),
		       figure(x, sizeof(x), r, "speedup_vs_cpu", "%.2fx"), pk,
		       sp, ax_term(str(r, "status")), ok ? "" : ": ",
		       ok ? "" : ax_term(str(r, "error")));
	}
	json_decref(peaks);
	if (json_array_size(results) == 0)
		printf("(no results)\n");
	print_spec_notes(sc, results);
	print_unfinished_runs(results);
}

/*
 * --json and --csv are written as the results are read
 * (ax_db_results_each), so memory holds one result and its samples,
 * never the history: a million samples would otherwise be a few hundred
 * MiB of JSON objects.  The document is the one jansson writes for the
 * whole array with JSON_INDENT(2), byte for byte: "[", each element
 * dumped alone with its lines indented by two more spaces (jansson
 * escapes newlines inside strings, so every newline of a dump is
 * layout), ",\n" between them, "]".  Nothing is written before the first
 * kept result, so that a selection that keeps nothing is still refused
 * with no output, as when the whole array was read first.
 */
struct stream {
	const struct ax_app *app;
	const struct spec_ctx *sc;
	bool csv;
	size_t read;  /* results read, on any device */
	size_t shown; /* results written */
	int rc;	      /* the exit code that stopped the listing */
	bool broken;  /* a dump stopped: Ctrl-C or a failed write */
};

/* jansson's output callback: stdout, each line after the first indented
 * by two spaces (one level deeper, inside the array), until Ctrl-C (a
 * million samples take a while to print). */
static int dump_chunk(const char *buf, size_t size, void *data)
{
	(void)data;
	if (ax_interrupted)
		return -1;
	while (size) {
		const char *nl = memchr(buf, '\n', size);
		size_t len = nl ? (size_t)(nl - buf) + 1 : size;
		if (fwrite(buf, 1, len, stdout) != len ||
		    (nl && fputs("  ", stdout) == EOF))
			return -1;
		buf += len;
		size -= len;
	}
	return 0;
}

/* ax_db_result_fn: r, if on the --device selected, written at once.
 * A nonzero return stops the listing: s->rc or s->broken says why. */
static int stream_one(void *ctx, json_t *r)
{
	struct stream *s = ctx;
	const char *sel = s->app->device_sel;
	/* Refused only once there is a result, as ax_app_filter_device
	 * after check_suite did: an empty selection is said first. */
	if (s->read++ == 0 && (s->rc = ax_app_check_device(s->app, sel)))
		return 1;
	if (!ax_app_on_device(r, sel))
		return 0;
	ax_app_type_result_params(r);
	add_spec(s->sc, r);
	if (s->csv) {
		if (s->shown++ == 0)
			csv_header();
		csv_row(r);
		/* A reader that went away takes no more rows. */
		return ferror(stdout) ? (s->broken = true) : 0;
	}
	if (fputs(s->shown++ ? ",\n  " : "[\n  ", stdout) == EOF ||
	    json_dump_callback(r, dump_chunk, NULL, JSON_INDENT(2)))
		return (s->broken = true);
	return 0;
}

/* The end of a listing that wrote everything it read. */
static void stream_end(const struct stream *s)
{
	if (s->csv && !s->shown)
		csv_header();
	else if (!s->csv)
		fputs(s->shown ? "\n]\n" : "[]\n", stdout);
}

extern const struct ax_cli_cmd ax_cmd_results;

/* --suite that selects nothing: a name axbench does not know, or one with
 * no stored results, is said, not shown as an empty table. */
static int check_suite(const struct ax_app *app, const char *suite,
		       size_t n_results, bool runs_selected)
{
	if (!suite || n_results)
		return 0;
	/* A user kernel's suite exists only while its file is loaded. */
	if (!strncmp(suite, AX_KERNEL_SUITE_PREFIX,
		     strlen(AX_KERNEL_SUITE_PREFIX)))
		return ax_app_error(
		    app, AX_EXIT_USAGE,
		    "results: --suite %s: no stored results of "
		    "that kernel%s in %s; measure it with "
		    "`axbench kernel run FILE.yaml`",
		    suite, runs_selected ? " in the selected runs" : "",
		    app->db_path);
	if (!ax_suite_find(suite))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "results: --suite '%s': no such suite; "
				    "`axbench suites` lists them",
				    suite);
	return ax_app_error(app, AX_EXIT_USAGE,
			    "results: --suite %s: no stored results of that "
			    "suite%s in %s; measure it with `axbench run %s`",
			    suite, runs_selected ? " in the selected runs" : "",
			    app->db_path, suite);
}

/* The stored-results error of a listing: interrupted (130) or storage
 * (5), said after whatever was written. */
static int read_failed(struct ax_db *db, bool partial)
{
	fprintf(stderr, "axbench results: %s%s\n", ax_db_errmsg(db),
		partial ? "; the output is incomplete" : "");
	return ax_interrupted ? AX_EXIT_INTERRUPTED : AX_EXIT_STORAGE;
}

/* --json or --csv, streamed (see struct stream). */
static int stream_results(struct ax_app *app, struct ax_db *db,
			  const struct ax_db_filter *f, bool csv,
			  bool runs_selected, const struct spec_ctx *sc)
{
	struct stream s = {.app = app, .sc = sc, .csv = csv};
	struct ax_db_filter sf = *f;
	sf.with_samples = f->with_samples && !csv; /* CSV has no column */
	int rc = ax_db_results_each(db, &sf, stream_one, &s);
	if (rc < 0)
		return read_failed(db, s.shown > 0);
	if (s.rc)
		return s.rc;
	/* Ctrl-C or a failed write: main and the caller say which. */
	if (s.broken)
		return 0;
	if ((rc = check_suite(app, f->suite, s.read, runs_selected)))
		return rc;
	if (!s.shown && app->device_sel && strcmp(app->device_sel, "all")) {
		/* Nothing was read, so nothing was checked yet. */
		if ((rc = ax_app_check_device(app, app->device_sel)))
			return rc;
		return ax_app_no_device_match(app, app->device_sel);
	}
	stream_end(&s);
	return 0;
}

/* The table sizes its case column to the longest case, so it reads every
 * result first (with no samples: it shows none). */
static int table_results(struct ax_app *app, struct ax_db *db,
			 const struct ax_db_filter *f, bool runs_selected,
			 const struct spec_ctx *sc)
{
	struct ax_db_filter tf = *f;
	tf.with_samples = false;
	json_t *results = NULL;
	int rc;
	if (ax_db_results(db, &tf, &results))
		return read_failed(db, false);
	rc =
	    check_suite(app, f->suite, json_array_size(results), runs_selected);
	if (rc == 0)
		rc = ax_app_filter_device(app, results, app->device_sel);
	if (rc == 0) {
		ax_app_type_params(results);
		print_table(sc, results);
	}
	json_decref(results);
	return rc;
}

static int results_main(struct ax_app *app, int argc, char **argv)
{
	struct ax_cli_iter it;
	const char *runs[64];
	int n_runs = 0, opt, rc = 0;
	struct ax_db_filter f = {.stop = &ax_interrupted};
	bool csv = false;
	ax_cli_iter_init(&it, app, &ax_cmd_results, argc, argv);
	while ((opt = ax_cli_next(&it)) > 0) {
		if (opt == OPT_RUN && n_runs == 64) {
			ax_cli_iter_release(&it);
			return ax_app_error(
			    app, AX_EXIT_USAGE,
			    "results: at most 64 --run options; "
			    "select fewer (or none, for all)");
		}
		if (opt == OPT_RUN)
			runs[n_runs++] = it.optarg;
		else if (opt == OPT_SUITE)
			f.suite = it.optarg;
		else if (opt == OPT_CSV)
			csv = true;
		else if (opt == OPT_SAMPLES)
			f.with_samples = true;
	}
	rc = ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (rc != AX_CLI_CONTINUE)
		return rc;
	struct spec_ctx sc = {0};
	/* The table says "spec unknown" itself; --json and --csv say it in
	 * each result's spec, so stderr gets the missing file only there. */
	if ((rc = spec_open(app, !app->json && !csv, &sc))) {
		spec_close(&sc);
		return rc;
	}
	struct ax_db *db;
	if ((rc = ax_app_db(app, &db))) {
		spec_close(&sc);
		return rc;
	}
	int64_t ids[64];
	for (int i = 0; i < n_runs && rc == 0; i++)
		rc = ax_app_resolve_run(app, db, "results", runs[i], &ids[i]);
	f.run_ids = ids;
	f.n_run_ids = n_runs;
	if (rc == 0 && (app->json || csv))
		rc = stream_results(app, db, &f, !app->json, n_runs > 0, &sc);
	else if (rc == 0)
		rc = table_results(app, db, &f, n_runs > 0, &sc);
	spec_close(&sc);
	if (rc == 0 && ax_interrupted)
		rc = ax_app_error(app, AX_EXIT_INTERRUPTED,
				  "results: interrupted; the output is "
				  "incomplete");
	return rc;
}

const struct ax_cli_cmd ax_cmd_results = {
    .name = "results",
    .summary = "show stored results (table, --json or --csv)",
    .usage = "[--run ID|last] [--suite NAME] [--json|--csv]",
    .examples =
	{"axbench results --run last               # the newest run as a table",
	 "axbench results --suite gemm --csv       # every gemm result as CSV"},
    .details = "%peak is the median over the device's best compute-peak result "
	       "in the same\n"
	       "unit. %spec is the median over the vendor's published figure "
	       "for the device in\n"
	       "specs.yaml of the configs directory (AXBENCH_CONFIG_DIR "
	       "overrides), matched by\n"
	       "PCI vendor and device id only, never by name: GFLOP/s with "
	       "dtype (or type) f32\n"
	       "against fp32, f16 against fp16 tensor/matrix dense, GB/s of a "
	       "bandwidth-peak\n"
	       "suite against memory bandwidth; 'unknown' for a device the "
	       "file does not list,\n"
	       "'-' where no figure applies. --json gives each result's "
	       "\"spec\" object.",
    .opts = results_opts,
    .needs = AX_APP_READ_ONLY_DB,
    .fn = results_main,
};
