/* reports/html_suites.c - per case, one bar per system: the median with
 * its 95 % interval, the ratio to the reference and % of the measured
 * peak; and the list of results that need attention. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strverscmp */
#endif
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/suite_doc.h"
#include "reports/svg.h"

#include "core/specs.h"
#include "core/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bars in one chart at most: more become parts, so that a chart fits
 * a screen or two. */
#define BARS_PER_CHART 48

/* "64K" -> 65536, "37" -> 37; false when the text is not such a number. */
static bool label_number(const char *s, size_t len, double *out)
{
	char buf[32], *end;
	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	double v = strtod(buf, &end);
	const char *units = "KMG";
	const char *u = *end ? strchr(units, *end) : NULL;
	if (u && end[1] == 0)
		v *= pow(1024, (double)(u - units + 1));
	else if (*end)
		return false;
	*out = v;
	return true;
}

/* Case labels compare token by token ("name=value"), values as numbers
 * with K/M/G suffixes where they are numbers: chunk=64K before chunk=1M. */
int ax_html_label_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		size_t la = strcspn(a, " "), lb = strcspn(b, " ");
		const char *va = memchr(a, '=', la), *vb = memchr(b, '=', lb);
		double na, nb;
		int c = 0;
		if (va && vb && va - a == vb - b &&
		    !memcmp(a, b, (size_t)(va - a)) &&
		    label_number(va + 1, la - (size_t)(va + 1 - a), &na) &&
		    label_number(vb + 1, lb - (size_t)(vb + 1 - b), &nb))
			c = (na > nb) - (na < nb);
		else
			c = strncmp(a, b, la < lb ? la : lb);
		if (c == 0)
			c = (la > lb) - (la < lb);
		if (c)
			return c;
		a += la + (a[la] == ' ');
		b += lb + (b[lb] == ' ');
	}
	return (*a != 0) - (*b != 0);
}

/* Highest median of a compute-peak suite on system sys in unit, or
 * NAN. */
static double measured_peak(const struct ax_html_ctx *c, int sys,
			    const char *unit)
{
	double best = NAN;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		if (!r->ok ||
		    !ax_suite_info_row_has_role(c->d->suites, r,
						AX_ROLE_COMPUTE_PEAK) ||
		    strcmp(ax_html_str(r->unit), unit) ||
		    ax_html_system_of(c, r) != sys)
			continue;
		double m = r->median;
		if (isfinite(m) && !(m <= best))
			best = m;
	}
	return best;
}

/* Does every label hold token tok (a whole "name=value")? */
static bool token_everywhere(char *const *labels, int n, const char *tok,
			     size_t len)
{
	for (int i = 0; i < n; i++) {
		const char *l = labels[i];
		bool found = false;
		while (*l && !found) {
			size_t k = strcspn(l, " ");
			found = k == len && !memcmp(l, tok, len);
			l += k + (l[k] == ' ');
		}
		if (!found)
			return false;
	}
	return true;
}

/* Remove token tok (len bytes) from label l, in place. */
static void drop_token(char *l, const char *tok, size_t k)
{
	char *p = l;
	while (*p) {
		size_t m = strcspn(p, " ");
		if (m == k && !memcmp(p, tok, k)) {
			size_t skip = k + (p[k] == ' ');
			memmove(p, p + skip, strlen(p + skip) + 1);
			break;
		}
		p += m + (p[m] == ' ');
	}
	size_t len = strlen(l);
	if (len && l[len - 1] == ' ')
		l[len - 1] = 0;
}

/*
 * Parameters equal in every case of a chart say nothing about the bars:
 * they move into the title (common) and out of the labels, so the labels
 * show what varies and fit their column.
 */
void ax_html_strip_common(char **labels, int n, char *common, size_t clen)
{
	size_t used = 0;
	common[0] = 0;
	if (n < 2)
		return;
	char *first = strdup(labels[0]);
	for (char *t = first, *next; first && *t; t = next) {
		size_t k = strcspn(t, " ");
		next = t + k + (t[k] == ' ');
		if (!token_everywhere(labels, n, t, k))
			continue;
		if (used + k + 2 < clen) {
			used += (size_t)snprintf(common + used, clen - used,
						 "%s%.*s", used ? " " : "",
						 (int)k, t);
		}
		for (int i = 0; i < n; i++)
			drop_token(labels[i], t, k);
	}
	free(first);
}

