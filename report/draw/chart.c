/* chart: drawing primitives on a cairo_t (text, palette, 1-2-5 scales, axes,
 * markers, step lines, legends) shared by every figure kind and the
 * document. Nothing here knows about run directories. */
#include "chart.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK_LEN 4.0
#define GAP 4.0
#define TICK_PT 8.0
#define TITLE_PT 9.0

/* ---- palette ---------------------------------------------------------- */

chart_rgba chart_colour(int which, double alpha)
{
    static const unsigned rgb[CHART_NCOLOURS] = {
        0x000000, 0xE69F00, 0x56B4E9, 0x009E73,
        0xF0E442, 0x0072B2, 0xD55E00, 0xCC79A7
    };
    unsigned v = rgb[(which >= 0 && which < CHART_NCOLOURS) ? which : 0];
    chart_rgba c = { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0,
                     (v & 0xff) / 255.0, alpha };
    return c;
}

void chart_set_rgba(cairo_t *cr, chart_rgba c)
{
    cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a);
}

/* ---- text ------------------------------------------------------------- */

/* Whether fontconfig resolves `family` to that family itself; got (may
 * be NULL) receives the family it resolves to. */
static int font_resolve(PangoContext *pc, const char *family, char *got,
                        size_t gn)
{
    PangoFontDescription *want = pango_font_description_new();
    pango_font_description_set_family(want, family);
    pango_font_description_set_absolute_size(want, 10 * PANGO_SCALE);
    PangoFont *f = pango_context_load_font(pc, want);
    pango_font_description_free(want);
    if (!f)
        return 0;
    PangoFontDescription *desc = pango_font_describe(f);
    const char *name = pango_font_description_get_family(desc);
    int ok = name && g_ascii_strcasecmp(name, family) == 0;
    if (got)
        util_strlcpy(got, name ? name : "none", gn);
    pango_font_description_free(desc);
    g_object_unref(f);
    return ok;
}

static int font_present(PangoContext *pc, const char *family)
{
    return font_resolve(pc, family, NULL, 0);
}

const char *chart_init_error(int rc)
{
    if (rc == CHART_EFONTS)
        return "the report's fonts (DejaVu Sans, DejaVu Sans Mono) are not "
               "installed, so its text would be laid out differently on "
               "every host; install fonts-dejavu-core (`make deps` does), "
               "then `gpudse report DIR` renders the finished run's report";
    return "cannot start cairo/pango (out of memory?)";
}

int chart_init(chart_ctx *cc, cairo_t *cr)
{
    cc->cr = cr;
    cc->lay = NULL;
    util_strlcpy(cc->family, CHART_FONT, sizeof cc->family);
    cc->scale = 1;
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return CHART_ECAIRO;
    cc->lay = pango_cairo_create_layout(cr);
    if (!cc->lay)
        return CHART_ECAIRO;
    /* Unhinted metrics: the same layout on every surface type and host. */
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    pango_cairo_context_set_font_options(pango_layout_get_context(cc->lay),
                                         fo);
    cairo_font_options_destroy(fo);
    pango_layout_context_changed(cc->lay);
    PangoContext *pc = pango_layout_get_context(cc->lay);
    if (!font_present(pc, CHART_FONT) || !font_present(pc, CHART_FONT_MONO))
        return CHART_EFONTS;
    return 0;
}

int chart_set_font(chart_ctx *cc, const chart_font *f)
{
    const char *fam = f && f->family[0] ? f->family : CHART_FONT;
    if (!cc->lay || !font_present(pango_layout_get_context(cc->lay), fam))
        return CHART_EFONTS;
    util_strlcpy(cc->family, fam, sizeof cc->family);
    cc->scale = f && f->size > 0 ? f->size / CHART_FONT_PT : 1;
    return 0;
}

int chart_font_check(const char *family, char *got, size_t n)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1,
                                                    1);
    cairo_t *cr = cairo_create(s);
    chart_ctx cc;
    int ok = chart_init(&cc, cr) != CHART_ECAIRO && cc.lay
             && font_resolve(pango_layout_get_context(cc.lay), family, got,
                             n);
    if (!cc.lay && got)
        util_strlcpy(got, "none (cairo/pango could not start)", n);
    chart_free(&cc);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return ok ? 0 : -1;
}

void chart_free(chart_ctx *cc)
{
    if (cc->lay)
        g_object_unref(cc->lay);
    cc->lay = NULL;
}

