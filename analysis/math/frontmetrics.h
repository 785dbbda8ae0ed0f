/* frontmetrics: how far an approximate Pareto front is from a reference
 * front — ADRS and IGD — on normalised, minimised objectives. */
#ifndef GPUDSE_FRONTMETRICS_H
#define GPUDSE_FRONTMETRICS_H

#include <stddef.h>

/* Average distance from reference set (Palesi & Givargis): for each
 * reference point r the smallest over approximation points a of
 * max_j max(0, a_j - r_j), averaged over the reference. With objectives
 * normalised to [0,1] this is the additive form (no division by r_j, which
 * may be 0 after normalisation). 0 when the approximation covers the
 * reference; INFINITY when approx is empty and ref is not; 0 when ref is
 * empty. */
double fm_adrs(const double *ref, size_t nref, const double *approx,
               size_t napprox, size_t k);

/* Inverted generational distance: the mean over reference points of the
 * Euclidean distance to the nearest approximation point. Same empty-set
 * conventions as fm_adrs. */
double fm_igd(const double *ref, size_t nref, const double *approx,
              size_t napprox, size_t k);

#endif