/* ---- per case ---------------------------------------------------------- */

/* r against its device's vendor figure (core/specs.h: GFLOP/s by the
 * precision its parameters state, GB/s of a bandwidth-peak suite). */
static struct ax_spec_cmp spec_of(const struct ax_html_ctx *c,
				  const struct ax_db_result_row *r)
{
	/* core/specs.h reads parameters as a document; a row form of
	 * ax_specs_compare_result belongs there. */
	json_t *params = ax_db_params_json(&r->params, r->params_doc);
	struct ax_spec_cmp sc = ax_specs_compare(
	    c->d->specs, r->device.id ? r->device.vendor_id : -1,
	    r->device.id ? r->device.device_id : -1, r->unit, params,
	    ax_suite_info_row_has_role(c->d->suites, r, AX_ROLE_BANDWIDTH_PEAK),
	    r->ok ? r->median : NAN);
	json_decref(params);
	return sc;
}

/* " · 42% of spec" (nothing where no figure applies or none is known)
 * at text + n; the tooltip gets the product and the source, or why the
 * spec is unknown.  An unknown spec is said once per system, under the
 * charts (spec_unknown_notes), not on every bar. */
static size_t spec_texts(const struct ax_html_ctx *c,
			 const struct ax_db_result_row *r, const char *unit,
			 char *text, size_t n, size_t tl, char *tip, size_t pl)
{
	/* No specs file at all: the per-case section says so once, rather
	 * than "spec unknown" on every bar. */
	if (!c->d->specs)
		return n;
	struct ax_spec_cmp sc = spec_of(c, r);
	size_t used = strlen(tip);
	char pct[16];
	if (sc.status == AX_SPEC_COMPARED && n < tl) {
		/* Bounded (ax_text_percent): a wild figure stays one word. */
		ax_text_percent(sc.percent, 0, pct, sizeof(pct));
		n += (size_t)snprintf(text + n, tl - n, " \xc2\xb7 %s of spec",
				      pct);
		if (used < pl)
			snprintf(tip + used, pl - used,
				 "; %s of the %s %s figure, %.4g %s (%s)", pct,
				 sc.spec->name, ax_spec_figure_name(sc.figure),
				 sc.value, unit, sc.spec->source);
	} else if (sc.status == AX_SPEC_UNKNOWN) {
		if (used < pl)
			snprintf(tip + used, pl - used, "; spec unknown: %s",
				 sc.why);
	}
	return n;
}

/* The text beside system s's bar for case k: the median and half its
 * 95 % interval, then the ratio to the reference, % of the measured peak,
 * % of spec and badges; or why there is no bar. */
