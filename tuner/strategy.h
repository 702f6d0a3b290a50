/*
 * tuner/strategy.h - the ask/tell interface every search strategy shares.
 *
 * A tuner walks one struct ax_space.  The caller loops: ax_tuner_ask() for
 * the index of the next point to measure, measure it, ax_tuner_tell() the
 * outcome; until ask returns AX_ENOTFOUND, after which
 * ax_tuner_stop_reason() says why.  The tuner minimises a cost (a time):
 * callers with a higher-is-better metric pass its time or its reciprocal.
 *
 * Strategies: "bo" (Gaussian-process Bayesian optimisation: maximin Latin
 * hypercube start, log-EI times a feasibility estimate, maximised exactly
 * over every untried point up to 200 000 of them, by multi-start local
 * search beyond), "random" (uniform, without replacement), "grid" (every
 * point in index order) and "anneal" (simulated annealing over
 * one-parameter neighbours).  Every strategy is deterministic for a seed
 * and a sequence of tells.  A point is proposed at most once: asked points
 * are never asked again, and failed points are remembered as failed (they
 * never reach the time model; "bo" learns where failures cluster).
 *
 * Stopping rules, checked by ask: the evaluation budget; a wall-clock
 * limit; every point tried; and one early-stopping rule, by name
 * (enum ax_stop_rule):
 *   "ei" (the default): bo only, and only once it has measured at least
 *     ax_tuner_min_evals() points (growing with the number of tunable
 *     parameters): the largest expected improvement over every untried
 *     point stays below ei_threshold of the best time for ei_rounds
 *     proposals in a row.  The EI is maximised exactly over every untried
 *     point, so this is the model saying that no point left can pay; in
 *     spaces too large to scan (local-search mode) the maximum is only
 *     sampled and the rule never fires.  Other strategies have no model:
 *     under "ei" they run to the budget.
 *   "gain": no gain of at least 1 % over the last max(20, 10 % of
 *     evaluations) evaluations (the default before issue 12: it stopped
 *     bo after a median 38-48 of 100 evaluations, often far from the
 *     optimum).
 *   "none": only the budget, the time limit and exhaustion stop.
 */
#ifndef AX_TUNER_STRATEGY_H
#define AX_TUNER_STRATEGY_H

#include "tuner/space.h"

#include <stddef.h>
#include <stdint.h>

struct ax_tuner;
struct ax_prior;

enum ax_trial_status {
	AX_TRIAL_OK = 0,     /* measured: cost is valid */
	AX_TRIAL_FAILED = 1, /* compile / run / verification failure,
			      * timeout or an invalid point: no cost */
};

/* The "ei" rule's defaults, chosen on the replay landscapes (see
 * docs/RELIABILITY.md, "Tuner: stopping early only when it costs
 * nothing"): minimum evaluations = max(2 n_init, AX_EI_EVALS_PER_DIM per
 * varying parameter). */
#define AX_EI_STOP_DEFAULT 1e-4
#define AX_EI_ROUNDS_DEFAULT 10
#define AX_EI_EVALS_PER_DIM 10

enum ax_stop_rule {
	AX_STOP_EI = 0, /* the default; see above */
	AX_STOP_GAIN,
	AX_STOP_NONE,
};

struct ax_tuner_options {
	size_t budget;	     /* evaluations; 0 = no limit */
	double time_limit_s; /* wall clock from creation; 0 = no limit */
	int n_init;	     /* bo: Latin hypercube size; 0 = 10, or 5
			      * after a prior's best points */
	enum ax_stop_rule stop_rule;
	double ei_threshold; /* "ei": stop when EI, as a fraction of the
			      * best time, stays below this ... */
	int ei_rounds;	     /* ... for this many proposals in a row ... */
	size_t min_evals;    /* ... after this many evaluations; 0 =
			      * ax_tuner_min_evals() */
	int local_every;     /* bo: every k-th proposal searches near the
			      * best point (tuner/bo.c); 0 = never */
	const struct ax_prior *prior; /* bo: another session's model as
				       * a mean function and its best
				       * points first (tuner/prior.h);
				       * built for this space, borrowed;
				       * NULL: cold.  Other strategies
				       * ignore it. */
	int prior_top;	/* bo with a prior: how many of its best points open
			 * the initial design; 0 = AX_PRIOR_TOP, -1 = none */
	int objectives; /* 1 (0 means 1), or 2: each tell carries a time
			 * and an energy (ax_tuner_tell2) and the answer is
			 * their Pareto front (see below) */
};

/* Defaults: no budget or time limit, n_init 10, stop rule "ei" with
 * threshold AX_EI_STOP_DEFAULT for AX_EI_ROUNDS_DEFAULT rounds, bo's
 * local_every 0 (see tuner/bo.c for why it is off). */
void ax_tuner_options_init(struct ax_tuner_options *o);

/* The stop rule named name ("ei", "gain", "none") into *rule: 0, or
 * AX_EINVAL with a message listing the names. */
