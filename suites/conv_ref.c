/* suites/conv_ref.c - conv shapes, limits, CPU reference and checker. */
#include "suites/conv_ref.h"
#include "suites/data.h"

#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS32 1.1920928955078125e-07 /* 2^-23 */
#define EPS16 9.765625e-04	     /* 2^-10 */

int ax_conv_shape_from_params(const struct ax_params *p,
			      struct ax_conv_shape *s, char *why, size_t whylen)
{
	struct ax_conv_point pt;
	memset(&pt, 0, sizeof(pt));
	ax_params_store(p, &pt);
	*s = pt.sh;
	s->nhwc = pt.layout == 1;
	s->f16 = pt.dtype == 1;
	/* Extent of the dilated filter, which must fit in the padded input. */
	int64_t er = s->dil * (s->r - 1) + 1, es = s->dil * (s->s - 1) + 1;
	int64_t ph = s->h + 2 * s->pad, pw = s->w + 2 * s->pad;
	if (er > ph || es > pw)
		return ax_errf(why, whylen, AX_EINVAL,
			       "the dilated filter is %lldx%lld "
			       "(dilation %lld) but the padded input is only "
			       "%lldx%lld; use a smaller r, s or dilation, or "
			       "more pad",
			       (long long)er, (long long)es, (long long)s->dil,
			       (long long)ph, (long long)pw);
	s->p = (ph - er) / s->stride + 1;
	s->q = (pw - es) / s->stride + 1;
	return 0;
}

void ax_conv_tiles_from_params(const struct ax_params *p,
			       struct ax_conv_tiles *t)
{
	struct ax_conv_point pt;
	memset(&pt, 0, sizeof(pt));
	ax_params_store(p, &pt);
	*t = pt.t;
}

size_t ax_conv_input_count(const struct ax_conv_shape *s)
{
	return (size_t)(s->n * s->c * s->h * s->w);
}

size_t ax_conv_weight_count(const struct ax_conv_shape *s)
{
	return (size_t)(s->k * s->c * s->r * s->s);
}

size_t ax_conv_output_count(const struct ax_conv_shape *s)
{
	return (size_t)(s->n * s->k * s->p * s->q);
}

double ax_conv_flops(const struct ax_conv_shape *s)
{
	return 2.0 * (double)s->n * (double)s->k * (double)s->p * (double)s->q *
	       (double)s->c * (double)s->r * (double)s->s;
}

uint32_t ax_conv_invocations(const struct ax_conv_tiles *t)
{
	return (t->bm / t->tm) * (t->bn / t->tn);
}

size_t ax_conv_shared_bytes(const struct ax_conv_tiles *t)
{
	return ((size_t)t->bm + t->bn) * t->bk * sizeof(float);
}

/* share=subgroup: lanes work in groups of 8 along the pixels, sharing
 * their output channels; no shared memory is staged. */
static int check_subgroup_tiles(const struct ax_conv_tiles *t, char *why,
				size_t whylen)
{
	if ((t->bn / t->tn) % 8)
		return ax_errf(why, whylen, AX_EINVAL,
			       "share=subgroup: tile_pq/tn = %u invocations "
			       "along the pixels must be a multiple of 8 "
			       "(lanes work in groups of 8); raise tile_pq "
			       "or lower tn",
			       t->bn / t->tn);
	if (t->mr > t->tm)
		return ax_errf(why, whylen, AX_EINVAL,
			       "share=subgroup: mr=%u channels per "
			       "micro-tile exceed tm=%u; lower mr",
			       t->mr, t->tm);
	return 0;
}

