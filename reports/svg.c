/* reports/svg.c - grouped bars, bars and x/y plots as inline SVG, laid
 * out from estimated text widths so that no text is cut or overflows. */
#include "reports/svg.h"

#include "reports/html_escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Okabe & Ito (2008), "Color Universal Design": distinguishable under
 * the common colour-vision deficiencies.  Blue and orange first: the two
 * systems of the commonest report differ most. */
static const char *const palette[8] = {
    "#0072B2", "#E69F00", "#009E73", "#CC79A7",
    "#56B4E9", "#D55E00", "#000000", "#F0E442",
};
static const char *const dashes[4] = {"", "6 3", "2 3", "8 3 2 3"};
/* A series' dash pattern from its shape, which may be negative (a
 * colour index of -1: a row of no system). */
static const char *dash_of(int shape) { return dashes[((shape % 4) + 4) % 4]; }

#define FONT 11	  /* px: the CSS of svg text */
#define FONT_T 13 /* px: titles (class tt, bold) */
#define LINE 14	  /* px between lines of 11 px text */
#define LINE_T 17 /* px between title lines */
#define PAD 6

const char *ax_svg_color(int i) { return palette[((i % 8) + 8) % 8]; }

int ax_svg_chars(const char *s)
{
	int n = 0;
	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

double ax_svg_text_width(const char *s, double px)
{
	return ax_svg_chars(s) * px * AX_SVG_EM;
}

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

/* ---- wrapping ---------------------------------------------------------- */

/* Lines of wrapped text: each a malloc'd string. */
struct lines {
	char **s;
	int n;
};

static void lines_free(struct lines *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
	l->s = NULL;
	l->n = 0;
}

static void lines_add(struct lines *l, const char *s, size_t len)
{
	char **grown = realloc(l->s, sizeof(char *) * (size_t)(l->n + 1));
	char *copy = strndup(s, len);
	if (!grown || !copy) {
		free(copy);
		if (grown)
			l->s = grown;
		return;
	}
	l->s = grown;
	l->s[l->n++] = copy;
}

/* Bytes of the first max characters of s (whole UTF-8 sequences). */
static size_t prefix_bytes(const char *s, size_t len, int max)
{
	size_t i = 0;
	int n = 0;
	while (i < len) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == max)
			break;
		i++;
	}
	return i;
}

/*
 * s broken at spaces into lines of at most max characters; a word longer
 * than a line is broken inside.  Nothing is dropped: a label keeps every
 * parameter, a legend every part of a name (the part that differs is
 * often the end).
 */
static struct lines wrap(const char *s, int max)
{
	struct lines l = {NULL, 0};
	char cur[1024];
	size_t used = 0;
	int chars = 0;
	if (max < 4)
		max = 4;
	s = s ? s : "";
	while (*s) {
		size_t wl = strcspn(s, " ");
		int wc = 0;
		for (size_t i = 0; i < wl; i++)
			wc += ((unsigned char)s[i] & 0xc0) != 0x80;
		if (chars && chars + 1 + wc > max) {
			lines_add(&l, cur, used);
			used = 0;
			chars = 0;
		}
		while (wc > max) { /* a word longer than a line */
			size_t b = prefix_bytes(s, wl, max - chars);
			if (used + b < sizeof(cur)) {
				memcpy(cur + used, s, b);
				used += b;
			}
			lines_add(&l, cur, used);
			used = 0;
			chars = 0;
			s += b;
			wl -= b;
			wc = 0;
			for (size_t i = 0; i < wl; i++)
				wc += ((unsigned char)s[i] & 0xc0) != 0x80;
		}
		if (chars && used + 1 < sizeof(cur)) {
			cur[used++] = ' ';
			chars++;
		}
		if (used + wl < sizeof(cur)) {
			memcpy(cur + used, s, wl);
			used += wl;
		}
		chars += wc;
		s += wl;
		while (*s == ' ')
			s++;
	}
	if (chars || l.n == 0)
		lines_add(&l, cur, used);
	return l;
}

/* Characters that fit width px at font size px_font. */
static int fit_chars(double width, double px_font, double em)
{
	int n = (int)floor(width / (px_font * em));
	return n < 4 ? 4 : n;
}

