/* figures: figure kinds built from run data, drawn with chart.c into a page
 * box or a standalone file. Today: "pareto" — every successful job of a
 * workload (objective 1 against objective 2), the Pareto front as a step
 * line with markers (with the model's IPC prediction interval as a bar
 * where a front point carries one), the baseline, and a <constraint>'s
 * bounds on either objective as dashed lines. */
#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figstats.h"
#include "output.h"
#include "plots.h"

#define FIG_PAD 4.0
#define FIG_TITLE_PT 10.0
#define FIG_NOTE_PT 8.0
#define FRONT_LABELS_MAX 16   /* larger fronts are not numbered */

/* ---- helpers ---------------------------------------------------------- */

void fig_axis_title(const camp_campaign *c, const char *metric, char *out,
                    size_t n)
{
    /* a derived metric's unit is the campaign's (<derived unit=>) */
    const char *unit = c ? camp_metric_unit(c, metric) : met_unit(metric);
    if (unit && *unit)
        snprintf(out, n, "%s (%s)", met_label(metric), unit);
    else
        snprintf(out, n, "%s", met_label(metric));
}

void fig_axis_title_sense(const camp_campaign *c, const camp_objective *o,
                          char *out, size_t n)
{
    char t[128];
    fig_axis_title(c, o->metric, t, sizeof t);
    snprintf(out, n, "%s, %s is better", t, o->maximize ? "higher" : "lower");
}

static const char *fidelity_words(const char *fid)
{
    if (strcmp(fid, "mixed") == 0)
        return "MIXED modelled and measured results";
    if (strcmp(fid, "measured") == 0)
        return "measured results";
    return "modelled results";
}

/* ---- Pareto figure data ----------------------------------------------- */

typedef struct {
    double *x, *y;
    size_t n;           /* plotted successful jobs */
    size_t nok, nskip;  /* successful jobs; skipped for NaN/inf/missing */
    double *fx, *fy;
    size_t *fidx;       /* row of each front point in the front table */
    size_t nf;          /* front points, ordered along x */
    double *flo, *fhi;  /* a front point's modelled IPC interval, NaN: none */
    int pi_axis;        /* 'y' or 'x': the objective that is ipc; 0: none */
    size_t npi;         /* front points with an interval */
    int has_base;
    double bx, by;
    double *z, *fz;     /* third objective (colour); NULL with two */
    chart_scale zs;     /* its colour scale */
    int density;        /* the jobs as a density raster (chart_density) */
} pareto_data;

typedef struct { double key, y, z; size_t i; } front_pt;

