/* mfloop_page: the report page of the multi-fidelity loop (<verify
 * rounds=>): per workload a table of every round's picks — the prediction
 * each was picked on (modelled, with its 95% interval) beside the value the
 * expensive backend measured — and the best measured config, from the
 * "verification_loop" objects of analysis.json (analysis/verification.c). */
#include "mfloop_page.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "table.h"

static const cJSON *jget(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = jget(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The values of a canonical config, in knob order, into the
 * config_values arg (util_kv_each's callback). */
typedef struct {
    char v[8][24];
    int n;
} config_values;

static int config_value(char *knob, char *value, void *arg, gd_err *err)
{
    (void)knob;
    (void)err;
    config_values *c = arg;
    if (c->n < 8 && value)
        snprintf(c->v[c->n++], sizeof c->v[0], "%.23s", value);
    return GD_OK;
}

/* "n_clusters=60,cores_per_cluster=1,..." as "60x1 m12 s32K gto/2 L1 16
 * L2 64" (clusters x cores, channels, shared memory, scheduler / per core,
 * L1 and L2 sets), to fit a cell. Out of memory fails the document d. */
static void short_config(rep_doc *d, const char *canon, char *out, size_t n)
{
    config_values c = {{{0}}, 0};
    gd_err err;
    if (util_kv_each(canon, ",", config_value, &c, &err) != GD_OK)
        d->failed = 1;   /* rep_doc_end says so; no report with a gap */
    char (*v)[24] = c.v;
    const char *sched = !strcmp(v[4], "two_level_active") ? "2lv" : v[4];
    int sh = 0;
    sscanf(v[3], "%d", &sh);
    snprintf(out, n, "%sx%s m%s s%dK %s/%s L1 %s L2 %s", v[0], v[1], v[2],
             sh / 1024, sched, v[5], v[6], v[7]);
}

/* A number with digits decimals, or "absent" when there is none. */
static void number(const cJSON *v, int digits, char *out)
{
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
        snprintf(out, REP_CELL, "%.*f", digits, v->valuedouble);
    else
        snprintf(out, REP_CELL, "absent");
}

static void why_short(const char *why, char *out)
{
    snprintf(out, REP_CELL, "%s",
             strstr(why, "expected improvement") ? "expected improvement"
             : strstr(why, "front") ? "extends the front"
             : strstr(why, "predicted") ? "best predicted" : why);
}

static void workload_table(rep_doc *d, const char *name, const cJSON *loop)
{
    const char *metric = jstr(loop, "metric");
    const cJSON *best = jget(loop, "best_measured");
    const char *bcfg = cJSON_IsObject(best) ? jstr(best, "config")
                       : cJSON_IsArray(best) ? jstr(cJSON_GetArrayItem(best, 0),
                                                    "config") : "";
    char cap[256], h1[64], h2[64];
    snprintf(cap, sizeof cap, "%s: configs verified round by round — %s "
             "predicted by the (re-calibrated) model when picked, modelled; "
             "and measured on the expensive backend", name, metric);
    rep_table t;
    rep_table_init(&t, cap);
    rep_table_col(&t, "round", CHART_RIGHT);
    rep_table_col(&t, "config", CHART_LEFT);
    rep_table_col(&t, "picked for", CHART_LEFT);
    snprintf(h1, sizeof h1, "%s modelled", metric);
    rep_table_col(&t, h1, CHART_RIGHT);
    rep_table_col(&t, "95% interval", CHART_RIGHT);
    snprintf(h2, sizeof h2, "%s measured", metric);
    rep_table_col(&t, h2, CHART_RIGHT);
    rep_table_col(&t, "error %", CHART_RIGHT);
    const cJSON *r, *p;
    cJSON_ArrayForEach(r, jget(loop, "rounds")) {
        cJSON_ArrayForEach(p, jget(r, "picks")) {
            const char *cfg = jstr(p, "config");
            char (*c)[REP_CELL] = rep_table_row(&t, bcfg[0] && !strcmp(cfg,
                                                                       bcfg));
            if (!c)
                break;
            number(jget(r, "round"), 0, c[0]);
            short_config(d, cfg, c[1], REP_CELL);
            why_short(jstr(p, "why"), c[2]);
            number(jget(p, "predicted"), 1, c[3]);
            const cJSON *lo = jget(p, "ipc_lo"), *hi = jget(p, "ipc_hi");
            if (cJSON_IsNumber(lo) && cJSON_IsNumber(hi)
                && !strcmp(metric, "ipc"))
                snprintf(c[4], REP_CELL, "%.1f-%.1f", lo->valuedouble,
                         hi->valuedouble);
            else
                snprintf(c[4], REP_CELL, "absent");
            if (cJSON_IsNumber(jget(p, "measured")))
                number(jget(p, "measured"), 1, c[5]);
            else
                snprintf(c[5], REP_CELL, "absent (%s)",
                         jstr(p, "measured_note"));
            number(jget(p, "error_pct"), 1, c[6]);
        }
    }
    rep_table_draw(d, &t);
    rep_table_free(&t);
    char line[512], sc[64] = "none";
    const cJSON *sims = jget(loop, "simulations");
    if (bcfg[0])
        short_config(d, bcfg, sc, sizeof sc);
    snprintf(line, sizeof line, "Best measured config (bold): %s, after %d "
             "simulation(s). The loop stopped: %s.", sc,
             cJSON_IsNumber(sims) ? sims->valueint : 0,
             cJSON_IsString(jget(loop, "stopped")) ? jstr(loop, "stopped")
                                                   : "not yet (resume it)");
    rep_doc_text(d, line, 9, CHART_REGULAR);
    rep_doc_space(d, 10);
}

void rep_mfloop_page(rep_doc *d, const rep_run *run)
{
    int started = 0;
    for (int w = 0; w < run->nwl; w++) {
        const cJSON *loop = jget(run->wl[w].json, "verification_loop");
        if (!cJSON_IsObject(loop))
            continue;
        if (!started++) {
            rep_doc_new_page(d);
            rep_doc_heading(d, "Verification loop", 0);
            rep_doc_text(d, "Each round re-calibrates the workload's model on "
                         "every value measured so far, re-predicts the "
                         "candidates and verifies the configs with the "
                         "largest expected improvement (docs/gpgpusim.md, "
                         "\"Multi-fidelity\"). Modelled: the prediction a "
                         "config was picked on. Measured: the expensive "
                         "backend's value.", 9, CHART_REGULAR);
            rep_doc_space(d, 6);
        }
        workload_table(d, run->wl[w].name, loop);
    }
}
