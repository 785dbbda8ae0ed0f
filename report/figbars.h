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

/* The figure's values, gathered one workload at a time: fig_bars_new
 * (every workload of run->wl without records), then fig_bars_add for each
 * workload while run->recs holds its records (rep_run_select), replacing
 * what it had. NULL when out of memory. */
typedef struct fig_bars_data fig_bars_data;
fig_bars_data *fig_bars_new(const rep_run *run, const rep_cross_fig *f);
void fig_bars_add(fig_bars_data *g, const rep_run *run,
                  const rep_cross_fig *f, int wl);
void fig_bars_free(fig_bars_data *g);

/* Draw g into box; f->no_title leaves title and caption out. */
void fig_bars_draw(chart_ctx *cc, const rep_run *run,
                   const rep_cross_fig *f, const fig_bars_data *g,
                   chart_box box);

#endif