static int front_cmp(const void *a, const void *b)
{
    const front_pt *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* Objective values of a point: y = objective 1, x = objective 2 (or 0
 * when there is only one objective), z = objective 3 (NaN with fewer). 0
 * when all the campaign has are finite. */
static int point_xyz(const rep_run *run, const met_set *m, double *x,
                     double *y, double *z)
{
    *x = 0;
    *z = NAN;
    if (met_get(m, run->obj[0].metric, y) != 0)
        return -1;
    if (run->nobj >= 2 && met_get(m, run->obj[1].metric, x) != 0)
        return -1;
    if (run->nobj >= 3 && (met_get(m, run->obj[2].metric, z) != 0
                           || !isfinite(*z)))
        return -1;
    return isfinite(*x) && isfinite(*y) ? 0 : -1;
}

static int point_xy(const rep_run *run, const met_set *m, double *x,
                    double *y)
{
    double z;
    return point_xyz(run, m, x, y, &z);
}

static void pareto_jobs(const rep_run *run, int wl, pareto_data *d)
{
    for (size_t i = 0; i < run->nrecs; i++) {
        const store_record *r = &run->recs[i];
        if (r->status != ST_OK || strcmp(r->workload, run->wl[wl].name))
            continue;
        d->nok++;
        double x, y, z;
        if (point_xyz(run, &r->metrics, &x, &y, &z) != 0) {
            d->nskip++;
            continue;
        }
        if (d->z)
            d->z[d->n] = z;
        d->x[d->n] = run->nobj >= 2 ? x : (double)d->nok;
        d->y[d->n++] = y;
    }
}

/* The prediction interval (ipc_lo..ipc_hi, docs/model.md "Uncertainty")
 * of front point i when IPC is one of the two objectives and the record
 * carries one (modelled records do; measured ones have none). The sort
 * of the front points must have set pi_axis first (pareto_build). */
static void front_interval(const met_set *m, pareto_data *d, size_t i)
{
    double lo, hi;
    d->flo[i] = d->fhi[i] = NAN;
    if (!d->pi_axis || met_get(m, "ipc_lo", &lo) || met_get(m, "ipc_hi", &hi)
        || !isfinite(lo) || !isfinite(hi) || lo > hi)
        return;
    d->flo[i] = lo;
    d->fhi[i] = hi;
    d->npi++;
}

static void pareto_front_pts(const rep_run *run, int wl, pareto_data *d)
{
    const rep_wl *w = &run->wl[wl];
    front_pt *fp = calloc(w->nfront + 1, sizeof *fp);
    if (!fp)
        return;
    size_t n = 0;
    int desc = run->nobj >= 2 && run->obj[1].maximize;
    for (size_t i = 0; i < w->nfront; i++) {
        double x, y, z;
        if (run->nobj < 2
            || point_xyz(run, &w->front[i].metrics, &x, &y, &z))
            continue;
        fp[n].key = desc ? -x : x;
        fp[n].y = y;
        fp[n].z = z;
        fp[n].i = i;
        n++;
    }
    qsort(fp, n, sizeof *fp, front_cmp);
    for (size_t i = 0; i < n; i++) {
        d->fx[i] = desc ? -fp[i].key : fp[i].key;
        d->fidx[i] = fp[i].i + 1;
        d->fy[i] = fp[i].y;
        if (d->fz)
            d->fz[i] = fp[i].z;
        front_interval(&w->front[fp[i].i].metrics, d, i);
    }
    d->nf = n;
    free(fp);
}

static void range_add(const double *v, size_t n, double *lo, double *hi);

static int pareto_build(const rep_run *run, int wl, pareto_data *d)
{
    memset(d, 0, sizeof *d);
    size_t cap = run->nrecs + 1, fcap = run->wl[wl].nfront + 1;
    d->x = malloc(cap * sizeof *d->x);
    d->y = malloc(cap * sizeof *d->y);
    d->fx = malloc(fcap * sizeof *d->fx);
    d->fy = malloc(fcap * sizeof *d->fy);
    d->fidx = malloc(fcap * sizeof *d->fidx);
    d->flo = malloc(fcap * sizeof *d->flo);
    d->fhi = malloc(fcap * sizeof *d->fhi);
    if (run->nobj >= 3) {
        d->z = malloc(cap * sizeof *d->z);
        d->fz = malloc(fcap * sizeof *d->fz);
    }
    if (!d->x || !d->y || !d->fx || !d->fy || !d->fidx || !d->flo
        || !d->fhi || (run->nobj >= 3 && (!d->z || !d->fz)))
        return -1;
    if (run->nobj >= 2)
        d->pi_axis = !strcmp(run->obj[0].metric, "ipc") ? 'y'
                     : !strcmp(run->obj[1].metric, "ipc") ? 'x' : 0;
    pareto_jobs(run, wl, d);
    pareto_front_pts(run, wl, d);
    const rep_wl *w = &run->wl[wl];
    d->has_base = w->has_baseline && run->nobj >= 2
                  && point_xy(run, &w->baseline.metrics, &d->bx, &d->by) == 0;
    if (d->z) {   /* the colour scale covers jobs and front */
        double lo = INFINITY, hi = -INFINITY;
        range_add(d->z, d->n, &lo, &hi);
        range_add(d->fz, d->nf, &lo, &hi);
        chart_scale_fit(lo, hi, 0, 6, &d->zs);
    }
    return 0;
}

static void pareto_free(pareto_data *d)
{
    free(d->x);
    free(d->y);
    free(d->fx);
    free(d->fy);
    free(d->fidx);
    free(d->flo);
    free(d->fhi);
    free(d->z);
    free(d->fz);
}

static void range_add(const double *v, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
}

/* Extend [lo, hi] by the positive values of v (log axes). */
static void range_pos(const double *v, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
}

static void pareto_scales(chart_ctx *cc, const pareto_data *d,
                          chart_box box, int log, chart_axes *ax)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    void (*rx)(const double *, size_t, double *, double *)
        = log & FIG_LOGX ? range_pos : range_add;
    void (*ry)(const double *, size_t, double *, double *)
        = log & FIG_LOGY ? range_pos : range_add;
    rx(d->x, d->n, &xlo, &xhi);
    ry(d->y, d->n, &ylo, &yhi);
    rx(d->fx, d->nf, &xlo, &xhi);
    ry(d->fy, d->nf, &ylo, &yhi);
    if (d->npi) {   /* the intervals' ends stay inside the plot */
        void (*r)(const double *, size_t, double *, double *)
            = d->pi_axis == 'y' ? ry : rx;
        double *lo = d->pi_axis == 'y' ? &ylo : &xlo;
        double *hi = d->pi_axis == 'y' ? &yhi : &xhi;
        r(d->flo, d->nf, lo, hi);
        r(d->fhi, d->nf, lo, hi);
    }
    if (d->has_base) {
        rx(&d->bx, 1, &xlo, &xhi);
        ry(&d->by, 1, &ylo, &yhi);
    }
    int yt = (int)fmax(2, box.h / 36);
    chart_scale_fit_x(cc, xlo, xhi, 0.015, (log & FIG_LOGX) != 0,
                      box.w * 0.85, &ax->xs);
    if (log & FIG_LOGY)
        chart_scale_fit_log(ylo, yhi, yt, &ax->ys);
    else
        chart_scale_fit(ylo, yhi, 0.02, yt, &ax->ys);
}

