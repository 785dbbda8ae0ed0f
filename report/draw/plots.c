/* plots: the array-fed chart kinds (lines with bands, grouped bars with
 * error bars, heatmap with colour bar, predicted-vs-measured, horizontal
 * bars) on top of chart.c, each laid out as title, note, plot and a legend
 * below the plot so it never covers data. */
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P_PAD 4.0
#define P_TITLE_PT 10.0
#define P_NOTE_PT 8.0
#define P_VAL_PT 7.0
#define P_MSG_PT 10.0
#define CBAR_W 10.0

/* ---- shared pieces ---------------------------------------------------- */

chart_rgba plot_series_colour(int i, double alpha)
{
    static const int order[] = { CHART_BLUE, CHART_ORANGE, CHART_GREEN,
                                 CHART_VERMILLION, CHART_SKY, CHART_PURPLE,
                                 CHART_BLACK, CHART_YELLOW };
    return chart_colour(order[(i < 0 ? 0 : i) % 8], alpha);
}

int plot_series_shape(int i)
{
    static const int order[] = { CHART_CIRCLE, CHART_SQUARE, CHART_TRIANGLE,
                                 CHART_DIAMOND };
    return order[(i < 0 ? 0 : i) % 4];
}

chart_rgba plot_seq_colour(double t)
{
    /* viridis at 0, 1/6, ..., 1 */
    static const double a[7][3] = {
        { 0.267, 0.005, 0.329 }, { 0.255, 0.267, 0.529 },
        { 0.191, 0.407, 0.556 }, { 0.128, 0.567, 0.551 },
        { 0.207, 0.718, 0.473 }, { 0.565, 0.843, 0.263 },
        { 0.993, 0.906, 0.144 }
    };
    if (!isfinite(t))
        t = 0;
    t = fmin(1, fmax(0, t)) * 6;
    int i = (int)floor(t);
    if (i >= 6)
        i = 5;
    double f = t - i;
    chart_rgba c = { a[i][0] + f * (a[i + 1][0] - a[i][0]),
                     a[i][1] + f * (a[i + 1][1] - a[i][1]),
                     a[i][2] + f * (a[i + 1][2] - a[i][2]), 1 };
    return c;
}

double plot_header(chart_ctx *cc, const char *title, const char *note,
                   chart_box box, int draw)
{
    double h = 0, y = box.y;
    cairo_set_source_rgb(cc->cr, 0, 0, 0);
    if (title && *title) {
        if (draw)
            chart_text(cc, title, P_TITLE_PT, CHART_BOLD, box.w, box.x, y,
                       CHART_LEFT, CHART_TOP, NULL, &h);
        else
            chart_text_size(cc, title, P_TITLE_PT, CHART_BOLD, box.w, NULL,
                            &h);
        y += h;
    }
    if (note && *note) {
        cairo_set_source_rgb(cc->cr, 0.25, 0.25, 0.25);
        if (draw)
            chart_text(cc, note, P_NOTE_PT, CHART_REGULAR, box.w, box.x,
                       y + 2, CHART_LEFT, CHART_TOP, NULL, &h);
        else
            chart_text_size(cc, note, P_NOTE_PT, CHART_REGULAR, box.w, NULL,
                            &h);
        y += h + 2;
        cairo_set_source_rgb(cc->cr, 0, 0, 0);
    }
    return y - box.y + 6;
}

/* Everything a kind lays out around its plot. */
typedef struct {
    chart_box box;             /* inside the padding */
    chart_box area;            /* for axes + their labels */
    chart_legend_item leg[12];
    char leglbl[12][96];
    int nleg;
    char note[1024];
    size_t hidden;             /* values not shown */
} frame;

static void frame_begin(frame *f, chart_box box)
{
    memset(f, 0, sizeof *f);
    f->box = (chart_box){ box.x + P_PAD, box.y + P_PAD, box.w - 2 * P_PAD,
                          box.h - 2 * P_PAD };
}

static void frame_leg(frame *f, const char *label, int shape,
                      chart_rgba fill, chart_rgba edge, int line)
{
    if (f->nleg >= 12)
        return;
    util_strlcpy(f->leglbl[f->nleg], label, sizeof f->leglbl[0]);
    f->leg[f->nleg] = (chart_legend_item){ f->leglbl[f->nleg], shape, fill,
                                           edge, line };
    f->nleg++;
}

/* Header and legend room: sets f->area. */
static void frame_layout(chart_ctx *cc, const plot_spec *p, frame *f)
{
    char note[1400];
    snprintf(note, sizeof note, "%s%s%s", p->note ? p->note : "",
             p->note && *p->note && f->note[0] ? " " : "", f->note);
    util_strlcpy(f->note, note, sizeof f->note);
    if (f->hidden)
        snprintf(f->note + strlen(f->note), sizeof f->note - strlen(f->note),
                 "%s%zu value%s not shown (NaN, infinite%s).",
                 f->note[0] ? " " : "", f->hidden, f->hidden == 1 ? "" : "s",
                 p->xlog || p->ylog ? ", or not positive on a log axis" : "");
    double top = plot_header(cc, p->title, f->note, f->box, 1);
    double legh = f->nleg ? chart_legend(cc, f->leg, f->nleg, f->box.x, 0,
                                         f->box.w, 0) + 8 : 0;
    f->area = (chart_box){ f->box.x, f->box.y + top, f->box.w,
                           f->box.h - top - legh };
}

