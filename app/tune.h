/*
 * app/tune.h - `axbench tune`: live tuning of a suite on a device (each
 * trial a full runner measurement, stored as it finishes) and replay of a
 * recorded landscape (no GPU).
 */
#ifndef AX_APP_TUNE_H
#define AX_APP_TUNE_H

#include "app/app.h"
#include "app/session.h"
#include "suites/runner.h"
#include "suites/suite.h"

#include <stdbool.h>
#include <stdint.h>

/* With --resume, a strategy of NULL, this seed and a budget of 0 mean
 * "not given": the session's stored ones are used. */
#define AX_TUNE_SEED_UNSET UINT64_MAX

/* --prior: not given (auto for a new session, the stored one on resume),
 * auto, none, or a session id. */
enum ax_tune_prior_mode {
	AX_PRIOR_UNSET = 0,
	AX_PRIOR_AUTO,
	AX_PRIOR_NONE,
	AX_PRIOR_SESSION,
};

/* What a live session minimises, per repetition: time (seconds), energy
 * (joules, from the device's sensor), edp (their product), or time and
 * energy both: their Pareto front (tuner/strategy.h, ax_tuner_tell2). */
enum ax_tune_objective {
	AX_OBJ_UNSET = 0, /* not given: time, or the resumed session's */
	AX_OBJ_TIME,
	AX_OBJ_ENERGY,
	AX_OBJ_EDP,
	AX_OBJ_PARETO,
};
/* "time", "energy", "edp", "time,energy" (NULL-terminated; enum order
 * from TIME). */
const char *const *ax_tune_objectives(void);
const char *ax_tune_objective_name(enum ax_tune_objective o);

/* "batch" or "cold", as the session stores it. */
const char *ax_tune_mode_name(enum ax_run_mode m);

struct ax_tune_args {
	const struct ax_suite *suite;
	struct ax_params base; /* shape from -p, tunables default */
	const char *strategy;
	uint64_t seed;
	size_t budget;
	double time_limit_s;
	int64_t resume_session;		    /* 0: a new session */
	int retime_top;			    /* re-time this many best points */
	bool no_early_stop;		    /* only budget / time limit stop */
	int stop_rule;			    /* enum ax_stop_rule, from
					     * --stop-rule (default ei) */
	bool stop_rule_given;		    /* --stop-rule or --no-early-stop */
	enum ax_tune_prior_mode prior_mode; /* --prior */
	int64_t prior_session;		    /* --prior SESSION */
	enum ax_tune_objective objective;   /* --objective */
	enum ax_run_mode mode;		    /* --mode: how trials sample */
	bool mode_given;		    /* --mode was given */
	struct ax_session_efficiency eff;   /* --idle, --cpu-baseline ... */
	const char *label;		    /* --label; NULL: HOST/DEVICE */
	struct ax_runner_opts trial_opts;   /* quick sampling per trial */
	struct ax_runner_opts final_opts;   /* careful sampling at the end */
};

struct ax_tuner_options;
/* The tuner's options from the command line's. */
void ax_tune_options(const struct ax_tune_args *a, struct ax_tuner_options *o);

/* --prior's value into a->prior_mode / prior_session: 0, or AX_EINVAL
 * with the message in err. */
int ax_tune_prior_parse(const char *text, struct ax_tune_args *a, char *err,
			size_t errlen);

struct ax_db;
struct ax_space;
struct ax_prior;

/* The prior a live session tunes with (app/tune_prior.c). */
struct ax_tune_prior {
	struct ax_prior *prior; /* NULL: cold */
	int64_t session_id;	/* the session it came from; 0: none */
	char basis[256];	/* why this one, or why none */
};

/*
 * Choose and build the prior for a session over space on the device
 * with this fingerprint (see app/tune_prior.c for the rules); stored is
 * the resumed session's own prior (0: none).  Returns 0 or an exit code
 * (the message printed): a named session that does not exist, tunes
 * another suite or gives no prior, or a --prior that disagrees with a
 * resumed session's, is a usage error.  pr is the caller's to
 * ax_tune_prior_release.
 */
int ax_tune_prior_resolve(struct ax_app *app, struct ax_db *db,
			  const struct ax_tune_args *a,
			  const struct ax_space *space, const char *fingerprint,
			  int64_t stored, struct ax_tune_prior *pr);
void ax_tune_prior_release(struct ax_tune_prior *pr);

/* Run a live session; returns the exit code. */
int ax_tune_live(struct ax_app *app, struct ax_tune_args *a);

#endif
