/* report: rep_render — loads a run directory, writes results.csv, the
 * figure files and report.pdf (title page with provenance, then per workload
 * the layout's figures and tables). Reads only the run directory (and a
 * layout file when one is named). */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregates.h"
#include "csv.h"
#include "doc.h"
#include "figures.h"
#include "figstats.h"
#include "figcross.h"
#include "figoverlay.h"
#include "layout.h"
#include "rundata.h"
#include "exploration.h"
#include "sections.h"
#include "split_report.h"
#include "regression.h"
#include "workfork.h"
#include "mfloop_page.h"
#include "studies.h"
#include "table.h"

#define PAGE_A4_W 595.276
#define PAGE_A4_H 841.890
#define PAGE_LETTER_W 612.0
#define PAGE_LETTER_H 792.0
#define FIG_PAGE_H 340.0

/* ---- manifest values -------------------------------------------------- */

/* Manifest keys the title page shows in their own rows; any other key is
 * listed after them as it is. */
static const char *const shown_keys[] = {
    "tool", "version", "campaign_file", "campaign_sha256", "seed",
    "backend", "backend_version", "fidelity", "model_version", "strategy",
    "budget", "space_size", "workloads", "jobs", "libraries", "host",
    "started", "finished"
};

/* Text of a manifest value into out ("" when absent). */
static void json_text(const cJSON *v, char *out, size_t n)
{
    out[0] = '\0';
    if (!v || cJSON_IsNull(v))
        return;
    if (cJSON_IsString(v)) {
        util_strlcpy(out, v->valuestring, n);
    } else if (cJSON_IsNumber(v)) {
        snprintf(out, n, "%.15g", v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        snprintf(out, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else {
        char *s = cJSON_PrintUnformatted(v);
        util_strlcpy(out, s ? s : "", n);
        cJSON_free(s);
    }
}

static void man_text(const rep_run *run, const char *key, char *out,
                     size_t n)
{
    json_text(cJSON_GetObjectItemCaseSensitive(run->manifest, key), out, n);
}

/* "name version, name version" from an object of strings. */
static void pairs_text(const cJSON *o, const char *sep, char *out, size_t n)
{
    const cJSON *it;
    char v[256];
    out[0] = '\0';
    cJSON_ArrayForEach(it, o) {
        json_text(it, v, sizeof v);
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s%s%s", l ? ", " : "",
                 it->string ? it->string : "", sep, v);
    }
}

/* ---- title page ------------------------------------------------------- */

/* Appends which metrics of measured records a model supplied (the
 * records' modelled_metrics, e.g. area_mm2 from the area model). */
static void modelled_note(const rep_run *run, char *out, size_t n)
{
    char names[256];
    util_strlcpy(names, run->modelled_names, sizeof names);
    if (!names[0])
        return;
    names[strlen(names) - 1] = '\0';
    size_t l = strlen(out);
    snprintf(out + l, n - l, "; in measured results, %s modelled (area "
             "model: a function of the config), every other metric measured",
             names + 1);
}

static const char *overall_fidelity(const rep_run *run, char *out, size_t n)
{
    char man[32];
    size_t mod = run->ok_modelled, meas = run->ok_measured;
    if (mod && meas)
        snprintf(out, n, "MIXED — %zu modelled and %zu measured results "
                 "(figures say which is which)", mod, meas);
    else if (meas)
        snprintf(out, n, "MEASURED");
    else if (!mod && (man_text(run, "fidelity", man, sizeof man),
                      strcmp(man, "measured") == 0))
        snprintf(out, n, "MEASURED");
    else
        snprintf(out, n, "MODELLED");
    modelled_note(run, out, n);
    return out;
}

static void failures_text(const rep_run *run, char *out, size_t n)
{
    const size_t *count = run->failed_by_status;
    size_t total = 0;
    for (int st = 0; st < ST__COUNT; st++)
        total += st != ST_OK ? count[st] : 0;
    snprintf(out, n, "%zu", total);
    for (int st = 0, first = 1; st < ST__COUNT; st++) {
        if (!count[st])
            continue;
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s %zu", first ? " (" : ", ",
                 store_status_name(st), count[st]);
        first = 0;
    }
    if (total)
        snprintf(out + strlen(out), n - strlen(out), ")");
}

static void objectives_text(const rep_run *run, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < run->nobj; i++) {
        char t[128];
        size_t l = strlen(out);
        fig_axis_title(rep_run_camp(run), run->obj[i].metric, t, sizeof t);
        snprintf(out + l, n - l, "%s%s %s", i ? "; " : "",
                 run->obj[i].maximize ? "maximize" : "minimize", t);
    }
    for (int i = 0; run->have_camp && i < run->camp.naggregates; i++) {
        const camp_aggregate *a = &run->camp.agg[i];   /* across workloads */
        size_t l = strlen(out);
        snprintf(out + l, n - l, "; %s %s (%s over the workloads of %s%s)",
                 a->maximize ? "maximize" : "minimize", a->name,
                 camp_agg_fn_name(a->fn), met_label(a->metric),
                 a->normalise ? " / baseline" : "");
    }
}

/* "area_mm2 <= 600 mm²; ..." and how many ok results miss them. */
static void constraints_text(const rep_run *run, char *out, size_t n)
{
    const camp_campaign *c = &run->camp;
    long infeasible = 0, points = 0;
    out[0] = '\0';
    for (int i = 0; i < c->ncons; i++) {
        const cons_bound *b = &c->cons[i];
        const char *u = camp_metric_unit(c, b->metric);
        char lo[64] = "", hi[64] = "";
        if (b->has_min)
            snprintf(lo, sizeof lo, "%g%s%s ≤ ", b->min, *u ? " " : "", u);
        if (b->has_max)
            snprintf(hi, sizeof hi, " ≤ %g%s%s", b->max, *u ? " " : "", u);
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s%s%s", i ? "; " : "", lo, b->metric,
                 hi);
    }
    for (int w = 0; w < run->nwl; w++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(run->wl[w].json,
                                                          "infeasible");
        infeasible += cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
        points += run->wl[w].points;
    }
    size_t l = strlen(out);
    snprintf(out + l, n - l, " (%ld of %ld successful results miss them: "
             "journaled, never on a front)", infeasible, points);
}

