/*
 * app/tune_prior.c - which earlier tuning session a live `tune` learns
 * from (--prior auto|none|SESSION), and that session's trials as a
 * tuner prior (tuner/prior.h).
 *
 * auto, the default, looks through the database's sessions of the same
 * suite, newest first within each of three classes, in this order:
 *   1. the same shape on this device (an earlier driver or build);
 *   2. the same shape on another device (the user's other GPU);
 *   3. another shape on this device (the kernel's character carries over
 *      from one size to the next more than any device's does).
 * The first whose successful trials map into this session's space (at
 * least AX_PRIOR_MIN_OK of them) is used; with none, the session tunes
 * cold and says why.  Only bo has a model to take a prior: other
 * strategies tune cold, and an explicit SESSION with them is refused.
 */
#include "app/tune.h"

#include "app/tune_internal.h"
#include "core/db.h"
#include "core/db_rows.h"
#include "core/error.h"
#include "tuner/prior.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ax_tune_prior_parse(const char *text, struct ax_tune_args *a, char *err,
			size_t errlen)
{
	char *end;
	if (strcmp(text, "auto") == 0) {
		a->prior_mode = AX_PRIOR_AUTO;
		return 0;
	}
	if (strcmp(text, "none") == 0) {
		a->prior_mode = AX_PRIOR_NONE;
		return 0;
	}
	long long id = strtoll(text, &end, 10);
	if (*text && !*end && id > 0) {
		a->prior_mode = AX_PRIOR_SESSION;
		a->prior_session = id;
		return 0;
	}
	return ax_errf(err, errlen, AX_EINVAL,
		       "expected auto, none or a tuning session id (got "
		       "'%s')",
		       text);
}

/* The session's trials as (values, cost) in the space's parameter order;
 * then the prior.  AX_EINVAL with the reason in err when it makes none. */
static int prior_of(const struct ax_tune_args *a, const struct ax_space *space,
		    const struct ax_db_session_row *session,
		    struct ax_prior **out, char *err, size_t errlen)
{
	size_t n = session->n_trials, m = 0;
	int D = ax_space_ndims(space);
	const char *names[AX_MAX_PARAMS];
	double *vals = malloc((n ? n : 1) * (size_t)D * sizeof(double));
	double *cost = malloc((n ? n : 1) * sizeof(double));
	int rc = vals && cost ? 0 : AX_ENOMEM;
	for (int d = 0; d < D; d++)
		names[d] = ax_space_dim_name(space, d);
	for (size_t k = 0; k < n && !rc; k++) {
		const struct ax_db_trial_row *t = &session->trials[k];
		struct ax_params p;
		char perr[256];
		if (ax_tl_stored_params(&p, a->base.defs, a->base.n,
					&t->params, t->params_doc, perr,
					sizeof(perr)))
			continue;
		for (int d = 0; d < D; d++)
			vals[m * (size_t)D + (size_t)d] =
			    (double)p.v[ax_params_find(&p, names[d])];
		bool ok = t->status && strcmp(t->status, "ok") == 0;
		cost[m++] = ok && isfinite(t->seconds) ? t->seconds : NAN;
	}
	if (!rc)
		rc = ax_prior_create(out, space, D, names, vals, cost, m,
				     a->seed, err, errlen);
	free(vals);
	free(cost);
	return rc;
}

static void note(struct ax_tune_prior *pr, int64_t id, const char *basis)
{
	pr->session_id = id;
	snprintf(pr->basis, sizeof(pr->basis), "%s", basis);
}

/* One named session: it must exist and tune the same suite. */
static int from_session(struct ax_app *app, struct ax_db *db,
			const struct ax_tune_args *a,
			const struct ax_space *space, int64_t id,
			const char *basis, struct ax_tune_prior *pr)
{
	struct ax_db_session_row *s;
	char err[512];
	if (ax_db_session_row_get(db, id, &s))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--prior %lld: no such tuning session in "
				    "%s",
				    (long long)id, app->db_path);
	const char *suite = s->suite;
	int rc = 0;
	if (!suite || strcmp(suite, a->suite->name) != 0)
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--prior %lld: that session tuned %s, not "
				  "%s; a prior must tune the same suite",
				  (long long)id, suite ? suite : "?",
				  a->suite->name);
	else if (prior_of(a, space, s, &pr->prior, err, sizeof(err)))
		rc = ax_app_error(app, AX_EXIT_USAGE,
				  "--prior %lld: %s (give --prior none to tune "
				  "cold)",
				  (long long)id, err);
	else
		note(pr, id, basis);
	ax_db_session_row_free(s);
	return rc;
}

/* Was the session started at base's shape: its stored shape is what
 * ax_params_to_json writes for base (integers as numbers, every other
 * value as its name), name for name? */
