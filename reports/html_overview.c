/* reports/html_overview.c - the report's first section: each system's
 * performance relative to the reference, overall and per suite, with
 * wins, losses and ties. */
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double ax_html_ratio(double v, double ref, bool hib)
{
	if (!(isfinite(v) && isfinite(ref) && v > 0 && ref > 0))
		return NAN;
	return hib ? v / ref : ref / v;
}

const char *ax_html_ratio_text(double r, char *buf, size_t len)
{
	char x[32];
	if (!isfinite(r)) {
		snprintf(buf, len, "no ratio");
		return buf;
	}
	snprintf(x, sizeof(x), r >= 9.995 ? "%.3g" : "%.2f", r);
	double pct = 100 * (r - 1);
	if (fabs(r - 1) <= AX_HTML_TIE)
		snprintf(buf, len, "%s" AX_HTML_TIMES " (tie)", x);
	else if (r > 1)
		snprintf(buf, len, "%s" AX_HTML_TIMES " faster (+%.3g %%)", x,
			 pct);
	else
		snprintf(buf, len, "%s" AX_HTML_TIMES " (-%.3g %%, slower)", x,
			 -pct);
	return buf;
}

/* Did system s measure case k with an ok, positive median? */
static bool measured(const struct ax_html_case *k, int s)
{
	return k->by_sys[s] && k->by_sys[s]->ok && k->by_sys[s]->median > 0;
}

/* A case every system measured with an ok, positive median. */
static bool shared(const struct ax_html_ctx *c, const struct ax_html_case *k)
{
	for (int s = 0; s < c->n_sys; s++)
		if (!measured(k, s))
			return false;
	return true;
}

/* Does case k count for system s: every system measured it, or, where
 * no case is shared by all (pairwise), s and the reference did? */
static bool counts(const struct ax_html_ctx *c, const struct ax_html_case *k,
		   int s, bool pairwise)
{
	return pairwise ? measured(k, s) && measured(k, c->ref) : shared(c, k);
}

/* Does case k count for some system other than the reference? */
static bool counts_any(const struct ax_html_ctx *c,
		       const struct ax_html_case *k, bool pairwise)
{
	for (int s = 0; s < c->n_sys; s++)
		if (s != c->ref && counts(c, k, s, pairwise))
			return true;
	return false;
}

/* Do the 95 % intervals of two results overlap?  Then a difference is
 * within what the measurements can tell apart. */
static bool overlap(const struct ax_db_result_row *a,
		    const struct ax_db_result_row *b)
{
	double al = a->ci_lo, ah = a->ci_hi;
	double bl = b->ci_lo, bh = b->ci_hi;
	return isfinite(al) && isfinite(ah) && isfinite(bl) && isfinite(bh) &&
	       al <= bh && bl <= ah;
}

/* One system against the reference over some cases. */
struct tally {
	double log_sum;
	int n, wins, losses, ties, noisy; /* noisy: of wins and losses,
					     intervals overlapping */
};

static void tally_add(struct tally *t, const struct ax_db_result_row *a,
		      const struct ax_db_result_row *ref, bool hib)
{
	double r = ax_html_ratio(a->median, ref->median, hib);
	if (!isfinite(r))
		return;
	t->log_sum += log(r);
	t->n++;
	if (fabs(r - 1) <= AX_HTML_TIE) {
		t->ties++;
		return;
	}
	if (r > 1)
		t->wins++;
	else
		t->losses++;
	t->noisy += overlap(a, ref);
}

static double tally_mean(const struct tally *t)
{
	return t->n ? exp(t->log_sum / t->n) : NAN;
}

/* "1.25× faster; 2 wins, 0 losses, 0 ties", and pairwise, where each
 * figure has its own cases, " over 2 shared cases". */
static void tally_text(const struct tally *t, bool pairwise, char *buf,
		       size_t len)
{
	char r[80];
	if (pairwise && t->n == 0) {
		snprintf(buf, len, "no case shared with the reference");
		return;
	}
	int k = snprintf(buf, len, "%s; %d win%s, %d loss%s, %d tie%s",
			 ax_html_ratio_text(tally_mean(t), r, sizeof(r)),
			 t->wins, t->wins == 1 ? "" : "s", t->losses,
			 t->losses == 1 ? "" : "es", t->ties,
			 t->ties == 1 ? "" : "s");
	if (t->noisy && k > 0 && (size_t)k < len)
		k += snprintf(buf + k, len - (size_t)k,
			      " (%d within the intervals)", t->noisy);
	if (pairwise && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " over %d shared case%s",
			 t->n, t->n == 1 ? "" : "s");
}

