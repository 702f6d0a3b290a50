/* reports/html.c - the report's document: head, CSS, summary, the order
 * of the sections, embedded data, and the helpers the section files
 * share. */
#include "reports/html.h"

#include "core/error.h"
#include "reports/html_escape.h"
#include "reports/html_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* No script-src at all: the JSON block is data and never executes. */
#define AX_HTML_CSP                                                            \
	"default-src 'none'; style-src 'unsafe-inline'; img-src data:; "       \
	"base-uri 'none'; form-action 'none'"

static const char css[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;"
    "max-width:1100px;color:#111;background:#fff;padding:0 1em}"
    "h1{font-size:1.6em}h2{border-bottom:2px solid #0072B2;"
    "padding-bottom:.2em;margin-top:2em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #bbb;padding:.25em .5em;text-align:left;"
    "vertical-align:top;font-size:.9em}th{background:#eef3f8}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.all{color:#444;font-style:italic}"
    ".badge{display:inline-block;border:1px solid #333;border-radius:3px;"
    "padding:0 .3em;margin-right:.3em;font-size:.8em;background:#f7f7f7}"
    ".slower{font-weight:bold;color:#D55E00}.faster{color:#0072B2}"
    ".empty{color:#555;font-style:italic}"
    "svg{display:block;margin:.5em 0 1.2em;max-width:100%;height:auto}"
    "svg text{font-size:11px;fill:#111}svg text.tt{font-size:13px;"
    "font-weight:bold}svg .grid{stroke:#ddd}"
    "nav a{margin-right:1em}"
    ".badge.throttled{border-color:#D55E00;color:#D55E00;font-weight:bold}"
    ".tl{display:flex;flex-wrap:wrap;column-gap:1em}"
    ".tl svg{margin:.2em 0 .8em}p.cap{margin-bottom:.2em}"
    ".wide{overflow-x:auto}table.eff td.num{white-space:nowrap}"
    "td.sp{min-width:12em}td.sp small{font-weight:normal}"
    /* A system's swatch: the palette of reports/svg.c, in its order. */
    ".sys{white-space:nowrap}.sw{margin-right:.2em}"
    ".c0{color:#0072B2}.c1{color:#E69F00}.c2{color:#009E73}"
    ".c3{color:#CC79A7}.c4{color:#56B4E9}.c5{color:#D55E00}.c6{color:#000}"
    ".c7{color:#F0E442}"
    "tr.diff th,tr.diff td{background:#fff1cc}.ne{font-weight:normal;"
    "font-size:.75em;color:#7a4b00;border:1px solid #7a4b00;"
    "border-radius:3px;padding:0 .2em}"
    "td code{overflow-wrap:anywhere}tr.all td{font-weight:bold}"
    "table.systab{table-layout:fixed;width:100%}table.systab tr:first-child "
    "th:first-child"
    "{width:10em}table.systab th .sys{white-space:normal}"
    "table.systab td{white-space:pre-line;"
    "overflow-wrap:anywhere}"
    "p.common{margin-bottom:.2em}"
    "svg text.alert{fill:#a33b00;font-weight:bold}svg .sep{stroke:#e4e4e4}"
    "svg text.note{font-style:italic}";

const char *ax_html_str(const char *s) { return s ? s : ""; }

double ax_html_int(int64_t v) { return v == AX_DB_NONE ? NAN : (double)v; }

bool ax_html_throttled(const struct ax_db_result_row *r)
{
	return r->power.present && r->power.throttled == 1;
}

const char *ax_html_param_text(const struct ax_db_param *p, char *buf,
			       size_t len)
{
	json_t *v = NULL;
	if (p->type == AX_DB_VALUE_TEXT) {
		snprintf(buf, len, "%s", ax_html_str(p->text));
		return buf;
	}
	/* Reals and stored documents as jansson writes them, so the page
	 * and its embedded data spell a value alike. */
	if (p->type == AX_DB_VALUE_REAL)
		v = json_real(p->num);
	else if (p->type == AX_DB_VALUE_OTHER)
		v = json_loads(p->text ? p->text : "null", JSON_DECODE_ANY,
			       NULL);
	char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	if (s)
		snprintf(buf, len, "%s", s);
	else if (v)
		snprintf(buf, len, "?");
	else
		ax_db_param_value_text(p, buf, len);
	free(s);
	json_decref(v);
	return buf;
}

char *ax_html_case_label(const struct ax_db_result_row *r)
{
	if (r->case_label && *r->case_label)
		return strdup(r->case_label);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	for (int i = 0; i < r->params.n; i++) {
		char v[512];
		const struct ax_db_param *p = &r->params.v[i];
		fprintf(f, "%s%s=%s", ftell(f) ? " " : "", p->name,
			ax_html_param_text(p, v, sizeof(v)));
	}
	fclose(f);
	return buf;
}

const char *ax_html_stop_words(const char *stop)
{
	static const char *const words[][2] = {
	    {"noise", "noise target reached"},
	    {"max-samples", "sample limit reached"},
	    /* --max-time ends sampling normally; it is no timeout. */
	    {"time-limit", "time limit reached"},
	    {"interrupted", "interrupted"},
	    {"error", "stopped by an error"},
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(stop, words[i][0]))
			return words[i][1];
	return *stop ? stop : "not recorded";
}

const char *ax_html_status_words(const char *st)
{
	static const char *const words[][2] = {
	    {"ok", "ok"},
	    {"failed-verification", "failed verification"},
	    /* A fence wait that ran out: the GPU work hung or overran. */
	    {"timeout", "GPU work timed out"},
	    {"compile-failed", "pipeline failed to compile"},
	    {"skipped", "skipped"},
	    {"error", "error"},
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(st, words[i][0]))
			return words[i][1];
	return *st ? st : "no status";
}

void ax_html_badges(const struct ax_db_result_row *r, char *buf, size_t len)
{
	const char *stop = ax_html_str(r->stop_reason);
	double noise = r->rel_noise;
	buf[0] = 0;
	if (!r->ok)
		snprintf(buf, len, "%s",
			 ax_html_status_words(ax_html_str(r->status)));
	/* 5 %: the median's interval half-width above which a figure is
	 * too unsteady to read differences of a few percent from. */
	if (isfinite(noise) && noise > 0.05)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 "%snoisy "
			 "(+/-%.1f%%)",
			 *buf ? ", " : "", 100 * noise);
	/* A time or sample limit is a normal end of sampling (the noise
	 * badge says when the figure suffered); Ctrl-C is not. */
	if (!strcmp(stop, "interrupted") && r->ok)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 "%ssampling interrupted", *buf ? ", " : "");
	/* A throttled median is the speed of a slowed device, not of the
	 * kernel: worth a look wherever the figure is shown. */
	if (ax_html_throttled(r))
		snprintf(buf + strlen(buf), len - strlen(buf), "%sthrottled",
			 *buf ? ", " : "");
}

