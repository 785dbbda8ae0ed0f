/* figbars: the grouped "bars" figure across workloads — a metric's ratio
 * to each workload's baseline (speedup for IPC) for chosen configurations
 * (each workload's best, or configs named in the layout), a group per
 * workload and the geometric mean as the last group. figcross.c
 * dispatches to it and writes its files. */
#ifndef GPUDSE_FIGBARS_H
#define GPUDSE_FIGBARS_H

#include "chart.h"
#include "layout.h"
#include "rundata.h"

void fig_bars_draw(chart_ctx *cc, const rep_run *run,
                   const rep_cross_fig *f, chart_box box);

#endif
