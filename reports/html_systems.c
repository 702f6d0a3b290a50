/* reports/html_systems.c - the systems of a report (what makes one, its
 * name and colour), the cases each system measured, and the systems
 * table. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include "core/error.h"
#include "reports/html_escape.h"
#include "reports/html_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const label_by_names[] = {"label", "run", "device", "host",
					     NULL};

const char *const *ax_html_label_by_names(void) { return label_by_names; }

/* ---- what a result or run belongs to ----------------------------------- */

/* The run id of a result ("run_id") or a run ("id"). */
static double run_id_of(const json_t *r)
{
	return json_object_get(r, "run_id") ? ax_html_jnum(r, "run_id")
					    : ax_html_jnum(r, "id");
}

static bool same_run(const json_t *a, const json_t *b)
{
	return run_id_of(a) == run_id_of(b) &&
	       strcmp(ax_html_jstr(a, "source"), ax_html_jstr(b, "source")) ==
		   0;
}

const char *ax_html_run_label(const struct ax_html_ctx *c, const json_t *r)
{
	const char *s = ax_html_jstr(r, "run_label");
	if (!*s)
		s = ax_html_jstr(r, "label");
	if (*s || !json_object_get(r, "run_id"))
		return s;
	/* A result without its run's label: the run row may have it. */
	size_t i;
	json_t *run;
	json_array_foreach(
	    c->d->runs, i,
	    run) if (same_run(run, r)) return ax_html_jstr(run, "label");
	return "";
}