/* ---- primitives --------------------------------------------------------- */

static void svg_open(FILE *f, double w, double h, const char *title)
{
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\" aria-label=\"",
		ceil(w), ceil(h), ceil(w), ceil(h));
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

/* A title wrapped to width; returns the height it took. */
static double title_block(FILE *f, const char *title, double width)
{
	struct lines l = wrap(title, fit_chars(width, FONT_T, AX_SVG_EM_BOLD));
	for (int i = 0; i < l.n; i++)
		text(f, PAD, PAD + 12 + i * LINE_T, "start", "tt", l.s[i]);
	double h = l.n * LINE_T;
	lines_free(&l);
	return h;
}

static double title_height(const char *title, double width)
{
	struct lines l = wrap(title, fit_chars(width, FONT_T, AX_SVG_EM_BOLD));
	double h = l.n * LINE_T;
	lines_free(&l);
	return h;
}

/* One of four marker shapes, so series differ without colour. */
static void marker(FILE *f, int shape, double x, double y, const char *c)
{
	switch (((shape % 4) + 4) % 4) {
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

/* A plot's legend entry: line and/or marker, then the name wrapped to
 * chars characters a line.  Returns the height it took. */
static double legend_entry(FILE *f, double x, double y, int color, int shape,
			   unsigned style, const char *name, int chars)
{
	const char *c = ax_svg_color(color);
	if (style & (AX_SVG_LINES | AX_SVG_DASHED))
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
			"stroke-dasharray=\"%s\"/>\n",
			x, y, x + 24, y, c,
			style & AX_SVG_DASHED ? "5 3" : dash_of(shape));
	if (style & AX_SVG_MARKERS || !style) {
		marker(f, shape, x + 12, y, c);
		fputs("/>\n", f);
	}
	struct lines l = wrap(name, chars);
	for (int i = 0; i < l.n; i++)
		text(f, x + 30, y + 4 + i * LINE, "start", "lg", l.s[i]);
	double h = l.n * LINE;
	lines_free(&l);
	return h;
}

static double legend_height(const char *name, int chars)
{
	struct lines l = wrap(name, chars);
	double h = l.n * LINE;
	lines_free(&l);
	return h;
}

/* ---- linear value axis -------------------------------------------------- */

/* A 1-2-5 step giving about n intervals over [0, max]. */
static double nice_step(double max, int n)
{
	double raw = max / n, mag = pow(10, floor(log10(raw)));
	return raw / mag < 1.5 ? mag
	       : raw / mag < 3 ? 2 * mag
	       : raw / mag < 7 ? 5 * mag
			       : 10 * mag;
}

/* ---- grouped bars -------------------------------------------------------- */

#define BAR_H 18     /* px per bar */
#define GROUP_GAP 10 /* px between groups */
#define BARS_W 400   /* px of the bar area */
#define LABEL_CHARS 40
#define MIN_W 640

struct glayout {
	double label_w, tag_w, text_w, w;
	int label_chars;
};

static struct glayout glayout(const struct ax_svg_gchart *ch,
			      const struct ax_svg_group *g, int n)
{
	struct glayout L = {0};
	L.label_chars = LABEL_CHARS;
	for (int i = 0; i < n; i++) {
		struct lines l = wrap(g[i].label, L.label_chars);
		for (int k = 0; k < l.n; k++)
			L.label_w =
			    fmax(L.label_w, ax_svg_text_width(l.s[k], FONT));
		lines_free(&l);
		for (int j = 0; j < g[i].n; j++) {
			const struct ax_svg_gbar *b = &g[i].bars[j];
			if (b->tag)
				L.tag_w =
				    fmax(L.tag_w,
					 ax_svg_text_width(b->tag, FONT) + 6);
			L.text_w =
			    fmax(L.text_w, ax_svg_text_width(b->text, FONT));
		}
	}
	if (L.label_w > 0)
		L.label_w += 10;
	L.w = PAD + L.label_w + L.tag_w + BARS_W + 10 + L.text_w + PAD;
	/* The axis label sits under the bars: it may be wider than them. */
	L.w = fmax(L.w, PAD + L.label_w + L.tag_w +
			    ax_svg_text_width(ch->axis, FONT) +
			    ax_svg_text_width(" (log scale)", FONT) + PAD);
	L.w = fmax(L.w, MIN_W);
	return L;
}

/* The value axis of a bar chart: linear from zero, or logarithmic
 * (whole decades) where the chart's values differ by more than
 * AX_SVG_LOG_RATIO, so that the small bars are not slivers. */
struct baxis {
	bool log;
	double lo, hi; /* axis ends; log10 of them when log */
	double step;   /* linear tick step */
};

/* Extend [*lo, *hi] by v where v can be drawn (positive on a log axis). */
static void bspan(double v, bool log, double *lo, double *hi)
{
	if (!isfinite(v) || v < 0 || (log && v <= 0))
		return;
	*lo = fmin(*lo, v);
	*hi = fmax(*hi, v);
}

static struct baxis baxis(const struct ax_svg_gchart *ch,
			  const struct ax_svg_group *g, int n)
{
	double lo = INFINITY, hi = -INFINITY, plo = INFINITY, phi = -INFINITY;
	bspan(ch->mark, false, &lo, &hi);
	bspan(ch->mark, true, &plo, &phi);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < g[i].n; j++) {
			const struct ax_svg_gbar *b = &g[i].bars[j];
			if (!isfinite(b->value))
				continue;
			bspan(b->value, false, &lo, &hi);
			bspan(b->value, true, &plo, &phi);
			bspan(b->hi, false, &lo, &hi);
			bspan(b->hi, true, &plo, &phi);
		}
	struct baxis a = {0};
	if (isfinite(plo) && phi > AX_SVG_LOG_RATIO * plo) {
		a.log = true;
		a.lo = floor(log10(plo) + 1e-9);
		/* The smallest bar at least a third of a decade long: a
		 * value just above the axis start would read as none. */
		if (log10(plo) - a.lo < 0.3)
			a.lo -= 1;
		a.hi = fmax(ceil(log10(phi) - 1e-9), a.lo + 1);
		return a;
	}
	double max = isfinite(hi) && hi > 0 ? hi : 1;
	a.step = nice_step(max, 5);
	a.hi = ceil(max / a.step - 1e-9) * a.step;
	return a;
}

