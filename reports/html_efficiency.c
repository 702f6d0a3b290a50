/* reports/html_efficiency.c - the efficiency section: perf per watt,
 * power and energy per repetition and per unit of work, temperatures,
 * clocks, memory and throttling, the speed-up over the host CPU's
 * library, and the telemetry of sustained runs against time
 * (html_telemetry.c).  A figure that was not measured is NAN in the rows
 * (null in the data) and a dash here, never a 0. */
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BARS_PER_CHART 40
#define REASONS_SHOWN 4

typedef struct ax_db_result_row row_t;
typedef struct ax_db_power_row power_t;

/* A result's power row, or NULL: measured before axbench recorded
 * power (the data has null there). */
static const power_t *power_of(const row_t *r)
{
	return r->power.present ? &r->power : NULL;
}

/* Did a sensor give this result a power or energy figure? */
static bool has_figures(const row_t *r)
{
	const power_t *p = power_of(r);
	return r->ok && p && (isfinite(p->mean_w) || isfinite(p->energy_rep_j));
}

static bool has_speedup(const row_t *r)
{
	return r->ok && isfinite(r->speedup_vs_cpu);
}

/* Its perf per watt; NAN without a power row. */
static double ppw_of(const row_t *r)
{
	const power_t *p = power_of(r);
	return p ? p->perf_per_w : NAN;
}

/* A bar's label: what varies of the case, then the system where the
 * report has several and the run where one system has several. */
static void bar_label(const struct ax_html_ctx *c, const row_t *r,
		      const char *varying, char *buf, size_t len)
{
	char run[300];
	int sys = ax_html_system_of(c, r);
	int n = snprintf(buf, len, "%s", varying);
	if (c->n_sys > 1 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%s#%d %s",
			      n ? " - " : "", sys + 1,
			      ax_html_system_name(c, sys));
	if (sys >= 0 && c->sys[sys].n_runs > 1 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s%s", n ? " - " : "",
			 ax_html_run_name(c, r->source, r->run_id, run,
					  sizeof(run)));
}

/* ---- cells ------------------------------------------------------------- */

/* fmt of v into buf, or the dash that marks a figure not measured. */
static const char *figure(double v, const char *fmt, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "%s", AX_HTML_DASH);
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

static void num_cell(struct ax_html_ctx *c, double v, const char *fmt)
{
	char b[64];
	fprintf(c->f, "<td class=\"num\">%s</td>",
		figure(v, fmt, b, sizeof(b)));
}

/* "mean / max" in one cell; a dash for each side not measured, and a
 * single dash when neither was. */
static void pair_cell(struct ax_html_ctx *c, double a, double b,
		      const char *fmt)
{
	char x[64], y[64];
	if (!isfinite(a) && !isfinite(b))
		num_cell(c, NAN, fmt);
	else
		fprintf(c->f, "<td class=\"num\">%s / %s</td>",
			figure(a, fmt, x, sizeof(x)),
			figure(b, fmt, y, sizeof(y)));
}

/* Bytes with a binary prefix ("1.5 GiB"); a dash when not measured. */
static const char *bytes_text(double v, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int i = 0;
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", AX_HTML_DASH);
		return buf;
	}
	while (fabs(v) >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.3g %s" : "%.0f %s", v, units[i]);
	return buf;
}

static void text_cell(struct ax_html_ctx *c, const char *s)
{
	fputs("<td>", c->f);
	ax_html_escape(c->f, s);
	fputs("</td>", c->f);
}

/* Run, suite, case and device: the first cells of every table here. */
static void id_cells(struct ax_html_ctx *c, const row_t *r)
{
	char *label = ax_html_case_label(r), run[300];
	fputs("<tr>", c->f);
	text_cell(c,
		  ax_html_run_name(c, r->source, r->run_id, run, sizeof(run)));
	text_cell(c, ax_html_str(r->suite));
	text_cell(c, label ? label : "");
	fputs("<td>", c->f);
	ax_html_system_chip(c, ax_html_system_of(c, r));
	fputs("</td>", c->f);
	free(label);
}

