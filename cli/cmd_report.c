/* cli/cmd_report.c - `axbench report`: one self-contained HTML file of the
 * selected runs, devices and tuning sessions (reports/html.h). */
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
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { OPT_RUN = 1, OPT_DEVICE, OPT_SINCE, OPT_OUTPUT, OPT_TITLE };

#define MAX_SEL 64

static const struct ax_cli_opt report_opts[] = {
    {OPT_RUN, "run", 'r', "ID|last",
     "only this run (repeatable; default: every run)"},
    {OPT_DEVICE, "device", 'd', "SEL",
     "only devices matching SEL: fingerprint, database id, PCI bus id, "
     "UUID or part of the name (repeatable; default: every device)"},
    {OPT_SINCE, "since", 0, "DATE",
     "only runs started at or after DATE, in UTC: YYYY-MM-DD or "
     "YYYY-MM-DDTHH:MM[:SS] (e.g. 2024-05-01; default: every run)"},
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
	const char *since, *out, *title;
	char since_buf[32]; /* --since, canonical (parse_since) */
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
			 const struct ax_html_data *d)
{
	for (int k = 0; k < a->n_devs; k++)
		if (!any_matches(d->results, a->devs[k]) &&
		    !any_matches(d->runs, a->devs[k]) &&
		    !any_matches(d->sessions, a->devs[k]))
			return ax_cli_error(
			    cli, AX_EXIT_USAGE,
			    "report: --device '%s' matches no stored "
			    "device%s; give a name part, fingerprint, "
			    "database id, PCI bus id or UUID that `axbench "
			    "results --json` shows",
			    a->devs[k],
			    a->n_runs || a->since ? " in the selected runs"
						  : "");
	return 0;
}

/* --since after the newest run and session: say so rather than write an
 * empty report. */
static int check_since(const struct ax_cli *cli, const struct report_args *a,
		       const struct ax_html_data *d)
{
	if (!a->since || json_array_size(d->runs) ||
	    json_array_size(d->sessions))
		return 0;
	return ax_cli_error(cli, AX_EXIT_USAGE,
			    "report: --since %s: no %srun or tuning session "
			    "in %s started at or after it; give an earlier "
			    "date (`axbench runs` lists the runs)",
			    a->since, a->n_runs ? "selected " : "",
			    cli->db_path);
}

