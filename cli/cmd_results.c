/* cli/cmd_results.c - `axbench results`: what the database holds. */
#include "app/case_column.h"
#include "app/suite_doc.h"
#include "cli/cli.h"
#include "core/interrupt.h"

#include "core/db.h"
#include "core/error.h"
#include "core/specs.h"
#include "core/suggest.h"
#include "core/text.h"
#include "reports/roofline.h"
#include "reports/suite_doc.h"
#include "suites/kernel.h"
#include "suites/registry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_RUN = 1, OPT_SUITE, OPT_CSV, OPT_SAMPLES };

static const struct ax_cli_opt results_opts[] = {
    {OPT_RUN, "run", 'r', "ID|last",
     "only this run; last~N is the N-th before the newest (repeatable; "
     "default: every run)"},
    {OPT_SUITE, "suite", 's', "NAME", "only this suite (default: every suite)"},
    {OPT_CSV, "csv", 0, NULL,
     "print CSV (one row per result; default: a table)"},
    {OPT_SAMPLES, "samples", 0, NULL, "include raw samples (--json)"},
    {0},
};

/* A stored text, or "" where none was stored. */
static const char *text_of(const char *s) { return s ? s : ""; }

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

/* One CSV line's cells, in csv_cols' order: numbers as the result
 * documents hold them (integers whole, figures %.6g), "" where nothing
 * was stored. */
struct csv_line {
	const char *v[CSV_COLS];
	char buf[CSV_COLS][64];
	int n;
};

static void put_text(struct csv_line *l, const char *s)
{
	l->v[l->n++] = text_of(s);
}

static void put_int(struct csv_line *l, int64_t v)
{
	snprintf(l->buf[l->n], sizeof(l->buf[0]), "%lld", (long long)v);
	put_text(l, v == AX_DB_NONE ? "" : l->buf[l->n]);
}

static void put_num(struct csv_line *l, double v)
{
	snprintf(l->buf[l->n], sizeof(l->buf[0]), "%.6g", v);
	put_text(l, isfinite(v) ? l->buf[l->n] : "");
}

/* A stored document's cell (the parameters): a text as it is, a number
 * as put_num and put_int write it, an object as compact JSON (*dumped,
 * malloc'd), anything else "". */
static void put_doc(struct csv_line *l, const json_t *v, char **dumped)
{
	if (json_is_string(v))
		put_text(l, json_string_value(v));
	else if (json_is_integer(v))
		put_int(l, json_integer_value(v));
	else if (json_is_real(v))
		put_num(l, json_real_value(v));
	else if (json_is_boolean(v))
		put_text(l, json_is_true(v) ? "true" : "false");
	else if (json_is_object(v))
		put_text(l, *dumped =
				json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS));
	else
		put_text(l, "");
}

/* The words of the "spec" object's status (core/specs.c writes them in
 * ax_spec_cmp_json; a name function beside it would serve both). */
static const char *const spec_status[] = {"compared", "unknown",
					  "not_applicable"};

/* The power, CPU and spec cells: "" for a result measured before power
 * was stored, or with no CPU baseline. */
static void put_facts(struct csv_line *l, const struct ax_db_result_row *r,
		      const struct ax_spec_cmp *c)
{
	const struct ax_db_power_row *p = &r->power;
	put_num(l, p->present ? p->mean_w : NAN);
	put_num(l, p->present ? p->energy_rep_j : NAN);
	put_num(l, p->present ? p->perf_per_w : NAN);
	put_text(l, p->present ? p->perf_per_w_unit : NULL);
	put_text(l, !p->present || p->throttled == AX_DB_NONE ? ""
		    : p->throttled			      ? "true"
							      : "false");
	put_text(l, p->present ? p->reason : NULL);
	put_num(l, r->speedup_vs_cpu);
	put_num(l, r->cpu.id ? r->cpu.median : NAN);
	put_text(l, spec_status[c->status]);
	put_text(l, ax_spec_figure_name(c->figure));
	put_num(l, c->percent);
}