/* ---- when there is no figure ------------------------------------------- */

/* One stored reason for no power figure, and how many results gave it. */
struct reason {
	const char *source; /* "" when there was no sensor */
	const char *text;
	int n;
};

/* Distinct (source, reason) pairs of the ok results that have a power
 * object but no figure, first seen first; returns how many. */
static size_t collect_reasons(const struct ax_html_ctx *c, struct reason *out)
{
	size_t n = 0;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const row_t *r = c->d->results->v[i];
		const power_t *p = power_of(r);
		if (!r->ok || !p || has_figures(r))
			continue;
		const char *src = ax_html_str(p->source);
		const char *why = *ax_html_str(p->reason)
				      ? p->reason
				      : "no reason was stored";
		size_t k = 0;
		while (k < n &&
		       (strcmp(out[k].source, src) || strcmp(out[k].text, why)))
			k++;
		if (k == n)
			out[n++] = (struct reason){src, why, 0};
		out[k].n++;
	}
	return n;
}

/* The stored reasons of the results without a power figure, each quoted
 * once (a whole run without a sensor shares one reason), so that "no
 * sensor" is said with its cause rather than shown as empty columns. */
static void no_figure_lines(struct ax_html_ctx *c, int n_fig)
{
	struct reason *rs = calloc(c->d->results->n + 1, sizeof(*rs));
	size_t distinct = rs ? collect_reasons(c, rs) : 0;
	for (size_t i = 0; i < distinct && i < REASONS_SHOWN; i++) {
		fputs("<p class=\"empty\">", c->f);
		if (*rs[i].source) {
			fputs("No power figure from ", c->f);
			ax_html_escape(c->f, rs[i].source);
		} else {
			fputs("No power sensor", c->f);
		}
		if (n_fig > 0 || distinct > 1)
			fprintf(c->f, " (%d result%s)", rs[i].n,
				rs[i].n == 1 ? "" : "s");
		fputs(": ", c->f);
		ax_html_escape(c->f, rs[i].text);
		fputs("</p>\n", c->f);
	}
	if (distinct > REASONS_SHOWN)
		fprintf(c->f,
			"<p class=\"empty\">... and %zu other reasons (the "
			"embedded data has each result's).</p>\n",
			distinct - REASONS_SHOWN);
	free(rs);
}

/* Results measured before axbench recorded power have null there. */
static void old_results_line(struct ax_html_ctx *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->d->results->n; i++)
		n += c->d->results->v[i]->ok && !power_of(c->d->results->v[i]);
	if (n)
		fprintf(c->f,
			"<p class=\"empty\">%zu result%s carr%s no power "
			"data: measured before axbench recorded it.</p>\n",
			n, n == 1 ? "" : "s", n == 1 ? "ies" : "y");
}

/* ---- perf per watt ----------------------------------------------------- */

static void ppw_chart(struct ax_html_ctx *c, const char *suite,
		      const char *unit, const row_t **rs, char **varying, int n,
		      int part, int parts)
{
	struct ax_svg_bar *bars = calloc((size_t)n, sizeof(*bars));
	char(*labels)[240] = calloc((size_t)n, sizeof(*labels));
	int nd = c->n_sys;
	const char **legend = calloc((size_t)nd + 1, sizeof(char *));
	char(*names)[300] = calloc((size_t)nd + 1, sizeof(*names));
	if (bars && labels && legend && names) {
		for (int i = 0; i < n; i++) {
			bar_label(c, rs[i], varying[i], labels[i],
				  sizeof(labels[i]));
			bars[i] = (struct ax_svg_bar){
			    labels[i],
			    ax_html_system_of(c, rs[i]),
			    ppw_of(rs[i]),
			    NAN,
			    NAN,
			    ax_html_throttled(rs[i]) ? "[throttled]" : NULL};
		}
		for (int i = 0; i < nd; i++) {
			snprintf(names[i], sizeof(names[i]), "#%d %s", i + 1,
				 ax_html_system_name(c, i));
			legend[i] = names[i];
		}
		char title[300], axis[120];
		int k = snprintf(title, sizeof(title),
				 "%s: performance per watt, %s (higher is "
				 "better)",
				 suite, unit);
		if (parts > 1)
			snprintf(title + k, sizeof(title) - (size_t)k,
				 " (part %d of %d)", part, parts);
		snprintf(axis, sizeof(axis), "%s, higher is better", unit);
		ax_svg_hbars(c->f, title, axis, bars, n, legend,
			     nd > 1 ? nd : 0);
	}
	free(bars);
	free(labels);
	free(legend);
	free(names);
}

