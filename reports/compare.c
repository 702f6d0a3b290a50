/* reports/compare.c - matching results and deciding verdicts. */
#include "reports/compare.h"

#include "core/error.h"
#include "core/stats.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *ax_compare_verdict_name(enum ax_verdict v)
{
	switch (v) {
	case AX_VERDICT_SAME:
		return "same";
	case AX_VERDICT_FASTER:
		return "faster";
	case AX_VERDICT_SLOWER:
		return "slower";
	case AX_VERDICT_AMBIGUOUS:
		return "ambiguous";
	case AX_VERDICT_NOISY:
		return "noisy";
	case AX_VERDICT_INCOMPARABLE:
		return "incomparable";
	case AX_VERDICT_UNMATCHED:
		return "unmatched";
	}
	return "unknown";
}

void ax_compare_opts_init(struct ax_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = 0.02;
	o->alpha = 0.05;
	o->conf = 0.95;
	o->min_samples = 5;
}

double ax_compare_threshold_for(const struct ax_compare_opts *o,
				const char *suite)
{
	double t = o->threshold;
	for (int i = 0; i < o->n_rules; i++)
		if (suite && fnmatch(o->rules[i].glob, suite, 0) == 0)
			t = o->rules[i].threshold;
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Equal multisets: comparing a measurement with itself. */
static bool same_samples(const double *a, int na, const double *b, int nb)
{
	if (na != nb || na == 0)
		return false;
	double *x = malloc(sizeof(double) * (size_t)na * 2);
	if (!x)
		return false;
	memcpy(x, a, sizeof(double) * (size_t)na);
	memcpy(x + na, b, sizeof(double) * (size_t)na);
	qsort(x, (size_t)na, sizeof(double), cmp_double);
	qsort(x + na, (size_t)na, sizeof(double), cmp_double);
	bool eq = memcmp(x, x + na, sizeof(double) * (size_t)na) == 0;
	free(x);
	return eq;
}

static void stat_reset(struct ax_compare_stat *s, double threshold)
{
	memset(s, 0, sizeof(*s));
	s->threshold = threshold;
	s->base_median = s->cand_median = NAN;
	s->p_value = s->shift = s->rel = s->rel_lo = s->rel_hi = NAN;
	s->improvement = s->impr_lo = s->impr_hi = NAN;
	s->speedup = NAN;
	s->verdict = AX_VERDICT_AMBIGUOUS;
}

/* The ratio of medians, better above 1 (see struct ax_compare_stat). */
static double speedup_of(double base, double cand, bool higher_is_better)
{
	if (!(base > 0) || !(cand > 0) || !isfinite(base) || !isfinite(cand))
		return NAN;
	return higher_is_better ? cand / base : base / cand;
}

static double median_of(const double *x, int n)
{
	struct ax_summary sum;
	if (n < 1 || ax_stats_summarize(x, n, 0.95, &sum) != 0)
		return NAN;
	return sum.median;
}

/* Ratios read better than percentages from here on: +50 % or -33 %. */
#define RATIO_FROM 1.5

const char *ax_compare_change_text(const struct ax_compare_stat *s, char *buf,
				   size_t len)
{
	double x = s->speedup;
	if (isfinite(x) && (x >= RATIO_FROM || x <= 1 / RATIO_FROM))
		snprintf(buf, len, "%.3g\xc3\x97 %s", x >= 1 ? x : 1 / x,
			 x >= 1 ? "faster" : "slower");
	else if (isfinite(s->impr_lo))
		snprintf(buf, len, "%+.2f%% [%+.2f%%, %+.2f%%]",
			 100 * s->improvement, 100 * s->impr_lo,
			 100 * s->impr_hi);
	else
		snprintf(buf, len, "%s", "");
	return buf;
}

void ax_compare_decide(struct ax_compare_stat *s, double alpha)
{
	double t = s->threshold;
	bool sig = s->p_value < alpha;
	const char *why;

	if (sig && s->impr_lo > t) {
		s->verdict = AX_VERDICT_FASTER;
		why = "significant and the whole interval is beyond +";
	} else if (sig && s->impr_hi < -t) {
		s->verdict = AX_VERDICT_SLOWER;
		why = "significant and the whole interval is beyond -";
	} else if (s->impr_lo >= -t && s->impr_hi <= t) {
		s->verdict = AX_VERDICT_SAME;
		why = "the whole interval is within +/-";
	} else {
		s->verdict = AX_VERDICT_AMBIGUOUS;
		why = sig ? "significant, but the interval reaches into +/-"
			  : "not significant and the interval reaches past +/-";
	}
	char change[64];
	snprintf(s->reason, sizeof(s->reason),
		 "change %s (better is +), p=%.3g: %s%.3g%%",
		 ax_compare_change_text(s, change, sizeof(change)), s->p_value,
		 why, 100 * t);
}

int ax_compare_samples(const double *a, int na, const double *b, int nb,
		       bool higher_is_better, double threshold,
		       const struct ax_compare_opts *o,
		       struct ax_compare_stat *out, char *err, size_t errlen)
{
	struct ax_compare_opts defs;
	if (!o) {
		ax_compare_opts_init(&defs);
		o = &defs;
	}
	if (na < 0 || nb < 0 || (na && !a) || (nb && !b))
		return ax_errf(err, errlen, AX_EINVAL,
			       "compare: sample arrays must be non-NULL with "
			       "counts >= 0 (got %d and %d)",
			       na, nb);
	stat_reset(out, threshold);
	out->base_median = median_of(a, na);
	out->cand_median = median_of(b, nb);
	out->speedup =
	    speedup_of(out->base_median, out->cand_median, higher_is_better);

	if (same_samples(a, na, b, nb)) {
		out->verdict = AX_VERDICT_SAME;
		out->p_value = 1;
		out->shift = out->rel = out->rel_lo = out->rel_hi = 0;
		out->improvement = out->impr_lo = out->impr_hi = 0;
		snprintf(out->reason, sizeof(out->reason),
			 "identical samples on both sides (%d each)", na);
		return 0;
	}
	if (na < o->min_samples || nb < o->min_samples) {
		snprintf(out->reason, sizeof(out->reason),
			 "too few samples for a verdict (%d and %d; need %d "
			 "on each side)",
			 na, nb, o->min_samples);
		return 0;
	}
	if (!(fabs(out->base_median) > 0) || !isfinite(out->base_median)) {
		snprintf(out->reason, sizeof(out->reason),
			 "base median is %g, so a relative change is "
			 "undefined",
			 out->base_median);
		return 0;
	}

	struct ax_shift_test t;
	int rc = ax_stats_shift_test(a, na, b, nb, o->conf, &t);
	if (rc != 0)
		return ax_errf(err, errlen, rc,
			       "compare: shift test failed "
			       "on %d and %d samples",
			       na, nb);
	double m = fabs(out->base_median);
	out->p_value = t.p_value;
	out->shift = t.shift;
	out->rel = t.shift / m;
	out->rel_lo = t.shift_lo / m;
	out->rel_hi = t.shift_hi / m;
	if (higher_is_better) {
		out->improvement = out->rel;
		out->impr_lo = out->rel_lo;
		out->impr_hi = out->rel_hi;
	} else {
		out->improvement = -out->rel;
		out->impr_lo = -out->rel_hi;
		out->impr_hi = -out->rel_lo;
	}
	ax_compare_decide(out, o->alpha);
	return 0;
}

bool ax_compare_wins(const struct ax_compare_stat *st, bool higher_is_better)
{
	return st->verdict == AX_VERDICT_FASTER &&
	       (higher_is_better ? st->cand_median > st->base_median
				 : st->cand_median < st->base_median);
}

/* ---- matching --------------------------------------------------------- */

/* A stored text, or "" where none was stored. */
static const char *text_of(const char *s) { return s ? s : ""; }

char *ax_compare_params_text(const struct ax_db_result_row *r)
{
	json_t *doc = ax_db_params_json(&r->params, r->params_doc);
	char *s = doc ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS |
					    JSON_ENCODE_ANY)
		      : NULL;
	json_decref(doc);
	return s;
}

