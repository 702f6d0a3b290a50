/* reports/compare_mde.c - what a comparison could have detected: each
 * row's minimum detectable effect, the range over the rows, and what
 * would bring it down (the rules are in compare.h). */
#include "reports/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The smallest whole K with K >= x (x > 0); -1 beyond the cap. */
static int runs_for(double x)
{
	if (!(x <= AX_COMPARE_RUNS_MAX))
		return -1;
	int k = (int)ceil(x - 1e-9);
	return k < 1 ? 1 : k;
}

/* The replicates that would bring m's noise (effect - rule) down to the
 * rule: the noise scales with sqrt(1/K_b + 1/K_c), see compare.h. */
static void runs_needed(struct ax_compare_mde *m, int nb, int nc)
{
	double noise = m->effect - m->rule;
	m->runs_both = m->runs_base = 0;
	if (noise <= m->rule)
		return;
	m->runs_both = m->runs_base = -1;
	if (!(m->rule > 0))
		return;
	double now = 1.0 / (nb > 0 ? nb : 1) + 1.0 / (nc > 0 ? nc : 1);
	double room = (m->rule / noise) * (m->rule / noise) * now;
	m->runs_both = runs_for(2 / room);
	double base_room = room - 1.0 / (nc > 0 ? nc : 1);
	if (base_room > 0)
		m->runs_base = runs_for(1 / base_room);
}

void ax_compare_mde_row(struct ax_compare_pair *p, double rule, double t,
			bool strict)
{
	const struct ax_compare_stat *s = &p->stat;
	const struct ax_compare_noise *n = &p->noise;
	struct ax_compare_mde *m = &p->mde;
	*m = (struct ax_compare_mde){NAN, NAN, NAN, rule, 0, 0};
	if (!isfinite(s->impr_lo) || !isfinite(s->impr_hi))
		return;
	/* The interval must clear what the verdict compared with, and,
	 * where a side missed its noise target, judge_noise's allowance
	 * on top (compare.c): a change inside it reads noisy. */
	double clear = t;
	if (!strict && (ax_compare_missed_target(n->base, n->base_target) ||
			ax_compare_missed_target(n->cand, n->cand_target)))
		clear += (isfinite(n->base) ? n->base : 0) +
			 (isfinite(n->cand) ? n->cand : 0);
	m->threshold = clear;
	m->half_width = (s->impr_hi - s->impr_lo) / 2;
	m->effect = clear + m->half_width;
	runs_needed(m, p->reps.base, p->reps.cand);
}

static int cmp_effect(const void *x, const void *y)
{
	double a = (*(const struct ax_compare_pair *const *)x)->mde.effect;
	double b = (*(const struct ax_compare_pair *const *)y)->mde.effect;
	return (a > b) - (a < b);
}

/* Append to buf (len bytes, used so far: strlen). */
#define APPEND(buf, ...)                                                       \
	snprintf((buf) + strlen(buf), sizeof(buf) - strlen(buf), __VA_ARGS__)

/* What would bring the typical row's MDE to twice its threshold. */
static void advise(struct ax_compare_mde_summary *s)
{
	const struct ax_compare_pair *p = s->typical;
	const struct ax_compare_mde *m = &p->mde;
	s->advice[0] = '\0';
	if (m->runs_both == 0) {
		APPEND(s->advice,
		       "The median case's noise is no larger than the "
		       "threshold of %.3g%%",
		       100 * m->rule);
		return;
	}
	APPEND(s->advice,
	       "To detect changes above %.3g%% (twice the threshold) in the "
	       "median case: ",
	       200 * m->rule);
	if (m->runs_base > 0)
		APPEND(s->advice,
		       "a baseline of %d runs (`axbench baseline save NAME "
		       "--last %d`), or ",
		       m->runs_base, m->runs_base);
	if (m->runs_both > 0)
		APPEND(
		    s->advice,
		    "%d runs a side (`axbench baseline save NAME --last %d`, "
		    "and the candidate run with `--rounds %d`)",
		    m->runs_both, m->runs_both, m->runs_both);
	else
		APPEND(s->advice, "more than %d runs a side",
		       AX_COMPARE_RUNS_MAX);
	APPEND(s->advice, ", as the noise shrinks with the square root of "
			  "the runs");
	if (m->runs_base < 0)
		APPEND(s->advice, " (more baseline runs alone cannot: the "
				  "candidate's own noise is above that)");
	APPEND(s->advice, "; or a paired comparison (`axbench ab`), in which "
			  "the machine's state cancels");
	if (!isfinite(p->reps.spread))
		APPEND(s->advice,
		       ". With one run a side the noise between runs is not "
		       "measured: these counts are a lower bound");
}

void ax_compare_mde_summarize(struct ax_compare *c)
{
	struct ax_compare_mde_summary *s = &c->mde;
	memset(s, 0, sizeof(*s));
	s->median = s->min = s->max = NAN;
	const struct ax_compare_pair **v =
	    calloc((size_t)c->n_pairs + 1, sizeof(*v));
	if (!v)
		return; /* no summary is said as "nothing detected" */
	for (int i = 0; i < c->n_pairs; i++)
		if (isfinite(c->pairs[i].mde.effect))
			v[s->n++] = &c->pairs[i];
	if (s->n) {
		qsort(v, (size_t)s->n, sizeof(*v), cmp_effect);
		/* The middle row (the lower of two): a case's own figure. */
		s->typical = v[(s->n - 1) / 2];
		s->median = s->typical->mde.effect;
		s->min = v[0]->mde.effect;
		s->max = v[s->n - 1]->mde.effect;
		advise(s);
	}
	free(v);
}

const char *ax_compare_mde_text(const struct ax_compare *c, char *buf,
				size_t len)
{
	const struct ax_compare_mde_summary *s = &c->mde;
	if (s->n == 0)
		snprintf(buf, len, "%s",
			 "can detect nothing: no case got a test");
	else if (s->n == 1)
		snprintf(buf, len, "can detect changes above %.3g%% (1 case)",
			 100 * s->median);
	else
		snprintf(buf, len,
			 "can detect changes above %.3g%% (median; range "
			 "%.3g%% to %.3g%% over %d cases)",
			 100 * s->median, 100 * s->min, 100 * s->max, s->n);
	return buf;
}
