/* figcross: figures across workloads named at the top level of a layout
 * (kinds "line" in figlines.c and "bars" in figbars.c): their metric,
 * heading, caption and drawing by kind, and their files
 * figures/line_KNOB_METRIC[_best].* and figures/bars_METRIC.*. */
#ifndef GPUDSE_FIGCROSS_H
#define GPUDSE_FIGCROSS_H

#include "chart.h"
#include "figkit_cross.h"    /* fig_cross_metric, fig_cross_title */
#include "layout.h"
#include "rundata.h"

/* Draw into box; f->no_title leaves title and caption out. */
void fig_cross_draw(chart_ctx *cc, const rep_run *run,
                    const rep_cross_fig *f, chart_box box);
/* File stem: "line_KNOB_METRIC[_best]" or "bars_METRIC". */
void fig_cross_stem(const rep_run *run, const rep_cross_fig *f, char *out,
                    size_t n);
/* Write DIR/figures/STEM.svg and/or .pdf as the CAMP_FMT_* bits say. */
int fig_cross_write_files(const rep_run *run, const rep_cross_fig *f,
                          int formats, const chart_font *font, gd_err *err);

#endif