/* "ipc_per_mm2 = ipc / area_mm2 (1/mm²), absent for N results: ...". */
static void derived_text(const rep_run *run, char *out, size_t n)
{
    const camp_campaign *c = &run->camp;
    out[0] = '\0';
    for (int i = 0; i < c->nderived; i++) {
        const drv_metric *m = &c->derived[i];
        long why[2] = {0, 0};
        for (int w = 0; w < run->nwl; w++) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(run->wl[w].json,
                                                 "derived_absent"), m->name);
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, "no_input");
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(a, "not_finite");
            why[0] += cJSON_IsNumber(x) ? (long)x->valuedouble : 0;
            why[1] += cJSON_IsNumber(y) ? (long)y->valuedouble : 0;
        }
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s = %s%s%s%s", i ? "; " : "", m->name,
                 m->expr, m->unit[0] ? " (" : "", m->unit,
                 m->unit[0] ? ")" : "");
        l = strlen(out);
        if (why[0] || why[1])
            snprintf(out + l, n - l, ", absent for %ld successful results "
                     "(%ld lack an input, %ld not finite: a division by "
                     "zero)", why[0] + why[1], why[0], why[1]);
    }
}

static void kv_manifest(rep_doc *d, const rep_run *run, const char *label,
                        const char *key, const char *fallback, int style)
{
    char v[2048];
    man_text(run, key, v, sizeof v);
    if (!v[0] && fallback)
        util_strlcpy(v, fallback, sizeof v);
    if (v[0])
        rep_doc_kv(d, label, v, style);
}

/* "exhaustive; budget 15552 evaluations per workload; ..." */
static void search_text(const rep_run *run, char *out, size_t n)
{
    char strat[64], budget[32], size[32];
    man_text(run, "strategy", strat, sizeof strat);
    man_text(run, "budget", budget, sizeof budget);
    man_text(run, "space_size", size, sizeof size);
    if (!strat[0])
        util_strlcpy(strat, run->camp.strategy, sizeof strat);
    if (!budget[0])
        snprintf(budget, sizeof budget, "%ld", run->camp.budget);
    snprintf(out, n, "%s; budget %s evaluations per workload", strat, budget);
    if (size[0])
        snprintf(out + strlen(out), n - strlen(out), "; space of %s points",
                 size);
}

/* One line per workload descriptor: "name: sha256". */
static void descriptors_text(const rep_run *run, char *out, size_t n)
{
    const cJSON *wls = cJSON_GetObjectItemCaseSensitive(run->manifest,
                                                        "workloads");
    const cJSON *it;
    char name[128], sha[128];
    out[0] = '\0';
    cJSON_ArrayForEach(it, wls) {
        json_text(cJSON_GetObjectItemCaseSensitive(it, "name"), name,
                  sizeof name);
        json_text(cJSON_GetObjectItemCaseSensitive(it, "sha256"), sha,
                  sizeof sha);
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s:\n%s", l ? "\n" : "", name, sha);
    }
}

