/* aggregates: the page across workloads for the campaign's aggregates
 * (see aggregates.h), read from analysis.json alone. */
#include "aggregates.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figures.h"
#include "plots.h"
#include "table.h"

#define AGG_FIG_H 250.0

static const cJSON *section(const rep_run *run)
{
    return cJSON_GetObjectItemCaseSensitive(run->analysis, "aggregates");
}

int rep_agg_has(const rep_run *run)
{
    return cJSON_IsObject(section(run));
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static const cJSON *items(const rep_run *run)
{
    return cJSON_GetObjectItemCaseSensitive(section(run), "aggregates");
}

static const char *fidelity(const rep_run *run)
{
    return run->nwl ? rep_wl_fidelity(run, 0) : "modelled";
}

static const char *fn_words(const char *fn)
{
    static const char *const w[][2] = {
        {"geomean", "geometric mean"}, {"mean", "arithmetic mean"},
        {"hmean", "harmonic mean"}, {"min", "minimum"}, {"max", "maximum"}
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strcmp(fn, w[i][0]) == 0)
            return w[i][1];
    return fn;
}

/* "geometric mean over the 5 workloads of IPC / the workload's baseline
 * IPC, maximized" */
static void describe(const cJSON *it, int nwl, char *out, size_t n)
{
    const char *m = met_label(str(it, "metric"));
    int norm = strcmp(str(it, "normalise"), "baseline") == 0;
    snprintf(out, n, "%s over the %d workloads of %s%s%s, %sd",
             fn_words(str(it, "fn")), nwl, m,
             norm ? " / the workload's baseline " : "", norm ? m : "",
             str(it, "sense"));
}

/* "N configurations count; M dropped (a not evaluated on every workload,
 * ...)" */
static void dropped_text(const cJSON *it, char *out, size_t n)
{
    static const char *const keys[][2] = {
        {"not_evaluated_on_every_workload", "not evaluated on every "
         "workload"},
        {"failed", "failed on a workload"},
        {"infeasible", "outside a constraint on a workload"},
        {"metric_absent", "metric absent on a workload"},
        {"no_baseline_value", "no baseline value on a workload"},
        {"not_positive", "not positive on a workload"}
    };
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(it, "dropped");
    double total = num(d, "total");
    snprintf(out, n, "%.0f configuration%s evaluated with the metric on "
             "every workload count", num(it, "configs"),
             num(it, "configs") == 1 ? "" : "s");
    if (!(total > 0)) {
        snprintf(out + strlen(out), n - strlen(out), "; none dropped.");
        return;
    }
    snprintf(out + strlen(out), n - strlen(out), "; %.0f dropped (", total);
    for (size_t i = 0, k = 0; i < sizeof keys / sizeof keys[0]; i++) {
        double c = num(d, keys[i][0]);
        if (c > 0)
            snprintf(out + strlen(out), n - strlen(out), "%s%.0f %s",
                     k++ ? ", " : "", c, keys[i][1]);
    }
    snprintf(out + strlen(out), n - strlen(out), ").");
    const cJSON *nb = cJSON_GetObjectItemCaseSensitive(it, "no_baseline_on");
    const cJSON *w;
    int first = 1;
    cJSON_ArrayForEach(w, nb) {
        if (cJSON_IsString(w))
            snprintf(out + strlen(out), n - strlen(out), "%s%s",
                     first ? " No baseline value on: " : ", ",
                     w->valuestring);
        first = 0;
    }
    if (!first)
        snprintf(out + strlen(out), n - strlen(out), ".");
}

static void knob_head(const space_def *sp, int k, char *head, size_t n)
{
    snprintf(head, n, "%s%s", space_knob_name(sp, k),
             k == KNOB_SHMEM_SIZE ? " (bytes)" : "");
    for (char *p = head; *p; p++)
        if (*p == '_')
            *p = ' ';
}

static void knob_cell(const space_def *sp, const cJSON *cfg, int k,
                      char *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cfg, space_knob_name(sp, k));
    if (cJSON_IsNumber(v))
        snprintf(out, REP_CELL, "%.0f", v->valuedouble);
    else if (cJSON_IsString(v))
        util_strlcpy(out, v->valuestring, REP_CELL);
}

/* digits > 0: significant digits (%g); < 0: -digits decimals (%f). */
static void num_cell(double v, int digits, char *out)
{
    if (isfinite(v) && digits > 0)
        snprintf(out, REP_CELL, "%.*g", digits, v);
    else if (isfinite(v))
        snprintf(out, REP_CELL, "%.*f", -digits, v);
    else
        util_strlcpy(out, "absent", REP_CELL);
}