static void frame_legend(chart_ctx *cc, const frame *f)
{
    if (!f->nleg)
        return;
    double legh = chart_legend(cc, f->leg, f->nleg, f->box.x, 0, f->box.w,
                               0);
    chart_legend(cc, f->leg, f->nleg, f->box.x, f->box.y + f->box.h - legh,
                 f->box.w, 1);
}

static int shown(double v, int log)
{
    return isfinite(v) && (!log || v > 0);
}

/* Extend [lo, hi] by the shown values of v (counting the others). */
static void range_of(const double *v, size_t n, int log, double *lo,
                     double *hi, size_t *hidden)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!shown(v[i], log)) {
            if (hidden)
                (*hidden)++;
            continue;
        }
        *lo = fmin(*lo, v[i]);
        *hi = fmax(*hi, v[i]);
    }
}

static void fit_scale(chart_scale *s, double lo, double hi, int log,
                      double pad, double len, double per_tick)
{
    int nt = (int)fmax(2, len / per_tick);
    if (log)
        chart_scale_fit_log(lo, hi, nt, s);
    else
        chart_scale_fit(lo, hi, pad, nt, s);
}

/* Numeric axes filling area: scales fitted to the data ranges, the plot
 * box inside the room the labels need. */
static void fit_axes(chart_ctx *cc, chart_axes *ax, chart_box area,
                     const double *xr, const double *yr, int xlog, int ylog)
{
    chart_margins m;
    chart_scale_fit_x(cc, xr[0], xr[1], 0.03, xlog, area.w * 0.85, &ax->xs);
    fit_scale(&ax->ys, yr[0], yr[1], ylog, 0.04, area.h, 36);
    chart_axes_margins(cc, ax, &m);
    ax->plot = (chart_box){ area.x + m.left, area.y + m.top,
                            area.w - m.left - m.right,
                            area.h - m.top - m.bottom };
}

static void clip_plot(cairo_t *cr, const chart_axes *ax)
{
    cairo_save(cr);
    cairo_rectangle(cr, ax->plot.x, ax->plot.y, ax->plot.w, ax->plot.h);
    cairo_clip(cr);
    cairo_new_path(cr);
}

static void empty_msg(chart_ctx *cc, const chart_axes *ax, const char *msg)
{
    cairo_set_source_rgb(cc->cr, 0.3, 0.3, 0.3);
    chart_text(cc, msg, P_MSG_PT, CHART_REGULAR, ax->plot.w - 20,
               ax->plot.x + ax->plot.w / 2, ax->plot.y + ax->plot.h / 2,
               CHART_CENTER, CHART_MIDDLE, NULL, NULL);
}

static const char *txt(const char *s)
{
    return s ? s : "";
}

/* ---- lines with bands ------------------------------------------------- */

static int pt_ok(const chart_axes *ax, double x, double y)
{
    return isfinite(chart_map_x(ax, x)) && isfinite(chart_map_y(ax, y));
}

/* Band polygons over runs of points whose x, lo and hi can be shown. */
static void lines_band(chart_ctx *cc, const chart_axes *ax,
                       const plot_series *s, chart_rgba c)
{
    size_t i = 0;
    while (i < s->n) {
        while (i < s->n && !(pt_ok(ax, s->x[i], s->lo[i])
                             && pt_ok(ax, s->x[i], s->hi[i])))
            i++;
        size_t j = i;
        while (j < s->n && pt_ok(ax, s->x[j], s->lo[j])
               && pt_ok(ax, s->x[j], s->hi[j]))
            j++;
        if (j > i) {
            cairo_new_path(cc->cr);
            for (size_t k = i; k < j; k++)
                cairo_line_to(cc->cr, chart_map_x(ax, s->x[k]),
                              chart_map_y(ax, s->hi[k]));
            for (size_t k = j; k > i; k--)
                cairo_line_to(cc->cr, chart_map_x(ax, s->x[k - 1]),
                              chart_map_y(ax, s->lo[k - 1]));
            cairo_close_path(cc->cr);
            chart_set_rgba(cc->cr, c);
            cairo_fill(cc->cr);
        }
        i = j;
    }
}

/* Long lines: a marker about every twelfth of the plot's width, each
 * series shifted by its share of that step, so lines are told apart in
 * greyscale print without a marker per point. */
#define SPARSE_MARKS 12

static void lines_sparse_markers(chart_ctx *cc, const chart_axes *ax,
                                 const plot_series *s, int idx, int nser)
{
    double mx[SPARSE_MARKS + 2], my[SPARSE_MARKS + 2];
    double step = ax->plot.w / SPARSE_MARKS;
    double next = ax->plot.x + step * (0.25 + 0.5 * idx / (nser ? nser : 1));
    size_t m = 0;
    for (size_t k = 0; k < s->n && m < SPARSE_MARKS + 2; k++) {
        if (!pt_ok(ax, s->x[k], s->mid[k]))
            continue;
        double px = chart_map_x(ax, s->x[k]);
        if (px < next)
            continue;
        mx[m] = s->x[k];
        my[m++] = s->mid[k];
        while (next <= px)
            next += step;
    }
    chart_markers_stroked(cc, ax, mx, my, m, plot_series_shape(idx), 2.2,
                          plot_series_colour(idx, 1),
                          chart_colour(CHART_BLACK, 1));
}

