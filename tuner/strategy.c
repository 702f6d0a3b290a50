/* tuner/strategy.c - the common ask/tell layer, stopping rules, and the
 * random and grid baselines. */
#include "tuner/strategy_impl.h"

#include "core/error.h"
#include "tuner/pareto.h"
#include "tuner/prior.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct ax_strategy_ops *const strategies[] = {
    &ax_strategy_bo,
    &ax_strategy_random,
    &ax_strategy_grid,
    &ax_strategy_anneal,
};
#define NSTRAT (sizeof(strategies) / sizeof(strategies[0]))

const char *const *ax_tuner_strategies(void)
{
	static const char *names[NSTRAT + 1];
	for (size_t i = 0; i < NSTRAT; i++)
		names[i] = strategies[i]->name;
	names[NSTRAT] = NULL;
	return names;
}

void ax_tuner_options_init(struct ax_tuner_options *o)
{
	memset(o, 0, sizeof(*o));
	o->stop_rule = AX_STOP_EI;
	o->ei_threshold = AX_EI_STOP_DEFAULT;
	o->ei_rounds = AX_EI_ROUNDS_DEFAULT;
}

static const char *const stop_rule_names[] = {"ei", "gain", "none", NULL};

const char *const *ax_stop_rules(void) { return stop_rule_names; }

const char *ax_stop_rule_name(enum ax_stop_rule rule)
{
	return rule <= AX_STOP_NONE ? stop_rule_names[rule] : "?";
}

int ax_stop_rule_parse(const char *name, enum ax_stop_rule *rule, char *err,
		       size_t errlen)
{
	for (int i = 0; stop_rule_names[i]; i++)
		if (strcmp(name, stop_rule_names[i]) == 0) {
			*rule = (enum ax_stop_rule)i;
			return 0;
		}
	char known[64];
	ax_join_names(stop_rule_names, known, sizeof(known));
	return ax_errf(err, errlen, AX_EINVAL, "unknown stop rule '%s'; use %s",
		       name, known);
}

/*
 * A GP needs a few points per varying parameter before its lengthscales,
 * and so its expected improvement, mean anything: a model fitted on too
 * few points is confidently wrong about the regions it has not seen.
 */
size_t ax_tuner_min_evals(const struct ax_space *space, int n_init)
{
	size_t varying = 0;
	for (int d = 0; d < ax_space_ndims(space); d++) {
		const double *lev;
		varying += ax_space_dim_levels(space, d, &lev) > 1;
	}
	size_t m = AX_EI_EVALS_PER_DIM * (varying ? varying : 1);
	size_t init = 2 * (size_t)(n_init > 0 ? n_init : 10);
	return m > init ? m : init;
}

static const struct ax_strategy_ops *find_strategy(const char *name)
{
	for (size_t i = 0; i < NSTRAT; i++)
		if (strcmp(strategies[i]->name, name) == 0)
			return strategies[i];
	return NULL;
}