/* The config-only objectives of the aggregate front ("area_mm2"). */
static int config_objectives(const rep_run *run, const char *names[],
                             int max)
{
    const cJSON *o;
    int n = 0;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(
                           section(run), "front_objectives"))
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "config_only"))
            && n < max)
            names[n++] = str(o, "name");
    return n;
}

static void best_table(rep_doc *d, const rep_run *run)
{
    const char *cobj[CAMP_MAXOBJ];
    int nc = config_objectives(run, cobj, CAMP_MAXOBJ);
    char cap[160], head[96];
    rep_table t;
    snprintf(cap, sizeof cap, "Best configuration per aggregate (%s)",
             fidelity(run));
    rep_table_init(&t, cap);
    rep_table_col(&t, "aggregate", CHART_LEFT);
    rep_table_col(&t, "value", CHART_RIGHT);
    const space_def *sp = rep_run_space(run);
    int nk = space_nknobs(sp);
    for (int k = 0; k < nk; k++) {
        knob_head(sp, k, head, sizeof head);
        rep_table_col(&t, head, CHART_CENTER);
    }
    for (int j = 0; j < nc; j++) {
        fig_axis_title(rep_run_camp(run), cobj[j], head, sizeof head);
        rep_table_col(&t, head, CHART_RIGHT);
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, items(run)) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(it, "best");
        char (*row)[REP_CELL] = rep_table_row(&t, 0);
        if (!row)
            break;
        util_strlcpy(row[0], str(it, "name"), REP_CELL);
        num_cell(num(b, "value"), 4, row[1]);
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(b, "config");
        for (int k = 0; k < nk && 2 + k < t.ncols; k++)
            knob_cell(sp, cfg, k, row[2 + k]);
        for (int j = 0; j < nc && 2 + nk + j < t.ncols; j++)
            num_cell(num(b, cobj[j]), 6, row[2 + nk + j]);
    }
    rep_table_draw(d, &t);
    rep_table_free(&t);
}

/* Workload w of aggregate it's best: its entry in "workloads". */
static const cJSON *best_wl(const cJSON *it, int w)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(it, "best");
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b,
                                                               "workloads"),
                              w);
}

/* Geometric mean of the ratios of aggregate it over every workload; NaN
 * unless each is a positive number. */
static double ratio_geomean(const cJSON *it, int nwl)
{
    double ls = 0;
    for (int w = 0; w < nwl; w++) {
        double r = num(best_wl(it, w), "ratio");
        if (!(r > 0) || !isfinite(r))
            return NAN;
        ls += log(r);
    }
    return nwl ? exp(ls / nwl) : NAN;
}

static void workload_table(rep_doc *d, const rep_run *run)
{
    const cJSON *all = items(run), *it;
    const cJSON *first = cJSON_GetArrayItem(all, 0);
    int nwl = (int)num(section(run), "workloads");
    char cap[200], head[96];
    rep_table t;
    snprintf(cap, sizeof cap, "Each workload under the best configuration "
             "of each aggregate, and its ratio to the workload's baseline "
             "(%s)", fidelity(run));
    rep_table_init(&t, cap);
    rep_table_col(&t, "workload", CHART_LEFT);
    rep_table_col(&t, "bound at baseline", CHART_LEFT);
    cJSON_ArrayForEach(it, all) {
        if (t.ncols + 2 > REP_TABLE_MAXCOLS)
            break;
        snprintf(head, sizeof head, "%s under %s",
                 met_label(str(it, "metric")), str(it, "name"));
        rep_table_col(&t, head, CHART_RIGHT);
        rep_table_col(&t, "× baseline", CHART_RIGHT);
    }
    int ncol = (t.ncols - 2) / 2;
    for (int w = 0; w <= nwl && nwl > 0; w++) {
        char (*row)[REP_CELL] = rep_table_row(&t, w == nwl);
        if (!row)
            break;
        const cJSON *fw = best_wl(first, w);
        util_strlcpy(row[0], w < nwl ? str(fw, "name") : "geomean",
                     REP_CELL);
        util_strlcpy(row[1], w < nwl ? str(fw, "baseline_bottleneck") : "",
                     REP_CELL);
        int a = 0;
        cJSON_ArrayForEach(it, all) {
            if (a >= ncol)
                break;
            if (w < nwl) {
                num_cell(num(best_wl(it, w), "value"), 5,
                         row[2 + 2 * a]);
                num_cell(num(best_wl(it, w), "ratio"), -3,
                         row[3 + 2 * a]);
            } else {
                num_cell(ratio_geomean(it, nwl), -3, row[3 + 2 * a]);
            }
            a++;
        }
    }
    rep_table_draw(d, &t);
    rep_table_free(&t);
}