static void text_setup(chart_ctx *cc, const char *txt, double pt, int style,
                       double wrap, int halign)
{
    PangoFontDescription *fd = pango_font_description_new();
    pango_font_description_set_family(fd, (style & CHART_MONO)
                                      ? CHART_FONT_MONO : cc->family);
    pango_font_description_set_weight(fd, (style & CHART_BOLD)
                                      ? PANGO_WEIGHT_BOLD
                                      : PANGO_WEIGHT_NORMAL);
    pango_font_description_set_absolute_size(fd, pt * cc->scale
                                                 * PANGO_SCALE);
    pango_layout_set_font_description(cc->lay, fd);
    pango_font_description_free(fd);
    if (wrap > 0) {
        pango_layout_set_width(cc->lay, (int)(wrap * PANGO_SCALE));
        pango_layout_set_wrap(cc->lay, PANGO_WRAP_WORD_CHAR);
    } else {
        pango_layout_set_width(cc->lay, -1);
    }
    pango_layout_set_alignment(cc->lay, halign == CHART_CENTER
                               ? PANGO_ALIGN_CENTER
                               : halign == CHART_RIGHT ? PANGO_ALIGN_RIGHT
                                                       : PANGO_ALIGN_LEFT);
    pango_layout_set_text(cc->lay, txt ? txt : "", -1);
}

static void text_extent(chart_ctx *cc, double *x0, double *w, double *h)
{
    PangoRectangle ink, log;
    pango_layout_get_extents(cc->lay, &ink, &log);
    *x0 = (double)log.x / PANGO_SCALE;
    *w = (double)log.width / PANGO_SCALE;
    *h = (double)log.height / PANGO_SCALE;
}

void chart_text_size(chart_ctx *cc, const char *txt, double pt, int style,
                     double wrap, double *w, double *h)
{
    double x0, tw, th;
    text_setup(cc, txt, pt, style, wrap, CHART_LEFT);
    text_extent(cc, &x0, &tw, &th);
    if (w)
        *w = tw;
    if (h)
        *h = th;
}

void chart_text(chart_ctx *cc, const char *txt, double pt, int style,
                double wrap, double x, double y, int halign, int valign,
                double *w, double *h)
{
    double x0, tw, th;
    text_setup(cc, txt, pt, style, wrap, halign);
    text_extent(cc, &x0, &tw, &th);
    double fx = halign == CHART_CENTER ? 0.5 : halign == CHART_RIGHT ? 1 : 0;
    double fy = valign == CHART_MIDDLE ? 0.5 : valign == CHART_BOTTOM ? 1 : 0;
    cairo_move_to(cc->cr, x - fx * tw - x0, y - fy * th);
    pango_cairo_show_layout(cc->cr, cc->lay);
    cairo_new_path(cc->cr);
    if (w)
        *w = tw;
    if (h)
        *h = th;
}

void chart_text_vertical(chart_ctx *cc, const char *txt, double pt,
                         int style, double x, double y)
{
    cairo_save(cc->cr);
    cairo_translate(cc->cr, x, y);
    cairo_rotate(cc->cr, -M_PI / 2);
    pango_cairo_update_layout(cc->cr, cc->lay);
    chart_text(cc, txt, pt, style, 0, 0, 0, CHART_CENTER, CHART_MIDDLE,
               NULL, NULL);
    cairo_restore(cc->cr);
    pango_cairo_update_layout(cc->cr, cc->lay);
}

/* ---- scales ----------------------------------------------------------- */

static double nice_step(double raw)
{
    static const double m[] = { 1, 2, 5, 10 };
    double mag = pow(10, floor(log10(raw)));
    for (int i = 0; i < 4; i++)
        if (m[i] * mag >= raw * (1 - 1e-9))
            return m[i] * mag;
    return 10 * mag;
}

void chart_scale_fit(double min, double max, double pad, int maxticks,
                     chart_scale *s)
{
    if (!isfinite(min) || !isfinite(max)) {   /* nothing to show: [0, 1] */
        min = 0;
        max = 1;
        pad = 0;
    }
    if (min > max) {
        double t = min;
        min = max;
        max = t;
    }
    double range = max - min;
    if (range <= 1e-12 * fmax(fabs(min), fabs(max))) {
        double d = fabs(min) * 0.05;
        if (d == 0)
            d = 1;
        min -= d;
        max += d;
    } else {
        /* Padding never pushes a one-signed range across zero. */
        double lo = min - pad * range, hi = max + pad * range;
        min = min >= 0 && lo < 0 ? 0 : lo;
        max = max <= 0 && hi > 0 ? 0 : hi;
    }
    if (maxticks < 1)
        maxticks = 1;
    /* The smallest 1-2-5 step whose rounded-out limits need at most
     * maxticks intervals: the tightest axis that is still readable. */
    s->step = nice_step((max - min) / maxticks / 2);
    for (int guard = 0; guard < 8; guard++) {
        s->lo = floor(min / s->step + 1e-9) * s->step;
        s->hi = ceil(max / s->step - 1e-9) * s->step;
        if ((s->hi - s->lo) / s->step <= maxticks + 1e-9)
            break;
        s->step = nice_step(s->step * 1.5);
    }
    if (s->hi <= s->lo)
        s->hi = s->lo + s->step;
    s->log = 0;
    s->nlt = 0;
    double big = fmax(fabs(s->lo), fabs(s->hi));
    if (s->step < 1e-4 || big >= 1e7)
        s->ndec = -1;
    else if (s->step >= 1)
        s->ndec = 0;
    else
        s->ndec = (int)ceil(-log10(s->step) - 1e-9);
}

