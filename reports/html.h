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
 * The report is built around systems side by side: a system, that is a
 * run label, else host and device, or a run, a device or a host, as
 * label_by says, is one column of the systems table and one colour in
 * every chart; only plain runs make systems (ax_html_kind_shown).  Sections,
 * each saying in one line when it has no data: summary; overview (each system's
 * geometric mean of its ratios to the reference over the cases every system
 * measured, else over those it shares with the reference, direction-aware, and
 * wins, losses and ties per suite); systems (device, host, driver, run label,
 * profile, commit, version and command line, rows that differ marked); per case
 * grouped bars, one per system, with the median, its 95 % interval and the
 * ratio to the reference (tuning measurements left out unless include_tune);
 * rooflines with labelled ceilings; efficiency (perf per watt, power and energy
 * per repetition and per unit of work, temperatures, clocks, memory,
 * throttling, the speed-up over the host CPU's library, sustained runs' power,
 * temperature and clock against time); each suite's declared curve; tuning
 * sessions (convergence, the best point, the parameters that mattered); history
 * across runs with verdicts; and results that need attention.
 */
#ifndef AX_HTML_H
#define AX_HTML_H

#include "core/db_rows.h"
#include "core/roles.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The report draws the telemetry of at most AX_HTML_TELEMETRY_MAX
 * results (a caller need attach no more), each with at most
 * AX_HTML_TELEMETRY_POINTS points. */
#define AX_HTML_TELEMETRY_MAX 64
#define AX_HTML_TELEMETRY_POINTS 2000

/* What makes a system of the report (`report --label-by`). */
enum ax_html_label_by {
	AX_HTML_BY_LABEL,  /* the run's label; without one host and device */
	AX_HTML_BY_RUN,	   /* every run its own system */
	AX_HTML_BY_DEVICE, /* every device (fingerprint and name) */
	AX_HTML_BY_HOST,   /* every host */
};

/* The names of enum ax_html_label_by in order, NULL-terminated. */
const char *const *ax_html_label_by_names(void);

/* One run's figure of a case in the history: its run (database index
 * and id), when it started, and its median with the 95 % interval (NAN
 * when the result failed). */
struct ax_html_point {
	int64_t run_id;
	int source;	     /* index of the database (0: the first) */
	char started_at[32]; /* ISO 8601 UTC, as stored */
	double median, ci_lo, ci_hi;
	bool ok;
	signed char change; /* set by the report: +1 better, -1 worse */
};

/* A case (device, suite, parameters) across runs, oldest first. */
struct ax_html_series {
	char *suite, *label, *device, *unit; /* label: "k=v k=v" */
	bool hib;			     /* higher is better */
	struct ax_html_point *pts;
	size_t n, cap;
};

/*
 * What `report` keeps of a stream of results, however long the history:
 * each system's newest result of each case in full (the report's
 * "results"), and of every run only its figure per case (the series),
 * with counts of everything read.  Memory grows with systems x cases and
 * with runs x cases as a few numbers, never with samples.
 */
struct ax_html_collect {
	enum ax_html_label_by label_by;
	bool include_tune;
	bool all_kinds; /* every run kind shown (ax_html_collect_runs) */
	struct ax_db_results results; /* kept results, oldest first seen
					 (owned) */
	/* String maps (jansson objects used as hash tables, never
	 * documents): reduction key -> index in results, "source\x1frun
	 * id" -> true for the runs read, history key -> index in series. */
	json_t *index, *runs, *series_index;
	/* "source\x1frun id" -> kind, of the runs whose kind the report
	 * does not show (ax_html_collect_runs). */
	json_t *left_out;
	struct ax_html_series *series;
	size_t n_series, cap_series;
	size_t n_read, n_bad; /* results read, and those not ok */
	size_t n_left;	      /* of them, of runs left out (tuning
				 sessions' measurements not counted) */
};

/* A sustained result's telemetry as the report draws and embeds it:
 * its series, thinned (ax_html_telemetry_thin), and how. */
struct ax_html_telemetry {
	struct ax_db_series_row *series; /* NULL: none attached; borrowed */
	size_t n_readings;		 /* before thinning */
	size_t thinned_every;		 /* 1: not thinned */
};

