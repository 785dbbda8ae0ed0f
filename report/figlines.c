/* figlines: the "line" figure across workloads — for every workload the
 * successful jobs whose knobs other than the x knob equal the workload's
 * baseline (or best) configuration, the metric's mean per level of the x
 * knob, one line with markers per workload. Each workload's line is
 * gathered while its records are loaded (fig_line_add), so drawing holds
 * the lines, not the journal. */
#include "figlines.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figkit.h"
#include "figkit_cross.h"
#include "plots.h"

typedef struct {
    int n;                          /* levels with a value */
    double x[SPACE_MAXLEVELS], y[SPACE_MAXLEVELS];
    size_t jobs;                    /* jobs averaged into the line */
    const char *why;                /* no line: the reason */
} wl_line;

struct fig_line_data {
    int nwl;
    wl_line *lines;                 /* per workload of run->wl */
};

/* The point whose other knobs the line holds, or NULL. */
static const rep_point *ref_point(const rep_run *run, int wl,
                                  const rep_cross_fig *f)
{
    const rep_wl *w = &run->wl[wl];
    if (f->at_best)
        return w->nfront ? &w->front[0] : NULL;
    return w->has_baseline ? &w->baseline : NULL;
}

/* 1 when every knob (user knobs: those of sp) but the x knob has the
 * reference point's value. */
static int holds_others(const space_def *sp, const gpu_config *c,
                        const rep_point *p, int knob)
{
    char buf[REP_VALLEN];
    for (int k = 0; k < space_nknobs(sp); k++) {
        if (k == knob)
            continue;
        space_level_str(sp, k, space_get(c, k), buf, sizeof buf);
        if (strcmp(buf, p->knob[k]) != 0)
            return 0;
    }
    return 1;
}

static void add_level(wl_line *l, double *sum, size_t *cnt, double x,
                      double v)
{
    int i = 0;
    while (i < l->n && l->x[i] < x)
        i++;
    if (i == l->n || l->x[i] != x) {
        if (l->n >= SPACE_MAXLEVELS)
            return;
        for (int j = l->n++; j > i; j--) {
            l->x[j] = l->x[j - 1];
            sum[j] = sum[j - 1];
            cnt[j] = cnt[j - 1];
        }
        l->x[i] = x;
        sum[i] = 0;
        cnt[i] = 0;
    }
    sum[i] += v;
    cnt[i]++;
    l->jobs++;
}

/* Where c sits on the x axis: a user knob's level text read as a number
 * (its value, not its index), a built-in knob's value. */
static double knob_x(const space_def *sp, int knob, const gpu_config *c)
{
    char t[REP_VALLEN];
    if (knob < SPACE_NKNOBS)
        return space_get(c, knob);
    return strtod(space_level_str(sp, knob, space_get(c, knob), t, sizeof t),
                  NULL);
}

/* Workload wl's line from its records recs[0..n). */
static void build_line(const rep_run *run, int wl, const rep_cross_fig *f,
                       const store_record *recs, size_t n, wl_line *l)
{
    const char *metric = fig_cross_metric(run, f);
    double sum[SPACE_MAXLEVELS];
    size_t cnt[SPACE_MAXLEVELS];
    memset(l, 0, sizeof *l);
    const rep_point *p = ref_point(run, wl, f);
    if (!p) {
        l->why = f->at_best ? "no Pareto front" : "no baseline";
        return;
    }
    size_t matched = 0;   /* jobs on the line, with or without metric */
    for (size_t i = 0; i < n; i++) {
        const store_record *r = &recs[i];
        double v;
        if (r->status != ST_OK || strcmp(r->workload, run->wl[wl].name)
            || !holds_others(rep_run_space(run), &r->cfg, p, f->knob))
            continue;
        matched++;
        if (met_get(&r->metrics, metric, &v) == 0 && isfinite(v))
            add_level(l, sum, cnt, knob_x(rep_run_space(run), f->knob,
                                          &r->cfg), v);
    }
    for (int i = 0; i < l->n; i++)
        l->y[i] = sum[i] / (double)cnt[i];
    if (!l->n)
        l->why = matched ? "metric absent or not finite"
                         : "no job varies only this knob";
}

