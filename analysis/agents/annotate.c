/* annotate: the annotate stage — reads a run directory's campaign, journal
 * and analysis.json, has the specialists annotate the baseline and a few
 * front points of every workload and the orchestrator sum up each workload
 * and the campaign, and writes annotations.json. LLM answers come through
 * llm.c (cached); any failure falls back to the rules text and is recorded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "agents.h"
#include "agents_llm.h"
#include "annotate.h"
#include "agents_prompt.h"
#include "store.h"

#define MAX_PICKS 3   /* front points annotated per workload */

typedef struct {
    char key[65];
    char limit[16];
    char bottleneck[24];
    gpu_config cfg;
} rec_fact;

typedef struct {
    char name[64];
    long points, failed;
    int has_baseline;
    agents_point baseline;
    int nfront;
    agents_point *front;
} wl_data;

typedef struct {
    const char *rundir;
    camp_campaign camp;
    rec_fact *facts;
    size_t nfacts;
    wl_data *wl;
    int nwl;
    agents_llm llm;
    int use_llm;
    char *tpl[5];          /* system prompts by agent, then the user message */
    cJSON *failures;
} ctx_t;

/* ---- inputs ---------------------------------------------------------------- */

static int cmp_fact(const void *a, const void *b)
{
    return strcmp(((const rec_fact *)a)->key, ((const rec_fact *)b)->key);
}

/* The key of each baseline and front point of analysis.json: the records
 * whose facts the annotations use (none when it cannot be read:
 * load_analysis says why). */
static int wanted_keys(const ctx_t *x, char (**keys)[65], size_t *n)
{
    char path[4200], *text = NULL;
    size_t len, cap = 0;
    *keys = NULL;
    *n = 0;
    util_path_join(path, sizeof path, x->rundir, "analysis.json");
    if (util_read_file(path, &text, &len, NULL) != GD_OK)
        return 0;
    cJSON *root = cJSON_ParseWithLength(text, len), *w, *p;
    free(text);
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(root,
                                                          "workloads")) {
        cJSON *pts[2] = { cJSON_GetObjectItemCaseSensitive(w, "baseline"),
                          cJSON_GetObjectItemCaseSensitive(w, "front") };
        for (int k = 0; k < 2; k++)
            for (p = cJSON_IsArray(pts[k]) ? pts[k]->child : pts[k]; p;
                 p = k ? p->next : NULL) {
                const cJSON *key = cJSON_GetObjectItemCaseSensitive(p,
                                                                   "key");
                if (!cJSON_IsString(key) || strlen(key->valuestring) != 64)
                    continue;
                if (util_grow(keys, &cap, *n, sizeof **keys, 64)) {
                    cJSON_Delete(root);
                    return -1;
                }
                memcpy((*keys)[(*n)++], key->valuestring, 65);
            }
    }
    cJSON_Delete(root);
    return 0;
}

/* The facts of the records analysis.json names, read back by key
 * (store_load_keys: results.index, not the whole journal). */
static int load_facts(ctx_t *x, gd_err *err)
{
    char (*keys)[65];
    size_t nkeys;
    store_record *recs = NULL;
    size_t m = 0;
    if (wanted_keys(x, &keys, &nkeys) != 0)
        return gd_errf(err, GD_EENV, "%s: out of memory", x->rundir);
    int rc = store_load_keys(x->rundir, &x->camp.space,
                             (const char (*)[65])keys, nkeys,
                             &recs, &m, err);
    free(keys);
    x->facts = rc ? NULL : calloc(m ? m : 1, sizeof *x->facts);
    if (!rc && !x->facts)
        rc = gd_errf(err, GD_EENV, "%s: out of memory", x->rundir);
    for (size_t i = 0; !rc && i < m; i++) {
        rec_fact *f = &x->facts[i];
        util_strlcpy(f->key, recs[i].key, sizeof f->key);
        util_strlcpy(f->limit, recs[i].limit, sizeof f->limit);
        util_strlcpy(f->bottleneck, recs[i].bottleneck, sizeof f->bottleneck);
        f->cfg = recs[i].cfg;
    }
    free(recs);
    if (rc)
        return rc;
    x->nfacts = m;
    qsort(x->facts, m, sizeof *x->facts, cmp_fact);  /* keys are unique */
    return GD_OK;
}