static int resolve_runs(const struct ax_cli *cli, struct ax_db *db,
			const struct report_args *a, int64_t *ids)
{
	for (int i = 0; i < a->n_runs; i++) {
		int rc =
		    ax_cli_resolve_run(cli, db, "report", a->runs[i], &ids[i]);
		if (rc)
			return rc;
	}
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

/* Results, runs and sessions of the selection into d. */
static int query(const struct ax_cli *cli, struct ax_db *db,
		 const struct report_args *a, struct ax_html_data *d)
{
	int64_t ids[MAX_SEL];
	int rc = resolve_runs(cli, db, a, ids);
	if (rc)
		return rc;
	struct ax_db_filter f = {.run_ids = ids,
				 .n_run_ids = a->n_runs,
				 .since = a->since,
				 .with_samples = true,
				 .stop = &ax_cli_interrupted};
	struct ax_db_filter sf = {.since = a->since,
				  .stop = &ax_cli_interrupted};
	if (ax_db_results(db, &f, &d->results) ||
	    ax_db_runs(db, &f, &d->runs) ||
	    ax_db_sessions(db, &sf, &d->sessions)) {
		fprintf(stderr, "axbench: report: %s\n", ax_db_errmsg(db));
		return ax_cli_interrupted ? AX_EXIT_INTERRUPTED
					  : AX_EXIT_STORAGE;
	}
	if ((rc = check_since(cli, a, d)) || (rc = check_devices(cli, a, d)))
		return rc;
	filter_devices(d->results, a);
	filter_devices(d->runs, a);
	filter_devices(d->sessions, a);
	ax_cli_fill_bytes(d->results);
	return attach_telemetry(cli, db, d->results);
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

static int parse(struct ax_cli *cli, int argc, char **argv,
		 struct report_args *a)
{
	struct ax_cli_iter it;
	int opt;
	ax_cli_iter_init(&it, cli, &ax_cmd_report, argc, argv);
	while ((opt = ax_cli_next(&it)) > 0) {
		/* Dropping a selector past the table would widen the report
		 * silently; refuse it instead. */
		if ((opt == OPT_RUN && a->n_runs == MAX_SEL) ||
		    (opt == OPT_DEVICE && a->n_devs == MAX_SEL)) {
			ax_cli_iter_release(&it);
			return ax_cli_error(cli, AX_EXIT_USAGE,
					    "report: at most %d %s options; "
					    "select fewer (or none, for all)",
					    MAX_SEL, it.optname);
		}
		if (opt == OPT_RUN)
			a->runs[a->n_runs++] = it.optarg;
		else if (opt == OPT_DEVICE)
			a->devs[a->n_devs++] = it.optarg;
		else if (opt == OPT_SINCE)
			a->since = it.optarg;
		else if (opt == OPT_OUTPUT)
			a->out = it.optarg;
		else if (opt == OPT_TITLE)
			a->title = it.optarg;
	}
	int end = ax_cli_parse_end(&it, opt, 0, 0);
	ax_cli_iter_release(&it);
	if (end != AX_CLI_CONTINUE)
		return end == AX_EXIT_OK ? -2 : end;
	/* The global --device (before the command name) selects as well. */
	if (cli->device_sel && strcmp(cli->device_sel, "all") &&
	    a->n_devs < MAX_SEL)
		a->devs[a->n_devs++] = cli->device_sel;
	if (a->since) {
		int rc = parse_since(cli, a->since, a->since_buf,
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
		snprintf(buf + n, len - (size_t)n, "; since %s", a->since);
}

static int report_main(struct ax_cli *cli, int argc, char **argv)
{
	struct report_args a = {.out = "axbench-report.html"};
	struct ax_html_data d = {0};
	struct ax_db *db = NULL;
	char sel[1024];
	int rc = parse(cli, argc, argv, &a);
	if (rc)
		return rc == -2 ? AX_EXIT_OK : rc;
	if ((rc = ax_cli_open_db(cli, true, &db)))
		return rc;
	json_t *suites = ax_cli_suite_doc();
	d.suites = suites;
	rc = query(cli, db, &a, &d);
	describe(&a, sel, sizeof(sel));
	d.selection = sel;
	d.title = a.title;
	d.stop = &ax_cli_interrupted;
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
	ax_db_close(db);
	return rc;
}

const struct ax_cli_cmd ax_cmd_report = {
    .name = "report",
    .summary = "write a self-contained HTML report",
    .usage = "[--run ID ...] [--device SEL ...] [--since DATE] "
	     "[-o FILE]",
    .details = "The report works from file:// with no network: inline "
	       "CSS, SVG charts, the\n"
	       "data embedded as JSON and a strict "
	       "Content-Security-Policy. It shows the\n"
	       "systems, medians with IQR whiskers per suite, % of "
	       "measured peak,\n"
	       "rooflines, efficiency (perf per watt, energy per repetition, "
	       "temperatures,\n"
	       "clocks, throttling, the speed-up over the host CPU, sustained "
	       "runs' power,\n"
	       "temperature and clock against time), bandwidth and transfer "
	       "curves, tuner\n"
	       "convergence, history with regressions marked, and results "
	       "that failed, timed\n"
	       "out, were noisy or throttled.",
    .examples = {"axbench report                           # every run, "
		 "axbench-report.html",
		 "axbench report --run last -o last.html --title \"nightly\""},
    .opts = report_opts,
    .fn = report_main,
};
