/* tuner/prior.c - another session's evaluations as a GP prior. */
#include "tuner/prior.h"

#include "core/error.h"
#include "tuner/gp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_KEPT AX_PRIOR_TOP_MAX

struct ax_prior {
	const struct ax_space *space;
	double *mean; /* per point of the space: the prior's mean log cost */
	size_t top[TOP_KEPT], ntop;
	size_t used, left_out, failed;
};

/* map[d] = the other session's column of space dimension d; AX_EINVAL
 * naming each side's extra parameters when the two sets differ. */
static int map_names(const struct ax_space *s, int ndims,
		     const char *const *names, int *map, char *err,
		     size_t errlen)
{
	int D = ax_space_ndims(s);
	char here[512] = "", there[512] = "";
	for (int d = 0; d < D; d++) {
		map[d] = -1;
		for (int j = 0; j < ndims; j++)
			if (strcmp(ax_space_dim_name(s, d), names[j]) == 0)
				map[d] = j;
		if (map[d] < 0)
			snprintf(here + strlen(here),
				 sizeof(here) - strlen(here), "%s%s",
				 *here ? ", " : "", ax_space_dim_name(s, d));
	}
	for (int j = 0; j < ndims; j++) {
		int found = 0;
		for (int d = 0; d < D && !found; d++)
			found = strcmp(ax_space_dim_name(s, d), names[j]) == 0;
		if (!found)
			snprintf(there + strlen(there),
				 sizeof(there) - strlen(there), "%s%s",
				 *there ? ", " : "", names[j]);
	}
	if (!*here && !*there && ndims == D)
		return 0;
	return ax_errf(err, errlen, AX_EINVAL,
		       "the prior tunes other parameters than this session "
		       "(only here: %s; only in the prior: %s); a prior must "
		       "search the same parameter space",
		       *here ? here : "none", *there ? there : "none");
}

/* Level index of value v on dimension d, or -1 when it is not a level. */
static long level_of(const struct ax_space *s, int d, double v)
{
	const double *lev;
	int nl = ax_space_dim_levels(s, d, &lev);
	for (int l = 0; l < nl; l++)
		if (lev[l] == v)
			return l;
	return -1;
}

/* Evaluation i's values in the space's dimension order into vals, its
 * encoding into enc; 0, or -1 when a value is not a level here. */
static int map_point(const struct ax_space *s, const int *map, int ndims,
		     const double *values, size_t i, double *vals, double *enc)
{
	int D = ax_space_ndims(s);
	uint32_t li[AX_MAX_PARAMS];
	for (int d = 0; d < D; d++) {
		vals[d] = values[i * (size_t)ndims + (size_t)map[d]];
		long l = level_of(s, d, vals[d]);
		if (l < 0)
			return -1;
		li[d] = (uint32_t)l;
	}
	enc[0] = 0;
	ax_space_encode_levels(s, li, enc);
	return 0;
}

struct ranked {
	double cost;
	long index; /* point of the space, or -1 */
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->cost;
	double y = ((const struct ranked *)b)->cost;
	return (x > y) - (x < y);
}

/* The fitted GP's mean log cost at every point of the space. */
static void fill_mean(struct ax_prior *p, struct ax_gp *gp, int de)
{
	int n = ax_gp_n(gp);
	double *alpha = malloc((size_t)n * sizeof(double));
	double ym = ax_gp_y_mean(gp), ys = ax_gp_y_scale(gp), zero = 0;
	if (!alpha) {
		for (size_t i = 0; i < ax_space_size(p->space); i++)
			p->mean[i] = ym;
		return;
	}
	ax_gp_alpha(gp, alpha);
	for (size_t i = 0; i < ax_space_size(p->space); i++) {
		const double *x = de ? ax_space_encoded(p->space, i) : &zero;
		double m = 0;
		for (int j = 0; j < n; j++)
			m += ax_gp_kernel(gp, x, ax_gp_x(gp, j)) * alpha[j];
		p->mean[i] = ym + ys * m;
	}
	free(alpha);
}

