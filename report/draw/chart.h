/* chart: drawing primitives on a cairo_t — text with pango in a pinned font,
 * the Okabe-Ito palette, 1-2-5 axis scales, axes with ticks and labels,
 * de-duplicated scatter markers, step lines and legends. Figure kinds
 * (figures.c) and the document (report.c) are built from these. */
#ifndef GPUDSE_CHART_H
#define GPUDSE_CHART_H

#include <stddef.h>
#include <cairo.h>
#include <pango/pangocairo.h>
#include "output.h"

#define CHART_FONT "DejaVu Sans"
#define CHART_FONT_MONO "DejaVu Sans Mono"

/* A figure's text font: family "" is DejaVu Sans; size is the tick and
 * legend text in points (0: the default 8), every other text scaled with
 * it. Fixed-width text stays DejaVu Sans Mono. */
#define CHART_FONT_PT 8.0
typedef struct {
    char family[64];
    double size;
} chart_font;

/* A drawing context: the cairo_t, one reusable pango layout, and the
 * font family and scale (chart_set_font) its text is set in. */
typedef struct {
    cairo_t *cr;
    PangoLayout *lay;
    char family[64];
    double scale;
} chart_ctx;

typedef struct { double x, y, w, h; } chart_box;
typedef struct { double r, g, b, a; } chart_rgba;

/* Okabe-Ito colours (colour-blind safe). */
enum {
    CHART_BLACK, CHART_ORANGE, CHART_SKY, CHART_GREEN, CHART_YELLOW,
    CHART_BLUE, CHART_VERMILLION, CHART_PURPLE, CHART_NCOLOURS
};
chart_rgba chart_colour(int which, double alpha);
void chart_set_rgba(cairo_t *cr, chart_rgba c);

/* Text styles. */
typedef enum { CHART_REGULAR = 0, CHART_BOLD = 1, CHART_MONO = 2 } chart_style;
/* Anchors: where (x, y) is on the text's box. */
typedef enum { CHART_LEFT, CHART_CENTER, CHART_RIGHT } chart_halign;
typedef enum { CHART_TOP, CHART_MIDDLE, CHART_BOTTOM } chart_valign;

/* 0; CHART_ECAIRO when pango could not be set up (cairo_t in error);
 * CHART_EFONTS when fontconfig does not give the report's fonts (DejaVu
 * Sans and DejaVu Sans Mono): pango would lay the text out in whatever it
 * finds, or in empty boxes, and the figures would differ from host to host
 * (and, with no fonts at all, from run to run). chart_free either way. */
enum { CHART_ECAIRO = -1, CHART_EFONTS = -2 };
int chart_init(chart_ctx *cc, cairo_t *cr);
/* What a chart_init failure means and what to do, for "PATH: ..." errors. */
const char *chart_init_error(int rc);
void chart_free(chart_ctx *cc);
/* Set text from now on in font f (NULL or empty: the default): 0, or
 * CHART_EFONTS when fontconfig would substitute another family. */
int chart_set_font(chart_ctx *cc, const chart_font *f);
/* 0 when fontconfig has `family` itself; else -1 with the family it would
 * use instead in got (for "font X is not installed" errors). */
int chart_font_check(const char *family, char *got, size_t n);

/* One figure file: a w × h surface painted white, draw(cc, whole page,
 * arg), written atomically to path (rep_out_finish). A missing font or
 * cairo failure writes nothing and says what to do ("PATH: ..."). */
typedef void (*chart_draw_fn)(chart_ctx *cc, chart_box page, const void *arg);
int chart_write_file(rep_out_kind kind, double w, double h, const char *title,
                     const char *path, chart_draw_fn draw, const void *arg,
                     gd_err *err);
/* chart_write_file with the text in font (NULL: the default). */
int chart_write_file_font(rep_out_kind kind, double w, double h,
                          const char *title, const char *path,
                          const chart_font *font, chart_draw_fn draw,
                          const void *arg, gd_err *err);

/* Measure / draw text of size pt. wrap > 0 wraps at that width (words, then
 * characters). Sizes come back in *w, *h (either may be NULL). */
void chart_text_size(chart_ctx *cc, const char *txt, double pt, int style,
                     double wrap, double *w, double *h);
void chart_text(chart_ctx *cc, const char *txt, double pt, int style,
                double wrap, double x, double y, int halign, int valign,
                double *w, double *h);
/* Text rotated 90° counter-clockwise, centred on (x, y). */
void chart_text_vertical(chart_ctx *cc, const char *txt, double pt,
                         int style, double x, double y);

/* A linear scale whose limits are multiples of a 1-2-5 step, or (log set)
 * a base-10 log scale from decade to decade with ticks at 1, 2, 5 × 10^k
 * (or every decade, or every few decades, when the range is wide). */
#define CHART_MAXLOGTICKS 40
typedef struct {
    double lo, hi, step;
    int ndec;          /* decimals for tick labels; -1: use %g */
    int log;           /* 1: logarithmic (lo > 0) */
    int nlt;           /* log: number of ticks in lt */
    double lt[CHART_MAXLOGTICKS];
} chart_scale;