void ax_html_h2(struct ax_html_ctx *c, const char *id, const char *title)
{
	fprintf(c->f, "<h2 id=\"%s\">", id);
	ax_html_escape(c->f, title);
	fputs("</h2>\n", c->f);
}

void ax_html_empty(struct ax_html_ctx *c, const char *what)
{
	fputs("<p class=\"empty\">", c->f);
	ax_html_escape(c->f, what);
	fputs("</p>\n", c->f);
}

/* ---- context ---------------------------------------------------------- */

/* The history and counts of d->results, for a caller that passed every
 * result rather than a collection: each database (its source) a number
 * in the order first seen. */
static int collect_results(struct ax_html_ctx *c)
{
	const struct ax_html_data *d = c->d;
	struct ax_html_collect *k = &c->local_history;
	const char **sources = calloc(d->results->n + 1, sizeof(char *));
	int n = 0;
	int rc = sources ? ax_html_collect_init(k, d->label_by, d->include_tune)
			 : AX_ENOMEM;
	c->own_history = rc == 0;
	if (!rc)
		rc = ax_html_collect_runs(k, d->runs, d->all_kinds);
	for (size_t i = 0; !rc && i < d->results->n; i++) {
		const struct ax_db_result_row *r = d->results->v[i];
		const char *src = ax_html_str(r->source);
		int at = 0;
		while (at < n && strcmp(sources[at], src))
			at++;
		if (at == n)
			sources[n++] = src;
		rc = ax_html_collect_point(k, r, at);
	}
	free(sources);
	if (!rc)
		ax_html_collect_finish(k);
	c->history = k;
	return rc;
}

static int ctx_init(struct ax_html_ctx *c, FILE *f,
		    const struct ax_html_data *d, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->d = d;
	int rc = 0;
	if (d->history)
		c->history = d->history;
	else
		rc = collect_results(c);
	if (rc)
		return ax_errf(err, errlen, rc, "report: out of memory");
	c->n_runs = (int)json_object_size(c->history->runs);
	return ax_html_systems_init(c, err, errlen);
}

static void ctx_release(struct ax_html_ctx *c)
{
	ax_html_systems_release(c);
	if (c->own_history)
		ax_html_collect_release(&c->local_history);
	c->own_history = false;
}

/* ---- head, summary, data ---------------------------------------------- */

