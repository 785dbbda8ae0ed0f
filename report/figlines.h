/* figlines: the "line" figure across workloads — a metric against one
 * numeric knob, one line (with markers) per workload, the other knobs held
 * at the workload's baseline or at its best configuration. figcross.c
 * dispatches to it and writes its files. */
#ifndef GPUDSE_FIGLINES_H
#define GPUDSE_FIGLINES_H

#include "chart.h"
#include "layout.h"
#include "rundata.h"

/* The figure's lines, gathered one workload at a time: fig_line_new
 * (every workload of run->wl without records: no line, and why), then
 * fig_line_add for each workload while run->recs holds its records
 * (rep_run_select), replacing what it had. NULL when out of memory. */
typedef struct fig_line_data fig_line_data;
fig_line_data *fig_line_new(const rep_run *run, const rep_cross_fig *f);
void fig_line_add(fig_line_data *d, const rep_run *run,
                  const rep_cross_fig *f, int wl);
void fig_line_free(fig_line_data *d);

/* Draw d into box; f->no_title leaves title and caption out. */
void fig_line_draw(chart_ctx *cc, const rep_run *run,
                   const rep_cross_fig *f, const fig_line_data *d,
                   chart_box box);

#endif
