/* reports/html_curves.c - each suite's declared curve (bandwidth against
 * working-set size, transfer rate against chunk size) and the roofline
 * of each system. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include "reports/compare.h"
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/roofline.h"
#include "reports/suite_doc.h"
#include "reports/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pt {
	char key[400];	 /* series: system + the grouping parameters */
	char group[200]; /* the grouping parameters alone */
	char tag[220];	 /* direct label: "#1 op=copy" */
	int sys;
	double x, y;
	size_t order; /* position in results: later is newer */
};

static int pt_cmp(const void *a, const void *b)
{
	const struct pt *p = a, *q = b;
	int c = p->sys - q->sys;
	if (!c)
		c = strcmp(p->key, q->key);
	if (c)
		return c;
	if (p->x != q->x)
		return (p->x > q->x) - (p->x < q->x);
	return (p->order > q->order) - (p->order < q->order);
}

/* Text of parameter name of r ("" when absent or neither text nor a
 * number). */
static void param_text(const struct ax_db_result_row *r, const char *name,
		       char *buf, size_t len)
{
	const struct ax_db_param *v = ax_db_param_find(&r->params, name);
	if (v && v->type == AX_DB_VALUE_TEXT)
		snprintf(buf, len, "%s", ax_html_str(v->text));
	else if (v &&
		 (v->type == AX_DB_VALUE_INT || v->type == AX_DB_VALUE_REAL))
		snprintf(buf, len, "%g", v->num);
	else
		snprintf(buf, len, "%s", "");
}

/* Result r (of index i) as a point at x: its system, and its series
 * key from the system and the values of the parameters in group[]. */
static void fill_point(struct ax_html_ctx *c, const struct ax_db_result_row *r,
		       size_t i, double x, const char *const *group,
		       struct pt *p)
{
	p->sys = ax_html_system_of(c, r);
	int k = 0;
	for (int g = 0; group && group[g]; g++) {
		char v[64];
		param_text(r, group[g], v, sizeof(v));
		k += snprintf(p->group + k, sizeof(p->group) - (size_t)k,
			      "%s%s=%s", k ? " " : "", group[g], v);
		if ((size_t)k >= sizeof(p->group))
			break;
	}
	snprintf(p->key, sizeof(p->key), "#%d %s%s%s", p->sys + 1,
		 ax_html_system_name(c, p->sys), *p->group ? " " : "",
		 p->group);
	snprintf(p->tag, sizeof(p->tag), "#%d%s%s", p->sys + 1,
		 *p->group ? " " : "", p->group);
	p->x = x;
	p->y = r->median;
	p->order = i;
}

/* The usable results of suite with a numeric xp into pts; *unit gets
 * the last one's unit.  Returns how many. */
static size_t collect_points(struct ax_html_ctx *c, const char *suite,
			     const char *xp, const char *const *group,
			     struct pt *pts, const char **unit)
{
	size_t n = 0;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		const struct ax_db_param *xv = ax_db_param_find(&r->params, xp);
		bool num = xv && (xv->type == AX_DB_VALUE_INT ||
				  xv->type == AX_DB_VALUE_REAL);
		/* A result of no system of the report (an ab run's, say)
		 * has no colour of its own: it is not drawn. */
		if (!r->ok || strcmp(ax_html_str(r->suite), suite) || !num ||
		    (ax_html_is_tune(r) && !c->d->include_tune) ||
		    ax_html_system_of(c, r) < 0)
			continue;
		fill_point(c, r, i, xv->num, group, &pts[n++]);
		*unit = ax_html_str(r->unit);
	}
	return n;
}

/* The sorted points as series (one per key) over xs and ys, which hold
 * n values each.  Returns how many series. */
static int make_series(const struct pt *pts, size_t n, struct ax_svg_series *s,
		       double *xs, double *ys)
{
	int ns = 0, m = 0, variant = 0;
	for (size_t j = 0; j < n; j++) {
		/* The newest result wins where one x was measured twice. */
		if (j + 1 < n && !strcmp(pts[j].key, pts[j + 1].key) &&
		    pts[j].x == pts[j + 1].x)
			continue;
		if (ns == 0 || strcmp(s[ns - 1].name, pts[j].key)) {
			/* The system's colour; its groups (op=copy,
			 * op=read) by marker and dash. */
			variant = ns && s[ns - 1].color == pts[j].sys
				      ? variant + 1
				      : 0;
			s[ns] = (struct ax_svg_series){
			    pts[j].key,
			    xs + m,
			    ys + m,
			    0,
			    AX_SVG_LINES | AX_SVG_MARKERS,
			    pts[j].sys,
			    variant,
			    NULL,
			    pts[j].tag};
			ns++;
		}
		xs[m] = pts[j].x;
		ys[m++] = pts[j].y;
		s[ns - 1].n++;
	}
	return ns;
}