/* ---- Pareto figure drawing -------------------------------------------- */

static double pareto_header(chart_ctx *cc, const rep_run *run, int wl,
                            const pareto_data *d, chart_box box, int draw)
{
    char title[512], note[512];
    double h, y = box.y;
    const char *xl = run->nobj >= 2 ? met_label(run->obj[1].metric)
                                    : "job order";
    snprintf(title, sizeof title, "%s: %s vs %s — %s", run->wl[wl].name,
             met_label(run->obj[0].metric), xl,
             fidelity_words(rep_wl_fidelity(run, wl)));
    cairo_set_source_rgb(cc->cr, 0, 0, 0);
    if (draw)
        chart_text(cc, title, FIG_TITLE_PT, CHART_BOLD, box.w, box.x, y,
                   CHART_LEFT, CHART_TOP, NULL, &h);
    else
        chart_text_size(cc, title, FIG_TITLE_PT, CHART_BOLD, box.w, NULL, &h);
    y += h;
    note[0] = '\0';
    if (run->nobj > 2)
        snprintf(note, sizeof note, "The front is over %d objectives; the "
                 "plot shows the first two, colour the third (%s). ",
                 run->nobj, met_label(run->obj[2].metric));
    if (d->density)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "Jobs drawn as a density raster (darker: more jobs), "
                 "the front's points exact. ");
    if (d->nf && d->nf <= FRONT_LABELS_MAX)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "Numbers: rows of the front table. ");
    if (d->nskip)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "%zu of %zu successful jobs not plotted (NaN, infinite or "
                 "missing objective values).", d->nskip, d->nok);
    if (note[0]) {
        cairo_set_source_rgb(cc->cr, 0.25, 0.25, 0.25);
        if (draw)
            chart_text(cc, note, FIG_NOTE_PT, CHART_REGULAR, box.w, box.x,
                       y + 2, CHART_LEFT, CHART_TOP, NULL, &h);
        else
            chart_text_size(cc, note, FIG_NOTE_PT, CHART_REGULAR, box.w,
                            NULL, &h);
        y += h + 2;
    }
    return y - box.y + 6;
}

/* Front marker outline: black, or none when the front is so dense that
 * outlines would merge into a black band. */
