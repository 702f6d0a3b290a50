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

static bool sel_matches(const char *sel, const json_t *dev)
{
	static const char *const exact[] = {"fingerprint", "pci_bus_id",
					    "device_uuid"};
	for (int i = 0; i < 3; i++) {
		const char *v =
		    json_string_value(json_object_get(dev, exact[i]));
		if (v && strcmp(v, sel) == 0)
			return true;
	}
	int64_t id;
	if (ax_app_parse_id(sel, &id) &&
	    json_integer_value(json_object_get(dev, "id")) == id)
		return true;
	const char *name = json_string_value(json_object_get(dev, "name"));
	return name && *sel && strcasestr(name, sel);
}

/* Keep only the elements whose "device" matches one of the selectors. */
static void filter_devices(json_t *arr, const struct ax_report_sel *a)
{
	if (!a->n_devs || !arr)
		return;
	for (size_t i = json_array_size(arr); i-- > 0;) {
		const json_t *dev =
		    json_object_get(json_array_get(arr, i), "device");
		bool keep = false;
		for (int k = 0; k < a->n_devs && !keep; k++)
			keep = sel_matches(a->devs[k], dev);
		if (!keep)
			json_array_remove(arr, i);
	}
}

/* Is any element of arr on a device matching sel? */
static bool any_matches(const json_t *arr, const char *sel)
{
	size_t i;
	const json_t *o;
	json_array_foreach(arr, i, o)
	{
		if (sel_matches(sel, json_object_get(o, "device")))
			return true;
	}
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
			found = any_matches(src[i].runs, a->devs[k]) ||
				any_matches(src[i].sessions, a->devs[k]);
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
		if (json_array_size(src[i].runs) ||
		    json_array_size(src[i].sessions))
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
 * newest of each, an id selects that run wherever it exists; an id no
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
		int found = 0;
		bool last = strcmp(sel, "last") == 0;
		if (!last && !ax_app_parse_id(sel, &id))
			/* Malformed: the one message every command gives. */
			return ax_app_resolve_run(app, src[0].db, "report", sel,
						  &id);
		for (int i = 0; i < n; i++) {
			int rc = last ? ax_db_last_run(src[i].db, &id)
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
static bool sustained_with_series(const json_t *r)
{
	return json_is_true(
		   json_object_get(json_object_get(r, "extra"), "sustained")) &&
	       json_is_number(
		   json_object_get(json_object_get(r, "power"), "series_id"));
}

/* The database a result came from: its "source" tag names it when the
 * report reads several. */
static struct ax_db *db_of(const json_t *r, const struct ax_report_source *src, int n)
{
	const char *path = json_string_value(json_object_get(r, "source"));
	for (int i = 0; path && i < n; i++)
		if (!strcmp(path, src[i].path))
			return src[i].db;
	return src[0].db;
}

/*
 * Attach each sustained result's telemetry series as its "telemetry"
 * member, for the report to draw: the writer never reads the database.
 * The newest AX_HTML_TELEMETRY_MAX only, each thinned to
 * AX_HTML_TELEMETRY_POINTS readings, so that a day of readings neither
 * fills memory with JSON nor makes a report no browser opens.
 */
static int attach_telemetry(const struct ax_app *app, const struct ax_report_source *src,
			    int n, json_t *results)
{
	int attached = 0;
	for (size_t i = json_array_size(results);
	     i-- > 0 && attached < AX_HTML_TELEMETRY_MAX;) {
		json_t *r = json_array_get(results, i), *series;
		if (!sustained_with_series(r))
			continue;
		if (ax_interrupted)
			return AX_EXIT_INTERRUPTED;
		struct ax_db *db = db_of(r, src, n);
		int rc = ax_db_result_series(
		    db, json_integer_value(json_object_get(r, "id")), &series);
		if (rc == AX_ENOTFOUND)
			continue;
		if (rc) {
			fprintf(stderr, "axbench: report: %s\n",
				ax_db_errmsg(db));
			return ax_interrupted ? AX_EXIT_INTERRUPTED
					      : AX_EXIT_STORAGE;
		}
		rc = ax_html_telemetry_thin(series, AX_HTML_TELEMETRY_POINTS);
		if (rc)
			json_decref(series);
		else if (json_object_set_new(r, "telemetry", series))
			rc = AX_ENOMEM;
		if (rc)
			return ax_app_error(app, ax_app_exit_code(rc),
					    "report: out of memory reading "
					    "telemetry");
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

/* Mark every element with the database it came from: run and session
 * ids repeat across databases, and the report names runs by both. */
static void tag_source(json_t *arr, const char *path)
{
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o)
	    json_object_set_new(o, "source", json_string(path));
}

/* What the stream of one database's results goes through. */
struct reading {
	const struct ax_report_sel *a;
	struct ax_html_collect *keep;
	const char *path; /* tagged on each result when n_sources > 1 */
	int source, n_sources;
	bool *matched; /* per --device selector: a result matched it */
};

/* A result is kept when its device matches a --device selector (when
 * there are any); the collection keeps what the report shows of it. */
static int read_one(void *ctx, json_t *r)
{
	struct reading *g = ctx;
	const json_t *dev = json_object_get(r, "device");
	bool keep = g->a->n_devs == 0;
	for (int k = 0; k < g->a->n_devs; k++)
		if (sel_matches(g->a->devs[k], dev))
			keep = g->matched[k] = true;
	if (!keep)
		return 0;
	if (g->n_sources > 1 &&
	    json_object_set_new(r, "source", json_string(g->path)))
		return AX_ENOMEM;
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
	int rc = ax_db_runs(s->db, &f, &s->runs);
	if (!rc)
		rc = ax_db_sessions(s->db, &sf, &s->sessions);
	if (!rc)
		rc = ax_db_results_each(s->db, &f, read_one, g);
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

/* The runs of --samples-for in each database: ids and last as --run
 * gives them (an id a database lacks is left out there), baseline:NAME
 * the runs of that baseline wherever one has it; none for none.  A name
 * no database has is an error, as a typo would silently draw nothing. */
static int resolve_sampled(const struct ax_app *app,
			   const struct ax_report_sel *a, struct ax_report_source *src,
			   int n)
{
	for (int k = 0; k < a->n_sampled; k++) {
		const char *sel = a->sampled[k];
		int found = 0;
		if (!strcmp(sel, "none"))
			continue;
		for (int i = 0; i < n; i++) {
			int64_t *ids = NULL, one = 0;
			int m = 0, rc;
			if (!strncmp(sel, "baseline:", 9)) {
				rc = ax_db_baseline_runs(src[i].db, sel + 9,
							 &ids, &m);
			} else if (!strcmp(sel, "last")) {
				rc = ax_db_last_run(src[i].db, &one);
				m = 1;
			} else if (ax_app_parse_id(sel, &one)) {
				rc = ax_db_run_exists(src[i].db, one);
				m = 1;
			} else {
				return ax_app_error(
				    app, AX_EXIT_USAGE,
				    "report: --samples-for item '%s' is not a "
				    "run; give run ids, last, baseline:NAME "
				    "or none, like --samples-for "
				    "last,baseline:main",
				    sel);
			}
			if (rc == AX_ENOTFOUND)
				continue;
			if (rc) {
				fprintf(stderr, "axbench: report: %s\n",
					ax_db_errmsg(src[i].db));
				return AX_EXIT_STORAGE;
			}
			for (int j = 0; j < m; j++) {
				if (src[i].n_sampled == AX_REPORT_MAX_SAMPLED) {
					free(ids);
					return ax_app_error(
					    app, AX_EXIT_USAGE,
					    "report: --samples-for names more "
					    "than %d runs in %s; raw samples "
					    "are for comparing a few runs, "
					    "name fewer",
					    AX_REPORT_MAX_SAMPLED, src[i].path);
				}
				src[i].sampled[src[i].n_sampled++] =
				    ids ? ids[j] : one;
			}
			free(ids);
			found++;
		}
		if (!found && !a->sampled_default)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "report: --samples-for %s: no such "
					    "run or baseline in %s%s; `axbench "
					    "runs` and `axbench baseline list` "
					    "list them",
					    sel, src[0].path,
					    n > 1 ? " or the other databases"
						  : "");
	}
	return 0;
}

/* The results, with their raw samples, of the --samples-for runs, on
 * the selected devices, into d->sampled. */
static int read_sampled(const struct ax_report_sel *a, struct ax_report_source *src, int n,
			struct ax_html_data *d)
{
	d->sampled = json_array();
	for (int i = 0; i < n && d->sampled; i++) {
		json_t *rs;
		struct ax_db_filter f = {.run_ids = src[i].sampled,
					 .n_run_ids = src[i].n_sampled,
					 .with_samples = true,
					 .stop = &ax_interrupted};
		if (!src[i].n_sampled)
			continue;
		if (ax_db_results(src[i].db, &f, &rs)) {
			fprintf(stderr, "axbench: report: %s: %s\n",
				src[i].path, ax_db_errmsg(src[i].db));
			return ax_interrupted ? AX_EXIT_INTERRUPTED
					      : AX_EXIT_STORAGE;
		}
		filter_devices(rs, a);
		if (n > 1)
			tag_source(rs, src[i].path);
		ax_app_fill_bytes(rs);
		json_array_extend(d->sampled, rs);
		json_decref(rs);
	}
	return d->sampled ? 0 : AX_EXIT_STORAGE;
}

/* Results, runs and sessions of the selection in every database, into
 * d: each database's in turn, the first (--db) first, the results
 * streamed into keep. */
int ax_report_query(const struct ax_app *app, const struct ax_report_sel *a,
		 struct ax_report_source *src, int n, struct ax_html_collect *keep,
		 struct ax_html_data *d)
{
	bool matched[AX_REPORT_MAX_SEL] = {0};
	int rc = resolve_runs(app, a, src, n);
	if (!rc)
		rc = resolve_sampled(app, a, src, n);
	for (int i = 0; i < n && !rc; i++) {
		struct reading g = {.a = a,
				    .keep = keep,
				    .path = src[i].path,
				    .source = i,
				    .n_sources = n,
				    .matched = matched};
		rc = read_source(a, &src[i], &g);
	}
	if (rc || (rc = check_since(app, a, src, n)) ||
	    (rc = check_devices(app, a, src, n, matched)))
		return rc;
	ax_html_collect_finish(keep);
	d->results = keep->results;
	d->history = keep;
	d->runs = json_array();
	d->sessions = json_array();
	d->n_sources = n;
	ax_app_fill_bytes(d->results);
	if ((rc = attach_telemetry(app, src, n, d->results)) ||
	    (rc = read_sampled(a, src, n, d)))
		return rc;
	for (int i = 0; i < n; i++) {
		struct ax_report_source *s = &src[i];
		filter_devices(s->runs, a);
		filter_devices(s->sessions, a);
		if (n > 1) {
			tag_source(s->runs, s->path);
			tag_source(s->sessions, s->path);
		}
		if (json_array_extend(d->runs, s->runs) ||
		    json_array_extend(d->sessions, s->sessions))
			return ax_app_error(app, AX_EXIT_STORAGE,
					    "report: out of memory");
	}
	return 0;
}


/* What the report is made of, once every source is open: the suite
 * document (*suites), the vendor peaks (*specs) and the selected results
 * (the specs path is static: d keeps pointing at it).  *kept says keep
 * needs its release. */
int ax_report_gather(struct ax_app *app, const struct ax_report_sel *a, struct ax_report_source *src,
		  int n, struct ax_html_collect *keep, struct ax_html_data *d,
		  bool *kept, json_t **suites, struct ax_specs **specs)
{
	static char specs_path[PATH_MAX];
	*kept = ax_html_collect_init(keep, a->label_by, a->include_tune) == 0;
	if (!*kept)
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "report: out of memory");
	d->suites = *suites = ax_app_suite_doc();
	snprintf(specs_path, sizeof(specs_path), "%s/specs.yaml",
		 ax_app_config_dir());
	/* The report says itself that no file was read. */
	int rc = ax_app_load_specs(app, "report", false, specs);
	d->specs = *specs;
	d->specs_path = specs_path;
	return rc ? rc : ax_report_query(app, a, src, n, keep, d);
}

void ax_report_release(struct ax_html_data *d, struct ax_html_collect *keep,
			struct ax_report_source *src, int n)
{
	json_decref(d->runs);
	json_decref(d->sessions);
	json_decref(d->sampled);
	if (keep)
		ax_html_collect_release(keep);
	for (int i = 0; i < n; i++) {
		json_decref(src[i].runs);
		json_decref(src[i].sessions);
		ax_db_close(src[i].db);
	}
}