/* Fewer points than this make no curve: one or two sizes are drawn as
 * markers alone, and a chart where no series reaches it is not drawn
 * (the per-case bars have those figures). */
#define CURVE_MIN_POINTS 3

/* Fit the series for a chart: markers only below CURVE_MIN_POINTS, a
 * direct label only where there are several series, and a log value
 * axis where the medians differ by more than AX_SVG_LOG_RATIO.  Returns
 * how many series are curves. */
static int shape_series(struct ax_svg_series *s, int ns, bool *ylog)
{
	int curves = 0;
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < ns; i++) {
		if (s[i].n < CURVE_MIN_POINTS)
			s[i].style = AX_SVG_MARKERS;
		else
			curves++;
		if (ns < 2)
			s[i].tag = NULL;
		for (int j = 0; j < s[i].n; j++)
			if (isfinite(s[i].y[j]) && s[i].y[j] > 0) {
				lo = fmin(lo, s[i].y[j]);
				hi = fmax(hi, s[i].y[j]);
			}
	}
	*ylog = isfinite(lo) && hi > AX_SVG_LOG_RATIO * lo;
	return curves;
}

enum curve_drawn { CURVE_NO_RESULTS, CURVE_TOO_FEW, CURVE_DRAWN };

/* Draw one chart of suite's median against numeric parameter xp, one
 * series per device and values of the parameters in group[]; says
 * whether it had results, and enough of them. */
static enum curve_drawn curve_chart(struct ax_html_ctx *c, const char *suite,
				    const char *xp, const char *const *group,
				    const char *title, const char *xlabel)
{
	struct pt *pts = calloc(c->d->results->n + 1, sizeof(*pts));
	const char *unit = "";
	if (!pts)
		return CURVE_NO_RESULTS;
	size_t n = collect_points(c, suite, xp, group, pts, &unit);
	if (n == 0) {
		free(pts);
		return CURVE_NO_RESULTS;
	}
	qsort(pts, n, sizeof(*pts), pt_cmp);
	struct ax_svg_series *s = calloc(n, sizeof(*s));
	double *xs = calloc(n, sizeof(double)), *ys = calloc(n, sizeof(double));
	int ns = s && xs && ys ? make_series(pts, n, s, xs, ys) : 0;
	bool ylog = false;
	enum curve_drawn drawn = CURVE_TOO_FEW;
	if (shape_series(s, ns, &ylog) > 0) {
		char ylabel[80];
		snprintf(ylabel, sizeof(ylabel), "median %s%s", unit,
			 ylog ? " (log scale)" : "");
		struct ax_svg_plot p = {.title = title,
					.xlabel = xlabel,
					.ylabel = ylabel,
					.xlog = true,
					.ylog = ylog,
					.xfmt = AX_SVG_BYTES};
		ax_svg_plot(c->f, &p, s, ns);
		drawn = CURVE_DRAWN;
	}
	free(s);
	free(xs);
	free(ys);
	free(pts);
	return drawn;
}

/* The curve a suite declares in the suite document, drawn, or one line
 * saying how to get it. */
static void declared_curve(struct ax_html_ctx *c,
			   const struct ax_suite_info *suite)
{
	const struct ax_suite_curve *curve = suite->curve;
	const char *group[9] = {NULL};
	for (int i = 0; curve->group && curve->group[i] && i < 8; i++)
		group[i] = curve->group[i];
	const char *xp = ax_html_str(curve->x);
	char title[200], msg[400];
	snprintf(title, sizeof(title), "%s (%s)", ax_html_str(curve->title),
		 suite->higher_is_better ? "higher is better"
					 : "lower is better");
	enum curve_drawn d = curve_chart(c, suite->name, xp, group, title,
					 ax_html_str(curve->x_label));
	if (d == CURVE_DRAWN)
		return;
	if (d == CURVE_TOO_FEW)
		snprintf(msg, sizeof(msg),
			 "%s: no system measured %s at %d or more values of "
			 "%s, too few for a curve (Per case has the figures): "
			 "run `axbench run %s -p %s=A,B,C` to get one.",
			 ax_html_str(curve->title), suite->name,
			 CURVE_MIN_POINTS, xp, suite->name, xp);
	else
		snprintf(msg, sizeof(msg),
			 "No %s results with a %s parameter: run `axbench run "
			 "%s` to get this curve.",
			 suite->name, xp, suite->name);
	ax_html_empty(c, msg);
}

void ax_html_section_curves(struct ax_html_ctx *c)
{
	const struct ax_suite_doc *doc = c->d->suites;
	int n = 0;
	ax_html_h2(c, "curves", "Curves");
	for (int i = 0; doc && i < doc->n; i++)
		if (doc->v[i].curve) {
			declared_curve(c, &doc->v[i]);
			n++;
		}
	if (n == 0)
		ax_html_empty(c, "No suite declares a curve.");
}

