/* cli/cmd_report.c - `axbench report`: one self-contained HTML file of the
 * selected runs, devices and tuning sessions of one or more databases
 * (reports/html.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include "app/report_query.h"
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

#define MAX_SEL AX_REPORT_MAX_SEL
#define MAX_DB AX_REPORT_MAX_DB
/* The report's default size budget: a page every browser opens at
 * once, with room for a year of nightly runs' history. */
#define DEFAULT_MAX_SIZE (8 << 20)

static const struct ax_cli_opt report_opts[] = {
    {OPT_RUN, "run", 'r', "ID|last[~N]",
     "only this run (repeatable; default: every run); with several "
     "databases an id selects that run in each database holding it, last "
     "the newest of each and last~N the N-th before it"},
    {OPT_RUNS, "runs", 0, "ID,...",
     "only these runs, a comma-separated --run list (3,5 or last,last~1; "
     "default: every run); runs named here make systems whatever their "
     "kind (a recommend or ab run too; a tune run with --include-tune)"},
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
     "chart tuning sessions' trials with the other cases too, and tune "
     "runs as systems (default: only in the Tuning section; only plain "
     "runs, not tune, monitor, recommend or ab ones, make systems)"},
    {OPT_DB_EXTRA, "db-extra", 0, "FILE",
     "another database to report on beside --db, opened read-only "
     "(repeatable; positional FILEs do the same; default: none)"},
    {OPT_SAMPLES_FOR, "samples-for", 0, "RUN,...",
     "draw the raw samples of these of the selected runs only: ids, "
     "last (the newest plain run of each database's selection, never a "
     "tune run), baseline:NAME (its runs) or none (default: last); "
     "every other run is drawn from its median and interval"},
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

/* The command line: what is selected (the application layer's
 * struct ax_report_sel) and how it is written. */
struct report_args {
	struct ax_report_sel sel;
	const char *out, *title, *reference;
	int64_t max_size;
	char since_buf[32]; /* --since, canonical (parse_since) */
	json_t *owned;	    /* the pieces of --runs and --devices lists */
};

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
	if (a->sel.n_dbs == MAX_DB)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "report: at most %d databases in one "
				    "report; name fewer",
				    MAX_DB);
	a->sel.dbs[a->sel.n_dbs++] = path;
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
	for (int i = 0; i < a->sel.n_dbs && !rc; i++)
		for (int j = 0; j < i && !rc; j++) {
			char x[PATH_MAX], y[PATH_MAX];
			bool same =
			    strcmp(a->sel.dbs[i], a->sel.dbs[j]) == 0 ||
			    (realpath(a->sel.dbs[i], x) &&
			     realpath(a->sel.dbs[j], y) && !strcmp(x, y));
			if (same)
				rc = ax_app_error(app, AX_EXIT_USAGE,
						  "report: database %s is "
						  "named twice; name each "
						  "database once",
						  a->sel.dbs[i]);
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
	if ((opt == OPT_RUN && a->sel.n_runs == MAX_SEL) ||
	    (opt == OPT_DEVICE && a->sel.n_devs == MAX_SEL) ||
	    (opt == OPT_DB_EXTRA && *n_extra == MAX_DB))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "report: at most %d %s options; "
				    "select fewer (or none, for all)",
				    opt == OPT_DB_EXTRA ? MAX_DB : MAX_SEL,
				    it->optname);
	if (opt == OPT_RUN)
		a->sel.runs[a->sel.n_runs++] = it->optarg;
	else if (opt == OPT_RUNS)
		return add_list(app, a, "--runs", it->optarg, a->sel.runs,
				&a->sel.n_runs);
	else if (opt == OPT_DEVICE)
		a->sel.devs[a->sel.n_devs++] = it->optarg;
	else if (opt == OPT_DEVICES)
		return add_list(app, a, "--devices", it->optarg, a->sel.devs,
				&a->sel.n_devs);
	else if (opt == OPT_SINCE)
		a->sel.since = it->optarg;
	else if (opt == OPT_OUTPUT)
		a->out = it->optarg;
	else if (opt == OPT_TITLE)
		a->title = it->optarg;
	else if (opt == OPT_REFERENCE)
		a->reference = it->optarg;
	else if (opt == OPT_INCLUDE_TUNE)
		a->sel.include_tune = true;
	else if (opt == OPT_SAMPLES_FOR)
		return add_list(app, a, "--samples-for", it->optarg,
				a->sel.sampled, &a->sel.n_sampled);
	else if (opt == OPT_MAX_SIZE)
		return parse_max_size(app, it->optarg, &a->max_size);
	else if (opt == OPT_DB_EXTRA)
		extra[(*n_extra)++] = it->optarg;
	else if (opt == OPT_LABEL_BY)
		for (int k = 0; ax_html_label_by_names()[k]; k++)
			if (!strcmp(it->optarg, ax_html_label_by_names()[k]))
				a->sel.label_by = (enum ax_html_label_by)k;
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
	    a->sel.n_devs < MAX_SEL)
		a->sel.devs[a->sel.n_devs++] = app->device_sel;
	if (a->sel.since) {
		rc = parse_since(app, a->sel.since, a->since_buf,
				 sizeof(a->since_buf));
		if (rc)
			return rc;
		a->sel.since = a->since_buf;
	}
	return 0;
}

