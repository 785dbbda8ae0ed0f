/* analysis: reads a run directory's campaign, manifest and journal and
 * writes analysis.json: per workload the points, the Pareto front over the
 * campaign's objectives, the baseline, the front's hypervolume (and its
 * distance to the exhaustive front when known), the knobs' sensitivity and,
 * with <study>, the strategy study (docs/strategies.md). */
#ifndef GPUDSE_ANALYSIS_H
#define GPUDSE_ANALYSIS_H

#include "reccache.h"
#include "util.h"

int ana_run(const char *rundir, gd_err *err);
/* The same, reading records through cache (NULL: none), which keeps them
 * for a later stage of this process (the report). */
int ana_run_cached(const char *rundir, rcache *cache, gd_err *err);

#endif
