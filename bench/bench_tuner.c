/*
 * bench/bench_tuner.c - replays recorded landscapes through every strategy
 * and prints one table row per landscape and strategy.
 *
 * usage: bench_tuner [-n SEEDS] [-N BO_SEEDS] [-s LIST] [-i N_INIT]
 * [-E EI_STOP] [-R ROUNDS] [-M MIN_EVALS] [-L LOCAL_EVERY] [-H] FILE...
 *
 * For each seed two sessions run to 221 evaluations (so the ask after 220
 * observations is timed too): one with the default stop rule ("ei"; -E,
 * -R and -M change its threshold, rounds and minimum evaluations to
 * measure others; -L bo's local_every, for both sessions) and one with
 * --no-early-stop.  Cells "a/b" give the
 * default rule's figure, then --no-early-stop's.  Columns: median over
 * seeds of (lowest time found) / optimum after 20, 50, 100 and 220
 * evaluations (a session that stopped keeps its best); share of seeds
 * within 5 % of the optimum at 220; "evals": the median evaluations the
 * default rule used of a budget of 100 and of 220 (--no-early-stop uses
 * all); "1%?": whether the default rule's medians at 100 and 220 are
 * within 1 % of --no-early-stop's.  Timing, of the --no-early-stop
 * sessions: mean wall time per proposal (ask + tell) over the session; mean
 * wall time and mean CPU time (of the tuner's thread: immune to other load on
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
static struct ax_tuner_options stop_opts; /* the default rule; -E -R -M */
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

/* What one stop rule's sessions over every seed came to. */
struct rule_stats {
	double at[NMARKS]; /* median best / optimum at each mark */
	double within;	   /* share of seeds within 5 % at 220 */
	double evals100;   /* median evaluations used of a budget of 100 */
	double evals220;   /* ... and of 220 */
	double ms_prop, ms_tail, cpu_tail;
};

/*
 * Sessions of every seed under options o.  A session runs to BUDGET or
 * until its stop rule holds; a stopped session's best is carried to the
 * later marks, and a budget of 100 is the first 100 evaluations of the
 * same session (the rules do not depend on the budget).
 */
static int run_rule(const struct ax_landscape *l, const char *strategy,
		    int seeds, const struct ax_tuner_options *o,
		    struct rule_stats *st)
{
	double *at[NMARKS], *e100 = malloc(seeds * sizeof(double)),
			    *e220 = malloc(seeds * sizeof(double)),
			    trace[BUDGET];
	double within = 0, t_total = 0, t_last = 0, t_cpu = 0, evals = 0;
	char err[256];
	int rc = 0;
	for (int m = 0; m < NMARKS; m++)
		at[m] = malloc(seeds * sizeof(double));
	for (int s = 0; s < seeds && !rc; s++) {
		struct ax_replay_result r;
		for (int e = 0; e < BUDGET; e++)
			trace[e] = INFINITY;
		if (ax_replay_run(l, strategy, (uint64_t)s + 1, o, trace,
				  BUDGET, &r, err, sizeof(err))) {
			fprintf(stderr, "bench_tuner: %s\n", err);
			rc = 1;
			break;
		}
		for (int e = 1; e < BUDGET; e++)
			if (e >= (int)r.evals)
				trace[e] = trace[e - 1];
		for (int m = 0; m < NMARKS; m++)
			at[m][s] = trace[marks[m] - 1] / l->optimum;
		within += trace[219] <= 1.05 * l->optimum;
		e100[s] = r.evals < 100 ? (double)r.evals : 100;
		e220[s] = r.evals < 220 ? (double)r.evals : 220;
		t_total += r.tuner_s;
		evals += (double)r.evals;
		t_last += r.tail_ask_s;
		t_cpu += r.tail_ask_cpu_s;
	}
	if (!rc) {
		for (int m = 0; m < NMARKS; m++)
			st->at[m] = median(at[m], seeds);
		st->within = within / seeds;
		st->evals100 = median(e100, seeds);
		st->evals220 = median(e220, seeds);
		st->ms_prop = 1e3 * t_total / evals;
		st->ms_tail = 1e3 * t_last / seeds;
		st->cpu_tail = 1e3 * t_cpu / seeds;
	}
	for (int m = 0; m < NMARKS; m++)
		free(at[m]);
	free(e100);
	free(e220);
	return rc;
}

/* The default stop rule within 1 % of --no-early-stop at 100 and 220. */
static int rule_costs_nothing(const struct rule_stats *d,
			      const struct rule_stats *n)
{
	return d->at[2] <= 1.01 * n->at[2] && d->at[3] <= 1.01 * n->at[3];
}

static int strategy_row(const struct ax_landscape *l, const char *name,
			const char *strategy, int seeds)
{
	struct ax_tuner_options def = stop_opts, none;
	struct rule_stats d, n;
	def.budget = BUDGET;
	def.n_init = n_init;
	none = def;
	none.stop_rule = AX_STOP_NONE;
	if (run_rule(l, strategy, seeds, &def, &d) ||
	    run_rule(l, strategy, seeds, &none, &n))
		return 1;
	printf("%-52s %-8s %5d", name, strategy, seeds);
	for (int m = 0; m < NMARKS; m++) {
		char cell[32];
		snprintf(cell, sizeof(cell), "%.3f/%.3f", d.at[m], n.at[m]);
		printf(" %13s", cell);
	}
	char w[32], e[32];
	snprintf(w, sizeof(w), "%.0f/%.0f%%", 100 * d.within, 100 * n.within);
	snprintf(e, sizeof(e), "%.0f,%.0f", d.evals100, d.evals220);
	printf(" %9s %9s %4s %8.2f %8.2f %8.2f\n", w, e,
	       rule_costs_nothing(&d, &n) ? "yes" : "NO", n.ms_prop, n.ms_tail,
	       n.cpu_tail);
	fflush(stdout);
	return 0;
}

static void header(void)
{
	printf("%-52s %-8s %5s %13s %13s %13s %13s %9s %9s %4s %8s %8s "
	       "%8s\n",
	       "landscape (points, failed)", "strategy", "seeds", "@20", "@50",
	       "@100", "@220", "<=5%@220", "evals", "1%?", "ms/prop", "ms@220",
	       "cpu@220");
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
	ax_tuner_options_init(&stop_opts);
	while ((opt = getopt(argc, argv, "n:N:s:i:E:R:M:L:H")) != -1) {
		switch (opt) {
		case 'E':
			stop_opts.ei_threshold = atof(optarg);
			break;
		case 'R':
			stop_opts.ei_rounds = atoi(optarg);
			break;
		case 'M':
			stop_opts.min_evals = (size_t)atoi(optarg);
			break;
		case 'L':
			stop_opts.local_every = atoi(optarg);
			break;
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
				"[-N BO_SEEDS] [-s LIST] [-i N_INIT] "
				"[-E EI_STOP] [-R ROUNDS] [-M MIN_EVALS] "
				"[-L LOCAL_EVERY] [-H] "
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
