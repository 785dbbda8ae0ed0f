/* pareto: the non-dominated subset of n points in k objectives. */
#ifndef GPUDSE_PARETO_H
#define GPUDSE_PARETO_H

#include <stddef.h>

/* pts is n rows of k values, every objective to be MINIMISED (negate the
 * ones to maximise). A point is on the front when no other point is <= in
 * every objective and < in one; equal points are all kept. Rows with NaN
 * are never on the front. Writes the front's row indices, ascending, into
 * idx (room for n) and returns their count. */
size_t pareto_front(const double *pts, size_t n, size_t k, size_t *idx);

/* The same front by comparing every pair, O(n^2) but with no memory of its
 * own: what pareto_front falls back on when it cannot allocate. */
size_t pareto_front_pairs(const double *pts, size_t n, size_t k,
                          size_t *idx);

#endif
