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
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const label_by_names[] = {"label", "run", "device", "host",
					     NULL};

const char *const *ax_html_label_by_names(void) { return label_by_names; }

/* ---- what a result or run belongs to ----------------------------------- */

struct ax_html_of ax_html_of_result(const struct ax_db_result_row *r)
{
	return (struct ax_html_of){&r->device, &r->host,     r->source,
				   r->run_id,  r->run_label, false};
}

struct ax_html_of ax_html_of_run(const struct ax_db_run_row *r)
{
	return (struct ax_html_of){&r->device, &r->host, r->source,
				   r->id,      r->label, true};
}

const char *ax_html_run_label(const struct ax_html_ctx *c,
			      const struct ax_html_of *r)
{
	const char *s = ax_html_str(r->label);
	if (*s || r->is_run || !c->d->runs)
		return s;
	/* A result without its run's label: the run row may have it. */
	for (size_t i = 0; i < c->d->runs->n; i++) {
		const struct ax_db_run_row *run = c->d->runs->v[i];
		if (run->id == r->run_id &&
		    !strcmp(ax_html_str(run->source), ax_html_str(r->source)))
			return ax_html_str(run->label);
	}
	return "";
}

bool ax_html_is_tune(const struct ax_db_result_row *r)
{
	return r->tune_session != 0;
}

bool ax_html_counted(const struct ax_html_ctx *c,
		     const struct ax_db_result_row *r)
{
	if (ax_html_is_tune(r))
		return c->d->include_tune;
	return !ax_html_collect_left_out(c->history, r);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *ax_html_run_name(const struct ax_html_ctx *c, const char *source,
			     int64_t run_id, char *buf, size_t len)
{
	const char *src = ax_html_str(source);
	if (c->d->n_sources > 1 && *src)
		snprintf(buf, len, "%s run %lld", base_name(src),
			 (long long)run_id);
	else
		snprintf(buf, len, "run %lld", (long long)run_id);
	return buf;
}

static void dev_key(const struct ax_db_device_row *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s\x1f%s", ax_html_str(d->fingerprint),
		 ax_html_str(d->name));
}

static void host_key(const struct ax_db_host_row *h, char *buf, size_t len)
{
	snprintf(buf, len, "%s\x1f%s\x1f%.0f", ax_html_str(h->hostname),
		 ax_html_str(h->cpu_model),
		 h->id ? ax_html_int(h->cores) : NAN);
}