static void csv_row(const struct ax_db_result_row *r,
		    const struct ax_spec_cmp *c)
{
	struct csv_line l = {.n = 0};
	char *dumped = NULL;
	json_t *params = ax_db_params_json(&r->params, r->params_doc);
	put_int(&l, r->id);
	put_int(&l, r->run_id);
	put_text(&l, r->started_at);
	put_text(&l, r->device.name);
	put_text(&l, r->suite);
	put_text(&l, r->case_label);
	put_text(&l, r->status);
	put_text(&l, r->unit);
	double figures[] = {r->median, r->ci_lo, r->ci_hi, r->min, r->max};
	for (int k = 0; k < 5; k++)
		put_num(&l, figures[k]);
	put_int(&l, r->n);
	put_text(&l, r->stop_reason);
	put_text(&l, r->timing_mode);
	put_doc(&l, params, &dumped);
	put_text(&l, r->error);
	put_facts(&l, r, c);
	for (int i = 0; i < l.n; i++)
		csv_field(stdout, l.v[i], i == CSV_COLS - 1);
	free(dumped);
	json_decref(params);
}

/* A stored figure formatted, or "-" where it was not measured. */
static const char *figure(char *buf, size_t len, double v, const char *fmt)
{
	if (!isfinite(v))
		return "-";
	snprintf(buf, len, fmt, v);
	return buf;
}

/* The median a table cell shows: 0 where an ok result stored none, as
 * it always read. */
static double median_shown(const struct ax_db_result_row *r)
{
	return isfinite(r->median) ? r->median : 0.0;
}

/*
 * What a result is set against (core/specs.h): the suite document says
 * whether its GB/s are memory bandwidth (the bandwidth-peak role).
 */
struct spec_ctx {
	struct ax_specs *specs;		   /* NULL: no specs file */
	const struct ax_suite_doc *suites; /* the typed suite document */
};

static int spec_open(const struct ax_app *app, bool note, struct spec_ctx *sc)
{
	sc->suites = ax_app_suites();
	return ax_app_load_specs(app, "results", note, &sc->specs);
}

static void spec_close(struct spec_ctx *sc) { ax_specs_free(sc->specs); }

/* r against its device's vendor figure: ax_specs_compare_result on a row
 * (that form belongs in core/specs.h once no reader holds documents). */
static struct ax_spec_cmp spec_of(const struct spec_ctx *sc,
				  const struct ax_db_result_row *r)
{
	const struct ax_db_device_row *d = &r->device;
	json_t *params = ax_db_params_json(&r->params, r->params_doc);
	struct ax_spec_cmp c = ax_specs_compare(
	    sc->specs, d->id ? d->vendor_id : AX_DB_NONE,
	    d->id ? d->device_id : AX_DB_NONE, r->unit, params,
	    ax_suite_info_row_has_role(sc->suites, r, AX_ROLE_BANDWIDTH_PEAK),
	    r->ok ? r->median : NAN);
	json_decref(params);
	return c;
}

/* Each device's highest median of a compute-peak suite per unit: the
 * table's "% of measured peak".  Sorted by device and unit and looked up
 * by bisection: a history of many results must not cost their square. */
struct peak {
	const char *fingerprint, *unit;
	double best;
};

struct peaks {
	struct peak *v;
	size_t n;
};

static int cmp_peak(const void *x, const void *y)
{
	const struct peak *a = x, *b = y;
	int c = strcmp(a->fingerprint, b->fingerprint);
	return c ? c : strcmp(a->unit, b->unit);
}

static struct peaks measured_peaks(const struct spec_ctx *sc,
				   const struct ax_db_results *l)
{
	struct peaks p = {calloc(l->n + 1, sizeof(struct peak)), 0};
	for (size_t i = 0; p.v && i < l->n; i++) {
		const struct ax_db_result_row *r = l->v[i];
		if (r->ok && ax_suite_info_row_has_role(sc->suites, r,
							AX_ROLE_COMPUTE_PEAK))
			p.v[p.n++] =
			    (struct peak){text_of(r->device.fingerprint),
					  text_of(r->unit), median_shown(r)};
	}
	if (!p.n)
		return p;
	qsort(p.v, p.n, sizeof(*p.v), cmp_peak);
	size_t kept = 0;
	for (size_t i = 1; i < p.n; i++) {
		if (cmp_peak(&p.v[kept], &p.v[i]) != 0)
			p.v[++kept] = p.v[i];
		else if (p.v[i].best > p.v[kept].best)
			p.v[kept].best = p.v[i].best;
	}
	p.n = kept + 1;
	return p;
}

