/* app/report_query.c - what `axbench report` reads: the selected runs,
 * devices, sessions, sampled runs and telemetry of one or more databases
 * (app/report_query.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include "app/report_query.h"

#include "app/suite_doc.h"
#include "core/db.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "core/specs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool sel_matches(const char *sel, const struct ax_db_device_row *dev)
{
	const char *const exact[] = {dev->fingerprint, dev->pci_bus_id,
				     dev->device_uuid};
	if (!dev->id)
		return false;
	for (int i = 0; i < 3; i++)
		if (exact[i] && strcmp(exact[i], sel) == 0)
			return true;
	int64_t id;
	if (ax_app_parse_id(sel, &id) && dev->id == id)
		return true;
	return dev->name && *sel && strcasestr(dev->name, sel);
}

/* Does dev match one of the --device selectors (or are there none)? */
static bool dev_kept(const struct ax_report_sel *a,
		     const struct ax_db_device_row *dev)
{
	bool keep = a->n_devs == 0;
	for (int k = 0; k < a->n_devs && !keep; k++)
		keep = sel_matches(a->devs[k], dev);
	return keep;
}

/* Is any run or session of s on a device matching sel? */
static bool any_matches(const struct ax_report_source *s, const char *sel)
{
	for (size_t i = 0; i < s->runs.n; i++)
		if (sel_matches(sel, &s->runs.v[i]->device))
			return true;
	for (size_t i = 0; i < s->sessions.n; i++)
		if (sel_matches(sel, &s->sessions.v[i]->device))
			return true;
	return false;
}

/* A --device that matches nothing in the selection is a mistake (a
 * typo, the wrong machine's database), not an empty report.  matched[k]:
 * a result read matched device selector k. */
static int check_devices(const struct ax_app *app, const struct ax_report_sel *a,
			 const struct ax_report_source *src, int n, const bool *matched)
{
	for (int k = 0; k < a->n_devs; k++) {
		bool found = matched[k];
		for (int i = 0; i < n && !found; i++)
			found = any_matches(&src[i], a->devs[k]);
		if (!found)
			return ax_app_error(
			    app, AX_EXIT_USAGE,
			    "report: --device '%s' matches no stored "
			    "device%s; give a name part, fingerprint, "
			    "database id, PCI bus id or UUID that `axbench "
			    "results --json` shows",
			    a->devs[k],
			    a->n_runs || a->since ? " in the selected runs"
						  : "");
	}
	return 0;
}

/* --since after the newest run and session: say so rather than write an
 * empty report. */
static int check_since(const struct ax_app *app, const struct ax_report_sel *a,
		       const struct ax_report_source *src, int n)
{
	if (!a->since)
		return 0;
	for (int i = 0; i < n; i++)
		if (src[i].runs.n || src[i].sessions.n)
			return 0;
	return ax_app_error(app, AX_EXIT_USAGE,
			    "report: --since %s: no %srun or tuning session "
			    "in %s%s started at or after it; give an earlier "
			    "date (`axbench runs` lists the runs)",
			    a->since, a->n_runs ? "selected " : "", src[0].path,
			    n > 1 ? " or the other databases" : "");
}

/* The runs --run / --runs select in each database.  One database: as
 * `results --run` (an id it lacks is an error).  Several: "last" is the
 * newest of each ("last~N" the N-th before it, in a database that holds
 * that many), an id selects that run wherever it exists; an id no
 * database holds, or a database left with no run, is an error, because
 * a report that silently dropped a machine would mislead. */