/* Ticks of a log scale: 1-2-5 per decade when there are few decades,
 * every k-th decade when there are many. */
static int log_ticks(chart_scale *s, int d0, int d1, int maxticks)
{
    int nd = d1 - d0;
    s->nlt = 0;
    if (nd * 3 <= maxticks) {
        static const double m[] = { 1, 2, 5 };
        for (int d = d0; d <= d1; d++)
            for (int j = 0; j < 3 && (d < d1 || j == 0); j++)
                s->lt[s->nlt++] = m[j] * pow(10, d);
        return 1;
    }
    int k = 1;
    while (nd / k > maxticks || nd / k + 1 > CHART_MAXLOGTICKS)
        k = k == 1 ? 2 : k == 2 ? 5 : k * 2;
    for (int d = d0; d <= d1 && s->nlt < CHART_MAXLOGTICKS; d += k)
        s->lt[s->nlt++] = pow(10, d);
    s->step = k;
    return 0;
}

/* With 1-2-5 ticks, end the axis at the ticks around the data rather
 * than at whole decades. */
static void log_tighten(chart_scale *s, double min, double max)
{
    int a = 0, b = s->nlt - 1, n = 0;
    while (a + 1 < s->nlt && s->lt[a + 1] <= min * (1 + 1e-9))
        a++;
    while (b - 1 > a && s->lt[b - 1] >= max * (1 - 1e-9))
        b--;
    if (b - a < 2)
        return;
    s->lo = s->lt[a];
    s->hi = s->lt[b];
    for (int i = a; i <= b; i++)
        s->lt[n++] = s->lt[i];
    s->nlt = n;
}

void chart_scale_fit_log(double min, double max, int maxticks,
                         chart_scale *s)
{
    if (!(min > 0) || !(max > 0) || !isfinite(min) || !isfinite(max)) {
        min = 1;
        max = 10;
    }
    if (min > max) {
        double t = min;
        min = max;
        max = t;
    }
    int d0 = (int)floor(log10(min) + 1e-9), d1 = (int)ceil(log10(max) - 1e-9);
    if (d0 < -300)
        d0 = -300;
    if (d1 > 300)
        d1 = 300;
    if (d1 <= d0)
        d1 = d0 + 1;
    if (maxticks < 2)
        maxticks = 2;
    s->log = 1;
    s->step = 1;
    s->lo = pow(10, d0);
    s->hi = pow(10, d1);
    int fine = log_ticks(s, d0, d1, maxticks);
    s->ndec = -1;
    if (fine)
        log_tighten(s, min, max);
}

