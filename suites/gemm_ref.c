/* suites/gemm_ref.c - inputs, fp16 conversion and the gemm checker. */
#include "suites/gemm_ref.h"

#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ax_gemm_fill(float *dst, size_t n, uint64_t seed)
{
	/* xorshift64*: deterministic across machines, no libc rand(). */
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	for (size_t i = 0; i < n; i++) {
		s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
		uint32_t w = (uint32_t)((s * 0x2545f4914f6cdd1dull) >> 32);
		dst[i] = (float)(w >> 22) / 512.0f - 1.0f;
	}
}

void ax_gemm_case_inputs(const struct ax_gemm_shape *s, float *a, float *b)
{
	ax_gemm_fill(a, (size_t)s->batch * s->m * s->k, 1);
	ax_gemm_fill(b, (size_t)s->batch * s->k * s->n, 2);
}

/* Element (i, kk) of op(A) and (kk, j) of op(B) for batch z. */
static double at(const struct ax_gemm_shape *s, const float *a, uint32_t z,
		 uint32_t i, uint32_t kk)
{
	size_t base = (size_t)z * s->m * s->k;
	return s->trans_a ? a[base + (size_t)kk * s->m + i]
			  : a[base + (size_t)i * s->k + kk];
}

static double bt(const struct ax_gemm_shape *s, const float *b, uint32_t z,
		 uint32_t kk, uint32_t j)
{
	size_t base = (size_t)z * s->k * s->n;
	return s->trans_b ? b[base + (size_t)j * s->k + kk]
			  : b[base + (size_t)kk * s->n + j];
}

/* Unit roundoff of the accumulation (see ax_gemm_check). */
static double acc_unit(const struct ax_gemm_shape *s)
{
	if (s->acc16)
		return ldexp(1.0, -10);
	return ldexp(1.0, s->trunc_acc ? -23 : -24);
}

/* Relative accumulation error allowed per unit of sum|a||b|. */
static double acc_rel(const struct ax_gemm_shape *s)
{
	double g = fmin((double)s->k, 8.0 * sqrt((double)s->k));
	return (g + 1.0) * acc_unit(s);
}

static int check_elem(const struct ax_gemm_shape *s, const float *a,
		      const float *b, const float *c, uint32_t z, uint32_t i,
		      uint32_t j, char *why, size_t whylen)
{
	double ref = 0, mag = 0;
	for (uint32_t kk = 0; kk < s->k; kk++) {
		double p = at(s, a, z, i, kk) * bt(s, b, z, kk, j);
		ref += p;
		mag += fabs(p);
	}
	double got = c[((size_t)z * s->m + i) * s->n + j];
	double tol = acc_rel(s) * mag + 1e-30;
	if (s->f16)
		tol += ldexp(fabs(ref), -11) + ldexp(1.0, -24);
	if (!(fabs(got - ref) <= tol))
		return ax_errf(why, whylen, AX_EVERIFY,
			       "gemm: C[batch %u][%u][%u] = %.9g, expected "
			       "%.9g (tolerance %.3g for k=%u %s%s)",
			       z, i, j, got, ref, tol, s->k,
			       s->f16 ? "f16" : "f32",
			       s->acc16 ? " with f16 accumulation" : "");
	return 0;
}

/* Rows and columns the sampled check covers: both ends, then spread. */
static uint32_t sample_index(uint32_t n, int t, int count)
{
	if (t == 0)
		return 0;
	if (t == count - 1)
		return n - 1;
	return (uint32_t)(((uint64_t)n * (uint64_t)(2 * t + 1)) /
			  (uint64_t)(2 * count));
}

/*
 * Column checksums of one batch: sum_i C[i][j] must equal
 * (1^T op(A)) op(B) [j]; row checksums likewise with op(B) 1.  Every
 * element contributes, so a wrong element off the sampled rows and
 * columns is still caught.  Rounding errors of independent elements add
 * up like a random walk: the tolerance is 16 sigma of that.
 */