/* "fingerprint \x1f suite \x1f params hash" (malloc'd). */
static char *result_key(const struct ax_db_result_row *r)
{
	const char *fp = text_of(r->device.fingerprint);
	const char *suite = text_of(r->suite);
	const char *hash = text_of(r->params_hash);
	char *params = NULL;
	if (!*hash) {
		/* Older rows without a hash: the canonical text itself. */
		params = ax_compare_params_text(r);
		hash = params ? params : "";
	}
	size_t n = strlen(fp) + strlen(suite) + strlen(hash) + 3;
	char *k = malloc(n);
	if (k)
		snprintf(k, n, "%s\x1f%s\x1f%s", fp, suite, hash);
	free(params);
	return k;
}

/* A parameter's value in a key: its type and its text. */
static void key_value(FILE *f, const struct ax_db_param *v)
{
	char buf[2048];
	fprintf(f, "%s\x1e%d:%s\x1d", v->name, (int)v->type,
		ax_db_param_value_text(v, buf, sizeof(buf)));
}

/* "fingerprint \x1f suite \x1f" and r's parameters less the suite's
 * tunables: the case a tuned and a default result share (malloc'd in
 * *out; NULL where no tunables are known).  0 or AX_ENOMEM. */
static int case_key(const struct ax_db_result_row *r,
		    const struct ax_compare_opts *o, char **out)
{
	*out = NULL;
	if (!o->is_tunable)
		return 0;
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	if (!f)
		return AX_ENOMEM;
	fprintf(f, "%s\x1f%s\x1f", text_of(r->device.fingerprint),
		text_of(r->suite));
	for (int i = 0; i < r->params.n; i++)
		if (!o->is_tunable(text_of(r->suite), r->params.v[i].name))
			key_value(f, &r->params.v[i]);
	if (fclose(f) != 0 || !*out) {
		free(*out);
		*out = NULL;
		return AX_ENOMEM;
	}
	return 0;
}