static chart_rgba front_edge(const pareto_data *d)
{
    return d->nf > 60 ? chart_colour(CHART_VERMILLION, 1)
                      : chart_colour(CHART_BLACK, 1);
}

static int pareto_legend(const pareto_data *d, chart_legend_item *it,
                         char lbl[3][96])
{
    int n = 0;
    chart_rgba jobs = d->z ? plot_seq_colour(0.5)
                           : chart_colour(CHART_SKY, 1);
    snprintf(lbl[0], 96, "successful jobs (%zu%s)", d->n,
             d->density ? ", density" : "");
    it[n++] = (chart_legend_item){ lbl[0], CHART_CIRCLE,
        (chart_rgba){ jobs.r, jobs.g, jobs.b, 0.6 }, jobs, 0 };
    if (d->nf) {
        snprintf(lbl[1], 96, d->npi ? "Pareto front (%zu), bars: modelled "
                 "IPC 95%% interval" : "Pareto front (%zu)", d->nf);
        it[n++] = (chart_legend_item){ lbl[1], CHART_DIAMOND,
            d->z ? plot_seq_colour(0.5) : chart_colour(CHART_VERMILLION, 1),
            d->z ? chart_colour(CHART_BLACK, 1) : front_edge(d), !d->z };
    }
    if (d->has_base) {
        snprintf(lbl[2], 96, "baseline");
        it[n++] = (chart_legend_item){ lbl[2], CHART_TRIANGLE,
            chart_colour(CHART_BLACK, 1), chart_colour(CHART_BLACK, 1), 0 };
    }
    return n;
}

/* Points of the figure inside a device-space rectangle (label overlap). */
static size_t points_in(const chart_axes *ax, const pareto_data *d,
                        double x0, double y0, double w, double h)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n + d->nf; i++) {
        double x = i < d->n ? d->x[i] : d->fx[i - d->n];
        double y = i < d->n ? d->y[i] : d->fy[i - d->n];
        double px = chart_map_x(ax, x), py = chart_map_y(ax, y);
        n += px >= x0 - 3 && px <= x0 + w + 3 && py >= y0 - 3
             && py <= y0 + h + 3;
    }
    return n;
}

/* The baseline marker and its label, placed in whichever corner around the
 * marker fits inside the plot and covers the fewest points. */
static void pareto_baseline(chart_ctx *cc, const chart_axes *ax,
                            const pareto_data *d, chart_box *label)
{
    const chart_box *p = &ax->plot;
    double px = chart_map_x(ax, d->bx), py = chart_map_y(ax, d->by), w, h;
    chart_rgba k = chart_colour(CHART_BLACK, 1);
    chart_markers_stroked(cc, ax, &d->bx, &d->by, 1, CHART_TRIANGLE, 3.2,
                          k, k);
    chart_text_size(cc, "baseline", FIG_NOTE_PT, CHART_BOLD, 0, &w, &h);
    double tx = px + 6, ty = py - 6 - h;
    size_t best = (size_t)-1;
    for (int c = 0; c < 4; c++) {
        double cx = c % 2 == 0 ? px + 6 : px - 6 - w;
        double cy = c < 2 ? py - 6 - h : py + 6;
        if (cx < p->x + 2 || cx + w > p->x + p->w - 2 || cy < p->y + 2
            || cy + h > p->y + p->h - 2)
            continue;
        size_t n = points_in(ax, d, cx, cy, w, h);
        if (n < best) {
            best = n;
            tx = cx;
            ty = cy;
        }
    }
    *label = (chart_box){ tx - 1, ty, w + 2, h };
    cairo_set_source_rgba(cc->cr, 1, 1, 1, 0.8);
    cairo_rectangle(cc->cr, tx - 1, ty, w + 2, h);
    cairo_fill(cc->cr);
    cairo_set_source_rgb(cc->cr, 0, 0, 0);
    chart_text(cc, "baseline", FIG_NOTE_PT, CHART_BOLD, 0, tx, ty,
               CHART_LEFT, CHART_TOP, NULL, NULL);
}