/* The table's %peak and %spec cells of r. */
static void percent_cells(const struct spec_ctx *sc, const struct peaks *peaks,
			  const struct ax_db_result_row *r, char *peak,
			  char *spec, size_t len)
{
	/* A ceiling against itself says nothing (the report leaves it out
	 * too). */
	bool ceiling =
	    ax_suite_info_row_has_role(sc->suites, r, AX_ROLE_COMPUTE_PEAK);
	struct peak key = {text_of(r->device.fingerprint), text_of(r->unit), 0};
	const struct peak *best =
	    peaks->n ? bsearch(&key, peaks->v, peaks->n, sizeof(key), cmp_peak)
		     : NULL;
	double p = r->ok && !ceiling && best ? best->best : NAN;
	struct ax_spec_cmp c = spec_of(sc, r);
	/* ax_text_percent: a wild figure never pushes the status column
	 * out of line. */
	snprintf(peak, len, "-");
	if (isfinite(p) && p > 0)
		ax_text_percent(100 * median_shown(r) / p, 1, peak, len);
	snprintf(spec, len, "-");
	if (c.status == AX_SPEC_COMPARED)
		ax_text_percent(c.percent, 1, spec, len);
	else if (c.status == AX_SPEC_UNKNOWN)
		snprintf(spec, len, "?"); /* why: once per device, below */
}

/* A stored PCI id as the note prints it (0 where none was stored). */
static unsigned long long pci_id(const struct ax_db_device_row *d, int64_t v)
{
	return d->id && v != AX_DB_NONE ? (unsigned long long)v : 0;
}

/* Under the table, once per device: which had no spec, and why. */
/* Each intensity sweep of the listing: its ridge point and the one the
 * run's peak and bandwidth results give (reports/roofline.h). */
static void print_roofline_notes(const struct spec_ctx *sc,
				 const struct ax_db_results *l)
{
	struct ax_roofline_sweeps sw;
	if (ax_roofline_sweeps(l, sc->suites, &sw))
		return;
	for (int i = 0; i < sw.n; i++) {
		char text[512];
		fprintf(stderr, "roofline: run %lld %s %s on %s: %s\n",
			(long long)sw.v[i].run_id, sw.v[i].suite,
			sw.v[i].precision, sw.v[i].device,
			ax_roofline_sweep_text(&sw.v[i], text, sizeof(text)));
	}
	ax_roofline_sweeps_free(&sw);
}

static void print_spec_notes(const struct spec_ctx *sc,
			     const struct ax_db_results *l)
{
	const char **said = calloc(l->n + 1, sizeof(*said));
	size_t n_said = 0;
	for (size_t i = 0; said && i < l->n; i++) {
		const struct ax_db_result_row *r = l->v[i];
		const struct ax_db_device_row *d = &r->device;
		const char *fp = text_of(d->fingerprint);
		struct ax_spec_cmp c = spec_of(sc, r);
		bool known = c.status != AX_SPEC_UNKNOWN;
		for (size_t k = 0; k < n_said && !known; k++)
			known = strcmp(said[k], fp) == 0;
		if (known)
			continue;
		said[n_said++] = fp;
		fprintf(stderr,
			"%%spec: spec unknown for %s (PCI %04llx:%04llx): %s; "
			"devices are matched by PCI ids only, never by name\n",
			ax_term(text_of(d->name)), pci_id(d, d->vendor_id),
			pci_id(d, d->device_id), c.why);
	}
	free(said);
}

/* The load a CPU baseline was taken under, in words ("other processes
 * kept 0.02 of 2 CPUs busy, load average 1.35"). */
static const char *cpu_load_text(const struct ax_db_cpu_row *c, char *buf,
				 size_t len)
{
	if (!isfinite(c->busy_other) || c->online_cpus < 1)
		snprintf(buf, len, "load not recorded");
	else
		snprintf(buf, len,
			 "other processes kept %.2f of %lld CPUs busy, load "
			 "average %.2f",
			 c->busy_other, (long long)c->online_cpus, c->load_1m);
	return buf;
}

/* Does r's vs-cpu figure use a CPU baseline? */
static bool uses_cpu(const struct ax_db_result_row *r)
{
	return r->cpu.id && isfinite(r->speedup_vs_cpu);
}

/* "result 4" or "results 4, 9, 12 and 3 more": those from l->v[from]
 * on whose vs-cpu figure used CPU baseline id. */
