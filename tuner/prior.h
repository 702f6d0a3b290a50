/*
 * tuner/prior.h - what an earlier tuning session learned, as a prior for a
 * new one (transfer: another device, another driver, another shape).
 *
 * The other session's evaluations are mapped into this session's space by
 * parameter name and value: the two must tune the same parameters (a
 * different set is refused, naming what differs), and an evaluation whose
 * values are not all levels of this space is left out.  A Gaussian process
 * is fitted to the mapped successes' log cost; its posterior mean at every
 * point of this space is what the Bayesian tuner uses as a mean function
 * (tuner/bo.c scales it by a slope fitted to this session's own
 * measurements, and drops it when the data prefer the cold model), and the
 * other session's best points that exist here open the initial design.
 *
 * Failed evaluations of the other session are counted but not used: a
 * point that failed on another device may well run here.
 */
#ifndef AX_TUNER_PRIOR_H
#define AX_TUNER_PRIOR_H

#include "tuner/space.h"

#include <stddef.h>
#include <stdint.h>

/* Fewer mapped successes than this make no prior (a GP on four points is
 * a guess). */
#define AX_PRIOR_MIN_OK 5
/* The other session's best points that open the initial design. */
#define AX_PRIOR_TOP 5
#define AX_PRIOR_TOP_MAX 32 /* the most ax_prior_top gives */

struct ax_prior;

/*
 * A prior for space from n evaluations of another session over ndims
 * parameters named names[0..ndims): values[i * ndims + d] is evaluation
 * i's value of parameter d (a number, or a choice index for a categorical
 * parameter, as ax_space_value gives them) and cost[i] its cost (a time,
 * finite and > 0; anything else is a failure).  seed makes the fit
 * reproducible.  On success *out is the caller's to ax_prior_destroy; the
 * space is borrowed and must outlive it.  Errors (message in err):
 * AX_EINVAL when the parameter names differ from the space's (each side's
 * extra names listed) or fewer than AX_PRIOR_MIN_OK successes map into
 * the space; AX_ENOMEM.
 */
int ax_prior_create(struct ax_prior **out, const struct ax_space *space,
		    int ndims, const char *const *names, const double *values,
		    const double *cost, size_t n, uint64_t seed, char *err,
		    size_t errlen);

void ax_prior_destroy(struct ax_prior *p);

/* The prior's mean log cost at point i of the space. */
double ax_prior_mean(const struct ax_prior *p, size_t i);

/* Up to k points of the space, the other session's best measured first;
 * returns how many were written to idx. */
size_t ax_prior_top(const struct ax_prior *p, size_t k, size_t *idx);

/* Counts: successes used, successes left out (values outside this space),
 * failures not used. */
size_t ax_prior_used(const struct ax_prior *p);
size_t ax_prior_left_out(const struct ax_prior *p);
size_t ax_prior_failed(const struct ax_prior *p);

/* The space the prior was built for (borrowed). */
const struct ax_space *ax_prior_space(const struct ax_prior *p);

#endif