/* The results of suite with a perf/W in unit, in report order, their
 * common parameters said once, charted BARS_PER_CHART at a time. */
static void ppw_charts(struct ax_html_ctx *c, const char *suite,
		       const char *unit)
{
	size_t cap = c->d->results->n + 1;
	const row_t **rs = calloc(cap, sizeof(*rs));
	char **varying = calloc(cap, sizeof(*varying));
	int n = 0;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const row_t *r = c->d->results->v[i];
		if (!rs || !varying || !r->ok || !isfinite(ppw_of(r)) ||
		    strcmp(ax_html_str(r->suite), suite) ||
		    strcmp(ax_html_str(r->power.perf_per_w_unit), unit))
			continue;
		char *l = ax_html_case_label(r);
		if (!l && !(l = strdup("")))
			continue;
		rs[n] = r;
		varying[n++] = l;
	}
	char common[400];
	ax_html_strip_common(varying, n, common, sizeof(common));
	if (*common) {
		fputs("<p class=\"common\">Every bar: ", c->f);
		ax_html_escape(c->f, common);
		fputs("</p>\n", c->f);
	}
	int parts = (n + BARS_PER_CHART - 1) / BARS_PER_CHART;
	for (int k = 0; k < parts && !ax_html_stopped(c); k++) {
		int left = n - k * BARS_PER_CHART;
		ppw_chart(c, suite, unit, rs + k * BARS_PER_CHART,
			  varying + k * BARS_PER_CHART,
			  left < BARS_PER_CHART ? left : BARS_PER_CHART, k + 1,
			  parts);
	}
	for (int k = 0; k < n; k++)
		free(varying[k]);
	free(varying);
	free(rs);
}

/* Has a result before i the suite and perf/W unit of result i? */
static bool ppw_seen(const struct ax_html_ctx *c, size_t i)
{
	const row_t *r = c->d->results->v[i];
	for (size_t j = 0; j < i; j++) {
		const row_t *o = c->d->results->v[j];
		if (o->ok && isfinite(ppw_of(o)) &&
		    !strcmp(ax_html_str(o->suite), ax_html_str(r->suite)) &&
		    !strcmp(ax_html_str(o->power.perf_per_w_unit),
			    ax_html_str(r->power.perf_per_w_unit)))
			return true;
	}
	return false;
}

/* One chart group per suite and perf/W unit, first seen first. */
static void section_ppw(struct ax_html_ctx *c)
{
	int groups = 0;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const row_t *r = c->d->results->v[i];
		if (!r->ok || !isfinite(ppw_of(r)) || ppw_seen(c, i))
			continue;
		if (groups++ == 0)
			fputs("<h3>Performance per watt</h3>\n<p>Each bar is "
			      "the result's median over the mean power of "
			      "its timed span.</p>\n",
			      c->f);
		ppw_charts(c, ax_html_str(r->suite),
			   ax_html_str(r->power.perf_per_w_unit));
	}
}

/* ---- energy table ------------------------------------------------------ */

/* The unit of work behind a rate unit and its size in the FLOPs or bytes
 * that a result's "work" counts: "GFLOP/s" is "GFLOP", 1e9; "GB/s" is
 * "GB", 1e9.  false for a unit that is not a rate (latency's "us"). */