static void title_provenance(rep_doc *d, const rep_run *run)
{
    char v[4096], w[256], seed[32];
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(run->manifest,
                                                         "jobs");
    snprintf(seed, sizeof seed, "%llu",
             (unsigned long long)run->camp.seed);
    rep_doc_kv(d, "Campaign", run->camp.name, CHART_REGULAR);
    kv_manifest(d, run, "Campaign file", "campaign_file", NULL,
                CHART_REGULAR);
    kv_manifest(d, run, "Campaign SHA-256", "campaign_sha256",
                run->camp.sha256, CHART_MONO);
    kv_manifest(d, run, "Seed", "seed", seed, CHART_REGULAR);
    man_text(run, "backend", v, sizeof v);
    man_text(run, "backend_version", w, sizeof w);
    if (!v[0])
        util_strlcpy(v, run->camp.backend, sizeof v);
    if (w[0])
        snprintf(v + strlen(v), sizeof v - strlen(v), " (%s)", w);
    rep_doc_kv(d, "Backend", v, CHART_REGULAR);
    rep_doc_kv(d, "Results", overall_fidelity(run, v, sizeof v), CHART_BOLD);
    kv_manifest(d, run, "Model version", "model_version", NULL,
                CHART_REGULAR);
    search_text(run, v, sizeof v);
    rep_doc_kv(d, "Search", v, CHART_REGULAR);
    objectives_text(run, v, sizeof v);
    rep_doc_kv(d, "Objectives", v, CHART_REGULAR);
    if (run->have_camp && run->camp.ncons) {
        constraints_text(run, v, sizeof v);
        rep_doc_kv(d, "Constraints", v, CHART_REGULAR);
    }
    if (run->have_camp && run->camp.nderived) {
        derived_text(run, v, sizeof v);
        rep_doc_kv(d, "Derived metrics", v, CHART_REGULAR);
    }
    if (cJSON_IsObject(jobs)) {
        pairs_text(jobs, " ", v, sizeof v);
        rep_doc_kv(d, "Jobs", v, CHART_REGULAR);
    }
    failures_text(run, v, sizeof v);
    rep_doc_kv(d, "Failed jobs", v, CHART_REGULAR);
    descriptors_text(run, v, sizeof v);
    if (v[0])
        rep_doc_kv(d, "Workload files (SHA-256)", v, CHART_MONO);
}

static int is_shown(const rep_run *run, const char *key)
{
    if (strcmp(key, "campaign") == 0) {   /* the name: shown unless odd */
        char v[256];
        man_text(run, key, v, sizeof v);
        return strcmp(v, run->camp.name) == 0;
    }
    for (size_t i = 0; i < sizeof shown_keys / sizeof shown_keys[0]; i++)
        if (strcmp(shown_keys[i], key) == 0)
            return 1;
    return 0;
}

static void title_tooling(rep_doc *d, const rep_run *run)
{
    char tool[256], ver[128], v[4096];
    man_text(run, "tool", tool, sizeof tool);
    man_text(run, "version", ver, sizeof ver);
    snprintf(v, sizeof v, "%s%s%s", tool[0] ? tool : "gpudse",
             ver[0] ? " " : "", ver);
    rep_doc_kv(d, "Tool", v, CHART_REGULAR);
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(run->manifest,
                                                         "libraries");
    if (cJSON_IsObject(libs)) {
        pairs_text(libs, " ", v, sizeof v);
        rep_doc_kv(d, "Libraries", v, CHART_REGULAR);
    }
    kv_manifest(d, run, "Host", "host", NULL, CHART_REGULAR);
    kv_manifest(d, run, "Started", "started", NULL, CHART_REGULAR);
    kv_manifest(d, run, "Finished", "finished", NULL, CHART_REGULAR);
    const cJSON *it;
    cJSON_ArrayForEach(it, run->manifest) {
        if (!it->string || is_shown(run, it->string))
            continue;
        json_text(it, v, sizeof v);
        rep_doc_kv(d, it->string, v, CHART_REGULAR);
    }
}