static void lines_line(chart_ctx *cc, const chart_axes *ax,
                       const plot_series *s, int idx, int nser)
{
    int pen = 0;
    cairo_new_path(cc->cr);
    for (size_t k = 0; k < s->n; k++) {
        if (!pt_ok(ax, s->x[k], s->mid[k])) {
            pen = 0;
            continue;
        }
        double px = chart_map_x(ax, s->x[k]), py = chart_map_y(ax, s->mid[k]);
        if (pen)
            cairo_line_to(cc->cr, px, py);
        else
            cairo_move_to(cc->cr, px, py);
        pen = 1;
    }
    chart_set_rgba(cc->cr, plot_series_colour(idx, 1));
    cairo_set_line_width(cc->cr, 1.4);
    cairo_set_line_join(cc->cr, CAIRO_LINE_JOIN_ROUND);
    cairo_stroke(cc->cr);
    if (s->n <= 60)
        chart_markers_stroked(cc, ax, s->x, s->mid, s->n,
                              plot_series_shape(idx), 2.2,
                              plot_series_colour(idx, 1),
                              chart_colour(CHART_BLACK, 1));
    else
        lines_sparse_markers(cc, ax, s, idx, nser);
}

static void draw_lines(chart_ctx *cc, const plot_spec *p, chart_box box)
{
    const plot_lines *l = &p->u.lines;
    frame f;
    chart_axes ax;
    double xr[2] = { INFINITY, -INFINITY }, yr[2] = { INFINITY, -INFINITY };
    int band = 0;
    size_t npts = 0;
    memset(&ax, 0, sizeof ax);
    frame_begin(&f, box);
    for (int i = 0; i < l->nseries; i++) {
        const plot_series *s = &l->series[i];
        range_of(s->x, s->n, p->xlog, &xr[0], &xr[1], &f.hidden);
        range_of(s->mid, s->n, p->ylog, &yr[0], &yr[1], &f.hidden);
        range_of(s->lo, s->n, p->ylog, &yr[0], &yr[1], NULL);
        range_of(s->hi, s->n, p->ylog, &yr[0], &yr[1], NULL);
        band |= s->lo && s->hi;
        npts += s->n;
        frame_leg(&f, txt(s->label), plot_series_shape(i),
                  plot_series_colour(i, 1), plot_series_colour(i, 1), 1);
    }
    if (band)
        frame_leg(&f, l->band_label ? l->band_label : "interquartile range",
                  CHART_SQUARE, chart_colour(CHART_BLACK, 0.18),
                  chart_colour(CHART_BLACK, 0.18), 0);
    frame_layout(cc, p, &f);
    if (p->xrange && isfinite(xr[0])) {
        xr[0] = p->xrange[0];
        xr[1] = p->xrange[1];
    }
    if (p->yrange && isfinite(yr[0])) {
        yr[0] = p->yrange[0];
        yr[1] = p->yrange[1];
    }
    fit_axes(cc, &ax, f.area, xr, yr, p->xlog, p->ylog);
    chart_axes_draw(cc, &ax, txt(p->xtitle), txt(p->ytitle));
    if (!isfinite(xr[0]) || !isfinite(yr[0]))
        empty_msg(cc, &ax, npts ? "no plottable values" : "no data");
    clip_plot(cc->cr, &ax);
    for (int i = 0; i < l->nseries; i++)
        if (l->series[i].lo && l->series[i].hi)
            lines_band(cc, &ax, &l->series[i], plot_series_colour(i, 0.22));
    for (int i = 0; i < l->nseries; i++)
        lines_line(cc, &ax, &l->series[i], i, l->nseries);
    cairo_restore(cc->cr);
    frame_legend(cc, &f);
}

/* ---- grouped bars with error bars ------------------------------------- */

/* Ends of bar i's error bar; 0 when it has none. */
static int bar_whisker(const plot_bars *b, size_t i, double *lo, double *hi)
{
    if (b->lo && b->hi) {
        *lo = b->lo[i];
        *hi = b->hi[i];
    } else if (b->err && isfinite(b->err[i]) && b->err[i] > 0) {
        *lo = b->value[i] - fabs(b->err[i]);
        *hi = b->value[i] + fabs(b->err[i]);
    } else {
        return 0;
    }
    return isfinite(*lo) && isfinite(*hi) && *hi > *lo;
}