/* The tallies of every system over the cases of suite (NULL: all
 * suites) that count (counts); returns how many cases counted for some
 * system. */
static int tallies(const struct ax_html_ctx *c, const char *suite,
		   bool pairwise, struct tally *t)
{
	int n = 0;
	memset(t, 0, sizeof(*t) * (size_t)c->n_sys);
	for (int i = 0; i < c->n_cases; i++) {
		const struct ax_html_case *k = &c->cases[i];
		if ((suite && strcmp(k->suite, suite)) ||
		    !counts_any(c, k, pairwise))
			continue;
		n++;
		for (int s = 0; s < c->n_sys; s++)
			if (counts(c, k, s, pairwise))
				tally_add(&t[s], k->by_sys[s],
					  k->by_sys[c->ref], k->hib);
	}
	return n;
}

/* Suites with at least one case that counts, in case order. */
static int shared_suites(const struct ax_html_ctx *c, bool pairwise,
			 const char **out)
{
	int n = 0;
	for (int i = 0; i < c->n_cases; i++) {
		const char *s = c->cases[i].suite;
		if (!counts_any(c, &c->cases[i], pairwise) ||
		    (n && !strcmp(out[n - 1], s)))
			continue;
		out[n++] = s;
	}
	return n;
}

/* The chart: one group per suite (all suites first), one bar per system
 * at its geometric mean ratio. */
static void overview_chart(struct ax_html_ctx *c, const char **suites, int ns,
			   bool pairwise)
{
	int ng = ns + 1;
	struct ax_svg_group *g = calloc((size_t)ng, sizeof(*g));
	struct ax_svg_gbar *b = calloc((size_t)(ng * c->n_sys), sizeof(*b));
	char(*texts)[200] = calloc((size_t)(ng * c->n_sys), sizeof(*texts));
	char(*labels)[200] = calloc((size_t)ng, sizeof(*labels));
	char(*tags)[16] = calloc((size_t)c->n_sys, sizeof(*tags));
	const char **legend = calloc((size_t)c->n_sys, sizeof(char *));
	char(*names)[400] = calloc((size_t)c->n_sys, sizeof(*names));
	struct tally *t = calloc((size_t)c->n_sys, sizeof(*t));
	if (!g || !b || !texts || !labels || !tags || !legend || !names || !t)
		goto out;
	for (int s = 0; s < c->n_sys; s++) {
		snprintf(tags[s], sizeof(tags[s]), "#%d", s + 1);
		snprintf(names[s], sizeof(names[s]), "#%d %s", s + 1,
			 ax_html_system_name(c, s));
		legend[s] = names[s];
	}
	for (int gi = 0; gi < ng; gi++) {
		const char *suite = gi ? suites[gi - 1] : NULL;
		int n = tallies(c, suite, pairwise, t);
		snprintf(labels[gi], sizeof(labels[gi]), "%s (%d case%s)",
			 suite ? suite : "all suites", n, n == 1 ? "" : "s");
		for (int s = 0; s < c->n_sys; s++) {
			int at = gi * c->n_sys + s;
			if (s == c->ref)
				snprintf(texts[at], sizeof(texts[at]),
					 "1 (reference)");
			else
				tally_text(&t[s], pairwise, texts[at],
					   sizeof(texts[at]));
			b[at] = (struct ax_svg_gbar){.series = s,
						     .tag = tags[s],
						     .value = tally_mean(&t[s]),
						     .lo = NAN,
						     .hi = NAN,
						     .text = texts[at]};
		}
		g[gi] = (struct ax_svg_group){labels[gi], b + gi * c->n_sys,
					      c->n_sys};
	}
	char title[400];
	snprintf(title, sizeof(title),
		 "Relative performance against #%d %s: geometric mean of the "
		 "ratios over the cases %s (higher is better)",
		 c->ref + 1, ax_html_system_name(c, c->ref),
		 pairwise ? "each system shares with it"
			  : "every system measured");
	struct ax_svg_gchart ch = {
	    .title = title,
	    .axis = "times the reference's performance (dashed: 1)",
	    .legend = legend,
	    .n_legend = c->n_sys,
	    .mark = 1};
	ax_svg_groups(c->f, &ch, g, ng);
out:
	free(g);
	free(b);
	free(texts);
	free(labels);
	free(tags);
	free(legend);
	free(names);
	free(t);
}