static void describe(const struct report_args *a, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", a->sel.n_runs ? "runs" : "all runs");
	for (int i = 0; i < a->sel.n_runs && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, " %s", a->sel.runs[i]);
	for (int i = 0; i < a->sel.n_devs && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%s",
			      i ? ", " : "; devices matching ", a->sel.devs[i]);
	if (a->sel.since && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; since %s",
			      a->sel.since);
	if ((size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; systems by %s",
			      ax_html_label_by_names()[a->sel.label_by]);
	if (a->sel.include_tune && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; tuning trials included");
}

/* The --samples-for runs in words: "run 7", "runs 3, 9 of a.db". */
static void describe_sampled(const struct ax_report_source *src, int n,
			     char *buf, size_t len)
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

static int report_main(struct ax_app *app, int argc, char **argv)
{
	struct report_args a = {.out = "axbench-report.html",
				.max_size = DEFAULT_MAX_SIZE,
				.owned = json_array()};
	struct ax_html_data d = {0};
	struct ax_html_collect keep;
	struct ax_report_rows rows = {0};
	struct ax_report_source src[MAX_DB];
	char sel[2048], sampled[1024], err[1024];
	int n = 0;
	int64_t size = 0;
	bool kept = false;
	struct ax_specs *specs = NULL;
	memset(src, 0, sizeof(src));
	int rc = a.owned ? parse(app, argc, argv, &a) : AX_EXIT_STORAGE;
	/* Without --samples-for, the newest run of each database is the
	 * one a reader compares against the rest. */
	if (rc == 0 && a.sel.n_sampled == 0) {
		a.sel.sampled[a.sel.n_sampled++] = "last";
		a.sel.sampled_default = true;
	}
	for (; rc == 0 && n < a.sel.n_dbs; n++) {
		src[n].path = a.sel.dbs[n];
		rc = ax_report_open_source(app, &src[n]);
	}
	if (rc == 0)
		rc = ax_report_gather(app, &a.sel, src, n, &keep, &rows, &d,
				      &kept, &specs);
	describe(&a, sel, sizeof(sel));
	describe_sampled(src, n, sampled, sizeof(sampled));
	d.selection = sel;
	d.sampled_runs = sampled;
	d.title = a.title;
	d.stop = &ax_interrupted;
	d.label_by = a.sel.label_by;
	d.reference = a.reference;
	d.include_tune = a.sel.include_tune;
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
	ax_report_release(kept ? &keep : NULL, &rows, src, n);
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
    .details =
	"The report works from file:// with no network: inline CSS, SVG "
	"charts, the data\n"
	"embedded as JSON and a strict Content-Security-Policy. It is built "
	"around\n"
	"systems side by side: each system, by default a run label, else host "
	"and\n"
	"device, is one column of the systems table (device, driver, host, "
	"profile,\n"
	"commit, version, command line) and one colour in every chart. An "
	"overview comes\n"
	"first: each system's geometric mean ratio to the reference over the "
	"cases all\n"
	"systems share (else over those each shares with the reference; above "
	"1 is\n"
	"better, latency included), and wins, losses and ties (within 2 %) per "
	"suite.\n"
	"Then per case one bar per system with its median, 95 % interval and "
	"ratio;\n"
	"rooflines with labelled ceilings; efficiency (perf per watt, energy,\n"
	"throttling, the speed-up over the host CPU, sustained runs against "
	"time);\n"
	"curves; tuning sessions (convergence, the best point); history, a "
	"sparkline of\n"
	"every run's median per case and machine with changes marked; the raw "
	"samples of\n"
	"the --samples-for runs; and results that failed, were noisy or "
	"throttled. The\n"
	"page keeps each system's newest result of each case and a few numbers "
	"per run,\n"
	"so it stays small over years of runs, and never passes --max-size. "
	"Several\n"
	"databases (positional DB files or --db-extra, all opened read-only) "
	"make one\n"
	"report: two machines side by side. Only plain runs make systems: "
	"tune, monitor,\n"
	"recommend and ab runs do not unless --runs names them (--include-tune "
	"adds tune\n"
	"runs).",
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