static void bar_errbar(cairo_t *cr, const chart_axes *ax, double cx,
                       double lo, double hi, double w)
{
    double y0 = chart_map_y(ax, lo), y1 = chart_map_y(ax, hi);
    if (!isfinite(y0))
        y0 = ax->plot.y + ax->plot.h;
    if (!isfinite(y1))
        return;
    cairo_move_to(cr, cx, y0);
    cairo_line_to(cr, cx, y1);
    cairo_move_to(cr, cx - w / 2, y0);
    cairo_line_to(cr, cx + w / 2, y0);
    cairo_move_to(cr, cx - w / 2, y1);
    cairo_line_to(cr, cx + w / 2, y1);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.8);
    cairo_stroke(cr);
}

static void bars_marks(chart_ctx *cc, const plot_spec *p,
                       const chart_axes *ax)
{
    const plot_bars *b = &p->u.bars;
    double slot = ax->plot.w / b->ngroups;
    double bw = slot * 0.8 / b->nseries;
    double base = p->ylog ? ax->ys.lo : fmax(ax->ys.lo, fmin(0, ax->ys.hi));
    double y0 = chart_map_y(ax, base);
    for (int g = 0; g < b->ngroups; g++)
        for (int s = 0; s < b->nseries; s++) {
            size_t i = (size_t)(g * b->nseries + s);
            double v = b->value[i], lo, hi;
            double x = ax->plot.x + g * slot + slot * 0.1 + s * bw;
            if (!shown(v, p->ylog)) {   /* say so where the bar would be */
                double tw;
                chart_text_size(cc, "n/a", P_VAL_PT, CHART_REGULAR, 0, &tw,
                                NULL);
                cairo_set_source_rgb(cc->cr, 0.35, 0.35, 0.35);
                if (tw <= bw)
                    chart_text(cc, "n/a", P_VAL_PT, CHART_REGULAR, 0,
                               x + bw / 2, fmin(y0, ax->plot.y + ax->plot.h)
                               - 2, CHART_CENTER, CHART_BOTTOM, NULL, NULL);
                continue;
            }
            double y = chart_map_y(ax, v);
            cairo_rectangle(cc->cr, x, fmin(y, y0), bw, fabs(y0 - y));
            chart_set_rgba(cc->cr, plot_series_colour(s, 1));
            cairo_fill_preserve(cc->cr);
            cairo_set_source_rgb(cc->cr, 0, 0, 0);
            cairo_set_line_width(cc->cr, 0.4);
            cairo_stroke(cc->cr);
            if (bar_whisker(b, i, &lo, &hi))
                bar_errbar(cc->cr, ax, x + bw / 2, lo, hi, fmin(bw * 0.5, 8));
        }
}

static void bars_range(const plot_spec *p, double *yr, size_t *hidden)
{
    const plot_bars *b = &p->u.bars;
    size_t n = (size_t)b->ngroups * (size_t)b->nseries;
    range_of(b->value, n, p->ylog, &yr[0], &yr[1], hidden);
    for (size_t i = 0; i < n; i++) {
        double lo, hi;
        if (!shown(b->value[i], p->ylog) || !bar_whisker(b, i, &lo, &hi))
            continue;
        yr[1] = fmax(yr[1], hi);
        if (!p->ylog || lo > 0)
            yr[0] = fmin(yr[0], lo);
    }
    if (!p->ylog && isfinite(yr[0])) {
        yr[0] = fmin(yr[0], 0);
        yr[1] = fmax(yr[1], 0);
        double span = yr[1] - yr[0];   /* bars never touch the frame */
        yr[1] += yr[1] > 0 ? 0.04 * span : 0;
        yr[0] -= yr[0] < 0 ? 0.04 * span : 0;
    }
}

static void draw_bars(chart_ctx *cc, const plot_spec *p, chart_box box)
{
    const plot_bars *b = &p->u.bars;
    frame f;
    chart_axes ax;
    chart_margins m;
    double yr[2] = { INFINITY, -INFINITY };
    memset(&ax, 0, sizeof ax);
    frame_begin(&f, box);
    int ng = b->ngroups > 0 && b->nseries > 0 ? b->ngroups : 0;
    if (ng)
        bars_range(p, yr, &f.hidden);
    if (ng && p->yrange && isfinite(yr[0])) {
        yr[0] = p->yrange[0];
        yr[1] = p->yrange[1];
    }
    for (int s = 0; ng && b->series && s < b->nseries; s++)
        frame_leg(&f, txt(b->series[s]), CHART_SQUARE,
                  plot_series_colour(s, 1), chart_colour(CHART_BLACK, 1), 0);
    frame_layout(cc, p, &f);
    ax.xcat = 1;
    ax.xs = (chart_scale){ 0, ng ? ng : 1, 1, 0, 0, 0, { 0 } };
    fit_scale(&ax.ys, yr[0], yr[1], p->ylog, 0.0, f.area.h, 36);
    chart_axes_margins(cc, &ax, &m);
    double slotw = (f.area.w - m.left - m.right) / (ng ? ng : 1) - 2;
    ax.xcat_h = ng ? chart_cat_extent(cc, ng, b->group, 0, slotw) : 0;
    chart_axes_margins(cc, &ax, &m);
    ax.plot = (chart_box){ f.area.x + m.left, f.area.y + m.top,
                           f.area.w - m.left - m.right,
                           f.area.h - m.top - m.bottom };
    chart_axes_draw(cc, &ax, txt(p->xtitle), txt(p->ytitle));
    if (ng)
        chart_cat_labels(cc, &ax, ng, b->group, 0, slotw);
    if (!ng || !isfinite(yr[0]))
        empty_msg(cc, &ax, ng ? "no plottable values" : "no data");
    else if (p->yrange) {   /* bars beyond a requested range are cut */
        clip_plot(cc->cr, &ax);
        bars_marks(cc, p, &ax);
        cairo_restore(cc->cr);
    } else
        bars_marks(cc, p, &ax);
    frame_legend(cc, &f);
}