bool ax_html_is_tune(const json_t *r)
{
	return json_object_get(json_object_get(r, "extra"), "tune_session") !=
	       NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *ax_html_run_name(const struct ax_html_ctx *c, const json_t *r,
			     char *buf, size_t len)
{
	const char *src = ax_html_jstr(r, "source");
	if (c->d->n_sources > 1 && *src)
		snprintf(buf, len, "%s run %.0f", base_name(src), run_id_of(r));
	else
		snprintf(buf, len, "run %.0f", run_id_of(r));
	return buf;
}

static void dev_key(const json_t *r, char *buf, size_t len)
{
	const json_t *d = json_object_get(r, "device");
	snprintf(buf, len, "%s\x1f%s", ax_html_jstr(d, "fingerprint"),
		 ax_html_jstr(d, "name"));
}

static void host_key(const json_t *r, char *buf, size_t len)
{
	const json_t *h = json_object_get(r, "host");
	snprintf(buf, len, "%s\x1f%s\x1f%.0f", ax_html_jstr(h, "hostname"),
		 ax_html_jstr(h, "cpu_model"), ax_html_jnum(h, "cores"));
}

void ax_html_system_key(enum ax_html_label_by by, const char *label,
			const json_t *r, char *buf, size_t len)
{
	char dk[640], hk[640];
	dev_key(r, dk, sizeof(dk));
	host_key(r, hk, sizeof(hk));
	switch (by) {
	case AX_HTML_BY_RUN:
		snprintf(buf, len, "R\x1f%s\x1f%.0f", ax_html_jstr(r, "source"),
			 run_id_of(r));
		break;
	case AX_HTML_BY_DEVICE:
		snprintf(buf, len, "D\x1f%s", dk);
		break;
	case AX_HTML_BY_HOST:
		snprintf(buf, len, "H\x1f%s", hk);
		break;
	default:
		/* One label on two machines is still two systems. */
		snprintf(buf, len, "L\x1f%s\x1f%s\x1f%s", label, hk, dk);
	}
}

/* The key of r's system under d->label_by. */
static void sys_key(const struct ax_html_ctx *c, const json_t *r, char *buf,
		    size_t len)
{
	ax_html_system_key(c->d->label_by, ax_html_run_label(c, r), r, buf,
			   len);
}

static const char *dev_name(const json_t *r)
{
	const char *s = ax_html_jstr(json_object_get(r, "device"), "name");
	return *s ? s : "unnamed device";
}

static const char *host_name(const json_t *r)
{
	const char *s = ax_html_jstr(json_object_get(r, "host"), "hostname");
	return *s ? s : "unnamed host";
}

static char *base_sys_name(const struct ax_html_ctx *c, const json_t *r)
{
	char buf[1024], run[300];
	const char *label = ax_html_run_label(c, r);
	switch (c->d->label_by) {
	case AX_HTML_BY_RUN:
		ax_html_run_name(c, r, run, sizeof(run));
		if (*label)
			snprintf(buf, sizeof(buf), "%s (%s)", label, run);
		else
			snprintf(buf, sizeof(buf), "%s", run);
		break;
	case AX_HTML_BY_DEVICE:
		snprintf(buf, sizeof(buf), "%s", dev_name(r));
		break;
	case AX_HTML_BY_HOST:
		snprintf(buf, sizeof(buf), "%s", host_name(r));
		break;
	default:
		if (*label)
			snprintf(buf, sizeof(buf), "%s", label);
		else
			snprintf(buf, sizeof(buf), "%s/%s", host_name(r),
				 dev_name(r));
	}
	return strdup(buf);
}

/* Names that repeat get what tells them apart: the device, the host or
 * the database where those differ, else "#n". */
static void unique_names(struct ax_html_ctx *c)
{
	char **base = calloc((size_t)c->n_sys + 1, sizeof(char *));
	if (!base)
		return;
	for (int i = 0; i < c->n_sys; i++)
		base[i] = strdup(c->sys[i].name ? c->sys[i].name : "");
	for (int i = 0; i < c->n_sys; i++) {
		int dups = 0, nth = 0;
		bool dev = false, host = false, src = false;
		const json_t *a = c->sys[i].first;
		for (int j = 0; j < c->n_sys; j++) {
			if (!base[i] || !base[j] || strcmp(base[i], base[j]))
				continue;
			const json_t *b = c->sys[j].first;
			dups++;
			nth += j <= i;
			dev |= strcmp(dev_name(a), dev_name(b)) != 0;
			host |= strcmp(host_name(a), host_name(b)) != 0;
			src |= strcmp(ax_html_jstr(a, "source"),
				      ax_html_jstr(b, "source")) != 0;
		}
		if (dups < 2)
			continue;
		char buf[1200];
		if (dev && c->d->label_by != AX_HTML_BY_DEVICE)
			snprintf(buf, sizeof(buf), "%s on %s", base[i],
				 dev_name(a));
		else if (host && c->d->label_by != AX_HTML_BY_HOST)
			snprintf(buf, sizeof(buf), "%s on %s", base[i],
				 host_name(a));
		else if (src)
			snprintf(buf, sizeof(buf), "%s in %s", base[i],
				 base_name(ax_html_jstr(a, "source")));
		else
			snprintf(buf, sizeof(buf), "%s #%d", base[i], nth);
		char *s = strdup(buf);
		if (s) {
			free(c->sys[i].name);
			c->sys[i].name = s;
		}
	}
	for (int i = 0; i < c->n_sys; i++)
		free(base[i]);
	free(base);
}

static int add_to_system(struct ax_html_ctx *c, const json_t *r, bool is_run)
{
	char key[2048], ptr[32];
	if (!json_is_object(json_object_get(r, "device")))
		return 0;
	sys_key(c, r, key, sizeof(key));
	int i = 0;
	while (i < c->n_sys && strcmp(c->sys[i].key, key))
		i++;
	/* A run without results (a monitor's, or one emptied by the
	 * selection) makes no system: a column with nothing in it would
	 * leave the overview without a shared case. */
	if (i == c->n_sys && is_run && json_array_size(c->d->results))
		return 0;
	if (i == c->n_sys) {
		struct ax_html_sys *grown =
		    realloc(c->sys, sizeof(*grown) * (size_t)(c->n_sys + 1));
		if (!grown)
			return AX_ENOMEM;
		c->sys = grown;
		struct ax_html_sys *s = &c->sys[c->n_sys];
		memset(s, 0, sizeof(*s));
		s->key = strdup(key);
		s->first = r;
		s->name = base_sys_name(c, r);
		s->runs = json_array();
		c->n_sys++;
		if (!s->key || !s->name || !s->runs)
			return AX_ENOMEM;
	}
	snprintf(ptr, sizeof(ptr), "%p", (const void *)r);
	json_object_set_new(c->sys_of, ptr, json_integer(i));
	if (is_run)
		json_array_append(c->sys[i].runs, (json_t *)r);
	else if (ax_html_ok(r))
		c->sys[i].n_ok++;
	else
		c->sys[i].n_bad++;
	return 0;
}

int ax_html_system_of(const struct ax_html_ctx *c, const json_t *r)
{
	char ptr[32];
	snprintf(ptr, sizeof(ptr), "%p", (const void *)r);
	const json_t *v = json_object_get(c->sys_of, ptr);
	return v ? (int)json_integer_value(v) : -1;
}

int ax_html_session_system(const struct ax_html_ctx *c, const json_t *s)
{
	size_t i;
	json_t *r;
	const char *src = ax_html_jstr(s, "source");
	double id = ax_html_jnum(s, "id");
	json_array_foreach(c->d->results, i, r)
	{
		const json_t *ts = json_object_get(json_object_get(r, "extra"),
						   "tune_session");
		if (json_is_number(ts) && json_number_value(ts) == id &&
		    !strcmp(ax_html_jstr(r, "source"), src))
			return ax_html_system_of(c, r);
	}
	char want[640], k[640];
	dev_key(s, want, sizeof(want));
	for (int j = 0; j < c->n_sys; j++) {
		dev_key(c->sys[j].first, k, sizeof(k));
		if (!strcmp(k, want))
			return j;
	}
	return -1;
}

const char *ax_html_system_name(const struct ax_html_ctx *c, int i)
{
	if (i < 0 || i >= c->n_sys)
		return "unknown system";
	return c->sys[i].name;
}

void ax_html_system_chip(const struct ax_html_ctx *c, int i)
{
	/* A square in the system's colour (a glyph, so that it prints and
	 * needs no empty element), then its number, as the charts tag
	 * bars. */
	fprintf(c->f,
		"<span class=\"sys\"><span class=\"sw c%d\">\xe2\x96\xa0"
		"</span>#%d ",
		i >= 0 ? i % 8 : 6, i + 1);
	ax_html_escape(c->f, ax_html_system_name(c, i));
	fputs("</span>", c->f);
}

/* ---- cases --------------------------------------------------------------- */

/* Does a replace b as a system's figure for a case?  The newer run
 * wins, failed or not (a case that failed last time is failed now); in
 * one run the later result (results come oldest first). */
static bool preferred(const json_t *a, const json_t *b)
{
	return strcmp(ax_html_jstr(a, "started_at"),
		      ax_html_jstr(b, "started_at")) >= 0;
}

static int case_cmp(const void *x, const void *y)
{
	const struct ax_html_case *a = x, *b = y;
	int k = strcmp(a->suite, b->suite);
	if (!k)
		k = strcmp(a->unit, b->unit);
	return k ? k : ax_html_label_cmp(a->label, b->label);
}

static int build_cases(struct ax_html_ctx *c)
{
	json_t *index = json_object();
	size_t i;
	json_t *r;
	if (!index)
		return AX_ENOMEM;
	json_array_foreach(c->d->results, i, r)
	{
		int s = ax_html_system_of(c, r);
		if (s < 0)
			continue;
		if (ax_html_is_tune(r) && !c->d->include_tune) {
			c->n_tune_left++;
			continue;
		}
		char key[1024], *params = NULL;
		const char *hash = ax_html_jstr(r, "params_hash");
		if (!*hash)
			params = json_dumps(json_object_get(r, "params"),
					    JSON_SORT_KEYS | JSON_COMPACT |
						JSON_ENCODE_ANY);
		snprintf(key, sizeof(key), "%s\x1f%s\x1f%s",
			 ax_html_jstr(r, "suite"), ax_html_jstr(r, "unit"),
			 *hash	  ? hash
			 : params ? params
				  : "");
		free(params);
		const json_t *at = json_object_get(index, key);
		struct ax_html_case *k;
		if (at) {
			k = &c->cases[json_integer_value(at)];
		} else {
			struct ax_html_case *grown =
			    realloc(c->cases,
				    sizeof(*grown) * (size_t)(c->n_cases + 1));
			if (!grown)
				goto oom;
			c->cases = grown;
			k = &c->cases[c->n_cases];
			memset(k, 0, sizeof(*k));
			k->suite = ax_html_jstr(r, "suite");
			k->unit = ax_html_jstr(r, "unit");
			k->label = ax_html_case_label(r);
			k->by_sys =
			    calloc((size_t)c->n_sys + 1, sizeof(*k->by_sys));
			json_object_set_new(index, key,
					    json_integer(c->n_cases++));
			if (!k->label || !k->by_sys)
				goto oom;
		}
		/* The direction of the newest result of the case. */
		k->hib = json_is_true(json_object_get(r, "higher_is_better"));
		if (!k->by_sys[s] || preferred(r, k->by_sys[s]))
			k->by_sys[s] = r;
	}
	json_decref(index);
	if (c->n_cases)
		qsort(c->cases, (size_t)c->n_cases, sizeof(*c->cases),
		      case_cmp);
	return 0;
oom:
	json_decref(index);
	return AX_ENOMEM;
}

/* ---- the reference ------------------------------------------------------- */

/* Does sel pick system i: its number, its whole name, or a part of its
 * name, device name, host name or label? */
static bool picks(const struct ax_html_ctx *c, int i, const char *sel,
		  bool exact)
{
	char num[16];
	snprintf(num, sizeof(num), "%d", i + 1);
	if (!strcmp(sel, num) || !strcmp(sel, c->sys[i].name))
		return true;
	if (exact || !*sel)
		return false;
	const json_t *r = c->sys[i].first;
	return strcasestr(c->sys[i].name, sel) ||
	       strcasestr(dev_name(r), sel) || strcasestr(host_name(r), sel) ||
	       strcasestr(ax_html_run_label(c, r), sel);
}

static int find_reference(struct ax_html_ctx *c, char *err, size_t errlen)
{
	const char *sel = c->d->reference;
	c->ref = 0;
	if (!sel)
		return 0;
	for (int exact = 1; exact >= 0; exact--) {
		int found = -1, n = 0;
		for (int i = 0; i < c->n_sys; i++)
			if (picks(c, i, sel, exact)) {
				found = found < 0 ? i : found;
				n++;
			}
		if (n == 1) {
			c->ref = found;
			return 0;
		}
		if (n > 1)
			return ax_errf(err, errlen, AX_EINVAL,
				       "report: --reference '%s' matches %d "
				       "systems; give the number the systems "
				       "table shows (1 to %d) or more of a "
				       "name",
				       sel, n, c->n_sys);
	}
	char names[600] = "";
	size_t used = 0;
	for (int i = 0; i < c->n_sys && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used,
					 "%s%d '%s'", i ? ", " : "", i + 1,
					 c->sys[i].name);
	return ax_errf(err, errlen, AX_EINVAL,
		       "report: --reference '%s' matches no system; the "
		       "systems are %s",
		       sel, c->n_sys ? names : "none (no results)");
}

int ax_html_systems_init(struct ax_html_ctx *c, char *err, size_t errlen)
{
	size_t i;
	json_t *r;
	int rc = 0;
	c->sys_of = json_object();
	if (!c->sys_of)
		return ax_errf(err, errlen, AX_ENOMEM, "report: out of memory");
	json_array_foreach(c->d->results, i, r) if (!rc) rc =
	    add_to_system(c, r, false);
	/* Runs oldest first, so that a system lists its runs in order. */
	for (size_t k = json_array_size(c->d->runs); k-- > 0 && !rc;)
		rc = add_to_system(c, json_array_get(c->d->runs, k), true);
	if (!rc) {
		unique_names(c);
		rc = build_cases(c);
	}
	if (rc)
		return ax_errf(err, errlen, rc, "report: out of memory");
	return find_reference(c, err, errlen);
}

void ax_html_systems_release(struct ax_html_ctx *c)
{
	for (int i = 0; i < c->n_sys; i++) {
		free(c->sys[i].key);
		free(c->sys[i].name);
		json_decref(c->sys[i].runs);
	}
	free(c->sys);
	for (int i = 0; i < c->n_cases; i++) {
		free(c->cases[i].label);
		free(c->cases[i].by_sys);
	}
	free(c->cases);
	json_decref(c->sys_of);
	c->sys = NULL;
	c->cases = NULL;
	c->sys_of = NULL;
	c->n_sys = c->n_cases = 0;
}

/* ---- the systems table ------------------------------------------------- */

/* A field of system i as text into buf. */
typedef void (*field_fn)(const struct ax_html_ctx *c, int i, const char *key,
			 char *buf, size_t len);

/* A member of the system's device ("host.x": of its host). */
static void obj_field(const struct ax_html_ctx *c, int i, const char *key,
		      char *buf, size_t len)
{
	const json_t *o = json_object_get(c->sys[i].first, "device");
	if (strncmp(key, "host.", 5) == 0) {
		o = json_object_get(c->sys[i].first, "host");
		key += 5;
	}
	const json_t *v = json_object_get(o, key);
	if (strcmp(key, "api_version") == 0 && json_is_integer(v)) {
		/* Vulkan's packed version: 7-bit variant, 7 major, 10 minor,
		 * 12 patch. */
		long long x = json_integer_value(v);
		snprintf(buf, len, "%lld.%lld.%lld", (x >> 22) & 0x7f,
			 (x >> 12) & 0x3ff, x & 0xfff);
	} else if (json_is_string(v) && *json_string_value(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_number(v)) {
		snprintf(buf, len, "%g", json_number_value(v));
	} else {
		snprintf(buf, len, "not recorded");
	}
}

/* An argument as a shell would need it typed: bare when it is plain. */
static void shell_word(FILE *f, const char *s)
{
	bool plain = *s != 0;
	for (const char *p = s; *p && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
			       "TUVWXYZ0123456789-_=./:,+%@",
			       *p) != NULL;
	if (plain) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	fputc('\'', f);
}

/* One run's value of key: the stored text, the command line joined. */
static void run_value(const json_t *run, const char *key, FILE *f)
{
	const json_t *v = json_object_get(run, key);
	if (!strcmp(key, "argv") && json_is_array(v)) {
		size_t i;
		json_t *a;
		json_array_foreach(v, i, a)
		{
			if (i)
				fputc(' ', f);
			shell_word(f, json_is_string(a) ? json_string_value(a)
							: "?");
		}
	} else if (json_is_string(v) && *json_string_value(v)) {
		fputs(json_string_value(v), f);
	} else if (json_is_number(v)) {
		fprintf(f, "%g", json_number_value(v));
	} else if (!strcmp(key, "label")) {
		fputs("none", f);
	} else {
		fputs("not recorded", f);
	}
}

/* A run-level field lists at most this many distinct values, the
 * newest: a year of nightly runs is not a table cell. */
#define RUN_FIELD_MAX 6

/* One run's text for key (the caller frees; NULL on failure). */
static char *run_text(const struct ax_html_ctx *c, const json_t *run,
		      const char *key)
{
	char *v = NULL, name[300];
	size_t vl = 0;
	FILE *m = open_memstream(&v, &vl);
	if (!m)
		return NULL;
	if (!strcmp(key, "id"))
		fprintf(m, "%s (%s, %s)",
			ax_html_run_name(c, run, name, sizeof(name)),
			ax_html_jstr(run, "started_at"),
			ax_html_jstr(run, "status"));
	else if (!strcmp(key, "label") && !json_object_get(run, key))
		fputs(ax_html_run_label(c, run), m);
	else
		run_value(run, key, m);
	fclose(m);
	return v;
}

/* A run-level field of system i: each distinct value of its runs once,
 * a line each (the table keeps the line breaks), oldest first; past
 * RUN_FIELD_MAX values the newest, after a line saying how many earlier
 * ones there are. */
static void run_field(const struct ax_html_ctx *c, int i, const char *key,
		      char *buf, size_t len)
{
	const json_t *runs = c->sys[i].runs;
	json_t *seen = json_object(), *vals = json_array();
	buf[0] = 0;
	/* Newest first, so that the values kept are the newest. */
	for (size_t k = json_array_size(runs); seen && vals && k-- > 0;) {
		char *v = run_text(c, json_array_get(runs, k), key);
		if (v && *v && !json_object_get(seen, v)) {
			json_object_set_new(seen, v, json_true());
			json_array_append_new(vals, json_string(v));
		}
		free(v);
	}
	size_t n = json_array_size(vals), used = 0;
	size_t shown = n > RUN_FIELD_MAX ? RUN_FIELD_MAX : n;
	if (n > shown)
		used +=
		    (size_t)snprintf(buf, len, "(%zu earlier %s)", n - shown,
				     strcmp(key, "id") ? "values" : "runs");
	for (size_t k = shown; k-- > 0 && used + 1 < len;)
		used += (size_t)snprintf(
		    buf + used, len - used, "%s%s", used ? "\n" : "",
		    json_string_value(json_array_get(vals, k)));
	json_decref(seen);
	json_decref(vals);
	if (!buf[0])
		snprintf(buf, len, "%s",
			 !strcmp(key, "label") ? "none" : "no run recorded");
}

static void results_field(const struct ax_html_ctx *c, int i, const char *key,
			  char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "%d ok, %d not ok", c->sys[i].n_ok, c->sys[i].n_bad);
}

static void source_field(const struct ax_html_ctx *c, int i, const char *key,
			 char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "%s", ax_html_jstr(c->sys[i].first, "source"));
}

