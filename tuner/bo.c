/*
 * tuner/bo.c - Bayesian optimisation: GP on log(cost), log-EI times a
 * feasibility estimate, maximised over the untried points.
 *
 * Cost model.  Refitting hyperparameters and recomputing the posterior of
 * every candidate is O(N n^2); doing that at every step would cost far more
 * than the 50 ms a proposal may take.  So the hyperparameters are refitted
 * at every success while n <= 30 and then whenever n has grown by 20 %;
 * in between each new observation is added in O(n^2) (ax_gp_append) and
 * every candidate's posterior is updated in O(n): the candidate keeps
 * v = L^-1 k(X, x) (one float per observation), so a new observation only
 * adds one entry to v, one term to the mean (v . beta) and one to the
 * explained variance (v . v).
 *
 * Failures never reach the time model.  The feasibility estimate is a
 * kernel-weighted vote of the neighbours, with the overall success rate as
 * its prior: P(ok | x) = (p0 + S_ok(x)) / (1 + S_ok(x) + S_fail(x)), where
 * S sums the GP's correlation to the successful / failed points.  Far from
 * any failure it is a constant and leaves the EI ranking alone.
 *
 * With options.local_every = k, every k-th proposal is local: the
 * best-scoring untried point that differs from the best measured one in
 * at most two parameters.  GPU landscapes have isolated optima the smooth
 * model cannot predict (convolution_milo/A100: one configuration within
 * 5 %, every one-parameter neighbour 20 % or more slower); with k = 3 and
 * no early stop, 85 % of seeds find it by 220 evaluations (40 % without).
 * It is off by default because the model's EI is below the stop threshold
 * long before: even with 22 instead of 10 evaluations per parameter
 * before it may stop (giving up most savings on the flat landscapes), the
 * default rule ends at 1.037 x the optimum there against 1.000 without
 * early stop (bench_tuner -L 3 -M N measures it).  The stop rule always
 * sees the EI maximised over every untried point.
 *
 * Transfer (options.prior, tuner/prior.h).  With another session's model
 * as a prior, the initial design opens with that session's best points
 * that exist here (5), then a Latin hypercube of 5 instead of 10.  At every
 * refit two models are fitted to this session's log costs y: the cold one on y,
 * and a warm one on the residual y - b m(x), where m is the prior's mean and b
 * the least-squares slope of y on m, clamped to [0, 3] (a device twice as
 * sensitive to a parameter as the other still transfers; a slope below 0
 * says the prior misleads).  The one that predicts this session's own
 * measurements better, by leave-one-out log predictive density (closed
 * form, ax_gp_loo_lpd) with a margin of one nat for the warm one's fitted
 * slope, makes the proposals until the next refit.  Cross-validation, not
 * the marginal likelihood: the likelihood rewards the warm model for the
 * global trend every GPU shares (tiny blocks are slow) even where the
 * prior's optimum is elsewhere, and predicting a held-out measurement is
 * the test that matters.  It is also there from the first fit, on the
 * initial design alone.  So a misleading prior costs its few initial
 * points and is then set aside by the data, and a good one lets a dozen
 * measurements place the optimum.  Without a prior this is the cold model
 * alone, as before.
 *
 * Spaces with more than 200 000 untried points are not scanned: each
 * proposal scores 2 000 random untried points and climbs through
 * one-parameter neighbours from the best of them and from the best measured
 * points.
 */
#include "tuner/gp.h"
#include "tuner/prior.h"
#include "tuner/strategy_impl.h"

#include "core/error.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POOL_MAX 200000
#define LS_SAMPLES 2000
#define LS_STARTS 8
#define LS_STEPS 20
#define LHS_TRIES 10
/* The lead in leave-one-out log predictive density, in nats, the warm
 * model needs over the cold one: the price of its fitted slope. */
#define WARM_MARGIN 1.0
#define SLOPE_MAX 3.0