static bool work_unit(const char *unit, char *name, size_t len, double *scale)
{
	static const char prefixes[] = "KMGTP";
	size_t n = strlen(unit);
	if (n < 3 || strcmp(unit + n - 2, "/s"))
		return false;
	snprintf(name, len, "%.*s", (int)(n - 2), unit);
	const char *p = strchr(prefixes, unit[0] == 'k' ? 'K' : unit[0]);
	*scale =
	    p && unit[0] && n > 3 ? pow(1e3, (double)(p - prefixes + 1)) : 1;
	return true;
}

/* Energy per unit of work: J per repetition over the repetition's work
 * in the result's unit ("4.4 J/GFLOP"). */
static void energy_work_cell(struct ax_html_ctx *c, const row_t *r)
{
	char name[64];
	double scale = 1;
	double e = r->power.energy_rep_j;
	double work = r->work;
	if (!work_unit(ax_html_str(r->unit), name, sizeof(name), &scale) ||
	    !isfinite(e) || !(work > 0)) {
		num_cell(c, NAN, "");
		return;
	}
	fprintf(c->f, "<td class=\"num\">%.3g J/", e / (work / scale));
	ax_html_escape(c->f, name);
	fputs("</td>", c->f);
}

static void ppw_cell(struct ax_html_ctx *c, const power_t *p)
{
	double v = p->perf_per_w;
	if (!isfinite(v)) {
		num_cell(c, NAN, "");
		return;
	}
	fprintf(c->f, "<td class=\"num\">%.3g ", v);
	ax_html_escape(c->f, ax_html_str(p->perf_per_w_unit));
	fputs("</td>", c->f);
}

static void memory_cell(struct ax_html_ctx *c, const power_t *p)
{
	char a[64], b[64];
	double peak = p->mem_peak_b;
	double budget = p->mem_budget_b;
	fprintf(c->f, "<td class=\"num\">%s", bytes_text(peak, a, sizeof(a)));
	if (isfinite(peak) && isfinite(budget))
		fprintf(c->f, " of %s", bytes_text(budget, b, sizeof(b)));
	fputs("</td>", c->f);
}

/* The throttle verdict, its evidence as the tooltip: a badge when
 * throttled, "no" or "unknown" otherwise.  The evidence is also written
 * out where it is what a reader checks (throttled, or a table with room
 * for it: with_text). */
static void throttle_cell(struct ax_html_ctx *c, const power_t *p,
			  bool with_text)
{
	bool yes = p->throttled == 1;
	const char *ev = ax_html_str(p->throttle_evidence);
	fprintf(c->f, "<td><span class=\"%s\" title=\"",
		yes ? "badge throttled" : "verdict");
	ax_html_escape(c->f, ev);
	fprintf(c->f, "\">%s</span>",
		yes		    ? "throttled"
		: p->throttled == 0 ? "no"
				    : "unknown");
	if (*ev && (with_text || yes)) {
		fputs("<br><small>", c->f);
		ax_html_escape(c->f, ev);
		fputs("</small>", c->f);
	}
	fputs("</td>", c->f);
}

static void energy_row(struct ax_html_ctx *c, const row_t *r)
{
	const power_t *p = &r->power;
	id_cells(c, r);
	text_cell(c, ax_html_str(p->source));
	pair_cell(c, p->mean_w, p->max_w, "%.3g");
	num_cell(c, p->idle_w, "%.3g");
	num_cell(c, p->energy_rep_j, "%.3g");
	num_cell(c, p->energy_rep_net_j, "%.3g");
	energy_work_cell(c, r);
	ppw_cell(c, p);
	pair_cell(c, p->temp_mean_c, p->temp_max_c, "%.0f");
	pair_cell(c, p->sm_mhz, p->mem_mhz, "%.0f");
	memory_cell(c, p);
	throttle_cell(c, p, false);
	fputs("</tr>\n", c->f);
}