/* Fit the GP on the mapped successes and fill mean and top. */
static int fit(struct ax_prior *p, const double *X, const double *y,
	       struct ranked *r, size_t nok, uint64_t seed)
{
	int de = ax_space_enc_dims(p->space);
	struct ax_gp *gp;
	int rc = ax_gp_create(&gp, de > 0 ? de : 1);
	if (rc)
		return rc;
	rc = ax_gp_set_data(gp, X, y, (int)nok);
	if (!rc)
		rc = ax_gp_fit(gp, 3, seed * 7919u + 17u, 50);
	if (!rc)
		fill_mean(p, gp, de);
	ax_gp_destroy(gp);
	if (rc)
		return rc;
	qsort(r, nok, sizeof(*r), cmp_ranked);
	for (size_t k = 0; k < nok && p->ntop < TOP_KEPT; k++)
		if (r[k].index >= 0)
			p->top[p->ntop++] = (size_t)r[k].index;
	return 0;
}

int ax_prior_create(struct ax_prior **out, const struct ax_space *space,
		    int ndims, const char *const *names, const double *values,
		    const double *cost, size_t n, uint64_t seed, char *err,
		    size_t errlen)
{
	int map[AX_MAX_PARAMS];
	*out = NULL;
	int rc = map_names(space, ndims, names, map, err, errlen);
	if (rc)
		return rc;
	int de = ax_space_enc_dims(space), w = de > 0 ? de : 1;
	struct ax_prior *p = calloc(1, sizeof(*p));
	double *X = malloc((n ? n : 1) * (size_t)w * sizeof(double));
	double *y = malloc((n ? n : 1) * sizeof(double));
	struct ranked *r = malloc((n ? n : 1) * sizeof(*r));
	if (p)
		p->mean = malloc(ax_space_size(space) * sizeof(double));
	if (!p || !X || !y || !r || !p->mean) {
		rc = AX_ENOMEM;
		goto out;
	}
	p->space = space;
	for (size_t i = 0; i < n; i++) {
		double vals[AX_MAX_PARAMS], enc[AX_SPACE_MAX_ENC + 1];
		if (!(isfinite(cost[i]) && cost[i] > 0)) {
			p->failed++;
			continue;
		}
		if (map_point(space, map, ndims, values, i, vals, enc)) {
			p->left_out++;
			continue;
		}
		memcpy(X + p->used * (size_t)w, enc,
		       (size_t)w * sizeof(double));
		y[p->used] = log(cost[i]);
		r[p->used].cost = cost[i];
		r[p->used].index = ax_space_find(space, vals);
		p->used++;
	}
	if (p->used < AX_PRIOR_MIN_OK) {
		rc = ax_errf(err, errlen, AX_EINVAL,
			     "only %zu of the prior's evaluations are "
			     "successes that map into this space (%zu left "
			     "out: values this space lacks; %zu failed); at "
			     "least %d are needed",
			     p->used, p->left_out, p->failed, AX_PRIOR_MIN_OK);
		goto out;
	}
	rc = fit(p, X, y, r, p->used, seed);
out:
	free(X);
	free(y);
	free(r);
	if (rc)
		ax_prior_destroy(p);
	else
		*out = p;
	return rc;
}

void ax_prior_destroy(struct ax_prior *p)
{
	if (!p)
		return;
	free(p->mean);
	free(p);
}

double ax_prior_mean(const struct ax_prior *p, size_t i) { return p->mean[i]; }

size_t ax_prior_top(const struct ax_prior *p, size_t k, size_t *idx)
{
	size_t m = k < p->ntop ? k : p->ntop;
	memcpy(idx, p->top, m * sizeof(size_t));
	return m;
}

size_t ax_prior_used(const struct ax_prior *p) { return p->used; }
size_t ax_prior_left_out(const struct ax_prior *p) { return p->left_out; }
size_t ax_prior_failed(const struct ax_prior *p) { return p->failed; }

const struct ax_space *ax_prior_space(const struct ax_prior *p)
{
	return p->space;
}
