/* tuner/gp.c - Matern-5/2 ARD Gaussian process, its fit, and EI. */
#include "tuner/gp.h"

#include "core/error.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_erf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SQRT5 2.23606797749978969641
#define NOISE_FLOOR 1e-6

/* Weak priors on the log-parameters: centre and standard deviation. */
#define PRIOR_LS_MU (-0.6931471805599453) /* log 0.5 */
#define PRIOR_LS_SD 1.5
#define PRIOR_SF_MU 0.0
#define PRIOR_SF_SD 1.5
#define PRIOR_SN_MU (-4.605170185988091) /* log 0.01 */
#define PRIOR_SN_SD 2.0
#define THETA_BOX 12.0 /* |log-parameter| beyond this is penalised */

struct ax_gp {
	int d, n, cap;
	struct ax_gp_hyper h;
	double ym, ys; /* standardisation of y */
	double *X;     /* cap x d */
	double *yr;    /* raw y */
	double *y;     /* standardised y */
	double *L;     /* cap x cap, lower Cholesky factor of K */
	double *beta;  /* L^-1 y */
	double *work;  /* cap x cap scratch for the fit */
	double *alpha; /* cap scratch */
	unsigned long gen;
};

static void set_default_hyper(struct ax_gp_hyper *h, int d)
{
	h->d = d;
	for (int i = 0; i < d; i++)
		h->ls[i] = 0.5;
	h->sf2 = 1.0;
	h->sn2 = 0.01;
}

int ax_gp_create(struct ax_gp **out, int d)
{
	*out = NULL;
	if (d < 1 || d > AX_GP_MAXD)
		return AX_EINVAL;
	struct ax_gp *gp = calloc(1, sizeof(*gp));
	if (!gp)
		return AX_ENOMEM;
	gp->d = d;
	gp->ys = 1.0;
	set_default_hyper(&gp->h, d);
	*out = gp;
	return 0;
}

void ax_gp_destroy(struct ax_gp *gp)
{
	if (!gp)
		return;
	free(gp->X);
	free(gp->yr);
	free(gp->y);
	free(gp->L);
	free(gp->beta);
	free(gp->work);
	free(gp->alpha);
	free(gp);
}

/* Grow storage to hold at least want points; L keeps its rows. */
static int reserve(struct ax_gp *gp, int want)
{
	if (want <= gp->cap)
		return 0;
	int cap = gp->cap ? gp->cap : 32;
	while (cap < want)
		cap *= 2;
	size_t c = (size_t)cap;
	double *X = realloc(gp->X, c * gp->d * sizeof(double));
	if (X)
		gp->X = X;
	double *yr = realloc(gp->yr, c * sizeof(double));
	if (yr)
		gp->yr = yr;
	double *y = realloc(gp->y, c * sizeof(double));
	if (y)
		gp->y = y;
	double *beta = realloc(gp->beta, c * sizeof(double));
	if (beta)
		gp->beta = beta;
	double *alpha = realloc(gp->alpha, c * sizeof(double));
	if (alpha)
		gp->alpha = alpha;
	double *L = calloc(c * c, sizeof(double));
	double *work = malloc(c * c * sizeof(double));
	if (!X || !yr || !y || !beta || !alpha || !L || !work) {
		free(L);
		free(work);
		return AX_ENOMEM;
	}
	for (int i = 0; i < gp->n; i++)
		memcpy(L + (size_t)i * c, gp->L + (size_t)i * gp->cap,
		       (size_t)(i + 1) * sizeof(double));
	free(gp->L);
	free(gp->work);
	gp->L = L;
	gp->work = work;
	gp->cap = cap;
	return 0;
}

static double matern(double r2, double sf2)
{
	double r = sqrt(r2);
	return sf2 * (1.0 + SQRT5 * r + 5.0 / 3.0 * r2) * exp(-SQRT5 * r);
}

static double kern(const struct ax_gp_hyper *h, const double *a,
		   const double *b)
{
	double r2 = 0;
	for (int i = 0; i < h->d; i++) {
		double t = (a[i] - b[i]) / h->ls[i];
		r2 += t * t;
	}
	return matern(r2, h->sf2);
}

double ax_gp_kernel(const struct ax_gp *gp, const double *a, const double *b)
{
	return kern(&gp->h, a, b);
}

