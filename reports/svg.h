/*
 * reports/svg.h - the charts of the HTML report, written as inline SVG.
 *
 * Two kinds of chart cover the report: horizontal bars with whiskers
 * (medians with their IQR, perf per watt) and x/y plots with lines and/or
 * markers (curves against working-set size or chunk size, rooflines, tuner
 * convergence, telemetry against time), on linear or logarithmic axes.
 * Series are told apart by the Okabe-Ito colour-blind-safe palette *and*
 * by marker shape and dash pattern, and named in a legend, so colour is
 * never the only carrier.
 * Every chart has a <title> and role="img" with an aria-label; every bar
 * and point has its own <title> with the numbers.  All text is escaped.
 */
#ifndef AX_SVG_H
#define AX_SVG_H

#include <stdbool.h>
#include <stdio.h>

/* Okabe-Ito colour i (mod 8) as "#RRGGBB"; never NULL. */
const char *ax_svg_color(int i);

struct ax_svg_bar {
	const char *label; /* left of the bar, e.g. "64K copy - llvmpipe" */
	int series;	   /* colour / legend index (a device or run) */
	double value;	   /* bar length (median) */
	double lo, hi;	   /* whisker ends (q1, q3); NAN for none */
	const char *note;  /* after the value, e.g. "41% of peak"; NULL */
};

/*
 * Horizontal bars from zero.  title names the chart (unit and direction
 * included by the caller); axis is the value axis label; legend[i] names
 * series i (n_legend of them; NULL for no legend).  Non-finite or
 * negative values are drawn as a label with "no value".
 */
void ax_svg_hbars(FILE *f, const char *title, const char *axis,
		  const struct ax_svg_bar *bars, int n,
		  const char *const *legend, int n_legend);

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
};

enum ax_svg_axis_fmt {
	AX_SVG_NUM,   /* 3 significant digits */
	AX_SVG_BYTES, /* 4K, 64M, 1G (binary) */
};

struct ax_svg_plot {
	const char *title;
	const char *xlabel, *ylabel;
	bool xlog, ylog;	   /* logarithmic axes (positive values) */
	enum ax_svg_axis_fmt xfmt; /* tick label format of the x axis */
	bool xint;		   /* x is a count: whole-number ticks */
	bool compact; /* a small plot, legend underneath, so that a few
			 fit one row (time series side by side) */
};

/* An x/y plot of the series, axes fitted to their finite points. */
void ax_svg_plot(FILE *f, const struct ax_svg_plot *p,
		 const struct ax_svg_series *s, int n);

/* Format v for an axis or label ("1.23e+04", "64M") into buf. */
void ax_svg_format(double v, enum ax_svg_axis_fmt fmt, char *buf, size_t len);

#endif