struct bo {
	struct ax_gp *gp;	   /* the model in use: cold, or warm */
	struct ax_gp *cold, *warm; /* with a prior: both, refitted together */
	const struct ax_prior *prior;
	double slope;	/* on the prior's mean in the model in use (0: cold) */
	int d;		/* GP inputs: encoded columns, at least 1 */
	size_t *ok_idx; /* successful points, tell order */
	double *ok_y;	/* their log cost */
	size_t nok;
	size_t *fail_idx;
	size_t nfail;
	size_t *init; /* initial design */
	size_t ninit, init_pos;
	int fitted;
	size_t fit_n; /* successes at the last hyperparameter fit */
	unsigned long fits;
	unsigned long gen; /* GP generation the pool was built for */
	int large;	   /* local-search mode */
	size_t *pool;	   /* candidates (untried when built) */
	size_t npool;
	float *V;	 /* npool x vcap: L^-1 k per candidate */
	int vcap, vn;	 /* columns allocated / valid */
	size_t fails_in; /* failures summed into kfail */
	double *mu, *s2, *kok, *kfail;
	double *kv; /* scratch */
	size_t *nb;
	size_t nbcap;
	unsigned long nprop; /* model-based proposals so far */
	/* Two objectives (ParEGO, tuner/strategy.h): each success's log
	 * time and log energy; ok_y holds their scalarisation under the
	 * weight of the current proposal. */
	double *ok_l1, *ok_l2;
	double sweep; /* the weight sweep's position in [0, 1) */
};

static void point_x(const struct ax_tuner *t, const struct bo *b, size_t i,
		    double *x)
{
	int e = ax_space_enc_dims(t->s);
	if (e == 0)
		x[0] = 0;
	else
		memcpy(x, ax_space_encoded(t->s, i), e * sizeof(double));
	(void)b;
}

static double dist2(const double *a, const double *b, int d)
{
	double s = 0;
	for (int i = 0; i < d; i++)
		s += (a[i] - b[i]) * (a[i] - b[i]);
	return s;
}

/* Untried point nearest (encoded) to target, not in used[0..nused). */
static long snap(const struct ax_tuner *t, const struct bo *b,
		 const double *target, const size_t *used, size_t nused)
{
	long best = -1;
	double bd = INFINITY, x[AX_SPACE_MAX_ENC + 1];
	for (size_t i = 0; i < t->n; i++) {
		if (t->state[i] != AX_PS_UNTRIED)
			continue;
		point_x(t, b, i, x);
		double dd = dist2(x, target, b->d);
		if (dd >= bd)
			continue;
		int dup = 0;
		for (size_t j = 0; j < nused && !dup; j++)
			dup = used[j] == i;
		if (!dup) {
			bd = dd;
			best = (long)i;
		}
	}
	return best;
}

static double min_pair_dist(const struct ax_tuner *t, const struct bo *b,
			    const size_t *pts, size_t m)
{
	double best = INFINITY, x[AX_SPACE_MAX_ENC + 1],
	       y[AX_SPACE_MAX_ENC + 1];
	for (size_t i = 0; i < m; i++) {
		point_x(t, b, pts[i], x);
		for (size_t j = 0; j < i; j++) {
			point_x(t, b, pts[j], y);
			double dd = dist2(x, y, b->d);
			if (dd < best)
				best = dd;
		}
	}
	return best;
}

/* Maximin Latin hypercube over the level indices, snapped to distinct
 * valid points; the best of a few tries by smallest pairwise distance. */
static int initial_design(struct ax_tuner *t, struct bo *b, size_t m)
{
	int D = ax_space_ndims(t->s);
	size_t *cur = malloc(m * sizeof(size_t));
	size_t *perm = malloc(m * D * sizeof(size_t));
	b->init = malloc((m + AX_PRIOR_TOP_MAX) * sizeof(size_t));
	if (!cur || !perm || !b->init) {
		free(cur);
		free(perm);
		return AX_ENOMEM;
	}
	double work = (double)t->n * (double)m * (b->d + 1);
	int tries = work > 0 ? (int)(2e8 / work) : LHS_TRIES;
	tries = tries < 1 ? 1 : (tries > LHS_TRIES ? LHS_TRIES : tries);
	double best = -1;
	for (int r = 0; r < tries; r++) {
		for (int q = 0; q < D; q++) {
			for (size_t i = 0; i < m; i++)
				perm[q * m + i] = i;
			gsl_ran_shuffle(t->rng, perm + q * m, m,
					sizeof(size_t));
		}
		size_t got = 0;
		for (size_t i = 0; i < m; i++) {
			uint32_t li[AX_MAX_PARAMS];
			double target[AX_SPACE_MAX_ENC + 1] = {0};
			for (int q = 0; q < D; q++) {
				const double *lev;
				int nl = ax_space_dim_levels(t->s, q, &lev);
				double u = (perm[q * m + i] +
					    gsl_rng_uniform(t->rng)) /
					   m;
				int l = (int)(u * nl);
				li[q] = (uint32_t)(l < nl ? l : nl - 1);
			}
			ax_space_encode_levels(t->s, li, target);
			long p = snap(t, b, target, cur, got);
			if (p >= 0)
				cur[got++] = (size_t)p;
		}
		double md = got > 1 ? min_pair_dist(t, b, cur, got) : 0;
		if (md > best) {
			best = md;
			memcpy(b->init, cur, got * sizeof(size_t));
			b->ninit = got;
		}
	}
	free(cur);
	free(perm);
	return 0;
}

