/* reports/html.c - the report's document: head, CSS, summary, system
 * table, embedded data, and the helpers the section files share. */
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
    ".wide{overflow-x:auto}table.eff td.num{white-space:nowrap}";

const char *ax_html_jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

double ax_html_jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

bool ax_html_ok(const json_t *r)
{
	return strcmp(ax_html_jstr(r, "status"), "ok") == 0;
}

int ax_html_device_index(const struct ax_html_ctx *c, const json_t *r)
{
	const char *fp =
	    ax_html_jstr(json_object_get(r, "device"), "fingerprint");
	for (size_t i = 0; i < json_array_size(c->devices); i++)
		if (strcmp(ax_html_jstr(json_array_get(c->devices, i),
					"fingerprint"),
			   fp) == 0)
			return (int)i;
	return -1;
}

const char *ax_html_device_name(const struct ax_html_ctx *c, int i)
{
	static char buf[300];
	const json_t *d = json_array_get(c->devices, (size_t)i);
	const char *name = ax_html_jstr(d, "name");
	int same = 0, nth = 0;
	for (size_t j = 0; j < json_array_size(c->devices); j++)
		if (strcmp(ax_html_jstr(json_array_get(c->devices, j), "name"),
			   name) == 0) {
			same++;
			if ((int)j <= i)
				nth++;
		}
	if (!d)
		snprintf(buf, sizeof(buf), "unknown device");
	else if (same > 1)
		snprintf(buf, sizeof(buf), "%s #%d", name, nth);
	else
		snprintf(buf, sizeof(buf), "%s", *name ? name : "unnamed");
	return buf;
}

char *ax_html_case_label(const json_t *r)
{
	const char *cl = ax_html_jstr(r, "case");
	if (*cl)
		return strdup(cl);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(r, "params"), k, v)
	{
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		const char *txt = json_is_string(v) ? json_string_value(v) : s;
		fprintf(f, "%s%s=%s", ftell(f) ? " " : "", k, txt ? txt : "?");
		free(s);
	}
	fclose(f);
	return buf;
}

void ax_html_badges(const json_t *r, char *buf, size_t len)
{
	const char *st = ax_html_jstr(r, "status");
	const char *stop = ax_html_jstr(r, "stop_reason");
	double noise = ax_html_jnum(r, "rel_noise");
	buf[0] = 0;
	if (!ax_html_ok(r))
		snprintf(buf, len, "%s",
			 strcmp(st, "failed-verification") == 0
			     ? "failed verification"
			 : *st ? st
			       : "no status");
	/* 5 %: the median's interval half-width above which a figure is
	 * too unsteady to read differences of a few percent from. */
	if (isfinite(noise) && noise > 0.05)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 "%snoisy "
			 "(+/-%.1f%%)",
			 *buf ? ", " : "", 100 * noise);
	if (strstr(stop, "time") && ax_html_ok(r))
		snprintf(buf + strlen(buf), len - strlen(buf),
			 "%stimed out "
			 "sampling (%s)",
			 *buf ? ", " : "", stop);
	/* A throttled median is the speed of a slowed device, not of the
	 * kernel: worth a look wherever the figure is shown. */
	if (json_is_true(
		json_object_get(json_object_get(r, "power"), "throttled")))
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

static void add_device(json_t *devs, const json_t *d)
{
	const char *fp = ax_html_jstr(d, "fingerprint");
	if (!json_is_object(d))
		return;
	for (size_t i = 0; i < json_array_size(devs); i++)
		if (strcmp(ax_html_jstr(json_array_get(devs, i), "fingerprint"),
			   fp) == 0)
			return;
	json_array_append(devs, (json_t *)d);
}