double chart_scale_frac(const chart_scale *s, double v)
{
    if (s->log) {
        if (!(v > 0))
            return NAN;
        return (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
    }
    return (v - s->lo) / (s->hi - s->lo);
}

int chart_scale_nticks(const chart_scale *s)
{
    if (s->log)
        return s->nlt;
    return (int)lround((s->hi - s->lo) / s->step) + 1;
}

double chart_scale_tick(const chart_scale *s, int i)
{
    if (s->log)
        return s->lt[i];
    double v = s->lo + i * s->step;
    if (fabs(v) < s->step * 1e-9)
        v = 0;
    return v;
}

void chart_scale_label(const chart_scale *s, double v, char *buf, size_t n)
{
    if (s->log && v >= 1e-3 && v < 1e5)
        snprintf(buf, n, "%g", v);
    else if (s->ndec < 0)
        snprintf(buf, n, "%.4g", v);
    else
        snprintf(buf, n, "%.*f", s->ndec, v);
}

void chart_scale_fit_x(chart_ctx *cc, double min, double max, double pad,
                       int log, double len, chart_scale *s)
{
    char buf[64];
    for (int maxt = (int)fmax(2, len / 36); maxt >= 1; maxt--) {
        if (log)
            chart_scale_fit_log(min, max, maxt, s);
        else
            chart_scale_fit(min, max, pad, maxt, s);
        int n = chart_scale_nticks(s);
        double widest = 0, w;
        for (int i = 0; i < n; i++) {
            chart_scale_label(s, chart_scale_tick(s, i), buf, sizeof buf);
            chart_text_size(cc, buf, TICK_PT, CHART_REGULAR, 0, &w, NULL);
            widest = fmax(widest, w);
        }
        /* Log ticks are unevenly spaced: 1-2-5 labels need more room. */
        double need = (n - 1) * (widest + 8) * (log ? 1.6 : 1);
        if (need <= len || maxt == 1)
            return;
    }
}

/* ---- axes ------------------------------------------------------------- */

double chart_map_x(const chart_axes *ax, double v)
{
    return ax->plot.x + chart_scale_frac(&ax->xs, v) * ax->plot.w;
}

double chart_map_y(const chart_axes *ax, double v)
{
    return ax->plot.y + ax->plot.h
           - chart_scale_frac(&ax->ys, v) * ax->plot.h;
}

static void tick_label_extent(chart_ctx *cc, const chart_scale *s,
                              double *maxw, double *maxh, double *lastw)
{
    char buf[64];
    int n = chart_scale_nticks(s);
    *maxw = *maxh = *lastw = 0;
    for (int i = 0; i < n; i++) {
        double w, h;
        chart_scale_label(s, chart_scale_tick(s, i), buf, sizeof buf);
        chart_text_size(cc, buf, TICK_PT, CHART_REGULAR, 0, &w, &h);
        *maxw = fmax(*maxw, w);
        *maxh = fmax(*maxh, h);
        *lastw = w;
    }
}

void chart_axes_margins(chart_ctx *cc, const chart_axes *ax,
                        chart_margins *m)
{
    double xw, xh, xlast, yw, yh, ylast, th;
    tick_label_extent(cc, &ax->xs, &xw, &xh, &xlast);
    tick_label_extent(cc, &ax->ys, &yw, &yh, &ylast);
    chart_text_size(cc, "Ag", TITLE_PT, CHART_REGULAR, 0, NULL, &th);
    if (ax->ycat)
        yw = ax->ycat_w;
    if (ax->xcat)
        xh = ax->xcat_h, xlast = 0;
    m->left = th + GAP + yw + GAP + TICK_LEN;
    m->bottom = TICK_LEN + GAP + xh + GAP + th;
    m->right = xlast / 2 + 1;
    m->top = ax->ycat ? 1 : yh / 2 + 1;
    m->right = fmax(m->right, 1);
}

static void draw_grid_and_ticks(chart_ctx *cc, const chart_axes *ax)
{
    cairo_t *cr = cc->cr;
    const chart_box *p = &ax->plot;
    int nx = chart_scale_nticks(&ax->xs), ny = chart_scale_nticks(&ax->ys);
    cairo_set_line_width(cr, 0.4);
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    if (ax->xcat)
        nx = 0;
    if (ax->ycat)
        ny = 0;
    for (int i = 1; i < nx - 1; i++) {
        double x = chart_map_x(ax, chart_scale_tick(&ax->xs, i));
        cairo_move_to(cr, x, p->y);
        cairo_line_to(cr, x, p->y + p->h);
    }
    for (int i = 1; i < ny - 1; i++) {
        double y = chart_map_y(ax, chart_scale_tick(&ax->ys, i));
        cairo_move_to(cr, p->x, y);
        cairo_line_to(cr, p->x + p->w, y);
    }
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.6);
    for (int i = 0; i < nx; i++) {
        double x = chart_map_x(ax, chart_scale_tick(&ax->xs, i));
        cairo_move_to(cr, x, p->y + p->h);
        cairo_line_to(cr, x, p->y + p->h + TICK_LEN);
    }
    for (int i = 0; i < ny; i++) {
        double y = chart_map_y(ax, chart_scale_tick(&ax->ys, i));
        cairo_move_to(cr, p->x, y);
        cairo_line_to(cr, p->x - TICK_LEN, y);
    }
    cairo_stroke(cr);
}

static void draw_tick_labels(chart_ctx *cc, const chart_axes *ax)
{
    char buf[64];
    const chart_box *p = &ax->plot;
    int nx = chart_scale_nticks(&ax->xs), ny = chart_scale_nticks(&ax->ys);
    if (ax->xcat)
        nx = 0;
    if (ax->ycat)
        ny = 0;
    cairo_set_source_rgb(cc->cr, 0, 0, 0);
    for (int i = 0; i < nx; i++) {
        double v = chart_scale_tick(&ax->xs, i);
        chart_scale_label(&ax->xs, v, buf, sizeof buf);
        chart_text(cc, buf, TICK_PT, CHART_REGULAR, 0, chart_map_x(ax, v),
                   p->y + p->h + TICK_LEN + GAP, CHART_CENTER, CHART_TOP,
                   NULL, NULL);
    }
    for (int i = 0; i < ny; i++) {
        double v = chart_scale_tick(&ax->ys, i);
        chart_scale_label(&ax->ys, v, buf, sizeof buf);
        chart_text(cc, buf, TICK_PT, CHART_REGULAR, 0,
                   p->x - TICK_LEN - GAP, chart_map_y(ax, v), CHART_RIGHT,
                   CHART_MIDDLE, NULL, NULL);
    }
}

/* The axis-title size that fits len (never below 6 pt). */
static double fit_pt(chart_ctx *cc, const char *t, double len)
{
    double w;
    chart_text_size(cc, t, TITLE_PT, CHART_REGULAR, 0, &w, NULL);
    return w <= len || w <= 0 ? TITLE_PT : fmax(6.0, TITLE_PT * len / w);
}

void chart_axes_draw(chart_ctx *cc, const chart_axes *ax,
                     const char *xtitle, const char *ytitle)
{
    chart_margins m;
    const chart_box *p = &ax->plot;
    double th;
    draw_grid_and_ticks(cc, ax);
    cairo_set_line_width(cc->cr, 0.8);
    cairo_rectangle(cc->cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cc->cr);
    draw_tick_labels(cc, ax);
    chart_axes_margins(cc, ax, &m);
    chart_text_size(cc, "Ag", TITLE_PT, CHART_REGULAR, 0, NULL, &th);
    chart_text(cc, xtitle, fit_pt(cc, xtitle, p->w + m.left), CHART_REGULAR,
               0, p->x + p->w / 2, p->y + p->h + m.bottom, CHART_CENTER,
               CHART_BOTTOM, NULL, NULL);
    chart_text_vertical(cc, ytitle, fit_pt(cc, ytitle, p->h + m.bottom),
                        CHART_REGULAR, p->x - m.left + th / 2,
                        p->y + p->h / 2);
}