/* Pixels from the axis start to v, within [0, BARS_W]; 0 for a value
 * the axis cannot draw (at or below zero on a log axis). */
static double bpx(const struct baxis *a, double v)
{
	if (!isfinite(v) || v <= 0 || (a->log && v <= pow(10, a->lo)))
		return 0;
	double t = a->log ? (log10(v) - a->lo) / (a->hi - a->lo)
			  : (v - a->lo) / (a->hi - a->lo);
	return fmin(fmax(t, 0), 1) * BARS_W;
}

/* The tick values of a: 1-2-5 steps, or each decade (with 2 and 5 in
 * between where the axis spans at most two decades). */
static int bticks(const struct baxis *a, double *t, int max)
{
	int n = 0;
	if (!a->log) {
		for (double v = 0; v <= a->hi + a->step * 1e-9 && n < max;
		     v += a->step)
			t[n++] = fabs(v) < a->step * 1e-9 ? 0 : v;
		return n;
	}
	bool fine = a->hi - a->lo <= 2;
	for (double e = a->lo; e <= a->hi + 1e-9 && n < max; e++) {
		t[n++] = pow(10, e);
		for (int m = 2; fine && e < a->hi - 1e-9 && m <= 5 && n < max;
		     m += 3)
			t[n++] = m * pow(10, e);
	}
	return n;
}

/* The legend of a bar chart: swatches left to right, a new line where
 * the next would pass the right edge; a name too long for a line wraps.
 * Returns the height; draw false only measures. */
