/* suites/attention_ref.c - attention shapes, limits, CPU reference, checker. */
#include "suites/attention_ref.h"
#include "suites/conv_ref.h" /* input filling */

#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS32 1.1920928955078125e-07 /* 2^-23 */
#define EPS16 9.765625e-04	     /* 2^-10 */

void ax_attention_point_from_params(const struct ax_params *p,
				    struct ax_attention_point *pt)
{
	memset(pt, 0, sizeof(*pt));
	ax_params_store(p, pt);
	pt->sh.f16 = pt->dtype == 1;
}

void ax_attention_shape_from_params(const struct ax_params *p,
				    struct ax_attention_shape *s)
{
	struct ax_attention_point pt;
	ax_attention_point_from_params(p, &pt);
	*s = pt.sh;
}

void ax_attention_tiles_from_params(const struct ax_params *p,
				    struct ax_attention_tiles *t)
{
	struct ax_attention_point pt;
	ax_attention_point_from_params(p, &pt);
	*t = pt.t;
}

size_t ax_attention_q_count(const struct ax_attention_shape *s)
{
	return (size_t)(s->batch * s->heads * s->sq * s->d);
}

size_t ax_attention_kv_count(const struct ax_attention_shape *s)
{
	return (size_t)(s->batch * s->heads * s->skv * s->d);
}

int64_t ax_attention_visible(const struct ax_attention_shape *s, int64_t i)
{
	if (!s->causal)
		return s->skv;
	int64_t n = i + (s->skv - s->sq) + 1;
	return n < 0 ? 0 : (n > s->skv ? s->skv : n);
}

double ax_attention_pairs(const struct ax_attention_shape *s)
{
	if (!s->causal)
		return (double)s->sq * (double)s->skv;
	double pairs = 0.0;
	for (int64_t i = 0; i < s->sq; i++)
		pairs += (double)ax_attention_visible(s, i);
	return pairs;
}

double ax_attention_flops(const struct ax_attention_shape *s)
{
	return 4.0 * (double)s->d * (double)s->batch * (double)s->heads *
	       ax_attention_pairs(s);
}

uint32_t ax_attention_invocations(const struct ax_attention_tiles *t)
{
	return t->br * t->tpr;
}

size_t ax_attention_shared_bytes(const struct ax_attention_shape *s,
				 const struct ax_attention_tiles *t)
{
	/* K and V blocks, scores, partial maxima and sums (the queries
	 * stay in registers). */
	size_t floats = 2 * (size_t)t->bc * (size_t)s->d +
			(size_t)t->br * t->bc + 2 * (size_t)t->br * t->tpr;
	return floats * sizeof(float);
}

static int check_tiles(const struct ax_attention_shape *s,
		       const struct ax_attention_tiles *t,
		       const VkPhysicalDeviceLimits *lim, char *why,
		       size_t whylen)
{
	if (s->d % (4 * (int64_t)t->tpr) != 0)
		return ax_errf(why, whylen, AX_EINVAL,
			       "head_dim %lld must be a multiple "
			       "of 4*tpr = %u (each of the tpr invocations of "
			       "a row owns whole vec4 column groups); pick a "
			       "smaller tpr",
			       (long long)s->d, 4 * t->tpr);
	uint32_t inv = ax_attention_invocations(t);
	uint32_t maxinv = lim->maxComputeWorkGroupInvocations;
	if (inv > maxinv || inv > lim->maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "br*tpr = %u invocations per "
			       "workgroup exceeds "
			       "maxComputeWorkGroupInvocations %u or "
			       "maxComputeWorkGroupSize[0] %u; lower br or "
			       "tpr",
			       inv, maxinv, lim->maxComputeWorkGroupSize[0]);
	size_t shm = ax_attention_shared_bytes(s, t);
	if (shm > lim->maxComputeSharedMemorySize)
		return ax_errf(why, whylen, AX_EINVAL,
			       "tiles need (2*bc*head_dim + br*bc + "
			       "2*br*tpr) * 4 = %zu "
			       "bytes of shared memory, over "
			       "maxComputeSharedMemorySize %u; lower br or bc",
			       shm, lim->maxComputeSharedMemorySize);
	return 0;
}

int ax_attention_check_limits(const struct ax_attention_shape *s,
			      const struct ax_attention_tiles *t,
			      const VkPhysicalDeviceLimits *lim, char *why,
			      size_t whylen)
{
	int rc = check_tiles(s, t, lim, why, whylen);
	if (rc)
		return rc;
	size_t esz = s->f16 ? 2 : 4;
	size_t big = ax_attention_q_count(s) > ax_attention_kv_count(s)
			 ? ax_attention_q_count(s)
			 : ax_attention_kv_count(s);
	if (big * esz > lim->maxStorageBufferRange || big * esz > UINT32_MAX)
		return ax_errf(why, whylen, AX_EINVAL,
			       "a %zu-byte Q/K/V/O buffer is over "
			       "maxStorageBufferRange %u; lower batch, heads "
			       "or the sequence lengths",
			       big * esz, lim->maxStorageBufferRange);
	uint64_t gx = ((uint64_t)s->sq + t->br - 1) / t->br;
	const uint32_t *mc = lim->maxComputeWorkGroupCount;
	if (gx > mc[0] || (uint64_t)s->heads > mc[1] ||
	    (uint64_t)s->batch > mc[2])
		return ax_errf(why, whylen, AX_EINVAL,
			       "%llu x %lld x %lld workgroups "
			       "(seq_q/br, heads, batch) exceed "
			       "maxComputeWorkGroupCount %ux%ux%u; raise br or "
			       "lower heads/batch",
			       (unsigned long long)gx, (long long)s->heads,
			       (long long)s->batch, mc[0], mc[1], mc[2]);
	return 0;
}