static const rec_fact *find_fact(const ctx_t *x, const char *key)
{
    rec_fact k;
    util_strlcpy(k.key, key, sizeof k.key);
    return bsearch(&k, x->facts, x->nfacts, sizeof k, cmp_fact);
}

static int json_config(const cJSON *o, gpu_config *c)
{
    *c = space_baseline();
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(
            o, space_knob_get(k)->name);
        char buf[64];
        int val;
        if (cJSON_IsNumber(v))
            snprintf(buf, sizeof buf, "%d", v->valueint);
        else if (cJSON_IsString(v))
            util_strlcpy(buf, v->valuestring, sizeof buf);
        else
            return -1;
        if (space_value_parse(k, buf, &val) != 0)
            return -1;
        space_set(c, k, val);
    }
    return 0;
}

static int json_point(const ctx_t *x, const cJSON *o, const char *file,
                      const char *what, agents_point *p, gd_err *err)
{
    memset(p, 0, sizeof *p);
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(o, "key");
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "config");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics"), *it;
    if (!cJSON_IsString(key) || !cJSON_IsObject(m)
        || json_config(cfg, &p->cfg) != 0)
        return gd_errf(err, GD_EINPUT, "%s: a %s point lacks key, config or "
                       "metrics; rerun `gpudse analyze`", file, what);
    util_strlcpy(p->key, key->valuestring, sizeof p->key);
    cJSON_ArrayForEach(it, m)
        if (cJSON_IsNumber(it) && it->string)
            met_put(&p->m, it->string, it->valuedouble);
    const rec_fact *f = find_fact(x, p->key);
    if (f) {
        util_strlcpy(p->limit, f->limit, sizeof p->limit);
        util_strlcpy(p->bottleneck, f->bottleneck, sizeof p->bottleneck);
    }
    return GD_OK;
}

static int load_workload(ctx_t *x, const cJSON *w, const char *file,
                         wl_data *d, gd_err *err)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(w, "name");
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(w, "baseline");
    const cJSON *front = cJSON_GetObjectItemCaseSensitive(w, "front"), *it;
    if (!cJSON_IsString(name))
        return gd_errf(err, GD_EINPUT, "%s: a workload has no name", file);
    util_strlcpy(d->name, name->valuestring, sizeof d->name);
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(w, "points");
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(w, "failed");
    d->points = cJSON_IsNumber(pts) ? (long)pts->valuedouble : 0;
    d->failed = cJSON_IsNumber(fl) ? (long)fl->valuedouble : 0;
    if (cJSON_IsObject(base)) {
        int rc = json_point(x, base, file, "baseline", &d->baseline, err);
        if (rc)
            return rc;
        d->has_baseline = 1;
    }
    int n = cJSON_IsArray(front) ? cJSON_GetArraySize(front) : 0;
    d->front = calloc(n ? (size_t)n : 1, sizeof *d->front);
    if (!d->front)
        return gd_errf(err, GD_EENV, "%s: out of memory", file);
    const cJSON *list = n ? front : NULL;
    cJSON_ArrayForEach(it, list) {
        int rc = json_point(x, it, file, "front", &d->front[d->nfront], err);
        if (rc)
            return rc;
        d->nfront++;
    }
    return GD_OK;
}

