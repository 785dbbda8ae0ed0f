/* figbars: grouped bars across workloads — for each workload and chosen
 * configuration the metric divided by the workload's baseline value (the
 * speedup, for IPC), and the geometric mean over the workloads as the last
 * group (absent unless every workload has the configuration). Each
 * workload's values are gathered while its records are loaded
 * (fig_bars_add), so drawing holds the values, not the journal. */
#include "figbars.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figkit.h"
#include "figkit_cross.h"
#include "plots.h"

typedef struct {
    int ng, ns;                 /* groups: workloads + geomean; series */
    double *v;                  /* v[g * ns + s]: ratio, NAN absent */
    const char **glab, **slab;
    char slab_text[REP_BARS_MAX][96];
    char absent[1024];          /* "wl × config (why)", comma separated */
} bars_data;

/* What fig_bars_add gathers: per workload its baseline value and each
 * configuration's value, NAN with why[] set when it has none. */
struct fig_bars_data {
    int nwl, ns;
    double *base;               /* base[wl] */
    double *val;                /* val[wl * ns + s] */
    const char **why;           /* why[wl * ns + s], static text or NULL */
};

/* The configuration of a point of analysis.json (user knobs: those of
 * sp); -1 when a knob is missing or not a value of the knob. */
static int point_config(const space_def *sp, const rep_point *p,
                        gpu_config *c)
{
    for (int k = 0; k < space_nknobs(sp); k++) {
        int v;
        if (space_level_parse(sp, k, p->knob[k], &v) != 0)
            return -1;
        space_set(c, k, v);
    }
    return 0;
}

static int same_config(const gpu_config *a, const gpu_config *b)
{
    for (int k = 0; k < SPACE_MAXKNOBS; k++)
        if (space_get(a, k) != space_get(b, k))
            return 0;
    return 1;
}

/* The records of one workload: recs[0..n), those called name. */
typedef struct {
    const store_record *recs;
    size_t n;
    const char *name;
} wl_recs;

/* Mean of metric over the workload's successful jobs at c; NAN when none. */
static double mean_at(const wl_recs *wr, const gpu_config *c,
                      const char *metric)
{
    double sum = 0, v;
    size_t n = 0;
    for (size_t i = 0; i < wr->n; i++) {
        const store_record *r = &wr->recs[i];
        if (r->status != ST_OK || strcmp(r->workload, wr->name)
            || !same_config(&r->cfg, c)
            || met_get(&r->metrics, metric, &v) != 0 || !isfinite(v))
            continue;
        sum += v;
        n++;
    }
    return n ? sum / (double)n : NAN;
}

/* The value of configuration s on workload wl, or NAN with why set. */
static double config_value(const rep_run *run, int wl, const wl_recs *wr,
                           const rep_cross_fig *f, int s, const char *metric,
                           const char **why)
{
    const rep_wl *w = &run->wl[wl];
    double v = NAN;
    if (f->best[s]) {
        if (!w->nfront)
            *why = "no front";
        else if (met_get(&w->front[0].metrics, metric, &v) != 0
                 || !isfinite(v))
            *why = "metric absent";
        return v;
    }
    v = mean_at(wr, &f->conf[s], metric);
    if (!isfinite(v))
        *why = "not run";
    return v;
}

static double base_value(const rep_run *run, int wl, const wl_recs *wr,
                         const char *metric)
{
    const rep_wl *w = &run->wl[wl];
    gpu_config c = space_baseline();
    double v;
    if (!w->has_baseline)
        return NAN;
    if (met_get(&w->baseline.metrics, metric, &v) == 0 && isfinite(v))
        return v;
    return point_config(rep_run_space(run), &w->baseline, &c) == 0
               ? mean_at(wr, &c, metric) : NAN;
}

static void note_absent(bars_data *d, const char *wl, const char *conf,
                        const char *why)
{
    size_t l = strlen(d->absent);
    snprintf(d->absent + l, sizeof d->absent - l, "%s%s × %s (%s)",
             l ? ", " : "", wl, conf, why);
}

/* Workload wl's values from its records recs[0..n) into g. */
static void gather_workload(const rep_run *run, const rep_cross_fig *f,
                            int wl, const store_record *recs, size_t n,
                            fig_bars_data *g)
{
    const char *metric = fig_cross_metric(run, f);
    wl_recs wr = { recs, n, run->wl[wl].name };
    g->base[wl] = base_value(run, wl, &wr, metric);
    for (int s = 0; s < g->ns; s++) {
        const char *why = NULL;
        g->val[wl * g->ns + s] = config_value(run, wl, &wr, f, s, metric,
                                              &why);
        g->why[wl * g->ns + s] = why;
    }
}

fig_bars_data *fig_bars_new(const rep_run *run, const rep_cross_fig *f)
{
    fig_bars_data *g = calloc(1, sizeof *g);
    size_t n = (size_t)(run->nwl ? run->nwl : 1),
           ns = (size_t)(f->nconf ? f->nconf : 1);
    if (g) {
        g->base = calloc(n, sizeof *g->base);
        g->val = calloc(n * ns, sizeof *g->val);
        g->why = calloc(n * ns, sizeof *g->why);
    }
    if (!g || !g->base || !g->val || !g->why) {
        fig_bars_free(g);
        return NULL;
    }
    g->nwl = run->nwl;
    g->ns = f->nconf;
    for (int w = 0; w < run->nwl; w++)   /* until its records are seen */
        gather_workload(run, f, w, NULL, 0, g);
    return g;
}

void fig_bars_add(fig_bars_data *g, const rep_run *run,
                  const rep_cross_fig *f, int wl)
{
    if (g && wl >= 0 && wl < g->nwl)
        gather_workload(run, f, wl, run->recs, run->nrecs, g);
}

