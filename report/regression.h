/* regression: the report's "Regression against the baseline" page and the
 * figures/regression.{svg,pdf} file, drawn from DIR/compare.json (written
 * by gpudse compare) when the run directory has one; nothing otherwise. */
#ifndef GPUDSE_REGRESSION_H
#define GPUDSE_REGRESSION_H

#include "doc.h"
#include "rundata.h"
#include "util.h"

/* The page: verdict, the largest relative changes as horizontal bars
 * (regressions first, in the accent colour) and the failed checks. */
void rep_regression_page(rep_doc *d, const rep_run *run);

/* figures/regression.svg and/or .pdf (the campaign's formats). GD_EINPUT
 * when compare.json exists but is not valid JSON. */
int rep_regression_write_figures(const rep_run *run, gd_err *err);

#endif