static void section_energy(struct ax_html_ctx *c)
{
	fputs("<h3>Power and energy per result</h3>\n<p>Over each result's "
	      "timed span. J per repetition is the mean power times the "
	      "median time of one repetition; net of idle, the power above "
	      "the idle reading taken before the run (below 0 when the case "
	      "drew less than that reading). A dash: not measured.</p>\n",
	      c->f);
	fputs("<div class=\"wide\"><table "
	      "class=\"eff\"><tr><th>Run</th><th>Suite</th>"
	      "<th>Case</th><th>System</th><th>Sensor</th>"
	      "<th>W mean / max</th><th>Idle W</th><th>J per repetition</th>"
	      "<th>J per repetition, net of idle</th>"
	      "<th>Energy per unit of work</th><th>Perf per W</th>"
	      "<th>&deg;C mean / max</th><th>MHz SM / memory</th>"
	      "<th>Peak memory</th><th>Throttled</th></tr>\n",
	      c->f);
	for (size_t i = 0; i < c->d->results->n; i++)
		if (has_figures(c->d->results->v[i]))
			energy_row(c, c->d->results->v[i]);
	fputs("</table></div>\n", c->f);
}

/* A sustained run judges throttling from its own samples (the slowdown
 * rule), sensor or not: results without a power figure keep that
 * verdict here. */
static bool verdict_only(const row_t *r)
{
	return r->ok && !has_figures(r) && power_of(r) &&
	       r->power.throttled != AX_DB_NONE;
}

static void section_verdicts(struct ax_html_ctx *c)
{
	int n = 0;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const row_t *r = c->d->results->v[i];
		if (!verdict_only(r))
			continue;
		if (n++ == 0)
			fputs("<h3>Throttling without a power figure</h3>\n"
			      "<div class=\"wide\"><table "
			      "class=\"eff\"><tr><th>Run</th>"
			      "<th>Suite</th><th>Case</th><th>System</th>"
			      "<th>Throttled</th></tr>\n",
			      c->f);
		id_cells(c, r);
		throttle_cell(c, power_of(r), true);
		fputs("</tr>\n", c->f);
	}
	if (n)
		fputs("</table></div>\n", c->f);
}

/* ---- speed-up over the host CPU ---------------------------------------- */

/* "0.42x": two decimals, or as many as it takes not to read as 1 or 0
 * when it is neither, so a device slower than the CPU is never rounded
 * up to as fast as it. */
static void speedup_text(double v, char *buf, size_t len)
{
	for (int digits = 2; digits <= 9; digits++) {
		snprintf(buf, len, "%.*f", digits, v);
		double shown = strtod(buf, NULL);
		if ((v > 1) == (shown > 1) && (v < 1) == (shown < 1) &&
		    (v > 0) == (shown > 0))
			break;
	}
	snprintf(buf + strlen(buf), len - strlen(buf), "\xc3\x97");
}

/* The figure first and unbroken, the words after it free to wrap, so
 * the column fits the page rather than being cut. */
static void speedup_cell(struct ax_html_ctx *c, double v)
{
	char s[64];
	speedup_text(v, s, sizeof(s));
	const char *cls = v < 1 ? "slower" : v > 1 ? "faster" : "";
	fprintf(c->f, "<td class=\"sp %s\"><b>%s</b> ", cls, s);
	if (v > 0 && v < 1)
		fprintf(c->f,
			"slower than the host CPU<br><small>(its library is "
			"%.3g&times; as fast)</small>",
			1 / v);
	else
		fputs(v < 1   ? "slower than the host CPU"
		      : v > 1 ? "faster than the host CPU"
			      : "as fast as the host CPU",
		      c->f);
	fputs("</td>", c->f);
}

/* "12.3 GFLOP/s" of median and unit, or a dash. */
static void median_cell(struct ax_html_ctx *c, double median, const char *unit)
{
	if (!isfinite(median)) {
		num_cell(c, NAN, "");
		return;
	}
	fprintf(c->f, "<td class=\"num\">%.4g ", median);
	ax_html_escape(c->f, unit);
	fputs("</td>", c->f);
}

