/*
 * tuner/pareto.h - the non-dominated set of points measured on two
 * objectives to minimise (time and energy), its knee and its hypervolume.
 *
 * Points are given as two arrays a[0..n), b[0..n); an entry that is not
 * finite and > 0 in both is left out.  Both objectives are compared in log
 * scale where they are normalised (the knee, the hypervolume): a time and
 * an energy have different units, and a relative change is what matters
 * in each.
 */
#ifndef AX_TUNER_PARETO_H
#define AX_TUNER_PARETO_H

#include <stddef.h>

/* The positions of the non-dominated points (no other point is at least
 * as good in both and better in one) into out, sorted by a ascending (so
 * b descending); of points equal in both, the first.  Returns how many.
 * out needs room for n. */
size_t ax_pareto_front(const double *a, const double *b, size_t n, size_t *out);

/* The knee of a front (positions front[0..m), as ax_pareto_front gives
 * them): the point nearest the ideal corner (the best a and the best b of
 * the front) once each objective's log is scaled to [0, 1] over the front:
 * the balanced trade.  Returns a position in front[]; a tie goes to the
 * faster point (a two-point front's knee is its fastest). */
size_t ax_pareto_knee(const double *a, const double *b, const size_t *front,
		      size_t m);

/* The area dominated by the front and bounded by the reference corner
 * (ref_a, ref_b), in log coordinates scaled by the box from (lo_a, lo_b)
 * to the corner, so 1 is the whole box: a front's quality as one number,
 * comparable between fronts measured against the same box.  Points beyond
 * the corner add nothing. */
double ax_pareto_hypervolume(const double *a, const double *b,
			     const size_t *front, size_t m, double lo_a,
			     double lo_b, double ref_a, double ref_b);

#endif
