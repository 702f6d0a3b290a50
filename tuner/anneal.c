/*
 * tuner/anneal.c - simulated annealing over one-parameter neighbours.
 *
 * The walk moves between points that differ in one parameter.  Costs are
 * compared on a log scale, so the temperature means "accept a point this
 * many e-folds slower" and does not depend on the kernel's units.  Stepping
 * onto an already measured neighbour costs nothing (its cost is known), so
 * the walk keeps going until it reaches an untried neighbour, which it
 * proposes; a walk boxed in by tried or failed points jumps to a random
 * untried point.  The temperature falls geometrically from T0 to T1 over
 * the budget (or over 1000 evaluations without a budget).
 */
#include "tuner/strategy_impl.h"

#include "core/error.h"

#include <math.h>
#include <stdlib.h>

#define T0 0.3
#define T1 0.005
#define FREE_STEPS 64

struct anneal {
	long cur;      /* current point, -1 before the first success */
	double cur_lc; /* its log cost */
	size_t *nb;    /* neighbour scratch */
	size_t nbcap;
};

static int anneal_init(struct ax_tuner *t)
{
	struct anneal *a = calloc(1, sizeof(*a));
	if (!a)
		return AX_ENOMEM;
	a->cur = -1;
	a->nbcap = 4096;
	a->nb = malloc(a->nbcap * sizeof(size_t));
	if (!a->nb) {
		free(a);
		return AX_ENOMEM;
	}
	t->priv = a;
	return 0;
}

static void anneal_destroy(struct ax_tuner *t)
{
	struct anneal *a = t->priv;
	if (a)
		free(a->nb);
	free(a);
}

static double temperature(const struct ax_tuner *t)
{
	double horizon = t->opt.budget ? (double)t->opt.budget : 1000.0;
	double f = (double)t->ntold / horizon;
	if (f > 1)
		f = 1;
	return T0 * pow(T1 / T0, f);
}

/* Metropolis rule on log costs. */
static int accept(struct ax_tuner *t, double cur, double cand)
{
	if (cand <= cur)
		return 1;
	return gsl_rng_uniform(t->rng) < exp(-(cand - cur) / temperature(t));
}

static int anneal_ask(struct ax_tuner *t, size_t *index)
{
	struct anneal *a = t->priv;
	if (t->nuntried == 0)
		return AX_ENOTFOUND;
	for (int step = 0; a->cur >= 0 && step < FREE_STEPS; step++) {
		size_t m =
		    ax_space_neighbours(t->s, (size_t)a->cur, a->nb, a->nbcap);
		if (m > a->nbcap)
			m = a->nbcap;
		/* Prefer an untried neighbour; otherwise take a free step to
		 * a measured one. */
		size_t n_untried = 0;
		for (size_t j = 0; j < m; j++)
			if (t->state[a->nb[j]] == AX_PS_UNTRIED)
				a->nb[n_untried++] = a->nb[j];
		if (n_untried) {
			*index = a->nb[gsl_rng_uniform_int(t->rng, n_untried)];
			return 0;
		}
		m = ax_space_neighbours(t->s, (size_t)a->cur, a->nb, a->nbcap);
		if (m > a->nbcap)
			m = a->nbcap;
		size_t ok = 0;
		for (size_t j = 0; j < m; j++)
			if (t->state[a->nb[j]] == AX_PS_OK)
				a->nb[ok++] = a->nb[j];
		if (!ok)
			break;
		size_t j = a->nb[gsl_rng_uniform_int(t->rng, ok)];
		double lc = log(t->cost[j]);
		if (accept(t, a->cur_lc, lc)) {
			a->cur = (long)j;
			a->cur_lc = lc;
		}
	}
	*index = ax_tuner_random_untried(t);
	return 0;
}

static int anneal_tell(struct ax_tuner *t, size_t index, int ok, double cost)
{
	struct anneal *a = t->priv;
	if (!ok)
		return 0;
	double lc = log(cost);
	if (a->cur < 0 || accept(t, a->cur_lc, lc)) {
		a->cur = (long)index;
		a->cur_lc = lc;
	}
	return 0;
}

const struct ax_strategy_ops ax_strategy_anneal = {
    .name = "anneal",
    .init = anneal_init,
    .ask = anneal_ask,
    .tell = anneal_tell,
    .destroy = anneal_destroy,
};