/* ---- the bars: each workload's ratio under each aggregate's best ------ */

typedef struct {
    int ng, ns;
    double v[(CAMP_MAXWL + 1) * CAMP_MAXAGG];
    const char *glab[CAMP_MAXWL + 1];
    const char *slab[CAMP_MAXAGG];
    char stext[CAMP_MAXAGG][64];
    char ytitle[128];
} agg_bars;

static void bars_build(const rep_run *run, agg_bars *b)
{
    const cJSON *it;
    int nwl = (int)num(section(run), "workloads");
    const char *metric = NULL;
    int same = 1;
    memset(b, 0, sizeof *b);
    b->ng = (nwl > CAMP_MAXWL ? CAMP_MAXWL : nwl < 0 ? 0 : nwl) + 1;
    cJSON_ArrayForEach(it, items(run)) {
        if (b->ns >= CAMP_MAXAGG)
            break;
        int s = b->ns++;
        snprintf(b->stext[s], sizeof b->stext[s], "best by %s",
                 str(it, "name"));
        b->slab[s] = b->stext[s];
        same = same && (!metric || strcmp(metric, str(it, "metric")) == 0);
        metric = str(it, "metric");
        for (int w = 0; w < b->ng - 1; w++) {
            b->glab[w] = str(best_wl(it, w), "name");
            b->v[w * CAMP_MAXAGG + s] = num(best_wl(it, w), "ratio");
        }
        b->v[(b->ng - 1) * CAMP_MAXAGG + s] = ratio_geomean(it, b->ng - 1);
    }
    b->glab[b->ng - 1] = "geomean";
    /* plot_bars reads value[g * nseries + s]: pack the rows */
    for (int g = 0; g < b->ng; g++)
        for (int s = 0; s < b->ns; s++)
            b->v[g * b->ns + s] = b->v[g * CAMP_MAXAGG + s];
    if (same && metric)
        snprintf(b->ytitle, sizeof b->ytitle, "%s / baseline %s (×)",
                 met_label(metric), met_label(metric));
    else
        snprintf(b->ytitle, sizeof b->ytitle, "value / baseline value (×)");
}

static void bars_spec(const rep_run *run, const agg_bars *b, plot_spec *p,
                      char *note, size_t n)
{
    snprintf(note, n, "Each workload's value under the best configuration "
             "of each aggregate divided by its value at the baseline "
             "configuration (%s results; above 1: better than the baseline "
             "for a metric to maximize). Last group: the geometric mean "
             "over the workloads (absent where a workload lacks a value).",
             fidelity(run));
    memset(p, 0, sizeof *p);
    p->kind = PLOT_BARS;
    p->title = "Each workload under the best configuration per aggregate";
    p->note = note;
    p->xtitle = "Workload";
    p->ytitle = b->ytitle;
    p->u.bars = (plot_bars){ b->ng, b->ns, b->glab, b->slab, b->v, NULL,
                             NULL, NULL };
}

static void bars_figure(rep_doc *d, const rep_run *run)
{
    agg_bars *b = malloc(sizeof *b);
    char note[512];
    plot_spec p;
    rep_doc_need(d, AGG_FIG_H);
    if (b && !d->measure) {
        bars_build(run, b);
        bars_spec(run, b, &p, note, sizeof note);
        plot_draw(&d->cc, &p, (chart_box){ rep_doc_left(d), d->y,
                                           rep_doc_width(d), AGG_FIG_H });
    }
    free(b);
    d->y += AGG_FIG_H + 10;
}

int rep_agg_write_figures(const rep_run *run, const chart_font *font,
                          gd_err *err)
{
    if (!rep_agg_has(run))
        return GD_OK;
    char dir[4096], path[4096], note[512];
    double w, h;
    plot_spec p;
    agg_bars *b = malloc(sizeof *b);
    int rc = b ? rep_run_path(run, "figures", dir, sizeof dir, err)
               : gd_errf(err, GD_EENV, "out of memory");
    if (!rc)
        rc = util_mkdirs(dir, err);
    if (!rc) {
        bars_build(run, b);
        bars_spec(run, b, &p, note, sizeof note);
        p.font = font;
    }
    fig_size(run->camp.figure_single, &w, &h);
    for (int i = 0; !rc && i < 2; i++) {
        int bit = i == 0 ? CAMP_FMT_SVG : CAMP_FMT_PDF;
        if (!(run->camp.formats & bit))
            continue;
        char name[64];
        snprintf(name, sizeof name, "bars_aggregates.%s",
                 i == 0 ? "svg" : "pdf");
        rc = util_path_join(path, sizeof path, dir, name) == GD_OK
             ? plot_write_file(&p, i == 0 ? REP_OUT_SVG : REP_OUT_PDF, w, h,
                               path, err)
             : gd_errf(err, GD_EENV, "%s/%s: path too long", dir, name);
    }
    free(b);
    return rc;
}