static const char *results_using(const struct ax_db_results *l, size_t from,
				 int64_t id, char *buf, size_t len)
{
	char ids[80] = ""; /* three ids of at most 20 digits */
	size_t n = 0, at = 0;
	for (size_t i = from; i < l->n; i++)
		if (uses_cpu(l->v[i]) && l->v[i]->cpu.id == id && ++n <= 3)
			at += (size_t)snprintf(ids + at, sizeof(ids) - at,
					       "%s%lld", n > 1 ? ", " : "",
					       (long long)l->v[i]->id);
	int k = snprintf(buf, len, "result%s %s", n > 1 ? "s" : "", ids);
	if (n > 3 && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " and %zu more", n - 3);
	return buf;
}

/* Under the table, once per CPU baseline that a vs-cpu figure used: its
 * id, median and interval, when and under which load it was taken, and
 * whether it is fit to reuse (core/db_rows.h ax_db_cpu_fit, against the
 * noise target of the first result's run). */
static void print_cpu_notes(const struct ax_db_results *l)
{
	int64_t *said = calloc(l->n + 1, sizeof(*said));
	size_t n_said = 0;
	for (size_t i = 0; said && i < l->n; i++) {
		const struct ax_db_result_row *r = l->v[i];
		const struct ax_db_cpu_row *c = &r->cpu;
		bool known = !uses_cpu(r);
		for (size_t k = 0; k < n_said && !known; k++)
			known = said[k] == c->id;
		if (known)
			continue;
		said[n_said++] = c->id;
		char who[128], ci[64] = "", load[128];
		if (isfinite(c->ci_lo) && isfinite(c->ci_hi))
			snprintf(ci, sizeof(ci), " [%.4g, %.4g]", c->ci_lo,
				 c->ci_hi);
		enum ax_db_cpu_fit fit = ax_db_cpu_fit(c, r->noise_target);
		fprintf(stderr,
			"vs-cpu of %s: CPU baseline %lld, %.4g %s%s, taken %s; "
			"%s; %s%s\n",
			results_using(l, i, c->id, who, sizeof(who)),
			(long long)c->id, c->median, ax_term(text_of(c->unit)),
			ci, ax_term(text_of(c->created_at)),
			cpu_load_text(c, load, sizeof(load)),
			ax_db_cpu_fit_name(fit),
			fit == AX_DB_CPU_CLEAN
			    ? " (reusable)"
			    : " (measured again when next needed)");
	}
	free(said);
}

/* Runs whose results may be partial are said under the table: one
 * still running, or one abandoned by a process that is gone. */
static void print_unfinished_runs(const struct ax_db_results *l)
{
	long long last = 0;
	for (size_t i = 0; i < l->n; i++) {
		long long run = (long long)l->v[i]->run_id;
		const char *st = text_of(l->v[i]->run_status);
		if (run == last)
			continue;
		last = run;
		if (strcmp(st, "abandoned") == 0)
			fprintf(
			    stderr,
			    "run %lld is abandoned: its process ended without "
			    "finishing it; its results are those stored "
			    "before\n",
			    run);
		else if (strcmp(st, "running") == 0)
			fprintf(stderr,
				"run %lld is still running (or ran on another "
				"machine and never finished)\n",
				run);
	}
}

/* The widths of the table's text columns; label_w 0: the rows' runs
 * share one label (or none), and the column is left out. */
struct layout {
	int case_w, label_w;
};

#define LABEL_MAX 24 /* a longer run label is cut, "~" last */

/* The run's label as its cell shows it ("-" for none). */
static const char *label_cell(const struct ax_db_result_row *r, char *buf,
			      size_t len)
{
	snprintf(buf, len, "%s", r->run_label ? ax_term(r->run_label) : "-");
	ax_text_fit(buf, LABEL_MAX);
	return buf;
}

/* Whether the rows' runs have two different labels (NULL is one): one
 * label for all, often the default "host/device", says nothing a row
 * needs, and `runs` lists it. */
static bool labels_differ(const struct ax_db_results *l)
{
	for (size_t i = 1; i < l->n; i++) {
		const char *a = l->v[0]->run_label, *b = l->v[i]->run_label;
		if ((a == NULL) != (b == NULL) || (a && strcmp(a, b)))
			return true;
	}
	return false;
}