static void bar_texts(const struct ax_html_ctx *c, const struct ax_html_case *k,
		      int s, char *text, size_t tl, char *tip, size_t pl)
{
	const struct ax_db_result_row *r = k->by_sys[s],
				      *ref = k->by_sys[c->ref];
	char v[32], ratio[80], run[300], pct[16];
	size_t n;
	if (!r) {
		snprintf(text, tl, "not measured");
		snprintf(tip, pl, "%s did not measure this case",
			 ax_html_system_name(c, s));
		return;
	}
	ax_html_run_name(c, r->source, r->run_id, run, sizeof(run));
	if (!r->ok) {
		const char *why = ax_html_status_words(ax_html_str(r->status));
		const char *e = ax_html_str(r->error);
		snprintf(text, tl, "failed: %s (no figure)", why);
		snprintf(tip, pl, "%s, %s: %s%s%s", ax_html_system_name(c, s),
			 run, why, *e ? ": " : "", e);
		return;
	}
	double m = r->median;
	double lo = r->ci_lo, hi = r->ci_hi;
	ax_svg_format(m, AX_SVG_NUM, v, sizeof(v));
	n = (size_t)snprintf(text, tl, "%s", v);
	if (isfinite(lo) && isfinite(hi) && n < tl)
		n += (size_t)snprintf(text + n, tl - n, " \xc2\xb1%.2g",
				      (hi - lo) / 2);
	if (c->n_sys > 1 && n < tl) {
		if (s == c->ref)
			n += (size_t)snprintf(text + n, tl - n,
					      " \xc2\xb7 reference");
		else if (ref && ref->ok)
			n += (size_t)snprintf(
			    text + n, tl - n, " \xc2\xb7 %s",
			    ax_html_ratio_text(
				ax_html_ratio(m, ref->median, k->hib), ratio,
				sizeof(ratio)));
	}
	double peak = measured_peak(c, s, k->unit);
	if (isfinite(peak) && peak > 0 && n < tl &&
	    !ax_suite_info_row_has_role(c->d->suites, r, AX_ROLE_COMPUTE_PEAK))
		n += (size_t)snprintf(
		    text + n, tl - n, " \xc2\xb7 %s of measured peak",
		    ax_text_percent(100 * m / peak, 0, pct, sizeof(pct)));
	snprintf(tip, pl,
		 "%s, %s: median %.4g %s, 95 %% interval %.4g to %.4g, "
		 "%.0f samples, %s",
		 ax_html_system_name(c, s), run, m, k->unit, lo, hi,
		 ax_html_int(r->n),
		 ax_html_stop_words(ax_html_str(r->stop_reason)));
	n = spec_texts(c, r, k->unit, text, n, tl, tip, pl);
	if (ax_html_throttled(r) && n < tl)
		snprintf(text + n, tl - n, " [throttled]");
}

/* One chart of n cases of one suite and unit; labels are what varies. */
static void case_chart(struct ax_html_ctx *c, const struct ax_html_case *k,
		       char **labels, int n, int part, int parts)
{
	int ns = c->n_sys, nb = n * ns;
	struct ax_svg_group *g = calloc((size_t)n + 1, sizeof(*g));
	struct ax_svg_gbar *b = calloc((size_t)nb + 1, sizeof(*b));
	char(*texts)[300] = calloc((size_t)nb + 1, sizeof(*texts));
	char(*tips)[600] = calloc((size_t)nb + 1, sizeof(*tips));
	char(*tags)[16] = calloc((size_t)ns + 1, sizeof(*tags));
	const char **legend = calloc((size_t)ns + 1, sizeof(char *));
	char(*names)[400] = calloc((size_t)ns + 1, sizeof(*names));
	if (!g || !b || !texts || !tips || !tags || !legend || !names)
		goto out;
	for (int s = 0; s < ns; s++) {
		snprintf(tags[s], sizeof(tags[s]), "#%d", s + 1);
		snprintf(names[s], sizeof(names[s]), "#%d %s", s + 1,
			 ax_html_system_name(c, s));
		legend[s] = names[s];
	}
	for (int i = 0; i < n; i++) {
		for (int s = 0; s < ns; s++) {
			const struct ax_db_result_row *r = k[i].by_sys[s];
			int at = i * ns + s;
			bool ok = r && r->ok;
			bar_texts(c, &k[i], s, texts[at], sizeof(texts[at]),
				  tips[at], sizeof(tips[at]));
			b[at] =
			    (struct ax_svg_gbar){.series = s,
						 .tag = ns > 1 ? tags[s] : NULL,
						 .value = ok ? r->median : NAN,
						 .lo = ok ? r->ci_lo : NAN,
						 .hi = ok ? r->ci_hi : NAN,
						 .text = texts[at],
						 .tip = tips[at],
						 .alert = r && !ok};
		}
		g[i] = (struct ax_svg_group){
		    *labels[i] ? labels[i] : "(the parameters above)",
		    b + i * ns, ns};
	}
	char title[400], axis[200];
	int t = snprintf(title, sizeof(title),
			 "%s: median %s per case (%s is better); whiskers: "
			 "95 %% interval of the median",
			 k->suite, k->unit, k->hib ? "higher" : "lower");
	if (parts > 1)
		snprintf(title + t, sizeof(title) - (size_t)t,
			 " (part %d of %d)", part, parts);
	snprintf(axis, sizeof(axis), "%s, %s is better", k->unit,
		 k->hib ? "higher" : "lower");
	struct ax_svg_gchart ch = {.title = title,
				   .axis = axis,
				   .legend = ns > 1 ? legend : NULL,
				   .n_legend = ns > 1 ? ns : 0,
				   .mark = NAN};
	ax_svg_groups(c->f, &ch, g, n);
out:
	free(g);
	free(b);
	free(texts);
	free(tips);
	free(tags);
	free(legend);
	free(names);
}

