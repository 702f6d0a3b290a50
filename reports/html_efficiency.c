/* reports/html_efficiency.c - the efficiency section: perf per watt,
 * power and energy per repetition and per unit of work, temperatures,
 * clocks, memory and throttling, the speed-up over the host CPU's
 * library, and the telemetry of sustained runs against time
 * (html_telemetry.c).  A figure that was not measured is JSON null in the
 * data and a dash here, never a 0. */
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BARS_PER_CHART 40
#define REASONS_SHOWN 4

/* A result's power object, or NULL: measured before axbench recorded
 * power (the data has null there). */
static const json_t *power_of(const json_t *r)
{
	const json_t *p = json_object_get(r, "power");
	return json_is_object(p) ? p : NULL;
}

/* Did a sensor give this result a power or energy figure? */
static bool has_figures(const json_t *r)
{
	const json_t *p = power_of(r);
	return ax_html_ok(r) && p &&
	       (isfinite(ax_html_jnum(p, "mean_w")) ||
		isfinite(ax_html_jnum(p, "energy_rep_j")));
}

static bool has_speedup(const json_t *r)
{
	return ax_html_ok(r) && isfinite(ax_html_jnum(r, "speedup_vs_cpu"));
}

/* A bar's label: what varies of the case, then the system where the
 * report has several and the run where one system has several. */
