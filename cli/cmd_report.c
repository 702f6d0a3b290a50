/* cli/cmd_report.c - `axbench report`: one self-contained HTML file of the
 * selected runs, devices and tuning sessions of one or more databases
 * (reports/html.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include "app/suite_doc.h"
#include "cli/cli.h"
#include "core/interrupt.h"

#include "core/db.h"
#include "core/error.h"
#include "core/outfile.h"
#include "core/params.h"
#include "core/specs.h"
#include "reports/html.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
	OPT_RUN = 1,
	OPT_RUNS,
	OPT_DEVICE,
	OPT_DEVICES,
	OPT_SINCE,
	OPT_OUTPUT,
	OPT_TITLE,
	OPT_LABEL_BY,
	OPT_REFERENCE,
	OPT_INCLUDE_TUNE,
	OPT_DB_EXTRA,
	OPT_SAMPLES_FOR,
	OPT_MAX_SIZE,
};

#define MAX_SEL 64
/* Databases one report reads: each is open at once, read-only. */
#define MAX_DB 16
/* Runs whose raw samples one report draws: a comparison, not a history. */
#define MAX_SAMPLED 16
/* The report's default size budget: a page every browser opens at
 * once, with room for a year of nightly runs' history. */
#define DEFAULT_MAX_SIZE (8 << 20)

static const struct ax_cli_opt report_opts[] = {
    {OPT_RUN, "run", 'r', "ID|last",
     "only this run (repeatable; default: every run); with several "
     "databases an id selects that run in each database holding it, and "
     "last the newest of each"},
    {OPT_RUNS, "runs", 0, "ID,...",
     "only these runs, a comma-separated --run list (3,5 or last; "
     "default: every run)"},
    {OPT_DEVICE, "device", 'd', "SEL",
     "only devices matching SEL: fingerprint, database id, PCI bus id, "
     "UUID or part of the name (repeatable; default: every device)"},
    {OPT_DEVICES, "devices", 0, "SEL,...",
     "only devices matching one of these, a comma-separated --device "
     "list (a name holding a comma needs --device; default: every "
     "device)"},
    {OPT_SINCE, "since", 0, "DATE",
     "only runs started at or after DATE, in UTC: YYYY-MM-DD or "
     "YYYY-MM-DDTHH:MM[:SS] (e.g. 2024-05-01; default: every run)"},
    {OPT_LABEL_BY, "label-by", 0, "WHAT",
     "what makes one system, that is one column and one colour: label is "
     "the run's label, else host and device; run, device or host (default "
     "label)"},
    {OPT_REFERENCE, "reference", 0, "SEL",
     "the system the others are compared with: its number in the systems "
     "table, its name or a unique part of its name, device, host or "
     "label (default: the first)"},
    {OPT_INCLUDE_TUNE, "include-tune", 0, NULL,
     "chart tuning sessions' trials with the other cases too (default: "
     "only in the Tuning section)"},
    {OPT_DB_EXTRA, "db-extra", 0, "FILE",
     "another database to report on beside --db, opened read-only "
     "(repeatable; positional FILEs do the same; default: none)"},
    {OPT_SAMPLES_FOR, "samples-for", 0, "RUN,...",
     "draw the raw samples of these runs only: ids, last (the newest run "
     "of each database), baseline:NAME (its runs) or none (default: "
     "last); every other run is drawn from its median and interval"},
    {OPT_MAX_SIZE, "max-size", 0, "BYTES",
     "refuse to write a report larger than this, with K/M/G suffixes "
     "(default 8M): narrow the selection or sample fewer runs instead"},
    {OPT_OUTPUT, "output", 'o', "FILE",
     "where to write (default axbench-report.html; '-' for stdout)"},
    {OPT_TITLE, "title", 0, "TEXT",
     "heading of the report (default \"axbench report\")"},
    {0},
};

extern const struct ax_cli_cmd ax_cmd_report;

struct report_args {
	const char *runs[MAX_SEL], *devs[MAX_SEL];
	int n_runs, n_devs;
	const char *dbs[MAX_DB];
	int n_dbs;
	const char *since, *out, *title, *reference;
	const char *sampled[MAX_SEL]; /* --samples-for items */
	int n_sampled;
	bool sampled_default; /* no --samples-for: last, where there is one */
	int64_t max_size;
	enum ax_html_label_by label_by;
	bool include_tune;
	char since_buf[32]; /* --since, canonical (parse_since) */
	json_t *owned;	    /* the pieces of --runs and --devices lists */
};