static void head(struct ax_html_ctx *c, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" "
	      "content=\"" AX_HTML_CSP "\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<title>",
	      c->f);
	ax_html_escape(c->f, title);
	fprintf(c->f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>",
		css);
	ax_html_escape(c->f, title);
	fputs("</h1>\n", c->f);
}

/* The runs read whose kind makes no system, by kind: "; 1 tune run and
 * 2 recommend runs make no system, as only plain runs ...". */
static void left_out_runs(struct ax_html_ctx *c)
{
	static const char *const kinds[] = {"tune", "recommend", "ab",
					    "monitor", NULL};
	const json_t *left = c->history->left_out;
	int shown = 0, total = 0, n[5] = {0};
	const char *key;
	json_t *kind;
	json_object_foreach((json_t *)left, key, kind)
	{
		int k = 0;
		if (!json_object_get(c->history->runs, key))
			continue; /* no result of it was read */
		while (kinds[k] && strcmp(kinds[k], json_string_value(kind)))
			k++;
		n[k]++;
		total++;
	}
	for (int k = 0; k < 5; k++) {
		if (!n[k])
			continue;
		fprintf(c->f, "%s%d %s run%s", shown++ ? " and " : "; ", n[k],
			kinds[k] ? kinds[k] : "other", n[k] == 1 ? "" : "s");
	}
	if (shown)
		fprintf(c->f,
			" make%s no system, as only plain runs make systems "
			"(<code>--include-tune</code> adds tune runs, "
			"<code>--runs</code> naming a recommend or ab run "
			"adds it)",
			total == 1 ? "s" : "");
}

static void summary(struct ax_html_ctx *c, const char *when)
{
	size_t n = c->history->n_read, bad = c->history->n_bad;
	size_t shown = c->d->results->n;
	fputs("<p>Generated ", c->f);
	ax_html_escape(c->f, when);
	fprintf(c->f,
		" from %zu result%s (%zu not ok) in %d run%s on %d "
		"system%s",
		n, n == 1 ? "" : "s", bad, c->n_runs, c->n_runs == 1 ? "" : "s",
		c->n_sys, c->n_sys == 1 ? "" : "s");
	if (shown < n)
		fprintf(c->f,
			"; the charts and tables show each system's newest "
			"result of each case (%zu), the history every run",
			shown);
	if (c->d->n_sources > 1)
		fprintf(c->f, " from %d databases", c->d->n_sources);
	left_out_runs(c);
	if (c->d->selection) {
		fputs("; selection: ", c->f);
		ax_html_escape(c->f, c->d->selection);
	}
	fputs(".</p>\n<nav><a href=\"#overview\">Overview</a>"
	      "<a href=\"#system\">Systems</a>"
	      "<a href=\"#medians\">Per case</a><a href=\"#roofline\">"
	      "Roofline</a><a href=\"#efficiency\">Efficiency</a>"
	      "<a href=\"#curves\">Curves</a><a href=\"#tuner\">"
	      "Tuning</a><a href=\"#history\">History</a>"
	      "<a href=\"#samples\">Samples</a>"
	      "<a href=\"#attention\">Attention</a></nav>\n",
	      c->f);
}

bool ax_html_stopped(const struct ax_html_ctx *c)
{
	return c->d->stop && *c->d->stop;
}

/* "source\x1frun id" of a run of results (into buf). */
static const char *run_key(const char *source, int64_t run_id, char *buf,
			   size_t len)
{
	snprintf(buf, len, "%s\x1f%lld", ax_html_str(source),
		 (long long)run_id);
	return buf;
}

static int key_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The runs of the results shown or sampled, as documents: the rest of
 * the history is in the series (run ids), so a year of runs does not
 * fill the page. */
static json_t *shown_runs(const struct ax_html_ctx *c)
{
	const struct ax_db_results *sets[] = {c->d->results, c->d->sampled};
	size_t cap = 1, n = 0;
	for (int k = 0; k < 2; k++)
		cap += sets[k] ? sets[k]->n : 0;
	char **want = calloc(cap, sizeof(char *));
	json_t *out = json_array();
	for (int k = 0; want && k < 2; k++)
		for (size_t i = 0; sets[k] && i < sets[k]->n; i++) {
			char key[600];
			const struct ax_db_result_row *r = sets[k]->v[i];
			want[n] = strdup(
			    run_key(r->source, r->run_id, key, sizeof(key)));
			n += want[n] != NULL;
		}
	if (want)
		qsort(want, n, sizeof(char *), key_cmp);
	for (size_t i = 0; want && out && i < c->d->runs->n; i++) {
		char key[600], *kp = key;
		const struct ax_db_run_row *r = c->d->runs->v[i];
		run_key(r->source, r->id, key, sizeof(key));
		if (bsearch(&kp, want, n, sizeof(char *), key_cmp))
			json_array_append_new(out, ax_db_run_json(r));
	}
	for (size_t i = 0; i < n; i++)
		free(want[i]);
	free(want);
	return out;
}