/* The prior's best points that exist here open the design: measured
 * first, they are where a correlated device is fastest too. */
static void prior_first(struct ax_tuner *t, struct bo *b)
{
	size_t top[AX_PRIOR_TOP_MAX];
	int want = t->opt.prior_top ? t->opt.prior_top : AX_PRIOR_TOP;
	size_t k = ax_prior_top(b->prior,
				want < 0		  ? 0
				: want > AX_PRIOR_TOP_MAX ? AX_PRIOR_TOP_MAX
							  : (size_t)want,
				top);
	memmove(b->init + k, b->init, b->ninit * sizeof(size_t));
	memcpy(b->init, top, k * sizeof(size_t));
	b->ninit += k;
}

static void bo_destroy(struct ax_tuner *t)
{
	struct bo *b = t->priv;
	if (!b)
		return;
	if (b->prior) {
		ax_gp_destroy(b->cold);
		ax_gp_destroy(b->warm);
	} else {
		ax_gp_destroy(b->gp);
	}
	free(b->ok_idx);
	free(b->ok_y);
	free(b->ok_l1);
	free(b->ok_l2);
	free(b->fail_idx);
	free(b->init);
	free(b->pool);
	free(b->V);
	free(b->mu);
	free(b->s2);
	free(b->kok);
	free(b->kfail);
	free(b->kv);
	free(b->nb);
	free(b);
	t->priv = NULL;
}

static int bo_init(struct ax_tuner *t)
{
	struct bo *b = calloc(1, sizeof(*b));
	if (!b)
		return AX_ENOMEM;
	t->priv = b;
	int e = ax_space_enc_dims(t->s);
	b->d = e > 0 ? e : 1;
	/* Ten space-filling points: maximin designs favour the edges of the
	 * space, which on GPU kernels are mostly poor, so a longer design
	 * only delays the model (measured on the replay landscapes).  With a
	 * prior its best points take half of the ten.  On the recorded
	 * convolution pairs (bench/bench_transfer, 20 seeds; -i 10 measures
	 * the full hypercube) that took the median evaluations to within 5 %
	 * from 18 to 12 and from 25 to 16 on the two best-correlated pairs,
	 * from 58 to 56 on a misleading one, but from 22 to 35 on A4000 from
	 * W6600; and the misleading pair's best after 20 evaluations went
	 * from 1.451 to 1.210 x the optimum. */
	size_t m = t->opt.n_init > 0 ? (size_t)t->opt.n_init
		   : t->opt.prior    ? 5
				     : 10;
	if (m > t->n)
		m = t->n;
	b->nbcap = 4096;
	b->ok_idx = malloc(t->n * sizeof(size_t));
	b->ok_y = malloc(t->n * sizeof(double));
	b->fail_idx = malloc(t->n * sizeof(size_t));
	b->nb = malloc(b->nbcap * sizeof(size_t));
	/* A prior models time alone: two objectives search without it. */
	b->prior = t->cost2 ? NULL : t->opt.prior;
	if (t->cost2) {
		b->ok_l1 = malloc(t->n * sizeof(double));
		b->ok_l2 = malloc(t->n * sizeof(double));
		b->sweep = gsl_rng_uniform(t->rng);
	}
	int rc = ax_gp_create(&b->gp, b->d);
	if (!rc && b->prior) {
		b->cold = b->gp;
		rc = ax_gp_create(&b->warm, b->d);
	}
	if (!rc && (!b->ok_idx || !b->ok_y || !b->fail_idx || !b->nb ||
		    (t->cost2 && (!b->ok_l1 || !b->ok_l2))))
		rc = AX_ENOMEM;
	if (!rc)
		rc = initial_design(t, b, m);
	if (!rc && b->prior)
		prior_first(t, b);
	return rc;
}

