/* figures: figure kinds built from a run's data (today: the Pareto scatter
 * of one workload), drawn into a box of a page or into standalone
 * figures/NAME.{svg,pdf} files. New kinds register in the table in
 * figures.c. */
#ifndef GPUDSE_FIGURES_H
#define GPUDSE_FIGURES_H

#include "chart.h"
#include "rundata.h"

/* Draw figure `kind` for workload wl into box. */
typedef void (*fig_draw_fn)(chart_ctx *cc, const rep_run *run, int wl,
                            chart_box box);

typedef struct {
    const char *kind;      /* layout name, file name prefix: "pareto" */
    fig_draw_fn draw;
    double w, h;           /* standalone size in points */
} fig_kind;

/* The kind called name, or NULL. */
const fig_kind *fig_kind_find(const char *name);
/* Known kind names, space separated, for error messages. */
const char *fig_kind_names(void);

/* File stem "KIND_WORKLOAD" (unsafe characters replaced) into out. */
void fig_stem(const fig_kind *k, const rep_run *run, int wl, char *out,
              size_t n);
/* Write DIR/figures/STEM.svg and/or .pdf as the CAMP_FMT_* bits say. */
int fig_write_files(const fig_kind *k, const rep_run *run, int wl,
                    int formats, gd_err *err);

/* Axis title for a metric: "Area (mm²)". */
void fig_axis_title(const char *metric, char *out, size_t n);

#endif