static double bar_legend(FILE *f, const struct ax_svg_gchart *ch, double y0,
			 double w, bool draw)
{
	double x = PAD, y = y0, row = 0;
	int chars = fit_chars(w - 2 * PAD - 16, FONT, AX_SVG_EM);
	for (int i = 0; i < ch->n_legend; i++) {
		const char *name = ch->legend[i] ? ch->legend[i] : "";
		int color = ch->legend_series ? ch->legend_series[i] : i;
		struct lines l = wrap(name, chars);
		double tw = 0;
		for (int k = 0; k < l.n; k++)
			tw = fmax(tw, ax_svg_text_width(l.s[k], FONT));
		double ew = 16 + tw + 14;
		if (x > PAD && x + ew > w - PAD) {
			x = PAD;
			y += row;
			row = 0;
		}
		if (draw) {
			fprintf(f,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" "
				"height=\"11\" fill=\"%s\" stroke=\"#333\" "
				"stroke-width=\"0.5\"/>\n",
				x, y + 2, ax_svg_color(color));
			for (int k = 0; k < l.n; k++)
				text(f, x + 16, y + 11 + k * LINE, "start",
				     "lg", l.s[k]);
		}
		row = fmax(row, l.n * LINE + 4);
		x += ew;
		lines_free(&l);
	}
	return y - y0 + row;
}

static void gbar(FILE *f, const struct glayout *L, const struct ax_svg_gbar *b,
		 double y, const struct baxis *a)
{
	double x0 = PAD + L->label_w + L->tag_w;
	if (b->tag)
		text(f, PAD + L->label_w, y + 13, "start", "lb", b->tag);
	if (isfinite(b->value) && b->value >= 0 && (!a->log || b->value > 0)) {
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%d\" fill=\"%s\" stroke=\"#333\" "
			"stroke-width=\"0.5\" data-series=\"%d\"><title>",
			x0, y + 3, bpx(a, b->value), BAR_H - 6,
			ax_svg_color(b->series), b->series);
		ax_html_escape(f, b->tip ? b->tip : b->text);
		fputs("</title></rect>\n", f);
		if (isfinite(b->lo) && isfinite(b->hi) && b->hi >= b->lo) {
			double ym = y + BAR_H / 2.0;
			double l = x0 + bpx(a, b->lo), z = x0 + bpx(a, b->hi);
			fprintf(f,
				"<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM"
				"%.1f %.1fV%.1f\" stroke=\"#222\" "
				"fill=\"none\"/>\n",
				l, ym, z, l, ym - 4, ym + 4, z, ym - 4, ym + 4);
		}
	}
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\" "
		"class=\"%s\"><title>",
		x0 + BARS_W + 10, y + 13, b->alert ? "lb alert" : "lb");
	ax_html_escape(f, b->tip ? b->tip : b->text);
	fputs("</title>", f);
	ax_html_escape(f, b->text);
	fputs("</text>\n", f);
}

void ax_svg_groups(FILE *f, const struct ax_svg_gchart *ch,
		   const struct ax_svg_group *g, int n)
{
	struct glayout L = glayout(ch, g, n);
	double top = PAD + title_height(ch->title, L.w - 2 * PAD) + 6;
	double leg = ch->legend ? bar_legend(f, ch, 0, L.w, false) + 4 : 0;
	double body = 0;
	for (int i = 0; i < n; i++) {
		struct lines l = wrap(g[i].label, L.label_chars);
		body += fmax(g[i].n * BAR_H, l.n * LINE + 4) + GROUP_GAP;
		lines_free(&l);
	}
	struct baxis a = baxis(ch, g, n);
	double t[64];
	int nt = bticks(&a, t, 64);
	double x0 = PAD + L.label_w + L.tag_w;
	double h = top + leg + body + 4 + 14 + 16 + PAD;

	svg_open(f, L.w, h, ch->title);
	title_block(f, ch->title, L.w - 2 * PAD);
	if (ch->legend)
		bar_legend(f, ch, top, L.w, true);
	double y = top + leg, y_body = y;
	/* Vertical grid at each tick, under the bars. */
	for (int i = 0; i < nt; i++)
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" class=\"grid\"/>\n",
			x0 + bpx(&a, t[i]), y_body, x0 + bpx(&a, t[i]),
			y_body + body + 4);
	for (int i = 0; i < n; i++) {
		struct lines l = wrap(g[i].label, L.label_chars);
		double gh = fmax(g[i].n * BAR_H, l.n * LINE + 4);
		for (int k = 0; k < l.n; k++)
			text(f, PAD, y + 13 + k * LINE, "start", "lb", l.s[k]);
		lines_free(&l);
		for (int j = 0; j < g[i].n; j++)
			gbar(f, &L, &g[i].bars[j], y + j * BAR_H, &a);
		y += gh + GROUP_GAP;
		if (i + 1 < n)
			fprintf(f,
				"<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" class=\"sep\"/>\n",
				PAD, y - GROUP_GAP / 2.0, L.w - PAD,
				y - GROUP_GAP / 2.0);
	}
	if (isfinite(ch->mark))
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#333\" "
			"stroke-dasharray=\"4 3\"/>\n",
			x0 + bpx(&a, ch->mark), y_body, x0 + bpx(&a, ch->mark),
			y_body + body + 4);
	double ya = y_body + body + 4;
	fprintf(f,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#333\"/>\n",
		x0, ya, x0 + BARS_W, ya);
	for (int i = 0; i < nt; i++) {
		char v[32];
		ax_svg_format(t[i], AX_SVG_NUM, v, sizeof(v));
		text(f, x0 + bpx(&a, t[i]), ya + 13, "middle", "ax", v);
	}
	char axis[200];
	snprintf(axis, sizeof(axis), "%s%s", ch->axis,
		 a.log ? " (log scale)" : "");
	text(f, x0, ya + 28, "start", "ax", axis);
	fputs("</svg>\n", f);
}