static void ctx_init(struct ax_html_ctx *c, FILE *f,
		     const struct ax_html_data *d)
{
	size_t i;
	json_t *r;
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->d = d;
	c->devices = json_array();
	json_array_foreach(d->results, i, r)
	    add_device(c->devices, json_object_get(r, "device"));
	json_array_foreach(d->runs, i, r)
	    add_device(c->devices, json_object_get(r, "device"));
	json_t *runs = json_object();
	json_array_foreach(d->results, i, r)
	{
		char k[32];
		snprintf(k, sizeof(k), "%.0f", ax_html_jnum(r, "run_id"));
		json_object_set_new(runs, k, json_true());
	}
	c->n_runs = (int)json_object_size(runs);
	json_decref(runs);
}

/* ---- system table ----------------------------------------------------- */

static const json_t *host_of(const struct ax_html_ctx *c, int dev)
{
	const json_t *arrs[2] = {c->d->results, c->d->runs};
	for (int a = 0; a < 2; a++) {
		size_t i;
		json_t *r;
		json_array_foreach(
		    arrs[a], i, r) if (ax_html_device_index(c, r) ==
				       dev) return json_object_get(r, "host");
	}
	return NULL;
}

/* Field value of device i as text into buf. */
static void field(const struct ax_html_ctx *c, int i, const char *key,
		  char *buf, size_t len)
{
	const json_t *d = json_array_get(c->devices, (size_t)i);
	const json_t *o = d;
	if (strncmp(key, "host.", 5) == 0) {
		o = host_of(c, i);
		key += 5;
	}
	const json_t *v = json_object_get(o, key);
	if (strcmp(key, "api_version") == 0 && json_is_integer(v)) {
		/* Vulkan's packed version: 7-bit variant, 7 major, 10 minor,
		 * 12 patch. */
		long long x = json_integer_value(v);
		snprintf(buf, len, "%lld.%lld.%lld", (x >> 22) & 0x7f,
			 (x >> 12) & 0x3ff, x & 0xfff);
	} else if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_number(v)) {
		snprintf(buf, len, "%g", json_number_value(v));
	} else {
		snprintf(buf, len, "not recorded");
	}
}

static const char *const sys_fields[][2] = {
    {"name", "Device"},
    {"vendor", "Vendor"},
    {"type", "Type"},
    {"driver_name", "Driver"},
    {"driver_info", "Driver version"},
    {"api_version", "Vulkan API"},
    {"pci_bus_id", "PCI bus id"},
    {"device_uuid", "Device UUID"},
    {"fingerprint", "Fingerprint"},
    {"host.hostname", "Host"},
    {"host.cpu_model", "CPU"},
    {"host.cores", "CPU cores"},
};

static void system_row(struct ax_html_ctx *c, const char *key,
		       const char *title, int n)
{
	char first[512], v[512];
	bool same = true;
	field(c, 0, key, first, sizeof(first));
	for (int i = 1; i < n && same; i++) {
		field(c, i, key, v, sizeof(v));
		same = strcmp(first, v) == 0;
	}
	fprintf(c->f, "<tr><th scope=\"row\">%s</th>", title);
	if (same && n > 1) {
		fprintf(c->f, "<td colspan=\"%d\" class=\"all\">", n);
		ax_html_escape(c->f, first);
		fputs(" (all devices)</td>", c->f);
	}
	for (int i = 0; i < n && !(same && n > 1); i++) {
		field(c, i, key, v, sizeof(v));
		fputs("<td>", c->f);
		ax_html_escape(c->f, v);
		fputs("</td>", c->f);
	}
	fputs("</tr>\n", c->f);
}