static int bo_tell(struct ax_tuner *t, size_t index, int ok, double cost)
{
	struct bo *b = t->priv;
	if (ok) {
		if (t->cost2) {
			b->ok_l1[b->nok] = log(cost);
			b->ok_l2[b->nok] = log(t->cost2[index]);
		}
		b->ok_idx[b->nok] = index;
		b->ok_y[b->nok++] = log(cost);
	} else {
		b->fail_idx[b->nfail++] = index;
	}
	return 0;
}

/* The prior's mean at point i times the slope in use, in the standardised
 * units of the model in use: what the model adds to its own mean. */
static double offset(const struct bo *b, size_t i)
{
	if (b->slope == 0)
		return 0;
	return b->slope * ax_prior_mean(b->prior, i) / ax_gp_y_scale(b->gp);
}

/* What a model with this slope on the prior is fitted on for success k:
 * the log cost, less the scaled prior mean. */
static double target(const struct bo *b, size_t k, double slope)
{
	double y = b->ok_y[k];
	return slope == 0 ? y
			  : y - slope * ax_prior_mean(b->prior, b->ok_idx[k]);
}

/* Fit gp's hyperparameters on X and the targets under slope. */
static int fit_one(struct ax_tuner *t, struct bo *b, struct ax_gp *gp,
		   const double *X, double slope)
{
	size_t n = b->nok;
	double *y = calloc(n ? n : 1, sizeof(double));
	if (!y)
		return AX_ENOMEM;
	for (size_t k = 0; k < n; k++)
		y[k] = target(b, k, slope);
	int rc = ax_gp_set_data(gp, X, y, (int)n);
	free(y);
	if (rc)
		return rc;
	/* Later fits start from the previous optimum, which moves little as
	 * data arrives, so a few BFGS steps suffice; each step costs an
	 * O(n^3) factorisation and inverse. */
	int restarts = n <= 40 ? 3 : (b->fits % 4 == 0 ? 2 : 1);
	int iters = n <= 30 ? 50 : (n <= 60 ? 30 : 10);
	return ax_gp_fit(gp, restarts, t->seed * 1000003u + b->fits, iters);
}

/* Least-squares slope of the log costs on the prior's mean, clamped to
 * [0, SLOPE_MAX]; 0 when the prior's mean does not vary over them. */
static double prior_slope(const struct bo *b)
{
	size_t n = b->nok;
	double mx = 0, my = 0, sxy = 0, sxx = 0;
	for (size_t k = 0; k < n; k++) {
		mx += ax_prior_mean(b->prior, b->ok_idx[k]);
		my += b->ok_y[k];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t k = 0; k < n; k++) {
		double dx = ax_prior_mean(b->prior, b->ok_idx[k]) - mx;
		sxy += dx * (b->ok_y[k] - my);
		sxx += dx * dx;
	}
	if (n < 3 || !(sxx > 1e-12))
		return 0;
	double s = sxy / sxx;
	return s < 0 ? 0 : (s > SLOPE_MAX ? SLOPE_MAX : s);
}

/* Hyperparameter fit on every success so far; with a prior, of both
 * models, keeping the one the data prefer (see the top). */
static int refit(struct ax_tuner *t, struct bo *b)
{
	size_t n = b->nok;
	double *X = malloc(n * b->d * sizeof(double));
	if (!X)
		return AX_ENOMEM;
	for (size_t i = 0; i < n; i++)
		point_x(t, b, b->ok_idx[i], X + i * b->d);
	b->fits++;
	int rc = fit_one(t, b, b->prior ? b->cold : b->gp, X, 0);
	double slope = b->prior ? prior_slope(b) : 0;
	if (!rc && slope > 0)
		rc = fit_one(t, b, b->warm, X, slope);
	free(X);
	if (rc)
		return rc;
	if (slope > 0 &&
	    ax_gp_loo_lpd(b->warm) - WARM_MARGIN > ax_gp_loo_lpd(b->cold)) {
		b->gp = b->warm;
		b->slope = slope;
	} else if (b->prior) {
		b->gp = b->cold;
		b->slope = 0;
	}
	if (b->prior)
		t->prior_slope = b->slope;
	b->fit_n = n;
	b->fitted = 1;
	return 0;
}