static void bar_label(const struct ax_html_ctx *c, const json_t *r,
		      const char *varying, char *buf, size_t len)
{
	char run[300];
	int sys = ax_html_system_of(c, r);
	int n = snprintf(buf, len, "%s", varying);
	if (c->n_sys > 1 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%s#%d %s",
			      n ? " - " : "", sys + 1,
			      ax_html_system_name(c, sys));
	if (sys >= 0 && json_array_size(c->sys[sys].runs) > 1 && n >= 0 &&
	    (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s%s", n ? " - " : "",
			 ax_html_run_name(c, r, run, sizeof(run)));
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
static void id_cells(struct ax_html_ctx *c, const json_t *r)
{
	char *label = ax_html_case_label(r), run[300];
	fputs("<tr>", c->f);
	text_cell(c, ax_html_run_name(c, r, run, sizeof(run)));
	text_cell(c, ax_html_jstr(r, "suite"));
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
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(c->d->results, i, r)
	{
		const json_t *p = power_of(r);
		if (!ax_html_ok(r) || !p || has_figures(r))
			continue;
		const char *src = ax_html_jstr(p, "source");
		const char *why = *ax_html_jstr(p, "reason")
				      ? ax_html_jstr(p, "reason")
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
	struct reason *rs =
	    calloc(json_array_size(c->d->results) + 1, sizeof(*rs));
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
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(c->d->results, i, r) n +=
	    ax_html_ok(r) && !power_of(r);
	if (n)
		fprintf(c->f,
			"<p class=\"empty\">%zu result%s carr%s no power "
			"data: measured before axbench recorded it.</p>\n",
			n, n == 1 ? "" : "s", n == 1 ? "ies" : "y");
}

/* ---- perf per watt ----------------------------------------------------- */

static void ppw_chart(struct ax_html_ctx *c, const char *suite,
		      const char *unit, const json_t **rs, char **varying,
		      int n, int part, int parts)
{
	struct ax_svg_bar *bars = calloc((size_t)n, sizeof(*bars));
	char(*labels)[240] = calloc((size_t)n, sizeof(*labels));
	int nd = c->n_sys;
	const char **legend = calloc((size_t)nd + 1, sizeof(char *));
	char(*names)[300] = calloc((size_t)nd + 1, sizeof(*names));
	if (bars && labels && legend && names) {
		for (int i = 0; i < n; i++) {
			const json_t *p = power_of(rs[i]);
			bar_label(c, rs[i], varying[i], labels[i],
				  sizeof(labels[i]));
			bars[i] = (struct ax_svg_bar){
			    labels[i],
			    ax_html_system_of(c, rs[i]),
			    ax_html_jnum(p, "perf_per_w"),
			    NAN,
			    NAN,
			    json_is_true(json_object_get(p, "throttled"))
				? "[throttled]"
				: NULL};
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
	size_t cap = json_array_size(c->d->results) + 1, i;
	const json_t **rs = calloc(cap, sizeof(*rs));
	char **varying = calloc(cap, sizeof(*varying));
	json_t *r;
	int n = 0;
	json_array_foreach(c->d->results, i, r)
	{
		const json_t *p = power_of(r);
		if (!rs || !varying || !ax_html_ok(r) ||
		    !isfinite(ax_html_jnum(p, "perf_per_w")) ||
		    strcmp(ax_html_jstr(r, "suite"), suite) ||
		    strcmp(ax_html_jstr(p, "perf_per_w_unit"), unit))
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

/* One chart group per suite and perf/W unit, first seen first. */
static void section_ppw(struct ax_html_ctx *c)
{
	json_t *seen = json_object();
	size_t i;
	json_t *r;
	json_array_foreach(c->d->results, i, r)
	{
		const json_t *p = power_of(r);
		char key[300];
		if (!ax_html_ok(r) || !isfinite(ax_html_jnum(p, "perf_per_w")))
			continue;
		snprintf(key, sizeof(key), "%s\x1f%s", ax_html_jstr(r, "suite"),
			 ax_html_jstr(p, "perf_per_w_unit"));
		if (json_object_get(seen, key))
			continue;
		if (json_object_size(seen) == 0)
			fputs("<h3>Performance per watt</h3>\n<p>Each bar is "
			      "the result's median over the mean power of "
			      "its timed span.</p>\n",
			      c->f);
		json_object_set_new(seen, key, json_true());
		ppw_charts(c, ax_html_jstr(r, "suite"),
			   ax_html_jstr(p, "perf_per_w_unit"));
	}
	json_decref(seen);
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
static void energy_work_cell(struct ax_html_ctx *c, const json_t *r)
{
	char name[64];
	double scale = 1;
	double e = ax_html_jnum(power_of(r), "energy_rep_j");
	double work = ax_html_jnum(r, "work");
	if (!work_unit(ax_html_jstr(r, "unit"), name, sizeof(name), &scale) ||
	    !isfinite(e) || !(work > 0)) {
		num_cell(c, NAN, "");
		return;
	}
	fprintf(c->f, "<td class=\"num\">%.3g J/", e / (work / scale));
	ax_html_escape(c->f, name);
	fputs("</td>", c->f);
}

static void ppw_cell(struct ax_html_ctx *c, const json_t *p)
{
	double v = ax_html_jnum(p, "perf_per_w");
	if (!isfinite(v)) {
		num_cell(c, NAN, "");
		return;
	}
	fprintf(c->f, "<td class=\"num\">%.3g ", v);
	ax_html_escape(c->f, ax_html_jstr(p, "perf_per_w_unit"));
	fputs("</td>", c->f);
}

static void memory_cell(struct ax_html_ctx *c, const json_t *p)
{
	char a[64], b[64];
	double peak = ax_html_jnum(p, "mem_peak_b");
	double budget = ax_html_jnum(p, "mem_budget_b");
	fprintf(c->f, "<td class=\"num\">%s", bytes_text(peak, a, sizeof(a)));
	if (isfinite(peak) && isfinite(budget))
		fprintf(c->f, " of %s", bytes_text(budget, b, sizeof(b)));
	fputs("</td>", c->f);
}

/* The throttle verdict, its evidence as the tooltip: a badge when
 * throttled, "no" or "unknown" otherwise.  The evidence is also written
 * out where it is what a reader checks (throttled, or a table with room
 * for it: with_text). */
static void throttle_cell(struct ax_html_ctx *c, const json_t *p,
			  bool with_text)
{
	const json_t *t = json_object_get(p, "throttled");
	const char *ev = ax_html_jstr(p, "throttle_evidence");
	fprintf(c->f, "<td><span class=\"%s\" title=\"",
		json_is_true(t) ? "badge throttled" : "verdict");
	ax_html_escape(c->f, ev);
	fprintf(c->f, "\">%s</span>",
		json_is_true(t)	   ? "throttled"
		: json_is_false(t) ? "no"
				   : "unknown");
	if (*ev && (with_text || json_is_true(t))) {
		fputs("<br><small>", c->f);
		ax_html_escape(c->f, ev);
		fputs("</small>", c->f);
	}
	fputs("</td>", c->f);
}

static void energy_row(struct ax_html_ctx *c, const json_t *r)
{
	const json_t *p = power_of(r);
	id_cells(c, r);
	text_cell(c, ax_html_jstr(p, "source"));
	pair_cell(c, ax_html_jnum(p, "mean_w"), ax_html_jnum(p, "max_w"),
		  "%.3g");
	num_cell(c, ax_html_jnum(p, "idle_w"), "%.3g");
	num_cell(c, ax_html_jnum(p, "energy_rep_j"), "%.3g");
	num_cell(c, ax_html_jnum(p, "energy_rep_net_j"), "%.3g");
	energy_work_cell(c, r);
	ppw_cell(c, p);
	pair_cell(c, ax_html_jnum(p, "temp_mean_c"),
		  ax_html_jnum(p, "temp_max_c"), "%.0f");
	pair_cell(c, ax_html_jnum(p, "sm_mhz"), ax_html_jnum(p, "mem_mhz"),
		  "%.0f");
	memory_cell(c, p);
	throttle_cell(c, p, false);
	fputs("</tr>\n", c->f);
}

static void section_energy(struct ax_html_ctx *c)
{
	size_t i;
	json_t *r;
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
	json_array_foreach(c->d->results, i, r) if (has_figures(r))
	    energy_row(c, r);
	fputs("</table></div>\n", c->f);
}

/* A sustained run judges throttling from its own samples (the slowdown
 * rule), sensor or not: results without a power figure keep that
 * verdict here. */
static bool verdict_only(const json_t *r)
{
	return ax_html_ok(r) && !has_figures(r) &&
	       json_is_boolean(json_object_get(power_of(r), "throttled"));
}

static void section_verdicts(struct ax_html_ctx *c)
{
	size_t i;
	json_t *r;
	int n = 0;
	json_array_foreach(c->d->results, i, r)
	{
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

static void speedup_cell(struct ax_html_ctx *c, double v)
{
	char s[64];
	speedup_text(v, s, sizeof(s));
	if (v > 0 && v < 1)
		fprintf(c->f,
			"<td class=\"num slower\">%s &mdash; slower than the "
			"host CPU (the CPU library is %.3g&times; as fast)"
			"</td>",
			s, 1 / v);
	else if (v < 1)
		fprintf(c->f,
			"<td class=\"num slower\">%s &mdash; slower than the "
			"host CPU</td>",
			s);
	else if (v > 1)
		fprintf(c->f,
			"<td class=\"num faster\">%s &mdash; faster than the "
			"host CPU</td>",
			s);
	else
		fprintf(c->f,
			"<td class=\"num\">%s &mdash; as fast as the host "
			"CPU</td>",
			s);
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
static void library_cell(struct ax_html_ctx *c, const json_t *cpu)
{
	char threads[48] = "";
	double n = ax_html_jnum(cpu, "threads");
	if (isfinite(n))
		snprintf(threads, sizeof(threads), ", %.0f thread%s", n,
			 n == 1 ? "" : "s");
	fputs("<td>", c->f);
	ax_html_escape(c->f, *ax_html_jstr(cpu, "library")
				 ? ax_html_jstr(cpu, "library")
				 : AX_HTML_DASH);
	if (*ax_html_jstr(cpu, "version")) {
		fputs(" ", c->f);
		ax_html_escape(c->f, ax_html_jstr(cpu, "version"));
	}
	if (*ax_html_jstr(cpu, "corename")) {
		fputs(", ", c->f);
		ax_html_escape(c->f, ax_html_jstr(cpu, "corename"));
		fputs(" kernel", c->f);
	}
	fputs(threads, c->f);
	if (*ax_html_jstr(cpu, "note")) {
		fputs("<br><small>", c->f);
		ax_html_escape(c->f, ax_html_jstr(cpu, "note"));
		fputs("</small>", c->f);
	}
	fputs("</td>", c->f);
}

static void speedup_row(struct ax_html_ctx *c, const json_t *r)
{
	const json_t *cpu = json_object_get(r, "cpu");
	id_cells(c, r);
	median_cell(c, ax_html_jnum(r, "median"), ax_html_jstr(r, "unit"));
	median_cell(c, ax_html_jnum(cpu, "median"), ax_html_jstr(cpu, "unit"));
	library_cell(c, cpu);
	speedup_cell(c, ax_html_jnum(r, "speedup_vs_cpu"));
	fputs("</tr>\n", c->f);
}

static void section_speedup(struct ax_html_ctx *c)
{
	size_t i;
	json_t *r;
	fputs("<h3>Speed-up over the host CPU</h3>\n<p>The device's median "
	      "over the median of the same shape computed by a CPU library "
	      "on the same host: below 1&times; the device is slower than "
	      "the host CPU.</p>\n"
	      "<div class=\"wide\"><table "
	      "class=\"eff\"><tr><th>Run</th><th>Suite</th>"
	      "<th>Case</th><th>System</th><th>Device median</th>"
	      "<th>CPU median</th><th>CPU library</th><th>Speed-up</th>"
	      "</tr>\n",
	      c->f);
	json_array_foreach(c->d->results, i, r) if (has_speedup(r))
	    speedup_row(c, r);
	fputs("</table></div>\n", c->f);
}

/* ---- the section ------------------------------------------------------- */

void ax_html_section_efficiency(struct ax_html_ctx *c)
{
	size_t i;
	json_t *r;
	int n_power = 0, n_fig = 0, n_speed = 0;
	json_array_foreach(c->d->results, i, r)
	{
		n_power += ax_html_ok(r) && power_of(r);
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
