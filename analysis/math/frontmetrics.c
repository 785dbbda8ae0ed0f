/* frontmetrics: ADRS and IGD by direct nearest-point search (fronts have at
 * most a few hundred points, so O(|ref| |approx| k) is cheap). */
#include "frontmetrics.h"

#include <math.h>

static double adrs_gap(const double *r, const double *a, size_t k)
{
    double worst = 0;
    for (size_t j = 0; j < k; j++) {
        double d = a[j] - r[j];
        if (d > worst)
            worst = d;
    }
    return worst;
}

static double euclid(const double *r, const double *a, size_t k)
{
    double s = 0;
    for (size_t j = 0; j < k; j++)
        s += (a[j] - r[j]) * (a[j] - r[j]);
    return sqrt(s);
}

static double mean_nearest(const double *ref, size_t nref,
                           const double *approx, size_t napprox, size_t k,
                           double (*dist)(const double *, const double *,
                                          size_t))
{
    if (nref == 0)
        return 0;
    if (napprox == 0)
        return INFINITY;
    double sum = 0;
    for (size_t i = 0; i < nref; i++) {
        double best = INFINITY;
        for (size_t a = 0; a < napprox; a++) {
            double d = dist(ref + i * k, approx + a * k, k);
            if (d < best)
                best = d;
        }
        sum += best;
    }
    return sum / (double)nref;
}

double fm_adrs(const double *ref, size_t nref, const double *approx,
               size_t napprox, size_t k)
{
    return mean_nearest(ref, nref, approx, napprox, k, adrs_gap);
}

double fm_igd(const double *ref, size_t nref, const double *approx,
              size_t napprox, size_t k)
{
    return mean_nearest(ref, nref, approx, napprox, k, euclid);
}