static const char *all_fidelity(const rep_run *run)
{
    const char *fid = run->nwl ? rep_wl_fidelity(run, 0) : "modelled";
    for (int w = 1; w < run->nwl; w++)
        if (strcmp(rep_wl_fidelity(run, w), fid) != 0)
            return "mixed";
    return fid;
}

static void caption_with(const rep_run *run, const rep_cross_fig *f,
                         const wl_line *lines, char *out, size_t n)
{
    const char *metric = fig_cross_metric(run, f);
    const char *kn = space_knob_name(rep_run_space(run), f->knob);
    size_t jobs = 0;
    for (int w = 0; w < run->nwl; w++)
        jobs += lines[w].jobs;
    snprintf(out, n, "%s against %s, one line per workload (%s results, "
             "%zu jobs; the mean where a level ran more than once). The "
             "other knobs are held at ", met_label(metric), kn,
             all_fidelity(run), jobs);
    if (f->at_best)
        snprintf(out + strlen(out), n - strlen(out), "each workload's best "
                 "configuration by %s (row 1 of its front table).",
                 run->nobj ? met_label(run->obj[0].metric) : "the objective");
    else
        snprintf(out + strlen(out), n - strlen(out), "each workload's "
                 "baseline configuration.");
    for (int w = 0, k = 0; w < run->nwl; w++)
        if (lines[w].why)
            snprintf(out + strlen(out), n - strlen(out), "%s%s (%s)",
                     k++ ? ", " : " No line: ", run->wl[w].name,
                     lines[w].why);
    if (out[strlen(out) - 1] == ')')
        snprintf(out + strlen(out), n - strlen(out), ".");
}

fig_line_data *fig_line_new(const rep_run *run, const rep_cross_fig *f)
{
    fig_line_data *d = calloc(1, sizeof *d);
    if (d)
        d->lines = calloc((size_t)(run->nwl ? run->nwl : 1),
                          sizeof *d->lines);
    if (!d || !d->lines) {
        fig_line_free(d);
        return NULL;
    }
    d->nwl = run->nwl;
    for (int w = 0; w < run->nwl; w++)   /* until its records are seen */
        build_line(run, w, f, NULL, 0, &d->lines[w]);
    return d;
}

void fig_line_add(fig_line_data *d, const rep_run *run,
                  const rep_cross_fig *f, int wl)
{
    if (d && wl >= 0 && wl < d->nwl)
        build_line(run, wl, f, run->recs, run->nrecs, &d->lines[wl]);
}

void fig_line_free(fig_line_data *d)
{
    if (d)
        free(d->lines);
    free(d);
}

void fig_line_draw(chart_ctx *cc, const rep_run *run,
                   const rep_cross_fig *f, const fig_line_data *d,
                   chart_box box)
{
    char title[256], note[2048], xt[96], yt[128];
    const char *metric = fig_cross_metric(run, f);
    if (!d || d->nwl != run->nwl)
        return;
    const wl_line *lines = d->lines;
    plot_series *s = calloc((size_t)(run->nwl ? run->nwl : 1), sizeof *s);
    if (!s)
        return;
    int ns = 0;
    for (int w = 0; w < run->nwl; w++)
        if (lines[w].n)
            s[ns++] = (plot_series){ run->wl[w].name, (size_t)lines[w].n,
                                     lines[w].x, lines[w].y, NULL, NULL };
    fig_cross_title(run, f, title, sizeof title);
    caption_with(run, f, lines, note, sizeof note);
    fig_knob_title_in(rep_run_space(run), f->knob, xt, sizeof xt);
    fig_axis_title(rep_run_camp(run), metric, yt, sizeof yt);
    plot_spec p;
    memset(&p, 0, sizeof p);
    p.kind = PLOT_LINES;
    p.title = f->no_title ? NULL : title;
    p.note = f->no_title ? NULL : note;
    p.xtitle = xt;
    p.ytitle = yt;
    p.xlog = (f->log & FIG_LOGX) != 0;
    p.ylog = (f->log & FIG_LOGY) != 0;
    p.xrange = f->has_xrange ? f->xrange : NULL;
    p.yrange = f->has_yrange ? f->yrange : NULL;
    p.u.lines = (plot_lines){ NULL, ns, s };
    plot_draw(cc, &p, box);
    free(s);
}