int ax_stop_rule_parse(const char *name, enum ax_stop_rule *rule, char *err,
		       size_t errlen);

/* The name of a stop rule, borrowed. */
const char *ax_stop_rule_name(enum ax_stop_rule rule);

/* NULL-terminated list of stop rule names (for option help). */
const char *const *ax_stop_rules(void);

/* NULL-terminated list of strategy names. */
const char *const *ax_tuner_strategies(void);

/*
 * Create a tuner over space (borrowed: it must outlive the tuner) with the
 * named strategy and seed; opt may be NULL for the defaults.  Errors:
 * AX_EINVAL (unknown strategy: the message lists the known ones),
 * AX_ENOMEM.  The tuner is the caller's to ax_tuner_destroy.
 */
int ax_tuner_create(struct ax_tuner **out, const struct ax_space *space,
		    const char *strategy, uint64_t seed,
		    const struct ax_tuner_options *opt, char *err,
		    size_t errlen);

void ax_tuner_destroy(struct ax_tuner *t);

/*
 * Next point to evaluate, into *index.  Returns 0, or AX_ENOTFOUND once a
 * stopping rule holds (then and afterwards; see ax_tuner_stop_reason), or
 * AX_ENOMEM.  Several asks may be outstanding at once.
 */
int ax_tuner_ask(struct ax_tuner *t, size_t *index);

/*
 * Report the outcome of point index: status and, for AX_TRIAL_OK, its cost
 * (finite and > 0; anything else is recorded as a failure).  The point need
 * not have been asked (resume from stored trials, or seeding from other
 * devices), but may be told only once: AX_EINVAL otherwise, or for an
 * index out of range.
 */
int ax_tuner_tell(struct ax_tuner *t, size_t index, enum ax_trial_status status,
		  double cost);

/*
 * Two objectives (options.objectives = 2): report both costs of point
 * index, each finite and > 0 for AX_TRIAL_OK (else it is a failure).
 * With two objectives ax_tuner_tell is refused (AX_EINVAL).  bo proposes
 * by ParEGO (Knowles 2006): each model-based proposal draws a weight w
 * from a low-discrepancy sweep of [0, 1], scalarises every measurement
 * as the augmented Chebyshev max(w x, (1 - w) y) + 0.05 (w x + (1 - w) y)
 * of its log time x and log energy y scaled to [0, 1] over the
 * measurements, refits the GP on that and maximises its expected
 * improvement: one model, exact EI over the pool, and over the sweep
 * every trade of the front is aimed at.  The "ei" rule never fires (a
 * small EI for one weight says nothing of the others) and a prior is not
 * used (it models time alone); random and grid search as ever; anneal,
 * which walks one objective, is refused.  ax_tuner_best gives the front's
 * knee and ax_tuner_top the front, knee first, then by time.
 */
int ax_tuner_tell2(struct ax_tuner *t, size_t index,
		   enum ax_trial_status status, double cost, double cost2);

/* With two objectives: the measured front (tuner/pareto.h) into
 * idx[0..k), sorted by time; returns how many (at most k). */
size_t ax_tuner_front(struct ax_tuner *t, size_t k, size_t *idx);

/* A measured point's second cost (NAN when not measured or with one
 * objective). */
double ax_tuner_cost2(const struct ax_tuner *t, size_t index);

/*
 * The answer: among the measured points, the one with the lowest posterior
 * mean (bo) or the lowest measured cost (other strategies), and its
 * measured cost.  AX_ENOTFOUND when nothing has been measured.
 */
int ax_tuner_best(struct ax_tuner *t, size_t *index, double *cost);

/*
 * Up to k measured points, best first by the same ordering as
 * ax_tuner_best (so a caller can re-time the top few); returns how many
 * were written to idx.
 */
size_t ax_tuner_top(struct ax_tuner *t, size_t k, size_t *idx);

/* Why the tuner stopped ("budget of 100 evaluations reached", ...), or NULL
 * while it has not.  Borrowed. */
const char *ax_tuner_stop_reason(const struct ax_tuner *t);

/* The "ei" rule's automatic minimum number of evaluations for a space. */
size_t ax_tuner_min_evals(const struct ax_space *space, int n_init);

/* Evaluations told so far (successful and failed). */
size_t ax_tuner_evals(const struct ax_tuner *t);

/* bo: the largest expected improvement at the last proposal, as a fraction
 * of the best cost; NaN for other strategies or before the model exists. */
double ax_tuner_last_ei(const struct ax_tuner *t);

/* bo with a prior: the slope the model puts on the prior's mean at its
 * last fit (0 when the data preferred the cold model); NaN without a
 * prior, for other strategies, or before the first fit. */
double ax_tuner_prior_slope(const struct ax_tuner *t);

/* The strategy's name, borrowed. */
const char *ax_tuner_strategy(const struct ax_tuner *t);

#endif