static int resolve_runs(const struct ax_app *app, const struct ax_report_sel *a,
			struct ax_report_source *src, int n)
{
	if (!a->n_runs)
		return 0;
	if (n == 1) {
		for (int i = 0; i < a->n_runs; i++) {
			int rc = ax_app_resolve_run(app, src[0].db, "report",
						    a->runs[i], &src[0].ids[i]);
			if (rc)
				return rc;
		}
		src[0].n_ids = a->n_runs;
		return 0;
	}
	for (int k = 0; k < a->n_runs; k++) {
		const char *sel = a->runs[k];
		int64_t id = 0;
		int found = 0, back = 0;
		size_t kept;
		bool last = ax_app_parse_last(sel, &back);
		if (!last && !ax_app_parse_id(sel, &id))
			/* Malformed: the one message every command gives. */
			return ax_app_resolve_run(app, src[0].db, "report", sel,
						  &id);
		for (int i = 0; i < n; i++) {
			int rc = last ? ax_app_last_run(src[i].db, back, &id,
							&kept)
				      : ax_db_run_exists(src[i].db, id);
			if (rc == AX_ENOTFOUND)
				continue;
			if (rc) {
				fprintf(stderr, "axbench: report: %s\n",
					ax_db_errmsg(src[i].db));
				return AX_EXIT_STORAGE;
			}
			src[i].ids[src[i].n_ids++] = id;
			found++;
		}
		if (!found)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "report: no run %s in any of the "
					    "%d databases; `axbench --db FILE "
					    "results` lists a database's runs",
					    sel, n);
	}
	for (int i = 0; i < n; i++)
		if (src[i].n_ids == 0)
			return ax_app_error(
			    app, AX_EXIT_USAGE,
			    "report: the selected runs include none of %s; "
			    "select one of its runs too (`axbench --db %s "
			    "results` lists them) or leave it out",
			    src[i].path, src[i].path);
	return 0;
}

/* Is r from `run --sustain` with a stored telemetry series? */
static bool sustained_with_series(const struct ax_db_result_row *r)
{
	return r->sustained && r->power.present && r->power.series_id;
}

/* The database a result came from: its source names it when the report
 * reads several. */
static struct ax_db *db_of(const struct ax_db_result_row *r,
			   const struct ax_report_source *src, int n)
{
	for (int i = 0; r->source && i < n; i++)
		if (!strcmp(r->source, src[i].path))
			return src[i].db;
	return src[0].db;
}

/*
 * Each sustained result's telemetry series, for the report to draw: the
 * writer never reads the database.  The newest AX_HTML_TELEMETRY_MAX
 * only, each thinned to AX_HTML_TELEMETRY_POINTS readings, so that a day
 * of readings neither fills memory nor makes a report no browser opens.
 */
static int attach_telemetry(const struct ax_app *app,
			    const struct ax_report_source *src, int n,
			    const struct ax_db_results *results,
			    struct ax_report_rows *rows)
{
	int attached = 0;
	rows->telemetry = calloc(results->n + 1, sizeof(*rows->telemetry));
	if (!rows->telemetry)
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "report: out of memory reading telemetry");
	for (size_t i = results->n; i-- > 0 && attached < AX_HTML_TELEMETRY_MAX;) {
		const struct ax_db_result_row *r = results->v[i];
		struct ax_db_series_row *series;
		if (!sustained_with_series(r))
			continue;
		if (ax_interrupted)
			return AX_EXIT_INTERRUPTED;
		struct ax_db *db = db_of(r, src, n);
		int rc = ax_db_series_row_get(db, r->id, &series);
		if (rc == AX_ENOTFOUND)
			continue;
		if (rc) {
			fprintf(stderr, "axbench: report: %s\n",
				ax_db_errmsg(db));
			return ax_interrupted ? AX_EXIT_INTERRUPTED
					      : AX_EXIT_STORAGE;
		}
		ax_html_telemetry_thin(series, AX_HTML_TELEMETRY_POINTS,
				       &rows->telemetry[i]);
		rows->n_telemetry = results->n;
		attached++;
	}
	return 0;
}

/* A database named on the command line, opened read-only: --db (or
 * AXBENCH_DB) as every reader opens it, another as compare opens its
 * FILE specs. */
int ax_report_open_source(const struct ax_app *app, struct ax_report_source *s)
{
	return ax_app_open_db_at(app, s->path, true,
				 s->path == app->db_path ? NULL : "report",
				 &s->db);
}

/* What the stream of one database's results goes through. */
struct reading {
	const struct ax_report_sel *a;
	struct ax_html_collect *keep;
	const char *path; /* each result's source when n_sources > 1 */
	int source, n_sources;
	bool *matched; /* per --device selector: a result matched it */
};

/* A result is kept when its device matches a --device selector (when
 * there are any); the collection keeps what the report shows of it. */
static int read_one(void *ctx, struct ax_db_result_row **r)
{
	struct reading *g = ctx;
	bool keep = g->a->n_devs == 0;
	for (int k = 0; k < g->a->n_devs; k++)
		if (sel_matches(g->a->devs[k], &(*r)->device))
			keep = g->matched[k] = true;
	if (!keep)
		return 0;
	if (g->n_sources > 1)
		(*r)->source = g->path;
	return ax_html_collect_add(g->keep, r, g->source);
}