void fig_bars_free(fig_bars_data *g)
{
    if (g) {
        free(g->base);
        free(g->val);
        free(g->why);
    }
    free(g);
}

static void fill_workload(const rep_run *run, const fig_bars_data *g, int wl,
                          bars_data *d)
{
    double base = g->base[wl];
    for (int s = 0; s < d->ns; s++) {
        const char *why = g->why[wl * g->ns + s];
        double v = g->val[wl * g->ns + s];
        if (!(base > 0) || !isfinite(base))
            why = "no baseline value";
        d->v[wl * d->ns + s] = why ? NAN : v / base;
        if (why)
            note_absent(d, run->wl[wl].name, d->slab[s], why);
    }
}

/* Geometric mean per series, only over a full set of positive ratios. */
static void fill_geomean(bars_data *d)
{
    int g = d->ng - 1;
    for (int s = 0; s < d->ns; s++) {
        double lsum = 0;
        int ok = g > 0;
        for (int w = 0; w < g && ok; w++) {
            double r = d->v[w * d->ns + s];
            ok = isfinite(r) && r > 0;
            lsum += ok ? log(r) : 0;
        }
        d->v[g * d->ns + s] = ok ? exp(lsum / g) : NAN;
    }
}

static int bars_build(const rep_run *run, const rep_cross_fig *f,
                      const fig_bars_data *g, bars_data *d)
{
    memset(d, 0, sizeof *d);
    if (!g || g->nwl != run->nwl || g->ns != f->nconf)
        return -1;
    d->ng = run->nwl + 1;
    d->ns = f->nconf;
    d->v = calloc((size_t)(d->ng * d->ns), sizeof *d->v);
    d->glab = calloc((size_t)d->ng, sizeof *d->glab);
    d->slab = calloc((size_t)(d->ns ? d->ns : 1), sizeof *d->slab);
    if (!d->v || !d->glab || !d->slab)
        return -1;
    for (int s = 0; s < d->ns; s++) {
        if (f->best[s])
            snprintf(d->slab_text[s], sizeof d->slab_text[s], "best by %s",
                     run->nobj ? met_label(run->obj[0].metric) : "objective");
        else
            util_strlcpy(d->slab_text[s], f->label[s], sizeof d->slab_text[s]);
        d->slab[s] = d->slab_text[s];
    }
    for (int w = 0; w < run->nwl; w++) {
        d->glab[w] = run->wl[w].name;
        fill_workload(run, g, w, d);
    }
    d->glab[run->nwl] = "geomean";
    fill_geomean(d);
    return 0;
}

static void bars_free(bars_data *d)
{
    free(d->v);
    free(d->glab);
    free(d->slab);
}

static void caption_with(const rep_run *run, const rep_cross_fig *f,
                         const bars_data *d, char *out, size_t n)
{
    const char *m = met_label(fig_cross_metric(run, f));
    int named = 0, best = 0;
    for (int s = 0; s < f->nconf; s++)
        f->best[s] ? best++ : named++;
    snprintf(out, n, "%s of each configuration divided by the workload's "
             "baseline %s (%s results; above 1: higher than the baseline). ",
             m, m, run->nwl ? rep_wl_fidelity(run, 0) : "modelled");
    if (best)
        snprintf(out + strlen(out), n - strlen(out), "\"best by %s\": each "
                 "workload's own best configuration (row 1 of its front "
                 "table). ", run->nobj ? met_label(run->obj[0].metric)
                                       : "objective");
    if (named)
        snprintf(out + strlen(out), n - strlen(out), "Named configurations "
                 "hold the other knobs at the baseline; the mean over their "
                 "jobs. ");
    snprintf(out + strlen(out), n - strlen(out), "Last group: the geometric "
             "mean over the %d workloads (absent where a workload lacks the "
             "configuration).", run->nwl);
    for (int s = 0, k = 0; s < d->ns; s++) {
        double g = d->v[(d->ng - 1) * d->ns + s];
        if (isfinite(g))
            snprintf(out + strlen(out), n - strlen(out), "%s%s %.3g×",
                     k++ ? ", " : " Geomean: ", d->slab[s], g);
        if (s == d->ns - 1 && k)
            snprintf(out + strlen(out), n - strlen(out), ".");
    }
    if (d->absent[0])
        snprintf(out + strlen(out), n - strlen(out), " Absent: %s.",
                 d->absent);
}

void fig_bars_draw(chart_ctx *cc, const rep_run *run,
                   const rep_cross_fig *f, const fig_bars_data *g,
                   chart_box box)
{
    char title[256], note[2048], yt[160];
    bars_data d;
    if (bars_build(run, f, g, &d) != 0) {
        bars_free(&d);
        return;
    }
    fig_cross_title(run, f, title, sizeof title);
    caption_with(run, f, &d, note, sizeof note);
    snprintf(yt, sizeof yt, "%s / baseline %s (×)",
             met_label(fig_cross_metric(run, f)),
             met_label(fig_cross_metric(run, f)));
    plot_spec p;
    memset(&p, 0, sizeof p);
    p.kind = PLOT_BARS;
    p.title = f->no_title ? NULL : title;
    p.note = f->no_title ? NULL : note;
    p.xtitle = "Workload";
    p.ytitle = yt;
    p.ylog = (f->log & FIG_LOGY) != 0;
    p.xrange = f->has_xrange ? f->xrange : NULL;
    p.yrange = f->has_yrange ? f->yrange : NULL;
    p.u.bars = (plot_bars){ d.ng, d.ns, d.glab, d.slab, d.v, NULL, NULL,
                            NULL };
    plot_draw(cc, &p, box);
    bars_free(&d);
}