/* ---- the aggregate front ---------------------------------------------- */

static void front_table(rep_doc *d, const rep_run *run)
{
    const cJSON *sec = section(run), *o;
    const cJSON *objs = cJSON_GetObjectItemCaseSensitive(sec,
                                                         "front_objectives");
    const cJSON *front = cJSON_GetObjectItemCaseSensitive(sec, "front");
    char cap[512], head[96];
    int nf = cJSON_GetArraySize(front);
    snprintf(cap, sizeof cap, "Aggregate Pareto front (%d configuration%s, "
             "%s):", nf, nf == 1 ? "" : "s", fidelity(run));
    cJSON_ArrayForEach(o, objs)
        snprintf(cap + strlen(cap), sizeof cap - strlen(cap), " %s %s%s",
                 str(o, "sense"), str(o, "name"), o->next ? "," : "");
    rep_table t;
    rep_table_init(&t, cap);
    rep_table_col(&t, "#", CHART_RIGHT);
    const space_def *sp = rep_run_space(run);
    int nk = space_nknobs(sp);
    for (int k = 0; k < nk; k++) {
        knob_head(sp, k, head, sizeof head);
        rep_table_col(&t, head, CHART_CENTER);
    }
    cJSON_ArrayForEach(o, objs) {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "config_only")))
            fig_axis_title(rep_run_camp(run), str(o, "name"), head,
                           sizeof head);
        else
            util_strlcpy(head, str(o, "name"), sizeof head);
        if (t.ncols < REP_TABLE_MAXCOLS)
            rep_table_col(&t, head, CHART_RIGHT);
    }
    int i = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, front) {
        char (*row)[REP_CELL] = rep_table_row(&t, 0);
        if (!row)
            break;
        snprintf(row[0], REP_CELL, "%d", ++i);
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(p, "config");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, "values");
        for (int k = 0; k < nk && 1 + k < t.ncols; k++)
            knob_cell(sp, cfg, k, row[1 + k]);
        int j = 1 + nk;
        cJSON_ArrayForEach(o, objs)
            if (j < t.ncols)
                num_cell(num(v, str(o, "name")), 6, row[j++]);
    }
    if (nf)
        rep_table_draw(d, &t);
    else
        rep_doc_text(d, "The aggregate front is empty: no configuration "
                     "has every aggregate.", 9, CHART_REGULAR);
    rep_table_free(&t);
}

void rep_agg_pages(rep_doc *d, const rep_run *run)
{
    char line[1024], what[256], drop[512];
    int nwl = (int)num(section(run), "workloads");
    const cJSON *it;
    rep_doc_new_page(d);
    rep_doc_heading(d, "Across workloads: the best configuration per "
                    "aggregate", 0);
    cJSON_ArrayForEach(it, items(run)) {
        describe(it, nwl, what, sizeof what);
        dropped_text(it, drop, sizeof drop);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(it, "best");
        if (cJSON_IsObject(b))
            snprintf(line, sizeof line, "%s (%s): best %.4g. %s",
                     str(it, "name"), what, num(b, "value"), drop);
        else
            snprintf(line, sizeof line, "%s (%s): absent — no "
                     "configuration counts. %s", str(it, "name"), what,
                     drop);
        rep_doc_text(d, line, 9, CHART_REGULAR);
        rep_doc_space(d, 4);
    }
    if (run->have_camp && run->camp.ncons) {   /* the feasible region */
        util_strlcpy(line, "Only configurations within every constraint "
                     "on every workload count:", sizeof line);
        for (int i = 0; i < run->camp.ncons; i++) {
            const cons_bound *b = &run->camp.cons[i];
            size_t l = strlen(line);
            if (b->has_min && b->has_max)
                snprintf(line + l, sizeof line - l, "%s %g ≤ %s ≤ %g",
                         i ? "," : "", b->min, b->metric, b->max);
            else
                snprintf(line + l, sizeof line - l, "%s %s %s %g",
                         i ? "," : "", b->metric, b->has_min ? "≥" : "≤",
                         b->has_min ? b->min : b->max);
        }
        snprintf(line + strlen(line), sizeof line - strlen(line), ".");
        rep_doc_text(d, line, 9, CHART_REGULAR);
    }
    rep_doc_space(d, 6);
    best_table(d, run);
    rep_doc_space(d, 10);
    workload_table(d, run);
    rep_doc_space(d, 10);
    bars_figure(d, run);
    rep_doc_heading(d, "Aggregate Pareto front", 1);
    front_table(d, run);
}