static void pareto_empty(chart_ctx *cc, const chart_axes *ax,
                         const pareto_data *d)
{
    char msg[128];
    if (d->nok == 0)
        snprintf(msg, sizeof msg, "no successful jobs");
    else
        snprintf(msg, sizeof msg, "no plottable points (%zu successful "
                 "jobs, none with finite objective values)", d->nok);
    cairo_set_source_rgb(cc->cr, 0.3, 0.3, 0.3);
    chart_text(cc, msg, 10, CHART_REGULAR, ax->plot.w - 20,
               ax->plot.x + ax->plot.w / 2, ax->plot.y + ax->plot.h / 2,
               CHART_CENTER, CHART_MIDDLE, NULL, NULL);
}

static void pareto_titles(const rep_run *run, char *xt, char *yt, size_t n)
{
    fig_axis_title_sense(rep_run_camp(run), &run->obj[0], yt, n);
    if (run->nobj >= 2)
        fig_axis_title_sense(rep_run_camp(run), &run->obj[1], xt, n);
    else
        snprintf(xt, n, "Job (configs in knob order)");
}

/* Small fronts: each point labelled with its row number in the front
 * table, placed in the first free spot around the point; a label that
 * would cover another label or leave the plot is dropped. */
static void front_labels(chart_ctx *cc, const chart_axes *ax,
                         const pareto_data *d, const chart_box *avoid)
{
    const chart_box *p = &ax->plot;
    chart_box placed[FRONT_LABELS_MAX + 1];
    int np = 0;
    if (avoid)
        placed[np++] = *avoid;
    for (size_t i = 0; i < d->nf && d->nf <= FRONT_LABELS_MAX; i++) {
        char t[24];
        double w, h, px = chart_map_x(ax, d->fx[i]);
        double py = chart_map_y(ax, d->fy[i]);
        if (!isfinite(px) || !isfinite(py))
            continue;
        snprintf(t, sizeof t, "%zu", d->fidx[i]);
        chart_text_size(cc, t, 7, CHART_REGULAR, 0, &w, &h);
        static const double off[4][2] = { { 4, -1 }, { -1, 0 }, { 4, 0 },
                                          { -1, -1 } };
        for (int c = 0; c < 4; c++) {
            double tx = off[c][0] > 0 ? px + 4 : px - 4 - w;
            double ty = off[c][1] < 0 ? py - 3 - h : py + 3;
            int bad = tx < p->x + 1 || tx + w > p->x + p->w - 1
                      || ty < p->y + 1 || ty + h > p->y + p->h - 1;
            for (int k = 0; k < np && !bad; k++)
                bad = tx < placed[k].x + placed[k].w && placed[k].x < tx + w
                      && ty < placed[k].y + placed[k].h
                      && placed[k].y < ty + h;
            if (bad)
                continue;
            placed[np++] = (chart_box){ tx, ty, w, h };
            cairo_set_source_rgb(cc->cr, 0.1, 0.1, 0.1);
            chart_text(cc, t, 7, CHART_REGULAR, 0, tx, ty, CHART_LEFT,
                       CHART_TOP, NULL, NULL);
            break;
        }
    }
}

/* Each front point's modelled IPC interval as a thin bar with end ticks,
 * along the axis that carries IPC, under the front's markers. */
static void front_intervals(chart_ctx *cc, const chart_axes *ax,
                            const pareto_data *d)
{
    cairo_t *cr = cc->cr;
    chart_set_rgba(cr, chart_colour(CHART_VERMILLION, 0.55));
    cairo_set_line_width(cr, 0.8);
    for (size_t i = 0; i < d->nf; i++) {
        if (!isfinite(d->flo[i]))
            continue;
        int vert = d->pi_axis == 'y';
        double x0 = chart_map_x(ax, vert ? d->fx[i] : d->flo[i]);
        double y0 = chart_map_y(ax, vert ? d->flo[i] : d->fy[i]);
        double x1 = chart_map_x(ax, vert ? d->fx[i] : d->fhi[i]);
        double y1 = chart_map_y(ax, vert ? d->fhi[i] : d->fy[i]);
        if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1))
            continue;
        double tx = vert ? 2 : 0, ty = vert ? 0 : 2;
        cairo_move_to(cr, x0, y0);
        cairo_line_to(cr, x1, y1);
        cairo_move_to(cr, x0 - tx, y0 - ty);
        cairo_line_to(cr, x0 + tx, y0 + ty);
        cairo_move_to(cr, x1 - tx, y1 - ty);
        cairo_line_to(cr, x1 + tx, y1 + ty);
    }
    cairo_stroke(cr);
}