/* The results of one side that share a key are replicates of one
 * measurement: the rounds of a run (run --rounds), the runs of a baseline
 * saved from several.  They are judged as one, their samples pooled, and
 * the spread between their medians widens the minimum effect. */
struct group {
	const char *key;   /* borrowed from the side */
	const char *loose; /* its case key (case_key); NULL: none */
	size_t *members;   /* indexes into the side's array, oldest first */
	int n;
	size_t first; /* where the group first appears, for row order */
	const struct ax_db_result_row *shown; /* see pick_shown */
	bool used;			      /* matched with the other side */
};

struct side {
	struct ax_db_result_row *const *v; /* the side's results */
	size_t n;
	char **keys;
	char **loose;	      /* case keys (case_key), by index */
	struct group *groups; /* sorted by key */
	int n_groups;
	bool is_base;
};

/* Members by key, then oldest first (qsort_r: the side is the context). */
static int cmp_member(const void *x, const void *y, void *ctx)
{
	const struct side *s = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = strcmp(s->keys[i], s->keys[j]);
	return c ? c : (i > j) - (i < j);
}

/* The result a row shows: on BASE the newest that is ok (a failed
 * baseline replicate among good ones is set aside); on CAND the newest
 * that failed, if any did (a round that broke is a regression). */
static const struct ax_db_result_row *pick_shown(const struct side *s,
						 const struct group *g)
{
	for (int k = g->n - 1; k >= 0; k--) {
		const struct ax_db_result_row *r = s->v[g->members[k]];
		if (r->ok == s->is_base)
			return r;
	}
	return s->v[g->members[g->n - 1]];
}

static int make_groups(struct side *s, size_t *order)
{
	for (size_t i = 0; i < s->n; i++)
		order[i] = i;
	qsort_r(order, s->n, sizeof(size_t), cmp_member, s);
	s->groups = calloc(s->n + 1, sizeof(*s->groups));
	if (!s->groups)
		return AX_ENOMEM;
	for (size_t i = 0; i < s->n;) {
		struct group *g = &s->groups[s->n_groups++];
		size_t j = i;
		while (j < s->n &&
		       strcmp(s->keys[order[i]], s->keys[order[j]]) == 0)
			j++;
		g->key = s->keys[order[i]];
		g->loose = s->loose[order[i]];
		g->members = order + i;
		g->n = (int)(j - i);
		g->first = order[i];
		g->shown = pick_shown(s, g);
		i = j;
	}
	return 0;
}