/* Fill K (n x n, leading dimension ld) with the kernel plus noise. */
static void build_k(const struct ax_gp *gp, const struct ax_gp_hyper *h,
		    double *K, int ld, double jitter)
{
	int n = gp->n, d = gp->d;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++) {
			double k = kern(h, gp->X + i * d, gp->X + j * d);
			K[i * ld + j] = K[j * ld + i] = k;
		}
		K[i * ld + i] = h->sf2 + h->sn2 + jitter;
	}
}

/* Cholesky of K in place; retries with growing jitter on failure. */
static int factor(const struct ax_gp *gp, const struct ax_gp_hyper *h,
		  double *K, int ld)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = -1;
	double jitter = 0;
	for (int t = 0; t < 6 && rc; t++) {
		build_k(gp, h, K, ld, jitter);
		gsl_matrix_view m = gsl_matrix_view_array_with_tda(
		    K, (size_t)gp->n, (size_t)gp->n, (size_t)ld);
		rc = gsl_linalg_cholesky_decomp1(&m.matrix);
		jitter = jitter ? jitter * 100 : 1e-8 * h->sf2;
	}
	gsl_set_error_handler(old);
	return rc ? AX_EINVAL : 0;
}

/* beta = L^-1 y by forward substitution. */
static void forward(const double *L, int ld, int n, const double *b, double *x)
{
	for (int i = 0; i < n; i++) {
		const double *row = L + (size_t)i * ld;
		double s = b[i];
		for (int j = 0; j < i; j++)
			s -= row[j] * x[j];
		x[i] = s / row[i];
	}
}

static int refactor(struct ax_gp *gp)
{
	gp->gen++;
	if (gp->n == 0)
		return 0;
	int rc = factor(gp, &gp->h, gp->L, gp->cap);
	if (rc)
		return rc;
	forward(gp->L, gp->cap, gp->n, gp->y, gp->beta);
	return 0;
}

int ax_gp_set_hyper(struct ax_gp *gp, const struct ax_gp_hyper *h)
{
	if (h->d != gp->d)
		return AX_EINVAL;
	gp->h = *h;
	return refactor(gp);
}

void ax_gp_get_hyper(const struct ax_gp *gp, struct ax_gp_hyper *h)
{
	*h = gp->h;
}

int ax_gp_set_data(struct ax_gp *gp, const double *X, const double *y, int n)
{
	int rc = reserve(gp, n);
	if (rc)
		return rc;
	gp->n = n;
	memcpy(gp->X, X, (size_t)n * gp->d * sizeof(double));
	memcpy(gp->yr, y, (size_t)n * sizeof(double));
	double m = 0, v = 0;
	for (int i = 0; i < n; i++)
		m += y[i];
	m = n ? m / n : 0;
	for (int i = 0; i < n; i++)
		v += (y[i] - m) * (y[i] - m);
	double sd = n > 1 ? sqrt(v / (n - 1)) : 1.0;
	gp->ym = m;
	gp->ys = sd > 1e-12 ? sd : 1.0;
	for (int i = 0; i < n; i++)
		gp->y[i] = (y[i] - m) / gp->ys;
	return refactor(gp);
}

int ax_gp_append(struct ax_gp *gp, const double *x, double y)
{
	int rc = reserve(gp, gp->n + 1);
	if (rc)
		return rc;
	int n = gp->n, d = gp->d, ld = gp->cap;
	double *row = gp->L + (size_t)n * ld;
	memcpy(gp->X + (size_t)n * d, x, d * sizeof(double));
	gp->yr[n] = y;
	gp->y[n] = (y - gp->ym) / gp->ys;
	for (int j = 0; j < n; j++)
		gp->alpha[j] = kern(&gp->h, x, gp->X + (size_t)j * d);
	forward(gp->L, ld, n, gp->alpha, row);
	double s = gp->h.sf2 + gp->h.sn2;
	for (int j = 0; j < n; j++)
		s -= row[j] * row[j];
	if (!(s > 1e-12 * gp->h.sf2)) {
		/* Numerically a duplicate: refactorise everything (adds
		 * jitter) rather than keep a broken factor. */
		gp->n = n + 1;
		return refactor(gp);
	}
	row[n] = sqrt(s);
	double b = gp->y[n];
	for (int j = 0; j < n; j++)
		b -= row[j] * gp->beta[j];
	gp->beta[n] = b / row[n];
	gp->n = n + 1;
	return 0;
}

