/*
 * app/report_query.h - what `axbench report` reads, before the HTML
 * writer (reports/html.h) sees any of it: every database opened
 * read-only, the --run / --runs, --device, --since and --samples-for
 * selections resolved in each (an id, device or date that selects
 * nothing is a usage error, never an empty report), the results streamed
 * into the report's collection, the sustained results' telemetry series
 * attached, and the runs and sessions of the selection.
 */
#ifndef AX_APP_REPORT_QUERY_H
#define AX_APP_REPORT_QUERY_H

#include "app/app.h"
#include "reports/html.h"

#include <stdbool.h>
#include <stdint.h>

/* Selectors of one kind (--run, --device, --samples-for). */
#define AX_REPORT_MAX_SEL 64
/* Databases one report reads: each is open at once, read-only. */
#define AX_REPORT_MAX_DB 16
/* Runs whose raw samples one report draws: a comparison, not a history. */
#define AX_REPORT_MAX_SAMPLED 16

/* What the report selects; every text is borrowed. */
struct ax_report_sel {
	const char *runs[AX_REPORT_MAX_SEL], *devs[AX_REPORT_MAX_SEL];
	int n_runs, n_devs;
	const char *dbs[AX_REPORT_MAX_DB]; /* the first is --db */
	int n_dbs;
	const char *since; /* canonical YYYY-MM-DDTHH:MM:SS, or NULL */
	const char *sampled[AX_REPORT_MAX_SEL]; /* --samples-for items */
	int n_sampled;
	bool sampled_default; /* no --samples-for: last, where there is one */
	enum ax_html_label_by label_by;
	bool include_tune;
};

/* One database of the report and what it gave. */
struct ax_report_source {
	const char *path;
	struct ax_db *db;
	int64_t ids[AX_REPORT_MAX_SEL]; /* the selected runs in it */
	int n_ids;
	int64_t sampled[AX_REPORT_MAX_SAMPLED]; /* runs whose samples are drawn */
	int n_sampled;
	struct ax_db_runs runs;		/* of the selection (owned) */
	struct ax_db_sessions sessions; /* since --since (owned) */
};

/* What the report's data points at beside the collection: the runs and
 * sessions of every source on the selected devices (the rows stay the
 * sources'), the sampled runs' results and the sustained results'
 * telemetry (owned). */
struct ax_report_rows {
	struct ax_db_runs runs;
	struct ax_db_sessions sessions;
	struct ax_db_results sampled;
	struct ax_html_telemetry *telemetry; /* one per kept result */
	size_t n_telemetry;		     /* of them holding a series */
};

/* Open s->path read-only: --db (or AXBENCH_DB) as every reader opens it,
 * another as compare opens its FILE specs.  Prints; the exit code. */
int ax_report_open_source(const struct ax_app *app,
			  struct ax_report_source *s);

/*
 * Results, runs and sessions of the selection in every open source (the
 * first, --db, first), into d (pointing into keep, rows and the
 * sources), the results streamed into keep.  Prints what is wrong;
 * returns the exit code.
 */
int ax_report_query(const struct ax_app *app, const struct ax_report_sel *a,
		    struct ax_report_source *src, int n,
		    struct ax_html_collect *keep, struct ax_report_rows *rows,
		    struct ax_html_data *d);

/*
 * What the report is made of, once every source is open: the collection
 * (*kept: keep needs ax_report_release), the suite document
 * (ax_app_suites()), the vendor peaks (*specs; the caller frees them) and
 * ax_report_query's results.  Returns the exit code.
 */
int ax_report_gather(struct ax_app *app, const struct ax_report_sel *a,
		     struct ax_report_source *src, int n,
		     struct ax_html_collect *keep, struct ax_report_rows *rows,
		     struct ax_html_data *d, bool *kept,
		     struct ax_specs **specs);

/* Release keep (NULL: not made), rows (zeroed or filled by
 * ax_report_query) and the n sources. */
void ax_report_release(struct ax_html_collect *keep,
		       struct ax_report_rows *rows,
		       struct ax_report_source *src, int n);

#endif