/* One database of the report and what it gave. */
struct source {
	const char *path;
	struct ax_db *db;
	int64_t ids[MAX_SEL]; /* the selected runs in it */
	int n_ids;
	int64_t sampled[MAX_SAMPLED]; /* runs whose samples are drawn */
	int n_sampled;
	json_t *runs, *sessions;
};

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
static void filter_devices(json_t *arr, const struct report_args *a)
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

/* Does text follow the template, where 'd' is a digit and every other
 * character stands for itself? */
static bool shaped(const char *text, const char *tmpl)
{
	for (; *tmpl; text++, tmpl++)
		if (*tmpl == 'd' ? !isdigit((unsigned char)*text)
				 : *text != *tmpl)
			return false;
	return *text == '\0';
}

/*
 * --since DATE as the canonical "YYYY-MM-DDTHH:MM:SS" that compares as
 * text against the stored UTC times ("2024-05-01T10:00:00.123Z").  A
 * typo must not silently select everything or nothing, so anything but
 * the accepted forms, or a day that does not exist, is refused.
 */
static int parse_since(const struct ax_app *app, const char *text, char *out,
		       size_t len)
{
	static const char *const forms[] = {
	    "dddd-dd-dd", "dddd-dd-ddTdd:dd", "dddd-dd-ddTdd:dd:dd",
	    "dddd-dd-dd dd:dd", "dddd-dd-dd dd:dd:dd"};
	char body[32];
	size_t n = strlen(text);
	/* Times are stored in UTC, so a trailing Z changes nothing. */
	if (n > 0 && n < sizeof(body) && text[n - 1] == 'Z')
		n--;
	bool ok = false;
	if (n < sizeof(body)) {
		memcpy(body, text, n);
		body[n] = '\0';
		for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++)
			ok = ok || shaped(body, forms[i]);
	}
	struct tm tm = {0};
	if (ok) {
		sscanf(body, "%d-%d-%d%*c%d:%d:%d", &tm.tm_year, &tm.tm_mon,
		       &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec);
		struct tm want = tm;
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		time_t t = timegm(&tm);
		/* timegm normalises 2024-02-30 to March: a changed field
		 * means the date does not exist. */
		ok = t != (time_t)-1 && tm.tm_year + 1900 == want.tm_year &&
		     tm.tm_mon + 1 == want.tm_mon &&
		     tm.tm_mday == want.tm_mday && tm.tm_hour == want.tm_hour &&
		     tm.tm_min == want.tm_min && tm.tm_sec == want.tm_sec;
	}
	if (!ok)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "report: --since '%s' is not a date: give "
				    "an ISO 8601 UTC date or time, "
				    "YYYY-MM-DD, YYYY-MM-DDTHH:MM or "
				    "YYYY-MM-DDTHH:MM:SS (optionally ending "
				    "in Z), like 2024-05-01",
				    text);
	strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
	return 0;
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
static int check_devices(const struct ax_app *app, const struct report_args *a,
			 const struct source *src, int n, const bool *matched)
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
static int check_since(const struct ax_app *app, const struct report_args *a,
		       const struct source *src, int n)
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
static int resolve_runs(const struct ax_app *app, const struct report_args *a,
			struct source *src, int n)
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
static struct ax_db *db_of(const json_t *r, const struct source *src, int n)
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
static int attach_telemetry(const struct ax_app *app, const struct source *src,
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
static int open_source(const struct ax_app *app, struct source *s)
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
	const struct report_args *a;
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
static int read_source(const struct report_args *a, struct source *s,
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
			   const struct report_args *a, struct source *src,
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
				if (src[i].n_sampled == MAX_SAMPLED) {
					free(ids);
					return ax_app_error(
					    app, AX_EXIT_USAGE,
					    "report: --samples-for names more "
					    "than %d runs in %s; raw samples "
					    "are for comparing a few runs, "
					    "name fewer",
					    MAX_SAMPLED, src[i].path);
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
static int read_sampled(const struct report_args *a, struct source *src, int n,
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
static int query(const struct ax_app *app, const struct report_args *a,
		 struct source *src, int n, struct ax_html_collect *keep,
		 struct ax_html_data *d)
{
	bool matched[MAX_SEL] = {0};
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
		struct source *s = &src[i];
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

/* A stream that passes writes on to f until budget bytes have gone
 * through, then drops them and remembers it: the report never grows past
 * its budget on disk.  The writes past it succeed (and are lost) rather
 * than fail: glibc's cookie streams do not survive a write function that
 * fails inside a large fputs (it crashed, writing 5 MB of embedded data
 * past an 8 MiB budget). */
struct budget {
	FILE *f;
	int64_t budget, written;
	bool over;
};

static ssize_t budget_write(void *cookie, const char *buf, size_t len)
{
	struct budget *b = cookie;
	if (b->over || b->written + (int64_t)len > b->budget) {
		b->over = true;
		return (ssize_t)len;
	}
	size_t put = fwrite(buf, 1, len, b->f);
	b->written += (int64_t)put;
	return put == len ? (ssize_t)len : -1;
}

/* "8 MiB", "512 KiB" or "900 B" into buf. */
static const char *size_text(int64_t n, char *buf, size_t len)
{
	if (n >= (1 << 20))
		snprintf(buf, len, "%.1f MiB", (double)n / (1 << 20));
	else if (n >= 1024)
		snprintf(buf, len, "%.0f KiB", (double)n / 1024);
	else
		snprintf(buf, len, "%lld B", (long long)n);
	return buf;
}

static int over_budget(const struct ax_app *app, const char *out,
		       int64_t budget)
{
	char b[32];
	return ax_app_error(app, AX_EXIT_USAGE,
			    "report: the report would be larger than its "
			    "budget of %s (--max-size), so %s was left as it "
			    "was; narrow the selection (--since, --runs, "
			    "--devices), draw fewer runs' samples "
			    "(--samples-for none), or raise --max-size",
			    size_text(budget, b, sizeof(b)), out);
}

/* Write through a temporary file beside the target (core/outfile.h), so
 * a failed or interrupted report never leaves half a file where the last
 * good one was, and never writes through a planted link.  The writer
 * goes through a budget stream, so a report over --max-size is refused
 * rather than left for a browser to choke on. */
static int write_report(const struct ax_app *app, const char *out,
			int64_t max_size, const struct ax_html_data *d,
			int64_t *size)
{
	char err[512];
	struct ax_outfile o;
	if (ax_outfile_open(&o, out, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "report: %s", err);
	struct budget b = {.f = o.f, .budget = max_size};
	cookie_io_functions_t io = {.write = budget_write};
	FILE *bf = fopencookie(&b, "w", io);
	int rc = bf ? ax_html_report_write(bf, d, err, sizeof(err)) : AX_ENOMEM;
	/* Flushing the last buffer may be what crosses the budget. */
	bool failed = bf && (fflush(bf) != 0 || ferror(bf));
	if (bf)
		fclose(bf);
	*size = b.written;
	if (ax_interrupted) {
		ax_outfile_abort(&o);
		return ax_app_error(app, AX_EXIT_INTERRUPTED,
				    "report: interrupted; %s left as it was",
				    out);
	}
	if (b.over) {
		ax_outfile_abort(&o);
		return over_budget(app, out, max_size);
	}
	/* A write error (sticky on the stream) is reported by commit with
	 * its errno; anything else is said here. */
	if ((rc || failed) && !ferror(o.f)) {
		ax_outfile_abort(&o);
		return ax_app_error(app, ax_app_exit_code(rc ? rc : AX_EIO),
				    "report: writing %s failed: %s", out,
				    rc ? err : "write error");
	}
	if (ax_outfile_commit(&o, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_STORAGE, "report: %s", err);
	return 0;
}

/* Add the comma-separated items of list to sel[] (at most MAX_SEL in
 * all); the pieces are kept in a->owned.  An empty item is refused: a
 * stray comma must not widen or narrow a selection unseen. */
static int add_list(const struct ax_app *app, struct report_args *a,
		    const char *opt, const char *list, const char **sel, int *n)
{
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		if (len == 0)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "report: %s '%s' has an empty "
					    "item; give a comma-separated "
					    "list like 3,5",
					    opt, list);
		if (*n == MAX_SEL)
			return ax_app_error(app, AX_EXIT_USAGE,
					    "report: at most %d %s items; "
					    "select fewer (or none, for all)",
					    MAX_SEL, opt);
		json_t *item = json_stringn(p, len);
		if (!item || json_array_append_new(a->owned, item))
			return ax_app_error(app, AX_EXIT_STORAGE,
					    "report: out of memory");
		sel[(*n)++] = json_string_value(item);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int add_db(const struct ax_app *app, struct report_args *a,
		  const char *path)
{
	if (a->n_dbs == MAX_DB)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "report: at most %d databases in one "
				    "report; name fewer",
				    MAX_DB);
	a->dbs[a->n_dbs++] = path;
	return 0;
}

/* The databases: positional FILEs (after --db when --db or AXBENCH_DB
 * named one), else --db (or its default); then every --db-extra.  A
 * file named twice would show every system twice: refused. */
static int databases(const struct ax_app *app, struct report_args *a,
		     char **pos, int n_pos, const char **extra, int n_extra)
{
	int rc = 0;
	if (n_pos == 0 || app->db_chosen)
		rc = add_db(app, a, app->db_path);
	for (int i = 0; i < n_pos && !rc; i++)
		rc = add_db(app, a, pos[i]);
	for (int i = 0; i < n_extra && !rc; i++)
		rc = add_db(app, a, extra[i]);
	for (int i = 0; i < a->n_dbs && !rc; i++)
		for (int j = 0; j < i && !rc; j++) {
			char x[PATH_MAX], y[PATH_MAX];
			bool same = strcmp(a->dbs[i], a->dbs[j]) == 0 ||
				    (realpath(a->dbs[i], x) &&
				     realpath(a->dbs[j], y) && !strcmp(x, y));
			if (same)
				rc = ax_app_error(app, AX_EXIT_USAGE,
						  "report: database %s is "
						  "named twice; name each "
						  "database once",
						  a->dbs[i]);
		}
	return rc;
}

static int parse_max_size(const struct ax_app *app, const char *text,
			  int64_t *out)
{
	static const struct ax_param_def def = {
	    .name = "--max-size",
	    .type = AX_PT_INT,
	    .min = 4 << 10,
	    .max = (int64_t)1 << 40,
	    .flags = AX_PARAM_BYTES,
	};
	char err[256];
	if (ax_param_parse(&def, text, out, err, sizeof(err)))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "report: %s; give a size like 5M or "
				    "512K",
				    err);
	return 0;
}

/* One option into a (a --db goes to extra); 0 or an exit code. */
static int take_option(struct ax_app *app, const struct ax_cli_iter *it,
		       int opt, struct report_args *a, const char **extra,
		       int *n_extra)
{
	/* Dropping a selector past the table would widen the report
	 * silently; refuse it instead. */
	if ((opt == OPT_RUN && a->n_runs == MAX_SEL) ||
	    (opt == OPT_DEVICE && a->n_devs == MAX_SEL) ||
	    (opt == OPT_DB_EXTRA && *n_extra == MAX_DB))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "report: at most %d %s options; "
				    "select fewer (or none, for all)",
				    opt == OPT_DB_EXTRA ? MAX_DB : MAX_SEL,
				    it->optname);
	if (opt == OPT_RUN)
		a->runs[a->n_runs++] = it->optarg;
	else if (opt == OPT_RUNS)
		return add_list(app, a, "--runs", it->optarg, a->runs,
				&a->n_runs);
	else if (opt == OPT_DEVICE)
		a->devs[a->n_devs++] = it->optarg;
	else if (opt == OPT_DEVICES)
		return add_list(app, a, "--devices", it->optarg, a->devs,
				&a->n_devs);
	else if (opt == OPT_SINCE)
		a->since = it->optarg;
	else if (opt == OPT_OUTPUT)
		a->out = it->optarg;
	else if (opt == OPT_TITLE)
		a->title = it->optarg;
	else if (opt == OPT_REFERENCE)
		a->reference = it->optarg;
	else if (opt == OPT_INCLUDE_TUNE)
		a->include_tune = true;
	else if (opt == OPT_SAMPLES_FOR)
		return add_list(app, a, "--samples-for", it->optarg, a->sampled,
				&a->n_sampled);
	else if (opt == OPT_MAX_SIZE)
		return parse_max_size(app, it->optarg, &a->max_size);
	else if (opt == OPT_DB_EXTRA)
		extra[(*n_extra)++] = it->optarg;
	else if (opt == OPT_LABEL_BY)
		for (int k = 0; ax_html_label_by_names()[k]; k++)
			if (!strcmp(it->optarg, ax_html_label_by_names()[k]))
				a->label_by = (enum ax_html_label_by)k;
	return 0;
}

static int parse(struct ax_app *app, int argc, char **argv,
		 struct report_args *a)
{
	struct ax_cli_iter it;
	const char *extra[MAX_DB];
	int opt, n_extra = 0, rc = 0;
	ax_cli_iter_init(&it, app, &ax_cmd_report, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(&it)) > 0)
		rc = take_option(app, &it, opt, a, extra, &n_extra);
	if (rc) {
		ax_cli_iter_release(&it);
		return rc;
	}
	int end = ax_cli_parse_end(&it, opt, 0, -1);
	if (end == AX_CLI_CONTINUE)
		rc = databases(app, a, it.positional, it.n_positional, extra,
			       n_extra);
	ax_cli_iter_release(&it);
	if (end != AX_CLI_CONTINUE)
		return end == AX_EXIT_OK ? -2 : end;
	if (rc)
		return rc;
	/* The global --device (before the command name) selects as well. */
	if (app->device_sel && strcmp(app->device_sel, "all") &&
	    a->n_devs < MAX_SEL)
		a->devs[a->n_devs++] = app->device_sel;
	if (a->since) {
		rc = parse_since(app, a->since, a->since_buf,
				 sizeof(a->since_buf));
		if (rc)
			return rc;
		a->since = a->since_buf;
	}
	return 0;
}

static void describe(const struct report_args *a, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", a->n_runs ? "runs" : "all runs");
	for (int i = 0; i < a->n_runs && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, " %s", a->runs[i]);
	for (int i = 0; i < a->n_devs && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%s",
			      i ? ", " : "; devices matching ", a->devs[i]);
	if (a->since && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; since %s", a->since);
	if ((size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; systems by %s",
			      ax_html_label_by_names()[a->label_by]);
	if (a->include_tune && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; tuning trials included");
}

/* The --samples-for runs in words: "run 7", "runs 3, 9 of a.db". */
static void describe_sampled(const struct source *src, int n, char *buf,
			     size_t len)
{
	int used = 0;
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < src[i].n_sampled && (size_t)used < len; k++)
			used += snprintf(buf + used, len - (size_t)used,
					 "%s%s %lld",
					 k	? ","
					 : used ? "; "
						: "",
					 k			? ""
					 : src[i].n_sampled > 1 ? "runs"
								: "run",
					 (long long)src[i].sampled[k]);
		if (n > 1 && src[i].n_sampled && (size_t)used < len)
			used += snprintf(buf + used, len - (size_t)used,
					 " of %s", src[i].path);
	}
}

/* What the report is made of, once every source is open: the suite
 * document (*suites), the vendor peaks (*specs) and the selected results
 * (the specs path is static: d keeps pointing at it).  *kept says keep
 * needs its release. */
static int gather(struct ax_app *app, struct report_args *a, struct source *src,
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
	return rc ? rc : query(app, a, src, n, keep, d);
}

static void release_all(struct ax_html_data *d, struct ax_html_collect *keep,
			struct source *src, int n)
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

static int report_main(struct ax_app *app, int argc, char **argv)
{
	struct report_args a = {.out = "axbench-report.html",
				.max_size = DEFAULT_MAX_SIZE,
				.owned = json_array()};
	struct ax_html_data d = {0};
	struct ax_html_collect keep;
	struct source src[MAX_DB];
	char sel[2048], sampled[1024], err[1024];
	int n = 0;
	int64_t size = 0;
	bool kept = false;
	json_t *suites = NULL;
	struct ax_specs *specs = NULL;
	memset(src, 0, sizeof(src));
	int rc = a.owned ? parse(app, argc, argv, &a) : AX_EXIT_STORAGE;
	/* Without --samples-for, the newest run of each database is the
	 * one a reader compares against the rest. */
	if (rc == 0 && a.n_sampled == 0) {
		a.sampled[a.n_sampled++] = "last";
		a.sampled_default = true;
	}
	for (; rc == 0 && n < a.n_dbs; n++) {
		src[n].path = a.dbs[n];
		rc = open_source(app, &src[n]);
	}
	if (rc == 0)
		rc = gather(app, &a, src, n, &keep, &d, &kept, &suites, &specs);
	describe(&a, sel, sizeof(sel));
	describe_sampled(src, n, sampled, sizeof(sampled));
	d.selection = sel;
	d.sampled_runs = sampled;
	d.title = a.title;
	d.stop = &ax_interrupted;
	d.label_by = a.label_by;
	d.reference = a.reference;
	d.include_tune = a.include_tune;
	/* A --reference that names no system is found before the output
	 * file is touched. */
	if (rc == 0 && ax_html_report_check(&d, err, sizeof(err)))
		rc = ax_app_error(app, AX_EXIT_USAGE, "%s", err);
	if (rc == 0)
		rc = write_report(app, a.out, a.max_size, &d, &size);
	if (rc == 0 && app->verbosity >= 0 && strcmp(a.out, "-")) {
		char b1[32], b2[32];
		fprintf(stderr,
			"axbench: report of %zu results in %zu runs written "
			"to %s: %s of its %s budget\n",
			keep.n_read, json_object_size(keep.runs), a.out,
			size_text(size, b1, sizeof(b1)),
			size_text(a.max_size, b2, sizeof(b2)));
	}
	release_all(&d, kept ? &keep : NULL, src, n);
	json_decref(suites);
	ax_specs_free(specs);
	json_decref(a.owned);
	return rc == -2 ? AX_EXIT_OK : rc;
}

static const struct ax_cli_choice report_choices[] = {
    {OPT_LABEL_BY, ax_html_label_by_names},
    {0},
};

const struct ax_cli_cmd ax_cmd_report = {
    .name = "report",
    .summary = "write a self-contained HTML report",
    .usage = "[DB...] [--db-extra DB ...] [--runs ID,...] "
	     "[--devices SEL,...] [--since DATE] [--label-by WHAT] "
	     "[--reference SEL] [--include-tune] [--samples-for RUN,...] "
	     "[--max-size BYTES] [-o FILE]",
    .details = "The report works from file:// with no network: inline "
	       "CSS, SVG charts, the\n"
	       "data embedded as JSON and a strict "
	       "Content-Security-Policy. It is built around\n"
	       "systems side by side: each system, by default a run label, "
	       "else host and\n"
	       "device, is one column of the systems table (device, driver, "
	       "host, profile,\n"
	       "commit, version, command line) and one colour in every "
	       "chart. An overview\n"
	       "comes first: each system's geometric mean ratio to the "
	       "reference over the\n"
	       "cases all systems share (above 1 is better, latency "
	       "included), and wins,\n"
	       "losses and ties (within 2 %) per suite. Then per case one "
	       "bar per system with\n"
	       "its median, 95 % interval and ratio; rooflines with "
	       "labelled ceilings;\n"
	       "efficiency (perf per watt, energy, throttling, the speed-up "
	       "over the host\n"
	       "CPU, sustained runs against time); curves; tuning sessions "
	       "(convergence, the\n"
	       "best point); history, a sparkline of every run's median per "
	       "case with\n"
	       "changes marked; the raw samples of the --samples-for runs; "
	       "and results that\n"
	       "failed, were noisy or throttled. The page keeps each "
	       "system's newest result\n"
	       "of each case and a few numbers per run, so it stays small "
	       "over years of runs,\n"
	       "and never passes --max-size. Several databases (positional "
	       "DB files or\n"
	       "--db-extra, all opened read-only) make one report: two "
	       "machines side by side.",
    .examples = {"axbench report                           # every run, "
		 "axbench-report.html",
		 "axbench report --samples-for last,baseline:main --max-size "
		 "4M",
		 "axbench report a100.db mi250.db -o gpus.html   # two "
		 "machines",
		 "axbench report --runs 3,5 --label-by run --reference 2   "
		 "# run 3 against run 5"},
    .opts = report_opts,
    .choices = report_choices,
    .fn = report_main,
};