/* ---- categorical labels ----------------------------------------------- */

/* How category labels fit a slot (x: slot width; y: slot height): wrap
 * width (0: one line) and stride (draw every stride-th label). */
static void cat_fit(chart_ctx *cc, int n, const char *const *cats, int on_y,
                    double slot, double maxw, double *wrap, int *stride)
{
    double w1 = 0, h1 = 0;
    for (int i = 0; i < n; i++) {
        double w, h;
        chart_text_size(cc, cats[i], TICK_PT, CHART_REGULAR, 0, &w, &h);
        w1 = fmax(w1, w);
        h1 = fmax(h1, h);
    }
    *wrap = 0;
    *stride = 1;
    if (on_y) {
        *wrap = w1 > maxw ? maxw : 0;
        if (slot > 0 && slot < h1)
            *stride = (int)ceil(h1 / slot);
    } else if (w1 > slot && slot >= 30) {
        *wrap = slot;
    } else if (w1 > slot && slot > 0) {
        *stride = (int)ceil((w1 + 4) / slot);
    }
}

double chart_cat_extent(chart_ctx *cc, int n, const char *const *cats,
                        int on_y, double maxw)
{
    double ext = 0, wrap;
    int stride;
    cat_fit(cc, n, cats, on_y, on_y ? 0 : maxw, maxw, &wrap, &stride);
    for (int i = 0; i < n; i++) {
        double w, h;
        chart_text_size(cc, cats[i], TICK_PT, CHART_REGULAR, wrap, &w, &h);
        ext = fmax(ext, on_y ? w : h);
    }
    return ext;
}

void chart_cat_labels(chart_ctx *cc, const chart_axes *ax, int n,
                      const char *const *cats, int on_y, double maxw)
{
    const chart_box *p = &ax->plot;
    double wrap;
    int stride;
    if (n <= 0)
        return;
    cat_fit(cc, n, cats, on_y, on_y ? p->h / n : p->w / n - 2, maxw, &wrap,
            &stride);
    cairo_set_source_rgb(cc->cr, 0, 0, 0);
    for (int i = 0; i < n; i += stride) {
        if (on_y)
            chart_text(cc, cats[i], TICK_PT, CHART_REGULAR, wrap,
                       p->x - TICK_LEN - GAP, chart_map_y(ax, i + 0.5),
                       CHART_RIGHT, CHART_MIDDLE, NULL, NULL);
        else
            chart_text(cc, cats[i], TICK_PT, CHART_REGULAR, wrap,
                       chart_map_x(ax, i + 0.5), p->y + p->h + TICK_LEN + GAP,
                       CHART_CENTER, CHART_TOP, NULL, NULL);
    }
}

/* ---- markers ---------------------------------------------------------- */

void chart_marker_path(cairo_t *cr, int shape, double x, double y, double r)
{
    switch (shape) {
    case CHART_DIAMOND:
        r *= 1.3;
        cairo_move_to(cr, x, y - r);
        cairo_line_to(cr, x + r, y);
        cairo_line_to(cr, x, y + r);
        cairo_line_to(cr, x - r, y);
        cairo_close_path(cr);
        break;
    case CHART_TRIANGLE:
        r *= 1.5;
        cairo_move_to(cr, x, y - r);
        cairo_line_to(cr, x + r * 0.866, y + r * 0.5);
        cairo_line_to(cr, x - r * 0.866, y + r * 0.5);
        cairo_close_path(cr);
        break;
    case CHART_SQUARE:
        r *= 0.9;
        cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r);
        break;
    default:
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, r, 0, 2 * M_PI);
        cairo_close_path(cr);
        break;
    }
}

/* Open-addressed set of quantised positions (0 marks an empty slot). */
typedef struct {
    uint64_t *slot;
    size_t mask;
} pos_set;

static int pos_set_init(pos_set *s, size_t n)
{
    size_t cap = 64;
    while (cap < 2 * n)
        cap <<= 1;
    s->slot = calloc(cap, sizeof *s->slot);
    s->mask = cap - 1;
    return s->slot ? 0 : -1;
}

/* 1 when newly added, 0 when present. */
static int pos_set_add(pos_set *s, int64_t qx, int64_t qy)
{
    uint64_t key = ((uint64_t)(qx & 0x7fffffff) << 32)
                   | (uint64_t)(qy & 0x7fffffff);
    key += 1;
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    for (size_t i = (size_t)(h >> 20) & s->mask;; i = (i + 1) & s->mask) {
        if (s->slot[i] == key)
            return 0;
        if (s->slot[i] == 0) {
            s->slot[i] = key;
            return 1;
        }
    }
}

