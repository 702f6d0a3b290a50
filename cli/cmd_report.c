/* cli/cmd_report.c - `axbench report`: one self-contained HTML file of the
 * selected runs, devices and tuning sessions of one or more databases
 * (reports/html.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include "cli/cli.h"
#include "cli/suite_doc.h"

#include "core/db.h"
#include "core/error.h"
#include "core/outfile.h"
#include "reports/html.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
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
};

#define MAX_SEL 64
/* Databases one report reads: each is open at once, read-only. */
#define MAX_DB 16

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
	json_t *results, *runs, *sessions;
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
	if (ax_cli_parse_id(sel, &id) &&
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
static int parse_since(const struct ax_cli *cli, const char *text, char *out,
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
		return ax_cli_error(cli, AX_EXIT_USAGE,
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
 * typo, the wrong machine's database), not an empty report. */
static int check_devices(const struct ax_cli *cli, const struct report_args *a,
			 const struct source *src, int n)
{
	for (int k = 0; k < a->n_devs; k++) {
		bool found = false;
		for (int i = 0; i < n && !found; i++)
			found = any_matches(src[i].results, a->devs[k]) ||
				any_matches(src[i].runs, a->devs[k]) ||
				any_matches(src[i].sessions, a->devs[k]);
		if (!found)
			return ax_cli_error(
			    cli, AX_EXIT_USAGE,
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
static int check_since(const struct ax_cli *cli, const struct report_args *a,
		       const struct source *src, int n)
{
	if (!a->since)
		return 0;
	for (int i = 0; i < n; i++)
		if (json_array_size(src[i].runs) ||
		    json_array_size(src[i].sessions))
			return 0;
	return ax_cli_error(cli, AX_EXIT_USAGE,
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
static int resolve_runs(const struct ax_cli *cli, const struct report_args *a,
			struct source *src, int n)
{
	if (!a->n_runs)
		return 0;
	if (n == 1) {
		for (int i = 0; i < a->n_runs; i++) {
			int rc = ax_cli_resolve_run(cli, src[0].db, "report",
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
		if (!last && !ax_cli_parse_id(sel, &id))
			/* Malformed: the one message every command gives. */
			return ax_cli_resolve_run(cli, src[0].db, "report", sel,
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
			return ax_cli_error(cli, AX_EXIT_USAGE,
					    "report: no run %s in any of the "
					    "%d databases; `axbench --db FILE "
					    "results` lists a database's runs",
					    sel, n);
	}
	for (int i = 0; i < n; i++)
		if (src[i].n_ids == 0)
			return ax_cli_error(
			    cli, AX_EXIT_USAGE,
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

/*
 * Attach each sustained result's telemetry series as its "telemetry"
 * member, for the report to draw: the writer never reads the database.
 * The newest AX_HTML_TELEMETRY_MAX only, each thinned to
 * AX_HTML_TELEMETRY_POINTS readings, so that a day of readings neither
 * fills memory with JSON nor makes a report no browser opens.
 */
static int attach_telemetry(const struct ax_cli *cli, struct ax_db *db,
			    json_t *results)
{
	int attached = 0;
	for (size_t i = json_array_size(results);
	     i-- > 0 && attached < AX_HTML_TELEMETRY_MAX;) {
		json_t *r = json_array_get(results, i), *series;
		if (!sustained_with_series(r))
			continue;
		if (ax_cli_interrupted)
			return AX_EXIT_INTERRUPTED;
		int rc = ax_db_result_series(
		    db, json_integer_value(json_object_get(r, "id")), &series);
		if (rc == AX_ENOTFOUND)
			continue;
		if (rc) {
			fprintf(stderr, "axbench: report: %s\n",
				ax_db_errmsg(db));
			return ax_cli_interrupted ? AX_EXIT_INTERRUPTED
						  : AX_EXIT_STORAGE;
		}
		rc = ax_html_telemetry_thin(series, AX_HTML_TELEMETRY_POINTS);
		if (rc)
			json_decref(series);
		else if (json_object_set_new(r, "telemetry", series))
			rc = AX_ENOMEM;
		if (rc)
			return ax_cli_error(cli, ax_cli_exit_code(rc),
					    "report: out of memory reading "
					    "telemetry");
		attached++;
	}
	return 0;
}

/* A database named on the command line, opened read-only: --db (or
 * AXBENCH_DB) as every reader opens it, another as compare opens its
 * FILE specs. */
static int open_source(const struct ax_cli *cli, struct source *s)
{
	char err[1024];
	if (s->path == cli->db_path)
		return ax_cli_open_db(cli, true, &s->db);
	int rc = ax_db_open(s->path, AX_DB_READONLY, &s->db, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "axbench: report: %s\n", err);
		/* An empty file names no database (2), as in
		 * ax_cli_open_db; an unreadable one is storage (5). */
		return rc == AX_ENOTFOUND || rc == AX_EINVAL ? AX_EXIT_USAGE
							     : AX_EXIT_STORAGE;
	}
	if (ax_db_note(s->db) && cli->verbosity >= 0)
		fprintf(stderr, "axbench: note: %s\n", ax_db_note(s->db));
	return 0;
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

static int read_source(const struct report_args *a, struct source *s)
{
	struct ax_db_filter f = {.run_ids = s->ids,
				 .n_run_ids = s->n_ids,
				 .since = a->since,
				 .with_samples = true,
				 .stop = &ax_cli_interrupted};
	struct ax_db_filter sf = {.since = a->since,
				  .stop = &ax_cli_interrupted};
	if (ax_db_results(s->db, &f, &s->results) ||
	    ax_db_runs(s->db, &f, &s->runs) ||
	    ax_db_sessions(s->db, &sf, &s->sessions)) {
		fprintf(stderr, "axbench: report: %s: %s\n", s->path,
			ax_db_errmsg(s->db));
		return ax_cli_interrupted ? AX_EXIT_INTERRUPTED
					  : AX_EXIT_STORAGE;
	}
	return 0;
}

/* Results, runs and sessions of the selection in every database, into
 * d: each database's in turn, the first (--db) first. */
static int query(const struct ax_cli *cli, const struct report_args *a,
		 struct source *src, int n, struct ax_html_data *d)
{
	int rc = resolve_runs(cli, a, src, n);
	for (int i = 0; i < n && !rc; i++)
		rc = read_source(a, &src[i]);
	if (rc || (rc = check_since(cli, a, src, n)) ||
	    (rc = check_devices(cli, a, src, n)))
		return rc;
	d->results = json_array();
	d->runs = json_array();
	d->sessions = json_array();
	d->n_sources = n;
	for (int i = 0; i < n; i++) {
		struct source *s = &src[i];
		filter_devices(s->results, a);
		filter_devices(s->runs, a);
		filter_devices(s->sessions, a);
		ax_cli_fill_bytes(s->results);
		if ((rc = attach_telemetry(cli, s->db, s->results)))
			return rc;
		if (n > 1) {
			tag_source(s->results, s->path);
			tag_source(s->runs, s->path);
			tag_source(s->sessions, s->path);
		}
		if (json_array_extend(d->results, s->results) ||
		    json_array_extend(d->runs, s->runs) ||
		    json_array_extend(d->sessions, s->sessions))
			return ax_cli_error(cli, AX_EXIT_STORAGE,
					    "report: out of memory");
	}
	return 0;
}

/* Write through a temporary file beside the target (core/outfile.h), so
 * a failed or interrupted report never leaves half a file where the last
 * good one was, and never writes through a planted link. */
static int write_report(const struct ax_cli *cli, const char *out,
			const struct ax_html_data *d)
{
	char err[512];
	struct ax_outfile o;
	if (ax_outfile_open(&o, out, err, sizeof(err)))
		return ax_cli_error(cli, AX_EXIT_STORAGE, "report: %s", err);
	int rc = ax_html_report_write(o.f, d, err, sizeof(err));
	if (ax_cli_interrupted) {
		ax_outfile_abort(&o);
		return ax_cli_error(cli, AX_EXIT_INTERRUPTED,
				    "report: interrupted; %s left as it was",
				    out);
	}
	/* A write error (sticky on the stream) is reported by commit with
	 * its errno; anything else is said here. */
	if (rc && !ferror(o.f)) {
		ax_outfile_abort(&o);
		return ax_cli_error(cli, ax_cli_exit_code(rc),
				    "report: writing %s failed: %s", out, err);
	}
	if (ax_outfile_commit(&o, err, sizeof(err)))
		return ax_cli_error(cli, AX_EXIT_STORAGE, "report: %s", err);
	return 0;
}

/* Add the comma-separated items of list to sel[] (at most MAX_SEL in
 * all); the pieces are kept in a->owned.  An empty item is refused: a
 * stray comma must not widen or narrow a selection unseen. */
static int add_list(const struct ax_cli *cli, struct report_args *a,
		    const char *opt, const char *list, const char **sel, int *n)
{
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		if (len == 0)
			return ax_cli_error(cli, AX_EXIT_USAGE,
					    "report: %s '%s' has an empty "
					    "item; give a comma-separated "
					    "list like 3,5",
					    opt, list);
		if (*n == MAX_SEL)
			return ax_cli_error(cli, AX_EXIT_USAGE,
					    "report: at most %d %s items; "
					    "select fewer (or none, for all)",
					    MAX_SEL, opt);
		json_t *item = json_stringn(p, len);
		if (!item || json_array_append_new(a->owned, item))
			return ax_cli_error(cli, AX_EXIT_STORAGE,
					    "report: out of memory");
		sel[(*n)++] = json_string_value(item);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int add_db(const struct ax_cli *cli, struct report_args *a,
		  const char *path)
{
	if (a->n_dbs == MAX_DB)
		return ax_cli_error(cli, AX_EXIT_USAGE,
				    "report: at most %d databases in one "
				    "report; name fewer",
				    MAX_DB);
	a->dbs[a->n_dbs++] = path;
	return 0;
}

/* The databases: positional FILEs (after --db when --db or AXBENCH_DB
 * named one), else --db (or its default); then every --db-extra.  A
 * file named twice would show every system twice: refused. */
static int databases(const struct ax_cli *cli, struct report_args *a,
		     char **pos, int n_pos, const char **extra, int n_extra)
{
	int rc = 0;
	if (n_pos == 0 || cli->db_chosen)
		rc = add_db(cli, a, cli->db_path);
	for (int i = 0; i < n_pos && !rc; i++)
		rc = add_db(cli, a, pos[i]);
	for (int i = 0; i < n_extra && !rc; i++)
		rc = add_db(cli, a, extra[i]);
	for (int i = 0; i < a->n_dbs && !rc; i++)
		for (int j = 0; j < i && !rc; j++) {
			char x[PATH_MAX], y[PATH_MAX];
			bool same = strcmp(a->dbs[i], a->dbs[j]) == 0 ||
				    (realpath(a->dbs[i], x) &&
				     realpath(a->dbs[j], y) && !strcmp(x, y));
			if (same)
				rc = ax_cli_error(cli, AX_EXIT_USAGE,
						  "report: database %s is "
						  "named twice; name each "
						  "database once",
						  a->dbs[i]);
		}
	return rc;
}

static int parse(struct ax_cli *cli, int argc, char **argv,
		 struct report_args *a)
{
	struct ax_cli_iter it;
	const char *extra[MAX_DB];
	int opt, n_extra = 0, rc = 0;
	ax_cli_iter_init(&it, cli, &ax_cmd_report, argc, argv);
	while (rc == 0 && (opt = ax_cli_next(&it)) > 0) {
		/* Dropping a selector past the table would widen the report
		 * silently; refuse it instead. */
		if ((opt == OPT_RUN && a->n_runs == MAX_SEL) ||
		    (opt == OPT_DEVICE && a->n_devs == MAX_SEL) ||
		    (opt == OPT_DB_EXTRA && n_extra == MAX_DB)) {
			ax_cli_iter_release(&it);
			return ax_cli_error(
			    cli, AX_EXIT_USAGE,
			    "report: at most %d %s options; "
			    "select fewer (or none, for all)",
			    opt == OPT_DB_EXTRA ? MAX_DB : MAX_SEL, it.optname);
		}
		if (opt == OPT_RUN)
			a->runs[a->n_runs++] = it.optarg;
		else if (opt == OPT_RUNS)
			rc = add_list(cli, a, "--runs", it.optarg, a->runs,
				      &a->n_runs);
		else if (opt == OPT_DEVICE)
			a->devs[a->n_devs++] = it.optarg;
		else if (opt == OPT_DEVICES)
			rc = add_list(cli, a, "--devices", it.optarg, a->devs,
				      &a->n_devs);
		else if (opt == OPT_SINCE)
			a->since = it.optarg;
		else if (opt == OPT_OUTPUT)
			a->out = it.optarg;
		else if (opt == OPT_TITLE)
			a->title = it.optarg;
		else if (opt == OPT_REFERENCE)
			a->reference = it.optarg;
		else if (opt == OPT_INCLUDE_TUNE)
			a->include_tune = true;
		else if (opt == OPT_DB_EXTRA)
			extra[n_extra++] = it.optarg;
		else if (opt == OPT_LABEL_BY)
			for (int k = 0; ax_html_label_by_names()[k]; k++)
				if (!strcmp(it.optarg,
					    ax_html_label_by_names()[k]))
					a->label_by = (enum ax_html_label_by)k;
	}
	if (rc) {
		ax_cli_iter_release(&it);
		return rc;
	}
	int end = ax_cli_parse_end(&it, opt, 0, -1);
	if (end == AX_CLI_CONTINUE)
		rc = databases(cli, a, it.positional, it.n_positional, extra,
			       n_extra);
	ax_cli_iter_release(&it);
	if (end != AX_CLI_CONTINUE)
		return end == AX_EXIT_OK ? -2 : end;
	if (rc)
		return rc;
	/* The global --device (before the command name) selects as well. */
	if (cli->device_sel && strcmp(cli->device_sel, "all") &&
	    a->n_devs < MAX_SEL)
		a->devs[a->n_devs++] = cli->device_sel;
	if (a->since) {
		rc = parse_since(cli, a->since, a->since_buf,
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

static int report_main(struct ax_cli *cli, int argc, char **argv)
{
	struct report_args a = {.out = "axbench-report.html",
				.owned = json_array()};
	struct ax_html_data d = {0};
	struct source src[MAX_DB];
	char sel[2048], err[1024];
	int n = 0;
	memset(src, 0, sizeof(src));
	int rc = a.owned ? parse(cli, argc, argv, &a) : AX_EXIT_STORAGE;
	for (; rc == 0 && n < a.n_dbs; n++) {
		src[n].path = a.dbs[n];
		rc = open_source(cli, &src[n]);
	}
	json_t *suites = rc ? NULL : ax_cli_suite_doc();
	d.suites = suites;
	if (rc == 0)
		rc = query(cli, &a, src, n, &d);
	describe(&a, sel, sizeof(sel));
	d.selection = sel;
	d.title = a.title;
	d.stop = &ax_cli_interrupted;
	d.label_by = a.label_by;
	d.reference = a.reference;
	d.include_tune = a.include_tune;
	/* A --reference that names no system is found before the output
	 * file is touched. */
	if (rc == 0 && ax_html_report_check(&d, err, sizeof(err)))
		rc = ax_cli_error(cli, AX_EXIT_USAGE, "%s", err);
	if (rc == 0)
		rc = write_report(cli, a.out, &d);
	if (rc == 0 && cli->verbosity >= 0 && strcmp(a.out, "-"))
		fprintf(stderr,
			"axbench: report of %zu results written to "
			"%s\n",
			json_array_size(d.results), a.out);
	json_decref(d.results);
	json_decref(d.runs);
	json_decref(d.sessions);
	json_decref(suites);
	for (int i = 0; i < n; i++) {
		json_decref(src[i].results);
		json_decref(src[i].runs);
		json_decref(src[i].sessions);
		ax_db_close(src[i].db);
	}
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
	     "[--reference SEL] [--include-tune] [-o FILE]",
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
	       "best point); history with regressions marked; and results "
	       "that failed, were\n"
	       "noisy or throttled. Several databases (positional DB files "
	       "or --db-extra,\n"
	       "all opened read-only) make one report: two machines side by "
	       "side.",
    .examples = {"axbench report                           # every run, "
		 "axbench-report.html",
		 "axbench report --run last -o last.html --title \"nightly\"",
		 "axbench report a100.db mi250.db -o gpus.html   # two "
		 "machines",
		 "axbench report --runs 3,5 --label-by run --reference 2   "
		 "# run 3 against run 5"},
    .opts = report_opts,
    .choices = report_choices,
    .fn = report_main,
};