/* ---- plain bars --------------------------------------------------------- */

void ax_svg_hbars(FILE *f, const char *title, const char *axis,
		  const struct ax_svg_bar *bars, int n,
		  const char *const *legend, int n_legend)
{
	struct ax_svg_group *g = calloc((size_t)n + 1, sizeof(*g));
	struct ax_svg_gbar *b = calloc((size_t)n + 1, sizeof(*b));
	char(*texts)[256] = calloc((size_t)n + 1, sizeof(*texts));
	if (!g || !b || !texts) {
		free(g);
		free(b);
		free(texts);
		return;
	}
	for (int i = 0; i < n; i++) {
		char v[32];
		bool ok = isfinite(bars[i].value) && bars[i].value >= 0;
		bool note = bars[i].note && *bars[i].note;
		ax_svg_format(bars[i].value, AX_SVG_NUM, v, sizeof(v));
		snprintf(texts[i], sizeof(texts[i]), "%s%s%s",
			 ok ? v : "no value", note ? " - " : "",
			 note ? bars[i].note : "");
		b[i] = (struct ax_svg_gbar){.series = bars[i].series,
					    .value = ok ? bars[i].value : NAN,
					    .lo = bars[i].lo,
					    .hi = bars[i].hi,
					    .text = texts[i]};
		g[i] = (struct ax_svg_group){bars[i].label, &b[i], 1};
	}
	struct ax_svg_gchart ch = {.title = title,
				   .axis = axis,
				   .legend = n_legend ? legend : NULL,
				   .n_legend = legend ? n_legend : 0,
				   .mark = NAN};
	ax_svg_groups(f, &ch, g, n);
	free(g);
	free(b);
	free(texts);
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

/* The widest a legend to the right of a plot grows before it wraps. */
#define LEGEND_W 300

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
	/* A margin, so that a marker at either end sits inside the frame
	 * rather than half on it; a linear value axis keeps its zero. */
	double m = (a->hi - a->lo) * 0.04;
	if (use_x || a->log || a->lo != 0)
		a->lo -= m;
	a->hi += m;
}

/* Pixel coordinate of v along a (x grows right, y grows up). */
static double pos(const struct axis *a, double v)
{
	return a->org + (to_axis(a, v) - a->lo) / (a->hi - a->lo) * a->len;
}

/* Ticks of a log axis at m x 10^k for the multipliers m, within a. */
static int log_ticks(const struct axis *a, const double *m, int nm, double *t,
		     int max)
{
	int n = 0;
	for (double e = floor(a->lo); e <= ceil(a->hi) && n < max; e++)
		for (int i = 0; i < nm && n < max; i++) {
			double v = m[i] * pow(10, e), lv = log10(v);
			if (lv >= a->lo - 1e-9 && lv <= a->hi + 1e-9)
				t[n++] = v;
		}
	return n;
}

