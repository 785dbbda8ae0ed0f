/* figlines: the "line" figure across workloads — a metric against one
 * numeric knob, one line (with markers) per workload, the other knobs held
 * at the workload's baseline or at its best configuration. figcross.c
 * dispatches to it and writes its files. */
#ifndef GPUDSE_FIGLINES_H
#define GPUDSE_FIGLINES_H

#include "chart.h"
#include "layout.h"
#include "rundata.h"

/* Draw into box; f->no_title leaves title and caption out. */
void fig_line_draw(chart_ctx *cc, const rep_run *run,
                   const rep_cross_fig *f, chart_box box);

#endif
