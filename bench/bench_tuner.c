/*
 * bench/bench_tuner.c - replays recorded landscapes through every strategy
 * and prints one table row per landscape and strategy.
 *
 * usage: bench_tuner [-n SEEDS] [-N BO_SEEDS] [-s LIST] [-i N_INIT] [-H]
 * FILE...
 *
 * For each seed a session runs to 221 evaluations with every stopping rule
 * but the budget off, so the ask after 220 observations is timed too.
 * Columns: median over seeds of (lowest time found) / optimum after 20, 50,
 * 100 and 220 evaluations; share of seeds within 5 % of the optimum at 220;
 * mean wall time per proposal (ask + tell) over the session; mean wall
 * time and mean CPU time (of the tuner's thread: immune to other load on
 * the machine) of the last 20 asks, made with 201..220 observations, so
 * the periodic hyperparameter refits are amortised as they are in use;
 * both averaged over seeds.  The "random*" row is the exact
 * expectation of random search without replacement (expected ratio, with
 * the exact median in brackets, and the exact probability of being within
 * 5 %), computed in closed form, not sampled.
 */
#include "tuner/replay.h"
#include "tuner/strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUDGET 221
static const int marks[] = {20, 50, 100, 220};
static int n_init; /* -i: bo's initial design size, 0 = automatic */
#define NMARKS 4

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const char *short_name(const char *path)
{
	const char *p = strstr(path, "landscapes/");
	p = p ? p + strlen("landscapes/") : path;
	if (!strncmp(p, "benchmark_hub/", 14))
		p += 14;
	if (!strncmp(p, "currently_unused/", 17))
		p += 17;
	if (!strncmp(p, "cachefiles/", 11))
		p += 11;
	return p;
}

static void random_row(const struct ax_landscape *l, const char *name)
{
	printf("%-52s %-8s %5s", name, "random*", "exact");
	double p = 0;
	for (int m = 0; m < NMARKS; m++) {
		double ex, med;
		ax_replay_random_stats(l, (size_t)marks[m], &ex, &med, &p);
		char cell[32];
		snprintf(cell, sizeof(cell), "%.3f(%.3f)", ex, med);
		printf(" %13s", cell);
	}
	printf(" %7.0f%% %8s %8s %8s\n", 100 * p, "-", "-", "-");
}

static int strategy_row(const struct ax_landscape *l, const char *name,
			const char *strategy, int seeds)
{
	double *at[NMARKS], trace[BUDGET];
	double within = 0, t_total = 0, t_last = 0, t_cpu = 0, evals = 0;
	char err[256];
	for (int m = 0; m < NMARKS; m++)
		at[m] = malloc(seeds * sizeof(double));
	struct ax_tuner_options o;
	ax_tuner_options_init(&o);
	o.budget = BUDGET;
	o.ei_threshold = 0;
	o.patience = 0;
	o.n_init = n_init;
	for (int s = 0; s < seeds; s++) {
		struct ax_replay_result r;
		for (int e = 0; e < BUDGET; e++)
			trace[e] = INFINITY;
		if (ax_replay_run(l, strategy, (uint64_t)s + 1, &o, trace,
				  BUDGET, &r, err, sizeof(err))) {
			fprintf(stderr, "bench_tuner: %s\n", err);
			return 1;
		}
		for (int e = 1; e < BUDGET; e++)
			if (e >= (int)r.evals)
				trace[e] = trace[e - 1];
		for (int m = 0; m < NMARKS; m++)
			at[m][s] = trace[marks[m] - 1] / l->optimum;
		within += trace[219] <= 1.05 * l->optimum;
		t_total += r.tuner_s;
		evals += (double)r.evals;
		t_last += r.tail_ask_s;
		t_cpu += r.tail_ask_cpu_s;
	}
	printf("%-52s %-8s %5d", name, strategy, seeds);
	for (int m = 0; m < NMARKS; m++) {
		printf(" %13.3f", median(at[m], seeds));
		free(at[m]);
	}
	printf(" %7.0f%% %8.2f %8.2f %8.2f\n", 100 * within / seeds,
	       1e3 * t_total / evals, 1e3 * t_last / seeds,
	       1e3 * t_cpu / seeds);
	fflush(stdout);
	return 0;
}

static void header(void)
{
	printf("%-52s %-8s %5s %13s %13s %13s %13s %8s %8s %8s %8s\n",
	       "landscape (points, failed)", "strategy", "seeds", "@20", "@50",
	       "@100", "@220", "<=5%@220", "ms/prop", "ms@220", "cpu@220");
}

int main(int argc, char **argv)
{
	int seeds = 20, bo_seeds = -1, opt;
	/* Default: every strategy the tuner has, in its table's order. */
	char every[256] = "";
	for (const char *const *n = ax_tuner_strategies(); *n; n++)
		snprintf(every + strlen(every), sizeof(every) - strlen(every),
			 "%s%s", *every ? "," : "", *n);
	const char *list = every;
	while ((opt = getopt(argc, argv, "n:N:s:i:H")) != -1) {
		switch (opt) {
		case 'n':
			seeds = atoi(optarg);
			break;
		case 'N':
			bo_seeds = atoi(optarg);
			break;
		case 'i':
			n_init = atoi(optarg);
			break;
		case 's':
			list = optarg;
			break;
		case 'H':
			header();
			return 0;
		default:
			fprintf(stderr,
				"usage: bench_tuner [-n SEEDS] "
				"[-N BO_SEEDS] [-s LIST] [-i N_INIT] [-H] "
				"FILE...\n");
			return 2;
		}
	}
	if (bo_seeds < 0)
		bo_seeds = seeds;
	int rc = 0;
	for (int f = optind; f < argc; f++) {
		struct ax_landscape *l;
		char err[512], name[128];
		if (ax_replay_load(argv[f], &l, err, sizeof(err))) {
			fprintf(stderr, "bench_tuner: skipped: %s\n", err);
			continue;
		}
		snprintf(name, sizeof(name), "%s (%zu, %zu)",
			 short_name(argv[f]), l->n, l->nfailed);
		random_row(l, name);
		char *copy = strdup(list), *save = NULL;
		for (char *s = strtok_r(copy, ",", &save); s && !rc;
		     s = strtok_r(NULL, ",", &save))
			rc = strategy_row(l, name, s,
					  strcmp(s, "bo") ? seeds : bo_seeds);
		free(copy);
		ax_landscape_destroy(l);
	}
	return rc;
}