/* About six ticks: decades (or octaves for bytes) on log axes, with
 * 2 and 5 between decades (then every integer) where fewer than four
 * decades would leave the axis with one or two labels; 1-2-5 steps on
 * linear ones.  Returns the count written into t. */
static int ticks(const struct axis *a, bool bytes, bool whole, double *t,
		 int max)
{
	int n = 0;
	if (a->log) {
		double base = bytes ? log10(2) : 1;
		double span = (a->hi - a->lo) / base;
		if (!bytes && span < 3) {
			static const double m125[] = {1, 2, 5};
			static const double m19[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
			n = log_ticks(a, m125, 3, t, max);
			if (n < 4)
				n = log_ticks(a, m19, 9, t, max);
			if (n >= 2)
				return n;
			n = 0;
		}
		double step = base * fmax(1, ceil(span / 6));
		if (bytes && step > base)
			step = base * 2 * ceil(span / 12); /* even octaves */
		for (double e = ceil(a->lo / step - 1e-9) * step;
		     e <= a->hi + 1e-9 && n < max; e += step)
			t[n++] = pow(10, e);
		if (n < 2 && max >= 2) { /* less than a step: the ends */
			t[0] = pow(10, a->lo);
			t[1] = pow(10, a->hi);
			n = 2;
		}
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
	int shape = s->color + s->variant;
	if (s->style & (AX_SVG_LINES | AX_SVG_DASHED)) {
		fprintf(f,
			"<polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"2\" stroke-dasharray=\"%s\" "
			"points=\"",
			c, s->style & AX_SVG_DASHED ? "5 3" : dash_of(shape));
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
		marker(f, shape, pos(x, s->x[j]), pos(y, s->y[j]), c);
		fputs("/", f);
		if (s->labels && s->labels[j]) {
			/* A named point's name carries its figures. */
			fputs("><title>", f);
			ax_html_escape(f, s->labels[j]);
			fputs("</title></g>\n", f);
		} else {
			point_title(f, p, s->name, s->x[j], s->y[j]);
		}
	}
}

/* A note inside the plot area, moved left where it would pass the right
 * edge and kept between the top and bottom. */
static void note(FILE *f, const struct frame *fr, const struct axis *x,
		 const struct axis *y, const struct ax_svg_note *n)
{
	if (!usable(x, n->x) || !usable(y, n->y) || !n->text)
		return;
	double w = ax_svg_text_width(n->text, FONT);
	double px = fmin(pos(x, n->x), fr->l + fr->w - 4 - w);
	px = fmax(px, fr->l + 4);
	double py = pos(y, n->y) + (n->below ? 14 : -5);
	py = fmax(fr->t + 13, fmin(py, fr->t + fr->h - 4));
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\" "
		"class=\"note\" style=\"fill:%s\">",
		px, py, ax_svg_color(n->color));
	ax_html_escape(f, n->text);
	fputs("</text>\n", f);
}

/* The y of series s's last drawable point (largest x); NAN for none. */
static double last_y(const struct axis *x, const struct axis *y,
		     const struct ax_svg_series *s)
{
	double bx = -INFINITY, by = NAN;
	for (int j = 0; j < s->n; j++)
		if (usable(x, s->x[j]) && usable(y, s->y[j]) && s->x[j] >= bx) {
			bx = s->x[j];
			by = pos(y, s->y[j]);
		}
	return by;
}

struct tag_at {
	double want, y; /* the last point's y, and where the tag goes */
	int i;		/* the series */
};

static int tag_cmp(const void *a, const void *b)
{
	const struct tag_at *p = a, *q = b;
	return (p->want > q->want) - (p->want < q->want);
}

/* The widest tag of the series plus its gap; 0 when none has one. */
static double tags_width(const struct ax_svg_series *s, int n)
{
	double w = 0;
	for (int i = 0; i < n; i++)
		if (s[i].tag)
			w = fmax(w, ax_svg_text_width(s[i].tag, FONT) + 14);
	return w;
}

/* Direct labels: each tagged series' tag right of the frame at its last
 * point, pushed apart to a line each (top down, then back up from the
 * bottom) and joined to the point by a leader where it moved. */
static void tags(FILE *f, const struct frame *fr, const struct axis *x,
		 const struct axis *y, const struct ax_svg_series *s, int n)
{
	struct tag_at *t = calloc((size_t)n + 1, sizeof(*t));
	int m = 0;
	for (int i = 0; t && i < n; i++) {
		double w = s[i].tag ? last_y(x, y, &s[i]) : NAN;
		if (isfinite(w))
			t[m++] = (struct tag_at){w, w, i};
	}
	if (t)
		qsort(t, (size_t)m, sizeof(*t), tag_cmp);
	double gap = LINE - 2, top = fr->t + 4, bottom = fr->t + fr->h + 4;
	for (int k = 0; k < m; k++)
		t[k].y = fmax(t[k].want, k ? t[k - 1].y + gap : top);
	for (int k = m - 1; k >= 0; k--)
		t[k].y = fmin(t[k].y, k + 1 < m ? t[k + 1].y - gap : bottom);
	double x0 = fr->l + fr->w;
	for (int k = 0; k < m; k++) {
		const char *c = ax_svg_color(s[t[k].i].color);
		fprintf(f,
			"<path d=\"M%.1f %.1fL%.1f %.1f\" stroke=\"%s\" "
			"fill=\"none\" stroke-width=\"0.8\"/>\n",
			x0 + 1, t[k].want, x0 + 8, t[k].y, c);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\" "
			"class=\"lg\" style=\"fill:%s\">",
			x0 + 10, t[k].y + 4, c);
		ax_html_escape(f, s[t[k].i].tag);
		fputs("</text>\n", f);
	}
	free(t);
}