unsigned long ax_gp_generation(const struct ax_gp *gp) { return gp->gen; }

int ax_gp_n(const struct ax_gp *gp) { return gp->n; }

void ax_gp_predict(const struct ax_gp *gp, const double *x, double *mean,
		   double *var)
{
	int n = gp->n;
	double mu = 0, v = gp->h.sf2;
	if (n > 0) {
		double *k = malloc((size_t)n * 2 * sizeof(double));
		if (!k) {
			*mean = gp->ym;
			*var = gp->h.sf2 * gp->ys * gp->ys;
			return;
		}
		double *w = k + n;
		for (int j = 0; j < n; j++)
			k[j] = kern(&gp->h, x, gp->X + (size_t)j * gp->d);
		forward(gp->L, gp->cap, n, k, w);
		for (int j = 0; j < n; j++) {
			mu += w[j] * gp->beta[j];
			v -= w[j] * w[j];
		}
		free(k);
	}
	if (v < 1e-12 * gp->h.sf2)
		v = 1e-12 * gp->h.sf2;
	*mean = gp->ym + gp->ys * mu;
	*var = v * gp->ys * gp->ys;
}

/* theta <-> hyperparameters. */
static void theta_to_hyper(int d, const double *th, struct ax_gp_hyper *h)
{
	h->d = d;
	for (int i = 0; i < d; i++)
		h->ls[i] = exp(th[i]);
	h->sf2 = exp(th[d]);
	h->sn2 = NOISE_FLOOR + exp(th[d + 1]);
}

static void hyper_to_theta(const struct ax_gp_hyper *h, double *th)
{
	for (int i = 0; i < h->d; i++)
		th[i] = log(h->ls[i]);
	th[h->d] = log(h->sf2);
	double e = h->sn2 - NOISE_FLOOR;
	th[h->d + 1] = log(e > 1e-12 ? e : 1e-12);
}

/* Negative log prior (up to a constant) and box penalty, with gradient. */
static double prior_term(int d, const double *th, double *grad)
{
	double f = 0;
	for (int i = 0; i < d + 2; i++) {
		double mu =
		    i < d ? PRIOR_LS_MU : (i == d ? PRIOR_SF_MU : PRIOR_SN_MU);
		double sd =
		    i < d ? PRIOR_LS_SD : (i == d ? PRIOR_SF_SD : PRIOR_SN_SD);
		double z = (th[i] - mu) / sd;
		f += 0.5 * z * z;
		double g = z / sd;
		double ex = fabs(th[i]) - THETA_BOX;
		if (ex > 0) {
			f += 100 * ex * ex;
			g += 200 * ex * (th[i] > 0 ? 1 : -1);
		}
		if (grad)
			grad[i] += g;
	}
	return f;
}

/* Gradient of the data term: 0.5 * sum_ij W_ij dK_ij, W = K^-1 - aa'. */
static void nll_grad(const struct ax_gp *gp, const struct ax_gp_hyper *h,
		     const double *W, int ld, double *grad)
{
	int n = gp->n, d = gp->d;
	for (int i = 0; i < n; i++) {
		const double *xi = gp->X + (size_t)i * d;
		for (int j = 0; j < i; j++) {
			const double *xj = gp->X + (size_t)j * d;
			double r2 = 0, t2[AX_GP_MAXD];
			for (int q = 0; q < d; q++) {
				double t = (xi[q] - xj[q]) / h->ls[q];
				t2[q] = t * t;
				r2 += t2[q];
			}
			double r = sqrt(r2), e = exp(-SQRT5 * r);
			double kf = h->sf2 * (1 + SQRT5 * r + 5.0 / 3 * r2) * e;
			double g = h->sf2 * 5.0 / 3 * (1 + SQRT5 * r) * e;
			double w = W[(size_t)i * ld + j]; /* counted twice */
			for (int q = 0; q < d; q++)
				grad[q] += w * g * t2[q];
			grad[d] += w * kf;
		}
		double wii = W[(size_t)i * ld + i];
		grad[d] += 0.5 * wii * h->sf2;
		grad[d + 1] += 0.5 * wii * (h->sn2 - NOISE_FLOOR);
	}
}