/* The median's interval as run prints it: its half-width in percent of
 * the median, "-" without one. */
static const char *ci_cell(const struct ax_db_result_row *r, char *buf,
			   size_t len)
{
	snprintf(buf, len, "-");
	if (r->ok && isfinite(r->ci_lo) && isfinite(r->ci_hi) && r->median > 0)
		ax_text_percent(100 * (r->ci_hi - r->ci_lo) / 2 / r->median, 2,
				buf, len);
	return buf;
}

static void print_row(const struct spec_ctx *sc, const struct peaks *peaks,
		      const struct ax_db_result_row *r,
		      const struct layout *lay, struct ax_case_column *cases)
{
	char label[512], run_label[4 * LABEL_MAX + 8], ci[32];
	ax_case_column_text(cases, r->suite, text_of(r->case_label), label,
			    sizeof(label));
	char median[32] = "-";
	if (r->ok)
		snprintf(median, sizeof(median), "%.4g", median_shown(r));
	char w_[32], pw[32], x[32], pk[32], sp[32];
	const struct ax_db_power_row *p = &r->power;
	percent_cells(sc, peaks, r, pk, sp, sizeof(pk));
	printf("%-6lld %-5lld ", (long long)r->id, (long long)r->run_id);
	if (lay->label_w) {
		label_cell(r, run_label, sizeof(run_label));
		/* padded by characters: a label may be UTF-8 */
		printf("%s%*s ", run_label,
		       lay->label_w - (int)ax_text_chars(run_label), "");
	}
	/* "verified", as run says it: the stored status "ok" is what
	 * --json and --csv keep. */
	printf("%-10s %-*s %12s %-8s %8s %4d %7s %8s %7s %7s %7s %s%s%s\n",
	       ax_term(text_of(r->suite)), lay->case_w, ax_term(label), median,
	       ax_term(text_of(r->unit)), ci_cell(r, ci, sizeof(ci)),
	       r->n == AX_DB_NONE ? 0 : (int)r->n,
	       figure(w_, sizeof(w_), p->present ? p->mean_w : NAN, "%.1f"),
	       figure(pw, sizeof(pw), p->present ? p->perf_per_w : NAN, "%.3g"),
	       figure(x, sizeof(x), r->speedup_vs_cpu, "%.2fx"), pk, sp,
	       r->ok ? "verified" : ax_term(text_of(r->status)),
	       r->ok ? "" : ": ", r->ok ? "" : ax_term(text_of(r->error)));
}

/* Under the table, each result whose samples fall in several modes
 * (extra "distribution", core/stats_dist.h): its median sits between
 * them, so the modes and p10 / p50 / p90 are said. */
static void print_distributions(const struct ax_db_results *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ax_db_result_row *r = l->v[i];
		const json_t *d = json_object_get(r->extra_doc, "distribution");
		if (!r->ok || !json_is_true(json_object_get(d, "multimodal")))
			continue;
		const char *unit = ax_term(text_of(r->unit));
		printf("result %lld (%s %s) is multimodal: modes",
		       (long long)r->id, ax_term(text_of(r->suite)),
		       ax_term(text_of(r->case_label)));
		size_t k;
		const json_t *m;
		json_array_foreach(json_object_get(d, "modes"), k, m) printf(
		    "%s %.4g %s (%.0f%%)", k ? "," : "",
		    json_number_value(json_object_get(m, "value")), unit,
		    100 * json_number_value(json_object_get(m, "share")));
		printf("; p10 %.4g, p50 %.4g, p90 %.4g %s\n",
		       json_number_value(json_object_get(d, "p10")),
		       json_number_value(json_object_get(d, "p50")),
		       json_number_value(json_object_get(d, "p90")), unit);
	}
}

/* Stored text goes through ax_term: a control character or a
 * bidirectional override reaches the terminal as visible text. */