/* The selection's runs and sessions of s, and its results streamed
 * through g into the collection: memory holds one result at a time
 * beside what the report keeps. */
static int read_source(const struct ax_report_sel *a, struct ax_report_source *s,
		       struct reading *g)
{
	struct ax_db_filter f = {.run_ids = s->ids,
				 .n_run_ids = s->n_ids,
				 .since = a->since,
				 .stop = &ax_interrupted};
	struct ax_db_filter sf = {.since = a->since, .stop = &ax_interrupted};
	int rc = ax_db_run_rows(s->db, &f, &s->runs);
	/* Each run's source as its results' will be, so that the
	 * collection knows the runs whose kind makes no system. */
	for (size_t i = 0; !rc && i < s->runs.n; i++)
		s->runs.v[i]->source = g->n_sources > 1 ? g->path : NULL;
	if (!rc)
		rc = ax_html_collect_runs(g->keep, &s->runs, a->n_runs > 0);
	if (!rc)
		rc = ax_db_session_rows(s->db, &sf, &s->sessions);
	if (!rc)
		rc = ax_db_result_rows_each(s->db, &f, read_one, g);
	if (rc == AX_ENOMEM) {
		fprintf(stderr, "axbench: report: out of memory\n");
		return AX_EXIT_STORAGE;
	}
	if (rc) {
		fprintf(stderr, "axbench: report: %s: %s\n", s->path,
			ax_db_errmsg(s->db));
		return ax_interrupted ? AX_EXIT_INTERRUPTED : AX_EXIT_STORAGE;
	}
	return 0;
}

/* The newest plain run (kind "run": no tuning session, monitor,
 * recommendation or paired comparison) of s's selection on a selected
 * device: what --samples-for last draws; 0 when there is none. */
static int64_t newest_plain(const struct ax_report_sel *a,
			    const struct ax_report_source *s)
{
	for (size_t i = 0; i < s->runs.n; i++) /* newest first */
		if (ax_html_kind_shown(s->runs.v[i]->kind, false, false) &&
		    dev_kept(a, &s->runs.v[i]->device))
			return s->runs.v[i]->id;
	return 0;
}

/* Is run id among s's selected runs? */
static bool selected(const struct ax_report_source *s, int64_t id)
{
	for (size_t i = 0; i < s->runs.n; i++)
		if (s->runs.v[i]->id == id)
			return true;
	return false;
}

/* The selected runs one --samples-for item names in s into s->sampled;
 * *found: how many, *outside: how many it names that the selection
 * (--runs, --since) leaves out.  0, or an exit code. */
static int sample_item(const struct ax_app *app, const char *sel,
		       const struct ax_report_sel *a,
		       struct ax_report_source *s, int *found, int *outside)
{
	int64_t *ids = NULL, one = 0;
	int m = 1, rc = 0;
	if (!strncmp(sel, "baseline:", 9))
		rc = ax_db_baseline_runs(s->db, sel + 9, &ids, &m);
	else if (!strcmp(sel, "last"))
		m = (one = newest_plain(a, s)) != 0;
	else if (ax_app_parse_id(sel, &one))
		rc = ax_db_run_exists(s->db, one);
	else
		return ax_app_error(app, AX_EXIT_USAGE,
				    "report: --samples-for item '%s' is not "
				    "a run; give run ids, last, baseline:NAME "
				    "or none, like --samples-for "
				    "last,baseline:main",
				    sel);
	if (rc && rc != AX_ENOTFOUND) {
		fprintf(stderr, "axbench: report: %s\n", ax_db_errmsg(s->db));
		return AX_EXIT_STORAGE;
	}
	for (int j = 0; !rc && j < m; j++) {
		int64_t id = ids ? ids[j] : one;
		/* Samples only of runs the report shows: never a tuning
		 * session's run the selection left out. */
		if (!selected(s, id)) {
			(*outside)++;
			continue;
		}
		if (s->n_sampled == AX_REPORT_MAX_SAMPLED) {
			free(ids);
			return ax_app_error(
			    app, AX_EXIT_USAGE,
			    "report: --samples-for names more than %d runs "
			    "in %s; raw samples are for comparing a few "
			    "runs, name fewer",
			    AX_REPORT_MAX_SAMPLED, s->path);
		}
		s->sampled[s->n_sampled++] = id;
		(*found)++;
	}
	free(ids);
	return 0;
}