double ax_gp_nll(struct ax_gp *gp, const double *theta, double *grad)
{
	int n = gp->n, d = gp->d, ld = gp->cap;
	struct ax_gp_hyper h;
	theta_to_hyper(d, theta, &h);
	if (grad)
		memset(grad, 0, (d + 2) * sizeof(double));
	double f = prior_term(d, theta, grad);
	if (n == 0)
		return f;
	double *K = gp->work;
	if (factor(gp, &h, K, ld))
		return 1e30;
	forward(K, ld, n, gp->y, gp->alpha);
	for (int i = 0; i < n; i++)
		f += 0.5 * gp->alpha[i] * gp->alpha[i] + log(K[i * ld + i]);
	f += 0.5 * n * log(2 * M_PI);
	if (!grad)
		return f;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	gsl_matrix_view m = gsl_matrix_view_array_with_tda(K, n, n, ld);
	gsl_vector_view a = gsl_vector_view_array(gp->alpha, n);
	/* alpha = K^-1 y from the factor, then K := K^-1. */
	gsl_vector_const_view yv = gsl_vector_const_view_array(gp->y, n);
	gsl_vector_memcpy(&a.vector, &yv.vector);
	gsl_linalg_cholesky_svx(&m.matrix, &a.vector);
	int rc = gsl_linalg_cholesky_invert(&m.matrix);
	gsl_set_error_handler(old);
	if (rc)
		return 1e30;
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++)
			K[i * ld + j] -= gp->alpha[i] * gp->alpha[j];
	nll_grad(gp, &h, K, ld, grad);
	return f;
}

struct fit_ctx {
	struct ax_gp *gp;
};

static double f_min(const gsl_vector *x, void *p)
{
	struct fit_ctx *c = p;
	return ax_gp_nll(c->gp, x->data, NULL);
}

static void df_min(const gsl_vector *x, void *p, gsl_vector *g)
{
	struct fit_ctx *c = p;
	ax_gp_nll(c->gp, x->data, g->data);
}

static void fdf_min(const gsl_vector *x, void *p, double *f, gsl_vector *g)
{
	struct fit_ctx *c = p;
	*f = ax_gp_nll(c->gp, x->data, g->data);
}

/* One BFGS run from th (updated in place); returns the final value. */
static double bfgs(struct ax_gp *gp, double *th, int max_iter)
{
	int m = gp->d + 2;
	struct fit_ctx c = {gp};
	gsl_multimin_function_fdf fn = {f_min, df_min, fdf_min, (size_t)m, &c};
	gsl_vector_view x = gsl_vector_view_array(th, m);
	gsl_multimin_fdfminimizer *s = gsl_multimin_fdfminimizer_alloc(
	    gsl_multimin_fdfminimizer_vector_bfgs2, m);
	if (!s)
		return 1e30;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	gsl_multimin_fdfminimizer_set(s, &fn, &x.vector, 0.1, 0.1);
	for (int it = 0; it < max_iter; it++) {
		if (gsl_multimin_fdfminimizer_iterate(s))
			break;
		if (gsl_multimin_test_gradient(s->gradient, 1e-3) !=
		    GSL_CONTINUE)
			break;
	}
	gsl_set_error_handler(old);
	double f = s->f;
	memcpy(th, s->x->data, m * sizeof(double));
	gsl_multimin_fdfminimizer_free(s);
	return isfinite(f) ? f : 1e30;
}

int ax_gp_fit(struct ax_gp *gp, int restarts, uint64_t seed, int max_iter)
{
	int d = gp->d, m = d + 2;
	if (gp->n < 2)
		return refactor(gp);
	double best[AX_GP_MAXD + 2], th[AX_GP_MAXD + 2];
	double fbest = 1e30;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		return AX_ENOMEM;
	gsl_rng_set(rng, (unsigned long)seed);
	struct ax_gp_hyper start;
	for (int r = 0; r < (restarts < 1 ? 1 : restarts); r++) {
		if (r == 0) {
			start = gp->h;
		} else if (r == 1) {
			set_default_hyper(&start, d);
		} else {
			set_default_hyper(&start, d);
			for (int i = 0; i < d; i++)
				start.ls[i] = exp(PRIOR_LS_MU +
						  gsl_ran_gaussian(rng, 1.0));
		}
		hyper_to_theta(&start, th);
		double f = bfgs(gp, th, max_iter);
		if (f < fbest) {
			fbest = f;
			memcpy(best, th, m * sizeof(double));
		}
	}
	gsl_rng_free(rng);
	if (fbest < 1e30)
		theta_to_hyper(d, best, &gp->h);
	return refactor(gp);
}

