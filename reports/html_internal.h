/*
 * reports/html_internal.h - what the files of the HTML report share: the
 * context of one report being written, its systems and cases, and small
 * JSON accessors.  Not a public interface; only reports/html*.c include
 * it.
 */
#ifndef AX_HTML_INTERNAL_H
#define AX_HTML_INTERNAL_H

#include "reports/html.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * A system: one column of the report and one colour in every chart.  What
 * makes one is d->label_by (html_systems.c): a run label (else host and
 * device), a run, a device or a host.  The first result or run seen gives
 * its device and host.
 */
struct ax_html_sys {
	char *key;	     /* what results of this system share */
	char *name;	     /* shown everywhere; unique in the report */
	const json_t *first; /* the first result or run of it (borrowed) */
	json_t *runs;	     /* its run objects of d->runs (borrowed refs
				kept), oldest first */
	int n_ok, n_bad;     /* its results, ok and not */
};

/* One case: a suite, unit and parameter set, with each system's newest
 * result, ok or not (NULL: not measured). */
struct ax_html_case {
	const char *suite, *unit; /* borrowed from the results */
	bool hib;		  /* higher is better */
	char *label;		  /* every parameter, "k=v k=v" */
	const json_t **by_sys;	  /* n_sys entries */
};

struct ax_html_ctx {
	FILE *f;
	const struct ax_html_data *d;
	struct ax_html_sys *sys;
	int n_sys;
	int ref;	 /* index of the reference system */
	json_t *sys_of;	 /* "%p" of a result or run -> its system index */
	int n_runs;	 /* distinct runs among the results */
	int n_tune_left; /* tuning results left out of the case charts */
	struct ax_html_case *cases; /* sorted by suite, then parameters */
	int n_cases;
	/* The history and the counts of everything read: d->history, or
	 * one built from d->results (then owned, own_history). */
	struct ax_html_collect *history;
	struct ax_html_collect local_history;
	bool own_history;
};

/* What a table shows for a figure that was not measured (JSON null):
 * an em dash, never a 0. */
#define AX_HTML_DASH "\xe2\x80\x94"
#define AX_HTML_TIMES "\xc3\x97"

/* A ratio within this share of 1 is a tie in the overview and beside
 * each bar: closer than most runs repeat on a quiet machine. */
#define AX_HTML_TIE 0.02

/* The history marks a run whose median moved more than this share from
 * the run before (and whose interval does not overlap that run's):
 * compare's default minimum effect. */
#define AX_HTML_CHANGE 0.02

/* Has the caller asked the report to stop (d->stop)?  Long loops check it
 * once per chart or group. */
bool ax_html_stopped(const struct ax_html_ctx *c);
/* String member or "" (never NULL). */
const char *ax_html_jstr(const json_t *o, const char *key);
/* Number member (integer or real) or NAN. */
double ax_html_jnum(const json_t *o, const char *key);

/* ---- systems (html_systems.c) ----------------------------------------- */

/* Build c->sys, c->sys_of, c->cases and c->ref; 0, AX_ENOMEM, or
 * AX_EINVAL (message in err) when d->reference names no system or more
 * than one. */
int ax_html_systems_init(struct ax_html_ctx *c, char *err, size_t errlen);
void ax_html_systems_release(struct ax_html_ctx *c);
/* The key of r's system under by (label: its run label, "" if none):
 * results with one key make one system. */
void ax_html_system_key(enum ax_html_label_by by, const char *label,
			const json_t *r, char *buf, size_t len);
/* Index of the system of a result or run object of d (-1 if none). */
int ax_html_system_of(const struct ax_html_ctx *c, const json_t *r);
/* System of a tuning session: of the results it measured, else the
 * first on its device (-1 if none). */
int ax_html_session_system(const struct ax_html_ctx *c, const json_t *s);
/* Display name of system i ("unknown system" for -1; borrowed). */
const char *ax_html_system_name(const struct ax_html_ctx *c, int i);
/* "run 3", or "b.db run 3" where the report reads several databases
 * (into buf). */
const char *ax_html_run_name(const struct ax_html_ctx *c, const json_t *r,
			     char *buf, size_t len);
/* The run label of a result or run ("" when it has none). */
const char *ax_html_run_label(const struct ax_html_ctx *c, const json_t *r);
/* Is r a measurement of a tuning session (trial, re-timing, defaults)? */
bool ax_html_is_tune(const json_t *r);
/* A coloured swatch and "#n name" of system i, as HTML. */
void ax_html_system_chip(const struct ax_html_ctx *c, int i);

/* The ratio of value v against the reference's ref, > 1 when v is
 * better (inverted for lower-is-better units); NAN when either is not a
 * positive figure. */
double ax_html_ratio(double v, double ref, bool hib);
/* "1.25× faster", "0.80× (20 % slower)", "1.01× (tie)" into buf. */
const char *ax_html_ratio_text(double ratio, char *buf, size_t len);

/* ---- results ----------------------------------------------------------- */

/* "case" of a result, or its parameters as "k=v k=v" (caller frees). */
char *ax_html_case_label(const json_t *r);
/* True when r's status is "ok". */
bool ax_html_ok(const json_t *r);
/* Move the "name=value" tokens that every one of the n labels holds out
 * of them (in place) into common, space-separated: a chart shows what
 * varies in its labels and the rest once. */
void ax_html_strip_common(char **labels, int n, char *common, size_t clen);
/* Case labels in order: token by token, numbers (with K/M/G) as numbers. */
int ax_html_label_cmp(const char *a, const char *b);
/* Badge words of r ("noisy", "failed verification", "throttled" ...)
 * joined by ", " into buf; "" when none. */
void ax_html_badges(const json_t *r, char *buf, size_t len);
/* A stored stop reason in words: "time-limit" is "time limit reached". */
const char *ax_html_stop_words(const char *stop_reason);
/* A status in words: "failed-verification" is "failed verification". */
const char *ax_html_status_words(const char *status);

/* <h2> with an id, escaped. */
void ax_html_h2(struct ax_html_ctx *c, const char *id, const char *title);
/* The one line a section shows when it has no data. */
void ax_html_empty(struct ax_html_ctx *c, const char *what);

/* Sections (html_systems.c, html_suites.c, html_curves.c, html_tuner.c,
 * html_efficiency.c, html_telemetry.c, html_history.c). */
void ax_html_section_overview(struct ax_html_ctx *c);
void ax_html_section_systems(struct ax_html_ctx *c);
void ax_html_section_medians(struct ax_html_ctx *c);
void ax_html_section_attention(struct ax_html_ctx *c);
void ax_html_section_roofline(struct ax_html_ctx *c);
void ax_html_section_curves(struct ax_html_ctx *c);
void ax_html_section_tuner(struct ax_html_ctx *c);
void ax_html_section_history(struct ax_html_ctx *c);
/* The raw samples of d->sampled as box and strip plots (html_samples.c). */
void ax_html_section_samples(struct ax_html_ctx *c);
/* The history's series as a <script type="application/json"
 * id="axbench-history"> block (html_history.c). */
void ax_html_history_json(struct ax_html_ctx *c);
void ax_html_section_efficiency(struct ax_html_ctx *c);
/* Part of the efficiency section: sustained results' "telemetry" series
 * against time; writes nothing when no result has one. */
void ax_html_section_telemetry(struct ax_html_ctx *c);

#endif
