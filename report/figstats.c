/* figstats: sensitivity bars and two-knob heatmaps of one workload and
 * metric, built from analysis.json and results.jsonl and drawn with the
 * array-fed kinds of plots.c. */
#include "figstats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figkit.h"
#include "plots.h"

#define MAXKNOBS 64

void fig_knob_title(int knob, char *out, size_t n)
{
    fig_knob_title_in(NULL, knob, out, n);
}

void fig_knob_title_in(const space_def *sp, int knob, char *out, size_t n)
{
    const char *name = space_knob_name(sp, knob);
    const char *unit = knob == KNOB_SHMEM_SIZE ? "bytes"
                     : knob == KNOB_L1_SETS || knob == KNOB_L2_SETS ? "sets"
                     : knob == KNOB_N_MEM ? "channels"
                     : knob == KNOB_N_CLUSTERS ? "clusters"
                     : knob == KNOB_CORES_PER_CLUSTER ? "cores"
                     : knob == KNOB_NUM_SCHED_PER_CORE ? "schedulers"
                     : knob == KNOB_SCHEDULER ? "policy" : "";
    snprintf(out, n, "%s%s%s%s", name, *unit ? " (" : "", unit,
             *unit ? ")" : "");
}

/* ---- sensitivity ------------------------------------------------------ */

typedef struct {
    char name[48];
    double effect;
} knob_effect;

static int effect_cmp(const void *a, const void *b)
{
    const knob_effect *p = a, *q = b;
    int pn = !isfinite(p->effect), qn = !isfinite(q->effect);
    if (pn != qn)
        return pn - qn;
    if (!pn && p->effect != q->effect)
        return p->effect > q->effect ? -1 : 1;
    return strcmp(p->name, q->name);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Knob effects of a sensitivity entry, largest first. */
static int effects(const cJSON *sens, knob_effect *out)
{
    const cJSON *it;
    int n = 0;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(sens, "knobs")) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(it, "knob");
        if (!cJSON_IsString(k) || n >= MAXKNOBS)
            continue;
        util_strlcpy(out[n].name, k->valuestring, sizeof out[n].name);
        out[n].effect = num(it, "effect");
        n++;
    }
    qsort(out, (size_t)n, sizeof *out, effect_cmp);
    return n;
}

int fig_sensitivity_avail(const rep_run *run, int wl, const char *metric)
{
    knob_effect e[MAXKNOBS];
    const cJSON *s = rep_wl_sensitivity(run, wl, metric);
    return s && effects(s, e) > 0;
}

/* "Fit R² 0.93, CV-RMSE 4.1 %. Strongest interactions: a × b (0.12)." */
static void sens_note(const cJSON *s, char *out, size_t n)
{
    double r2 = num(s, "r2"), cv = num(s, "cv_rmse");
    const cJSON *it;
    int k = 0;
    out[0] = '\0';
    if (isfinite(r2) && isfinite(cv))
        snprintf(out, n, "Model fit: R² %.3g, CV-RMSE %.3g. ", r2, cv);
    else if (isfinite(r2))
        snprintf(out, n, "Model fit: R² %.3g. ", r2);
    else if (isfinite(cv))
        snprintf(out, n, "Model fit: CV-RMSE %.3g. ", cv);
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s,
                                                            "interactions")) {
        const cJSON *ks = cJSON_GetObjectItemCaseSensitive(it, "knobs");
        const cJSON *a = cJSON_GetArrayItem(ks, 0), *b = cJSON_GetArrayItem(ks, 1);
        if (!cJSON_IsString(a) || !cJSON_IsString(b) || k >= 3)
            continue;
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s × %s (%.3g)",
                 k ? ", " : "Strongest interactions: ", a->valuestring,
                 b->valuestring, num(it, "strength"));
        k++;
    }
    if (k)
        snprintf(out + strlen(out), n - strlen(out), ".");
}