static int load_analysis(ctx_t *x, gd_err *err)
{
    char path[4200], *data = NULL;
    size_t len;
    util_path_join(path, sizeof path, x->rundir, "analysis.json");
    int rc = util_read_file(path, &data, &len, err);
    if (rc)
        return rc;
    cJSON *root = cJSON_Parse(data);
    free(data);
    const cJSON *wls = cJSON_GetObjectItemCaseSensitive(root, "workloads"), *w;
    if (!cJSON_IsArray(wls)) {
        cJSON_Delete(root);
        return gd_errf(err, GD_EINPUT, "%s: not an analysis file (no "
                       "workloads array); rerun `gpudse analyze %s`", path,
                       x->rundir);
    }
    x->wl = calloc((size_t)cJSON_GetArraySize(wls) + 1, sizeof *x->wl);
    rc = x->wl ? GD_OK : gd_errf(err, GD_EENV, "%s: out of memory", path);
    const cJSON *list = rc ? NULL : wls;
    cJSON_ArrayForEach(w, list) {
        rc = load_workload(x, w, path, &x->wl[x->nwl], err);
        x->nwl++;
        if (rc)
            break;
    }
    cJSON_Delete(root);
    return rc;
}

/* ---- one note: rules, or the LLM with rules as fall-back ------------------- */

static void record_failure(ctx_t *x, const char *workload, int agent,
                           const char *scope, const char *reason)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "workload", workload ? workload : "");
    cJSON_AddStringToObject(f, "agent", agents_agent_name(agent));
    cJSON_AddStringToObject(f, "scope", scope);
    char *red = agents_llm_redact(&x->llm, reason);
    cJSON_AddStringToObject(f, "reason", red);
    free(red);
    cJSON_AddItemToArray(x->failures, f);
}

