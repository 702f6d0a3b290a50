/*
 * reports/svg.h - the charts of the HTML report, written as inline SVG.
 *
 * Three kinds of chart cover the report: grouped horizontal bars (one
 * group per case, one bar per system, each bar with its interval and a
 * text column for its value and ratio), plain horizontal bars (perf per
 * watt), and x/y plots with lines and/or markers (curves against
 * working-set size or chunk size, rooflines, tuner convergence,
 * telemetry against time), on linear or logarithmic axes.
 * Series are told apart by the Okabe-Ito colour-blind-safe palette *and*
 * by marker shape and dash pattern (bars by a "#n" tag), and named in a
 * legend, so colour is never the only carrier.
 *
 * No text is clipped: the writer estimates each text's width (every
 * character at AX_SVG_EM of the font size, wider than DejaVu Sans, the
 * widest common default, draws its digits), wraps what is long (labels,
 * titles, legend names) and sizes the viewBox to what it holds.
 * Every chart has a <title> and role="img" with an aria-label; every bar
 * and point has its own <title> with the numbers.  All text is escaped.
 */
#ifndef AX_SVG_H
#define AX_SVG_H

#include <stdbool.h>
#include <stdio.h>

/* Estimated character width in em of the report's sans-serif text (the
 * report's CSS sets 11 px, titles 13 px bold at AX_SVG_EM_BOLD). */
#define AX_SVG_EM 0.64
#define AX_SVG_EM_BOLD 0.72

/* Okabe-Ito colour i (mod 8) as "#RRGGBB"; never NULL. */
const char *ax_svg_color(int i);

/* Estimated width in px of s at font size px (AX_SVG_EM a character). */
double ax_svg_text_width(const char *s, double px);

/* Characters of s (UTF-8 code points, not bytes). */
int ax_svg_chars(const char *s);

struct ax_svg_bar {
	const char *label; /* left of the bar, e.g. "64K copy - llvmpipe" */
	int series;	   /* colour / legend index (a system) */
	double value;	   /* bar length (median) */
	double lo, hi;	   /* whisker ends; NAN for none */
	const char *note;  /* after the value, e.g. "41% of peak"; NULL */
};

/*
 * Horizontal bars from zero, one group per bar (ax_svg_groups).  title
 * names the chart (unit and direction included by the caller); axis is
 * the value axis label; legend[i] names series i (n_legend of them; NULL
 * for no legend).  Non-finite or negative values are drawn as a label
 * with "no value".
 */
void ax_svg_hbars(FILE *f, const char *title, const char *axis,
		  const struct ax_svg_bar *bars, int n,
		  const char *const *legend, int n_legend);

/* One bar of a group: a system's figure for one case. */
struct ax_svg_gbar {
	int series;	  /* colour (a system); its legend entry */
	const char *tag;  /* short text left of the bar ("#2"); NULL */
	double value;	  /* bar length; not finite: no bar, text only */
	double lo, hi;	  /* whisker (interval) ends; NAN for none */
	const char *text; /* the text column: value, interval, ratio, or
			     why there is no bar ("failed: timeout") */
	const char *tip;  /* tooltip of the bar; NULL: text */
	bool alert;	  /* text drawn as a warning (failed results) */
};

/* A group of bars under one label (the case's parameters), wrapped to
 * the label column rather than cut. */
struct ax_svg_group {
	const char *label;
	const struct ax_svg_gbar *bars;
	int n;
};

struct ax_svg_gchart {
	const char *title;	   /* wrapped above the chart */
	const char *axis;	   /* value axis label */
	const char *const *legend; /* n_legend names, or NULL */
	const int *legend_series;  /* colour of each entry; NULL: i */
	int n_legend;
	double mark; /* a dashed line at this value (1 on a ratio axis,
			the reference); NAN for none */
};

/* Values in one chart further apart than this factor get a logarithmic
 * axis (bars and plots' value axes): on a linear one the small bars or
 * lines are slivers along the bottom. */
#define AX_SVG_LOG_RATIO 10.0

/* Grouped horizontal bars: from zero on a linear value axis, or from
 * the decade below the smallest on a logarithmic one where the values
 * differ by more than AX_SVG_LOG_RATIO (the axis label then says so). */
void ax_svg_groups(FILE *f, const struct ax_svg_gchart *ch,
		   const struct ax_svg_group *g, int n);

enum ax_svg_style {
	AX_SVG_LINES = 1u << 0,	  /* join the points */
	AX_SVG_MARKERS = 1u << 1, /* a marker per point */
	AX_SVG_DASHED = 1u << 2,  /* dashed line (ceilings, bounds) */
};

struct ax_svg_series {
	const char *name;
	const double *x, *y; /* n points; non-finite ones are skipped */
	int n;
	unsigned style; /* enum ax_svg_style bits */
	int color;	/* palette index */
	int variant;	/* marker and dash: the (color + variant)-th, so
			   series of one colour still differ */
	const char *const *labels; /* n point names for their tooltips
				      (NULL: the series name) */
	const char *tag; /* a short name written at the series' last point,
			    right of the plot (a direct label: lines that
			    overlap stay told apart); NULL for none */
};

enum ax_svg_axis_fmt {
	AX_SVG_NUM,   /* 3 significant digits */
	AX_SVG_BYTES, /* 4K, 64M, 1G (binary) */
};

/* A text placed at a data point of a plot (a ceiling's value). */
struct ax_svg_note {
	double x, y;	  /* data coordinates of the anchor */
	const char *text; /* kept inside the plot area */
	int color;	  /* palette index */
	bool below;	  /* under the anchor, else above */
};

struct ax_svg_plot {
	const char *title;
	const char *xlabel, *ylabel;
	bool xlog, ylog;	   /* logarithmic axes (positive values) */
	enum ax_svg_axis_fmt xfmt; /* tick label format of the x axis */
	bool xint;		   /* x is a count: whole-number ticks */
	bool compact; /* a small plot, legend underneath, so that a few
			 fit one row (time series side by side) */
	const struct ax_svg_note *notes; /* n_notes texts in the plot */
	int n_notes;
};

/* An x/y plot of the series, axes fitted to their finite points. */
void ax_svg_plot(FILE *f, const struct ax_svg_plot *p,
		 const struct ax_svg_series *s, int n);

/* Format v for an axis or label ("1.23e+04", "64M") into buf. */
void ax_svg_format(double v, enum ax_svg_axis_fmt fmt, char *buf, size_t len);

#endif