size_t chart_scatter(chart_ctx *cc, const chart_axes *ax, const double *x,
                     const double *y, size_t n, int shape, double r,
                     chart_rgba fill, double merge)
{
    pos_set set = { NULL, 0 };
    size_t drawn = 0;
    int dedup = merge > 0 && pos_set_init(&set, n) == 0;
    /* Circles as round-capped dots: two path operators per point instead
     * of four curves, which keeps large PDFs and SVGs small and fast. */
    int dots = shape == CHART_CIRCLE;
    cairo_new_path(cc->cr);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            continue;
        double px = chart_map_x(ax, x[i]), py = chart_map_y(ax, y[i]);
        if (!isfinite(px) || !isfinite(py))
            continue;
        if (dedup && !pos_set_add(&set, llround(px / merge),
                                  llround(py / merge)))
            continue;
        if (dots) {   /* a zero-length segment with round caps: a disc */
            cairo_move_to(cc->cr, px, py);
            cairo_line_to(cc->cr, px, py);
        } else {
            chart_marker_path(cc->cr, shape, px, py, r);
        }
        drawn++;
    }
    chart_set_rgba(cc->cr, fill);
    if (dots) {
        cairo_save(cc->cr);
        cairo_set_line_cap(cc->cr, CAIRO_LINE_CAP_ROUND);
        cairo_set_line_width(cc->cr, 2 * r);
        cairo_stroke(cc->cr);
        cairo_restore(cc->cr);
    } else {
        cairo_fill(cc->cr);
    }
    if (dedup)
        free(set.slot);
    return drawn;
}

/* ---- density raster --------------------------------------------------- */

/* A disc of radius R pixels as offsets with anti-aliased edge weights. */
typedef struct { int dx, dy; float w; } disc_px;

static int disc_offsets(double R, disc_px **out)
{
    int k = (int)ceil(R + 0.5), n = 0;
    disc_px *d = malloc((size_t)(2 * k + 1) * (size_t)(2 * k + 1)
                        * sizeof *d);
    if (!d)
        return -1;
    for (int dy = -k; dy <= k; dy++)
        for (int dx = -k; dx <= k; dx++) {
            double w = R + 0.5 - sqrt((double)dx * dx + (double)dy * dy);
            if (w > 0)
                d[n++] = (disc_px){ dx, dy, (float)fmin(1, w) };
        }
    *out = d;
    return n;
}

typedef struct {
    int w, h;
    uint32_t *cnt;      /* points per pixel */
    float *zs;          /* sum of their z fractions (NULL without z) */
    float *cov, *zcov;  /* points covering each pixel, their z sum */
} density_grid;

static void grid_free(density_grid *g)
{
    free(g->cnt);
    free(g->zs);
    free(g->cov);
    free(g->zcov);
}

static int grid_alloc(density_grid *g, const chart_box *p, int with_z)
{
    memset(g, 0, sizeof *g);
    g->w = (int)ceil(p->w * CHART_DENSITY_RES);
    g->h = (int)ceil(p->h * CHART_DENSITY_RES);
    if (g->w <= 0 || g->h <= 0 || g->w > 20000 || g->h > 20000)
        return -1;
    size_t np = (size_t)g->w * (size_t)g->h;
    g->cnt = calloc(np, sizeof *g->cnt);
    g->cov = calloc(np, sizeof *g->cov);
    if (with_z) {
        g->zs = calloc(np, sizeof *g->zs);
        g->zcov = calloc(np, sizeof *g->zcov);
    }
    return g->cnt && g->cov && (!with_z || (g->zs && g->zcov)) ? 0 : -1;
}

static size_t grid_bin(density_grid *g, const chart_axes *ax,
                       const double *x, const double *y, const double *z,
                       size_t n, double zlo, double zhi)
{
    size_t binned = 0;
    double zr = zhi > zlo ? zhi - zlo : 1;
    for (size_t i = 0; i < n; i++) {
        double px = (chart_map_x(ax, x[i]) - ax->plot.x) * CHART_DENSITY_RES;
        double py = (chart_map_y(ax, y[i]) - ax->plot.y) * CHART_DENSITY_RES;
        if (!(px >= 0 && px < g->w && py >= 0 && py < g->h))
            continue;   /* NaN, infinite or off the plot */
        if (z && !isfinite(z[i]))
            continue;
        size_t at = (size_t)py * (size_t)g->w + (size_t)px;
        g->cnt[at]++;
        if (z)
            g->zs[at] += (float)fmin(1, fmax(0, (z[i] - zlo) / zr));
        binned++;
    }
    return binned;
}

