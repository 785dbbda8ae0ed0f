/* exploration: the "Exploration log" pages of a run whose agent strategy
 * was driven by an LLM (DIR/agent-log.jsonl, pipeline/search/
 * strat_agent_llm.c) — per workload, the first objective of every
 * evaluation in run order with the best-so-far line, then each round's
 * specialist statuses and its proposals, accepted or rejected with the
 * reason, and who proposed what ran. No transcript: no pages. */
#include "exploration.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "figures.h"
#include "plots.h"
#include "sections.h"

#define FIG_H 300.0

/* The transcript's rounds as one JSON array; NULL when absent. */
static cJSON *load_log(const rep_run *run)
{
    char path[4200], *data = NULL;
    size_t len;
    gd_err e;
    if (rep_run_path(run, "agent-log.jsonl", path, sizeof path, &e) != GD_OK
        || !util_path_exists(path)
        || util_read_file(path, &data, &len, &e) != GD_OK)
        return NULL;
    cJSON *all = cJSON_CreateArray();
    for (char *save = NULL, *l = strtok_r(data, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(l);
        if (cJSON_IsObject(j))
            cJSON_AddItemToArray(all, j);
        else
            cJSON_Delete(j);
    }
    free(data);
    if (cJSON_GetArraySize(all) == 0) {
        cJSON_Delete(all);
        return NULL;
    }
    return all;
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int of_workload(const cJSON *round, const char *wl)
{
    return strcmp(str_of(round, "workload"), wl) == 0;
}

/* The first objective of every evaluation of wl, in run order (NaN: failed
 * or not produced), and the best so far. Returns the count. */
static size_t series(const rep_run *run, const cJSON *log, const char *wl,
                     double **x, double **y, double **best)
{
    const cJSON *r, *c;
    size_t n = 0, cap = 64;
    *x = malloc(cap * sizeof **x);
    *y = malloc(cap * sizeof **y);
    *best = malloc(cap * sizeof **best);
    const camp_objective *o = &run->obj[0];
    double b = NAN;
    cJSON_ArrayForEach(r, log) {
        if (!of_workload(r, wl))
            continue;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "configs")) {
            if (!*x || !*y || !*best)
                return 0;
            if (n == cap) {
                cap *= 2;
                *x = realloc(*x, cap * sizeof **x);
                *y = realloc(*y, cap * sizeof **y);
                *best = realloc(*best, cap * sizeof **best);
                if (!*x || !*y || !*best)
                    return 0;
            }
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(c, "objectives"), o->metric);
            double val = cJSON_IsNumber(v) ? v->valuedouble : NAN;
            if (isfinite(val) && (!isfinite(b)
                                  || (o->maximize ? val > b : val < b)))
                b = val;
            (*x)[n] = (double)(n + 1);
            (*y)[n] = val;
            (*best)[n++] = b;
        }
    }
    return n;
}

static void figure(rep_doc *d, const rep_run *run, const cJSON *log,
                   const char *wl)
{
    double *x = NULL, *y = NULL, *best = NULL;
    size_t n = series(run, log, wl, &x, &y, &best);
    if (n > 0) {
        char title[256], yt[160], note[256];
        const camp_objective *o = &run->obj[0];
        snprintf(title, sizeof title, "%s: %s of every evaluation, in run "
                 "order, and the best so far (%s)", wl, met_label(o->metric),
                 rep_wl_fidelity(run, rep_wl_find(run, wl)));
        fig_axis_title(rep_run_camp(run), o->metric, yt, sizeof yt);
        snprintf(note, sizeof note, "%s is %s. Failed evaluations and ones "
                 "that did not produce it are left out.", met_label(
                 o->metric), o->maximize ? "maximised" : "minimised");
        plot_series s[2] = {
            { "evaluation", n, x, y, NULL, NULL },
            { "best so far", n, x, best, NULL, NULL },
        };
        plot_spec p;
        memset(&p, 0, sizeof p);
        p.kind = PLOT_LINES;
        p.title = title;
        p.note = note;
        p.xtitle = "Evaluation (in run order)";
        p.ytitle = yt;
        p.u.lines = (plot_lines){ NULL, 2, s };
        rep_doc_need(d, FIG_H);
        if (!d->measure)
            plot_draw(&d->cc, &p, (chart_box){ rep_doc_left(d), d->y,
                                               rep_doc_width(d), FIG_H });
        d->y += FIG_H + 10;
    }
    free(x);
    free(y);
    free(best);
}