/* ---- roofline --------------------------------------------------------- */

/* Highest median on system sys in unit among the results of suites with
 * role. */
static double ceiling(const struct ax_html_ctx *c, int sys, const char *unit,
		      enum ax_role role)
{
	double best = NAN;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		if (!ax_suite_info_row_has_role(c->d->suites, r, role) ||
		    !r->ok || ax_html_system_of(c, r) != sys ||
		    strcmp(ax_html_str(r->unit), unit))
			continue;
		double m = r->median;
		if (isfinite(m) && !(m <= best))
			best = m;
	}
	return best;
}

/* Kernels on the roofline: GFLOP/s results that declared their bytes,
 * other than the compute ceiling's own, each named for its tooltip. */
static int roof_points(const struct ax_html_ctx *c, int sys, double *x,
		       double *y, char **names, double P, double B)
{
	int n = 0;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		if (!r->ok || ax_html_system_of(c, r) != sys ||
		    strcmp(ax_html_str(r->unit), "GFLOP/s") ||
		    ax_suite_info_row_has_role(c->d->suites, r,
					       AX_ROLE_COMPUTE_PEAK) ||
		    ax_suite_info_row_has_role(c->d->suites, r,
					       AX_ROLE_ROOFLINE) ||
		    (ax_html_is_tune(r) && !c->d->include_tune))
			continue;
		/* Bytes moved per repetition, as the suite declared them:
		 * the compulsory traffic, which is what a roofline's
		 * intensity means. */
		double ai = r->work / r->bytes;
		if (!isfinite(ai) || ai <= 0)
			continue;
		x[n] = ai;
		y[n] = r->median;
		/* Name, figure, intensity and the share of the roof above
		 * it: what a reader hovering a point wants. */
		double roof = fmin(isfinite(P) ? P : INFINITY,
				   isfinite(B) ? B * ai : INFINITY);
		char *label = ax_html_case_label(r), share[64] = "";
		if (isfinite(roof) && roof > 0)
			snprintf(share, sizeof(share), ", %.0f %% of the roof",
				 100 * y[n] / roof);
		if (asprintf(&names[n], "%s %s (%.3g GFLOP/s at %.3g FLOP/B%s)",
			     ax_html_str(r->suite), label ? label : "", y[n],
			     ai, share) < 0)
			names[n] = NULL;
		free(label);
		n++;
	}
	return n;
}

/* At most this many intensity sweeps are drawn on one system's roofline
 * (a history of runs may hold many); the others are named below it. */
#define ROOF_SWEEPS_MAX 6

/* The sweeps measured on system sys, into out (at most max). */
static int sweeps_of(const struct ax_html_ctx *c, int sys,
		     const struct ax_roofline_sweeps *sw,
		     const struct ax_roofline_sweep **out, int max, int *total)
{
	int n = 0;
	*total = 0;
	for (int i = 0; sw && i < sw->n; i++) {
		if (ax_html_system_of(c, sw->v[i].first) != sys)
			continue;
		if (n < max)
			out[n++] = &sw->v[i];
		(*total)++;
	}
	return n;
}

/* Under the chart: each sweep's ridge and the run's peak / bandwidth. */
static void sweep_notes(struct ax_html_ctx *c,
			const struct ax_roofline_sweep *const *sw, int n,
			int total)
{
	for (int i = 0; i < n; i++) {
		char text[512];
		fprintf(c->f,
			"<p class=\"common\">Intensity sweep (%s %s, run "
			"%lld): ",
			sw[i]->suite, sw[i]->precision,
			(long long)sw[i]->run_id);
		ax_html_escape(
		    c->f, ax_roofline_sweep_text(sw[i], text, sizeof(text)));
		fputs(".</p>\n", c->f);
	}
	if (total > n)
		fprintf(c->f,
			"<p class=\"common\">%d more sweeps on this system are "
			"not drawn (`axbench results` lists each).</p>\n",
			total - n);
}

