/* reports/svg.c - bar charts and x/y plots as inline SVG. */
#include "reports/svg.h"

#include "reports/html_escape.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Okabe & Ito (2008), "Color Universal Design": distinguishable under
 * the common colour-vision deficiencies.  Black first for contrast. */
static const char *const palette[8] = {
    "#0072B2", "#E69F00", "#009E73", "#CC79A7",
    "#56B4E9", "#D55E00", "#000000", "#F0E442",
};
static const char *const dashes[4] = {"", "6 3", "2 3", "8 3 2 3"};

const char *ax_svg_color(int i) { return palette[((i % 8) + 8) % 8]; }

void ax_svg_format(double v, enum ax_svg_axis_fmt fmt, char *buf, size_t len)
{
	static const char *const suf[] = {"", "K", "M", "G", "T"};
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (fmt == AX_SVG_BYTES) {
		int i = 0;
		while (fabs(v) >= 1024 && i < 4) {
			v /= 1024;
			i++;
		}
		snprintf(buf, len, "%.3g%s", v, suf[i]);
		return;
	}
	snprintf(buf, len, "%.3g", v);
}

/* s shortened to at most max bytes with "..." in the middle, cut on
 * UTF-8 character boundaries; the full text goes into a <title>. */
static const char *clip(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = s ? strlen(s) : 0;
	if (n <= max || max < 8 || len <= max) {
		snprintf(buf, len, "%s", s ? s : "");
		return buf;
	}
	size_t head = (max - 3) / 2, tail = max - 3 - head;
	while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	size_t from = n - tail;
	while (from < n && ((unsigned char)s[from] & 0xc0) == 0x80)
		from++;
	snprintf(buf, len, "%.*s...%s", (int)head, s, s + from);
	return buf;
}

static void svg_open(FILE *f, int w, int h, const char *title)
{
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\" aria-label=\"",
		w, h, w, h);
	ax_html_escape(f, title);
	fputs("\"><title>", f);
	ax_html_escape(f, title);
	fputs("</title>\n", f);
}

static void text(FILE *f, double x, double y, const char *anchor,
		 const char *cls, const char *s)
{
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
		"class=\"%s\">",
		x, y, anchor, cls);
	ax_html_escape(f, s);
	fputs("</text>\n", f);
}

/* Text clipped to max bytes, with the whole text as its tooltip. */
static void text_clip(FILE *f, double x, double y, const char *anchor,
		      const char *cls, const char *s, size_t max)
{
	char buf[256];
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
		"class=\"%s\"><title>",
		x, y, anchor, cls);
	ax_html_escape(f, s);
	fputs("</title>", f);
	ax_html_escape(f, clip(s, max, buf, sizeof(buf)));
	fputs("</text>\n", f);
}

/* One of four marker shapes, so series differ without colour. */
static void marker(FILE *f, int shape, double x, double y, const char *c)
{
	switch (shape % 4) {
	case 0:
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			"fill=\"%s\"",
			x, y, c);
		break;
	case 1:
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" "
			"height=\"7\" fill=\"%s\"",
			x - 3.5, y - 3.5, c);
		break;
	case 2:
		fprintf(f,
			"<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
			"fill=\"%s\"",
			x, y - 4.5, x + 4, y + 3, x - 4, y + 3, c);
		break;
	default:
		fprintf(f,
			"<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f "
			"%.1f,%.1f\" fill=\"white\" stroke=\"%s\" "
			"stroke-width=\"2\"",
			x, y - 4.5, x + 4.5, y, x, y + 4.5, x - 4.5, y, c);
	}
}

static void legend_entry(FILE *f, double x, double y, int i, unsigned style,
			 const char *name)
{
	const char *c = ax_svg_color(i);
	if (style & (AX_SVG_LINES | AX_SVG_DASHED))
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
			"stroke-dasharray=\"%s\"/>\n",
			x, y, x + 24, y, c,
			style & AX_SVG_DASHED ? "5 3" : dashes[i % 4]);
	if (style & AX_SVG_MARKERS || !style) {
		marker(f, i, x + 12, y, c);
		fputs("/>\n", f);
	}
	text_clip(f, x + 30, y + 4, "start", "lg", name, 44);
}

