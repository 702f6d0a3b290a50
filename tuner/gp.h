/*
 * tuner/gp.h - Gaussian-process regression for the Bayesian tuner.
 *
 * A zero-mean GP on standardised targets with a Matern-5/2 kernel that has
 * one length scale per input dimension (ARD), a signal variance and a
 * learned noise variance.  Hyperparameters are fitted by maximum marginal
 * likelihood with weak log-normal priors (so 20 points cannot give a
 * degenerate fit), using the closed-form gradient and GSL's BFGS over the
 * log-parameters, from a few starts.  All linear algebra (Cholesky, solves,
 * inverse) is GSL's.
 *
 * The model is fitted on whatever y the caller gives; the tuner passes
 * log(time).  y is standardised (mean 0, standard deviation 1) when data is
 * set; ax_gp_append() adds a point under the frozen standardisation and
 * hyperparameters in O(n^2), so a caller can refit only now and then.
 *
 * Expected improvement is for minimisation.  GSL's error handler is
 * switched off around the GSL calls made here and restored afterwards.
 */
#ifndef AX_TUNER_GP_H
#define AX_TUNER_GP_H

#include <stdint.h>

#define AX_GP_MAXD 64

struct ax_gp;

struct ax_gp_hyper {
	int d;
	double ls[AX_GP_MAXD]; /* length scale per input dimension */
	double sf2;	       /* signal variance (standardised units) */
	double sn2;	       /* noise variance (standardised units) */
};

/* A GP over d inputs (1..AX_GP_MAXD) with default hyperparameters
 * (every length scale 0.5, sf2 1, sn2 0.01).  AX_EINVAL, AX_ENOMEM. */
int ax_gp_create(struct ax_gp **out, int d);
void ax_gp_destroy(struct ax_gp *gp);

/* Replace or read the hyperparameters; set refactorises the data (an
 * AX_EINVAL if the kernel matrix cannot be factorised even with jitter). */
int ax_gp_set_hyper(struct ax_gp *gp, const struct ax_gp_hyper *h);
void ax_gp_get_hyper(const struct ax_gp *gp, struct ax_gp_hyper *h);

/*
 * Copy n points (X row-major n x d, y) into the model, standardise y and
 * factorise with the current hyperparameters.  n may be 0.
 */
int ax_gp_set_data(struct ax_gp *gp, const double *X, const double *y, int n);

/*
 * Fit hyperparameters by maximum marginal likelihood (plus priors):
 * BFGS from the current values, the defaults and restarts-2 random starts
 * drawn with seed, at most max_iter iterations each; keeps the best and
 * refactorises.  Needs n >= 2 (with fewer it leaves the defaults).
 */
int ax_gp_fit(struct ax_gp *gp, int restarts, uint64_t seed, int max_iter);

/*
 * Add one point under the current hyperparameters and standardisation
 * without refitting (extends the Cholesky factor in O(n^2)).
 */
int ax_gp_append(struct ax_gp *gp, const double *x, double y);

/* Counts full factorisations (set_data, set_hyper, fit, and an append
 * that had to refactorise a near-duplicate): state derived from the factor
 * is stale when this changes. */
unsigned long ax_gp_generation(const struct ax_gp *gp);

/* Number of points held. */
int ax_gp_n(const struct ax_gp *gp);

/* Posterior mean and variance of the latent function at x, in the units of
 * the y given (variance without the noise term). */
void ax_gp_predict(const struct ax_gp *gp, const double *x, double *mean,
		   double *var);

/*
 * Negative log marginal likelihood plus the negative log prior at theta =
 * (log ls[0..d), log sf2, log(sn2 - 1e-6)), and its gradient into grad
 * (d+2 values) when grad is not NULL.  For the optimiser and for tests.
 */
double ax_gp_nll(struct ax_gp *gp, const double *theta, double *grad);

/*
 * Leave-one-out log predictive density of the y the model holds, in the
 * units of the y given: the sum over points of log N(y_i; the mean and
 * variance predicted from the others, noise included), in closed form
 * from K^-1 (O(n^3)).  Two models of the same points whose targets differ
 * by a known shift compare by it: the tuner's choice between a cold model
 * and one that leans on a prior.  -inf when n < 2 or K cannot be
 * inverted.
 */
double ax_gp_loo_lpd(struct ax_gp *gp);

/* alpha = K^-1 y (standardised units) into out[0..n): a caller predicting
 * the mean at many points then needs only the kernel vector,
 * mean(x) = y_mean + y_scale * sum_j k(x, x_j) alpha_j. */
void ax_gp_alpha(const struct ax_gp *gp, double *out);

/* Access for acquisition code that keeps its own incremental state. */
double ax_gp_kernel(const struct ax_gp *gp, const double *a,
		    const double *b); /* k(a, b), no noise */
const double *ax_gp_chol(const struct ax_gp *gp, int *ld); /* lower L */
const double *ax_gp_beta(const struct ax_gp *gp);	   /* L^-1 y_std */
const double *ax_gp_x(const struct ax_gp *gp, int i);
double ax_gp_y_mean(const struct ax_gp *gp);
double ax_gp_y_scale(const struct ax_gp *gp);
double ax_gp_sf2(const struct ax_gp *gp);

/* Expected improvement below best of N(mean, sd^2), and its logarithm
 * computed without underflow far in the tail (-inf only when sd <= 0 and
 * mean >= best). */
double ax_ei(double mean, double sd, double best);
double ax_log_ei(double mean, double sd, double best);

#endif
