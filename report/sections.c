/* sections: contents with page numbers, quality numbers, annotations and
 * the failures appendix of report.pdf. Every reader here is tolerant: a
 * missing or oddly shaped input is skipped (or noted), never fatal. */
#include "sections.h"
#include "backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "table.h"

#define TOC_PT 10.0
#define FAIL_ROWS_MAX REP_FAILS_KEPT   /* failed records rundata keeps */
#define TAILS_MAX 20
#define TAIL_LINES 20
#define TAIL_BYTES 4096

/* ---- contents --------------------------------------------------------- */

int rep_sec_contents(rep_doc *d, const rep_toc_entry *e, int n, int shift,
                     int draw)
{
    double y = 0, room = d->ph - 2 * d->margin, h;
    int pages = 1;
    if (draw) {
        rep_doc_new_page(d);
        rep_doc_text(d, "Contents", 16, CHART_BOLD);
        rep_doc_space(d, 10);
    }
    chart_text_size(&d->cc, "Contents", 16, CHART_BOLD, 0, NULL, &h);
    y = h + 10;
    for (int i = 0; i < n; i++) {
        char num[16];
        double indent = e[i].level ? 16 : 0, rh;
        int st = e[i].level ? CHART_REGULAR : CHART_BOLD;
        chart_text_size(&d->cc, e[i].title, TOC_PT, st,
                        rep_doc_width(d) - indent - 40, NULL, &rh);
        rh += e[i].level ? 2 : 5;
        if (y + rh > room) {
            pages++;
            y = 0;
            if (draw)
                rep_doc_new_page(d);
        }
        y += rh;
        if (!draw)
            continue;
        snprintf(num, sizeof num, "%d", e[i].page + shift);
        double top = d->y + (e[i].level ? 0 : 3);
        cairo_set_source_rgb(d->cr, 0, 0, 0);
        chart_text(&d->cc, e[i].title, TOC_PT, st,
                   rep_doc_width(d) - indent - 40, d->margin + indent, top,
                   CHART_LEFT, CHART_TOP, NULL, NULL);
        chart_text(&d->cc, num, TOC_PT, st, 0, d->margin + rep_doc_width(d),
                   top, CHART_RIGHT, CHART_TOP, NULL, NULL);
        d->y += rh;
    }
    return pages;
}

/* ---- text hygiene ----------------------------------------------------- */

char *rep_sec_clean_text(const char *s, size_t len)
{
    char *v = g_utf8_make_valid(s, (gssize)len);
    for (char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
            *p = '?';
    return v;
}

/* ---- quality ---------------------------------------------------------- */

static int num_of(const cJSON *o, const char *key, double *v)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(n))
        return 0;
    *v = n->valuedouble;
    return 1;
}

static void kv_num(rep_doc *d, const char *label, const cJSON *o,
                   const char *key)
{
    double v;
    char buf[64];
    if (!num_of(o, key, &v))
        return;
    snprintf(buf, sizeof buf, "%.6g", v);
    rep_doc_kv(d, label, buf, CHART_REGULAR);
}

/* A JSON value as prose: numbers %.6g, arrays "[a, b]", objects
 * "key value; key value". */