struct sys_row {
	const char *key, *title;
	field_fn fn;
	bool code; /* shown as code (command lines, hashes) */
};

static const struct sys_row sys_rows[] = {
    {"label", "Run label", run_field, false},
    {"name", "Device", obj_field, false},
    {"vendor", "Vendor", obj_field, false},
    {"type", "Type", obj_field, false},
    {"driver_name", "Driver", obj_field, false},
    {"driver_info", "Driver version", obj_field, false},
    {"api_version", "Vulkan API", obj_field, false},
    {"pci_bus_id", "PCI bus id", obj_field, false},
    {"device_uuid", "Device UUID", obj_field, true},
    {"fingerprint", "Fingerprint", obj_field, true},
    {"host.hostname", "Host", obj_field, false},
    {"host.cpu_model", "CPU", obj_field, false},
    {"host.cores", "CPU cores", obj_field, false},
    {"source", "Database", source_field, true},
    {"id", "Runs", run_field, false},
    {"profile", "Profile", run_field, false},
    {"git_sha", "Commit", run_field, true},
    {"axbench_version", "axbench version", run_field, false},
    {"argv", "Command line", run_field, true},
    {"results", "Results", results_field, false},
};

static void cell_text(struct ax_html_ctx *c, const char *v, bool code)
{
	if (code)
		fputs("<code>", c->f);
	ax_html_escape(c->f, v);
	if (code)
		fputs("</code>", c->f);
}

