/* reports/compare_write.c - text, JSON, Markdown and JUnit output of a
 * comparison.  Every string from the database is escaped for the format
 * it lands in. */
#include "reports/compare.h"

#include "core/error.h"
#include "core/text.h"
#include "reports/html_escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A stored text, or "" where none was stored. */
static const char *text_of(const char *s) { return s ? s : ""; }

/* Whichever side the row has (BASE preferred). */
static const struct ax_db_result_row *any_side(const struct ax_compare_pair *p)
{
	return p->base ? p->base : p->cand;
}

/* "case" when set, else the compact parameters (malloc'd). */
static char *case_label(const struct ax_db_result_row *r)
{
	if (r->case_label && *r->case_label)
		return strdup(r->case_label);
	char *s = ax_compare_params_text(r);
	return s ? s : strdup("");
}

static const char *fingerprint_of(const struct ax_db_result_row *r)
{
	return text_of(r->device.fingerprint);
}

static const char *device_name(const struct ax_db_result_row *r)
{
	const char *n = r->device.name;
	return n && *n ? n : fingerprint_of(r);
}

static double median_of(const struct ax_db_result_row *r)
{
	return r ? r->median : NAN;
}

/* A side's figure: the median of its pooled samples where the row was
 * judged (replicates make one figure), else its stored median. */
static double figure_of(const struct ax_compare_pair *p, bool base)
{
	double pooled = base ? p->stat.base_median : p->stat.cand_median;
	return isfinite(pooled) ? pooled : median_of(base ? p->base : p->cand);
}

/* A side's figure as text: the status of a side that did not produce
 * one ("failed-verification", never 0), "-" for no side. */
static const char *side_text(const struct ax_compare_pair *p, bool base,
			     char *buf, size_t len)
{
	const struct ax_db_result_row *r = base ? p->base : p->cand;
	double m = figure_of(p, base);
	if (!r)
		snprintf(buf, len, "-");
	else if (!r->ok)
		snprintf(buf, len, "%s",
			 r->status && *r->status ? r->status : "failed");
	else if (isfinite(m))
		snprintf(buf, len, "%.4g", m);
	else
		snprintf(buf, len, "-");
	return buf;
}

static int finish(FILE *f) { return ferror(f) ? AX_EIO : 0; }

static void summary_line(const struct ax_compare *c, FILE *f)
{
	fprintf(f,
		"%d slower, %d faster, %d same, %d ambiguous, %d noisy, "
		"%d incomparable, %d unmatched; %d regression%s "
		"(threshold %.3g%%)",
		c->count[AX_VERDICT_SLOWER], c->count[AX_VERDICT_FASTER],
		c->count[AX_VERDICT_SAME], c->count[AX_VERDICT_AMBIGUOUS],
		c->count[AX_VERDICT_NOISY], c->count[AX_VERDICT_INCOMPARABLE],
		c->count[AX_VERDICT_UNMATCHED], c->regressions,
		c->regressions == 1 ? "" : "s", 100 * c->threshold);
	char mde[160];
	fprintf(f, "; %s", ax_compare_mde_text(c, mde, sizeof(mde)));
	int with_energy = c->energy_count[AX_ENERGY_SAME] +
			  c->energy_count[AX_ENERGY_LESS] +
			  c->energy_count[AX_ENERGY_MORE];
	if (with_energy)
		fprintf(f,
			"; energy: %d less, %d more, %d same (margin %.0f%%)",
			c->energy_count[AX_ENERGY_LESS],
			c->energy_count[AX_ENERGY_MORE],
			c->energy_count[AX_ENERGY_SAME],
			100 * AX_COMPARE_ENERGY_MARGIN);
}