/* The third objective's colour fraction of v on the colour scale. */
static double z_frac(const pareto_data *d, double v)
{
    return (v - d->zs.lo) / (d->zs.hi - d->zs.lo);
}

/* Exact jobs coloured by the third objective: one scatter per colour
 * step (16 steps of the map), so still a few paths, not one per point. */
static void jobs_coloured(chart_ctx *cc, const chart_axes *ax,
                          const pareto_data *d, double merge)
{
    enum { NSTEP = 16 };
    double *bx = malloc((d->n + 1) * sizeof *bx);
    double *by = malloc((d->n + 1) * sizeof *by);
    for (int b = 0; bx && by && b < NSTEP; b++) {
        size_t m = 0;
        for (size_t i = 0; i < d->n; i++) {
            int s = (int)floor(z_frac(d, d->z[i]) * NSTEP);
            if ((s < 0 ? 0 : s >= NSTEP ? NSTEP - 1 : s) != b)
                continue;
            bx[m] = d->x[i];
            by[m++] = d->y[i];
        }
        chart_rgba c = plot_seq_colour((b + 0.5) / NSTEP);
        c.a = 0.7;
        chart_scatter(cc, ax, bx, by, m, CHART_CIRCLE, 1.7, c, merge);
    }
    free(bx);
    free(by);
}

static chart_rgba z_cmap(double t)
{
    return plot_seq_colour(t);
}

static void pareto_jobs_marks(chart_ctx *cc, const chart_axes *ax,
                              const pareto_data *d)
{
    /* Markers closer than the merge distance (below the marker radius) are
     * drawn once: invisible at this size. Above the density threshold the
     * jobs are one image, whatever their number. */
    double merge = d->n > 20000 ? 1.5 : 0.5;
    chart_rgba fill = d->z ? plot_seq_colour(0) : chart_colour(CHART_SKY, 1);
    fill.a = 0.6;   /* one job: light; the densest pixel: opaque */
    if (d->density)
        chart_density(cc, ax, d->x, d->y, d->z, d->n, 1.7, fill,
                      d->z ? z_cmap : NULL, d->zs.lo, d->zs.hi);
    else if (d->z)
        jobs_coloured(cc, ax, d, merge);
    else
        chart_scatter(cc, ax, d->x, d->y, d->n, CHART_CIRCLE, 1.7,
                      chart_colour(CHART_SKY, 0.6), merge);
}

/* Front markers, each filled with its third objective's colour. */
static void front_coloured(chart_ctx *cc, const chart_axes *ax,
                           const pareto_data *d)
{
    for (size_t i = 0; i < d->nf; i++)
        chart_markers_stroked(cc, ax, &d->fx[i], &d->fy[i], 1,
                              CHART_DIAMOND, d->nf > 60 ? 2.2 : 2.8,
                              plot_seq_colour(z_frac(d, d->fz[i])),
                              chart_colour(CHART_BLACK, 1));
}

/* One bound of a <constraint> as a dashed grey line across the plot
 * (vertical on the x axis), labelled "max 600" inside its end; nothing
 * when the bound lies outside the axis. */
