/* rundata: loads the report's inputs from a run directory (campaign.xml,
 * manifest.json, results.jsonl, analysis.json) and checks analysis.json's
 * shape, naming the file in every error. The journal is indexed by
 * workload and read one workload at a time: once at load for the run-wide
 * facts, then again per workload as the report selects it (a journal whose
 * records fit REP_CACHE_BYTES is parsed once and kept). */
#include "rundata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int rep_run_path(const rep_run *run, const char *name, char *out,
                 size_t outsz, gd_err *err)
{
    if (util_path_join(out, outsz, run->dir, name) != GD_OK)
        return gd_errf(err, GD_EENV, "%s/%s: path too long", run->dir, name);
    return GD_OK;
}

static int load_json(const rep_run *run, const char *name, cJSON **out,
                     gd_err *err)
{
    char path[4096], *text = NULL;
    size_t len = 0;
    int rc = rep_run_path(run, name, path, sizeof path, err);
    if (rc)
        return rc;
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: not found (the report needs the "
                       "files of a finished run directory)", path);
    rc = util_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    *out = cJSON_ParseWithLength(text, len);
    free(text);
    if (!*out || !cJSON_IsObject(*out)) {
        cJSON_Delete(*out);
        *out = NULL;
        return gd_errf(err, GD_EINPUT, "%s: not a JSON object", path);
    }
    return GD_OK;
}

static void value_text(const cJSON *v, char *out)
{
    out[0] = '\0';
    if (cJSON_IsString(v))
        util_strlcpy(out, v->valuestring, REP_VALLEN);
    else if (cJSON_IsNumber(v))
        snprintf(out, REP_VALLEN, "%.15g", v->valuedouble);
}

/* Knob values as text, in space.h order, then the other members (the user
 * knobs, in the campaign's order); missing knobs stay "". */
static void parse_config(const cJSON *cfg, rep_point *p)
{
    for (int k = 0; k < SPACE_NKNOBS; k++)
        value_text(cJSON_GetObjectItemCaseSensitive(
                       cfg, space_knob_get(k)->name), p->knob[k]);
    int u = SPACE_NKNOBS;
    const cJSON *m;
    cJSON_ArrayForEach(m, cfg)
        if (m->string && space_knob_find(m->string) < 0 && u < SPACE_MAXKNOBS)
            value_text(m, p->knob[u++]);
}

/* Metric values; JSON null (how NaN is written) becomes NaN. */
static void parse_metrics(const cJSON *m, met_set *out)
{
    const cJSON *it;
    out->n = 0;
    cJSON_ArrayForEach(it, m) {
        if (!it->string)
            continue;
        if (cJSON_IsNumber(it))
            met_put(out, it->string, it->valuedouble);
        else if (cJSON_IsNull(it))
            met_put(out, it->string, NAN);
    }
}

static void parse_point(const cJSON *o, rep_point *p)
{
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(o, "key");
    memset(p, 0, sizeof *p);
    if (cJSON_IsString(key))
        util_strlcpy(p->key, key->valuestring, sizeof p->key);
    parse_config(cJSON_GetObjectItemCaseSensitive(o, "config"), p);
    parse_metrics(cJSON_GetObjectItemCaseSensitive(o, "metrics"),
                  &p->metrics);
}

static long get_long(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

static int parse_workload(const cJSON *o, rep_wl *w, const char *path,
                          int i, gd_err *err)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    const cJSON *fid = cJSON_GetObjectItemCaseSensitive(o, "fidelity");
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(o, "baseline");
    const cJSON *front = cJSON_GetObjectItemCaseSensitive(o, "front");
    if (!cJSON_IsString(name))
        return gd_errf(err, GD_EINPUT, "%s: workloads[%d] has no \"name\"",
                       path, i);
    if (front && !cJSON_IsArray(front))
        return gd_errf(err, GD_EINPUT, "%s: workloads[%d].front is not an "
                       "array", path, i);
    util_strlcpy(w->name, name->valuestring, sizeof w->name);
    w->json = o;
    util_strlcpy(w->fidelity, cJSON_IsString(fid) ? fid->valuestring : "",
                 sizeof w->fidelity);
    w->points = get_long(o, "points");
    w->failed = get_long(o, "failed");
    w->has_baseline = cJSON_IsObject(base);
    if (w->has_baseline)
        parse_point(base, &w->baseline);
    int n = cJSON_GetArraySize(front);
    w->front = calloc(n > 0 ? (size_t)n : 1, sizeof *w->front);
    if (!w->front)
        return gd_errf(err, GD_EENV, "%s: out of memory", path);
    const cJSON *it;
    cJSON_ArrayForEach(it, front)
        parse_point(it, &w->front[w->nfront++]);
    return GD_OK;
}