/* ---- heatmap ---------------------------------------------------------- */

static void cell_text(double v, char *out, size_t n)
{
    if (fabs(v) >= 1000 && fabs(v) < 1e7)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.3g", v);
}

static void heat_cell(chart_ctx *cc, const chart_axes *ax,
                      const chart_scale *cs, int i, int j, double v)
{
    double x0 = chart_map_x(ax, i), x1 = chart_map_x(ax, i + 1);
    double y0 = chart_map_y(ax, j + 1), y1 = chart_map_y(ax, j);
    char buf[32];
    chart_rgba c = { 0.9, 0.9, 0.9, 1 };
    if (isfinite(v))
        c = plot_seq_colour((v - cs->lo) / (cs->hi - cs->lo));
    cairo_rectangle(cc->cr, x0, y0, x1 - x0, y1 - y0);
    chart_set_rgba(cc->cr, c);
    cairo_fill_preserve(cc->cr);
    cairo_set_source_rgb(cc->cr, 1, 1, 1);
    cairo_set_line_width(cc->cr, 0.6);
    cairo_stroke(cc->cr);
    if (isfinite(v) && cs->ndec >= 0)   /* one digit finer than the ticks */
        snprintf(buf, sizeof buf, "%.*f", cs->ndec + 1 > 6 ? 6
                                          : cs->ndec + 1, v);
    else if (isfinite(v))
        cell_text(v, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "n/a");
    for (double pt = P_VAL_PT; pt >= 5.0; pt -= 1.0) {
        double w, h;
        chart_text_size(cc, buf, pt, CHART_REGULAR, 0, &w, &h);
        if (w > x1 - x0 - 2 || h > y1 - y0 - 1)
            continue;
        double lum = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
        if (lum < 0.45)
            cairo_set_source_rgb(cc->cr, 1, 1, 1);
        else
            cairo_set_source_rgb(cc->cr, 0, 0, 0);
        chart_text(cc, buf, pt, CHART_REGULAR, 0, (x0 + x1) / 2,
                   (y0 + y1) / 2, CHART_CENTER, CHART_MIDDLE, NULL, NULL);
        break;
    }
}

/* Width the colour bar takes right of the plot. */
double plot_cbar_width(chart_ctx *cc, const chart_scale *cs)
{
    char buf[64];
    double maxw = 0, th;
    for (int i = 0; i < chart_scale_nticks(cs); i++) {
        double w;
        chart_scale_label(cs, chart_scale_tick(cs, i), buf, sizeof buf);
        chart_text_size(cc, buf, 8, CHART_REGULAR, 0, &w, NULL);
        maxw = fmax(maxw, w);
    }
    chart_text_size(cc, "Ag", 9, CHART_REGULAR, 0, NULL, &th);
    return 12 + CBAR_W + 4 + 4 + maxw + 6 + th;
}

void plot_cbar_draw(chart_ctx *cc, const chart_axes *ax,
                    const chart_scale *cs, const char *title)
{
    char buf[64];
    double x = ax->plot.x + ax->plot.w + 12, y = ax->plot.y, h = ax->plot.h;
    double maxw = 0;
    for (int k = 0; k < 64; k++) {
        double t0 = k / 64.0, t1 = (k + 1) / 64.0;
        cairo_rectangle(cc->cr, x, y + h - t1 * h, CBAR_W, (t1 - t0) * h + 0.3);
        chart_set_rgba(cc->cr, plot_seq_colour((t0 + t1) / 2));
        cairo_fill(cc->cr);
    }
    cairo_set_source_rgb(cc->cr, 0, 0, 0);
    cairo_set_line_width(cc->cr, 0.6);
    cairo_rectangle(cc->cr, x, y, CBAR_W, h);
    for (int i = 0; i < chart_scale_nticks(cs); i++) {
        double v = chart_scale_tick(cs, i);
        double ty = y + h - (v - cs->lo) / (cs->hi - cs->lo) * h, w;
        cairo_move_to(cc->cr, x + CBAR_W, ty);
        cairo_line_to(cc->cr, x + CBAR_W + 4, ty);
        chart_scale_label(cs, v, buf, sizeof buf);
        chart_text(cc, buf, 8, CHART_REGULAR, 0, x + CBAR_W + 8, ty,
                   CHART_LEFT, CHART_MIDDLE, &w, NULL);
        maxw = fmax(maxw, w);
    }
    cairo_stroke(cc->cr);
    double th;
    chart_text_size(cc, "Ag", 9, CHART_REGULAR, 0, NULL, &th);
    chart_text_vertical(cc, txt(title), 9, CHART_REGULAR,
                        x + CBAR_W + 8 + maxw + 6 + th / 2, y + h / 2);
}