int ax_tuner_create(struct ax_tuner **out, const struct ax_space *space,
		    const char *strategy, uint64_t seed,
		    const struct ax_tuner_options *opt, char *err,
		    size_t errlen)
{
	*out = NULL;
	const struct ax_strategy_ops *ops = find_strategy(strategy);
	if (!ops) {
		char known[128];
		ax_join_names(ax_tuner_strategies(), known, sizeof(known));
		return ax_errf(err, errlen, AX_EINVAL,
			       "unknown strategy '%s'; use %s", strategy,
			       known);
	}
	if (opt && opt->prior && ax_prior_space(opt->prior) != space)
		return ax_errf(err, errlen, AX_EINVAL,
			       "the prior was built for another space");
	int two = opt && opt->objectives == 2;
	if (opt && (opt->objectives < 0 || opt->objectives > 2))
		return ax_errf(err, errlen, AX_EINVAL,
			       "%d objectives: one or two are supported",
			       opt->objectives);
	if (two && ops == &ax_strategy_anneal)
		return ax_errf(err, errlen, AX_EINVAL,
			       "strategy anneal walks one objective; a Pareto "
			       "front of two needs bo, random or grid");
	struct ax_tuner *t = calloc(1, sizeof(*t));
	if (!t)
		return AX_ENOMEM;
	size_t n = ax_space_size(space);
	t->s = space;
	t->ops = ops;
	t->seed = seed;
	t->n = n;
	if (opt)
		t->opt = *opt;
	else
		ax_tuner_options_init(&t->opt);
	t->state = calloc(n, 1);
	t->cost = malloc(n * sizeof(double));
	t->cost2 = two ? malloc(n * sizeof(double)) : NULL;
	t->untried = malloc(n * sizeof(size_t));
	t->upos = malloc(n * sizeof(size_t));
	t->told = malloc(n * sizeof(size_t));
	t->trace = malloc(n * sizeof(double));
	t->rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!t->state || !t->cost || !t->untried || !t->upos || !t->told ||
	    !t->trace || !t->rng || (two && !t->cost2)) {
		ax_tuner_destroy(t);
		return AX_ENOMEM;
	}
	gsl_rng_set(t->rng, (unsigned long)(seed * 2654435761u + 1));
	for (size_t i = 0; i < n; i++)
		t->untried[i] = t->upos[i] = i;
	t->nuntried = n;
	t->best_cost = INFINITY;
	t->last_ei = NAN;
	t->prior_slope = NAN;
	clock_gettime(CLOCK_MONOTONIC, &t->t0);
	int rc = ops->init ? ops->init(t) : 0;
	if (rc) {
		ax_tuner_destroy(t);
		return rc == AX_ENOMEM
			   ? rc
			   : ax_errf(err, errlen, rc,
				     "strategy %s could not start on this "
				     "space",
				     strategy);
	}
	*out = t;
	return 0;
}

void ax_tuner_destroy(struct ax_tuner *t)
{
	if (!t)
		return;
	if (t->ops && t->ops->destroy)
		t->ops->destroy(t);
	free(t->state);
	free(t->cost);
	free(t->cost2);
	free(t->untried);
	free(t->upos);
	free(t->told);
	free(t->trace);
	if (t->rng)
		gsl_rng_free(t->rng);
	free(t);
}

void ax_tuner_take(struct ax_tuner *t, size_t i)
{
	size_t p = t->upos[i];
	if (p >= t->nuntried || t->untried[p] != i)
		return;
	size_t last = t->untried[--t->nuntried];
	t->untried[p] = last;
	t->upos[last] = p;
	t->upos[i] = (size_t)-1;
}

size_t ax_tuner_random_untried(struct ax_tuner *t)
{
	return t->untried[gsl_rng_uniform_int(t->rng, t->nuntried)];
}

static double elapsed_s(const struct ax_tuner *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->t0.tv_sec) +
	       1e-9 * (double)(now.tv_nsec - t->t0.tv_nsec);
}

/* "gain": no 1 % gain over the last max(20, 10 %) evaluations. */
static int stalled(const struct ax_tuner *t, size_t *window)
{
	size_t n = t->ntold, w = n / 10 > 20 ? n / 10 : 20;
	*window = w;
	if (t->opt.stop_rule != AX_STOP_GAIN || n <= w)
		return 0;
	double before = t->trace[n - 1 - w], now = t->trace[n - 1];
	return isfinite(before) && isfinite(now) && before < now * 1.01;
}

/* "ei": the model has been sure for ei_rounds proposals in a row that no
 * untried point can pay, after enough evaluations to trust it. */
static int ei_spent(const struct ax_tuner *t)
{
	const struct ax_tuner_options *o = &t->opt;
	if (o->stop_rule != AX_STOP_EI || o->ei_threshold <= 0 ||
	    o->ei_rounds <= 0 || t->cost2)
		return 0;
	size_t least =
	    o->min_evals ? o->min_evals : ax_tuner_min_evals(t->s, o->n_init);
	return t->ntold >= least && t->low_ei_rounds >= o->ei_rounds;
}

