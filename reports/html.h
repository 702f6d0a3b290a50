/*
 * reports/html.h - the self-contained HTML report of `axbench report`.
 *
 * One file that works from file:// with no network: inline CSS, charts as
 * inline SVG (reports/svg.h), the report's data embedded as JSON in a
 * <script type="application/json"> block (data, never executed), and a
 * Content-Security-Policy of "default-src 'none'; style-src
 * 'unsafe-inline'; img-src data:", so nothing can be fetched and no script
 * can run even if escaping were ever wrong.  Every database string is
 * HTML-escaped; the embedded JSON escapes < > & so "</script>" in a device
 * name cannot close its element.
 *
 * Sections, each saying in one line when it has no data: summary, system
 * table (values shared by every device collapsed into one cell), medians
 * with IQR whiskers per suite (unit, direction, % of measured peak,
 * badges), rooflines, efficiency (perf per watt, power and energy per
 * repetition and per unit of work, temperatures, clocks, memory,
 * throttling, the speed-up over the host CPU's library, sustained runs'
 * power, temperature and clock against time), each suite's declared curve
 * (bandwidth against working-set size, transfer GB/s against chunk size),
 * tuner convergence and the parameters that mattered, history across runs
 * with verdicts, and results that need attention.
 */
#ifndef AX_HTML_H
#define AX_HTML_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The report draws the "telemetry" of at most AX_HTML_TELEMETRY_MAX
 * results (a caller need attach no more), each with at most
 * AX_HTML_TELEMETRY_POINTS points. */
#define AX_HTML_TELEMETRY_MAX 64
#define AX_HTML_TELEMETRY_POINTS 2000

struct ax_html_data {
	json_t *results;	  /* ax_db_results() array, ideally with samples
				     (history verdicts need them), a sustained
				     result's ax_db_result_series() as its
				     "telemetry" member; borrowed */
	json_t *runs;		  /* ax_db_runs() array or NULL; borrowed */
	json_t *sessions;	  /* ax_db_sessions() array or NULL; borrowed */
	const json_t *suites;	  /* the suite document (cli/suite_doc.h): roles
				     decide ceilings, curves and roofline
				     points; NULL: no suite has any */
	const char *title;	  /* NULL: "axbench report" */
	const char *generated_at; /* shown and embedded; NULL: now (UTC) */
	const char *selection;	  /* how the data was chosen, e.g. "runs
				     3, 4"; NULL to omit */
	const volatile int *stop; /* non-NULL: writing stops (AX_EINTR) once
				   *stop is set (Ctrl-C) */
};

/*
 * Write the whole report to f.  results must be an array (it may be
 * empty: every section then says it has no data).  Returns 0, AX_EINVAL
 * (message in err) for a missing results array, AX_ENOMEM, AX_EINTR
 * when d->stop was set (between sections and charts), or AX_EIO when the
 * stream reports a write error.
 */
int ax_html_report_write(FILE *f, const struct ax_html_data *d, char *err,
			 size_t errlen);

/*
 * Thin a telemetry series (ax_db_result_series' shape) in place to at most
 * max readings: every k-th is kept in each column, and "n_readings" (how
 * many there were) and "thinned_every" (k) are added, so that the report
 * says what it draws and its embedded data stays a size a browser opens.
 * A series of max readings or fewer is left as it is.  Returns 0 or
 * AX_ENOMEM (the series then unchanged).
 */
int ax_html_telemetry_thin(json_t *series, size_t max);

#endif
