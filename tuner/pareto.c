/* tuner/pareto.c - non-dominated sets of two objectives (tuner/pareto.h). */
#include "tuner/pareto.h"

#include <math.h>
#include <stdlib.h>

static int valid(double a, double b)
{
	return isfinite(a) && isfinite(b) && a > 0 && b > 0;
}

struct key {
	double a, b;
	size_t i;
};

static int cmp_key(const void *x, const void *y)
{
	const struct key *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/* Sorted by a (then b, then position), a point is on the front exactly
 * when its b is below every b before it. */
size_t ax_pareto_front(const double *a, const double *b, size_t n, size_t *out)
{
	struct key *k = malloc((n ? n : 1) * sizeof(*k));
	size_t m = 0, nf = 0;
	if (!k)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (valid(a[i], b[i]))
			k[m++] = (struct key){a[i], b[i], i};
	qsort(k, m, sizeof(*k), cmp_key);
	double best_b = INFINITY;
	for (size_t j = 0; j < m; j++)
		if (k[j].b < best_b) {
			best_b = k[j].b;
			out[nf++] = k[j].i;
		}
	free(k);
	return nf;
}

size_t ax_pareto_knee(const double *a, const double *b, const size_t *front,
		      size_t m)
{
	if (m == 0)
		return 0;
	/* Sorted by a: the first has the best a, the last the best b. */
	double a0 = log(a[front[0]]), a1 = log(a[front[m - 1]]);
	double b0 = log(b[front[m - 1]]), b1 = log(b[front[0]]);
	double sa = a1 > a0 ? a1 - a0 : 1, sb = b1 > b0 ? b1 - b0 : 1;
	size_t best = 0;
	double bd = INFINITY;
	for (size_t j = 0; j < m; j++) {
		double x = (log(a[front[j]]) - a0) / sa;
		double y = (log(b[front[j]]) - b0) / sb;
		double d = x * x + y * y;
		if (d < bd - 1e-12) {
			bd = d;
			best = j;
		}
	}
	return best;
}

double ax_pareto_hypervolume(const double *a, const double *b,
			     const size_t *front, size_t m, double lo_a,
			     double lo_b, double ref_a, double ref_b)
{
	double la = log(lo_a), lb = log(lo_b);
	double wa = log(ref_a) - la, wb = log(ref_b) - lb;
	if (!(wa > 0) || !(wb > 0))
		return 0;
	/* Sweep in a: each point owns the strip from its a to the next
	 * point's a (or the corner), under the corner's b. */
	double area = 0;
	for (size_t j = 0; j < m; j++) {
		double x = (log(a[front[j]]) - la) / wa;
		double y = (log(b[front[j]]) - lb) / wb;
		double next = j + 1 < m ? (log(a[front[j + 1]]) - la) / wa : 1;
		if (x >= 1 || y >= 1)
			continue;
		if (next > 1)
			next = 1;
		if (x < 0)
			x = 0;
		if (y < 0)
			y = 0;
		if (next > x)
			area += (next - x) * (1 - y);
	}
	return area;
}