/* ---- horizontal bars -------------------------------------------------- */

#define BAR_H 20
#define BAR_LABEL_W 400

static double bars_max(const struct ax_svg_bar *b, int n)
{
	double m = 0;
	for (int i = 0; i < n; i++) {
		if (isfinite(b[i].value) && b[i].value > m)
			m = b[i].value;
		if (isfinite(b[i].hi) && b[i].hi > m)
			m = b[i].hi;
	}
	return m > 0 ? m : 1;
}

static void bar_one(FILE *f, const struct ax_svg_bar *b, double y, double scale)
{
	char v[32];
	double x0 = BAR_LABEL_W;
	/* ~6.5 px a character at the label font: 60 fit the column. */
	text_clip(f, x0 - 6, y + 14, "end", "lb", b->label, 60);
	if (!isfinite(b->value) || b->value < 0) {
		text(f, x0 + 4, y + 14, "start", "lb", "no value");
		return;
	}
	ax_svg_format(b->value, AX_SVG_NUM, v, sizeof(v));
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\"><title>",
		x0, y + 3, b->value * scale, BAR_H - 6,
		ax_svg_color(b->series));
	ax_html_escape(f, b->label);
	fprintf(f, ": median %s", v);
	if (isfinite(b->lo) && isfinite(b->hi))
		fprintf(f, ", IQR %.3g to %.3g", b->lo, b->hi);
	fputs("</title></rect>\n", f);
	if (isfinite(b->lo) && isfinite(b->hi)) {
		double ym = y + BAR_H / 2.0;
		fprintf(f,
			"<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f "
			"%.1fV%.1f\" stroke=\"#333\" fill=\"none\"/>\n",
			x0 + b->lo * scale, ym, x0 + b->hi * scale,
			x0 + b->lo * scale, ym - 5, ym + 5, x0 + b->hi * scale,
			ym - 5, ym + 5);
	}
	double tx = x0 + fmax(b->value, isfinite(b->hi) ? b->hi : 0) * scale;
	char lbl[160];
	bool note = b->note && *b->note;
	snprintf(lbl, sizeof(lbl), "%s%s%s", v, note ? " - " : "",
		 note ? b->note : "");
	text(f, tx + 6, y + 14, "start", "lb", lbl);
}

void ax_svg_hbars(FILE *f, const char *title, const char *axis,
		  const struct ax_svg_bar *bars, int n,
		  const char *const *legend, int n_legend)
{
	int plot_w = 360, w = BAR_LABEL_W + plot_w + 170;
	int leg = legend ? n_legend : 0;
	int h = 40 + n * BAR_H + 30 + leg * 18;
	double scale = plot_w / bars_max(bars, n);
	svg_open(f, w, h, title);
	text(f, 4, 16, "start", "tt", title);
	for (int i = 0; i < n; i++)
		bar_one(f, &bars[i], 28 + i * BAR_H, scale);
	double ya = 28 + n * BAR_H + 4;
	fprintf(f,
		"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		"stroke=\"#333\"/>\n",
		BAR_LABEL_W, ya, BAR_LABEL_W + plot_w, ya);
	char v[32];
	ax_svg_format(bars_max(bars, n), AX_SVG_NUM, v, sizeof(v));
	text(f, BAR_LABEL_W, ya + 14, "middle", "ax", "0");
	text(f, BAR_LABEL_W + plot_w, ya + 14, "middle", "ax", v);
	text(f, BAR_LABEL_W + plot_w / 2.0, ya + 14, "middle", "ax", axis);
	for (int i = 0; i < leg; i++)
		legend_entry(f, BAR_LABEL_W, ya + 30 + i * 18, i,
			     AX_SVG_MARKERS, legend[i]);
	fputs("</svg>\n", f);
}

