/*
 * tuner/replay.h - recorded landscapes as an objective (simulation mode).
 *
 * A landscape is Kernel Tuner's cache file (.json, or .json.gz through
 * zlib): "tune_params_keys" (the parameter names, in order), "tune_params"
 * (each name's list of values, numbers or strings) and "cache" (one entry
 * per configuration, holding every parameter and "time": a number in ms,
 * or a failure marker string such as "CompilationFailedConfig").  It
 * becomes an explicit-point struct ax_space (one point per cache entry;
 * numeric parameters keep their values, string-valued ones are
 * categorical) plus the cost of each point; failures cost an evaluation
 * and yield nothing, as on a GPU.  Configurations absent from the cache are
 * those the kernel's restrictions exclude, so they are not in the space.
 *
 * Input is treated as hostile: files above 64 MiB decompressed, more than
 * 2^21 entries, more than AX_MAX_PARAMS parameters or 65 536 values per
 * parameter are refused; NaN, Infinity, zero, negative or non-numeric
 * times are failures; entries naming values outside tune_params, missing a
 * parameter, or repeating a configuration are errors that name the entry.
 */
#ifndef AX_TUNER_REPLAY_H
#define AX_TUNER_REPLAY_H

#include "tuner/prior.h"
#include "tuner/space.h"
#include "tuner/strategy.h"

#include <stddef.h>
#include <stdint.h>

#define AX_REPLAY_MAX_BYTES (64u << 20)
#define AX_REPLAY_MAX_ENTRIES (1u << 21)

struct ax_landscape {
	struct ax_space *space; /* owned */
	double *cost;		/* per point; NAN for a failed config */
	double *energy;		/* per point, J: an "energy" or
				 * "<sensor>_energy" field, else a "power"
				 * or "<sensor>_power" one (W) times the
				 * time; NAN where neither is recorded */
	size_t n_energy;	/* points with an energy */
	size_t n;		/* points (= cache entries) */
	size_t nfailed;
	double optimum; /* lowest valid cost */
	size_t opt_index;
	char *kernel_name; /* "kernel_name", or NULL */
	char *device_name; /* "device_name", or NULL */
};

/*
 * Load a Kernel Tuner cache file.  On success *out is the caller's to
 * ax_landscape_destroy.  Errors (message names path and, where it
 * applies, the cache entry): AX_EIO (cannot read, or corrupt gzip),
 * AX_EINVAL (not a cache file, limits above, no valid time), AX_ENOMEM.
 */
int ax_replay_load(const char *path, struct ax_landscape **out, char *err,
		   size_t errlen);

void ax_landscape_destroy(struct ax_landscape *l);

/* Outcome of one replayed tuning session. */
struct ax_replay_result {
	size_t evals;	       /* evaluations made (<= budget) */
	size_t best_index;     /* the tuner's answer (ax_tuner_best) */
	double best_cost;      /* its cost */
	double best_found;     /* lowest cost measured (can differ for bo) */
	double tuner_s;	       /* wall time spent inside ask + tell */
	double tuner_cpu_s;    /* CPU time of this thread inside ask + tell */
	double last_ask_s;     /* time of the last ask */
	double tail_ask_s;     /* mean wall time of the last (up to) 20 asks */
	double tail_ask_cpu_s; /* ... and their mean CPU time */
	char stop_reason[160];
	/* Two objectives (opt->objectives == 2): the front measured, by
	 * time (at most AX_REPLAY_FRONT_MAX of it), its knee (a position in
	 * front), how many points the landscape's whole front has, and the
	 * share of that front's hypervolume the measured one reaches (both
	 * against the box from the landscape's best time and energy to 1.1
	 * times the whole front's worst, in log scale: tuner/pareto.h). */
	size_t front[64];
	size_t nfront, knee, true_front;
	double hv_ratio;
};
#define AX_REPLAY_FRONT_MAX 64

/*
 * Run a session of the named strategy on the landscape: ask, look the cost
 * up, tell, until the tuner stops.  With opt->objectives == 2 each point's
 * energy is told beside its time (a point without one counts as failed)
 * and res has the front; AX_EINVAL when the landscape records no energy.  opt
 * may be NULL (defaults); give it a budget.  trace, when not NULL, receives the
 * lowest cost measured after each evaluation (INFINITY before the first
 * success), res->evals values. Errors: those of ax_tuner_create, AX_ENOMEM.
 */
int ax_replay_run(const struct ax_landscape *l, const char *strategy,
		  uint64_t seed, const struct ax_tuner_options *opt,
		  double *trace, size_t trace_len, struct ax_replay_result *res,
		  char *err, size_t errlen);

/*
 * A prior for landscape l from other, a recorded landscape of the same
 * kernel on another device: the trials of a bo session on other (default
 * stop rule, budget evaluations, seed), as a user who tuned that device
 * first has them stored, mapped into l's space by parameter name and value
 * (tuner/prior.h).  Categorical values map by their index in tune_params,
 * so the two files must list them alike.  *out is the caller's to
 * ax_prior_destroy and borrows l's space.  Errors: those of
 * ax_prior_create (another space, too few successes that map), AX_ENOMEM.
 */
int ax_replay_prior(const struct ax_landscape *l,
		    const struct ax_landscape *other, uint64_t seed,
		    size_t budget, struct ax_prior **out, char *err,
		    size_t errlen);

/*
 * Exact statistics of uniform random search without replacement after k
 * evaluations (failed configurations drawn like any other): the expected
 * best / optimum given at least one success, the median best / optimum
 * (INFINITY if more likely than not nothing succeeded), and the
 * probability of being within 5 % of the optimum.  Any output may be NULL.
 */
int ax_replay_random_stats(const struct ax_landscape *l, size_t k,
			   double *expect_ratio, double *median_ratio,
			   double *p_within5);

#endif
