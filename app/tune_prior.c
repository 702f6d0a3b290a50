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

#include "core/db.h"
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
		    const json_t *session, struct ax_prior **out, char *err,
		    size_t errlen)
{
	const json_t *trials = json_object_get(session, "trials"), *t;
	size_t n = json_array_size(trials), k, m = 0;
	int D = ax_space_ndims(space);
	const char *names[AX_MAX_PARAMS];
	double *vals = malloc((n ? n : 1) * (size_t)D * sizeof(double));
	double *cost = malloc((n ? n : 1) * sizeof(double));
	int rc = vals && cost ? 0 : AX_ENOMEM;
	for (int d = 0; d < D; d++)
		names[d] = ax_space_dim_name(space, d);
	json_array_foreach(trials, k, t)
	{
		struct ax_params p;
		char perr[256];
		char *text =
		    json_dumps(json_object_get(t, "params"), JSON_COMPACT);
		int bad = rc || !text ||
			  ax_params_from_json(&p, a->base.defs, a->base.n, text,
					      perr, sizeof(perr));
		free(text);
		if (bad)
			continue;
		for (int d = 0; d < D; d++)
			vals[m * (size_t)D + (size_t)d] =
			    (double)p.v[ax_params_find(&p, names[d])];
		const json_t *sec = json_object_get(t, "seconds");
		const char *st =
		    json_string_value(json_object_get(t, "status"));
		cost[m++] = st && strcmp(st, "ok") == 0 && json_is_number(sec)
				? json_number_value(sec)
				: NAN;
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
	json_t *s;
	char err[512];
	if (ax_db_session_get(db, id, &s))
		return ax_app_error(app, AX_EXIT_USAGE,
				    "--prior %lld: no such tuning session in "
				    "%s",
				    (long long)id, app->db_path);
	const char *suite = json_string_value(json_object_get(s, "suite"));
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
	json_decref(s);
	return rc;
}

/* Class of session s for auto (1 best, 0: not a candidate). */
static int candidate_class(const json_t *s, const json_t *shape,
			   const char *fingerprint, int64_t self)
{
	const json_t *dev = json_object_get(s, "device");
	const char *fp = json_string_value(json_object_get(dev, "fingerprint"));
	int same_dev = fp && strcmp(fp, fingerprint) == 0;
	int same_shape = json_equal(json_object_get(s, "shape"), shape);
	if (json_integer_value(json_object_get(s, "id")) == self)
		return 0;
	if (same_shape)
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
	json_t *all, *s;
	char err[512];
	if (ax_db_sessions(db, &f, &all))
		return ax_app_error(app, AX_EXIT_STORAGE,
				    "reading tuning sessions for a prior: %s",
				    ax_db_errmsg(db));
	char *shape_text = ax_params_to_json(&a->base);
	json_t *shape = shape_text ? json_loads(shape_text, 0, NULL) : NULL;
	free(shape_text);
	size_t tried = 0;
	for (int cls = 1; cls <= 3 && !pr->prior; cls++) {
		/* Newest first: the listing is oldest first. */
		for (size_t k = json_array_size(all); k-- > 0 && !pr->prior;) {
			s = json_array_get(all, k);
			if (candidate_class(s, shape, fingerprint,
					    a->resume_session) != cls)
				continue;
			tried++;
			if (prior_of(a, space, s, &pr->prior, err,
				     sizeof(err)) == 0)
				note(pr,
				     json_integer_value(
					 json_object_get(s, "id")),
				     class_basis[cls]);
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
	json_decref(shape);
	json_decref(all);
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