void fig_sensitivity(chart_ctx *cc, const rep_run *run, int wl,
                     const char *metric, int log, chart_box box)
{
    knob_effect e[MAXKNOBS];
    const char *lab[MAXKNOBS];
    double val[MAXKNOBS];
    char title[256], note[1024], xt[160], mt[128];
    const cJSON *s = rep_wl_sensitivity(run, wl, metric);
    int n = s ? effects(s, e) : 0;
    for (int i = 0; i < n; i++) {
        lab[i] = e[i].name;
        val[i] = e[i].effect;
    }
    fig_axis_title(rep_run_camp(run), metric, mt, sizeof mt);
    snprintf(title, sizeof title, "%s: sensitivity of %s to each knob (%s)",
             run->wl[wl].name, met_label(metric),
             rep_wl_fidelity(run, wl));
    snprintf(xt, sizeof xt, "Effect on %s", mt);
    if (s)
        sens_note(s, note, sizeof note);
    else
        snprintf(note, sizeof note, "analysis.json has no sensitivity "
                 "analysis for %s.", metric);
    plot_spec p;
    memset(&p, 0, sizeof p);
    p.kind = PLOT_HBARS;
    p.title = log & FIG_NOTITLE ? NULL : title;
    p.note = log & FIG_NOTITLE ? NULL : note;
    p.xtitle = xt;
    p.ytitle = "Knob";
    p.xlog = (log & 1) != 0;   /* FIG_LOGX: effects on a log axis */
    p.u.hbars = (plot_hbars){ n, lab, val, n > 2 ? 2 : 0 };
    plot_draw(cc, &p, box);
}

/* ---- heatmap ---------------------------------------------------------- */

/* Distinct values of knob among the workload's successful jobs, sorted. */
static int knob_levels(const rep_run *run, int wl, int knob, int *lv)
{
    int n = 0;
    for (size_t i = 0; i < run->nrecs; i++) {
        const store_record *r = &run->recs[i];
        if (r->status != ST_OK || strcmp(r->workload, run->wl[wl].name))
            continue;
        int v = space_get(&r->cfg, knob), j = 0;
        while (j < n && lv[j] != v)
            j++;
        if (j < n)
            continue;
        if (n >= SPACE_MAXLEVELS)
            return n;
        for (j = n++; j > 0 && lv[j - 1] > v; j--)
            lv[j] = lv[j - 1];
        lv[j] = v;
    }
    return n;
}

static int varies(const rep_run *run, int wl, int knob)
{
    int lv[SPACE_MAXLEVELS];
    return knob >= 0 && knob_levels(run, wl, knob, lv) > 1;
}

int fig_heat_knobs(const rep_run *run, int wl, const char *metric, int *ka,
                   int *kb, int *by_sensitivity)
{
    knob_effect e[MAXKNOBS];
    const cJSON *s = rep_wl_sensitivity(run, wl, metric);
    int n = s ? effects(s, e) : 0, found = 0, k[2] = { -1, -1 };
    for (int i = 0; i < n && found < 2; i++) {
        int kn = space_knob_index(rep_run_space(run), e[i].name);
        if (isfinite(e[i].effect) && varies(run, wl, kn) && kn != k[0])
            k[found++] = kn;
    }
    *by_sensitivity = found == 2;
    if (found < 2) {
        found = 0;
        for (int kn = 0; kn < space_nknobs(rep_run_space(run)) && found < 2;
             kn++)
            if (varies(run, wl, kn))
                k[found++] = kn;
    }
    *ka = k[0];
    *kb = k[1];
    return found == 2 ? 0 : -1;
}

int fig_heatmap_avail(const rep_run *run, int wl, const char *metric)
{
    int a, b, s;
    return fig_heat_knobs(run, wl, metric, &a, &b, &s) == 0;
}

static int level_index(const int *lv, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (lv[i] == v)
            return i;
    return -1;
}

typedef struct {
    int ka, kb, na, nb, by_sens;
    int la[SPACE_MAXLEVELS], lb[SPACE_MAXLEVELS];
    double mean[SPACE_MAXLEVELS * SPACE_MAXLEVELS];
    char xt[SPACE_MAXLEVELS][24], yt[SPACE_MAXLEVELS][24];
    const char *xl[SPACE_MAXLEVELS], *yl[SPACE_MAXLEVELS];
    size_t used;
} heat_data;