static void draw_heatmap(chart_ctx *cc, const plot_spec *p, chart_box box)
{
    const plot_heatmap *hm = &p->u.heat;
    frame f;
    chart_axes ax;
    chart_margins m;
    chart_scale cs;
    double vr[2] = { INFINITY, -INFINITY };
    memset(&ax, 0, sizeof ax);
    frame_begin(&f, box);
    int nx = hm->nx > 0 && hm->ny > 0 ? hm->nx : 0;
    int ny = nx ? hm->ny : 0;
    range_of(hm->v, (size_t)nx * (size_t)ny, 0, &vr[0], &vr[1], NULL);
    frame_layout(cc, p, &f);
    chart_scale_fit(vr[0], vr[1], 0, (int)fmax(2, f.area.h / 40), &cs);
    ax.xcat = ax.ycat = 1;
    ax.xs = (chart_scale){ 0, nx ? nx : 1, 1, 0, 0, 0, { 0 } };
    ax.ys = (chart_scale){ 0, ny ? ny : 1, 1, 0, 0, 0, { 0 } };
    double labw = f.area.w * 0.3;
    ax.ycat_w = ny ? chart_cat_extent(cc, ny, hm->ylab, 1, labw) : 0;
    chart_axes_margins(cc, &ax, &m);
    double cbw = plot_cbar_width(cc, &cs);
    double slotw = (f.area.w - m.left - cbw) / (nx ? nx : 1) - 2;
    ax.xcat_h = nx ? chart_cat_extent(cc, nx, hm->xlab, 0, slotw) : 0;
    chart_axes_margins(cc, &ax, &m);
    ax.plot = (chart_box){ f.area.x + m.left, f.area.y + m.top,
                           f.area.w - m.left - cbw,
                           f.area.h - m.top - m.bottom };
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            heat_cell(cc, &ax, &cs, i, j, hm->v[j * nx + i]);
    chart_axes_draw(cc, &ax, txt(p->xtitle), txt(p->ytitle));
    chart_cat_labels(cc, &ax, nx, hm->xlab, 0, slotw);
    chart_cat_labels(cc, &ax, ny, hm->ylab, 1, labw);
    if (!nx)
        empty_msg(cc, &ax, "no data");
    else if (!isfinite(vr[0]))
        empty_msg(cc, &ax, "no plottable values");
    plot_cbar_draw(cc, &ax, &cs, hm->ctitle);
}

/* ---- predicted vs measured -------------------------------------------- */

/* Points whose error relative to the measured value is within frac. */
static size_t within(const plot_pvm *v, double frac, size_t *valid)
{
    size_t n = 0;
    *valid = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (!isfinite(v->pred[i]) || !isfinite(v->meas[i])
            || v->meas[i] == 0)
            continue;
        (*valid)++;
        n += fabs(v->pred[i] - v->meas[i]) <= frac * fabs(v->meas[i])
                                                  * (1 + 1e-12);
    }
    return n;
}

/* measured = predicted / (1 ± frac): the band of relative error frac. */
static void pvm_band(chart_ctx *cc, const chart_axes *ax, double frac,
                     chart_rgba c)
{
    double lo = ax->xs.lo, hi = ax->xs.hi;
    double k1 = 1 / (1 + frac), k2 = 1 / (1 - frac);
    cairo_new_path(cc->cr);
    /* Long enough to leave the (clipped) plot for any sign of x. */
    double pts[4][2] = { { lo, lo * k1 }, { hi, hi * k1 }, { hi, hi * k2 },
                         { lo, lo * k2 } };
    for (int i = 0; i < 4; i++)
        cairo_line_to(cc->cr, chart_map_x(ax, pts[i][0]),
                      chart_map_y(ax, pts[i][1]));
    cairo_close_path(cc->cr);
    chart_set_rgba(cc->cr, c);
    cairo_fill(cc->cr);
}

/* Point labels, each placed right (else left) of its point and skipped
 * when it would cover an earlier label. */
static void pvm_labels(chart_ctx *cc, const chart_axes *ax, const plot_pvm *v)
{
    const chart_box *p = &ax->plot;
    chart_box placed[64];
    int np = 0;
    for (size_t i = 0; i < v->n && np < 64; i++) {
        double px = chart_map_x(ax, v->pred[i]), py = chart_map_y(ax, v->meas[i]);
        double w, h;
        if (!v->label[i] || !isfinite(px) || !isfinite(py))
            continue;
        chart_text_size(cc, v->label[i], P_VAL_PT, CHART_REGULAR, 0, &w, &h);
        double tx = px + 4;
        if (tx + w > p->x + p->w - 1)
            tx = px - 4 - w;
        double ty = fmin(fmax(py - h - 1, p->y + 1), p->y + p->h - h - 1);
        int clash = 0;
        for (int k = 0; k < np && !clash; k++)
            clash = tx < placed[k].x + placed[k].w && placed[k].x < tx + w
                    && ty < placed[k].y + placed[k].h && placed[k].y < ty + h;
        if (clash)
            continue;
        placed[np++] = (chart_box){ tx, ty, w, h };
        cairo_set_source_rgb(cc->cr, 0.1, 0.1, 0.1);
        chart_text(cc, v->label[i], P_VAL_PT, CHART_REGULAR, 0, tx, ty,
                   CHART_LEFT, CHART_TOP, NULL, NULL);
    }
}

