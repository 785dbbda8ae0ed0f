/* figlines: figures across workloads named at the top level of a layout —
 * today "line": a metric against one numeric knob, one line (with
 * markers) per workload, the other knobs held at the workload's baseline
 * or at its best configuration — drawn into a page box or written to
 * figures/line_KNOB_METRIC.{svg,pdf}. */
#ifndef GPUDSE_FIGLINES_H
#define GPUDSE_FIGLINES_H

#include "chart.h"
#include "layout.h"
#include "rundata.h"

/* The metric the figure shows: its own, else the first objective. */
const char *fig_line_metric(const rep_run *run, const rep_cross_fig *f);
/* The caption: what is plotted, where the other knobs are held, which
 * workloads have no line and why. */
void fig_line_caption(const rep_run *run, const rep_cross_fig *f,
                      char *out, size_t n);
/* Draw into box; f->no_title leaves title and caption out. */
void fig_line_draw(chart_ctx *cc, const rep_run *run,
                   const rep_cross_fig *f, chart_box box);
/* File stem "line_KNOB_METRIC[_best]". */
void fig_line_stem(const rep_run *run, const rep_cross_fig *f, char *out,
                   size_t n);
/* Write DIR/figures/STEM.svg and/or .pdf as the CAMP_FMT_* bits say. */
int fig_line_write_files(const rep_run *run, const rep_cross_fig *f,
                         int formats, gd_err *err);

#endif