/* ---- x/y plots -------------------------------------------------------- */

/* Where the plot area lies in the chart, and where the legend goes. */
struct frame {
	double l, t, w, h; /* plot area: left, top, width, height */
	bool legend_below; /* else to the right of the plot */
};

/* The full-width plot, legend on the right. */
static const struct frame wide = {70, 30, 460, 250, false};
/* A small plot (several fit one row), legend under the axis label. */
static const struct frame compact = {56, 28, 250, 110, true};

struct axis {
	double lo, hi; /* in axis space (log10 when log) */
	bool log;
	double org, len; /* pixel position of lo, and lo to hi (signed) */
};

static double to_axis(const struct axis *a, double v)
{
	return a->log ? log10(v) : v;
}

static bool usable(const struct axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

static void fit(struct axis *a, const struct ax_svg_series *s, int n,
		bool use_x)
{
	a->lo = INFINITY;
	a->hi = -INFINITY;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < s[i].n; j++) {
			double v = use_x ? s[i].x[j] : s[i].y[j];
			if (!usable(a, v))
				continue;
			a->lo = fmin(a->lo, to_axis(a, v));
			a->hi = fmax(a->hi, to_axis(a, v));
		}
	if (!isfinite(a->lo)) {
		a->lo = 0;
		a->hi = 1;
	}
	if (!a->log && a->lo > 0 && !use_x)
		a->lo = 0; /* linear value axes start at zero */
	if (a->hi - a->lo < 1e-12 * fmax(1, fabs(a->hi))) {
		a->lo -= a->log ? 0.5 : fmax(fabs(a->lo) * 0.1, 0.5);
		a->hi += a->log ? 0.5 : fmax(fabs(a->hi) * 0.1, 0.5);
	}
}

/* Pixel coordinate of v along a (x grows right, y grows up). */
static double pos(const struct axis *a, double v)
{
	return a->org + (to_axis(a, v) - a->lo) / (a->hi - a->lo) * a->len;
}

/* About six ticks: decades (or octaves for bytes) on log axes, 1-2-5
 * steps on linear ones.  Returns the count written into t. */
static int ticks(const struct axis *a, bool bytes, bool whole, double *t,
		 int max)
{
	int n = 0;
	if (a->log) {
		double base = bytes ? log10(2) : 1;
		double span = (a->hi - a->lo) / base;
		double step = base * fmax(1, ceil(span / 6));
		if (bytes && step > base)
			step = base * 2 * ceil(span / 12); /* even octaves */
		for (double e = ceil(a->lo / step - 1e-9) * step;
		     e <= a->hi + 1e-9 && n < max; e += step)
			t[n++] = pow(10, e);
		return n;
	}
	double raw = (a->hi - a->lo) / 6, mag = pow(10, floor(log10(raw)));
	double step = raw / mag < 2   ? 2 * mag
		      : raw / mag < 5 ? 5 * mag
				      : 10 * mag;
	if (whole && step < 1)
		step = 1;
	for (double v = ceil(a->lo / step) * step;
	     v <= a->hi + step * 1e-9 && n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

static void axes(FILE *f, const struct ax_svg_plot *p, const struct frame *fr,
		 const struct axis *x, const struct axis *y)
{
	double t[64];
	char b[32];
	int n = ticks(x, p->xfmt == AX_SVG_BYTES, p->xint, t, 64);
	for (int i = 0; i < n; i++) {
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" class=\"grid\"/>\n",
			pos(x, t[i]), fr->t, pos(x, t[i]), fr->t + fr->h);
		ax_svg_format(t[i], p->xfmt, b, sizeof(b));
		text(f, pos(x, t[i]), fr->t + fr->h + 14, "middle", "ax", b);
	}
	n = ticks(y, false, false, t, 64);
	for (int i = 0; i < n; i++) {
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" class=\"grid\"/>\n",
			fr->l, pos(y, t[i]), fr->l + fr->w, pos(y, t[i]));
		ax_svg_format(t[i], AX_SVG_NUM, b, sizeof(b));
		text(f, fr->l - 4, pos(y, t[i]) + 4, "end", "ax", b);
	}
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
		fr->l, fr->t, fr->w, fr->h);
	text(f, fr->l + fr->w / 2, fr->t + fr->h + 34, "middle", "ax",
	     p->xlabel);
	fprintf(f,
		"<text transform=\"translate(14 %.1f) rotate(-90)\" "
		"text-anchor=\"middle\" class=\"ax\">",
		fr->t + fr->h / 2);
	ax_html_escape(f, p->ylabel);
	fputs("</text>\n", f);
}

