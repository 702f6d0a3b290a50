/* reports/roofline.c - the ridge point of an intensity sweep
 * (reports/roofline.h). */
#include "reports/roofline.h"
#include "core/error.h"
#include "reports/suite_doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ax_roofline_fit(const double *ai, const double *rate, int n,
		     struct ax_roofline_fit *out)
{
	*out = (struct ax_roofline_fit){0, NAN, NAN, NAN, NAN, NAN};
	for (int i = 0; i < n; i++) {
		if (!(ai[i] > 0) || !(rate[i] > 0) || !isfinite(ai[i]) ||
		    !isfinite(rate[i]))
			continue;
		double bw = rate[i] / ai[i];
		if (out->n == 0) {
			out->bandwidth = bw;
			out->peak = rate[i];
			out->ai_lo = out->ai_hi = ai[i];
		}
		out->bandwidth = fmax(out->bandwidth, bw);
		out->peak = fmax(out->peak, rate[i]);
		out->ai_lo = fmin(out->ai_lo, ai[i]);
		out->ai_hi = fmax(out->ai_hi, ai[i]);
		out->n++;
	}
	if (out->n)
		out->ridge = out->peak / out->bandwidth;
}

static const char *str(const char *s) { return s ? s : ""; }

/* The precision a row states: "type", else "dtype"; "" for none. */
static const char *precision_of(const struct ax_db_result_row *r)
{
	const char *p = ax_db_param_text(&r->params, "type");
	return str(p ? p : ax_db_param_text(&r->params, "dtype"));
}

/* Rows are grouped by run, device, suite and precision: sorted by that
 * key (then by position, so a sweep keeps the listing's order), never
 * compared pairwise - a history of many results must not cost their
 * square. */
struct keyed {
	const struct ax_db_result_row *r;
	size_t at;
};

static int cmp_place(const struct ax_db_result_row *a,
		     const struct ax_db_result_row *b)
{
	if (a->run_id != b->run_id)
		return a->run_id < b->run_id ? -1 : 1;
	return strcmp(str(a->device.fingerprint), str(b->device.fingerprint));
}

static int cmp_sweep(const struct ax_db_result_row *a,
		     const struct ax_db_result_row *b)
{
	int c = cmp_place(a, b);
	if (!c)
		c = strcmp(str(a->suite), str(b->suite));
	return c ? c : strcmp(precision_of(a), precision_of(b));
}

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = cmp_sweep(a->r, b->r);
	return c ? c : (a->at > b->at) - (a->at < b->at);
}

static bool is_point(const struct ax_db_result_row *r,
		     const struct ax_suite_doc *doc)
{
	return r->ok && !strcmp(str(r->unit), "GFLOP/s") &&
	       ax_suite_info_row_has_role(doc, r, AX_ROLE_ROOFLINE) &&
	       isfinite(r->bytes) && r->bytes > 0 && isfinite(r->work);
}

/* The sweep of pts[0..n) (one key). */
static int add_sweep(struct ax_roofline_sweeps *out, const struct keyed *pts,
		     size_t n)
{
	struct ax_roofline_sweep s = {0};
	s.ai = malloc(n * sizeof(double));
	s.rate = malloc(n * sizeof(double));
	if (!s.ai || !s.rate) {
		free(s.ai);
		free(s.rate);
		return AX_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		s.ai[i] = pts[i].r->work / pts[i].r->bytes;
		s.rate[i] = pts[i].r->median;
	}
	const struct ax_db_result_row *first = pts[0].r;
	s.n_points = (int)n;
	s.first = first;
	s.run_id = first->run_id;
	s.suite = str(first->suite);
	s.precision = precision_of(first);
	s.device = str(first->device.name);
	s.fingerprint = str(first->device.fingerprint);
	s.ref_peak = s.ref_bandwidth = s.ref_ridge = NAN;
	ax_roofline_fit(s.ai, s.rate, (int)n, &s.fit);
	/* One intensity is a point, not a sweep. */
	if (s.fit.n < 2 || s.fit.ai_lo == s.fit.ai_hi) {
		free(s.ai);
		free(s.rate);
		return 0;
	}
	struct ax_roofline_sweep *grown =
	    realloc(out->v, (size_t)(out->n + 1) * sizeof(*grown));
	if (!grown) {
		free(s.ai);
		free(s.rate);
		return AX_ENOMEM;
	}
	out->v = grown;
	out->v[out->n++] = s;
	return 0;
}