/* Sets t->stopped and the reason when a stopping rule holds. */
static int check_stop(struct ax_tuner *t)
{
	size_t w;
	if (t->stopped)
		return 1;
	if (t->opt.budget && t->ntold + t->pending >= t->opt.budget)
		snprintf(t->reason, sizeof(t->reason),
			 "budget of %zu evaluations reached", t->opt.budget);
	else if (t->nuntried == 0)
		snprintf(t->reason, sizeof(t->reason),
			 "every one of the %zu points was tried", t->n);
	else if (t->opt.time_limit_s > 0 && elapsed_s(t) >= t->opt.time_limit_s)
		snprintf(t->reason, sizeof(t->reason),
			 "time limit of %g s reached", t->opt.time_limit_s);
	else if (ei_spent(t))
		snprintf(t->reason, sizeof(t->reason),
			 "expected improvement below %g of the best over "
			 "every untried point for %d proposals (after %zu "
			 "evaluations)",
			 t->opt.ei_threshold, t->opt.ei_rounds, t->ntold);
	else if (stalled(t, &w))
		snprintf(t->reason, sizeof(t->reason),
			 "no gain of 1%% or more in the last %zu evaluations",
			 w);
	else
		return 0;
	t->stopped = 1;
	return 1;
}

int ax_tuner_ask(struct ax_tuner *t, size_t *index)
{
	if (check_stop(t))
		return AX_ENOTFOUND;
	size_t i;
	int rc = t->ops->ask(t, &i);
	if (rc == AX_ENOTFOUND) {
		snprintf(t->reason, sizeof(t->reason),
			 "strategy %s has no point left to propose",
			 t->ops->name);
		t->stopped = 1;
	}
	if (rc)
		return rc;
	ax_tuner_take(t, i);
	t->state[i] = AX_PS_PENDING;
	t->pending++;
	/* A round counts only when the EI is a maximum over every untried
	 * point; a sampled maximum (large spaces) proves nothing. */
	if (t->opt.ei_threshold > 0 && isfinite(t->last_ei))
		t->low_ei_rounds =
		    t->ei_exact && t->last_ei < t->opt.ei_threshold
			? t->low_ei_rounds + 1
			: 0;
	*index = i;
	return 0;
}

static int positive(double c) { return isfinite(c) && c > 0; }

static int tell(struct ax_tuner *t, size_t index, enum ax_trial_status status,
		double cost, double cost2)
{
	if (index >= t->n || t->state[index] == AX_PS_OK ||
	    t->state[index] == AX_PS_FAILED)
		return AX_EINVAL;
	if (t->state[index] == AX_PS_PENDING)
		t->pending--;
	else
		ax_tuner_take(t, index);
	int ok = status == AX_TRIAL_OK && positive(cost) &&
		 (!t->cost2 || positive(cost2));
	t->state[index] = ok ? AX_PS_OK : AX_PS_FAILED;
	t->cost[index] = ok ? cost : NAN;
	if (t->cost2)
		t->cost2[index] = ok ? cost2 : NAN;
	if (ok) {
		t->nok++;
		if (cost < t->best_cost) {
			t->best_cost = cost;
			t->best_index = index;
		}
	} else {
		t->nfailed++;
	}
	t->told[t->ntold] = index;
	t->trace[t->ntold++] = t->best_cost;
	return t->ops->tell ? t->ops->tell(t, index, ok, cost) : 0;
}

int ax_tuner_tell(struct ax_tuner *t, size_t index, enum ax_trial_status status,
		  double cost)
{
	if (t->cost2)
		return AX_EINVAL; /* two objectives: ax_tuner_tell2 */
	return tell(t, index, status, cost, NAN);
}

int ax_tuner_tell2(struct ax_tuner *t, size_t index,
		   enum ax_trial_status status, double cost, double cost2)
{
	if (!t->cost2)
		return AX_EINVAL;
	return tell(t, index, status, cost, cost2);
}

double ax_tuner_cost2(const struct ax_tuner *t, size_t index)
{
	return t->cost2 && index < t->n && t->state[index] == AX_PS_OK
		   ? t->cost2[index]
		   : NAN;
}

