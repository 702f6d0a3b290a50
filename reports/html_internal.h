/*
 * reports/html_internal.h - what the files of the HTML report share: the
 * context of one report being written, its systems and cases.  Not a
 * public interface; only reports/html*.c include
 * it.
 */
#ifndef AX_HTML_INTERNAL_H
#define AX_HTML_INTERNAL_H

#include "reports/html.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * What a result row or a run row says of the system it belongs to: its
 * device and host (the row's own, borrowed), its database and run, and
 * the run label it carries.
 */
struct ax_html_of {
	const struct ax_db_device_row *device;
	const struct ax_db_host_row *host;
	const char *source; /* NULL: the only database */
	int64_t run_id;
	const char *label; /* a result's run_label, a run's label */
	bool is_run;
};
struct ax_html_of ax_html_of_result(const struct ax_db_result_row *r);
struct ax_html_of ax_html_of_run(const struct ax_db_run_row *r);

/*
 * A system: one column of the report and one colour in every chart.  What
 * makes one is d->label_by (html_systems.c): a run label (else host and
 * device), a run, a device or a host.  The first result or run seen gives
 * its device and host.
 */
struct ax_html_sys {
	char *key;		 /* what results of this system share */
	char *name;		 /* shown everywhere; unique in the report */
	struct ax_html_of first; /* its first result or run */
	const struct ax_db_run_row **runs; /* its runs of d->runs, oldest
					      first */
	size_t n_runs;
	int n_ok, n_bad; /* its results, ok and not */
};

/* One case: a suite, unit and parameter set, with each system's newest
 * result, ok or not (NULL: not measured). */
struct ax_html_case {
	const char *suite, *unit; /* borrowed from the results ("" for none) */
	bool hib;		  /* higher is better */
	char *label;		  /* every parameter, "k=v k=v" */
	const struct ax_db_result_row **by_sys; /* n_sys entries */
};

/* A row (result or run) and its system, for ax_html_system_of. */
struct ax_html_sys_of {
	const void *row;
	int sys;
};

struct ax_html_ctx {
	FILE *f;
	const struct ax_html_data *d;
	struct ax_html_sys *sys;
	int n_sys;
	int ref;		       /* index of the reference system */
	struct ax_html_sys_of *sys_of; /* by row address */
	size_t n_sys_of;
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
/* s, or "" for NULL: what the report shows of a text not stored. */
const char *ax_html_str(const char *s);
/* An integer that may not be stored (AX_DB_NONE) as a figure: NAN. */
double ax_html_int(int64_t v);
/* A parameter's value as the embedded document shows it: text bare,
 * anything else as its compact JSON (into buf). */
const char *ax_html_param_text(const struct ax_db_param *p, char *buf,
			       size_t len);
/* Is the power row measured (present) and throttled? */
bool ax_html_throttled(const struct ax_db_result_row *r);

/* ---- systems (html_systems.c) ----------------------------------------- */

/* Build c->sys, c->sys_of, c->cases and c->ref; 0, AX_ENOMEM, or
 * AX_EINVAL (message in err) when d->reference names no system or more
 * than one. */
int ax_html_systems_init(struct ax_html_ctx *c, char *err, size_t errlen);
void ax_html_systems_release(struct ax_html_ctx *c);
/* The key of r's system under by (label: its run label, "" if none):
 * results with one key make one system. */
void ax_html_system_key(enum ax_html_label_by by, const char *label,
			const struct ax_html_of *r, char *buf, size_t len);
/* Index of the system of a result or run row of d (-1 if none). */
int ax_html_system_of(const struct ax_html_ctx *c, const void *row);
/* System of a tuning session: of the results it measured, else the
 * first on its device (-1 if none). */
int ax_html_session_system(const struct ax_html_ctx *c,
			   const struct ax_db_session_row *s);
/* Display name of system i ("unknown system" for -1; borrowed). */
const char *ax_html_system_name(const struct ax_html_ctx *c, int i);
/* "run 3", or "b.db run 3" where the report reads several databases
 * (into buf): the run run_id of database source. */
const char *ax_html_run_name(const struct ax_html_ctx *c, const char *source,
			     int64_t run_id, char *buf, size_t len);
/* The run label of a result or run ("" when it has none). */
const char *ax_html_run_label(const struct ax_html_ctx *c,
			      const struct ax_html_of *r);
/* Is r a measurement of a tuning session (trial, re-timing, defaults)? */
bool ax_html_is_tune(const struct ax_db_result_row *r);
/* Does r make its system and count in its case: not a tuning session's
 * (unless include_tune), not of a run whose kind is not shown
 * (ax_html_kind_shown)?  A result that does not may still join a
 * system that exists. */
bool ax_html_counted(const struct ax_html_ctx *c,
		     const struct ax_db_result_row *r);
/* A coloured swatch and "#n name" of system i, as HTML; for -1 (a
 * tuning session's result on no system) words saying so. */
void ax_html_system_chip(const struct ax_html_ctx *c, int i);

/* The ratio of value v against the reference's ref, > 1 when v is
 * better (inverted for lower-is-better units); NAN when either is not a
 * positive figure. */
double ax_html_ratio(double v, double ref, bool hib);
/* "1.25× faster", "0.80× (20 % slower)", "1.01× (tie)" into buf. */
const char *ax_html_ratio_text(double ratio, char *buf, size_t len);

/* ---- results ----------------------------------------------------------- */

/* "case" of a result, or its parameters as "k=v k=v" (caller frees). */
char *ax_html_case_label(const struct ax_db_result_row *r);
/* Move the "name=value" tokens that every one of the n labels holds out
 * of them (in place) into common, space-separated: a chart shows what
 * varies in its labels and the rest once. */
void ax_html_strip_common(char **labels, int n, char *common, size_t clen);
/* Case labels in order: token by token, numbers (with K/M/G) as numbers. */
int ax_html_label_cmp(const char *a, const char *b);
/* Badge words of r ("noisy", "failed verification", "throttled" ...)
 * joined by ", " into buf; "" when none. */
void ax_html_badges(const struct ax_db_result_row *r, char *buf, size_t len);
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
/* The model layers' latency percentiles and curve (html_latency.c);
 * nothing without such results. */
void ax_html_section_latency(struct ax_html_ctx *c);
/* Several devices (html_devices.c): the d2d matrix, split jobs, and
 * zero-copy against staging. */
void ax_html_section_devices(struct ax_html_ctx *c);
void ax_html_section_tuner(struct ax_html_ctx *c);
void ax_html_section_history(struct ax_html_ctx *c);
/* The raw samples of d->sampled as box and strip plots (html_samples.c). */
void ax_html_section_samples(struct ax_html_ctx *c);
/* The history's series as a <script type="application/json"
 * id="axbench-history"> block (html_history.c). */
void ax_html_history_json(struct ax_html_ctx *c);
void ax_html_section_efficiency(struct ax_html_ctx *c);
/* Part of the efficiency section: sustained results' telemetry series
 * against time; writes nothing when no result has one. */
void ax_html_section_telemetry(struct ax_html_ctx *c);

#endif