static int parse_objectives(rep_run *run, const cJSON *objs,
                            const char *path, gd_err *err)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, objs) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "metric");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(it, "sense");
        if (!cJSON_IsString(m) || run->nobj >= CAMP_MAXOBJ)
            return gd_errf(err, GD_EINPUT, "%s: malformed \"objectives\"",
                           path);
        camp_objective *o = &run->obj[run->nobj++];
        util_strlcpy(o->metric, m->valuestring, sizeof o->metric);
        o->maximize = cJSON_IsString(s)
                      && strcmp(s->valuestring, "maximize") == 0;
    }
    return GD_OK;
}

static int load_analysis(rep_run *run, gd_err *err)
{
    cJSON *a = NULL;
    char path[4096];
    int rc = rep_run_path(run, "analysis.json", path, sizeof path, err);
    if (!rc)
        rc = load_json(run, "analysis.json", &a, err);
    if (rc)
        return rc;
    const cJSON *objs = cJSON_GetObjectItemCaseSensitive(a, "objectives");
    const cJSON *wls = cJSON_GetObjectItemCaseSensitive(a, "workloads");
    if (!cJSON_IsArray(objs) || !cJSON_IsArray(wls))
        rc = gd_errf(err, GD_EINPUT, "%s: needs \"objectives\" and "
                     "\"workloads\" arrays", path);
    if (!rc)
        rc = parse_objectives(run, objs, path, err);
    if (!rc && run->nobj == 0)
        rc = gd_errf(err, GD_EINPUT, "%s: no objectives", path);
    int n = cJSON_GetArraySize(wls);
    if (!rc && !(run->wl = calloc(n > 0 ? (size_t)n : 1, sizeof *run->wl)))
        rc = gd_errf(err, GD_EENV, "%s: out of memory", path);
    const cJSON *it;
    if (!rc)
        cJSON_ArrayForEach(it, wls) {
            rc = parse_workload(it, &run->wl[run->nwl], path, run->nwl, err);
            run->nwl++;
            if (rc)
                break;
        }
    run->analysis = a;
    return rc;
}

static int load_campaign(rep_run *run, gd_err *err)
{
    char path[4096];
    int rc = rep_run_path(run, "campaign.xml", path, sizeof path, err);
    if (rc)
        return rc;
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: not found (the report needs the "
                       "files of a finished run directory)", path);
    rc = camp_load_meta(path, &run->camp, err);
    if (rc)
        return rc;
    run->have_camp = 1;
    return GD_OK;
}

/* Frees the selection unless it points into the cache. */
static void drop_selection(rep_run *run)
{
    if (!run->cache && !run->recs_borrowed)
        free(run->recs);
    run->recs_borrowed = 0;
    run->recs = NULL;
    run->nrecs = 0;
    run->recs_wl[0] = '\0';
}

static void drop_cache(rep_run *run)
{
    for (int i = 0; run->cache && i < run->njwl; i++)
        free(run->cache[i]);
    free(run->cache);
    free(run->ncache);
    run->cache = NULL;
    run->ncache = NULL;
}

static int load_results(rep_run *run, gd_err *err)
{
    int rc = rep_run_path(run, "results.jsonl", run->journal,
                          sizeof run->journal, err);
    if (rc)
        return rc;
    if (!util_path_exists(run->journal))
        return gd_errf(err, GD_EINPUT, "%s: not found (the report needs the "
                       "files of a finished run directory)", run->journal);
    rc = store_index_workloads(run->journal, &run->jwl, &run->njwl, err);
    size_t lines = 0;
    for (int i = 0; !rc && i < run->njwl; i++)
        lines += run->jwl[i].n;
    if (!rc && run->njwl
        && lines <= REP_CACHE_BYTES / sizeof(store_record)) {
        run->cache = calloc((size_t)run->njwl, sizeof *run->cache);
        run->ncache = calloc((size_t)run->njwl, sizeof *run->ncache);
        if (!run->cache || !run->ncache)   /* fine: read as it goes */
            drop_cache(run);
    }
    return rc;
}

/* Journal workloads in the records' canonical order (by name). */
static int order_workloads(rep_run *run, gd_err *err)
{
    run->jorder = malloc((size_t)(run->njwl + 1) * sizeof *run->jorder);
    if (!run->jorder)
        return gd_errf(err, GD_EENV, "%s: out of memory", run->journal);
    for (int i = 0; i < run->njwl; i++) {
        int j = i;
        for (; j > 0 && strcmp(run->jwl[run->jorder[j - 1]].name,
                               run->jwl[i].name) > 0; j--)
            run->jorder[j] = run->jorder[j - 1];
        run->jorder[j] = i;
    }
    return GD_OK;
}