/* "OpenBLAS 0.3.21, Haswell kernel, 2 threads" and its note. */
static void library_cell(struct ax_html_ctx *c, const struct ax_db_cpu_row *cpu)
{
	char threads[48] = "";
	double n = ax_html_int(cpu->threads);
	if (isfinite(n))
		snprintf(threads, sizeof(threads), ", %.0f thread%s", n,
			 n == 1 ? "" : "s");
	fputs("<td>", c->f);
	ax_html_escape(c->f, *ax_html_str(cpu->library) ? cpu->library
							: AX_HTML_DASH);
	if (*ax_html_str(cpu->version)) {
		fputs(" ", c->f);
		ax_html_escape(c->f, cpu->version);
	}
	if (*ax_html_str(cpu->corename)) {
		fputs(", ", c->f);
		ax_html_escape(c->f, cpu->corename);
		fputs(" kernel", c->f);
	}
	fputs(threads, c->f);
	if (*ax_html_str(cpu->note)) {
		fputs("<br><small>", c->f);
		ax_html_escape(c->f, cpu->note);
		fputs("</small>", c->f);
	}
	fputs("</td>", c->f);
}

/* The case cell: what varies between the suite's rows, or, where the
 * rows share the whole case, a pointer to the line under the table (the
 * full case in its tooltip). */
static void case_cell(struct ax_html_ctx *c, const char *label,
		      const char *full)
{
	if (label && *label) {
		text_cell(c, label);
		return;
	}
	fputs("<td title=\"", c->f);
	ax_html_escape(c->f, full ? full : "");
	fputs("\"><small>shared, under the table</small></td>", c->f);
}

static void speedup_row(struct ax_html_ctx *c, const row_t *r,
			const char *label, const char *full)
{
	/* A result compared with no CPU baseline shows none of its
	 * fields. */
	static const struct ax_db_cpu_row none = {.threads = AX_DB_NONE,
						  .n = AX_DB_NONE,
						  .median = NAN,
						  .ci_lo = NAN,
						  .ci_hi = NAN};
	const struct ax_db_cpu_row *cpu = r->cpu.id ? &r->cpu : &none;
	char run[300];
	fputs("<tr>", c->f);
	text_cell(c,
		  ax_html_run_name(c, r->source, r->run_id, run, sizeof(run)));
	text_cell(c, ax_html_str(r->suite));
	case_cell(c, label, full);
	fputs("<td>", c->f);
	ax_html_system_chip(c, ax_html_system_of(c, r));
	fputs("</td>", c->f);
	speedup_cell(c, r->speedup_vs_cpu);
	median_cell(c, r->median, ax_html_str(r->unit));
	median_cell(c, cpu->median, ax_html_str(cpu->unit));
	library_cell(c, cpu);
	fputs("</tr>\n", c->f);
}

/* A speed-up row of the table: tuning trials only with --include-tune,
 * as in the per-case charts (the Tuning section has them). */
static bool speedup_shown(const struct ax_html_ctx *c, const row_t *r)
{
	return has_speedup(r) && (!ax_html_is_tune(r) || c->d->include_tune);
}

/* The rows' case labels, each suite's showing what varies between its
 * rows; what they share goes to common[i] of the suite's first row i
 * (NULL elsewhere), for a line under the table. */
static void speedup_labels(const row_t **rows, int n, char **labels,
			   char **full, char **common)
{
	char **group = calloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		full[i] = ax_html_case_label(rows[i]);
		labels[i] = strdup(full[i] ? full[i] : "");
	}
	for (int i = 0; group && i < n; i++) {
		const char *suite = ax_html_str(rows[i]->suite);
		bool first = true;
		for (int j = 0; j < i && first; j++)
			first = strcmp(ax_html_str(rows[j]->suite), suite);
		if (!first)
			continue;
		int m = 0;
		for (int j = i; j < n; j++)
			if (!strcmp(ax_html_str(rows[j]->suite), suite) &&
			    labels[j])
				group[m++] = labels[j];
		char shared[600];
		ax_html_strip_common(group, m, shared, sizeof(shared));
		common[i] = *shared ? strdup(shared) : NULL;
	}
	free(group);
}