/* Each occupied pixel's points spread over the disc around it. */
static void grid_splat(density_grid *g, const disc_px *d, int nd)
{
    for (int py = 0; py < g->h; py++)
        for (int px = 0; px < g->w; px++) {
            size_t at = (size_t)py * (size_t)g->w + (size_t)px;
            if (!g->cnt[at])
                continue;
            float c = (float)g->cnt[at], zc = g->zs ? g->zs[at] : 0;
            for (int k = 0; k < nd; k++) {
                int qx = px + d[k].dx, qy = py + d[k].dy;
                if (qx < 0 || qy < 0 || qx >= g->w || qy >= g->h)
                    continue;
                size_t q = (size_t)qy * (size_t)g->w + (size_t)qx;
                g->cov[q] += d[k].w * c;
                if (g->zs)
                    g->zcov[q] += d[k].w * zc;
            }
        }
}

#define DENSITY_STEPS 6

/* The covered pixels' bounding box: the image holds only that. */
typedef struct { int x0, y0, x1, y1; } pix_box;

static int grid_extent(const density_grid *g, pix_box *b, float *dmax)
{
    *b = (pix_box){ g->w, g->h, -1, -1 };
    *dmax = 1;
    for (int py = 0; py < g->h; py++)
        for (int px = 0; px < g->w; px++) {
            float d = g->cov[(size_t)py * (size_t)g->w + (size_t)px];
            if (d <= 1e-6f)
                continue;
            *dmax = fmaxf(*dmax, d);
            b->x0 = px < b->x0 ? px : b->x0;
            b->x1 = px > b->x1 ? px : b->x1;
            b->y0 = py < b->y0 ? py : b->y0;
            b->y1 = py > b->y1 ? py : b->y1;
        }
    return b->x1 >= b->x0;
}

/* Premultiplied ARGB of the pixels of box b into the image's data. */
static void grid_paint(const density_grid *g, const pix_box *b, float dmax,
                       unsigned char *data, int stride, chart_rgba fill,
                       chart_cmap_fn cmap)
{
    double ldmax = log(dmax);
    for (int py = b->y0; py <= b->y1; py++) {
        uint32_t *row = (uint32_t *)(void *)(data + (size_t)(py - b->y0)
                                                    * (size_t)stride);
        for (int px = b->x0; px <= b->x1; px++) {
            size_t at = (size_t)py * (size_t)g->w + (size_t)px;
            double d = g->cov[at], a;
            row[px - b->x0] = 0;
            if (d <= 1e-6)
                continue;
            /* a few opacity steps: readable, and the image compresses */
            if (d < 1 || ldmax <= 0)
                a = fill.a * ceil(fmin(1, d) * 4) / 4;
            else
                a = fill.a + (1 - fill.a)
                             * ceil(log(d) / ldmax * DENSITY_STEPS)
                             / DENSITY_STEPS;
            chart_rgba c = fill;
            if (g->zs && cmap)
                c = cmap(g->zcov[at] / d);
            a = fmin(1, fmax(0, a));
            uint32_t A = (uint32_t)lround(a * 255);
            uint32_t R = (uint32_t)lround(c.r * a * 255);
            uint32_t G = (uint32_t)lround(c.g * a * 255);
            uint32_t B = (uint32_t)lround(c.b * a * 255);
            row[px - b->x0] = A << 24 | R << 16 | G << 8 | B;
        }
    }
}

size_t chart_density(chart_ctx *cc, const chart_axes *ax, const double *x,
                     const double *y, const double *z, size_t n, double r,
                     chart_rgba fill, chart_cmap_fn cmap, double zlo,
                     double zhi)
{
    density_grid g;
    disc_px *disc = NULL;
    size_t binned = 0;
    int with_z = z && cmap;
    memset(&g, 0, sizeof g);
    int nd = disc_offsets(r * CHART_DENSITY_RES, &disc);
    if (nd < 0 || grid_alloc(&g, &ax->plot, with_z) != 0) {
        grid_free(&g);
        free(disc);
        return 0;
    }
    binned = grid_bin(&g, ax, x, y, with_z ? z : NULL, n, zlo, zhi);
    grid_splat(&g, disc, nd);
    pix_box b;
    float dmax;
    if (!grid_extent(&g, &b, &dmax)) {   /* nothing on the plot */
        grid_free(&g);
        free(disc);
        return binned;
    }
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32,
                                                      b.x1 - b.x0 + 1,
                                                      b.y1 - b.y0 + 1);
    if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(img);
        grid_paint(&g, &b, dmax, cairo_image_surface_get_data(img),
                   cairo_image_surface_get_stride(img), fill, cmap);
        cairo_surface_mark_dirty(img);
        cairo_t *cr = cc->cr;
        cairo_save(cr);
        cairo_rectangle(cr, ax->plot.x, ax->plot.y, ax->plot.w, ax->plot.h);
        cairo_clip(cr);
        cairo_translate(cr, ax->plot.x, ax->plot.y);
        cairo_scale(cr, 1.0 / CHART_DENSITY_RES, 1.0 / CHART_DENSITY_RES);
        cairo_set_source_surface(cr, img, b.x0, b.y0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
        cairo_paint(cr);
        cairo_restore(cr);
    }
    cairo_surface_destroy(img);
    grid_free(&g);
    free(disc);
    return binned;
}