/* A row of the place (run, device) sweep s was measured in? */
static int cmp_row_sweep_place(const struct ax_db_result_row *q,
			       const struct ax_roofline_sweep *s)
{
	if (q->run_id != s->run_id)
		return q->run_id < s->run_id ? -1 : 1;
	return strcmp(str(q->device.fingerprint), s->fingerprint);
}

/* q as a ceiling of the sweeps of its run and device (out->v is sorted
 * by place): the best compute-peak GFLOP/s at a sweep's precision, the
 * best bandwidth-peak GB/s. */
static void offer_ceiling(struct ax_roofline_sweeps *out,
			  const struct ax_suite_doc *doc,
			  const struct ax_db_result_row *q)
{
	if (!q->ok || !isfinite(q->median))
		return;
	const char *unit = str(q->unit);
	bool peak = !strcmp(unit, "GFLOP/s") &&
		    ax_suite_info_row_has_role(doc, q, AX_ROLE_COMPUTE_PEAK);
	bool bw = !strcmp(unit, "GB/s") &&
		  ax_suite_info_row_has_role(doc, q, AX_ROLE_BANDWIDTH_PEAK);
	if (!peak && !bw)
		return;
	int lo = 0, hi = out->n;
	while (lo < hi) { /* the first sweep at or after q's place */
		int mid = (lo + hi) / 2;
		if (cmp_row_sweep_place(q, &out->v[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < out->n && !cmp_row_sweep_place(q, &out->v[i]);
	     i++) {
		struct ax_roofline_sweep *s = &out->v[i];
		if (peak && !strcmp(precision_of(q), s->precision) &&
		    !(q->median <= s->ref_peak))
			s->ref_peak = q->median;
		if (bw && !(q->median <= s->ref_bandwidth))
			s->ref_bandwidth = q->median;
	}
}

int ax_roofline_sweeps(const struct ax_db_results *l,
		       const struct ax_suite_doc *doc,
		       struct ax_roofline_sweeps *out)
{
	*out = (struct ax_roofline_sweeps){0};
	struct keyed *pts = malloc((l->n + 1) * sizeof(*pts));
	if (!pts)
		return AX_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (is_point(l->v[i], doc))
			pts[n++] = (struct keyed){l->v[i], i};
	qsort(pts, n, sizeof(*pts), cmp_keyed);
	int rc = 0;
	for (size_t i = 0, j; rc == 0 && i < n; i = j) {
		for (j = i + 1; j < n && !cmp_sweep(pts[i].r, pts[j].r); j++)
			;
		rc = add_sweep(out, pts + i, j - i);
	}
	free(pts);
	for (size_t i = 0; rc == 0 && out->n && i < l->n; i++)
		offer_ceiling(out, doc, l->v[i]);
	for (int i = 0; rc == 0 && i < out->n; i++) {
		struct ax_roofline_sweep *s = &out->v[i];
		if (isfinite(s->ref_peak) && s->ref_bandwidth > 0)
			s->ref_ridge = s->ref_peak / s->ref_bandwidth;
	}
	if (rc)
		ax_roofline_sweeps_free(out);
	return rc;
}

void ax_roofline_sweeps_free(struct ax_roofline_sweeps *s)
{
	for (int i = 0; s && i < s->n; i++) {
		free(s->v[i].ai);
		free(s->v[i].rate);
	}
	if (s) {
		free(s->v);
		*s = (struct ax_roofline_sweeps){0};
	}
}

const char *ax_roofline_sweep_text(const struct ax_roofline_sweep *s, char *buf,
				   size_t len)
{
	const struct ax_roofline_fit *f = &s->fit;
	int n =
	    snprintf(buf, len,
		     "ridge %.3g FLOP/B = %.4g GFLOP/s / %.4g GB/s (%d "
		     "points, %.3g to %.4g FLOP/B)",
		     f->ridge, f->peak, f->bandwidth, f->n, f->ai_lo, f->ai_hi);
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (isfinite(s->ref_ridge))
		snprintf(buf + n, len - (size_t)n,
			 "; the run's peak / bandwidth: %.3g FLOP/B (%.4g "
			 "GFLOP/s / %.4g GB/s), the sweep's ridge is %.2fx "
			 "that",
			 s->ref_ridge, s->ref_peak, s->ref_bandwidth,
			 f->ridge / s->ref_ridge);
	else
		snprintf(buf + n, len - (size_t)n,
			 "; the run has no %s%s peak and bandwidth result to "
			 "set it against",
			 s->precision, s->precision[0] ? "" : "matching");
	return buf;
}