void ax_svg_plot(FILE *f, const struct ax_svg_plot *p,
		 const struct ax_svg_series *s, int n)
{
	struct frame fr = p->compact ? compact : wide;
	/* Legend to the right: as wide as its longest name, up to
	 * LEGEND_W, where longer names wrap. */
	double lw = 0;
	for (int i = 0; i < n && !fr.legend_below; i++)
		lw = fmax(lw, ax_svg_text_width(s[i].name, FONT));
	lw = fmin(lw, LEGEND_W);
	double tw = tags_width(s, n);
	double w = fr.legend_below ? fr.l + fr.w + fmax(16, tw + PAD)
				   : fr.l + fr.w + tw + 14 + 30 + lw + PAD;
	double th = title_height(p->title, w - 2 * PAD);
	fr.t = PAD + th + 10;
	int chars = fr.legend_below
			? fit_chars(w - (fr.l - 40) - 30 - PAD, FONT, AX_SVG_EM)
			: fit_chars(LEGEND_W, FONT, AX_SVG_EM);
	double legend_h = 0;
	for (int i = 0; i < n; i++)
		legend_h += legend_height(s[i].name, chars) + 4;
	struct axis x = {.log = p->xlog, .org = fr.l, .len = fr.w};
	struct axis y = {.log = p->ylog, .org = fr.t + fr.h, .len = -fr.h};
	fit(&x, s, n, true);
	fit(&y, s, n, false);
	double below = fr.t + fr.h + 50; /* under the x axis label */
	double h = fr.legend_below ? below + legend_h + PAD
				   : fmax(below, fr.t + 8 + legend_h + PAD);
	svg_open(f, w, h, p->title);
	title_block(f, p->title, w - 2 * PAD);
	axes(f, p, &fr, &x, &y);
	for (int i = 0; i < n; i++)
		series(f, p, &x, &y, &s[i]);
	for (int i = 0; i < p->n_notes; i++)
		note(f, &fr, &x, &y, &p->notes[i]);
	tags(f, &fr, &x, &y, s, n);
	double ly = fr.legend_below ? below - 4 : fr.t + 8;
	for (int i = 0; i < n; i++) {
		double lx = fr.legend_below ? fr.l - 40 : fr.l + fr.w + tw + 14;
		ly += legend_entry(f, lx, ly, s[i].color,
				   s[i].color + s[i].variant, s[i].style,
				   s[i].name, chars) +
		      4;
	}
	fputs("</svg>\n", f);
}