static void title_workloads(rep_doc *d, const rep_run *run)
{
    rep_table t;
    rep_table_init(&t, "Workloads");
    rep_table_col(&t, "workload", CHART_LEFT);
    rep_table_col(&t, "points", CHART_RIGHT);
    rep_table_col(&t, "failed", CHART_RIGHT);
    int cons = run->have_camp && run->camp.ncons;
    if (cons)
        rep_table_col(&t, "infeasible", CHART_RIGHT);
    rep_table_col(&t, "front size", CHART_RIGHT);
    rep_table_col(&t, "results", CHART_LEFT);
    for (int w = 0; w < run->nwl; w++) {
        char (*row)[REP_CELL] = rep_table_row(&t, 0);
        if (!row)
            break;
        util_strlcpy(row[0], run->wl[w].name, REP_CELL);
        snprintf(row[1], REP_CELL, "%ld", run->wl[w].points);
        snprintf(row[2], REP_CELL, "%ld", run->wl[w].failed);
        if (cons) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(
                run->wl[w].json, "infeasible");
            snprintf(row[3], REP_CELL, "%.0f",
                     cJSON_IsNumber(v) ? v->valuedouble : 0);
        }
        snprintf(row[3 + cons], REP_CELL, "%zu", run->wl[w].nfront);
        util_strlcpy(row[4 + cons], rep_wl_fidelity(run, w), REP_CELL);
    }
    rep_table_draw(d, &t);
    rep_table_free(&t);
}

static void title_page(rep_doc *d, const rep_run *run)
{
    rep_doc_new_page(d);
    rep_doc_space(d, 40);
    rep_doc_text(d, "gpudse report", 24, CHART_BOLD);
    rep_doc_space(d, 4);
    rep_doc_text(d, run->camp.name, 16, CHART_REGULAR);
    rep_doc_space(d, 24);
    title_provenance(d, run);
    rep_doc_space(d, 8);
    title_tooling(d, run);
    rep_doc_space(d, 16);
    title_workloads(d, run);
}

/* ---- per-workload sections -------------------------------------------- */

/* Decimals giving about five significant digits to a column whose largest
 * magnitude is big. */
