/* figcross: figures across workloads named at the top level of a layout
 * (kinds "line" in figlines.c and "bars" in figbars.c): what they draw,
 * gathered one workload at a time, their metric, heading, caption and
 * drawing by kind, and their files
 * figures/line_KNOB_METRIC[_best].* and figures/bars_METRIC.*. */
#ifndef GPUDSE_FIGCROSS_H
#define GPUDSE_FIGCROSS_H

#include "chart.h"
#include "figkit_cross.h"    /* fig_cross_metric, fig_cross_title */
#include "layout.h"
#include "rundata.h"

/* What a layout's figures across workloads draw, and nothing more: per
 * workload the line's value at each level of its knob, the bars' values
 * at their configurations and the baseline. It is gathered one workload
 * at a time, so the report never holds more than one workload's records
 * for them. */
typedef struct fig_cross_set fig_cross_set;
/* A set for the figures f[0..n) (copied) with every workload of run->wl
 * still without records; NULL when out of memory. */
fig_cross_set *fig_cross_new(const rep_run *run, const rep_cross_fig *f,
                             int n);
/* Take workload wl (index in run->wl) from run->recs, which hold its
 * records (rep_run_select); replaces what the set had for it. */
void fig_cross_add(fig_cross_set *s, const rep_run *run, int wl);
/* fig_cross_new, then every journal workload's records in turn
 * (rep_run_each): one pass over the journal. */
int fig_cross_gather(rep_run *run, const rep_cross_fig *f, int n,
                     fig_cross_set **out, gd_err *err);
void fig_cross_free(fig_cross_set *s);

/* Draw figure i of s into box; title and caption unless its title="off"
 * (titled: always, as the report's pages do). */
void fig_cross_draw(chart_ctx *cc, const rep_run *run,
                    const fig_cross_set *s, int i, int titled,
                    chart_box box);
/* File stem: "line_KNOB_METRIC[_best]" or "bars_METRIC". */
void fig_cross_stem(const rep_run *run, const rep_cross_fig *f, char *out,
                    size_t n);
/* Write figure i of s to DIR/figures/STEM.svg and/or .pdf as the
 * CAMP_FMT_* bits say. */
int fig_cross_write_files(const rep_run *run, const fig_cross_set *s, int i,
                          int formats, const chart_font *font, gd_err *err);

#endif