static int check_sums(const struct ax_gemm_shape *s, const float *a,
		      const float *b, const float *c, uint32_t z, bool cols,
		      char *why, size_t whylen)
{
	uint32_t outer = cols ? s->m : s->n; /* summed over */
	uint32_t count = cols ? s->n : s->m; /* one sum each */
	double *e = calloc(s->k, sizeof(double));
	double *ea = calloc(s->k, sizeof(double));
	if (!e || !ea) {
		free(e), free(ea);
		return ax_errf(why, whylen, AX_ENOMEM, "gemm: out of memory");
	}
	for (uint32_t kk = 0; kk < s->k; kk++)
		for (uint32_t o = 0; o < outer; o++) {
			double v =
			    cols ? at(s, a, z, o, kk) : bt(s, b, z, kk, o);
			e[kk] += v, ea[kk] += fabs(v);
		}
	int rc = 0;
	double u = acc_unit(s);
	for (uint32_t q = 0; q < count && !rc; q++) {
		double ref = 0, mag = 0, got = 0, sq = 0;
		for (uint32_t kk = 0; kk < s->k; kk++) {
			double v =
			    cols ? bt(s, b, z, kk, q) : at(s, a, z, q, kk);
			ref += e[kk] * v, mag += ea[kk] * fabs(v);
		}
		for (uint32_t o = 0; o < outer; o++) {
			size_t idx =
			    cols ? (size_t)o * s->n + q : (size_t)q * s->n + o;
			double x = c[(size_t)z * s->m * s->n + idx];
			got += x, sq += x * x;
		}
		double tol = 16.0 * u * mag / sqrt((double)outer * s->k) +
			     1e-6 * u * mag + 1e-30;
		if (s->f16)
			tol += 4.0 * ldexp(sqrt(sq), -11) +
			       outer * ldexp(1.0, -24);
		if (!(fabs(got - ref) <= tol))
			rc = ax_errf(why, whylen, AX_EVERIFY,
				     "gemm: batch %u %s %u sums to %.9g, "
				     "expected %.9g (tolerance %.3g): some "
				     "element of that %s is wrong",
				     z, cols ? "column" : "row", q, got, ref,
				     tol, cols ? "column" : "row");
	}
	free(e), free(ea);
	return rc;
}

static int check_sampled(const struct ax_gemm_shape *s, const float *a,
			 const float *b, const float *c, uint32_t z, char *why,
			 size_t whylen)
{
	enum { NS = 8 };
	int rc = 0;
	for (int t = 0; t < NS && !rc; t++) {
		uint32_t i = sample_index(s->m, t, NS);
		for (uint32_t j = 0; j < s->n && !rc; j++)
			rc = check_elem(s, a, b, c, z, i, j, why, whylen);
		uint32_t jj = sample_index(s->n, t, NS);
		for (uint32_t r = 0; r < s->m && !rc; r++)
			rc = check_elem(s, a, b, c, z, r, jj, why, whylen);
	}
	if (!rc)
		rc = check_sums(s, a, b, c, z, true, why, whylen);
	if (!rc)
		rc = check_sums(s, a, b, c, z, false, why, whylen);
	return rc;
}

int ax_gemm_check(const struct ax_gemm_shape *s, const float *a, const float *b,
		  const float *c, bool *sampled, char *why, size_t whylen)
{
	uint64_t work = (uint64_t)s->m * s->n * s->k * s->batch;
	bool full = work <= AX_GEMM_FULL_CHECK_MAX;
	if (sampled)
		*sampled = !full;
	for (uint32_t z = 0; z < s->batch; z++) {
		int rc = 0;
		if (!full) {
			rc = check_sampled(s, a, b, c, z, why, whylen);
		} else {
			for (uint32_t i = 0; i < s->m && !rc; i++)
				for (uint32_t j = 0; j < s->n && !rc; j++)
					rc = check_elem(s, a, b, c, z, i, j,
							why, whylen);
		}
		if (rc)
			return rc;
	}
	return 0;
}
