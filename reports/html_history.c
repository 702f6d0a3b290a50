/* reports/html_history.c - each result key (device, suite, parameters)
 * across runs, with the verdict of every run against the one before. */
#include "reports/compare.h"
#include "reports/html_escape.h"
#include "reports/html_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Key of a result across runs: device, suite, parameter hash. */
static void key_of(const json_t *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s\x1f%s\x1f%s\x1f%s",
		 ax_html_jstr(json_object_get(r, "device"), "fingerprint"),
		 ax_html_jstr(json_object_get(r, "device"), "name"),
		 ax_html_jstr(r, "suite"), ax_html_jstr(r, "params_hash"));
}

/* One run: its database and id (ids repeat across databases). */
static bool same_run(const json_t *a, const json_t *b)
{
	return ax_html_jnum(a, "run_id") == ax_html_jnum(b, "run_id") &&
	       !strcmp(ax_html_jstr(a, "source"), ax_html_jstr(b, "source"));
}

/* Results by start time, then their order in d->results: databases
 * read one after another still make one history. */
static int by_time(const void *x, const void *y)
{
	const json_t *const *a = x, *const *b = y;
	int c = strcmp(ax_html_jstr(*a, "started_at"),
		       ax_html_jstr(*b, "started_at"));
	return c ? c : (*a < *b ? -1 : *a > *b);
}

static double *values(const json_t *r, int *n)
{
	const json_t *a = json_object_get(r, "samples");
	double *x = malloc(sizeof(double) * (json_array_size(a) + 1));
	*n = 0;
	for (size_t i = 0; x && i < json_array_size(a); i++)
		if (json_is_number(json_array_get(a, i)))
			x[(*n)++] = json_number_value(json_array_get(a, i));
	return x;
}

/* Verdict cell of r against the previous result prev of its key. */
static bool verdict_cell(struct ax_html_ctx *c, const json_t *prev,
			 const json_t *r)
{
	struct ax_compare_opts o;
	struct ax_compare_stat st;
	int na, nb;
	ax_compare_opts_init(&o);
	double *a = values(prev, &na), *b = values(r, &nb);
	int rc = a && b
		     ? ax_compare_samples(
			   a, na, b, nb,
			   json_is_true(json_object_get(r, "higher_is_better")),
			   o.threshold, &o, &st, NULL, 0)
		     : -1;
	free(a);
	free(b);
	if (rc) {
		fputs("<td>not compared</td>", c->f);
		return false;
	}
	bool reg = st.verdict == AX_VERDICT_SLOWER;
	fprintf(c->f, "<td><span class=\"%s\">%s%s</span> <small>",
		ax_compare_verdict_name(st.verdict),
		ax_compare_verdict_name(st.verdict),
		reg ? " (regression)" : "");
	ax_html_escape(c->f, st.reason);
	fputs("</small></td>", c->f);
	return reg;
}

static void history_row(struct ax_html_ctx *c, const json_t *prev,
			const json_t *r, bool first, int *regressions)
{
	fputs("<tr><td>", c->f);
	if (first) {
		char *label = ax_html_case_label(r);
		ax_html_escape(c->f, ax_html_jstr(r, "suite"));
		fputs(" ", c->f);
		ax_html_escape(c->f, label);
		fputs(" on ", c->f);
		ax_html_escape(
		    c->f, ax_html_jstr(json_object_get(r, "device"), "name"));
		free(label);
	}
	char run[300];
	fputs("</td><td>", c->f);
	ax_html_system_chip(c, ax_html_system_of(c, r));
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, ax_html_run_name(c, r, run, sizeof(run)));
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, ax_html_jstr(r, "started_at"));
	fprintf(c->f, "</td><td class=\"num\">%.4g</td><td>",
		ax_html_jnum(r, "median"));
	ax_html_escape(c->f, ax_html_jstr(r, "unit"));
	fputs("</td>", c->f);
	if (prev)
		*regressions += verdict_cell(c, prev, r);
	else
		fputs("<td>first run</td>", c->f);
	fputs("</tr>\n", c->f);
}

/* Rows of one key, oldest first (sorted holds the results by time). */
static int history_key(struct ax_html_ctx *c, const json_t **sorted, size_t ns,
		       const char *key, int *regs)
{
	const json_t *prev = NULL;
	int n = 0;
	for (size_t i = 0; i < ns; i++) {
		const json_t *r = sorted[i];
		char k[800];
		key_of(r, k, sizeof(k));
		if (!ax_html_ok(r) || strcmp(k, key) ||
		    (ax_html_is_tune(r) && !c->d->include_tune))
			continue;
		if (prev && same_run(prev, r))
			continue; /* a repeat within one run */
		history_row(c, prev, r, n == 0, regs);
		prev = r;
		n++;
	}
	return n;
}

/* Keys with results in at least two runs, in first-seen order. */
static json_t *repeated_keys(const struct ax_html_ctx *c)
{
	json_t *runs = json_object(), *keys = json_array();
	size_t i;
	json_t *r;
	json_array_foreach(c->d->results, i, r)
	{
		char k[800], run[600];
		/* A tuning session measures with its own settings: against
		 * a run's figure of the same point it would read as a
		 * change that is none. */
		if (!ax_html_ok(r) ||
		    (ax_html_is_tune(r) && !c->d->include_tune))
			continue;
		key_of(r, k, sizeof(k));
		json_t *first = json_object_get(runs, k);
		snprintf(run, sizeof(run), "%s\x1f%.0f",
			 ax_html_jstr(r, "source"), ax_html_jnum(r, "run_id"));
		if (!first) {
			json_object_set_new(runs, k, json_string(run));
		} else if (json_is_string(first) &&
			   strcmp(json_string_value(first), run)) {
			json_array_append_new(keys, json_string(k));
			json_object_set_new(runs, k, json_null()); /* listed */
		}
	}
	json_decref(runs);
	return keys;
}

void ax_html_section_history(struct ax_html_ctx *c)
{
	json_t *keys = repeated_keys(c), *k;
	size_t i;
	int regs = 0;
	ax_html_h2(c, "history", "History across runs");
	if (json_array_size(keys) == 0) {
		ax_html_empty(c, "No device, suite and parameters were "
				 "measured in more than one of the selected "
				 "runs.");
		json_decref(keys);
		return;
	}
	size_t ns = json_array_size(c->d->results);
	const json_t **sorted = calloc(ns + 1, sizeof(*sorted));
	if (!sorted) {
		json_decref(keys);
		return;
	}
	for (size_t j = 0; j < ns; j++)
		sorted[j] = json_array_get(c->d->results, j);
	qsort(sorted, ns, sizeof(*sorted), by_time);
	fputs("<p>Each run against the run before it on the same device, "
	      "from the raw samples (Mann-Whitney U, Hodges-Lehmann shift "
	      "with a 95 % interval, 2 % minimum effect). Change is + when "
	      "better.</p>\n<table><tr><th>Result</th><th>System</th>"
	      "<th>Run</th><th>Started</th><th>Median</th><th>Unit</th>"
	      "<th>Verdict against the previous run</th></tr>\n",
	      c->f);
	json_array_foreach(keys, i, k) if (!ax_html_stopped(c))
	    history_key(c, sorted, ns, json_string_value(k), &regs);
	fprintf(c->f, "</table>\n<p>%d regression%s marked.</p>\n", regs,
		regs == 1 ? "" : "s");
	free(sorted);
	json_decref(keys);
}