static void section_system(struct ax_html_ctx *c)
{
	int n = (int)json_array_size(c->devices);
	ax_html_h2(c, "system", "System");
	if (n == 0) {
		ax_html_empty(c, "No devices in the selected data.");
		return;
	}
	fputs("<table><caption>Devices and hosts; a value shared by every "
	      "device is shown once.</caption>\n<tr><th scope=\"col\">"
	      "</th>",
	      c->f);
	for (int i = 0; i < n; i++) {
		fprintf(c->f,
			"<th scope=\"col\"><span class=\"badge\">%d"
			"</span>",
			i + 1);
		ax_html_escape(c->f, ax_html_device_name(c, i));
		fputs("</th>", c->f);
	}
	fputs("</tr>\n", c->f);
	for (size_t k = 0; k < sizeof(sys_fields) / sizeof(sys_fields[0]); k++)
		system_row(c, sys_fields[k][0], sys_fields[k][1], n);
	fputs("</table>\n", c->f);
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

static void summary(struct ax_html_ctx *c, const char *when)
{
	size_t n = json_array_size(c->d->results), bad = 0, i;
	json_t *r;
	json_array_foreach(c->d->results, i, r) bad += !ax_html_ok(r);
	fputs("<p>Generated ", c->f);
	ax_html_escape(c->f, when);
	fprintf(c->f,
		" from %zu result%s (%zu not ok) in %d run%s on %zu "
		"device%s",
		n, n == 1 ? "" : "s", bad, c->n_runs, c->n_runs == 1 ? "" : "s",
		json_array_size(c->devices),
		json_array_size(c->devices) == 1 ? "" : "s");
	if (c->d->selection) {
		fputs("; selection: ", c->f);
		ax_html_escape(c->f, c->d->selection);
	}
	fputs(".</p>\n<nav><a href=\"#system\">System</a>"
	      "<a href=\"#medians\">Medians</a><a href=\"#roofline\">"
	      "Roofline</a><a href=\"#efficiency\">Efficiency</a>"
	      "<a href=\"#curves\">Curves</a><a href=\"#tuner\">"
	      "Tuner</a><a href=\"#history\">History</a>"
	      "<a href=\"#attention\">Attention</a></nav>\n",
	      c->f);
}

bool ax_html_stopped(const struct ax_html_ctx *c)
{
	return c->d->stop && *c->d->stop;
}

static int embed_data(struct ax_html_ctx *c, const char *when)
{
	json_t *doc = json_pack("{s:s,s:O,s:O?,s:O?}", "generated_at", when,
				"results", c->d->results, "runs", c->d->runs,
				"sessions", c->d->sessions);
	char *txt = doc ? ax_json_for_html(doc) : NULL;
	json_decref(doc);
	if (!txt)
		return AX_ENOMEM;
	fputs("<h2 id=\"data\">Data</h2>\n<p>The data behind this report is "
	      "embedded below as JSON (element <code>axbench-data</code>); "
	      "it is never executed.</p>\n"
	      "<script type=\"application/json\" id=\"axbench-data\">",
	      c->f);
	fputs(txt, c->f);
	fputs("</script>\n", c->f);
	free(txt);
	return 0;
}

int ax_html_report_write(FILE *f, const struct ax_html_data *d, char *err,
			 size_t errlen)
{
	if (!d || !json_is_array(d->results))
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
	    section_system,	      ax_html_section_medians,
	    ax_html_section_roofline, ax_html_section_efficiency,
	    ax_html_section_curves,   ax_html_section_tuner,
	    ax_html_section_history,  ax_html_section_attention,
	};
	struct ax_html_ctx c;
	ctx_init(&c, f, d);
	head(&c, d->title ? d->title : "axbench report");
	summary(&c, when);
	for (size_t i = 0;
	     i < sizeof(sections) / sizeof(sections[0]) && !ax_html_stopped(&c);
	     i++)
		sections[i](&c);
	int rc = ax_html_stopped(&c) ? AX_EINTR : embed_data(&c, when);
	fputs("</body>\n</html>\n", f);
	json_decref(c.devices);
	if (rc == AX_EINTR || ax_html_stopped(&c))
		return ax_errf(err, errlen, AX_EINTR, "report: interrupted");
	if (rc)
		return ax_errf(err, errlen, rc, "report: out of memory");
	if (ferror(f))
		return ax_errf(err, errlen, AX_EIO, "report: write failed");
	return 0;
}