static void draw_pvm(chart_ctx *cc, const plot_spec *p, chart_box box)
{
    const plot_pvm *v = &p->u.pvm;
    frame f;
    chart_axes ax;
    double r[2] = { INFINITY, -INFINITY };
    size_t valid, in10, in20;
    int log = p->xlog || p->ylog;
    memset(&ax, 0, sizeof ax);
    frame_begin(&f, box);
    range_of(v->pred, v->n, log, &r[0], &r[1], &f.hidden);
    range_of(v->meas, v->n, log, &r[0], &r[1], &f.hidden);
    in10 = within(v, 0.10, &valid);
    in20 = within(v, 0.20, &valid);
    if (valid)
        snprintf(f.note, sizeof f.note, "%zu of %zu points within ±10 %% of "
                 "measured, %zu within ±20 %%.", in10, valid, in20);
    frame_leg(&f, "y = x", CHART_NOMARKER, chart_colour(CHART_BLACK, 0),
              chart_colour(CHART_BLACK, 1), 1);
    frame_leg(&f, "±10 %", CHART_SQUARE, chart_colour(CHART_SKY, 0.45),
              chart_colour(CHART_SKY, 0.45), 0);
    frame_leg(&f, "±20 %", CHART_SQUARE, chart_colour(CHART_SKY, 0.2),
              chart_colour(CHART_SKY, 0.2), 0);
    frame_leg(&f, "configurations", CHART_CIRCLE,
              chart_colour(CHART_VERMILLION, 0.85),
              chart_colour(CHART_BLACK, 1), 0);
    frame_layout(cc, p, &f);
    fit_axes(cc, &ax, f.area, r, r, log, log);
    ax.xs = ax.ys;   /* one scale for both: y = x is the diagonal */
    chart_margins m;
    chart_axes_margins(cc, &ax, &m);
    ax.plot = (chart_box){ f.area.x + m.left, f.area.y + m.top,
                           f.area.w - m.left - m.right,
                           f.area.h - m.top - m.bottom };
    double side = fmin(ax.plot.w, ax.plot.h);   /* square: y = x at 45° */
    ax.plot.x += (ax.plot.w - side) / 2;
    ax.plot.w = ax.plot.h = side;
    chart_axes_draw(cc, &ax, txt(p->xtitle), txt(p->ytitle));
    clip_plot(cc->cr, &ax);
    pvm_band(cc, &ax, 0.20, chart_colour(CHART_SKY, 0.2));
    pvm_band(cc, &ax, 0.10, chart_colour(CHART_SKY, 0.3));
    cairo_move_to(cc->cr, ax.plot.x, ax.plot.y + ax.plot.h);
    cairo_line_to(cc->cr, ax.plot.x + ax.plot.w, ax.plot.y);
    cairo_set_source_rgb(cc->cr, 0, 0, 0);
    cairo_set_line_width(cc->cr, 0.8);
    cairo_stroke(cc->cr);
    if (v->n > 2000)
        chart_scatter(cc, &ax, v->pred, v->meas, v->n, CHART_CIRCLE, 1.8,
                      chart_colour(CHART_VERMILLION, 0.7), 1.0);
    else
        chart_markers_stroked(cc, &ax, v->pred, v->meas, v->n, CHART_CIRCLE,
                              2.4, chart_colour(CHART_VERMILLION, 0.85),
                              chart_colour(CHART_BLACK, 1));
    cairo_restore(cc->cr);
    if (v->label && v->n <= 40)
        pvm_labels(cc, &ax, v);
    if (!isfinite(r[0]))
        empty_msg(cc, &ax, v->n ? "no plottable values" : "no data");
    frame_legend(cc, &f);
}

/* ---- horizontal bars -------------------------------------------------- */

static void hbar_value(chart_ctx *cc, const chart_axes *ax, double v,
                       double big, double x0, double cy)
{
    char buf[32];
    double w, x1 = chart_map_x(ax, v);
    if (fabs(v) < big * 1e-9)   /* rounding noise of a zero effect */
        snprintf(buf, sizeof buf, "0");
    else
        cell_text(v, buf, sizeof buf);
    chart_text_size(cc, buf, P_VAL_PT, CHART_REGULAR, 0, &w, NULL);
    cairo_set_source_rgb(cc->cr, 0, 0, 0);
    if (v >= 0 && x1 + 3 + w <= ax->plot.x + ax->plot.w - 1)
        chart_text(cc, buf, P_VAL_PT, CHART_REGULAR, 0, x1 + 3, cy,
                   CHART_LEFT, CHART_MIDDLE, NULL, NULL);
    else if (v < 0 && x1 - 3 - w >= ax->plot.x + 1)
        chart_text(cc, buf, P_VAL_PT, CHART_REGULAR, 0, x1 - 3, cy,
                   CHART_RIGHT, CHART_MIDDLE, NULL, NULL);
    else if (fabs(x1 - x0) > w + 6) {
        cairo_set_source_rgb(cc->cr, 1, 1, 1);
        chart_text(cc, buf, P_VAL_PT, CHART_REGULAR, 0, (x0 + x1) / 2, cy,
                   CHART_CENTER, CHART_MIDDLE, NULL, NULL);
    }
}