static bool roofline(struct ax_html_ctx *c, int sys,
		     const struct ax_roofline_sweeps *sweeps)
{
	size_t cap = c->d->results->n + 1;
	double *x = calloc(cap, sizeof(double));
	double *y = calloc(cap, sizeof(double));
	char **names = calloc(cap, sizeof(char *));
	double P = ceiling(c, sys, "GFLOP/s", AX_ROLE_COMPUTE_PEAK);
	double B = ceiling(c, sys, "GB/s", AX_ROLE_BANDWIDTH_PEAK);
	int n = x && y && names ? roof_points(c, sys, x, y, names, P, B) : 0;
	const struct ax_roofline_sweep *sw[ROOF_SWEEPS_MAX];
	int n_sw_all,
	    n_sw = sweeps_of(c, sys, sweeps, sw, ROOF_SWEEPS_MAX, &n_sw_all);
	bool drawn = n > 0 || isfinite(P) || n_sw > 0;
	if (drawn) {
		/* Intensity axis: a decade each side of points and ridge. */
		double lo = 0.1, hi = 1000, cx[64], cy[64];
		for (int i = 0; i < n; i++) {
			lo = fmin(lo, x[i] / 4);
			hi = fmax(hi, x[i] * 4);
		}
		for (int i = 0; i < n_sw; i++) {
			lo = fmin(lo, sw[i]->fit.ai_lo / 4);
			hi = fmax(hi, sw[i]->fit.ai_hi * 4);
		}
		for (int i = 0; i < 64; i++) {
			cx[i] = lo * pow(hi / lo, i / 63.0);
			cy[i] = fmin(isfinite(P) ? P : INFINITY,
				     isfinite(B) ? B * cx[i] : INFINITY);
		}
		char title[400], cname[200], pl[80], bl[80];
		snprintf(title, sizeof(title),
			 "Roofline of #%d %s: GFLOP/s against arithmetic "
			 "intensity (higher is better)",
			 sys + 1, ax_html_system_name(c, sys));
		snprintf(pl, sizeof(pl), "measured peak %.3g GFLOP/s", P);
		snprintf(bl, sizeof(bl), "measured bandwidth %.3g GB/s", B);
		snprintf(cname, sizeof(cname), "ceiling: %s%s%s",
			 isfinite(P) ? pl : "",
			 isfinite(P) && isfinite(B) ? " and " : "",
			 isfinite(B) ? bl : "");
		/* The ceiling (where there is one), the kernels (where
		 * any), and the measured roofline: each sweep as a line,
		 * named by its precision and run, its ridge in the note
		 * under the chart. */
		struct ax_svg_series s[2 + ROOF_SWEEPS_MAX];
		int ns = 0;
		if (isfinite(P) || isfinite(B))
			s[ns++] = (struct ax_svg_series){
			    cname, cx, cy, 64, AX_SVG_DASHED, 6, 0, NULL};
		if (n)
			s[ns++] = (struct ax_svg_series){
			    "kernels (GFLOP/s results; hover for each)",
			    x,
			    y,
			    n,
			    AX_SVG_MARKERS,
			    sys,
			    0,
			    (const char *const *)names};
		char sw_name[ROOF_SWEEPS_MAX][160];
		for (int i = 0; i < n_sw; i++) {
			snprintf(sw_name[i], sizeof(sw_name[i]),
				 "%s sweep %s (run %lld): ridge %.3g FLOP/B",
				 sw[i]->suite, sw[i]->precision,
				 (long long)sw[i]->run_id, sw[i]->fit.ridge);
			s[ns++] = (struct ax_svg_series){sw_name[i],
							 sw[i]->ai,
							 sw[i]->rate,
							 sw[i]->n_points,
							 AX_SVG_LINES |
							     AX_SVG_MARKERS,
							 (sys + 1 + i) % 8,
							 i + 1,
							 NULL};
		}
		/* Each ceiling named where it is drawn, under its line
		 * (which climbs away from the text): the peak at the flat
		 * roof's right end, the bandwidth on its slope near the
		 * left. */
		struct ax_svg_note notes[2];
		int nn = 0;
		if (isfinite(P))
			notes[nn++] = (struct ax_svg_note){hi, P, pl, 6, true};
		if (isfinite(B)) {
			double bx = lo * 3;
			double by = fmin(B * bx, isfinite(P) ? P : INFINITY);
			notes[nn++] = (struct ax_svg_note){bx, by, bl, 6, true};
		}
		struct ax_svg_plot p = {.title = title,
					.xlabel = "FLOP per byte",
					.ylabel = "GFLOP/s",
					.xlog = true,
					.ylog = true,
					.notes = notes,
					.n_notes = nn};
		ax_svg_plot(c->f, &p, s, ns);
		sweep_notes(c, sw, n_sw, n_sw_all);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(x);
	free(y);
	return drawn;
}

void ax_html_section_roofline(struct ax_html_ctx *c)
{
	int drawn = 0;
	ax_html_h2(c, "roofline", "Roofline per system");
	struct ax_roofline_sweeps sw;
	bool have_sweeps =
	    ax_roofline_sweeps(c->d->results, c->d->suites, &sw) == 0;
	for (int i = 0; i < c->n_sys && !ax_html_stopped(c); i++)
		drawn += roofline(c, i, have_sweeps ? &sw : NULL);
	if (have_sweeps)
		ax_roofline_sweeps_free(&sw);
	if (!drawn)
		ax_html_empty(c,
			      "No GFLOP/s results with a byte count and no "
			      "compute-peak results: there is no roofline to "
			      "draw.");
}