/* Add successes that arrived since the last sync to the GP. */
static int sync_gp(struct ax_tuner *t, struct bo *b)
{
	double x[AX_SPACE_MAX_ENC + 1];
	for (size_t i = (size_t)ax_gp_n(b->gp); i < b->nok; i++) {
		point_x(t, b, b->ok_idx[i], x);
		int rc = ax_gp_append(b->gp, x, target(b, i, b->slope));
		if (rc)
			return rc;
	}
	return 0;
}

static double corr(const struct bo *b, const double *x, const double *y)
{
	return ax_gp_kernel(b->gp, x, y) / ax_gp_sf2(b->gp);
}

/*
 * Posterior state of candidates pool[c0 .. c0+m), m <= 4: v = L^-1 k by
 * forward substitution, four candidates at a time so the four dot products
 * run as independent chains (the loop is latency-bound otherwise).
 */
static void pool_block(struct ax_tuner *t, struct bo *b, size_t c0, size_t m,
		       const double *L, int ld, const double *beta, int n)
{
	double x[AX_SPACE_MAX_ENC + 1], f[AX_SPACE_MAX_ENC + 1];
	double *k[4], *v[4], mu[4] = {0}, s2[4] = {0}, so[4] = {0};
	float *vc[4];
	double sf2 = ax_gp_sf2(b->gp);
	for (size_t q = 0; q < 4; q++) {
		size_t c = c0 + (q < m ? q : 0);
		k[q] = b->kv + q * 2 * (size_t)b->vcap;
		v[q] = k[q] + b->vcap;
		vc[q] = b->V + c * (size_t)b->vcap;
		point_x(t, b, b->pool[c], x);
		for (int j = 0; j < n; j++) {
			k[q][j] = ax_gp_kernel(b->gp, x, ax_gp_x(b->gp, j));
			so[q] += k[q][j];
		}
		double sf = 0;
		for (size_t r = 0; r < b->nfail && q < m; r++) {
			point_x(t, b, b->fail_idx[r], f);
			sf += corr(b, x, f);
		}
		if (q < m)
			b->kfail[c] = sf;
	}
	for (int i = 0; i < n; i++) {
		const double *row = L + (size_t)i * ld;
		double a0 = k[0][i], a1 = k[1][i], a2 = k[2][i], a3 = k[3][i];
		for (int j = 0; j < i; j++) {
			double r = row[j];
			a0 -= r * v[0][j];
			a1 -= r * v[1][j];
			a2 -= r * v[2][j];
			a3 -= r * v[3][j];
		}
		double a[4] = {a0, a1, a2, a3};
		for (size_t q = 0; q < 4; q++) {
			v[q][i] = a[q] / row[i];
			vc[q][i] = (float)v[q][i];
			mu[q] += v[q][i] * beta[i];
			s2[q] += v[q][i] * v[q][i];
		}
	}
	for (size_t q = 0; q < m; q++) {
		b->mu[c0 + q] = mu[q];
		b->s2[c0 + q] = s2[q];
		b->kok[c0 + q] = so[q] / sf2;
	}
}

/* Recompute every candidate's posterior state from scratch. */
static int build_pool(struct ax_tuner *t, struct bo *b)
{
	int n = ax_gp_n(b->gp), ld;
	const double *L = ax_gp_chol(b->gp, &ld);
	const double *beta = ax_gp_beta(b->gp);
	size_t np = t->nuntried;
	b->large = np > POOL_MAX;
	b->gen = ax_gp_generation(b->gp);
	b->vn = n;
	b->fails_in = b->nfail;
	if (b->large)
		return 0;
	int vcap = n + n / 4 + 32;
	free(b->V);
	b->V = malloc(np * (size_t)vcap * sizeof(float));
	size_t *pool = realloc(b->pool, (np ? np : 1) * sizeof(size_t));
	if (pool)
		b->pool = pool;
	double *arr[4] = {b->mu, b->s2, b->kok, b->kfail};
	for (int k = 0; k < 4; k++) {
		double *g = realloc(arr[k], (np ? np : 1) * sizeof(double));
		if (g)
			arr[k] = g;
	}
	b->mu = arr[0], b->s2 = arr[1], b->kok = arr[2], b->kfail = arr[3];
	double *kv = realloc(b->kv, (size_t)vcap * 8 * sizeof(double));
	if (kv)
		b->kv = kv;
	if (!b->V || !pool || !kv || !arr[0] || !arr[1] || !arr[2] || !arr[3])
		return AX_ENOMEM;
	b->vcap = vcap;
	b->npool = np;
	memcpy(b->pool, t->untried, np * sizeof(size_t));
	for (size_t c = 0; c < np; c += 4)
		pool_block(t, b, c, np - c < 4 ? np - c : 4, L, ld, beta, n);
	return 0;
}

