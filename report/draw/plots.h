/* plots: chart kinds drawn from plain arrays, independent of run
 * directories — line charts with bands (median and IQR), grouped bars with
 * error bars, heatmaps with a colour bar and cell values, predicted-vs-
 * measured scatter with y = x and ±10 %/±20 % bands, and horizontal bars
 * (per-knob sensitivity). Report pages (workload sections, strategy study,
 * calibration) fill a plot_spec and call plot_draw or plot_write_file.
 * Non-finite values are skipped and said so; empty data draws a message. */
#ifndef GPUDSE_PLOTS_H
#define GPUDSE_PLOTS_H

#include <stddef.h>
#include "chart.h"
#include "output.h"

/* One line of a line chart: mid[i] at x[i] (both required when n > 0);
 * lo/hi (may be NULL) bound a shaded band, e.g. the 25th and 75th
 * percentiles around the median. */
typedef struct {
    const char *label;
    size_t n;
    const double *x, *mid, *lo, *hi;
} plot_series;

typedef struct {
    const char *band_label;    /* legend text of the bands ("IQR") or NULL */
    int nseries;
    const plot_series *series;
} plot_lines;

/* Grouped bars: value[g * nseries + s] for group g (x category) and series
 * s; err (may be NULL) is the ± half-length of the error bar, or lo/hi
 * (both non-NULL) its ends, e.g. the quartiles around a median. */
typedef struct {
    int ngroups, nseries;
    const char *const *group;   /* ngroups labels (required) */
    const char *const *series;  /* legend labels; NULL with one series */
    const double *value, *err;
    const double *lo, *hi;
} plot_bars;

/* Heatmap: v[j * nx + i] for column xlab[i], row ylab[j] (row 0 at the
 * bottom; labels required); NaN: no data. */
typedef struct {
    int nx, ny;
    const char *const *xlab, *const *ylab;
    const double *v;
    const char *ctitle;        /* colour bar title, e.g. "IPC (mean)" */
} plot_heatmap;

/* Predicted (x) against measured (y); label (may be NULL) names points. */
typedef struct {
    size_t n;
    const double *pred, *meas;
    const char *const *label;
} plot_pvm;

/* Horizontal bars (labels required), drawn top to bottom in the given
 * order; the first `highlight` bars get the accent colour. */
typedef struct {
    int n;
    const char *const *label;
    const double *value;
    int highlight;
} plot_hbars;

typedef enum {
    PLOT_LINES, PLOT_BARS, PLOT_HEATMAP, PLOT_PVM, PLOT_HBARS
} plot_kind;

typedef struct {
    int kind;                  /* plot_kind */
    const char *title;         /* bold, wrapped */
    const char *note;          /* smaller text under the title, or NULL */
    const char *xtitle, *ytitle;   /* with units: "Area (mm²)" */
    int xlog, ylog;            /* log axes on request (positive data) */
    /* {lo, hi} axis ranges on request (lines: x and y; bars: y), or NULL:
     * fit to the data. Marks outside are clipped. */
    const double *xrange, *yrange;
    const chart_font *font;    /* plot_write_file's text; NULL: default */
    union {
        plot_lines lines;
        plot_bars bars;
        plot_heatmap heat;
        plot_pvm pvm;
        plot_hbars hbars;
    } u;
} plot_spec;

/* Draw into box (device units). */
void plot_draw(chart_ctx *cc, const plot_spec *p, chart_box box);
/* Draw onto a fresh w × h surface and write it to path atomically. */
int plot_write_file(const plot_spec *p, rep_out_kind kind, double w,
                    double h, const char *path, gd_err *err);

/* Title and note at the top of box; returns the height used (draw = 0
 * only measures). Shared with the run-data figures. */
double plot_header(chart_ctx *cc, const char *title, const char *note,
                   chart_box box, int draw);
/* Series colour / marker shape i (Okabe-Ito order, never yellow on
 * white first). */
chart_rgba plot_series_colour(int i, double alpha);
int plot_series_shape(int i);
/* Sequential colour-blind-safe map (viridis) at t in [0, 1]. */
chart_rgba plot_seq_colour(double t);
/* A viridis colour bar for scale cs right of ax's plot, with its tick
 * labels and title (the metric and its unit); plot_cbar_width is the
 * room it takes right of the plot box. */
double plot_cbar_width(chart_ctx *cc, const chart_scale *cs);
void plot_cbar_draw(chart_ctx *cc, const chart_axes *ax,
                    const chart_scale *cs, const char *title);

#endif
