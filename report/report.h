/* report: renders report.pdf, figures/NAME.{pdf,svg} and results.csv from the
 * files of a run directory alone. */
#ifndef GPUDSE_REPORT_H
#define GPUDSE_REPORT_H

#include "reccache.h"
#include "util.h"

/* layout: a report layout file, or NULL for the campaign's or the default. */
int rep_render(const char *rundir, const char *layout, gd_err *err);
/* rep_render taking the records an earlier stage of this process parsed
 * from cache (NULL: none; gpudse run passes the analysis's). */
int rep_render_cached(const char *rundir, const char *layout, rcache *cache,
                      gd_err *err);
/* rep_render, and with overlay[0..noverlay) ("DIR[:LABEL]", `gpudse
 * report --overlay`) each workload's Pareto fronts of this run and those
 * runs on one plot: figures/overlay_WORKLOAD.* and a page per workload. */
#define REP_OVERLAY_ARGS 7   /* other runs at most (8 series colours) */
int rep_render_overlay(const char *rundir, const char *layout,
                       const char *const *overlay, int noverlay,
                       gd_err *err);

#endif