static void hbars_marks(chart_ctx *cc, const plot_spec *p,
                        const chart_axes *ax)
{
    const plot_hbars *b = &p->u.hbars;
    double slot = ax->plot.h / b->n, x0 = chart_map_x(ax, 0);
    if (p->xlog || !isfinite(x0))
        x0 = ax->plot.x;
    double big = 0;
    for (int i = 0; i < b->n; i++)
        if (isfinite(b->value[i]))
            big = fmax(big, fabs(b->value[i]));
    for (int i = 0; i < b->n; i++) {
        double v = b->value[i];
        double cy = chart_map_y(ax, b->n - i - 0.5);
        if (!shown(v, p->xlog)) {
            cairo_set_source_rgb(cc->cr, 0.4, 0.4, 0.4);
            chart_text(cc, "n/a", P_VAL_PT, CHART_REGULAR, 0, x0 + 3, cy,
                       CHART_LEFT, CHART_MIDDLE, NULL, NULL);
            continue;
        }
        double x1 = chart_map_x(ax, v);
        cairo_rectangle(cc->cr, fmin(x0, x1), cy - slot * 0.35,
                        fabs(x1 - x0), slot * 0.7);
        chart_set_rgba(cc->cr, chart_colour(i < b->highlight
                                            ? CHART_VERMILLION : CHART_BLUE,
                                            1));
        cairo_fill(cc->cr);
        hbar_value(cc, ax, v, big, x0, cy);
    }
}

static void draw_hbars(chart_ctx *cc, const plot_spec *p, chart_box box)
{
    const plot_hbars *b = &p->u.hbars;
    frame f;
    chart_axes ax;
    chart_margins m;
    double xr[2] = { INFINITY, -INFINITY };
    memset(&ax, 0, sizeof ax);
    frame_begin(&f, box);
    int n = b->n > 0 ? b->n : 0;
    range_of(b->value, (size_t)n, p->xlog, &xr[0], &xr[1], &f.hidden);
    if (!p->xlog && isfinite(xr[0])) {
        xr[0] = fmin(xr[0], 0);
        xr[1] = fmax(xr[1], 0);
        double span = xr[1] - xr[0];   /* room for the value labels */
        xr[1] += xr[1] > 0 ? 0.12 * span : 0;
        xr[0] -= xr[0] < 0 ? 0.12 * span : 0;
    }
    frame_layout(cc, p, &f);
    ax.ycat = 1;
    ax.ys = (chart_scale){ 0, n ? n : 1, 1, 0, 0, 0, { 0 } };
    double labw = f.area.w * 0.35;
    ax.ycat_w = n ? chart_cat_extent(cc, n, b->label, 1, labw) : 0;
    chart_axes_margins(cc, &ax, &m);
    chart_scale_fit_x(cc, xr[0], xr[1], 0.0, p->xlog, f.area.w - m.left - 4,
                      &ax.xs);
    chart_axes_margins(cc, &ax, &m);
    ax.plot = (chart_box){ f.area.x + m.left, f.area.y + m.top,
                           f.area.w - m.left - m.right,
                           f.area.h - m.top - m.bottom };
    chart_axes_draw(cc, &ax, txt(p->xtitle), txt(p->ytitle));
    const char **rev = n ? malloc((size_t)n * sizeof *rev) : NULL;
    for (int i = 0; rev && i < n; i++)   /* category 0 is at the bottom */
        rev[i] = b->label[n - 1 - i];
    if (rev)
        chart_cat_labels(cc, &ax, n, rev, 1, labw);
    free(rev);
    if (!n || !isfinite(xr[0]))
        empty_msg(cc, &ax, n ? "no plottable values" : "no data");
    else
        hbars_marks(cc, p, &ax);
}

/* ---- entry points ----------------------------------------------------- */

void plot_draw(chart_ctx *cc, const plot_spec *p, chart_box box)
{
    cairo_save(cc->cr);
    switch (p->kind) {
    case PLOT_LINES: draw_lines(cc, p, box); break;
    case PLOT_BARS: draw_bars(cc, p, box); break;
    case PLOT_HEATMAP: draw_heatmap(cc, p, box); break;
    case PLOT_PVM: draw_pvm(cc, p, box); break;
    case PLOT_HBARS: draw_hbars(cc, p, box); break;
    default: break;
    }
    cairo_restore(cc->cr);
}

static void draw_spec(chart_ctx *cc, chart_box page, const void *p)
{
    plot_draw(cc, p, page);
}

int plot_write_file(const plot_spec *p, rep_out_kind kind, double w,
                    double h, const char *path, gd_err *err)
{
    return chart_write_file_font(kind, w, h, p->title, path, p->font,
                                 draw_spec, p, err);
}
