/* hypervolume: the volume of objective space dominated by a point set and
 * bounded by a reference point — exact sweeps for 2 and 3 objectives,
 * recursive slicing for more — and the min/max normalisation it is
 * computed on. */
#ifndef GPUDSE_HYPERVOLUME_H
#define GPUDSE_HYPERVOLUME_H

#include <stddef.h>

/* pts: n rows of k values, every objective MINIMISED. Only the points
 * strictly better than ref in every objective count; rows with NaN never
 * count. Writes the dominated volume into *out; returns 0, or -1 when out
 * of memory. k >= 1. */
int hv_compute(const double *pts, size_t n, size_t k, const double *ref,
               double *out);

/* out[i][j] = (pts[i][j] - min[j]) / (max[j] - min[j]); a zero-width range
 * maps to 0. out may equal pts. */
void hv_normalise(const double *pts, size_t n, size_t k, const double *min,
                  const double *max, double *out);

/* Per-objective min and max over the rows without NaN; when no row
 * qualifies min = 0 and max = 1. */
void hv_bounds(const double *pts, size_t n, size_t k, double *min,
               double *max);

/* The reference point gpudse uses on normalised objectives: 1.1 in every
 * objective (10% beyond the worst value seen). */
#define HV_REF_NORMALISED 1.1

#endif