static void json_prose(const cJSON *v, util_buf *b)
{
    const cJSON *it;
    if (cJSON_IsNumber(v)) {
        util_buf_printf(b, "%.6g", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        util_buf_printf(b, "%s", v->valuestring);
    } else if (cJSON_IsArray(v)) {
        util_buf_printf(b, "[");
        cJSON_ArrayForEach(it, v) {
            json_prose(it, b);
            if (it->next)
                util_buf_printf(b, ", ");
        }
        util_buf_printf(b, "]");
    } else if (cJSON_IsObject(v)) {
        cJSON_ArrayForEach(it, v) {
            util_buf_printf(b, "%s ", it->string ? it->string : "");
            json_prose(it, b);
            if (it->next)
                util_buf_printf(b, "; ");
        }
    } else if (cJSON_IsBool(v)) {
        util_buf_printf(b, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else {
        util_buf_printf(b, "null");
    }
}

static void kv_json(rep_doc *d, const char *label, const cJSON *v)
{
    util_buf b;
    if (!v || cJSON_IsNull(v))
        return;
    util_buf_init(&b);
    json_prose(v, &b);
    util_buf_add(&b, "", 0);
    char *t = rep_sec_clean_text(b.s, strlen(b.s));
    rep_doc_kv(d, label, t, CHART_REGULAR);
    g_free(t);
    util_buf_free(&b);
}

void rep_sec_quality(rep_doc *d, const rep_run *run, int wl)
{
    const cJSON *w = run->wl[wl].json;
    const cJSON *hv = cJSON_GetObjectItemCaseSensitive(w, "hypervolume");
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(w, "reference");
    if (!cJSON_IsObject(hv) && !cJSON_IsObject(ref))
        return;
    rep_doc_need(d, 80);
    rep_doc_text(d, "Front quality", 9.5, CHART_BOLD);
    rep_doc_space(d, 3);
    if (cJSON_IsObject(hv)) {
        kv_num(d, "Hypervolume", hv, "value");
        kv_json(d, "Reference point",
                cJSON_GetObjectItemCaseSensitive(hv, "reference_point"));
        kv_json(d, "Normalisation",
                cJSON_GetObjectItemCaseSensitive(hv, "normalisation"));
    }
    if (cJSON_IsObject(ref)) {
        kv_num(d, "Reference front HV", ref, "hypervolume");
        kv_num(d, "HV ratio", ref, "hv_ratio");
        kv_num(d, "ADRS", ref, "adrs");
        kv_num(d, "IGD", ref, "igd");
    }
}

/* ---- annotations ------------------------------------------------------ */

static const char *str_of(const cJSON *o, const char *const *keys)
{
    for (; *keys; keys++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, *keys);
        if (cJSON_IsString(v) && v->valuestring[0])
            return v->valuestring;
    }
    return NULL;
}

/* One entry: a string, or an object with text and optional agent/status. */
static int draw_entry(rep_doc *d, const cJSON *e)
{
    static const char *const text_keys[] = { "text", "message", "summary",
                                             "body", "note", NULL };
    static const char *const agent_keys[] = { "agent", "source", "title",
                                              NULL };
    static const char *const status_keys[] = { "status", "severity",
                                               "level", NULL };
    const char *text = cJSON_IsString(e) ? e->valuestring
                                         : str_of(e, text_keys);
    if (!text || !*text)
        return 0;
    static const char *const scope_keys[] = { "scope", NULL };
    static const char *const source_keys[] = { "source", NULL };
    const char *agent = cJSON_IsObject(e) ? str_of(e, agent_keys) : NULL;
    const char *status = cJSON_IsObject(e) ? str_of(e, status_keys) : NULL;
    const char *scope = cJSON_IsObject(e) ? str_of(e, scope_keys) : NULL;
    const char *source = cJSON_IsObject(e) ? str_of(e, source_keys) : NULL;
    char key[200], sc[64] = "";
    if (scope) {   /* "front:KEY" -> "front 4ffa131e" */
        const char *colon = strchr(scope, ':');
        if (colon)
            snprintf(sc, sizeof sc, "\n%.*s %.8s", (int)(colon - scope),
                     scope, colon + 1);
        else
            snprintf(sc, sizeof sc, "\n%.40s", scope);
    }
    snprintf(key, sizeof key, "%s%s%s%s%s%s", agent ? agent : "note",
             status ? " [" : "", status ? status : "", status ? "]" : "",
             sc, source && strcmp(source, "llm") == 0 ? " (LLM)" : "");
    char *k = rep_sec_clean_text(key, strlen(key));
    char *t = rep_sec_clean_text(text, strlen(text));
    rep_doc_kv(d, k, t, CHART_REGULAR);
    g_free(k);
    g_free(t);
    return 1;
}

static int draw_entries(rep_doc *d, const cJSON *list, int draw)
{
    const cJSON *e;
    int n = 0;
    if (cJSON_IsString(list) || (cJSON_IsObject(list)
                                 && !cJSON_GetObjectItemCaseSensitive(
                                        list, "annotations")))
        return draw ? draw_entry(d, list) : 1;
    if (cJSON_IsObject(list))
        list = cJSON_GetObjectItemCaseSensitive(list, "annotations");
    cJSON_ArrayForEach(e, list) {
        if (!draw) {
            n += cJSON_IsString(e) || cJSON_IsObject(e);
            continue;
        }
        n += draw_entry(d, e);
    }
    return n;
}

/* The workload's entries: "workloads": {NAME: [...]} or
 * "workloads": [{"name"|"workload": NAME, "annotations": [...]}]. */
static const cJSON *wl_entries(const rep_run *run, int wl)
{
    static const char *const name_keys[] = { "name", "workload", NULL };
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(run->annotations,
                                                       "workloads");
    const cJSON *it;
    if (cJSON_IsObject(ws))
        return cJSON_GetObjectItemCaseSensitive(ws, run->wl[wl].name);
    cJSON_ArrayForEach(it, ws) {
        const char *n = str_of(it, name_keys);
        if (n && strcmp(n, run->wl[wl].name) == 0)
            return it;
    }
    return NULL;
}

int rep_sec_wl_annotations(rep_doc *d, const rep_run *run, int wl)
{
    const cJSON *list = run->annotations ? wl_entries(run, wl) : NULL;
    if (!list || !draw_entries(d, list, 0))
        return 0;
    rep_doc_need(d, 60);
    rep_doc_text(d, "Agent annotations", 9.5, CHART_BOLD);
    rep_doc_space(d, 3);
    return draw_entries(d, list, 1) > 0;
}

static const cJSON *campaign_entries(const rep_run *run)
{
    static const char *const keys[] = { "campaign", "global", "summary" };
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(run->annotations,
                                                          keys[i]);
        if (v)
            return v;
    }
    return NULL;
}

int rep_sec_has_campaign_annotations(const rep_run *run)
{
    return run->annot_problem[0]
           || (run->annotations && campaign_entries(run));
}

void rep_sec_campaign_annotations(rep_doc *d, const rep_run *run)
{
    rep_doc_new_page(d);
    rep_doc_heading(d, "Campaign annotations", 0);
    if (run->annot_problem[0])
        rep_doc_text(d, run->annot_problem, 9, CHART_REGULAR);
    const cJSON *list = run->annotations ? campaign_entries(run) : NULL;
    if (list && !draw_entries(d, list, 1))
        rep_doc_text(d, "annotations.json has no campaign annotations "
                     "with text.", 9, CHART_REGULAR);
    const cJSON *fails = cJSON_GetObjectItemCaseSensitive(run->annotations,
                                                          "failures");
    if (cJSON_GetArraySize(fails) > 0) {
        char t[200];
        snprintf(t, sizeof t, "%d agent call%s fell back to the rules "
                 "text; the reasons are in annotations.json \"failures\".",
                 cJSON_GetArraySize(fails),
                 cJSON_GetArraySize(fails) == 1 ? "" : "s");
        rep_doc_space(d, 4);
        rep_doc_text(d, t, 9, CHART_REGULAR);
    }
}

/* ---- failures --------------------------------------------------------- */

int rep_sec_has_failures(const rep_run *run)
{
    return run->failed_total > 0;
}

/* Each failed job's config (every knob) and its whole reason, which the
 * table's cells would cut. */
static void failure_details(rep_doc *d, const rep_run *run)
{
    size_t shown = 0;
    rep_doc_space(d, 8);
    rep_doc_heading(d, "Failed jobs: configs and reasons", 1);
    for (size_t i = 0; i < run->nfails && shown < FAIL_ROWS_MAX; i++) {
        const store_record *r = &run->fails[i];
        if (r->status == ST_OK)
            continue;
        char canon[SPACE_CANON_MAX], cfg[SPACE_CANON_MAX + 64], head[256];
        space_config_canon(run->have_camp ? &run->camp.space : NULL, &r->cfg,
                           canon, sizeof canon);
        size_t o = 0;  /* "a=1, b=2": a line may break between knobs */
        for (const char *p = canon; *p && o + 3 < sizeof cfg; p++) {
            cfg[o++] = *p;
            if (*p == ',')
                cfg[o++] = ' ';
        }
        cfg[o] = '\0';
        snprintf(head, sizeof head, "%s, job %.12s (%s)%s", r->workload,
                 r->key, store_status_name(r->status),
                 r->attempts > 1 ? ", latest of several attempts" : "");
        char *reason = rep_sec_clean_text(r->reason, strlen(r->reason));
        char *body = g_strdup_printf("config: %s\nreason: %s", cfg,
                                     reason[0] ? reason : "(none given)");
        rep_doc_need(d, 30);
        rep_doc_text(d, head, 8.5, CHART_BOLD);
        rep_doc_text(d, body, 8, CHART_REGULAR);
        rep_doc_space(d, 4);
        g_free(body);
        g_free(reason);
        shown++;
    }
}

static void failure_table(rep_doc *d, const rep_run *run, size_t total)
{
    rep_table t;
    char cap[128];
    size_t shown = 0;
    snprintf(cap, sizeof cap, "Failed jobs (%zu)", total);
    rep_table_init(&t, cap);
    rep_table_col(&t, "workload", CHART_LEFT);
    rep_table_col(&t, "job key", CHART_LEFT);
    rep_table_col(&t, "class", CHART_LEFT);
    rep_table_col(&t, "reason (in full below)", CHART_LEFT);
    for (size_t i = 0; i < run->nfails && shown < FAIL_ROWS_MAX; i++) {
        const store_record *r = &run->fails[i];
        if (r->status == ST_OK)
            continue;
        char (*row)[REP_CELL] = rep_table_row(&t, 0);
        if (!row)
            break;
        char *reason = rep_sec_clean_text(r->reason, strlen(r->reason));
        util_strlcpy(row[0], r->workload, REP_CELL);
        snprintf(row[1], REP_CELL, "%.12s", r->key);
        util_strlcpy(row[2], store_status_name(r->status), REP_CELL);
        util_strlcpy(row[3], reason, REP_CELL);
        g_free(reason);
        shown++;
    }
    rep_table_draw(d, &t);
    rep_table_free(&t);
    if (shown < total) {
        char more[160];
        snprintf(more, sizeof more, "%zu more failed jobs are listed in "
                 "results.csv.", total - shown);
        rep_doc_space(d, 4);
        rep_doc_text(d, more, 9, CHART_REGULAR);
    }
    failure_details(d, run);
}

/* The last TAIL_LINES lines (at most TAIL_BYTES) of a job's log tail. */
static char *read_tail(const rep_run *run, const char *key, const char **which)
{
    /* the executor's capped logs (the tail is kept): read only their end */
    static const char *const names[] = { "stderr.log", "stdout.log" };
    for (int i = 0; i < 2; i++) {
        char rel[256], dir[4096];
        snprintf(rel, sizeof rel, "jobs/%s", key);
        if (util_path_join(dir, sizeof dir, run->dir, rel) != GD_OK)
            continue;
        char *text = be_read_tail(dir, names[i], TAIL_BYTES);
        size_t len = text ? strlen(text) : 0;
        if (!len) {
            free(text);
            continue;
        }
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
            len--;
        size_t start = len > TAIL_BYTES ? len - TAIL_BYTES : 0;
        int lines = 0;
        for (size_t p = len; p > start; p--)
            if (text[p - 1] == '\n' && ++lines == TAIL_LINES) {
                start = p;
                break;
            }
        char *out = rep_sec_clean_text(text + start, len - start);
        free(text);
        *which = names[i];
        if (out[0])
            return out;
        g_free(out);
    }
    return NULL;
}

static void failure_tails(rep_doc *d, const rep_run *run)
{
    int n = 0;
    for (size_t i = 0; i < run->nfails && n < TAILS_MAX; i++) {
        const store_record *r = &run->fails[i];
        const char *which = NULL;
        if (r->status == ST_OK)
            continue;
        char *tail = read_tail(run, r->key, &which);
        if (!tail)
            continue;
        char head[256];
        if (n++ == 0) {
            rep_doc_space(d, 10);
            rep_doc_heading(d, "Log tails", 1);
        }
        snprintf(head, sizeof head, "%s, job %.12s (%s): jobs/%.12s…/%s",
                 r->workload, r->key, store_status_name(r->status), r->key,
                 which);
        rep_doc_need(d, 40);
        rep_doc_text(d, head, 8.5, CHART_BOLD);
        rep_doc_space(d, 2);
        rep_doc_text(d, tail, 7, CHART_MONO);
        rep_doc_space(d, 6);
        g_free(tail);
    }
}

void rep_sec_failures(rep_doc *d, const rep_run *run)
{
    size_t total = run->failed_total;
    rep_doc_new_page(d);
    rep_doc_heading(d, "Appendix: failed jobs", 0);
    rep_doc_text(d, "Every job whose status is not ok, with its failure "
                 "class and reason; log tails follow where the run kept "
                 "them.", 9, CHART_REGULAR);
    rep_doc_space(d, 8);
    failure_table(d, run, total);
    failure_tails(d, run);
}
