/*
 * bench/bench_transfer.c - what a prior from another device's tuning
 * session is worth: replays a target landscape with bo, cold and with a
 * prior from each other landscape given, and prints one row per pair.
 *
 * usage: bench_transfer [-n SEEDS] [-P PRIOR_BUDGET] [-T TOP] [-i N_INIT]
 * [-R] TARGET PRIOR...
 *
 * For each seed s the prior is the stored trials of a bo session on the
 * prior landscape (default stop rule, PRIOR_BUDGET evaluations, default
 * 100, seed s), what a user who tuned that device first has in the
 * database; the target session then runs with the default stop rule to
 * 220 evaluations (-R: the stop rule "none" instead; -T: how many of the
 * prior's best points open the design, -1 none, default AX_PRIOR_TOP; -i:
 * the Latin hypercube's size after them, with a prior, default bo's). Columns:
 * rho, Spearman's rank correlation of the two landscapes over the
 * configurations both measured (above 0.5 the prior should halve the work);
 * the median over seeds of the evaluations until the best found is within 5 %
 * of the target's optimum (">220" when more than half the seeds never
 * got there), cold then with the prior, and their ratio (cold / prior:
 * above 1 the prior saves evaluations); the median best / optimum at 20,
 * 50, 100 and 220 evaluations, cold / prior; the share of seeds within 5
 * % at 220, cold / prior.  The "cold, other seeds" row repeats the cold
 * sessions with seeds n+1..2n: how far two cold runs differ by chance
 * alone, the noise floor any prior's difference must clear.
 */
#include "tuner/prior.h"
#include "tuner/replay.h"
#include "tuner/strategy.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUDGET 220
static int prior_top; /* -T: bo's prior_top option, 0 = its default */
static int warm_init; /* -i: bo's n_init with a prior, 0 = its default */
#define NMARKS 4
static const int marks[NMARKS] = {20, 50, 100, 220};