/* "front memory AMBER, warp GREEN, bottleneck AMBER; last ..." */
static void statuses(const cJSON *round, util_buf *b)
{
    const cJSON *dg;
    int first = 1;
    cJSON_ArrayForEach(dg, cJSON_GetObjectItemCaseSensitive(round,
                                                           "diagnoses")) {
        util_buf_printf(b, "%s%s: memory %s, warp %s, bottleneck %s",
                        first ? "Specialists on " : "; ",
                        str_of(dg, "scope"), str_of(dg, "memory"),
                        str_of(dg, "warp"), str_of(dg, "bottleneck"));
        first = 0;
    }
    if (!first)
        util_buf_puts(b, ".\n");
}

static void proposals(const cJSON *round, util_buf *b)
{
    const cJSON *p, *c;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(round,
                                                          "proposals")) {
        int ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p,
                                                               "accepted"));
        util_buf_printf(b, "Proposed \"%s\": %s%s\n", str_of(p, "text"),
                        ok ? "accepted" : "rejected: ",
                        ok ? "" : str_of(p, "reason"));
    }
    if (str_of(round, "error")[0])
        util_buf_printf(b, "LLM not used: %s\n", str_of(round, "error"));
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(round, "configs"))
        util_buf_printf(b, "Ran (%s) %s: %s\n", str_of(c, "by"),
                        str_of(c, "config"), str_of(c, "status"));
}

static void rounds(rep_doc *d, const cJSON *log, const char *wl)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, log) {
        if (!of_workload(r, wl))
            continue;
        const cJSON *num = cJSON_GetObjectItemCaseSensitive(r, "round");
        char key[64];
        snprintf(key, sizeof key, "Round %d\n%s",
                 cJSON_IsNumber(num) ? num->valueint : -1, str_of(r, "source"));
        util_buf b;
        util_buf_init(&b);
        statuses(r, &b);
        proposals(r, &b);
        if (b.s) {
            char *k = rep_sec_clean_text(key, strlen(key));
            char *t = rep_sec_clean_text(b.s, b.len);
            rep_doc_kv(d, k, t, CHART_REGULAR);
            g_free(k);
            g_free(t);
        }
        util_buf_free(&b);
    }
}

void rep_exploration_pages(rep_doc *d, const rep_run *run)
{
    cJSON *log = load_log(run);
    if (!log || run->nobj < 1) {
        cJSON_Delete(log);
        return;
    }
    for (int w = 0; w < run->nwl; w++) {
        const char *wl = run->wl[w].name;
        const cJSON *r;
        int any = 0;
        cJSON_ArrayForEach(r, log)
            any |= of_workload(r, wl);
        if (!any)
            continue;
        char h[160];
        rep_doc_new_page(d);
        snprintf(h, sizeof h, "Exploration log: %s", wl);
        rep_doc_heading(d, h, 0);
        rep_doc_text(d, "The agent strategy driven by the LLM: each round "
                     "the specialists diagnose the front's balanced point "
                     "and the last results, the orchestrator proposes, and "
                     "every proposal is validated; rejected ones are "
                     "replaced by the rules proposer's moves "
                     "(agent-log.jsonl holds the transcript).", 9,
                     CHART_REGULAR);
        rep_doc_space(d, 6);
        figure(d, run, log, wl);
        rounds(d, log, wl);
    }
    cJSON_Delete(log);
}