/* The runs of --samples-for in each database, among its selected runs:
 * ids (an id a database lacks is left out there), last (the newest plain
 * run of the selection), baseline:NAME (the runs of that baseline
 * wherever one has them); none for none.  An item that draws nothing
 * is an error, as a typo would silently draw nothing, and so is one
 * naming only runs outside the selection. */
static int resolve_sampled(const struct ax_app *app,
			   const struct ax_report_sel *a,
			   struct ax_report_source *src, int n)
{
	for (int k = 0; k < a->n_sampled; k++) {
		const char *sel = a->sampled[k];
		int found = 0, outside = 0;
		if (!strcmp(sel, "none"))
			continue;
		for (int i = 0; i < n; i++) {
			int rc = sample_item(app, sel, a, &src[i], &found,
					     &outside);
			if (rc)
				return rc;
		}
		if (found || a->sampled_default)
			continue;
		if (outside)
			return ax_app_error(
			    app, AX_EXIT_USAGE,
			    "report: --samples-for %s: the selection "
			    "(--runs, --since) leaves out %s; samples are "
			    "drawn from the selected runs only, so select "
			    "it too or name a selected run",
			    sel, outside == 1 ? "that run" : "those runs");
		return ax_app_error(
		    app, AX_EXIT_USAGE,
		    "report: --samples-for %s: no such %s in %s%s; `axbench "
		    "runs` and `axbench baseline list` list them",
		    sel,
		    !strcmp(sel, "last") ? "plain run (not a tune, monitor, "
					   "recommend or ab run) among the "
					   "selected runs"
					 : "run or baseline",
		    src[0].path, n > 1 ? " or the other databases" : "");
	}
	return 0;
}

/* What the sampled results of one database go through. */
struct sampling {
	const struct ax_report_sel *a;
	const char *path; /* each result's source, when several */
	struct ax_db_results *out;
};

/* A sampled result on a selected device is kept, its byte counts
 * filled in where it predates them. */
static int sample_one(void *ctx, struct ax_db_result_row **r)
{
	struct sampling *g = ctx;
	if (!dev_kept(g->a, &(*r)->device))
		return 0;
	(*r)->source = g->path;
	ax_app_fill_row_bytes(*r);
	if (ax_db_results_push(g->out, *r))
		return AX_ENOMEM;
	*r = NULL;
	return 0;
}

/* The results, with their raw samples, of the --samples-for runs, on
 * the selected devices, into rows->sampled. */
static int read_sampled(const struct ax_report_sel *a,
			struct ax_report_source *src, int n,
			struct ax_report_rows *rows)
{
	for (int i = 0; i < n; i++) {
		struct ax_db_filter f = {.run_ids = src[i].sampled,
					 .n_run_ids = src[i].n_sampled,
					 .with_samples = true,
					 .stop = &ax_interrupted};
		struct sampling g = {a, n > 1 ? src[i].path : NULL,
				     &rows->sampled};
		if (!src[i].n_sampled)
			continue;
		int rc = ax_db_result_rows_each(src[i].db, &f, sample_one, &g);
		if (rc == AX_ENOMEM)
			return AX_EXIT_STORAGE;
		if (rc) {
			fprintf(stderr, "axbench: report: %s: %s\n",
				src[i].path, ax_db_errmsg(src[i].db));
			return ax_interrupted ? AX_EXIT_INTERRUPTED
					      : AX_EXIT_STORAGE;
		}
	}
	return 0;
}

/* Every source's runs and sessions on the selected devices into the
 * report's lists (the rows stay the sources'), each with its database
 * where there are several. */
