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
 * badges), rooflines, each suite's declared curve (bandwidth against
 * working-set size, transfer GB/s against chunk size), tuner convergence and
 * the parameters that mattered, history across runs with verdicts, and results
 * that need attention.
 */
#ifndef AX_HTML_H
#define AX_HTML_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

struct ax_html_data {
	json_t *results;	  /* ax_db_results() array, ideally with samples
				     (history verdicts need them); borrowed */
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

#endif