/* The results shown as documents, each sustained one with its series as
 * "telemetry". */
static json_t *results_json(const struct ax_html_ctx *c)
{
	const struct ax_html_data *d = c->d;
	json_t *out = json_array();
	for (size_t i = 0; out && i < d->results->n; i++) {
		json_t *r = ax_db_result_json(d->results->v[i]);
		const struct ax_html_telemetry *t =
		    d->telemetry ? &d->telemetry[i] : NULL;
		if (r && t && t->series) {
			json_t *s = ax_db_series_json(t->series);
			if (s && t->thinned_every > 1) {
				json_object_set_new(
				    s, "n_readings",
				    json_integer((json_int_t)t->n_readings));
				json_object_set_new(
				    s, "thinned_every",
				    json_integer((json_int_t)t->thinned_every));
			}
			json_object_set_new(r, "telemetry", s);
		}
		if (json_array_append_new(out, r)) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static int embed_data(struct ax_html_ctx *c, const char *when)
{
	const struct ax_html_data *d = c->d;
	json_t *doc = json_pack(
	    "{s:s,s:o,s:o?,s:o?,s:o?}", "generated_at", when, "results",
	    results_json(c), "runs", d->runs ? shown_runs(c) : NULL, "sessions",
	    d->sessions ? ax_db_sessions_json(d->sessions) : NULL, "sampled",
	    d->sampled ? ax_db_results_json(d->sampled) : NULL);
	char *txt = doc ? ax_json_for_html(doc) : NULL;
	json_decref(doc);
	if (!txt)
		return AX_ENOMEM;
	fputs("<h2 id=\"data\">Data</h2>\n<p>The data behind this report is "
	      "embedded below as JSON (elements <code>axbench-data</code>: "
	      "the results shown, their runs, the tuning sessions and the "
	      "sampled runs' results with their samples; and "
	      "<code>axbench-history</code>: each case's per-run medians and "
	      "95 % intervals, to 6 significant digits); it is never "
	      "executed.</p>\n"
	      "<script type=\"application/json\" id=\"axbench-data\">",
	      c->f);
	fputs(txt, c->f);
	fputs("</script>\n", c->f);
	free(txt);
	ax_html_history_json(c);
	return 0;
}

int ax_html_report_check(const struct ax_html_data *d, char *err, size_t errlen)
{
	struct ax_html_ctx c;
	if (!d || !d->results)
		return ax_errf(err, errlen, AX_EINVAL,
			       "report: no results array to report on");
	int rc = ctx_init(&c, NULL, d, err, errlen);
	ctx_release(&c);
	return rc;
}

int ax_html_report_write(FILE *f, const struct ax_html_data *d, char *err,
			 size_t errlen)
{
	if (!d || !d->results)
		return ax_errf(err, errlen, AX_EINVAL,
			       "report: no results "
			       "array to report on (query the database "
			       "first)");
	char when[64];
	if (d->generated_at) {
		snprintf(when, sizeof(when), "%s", d->generated_at);
	} else {
		time_t now = time(NULL);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ",
			 gmtime(&now));
	}
	static void (*const sections[])(struct ax_html_ctx *) = {
	    ax_html_section_overview,	ax_html_section_systems,
	    ax_html_section_medians,	ax_html_section_roofline,
	    ax_html_section_efficiency, ax_html_section_curves,
	    ax_html_section_latency,	ax_html_section_devices,
	    ax_html_section_tuner,	ax_html_section_history,
	    ax_html_section_samples,	ax_html_section_attention,
	};
	struct ax_html_ctx c;
	/* A reference that names no system is refused before anything is
	 * written. */
	int rc = ctx_init(&c, f, d, err, errlen);
	if (rc) {
		ctx_release(&c);
		return rc;
	}
	head(&c, d->title ? d->title : "axbench report");
	summary(&c, when);
	for (size_t i = 0;
	     i < sizeof(sections) / sizeof(sections[0]) && !ax_html_stopped(&c);
	     i++)
		sections[i](&c);
	rc = ax_html_stopped(&c) ? AX_EINTR : embed_data(&c, when);
	fputs("</body>\n</html>\n", f);
	ctx_release(&c);
	if (rc == AX_EINTR || ax_html_stopped(&c))
		return ax_errf(err, errlen, AX_EINTR, "report: interrupted");
	if (rc)
		return ax_errf(err, errlen, rc, "report: out of memory");
	if (ferror(f))
		return ax_errf(err, errlen, AX_EIO, "report: write failed");
	return 0;
}