static int list_rows(const struct ax_report_sel *a,
		     struct ax_report_source *src, int n,
		     struct ax_report_rows *rows)
{
	size_t nr = 0, ns = 0;
	for (int i = 0; i < n; i++) {
		nr += src[i].runs.n;
		ns += src[i].sessions.n;
	}
	rows->runs.v = calloc(nr + 1, sizeof(*rows->runs.v));
	rows->sessions.v = calloc(ns + 1, sizeof(*rows->sessions.v));
	if (!rows->runs.v || !rows->sessions.v)
		return AX_ENOMEM;
	for (int i = 0; i < n; i++) {
		const char *path = n > 1 ? src[i].path : NULL;
		for (size_t k = 0; k < src[i].runs.n; k++) {
			struct ax_db_run_row *r = src[i].runs.v[k];
			if (!dev_kept(a, &r->device))
				continue;
			r->source = path;
			rows->runs.v[rows->runs.n++] = r;
		}
		for (size_t k = 0; k < src[i].sessions.n; k++) {
			struct ax_db_session_row *s = src[i].sessions.v[k];
			if (!dev_kept(a, &s->device))
				continue;
			s->source = path;
			rows->sessions.v[rows->sessions.n++] = s;
		}
	}
	return 0;
}

/* Results, runs and sessions of the selection in every database, into
 * d: each database's in turn, the first (--db) first, the results
 * streamed into keep. */
int ax_report_query(const struct ax_app *app, const struct ax_report_sel *a,
		    struct ax_report_source *src, int n,
		    struct ax_html_collect *keep, struct ax_report_rows *rows,
		    struct ax_html_data *d)
{
	bool matched[AX_REPORT_MAX_SEL] = {0};
	int rc = resolve_runs(app, a, src, n);
	for (int i = 0; i < n && !rc; i++) {
		struct reading g = {.a = a,
				    .keep = keep,
				    .path = src[i].path,
				    .source = i,
				    .n_sources = n,
				    .matched = matched};
		rc = read_source(a, &src[i], &g);
	}
	/* The sampled runs are picked from the selected ones. */
	if (rc || (rc = check_since(app, a, src, n)) ||
	    (rc = check_devices(app, a, src, n, matched)) ||
	    (rc = resolve_sampled(app, a, src, n)))
		return rc;
	d->all_kinds = a->n_runs > 0;
	ax_html_collect_finish(keep);
	d->results = &keep->results;
	d->history = keep;
	d->n_sources = n;
	for (size_t i = 0; i < keep->results.n; i++)
		ax_app_fill_row_bytes(keep->results.v[i]);
	if ((rc = attach_telemetry(app, src, n, &keep->results, rows)) ||
	    (rc = read_sampled(a, src, n, rows)))
		return rc;
	d->telemetry = rows->telemetry;
	d->sampled = &rows->sampled;
	if (list_rows(a, src, n, rows))
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "report: out of memory");
	d->runs = &rows->runs;
	d->sessions = &rows->sessions;
	return 0;
}

/* What the report is made of, once every source is open: the suite
 * document, the vendor peaks (*specs) and the selected results (the
 * specs path is static: d keeps pointing at it).  *kept says keep needs
 * its release. */
int ax_report_gather(struct ax_app *app, const struct ax_report_sel *a,
		     struct ax_report_source *src, int n,
		     struct ax_html_collect *keep, struct ax_report_rows *rows,
		     struct ax_html_data *d, bool *kept,
		     struct ax_specs **specs)
{
	static char specs_path[PATH_MAX];
	*kept = ax_html_collect_init(keep, a->label_by, a->include_tune) == 0;
	if (!*kept)
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "report: out of memory");
	d->suites = ax_app_suites();
	snprintf(specs_path, sizeof(specs_path), "%s/specs.yaml",
		 ax_app_config_dir());
	/* The report says itself that no file was read. */
	int rc = ax_app_load_specs(app, "report", false, specs);
	d->specs = *specs;
	d->specs_path = specs_path;
	return rc ? rc : ax_report_query(app, a, src, n, keep, rows, d);
}

void ax_report_release(struct ax_html_collect *keep,
		       struct ax_report_rows *rows,
		       struct ax_report_source *src, int n)
{
	if (keep)
		ax_html_collect_release(keep);
	for (size_t i = 0; i < rows->n_telemetry; i++)
		ax_db_series_row_free(rows->telemetry[i].series);
	free(rows->telemetry);
	free(rows->runs.v);
	free(rows->sessions.v);
	ax_db_results_free(&rows->sampled);
	memset(rows, 0, sizeof(*rows));
	for (int i = 0; i < n; i++) {
		ax_db_runs_free(&src[i].runs);
		ax_db_sessions_free(&src[i].sessions);
		ax_db_close(src[i].db);
	}
}