static bool same_shape(const struct ax_db_params *stored,
		       const struct ax_params *base)
{
	if (stored->n != base->n)
		return false;
	for (int i = 0; i < base->n; i++) {
		const struct ax_param_def *d = &base->defs[i];
		const struct ax_db_param *v = ax_db_param_find(stored, d->name);
		char text[64];
		if (d->type == AX_PT_INT) {
			if (!v || v->type != AX_DB_VALUE_INT ||
			    v->i != base->v[i])
				return false;
			continue;
		}
		const char *want = text;
		if (d->type == AX_PT_TEXT)
			want = ax_param_text(d, base->v[i]);
		else
			ax_param_format(d, base->v[i], text, sizeof(text));
		if (!v || v->type != AX_DB_VALUE_TEXT || !v->text || !want ||
		    strcmp(v->text, want) != 0)
			return false;
	}
	return true;
}

/* Class of session s for auto (1 best, 0: not a candidate). */
static int candidate_class(const struct ax_db_session_row *s,
			   const struct ax_params *shape,
			   const char *fingerprint, int64_t self)
{
	const char *fp = s->device.fingerprint;
	int same_dev = fp && strcmp(fp, fingerprint) == 0;
	if (s->id == self)
		return 0;
	if (same_shape(&s->shape, shape))
		return same_dev ? 1 : 2;
	return same_dev ? 3 : 0;
}

static const char *const class_basis[] = {"", "the same shape on this device",
					  "the same shape on another device",
					  "another shape on this device"};

static int from_auto(struct ax_app *app, struct ax_db *db,
		     const struct ax_tune_args *a, const struct ax_space *space,
		     const char *fingerprint, struct ax_tune_prior *pr)
{
	struct ax_db_filter f = {.suite = a->suite->name};
	struct ax_db_sessions all = {0};
	char err[512];
	if (ax_db_session_rows(db, &f, &all)) {
		ax_db_sessions_free(&all);
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "reading tuning sessions for a prior: %s",
				    ax_db_errmsg(db));
	}
	size_t tried = 0;
	for (int cls = 1; cls <= 3 && !pr->prior; cls++) {
		/* Newest first: the listing is oldest first. */
		for (size_t k = all.n; k-- > 0 && !pr->prior;) {
			const struct ax_db_session_row *s = all.v[k];
			if (candidate_class(s, &a->base, fingerprint,
					    a->resume_session) != cls)
				continue;
			tried++;
			if (prior_of(a, space, s, &pr->prior, err,
				     sizeof(err)) == 0)
				note(pr, s->id, class_basis[cls]);
		}
	}
	if (!pr->prior && tried)
		snprintf(pr->basis, sizeof(pr->basis),
			 "none: no earlier %s session of this shape or device "
			 "(%zu looked at) has %d successful trials in this "
			 "space",
			 a->suite->name, tried, AX_PRIOR_MIN_OK);
	else if (!pr->prior)
		snprintf(pr->basis, sizeof(pr->basis),
			 "none: no earlier %s session of this shape or device",
			 a->suite->name);
	ax_db_sessions_free(&all);
	return 0;
}

int ax_tune_prior_resolve(struct ax_app *app, struct ax_db *db,
			  const struct ax_tune_args *a,
			  const struct ax_space *space, const char *fingerprint,
			  int64_t stored, struct ax_tune_prior *pr)
{
	memset(pr, 0, sizeof(*pr));
	int bo = strcmp(a->strategy, "bo") == 0;
	if (a->resume_session) {
		int64_t want = a->prior_mode == AX_PRIOR_SESSION
				   ? a->prior_session
			       : a->prior_mode == AX_PRIOR_NONE ? 0
								: stored;
		char kept[64];
		if (stored)
			snprintf(kept, sizeof(kept), "session %lld",
				 (long long)stored);
		else
			snprintf(kept, sizeof(kept), "none: it tuned cold");
		if (a->prior_mode != AX_PRIOR_UNSET &&
		    (a->prior_mode == AX_PRIOR_AUTO || want != stored))
			return ax_app_error(
			    app, AX_EXIT_USAGE,
			    "--prior: session %lld keeps the prior it was "
			    "started with (%s); --resume continues it so (give "
			    "no --prior, or start a new session)",
			    (long long)a->resume_session, kept);
		if (!stored) {
			note(pr, 0, "none: the session was started cold");
			return 0;
		}
		return from_session(app, db, a, space, stored,
				    "the session's own prior, kept on resume",
				    pr);
	}
	if (a->prior_mode == AX_PRIOR_NONE) {
		note(pr, 0, "none: --prior none");
		return 0;
	}
	if (!bo && a->prior_mode == AX_PRIOR_SESSION)
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--prior %lld: only --strategy bo has a "
				    "model to take a prior (%s searches "
				    "without one)",
				    (long long)a->prior_session, a->strategy);
	if (!bo) {
		snprintf(pr->basis, sizeof(pr->basis),
			 "none: strategy %s has no model to take one",
			 a->strategy);
		return 0;
	}
	if (a->prior_mode == AX_PRIOR_SESSION)
		return from_session(app, db, a, space, a->prior_session,
				    "--prior SESSION", pr);
	return from_auto(app, db, a, space, fingerprint, pr);
}

void ax_tune_prior_release(struct ax_tune_prior *pr)
{
	ax_prior_destroy(pr->prior);
	pr->prior = NULL;
}
