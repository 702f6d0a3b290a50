/*
 * reports/html_internal.h - what the files of the HTML report share: the
 * context of one report being written and small JSON accessors.  Not a
 * public interface; only reports/html*.c include it.
 */
#ifndef AX_HTML_INTERNAL_H
#define AX_HTML_INTERNAL_H

#include "reports/html.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct ax_html_ctx {
	FILE *f;
	const struct ax_html_data *d;
	json_t *devices; /* distinct device objects, first seen first; the
			    index is the device's colour everywhere */
	int n_runs;	 /* distinct run ids among the results */
};

/* What a table shows for a figure that was not measured (JSON null):
 * an em dash, never a 0. */
#define AX_HTML_DASH "\xe2\x80\x94"

/* Has the caller asked the report to stop (d->stop)?  Long loops check it
 * once per chart or group. */
bool ax_html_stopped(const struct ax_html_ctx *c);
/* String member or "" (never NULL). */
const char *ax_html_jstr(const json_t *o, const char *key);
/* Number member (integer or real) or NAN. */
double ax_html_jnum(const json_t *o, const char *key);
/* Index of r's device in ctx->devices (-1 if none). */
int ax_html_device_index(const struct ax_html_ctx *c, const json_t *r);
/* Display name of device i, with "#n" added when names repeat (borrowed
 * from a static buffer until the next call). */
const char *ax_html_device_name(const struct ax_html_ctx *c, int i);
/* "case" of a result, or its parameters as "k=v k=v" (caller frees). */
char *ax_html_case_label(const json_t *r);
/* True when r's status is "ok". */
bool ax_html_ok(const json_t *r);
/* Move the "name=value" tokens that every one of the n labels holds out
 * of them (in place) into common, space-separated: a chart shows what
 * varies in its labels and the rest once. */
void ax_html_strip_common(char **labels, int n, char *common, size_t clen);
/* Badge words of r ("noisy", "time limit", "failed verification",
 * "throttled" ...) joined by ", " into buf; "" when none. */
void ax_html_badges(const json_t *r, char *buf, size_t len);

/* <h2> with an id, escaped. */
void ax_html_h2(struct ax_html_ctx *c, const char *id, const char *title);
/* The one line a section shows when it has no data. */
void ax_html_empty(struct ax_html_ctx *c, const char *what);

/* Sections (html_suites.c, html_curves.c, html_tuner.c,
 * html_efficiency.c, html_telemetry.c). */
void ax_html_section_medians(struct ax_html_ctx *c);
void ax_html_section_attention(struct ax_html_ctx *c);
void ax_html_section_roofline(struct ax_html_ctx *c);
void ax_html_section_curves(struct ax_html_ctx *c);
void ax_html_section_tuner(struct ax_html_ctx *c);
void ax_html_section_history(struct ax_html_ctx *c);
void ax_html_section_efficiency(struct ax_html_ctx *c);
/* Part of the efficiency section: sustained results' "telemetry" series
 * against time; writes nothing when no result has one. */
void ax_html_section_telemetry(struct ax_html_ctx *c);

#endif