static int check_tiles(const struct ax_conv_tiles *t,
		       const VkPhysicalDeviceLimits *lim, char *why,
		       size_t whylen)
{
	if (t->tm > t->bm || t->tn > t->bn)
		return ax_errf(why, whylen, AX_EINVAL,
			       "the register tile tm x tn = %ux%u must "
			       "fit in the workgroup tile tile_k x tile_pq = "
			       "%ux%u; lower tm/tn or raise tile_k/tile_pq",
			       t->tm, t->tn, t->bm, t->bn);
	uint32_t inv = ax_conv_invocations(t);
	uint32_t maxinv = lim->maxComputeWorkGroupInvocations;
	if (inv > maxinv || inv > lim->maxComputeWorkGroupSize[0])
		return ax_errf(why, whylen, AX_EINVAL,
			       "(tile_k/tm)*(tile_pq/tn) = %u "
			       "invocations per workgroup exceeds "
			       "maxComputeWorkGroupInvocations %u or "
			       "maxComputeWorkGroupSize[0] %u; raise tm/tn "
			       "or lower tile_k/tile_pq",
			       inv, maxinv, lim->maxComputeWorkGroupSize[0]);
	/* Each invocation keeps the coordinates of tile_pq / invocations
	 * staged pixels in registers (share=smem). */
	if (!t->share && t->bn > 16 * inv)
		return ax_errf(why, whylen, AX_EINVAL,
			       "tile_pq %u over %u invocations is more than "
			       "16 staged pixels per invocation; lower "
			       "tile_pq or tm/tn",
			       t->bn, inv);
	size_t shm = ax_conv_shared_bytes(t);
	if (shm > lim->maxComputeSharedMemorySize)
		return ax_errf(why, whylen, AX_EINVAL,
			       "tiles need (tile_k + tile_pq) * tile_c "
			       "* 4 = %zu bytes of shared memory, over "
			       "maxComputeSharedMemorySize %u; lower tile_k, "
			       "tile_pq or tile_c",
			       shm, lim->maxComputeSharedMemorySize);
	/* (The shader declares the tiles in either mode.) */
	return t->share ? check_subgroup_tiles(t, why, whylen) : 0;
}

static int check_range(const char *what, size_t bytes,
		       const VkPhysicalDeviceLimits *lim, char *why,
		       size_t whylen)
{
	/* The kernel indexes elements with 32-bit signed offsets. */
	if (bytes <= lim->maxStorageBufferRange && bytes / 2 <= INT32_MAX)
		return 0;
	return ax_errf(why, whylen, AX_EINVAL,
		       "the %s buffer is %zu bytes, over "
		       "maxStorageBufferRange %u; use a smaller n or shape",
		       what, bytes, lim->maxStorageBufferRange);
}

int ax_conv_check_limits(const struct ax_conv_shape *s,
			 const struct ax_conv_tiles *t,
			 const VkPhysicalDeviceLimits *lim, char *why,
			 size_t whylen)
{
	int rc = check_tiles(t, lim, why, whylen);
	if (rc)
		return rc;
	size_t esz = s->f16 ? 2 : 4;
	if ((rc = check_range("input", ax_conv_input_count(s) * esz, lim, why,
			      whylen)) ||
	    (rc = check_range("weight", ax_conv_weight_count(s) * esz, lim, why,
			      whylen)) ||
	    (rc = check_range("output", ax_conv_output_count(s) * esz, lim, why,
			      whylen)))
		return rc;
	/* share=subgroup reads the input and weights through texel views,
	 * one element a texel. */
	size_t texels = ax_conv_input_count(s) > ax_conv_weight_count(s)
			    ? ax_conv_input_count(s)
			    : ax_conv_weight_count(s);
	if (t->share && texels > lim->maxTexelBufferElements)
		return ax_errf(why, whylen, AX_EINVAL,
			       "share=subgroup: a texel view of %zu elements "
			       "exceeds maxTexelBufferElements %u; use "
			       "share=smem or a smaller shape",
			       texels, lim->maxTexelBufferElements);
	uint64_t gx = ((uint64_t)(s->n * s->p * s->q) + t->bn - 1) / t->bn;
	uint64_t gy = ((uint64_t)s->k + t->bm - 1) / t->bm;
	if (gx > lim->maxComputeWorkGroupCount[0] ||
	    gy > lim->maxComputeWorkGroupCount[1])
		return ax_errf(why, whylen, AX_EINVAL,
			       "%llux%llu workgroups exceed "
			       "maxComputeWorkGroupCount %ux%u; raise tile_pq "
			       "or tile_k",
			       (unsigned long long)gx, (unsigned long long)gy,
			       lim->maxComputeWorkGroupCount[0],
			       lim->maxComputeWorkGroupCount[1]);
	return 0;
}

static size_t input_index(const struct ax_conv_shape *s, int64_t n, int64_t c,
			  int64_t h, int64_t w)
{
	if (s->nhwc)
		return (size_t)(((n * s->h + h) * s->w + w) * s->c + c);
	return (size_t)(((n * s->c + c) * s->h + h) * s->w + w);
}

/* KCRS for NCHW, KRSC for NHWC: the reduction order the kernel walks. */
static size_t weight_index(const struct ax_conv_shape *s, int64_t k, int64_t c,
			   int64_t r, int64_t q)
{
	if (s->nhwc)
		return (size_t)(((k * s->r + r) * s->s + q) * s->c + c);
	return (size_t)(((k * s->c + c) * s->r + r) * s->s + q);
}