static int side_init(struct side *s, const struct ax_db_results *l,
		     bool is_base, const struct ax_compare_opts *o,
		     size_t **order)
{
	s->v = l->v;
	s->is_base = is_base;
	s->n = l->n;
	s->keys = calloc(s->n + 1, sizeof(char *));
	s->loose = calloc(s->n + 1, sizeof(char *));
	*order = calloc(s->n + 1, sizeof(size_t));
	if (!s->keys || !s->loose || !*order)
		return AX_ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		if (!(s->keys[i] = result_key(s->v[i])) ||
		    case_key(s->v[i], o, &s->loose[i]))
			return AX_ENOMEM;
	return make_groups(s, *order);
}

static void side_release(struct side *s, size_t *order)
{
	for (size_t i = 0; s->keys && i < s->n; i++)
		free(s->keys[i]);
	for (size_t i = 0; s->loose && i < s->n; i++)
		free(s->loose[i]);
	free(s->keys);
	free(s->loose);
	free(s->groups);
	free(order);
}

static const struct group *find_group(const struct side *s, const char *key)
{
	int lo = 0, hi = s->n_groups - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int c = strcmp(key, s->groups[mid].key);
		if (c == 0)
			return &s->groups[mid];
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Append r's raw sample values to *x (grown as needed; *n of them).  A
 * value that is not a finite number was never measured: left out. */
static int add_samples(const struct ax_db_result_row *r, double **x, int *n)
{
	size_t k = r->samples ? r->n_samples : 0;
	double *grown = realloc(*x, sizeof(double) * ((size_t)*n + k + 1));
	if (!grown)
		return AX_ENOMEM;
	*x = grown;
	for (size_t i = 0; i < k; i++)
		if (isfinite(r->samples[i]))
			(*x)[(*n)++] = r->samples[i];
	return 0;
}

/* A group's ok replicates: their pooled samples and each one's median
 * (both malloc'd; *n_samples and *n_reps of them). */
struct pooled {
	double *x, *medians;
	int n, n_reps;
};

static int pool(const struct side *s, const struct group *g, struct pooled *out)
{
	memset(out, 0, sizeof(*out));
	out->medians = calloc((size_t)g->n + 1, sizeof(double));
	if (!out->medians)
		return AX_ENOMEM;
	for (int k = 0; k < g->n; k++) {
		const struct ax_db_result_row *r = s->v[g->members[k]];
		if (!r->ok)
			continue;
		int before = out->n;
		if (add_samples(r, &out->x, &out->n))
			return AX_ENOMEM;
		if (out->n > before)
			out->medians[out->n_reps++] =
			    median_of(out->x + before, out->n - before);
	}
	return 0;
}

static void pooled_release(struct pooled *p)
{
	free(p->x);
	free(p->medians);
}

static void unmatched(struct ax_compare_pair *p,
		      const struct ax_db_result_row *base,
		      const struct ax_db_result_row *cand, const char *reason)
{
	memset(p, 0, sizeof(*p));
	p->base = base;
	p->cand = cand;
	stat_reset(&p->stat, NAN);
	p->noise = (struct ax_compare_noise){NAN, NAN, NAN, NAN};
	p->mde = (struct ax_compare_mde){NAN, NAN, NAN, NAN, 0, 0};
	p->stat.verdict = AX_VERDICT_UNMATCHED;
	snprintf(p->stat.reason, sizeof(p->stat.reason), "%s", reason);
}

/* Mark a matched pair that cannot get a statistical verdict. */
static void incomparable(struct ax_compare_pair *p, const char *fmt,
			 const char *x, const char *y)
{
	p->stat.verdict = AX_VERDICT_INCOMPARABLE;
	snprintf(p->stat.reason, sizeof(p->stat.reason), fmt, x, y);
}

/* The stored error text, or a note that there is none. */
static const char *why(const struct ax_db_result_row *r)
{
	return r->error && *r->error ? r->error : "no error text stored";
}

static bool check_comparable(struct ax_compare_pair *p)
{
	const struct ax_db_result_row *b = p->base, *c = p->cand;
	if (!b->ok && !c->ok) {
		incomparable(p, "failed on both sides (BASE %s, CAND %s)",
			     text_of(b->status), text_of(c->status));
	} else if (!b->ok) {
		incomparable(p,
			     "BASE result has status %s (%s); nothing to "
			     "compare against",
			     text_of(b->status), why(b));
	} else if (!c->ok) {
		incomparable(p,
			     "CAND result has status %s (%s): counted as a "
			     "regression",
			     text_of(c->status), why(c));
		p->regression = true;
	} else if (strcmp(text_of(b->unit), text_of(c->unit)) != 0) {
		incomparable(p, "units differ (BASE %s, CAND %s)",
			     text_of(b->unit), text_of(c->unit));
	} else if (b->higher_is_better != c->higher_is_better) {
		bool hb = b->higher_is_better;
		incomparable(p,
			     "directions differ (BASE: %s is better, CAND: "
			     "%s is better)",
			     hb ? "higher" : "lower", hb ? "lower" : "higher");
	} else {
		return true;
	}
	return false;
}

bool ax_compare_missed_target(double x, double t)
{
	return isfinite(x) && isfinite(t) && t > 0 && x > t;
}

/* The relative half-width of the median's 95 % interval, from the
 * samples compare judges (not the stored figure: a database edited or
 * merged since keeps its samples honest, not its summary). */
static double noise_of(const double *x, int n)
{
	struct ax_summary sum;
	if (n < 2 || ax_stats_summarize(x, n, 0.95, &sum) != 0)
		return NAN;
	return sum.rel_noise;
}

/* A shift that a side's missed noise target can explain is "noisy"
 * (see compare.h), with the figures that say so. */
static void judge_noise(struct ax_compare_pair *p,
			const struct ax_compare_opts *o)
{
	const struct ax_compare_noise *n = &p->noise;
	bool base_missed = ax_compare_missed_target(n->base, n->base_target);
	bool cand_missed = ax_compare_missed_target(n->cand, n->cand_target);
	enum ax_verdict v = p->stat.verdict;
	/* Without a test (too few samples) "ambiguous" says more. */
	if (o->strict || !(base_missed || cand_missed) ||
	    !isfinite(p->stat.p_value) ||
	    !(v == AX_VERDICT_FASTER || v == AX_VERDICT_SLOWER ||
	      v == AX_VERDICT_AMBIGUOUS))
		return;
	/* A change beyond the threshold plus both medians' own noise is
	 * more than the noise can explain: its verdict stands. */
	double allowance = p->stat.threshold +
			   (isfinite(n->base) ? n->base : 0) +
			   (isfinite(n->cand) ? n->cand : 0);
	if ((v == AX_VERDICT_SLOWER && p->stat.impr_hi < -allowance) ||
	    (v == AX_VERDICT_FASTER && p->stat.impr_lo > allowance))
		return;
	double target = cand_missed ? n->cand_target : n->base_target;
	char was[64];
	snprintf(was, sizeof(was), "%s", ax_compare_verdict_name(v));
	p->stat.verdict = AX_VERDICT_NOISY;
	snprintf(p->stat.reason, sizeof(p->stat.reason),
		 "%s missed the noise target of +/-%.3g%% (BASE +/-%.3g%%, "
		 "CAND +/-%.3g%%), and the change of %+.2f%% is not beyond "
		 "the threshold plus that noise (+/-%.3g%%): it would have "
		 "read '%s'; not a regression unless --strict",
		 base_missed && cand_missed ? "both sides"
		 : base_missed		    ? "BASE"
					    : "CAND",
		 100 * target, 100 * n->base, 100 * n->cand,
		 100 * p->stat.improvement, 100 * allowance, was);
}

/* The minimum effect the spread between replicates implies: a change
 * smaller than the two-sided interval of a difference of replicate means
 * (Student's t at the comparison's confidence) is what reruns alone
 * produce.  NAN where neither side has two replicates. */
static void replicate_effect(struct ax_compare_pair *p, const struct pooled *a,
			     const struct pooled *b, double conf)
{
	const double *groups[2] = {a->medians, b->medians};
	int sizes[2] = {a->n_reps, b->n_reps}, df;
	struct ax_compare_replicates *r = &p->reps;
	r->base = a->n_reps;
	r->cand = b->n_reps;
	r->spread = ax_stats_replicate_spread(groups, sizes, 2, &df);
	r->df = df;
	r->min_effect = NAN;
	if (isfinite(r->spread) && a->n_reps && b->n_reps)
		r->min_effect = ax_stats_t_quantile(1 - (1 - conf) / 2, df) *
				r->spread *
				sqrt(1.0 / a->n_reps + 1.0 / b->n_reps);
}

/*
 * The verdict under a threshold the replicates widened beyond the rule's:
 * faster or slower beyond it stand, and say where the threshold came
 * from; an interval inside the rule's own band is same; anything else
 * is noisy - reruns alone move the figure further than the rule asks
 * to see - unless strict, which keeps the statistical verdict.
 */
static void widened(struct ax_compare_stat *s,
		    const struct ax_compare_replicates *r, double rule,
		    bool strict)
{
	char why[200];
	snprintf(why, sizeof(why),
		 "the spread of +/-%.3g%% between %d BASE and %d CAND "
		 "replicates implies a minimum effect of %.3g%%",
		 100 * r->spread, r->base, r->cand, 100 * r->min_effect);
	size_t used = strlen(s->reason);
	if (s->verdict == AX_VERDICT_FASTER ||
	    s->verdict == AX_VERDICT_SLOWER || strict) {
		snprintf(s->reason + used, sizeof(s->reason) - used, " (%s)",
			 why);
		return;
	}
	char change[64];
	ax_compare_change_text(s, change, sizeof(change));
	if (s->impr_lo >= -rule && s->impr_hi <= rule) {
		s->verdict = AX_VERDICT_SAME;
		s->threshold = rule;
		snprintf(s->reason, sizeof(s->reason),
			 "change %s (better is +): the whole interval is "
			 "within +/-%.3g%%",
			 change, 100 * rule);
		return;
	}
	s->verdict = AX_VERDICT_NOISY;
	snprintf(s->reason, sizeof(s->reason),
		 "change %s (better is +) is within what reruns alone "
		 "produce: %s, above the threshold of %.3g%%; not a "
		 "regression unless --strict",
		 change, why, 100 * rule);
}

static int compare_groups(struct ax_compare_pair *p, const struct side *bs,
			  const struct group *bg, const struct side *cs,
			  const struct group *cg,
			  const struct ax_compare_opts *o, char *err,
			  size_t errlen)
{
	double rule = ax_compare_threshold_for(o, text_of(p->base->suite));
	double t = rule;
	stat_reset(&p->stat, t);
	p->noise = (struct ax_compare_noise){NAN, NAN, p->base->noise_target,
					     p->cand->noise_target};
	p->reps = (struct ax_compare_replicates){bg->n, cg->n, NAN, 0, NAN};
	p->mde = (struct ax_compare_mde){NAN, NAN, NAN, rule, 0, 0};
	if (!check_comparable(p))
		return 0;
	struct pooled a = {0}, b = {0};
	int rc = pool(bs, bg, &a);
	if (rc == 0)
		rc = pool(cs, cg, &b);
	if (rc == 0) {
		replicate_effect(p, &a, &b, o->conf);
		if (p->reps.min_effect > t)
			t = p->reps.min_effect;
		rc = ax_compare_samples(a.x, a.n, b.x, b.n,
					p->base->higher_is_better, t, o,
					&p->stat, err, errlen);
		if (rc == 0 && t == p->reps.min_effect)
			widened(&p->stat, &p->reps, rule, o->strict);
		p->noise.base = noise_of(a.x, a.n);
		p->noise.cand = noise_of(b.x, b.n);
	} else {
		ax_errf(err, errlen, rc, "compare: out of memory");
	}
	pooled_release(&a);
	pooled_release(&b);
	if (rc == 0)
		judge_noise(p, o);
	if (rc == 0)
		ax_compare_mde_row(p, rule, t, o->strict);
	p->regression = p->stat.verdict == AX_VERDICT_SLOWER;
	return rc;
}

const char *ax_energy_verdict_name(enum ax_energy_verdict v)
{
	switch (v) {
	case AX_ENERGY_SAME:
		return "same";
	case AX_ENERGY_LESS:
		return "less";
	case AX_ENERGY_MORE:
		return "more";
	default:
		return "n/a";
	}
}

void ax_compare_energy_figures(double base_j, double cand_j,
			       struct ax_compare_energy *out)
{
	out->base_j = base_j;
	out->cand_j = cand_j;
	out->change = NAN;
	out->verdict = AX_ENERGY_NONE;
	if (!(base_j > 0) || !(cand_j > 0))
		return; /* missing (NAN) or not a figure one can divide by */
	out->change = cand_j / base_j - 1;
	out->verdict = out->change < -AX_COMPARE_ENERGY_MARGIN ? AX_ENERGY_LESS
		       : out->change > AX_COMPARE_ENERGY_MARGIN
			   ? AX_ENERGY_MORE
			   : AX_ENERGY_SAME;
}

/* A result's energy per repetition; NAN where it has none (no side,
 * measured before power was stored). */
static double energy_of(const struct ax_db_result_row *r)
{
	return r && r->power.present ? r->power.energy_rep_j : NAN;
}

void ax_compare_energy_results(const struct ax_db_result_row *base,
			       const struct ax_db_result_row *cand,
			       struct ax_compare_energy *out)
{
	ax_compare_energy_figures(energy_of(base), energy_of(cand), out);
	if (!base || !cand || !base->ok || !cand->ok)
		out->verdict = AX_ENERGY_NONE; /* a failure has no energy */
}

/* Count a finished row. */
static void tally(struct ax_compare *c, struct ax_compare_pair *p)
{
	ax_compare_energy_results(p->base, p->cand, &p->energy);
	c->energy_count[p->energy.verdict]++;
	c->count[p->stat.verdict]++;
	c->regressions += p->regression;
}

static int add_pair(struct ax_compare *c, const struct side *bs,
		    const struct group *bg, const struct side *cs,
		    const struct group *cg, const struct ax_compare_opts *o,
		    char *err, size_t errlen)
{
	struct ax_compare_pair *p = &c->pairs[c->n_pairs++];
	memset(p, 0, sizeof(*p));
	p->base = bg->shown;
	p->cand = cg->shown;
	int rc = compare_groups(p, bs, bg, cs, cg, o, err, errlen);
	tally(c, p);
	return rc;
}

static void add_unmatched(struct ax_compare *c, const struct group *g,
			  bool in_base)
{
	struct ax_compare_pair *p = &c->pairs[c->n_pairs++];
	unmatched(p, in_base ? g->shown : NULL, in_base ? NULL : g->shown,
		  in_base ? "only in BASE: no CAND result with this device, "
			    "suite and parameters (or case)"
			  : "only in CAND: no BASE result with this device, "
			    "suite and parameters (or case)");
	p->reps = (struct ax_compare_replicates){
	    in_base ? g->n : 0, in_base ? 0 : g->n, NAN, 0, NAN};
	tally(c, p);
}

/* Groups in the order their first result appears on the side. */
static int cmp_first(const void *x, const void *y)
{
	const struct group *a = *(struct group *const *)x;
	const struct group *b = *(struct group *const *)y;
	return (a->first > b->first) - (a->first < b->first);
}

static struct group **in_side_order(struct side *s)
{
	struct group **v = calloc((size_t)s->n_groups + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (int i = 0; i < s->n_groups; i++)
		v[i] = &s->groups[i];
	qsort(v, (size_t)s->n_groups, sizeof(*v), cmp_first);
	return v;
}

/* The tunables whose values differ between b and c (both parameter
 * lists sorted by name, as stored) into p (malloc'd). */
static int diff_tunables(struct ax_compare_pair *p,
			 const struct ax_db_result_row *b,
			 const struct ax_db_result_row *c,
			 const struct ax_compare_opts *o)
{
	const struct ax_db_params *x = &b->params, *y = &c->params;
	p->tunables = calloc((size_t)(x->n + y->n) + 1, sizeof(*p->tunables));
	if (!p->tunables)
		return AX_ENOMEM;
	const char *suite = text_of(b->suite);
	for (int i = 0, j = 0; i < x->n || j < y->n;) {
		int k = i == x->n   ? 1
			: j == y->n ? -1
				    : strcmp(x->v[i].name, y->v[j].name);
		const struct ax_db_param *u = k <= 0 ? &x->v[i++] : NULL;
		const struct ax_db_param *w = k >= 0 ? &y->v[j++] : NULL;
		const char *name = u ? u->name : w->name;
		/* A knob one side predates, at its default on the other. */
		const struct ax_db_param *only = u && w ? NULL : u ? u : w;
		if (only && o->is_default && o->is_default(suite, only))
			continue;
		if (o->is_tunable(suite, name) &&
		    !(u && w && ax_db_param_equal(u, w)))
			p->tunables[p->n_tunables++] =
			    (struct ax_compare_tunable){name, u, w};
	}
	return 0;
}

/* The first group of cv[0..n) not yet used whose case key is key. */
static struct group *find_case(struct group **cv, int n, const char *key)
{
	for (int j = 0; key && j < n; j++)
		if (!cv[j]->used && cv[j]->loose &&
		    strcmp(cv[j]->loose, key) == 0)
			return cv[j];
	return NULL;
}

/* Rows: BASE's groups in BASE order (matched or only in BASE), then the
 * groups only in CAND in CAND order.  A group pairs with the one of the
 * same exact key first; only then do the groups left over pair on their
 * case (a tuned run against a default run of one shape). */
static int match(struct ax_compare *c, struct side *bs, struct side *cs,
		 const struct ax_compare_opts *o, char *err, size_t errlen)
{
	struct group **bv = in_side_order(bs), **cv = in_side_order(cs);
	struct group **to = calloc((size_t)bs->n_groups + 1, sizeof(*to));
	int rc = bv && cv && to ? 0 : AX_ENOMEM;
	for (int i = 0; rc == 0 && i < bs->n_groups; i++)
		if ((to[i] = (struct group *)find_group(cs, bv[i]->key)))
			to[i]->used = true;
	for (int i = 0; rc == 0 && i < bs->n_groups; i++)
		if (!to[i] &&
		    (to[i] = find_case(cv, cs->n_groups, bv[i]->loose)))
			to[i]->used = true;
	for (int i = 0; rc == 0 && i < bs->n_groups; i++) {
		if (!to[i]) {
			add_unmatched(c, bv[i], true);
			continue;
		}
		rc = add_pair(c, bs, bv[i], cs, to[i], o, err, errlen);
		struct ax_compare_pair *p = &c->pairs[c->n_pairs - 1];
		if (rc == 0 && strcmp(to[i]->key, bv[i]->key) != 0)
			rc = diff_tunables(p, p->base, p->cand, o);
	}
	for (int j = 0; rc == 0 && j < cs->n_groups; j++)
		if (!cv[j]->used)
			add_unmatched(c, cv[j], false);
	if (rc == AX_ENOMEM)
		ax_errf(err, errlen, rc, "compare: out of memory");
	free(bv);
	free(cv);
	free(to);
	return rc;
}

int ax_compare_run(const struct ax_db_results *base,
		   const struct ax_db_results *cand, const char *base_label,
		   const char *cand_label, const struct ax_compare_opts *o,
		   struct ax_compare **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!base || !cand)
		return ax_errf(err, errlen, AX_EINVAL,
			       "compare: BASE and CAND must be lists of "
			       "results");
	struct ax_compare_opts defs;
	if (!o) {
		ax_compare_opts_init(&defs);
		o = &defs;
	}
	struct ax_compare *c = calloc(1, sizeof(*c));
	struct side bs = {0}, cs = {0};
	size_t *border = NULL, *corder = NULL;
	int rc = AX_ENOMEM;
	if (!c)
		return ax_errf(err, errlen, rc, "compare: out of memory");
	c->threshold = o->threshold;
	c->base_label = strdup(base_label ? base_label : "BASE");
	c->cand_label = strdup(cand_label ? cand_label : "CAND");
	c->pairs = calloc(base->n + cand->n + 1, sizeof(*c->pairs));
	if (c->base_label && c->cand_label && c->pairs &&
	    side_init(&bs, base, true, o, &border) == 0 &&
	    side_init(&cs, cand, false, o, &corder) == 0)
		rc = match(c, &bs, &cs, o, err, errlen);
	if (rc == 0)
		ax_compare_mde_summarize(c);
	else
		ax_errf(err, errlen, rc, "compare: out of memory");
	side_release(&bs, border);
	side_release(&cs, corder);
	if (rc != 0) {
		ax_compare_destroy(c);
		return rc;
	}
	*out = c;
	return 0;
}

void ax_compare_destroy(struct ax_compare *c)
{
	if (!c)
		return;
	for (int i = 0; c->pairs && i < c->n_pairs; i++)
		free(c->pairs[i].tunables);
	free(c->pairs);
	free(c->base_label);
	free(c->cand_label);
	free(c);
}

int ax_compare_n_compared(const struct ax_compare *c)
{
	return c->count[AX_VERDICT_SAME] + c->count[AX_VERDICT_FASTER] +
	       c->count[AX_VERDICT_SLOWER] + c->count[AX_VERDICT_AMBIGUOUS] +
	       c->count[AX_VERDICT_NOISY];
}