struct stats {
	double to5;	   /* median evaluations to within 5 %, INF: never */
	double at[NMARKS]; /* median best / optimum */
	double within;	   /* share of seeds within 5 % at 220 */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* "convolution_milo/A100" of ".../cachefiles/convolution_milo/A100.json.gz". */
static const char *short_name(const char *path, char *buf, size_t n)
{
	const char *p = strstr(path, "cachefiles/");
	snprintf(buf, n, "%s", p ? p + strlen("cachefiles/") : path);
	char *dot = strstr(buf, ".json");
	if (dot)
		*dot = '\0';
	return buf;
}

/* Sessions for seeds first..first+n-1; prior_land NULL: cold. */
static int sessions(const struct ax_landscape *l,
		    const struct ax_landscape *prior_land, int first, int n,
		    size_t prior_budget, int no_stop, struct stats *st)
{
	double *to5 = malloc((size_t)n * sizeof(double));
	double *at[NMARKS], trace[BUDGET], within = 0;
	char err[512];
	int rc = to5 ? 0 : 1;
	for (int m = 0; m < NMARKS; m++)
		if (!(at[m] = malloc((size_t)n * sizeof(double))))
			rc = 1;
	for (int k = 0; k < n && !rc; k++) {
		uint64_t seed = (uint64_t)(first + k);
		struct ax_tuner_options o;
		struct ax_replay_result r;
		struct ax_prior *p = NULL;
		ax_tuner_options_init(&o);
		o.budget = BUDGET;
		if (no_stop)
			o.stop_rule = AX_STOP_NONE;
		if (prior_land &&
		    ax_replay_prior(l, prior_land, seed, prior_budget, &p, err,
				    sizeof(err))) {
			fprintf(stderr, "bench_transfer: %s\n", err);
			rc = 1;
			break;
		}
		o.prior = p;
		o.prior_top = prior_top;
		if (p)
			o.n_init = warm_init;
		for (int e = 0; e < BUDGET; e++)
			trace[e] = INFINITY;
		rc = ax_replay_run(l, "bo", seed, &o, trace, BUDGET, &r, err,
				   sizeof(err));
		ax_prior_destroy(p);
		if (rc) {
			fprintf(stderr, "bench_transfer: %s\n", err);
			break;
		}
		for (int e = 1; e < BUDGET; e++)
			if (e >= (int)r.evals)
				trace[e] = trace[e - 1];
		to5[k] = INFINITY;
		for (int e = 0; e < BUDGET && isinf(to5[k]); e++)
			if (trace[e] <= 1.05 * l->optimum)
				to5[k] = e + 1;
		for (int m = 0; m < NMARKS; m++)
			at[m][k] = trace[marks[m] - 1] / l->optimum;
		within += trace[BUDGET - 1] <= 1.05 * l->optimum;
	}
	if (!rc) {
		st->to5 = median(to5, n);
		for (int m = 0; m < NMARKS; m++)
			st->at[m] = median(at[m], n);
		st->within = within / n;
	}
	for (int m = 0; m < NMARKS; m++)
		free(at[m]);
	free(to5);
	return rc;
}

/* Spearman's rank correlation of the two landscapes' costs over the
 * configurations both measured (matched by parameter name and value):
 * how far the prior's ranking is this device's.  NAN with fewer than 3
 * common points or a parameter the other lacks. */
static double rank_correlation(const struct ax_landscape *t,
			       const struct ax_landscape *o)
{
	int D = ax_space_ndims(t->space), map[AX_MAX_PARAMS];
	if (D != ax_space_ndims(o->space))
		return NAN;
	for (int d = 0; d < D; d++) {
		map[d] = -1;
		for (int e = 0; e < D; e++)
			if (!strcmp(ax_space_dim_name(t->space, d),
				    ax_space_dim_name(o->space, e)))
				map[d] = e;
		if (map[d] < 0)
			return NAN;
	}
	double *a = malloc(o->n * sizeof(double));
	double *b = malloc(o->n * sizeof(double));
	double *work = malloc(2 * o->n * sizeof(double));
	double rho = NAN;
	size_t n = 0;
	for (size_t i = 0; a && b && work && i < o->n; i++) {
		double vals[AX_MAX_PARAMS];
		if (!isfinite(o->cost[i]))
			continue;
		for (int d = 0; d < D; d++)
			vals[d] = ax_space_value(o->space, i, map[d]);
		long j = ax_space_find(t->space, vals);
		if (j < 0 || !isfinite(t->cost[j]))
			continue;
		a[n] = t->cost[j];
		b[n++] = o->cost[i];
	}
	if (n >= 3)
		rho = gsl_stats_spearman(a, 1, b, 1, n, work);
	free(a);
	free(b);
	free(work);
	return rho;
}

static void evals_cell(double v, char *buf, size_t n)
{
	if (isinf(v))
		snprintf(buf, n, ">%d", BUDGET);
	else
		snprintf(buf, n, "%.0f", v);
}

static void row(const char *target, const char *prior, const struct stats *c,
		const struct stats *p, double rho)
{
	char a[16], b[16], ratio[16] = "-", cell[32], rc[16] = "-";
	evals_cell(c->to5, a, sizeof(a));
	evals_cell(p->to5, b, sizeof(b));
	if (isfinite(c->to5) && isfinite(p->to5))
		snprintf(ratio, sizeof(ratio), "%.2fx", c->to5 / p->to5);
	snprintf(cell, sizeof(cell), "%s/%s", a, b);
	if (isfinite(rho))
		snprintf(rc, sizeof(rc), "%.2f", rho);
	printf("%-24s %-24s %5s %9s %6s", target, prior, rc, cell, ratio);
	for (int m = 0; m < NMARKS; m++) {
		snprintf(cell, sizeof(cell), "%.3f/%.3f", c->at[m], p->at[m]);
		printf(" %13s", cell);
	}
	snprintf(cell, sizeof(cell), "%.0f/%.0f%%", 100 * c->within,
		 100 * p->within);
	printf(" %9s\n", cell);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int seeds = 20, no_stop = 0, opt;
	size_t prior_budget = 100;
	while ((opt = getopt(argc, argv, "n:P:T:i:RH")) != -1) {
		switch (opt) {
		case 'i':
			warm_init = atoi(optarg);
			break;
		case 'T':
			prior_top = atoi(optarg);
			break;
		case 'n':
			seeds = atoi(optarg);
			break;
		case 'P':
			prior_budget = (size_t)atoi(optarg);
			break;
		case 'R':
			no_stop = 1;
			break;
		case 'H':
			printf("%-24s %-24s %5s %9s %6s %13s %13s %13s %13s "
			       "%9s\n",
			       "target", "prior", "rho", "to5%", "saved", "@20",
			       "@50", "@100", "@220", "<=5%@220");
			return 0;
		default:
			fprintf(
			    stderr,
			    "usage: bench_transfer [-n SEEDS] "
			    "[-P PRIOR_BUDGET] [-T TOP] [-i N_INIT] [-R] [-H] "
			    "TARGET "
			    "PRIOR...\n");
			return 2;
		}
	}
	if (argc - optind < 2 || seeds < 1) {
		fprintf(stderr, "bench_transfer: needs a TARGET and at least "
				"one PRIOR landscape\n");
		return 2;
	}
	struct ax_landscape *l;
	char err[512];
	if (ax_replay_load(argv[optind], &l, err, sizeof(err))) {
		fprintf(stderr, "bench_transfer: %s\n", err);
		return 1;
	}
	char tname[128], pname[128];
	short_name(argv[optind], tname, sizeof(tname));
	struct stats cold, other;
	int rc = sessions(l, NULL, 1, seeds, 0, no_stop, &cold) ||
		 sessions(l, NULL, seeds + 1, seeds, 0, no_stop, &other);
	if (!rc)
		row(tname, "cold, other seeds", &cold, &other, NAN);
	for (int f = optind + 1; f < argc && !rc; f++) {
		struct ax_landscape *pl;
		struct stats warm;
		if (ax_replay_load(argv[f], &pl, err, sizeof(err))) {
			fprintf(stderr, "bench_transfer: %s\n", err);
			rc = 1;
			break;
		}
		rc = sessions(l, pl, 1, seeds, prior_budget, no_stop, &warm);
		double rho = rank_correlation(l, pl);
		if (!rc)
			row(tname, short_name(argv[f], pname, sizeof(pname)),
			    &cold, &warm, rho);
		ax_landscape_destroy(pl);
	}
	ax_landscape_destroy(l);
	return rc;
}