static void point_title(FILE *f, const struct ax_svg_plot *p, const char *name,
			double xv, double yv)
{
	char xb[32], yb[32];
	ax_svg_format(xv, p->xfmt, xb, sizeof(xb));
	ax_svg_format(yv, AX_SVG_NUM, yb, sizeof(yb));
	fputs("><title>", f);
	ax_html_escape(f, name);
	fputs(": ", f);
	ax_html_escape(f, p->xlabel);
	fprintf(f, " %s, ", xb);
	ax_html_escape(f, p->ylabel);
	fprintf(f, " %s</title></g>\n", yb);
}

static void series(FILE *f, const struct ax_svg_plot *p, const struct axis *x,
		   const struct axis *y, const struct ax_svg_series *s)
{
	const char *c = ax_svg_color(s->color);
	if (s->style & (AX_SVG_LINES | AX_SVG_DASHED)) {
		fprintf(
		    f,
		    "<polyline fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\" stroke-dasharray=\"%s\" points=\"",
		    c, s->style & AX_SVG_DASHED ? "5 3" : dashes[s->color % 4]);
		for (int j = 0; j < s->n; j++)
			if (usable(x, s->x[j]) && usable(y, s->y[j]))
				fprintf(f, "%.1f,%.1f ", pos(x, s->x[j]),
					pos(y, s->y[j]));
		fputs("\"/>\n", f);
	}
	if (!(s->style & AX_SVG_MARKERS))
		return;
	for (int j = 0; j < s->n; j++) {
		if (!usable(x, s->x[j]) || !usable(y, s->y[j]))
			continue;
		fputs("<g>", f);
		marker(f, s->color, pos(x, s->x[j]), pos(y, s->y[j]), c);
		fputs("/", f);
		point_title(f, p, s->name, s->x[j], s->y[j]);
	}
}

void ax_svg_plot(FILE *f, const struct ax_svg_plot *p,
		 const struct ax_svg_series *s, int n)
{
	const struct frame *fr = p->compact ? &compact : &wide;
	struct axis x = {.log = p->xlog, .org = fr->l, .len = fr->w};
	struct axis y = {.log = p->ylog, .org = fr->t + fr->h, .len = -fr->h};
	fit(&x, s, n, true);
	fit(&y, s, n, false);
	double below = fr->t + fr->h + 50; /* under the x axis label */
	int w = (int)(fr->l + fr->w + (fr->legend_below ? 16 : 330));
	int h = fr->legend_below ? (int)(below + n * 16)
				 : (int)fmax(below, 40 + n * 18);
	svg_open(f, w, h, p->title);
	text(f, 4, 16, "start", "tt", p->title);
	axes(f, p, fr, &x, &y);
	for (int i = 0; i < n; i++)
		series(f, p, &x, &y, &s[i]);
	for (int i = 0; i < n; i++)
		if (fr->legend_below)
			legend_entry(f, fr->l - 40, below - 4 + i * 16,
				     s[i].color, s[i].style, s[i].name);
		else
			legend_entry(f, fr->l + fr->w + 14, fr->t + 8 + i * 18,
				     s[i].color, s[i].style, s[i].name);
	fputs("</svg>\n", f);
}