static void system_row(struct ax_html_ctx *c, const struct sys_row *row)
{
	char first[4096], v[4096];
	int n = c->n_sys;
	bool same = true;
	row->fn(c, 0, row->key, first, sizeof(first));
	for (int i = 1; i < n && same; i++) {
		row->fn(c, i, row->key, v, sizeof(v));
		same = strcmp(first, v) == 0;
	}
	/* Rows that differ are what a comparison is about: marked by
	 * colour and by a sign, so that the mark survives printing. */
	fprintf(c->f, "<tr%s><th scope=\"row\">%s%s</th>",
		same ? "" : " class=\"diff\"", row->title,
		same || n < 2 ? "" : " <span class=\"ne\">differs</span>");
	if (same && n > 1) {
		fprintf(c->f, "<td colspan=\"%d\" class=\"all\">", n);
		cell_text(c, first, row->code);
		fputs(" (all systems)</td>", c->f);
	}
	for (int i = 0; i < n && !(same && n > 1); i++) {
		row->fn(c, i, row->key, v, sizeof(v));
		fputs("<td>", c->f);
		cell_text(c, v, row->code);
		fputs("</td>", c->f);
	}
	fputs("</tr>\n", c->f);
}

void ax_html_section_systems(struct ax_html_ctx *c)
{
	ax_html_h2(c, "system", "Systems");
	if (c->n_sys == 0) {
		ax_html_empty(c, "No devices in the selected data.");
		return;
	}
	static const char *const by[] = {
	    "its run label (host and device where a run has none)", "its run",
	    "its device", "its host"};
	fprintf(
	    c->f,
	    "<p>Each column is one system, named by %s, in the colour "
	    "it has in every chart. A value shared by every system is "
	    "shown once; rows that differ are marked.</p>\n<div "
	    "class=\"wide\"><table class=\"systab\">\n<tr><th scope=\"col\">"
	    "</th>",
	    by[c->d->label_by]);
	for (int i = 0; i < c->n_sys; i++) {
		fputs("<th scope=\"col\">", c->f);
		ax_html_system_chip(c, i);
		if (i == c->ref && c->n_sys > 1)
			fputs(" <span class=\"badge\">reference</span>", c->f);
		fputs("</th>", c->f);
	}
	fputs("</tr>\n", c->f);
	for (size_t k = 0; k < sizeof(sys_rows) / sizeof(sys_rows[0]); k++)
		if (strcmp(sys_rows[k].key, "source") || c->d->n_sources > 1)
			system_row(c, &sys_rows[k]);
	fputs("</table></div>\n", c->f);
}