static void print_table(const struct ax_app *app, const struct spec_ctx *sc,
			const struct ax_db_results *l)
{
	struct layout lay = {4, 0};
	struct ax_case_column cases;
	ax_case_column_init(&cases, app->verbosity > 0);
	for (size_t i = 0; i < l->n; i++)
		ax_case_column_add(&cases, l->v[i]->suite,
				   text_of(l->v[i]->case_label));
	for (size_t i = 0; i < l->n; i++) {
		char label[512];
		ax_case_column_text(&cases, l->v[i]->suite,
				    text_of(l->v[i]->case_label), label,
				    sizeof(label));
		int len = (int)strlen(ax_term(label));
		if (len > lay.case_w)
			lay.case_w = len > 90 ? 90 : len;
		char run_label[4 * LABEL_MAX + 8];
		int lw = (int)ax_text_chars(
		    label_cell(l->v[i], run_label, sizeof(run_label)));
		if (l->v[i]->run_label && lw > lay.label_w)
			lay.label_w = lw < 5 ? 5 : lw;
	}
	if (!labels_differ(l))
		lay.label_w = 0;
	printf("%-6s %-5s ", "id", "run");
	if (lay.label_w)
		printf("%-*s ", lay.label_w, "label");
	printf("%-10s %-*s %12s %-8s %8s %4s %7s %8s %7s %7s %7s %s\n", "suite",
	       lay.case_w, "case", "median", "unit", "+-ci", "n", "W", "perf/W",
	       "vs-cpu", "%peak", "%spec", "status");
	struct peaks peaks = measured_peaks(sc, l);
	for (size_t i = 0; i < l->n; i++)
		print_row(sc, &peaks, l->v[i], &lay, &cases);
	free(peaks.v);
	bool cut = ax_case_column_cut(&cases);
	ax_case_column_free(&cases);
	if (l->n == 0)
		printf("(no results)\n");
	print_distributions(l);
	/* The notes on stderr, after the table: stdout is the table and
	 * what its rows hold, for a reader that parses it. */
	fflush(stdout);
	print_spec_notes(sc, l);
	print_roofline_notes(sc, l);
	print_cpu_notes(l);
	print_unfinished_runs(l);
	if (cut && app->verbosity >= 0)
		fprintf(stderr, "axbench: %s\n", AX_CASE_COLUMN_NOTE);
}

/*
 * Results are read one at a time (ax_db_result_rows_each).  --json and
 * --csv are written as they are read, so memory holds one result and its
 * samples, never the history: a million samples would otherwise be a few
 * hundred MiB of JSON objects.  The document is the one jansson writes
 * for the whole array with JSON_INDENT(2), byte for byte: "[", each
 * element dumped alone with its lines indented by two more spaces
 * (jansson escapes newlines inside strings, so every newline of a dump
 * is layout), ",\n" between them, "]".  Nothing is written before the
 * first kept result, so that a selection that keeps nothing is still
 * refused with no output, as when the whole array was read first.  The
 * table sizes its case column to the longest case, so it keeps the rows
 * (with no samples: it shows none) and prints them at the end.
 */
enum output { OUT_TABLE, OUT_JSON, OUT_CSV };