size_t ax_tuner_front(struct ax_tuner *t, size_t k, size_t *idx)
{
	if (!t->cost2 || t->nok == 0 || k == 0)
		return 0;
	double *a = malloc(t->nok * sizeof(double));
	double *b = malloc(t->nok * sizeof(double));
	size_t *pt = malloc(t->nok * sizeof(size_t));
	size_t *f = malloc(t->nok * sizeof(size_t));
	size_t m = 0, nf = 0;
	if (a && b && pt && f) {
		for (size_t j = 0; j < t->ntold; j++) {
			size_t i = t->told[j];
			if (t->state[i] != AX_PS_OK)
				continue;
			a[m] = t->cost[i];
			b[m] = t->cost2[i];
			pt[m++] = i;
		}
		nf = ax_pareto_front(a, b, m, f);
		for (size_t j = 0; j < nf && j < k; j++)
			idx[j] = pt[f[j]];
	}
	free(a);
	free(b);
	free(pt);
	free(f);
	return nf < k ? nf : k;
}

/* Two objectives: the front, its knee first, then the rest by time. */
static size_t front_top(struct ax_tuner *t, size_t k, size_t *idx)
{
	size_t *f = malloc(t->nok * sizeof(size_t));
	size_t m = f ? ax_tuner_front(t, t->nok, f) : 0, n = 0;
	/* The front holds point indices, which index cost and cost2. */
	size_t knee = m ? ax_pareto_knee(t->cost, t->cost2, f, m) : 0;
	if (m && k)
		idx[n++] = f[knee];
	for (size_t j = 0; j < m && n < k; j++)
		if (j != knee)
			idx[n++] = f[j];
	free(f);
	return n;
}

struct ranked {
	double key;
	size_t idx;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->idx > y->idx) - (x->idx < y->idx);
}

size_t ax_tuner_top(struct ax_tuner *t, size_t k, size_t *idx)
{
	if (t->nok == 0 || k == 0)
		return 0;
	if (t->cost2)
		return front_top(t, k, idx);
	struct ranked *r = malloc(t->nok * sizeof(*r));
	if (!r)
		return 0;
	size_t m = 0;
	for (size_t j = 0; j < t->ntold; j++) {
		size_t i = t->told[j];
		if (t->state[i] != AX_PS_OK)
			continue;
		r[m].idx = i;
		r[m].key = t->ops->rank ? t->ops->rank(t, i) : t->cost[i];
		m++;
	}
	qsort(r, m, sizeof(*r), cmp_ranked);
	if (k > m)
		k = m;
	for (size_t j = 0; j < k; j++)
		idx[j] = r[j].idx;
	free(r);
	return k;
}

int ax_tuner_best(struct ax_tuner *t, size_t *index, double *cost)
{
	size_t i;
	if (ax_tuner_top(t, 1, &i) != 1)
		return AX_ENOTFOUND;
	*index = i;
	if (cost)
		*cost = t->cost[i];
	return 0;
}

const char *ax_tuner_stop_reason(const struct ax_tuner *t)
{
	return t->stopped ? t->reason : NULL;
}

size_t ax_tuner_evals(const struct ax_tuner *t) { return t->ntold; }

double ax_tuner_last_ei(const struct ax_tuner *t) { return t->last_ei; }

double ax_tuner_prior_slope(const struct ax_tuner *t) { return t->prior_slope; }

const char *ax_tuner_strategy(const struct ax_tuner *t) { return t->ops->name; }

/* random: uniform over the untried points, i.e. without replacement. */
static int random_ask(struct ax_tuner *t, size_t *index)
{
	if (t->nuntried == 0)
		return AX_ENOTFOUND;
	*index = ax_tuner_random_untried(t);
	return 0;
}

const struct ax_strategy_ops ax_strategy_random = {
    .name = "random",
    .ask = random_ask,
};

/* grid: every point in index order (enumeration order of the space). */
static int grid_ask(struct ax_tuner *t, size_t *index)
{
	while (t->cursor < t->n && t->state[t->cursor] != AX_PS_UNTRIED)
		t->cursor++;
	if (t->cursor >= t->n)
		return AX_ENOTFOUND;
	*index = t->cursor++;
	return 0;
}

const struct ax_strategy_ops ax_strategy_grid = {
    .name = "grid",
    .ask = grid_ask,
};