static void suite_table(struct ax_html_ctx *c, const char **suites, int ns,
			bool pairwise)
{
	struct tally *t = calloc((size_t)c->n_sys, sizeof(*t));
	if (!t)
		return;
	fputs("<div class=\"wide\"><table class=\"ov\"><tr><th>Suite</th>"
	      "<th>Cases</th>",
	      c->f);
	for (int s = 0; s < c->n_sys; s++)
		if (s != c->ref) {
			fputs("<th>", c->f);
			ax_html_system_chip(c, s);
			fputs("</th>", c->f);
		}
	fputs("</tr>\n", c->f);
	for (int gi = 0; gi <= ns; gi++) {
		const char *suite = gi ? suites[gi - 1] : NULL;
		int n = tallies(c, suite, pairwise, t);
		fputs(gi ? "<tr><td>" : "<tr class=\"all\"><td>", c->f);
		ax_html_escape(c->f, suite ? suite : "all suites");
		fprintf(c->f, "</td><td class=\"num\">%d</td>", n);
		for (int s = 0; s < c->n_sys; s++) {
			char txt[300];
			if (s == c->ref)
				continue;
			tally_text(&t[s], pairwise, txt, sizeof(txt));
			fputs("<td>", c->f);
			ax_html_escape(c->f, txt);
			fputs("</td>", c->f);
		}
		fputs("</tr>\n", c->f);
	}
	fputs("</table></div>\n", c->f);
	free(t);
}

/* The overview's words: what each figure is, over which cases. */
static void overview_words(struct ax_html_ctx *c, int all, int some,
			   bool pairwise)
{
	fputs("<p>Reference: ", c->f);
	ax_html_system_chip(c, c->ref);
	fputs(" (<code>--reference</code> names another). Each figure is "
	      "the geometric mean of a system's ratios to the reference ",
	      c->f);
	if (pairwise)
		fputs("over the cases that system and the reference both "
		      "measured with a result, their number beside it: no "
		      "case was measured by every system, so the figures "
		      "are over different cases and compare each system "
		      "with the reference only, not with each other",
		      c->f);
	else
		fprintf(c->f,
			"over the %d case%s that every system measured with "
			"a result",
			all, all == 1 ? "" : "s");
	fprintf(c->f,
		"; where lower is better (latency) the ratio is inverted, "
		"so above 1 is always better. A tie is a ratio within "
		"&plusmn;%.0f %%; wins and losses whose 95 %% intervals "
		"overlap are counted as well and said.",
		100 * AX_HTML_TIE);
	if (some && !pairwise)
		fprintf(c->f,
			" %d case%s measured (or passed) on some systems only "
			"%s left out of the means; the per-case charts show "
			"%s.",
			some, some == 1 ? "" : "s", some == 1 ? "is" : "are",
			some == 1 ? "it" : "them");
	fputs("</p>\n", c->f);
}

void ax_html_section_overview(struct ax_html_ctx *c)
{
	ax_html_h2(c, "overview", "Overview");
	if (c->n_sys < 2) {
		fputs("<p class=\"empty\">", c->f);
		if (c->n_sys == 1) {
			fputs("One system, ", c->f);
			ax_html_system_chip(c, 0);
			fputs(": nothing to compare it with. ", c->f);
		} else {
			fputs("No systems in the selected data. ", c->f);
		}
		fputs("Add another machine's database (<code>axbench report "
		      "A.db B.db</code> or <code>--db-extra B.db</code>), or "
		      "compare runs with <code>--label-by run</code>.</p>\n",
		      c->f);
		return;
	}
	const char **suites = calloc((size_t)c->n_cases + 1, sizeof(char *));
	if (!suites)
		return;
	int all = 0, some = 0;
	for (int i = 0; i < c->n_cases; i++) {
		bool sh = shared(c, &c->cases[i]);
		all += sh;
		some += !sh;
	}
	/* With no case common to all, each system against the reference
	 * over the cases the two share still says something. */
	bool pairwise = all == 0;
	int ns = shared_suites(c, pairwise, suites);
	overview_words(c, all, some, pairwise);
	if (ns == 0)
		ax_html_empty(c, "No case was measured by every system, and "
				 "no system shares a case with the reference, "
				 "so there is no overall figure.");
	else {
		overview_chart(c, suites, ns, pairwise);
		suite_table(c, suites, ns, pairwise);
	}
	free(suites);
}
