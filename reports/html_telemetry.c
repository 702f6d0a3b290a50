/* reports/html_telemetry.c - the telemetry of sustained results against
 * time: small charts of power, temperature and SM clock side by side,
 * the start of the timed span marked, long series thinned to at most
 * AX_HTML_TELEMETRY_POINTS readings (the caption says so). */
#include "core/error.h"
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct metric {
	const char *key;   /* column of the series */
	const char *title; /* chart title */
	const char *axis;  /* value axis */
	const char *name;  /* legend and "not measured" list */
};

#define DEGREES "\xc2\xb0" /* the degree sign, UTF-8 */

static const struct metric metrics[] = {
    {"power_w", "Power (W)", "W", "power"},
    {"temp_c", "Temperature (" DEGREES "C)", DEGREES "C", "temperature"},
    {"sm_mhz", "SM clock (MHz)", "MHz", "SM clock"},
};
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

/* ---- thinning ---------------------------------------------------------- */

static json_t *every_kth(const json_t *arr, size_t k)
{
	json_t *out = json_array();
	for (size_t j = 0; out && j < json_array_size(arr); j += k)
		if (json_array_append(out, json_array_get(arr, j))) {
			json_decref(out);
			return NULL;
		}
	return out;
}

int ax_html_telemetry_thin(json_t *series, size_t max)
{
	size_t n = json_array_size(json_object_get(series, "t"));
	if (max == 0 || n <= max)
		return 0;
	size_t k = (n + max - 1) / max;
	/* Every column first, then the swap: out of memory halfway must
	 * not leave columns of different lengths. */
	json_t *thin = json_object();
	const char *key;
	json_t *v;
	if (!thin)
		return AX_ENOMEM;
	json_object_foreach(series, key, v)
	{
		if (!json_is_array(v) || json_array_size(v) != n)
			continue;
		json_t *col = every_kth(v, k);
		if (!col || json_object_set_new(thin, key, col)) {
			json_decref(thin);
			return AX_ENOMEM;
		}
	}
	int rc = json_object_set_new(thin, "n_readings",
				     json_integer((json_int_t)n)) ||
		 json_object_set_new(thin, "thinned_every",
				     json_integer((json_int_t)k)) ||
		 json_object_update(series, thin);
	json_decref(thin);
	return rc ? AX_ENOMEM : 0;
}

/* ---- charts ------------------------------------------------------------ */

