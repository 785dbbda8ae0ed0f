/* analysis: reads a run directory's campaign and journal and writes
 * analysis.json: per workload the points, the Pareto front over the
 * campaign's objectives, and the baseline. */
#ifndef GPUDSE_ANALYSIS_H
#define GPUDSE_ANALYSIS_H

#include "util.h"

int ana_run(const char *rundir, gd_err *err);

#endif