static void bound_line(chart_ctx *cc, const chart_axes *ax, int on_x,
                       const char *what, double v)
{
    const chart_box *p = &ax->plot;
    double c = on_x ? chart_map_x(ax, v) : chart_map_y(ax, v);
    if (!isfinite(c) || (on_x ? c < p->x || c > p->x + p->w
                              : c < p->y || c > p->y + p->h))
        return;
    static const double dash[] = {4.0, 3.0};
    char t[64];
    snprintf(t, sizeof t, "%s %g", what, v);
    cairo_save(cc->cr);
    cairo_set_dash(cc->cr, dash, 2, 0);
    cairo_set_line_width(cc->cr, 0.9);
    cairo_set_source_rgb(cc->cr, 0.35, 0.35, 0.35);
    cairo_move_to(cc->cr, on_x ? c : p->x, on_x ? p->y : c);
    cairo_line_to(cc->cr, on_x ? c : p->x + p->w, on_x ? p->y + p->h : c);
    cairo_stroke(cc->cr);
    cairo_restore(cc->cr);
    cairo_set_source_rgb(cc->cr, 0.35, 0.35, 0.35);
    chart_text(cc, t, 7, CHART_REGULAR, 0, on_x ? c + 2 : p->x + p->w - 2,
               on_x ? p->y + 2 : c - 2, on_x ? CHART_LEFT : CHART_RIGHT,
               on_x ? CHART_TOP : CHART_BOTTOM, NULL, NULL);
}

/* The campaign's constraints on the two plotted objectives. */
static void pareto_bounds(chart_ctx *cc, const rep_run *run,
                          const chart_axes *ax)
{
    for (int i = 0; run->have_camp && i < run->camp.ncons; i++) {
        const cons_bound *b = &run->camp.cons[i];
        for (int a = 0; a < (run->nobj >= 2 ? 2 : 1); a++) {
            if (strcmp(b->metric, run->obj[a].metric) != 0)
                continue;
            if (b->has_min)
                bound_line(cc, ax, a == 1, "min", b->min);
            if (b->has_max)
                bound_line(cc, ax, a == 1, "max", b->max);
        }
    }
}

static void pareto_marks(chart_ctx *cc, const rep_run *run,
                         const chart_axes *ax, const pareto_data *d)
{
    pareto_bounds(cc, run, ax);
    pareto_jobs_marks(cc, ax, d);
    if (d->nf && run->nobj == 2)
        chart_step_line(cc, ax, d->fx, d->fy, d->nf,
                        chart_colour(CHART_VERMILLION, 1), 1.2);
    if (d->npi)
        front_intervals(cc, ax, d);
    if (d->nf && d->z)
        front_coloured(cc, ax, d);
    else if (d->nf)
        chart_markers_stroked(cc, ax, d->fx, d->fy, d->nf, CHART_DIAMOND,
                              d->nf > 60 ? 2.0 : 2.6,
                              chart_colour(CHART_VERMILLION, 1),
                              front_edge(d));
    chart_box base_label;
    if (d->has_base)
        pareto_baseline(cc, ax, d, &base_label);
    front_labels(cc, ax, d, d->has_base ? &base_label : NULL);
}

static void fig_pareto(chart_ctx *cc, const rep_run *run, int wl,
                       const char *metric, int log, chart_box box)
{
    pareto_data d;
    chart_axes ax;
    chart_margins m;
    (void)metric;
    memset(&ax, 0, sizeof ax);
    chart_legend_item it[3];
    char lbl[3][96], xt[160], yt[160];
    if (pareto_build(run, wl, &d) != 0) {
        pareto_free(&d);
        return;
    }
    d.density = d.n > fig_density_above(log);
    box = (chart_box){ box.x + FIG_PAD, box.y + FIG_PAD,
                       box.w - 2 * FIG_PAD, box.h - 2 * FIG_PAD };
    double cbw = d.z ? plot_cbar_width(cc, &d.zs) : 0;
    double top = log & FIG_NOTITLE ? 0
                 : pareto_header(cc, run, wl, &d, box, 1);
    int nleg = pareto_legend(&d, it, lbl);
    double legh = chart_legend(cc, it, nleg, box.x, 0, box.w, 0);
    pareto_scales(cc, &d, (chart_box){ 0, 0, box.w, box.h - top - legh },
                  log, &ax);
    chart_axes_margins(cc, &ax, &m);
    ax.plot = (chart_box){ box.x + m.left, box.y + top + m.top,
                           box.w - m.left - fmax(m.right, cbw),
                           box.h - top - m.top - m.bottom - legh - 8 };
    pareto_titles(run, xt, yt, sizeof xt);
    chart_axes_draw(cc, &ax, xt, yt);
    if (d.z) {
        char zt[160];
        fig_axis_title_sense(rep_run_camp(run), &run->obj[2], zt, sizeof zt);
        plot_cbar_draw(cc, &ax, &d.zs, zt);
    }
    if (d.n == 0 && d.nf == 0 && !d.has_base)
        pareto_empty(cc, &ax, &d);
    else
        pareto_marks(cc, run, &ax, &d);
    chart_legend(cc, it, nleg, box.x, box.y + box.h - legh, box.w, 1);
    pareto_free(&d);
}