static double elem(const json_t *arr, size_t j)
{
	const json_t *v = json_array_get(arr, j);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool any_finite(const json_t *arr)
{
	for (size_t j = 0; j < json_array_size(arr); j++)
		if (isfinite(elem(arr, j)))
			return true;
	return false;
}

/* Readings the series had before thinning, and one in how many of them
 * this chart draws (the caller's thinning times the drawing's own). */
static size_t total_readings(const json_t *tel)
{
	double n = ax_html_jnum(tel, "n_readings");
	size_t here = json_array_size(json_object_get(tel, "t"));
	return isfinite(n) && n > (double)here ? (size_t)n : here;
}

static size_t draw_stride(const json_t *tel)
{
	size_t n = json_array_size(json_object_get(tel, "t"));
	return n <= AX_HTML_TELEMETRY_POINTS
		   ? 1
		   : (n + AX_HTML_TELEMETRY_POINTS - 1) /
			 AX_HTML_TELEMETRY_POINTS;
}

/* One metric against time, one line in the device's colour, and a dashed
 * vertical line where the timed span starts. */
static void metric_chart(struct ax_html_ctx *c, const json_t *tel,
			 const struct metric *m, int dev)
{
	const json_t *t = json_object_get(tel, "t");
	const json_t *v = json_object_get(tel, m->key);
	size_t n = json_array_size(t) < json_array_size(v) ? json_array_size(t)
							   : json_array_size(v);
	size_t stride = draw_stride(tel), cap = n / stride + 1;
	double *x = calloc(cap, sizeof(double)),
	       *y = calloc(cap, sizeof(double));
	double ymax = 0;
	int k = 0;
	for (size_t j = 0; x && y && j < n; j += stride, k++) {
		x[k] = elem(t, j);
		y[k] = elem(v, j);
		if (isfinite(y[k]))
			ymax = fmax(ymax, y[k]);
	}
	double t0 = ax_html_jnum(tel, "timed_from_s");
	double mx[2] = {t0, t0}, my[2] = {0, ymax > 0 ? ymax : 1};
	char mark[80];
	snprintf(mark, sizeof(mark), "timed span from %.3g s", t0);
	struct ax_svg_series s[2] = {
	    {m->name, x, y, x && y ? k : 0, AX_SVG_LINES, dev, 0, NULL},
	    {mark, mx, my, 2, AX_SVG_DASHED, 6, 0, NULL},
	};
	struct ax_svg_plot p = {.title = m->title,
				.xlabel = "time (s)",
				.ylabel = m->axis,
				.compact = true};
	ax_svg_plot(c->f, &p, s, isfinite(t0) ? 2 : 1);
	free(x);
	free(y);
}

/* What the charts of one result show: the case, the sensor and its
 * interval, how many readings and how many of them are drawn, where the
 * timed span lies, and what the sensor did not measure. */
static void caption(struct ax_html_ctx *c, const json_t *r, const json_t *tel,
		    int dev)
{
	char *label = ax_html_case_label(r);
	const json_t *p = json_object_get(r, "power");
	size_t total = total_readings(tel);
	size_t every = draw_stride(tel);
	double thinned = ax_html_jnum(tel, "thinned_every");
	if (isfinite(thinned) && thinned > 1)
		every *= (size_t)thinned;
	fputs("<p class=\"cap\"><strong>", c->f);
	ax_html_escape(c->f, ax_html_jstr(r, "suite"));
	fputs(" ", c->f);
	ax_html_escape(c->f, label ? label : "");
	fputs("</strong> on ", c->f);
	char run[300];
	ax_html_system_chip(c, dev);
	fprintf(c->f, ", ");
	ax_html_escape(c->f, ax_html_run_name(c, r, run, sizeof(run)));
	if (!ax_html_ok(r)) {
		fputs(" <span class=\"badge\">", c->f);
		ax_html_escape(c->f, ax_html_jstr(r, "status"));
		fputs("</span>", c->f);
	}
	fputs(": ", c->f);
	ax_html_escape(c->f, *ax_html_jstr(tel, "source")
				 ? ax_html_jstr(tel, "source")
				 : "sensor");
	fprintf(c->f, " every %.3g s, %zu readings",
		ax_html_jnum(tel, "interval_s"), total);
	if (every > 1)
		fprintf(c->f,
			", 1 in %zu drawn (to keep the report small; the "
			"table's maximum covers them all)",
			every);
	double t0 = ax_html_jnum(tel, "timed_from_s");
	double span = ax_html_jnum(p, "seconds");
	if (isfinite(t0))
		fprintf(c->f, "; the timed span starts at %.3g s (dashed line)",
			t0);
	if (isfinite(t0) && isfinite(span))
		fprintf(c->f, " and lasts %.3g s", span);
	int missing = 0;
	for (size_t i = 0; i < N_METRICS; i++)
		if (!any_finite(json_object_get(tel, metrics[i].key)))
			fprintf(c->f, "%s%s",
				missing++ ? ", " : ". Not measured: ",
				metrics[i].name);
	fputs(".</p>\n", c->f);
	free(label);
}

static void result_charts(struct ax_html_ctx *c, const json_t *r,
			  const json_t *tel)
{
	int dev = ax_html_system_of(c, r);
	caption(c, r, tel, dev);
	fputs("<div class=\"tl\">\n", c->f);
	for (size_t i = 0; i < N_METRICS && !ax_html_stopped(c); i++)
		if (any_finite(json_object_get(tel, metrics[i].key)))
			metric_chart(c, tel, &metrics[i], dev);
	fputs("</div>\n", c->f);
}

/* A sustained result whose series the database holds (the caller may
 * have left it out: it attaches at most AX_HTML_TELEMETRY_MAX). */
static bool has_stored_series(const json_t *r)
{
	return json_is_true(
		   json_object_get(json_object_get(r, "extra"), "sustained")) &&
	       json_is_number(
		   json_object_get(json_object_get(r, "power"), "series_id"));
}

void ax_html_section_telemetry(struct ax_html_ctx *c)
{
	size_t i;
	json_t *r;
	int drawn = 0, left_out = 0;
	json_array_foreach(c->d->results, i, r)
	{
		const json_t *tel = json_object_get(r, "telemetry");
		if (!json_is_object(tel) || drawn == AX_HTML_TELEMETRY_MAX ||
		    ax_html_stopped(c)) {
			left_out += has_stored_series(r) || json_is_object(tel);
			continue;
		}
		if (drawn++ == 0)
			fputs("<h3>Sustained runs against time</h3>\n<p>The "
			      "sensor's readings from the case's set-up to "
			      "its end (<code>axbench run --sustain</code>)."
			      "</p>\n",
			      c->f);
		result_charts(c, r, tel);
	}
	if (left_out)
		fprintf(c->f,
			"<p class=\"empty\">%d more sustained result%s with a "
			"stored series not drawn here (a report draws at most "
			"%d).</p>\n",
			left_out, left_out == 1 ? "" : "s",
			AX_HTML_TELEMETRY_MAX);
}