/* Bring the pool up to the GP's observations and the failures told. */
static void update_pool(struct ax_tuner *t, struct bo *b)
{
	int n = ax_gp_n(b->gp), ld;
	const double *L = ax_gp_chol(b->gp, &ld);
	const double *beta = ax_gp_beta(b->gp);
	double x[AX_SPACE_MAX_ENC + 1], f[AX_SPACE_MAX_ENC + 1];
	for (int j = b->vn; j < n; j++) {
		const double *row = L + (size_t)j * ld, *xj = ax_gp_x(b->gp, j);
		for (size_t c = 0; c < b->npool; c++) {
			if (t->state[b->pool[c]] != AX_PS_UNTRIED)
				continue;
			point_x(t, b, b->pool[c], x);
			float *vc = b->V + c * (size_t)b->vcap;
			double k = ax_gp_kernel(b->gp, x, xj);
			double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
			int i = 0;
			for (; i + 4 <= j; i += 4) {
				s0 += row[i] * vc[i];
				s1 += row[i + 1] * vc[i + 1];
				s2 += row[i + 2] * vc[i + 2];
				s3 += row[i + 3] * vc[i + 3];
			}
			for (; i < j; i++)
				s0 += row[i] * vc[i];
			double v = (k - (s0 + s1) - (s2 + s3)) / row[j];
			vc[j] = (float)v;
			b->mu[c] += v * beta[j];
			b->s2[c] += v * v;
			b->kok[c] += k / ax_gp_sf2(b->gp);
		}
	}
	b->vn = n;
	for (; b->fails_in < b->nfail; b->fails_in++) {
		point_x(t, b, b->fail_idx[b->fails_in], f);
		for (size_t c = 0; c < b->npool; c++) {
			if (t->state[b->pool[c]] != AX_PS_UNTRIED)
				continue;
			point_x(t, b, b->pool[c], x);
			b->kfail[c] += corr(b, x, f);
		}
	}
}

static int need_refit(const struct bo *b)
{
	if (!b->fitted)
		return 1;
	if (b->nok <= b->fit_n)
		return 0;
	size_t step = b->fit_n / 5;
	return b->nok <= 30 || b->nok >= b->fit_n + (step ? step : 1);
}

static int sync_model(struct ax_tuner *t, struct bo *b)
{
	int rc;
	int rebuild = 0;
	if (need_refit(b)) {
		if ((rc = refit(t, b)))
			return rc;
		rebuild = 1;
	} else if ((rc = sync_gp(t, b))) {
		return rc;
	}
	if (ax_gp_generation(b->gp) != b->gen || ax_gp_n(b->gp) > b->vcap)
		rebuild = 1;
	if (!rebuild && b->large != (t->nuntried > POOL_MAX))
		rebuild = 1;
	if (rebuild)
		return build_pool(t, b);
	if (!b->large)
		update_pool(t, b);
	return 0;
}

/* log P(ok) from the kernel vote; 0 while nothing has failed. */
static double log_feasible(const struct bo *b, double kok, double kfail)
{
	if (b->nfail == 0)
		return 0;
	double p0 = (b->nok + 1.0) / (b->nok + b->nfail + 2.0);
	return log((p0 + kok) / (1.0 + kok + kfail));
}

static double best_std(const struct bo *b)
{
	double m = INFINITY;
	for (size_t i = 0; i < b->nok; i++)
		if (b->ok_y[i] < m)
			m = b->ok_y[i];
	return (m - ax_gp_y_mean(b->gp)) / ax_gp_y_scale(b->gp);
}

static double score_of(const struct bo *b, double mu, double s2, double kok,
		       double kfail, double best, double *lei)
{
	double sf2 = ax_gp_sf2(b->gp), var = sf2 - s2;
	if (var < 1e-10 * sf2)
		var = 1e-10 * sf2;
	*lei = ax_log_ei(mu, sqrt(var), best);
	return *lei + log_feasible(b, kok, kfail);
}

/* Point i differs from point j in at most two parameters. */
static int near(const struct ax_tuner *t, size_t i, size_t j)
{
	int diff = 0, D = ax_space_ndims(t->s);
	for (int d = 0; d < D && diff <= 2; d++)
		diff +=
		    ax_space_value(t->s, i, d) != ax_space_value(t->s, j, d);
	return diff <= 2;
}