int rep_run_select(rep_run *run, const char *name, gd_err *err)
{
    if (run->recs && strcmp(run->recs_wl, name) == 0)
        return GD_OK;
    drop_selection(run);
    for (int i = 0; i < run->njwl; i++)
        if (strcmp(run->jwl[i].name, name) == 0) {
            if (run->cache && run->cache[i]) {
                run->recs = run->cache[i];
                run->nrecs = run->ncache[i];
                break;
            }
            int owned;
            int rc = rcache_load(run->shared, run->journal,
                                 rep_run_space(run), &run->jwl[i], &run->recs,
                                 &run->nrecs, &owned, err);
            if (rc)
                return rc;
            if (!owned) {   /* the lender's: never in run->cache */
                run->recs_borrowed = 1;
                break;
            }
            if (run->cache) {
                run->cache[i] = run->recs;
                run->ncache[i] = run->nrecs;
            }
            break;
        }
    util_strlcpy(run->recs_wl, name, sizeof run->recs_wl);
    return GD_OK;
}

const space_def *rep_run_space(const rep_run *run)
{
    return run->have_camp ? &run->camp.space : NULL;
}

int rep_run_each(rep_run *run, int (*fn)(rep_run *run, void *arg),
                 void *arg, gd_err *err)
{
    for (int i = 0; i < run->njwl; i++) {
        int rc = rep_run_select(run, run->jwl[run->jorder[i]].name, err);
        if (!rc)
            rc = fn(run, arg);
        if (rc)
            return rc;
    }
    return GD_OK;
}

/* The metric name into the sorted list of the run's metrics. */
static int add_metric(rep_run *run, const char *name, size_t *cap)
{
    size_t lo = 0, hi = run->nmetric;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(run->metric[mid], name);
        if (!c)
            return 0;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (util_grow(&run->metric, cap, run->nmetric, sizeof *run->metric, 64))
        return -1;
    memmove(run->metric[lo + 1], run->metric[lo],
            (run->nmetric - lo) * sizeof *run->metric);
    util_strlcpy(run->metric[lo], name, MET_NAMELEN);
    run->nmetric++;
    return 0;
}

/* The names of a measured record's modelled metrics, each once, in order
 * of first appearance: names holds " a, b,". */
static void add_modelled(rep_run *run, const store_record *r)
{
    char buf[64], *save = NULL, *names = run->modelled_names;
    size_t size = sizeof run->modelled_names;
    if (r->status != ST_OK || !r->modelled[0]
        || strcmp(r->fidelity, "measured") != 0)
        return;
    util_strlcpy(buf, r->modelled, sizeof buf);
    for (char *t = strtok_r(buf, " ", &save); t;
         t = strtok_r(NULL, " ", &save)) {
        char pad[80];
        snprintf(pad, sizeof pad, " %s,", t);
        if (!strstr(names, pad) && strlen(names) + strlen(pad) < size)
            strcat(names, pad);
    }
}

/* Whether a failed job left a non-empty log (jobs/KEY/std{err,out}.log),
 * the files the report's log tails come from. */
static int has_log(const rep_run *run, const char *key)
{
    static const char *const names[] = { "stderr.log", "stdout.log" };
    for (int i = 0; i < 2; i++) {
        char rel[256], path[4096];
        struct stat st;
        snprintf(rel, sizeof rel, "jobs/%s/%s", key, names[i]);
        if (util_path_join(path, sizeof path, run->dir, rel) == GD_OK
            && stat(path, &st) == 0 && st.st_size > 0)
            return 1;
    }
    return 0;
}

typedef struct {
    size_t metric_cap, fails_cap, logged;
} gather_t;

static int keep_failure(rep_run *run, gather_t *g, const store_record *r)
{
    int logged = run->nfails >= REP_FAILS_KEPT && has_log(run, r->key);
    if (run->nfails >= REP_FAILS_KEPT && !(logged
                                          && g->logged < REP_FAILS_LOGGED))
        return 0;
    if (util_grow(&run->fails, &g->fails_cap, run->nfails, sizeof *run->fails,
                  16))
        return -1;
    run->fails[run->nfails++] = *r;
    g->logged += logged;
    return 0;
}