/* Scale covering [min, max] (padded by pad × range each side) with at most
 * maxticks intervals; copes with min == max and non-finite input. */
void chart_scale_fit(double min, double max, double pad, int maxticks,
                     chart_scale *s);
/* Log scale covering [min, max] (positive values only; non-positive or
 * non-finite input gives [1, 10]). */
void chart_scale_fit_log(double min, double max, int maxticks,
                         chart_scale *s);
/* A horizontal scale for an axis len points long: as many 1-2-5 ticks as
 * fit without their labels touching. */
void chart_scale_fit_x(chart_ctx *cc, double min, double max, double pad,
                       int log, double len, chart_scale *s);
/* Position of v along the scale in [0, 1] (NaN when v cannot be shown). */
double chart_scale_frac(const chart_scale *s, double v);
int chart_scale_nticks(const chart_scale *s);
double chart_scale_tick(const chart_scale *s, int i);
void chart_scale_label(const chart_scale *s, double v, char *buf, size_t n);

/* Axes: a plot box in device units and the two scales. An axis marked
 * categorical (xcat/ycat) gets no numeric ticks, labels or grid; the
 * caller draws its labels (chart_cat_labels) and says how much room they
 * take (xcat_h: height below the plot, ycat_w: width left of it). Zero the
 * struct before filling it. */
typedef struct {
    chart_box plot;
    chart_scale xs, ys;
    int xcat, ycat;
    double xcat_h, ycat_w;
} chart_axes;

double chart_map_x(const chart_axes *ax, double v);
double chart_map_y(const chart_axes *ax, double v);

/* Space the tick labels and axis titles need around a plot box. */
typedef struct { double left, bottom; double right, top; } chart_margins;
void chart_axes_margins(chart_ctx *cc, const chart_axes *ax,
                        chart_margins *m);
/* Frame, grid, ticks, tick labels, axis titles. */
void chart_axes_draw(chart_ctx *cc, const chart_axes *ax,
                     const char *xtitle, const char *ytitle);

/* Category labels: cats[i] centred on i + 0.5 of the categorical axis
 * (x: below the plot, wrapped to slot width; y: left of it, right-aligned,
 * wrapped to maxw). chart_cat_extent measures the same labels. */
double chart_cat_extent(chart_ctx *cc, int n, const char *const *cats,
                        int on_y, double maxw);
void chart_cat_labels(chart_ctx *cc, const chart_axes *ax, int n,
                      const char *const *cats, int on_y, double maxw);

typedef enum {
    CHART_CIRCLE, CHART_DIAMOND, CHART_TRIANGLE, CHART_SQUARE,
    CHART_NOMARKER     /* legends: a line sample alone */
} chart_marker;

/* Add one marker's outline at (x, y) (device units, radius r) to the path. */
void chart_marker_path(cairo_t *cr, int shape, double x, double y, double r);

/* Scatter n points (data units) as one filled path; points that land within
 * `merge` device units of an already drawn one are skipped (keeps 100,000
 * points cheap). Non-finite points are ignored. Returns markers drawn. */
size_t chart_scatter(chart_ctx *cc, const chart_axes *ax, const double *x,
                     const double *y, size_t n, int shape, double r,
                     chart_rgba fill, double merge);
/* Colour of a value t in [0, 1] (a sequential map such as viridis). */
typedef chart_rgba (*chart_cmap_fn)(double t);

/* Pixels per device unit of a density raster: 3 (216 dpi at 1 pt = 1/72
 * in). */
#define CHART_DENSITY_RES 2

/* Scatter n points as one image instead of one path element per point:
 * each point covers a disc of radius r (device units); a pixel covered
 * by one point gets fill (its alpha), the densest pixel full opacity, in
 * between on a log scale of how many points cover it. With z (may be
 * NULL) and cmap, a pixel's colour is cmap of the mean of (z - zlo) /
 * (zhi - zlo) over the points covering it. The image is clipped to the
 * plot box and embedded in the PDF/SVG; it depends only on the points
 * (byte-identical figures). Returns the points binned (finite, on the
 * plot). */
size_t chart_density(chart_ctx *cc, const chart_axes *ax, const double *x,
                     const double *y, const double *z, size_t n, double r,
                     chart_rgba fill, chart_cmap_fn cmap, double zlo,
                     double zhi);
/* Outline markers on top of filled ones (same points, no merge). */
void chart_markers_stroked(chart_ctx *cc, const chart_axes *ax,
                           const double *x, const double *y, size_t n,
                           int shape, double r, chart_rgba fill,
                           chart_rgba edge);
/* Staircase through points already ordered along x: horizontal, then
 * vertical. */
void chart_step_line(chart_ctx *cc, const chart_axes *ax, const double *x,
                     const double *y, size_t n, chart_rgba c, double width);

/* One legend entry. */
typedef struct {
    const char *label;
    int shape;
    chart_rgba fill, edge;
    int line;          /* also draw a line sample through the marker */
} chart_legend_item;

/* Lay entries out left to right from (x, y), wrapping within width; draws
 * when draw != 0. Returns the height used. */
double chart_legend(chart_ctx *cc, const chart_legend_item *it, int n,
                    double x, double y, double width, int draw);

#endif
