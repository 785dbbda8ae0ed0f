/* report: renders report.pdf, figures/NAME.{pdf,svg} and results.csv from the
 * files of a run directory alone. */
#ifndef GPUDSE_REPORT_H
#define GPUDSE_REPORT_H

#include "util.h"

/* layout: a report layout file, or NULL for the campaign's or the default. */
int rep_render(const char *rundir, const char *layout, gd_err *err);

#endif
