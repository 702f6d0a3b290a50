/*
 * app/tune_pareto.c - the end of a session tuned for time and energy
 * (`tune --objective time,energy`): the Pareto front of what was measured.
 *
 * The tuner's front (tuner/strategy.h) is of the trials' quick figures.
 * Each of its points (the knee first, at most AX_TL_FRONT_MAX) is re-timed
 * with the full sampling, one after the other, and so are the defaults;
 * the front of those re-timed figures, the defaults among the candidates,
 * is the answer: printed, stored with the session (tune_session.front_json)
 * and what `export --pick fastest|least-energy|knee` chooses from.  There
 * is no paired test: a paired measurement stores no power (one sensor
 * cannot tell two interleaved sides apart), as for --objective energy.
 */
#include "app/tune_internal.h"

#include "core/db.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "tuner/pareto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One re-timed candidate. */
struct candidate {
	bool defaults;
	size_t index; /* point of the space (unset for the defaults) */
	struct ax_tl_timed t;
};

static json_t *point_json(const struct ax_tl_live *lv,
			  const struct candidate *c, bool knee)
{
	struct ax_params p;
	if (c->defaults)
		p = lv->a->base;
	else
		ax_tl_point_params(lv, c->index, &p);
	int64_t trial = c->defaults ? 0 : lv->trial_ids[c->index];
	char label[512];
	ax_params_label(&p, AX_PARAM_TUNABLE, label, sizeof(label));
	return json_pack("{s:o,s:s,s:f,s:f,s:f,s:I,s:o,s:b,s:b}", "params",
			 ax_params_json(&p), "label", label, "value",
			 c->t.median, "seconds",
			 c->t.sec, "energy_j", c->t.obj, "result_id",
			 (json_int_t)c->t.result_id, "trial_id",
			 trial ? json_integer(trial) : json_null(), "knee",
			 knee, "defaults", c->defaults);
}

/* The front of the re-timed candidates into lv->front, the knee as the
 * answer in v. */
static int take_front(struct ax_tl_live *lv, struct ax_tl_verdict *v,
		      struct candidate *c, size_t n)
{
	double a[AX_TL_FRONT_MAX + 1], b[AX_TL_FRONT_MAX + 1];
	size_t f[AX_TL_FRONT_MAX + 1];
	for (size_t j = 0; j < n; j++) {
		a[j] = c[j].t.sec;
		b[j] = c[j].t.obj;
	}
	size_t m = ax_pareto_front(a, b, n, f);
	if (m == 0)
		return 0;
	size_t knee = ax_pareto_knee(a, b, f, m);
	json_decref(lv->front);
	lv->front = json_array();
	for (size_t j = 0; j < m; j++)
		json_array_append_new(lv->front,
				      point_json(lv, &c[f[j]], j == knee));
	const struct candidate *k = &c[f[knee]];
	v->have_best = true;
	v->best = k->t.median;
	v->best_obj = k->t.obj;
	v->defaults_win = k->defaults;
	v->best_index = k->index;
	lv->best_trial_id = k->defaults ? 0 : lv->trial_ids[k->index];
	char *text = json_dumps(lv->front, JSON_COMPACT);
	int rc = text ? ax_db_session_set_front(lv->db, lv->session_id, text)
		      : AX_ENOMEM;
	free(text);
	if (rc)
		return ax_app_error(lv->app, AX_EXIT_STORAGE,
				    "tune: storing the front: %s",
				    ax_db_errmsg(lv->db));
	return 0;
}

/* A candidate with both figures is kept; one without (a failure, a span
 * too short for the sensor) is dropped and its slot reused. */
static size_t keep(struct candidate *c)
{
	if (!isnan(c->t.obj) && !isnan(c->t.sec))
		return 1;
	free(c->t.values);
	c->t.values = NULL;
	return 0;
}

int ax_tl_finalise_pareto(struct ax_tl_live *lv, struct ax_tl_verdict *v)
{
	size_t top[AX_TL_FRONT_MAX], k = ax_tuner_top(lv->tuner,
						      AX_TL_FRONT_MAX, top);
	struct candidate c[AX_TL_FRONT_MAX + 1] = {0};
	size_t n = 0; /* candidates kept: c[0..n), each with an energy */
	int rc = 0;
	ax_tl_say(lv,
		  "re-timing the %zu point%s of the measured front of time "
		  "and energy (the knee first) and the defaults with full "
		  "sampling, one after the other; no paired test (a paired "
		  "measurement stores no power)",
		  k, k == 1 ? "" : "s");
	for (size_t j = 0; j < k && rc == 0 && !ax_interrupted; j++) {
		struct ax_params p;
		ax_tl_point_params(lv, top[j], &p);
		if (ax_tl_is_defaults(lv, &p))
			continue;
		c[n] = (struct candidate){.index = top[j]};
		rc = ax_tl_retime(lv, &p, "retime", &c[n].t);
		n += keep(&c[n]);
	}
	if (rc == 0 && !ax_interrupted && ax_tl_defaults_valid(lv)) {
		c[n] = (struct candidate){.defaults = true};
		rc = ax_tl_retime(lv, &lv->a->base, "default", &c[n].t);
		v->defaults = c[n].t.median;
		v->defaults_obj = c[n].t.obj;
		n += keep(&c[n]);
	}
	if (rc == 0)
		rc = take_front(lv, v, c, n);
	for (size_t j = 0; j < n; j++)
		free(c[j].t.values);
	return rc;
}

/* The closing lines of a time-and-energy session: the front, fastest
 * first, the knee and the defaults marked. */
void ax_tl_print_front(const struct ax_tl_live *lv)
{
	const struct ax_suite *s = lv->a->suite;
	size_t j;
	json_t *pt;
	if (!lv->front || json_array_size(lv->front) == 0) {
		printf("front: none (no point was re-timed with both a time and "
		       "an energy)\n");
		return;
	}
	printf("Pareto front of time and energy per repetition (re-timed; "
	       "fastest first; export --pick fastest|least-energy|knee "
	       "chooses):\n");
	json_array_foreach(lv->front, j, pt)
	{
		const char *label =
		    json_string_value(json_object_get(pt, "label"));
		bool knee = json_is_true(json_object_get(pt, "knee"));
		bool def = json_is_true(json_object_get(pt, "defaults"));
		printf("  %-5s %10.4g %s %10.4g s %10.4g J  %s%s\n",
		       knee ? "knee" : "", json_real_value(json_object_get(pt, "value")),
		       s->unit, json_real_value(json_object_get(pt, "seconds")),
		       json_real_value(json_object_get(pt, "energy_j")),
		       label ? label : "",
		       def ? " (the defaults)" : "");
	}
}
