/*
 * reports/export.c - the tuned-config document (see reports/export.h):
 * group stored results (core/db_rows.h) by device, suite and shape, keep
 * the best, set it beside the default knobs; and read such a document
 * back.  JSON is made here only for the document written and read only
 * where a user's document is parsed.
 */
#include "reports/export.h"

#include "core/error.h"
#include "reports/compare.h"
#include "reports/compare_paired.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum pick { PICK_SHAPE, PICK_TUNED, PICK_ALL };

/* The parameters of p selected by which, in table order, as JSON values:
 * numbers, booleans, or names. */
static json_t *point_json(const struct ax_params *p, enum pick which)
{
	json_t *o = json_object();
	for (int i = 0; o && i < p->n; i++) {
		const struct ax_param_def *d = &p->defs[i];
		bool tunable = d->flags & AX_PARAM_TUNABLE;
		/* A knob of another kernel (`when` does not hold) is not
		 * this point's setting: it stays out of the tuned part. */
		if ((which == PICK_SHAPE && tunable) ||
		    (which == PICK_TUNED && !ax_param_active(p, i)))
			continue;
		/* booleans as YAML / JSON booleans, not "true" strings */
		json_object_set_new(o, d->name, ax_param_json(d, p->v[i]));
	}
	return o;
}

static bool is_default(const struct ax_params *p)
{
	for (int i = 0; i < p->n; i++)
		if ((p->defs[i].flags & AX_PARAM_TUNABLE) &&
		    p->v[i] != p->defs[i].def)
			return false;
	return true;
}

/* Same suite table and every non-tunable (shape) value equal. */
static bool same_fixed(const struct ax_params *a, const struct ax_params *b)
{
	if (a->defs != b->defs || a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (!(a->defs[i].flags & AX_PARAM_TUNABLE) &&
		    a->v[i] != b->v[i])
			return false;
	return true;
}

static const struct ax_config_schema *
find_schema(const struct ax_config_schema *schema, int n, const char *suite)
{
	for (int i = 0; suite && i < n; i++)
		if (!strcmp(schema[i].suite, suite))
			return &schema[i];
	return NULL;
}

/* A result's stored parameters, which must have been a mapping. */
static int result_point(const struct ax_config_schema *sc,
			const struct ax_db_result_row *r, struct ax_params *p,
			char *err, size_t errlen)
{
	if (!r->params.n && !json_is_object(r->params_doc))
		return ax_errf(err, errlen, AX_EINVAL,
			       "params must be an object");
	return ax_db_params_point(p, sc->params, sc->n_params, &r->params, err,
				  errlen);
}

/* Two stored parameter sets with the same names, types and values. */
static bool same_params(const struct ax_db_params *a,
			const struct ax_db_params *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		const struct ax_db_param *x = &a->v[i];
		const struct ax_db_param *y = ax_db_param_find(b, x->name);
		if (!y || !ax_db_param_equal(x, y))
			return false;
	}
	return true;
}

static bool is_ok(const char *status)
{
	return status && !strcmp(status, "ok");
}

/* ---- choosing --------------------------------------------------------- */

/*
 * Why a point is exported: a tuned point only when it was measured beside
 * the defaults (same run, same device, same shape, both sampled with the
 * full settings) and `compare`'s statistics call it faster beyond the
 * minimum effect.  Where the two were measured in paired rounds
 * (extra.pair, app/session.h: `tune` does so for its verdict) the rules
 * are applied to the paired interval of the speed-up, and only such a
 * pairing counts in that run: its lower end must clear the threshold.
 * Anything else exports the defaults, with the reason.
 */

struct member {
	const struct ax_db_result_row *r; /* an "ok" result (borrowed) */
	struct ax_params p;
};

struct group {
	const struct ax_config_schema *sc;
	const char *fp;	     /* borrowed from results */
	struct ax_params at; /* the shape (its first point) */
	struct member *m;
	int n, cap;
	int idx, dev_rank, suite_rank; /* for the document's order */
};

/* What a group's points were tuned for (tune --objective). */
enum objective { OBJ_TIME, OBJ_ENERGY, OBJ_EDP, OBJ_PARETO };
static const char *const objective_names[] = {"time", "energy", "edp",
					      "time,energy"};
#define N_OBJECTIVES 4

const char *const *ax_export_picks(void)
{
	static const char *const names[] = {"knee", "fastest", "least-energy",
					    NULL};
	return names;
}

/* The margins a point of a front must clear to replace the defaults
 * (reports/export.h): compare's minimum effect for time, its energy
 * margin for energy. */
#define PICK_TIME_MARGIN 0.02
#define PICK_ENERGY_MARGIN 0.05

/* A paired measurement of a point against the defaults, from the
 * stored extra.pair: the point's speed over the defaults' (above 1: the
 * point is better) and its interval. */
struct pair_fig {
	bool paired; /* false: no pairing (the other fields unset) */
	double speedup, lo, hi, level, p_value;
	int rounds;
};

/* The outcome for one group. */
struct choice {
	enum objective objective;
	const struct member *tuned;  /* NULL: the defaults are exported */
	const struct member *def;    /* the defaults it was compared with, or
					the newest defaults measured */
	struct ax_compare_stat stat; /* of tuned, else of the closest try */
	bool paired;		     /* tuned won a paired measurement */
	struct pair_fig pf;	     /* its figures, when paired */
	char reason[768];	     /* room for a verdict's reason and more */
};

struct builder {
	const struct ax_db_sessions *sessions; /* may be NULL */
	const struct ax_config_schema *schema;
	int n_schema;
	const struct ax_export_opts *opts;
	struct ax_compare_opts cmp;
	struct group *g;
	int n, cap;
	json_t *skipped; /* array */
};

static void skip(struct builder *b, const struct ax_db_result_row *r,
		 const char *why)
{
	json_array_append_new(b->skipped,
			      json_pack("{s:I, s:s?, s:s}", "result_id",
					(json_int_t)r->id, "suite", r->suite,
					"reason", why));
}

/* The group of fp, sc and p's shape, made when there is none yet. */
static struct group *group_for(struct builder *b,
			       const struct ax_config_schema *sc,
			       const char *fp, const struct ax_params *p)
{
	for (int i = 0; i < b->n; i++)
		if (b->g[i].sc == sc && !strcmp(b->g[i].fp, fp) &&
		    same_fixed(&b->g[i].at, p))
			return &b->g[i];
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 16;
		struct group *grown = realloc(b->g, sizeof(*grown) * cap);
		if (!grown)
			return NULL;
		b->g = grown;
		b->cap = cap;
	}
	struct group *g = &b->g[b->n++];
	*g = (struct group){.sc = sc, .fp = fp, .at = *p};
	return g;
}