size_t ax_conv_output_index(const struct ax_conv_shape *s, int64_t n, int64_t k,
			    int64_t p, int64_t q)
{
	if (s->nhwc)
		return (size_t)(((n * s->p + p) * s->q + q) * s->k + k);
	return (size_t)(((n * s->k + k) * s->p + p) * s->q + q);
}

double ax_conv_ref_point(const struct ax_conv_shape *s, const float *x,
			 const float *w, int64_t n, int64_t k, int64_t p,
			 int64_t q, double *abs_sum)
{
	double sum = 0.0, asum = 0.0;
	for (int64_t r = 0; r < s->r; r++) {
		int64_t hi = p * s->stride - s->pad + r * s->dil;
		if (hi < 0 || hi >= s->h)
			continue;
		for (int64_t t = 0; t < s->s; t++) {
			int64_t wi = q * s->stride - s->pad + t * s->dil;
			if (wi < 0 || wi >= s->w)
				continue;
			for (int64_t c = 0; c < s->c; c++) {
				double prod =
				    (double)x[input_index(s, n, c, hi, wi)] *
				    (double)w[weight_index(s, k, c, r, t)];
				sum += prod;
				asum += fabs(prod);
			}
		}
	}
	if (abs_sum)
		*abs_sum = asum;
	return sum;
}

double ax_conv_tolerance(const struct ax_conv_shape *s, double ref,
			 double abs_sum)
{
	double len = (double)(s->c * s->r * s->s);
	double tol = 2.0 * sqrt(len) * EPS32 * abs_sum + 1e-30;
	if (s->f16)
		tol += EPS16 * fabs(ref);
	return tol;
}

/* Check one output; 0 or AX_EVERIFY with the details. */
static int check_point(const struct ax_conv_shape *s, const float *x,
		       const float *w, const float *y, size_t i, char *why,
		       size_t whylen)
{
	int64_t n, k, p, q, rest = (int64_t)i;
	if (s->nhwc) {
		k = rest % s->k, rest /= s->k;
		q = rest % s->q, rest /= s->q;
		p = rest % s->p, n = rest / s->p;
	} else {
		q = rest % s->q, rest /= s->q;
		p = rest % s->p, rest /= s->p;
		k = rest % s->k, n = rest / s->k;
	}
	double asum;
	double ref = ax_conv_ref_point(s, x, w, n, k, p, q, &asum);
	double tol = ax_conv_tolerance(s, ref, asum);
	double got = y[i];
	if (fabs(got - ref) <= tol)
		return 0;
	return ax_errf(why, whylen, AX_EVERIFY,
		       "output %zu (n=%lld k=%lld p=%lld q=%lld) is "
		       "%.9g, the reference is %.9g (|diff| %.3g > "
		       "tolerance %.3g)",
		       i, (long long)n, (long long)k, (long long)p,
		       (long long)q, got, ref, fabs(got - ref), tol);
}

int ax_conv_ref_verify(const struct ax_conv_shape *s, const float *x,
		       const float *w, const float *y, double max_macs,
		       char *why, size_t whylen)
{
	size_t total = ax_conv_output_count(s);
	double macs = ax_conv_flops(s) / 2.0;
	/* Past max_macs, about max_macs worth of outputs, evenly spread;
	 * an odd step makes the sample cycle through every channel and
	 * pixel position. */
	size_t step = 1;
	if (macs > max_macs) {
		step = (size_t)(macs / max_macs) + 1;
		step |= 1;
	}
	for (size_t i = 0; i < total; i += step) {
		int rc = check_point(s, x, w, y, i, why, whylen);
		if (rc)
			return rc;
	}
	return check_point(s, x, w, y, total - 1, why, whylen);
}

void ax_conv_case_inputs(const struct ax_conv_shape *s, float *x, float *w)
{
	ax_conv_fill_inputs(x, ax_conv_input_count(s), 0x636f6e76ull, s->f16);
	ax_conv_fill_inputs(w, ax_conv_weight_count(s), 0x77656967ull, s->f16);
}

void ax_conv_fill_inputs(float *dst, size_t n, uint64_t seed, bool f16)
{
	/* Same size: the words are converted in place (memcpy keeps the
	 * type punning defined). */
	ax_vk_fill_random_words((uint32_t *)(void *)dst, n, seed);
	for (size_t i = 0; i < n; i++) {
		uint32_t word;
		memcpy(&word, &dst[i], sizeof(word));
		/* 24 random bits -> [-1, 1), exact in float. */
		float v = (float)(word >> 8) * (1.0f / 8388608.0f) - 1.0f;
		if (f16)
			v = ax_half_to_float(ax_half_from_float(v));
		dst[i] = v;
	}
}