double ax_gp_loo_lpd(struct ax_gp *gp)
{
	int n = gp->n, ld = gp->cap;
	if (n < 2)
		return -INFINITY;
	/* K^-1 from the factor (GSL reads the lower triangle), alpha. */
	for (int i = 0; i < n; i++)
		memcpy(gp->work + (size_t)i * ld, gp->L + (size_t)i * ld,
		       (size_t)(i + 1) * sizeof(double));
	ax_gp_alpha(gp, gp->alpha);
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	gsl_matrix_view m = gsl_matrix_view_array_with_tda(
	    gp->work, (size_t)n, (size_t)n, (size_t)ld);
	int rc = gsl_linalg_cholesky_invert(&m.matrix);
	gsl_set_error_handler(old);
	if (rc)
		return -INFINITY;
	/* Held out, point i's residual is alpha_i / Kinv_ii and its
	 * variance 1 / Kinv_ii (Rasmussen & Williams, eq. 5.12). */
	double s = 0;
	for (int i = 0; i < n; i++) {
		double kii = gp->work[(size_t)i * ld + i];
		if (!(kii > 0))
			return -INFINITY;
		double r = gp->alpha[i] / kii, v = 1 / kii;
		s += -0.5 * (log(2 * M_PI * v) + r * r / v);
	}
	return s - n * log(gp->ys);
}

void ax_gp_alpha(const struct ax_gp *gp, double *out)
{
	/* Back substitution with L^T: alpha = L^-T beta. */
	int n = gp->n, ld = gp->cap;
	for (int i = n - 1; i >= 0; i--) {
		double s = gp->beta[i];
		for (int j = i + 1; j < n; j++)
			s -= gp->L[(size_t)j * ld + i] * out[j];
		out[i] = s / gp->L[(size_t)i * ld + i];
	}
}

const double *ax_gp_chol(const struct ax_gp *gp, int *ld)
{
	*ld = gp->cap;
	return gp->L;
}

const double *ax_gp_beta(const struct ax_gp *gp) { return gp->beta; }

const double *ax_gp_x(const struct ax_gp *gp, int i)
{
	return gp->X + (size_t)i * gp->d;
}

double ax_gp_y_mean(const struct ax_gp *gp) { return gp->ym; }

double ax_gp_y_scale(const struct ax_gp *gp) { return gp->ys; }

double ax_gp_sf2(const struct ax_gp *gp) { return gp->h.sf2; }

double ax_ei(double mean, double sd, double best)
{
	if (!(sd > 0))
		return best > mean ? best - mean : 0;
	double z = (best - mean) / sd;
	return (best - mean) * gsl_cdf_ugaussian_P(z) +
	       sd * gsl_ran_ugaussian_pdf(z);
}

double ax_log_ei(double mean, double sd, double best)
{
	if (!(sd > 0))
		return best > mean ? log(best - mean) : -INFINITY;
	double z = (best - mean) / sd;
	if (z > -5)
		return log(sd) + log(z * gsl_cdf_ugaussian_P(z) +
				     gsl_ran_ugaussian_pdf(z));
	/* Far tail: z*Phi(z) + phi(z) = phi(z) (1 - t m(t)), t = -z, with
	 * m the Mills ratio 1/hazard(t); below t = 40 that difference keeps
	 * enough digits, beyond it the asymptotic series takes over. */
	double t = -z, logphi = -0.5 * t * t - 0.9189385332046727;
	double tail;
	if (t < 40) {
		tail = 1 - t / gsl_sf_hazard(t);
	} else {
		double u = 1 / (t * t);
		tail = u * (1 - 3 * u * (1 - 5 * u));
	}
	return log(sd) + logphi + log(tail);
}