static int add_member(struct group *g, const struct ax_db_result_row *r,
		      const struct ax_params *p)
{
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 8;
		struct member *grown = realloc(g->m, sizeof(*grown) * cap);
		if (!grown)
			return AX_ENOMEM;
		g->m = grown;
		g->cap = cap;
	}
	g->m[g->n++] = (struct member){r, *p};
	return 0;
}

/* One --shapes filter: the suite, and every shape value it names. */
static bool shape_matches(const struct ax_export_shape *f,
			  const struct ax_config_schema *sc,
			  const struct ax_params *p)
{
	if (f->suite != sc)
		return false;
	for (int i = 0; i < p->n; i++)
		if (f->named[i] && f->want.v[i] != p->v[i])
			return false;
	return true;
}

static bool wanted(const struct builder *b, const struct ax_config_schema *sc,
		   const struct ax_params *p)
{
	if (!b->opts || b->opts->n_shapes == 0)
		return true;
	for (int i = 0; i < b->opts->n_shapes; i++)
		if (shape_matches(&b->opts->shapes[i], sc, p))
			return true;
	return false;
}

static int add_result(struct builder *b, const struct ax_db_result_row *r)
{
	char why[512];
	struct ax_params p;
	const char *fp = r->device.fingerprint;
	const struct ax_config_schema *sc =
	    find_schema(b->schema, b->n_schema, r->suite);
	if (!is_ok(r->status))
		return 0; /* failed results are never a speed */
	if (!sc || !fp) {
		skip(b, r,
		     sc ? "no device fingerprint"
			: "suite unknown to this axbench");
		return 0;
	}
	if (!isfinite(r->median)) {
		skip(b, r, "no median");
		return 0;
	}
	if (result_point(sc, r, &p, why, sizeof(why))) {
		skip(b, r, why);
		return 0;
	}
	if (!wanted(b, sc, &p))
		return 0;
	struct group *g = group_for(b, sc, fp, &p);
	return g ? add_member(g, r, &p) : AX_ENOMEM;
}

/* Tuning trials are sampled with lighter settings than everything else
 * (app/tune_live.c), so they are never set against the defaults. */
static bool fully_sampled(const struct ax_db_result_row *r)
{
	return !r->tune_role || strcmp(r->tune_role, "trial");
}

/* The newest fully sampled defaults in the run of c, or NULL. */
static const struct member *defaults_beside(const struct group *g,
					    const struct member *c)
{
	const struct member *d = NULL;
	for (int i = 0; i < g->n; i++)
		if (is_default(&g->m[i].p) && fully_sampled(g->m[i].r) &&
		    g->m[i].r->run_id == c->r->run_id)
			d = &g->m[i]; /* oldest first: keep the newest */
	return d;
}

static const struct member *newest_defaults(const struct group *g)
{
	const struct member *d = NULL;
	for (int i = 0; i < g->n; i++)
		if (is_default(&g->m[i].p))
			d = &g->m[i];
	return d;
}

/* Raw sample values of a result that were measured (malloc'd; *n of
 * them). */
static double *samples_of(const struct ax_db_result_row *r, int *n)
{
	double *x = malloc(sizeof(double) * (r->n_samples + 1));
	*n = 0;
	for (size_t i = 0; x && r->samples && i < r->n_samples; i++)
		if (isfinite(r->samples[i]))
			x[(*n)++] = r->samples[i];
	return x;
}

static bool has_pair(const struct ax_db_result_row *r)
{
	return ax_db_extra_text(r, "pair.side") != NULL;
}

/* The member of g stored as result id, or NULL. */
static const struct member *member_by_id(const struct group *g, int64_t id)
{
	for (int i = 0; i < g->n; i++)
		if (g->m[i].r->id == id)
			return &g->m[i];
	return NULL;
}

/* The side A partner of b (side B, which names it), or of a (side A:
 * the B that names it); NULL when not in g. */
static const struct member *partner(const struct group *g,
				    const struct member *c, bool *c_is_b)
{
	*c_is_b = !strcmp(ax_db_extra_text(c->r, "pair.side"), "B");
	if (*c_is_b) {
		double id = ax_db_extra_num(c->r, "pair.other_result_id");
		return isfinite(id) ? member_by_id(g, (int64_t)id) : NULL;
	}
	for (int i = 0; i < g->n; i++) {
		const struct ax_db_result_row *r = g->m[i].r;
		const char *side = ax_db_extra_text(r, "pair.side");
		if (side && !strcmp(side, "B") &&
		    ax_db_extra_num(r, "pair.other_result_id") == c->r->id)
			return &g->m[i];
	}
	return NULL;
}

/*
 * How c was set against the defaults: 1 when paired with them (*d, and
 * *pf as c's speed over theirs), 0 when nothing in c's run at this shape
 * was paired (a run, or a session stored before tune paired its
 * verdict: the sample rules apply), -1 when c's run decided by pairing
 * but c was not paired with the defaults (it does not count).
 */
static int paired_defaults(const struct group *g, const struct member *c,
			   const struct member **d, struct pair_fig *pf)
{
	bool c_is_b;
	if (!has_pair(c->r)) {
		for (int i = 0; i < g->n; i++)
			if (g->m[i].r->run_id == c->r->run_id &&
			    has_pair(g->m[i].r))
				return -1;
		return 0;
	}
	const struct member *o = partner(g, c, &c_is_b);
	if (!o || !is_default(&o->p) || o->r->run_id != c->r->run_id)
		return -1;
	const struct ax_db_result_row *b = c_is_b ? c->r : o->r;
	double s = ax_db_extra_num(b, "pair.speedup");
	double lo = ax_db_extra_num(b, "pair.speedup_lo");
	double hi = ax_db_extra_num(b, "pair.speedup_hi");
	double rounds = ax_db_extra_num(b, "pair.rounds");
	*pf = (struct pair_fig){
	    .paired = true,
	    .speedup = c_is_b ? s : 1 / s,
	    .lo = c_is_b ? lo : 1 / hi,
	    .hi = c_is_b ? hi : 1 / lo,
	    .level = ax_db_extra_num(b, "pair.level"),
	    .p_value = ax_db_extra_num(b, "pair.p_value"),
	    .rounds = isfinite(rounds) ? (int)rounds : 0,
	};
	*d = o;
	return 1;
}

/* compare's rules on a paired interval, and the win: faster, and the
 * point's median better than the defaults' too (a speed-up shown must
 * never be below 1). */
static bool paired_wins(const struct builder *b, const struct group *g,
			const struct member *d, const struct member *c,
			const struct pair_fig *pf, struct ax_compare_stat *st)
{
	double mde;
	struct ax_compare_paired_in in = {pf->speedup, pf->lo, pf->hi,
					  pf->p_value, pf->rounds};
	ax_compare_paired(&in, ax_compare_threshold_for(&b->cmp, g->sc->suite),
			  b->cmp.alpha, st, &mde);
	bool hib = c->r->higher_is_better;
	return st->verdict == AX_VERDICT_FASTER &&
	       (hib ? c->r->median > d->r->median
		    : c->r->median < d->r->median);
}