static void speedup_table(struct ax_html_ctx *c, const row_t **rows, int n,
			  char **labels, char **full, char **common)
{
	fputs("<div class=\"wide\"><table "
	      "class=\"eff\"><tr><th>Run</th><th>Suite</th>"
	      "<th>Case</th><th>System</th><th>Speed-up</th>"
	      "<th>Device median</th><th>CPU median</th><th>CPU library</th>"
	      "</tr>\n",
	      c->f);
	for (int i = 0; i < n; i++)
		speedup_row(c, rows[i], labels[i], full[i]);
	fputs("</table></div>\n", c->f);
	for (int i = 0; i < n; i++) {
		if (!common[i])
			continue;
		fputs("<p class=\"common\">Every ", c->f);
		ax_html_escape(c->f, ax_html_str(rows[i]->suite));
		fputs(" row above: ", c->f);
		ax_html_escape(c->f, common[i]);
		fputs("</p>\n", c->f);
	}
}

static void section_speedup(struct ax_html_ctx *c)
{
	size_t cap = c->d->results->n + 1;
	const row_t **rows = calloc(cap, sizeof(*rows));
	char **labels = calloc(cap, sizeof(char *));
	char **full = calloc(cap, sizeof(char *));
	char **common = calloc(cap, sizeof(char *));
	int n = 0, left = 0;
	for (size_t i = 0; rows && i < c->d->results->n; i++) {
		const row_t *r = c->d->results->v[i];
		if (speedup_shown(c, r))
			rows[n++] = r;
		else
			left += has_speedup(r);
	}
	fputs("<h3>Speed-up over the host CPU</h3>\n<p>The device's median "
	      "over the median of the same shape computed by a CPU library "
	      "on the same host: below 1&times; the device is slower than "
	      "the host CPU.",
	      c->f);
	if (left)
		fprintf(c->f,
			" %d tuning trial%s with a speed-up %s left out "
			"(<code>--include-tune</code> lists them).",
			left, left == 1 ? "" : "s", left == 1 ? "is" : "are");
	fputs("</p>\n", c->f);
	if (n && labels && full && common) {
		speedup_labels(rows, n, labels, full, common);
		speedup_table(c, rows, n, labels, full, common);
	} else if (n == 0) {
		ax_html_empty(c, "Only tuning trials have a speed-up here.");
	}
	for (int i = 0; labels && full && common && i < n; i++) {
		free(labels[i]);
		free(full[i]);
		free(common[i]);
	}
	free(labels);
	free(full);
	free(common);
	free(rows);
}

/* ---- the section ------------------------------------------------------- */

void ax_html_section_efficiency(struct ax_html_ctx *c)
{
	int n_power = 0, n_fig = 0, n_speed = 0;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const row_t *r = c->d->results->v[i];
		n_power += r->ok && power_of(r);
		n_fig += has_figures(r);
		n_speed += has_speedup(r);
	}
	ax_html_h2(c, "efficiency", "Efficiency");
	if (n_power == 0 && n_speed == 0) {
		ax_html_empty(c, "No power figures and no speed-up over the "
				 "host CPU in the selected data.");
		return;
	}
	no_figure_lines(c, n_fig);
	if (n_power)
		old_results_line(c);
	if (n_fig) {
		section_ppw(c);
		if (!ax_html_stopped(c))
			section_energy(c);
	}
	if (!ax_html_stopped(c))
		section_verdicts(c);
	if (n_speed && !ax_html_stopped(c))
		section_speedup(c);
	if (!ax_html_stopped(c))
		ax_html_section_telemetry(c);
}