/* Logits of the visible keys of one row into lg[], returns their max;
 * *asum_max gets the largest sum |q*k| * scale (the logits' error scale). */
static double row_logits(const struct ax_attention_shape *s, const float *q,
			 const float *k, int64_t nvis, double scale, double *lg,
			 double *asum_max)
{
	double m = -INFINITY, amax = 0.0;
	for (int64_t j = 0; j < nvis; j++) {
		const float *kj = k + j * s->d;
		double acc = 0.0, asum = 0.0;
		for (int64_t d = 0; d < s->d; d++) {
			double prod = (double)q[d] * (double)kj[d];
			acc += prod;
			asum += fabs(prod);
		}
		lg[j] = acc * scale;
		m = lg[j] > m ? lg[j] : m;
		amax = asum * scale > amax ? asum * scale : amax;
	}
	*asum_max = amax;
	return m;
}

void ax_attention_ref_row(const struct ax_attention_shape *s, const float *q,
			  const float *k, const float *v, int64_t bh, int64_t i,
			  double scale, double *out, double *lg,
			  double *tol_scale)
{
	int64_t nvis = ax_attention_visible(s, i);
	const float *qi = q + (bh * s->sq + i) * s->d;
	const float *kb = k + bh * s->skv * s->d;
	const float *vb = v + bh * s->skv * s->d;
	double asum = 0.0, vmax = 0.0, sum = 0.0;
	double m = row_logits(s, qi, kb, nvis, scale, lg, &asum);
	memset(out, 0, (size_t)s->d * sizeof(double));
	for (int64_t j = 0; j < nvis; j++) {
		double pj = exp(lg[j] - m);
		sum += pj;
		for (int64_t d = 0; d < s->d; d++) {
			double vj = vb[j * s->d + d];
			out[d] += pj * vj;
			vmax = fabs(vj) > vmax ? fabs(vj) : vmax;
		}
	}
	for (int64_t d = 0; sum > 0.0 && d < s->d; d++)
		out[d] /= sum;
	/* Logit errors (D-term fp32 dots) shift the weights relatively by
	 * about sqrt(D) * eps * asum; the Skv-term sums of weights and of
	 * p*v add about sqrt(Skv) * eps; exp adds a few ulps.  On lavapipe
	 * the worst error measures about 1/50 of this line; a wrong kernel
	 * (a lost block, a bad rescale) is off by a large fraction of
	 * max|v|. */
	if (tol_scale)
		*tol_scale = vmax * EPS32 *
			     (sqrt((double)s->d) * asum +
			      2.0 * sqrt((double)(nvis ? nvis : 1)) + 8.0);
}

static int check_row(const struct ax_attention_shape *s, const float *q,
		     const float *k, const float *v, const float *o,
		     int64_t row, double *ref, double *lg, char *why,
		     size_t whylen)
{
	int64_t bh = row / s->sq, i = row % s->sq;
	double tsc;
	ax_attention_ref_row(s, q, k, v, bh, i, 1.0 / sqrt((double)s->d), ref,
			     lg, &tsc);
	const float *got = o + row * s->d;
	for (int64_t d = 0; d < s->d; d++) {
		double tol = tsc + (s->f16 ? EPS16 * fabs(ref[d]) : 0.0);
		if (fabs((double)got[d] - ref[d]) <= tol)
			continue;
		return ax_errf(why, whylen, AX_EVERIFY,
			       "output (batch %lld, head %lld, "
			       "query %lld, column %lld) is %.9g, the "
			       "reference is %.9g (|diff| %.3g > tolerance "
			       "%.3g)",
			       (long long)(bh / s->heads),
			       (long long)(bh % s->heads), (long long)i,
			       (long long)d, got[d], ref[d],
			       fabs((double)got[d] - ref[d]), tol);
	}
	return 0;
}

int ax_attention_ref_verify(const struct ax_attention_shape *s, const float *q,
			    const float *k, const float *v, const float *o,
			    double max_macs, char *why, size_t whylen)
{
	int64_t rows = s->batch * s->heads * s->sq;
	double macs = ax_attention_flops(s) / 2.0;
	int64_t step = 1;
	if (macs > max_macs)
		step = ((int64_t)(macs / max_macs) + 1) | 1;
	double *ref = malloc((size_t)s->d * sizeof(double));
	double *lg = malloc((size_t)s->skv * sizeof(double));
	int rc = 0;
	if (!ref || !lg)
		rc = ax_errf(why, whylen, AX_ENOMEM, "out of memory");
	for (int64_t r = 0; r < rows && !rc; r += step)
		rc = check_row(s, q, k, v, o, r, ref, lg, why, whylen);
	if (!rc)
		rc = check_row(s, q, k, v, o, rows - 1, ref, lg, why, whylen);
	free(ref);
	free(lg);
	return rc;
}

/* Values in [-1, 1), Q scaled by 4 so that the softmax is peaked (logits
 * with a spread of about 1.3) and the online maximum matters; a power of
 * two keeps fp16 values exact. */
void ax_attention_case_inputs(const struct ax_attention_shape *s, float *q,
			      float *k, float *v)
{
	size_t nq = ax_attention_q_count(s), nkv = ax_attention_kv_count(s);
	ax_conv_fill_inputs(q, nq, 0x71756572ull, s->f16);
	for (size_t i = 0; i < nq; i++)
		q[i] *= 4.0f;
	ax_conv_fill_inputs(k, nkv, 0x6b657973ull, s->f16);
	ax_conv_fill_inputs(v, nkv, 0x76616c73ull, s->f16);
}
