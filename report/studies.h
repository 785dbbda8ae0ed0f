/* studies: the strategy-study and calibration pages, drawn when
 * analysis.json carries them (nothing otherwise):
 *   per workload "study" (analysis/study.c): {"seeds": [...], "basis",
 *       "strategies": [{"name", "median": [...], "q1": [...], "q3": [...],
 *       "evals_to_95": {"per_seed": [...], "median", "reached"},
 *       "evals_to_99": {...}}]} -> hypervolume ratio against evaluations
 *       (line chart, IQR bands) and evaluations to 95 %/99 % (grouped bars,
 *       IQR whiskers);
 *   top level "calibration": [{"metric": "ipc", "title": "...",
 *       "points": [{"label": "...", "predicted": 1.2, "measured": 1.1}]}]
 *       (an object instead of the array is one entry) -> predicted against
 *       measured with y = x and ±10 %/±20 % bands. */
#ifndef GPUDSE_STUDIES_H
#define GPUDSE_STUDIES_H

#include "chart.h"
#include "doc.h"
#include "rundata.h"

void rep_study_strategy(rep_doc *d, const rep_run *run);
void rep_study_calibration(rep_doc *d, const rep_run *run);
/* figures/study_hv_WL.*, figures/study_evals_WL.* and
 * figures/calibration_N_METRIC.*. */
int rep_study_write_figures(const rep_run *run, const chart_font *font,
                            gd_err *err);

#endif
