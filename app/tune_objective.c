/* app/tune_objective.c - what a live tuning session minimises. */
#include "app/tune_internal.h"

#include <math.h>

/* Energy and edp are minimised over the sensor's figures; time keeps the
 * suite's own statistics (its samples are the time). */
bool ax_tl_energy_objective(const struct ax_tl_live *lv)
{
	return lv->a->objective == AX_OBJ_ENERGY ||
	       lv->a->objective == AX_OBJ_EDP;
}

/*
 * What the tuner minimises for a measurement: its median seconds per
 * repetition, its energy per repetition, or the two multiplied (energy
 * x delay).  NAN when the measurement has no such ax_tl_figure (a failure, a
 * timed span too short for the sensor).
 */
double ax_tl_objective_of(const struct ax_tl_live *lv,
			   const struct ax_session_case *c, double sec)
{
	switch (lv->a->objective) {
	case AX_OBJ_ENERGY:
	case AX_OBJ_PARETO: /* the energy, told beside the seconds */
		return c->energy_rep_j;
	case AX_OBJ_EDP:
		return c->energy_rep_j * sec;
	default:
		return sec;
	}
}

const char *ax_tl_objective_unit(const struct ax_tl_live *lv)
{
	return lv->a->objective == AX_OBJ_ENERGY ||
		       lv->a->objective == AX_OBJ_PARETO
		   ? "J"
	       : lv->a->objective == AX_OBJ_EDP	 ? "J*s"
						 : "s";
}

/* Is a measurement with this value (suite unit) and objective figure
 * better than the best so far? */
bool ax_tl_better(const struct ax_tl_live *lv, double value, double obj)
{
	if (ax_tl_energy_objective(lv))
		return !isnan(obj) &&
		       (isnan(lv->best_obj) || obj < lv->best_obj);
	if (isnan(value))
		return false;
	if (isnan(lv->best_value))
		return true;
	return lv->a->suite->higher_is_better ? value > lv->best_value
					      : value < lv->best_value;
}

void ax_tl_tell(struct ax_tl_live *lv, size_t i, bool ok, double sec,
		double obj)
{
	enum ax_trial_status st = ok ? AX_TRIAL_OK : AX_TRIAL_FAILED;
	if (lv->a->objective == AX_OBJ_PARETO)
		ax_tuner_tell2(lv->tuner, i, st, ok ? sec : NAN,
			       ok ? obj : NAN);
	else
		ax_tuner_tell(lv->tuner, i, st, ok ? obj : NAN);
}

const char *const *ax_tune_objectives(void)
{
	static const char *const names[] = {"time", "energy", "edp",
					    "time,energy", NULL};
	return names;
}

const char *ax_tune_objective_name(enum ax_tune_objective o)
{
	return o >= AX_OBJ_TIME && o <= AX_OBJ_PARETO
		   ? ax_tune_objectives()[o - AX_OBJ_TIME]
		   : "time";
}