static int column_decimals(double big)
{
    if (!(big > 0) || !isfinite(big))
        return 0;
    int d = 4 - (int)floor(log10(big));
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

static void value_cell(double v, int ndec, char *out)
{
    if (isnan(v))
        snprintf(out, REP_CELL, "NaN");
    else if (fabs(v) >= 1e9)
        snprintf(out, REP_CELL, "%.5g", v);
    else
        snprintf(out, REP_CELL, "%.*f", ndec, v);
}

/* Per objective, the decimals of its column over front and baseline. */
static void front_decimals(const rep_run *run, const rep_wl *w, int *ndec)
{
    for (int o = 0; o < run->nobj; o++) {
        double big = 0, v;
        for (size_t i = 0; i < w->nfront; i++)
            if (met_get(&w->front[i].metrics, run->obj[o].metric, &v) == 0
                && isfinite(v))
                big = fmax(big, fabs(v));
        if (w->has_baseline
            && met_get(&w->baseline.metrics, run->obj[o].metric, &v) == 0
            && isfinite(v))
            big = fmax(big, fabs(v));
        ndec[o] = column_decimals(big);
    }
}

/* Whether the front table shows knob k: every built-in knob in a space of
 * built-in knobs alone; with user knobs, the built-in knobs the campaign
 * varies and every user knob. */
static int shown_knob(const rep_run *run, int k)
{
    const space_def *sp = rep_run_space(run);
    if (!sp || !sp->nuser)
        return k < SPACE_NKNOBS;
    return k < space_nknobs(sp) && (k >= SPACE_NKNOBS || sp->nlevels[k] > 1);
}

static void front_row(rep_table *t, const rep_run *run, const rep_point *p,
                      const int *ndec, const char *label, int emph)
{
    char (*row)[REP_CELL] = rep_table_row(t, emph);
    if (!row)
        return;
    util_strlcpy(row[0], label, REP_CELL);
    int col = 1;
    for (int k = 0; k < SPACE_MAXKNOBS; k++)
        if (shown_knob(run, k))
            util_strlcpy(row[col++], p->knob[k], REP_CELL);
    for (int o = 0; o < run->nobj; o++) {
        double v;
        if (met_get(&p->metrics, run->obj[o].metric, &v) == 0)
            value_cell(v, ndec[o], row[col + o]);
    }
}

/* Knob column header with its unit: "shmem size (bytes)". */
static void knob_head(const rep_run *run, int k, char *head, size_t n)
{
    fig_knob_title_in(rep_run_space(run), k, head, n);
    for (char *p = head; *p; p++)
        if (*p == '_')
            *p = ' ';
}

/* top: the first top rows of the front (best first by objective 1), or
 * all when 0. */
static void front_table(rep_doc *d, const rep_run *run, int wl, int top)
{
    rep_table t;
    char cap[200], head[64];
    int ndec[CAMP_MAXOBJ];
    const rep_wl *w = &run->wl[wl];
    front_decimals(run, w, ndec);
    size_t rows = top > 0 && (size_t)top < w->nfront ? (size_t)top
                                                     : w->nfront;
    if (rows < w->nfront)
        snprintf(cap, sizeof cap, "%s: Pareto front, top %zu of %zu "
                 "configurations by %s (%s)", w->name, rows, w->nfront,
                 met_label(run->obj[0].metric), rep_wl_fidelity(run, wl));
    else
        snprintf(cap, sizeof cap, "%s: Pareto front (%zu configuration%s, "
                 "%s)", w->name, w->nfront, w->nfront == 1 ? "" : "s",
                 rep_wl_fidelity(run, wl));
    rep_table_init(&t, cap);
    rep_table_col(&t, "#", CHART_RIGHT);
    for (int k = 0; k < SPACE_MAXKNOBS; k++) {
        if (!shown_knob(run, k))
            continue;
        knob_head(run, k, head, sizeof head);
        rep_table_col(&t, head, CHART_CENTER);
    }
    for (int o = 0; o < run->nobj && t.ncols < REP_TABLE_MAXCOLS; o++) {
        fig_axis_title(rep_run_camp(run), run->obj[o].metric, head,
                       sizeof head);
        rep_table_col(&t, head, CHART_RIGHT);
    }
    if (w->has_baseline)
        front_row(&t, run, &w->baseline, ndec, "base", 1);
    size_t n_extra = 0;
    for (size_t i = 0; i < rows; i++) {
        /* a modelled point outside its descriptor's calibrated region
         * (docs/model.md, "Uncertainty") is marked with a star */
        double x;
        int extra = met_get(&w->front[i].metrics, "extrapolated", &x) == 0
                    && x > 0;
        char idx[24];
        snprintf(idx, sizeof idx, "%zu%s", i + 1, extra ? "*" : "");
        n_extra += extra;
        front_row(&t, run, &w->front[i], ndec, idx, 0);
    }
    if (w->nfront == 0 && !w->has_baseline) {
        rep_doc_text(d, "The Pareto front is empty (no successful jobs).",
                     9, CHART_REGULAR);
    } else {
        rep_table_draw(d, &t);
        if (n_extra) {
            char note[200];
            snprintf(note, sizeof note, "* %zu of %zu front points are "
                     "extrapolated: modelled outside the region the "
                     "workload was calibrated on (wider IPC interval).",
                     n_extra, w->nfront);
            rep_doc_text(d, note, 9, CHART_REGULAR);
        }
    }
    rep_table_free(&t);
}

/* The metrics a per-metric layout item names (its list, or the
 * objectives); returns how many went into out. */
static int item_metrics(const rep_run *run, const rep_item *it,
                        char out[][MET_NAMELEN], int max)
{
    int n = 0;
    if (!it->metrics[0]) {
        for (int o = 0; o < run->nobj && n < max; o++)
            util_strlcpy(out[n++], run->obj[o].metric, MET_NAMELEN);
        return n;
    }
    for (const char *p = it->metrics; *p && n < max;) {
        p += strspn(p, " \t\n");
        size_t len = strcspn(p, " \t\n");
        if (!len)
            break;
        util_strlcpy(out[n++], p, len + 1 < MET_NAMELEN ? len + 1
                                                        : MET_NAMELEN);
        p += len;
    }
    return n;
}

static void figure_block(rep_doc *d, const rep_run *run, int wl,
                         const fig_kind *k, const char *metric, int log)
{
    double h = FIG_PAGE_H;
    rep_doc_need(d, h);
    if (!d->measure)
        k->draw(&d->cc, run, wl, metric, log,
                (chart_box){ rep_doc_left(d), d->y, rep_doc_width(d), h });
    d->y += h + 10;
}

static void figure_item(rep_doc *d, const rep_run *run, int wl,
                        const rep_item *it)
{
    char m[CAMP_MAXOBJ + 16][MET_NAMELEN];
    const fig_kind *k = fig_kind_find(it->name);
    int n = k->per_metric ? item_metrics(run, it, m, CAMP_MAXOBJ + 16) : 1;
    for (int i = 0; i < n; i++) {
        const char *metric = k->per_metric ? m[i] : NULL;
        if (fig_available(k, run, wl, metric))
            figure_block(d, run, wl, k, metric, it->log);
    }
}

static void workload_section(rep_doc *d, const rep_run *run, int wl,
                             const rep_layout *lay)
{
    char line[512];
    const rep_wl *w = &run->wl[wl];
    rep_doc_new_page(d);
    snprintf(line, sizeof line, "Workload %s", w->name);
    rep_doc_heading(d, line, 0);
    snprintf(line, sizeof line, "%ld successful job%s, %ld failed, %s "
             "results; Pareto front of %zu configuration%s over %d "
             "objectives.", w->points, w->points == 1 ? "" : "s", w->failed,
             rep_wl_fidelity(run, wl), w->nfront, w->nfront == 1 ? "" : "s",
             run->nobj);
    rep_doc_text(d, line, 9, CHART_REGULAR);
    rep_doc_space(d, 8);
    for (int i = 0; i < lay->nitems; i++) {
        const rep_item *it = &lay->item[i];
        if (it->kind == REP_ITEM_FIGURE)
            figure_item(d, run, wl, it);
        else if (it->kind == REP_ITEM_ANNOTATIONS)
            rep_sec_wl_annotations(d, run, wl);
        else if (strcmp(it->name, "quality") == 0)
            rep_sec_quality(d, run, wl);
        else
            front_table(d, run, wl, it->top);
        rep_doc_space(d, 10);
    }
}

/* A figure across workloads on its own page, with its title and caption
 * whatever title= says (that is for the figure files). */
static void cross_section(rep_doc *d, const rep_run *run,
                          const rep_layout *lay, const fig_cross_set *xs,
                          int i)
{
    char head[160];
    rep_doc_new_page(d);
    fig_cross_title(run, &lay->cross[i], head, sizeof head);
    rep_doc_heading(d, head, 0);
    double h = FIG_PAGE_H;
    rep_doc_need(d, h);
    if (!d->measure)   /* titled: title="off" is for the files */
        fig_cross_draw(&d->cc, run, xs, i, 1, (chart_box){ rep_doc_left(d),
                                                d->y, rep_doc_width(d), h });
    d->y += h + 10;
}

/* Each workload's section with its records loaded (rep_run_select): one
 * workload's records in memory at a time. */
static int workload_sections(rep_doc *d, rep_run *run, const rep_layout *lay,
                             gd_err *err)
{
    for (int w = 0; w < run->nwl; w++) {
        int rc = rep_run_select(run, run->wl[w].name, err);
        if (rc)
            return rc;
        workload_section(d, run, w, lay);
    }
    return GD_OK;
}

_Static_assert(REP_OVERLAY_MAX == REP_OVERLAY_ARGS,
               "--overlay's limit is the overlay figure's");

/* --overlay: each workload's fronts of every run on a page, after the
 * layout's sections. */
static void overlay_pages(rep_doc *d, const rep_run *run,
                          const rep_overlay *ov)
{
    char head[200];
    for (int w = 0; ov && ov->n && w < run->nwl; w++) {
        rep_doc_new_page(d);
        fig_overlay_title(run, ov, w, head, sizeof head);
        rep_doc_heading(d, head, 0);
        double h = FIG_PAGE_H;
        rep_doc_need(d, h);
        if (!d->measure)
            fig_overlay_draw(&d->cc, run, ov, w, 0, (chart_box){
                rep_doc_left(d), d->y, rep_doc_width(d), h });
        d->y += h + 10;
    }
}

static int body(rep_doc *d, rep_run *run, const rep_layout *lay,
                const rep_overlay *ov, const fig_cross_set *xs, gd_err *err)
{
    int rc = GD_OK;
    rep_regression_page(d, run);   /* only when DIR/compare.json exists */
    for (int s = 0; !rc && s < lay->nsections; s++)
        switch (lay->section[s]) {
        case REP_SEC_WORKLOADS:
            rc = workload_sections(d, run, lay, err);
            break;
        case REP_SEC_EXPLORATION:
            rep_exploration_pages(d, run);
            break;
        case REP_SEC_AGGREGATES:   /* analysis.json "aggregates" */
            if (rep_agg_has(run))
                rep_agg_pages(d, run);
            break;
        case REP_SEC_STRATEGY:
            rep_study_strategy(d, run);
            break;
        case REP_SEC_CALIBRATION:
            rep_study_calibration(d, run);
            rep_mfloop_page(d, run);
            break;
        case REP_SEC_FIGURE:   /* gathered before (write_pdf) */
            cross_section(d, run, lay, xs, lay->section_fig[s]);
            break;
        case REP_SEC_ANNOTATIONS:
            if (rep_sec_has_campaign_annotations(run))
                rep_sec_campaign_annotations(d, run);
            break;
        default:
            if (rep_sec_has_failures(run))
                rep_sec_failures(d, run);
            break;
        }
    if (!rc)
        overlay_pages(d, run, ov);
    return rc;
}

/* One full document; toc_shift < 0: a layout pass (no contents, figures
 * not drawn) that only records where headings land. */
static int render_doc(rep_run *run, const rep_layout *lay,
                      const rep_overlay *ov, const fig_cross_set *xs,
                      const char *path, rep_doc *d, const rep_toc_entry *toc,
                      int ntoc, int toc_pages, gd_err *err)
{
    char title[160], footer[200];
    int letter = strcmp(run->camp.paper, "letter") == 0;
    snprintf(title, sizeof title, "gpudse report: %s", run->camp.name);
    snprintf(footer, sizeof footer, "gpudse report — %s", run->camp.name);
    int rc = rep_doc_begin(d, letter ? PAGE_LETTER_W : PAGE_A4_W,
                           letter ? PAGE_LETTER_H : PAGE_A4_H, title, footer,
                           path, err);
    if (rc)
        return rc;
    d->measure = toc == NULL;
    if (lay->title_page)
        title_page(d, run);
    if (toc && lay->contents)
        rep_sec_contents(d, toc, ntoc, toc_pages, 1);
    rc = body(d, run, lay, ov, xs, err);
    if (rc)
        rep_doc_abandon(d);
    return rc;
}

static int write_pdf_with(rep_run *run, const rep_layout *lay,
                          const rep_overlay *ov, const fig_cross_set *xs,
                          gd_err *err)
{
    char path[4096];
    rep_doc *d = calloc(1, sizeof *d);
    static const rep_toc_entry none[1];
    int rc = d ? rep_run_path(run, "report.pdf", path, sizeof path, err)
               : gd_errf(err, GD_EENV, "report.pdf: out of memory");
    if (!rc && !lay->contents) {   /* no contents: one pass is enough */
        rc = render_doc(run, lay, ov, xs, path, d, none, 0, 0, err);
        if (!rc)
            rc = rep_doc_end(d, path, err);
        free(d);
        return rc;
    }
    if (!rc)
        rc = render_doc(run, lay, ov, xs, path, d, NULL, 0, 0, err);
    if (rc) {
        free(d);
        return rc;
    }
    /* Layout pass done: headings know their pages without contents. */
    int ntoc = d->ntoc;
    rep_toc_entry *toc = malloc((size_t)(ntoc ? ntoc : 1) * sizeof *toc);
    int pages = toc && lay->contents
                ? rep_sec_contents(d, d->toc, ntoc, 0, 0) : 0;
    if (toc)
        memcpy(toc, d->toc, (size_t)ntoc * sizeof *toc);
    rep_doc_abandon(d);
    if (!toc) {
        free(d);
        return gd_errf(err, GD_EENV, "%s: out of memory", path);
    }
    rc = render_doc(run, lay, ov, xs, path, d, toc, ntoc, pages, err);
    if (!rc)
        rc = rep_doc_end(d, path, err);
    free(toc);
    free(d);
    return rc;
}

/* The figures across workloads gathered first, one workload at a time. */
static int write_pdf(rep_run *run, const rep_layout *lay,
                     const rep_overlay *ov, gd_err *err)
{
    fig_cross_set *xs = NULL;
    int rc = lay->ncross ? fig_cross_gather(run, lay->cross, lay->ncross,
                                            &xs, err)
                         : GD_OK;
    if (!rc)
        rc = write_pdf_with(run, lay, ov, xs, err);
    fig_cross_free(xs);
    return rc;
}

/* ---- entry point ------------------------------------------------------ */

static int pick_layout(const rep_run *run, const char *layout,
                       rep_layout *lay, gd_err *err)
{
    const camp_campaign *c = run->have_camp ? &run->camp : NULL;
    if (layout && *layout)
        return rep_layout_load_camp(layout, c, lay, err);
    if (run->camp.layout[0])
        return rep_layout_load_camp(run->camp.layout, c, lay, err);
    rep_layout_default(lay);
    return GD_OK;
}

static int write_item_figures(const rep_run *run, int wl,
                              const rep_item *it, const chart_font *font,
                              gd_err *err)
{
    char m[CAMP_MAXOBJ + 16][MET_NAMELEN];
    const fig_kind *k = fig_kind_find(it->name);
    int n = k->per_metric ? item_metrics(run, it, m, CAMP_MAXOBJ + 16) : 1;
    int rc = GD_OK;
    for (int i = 0; !rc && i < n; i++) {
        const char *metric = k->per_metric ? m[i] : NULL;
        if (fig_available(k, run, wl, metric))
            rc = fig_write_files(k, run, wl, metric,
                                 it->log | (it->no_title ? FIG_NOTITLE : 0),
                                 run->camp.formats, font, err);
    }
    return rc;
}

/* Per workload, with its records loaded (rep_run_select); the figures
 * across workloads take what they draw from each workload in turn. */
static int write_figures(rep_run *run, const rep_layout *lay, gd_err *err)
{
    fig_cross_set *xs = lay->ncross ? fig_cross_new(run, lay->cross,
                                                    lay->ncross) : NULL;
    int rc = lay->ncross && !xs
             ? gd_errf(err, GD_EENV, "%s: out of memory", run->dir) : GD_OK;
    for (int w = 0; !rc && w < run->nwl; w++) {
        rc = rep_run_select(run, run->wl[w].name, err);
        for (int i = 0; !rc && i < lay->nitems; i++)
            if (lay->item[i].kind == REP_ITEM_FIGURE)
                rc = write_item_figures(run, w, &lay->item[i], &lay->font,
                                        err);
        if (!rc)
            fig_cross_add(xs, run, w);
    }
    for (int i = 0; !rc && i < lay->ncross; i++)
        rc = fig_cross_write_files(run, xs, i, run->camp.formats, &lay->font,
                                   err);
    fig_cross_free(xs);
    if (!rc)
        rc = rep_agg_write_figures(run, &lay->font, err);
    if (!rc)
        rc = rep_study_write_figures(run, &lay->font, err);
    if (!rc)
        rc = rep_regression_write_figures(run, err);
    return rc;
}

typedef struct {
    rep_run *run;
    const rep_layout *lay;
    const rep_overlay *ov;
} files_arg;

/* results.csv, the figure files and report.pdf: three parts, each written
 * by a forked child (workfork.h) — the CSV alone takes about as long as
 * the PDF, so one child for both would be the last to end. Each child's
 * copy of the run holds the records rep_run_load parsed. */
static int write_csv(void *arg, gd_err *err)
{
    files_arg *a = arg;
    return rep_csv_write(a->run, err);
}

static int write_pdf_part(void *arg, gd_err *err)
{
    files_arg *a = arg;
    return write_pdf(a->run, a->lay, a->ov->n ? a->ov : NULL, err);
}

static int write_figure_files(void *arg, gd_err *err)
{
    files_arg *a = arg;
    int rc = write_figures(a->run, a->lay, err);
    if (!rc && a->ov->n)
        rc = fig_overlay_write_files(a->run, a->ov, a->run->camp.formats,
                                     &a->lay->font, err);
    return rc;
}

static int render(const char *rundir, const char *layout,
                  const char *const *overlay, int noverlay, rcache *cache,
                  gd_err *err);

int rep_render(const char *rundir, const char *layout, gd_err *err)
{
    return render(rundir, layout, NULL, 0, NULL, err);
}

int rep_render_cached(const char *rundir, const char *layout, rcache *cache,
                      gd_err *err)
{
    return render(rundir, layout, NULL, 0, cache, err);
}

int rep_render_overlay(const char *rundir, const char *layout,
                       const char *const *overlay, int noverlay,
                       gd_err *err)
{
    return render(rundir, layout, overlay, noverlay, NULL, err);
}

static int render(const char *rundir, const char *layout,
                  const char *const *overlay, int noverlay, rcache *cache,
                  gd_err *err)
{
    if (sp_is_run_dir(rundir)) {   /* a split study has its own report */
        if (layout || noverlay)
            return gd_errf(err, GD_EINPUT, "%s: --%s applies to "
                           "design-space runs, not to a split study", rundir,
                           layout ? "layout" : "overlay");
        return split_report_dir(rundir, err);
    }
    rep_run run;
    rep_layout lay;
    rep_overlay ov;
    memset(&ov, 0, sizeof ov);
    int rc = rep_run_load_cached(rundir, cache, &run, err);
    if (rc)
        return rc;
    rc = pick_layout(&run, layout, &lay, err);
    if (!rc && noverlay)   /* every input checked before anything is written */
        rc = rep_overlay_load(&run, overlay, noverlay, &ov, err);
    if (rc) {
        rep_overlay_free(&ov);
        rep_run_free(&run);
        return rc;
    }
    /* every part that draws runs in a child: pango starts threads, and a
     * process that has them must not fork again (a lock one of them held
     * stays held in the child), as a later render in this process would */
    files_arg fa = { &run, &lay, &ov };
    wf_child csv, figs, pdf;
    wf_start(&csv, write_csv, &fa);
    wf_start(&figs, write_figure_files, &fa);
    wf_start(&pdf, write_pdf_part, &fa);
    gd_err pdf_err = { 0 }, fig_err = { 0 };
    int pdf_rc = wf_wait(&pdf, &pdf_err);
    int fig_rc = wf_wait(&figs, &fig_err);
    rc = wf_wait(&csv, err);   /* the errors in the order they were */
    if (!rc && fig_rc) {
        rc = fig_rc;
        if (err)
            *err = fig_err;
    }
    if (!rc && pdf_rc) {
        rc = pdf_rc;
        if (err)
            *err = pdf_err;
    }
    rep_overlay_free(&ov);
    rep_run_free(&run);
    return rc;
}
