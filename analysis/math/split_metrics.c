/* split_metrics: decision regret for the split cost model's calibration
 * (see split_metrics.h). */
#include "split_metrics.h"

#include <math.h>

double sm_regret(const double *pred, const double *meas, size_t n)
{
    if (n == 0)
        return NAN;
    size_t pick = 0, best = 0;
    for (size_t i = 1; i < n; i++) {
        if (pred[i] < pred[pick])
            pick = i;
        if (meas[i] < meas[best])
            best = i;
    }
    return meas[best] > 0 ? meas[pick] / meas[best] - 1.0 : NAN;
}