void chart_markers_stroked(chart_ctx *cc, const chart_axes *ax,
                           const double *x, const double *y, size_t n,
                           int shape, double r, chart_rgba fill,
                           chart_rgba edge)
{
    cairo_new_path(cc->cr);
    for (size_t i = 0; i < n; i++) {
        double px = chart_map_x(ax, x[i]), py = chart_map_y(ax, y[i]);
        if (isfinite(px) && isfinite(py))
            chart_marker_path(cc->cr, shape, px, py, r);
    }
    chart_set_rgba(cc->cr, fill);
    cairo_fill_preserve(cc->cr);
    chart_set_rgba(cc->cr, edge);
    cairo_set_line_width(cc->cr, 0.6);
    cairo_stroke(cc->cr);
}

void chart_step_line(chart_ctx *cc, const chart_axes *ax, const double *x,
                     const double *y, size_t n, chart_rgba c, double width)
{
    int started = 0;
    double prev_y = 0;
    cairo_new_path(cc->cr);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            continue;
        double px = chart_map_x(ax, x[i]), py = chart_map_y(ax, y[i]);
        if (!isfinite(px) || !isfinite(py))
            continue;
        if (!started) {
            cairo_move_to(cc->cr, px, py);
            started = 1;
        } else {
            cairo_line_to(cc->cr, px, prev_y);
            cairo_line_to(cc->cr, px, py);
        }
        prev_y = py;
    }
    chart_set_rgba(cc->cr, c);
    cairo_set_line_width(cc->cr, width);
    cairo_set_line_join(cc->cr, CAIRO_LINE_JOIN_MITER);
    cairo_stroke(cc->cr);
}

/* ---- legend ----------------------------------------------------------- */

#define LEG_PT 8.0
#define LEG_SAMPLE 16.0

static void legend_sample(chart_ctx *cc, const chart_legend_item *it,
                          double x, double cy)
{
    cairo_t *cr = cc->cr;
    if (it->line) {
        cairo_move_to(cr, x, cy);
        cairo_line_to(cr, x + LEG_SAMPLE, cy);
        chart_set_rgba(cr, it->edge);
        cairo_set_line_width(cr, 1.2);
        cairo_stroke(cr);
    }
    if (it->shape == CHART_NOMARKER)
        return;
    chart_marker_path(cr, it->shape, x + LEG_SAMPLE / 2, cy, 2.6);
    chart_set_rgba(cr, it->fill);
    cairo_fill_preserve(cr);
    chart_set_rgba(cr, it->edge);
    cairo_set_line_width(cr, 0.6);
    cairo_stroke(cr);
}

double chart_legend(chart_ctx *cc, const chart_legend_item *it, int n,
                    double x, double y, double width, int draw)
{
    double cx = x, rowh = 0, used = 0;
    for (int i = 0; i < n; i++) {
        double tw, th;
        chart_text_size(cc, it[i].label, LEG_PT, CHART_REGULAR, 0, &tw, &th);
        double ew = LEG_SAMPLE + 3 + tw;
        if (cx > x && cx + ew > x + width) {
            used += rowh + 2;
            cx = x;
            rowh = 0;
        }
        rowh = fmax(rowh, th);
        if (draw) {
            legend_sample(cc, &it[i], cx, y + used + th / 2);
            cairo_set_source_rgb(cc->cr, 0, 0, 0);
            chart_text(cc, it[i].label, LEG_PT, CHART_REGULAR, 0,
                       cx + LEG_SAMPLE + 3, y + used, CHART_LEFT, CHART_TOP,
                       NULL, NULL);
        }
        cx += ew + 12;
    }
    return used + rowh;
}

int chart_write_file(rep_out_kind kind, double w, double h, const char *title,
                     const char *path, chart_draw_fn draw, const void *arg,
                     gd_err *err)
{
    return chart_write_file_font(kind, w, h, title, path, NULL, draw, arg,
                                 err);
}

int chart_write_file_font(rep_out_kind kind, double w, double h,
                          const char *title, const char *path,
                          const chart_font *font, chart_draw_fn draw,
                          const void *arg, gd_err *err)
{
    rep_out out;
    chart_ctx cc;
    rep_out_begin(&out, kind, w, h, title);
    cairo_t *cr = cairo_create(out.surface);
    int rc = chart_init(&cc, cr);
    if (rc == 0 && font && chart_set_font(&cc, font) != 0) {
        chart_free(&cc);
        cairo_destroy(cr);
        rep_out_abandon(&out);
        return gd_errf(err, GD_EINPUT, "%s: the layout's font \"%s\" is "
                       "not installed (fontconfig would substitute "
                       "another, and the figure would differ from host to "
                       "host)", path, font->family);
    }
    if (rc != 0) {
        chart_free(&cc);
        cairo_destroy(cr);
        rep_out_abandon(&out);
        return gd_errf(err, GD_EENV, "%s: %s", path, chart_init_error(rc));
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    draw(&cc, (chart_box){ 0, 0, w, h }, arg);
    chart_free(&cc);
    cairo_destroy(cr);
    return rep_out_finish(&out, path, err);
}