/* compare's verdict for candidate c against defaults d. */
static int compare_pair(const struct builder *b, const struct group *g,
			const struct member *d, const struct member *c,
			struct ax_compare_stat *st)
{
	int na, nb;
	double *a = samples_of(d->r, &na), *x = samples_of(c->r, &nb);
	char err[256];
	int rc = a && x ? ax_compare_samples(
			      a, na, x, nb, c->r->higher_is_better,
			      ax_compare_threshold_for(&b->cmp, g->sc->suite),
			      &b->cmp, st, err, sizeof(err))
			: AX_ENOMEM;
	free(a);
	free(x);
	return rc;
}

static void explain_defaults(const struct group *g, struct choice *ch,
			     int n_tried, int n_paired,
			     const struct member *closest)
{
	if (n_tried == 0)
		snprintf(ch->reason, sizeof(ch->reason),
			 "only the default parameters were measured at this "
			 "shape");
	else if (!newest_defaults(g))
		snprintf(ch->reason, sizeof(ch->reason),
			 "the default parameters were never measured at this "
			 "shape on this device, so no point can be shown to "
			 "beat them (axbench tune measures them beside its "
			 "best points)");
	else if (n_paired == 0)
		snprintf(ch->reason, sizeof(ch->reason),
			 "no tuned point was measured in the same run as the "
			 "defaults with full sampling (tuning trials do not "
			 "count); re-time both with axbench tune, or axbench "
			 "run -p NAME=DEFAULT,VALUE");
	else
		snprintf(
		    ch->reason, sizeof(ch->reason),
		    "no tuned point beat the defaults beyond noise; the "
		    "closest (result %lld, run %lld) was %s: %s",
		    (long long)closest->r->id, (long long)closest->r->run_id,
		    ax_compare_verdict_name(ch->stat.verdict), ch->stat.reason);
}

/* The session a result was measured by, from the exported sessions. */
static const struct ax_db_session_row *
session_by_id(const struct builder *b, const struct ax_db_result_row *r)
{
	for (size_t i = 0;
	     b->sessions && r->tune_session > 0 && i < b->sessions->n; i++)
		if (b->sessions->v[i]->id == r->tune_session)
			return b->sessions->v[i];
	return NULL;
}

/* A group is chosen by the objective of the newest tuning session that
 * measured one of its points (time when none did: `run` measures time). */
static enum objective group_objective(const struct builder *b,
				      const struct group *g)
{
	enum objective o = OBJ_TIME;
	for (int i = 0; i < g->n; i++) {
		const struct ax_db_session_row *s = session_by_id(b, g->m[i].r);
		const char *name = s ? s->objective : NULL;
		for (int k = 0; name && k < N_OBJECTIVES; k++)
			if (!strcmp(name, objective_names[k]))
				o = (enum objective)k;
	}
	return o;
}

/* The figure an energy objective minimises for a result: J, or J*s (the
 * time per repetition is energy over mean power); NAN when not measured. */
static double energy_figure(const struct ax_db_result_row *r, enum objective o)
{
	double e = r->power.energy_rep_j, w = r->power.mean_w;
	if (!r->power.present || !isfinite(e))
		return NAN;
	return o == OBJ_EDP ? (w > 0 ? e * e / w : NAN) : e;
}

/*
 * An energy objective: a tuned point wins when it was measured beside the
 * defaults (same run, full sampling) and its figure is below theirs by
 * compare's energy margin; of the winners, the lowest.  One energy figure
 * per result leaves no sample test to make (reports/compare.h).
 */
static void choose_by_energy(const struct group *g, struct choice *ch)
{
	double best = NAN;
	int n_paired = 0;
	for (int i = 0; i < g->n; i++) {
		const struct member *c = &g->m[i], *d;
		if (is_default(&c->p) || !fully_sampled(c->r) ||
		    !(d = defaults_beside(g, c)))
			continue;
		struct ax_compare_energy e;
		ax_compare_energy_figures(energy_figure(d->r, ch->objective),
					  energy_figure(c->r, ch->objective),
					  &e);
		n_paired += e.verdict != AX_ENERGY_NONE;
		if (e.verdict == AX_ENERGY_LESS && !(e.cand_j >= best)) {
			best = e.cand_j;
			ch->tuned = c;
			ch->def = d;
		}
	}
	if (ch->tuned)
		return;
	ch->def = newest_defaults(g);
	snprintf(ch->reason, sizeof(ch->reason), "%s",
		 n_paired
		     ? "no tuned point used less energy than the defaults "
		       "measured beside it, beyond the 5 % margin"
		     : "no tuned point has an energy figure beside the "
		       "defaults' in the same run (tune --objective energy "
		       "re-times both where the device has a sensor)");
}

/* The newest time,energy session with a stored front that measured a
 * point of g. */
static const struct ax_db_session_row *front_session(const struct builder *b,
						     const struct group *g)
{
	const struct ax_db_session_row *best = NULL;
	for (int i = 0; i < g->n; i++) {
		const struct ax_db_session_row *s = session_by_id(b, g->m[i].r);
		if (s && s->objective && !strcmp(s->objective, "time,energy") &&
		    json_array_size(s->front_doc) > 0 &&
		    (!best || s->id > best->id))
			best = s;
	}
	return best;
}

/* The member of g whose result a front point names; NULL: none. */
static const struct member *front_member(const struct group *g,
					 const json_t *pt)
{
	json_int_t id = json_integer_value(json_object_get(pt, "result_id"));
	for (int i = 0; id > 0 && i < g->n; i++)
		if (g->m[i].r->id == id)
			return &g->m[i];
	return NULL;
}

/* The front point --pick names: the knee, or the end of the front that is
 * best in the picked objective. */
static const json_t *picked_point(const json_t *front, enum ax_export_pick k)
{
	size_t i, at = 0;
	const json_t *pt;
	const char *key = k == AX_PICK_FASTEST ? "seconds" : "energy_j";
	double best = INFINITY;
	json_array_foreach(front, i, pt)
	{
		if (k == AX_PICK_KNEE) {
			if (json_is_true(json_object_get(pt, "knee")))
				return pt;
			continue;
		}
		double v = json_number_value(json_object_get(pt, key));
		if (v < best)
			best = v, at = i;
	}
	return json_array_get(front, at);
}