/* This proposal searches around the incumbent (see the top). */
static int local_turn(const struct ax_tuner *t, struct bo *b)
{
	unsigned long k = (unsigned long)t->opt.local_every;
	return k > 0 && t->nok > 0 && b->nprop++ % k == k - 1;
}

/*
 * The best-scoring untried point, near the incumbent when local (all of
 * them when none is left there); *best_lei is the largest log-EI over
 * every untried point either way.
 */
static int ask_pool(struct ax_tuner *t, struct bo *b, size_t *index,
		    double *best_lei)
{
	double best = best_std(b), top = -INFINITY, ltop = -INFINITY;
	long arg = -1, larg = -1;
	int local = local_turn(t, b);
	*best_lei = -INFINITY;
	for (size_t c = 0; c < b->npool; c++) {
		if (t->state[b->pool[c]] != AX_PS_UNTRIED)
			continue;
		double lei,
		    sc = score_of(b, b->mu[c] + offset(b, b->pool[c]), b->s2[c],
				  b->kok[c], b->kfail[c], best, &lei);
		if (lei > *best_lei)
			*best_lei = lei;
		if (sc > top || arg < 0) {
			top = sc;
			arg = (long)c;
		}
		if (local && (sc > ltop || larg < 0) &&
		    near(t, b->pool[c], t->best_index)) {
			ltop = sc;
			larg = (long)c;
		}
	}
	if (larg >= 0)
		arg = larg;
	if (arg < 0)
		return AX_ENOTFOUND;
	*index = b->pool[arg];
	return 0;
}

/* Direct score of one point (large mode). */
static double score_direct(const struct ax_tuner *t, const struct bo *b,
			   size_t i, double best, double *lei)
{
	double x[AX_SPACE_MAX_ENC + 1], y[AX_SPACE_MAX_ENC + 1];
	double mean, var, kok = 0, kfail = 0;
	point_x(t, b, i, x);
	ax_gp_predict(b->gp, x, &mean, &var);
	double ys = ax_gp_y_scale(b->gp);
	double mu = (mean - ax_gp_y_mean(b->gp)) / ys + offset(b, i);
	double s2 = ax_gp_sf2(b->gp) - var / (ys * ys);
	if (b->nfail) {
		for (size_t q = 0; q < b->nok; q++)
			kok += corr(b, x, ax_gp_x(b->gp, (int)q));
		for (size_t q = 0; q < b->nfail; q++) {
			point_x(t, b, b->fail_idx[q], y);
			kfail += corr(b, x, y);
		}
	}
	return score_of(b, mu, s2, kok, kfail, best, lei);
}

/* Hill-climb on the score through untried one-parameter neighbours. */
static size_t climb(struct ax_tuner *t, struct bo *b, size_t start, double *sc,
		    double best, double *best_lei)
{
	size_t cur = start;
	for (int step = 0; step < LS_STEPS; step++) {
		size_t m = ax_space_neighbours(t->s, cur, b->nb, b->nbcap);
		size_t next = cur;
		for (size_t j = 0; j < m && j < b->nbcap; j++) {
			size_t p = b->nb[j];
			if (t->state[p] != AX_PS_UNTRIED)
				continue;
			double lei, s = score_direct(t, b, p, best, &lei);
			if (lei > *best_lei)
				*best_lei = lei;
			if (s > *sc) {
				*sc = s;
				next = p;
			}
		}
		if (next == cur)
			break;
		cur = next;
	}
	return cur;
}

