/* aggregates: the report's page across workloads for the campaign's
 * <aggregate> objectives (analysis.json "aggregates"): the answer first —
 * the best configuration per aggregate, each workload's value and ratio to
 * its baseline under it (a table and grouped bars, figures/
 * bars_aggregates.*), what was dropped and why — then the aggregate
 * Pareto front. Layout element <aggregates/>; drawn only when the run has
 * aggregates. */
#ifndef GPUDSE_REP_AGGREGATES_H
#define GPUDSE_REP_AGGREGATES_H

#include "doc.h"
#include "rundata.h"

/* 1 when analysis.json has an "aggregates" section. */
int rep_agg_has(const rep_run *run);
void rep_agg_pages(rep_doc *d, const rep_run *run);
/* figures/bars_aggregates.{svg,pdf} in the campaign's formats, text in
 * font (the layout's; NULL: the default); nothing when the run has no
 * aggregates. */
int rep_agg_write_figures(const rep_run *run, const chart_font *font,
                          gd_err *err);

#endif
