/* split_metrics: decision regret of the split cost model — the one figure
 * of its calibration that the shared calib_metrics module (APE quantiles,
 * Spearman, Kendall tau-b) does not compute. */
#ifndef GPUDSE_SPLIT_METRICS_H
#define GPUDSE_SPLIT_METRICS_H

#include <stddef.h>

/* Regret of choosing by prediction: measured time of the decision with
 * the lowest prediction over the best measured time, minus 1 (NaN when
 * n == 0 or the best measured time is not positive). */
double sm_regret(const double *pred, const double *meas, size_t n);

#endif