void ax_html_system_key(enum ax_html_label_by by, const char *label,
			const struct ax_html_of *r, char *buf, size_t len)
{
	char dk[640], hk[640];
	dev_key(r->device, dk, sizeof(dk));
	host_key(r->host, hk, sizeof(hk));
	switch (by) {
	case AX_HTML_BY_RUN:
		snprintf(buf, len, "R\x1f%s\x1f%lld", ax_html_str(r->source),
			 (long long)r->run_id);
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
static void sys_key(const struct ax_html_ctx *c, const struct ax_html_of *r,
		    char *buf, size_t len)
{
	ax_html_system_key(c->d->label_by, ax_html_run_label(c, r), r, buf,
			   len);
}

static const char *dev_name(const struct ax_html_of *r)
{
	const char *s = ax_html_str(r->device->name);
	return *s ? s : "unnamed device";
}

static const char *host_name(const struct ax_html_of *r)
{
	const char *s = ax_html_str(r->host->hostname);
	return *s ? s : "unnamed host";
}

static char *base_sys_name(const struct ax_html_ctx *c,
			   const struct ax_html_of *r)
{
	char buf[1024], run[300];
	const char *label = ax_html_run_label(c, r);
	switch (c->d->label_by) {
	case AX_HTML_BY_RUN:
		ax_html_run_name(c, r->source, r->run_id, run, sizeof(run));
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
		const struct ax_html_of *a = &c->sys[i].first;
		for (int j = 0; j < c->n_sys; j++) {
			if (!base[i] || !base[j] || strcmp(base[i], base[j]))
				continue;
			const struct ax_html_of *b = &c->sys[j].first;
			dups++;
			nth += j <= i;
			dev |= strcmp(dev_name(a), dev_name(b)) != 0;
			host |= strcmp(host_name(a), host_name(b)) != 0;
			src |= strcmp(ax_html_str(a->source),
				      ax_html_str(b->source)) != 0;
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
				 base_name(ax_html_str(a->source)));
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

static int sys_of_cmp(const void *x, const void *y)
{
	const struct ax_html_sys_of *a = x, *b = y;
	uintptr_t p = (uintptr_t)a->row, q = (uintptr_t)b->row;
	return (p > q) - (p < q);
}

/* Remember that row belongs to system i. */
static int mark_system(struct ax_html_ctx *c, const void *row, int i)
{
	struct ax_html_sys_of *grown =
	    realloc(c->sys_of, sizeof(*grown) * (c->n_sys_of + 1));
	if (!grown)
		return AX_ENOMEM;
	c->sys_of = grown;
	c->sys_of[c->n_sys_of++] = (struct ax_html_sys_of){row, i};
	return 0;
}

/* The index of the system keyed key, or c->n_sys when there is none. */
static int find_system(const struct ax_html_ctx *c, const char *key)
{
	int i = 0;
	while (i < c->n_sys && strcmp(c->sys[i].key, key))
		i++;
	return i;
}

static int new_system(struct ax_html_ctx *c, const char *key,
		      const struct ax_html_of *who)
{
	struct ax_html_sys *grown =
	    realloc(c->sys, sizeof(*grown) * (size_t)(c->n_sys + 1));
	if (!grown)
		return AX_ENOMEM;
	c->sys = grown;
	struct ax_html_sys *s = &c->sys[c->n_sys];
	memset(s, 0, sizeof(*s));
	s->key = strdup(key);
	s->first = *who;
	s->name = base_sys_name(c, who);
	c->n_sys++;
	return s->key && s->name ? 0 : AX_ENOMEM;
}

/* How add_to_system joins a row to its system. */
enum join {
	JOIN_RESULT, /* a result shown: makes its system when new */
	JOIN_ONLY,   /* a result not shown (a tuning session's): joins a
			system that exists, makes none, counts in none */
	JOIN_RUN,    /* a run: joins a system that exists (makes one only
			where there are no results at all) */
};

/* The system of who (of row, a result, else run), made when it is new
 * and how allows. */
static int add_to_system(struct ax_html_ctx *c, const void *row,
			 const struct ax_html_of *who,
			 const struct ax_db_run_row *run, enum join how,
			 bool ok)
{
	char key[2048];
	if (!who->device->id)
		return 0;
	sys_key(c, who, key, sizeof(key));
	int i = find_system(c, key);
	/* A run without results (a monitor's, or one emptied by the
	 * selection), or a result the report does not show, makes no
	 * system: a column with nothing in it would leave the overview
	 * without a shared case. */
	if (i == c->n_sys &&
	    (how == JOIN_ONLY || (how == JOIN_RUN && c->d->results->n)))
		return 0;
	if (i == c->n_sys && new_system(c, key, who))
		return AX_ENOMEM;
	struct ax_html_sys *s = &c->sys[i];
	if (mark_system(c, row, i))
		return AX_ENOMEM;
	if (run) {
		const struct ax_db_run_row **grown =
		    realloc(s->runs, sizeof(*grown) * (s->n_runs + 1));
		if (!grown)
			return AX_ENOMEM;
		s->runs = grown;
		s->runs[s->n_runs++] = run;
	} else if (how == JOIN_RESULT) {
		s->n_ok += ok;
		s->n_bad += !ok;
	}
	return 0;
}

int ax_html_system_of(const struct ax_html_ctx *c, const void *row)
{
	struct ax_html_sys_of want = {row, -1};
	const struct ax_html_sys_of *at =
	    c->n_sys_of ? bsearch(&want, c->sys_of, c->n_sys_of,
				  sizeof(*c->sys_of), sys_of_cmp)
			: NULL;
	return at ? at->sys : -1;
}

int ax_html_session_system(const struct ax_html_ctx *c,
			   const struct ax_db_session_row *s)
{
	const char *src = ax_html_str(s->source);
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		if (r->tune_session > 0 && r->tune_session == s->id &&
		    !strcmp(ax_html_str(r->source), src))
			return ax_html_system_of(c, r);
	}
	char want[640], k[640];
	dev_key(&s->device, want, sizeof(want));
	for (int j = 0; j < c->n_sys; j++) {
		dev_key(c->sys[j].first.device, k, sizeof(k));
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
	if (i < 0 || i >= c->n_sys) {
		/* A tuning session's result on no system of the report
		 * (its run is no system: ax_html_kind_shown). */
		fputs("<span class=\"sys\">no system of this report</span>",
		      c->f);
		return;
	}
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
static bool preferred(const struct ax_db_result_row *a,
		      const struct ax_db_result_row *b)
{
	return strcmp(ax_html_str(a->started_at), ax_html_str(b->started_at)) >=
	       0;
}

static int case_cmp(const void *x, const void *y)
{
	const struct ax_html_case *a = x, *b = y;
	int k = strcmp(a->suite, b->suite);
	if (!k)
		k = strcmp(a->unit, b->unit);
	return k ? k : ax_html_label_cmp(a->label, b->label);
}

/* The key of r's case: suite, unit and parameters (their hash, else
 * the parameters themselves). */
static void case_key(const struct ax_db_result_row *r, char *key, size_t len)
{
	char *params = NULL;
	const char *hash = ax_html_str(r->params_hash);
	if (!*hash) {
		json_t *doc = ax_db_params_json(&r->params, r->params_doc);
		params = json_dumps(doc, JSON_SORT_KEYS | JSON_COMPACT |
					     JSON_ENCODE_ANY);
		json_decref(doc);
	}
	snprintf(key, len, "%s\x1f%s\x1f%s", ax_html_str(r->suite),
		 ax_html_str(r->unit),
		 *hash	  ? hash
		 : params ? params
			  : "");
	free(params);
}

/* A new case of r (index[key] its index). */
static struct ax_html_case *new_case(struct ax_html_ctx *c, json_t *index,
				     const char *key,
				     const struct ax_db_result_row *r)
{
	struct ax_html_case *grown =
	    realloc(c->cases, sizeof(*grown) * (size_t)(c->n_cases + 1));
	if (!grown)
		return NULL;
	c->cases = grown;
	struct ax_html_case *k = &c->cases[c->n_cases];
	memset(k, 0, sizeof(*k));
	k->suite = ax_html_str(r->suite);
	k->unit = ax_html_str(r->unit);
	k->label = ax_html_case_label(r);
	k->by_sys = calloc((size_t)c->n_sys + 1, sizeof(*k->by_sys));
	json_object_set_new(index, key, json_integer(c->n_cases++));
	return k->label && k->by_sys ? k : NULL;
}

static int build_cases(struct ax_html_ctx *c)
{
	/* A string map (a jansson object): case key -> index. */
	json_t *index = json_object();
	if (!index)
		return AX_ENOMEM;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		int s = ax_html_system_of(c, r);
		if (s < 0)
			continue;
		if (!ax_html_counted(c, r)) {
			c->n_tune_left += ax_html_is_tune(r);
			continue;
		}
		char key[1024];
		case_key(r, key, sizeof(key));
		const json_t *at = json_object_get(index, key);
		struct ax_html_case *k = at ? &c->cases[json_integer_value(at)]
					    : new_case(c, index, key, r);
		if (!k) {
			json_decref(index);
			return AX_ENOMEM;
		}
		/* The direction of the newest result of the case. */
		k->hib = r->higher_is_better;
		if (!k->by_sys[s] || preferred(r, k->by_sys[s]))
			k->by_sys[s] = r;
	}
	json_decref(index);
	if (c->n_cases)
		qsort(c->cases, (size_t)c->n_cases, sizeof(*c->cases),
		      case_cmp);
	return 0;
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
	const struct ax_html_of *r = &c->sys[i].first;
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

/* Every result and run into its system: the results shown first, so
 * that they make the systems, then those that only join one (a tuning
 * session's on a system it shares), then the runs of the kinds shown,
 * oldest first, so that a system lists its runs in order. */
static int add_all(struct ax_html_ctx *c)
{
	const struct ax_db_results *res = c->d->results;
	const struct ax_db_runs *runs = c->d->runs;
	int rc = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < res->n && !rc; i++) {
			const struct ax_db_result_row *r = res->v[i];
			struct ax_html_of who = ax_html_of_result(r);
			bool shown = ax_html_counted(c, r);
			if (shown == (pass == 0))
				rc = add_to_system(
				    c, r, &who, NULL,
				    shown ? JOIN_RESULT : JOIN_ONLY, r->ok);
		}
	for (size_t k = runs ? runs->n : 0; k-- > 0 && !rc;) {
		const struct ax_db_run_row *run = runs->v[k];
		struct ax_html_of who = ax_html_of_run(run);
		if (ax_html_kind_shown(run->kind, c->d->include_tune,
				       c->d->all_kinds))
			rc = add_to_system(c, run, &who, run, JOIN_RUN, true);
	}
	return rc;
}

int ax_html_systems_init(struct ax_html_ctx *c, char *err, size_t errlen)
{
	int rc = add_all(c);
	if (!rc) {
		if (c->n_sys_of)
			qsort(c->sys_of, c->n_sys_of, sizeof(*c->sys_of),
			      sys_of_cmp);
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
		free(c->sys[i].runs);
	}
	free(c->sys);
	for (int i = 0; i < c->n_cases; i++) {
		free(c->cases[i].label);
		free(c->cases[i].by_sys);
	}
	free(c->cases);
	free(c->sys_of);
	c->sys = NULL;
	c->cases = NULL;
	c->sys_of = NULL;
	c->n_sys_of = 0;
	c->n_sys = c->n_cases = 0;
}

/* ---- the systems table ------------------------------------------------- */

/* A field of system i as text into buf; off: where the row below holds
 * it. */
typedef void (*field_fn)(const struct ax_html_ctx *c, int i, const char *key,
			 size_t off, char *buf, size_t len);

/* A text of the device or host row at off, or "not recorded". */
static void text_at(const void *row, size_t off, char *buf, size_t len)
{
	const char *v = *(const char *const *)((const char *)row + off);
	snprintf(buf, len, "%s", v && *v ? v : "not recorded");
}

/* A text of the system's device. */
static void dev_field(const struct ax_html_ctx *c, int i, const char *key,
		      size_t off, char *buf, size_t len)
{
	(void)key;
	text_at(c->sys[i].first.device, off, buf, len);
}

/* A text of the system's host, or its CPU cores. */
static void host_field(const struct ax_html_ctx *c, int i, const char *key,
		       size_t off, char *buf, size_t len)
{
	const struct ax_db_host_row *h = c->sys[i].first.host;
	if (strcmp(key, "host.cores"))
		text_at(h, off, buf, len);
	else if (h->id && h->cores != AX_DB_NONE)
		snprintf(buf, len, "%g", (double)h->cores);
	else
		snprintf(buf, len, "not recorded");
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

/* The command line, joined as a shell would need it typed. */
static void argv_value(const struct ax_db_run_row *run, FILE *f)
{
	for (int i = 0; i < run->argc; i++) {
		if (i)
			fputc(' ', f);
		shell_word(f, run->argv[i] ? run->argv[i] : "?");
	}
}

/* One run's value of key: the stored text, the command line joined. */
static void run_value(const struct ax_db_run_row *run, const char *key, FILE *f)
{
	const char *v = !strcmp(key, "profile")		  ? run->profile
			: !strcmp(key, "git_sha")	  ? run->git_sha
			: !strcmp(key, "axbench_version") ? run->axbench_version
			: !strcmp(key, "label")		  ? run->label
							  : NULL;
	if (!strcmp(key, "argv") && (run->argc || json_is_array(run->argv_doc)))
		argv_value(run, f);
	else if (v && *v)
		fputs(v, f);
	else if (!strcmp(key, "label"))
		fputs("none", f);
	else
		fputs("not recorded", f);
}

/* A run-level field lists at most this many distinct values, the
 * newest: a year of nightly runs is not a table cell. */
#define RUN_FIELD_MAX 6

/* One run's text for key (the caller frees; NULL on failure). */
static char *run_text(const struct ax_html_ctx *c,
		      const struct ax_db_run_row *run, const char *key)
{
	char *v = NULL, name[300];
	size_t vl = 0;
	FILE *m = open_memstream(&v, &vl);
	if (!m)
		return NULL;
	if (!strcmp(key, "id"))
		fprintf(m, "%s (%s, %s)",
			ax_html_run_name(c, run->source, run->id, name,
					 sizeof(name)),
			ax_html_str(run->started_at), ax_html_str(run->status));
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
		      size_t off, char *buf, size_t len)
{
	const struct ax_html_sys *sy = &c->sys[i];
	char **vals = calloc(sy->n_runs + 1, sizeof(char *));
	size_t n = 0, used = 0;
	(void)off;
	buf[0] = 0;
	/* Newest first, so that the values kept are the newest. */
	for (size_t k = sy->n_runs; vals && k-- > 0;) {
		char *v = run_text(c, sy->runs[k], key);
		size_t j = 0;
		while (v && j < n && strcmp(vals[j], v))
			j++;
		if (v && *v && j == n)
			vals[n++] = v;
		else
			free(v);
	}
	size_t shown = n > RUN_FIELD_MAX ? RUN_FIELD_MAX : n;
	if (n > shown)
		used +=
		    (size_t)snprintf(buf, len, "(%zu earlier %s)", n - shown,
				     strcmp(key, "id") ? "values" : "runs");
	for (size_t k = shown; k-- > 0 && used + 1 < len;)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? "\n" : "", vals[k]);
	for (size_t k = 0; k < n; k++)
		free(vals[k]);
	free(vals);
	if (!buf[0])
		snprintf(buf, len, "%s",
			 !strcmp(key, "label") ? "none" : "no run recorded");
}

static void results_field(const struct ax_html_ctx *c, int i, const char *key,
			  size_t off, char *buf, size_t len)
{
	(void)key;
	(void)off;
	snprintf(buf, len, "%d ok, %d not ok", c->sys[i].n_ok, c->sys[i].n_bad);
}

static void source_field(const struct ax_html_ctx *c, int i, const char *key,
			 size_t off, char *buf, size_t len)
{
	(void)key;
	(void)off;
	snprintf(buf, len, "%s", ax_html_str(c->sys[i].first.source));
}

struct sys_row {
	const char *key, *title;
	field_fn fn;
	bool code;  /* shown as code (command lines, hashes) */
	size_t off; /* where dev_field and host_field find it */
};

#define DEV(f) offsetof(struct ax_db_device_row, f)
#define HOST(f) offsetof(struct ax_db_host_row, f)

static const struct sys_row sys_rows[] = {
    {"label", "Run label", run_field, false, 0},
    {"name", "Device", dev_field, false, DEV(name)},
    {"vendor", "Vendor", dev_field, false, DEV(vendor)},
    {"type", "Type", dev_field, false, DEV(type)},
    {"driver_name", "Driver", dev_field, false, DEV(driver_name)},
    {"driver_info", "Driver version", dev_field, false, DEV(driver_info)},
    {"api_version", "Vulkan API", dev_field, false, DEV(api_version)},
    {"pci_bus_id", "PCI bus id", dev_field, false, DEV(pci_bus_id)},
    {"device_uuid", "Device UUID", dev_field, true, DEV(device_uuid)},
    {"fingerprint", "Fingerprint", dev_field, true, DEV(fingerprint)},
    {"host.hostname", "Host", host_field, false, HOST(hostname)},
    {"host.cpu_model", "CPU", host_field, false, HOST(cpu_model)},
    {"host.cores", "CPU cores", host_field, false, 0},
    {"source", "Database", source_field, true, 0},
    {"id", "Runs", run_field, false, 0},
    {"profile", "Profile", run_field, false, 0},
    {"git_sha", "Commit", run_field, true, 0},
    {"axbench_version", "axbench version", run_field, false, 0},
    {"argv", "Command line", run_field, true, 0},
    {"results", "Results", results_field, false, 0},
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
	row->fn(c, 0, row->key, row->off, first, sizeof(first));
	for (int i = 1; i < n && same; i++) {
		row->fn(c, i, row->key, row->off, v, sizeof(v));
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
		row->fn(c, i, row->key, row->off, v, sizeof(v));
		fputs("<td>", c->f);
		cell_text(c, v, row->code);
		fputs("</td>", c->f);
	}
	fputs("</tr>\n", c->f);
}

void ax_html_section_systems(struct ax_html_ctx *c)
{
	ax_html_h2(c, "system", "Systems");
	if (c->n_sys == 0 && c->history->n_read) {
		/* Only tuning sessions' or other kinds' results. */
		ax_html_empty(c, "No plain run in the selected data: the "
				 "results of tune, recommend and ab runs make "
				 "no system. The Tuning section has tuning "
				 "sessions; --include-tune adds tune runs, "
				 "--runs naming a recommend or ab run adds "
				 "it.");
		return;
	}
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