static void add_note(ctx_t *x, cJSON *arr, int agent, const char *workload,
                     const char *scope, const gpu_config *cfg,
                     const char *facts, const agents_note *rules,
                     agents_note *final)
{
    agents_note n = *rules;
    const char *source = "rules";
    if (x->use_llm) {
        gd_err e = {0, ""};
        agents_note ln;
        int rc = agents_llm_note(&x->llm, x->tpl, agent, workload, scope,
                                 facts, rules, &ln, &e);
        if (rc == GD_OK) {
            n = ln;
            source = "llm";
        } else {
            record_failure(x, workload, agent, scope, e.msg);
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "agent", agents_agent_name(agent));
    cJSON_AddStringToObject(o, "scope", scope);
    if (cfg) {
        char canon[SPACE_CANON_MAX];
        space_config_canon(&x->camp.space, cfg, canon, sizeof canon);
        cJSON_AddStringToObject(o, "config", canon);
    }
    cJSON_AddStringToObject(o, "text", n.text);
    cJSON_AddStringToObject(o, "status", agents_status_name(n.status));
    cJSON_AddStringToObject(o, "source", source);
    cJSON_AddItemToArray(arr, o);
    if (final)
        *final = n;
}

/* ---- per workload ------------------------------------------------------------ */

static void specialists(ctx_t *x, cJSON *arr, const wl_data *d,
                        const agents_point *p, const char *kind)
{
    char scope[96];
    snprintf(scope, sizeof scope, "%s:%s", kind, p->key);
    util_buf f;
    util_buf_init(&f);
    agents_point_facts(&f, "point", p);
    if (d->has_baseline)
        agents_point_facts(&f, "baseline", &d->baseline);
    agents_note r;
    agents_rules_memory(p, &r);
    add_note(x, arr, AGENTS_MEMORY, d->name, scope, &p->cfg, f.s, &r, NULL);
    agents_rules_warp(p, &r);
    add_note(x, arr, AGENTS_WARP, d->name, scope, &p->cfg, f.s, &r, NULL);
    agents_rules_bottleneck(p, d->has_baseline && p != &d->baseline
                            ? &d->baseline : NULL, &r);
    add_note(x, arr, AGENTS_BOTTLENECK, d->name, scope, &p->cfg, f.s, &r,
             NULL);
    util_buf_free(&f);
}

/* Best front point on objective j. */
static int best_on(const wl_data *d, const camp_objective *o)
{
    int best = -1;
    double bv = 0;
    for (int i = 0; i < d->nfront; i++) {
        double v = 0;
        met_get(&d->front[i].m, o->metric, &v);
        if (best < 0 || (o->maximize ? v > bv : v < bv)) {
            best = i;
            bv = v;
        }
    }
    return best;
}

static double gain_of(double a, double b, int maximize)
{
    if (maximize)
        return b > 0 ? a / b : 0;
    return a > 0 ? b / a : 0;
}

static void annotate_workload(ctx_t *x, const wl_data *d, cJSON *arr,
                              agents_wl_summary *sum)
{
    const camp_campaign *c = &x->camp;
    int picks[MAX_PICKS], np = 0;
    int cand[MAX_PICKS] = {
        agents_pick_knee(d->front, d->nfront, c->obj, c->nobjectives),
        c->nobjectives > 0 ? best_on(d, &c->obj[0]) : -1,
        c->nobjectives > 1 ? best_on(d, &c->obj[c->nobjectives - 1]) : -1};
    for (int i = 0; i < MAX_PICKS; i++) {
        int dup = cand[i] < 0
                  || (d->has_baseline
                      && strcmp(d->front[cand[i]].key, d->baseline.key) == 0);
        for (int j = 0; j < np && !dup; j++)
            dup = picks[j] == cand[i];
        if (!dup)
            picks[np++] = cand[i];
    }
    if (d->has_baseline)
        specialists(x, arr, d, &d->baseline, "baseline");
    for (int i = 0; i < np; i++)
        specialists(x, arr, d, &d->front[picks[i]], "front");

    agents_workload_view v = {d->name, d->points, d->failed, c->nobjectives,
                              c->obj, d->nfront, {0}, {0},
                              d->has_baseline ? &d->baseline : NULL,
                              cand[0] >= 0 ? &d->front[cand[0]] : NULL};
    for (int j = 0; j < c->nobjectives; j++)
        for (int i = 0; i < d->nfront; i++) {
            double val = 0;
            met_get(&d->front[i].m, c->obj[j].metric, &val);
            v.front_lo[j] = i ? fmin(v.front_lo[j], val) : val;
            v.front_hi[j] = i ? fmax(v.front_hi[j], val) : val;
        }
    util_buf f;
    util_buf_init(&f);
    util_buf_printf(&f, "points %ld, failed %ld, front size %d\n", d->points,
                    d->failed, d->nfront);
    for (int j = 0; j < c->nobjectives; j++)
        util_buf_printf(&f, "objective %s %s: front from %.6g to %.6g\n",
                        c->obj[j].maximize ? "maximize" : "minimize",
                        c->obj[j].metric, v.front_lo[j], v.front_hi[j]);
    if (v.pick)
        agents_point_facts(&f, "recommended", v.pick);
    if (v.baseline)
        agents_point_facts(&f, "baseline", v.baseline);
    agents_note r, fin;
    agents_rules_orch_workload(&v, &r);
    add_note(x, arr, AGENTS_ORCHESTRATOR, d->name, "workload", NULL,
             f.s ? f.s : "", &r, &fin);
    util_buf_free(&f);

    memset(sum, 0, sizeof *sum);
    util_strlcpy(sum->workload, d->name, sizeof sum->workload);
    sum->points = d->points;
    sum->failed = d->failed;
    sum->status = fin.status;
    double pv = 0, bv = 0;
    if (v.pick && v.baseline && c->nobjectives > 0
        && met_get(&v.pick->m, c->obj[0].metric, &pv) == 0
        && met_get(&v.baseline->m, c->obj[0].metric, &bv) == 0) {
        sum->has_gain = 1;
        sum->gain = gain_of(pv, bv, c->obj[0].maximize);
    }
    if (v.pick)
        util_strlcpy(sum->bottleneck, v.pick->bottleneck,
                     sizeof sum->bottleneck);
}

/* ---- the stage ------------------------------------------------------------------ */

static int build(ctx_t *x, cJSON *root, gd_err *err)
{
    cJSON *wls = cJSON_AddObjectToObject(root, "workloads");
    agents_wl_summary *sums = calloc((size_t)x->nwl + 1, sizeof *sums);
    if (!sums)
        return gd_errf(err, GD_EENV, "out of memory");
    for (int i = 0; i < x->nwl; i++) {
        cJSON *arr = cJSON_CreateArray();
        cJSON_AddItemToObject(wls, x->wl[i].name, arr);
        annotate_workload(x, &x->wl[i], arr, &sums[i]);
    }
    util_buf f;
    util_buf_init(&f);
    for (int i = 0; i < x->nwl; i++)
        util_buf_printf(&f, "workload %s: points %ld, failed %ld, status %s, "
                        "gain %.4g on the first objective, bound %s\n",
                        sums[i].workload, sums[i].points, sums[i].failed,
                        agents_status_name(sums[i].status),
                        sums[i].has_gain ? sums[i].gain : 0,
                        sums[i].bottleneck[0] ? sums[i].bottleneck
                                              : "unknown");
    agents_note r;
    const char *label = x->camp.nobjectives > 0
                        ? met_label(x->camp.obj[0].metric) : "";
    agents_rules_orch_campaign(label, sums, x->nwl, &r);
    cJSON *camp = cJSON_AddArrayToObject(root, "campaign");
    add_note(x, camp, AGENTS_ORCHESTRATOR, NULL, "campaign", NULL,
             f.s ? f.s : "", &r, NULL);
    util_buf_free(&f);
    free(sums);
    return GD_OK;
}

static void free_ctx(ctx_t *x)
{
    for (int i = 0; i < x->nwl; i++)
        free(x->wl[i].front);
    free(x->wl);
    free(x->facts);
    for (int i = 0; i < 5; i++)
        free(x->tpl[i]);
    camp_free(&x->camp);
}

static int write_out(ctx_t *x, cJSON *root, gd_err *err)
{
    char path[4200];
    util_path_join(path, sizeof path, x->rundir, "annotations.json");
    char *s = cJSON_Print(root);
    if (!s)
        return gd_errf(err, GD_EENV, "%s: out of memory", path);
    char *red = x->use_llm ? agents_llm_redact(&x->llm, s) : strdup(s);
    free(s);
    util_buf b = {red, strlen(red), strlen(red) + 1};
    util_buf_add(&b, "\n", 1);
    int rc = util_write_file_atomic(path, b.s, b.len, err);
    util_buf_free(&b);
    return rc;
}

static int run(ctx_t *x, gd_err *err)
{
    char path[4200];
    util_path_join(path, sizeof path, x->rundir, "campaign.xml");
    int rc = camp_load_meta(path, &x->camp, err);
    if (!rc)
        rc = load_facts(x, err);
    if (!rc)
        rc = load_analysis(x, err);
    if (rc)
        return rc;
    x->use_llm = strcmp(x->camp.agents.provider, "rules") != 0;
    if (x->use_llm) {
        rc = agents_prompts_read(x->tpl, err);
        if (rc)
            return rc;
        char cache[4200];
        util_path_join(cache, sizeof cache, x->rundir, "agents-cache");
        agents_llm_init(&x->llm, &x->camp.agents, cache);
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "provider", x->camp.agents.provider);
    if (x->use_llm)
        cJSON_AddStringToObject(root, "model", x->camp.agents.model);
    x->failures = cJSON_CreateArray();
    rc = build(x, root, err);
    if (x->use_llm)
        cJSON_AddItemToObject(root, "failures", x->failures);
    else
        cJSON_Delete(x->failures);
    if (!rc)
        rc = write_out(x, root, err);
    if (!rc && x->use_llm && cJSON_GetArraySize(x->failures) > 0)
        fprintf(stderr, "gpudse: agents: %d annotation(s) fell back to rules "
                "(reasons in annotations.json \"failures\")\n",
                cJSON_GetArraySize(x->failures));
    cJSON_Delete(root);
    return rc;
}

int agents_annotate(const char *rundir, gd_err *err)
{
    ctx_t x;
    memset(&x, 0, sizeof x);
    x.rundir = rundir;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = run(&x, err);
    curl_global_cleanup();
    free_ctx(&x);
    return rc;
}