/* A row's MDE as a cell: "12.3%", "-" where it has none. */
static const char *mde_cell(const struct ax_compare_pair *p, char *buf,
			    size_t len)
{
	if (isfinite(p->mde.effect))
		snprintf(buf, len, "%.3g%%", 100 * p->mde.effect);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* A tunable's value on one side as text ("-" where the side lacks it). */
static const char *tunable_value(const struct ax_db_param *v, char *buf,
				 size_t len)
{
	if (!v)
		return "-";
	return ax_db_param_value_text(v, buf, len);
}

/* "wg 256 -> 64, vec 4 -> 2" (malloc'd; "" for none). */
static char *tunables_text(const struct ax_compare_pair *p)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	for (int i = 0; i < p->n_tunables; i++) {
		const struct ax_compare_tunable *t = &p->tunables[i];
		char a[1100], b[1100];
		fprintf(f, "%s%s %s -> %s", i ? ", " : "", t->name,
			tunable_value(t->base, a, sizeof(a)),
			tunable_value(t->cand, b, sizeof(b)));
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Whether a row says why it got its verdict. */
static bool says_why(const struct ax_compare_pair *p)
{
	return p->stat.verdict >= AX_VERDICT_AMBIGUOUS || p->regression;
}

/* ---- text ------------------------------------------------------------- */

enum {
	COL_VERDICT,
	COL_SUITE,
	COL_CASE,
	COL_DEVICE,
	COL_BASE,
	COL_CAND,
	COL_UNIT,
	COL_MDE,
	COL_CHANGE,
	N_COLS
};
static const char *const col_names[N_COLS] = {
    "VERDICT", "SUITE", "CASE",
    "DEVICE",  "BASE",	"CAND",
    "UNIT",    "MDE",	"CHANGE (+ is better)"};

/* One row's cells, each already made safe for a terminal (malloc'd). */
struct text_row {
	char *cell[N_COLS];
};

/* Columns a terminal gives s (the escapes of ax_term are ASCII). */
static int display_width(const char *s) { return (int)ax_text_chars(s); }

static void put_cell(FILE *f, const char *s, int width, bool right)
{
	int pad = width - display_width(s);
	if (right)
		fprintf(f, "%*s%s", pad > 0 ? pad : 0, "", s);
	else
		fprintf(f, "%s%*s", s, pad > 0 ? pad : 0, "");
}

/* The device as a row names it: its name, with the fingerprint where
 * another row's device has the same name (two cards of one model). */
static char *device_label(const struct ax_compare *c,
			  const struct ax_db_result_row *r)
{
	const char *name = device_name(r);
	const char *fp = fingerprint_of(r);
	bool clash = false;
	for (int i = 0; i < c->n_pairs && !clash; i++) {
		const struct ax_db_result_row *o = any_side(&c->pairs[i]);
		clash = strcmp(device_name(o), name) == 0 &&
			strcmp(fingerprint_of(o), fp) != 0;
	}
	char buf[1200];
	snprintf(buf, sizeof(buf), "%s%s%s%s", ax_term(name), clash ? " [" : "",
		 clash ? ax_term(fp) : "", clash ? "]" : "");
	return strdup(buf);
}

static void row_cells(const struct ax_compare *c,
		      const struct ax_compare_pair *p, struct text_row *t)
{
	const struct ax_db_result_row *r = any_side(p);
	char *label = case_label(r);
	char b[64];
	t->cell[COL_VERDICT] = strdup(ax_compare_verdict_name(p->stat.verdict));
	t->cell[COL_SUITE] = strdup(ax_term(text_of(r->suite)));
	t->cell[COL_CASE] = strdup(ax_term(label ? label : ""));
	t->cell[COL_DEVICE] = device_label(c, r);
	t->cell[COL_BASE] = strdup(ax_term(side_text(p, true, b, sizeof(b))));
	t->cell[COL_CAND] = strdup(ax_term(side_text(p, false, b, sizeof(b))));
	t->cell[COL_UNIT] = strdup(ax_term(text_of(r->unit)));
	t->cell[COL_MDE] = strdup(mde_cell(p, b, sizeof(b)));
	t->cell[COL_CHANGE] =
	    strdup(ax_compare_change_text(&p->stat, b, sizeof(b)));
	free(label);
}

/* Every row names the same device: the header names it instead. */
static bool one_device(struct text_row *rows, int n)
{
	for (int i = 1; i < n; i++)
		if (strcmp(rows[i].cell[COL_DEVICE], rows[0].cell[COL_DEVICE]))
			return false;
	return n > 0;
}

struct layout {
	int w[N_COLS];
	bool show[N_COLS];
	bool many_devices; /* rows name different devices */
	bool wrap;	   /* case (and device) on lines of their own */
};

static void plan_layout(struct layout *l, struct text_row *rows, int n,
			int width)
{
	int total = 0;
	for (int k = 0; k < N_COLS; k++) {
		l->show[k] = true;
		l->w[k] = display_width(col_names[k]);
		for (int i = 0; i < n; i++) {
			int w = display_width(rows[i].cell[k]);
			l->w[k] = w > l->w[k] ? w : l->w[k];
		}
	}
	l->many_devices = !one_device(rows, n);
	l->show[COL_DEVICE] = l->many_devices;
	for (int k = 0; k < N_COLS; k++)
		total += l->show[k] ? l->w[k] + 2 : 0;
	l->wrap = width > 0 && total - 2 > width;
	if (l->wrap)
		l->show[COL_CASE] = l->show[COL_DEVICE] = false;
}

static void text_line(FILE *f, const struct layout *l, char *const *cells)
{
	const char *sep = "";
	for (int k = 0; k < N_COLS; k++) {
		if (!l->show[k])
			continue;
		fputs(sep, f);
		sep = "  ";
		bool right = k == COL_BASE || k == COL_CAND || k == COL_MDE;
		/* The last column is not padded: no trailing blanks. */
		if (k == COL_CHANGE)
			fputs(cells[k], f);
		else
			put_cell(f, cells[k], l->w[k], right);
	}
	fputc('\n', f);
}

static void text_row_out(FILE *f, const struct layout *l,
			 const struct ax_compare_pair *p,
			 const struct text_row *t)
{
	text_line(f, l, t->cell);
	if (l->wrap)
		fprintf(f, "    case: %s\n", t->cell[COL_CASE]);
	if (l->wrap && l->many_devices)
		fprintf(f, "    device: %s\n", t->cell[COL_DEVICE]);
	char *tun = p->n_tunables ? tunables_text(p) : NULL;
	if (tun)
		fprintf(f, "    tunables differ (BASE -> CAND): %s\n",
			ax_term(tun));
	free(tun);
	if (p->energy.verdict != AX_ENERGY_NONE)
		fprintf(f, "    energy %s (%+.1f%%: %.3g -> %.3g J)\n",
			ax_energy_verdict_name(p->energy.verdict),
			100 * p->energy.change, p->energy.base_j,
			p->energy.cand_j);
	if (says_why(p))
		fprintf(f, "    why: %s\n", ax_term(p->stat.reason));
}

/* The text report: the summary line, then the rows `keep` accepts (every
 * row where it is NULL); the layout is planned from the rows shown. */
static int write_text_rows(const struct ax_compare *c, FILE *f, int width,
			   bool (*keep)(const struct ax_compare_pair *))
{
	struct text_row *rows = calloc((size_t)c->n_pairs + 1, sizeof(*rows));
	const struct ax_compare_pair **shown =
	    calloc((size_t)c->n_pairs + 1, sizeof(*shown));
	if (!rows || !shown) {
		free(rows);
		free(shown);
		return AX_ENOMEM;
	}
	int n = 0;
	for (int i = 0; i < c->n_pairs; i++)
		if (!keep || keep(&c->pairs[i])) {
			shown[n] = &c->pairs[i];
			row_cells(c, shown[n], &rows[n]);
			n++;
		}
	struct layout l;
	plan_layout(&l, rows, n, width);
	fprintf(f, "compare %s (BASE) with %s (CAND): ", ax_term(c->base_label),
		ax_term(c->cand_label));
	summary_line(c, f);
	fputc('\n', f);
	if (c->mde.n && !keep)
		fprintf(f, "%s.\n", c->mde.advice);
	if (!l.many_devices && n)
		fprintf(f, "device: %s\n", rows[0].cell[COL_DEVICE]);
	if (n) {
		fputc('\n', f);
		text_line(f, &l, (char *const *)col_names);
	}
	for (int i = 0; i < n; i++)
		text_row_out(f, &l, shown[i], &rows[i]);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < N_COLS; k++)
			free(rows[i].cell[k]);
	free(rows);
	free(shown);
	return finish(f);
}

int ax_compare_write_text(const struct ax_compare *c, FILE *f, int width)
{
	return write_text_rows(c, f, width, NULL);
}

static bool is_regression(const struct ax_compare_pair *p)
{
	return p->regression;
}

int ax_compare_write_regressions(const struct ax_compare *c, FILE *f, int width)
{
	return write_text_rows(c, f, width, is_regression);
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* A side of a row: the result it shows, the median of the side's pooled
 * samples (null for a failed result, never 0) and how many results were
 * pooled. */
/* A text that may not be stored, as a document shows it. */
static json_t *text_json(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *side_json(const struct ax_compare_pair *p, bool base)
{
	const struct ax_db_result_row *r = base ? p->base : p->cand;
	if (!r)
		return json_null();
	return json_pack(
	    "{s:I,s:I,s:o,s:o,s:s,s:o,s:i}", "result_id", (json_int_t)r->id,
	    "run_id", (json_int_t)r->run_id, "n",
	    r->n == AX_DB_NONE ? json_null() : json_integer(r->n), "median",
	    r->ok ? num(figure_of(p, base)) : json_null(), "status",
	    text_of(r->status), "error", text_json(r->error), "replicates",
	    base ? p->reps.base : p->reps.cand);
}

static json_t *pct(double x) { return num(100 * x); }

/* null where a side has no energy figure. */
static json_t *energy_json(const struct ax_compare_energy *e)
{
	if (e->verdict == AX_ENERGY_NONE)
		return json_null();
	return json_pack("{s:s,s:o,s:o,s:o,s:o}", "verdict",
			 ax_energy_verdict_name(e->verdict), "base_j",
			 num(e->base_j), "candidate_j", num(e->cand_j),
			 "change_pct", pct(e->change), "margin_pct",
			 pct(AX_COMPARE_ENERGY_MARGIN));
}

/* A stored value as a document shows it (a bool a JSON boolean). */
static json_t *param_value_json(const struct ax_db_param *v)
{
	if (!v)
		return json_null();
	switch (v->type) {
	case AX_DB_VALUE_INT:
		return json_integer((json_int_t)v->i);
	case AX_DB_VALUE_REAL:
		return num(v->num);
	case AX_DB_VALUE_BOOL:
		return json_boolean(v->num != 0);
	case AX_DB_VALUE_TEXT:
	case AX_DB_VALUE_OTHER:
		return ax_text_json_string(v->text, "a tunable's value");
	default:
		return json_null();
	}
}

static json_t *tunables_json(const struct ax_compare_pair *p)
{
	json_t *a = json_array();
	for (int i = 0; a && i < p->n_tunables; i++) {
		const struct ax_compare_tunable *t = &p->tunables[i];
		json_array_append_new(
		    a, json_pack("{s:s,s:o,s:o}", "name", t->name, "base",
				 param_value_json(t->base), "candidate",
				 param_value_json(t->cand)));
	}
	return a;
}

/* A run count of struct ax_compare_mde: null for -1. */
static json_t *runs_json(int k)
{
	return k < 0 ? json_null() : json_integer(k);
}

/* null where the row got no test. */
static json_t *mde_json(const struct ax_compare_mde *m)
{
	if (!isfinite(m->effect))
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "effect_pct",
			 pct(m->effect), "threshold_pct", pct(m->threshold),
			 "half_width_pct", pct(m->half_width), "rule_pct",
			 pct(m->rule), "runs_a_side", runs_json(m->runs_both),
			 "baseline_runs", runs_json(m->runs_base));
}

static json_t *row_json(const struct ax_compare_pair *p)
{
	const struct ax_db_result_row *r = any_side(p);
	const struct ax_compare_stat *s = &p->stat;
	json_t *o = json_pack(
	    "{s:s,s:b,s:s,s:s,s:o,s:o,s:{s:s,s:s},s:s,s:b,s:o,s:o,s:o}",
	    "verdict", ax_compare_verdict_name(s->verdict), "regression",
	    p->regression, "reason", s->reason, "suite", text_of(r->suite),
	    "case", text_json(r->case_label), "params",
	    ax_db_params_json(&r->params, r->params_doc), "device",
	    "fingerprint", fingerprint_of(r), "name", text_of(r->device.name),
	    "unit", text_of(r->unit), "higher_is_better", r->higher_is_better,
	    "base", side_json(p, true), "candidate", side_json(p, false),
	    "threshold_pct", pct(s->threshold));
	if (!o)
		return NULL;
	json_object_set_new(o, "p_value", num(s->p_value));
	json_object_set_new(o, "shift", num(s->shift));
	json_object_set_new(o, "change_pct", pct(s->rel));
	json_object_set_new(o, "change_ci_pct",
			    json_pack("[o,o]", pct(s->rel_lo), pct(s->rel_hi)));
	json_object_set_new(o, "improvement_pct", pct(s->improvement));
	json_object_set_new(
	    o, "improvement_ci_pct",
	    json_pack("[o,o]", pct(s->impr_lo), pct(s->impr_hi)));
	json_object_set_new(o, "speedup", num(s->speedup));
	char b[64];
	json_object_set_new(
	    o, "change_text",
	    json_string(ax_compare_change_text(s, b, sizeof(b))));
	json_object_set_new(
	    o, "noise",
	    json_pack("{s:o,s:o,s:o,s:o}", "base_pct", pct(p->noise.base),
		      "candidate_pct", pct(p->noise.cand), "base_target_pct",
		      pct(p->noise.base_target), "candidate_target_pct",
		      pct(p->noise.cand_target)));
	json_object_set_new(o, "replicates",
			    json_pack("{s:i,s:i,s:o,s:i,s:o}", "base",
				      p->reps.base, "candidate", p->reps.cand,
				      "spread_pct", pct(p->reps.spread), "df",
				      p->reps.df, "min_effect_pct",
				      pct(p->reps.min_effect)));
	json_object_set_new(o, "energy", energy_json(&p->energy));
	json_object_set_new(o, "mde", mde_json(&p->mde));
	json_object_set_new(o, "tunables", tunables_json(p));
	return o;
}

static json_t *summary_json(const struct ax_compare *c)
{
	json_t *o = json_object();
	for (int v = 0; v <= AX_VERDICT_UNMATCHED; v++)
		json_object_set_new(o, ax_compare_verdict_name(v),
				    json_integer(c->count[v]));
	json_object_set_new(o, "regressions", json_integer(c->regressions));
	json_object_set_new(o, "compared",
			    json_integer(ax_compare_n_compared(c)));
	json_t *e = json_object();
	for (int v = AX_ENERGY_SAME; v <= AX_ENERGY_MORE; v++)
		json_object_set_new(e, ax_energy_verdict_name(v),
				    json_integer(c->energy_count[v]));
	json_object_set_new(o, "energy", e);
	const struct ax_compare_mde_summary *m = &c->mde;
	char text[160];
	json_object_set_new(
	    o, "mde",
	    json_pack("{s:i,s:o,s:o,s:o,s:s,s:s}", "cases", m->n, "median_pct",
		      pct(m->median), "min_pct", pct(m->min), "max_pct",
		      pct(m->max), "text",
		      ax_compare_mde_text(c, text, sizeof(text)), "advice",
		      m->advice));
	return o;
}

json_t *ax_compare_to_json(const struct ax_compare *c)
{
	json_t *rows = json_array();
	for (int i = 0; i < c->n_pairs; i++)
		json_array_append_new(rows, row_json(&c->pairs[i]));
	/* The labels hold database paths from the command line, which
	 * need not be UTF-8: repaired, not a document lost. */
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "base",
			 ax_text_json_string(c->base_label, "the BASE label"),
			 "candidate",
			 ax_text_json_string(c->cand_label, "the CAND label"),
			 "threshold_pct", pct(c->threshold), "summary",
			 summary_json(c), "rows", rows);
}

int ax_compare_write_json(const struct ax_compare *c, FILE *f)
{
	json_t *doc = ax_compare_to_json(c);
	if (!doc)
		return AX_ENOMEM;
	int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(doc);
	fputc('\n', f);
	return rc ? AX_EIO : finish(f);
}

/* ---- Markdown --------------------------------------------------------- */

static void md_verdict(const struct ax_compare_pair *p, FILE *f)
{
	const char *w = ax_compare_verdict_name(p->stat.verdict);
	if (p->regression)
		fprintf(f, "**%s (regression)**", w);
	else
		fputs(w, f);
}

/* " (tunables differ: wg 256 → 64)" after the case; nothing where the
 * row matched on its exact parameters. */
static void md_tunables(const struct ax_compare_pair *p, FILE *f)
{
	for (int i = 0; i < p->n_tunables; i++) {
		const struct ax_compare_tunable *t = &p->tunables[i];
		char a[1100], b[1100];
		fputs(i ? ", " : " (tunables differ: ", f);
		ax_md_escape(f, t->name);
		fputs(" ", f);
		ax_md_escape(f, tunable_value(t->base, a, sizeof(a)));
		fputs(" \xe2\x86\x92 ", f); /* U+2192, an arrow */
		ax_md_escape(f, tunable_value(t->cand, b, sizeof(b)));
	}
	if (p->n_tunables)
		fputs(")", f);
}

static void md_row(const struct ax_compare_pair *p, FILE *f)
{
	const struct ax_db_result_row *r = any_side(p);
	char *label = case_label(r);
	fputs("| ", f);
	md_verdict(p, f);
	fputs(" | ", f);
	ax_md_escape(f, text_of(r->suite));
	fputs(" | ", f);
	ax_md_escape(f, label);
	md_tunables(p, f);
	fputs(" | ", f);
	ax_md_escape(f, device_name(r));
	char b1[64], b2[64];
	fputs(" | ", f);
	ax_md_escape(f, side_text(p, true, b1, sizeof(b1)));
	fputs(" | ", f);
	ax_md_escape(f, side_text(p, false, b2, sizeof(b2)));
	fputs(" | ", f);
	ax_md_escape(f, text_of(r->unit));
	fprintf(f, " | %s", mde_cell(p, b2, sizeof(b2)));
	ax_compare_change_text(&p->stat, b1, sizeof(b1));
	if (*b1)
		fprintf(f, " | %s | %.3g |\n", b1, p->stat.p_value);
	else
		fputs(" | n/a | n/a |\n", f);
	free(label);
}

/* One line per row that needs a word: verdict, suite, the case (every
 * line names it: two cases of one suite must not read alike), device and
 * the reason. */
static void md_reasons(const struct ax_compare *c, FILE *f)
{
	bool any = false;
	for (int i = 0; i < c->n_pairs; i++) {
		const struct ax_compare_pair *p = &c->pairs[i];
		if (!says_why(p))
			continue;
		if (!any)
			fputs("\n### Details\n\n", f);
		any = true;
		char *label = case_label(any_side(p));
		fputs("- ", f);
		md_verdict(p, f);
		fputs(": ", f);
		ax_md_escape(f, text_of(any_side(p)->suite));
		fputs(" ", f);
		ax_md_escape(f, label ? label : "");
		fputs(" on ", f);
		ax_md_escape(f, device_name(any_side(p)));
		fputs(": ", f);
		ax_md_escape(f, p->stat.reason);
		fputc('\n', f);
		free(label);
	}
}

int ax_compare_write_markdown(const struct ax_compare *c, FILE *f)
{
	fputs("## axbench compare: ", f);
	ax_md_escape(f, c->base_label);
	fputs(" (base) vs ", f);
	ax_md_escape(f, c->cand_label);
	fputs(" (candidate)\n\n", f);
	summary_line(c, f);
	fputs(".\n\n", f);
	/* compare's own words (no stored text): backticks kept. */
	if (c->mde.n)
		fprintf(f, "%s.\n\n", c->mde.advice);
	fputs("| Verdict | Suite | Case | Device | Base | Candidate | "
	      "Unit | MDE | Change (+ is better) [95% CI] | p |\n"
	      "|---|---|---|---|---:|---:|---|---:|---|---:|\n",
	      f);
	for (int i = 0; i < c->n_pairs; i++)
		md_row(&c->pairs[i], f);
	md_reasons(c, f);
	return finish(f);
}

/* ---- JUnit XML -------------------------------------------------------- */

static void junit_case(const struct ax_compare_pair *p, FILE *f)
{
	const struct ax_db_result_row *r = any_side(p);
	char *label = case_label(r);
	const char *w = ax_compare_verdict_name(p->stat.verdict);
	fputs("    <testcase classname=\"axbench.", f);
	ax_html_escape(f, text_of(r->suite));
	fputs("\" name=\"", f);
	ax_html_escape(f, label);
	fputs(" on ", f);
	ax_html_escape(f, device_name(r));
	fputs("\" time=\"0\">\n", f);
	/* Faster and same pass; a regression fails; the rest is skipped
	 * so that CI shows it without failing on it. */
	if (p->regression || p->stat.verdict >= AX_VERDICT_AMBIGUOUS) {
		const char *tag = p->regression ? "failure" : "skipped";
		fprintf(f, "      <%s message=\"%s: ", tag, w);
		ax_html_escape(f, p->stat.reason);
		fprintf(f, "\"%s>",
			p->regression ? " type=\"regression\"" : "");
		if (p->regression)
			ax_html_escape(f, p->stat.reason);
		fprintf(f, "</%s>\n", tag);
	}
	fputs("      <system-out>", f);
	fprintf(f, "%s: ", w);
	ax_html_escape(f, p->stat.reason);
	if (isfinite(p->mde.effect))
		fprintf(f, " (minimum detectable effect %.3g%%)",
			100 * p->mde.effect);
	fputs("</system-out>\n    </testcase>\n", f);
	free(label);
}

int ax_compare_write_junit(const struct ax_compare *c, FILE *f)
{
	int failures = c->regressions;
	int skipped = c->n_pairs - failures - c->count[AX_VERDICT_SAME] -
		      c->count[AX_VERDICT_FASTER];
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"axbench compare\" tests=\"%d\" "
		"failures=\"%d\" skipped=\"%d\">\n"
		"  <testsuite name=\"",
		c->n_pairs, failures, skipped);
	ax_html_escape(f, c->base_label);
	fputs(" vs ", f);
	ax_html_escape(f, c->cand_label);
	fprintf(f,
		"\" tests=\"%d\" failures=\"%d\" skipped=\"%d\" "
		"errors=\"0\">\n",
		c->n_pairs, failures, skipped);
	for (int i = 0; i < c->n_pairs; i++)
		junit_case(&c->pairs[i], f);
	fputs("  </testsuite>\n</testsuites>\n", f);
	return finish(f);
}