/* The charts of the n cases of one suite and unit (k[0..n)). */
static void suite_charts(struct ax_html_ctx *c, const struct ax_html_case *k,
			 int n)
{
	char **labels = calloc((size_t)n + 1, sizeof(char *));
	char common[600];
	if (!labels)
		return;
	for (int i = 0; i < n; i++)
		labels[i] = strdup(k[i].label ? k[i].label : "");
	for (int i = 0; i < n; i++)
		if (!labels[i])
			goto out;
	ax_html_strip_common(labels, n, common, sizeof(common));
	if (*common) {
		fputs("<p class=\"common\">Every case of ", c->f);
		ax_html_escape(c->f, k->suite);
		fputs(" below: ", c->f);
		ax_html_escape(c->f, common);
		fputs("</p>\n", c->f);
	}
	int per = BARS_PER_CHART / c->n_sys;
	per = per < 4 ? 4 : per;
	int parts = (n + per - 1) / per;
	for (int p = 0; p < parts && !ax_html_stopped(c); p++) {
		int left = n - p * per;
		case_chart(c, k + p * per, labels + p * per,
			   left < per ? left : per, p + 1, parts);
	}
out:
	for (int i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
}

/* One line per system with a result whose spec figure is unknown: the
 * system and why (its device is not in the specs table), where every
 * bar used to say "spec unknown". */
static void spec_unknown_notes(struct ax_html_ctx *c)
{
	if (!c->d->specs)
		return; /* the opening paragraph said so, once */
	for (int s = 0; s < c->n_sys; s++)
		for (int i = 0; i < c->n_cases; i++) {
			const struct ax_db_result_row *r =
			    c->cases[i].by_sys[s];
			if (!r)
				continue;
			struct ax_spec_cmp sc = spec_of(c, r);
			if (sc.status != AX_SPEC_UNKNOWN)
				continue;
			fprintf(c->f, "<p class=\"common\">Spec unknown for ");
			ax_html_system_chip(c, s);
			fputs(": ", c->f);
			ax_html_escape(c->f, sc.why);
			fprintf(c->f, " (PCI id %04llx:%04llx",
				(unsigned long long)r->device.vendor_id,
				(unsigned long long)r->device.device_id);
			if (c->d->specs_path) {
				fputs(" in ", c->f);
				ax_html_escape(c->f, c->d->specs_path);
			}
			fputs("), so no bar of it shows % of spec.</p>\n",
			      c->f);
			break;
		}
}

/* How "% of measured peak" and "% of spec" are computed, in the
 * section's opening paragraph. */
static void spec_words(struct ax_html_ctx *c)
{
	fputs(" <em>% of measured peak</em>: the median over the system's "
	      "best compute-peak result in the same unit. <em>% of "
	      "spec</em>: the median over the vendor-published figure of the "
	      "device, found by its PCI vendor and device id only (never by "
	      "name): GFLOP/s with dtype (or type) f32 against peak fp32, "
	      "f16 against fp16 tensor/matrix dense, GB/s of a "
	      "bandwidth-peak suite against memory bandwidth; other units "
	      "have no spec figure, and a device the table does not list is "
	      "<em>spec unknown</em>. Hover a bar for the product and its "
	      "source.",
	      c->f);
	if (!c->d->specs) {
		fputs(" No specs file was read", c->f);
		if (c->d->specs_path) {
			fputs(" (", c->f);
			ax_html_escape(c->f, c->d->specs_path);
			fputs(" was not found)", c->f);
		}
		fputs(", so every device is spec unknown.", c->f);
	}
}

void ax_html_section_medians(struct ax_html_ctx *c)
{
	ax_html_h2(c, "medians", "Per case");
	if (c->n_cases == 0) {
		ax_html_empty(c, "No successful results in the selected data, "
				 "so there is nothing to chart.");
		if (c->n_tune_left)
			fprintf(c->f,
				"<p class=\"empty\">%d measurement%s of tuning "
				"sessions left out (see Tuning; "
				"<code>--include-tune</code> charts them "
				"here).</p>\n",
				c->n_tune_left, c->n_tune_left == 1 ? "" : "s");
		return;
	}
	fputs("<p>One group of bars per case, sorted by suite and then "
	      "parameters, one bar per system. Beside each bar: the median, "
	      "&plusmn; half its 95 % interval",
	      c->f);
	if (c->n_sys > 1)
		fputs(", and the ratio to the reference (above 1 is better, "
		      "whatever the unit's direction)",
		      c->f);
	fputs(". A system's newest result of a case is shown; a failed one "
	      "says so and has no bar.",
	      c->f);
	spec_words(c);
	if (c->n_tune_left)
		fprintf(c->f,
			" %d measurement%s of tuning sessions %s left out "
			"(the Tuning section has them; "
			"<code>--include-tune</code> charts them here).",
			c->n_tune_left, c->n_tune_left == 1 ? "" : "s",
			c->n_tune_left == 1 ? "is" : "are");
	fputs("</p>\n", c->f);
	for (int i = 0; i < c->n_cases && !ax_html_stopped(c);) {
		int j = i + 1;
		while (j < c->n_cases &&
		       !strcmp(c->cases[j].suite, c->cases[i].suite) &&
		       !strcmp(c->cases[j].unit, c->cases[i].unit))
			j++;
		suite_charts(c, &c->cases[i], j - i);
		i = j;
	}
	spec_unknown_notes(c);
}

/* ---- attention -------------------------------------------------------- */

static void attention_row(struct ax_html_ctx *c,
			  const struct ax_db_result_row *r, const char *badges)
{
	char *label = ax_html_case_label(r);
	char run[300];
	fputs("<tr><td>", c->f);
	ax_html_escape(
	    c->f, ax_html_run_name(c, r->source, r->run_id, run, sizeof(run)));
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, ax_html_str(r->suite));
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, label);
	fputs("</td><td>", c->f);
	ax_html_system_chip(c, ax_html_system_of(c, r));
	fputs("</td><td>", c->f);
	char *tok = strdup(badges), *save = NULL;
	for (char *b = strtok_r(tok, ",", &save); b;
	     b = strtok_r(NULL, ",", &save)) {
		fputs("<span class=\"badge\">", c->f);
		ax_html_escape(c->f, b + (*b == ' '));
		fputs("</span>", c->f);
	}
	free(tok);
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, ax_html_stop_words(ax_html_str(r->stop_reason)));
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, ax_html_str(r->error));
	fputs("</td></tr>\n", c->f);
	free(label);
}

void ax_html_section_attention(struct ax_html_ctx *c)
{
	int n = 0;
	ax_html_h2(c, "attention", "Results that need attention");
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		char badges[200];
		ax_html_badges(r, badges, sizeof(badges));
		/* A tuning trial's noise is the tuner's business (it
		 * re-times its best); its failures are listed. */
		if (!*badges ||
		    (ax_html_is_tune(r) && r->ok && !c->d->include_tune))
			continue;
		if (n++ == 0)
			fputs(
			    "<p>Failed results are never shown as speeds; "
			    "noisy ones have a median interval wider than "
			    "+/-5 %; throttled ones were measured on a "
			    "slowed device (the efficiency section has the "
			    "evidence). Tuning trials are listed only when "
			    "they failed.</p>\n<table><tr><th>Run</th><th>Suite"
			    "</th><th>Case</th><th>System</th><th>Badges"
			    "</th><th>Sampling ended</th><th>Error</th>"
			    "</tr>\n",
			    c->f);
		attention_row(c, r, badges);
	}
	if (n)
		fputs("</table>\n", c->f);
	else
		ax_html_empty(c, "No failed, noisy, interrupted or throttled "
				 "results.");
}