static int ask_large(struct ax_tuner *t, struct bo *b, size_t *index,
		     double *best_lei)
{
	double best = best_std(b);
	size_t starts[LS_STARTS + 3];
	double ssc[LS_STARTS + 3];
	int ns = 0;
	*best_lei = -INFINITY;
	for (int i = 0; i < LS_STARTS; i++)
		ssc[i] = -INFINITY;
	for (int k = 0; k < LS_SAMPLES; k++) {
		size_t p = ax_tuner_random_untried(t), at = LS_STARTS;
		double lei, s = score_direct(t, b, p, best, &lei);
		if (lei > *best_lei)
			*best_lei = lei;
		for (int i = 0; i < LS_STARTS; i++)
			if (s > ssc[i] && (at == LS_STARTS || ssc[i] < ssc[at]))
				at = (size_t)i;
		if (at < LS_STARTS) {
			ssc[at] = s;
			starts[at] = p;
		}
	}
	for (int i = 0; i < LS_STARTS; i++)
		if (isfinite(ssc[i]))
			starts[ns++] = starts[i];
	/* The best measured points seed climbs too: their untried
	 * neighbours are often where the improvement is. */
	size_t top[3], nt = ax_tuner_top(t, 3, top);
	for (size_t i = 0; i < nt; i++)
		starts[ns++] = top[i];
	double bs = -INFINITY;
	long arg = -1;
	for (int i = 0; i < ns; i++) {
		double s =
		    t->state[starts[i]] == AX_PS_UNTRIED
			? score_direct(t, b, starts[i], best, &(double){0})
			: -INFINITY;
		size_t p = climb(t, b, starts[i], &s, best, best_lei);
		if (t->state[p] == AX_PS_UNTRIED && (s > bs || arg < 0)) {
			bs = s;
			arg = (long)p;
		}
	}
	if (arg < 0)
		return AX_ENOTFOUND;
	*index = (size_t)arg;
	return 0;
}

/* The range of v[0..n): *lo and its width (1 when flat). */
static void range_of(const double *v, size_t n, double *lo, double *w)
{
	double hi = -INFINITY;
	*lo = INFINITY;
	for (size_t k = 0; k < n; k++) {
		*lo = v[k] < *lo ? v[k] : *lo;
		hi = v[k] > hi ? v[k] : hi;
	}
	*w = hi > *lo ? hi - *lo : 1;
}

/*
 * ParEGO's scalarisation for the next proposal: the weight steps through
 * [0, 1) by the golden ratio (a low-discrepancy sweep: every stretch of
 * proposals spreads its weights over the whole front), every success is
 * rewritten as the augmented Chebyshev value under it, and the model is
 * refitted on those.
 */
static void scalarise(struct bo *b)
{
	const double rho = 0.05;
	double w = b->sweep, lo1, w1, lo2, w2;
	b->sweep = fmod(b->sweep + 0.6180339887498949, 1.0);
	range_of(b->ok_l1, b->nok, &lo1, &w1);
	range_of(b->ok_l2, b->nok, &lo2, &w2);
	for (size_t k = 0; k < b->nok; k++) {
		double x = w * (b->ok_l1[k] - lo1) / w1;
		double y = (1 - w) * (b->ok_l2[k] - lo2) / w2;
		b->ok_y[k] = (x > y ? x : y) + rho * (x + y);
	}
	b->fitted = 0;
}

static int bo_ask(struct ax_tuner *t, size_t *index)
{
	struct bo *b = t->priv;
	if (t->nuntried == 0)
		return AX_ENOTFOUND;
	while (b->init_pos < b->ninit) {
		size_t p = b->init[b->init_pos++];
		if (t->state[p] == AX_PS_UNTRIED) {
			*index = p;
			return 0;
		}
	}
	if (b->nok < 2) {
		/* Nothing to model yet (everything failed so far). */
		*index = ax_tuner_random_untried(t);
		return 0;
	}
	if (t->cost2)
		scalarise(b);
	int rc = sync_model(t, b);
	if (rc)
		return rc;
	double lei;
	rc = b->large ? ask_large(t, b, index, &lei)
		      : ask_pool(t, b, index, &lei);
	if (rc == AX_ENOTFOUND && t->nuntried) {
		*index = ax_tuner_random_untried(t);
		rc = 0;
	}
	/* EI in log-cost units is the expected relative gain. */
	t->last_ei = exp(lei) * ax_gp_y_scale(b->gp);
	t->ei_exact = !b->large;
	return rc;
}

static double bo_rank(struct ax_tuner *t, size_t index)
{
	struct bo *b = t->priv;
	if (b->nok < 2 || !b->fitted || sync_gp(t, b))
		return t->cost[index];
	double x[AX_SPACE_MAX_ENC + 1], mean, var;
	point_x(t, b, index, x);
	ax_gp_predict(b->gp, x, &mean, &var);
	return mean +
	       (b->slope == 0 ? 0 : b->slope * ax_prior_mean(b->prior, index));
}

const struct ax_strategy_ops ax_strategy_bo = {
    .name = "bo",
    .init = bo_init,
    .ask = bo_ask,
    .tell = bo_tell,
    .rank = bo_rank,
    .destroy = bo_destroy,
};
