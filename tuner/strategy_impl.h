/*
 * tuner/strategy_impl.h - what strategies see of a tuner (private to
 * tuner/; callers use tuner/strategy.h).
 *
 * The common layer owns the bookkeeping every strategy needs: which points
 * are untried (a swap-remove list, so uniform draws and removals are O(1)),
 * every told outcome in order, the best cost so far and the stopping
 * rules.  A strategy only picks the next untried point and, optionally,
 * learns from tells and ranks the measured points.
 *
 * Adding a strategy: the recipe in docs/ARCHITECTURE.md.
 */
#ifndef AX_TUNER_STRATEGY_IMPL_H
#define AX_TUNER_STRATEGY_IMPL_H

#include "tuner/strategy.h"

#include <gsl/gsl_rng.h>
#include <time.h>

enum ax_point_state {
	AX_PS_UNTRIED = 0,
	AX_PS_PENDING, /* asked, not yet told */
	AX_PS_OK,
	AX_PS_FAILED,
};

struct ax_strategy_ops {
	const char *name;
	int (*init)(struct ax_tuner *t);
	/* Pick an untried point; AX_ENOTFOUND when none is left. */
	int (*ask)(struct ax_tuner *t, size_t *index);
	/* Learn from an outcome (state already updated); may be NULL. */
	int (*tell)(struct ax_tuner *t, size_t index, int ok, double cost);
	/* Model value used to rank measured point index (lower is better);
	 * NULL ranks by measured cost. */
	double (*rank)(struct ax_tuner *t, size_t index);
	void (*destroy)(struct ax_tuner *t);
};

struct ax_tuner {
	const struct ax_space *s;
	const struct ax_strategy_ops *ops;
	struct ax_tuner_options opt;
	uint64_t seed;
	gsl_rng *rng;
	size_t n;	      /* points in the space */
	unsigned char *state; /* enum ax_point_state per point */
	double *cost;	      /* per point, valid when AX_PS_OK */
	double *cost2;	      /* two objectives: the second, else NULL */
	size_t *untried;      /* untried[0..nuntried) */
	size_t *upos;	      /* position in untried, per point */
	size_t nuntried;
	size_t pending;
	size_t ntold, nok, nfailed;
	size_t *told;  /* point indices in tell order */
	double *trace; /* best cost after each tell (INFINITY) */
	double best_cost;
	size_t best_index;
	double last_ei;
	double prior_slope; /* see ax_tuner_prior_slope */
	int ei_exact; /* last_ei is the maximum over every untried point */
	int low_ei_rounds;
	struct timespec t0;
	char reason[160];
	int stopped;
	size_t cursor; /* grid: next index to consider */
	void *priv;    /* the strategy's state */
};

/* Remove point i from the untried list (no-op if it is not there). */
void ax_tuner_take(struct ax_tuner *t, size_t i);

/* A uniformly random untried point (the list must not be empty). */
size_t ax_tuner_random_untried(struct ax_tuner *t);

extern const struct ax_strategy_ops ax_strategy_bo;
extern const struct ax_strategy_ops ax_strategy_random;
extern const struct ax_strategy_ops ax_strategy_grid;
extern const struct ax_strategy_ops ax_strategy_anneal;

#endif