struct ax_html_data {
	const struct ax_db_results *results; /* the results shown (borrowed;
				     NULL: an error) */
	const struct ax_html_telemetry *telemetry; /* results->n entries, the
				     sustained results' series; NULL: none */
	const struct ax_db_runs *runs;		   /* NULL: none; borrowed */
	const struct ax_db_sessions *sessions;	   /* NULL: none; borrowed */
	const struct ax_suite_doc *suites;	   /* the suite document
					     (app/suite_doc.h): roles decide ceilings,
					     curves and roofline points; NULL: no
					     suite has any */
	const char *title;			   /* NULL: "axbench report" */
	const char *generated_at; /* shown and embedded; NULL: now (UTC) */
	const char *selection;	  /* how the data was chosen, e.g. "runs
				     3, 4"; NULL to omit */
	enum ax_html_label_by label_by; /* what makes a system */
	const char *reference;	  /* the system the others are compared with:
				     its number ("2"), its name, or a part of
				     its name, device or label matching one
				     system only; NULL: the first */
	bool include_tune;	  /* tuning sessions' measurements in the case
				     charts and overview too, and tune runs
				     among the systems' runs */
	bool all_kinds;		  /* every kind of run makes systems (the
				     runs were named, report --runs), not
				     only plain runs (ax_html_kind_shown) */
	int n_sources;		  /* databases read; with more than one every
				     result, run and session row carries its
				     source (the database's path) */
	const volatile int *stop; /* non-NULL: writing stops (AX_EINTR) once
				   *stop is set (Ctrl-C) */
	struct ax_html_collect *history;     /* NULL: the history and the
					 counts come from results; else from
					 here, results holding its kept ones */
	const struct ax_db_results *sampled; /* results with samples of the
				     runs whose raw samples are drawn (NULL or
				     empty: none); borrowed */
	const char *sampled_runs;     /* which runs those are, in words */
	const struct ax_specs *specs; /* vendor figures for "% of spec"
				     (core/specs.h); NULL: no specs file,
				     every device "spec unknown" */
	const char *specs_path;	      /* where they were looked for, for the
					 text; NULL to omit */
};

/*
 * Which runs make the report's systems, by their kind (AX_RUN_KIND_SQL,
 * struct ax_db_run_row.kind): plain runs ("run", or NULL: not known)
 * always; tune runs with include_tune; monitor, recommend and ab runs,
 * and every other kind, only with all_kinds (runs named by --runs).  A
 * tuning session's measurements reach the case charts only with
 * include_tune, whatever run holds them.
 */
bool ax_html_kind_shown(const char *kind, bool include_tune, bool all_kinds);

/* An empty collection for d's label_by and include_tune.  Returns 0 or
 * AX_ENOMEM. */
int ax_html_collect_init(struct ax_html_collect *k,
			 enum ax_html_label_by label_by, bool include_tune);
void ax_html_collect_release(struct ax_html_collect *k);
/* Take one result (row->source the database's path when the report
 * reads several, source their index): counted, added to its case's
 * series, and kept when it is its system's newest of its case (then
 * *r is set to NULL: the collection owns it; a row it replaces is
 * freed).  Results must come oldest first within each database.
 * Returns 0 or AX_ENOMEM. */
int ax_html_collect_add(struct ax_html_collect *k, struct ax_db_result_row **r,
			int source);
/* Note which of runs (each run's source as its results' will be) the
 * report does not show (ax_html_kind_shown with k->include_tune and
 * all_kinds), before their results come: those are counted (n_read,
 * n_left) but neither kept nor in a series; a tuning session's are kept
 * still, for the Tuning section.  Returns 0 or AX_ENOMEM. */
int ax_html_collect_runs(struct ax_html_collect *k,
			 const struct ax_db_runs *runs, bool all_kinds);
/* Is r of a run ax_html_collect_runs left out? */
bool ax_html_collect_left_out(const struct ax_html_collect *k,
			      const struct ax_db_result_row *r);
/* Count r and add it to its case's series without keeping it (r stays
 * the caller's).  Returns 0 or AX_ENOMEM. */
int ax_html_collect_point(struct ax_html_collect *k,
			  const struct ax_db_result_row *r, int source);
/* Sort every series by start time (databases read one after another
 * make one history). */
void ax_html_collect_finish(struct ax_html_collect *k);

/*
 * Write the whole report to f.  results must be set (it may be empty:
 * every section then says it has no data).  The embedded data is the
 * documents of core/db_json.c made from the rows.
 * Returns 0, AX_EINVAL (message in err, nothing written) for a missing
 * results list or a reference that names no system or several,
 * AX_ENOMEM, AX_EINTR
 * when d->stop was set (between sections and charts), or AX_EIO when the
 * stream reports a write error.
 */
int ax_html_report_write(FILE *f, const struct ax_html_data *d, char *err,
			 size_t errlen);

/*
 * Check d without writing: the systems it makes, and that d->reference
 * names exactly one of them.  Returns 0, or AX_EINVAL with the message
 * (naming the systems there are) in err, or AX_ENOMEM.
 */
int ax_html_report_check(const struct ax_html_data *d, char *err,
			 size_t errlen);

/*
 * Thin a telemetry series in place to at most max readings: every k-th
 * is kept in each column, and out says how many there were and k (its
 * embedded document then has "n_readings" and "thinned_every"), so that
 * the report says what it draws and its embedded data stays a size a
 * browser opens.  A series of max readings or fewer is left as it is
 * (k 1).  out->series is s.
 */
void ax_html_telemetry_thin(struct ax_db_series_row *s, size_t max,
			    struct ax_html_telemetry *out);

#endif