static void heat_means(const rep_run *run, int wl, const char *metric,
                       heat_data *h)
{
    double sum[SPACE_MAXLEVELS * SPACE_MAXLEVELS] = { 0 };
    size_t cnt[SPACE_MAXLEVELS * SPACE_MAXLEVELS] = { 0 };
    for (size_t i = 0; i < run->nrecs; i++) {
        const store_record *r = &run->recs[i];
        double v;
        if (r->status != ST_OK || strcmp(r->workload, run->wl[wl].name)
            || met_get(&r->metrics, metric, &v) != 0 || !isfinite(v))
            continue;
        int a = level_index(h->la, h->na, space_get(&r->cfg, h->ka));
        int b = level_index(h->lb, h->nb, space_get(&r->cfg, h->kb));
        if (a < 0 || b < 0)
            continue;
        sum[b * h->na + a] += v;
        cnt[b * h->na + a]++;
        h->used++;
    }
    for (int c = 0; c < h->na * h->nb; c++)
        h->mean[c] = cnt[c] ? sum[c] / (double)cnt[c] : NAN;
}

static int heat_build(const rep_run *run, int wl, const char *metric,
                      heat_data *h)
{
    memset(h, 0, sizeof *h);
    if (fig_heat_knobs(run, wl, metric, &h->ka, &h->kb, &h->by_sens) != 0)
        return -1;
    h->na = knob_levels(run, wl, h->ka, h->la);
    h->nb = knob_levels(run, wl, h->kb, h->lb);
    for (int i = 0; i < h->na; i++) {
        space_level_str(rep_run_space(run), h->ka, h->la[i], h->xt[i],
                        sizeof h->xt[i]);
        h->xl[i] = h->xt[i];
    }
    for (int j = 0; j < h->nb; j++) {
        space_level_str(rep_run_space(run), h->kb, h->lb[j], h->yt[j],
                        sizeof h->yt[j]);
        h->yl[j] = h->yt[j];
    }
    heat_means(run, wl, metric, h);
    return 0;
}

void fig_heatmap(chart_ctx *cc, const rep_run *run, int wl,
                 const char *metric, int log, chart_box box)
{
    /* categorical axes: only FIG_NOTITLE applies */
    heat_data h;
    char title[256], note[512], xt[96], yt[96], ct[160], mt[128];
    plot_spec p;
    memset(&p, 0, sizeof p);
    int ok = heat_build(run, wl, metric, &h) == 0;
    fig_axis_title(rep_run_camp(run), metric, mt, sizeof mt);
    snprintf(ct, sizeof ct, "%s, mean", mt);
    if (ok) {
        fig_knob_title_in(rep_run_space(run), h.ka, xt, sizeof xt);
        fig_knob_title_in(rep_run_space(run), h.kb, yt, sizeof yt);
        snprintf(title, sizeof title, "%s: mean %s over %s × %s (%s)",
                 run->wl[wl].name, met_label(metric),
                 space_knob_name(rep_run_space(run), h.ka),
                 space_knob_name(rep_run_space(run), h.kb),
                 rep_wl_fidelity(run, wl));
        snprintf(note, sizeof note, "Each cell: mean over the successful "
                 "jobs at that pair of levels (%zu jobs in all; the other "
                 "knobs vary). Knobs: %s.", h.used, h.by_sens
                 ? "the two with the largest sensitivity effect"
                 : "the first two that vary (no sensitivity analysis)");
    } else {
        snprintf(title, sizeof title, "%s: mean %s", run->wl[wl].name,
                 met_label(metric));
        snprintf(note, sizeof note, "fewer than two knobs vary");
        xt[0] = yt[0] = '\0';
    }
    p.kind = PLOT_HEATMAP;
    p.title = log & FIG_NOTITLE ? NULL : title;
    p.note = log & FIG_NOTITLE ? NULL : note;
    p.xtitle = xt;
    p.ytitle = yt;
    p.u.heat = (plot_heatmap){ ok ? h.na : 0, ok ? h.nb : 0, h.xl, h.yl,
                               h.mean, ct };
    plot_draw(cc, &p, box);
}