/* ---- registry and files ----------------------------------------------- */

size_t fig_density_above(int flags)
{
    int n = flags >> FIG_DENSITY_SHIFT;
    if (flags & FIG_EXACT)
        return (size_t)-1;
    return n > 0 ? (size_t)(n - 1) : FIG_DENSITY_AUTO;
}

static const fig_kind kinds[] = {
    { "pareto", fig_pareto, NULL, 0 },
    { "sensitivity", fig_sensitivity, fig_sensitivity_avail, 1 },
    { "heatmap", fig_heatmap, fig_heatmap_avail, 1 },
};

const fig_kind *fig_kind_find(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].kind, name) == 0)
            return &kinds[i];
    return NULL;
}

const char *fig_kind_names(void)
{
    return "pareto, sensitivity, heatmap";
}

int fig_available(const fig_kind *k, const rep_run *run, int wl,
                  const char *metric)
{
    return !k->avail || k->avail(run, wl, metric);
}

void fig_size(int single, double *w, double *h)
{
    /* 3.5 in and 7.16 in: the column widths of two-column paper styles. */
    *w = single ? 252 : 516;
    *h = single ? 234 : 330;
}

void fig_stem(const fig_kind *k, const rep_run *run, int wl,
              const char *metric, char *out, size_t n)
{
    if (k->per_metric && metric)
        snprintf(out, n, "%s_%s_%s", k->kind, run->wl[wl].name, metric);
    else
        snprintf(out, n, "%s_%s", k->kind, run->wl[wl].name);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'
              || *p == '.'))
            *p = '_';
    if (out[0] == '.')
        out[0] = '_';
}

/* One figure's drawing, as chart_write_file calls it. */
typedef struct {
    const fig_kind *k;
    const rep_run *run;
    int wl, log;
    const char *metric;
} fig_job;

static void draw_job(chart_ctx *cc, chart_box page, const void *arg)
{
    const fig_job *j = arg;
    j->k->draw(cc, j->run, j->wl, j->metric, j->log, page);
}

static int write_one(const fig_kind *k, const rep_run *run, int wl,
                     const char *metric, int log, rep_out_kind kind,
                     const char *path, const chart_font *font, gd_err *err)
{
    char title[160];
    double w, h;
    fig_size(run->camp.figure_single, &w, &h);
    fig_stem(k, run, wl, metric, title, sizeof title);
    fig_job j = {k, run, wl, log, metric};
    return chart_write_file_font(kind, w, h, title, path, font, draw_job,
                                 &j, err);
}

int fig_write_files(const fig_kind *k, const rep_run *run, int wl,
                    const char *metric, int log, int formats,
                    const chart_font *font, gd_err *err)
{
    char dir[4096], stem[160], name[200], path[4096];
    int rc = rep_run_path(run, "figures", dir, sizeof dir, err);
    if (!rc)
        rc = util_mkdirs(dir, err);
    fig_stem(k, run, wl, metric, stem, sizeof stem);
    for (int f = 0; !rc && f < 2; f++) {
        int bit = f == 0 ? CAMP_FMT_SVG : CAMP_FMT_PDF;
        if (!(formats & bit))
            continue;
        snprintf(name, sizeof name, "%s.%s", stem, f == 0 ? "svg" : "pdf");
        if (util_path_join(path, sizeof path, dir, name) != GD_OK)
            return gd_errf(err, GD_EENV, "%s/%s: path too long", dir, name);
        rc = write_one(k, run, wl, metric, log,
                       f == 0 ? REP_OUT_SVG : REP_OUT_PDF, path, font, err);
    }
    return rc;
}