struct stream {
	const struct ax_app *app;
	const struct spec_ctx *sc;
	enum output how;
	struct ax_db_results kept; /* the table's rows */
	size_t read;		   /* results read, on any device */
	size_t shown;		   /* results written (or kept) */
	int rc;			   /* the exit code that stopped the listing */
	bool broken; /* a dump stopped: Ctrl-C or a failed write */
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

/* r's document (docs/JSON.md) with its "spec", as an array element. */
static int write_json(const struct stream *s, const struct ax_db_result_row *r)
{
	json_t *doc = ax_db_result_json(r);
	struct ax_spec_cmp c = spec_of(s->sc, r);
	int rc =
	    doc ? json_object_set_new(doc, "spec", ax_spec_cmp_json(&c)) : -1;
	if (rc == 0)
		rc = fputs(s->shown ? ",\n  " : "[\n  ", stdout) == EOF ||
		     json_dump_callback(doc, dump_chunk, NULL, JSON_INDENT(2));
	json_decref(doc);
	return rc;
}

/* ax_db_result_row_fn: r, if on the --device selected, written at once
 * (or kept for the table).  A nonzero return stops the listing: s->rc or
 * s->broken says why. */
static int stream_one(void *ctx, struct ax_db_result_row **row)
{
	struct stream *s = ctx;
	struct ax_db_result_row *r = *row;
	const char *sel = s->app->device_sel;
	/* Refused only once there is a result, as the whole listing was
	 * after check_suite: an empty selection is said first. */
	if (s->read++ == 0 && (s->rc = ax_app_check_device(s->app, sel)))
		return 1;
	if (!ax_app_row_on_device(&r->device, sel))
		return 0;
	ax_app_type_row_params(r);
	if (s->how == OUT_TABLE) {
		if (ax_db_results_push(&s->kept, r))
			return (s->rc = ax_app_error(s->app, AX_EXIT_STORAGE,
						     "results: out of memory"));
		*row = NULL;
		s->shown++;
		return 0;
	}
	if (s->how == OUT_CSV) {
		struct ax_spec_cmp c = spec_of(s->sc, r);
		if (s->shown++ == 0)
			csv_header();
		csv_row(r, &c);
		/* A reader that went away takes no more rows. */
		return ferror(stdout) ? (s->broken = true) : 0;
	}
	if (write_json(s, r))
		return (s->broken = true);
	s->shown++;
	return 0;
}

/* The end of a listing that wrote everything it read. */
static void stream_end(struct stream *s)
{
	if (s->how == OUT_TABLE)
		print_table(s->app, s->sc, &s->kept);
	else if (s->how == OUT_CSV && !s->shown)
		csv_header();
	else if (s->how == OUT_JSON)
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
	if (!ax_suite_find(suite)) {
		const struct ax_suite *all[64];
		int n = ax_suite_all(all, 64);
		struct ax_suggest sg;
		char hint[128];
		ax_suggest_init(&sg, suite);
		for (int i = 0; i < n; i++)
			ax_suggest_add(&sg, all[i]->name);
		return ax_app_error(app, AX_EXIT_USAGE,
				    "results: --suite '%s': no such suite "
				    "(`axbench suites` lists them)%s",
				    ax_term(suite),
				    ax_suggest_text(&sg, hint, sizeof(hint)));
	}
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

/* A listing that read to its end: a selection that kept nothing is said
 * (2), else the end of the output is written. */
static int list_end(struct ax_app *app, const struct ax_db_filter *f,
		    struct stream *s, bool runs_selected)
{
	int rc = check_suite(app, f->suite, s->read, runs_selected);
	if (rc)
		return rc;
	if (!s->shown && app->device_sel && strcmp(app->device_sel, "all")) {
		/* Nothing was read, so nothing was checked yet. */
		if ((rc = ax_app_check_device(app, app->device_sel)))
			return rc;
		return ax_app_no_device_match(app, app->device_sel);
	}
	stream_end(s);
	return 0;
}

/* The listing in its form (see struct stream); says whatever stopped
 * it.  The table and CSV read no samples: they show none. */
static int list_results(struct ax_app *app, struct ax_db *db,
			const struct ax_db_filter *f, enum output how,
			bool runs_selected, const struct spec_ctx *sc)
{
	struct stream s = {.app = app, .sc = sc, .how = how};
	struct ax_db_filter sf = *f;
	sf.with_samples = f->with_samples && how == OUT_JSON;
	int rc = ax_db_result_rows_each(db, &sf, stream_one, &s);
	if (rc < 0)
		rc = read_failed(db, how != OUT_TABLE && s.shown > 0);
	else if (s.rc || s.broken)
		/* broken (s.rc 0): Ctrl-C or a failed write, which main and
		 * the caller say. */
		rc = s.rc;
	else
		rc = list_end(app, f, &s, runs_selected);
	ax_db_results_free(&s.kept);
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
	enum output how = app->json ? OUT_JSON : csv ? OUT_CSV : OUT_TABLE;
	if (rc == 0)
		rc = list_results(app, db, &f, how, n_runs > 0, &sc);
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
	       "suite against memory bandwidth; '?' for a device the file "
	       "does not list (a\n"
	       "note on stderr says why, once per device), '-' where no "
	       "figure applies.\n"
	       "--json gives each result's \"spec\" object.  The table: "
	       "+-ci is the half-width\n"
	       "of the median's 95 % interval in percent of it, as run "
	       "prints it; status\n"
	       "'verified' is the stored 'ok' (--json and --csv keep 'ok'); "
	       "label is the run's\n"
	       "label, shown where the rows' runs have different ones; the "
	       "case column leaves\n"
	       "out what every row has at its default (-v shows the whole "
	       "case).  The notes\n"
	       "under the table (spec unknown, CPU baselines, unfinished runs) "
	       "go to stderr.",
    .opts = results_opts,
    .needs = AX_APP_READ_ONLY_DB,
    .fn = results_main,
};