static double fig(const json_t *pt, const char *key)
{
	json_t *v = json_object_get(pt, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Whether the picked point beats the defaults' point by the pick's margin
 * (time for fastest, energy for least-energy, either for the knee). */
static bool pick_beats(const json_t *pt, const json_t *def,
		       enum ax_export_pick k)
{
	bool faster =
	    fig(pt, "seconds") <= (1 - PICK_TIME_MARGIN) * fig(def, "seconds");
	bool less = fig(pt, "energy_j") <=
		    (1 - PICK_ENERGY_MARGIN) * fig(def, "energy_j");
	return k == AX_PICK_FASTEST	   ? faster
	       : k == AX_PICK_LEAST_ENERGY ? less
					   : faster || less;
}

/* A time,energy group: the picked point of the newest session's front
 * (reports/export.h). */
static void choose_from_front(const struct builder *b, const struct group *g,
			      struct choice *ch)
{
	const char *pick = ax_export_picks()[b->opts->pick];
	const struct ax_db_session_row *s = front_session(b, g);
	ch->def = newest_defaults(g);
	if (!s) {
		snprintf(ch->reason, sizeof(ch->reason),
			 "no tuning session of this shape stored a Pareto "
			 "front (tune --objective time,energy stores one)");
		return;
	}
	const json_t *pt = picked_point(s->front_doc, b->opts->pick),
		     *def = NULL;
	size_t i;
	const json_t *q;
	json_array_foreach(s->front_doc, i,
			   q) if (json_is_true(json_object_get(q, "defaults")))
	    def = q;
	const struct member *c = front_member(g, pt);
	const struct member *d = def ? front_member(g, def) : NULL;
	if (pt == def) {
		if (d)
			ch->def = d;
		snprintf(ch->reason, sizeof(ch->reason),
			 "the %s of session %lld's Pareto front of time and "
			 "energy is the defaults",
			 pick, (long long)s->id);
	} else if (!def || !d) {
		snprintf(ch->reason, sizeof(ch->reason),
			 "session %lld's front has no re-timed defaults to "
			 "set its %s against",
			 (long long)s->id, pick);
	} else if (!c || !pick_beats(pt, def, b->opts->pick)) {
		ch->def = d;
		snprintf(ch->reason, sizeof(ch->reason),
			 "the %s of session %lld's front does not beat the "
			 "defaults re-timed beside it by %s",
			 pick, (long long)s->id,
			 b->opts->pick == AX_PICK_FASTEST ? "2 % less time"
			 : b->opts->pick == AX_PICK_LEAST_ENERGY
			     ? "5 % less energy"
			     : "2 % less time or 5 % less energy");
	} else {
		ch->tuned = c;
		ch->def = d;
		snprintf(ch->reason, sizeof(ch->reason),
			 "the %s of session %lld's Pareto front of time and "
			 "energy, re-timed beside the defaults in the same "
			 "run: %.3gx their time, %.3gx their energy",
			 pick, (long long)s->id,
			 fig(pt, "seconds") / fig(def, "seconds"),
			 fig(pt, "energy_j") / fig(def, "energy_j"));
	}
}

/* c against the defaults beside it: 0 and *st, *d, *paired, *pf when
 * it was measured so (paired, or by the sample rules); 1 when it was
 * not (it does not count); else an error. */
static int judge(const struct builder *b, const struct group *g,
		 const struct member *c, const struct member **d,
		 struct ax_compare_stat *st, bool *wins, struct pair_fig *pf)
{
	int how = paired_defaults(g, c, d, pf);
	if (how < 0)
		return 1;
	if (how == 1) {
		*wins = paired_wins(b, g, *d, c, pf, st);
		return 0;
	}
	if (!(*d = defaults_beside(g, c)))
		return 1;
	pf->paired = false;
	int rc = compare_pair(b, g, *d, c, st);
	*wins = !rc && ax_compare_wins(st, c->r->higher_is_better);
	return rc;
}

static int choose(const struct builder *b, const struct group *g,
		  struct choice *ch)
{
	const struct member *closest = NULL;
	int n_tried = 0, n_paired = 0;
	memset(ch, 0, sizeof(*ch));
	ch->objective = group_objective(b, g);
	if (ch->objective == OBJ_PARETO) {
		choose_from_front(b, g, ch);
		return 0;
	}
	if (ch->objective != OBJ_TIME) {
		choose_by_energy(g, ch);
		return 0;
	}
	for (int i = 0; i < g->n; i++) {
		const struct member *c = &g->m[i], *d = NULL;
		struct ax_compare_stat st;
		struct pair_fig pf;
		bool wins = false;
		if (is_default(&c->p))
			continue; /* the defaults never beat themselves */
		n_tried++;
		if (!fully_sampled(c->r))
			continue;
		int rc = judge(b, g, c, &d, &st, &wins, &pf);
		if (rc == 1)
			continue;
		if (rc)
			return rc;
		n_paired++;
		if (wins &&
		    (!ch->tuned || st.improvement > ch->stat.improvement)) {
			ch->tuned = c;
			ch->def = d;
			ch->stat = st;
			ch->paired = pf.paired;
			ch->pf = pf;
		}
		if (!ch->tuned &&
		    (!closest || !(st.improvement <= ch->stat.improvement))) {
			closest = c;
			ch->stat = st;
		}
	}
	if (!ch->tuned) {
		ch->def = newest_defaults(g);
		explain_defaults(g, ch, n_tried, n_paired, closest);
	}
	return 0;
}

/* ---- the document ----------------------------------------------------- */

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The id of the newest tuning session on this device and suite with an
 * "ok" trial at the exported point, or JSON null. */
static json_t *session_of(const struct builder *b, const struct group *g,
			  const struct ax_db_result_row *r)
{
	if (r->tune_session > 0)
		return json_integer(r->tune_session); /* measured by it */
	int64_t id = 0;
	for (size_t i = 0; b->sessions && i < b->sessions->n; i++) {
		const struct ax_db_session_row *s = b->sessions->v[i];
		const char *fp = s->device.fingerprint;
		if (!fp || !s->suite || strcmp(fp, g->fp) ||
		    strcmp(s->suite, g->sc->suite))
			continue;
		for (size_t j = 0; j < s->n_trials; j++)
			if (is_ok(s->trials[j].status) &&
			    same_params(&s->trials[j].params, &r->params))
				id = s->id;
	}
	return id ? json_integer(id) : json_null();
}

/* The statistics behind the choice, as `compare` reports them. */
static json_t *evidence_json(const struct choice *ch)
{
	const struct ax_compare_stat *st = &ch->stat;
	json_t *e =
	    json_pack("{s:s, s:f, s:I, s:I, s:I}", "verdict",
		      ax_compare_verdict_name(st->verdict), "threshold",
		      st->threshold, "run_id", (json_int_t)ch->def->r->run_id,
		      "default_result_id", (json_int_t)ch->def->r->id,
		      "tuned_result_id", (json_int_t)ch->tuned->r->id);
	/* NaN (no test was made) is not JSON: leave such figures out */
	const double figs[] = {st->p_value, st->improvement, st->impr_lo,
			       st->impr_hi};
	static const char *const names[] = {"p_value", "improvement",
					    "improvement_lo", "improvement_hi"};
	for (int i = 0; e && i < 4; i++)
		if (isfinite(figs[i]))
			json_object_set_new(e, names[i], json_real(figs[i]));
	json_object_set_new(e, "method",
			    json_string(ch->paired ? "paired" : "samples"));
	if (ch->paired) {
		json_object_set_new(e, "rounds", json_integer(ch->pf.rounds));
		json_object_set_new(e, "level", real_or_null(ch->pf.level));
	}
	return e;
}

/* The tuned point's speed-up over the defaults (direction-aware): the
 * paired estimate where they were paired, else the ratio of the medians;
 * NAN when a figure is zero. */
static double speedup_of(const struct choice *ch, bool hib)
{
	if (ch->paired)
		return ch->pf.speedup;
	double def = ch->def->r->median, best = ch->tuned->r->median;
	if (def > 0 && best > 0)
		return hib ? best / def : def / best;
	return NAN;
}

static void set_speedup(json_t *e, double speedup)
{
	json_object_set_new(e, "speedup", real_or_null(speedup));
	if (!isfinite(speedup))
		json_object_set_new(e, "speedup_reason",
				    json_string("a zero figure has no ratio"));
}

/* The speed-up's interval and paired rounds: the pairing's for a point
 * that won one; null otherwise, with the reason for a tuned point that
 * has a speed-up but no interval (never made up from unpaired
 * figures). */
static void set_interval(json_t *e, const struct choice *ch)
{
	bool p = ch->tuned && ch->paired;
	json_object_set_new(e, "speedup_lo", real_or_null(p ? ch->pf.lo : NAN));
	json_object_set_new(e, "speedup_hi", real_or_null(p ? ch->pf.hi : NAN));
	json_object_set_new(e, "rounds",
			    p ? json_integer(ch->pf.rounds) : json_null());
	if (ch->tuned && !p && ch->objective == OBJ_TIME)
		json_object_set_new(
		    e, "interval_reason",
		    json_string("measured one after the other, not in paired "
				"rounds (an axbench run, or a tuning session "
				"stored before tune paired its verdict): the "
				"speed-up is a ratio of two medians and has "
				"no interval"));
}

/* The objective the choice was made for, the sampling mode its tuning
 * session measured in (tune --mode: a point chosen warm is not known to
 * win cold; null when no session measured the point) and, where measured,
 * the energy per repetition of the exported point and of the defaults. */
static void set_objective(json_t *e, const struct builder *b,
			  const struct choice *ch,
			  const struct ax_db_result_row *r)
{
	json_object_set_new(e, "objective",
			    json_string(objective_names[ch->objective]));
	json_object_set_new(e, "pick",
			    ch->objective == OBJ_PARETO
				? json_string(ax_export_picks()[b->opts->pick])
				: json_null());
	const struct ax_db_session_row *s =
	    r && ch->tuned ? session_by_id(b, r) : NULL;
	json_object_set_new(e, "mode",
			    s && s->mode ? json_string(s->mode) : json_null());
	json_object_set_new(
	    e, "energy_rep_j",
	    real_or_null(r ? energy_figure(r, OBJ_ENERGY) : NAN));
	json_object_set_new(
	    e, "default_energy_rep_j",
	    real_or_null(ch->def ? energy_figure(ch->def->r, OBJ_ENERGY)
				 : NAN));
}

/* shape + tunables at their defaults */
static struct ax_params defaults_at(const struct group *g)
{
	struct ax_params p = g->at;
	for (int i = 0; i < p.n; i++)
		if (p.defs[i].flags & AX_PARAM_TUNABLE)
			p.v[i] = p.defs[i].def;
	return p;
}

/* What the entry says of the choice: its speed-up (NAN: none) and why. */
struct verdict_text {
	double speedup;
	const char *reason;
};

static struct verdict_text verdict_of(const struct choice *ch, bool hib)
{
	if (ch->objective == OBJ_PARETO)
		return (struct verdict_text){
		    ch->tuned ? speedup_of(ch, hib) : NAN, ch->reason};
	if (ch->tuned && ch->objective != OBJ_TIME)
		return (struct verdict_text){speedup_of(ch, hib),
					     "measured beside the defaults "
					     "in the same run, with less "
					     "energy beyond the 5 % margin"};
	if (ch->tuned && ch->paired)
		return (struct verdict_text){
		    speedup_of(ch, hib),
		    "measured beside the defaults in alternating (paired) "
		    "rounds and faster: the lower end of the speed-up's "
		    "interval clears the threshold"};
	if (ch->tuned)
		return (struct verdict_text){speedup_of(ch, hib),
					     "measured beside the defaults "
					     "in the same run and faster "
					     "beyond noise"};
	/* identical parameters are never a speed-up */
	return (struct verdict_text){NAN, ch->reason};
}

static json_t *int_or_null(int64_t v, int64_t none)
{
	return v == none ? json_null() : json_integer(v);
}

static json_t *entry_json(const struct builder *b, const struct group *g,
			  const struct choice *ch, json_t *shape,
			  struct verdict_text *vt)
{
	const struct ax_db_result_row *any = g->m[0].r;
	const struct ax_db_result_row *r = ch->tuned ? ch->tuned->r
					   : ch->def ? ch->def->r
						     : NULL;
	struct ax_params p = ch->tuned ? ch->tuned->p : defaults_at(g);
	bool hib = any->higher_is_better;
	json_t *e = json_pack(
	    "{s:O, s:o, s:o, s:s, s:o, s:s?, s:b, s:o, s:o, s:s?, s:o, s:s?, "
	    "s:s?}",
	    "shape", shape, "tuned", point_json(&p, PICK_TUNED), "params",
	    point_json(&p, PICK_ALL), "choice",
	    ch->tuned ? "tuned" : "defaults", "value",
	    real_or_null(r ? r->median : NAN), "unit", any->unit,
	    "higher_is_better", hib, "default_value",
	    real_or_null(ch->def ? ch->def->r->median : NAN), "result_id",
	    r ? json_integer(r->id) : json_null(), "result_uuid",
	    r ? r->uuid : NULL, "run_id",
	    r ? json_integer(r->run_id) : json_null(), "run_uuid",
	    r ? r->run_uuid : NULL, "date", r ? r->started_at : NULL);
	if (!e)
		return NULL;
	*vt = verdict_of(ch, hib);
	set_objective(e, b, ch, r);
	if (ch->tuned)
		set_speedup(e, vt->speedup);
	else {
		json_object_set_new(e, "speedup", json_null());
		json_object_set_new(e, "speedup_reason",
				    json_string(vt->reason));
	}
	set_interval(e, ch);
	json_object_set_new(e, "reason", json_string(vt->reason));
	if (ch->tuned)
		json_object_set_new(e, "evidence",
				    ch->objective != OBJ_TIME
					? json_null()
					: evidence_json(ch));
	json_object_set_new(e, "session_id",
			    r && ch->tuned ? session_of(b, g, r) : json_null());
	return e;
}

/* The device part of the document, from the first result seen on it:
 * versions as results read them, "X.Y.Z" text (null where not recorded)
 * beside the packed integers the device row stores. */
static json_t *device_json(const struct ax_db_device_row *d)
{
	return json_pack(
	    "{s:s?, s:s?, s:s?, s:s?, s:o, s:o, s:s?, s:s?, s:s?, s:o, s:s?, "
	    "s:o, s:s?, s:s?, s:{}}",
	    "fingerprint", d->fingerprint, "name", d->name, "vendor", d->vendor,
	    "type", d->type, "vendor_id", int_or_null(d->vendor_id, AX_DB_NONE),
	    "device_id", int_or_null(d->device_id, AX_DB_NONE), "driver_name",
	    d->driver_name, "driver_info", d->driver_info, "driver_version",
	    d->driver_version, "driver_version_packed",
	    int_or_null(d->driver_version_packed, AX_DB_NONE), "api_version",
	    d->api_version, "api_version_packed",
	    int_or_null(d->api_version_packed, AX_DB_NONE), "device_uuid",
	    d->device_uuid, "pci_bus_id", d->pci_bus_id, "suites");
}

/*
 * Groups in the document's order: devices by their first group, within a
 * device its suites by their first group, within a suite the groups as
 * they came; so the document is written (and its choices said) in one
 * pass, a device or suite starting where the one before ends.
 */
static int group_order(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	if (a->dev_rank != b->dev_rank)
		return a->dev_rank < b->dev_rank ? -1 : 1;
	if (a->suite_rank != b->suite_rank)
		return a->suite_rank < b->suite_rank ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void order_groups(struct builder *b)
{
	for (int i = 0; i < b->n; i++) {
		struct group *g = &b->g[i];
		g->idx = i;
		g->dev_rank = g->suite_rank = -1;
		for (int k = 0; k <= i && g->suite_rank < 0; k++) {
			if (strcmp(b->g[k].fp, g->fp))
				continue;
			if (g->dev_rank < 0)
				g->dev_rank = k;
			if (b->g[k].sc == g->sc)
				g->suite_rank = k;
		}
	}
	if (b->n)
		qsort(b->g, (size_t)b->n, sizeof(*b->g), group_order);
}

/* Group g's choice as the person running export is told it. */
static int say_choice(struct ax_export_out *out, const struct group *g,
		      const json_t *shape, const struct choice *ch,
		      const struct verdict_text *vt, bool left_out)
{
	struct ax_export_choice *c = &out->choices[out->n];
	*c = (struct ax_export_choice){
	    .suite = g->sc->suite,
	    .device = g->m[0].r->device.name,
	    .shape = json_dumps(shape, JSON_COMPACT),
	    .tuned = ch->tuned != NULL,
	    .speedup = vt->speedup,
	    .speedup_lo = ch->tuned && ch->paired ? ch->pf.lo : NAN,
	    .speedup_hi = ch->tuned && ch->paired ? ch->pf.hi : NAN,
	    .rounds = ch->tuned && ch->paired ? ch->pf.rounds : 0,
	    .reason = strdup(vt->reason),
	    .left_out = left_out,
	};
	out->n++;
	return c->shape && c->reason ? 0 : AX_ENOMEM;
}

/* One device's part, its suites and each suite's list, opened as the
 * ordered groups reach them. */
struct cursor {
	json_t *devices, *suites, *list;
	const struct group *prev;
};

static json_t *list_for(struct cursor *at, const struct group *g)
{
	if (!at->prev || strcmp(at->prev->fp, g->fp)) {
		json_t *d = device_json(&g->m[0].r->device);
		if (!d || json_array_append_new(at->devices, d))
			return NULL;
		at->suites = json_object();
		if (json_object_set_new(d, "suites", at->suites))
			return NULL;
		at->list = NULL;
	}
	if (!at->list || at->prev->sc != g->sc) {
		at->list = json_array();
		if (json_object_set_new(at->suites, g->sc->suite, at->list))
			return NULL;
	}
	at->prev = g;
	return at->list;
}

/* Group g's entry, appended to its device's suite list (opened at the
 * cursor; not with tuned_only when it keeps the defaults), and its choice
 * said in out. */
static int write_group(const struct builder *b, const struct group *g,
		       struct cursor *at, struct ax_export_out *out)
{
	struct choice ch;
	struct verdict_text vt;
	int rc = choose(b, g, &ch);
	if (rc)
		return rc;
	json_t *shape = point_json(&g->at, PICK_SHAPE);
	json_t *e = shape ? entry_json(b, g, &ch, shape, &vt) : NULL;
	bool keep = ch.tuned || !(b->opts && b->opts->tuned_only);
	json_t *list = e && keep ? list_for(at, g) : NULL;
	if (!e || (keep && (!list || json_array_append_new(list, e))))
		rc = AX_ENOMEM;
	else
		rc = say_choice(out, g, shape, &ch, &vt, !keep);
	if (!keep)
		json_decref(e);
	json_decref(shape);
	return rc;
}

static int assemble(struct builder *b, const char *generator,
		    struct ax_export_out *out)
{
	struct cursor at = {.devices = json_array()};
	int rc = at.devices ? 0 : AX_ENOMEM;
	order_groups(b);
	out->choices = calloc((size_t)b->n + 1, sizeof(*out->choices));
	if (!out->choices)
		rc = AX_ENOMEM;
	for (int i = 0; i < b->n && !rc; i++)
		rc = write_group(b, &b->g[i], &at, out);
	out->doc =
	    rc ? NULL
	       : json_pack("{s:s, s:s, s:o, s:O}", "schema", AX_EXPORT_SCHEMA,
			   "generated_by", generator ? generator : "axbench",
			   "devices", at.devices, "skipped", b->skipped);
	if (rc)
		json_decref(at.devices);
	return rc ? rc : (out->doc ? 0 : AX_ENOMEM);
}

int ax_export_build(const struct ax_db_results *results,
		    const struct ax_db_sessions *sessions,
		    const struct ax_config_schema *schema, int n_schema,
		    const struct ax_export_opts *opts, const char *generator,
		    struct ax_export_out *out, char *err, size_t errlen)
{
	struct builder b = {.sessions = sessions,
			    .schema = schema,
			    .n_schema = n_schema,
			    .opts = opts};
	int rc = 0;
	memset(out, 0, sizeof(*out));
	if (!results)
		return ax_errf(err, errlen, AX_EINVAL,
			       "export: no results given");
	if (opts && opts->compare)
		b.cmp = *opts->compare;
	else
		ax_compare_opts_init(&b.cmp);
	if (!(b.skipped = json_array()))
		return AX_ENOMEM;
	for (size_t i = 0; i < results->n && !rc; i++)
		rc = add_result(&b, results->v[i]);
	if (!rc)
		rc = assemble(&b, generator, out);
	for (int k = 0; k < b.n; k++)
		free(b.g[k].m);
	free(b.g);
	json_decref(b.skipped);
	if (rc)
		ax_export_out_free(out);
	return rc;
}

void ax_export_out_free(struct ax_export_out *o)
{
	for (size_t i = 0; o->choices && i < o->n; i++) {
		free(o->choices[i].shape);
		free(o->choices[i].reason);
	}
	free(o->choices);
	json_decref(o->doc);
	memset(o, 0, sizeof(*o));
}

/* ---- --shapes ----------------------------------------------------------- */

static int shape_term(struct ax_export_shape *f, const char *term,
		      const char *text, char *err, size_t errlen)
{
	const char *eq = strchr(term, '=');
	char name[64], why[512];
	if (!eq || eq == term || (size_t)(eq - term) >= sizeof(name))
		return ax_errf(err, errlen, AX_EINVAL,
			       "--shapes %s: '%s' is not NAME=VALUE (e.g. "
			       "--shapes gemm:m=256,n=256)",
			       text, term);
	memcpy(name, term, (size_t)(eq - term));
	name[eq - term] = '\0';
	int i = ax_params_find(&f->want, name);
	if (i >= 0 && (f->want.defs[i].flags & AX_PARAM_TUNABLE))
		return ax_errf(err, errlen, AX_EINVAL,
			       "--shapes %s: %s is a tunable parameter, not "
			       "part of a shape; name shape parameters only "
			       "(axbench suites %s lists them)",
			       text, name, f->suite->suite);
	if (ax_params_set(&f->want, name, eq + 1, why, sizeof(why)))
		return ax_errf(err, errlen, AX_EINVAL, "--shapes %s: %s", text,
			       why);
	f->named[ax_params_find(&f->want, name)] = true;
	return 0;
}

int ax_export_shape_parse(const char *text,
			  const struct ax_config_schema *schema, int n_schema,
			  struct ax_export_shape *out, char *err, size_t errlen)
{
	char buf[1024];
	memset(out, 0, sizeof(*out));
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return ax_errf(err, errlen, AX_EINVAL,
			       "--shapes: filter longer than %zu characters",
			       sizeof(buf) - 1);
	char *colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	out->suite = find_schema(schema, n_schema, buf);
	if (!out->suite)
		return ax_errf(err, errlen, AX_EINVAL,
			       "--shapes %s: unknown suite '%s'; the filter "
			       "is SUITE[:NAME=VALUE,...] (axbench suites "
			       "lists the suites)",
			       text, buf);
	ax_params_init(&out->want, out->suite->params, out->suite->n_params);
	char *save = NULL;
	for (char *t = colon ? strtok_r(colon + 1, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save)) {
		int rc = shape_term(out, t, text, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- reading back ----------------------------------------------------- */

/*
 * A document given back (run --tuned), read once into what the checks
 * below look at; texts and params are borrowed from the parsed document.
 * A value of the wrong kind reads as absent (NULL, false), so that the
 * checks, made in document order, say what it must be.
 */
struct doc_entry {
	bool mapping;	      /* the entry is a mapping */
	const json_t *params; /* as given: parsed by the suite's table */
	const char *choice, *unit;
	double value; /* 0 where absent */
};

struct doc_suite {
	const char *name;
	bool list; /* its value is a list */
	struct doc_entry *e;
	size_t n;
};

struct doc_device {
	const char *fingerprint;
	bool suites; /* it has a suites mapping */
	struct doc_suite *s;
	size_t n;
};

struct tuned_doc {
	const char *schema;
	bool devices; /* devices is a list */
	struct doc_device *d;
	size_t n;
};

static void read_entry(const json_t *e, struct doc_entry *out)
{
	json_t *params = NULL, *choice = NULL, *value = NULL, *unit = NULL;
	out->mapping = json_is_object(e);
	json_unpack((json_t *)e, "{s?o, s?o, s?o, s?o}", "params", &params,
		    "choice", &choice, "value", &value, "unit", &unit);
	out->params = params;
	out->choice = json_string_value(choice);
	out->value = json_number_value(value);
	out->unit = json_string_value(unit);
}

static int read_suite(const char *name, const json_t *list,
		      struct doc_suite *out)
{
	size_t i;
	json_t *e;
	out->name = name;
	out->list = json_is_array(list);
	out->n = json_array_size(list);
	if (out->n && !(out->e = calloc(out->n, sizeof(*out->e))))
		return AX_ENOMEM;
	json_array_foreach(list, i, e) read_entry(e, &out->e[i]);
	return 0;
}

static int read_device(const json_t *dev, struct doc_device *out)
{
	json_t *fp = NULL, *suites = NULL, *list;
	const char *name;
	int rc = 0;
	json_unpack((json_t *)dev, "{s?o, s?o}", "fingerprint", &fp, "suites",
		    &suites);
	out->fingerprint = json_string_value(fp);
	out->suites = json_is_object(suites);
	if (!out->suites || !json_object_size(suites))
		return 0;
	out->s = calloc(json_object_size(suites), sizeof(*out->s));
	if (!out->s)
		return AX_ENOMEM;
	json_object_foreach(suites, name, list)
	{
		if ((rc = read_suite(name, list, &out->s[out->n++])))
			break;
	}
	return rc;
}

static void free_doc(struct tuned_doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		for (size_t k = 0; k < d->d[i].n; k++)
			free(d->d[i].s[k].e);
		free(d->d[i].s);
	}
	free(d->d);
}

static int read_doc(const json_t *doc, struct tuned_doc *out)
{
	json_t *schema = NULL, *devices = NULL, *dev;
	size_t i;
	int rc = 0;
	memset(out, 0, sizeof(*out));
	json_unpack((json_t *)doc, "{s?o, s?o}", "schema", &schema, "devices",
		    &devices);
	out->schema = json_string_value(schema);
	out->devices = json_is_array(devices);
	size_t n = json_array_size(devices);
	if (n && !(out->d = calloc(n, sizeof(*out->d))))
		return AX_ENOMEM;
	json_array_foreach(devices, i, dev)
	{
		out->n++;
		if ((rc = read_device(dev, &out->d[i])))
			break;
	}
	return rc;
}

static int bad(char *err, size_t errlen, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int bad(char *err, size_t errlen, const char *name, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	ax_vfmt_fit(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ax_errf(err, errlen, AX_ECONFIG, "%s: %s", name, msg);
}

/* A params mapping as given, parsed against a suite's table. */
static int doc_point(const struct ax_config_schema *sc, const json_t *obj,
		     struct ax_params *p, char *err, size_t errlen)
{
	if (!json_is_object(obj))
		return ax_errf(err, errlen, AX_EINVAL,
			       "params must be an object");
	char *text = json_dumps(obj, JSON_COMPACT);
	if (!text)
		return AX_ENOMEM;
	int rc =
	    ax_params_from_json(p, sc->params, sc->n_params, text, err, errlen);
	free(text);
	return rc;
}

/* An entry says whether its point beat the defaults; a document without
 * that word predates measured choices and may hold points that are
 * slower than the defaults, so it is refused rather than trusted. */
static int check_choice(const struct doc_entry *e, const struct ax_params *p,
			const char *where, const char *name, char *err,
			size_t errlen)
{
	if (!e->choice)
		return bad(err, errlen, name,
			   "%s has no choice (tuned or defaults): it was "
			   "written by an axbench that exported points "
			   "without measuring them beside the defaults; "
			   "write it again with `axbench export`",
			   where);
	if (strcmp(e->choice, "tuned") && strcmp(e->choice, "defaults"))
		return bad(err, errlen, name,
			   "%s.choice must be tuned or defaults (got '%s')",
			   where, e->choice);
	if (!strcmp(e->choice, "defaults") && !is_default(p))
		return bad(err, errlen, name,
			   "%s: choice is defaults, but its params are not "
			   "the default tunable values; set them back or "
			   "export again",
			   where);
	return 0;
}

static int add_entry(struct ax_tuned *t, const char *fp,
		     const struct ax_config_schema *sc,
		     const struct doc_entry *e, const char *where,
		     const char *name, char *err, size_t errlen)
{
	char msg[512];
	struct ax_tuned_entry *x = &t->entries[t->n];
	if (!e->mapping)
		return bad(err, errlen, name,
			   "%s must be a mapping with "
			   "params, value and unit",
			   where);
	if (doc_point(sc, e->params, &x->params, msg, sizeof(msg)))
		return bad(err, errlen, name, "%s.params: %s", where, msg);
	int rc = check_choice(e, &x->params, where, name, err, errlen);
	if (rc)
		return rc;
	x->suite = sc;
	x->defaults = !strcmp(e->choice, "defaults");
	x->value = e->value;
	x->fingerprint = strdup(fp);
	x->unit = strdup(e->unit ? e->unit : "");
	t->n++;
	return x->fingerprint && x->unit ? 0 : AX_ENOMEM;
}

static int add_suite(struct ax_tuned *t, const struct doc_device *dev, int di,
		     const struct doc_suite *s,
		     const struct ax_config_schema *schema, int n_schema,
		     const char *name, char *err, size_t errlen)
{
	const struct ax_config_schema *sc =
	    find_schema(schema, n_schema, s->name);
	if (!sc)
		return bad(err, errlen, name,
			   "devices[%d].suites: unknown suite '%s'", di,
			   s->name);
	if (!s->list)
		return bad(err, errlen, name,
			   "devices[%d].suites.%s must be a list", di, s->name);
	struct ax_tuned_entry *grown =
	    realloc(t->entries, sizeof(*grown) * (t->n + s->n + 1));
	if (!grown)
		return AX_ENOMEM;
	t->entries = grown;
	for (size_t i = 0; i < s->n; i++) {
		char where[160];
		snprintf(where, sizeof(where), "devices[%d].suites.%s[%zu]", di,
			 s->name, i);
		int rc = add_entry(t, dev->fingerprint, sc, &s->e[i], where,
				   name, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

/* The entries of a document read, checked in document order. */
static int take_doc(struct ax_tuned *t, const struct tuned_doc *d,
		    const struct ax_config_schema *schema, int n_schema,
		    const char *name, char *err, size_t errlen)
{
	if (!d->schema || strcmp(d->schema, AX_EXPORT_SCHEMA))
		return bad(err, errlen, name,
			   "schema must be %s (got %s); "
			   "give a file written by axbench export",
			   AX_EXPORT_SCHEMA, d->schema ? d->schema : "none");
	if (!d->devices)
		return bad(err, errlen, name, "devices must be a list");
	for (size_t i = 0; i < d->n; i++) {
		const struct doc_device *dev = &d->d[i];
		if (!dev->fingerprint || !dev->suites)
			return bad(err, errlen, name,
				   "devices[%d] needs a fingerprint "
				   "string and a suites mapping",
				   (int)i);
		for (size_t k = 0; k < dev->n; k++) {
			int rc = add_suite(t, dev, (int)i, &dev->s[k], schema,
					   n_schema, name, err, errlen);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int ax_export_tuned_from_json(const json_t *doc, const char *name,
			      const struct ax_config_schema *schema,
			      int n_schema, struct ax_tuned **out, char *err,
			      size_t errlen)
{
	struct tuned_doc d;
	*out = NULL;
	struct ax_tuned *t = calloc(1, sizeof(*t));
	int rc = t ? read_doc(doc, &d) : AX_ENOMEM;
	if (t && !rc)
		rc = take_doc(t, &d, schema, n_schema, name, err, errlen);
	if (t)
		free_doc(&d);
	if (rc) {
		ax_export_tuned_destroy(t);
		return rc;
	}
	*out = t;
	return 0;
}

int ax_export_load_tuned(const char *path,
			 const struct ax_config_schema *schema, int n_schema,
			 struct ax_tuned **out, char *err, size_t errlen)
{
	json_t *doc;
	*out = NULL;
	int rc = ax_config_load_yaml_json(path, &doc, err, errlen);
	if (rc)
		return rc;
	rc = ax_export_tuned_from_json(doc, path, schema, n_schema, out, err,
				       errlen);
	json_decref(doc);
	return rc;
}

void ax_export_tuned_destroy(struct ax_tuned *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++) {
		free(t->entries[i].fingerprint);
		free(t->entries[i].unit);
	}
	free(t->entries);
	free(t);
}

const struct ax_tuned_entry *ax_export_tuned_apply(const struct ax_tuned *t,
						   const char *fingerprint,
						   const char *suite,
						   struct ax_params *p)
{
	for (int i = 0; t && i < t->n; i++) {
		const struct ax_tuned_entry *e = &t->entries[i];
		if (strcmp(e->suite->suite, suite) ||
		    (fingerprint && strcmp(e->fingerprint, fingerprint)) ||
		    !same_fixed(&e->params, p))
			continue;
		for (int k = 0; k < p->n; k++)
			if (p->defs[k].flags & AX_PARAM_TUNABLE)
				p->v[k] = e->params.v[k];
		return e;
	}
	return NULL;
}
