/* figures: figure kinds built from a run's data (today: the Pareto scatter
 * of one workload), drawn into a box of a page or into standalone
 * figures/NAME.{svg,pdf} files. New kinds register in the table in
 * figures.c. */
#ifndef GPUDSE_FIGURES_H
#define GPUDSE_FIGURES_H

#include "chart.h"
#include "figkit.h"    /* FIG_* bits, fig_axis_title */
#include "rundata.h"

/* The point count above which a scatter is a density raster, for the
 * flags (FIG_EXACT, FIG_DENSITY in figkit.h; SIZE_MAX: never). */
size_t fig_density_above(int flags);

/* Draw figure `kind` for workload wl (and metric, for kinds drawn per
 * metric) into box; log: FIG_LOG* bits. */
typedef void (*fig_draw_fn)(chart_ctx *cc, const rep_run *run, int wl,
                            const char *metric, int log, chart_box box);
/* 1 when the run has the data the kind needs (absent data: skipped). */
typedef int (*fig_avail_fn)(const rep_run *run, int wl, const char *metric);

typedef struct {
    const char *kind;      /* layout name, file name prefix: "pareto" */
    fig_draw_fn draw;
    fig_avail_fn avail;    /* NULL: always */
    int per_metric;        /* drawn once per metric of the layout item */
} fig_kind;

/* The kind called name, or NULL. */
const fig_kind *fig_kind_find(const char *name);
/* Known kind names, space separated, for error messages. */
const char *fig_kind_names(void);
int fig_available(const fig_kind *k, const rep_run *run, int wl,
                  const char *metric);

/* Standalone figure size in points: one paper column (single) or two. */
void fig_size(int single, double *w, double *h);

/* File stem "KIND_WORKLOAD[_METRIC]" (unsafe characters replaced). */
void fig_stem(const fig_kind *k, const rep_run *run, int wl,
              const char *metric, char *out, size_t n);
/* Write DIR/figures/STEM.svg and/or .pdf as the CAMP_FMT_* bits say,
 * the text in font (NULL: the default). */
int fig_write_files(const fig_kind *k, const rep_run *run, int wl,
                    const char *metric, int log, int formats,
                    const chart_font *font, gd_err *err);

#endif