/* The run-wide facts of one workload's records (rep_run_each). */
static int gather(rep_run *run, void *arg)
{
    gather_t *g = arg;
    for (size_t i = 0; i < run->nrecs; i++) {
        const store_record *r = &run->recs[i];
        for (int j = 0; j < r->metrics.n; j++)
            if (add_metric(run, r->metrics.name[j], &g->metric_cap))
                return -1;
        if (r->status == ST_OK) {
            int meas = strcmp(r->fidelity, "measured") == 0;
            *(meas ? &run->ok_measured : &run->ok_modelled) += 1;
            for (int w = 0; w < run->nwl; w++)
                if (strcmp(run->wl[w].name, r->workload) == 0)
                    *(meas ? &run->wl[w].ok_measured
                           : &run->wl[w].ok_modelled) += 1;
            add_modelled(run, r);
            continue;
        }
        if (r->status >= 0 && r->status < ST__COUNT)
            run->failed_by_status[r->status]++;
        run->failed_total++;
        if (keep_failure(run, g, r))
            return -1;
    }
    return 0;
}

static int gather_facts(rep_run *run, gd_err *err)
{
    gather_t g = { 0 };
    int rc = order_workloads(run, err);
    if (!rc)
        rc = rep_run_each(run, gather, &g, err);
    if (rc < 0)
        rc = gd_errf(err, GD_EENV, "%s: out of memory", run->journal);
    return rc;
}

/* Optional DIR/annotations.json (written by the annotator): absent is
 * fine, unreadable is noted for the report rather than fatal. */
static void load_annotations(rep_run *run)
{
    char path[4096], *text = NULL;
    size_t len = 0;
    gd_err err = { 0 };
    if (util_path_join(path, sizeof path, run->dir, "annotations.json")
        != GD_OK || !util_path_exists(path))
        return;
    if (util_read_file(path, &text, &len, &err) != 0) {
        snprintf(run->annot_problem, sizeof run->annot_problem,
                 "annotations.json could not be read: %s", err.msg);
        return;
    }
    run->annotations = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(run->annotations)) {
        cJSON_Delete(run->annotations);
        run->annotations = NULL;
        snprintf(run->annot_problem, sizeof run->annot_problem,
                 "annotations.json is not a JSON object; its annotations "
                 "are not shown.");
    }
}

int rep_run_load(const char *dir, rep_run *run, gd_err *err)
{
    return rep_run_load_cached(dir, NULL, run, err);
}

int rep_run_load_cached(const char *dir, rcache *shared, rep_run *run,
                        gd_err *err)
{
    memset(run, 0, sizeof *run);
    run->shared = shared;
    util_strlcpy(run->dir, dir, sizeof run->dir);
    if (!util_is_dir(dir))
        return gd_errf(err, GD_EINPUT, "%s: not a run directory", dir);
    int rc = load_campaign(run, err);
    if (!rc)
        rc = load_json(run, "manifest.json", &run->manifest, err);
    if (!rc)
        rc = load_results(run, err);
    if (!rc)
        rc = load_analysis(run, err);
    if (!rc)
        rc = gather_facts(run, err);
    if (!rc)
        load_annotations(run);
    if (rc)
        rep_run_free(run);
    return rc;
}

void rep_run_free(rep_run *run)
{
    if (run->have_camp)
        camp_free(&run->camp);
    run->have_camp = 0;
    cJSON_Delete(run->manifest);
    run->manifest = NULL;
    drop_selection(run);
    drop_cache(run);
    store_wl_lines_free(run->jwl, run->njwl);
    run->jwl = NULL;
    run->njwl = 0;
    free(run->jorder);
    run->jorder = NULL;
    free(run->metric);
    run->metric = NULL;
    run->nmetric = 0;
    free(run->fails);
    run->fails = NULL;
    run->nfails = 0;
    for (int i = 0; i < run->nwl; i++)
        free(run->wl[i].front);
    free(run->wl);
    run->wl = NULL;
    run->nwl = 0;
    cJSON_Delete(run->analysis);
    run->analysis = NULL;
    cJSON_Delete(run->annotations);
    run->annotations = NULL;
}

const cJSON *rep_wl_sensitivity(const rep_run *run, int wl,
                                const char *metric)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(run->wl[wl].json,
                                                      "sensitivity");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(s, metric);
    return cJSON_IsObject(m) ? m : NULL;
}

int rep_wl_find(const rep_run *run, const char *name)
{
    for (int i = 0; i < run->nwl; i++)
        if (strcmp(run->wl[i].name, name) == 0)
            return i;
    return -1;
}

const camp_campaign *rep_run_camp(const rep_run *run)
{
    return run->have_camp ? &run->camp : NULL;
}

const char *rep_wl_fidelity(const rep_run *run, int wl)
{
    size_t mod = run->wl[wl].ok_modelled, meas = run->wl[wl].ok_measured;
    if (mod && meas)
        return "mixed";
    if (meas)
        return "measured";
    if (mod)
        return "modelled";
    return run->wl[wl].fidelity[0] ? run->wl[wl].fidelity : "modelled";
}
