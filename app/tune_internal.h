/*
 * app/tune_internal.h - what the files of a live tuning session share
 * (not a public header: only app/tune_*.c include it).
 *
 *   app/tune_live.c       the session: device, database, the tune_session
 *                         row, ask -> measure -> store -> tell, the end
 *   app/tune_objective.c  what is minimised: time, energy or edp
 *   app/tune_verdict.c    the defaults measured first, the best points
 *                         re-timed, the best of them and the defaults
 *                         measured in paired rounds for the verdict
 *   app/tune_pareto.c     the end of a time-and-energy session: the front
 *                         re-timed, stored and printed
 *   app/tune_report.c     progress lines and the closing report
 *   app/tune_resume.c     --resume: the stored trials replayed into the
 *                         tuner, the stored settings checked
 *
 * Names shared between them are ax_tl_*.
 */
#ifndef AX_APP_TUNE_INTERNAL_H
#define AX_APP_TUNE_INTERNAL_H

#include "app/session.h"
#include "app/tune.h"
#include "core/db_rows.h"
#include "reports/compare.h"
#include "tuner/strategy.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ax_tl_live {
	struct ax_app *app;
	struct ax_tune_args *a;
	struct ax_session session; /* device, database, run row */
	struct ax_db *db;	   /* session.db, once open */
	struct ax_space *space;
	struct ax_tuner *tuner;
	struct ax_tune_prior prior; /* what the session learns from */
	int64_t session_id;	    /* the tune_session row */
	int n_trials;		    /* stored so far, resumed ones included */
	double best_value;	    /* in the suite's unit, NAN before any */
	double best_obj;	    /* its objective ax_tl_figure (lower wins) */
	int64_t best_trial_id;	    /* best measured trial, until re-timing */
	int64_t *trial_ids;	    /* per point of the space, 0 if untried */
	char best_label[512];	    /* the best point's tunables */
	double defaults_first; /* the defaults, measured before any trial */
	double *first_values;  /* its samples (owned), for the check that */
	int first_n;	       /* the paired figure agrees with it */
	double run_start_s;    /* when this run's first trial began */
	int run_trials;	       /* trials measured by this run */
	json_t *front;	       /* time,energy: the re-timed front (owned) */
};

/* The most front points a time-and-energy session re-times. */
#define AX_TL_FRONT_MAX 8


/* A final measurement: its median and its raw values, for the verdict. */
struct ax_tl_timed {
	double median; /* NAN when it failed */
	double obj;    /* its objective figure, NAN when none */
	double sec;    /* median seconds per repetition, NAN when it failed */
	int64_t result_id;
	double *values;
	int n;
};


/* The paired measurement of the candidate (B) against the defaults
 * (A) at the end of a time-objective session (ax_session_measure_pair). */
struct ax_tl_pair {
	bool done;		 /* at least one round was measured */
	int rounds, blocks;	 /* blocks: rebuilt between (runner.h) */
	double speedup, lo, hi;	 /* B's speed over A's, its interval */
	/* Where a re-measurement of as many rounds should read (95 %):
	 * ax_stats_ratio_prediction of the interval; NaN without one. */
	double pred_lo, pred_hi;
	double level, p_value;	 /* the interval's level, the test's p */
	const char *stop_reason; /* static text (runner.h) */
	struct ax_compare_stat stat; /* compare's rules on the interval */
	int64_t default_id, best_id; /* the two stored results */
};

struct ax_tl_verdict {
	size_t best_index;
	double best, defaults;
	double best_obj, defaults_obj; /* their objective figures */
	bool have_best;
	bool defaults_win; /* no tried point beat the defaults re-timed */
	/* The best re-timed point that was set against the defaults (its
	 * index and figure stay when the defaults win). */
	bool have_candidate;
	size_t cand_index;
	double cand;
	struct ax_tl_pair pair;
	/* The defaults measured first disagree with the paired figure
	 * beyond noise (compare's sample rules): said as a warning. */
	bool first_disagrees;
};

void ax_tl_point_params(const struct ax_tl_live *lv, size_t i, struct ax_params *p);
int ax_tl_measure(struct ax_tl_live *lv, const struct ax_params *p,
		   const struct ax_runner_opts *opts, const char *role,
		   struct ax_session_case *c);
bool ax_tl_energy_objective(const struct ax_tl_live *lv);
double ax_tl_objective_of(const struct ax_tl_live *lv,
			   const struct ax_session_case *c, double sec);
const char *ax_tl_objective_unit(const struct ax_tl_live *lv);
bool ax_tl_better(const struct ax_tl_live *lv, double value, double obj);
double ax_tl_now_s(void);
const char *ax_tl_figure(const struct ax_tl_live *lv, double v, char *buf, size_t n);
void ax_tl_progress(const struct ax_tl_live *lv, double value, const char *status);
void ax_tl_say(const struct ax_tl_live *lv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* As ax_tl_say, marked as a warning (--json says it in the document). */
void ax_tl_warn(const struct ax_tl_live *lv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int ax_tl_replay_stored(struct ax_tl_live *lv,
			const struct ax_db_session_row *session);
enum ax_stop_rule ax_tl_stop_rule_of(const struct ax_tune_args *a);
int ax_tl_measure_defaults_first(struct ax_tl_live *lv);
int ax_tl_finalise(struct ax_tl_live *lv, struct ax_tl_verdict *v);
/* Tell the tuner point i's outcome: its objective figure obj, and with
 * --objective time,energy its seconds beside (obj is then the energy). */
void ax_tl_tell(struct ax_tl_live *lv, size_t i, bool ok, double sec,
		double obj);
/* Measure p with the final sampling (role "retime" or "default"). */
int ax_tl_retime(struct ax_tl_live *lv, const struct ax_params *p,
		 const char *role, struct ax_tl_timed *t);
bool ax_tl_is_defaults(const struct ax_tl_live *lv, const struct ax_params *p);
bool ax_tl_defaults_valid(const struct ax_tl_live *lv);
/* app/tune_pareto.c: the end of a time-and-energy session, and its
 * closing lines. */
int ax_tl_finalise_pareto(struct ax_tl_live *lv, struct ax_tl_verdict *v);
void ax_tl_print_front(const struct ax_tl_live *lv);
const char *ax_tl_end_reason(const struct ax_tl_live *lv, int rc);
void ax_tl_report(struct ax_tl_live *lv, const struct ax_tl_verdict *v, int rc);
void ax_tl_tell_resume(const struct ax_tl_live *lv);
int ax_tl_check_objective_sensor(struct ax_tl_live *lv);
int ax_tl_load_resumed(struct ax_tl_live *lv,
		       struct ax_db_session_row **session);
/* A stored parameter set (a trial's, a session's shape: core/db_rows.h)
 * parsed against defs[0..n), each value as the text ax_params_from_json
 * gives it, so the point and the first error are those of the stored
 * document; AX_EINVAL when what was stored is no mapping.  (This belongs
 * in core/db_rows.h: reports/export.c has the same step.) */
int ax_tl_stored_params(struct ax_params *p, const struct ax_param_def *defs,
			int n, const struct ax_db_params *src,
			const json_t *doc, char *err, size_t errlen);

#endif
