/* rundata: loads the report's inputs from a run directory (campaign.xml,
 * manifest.json, results.jsonl, analysis.json) and checks analysis.json's
 * shape, naming the file in every error. */
#include "rundata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Knob values as text, in space.h order; missing knobs stay "". */
static void parse_config(const cJSON *cfg, rep_point *p)
{
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(
            cfg, space_knob_get(k)->name);
        p->knob[k][0] = '\0';
        if (cJSON_IsString(v))
            util_strlcpy(p->knob[k], v->valuestring, REP_VALLEN);
        else if (cJSON_IsNumber(v))
            snprintf(p->knob[k], REP_VALLEN, "%.15g", v->valuedouble);
    }
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

static int load_results(rep_run *run, gd_err *err)
{
    char path[4096];
    int rc = rep_run_path(run, "results.jsonl", path, sizeof path, err);
    if (rc)
        return rc;
    if (!util_path_exists(path))
        return gd_errf(err, GD_EINPUT, "%s: not found (the report needs the "
                       "files of a finished run directory)", path);
    rc = store_load_all(path, &run->recs, &run->nrecs, err);
    if (!rc)
        store_sort_canonical(run->recs, run->nrecs);
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
    memset(run, 0, sizeof *run);
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
    free(run->recs);
    run->recs = NULL;
    run->nrecs = 0;
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

const char *rep_wl_fidelity(const rep_run *run, int wl)
{
    int mod = 0, meas = 0;
    for (size_t i = 0; i < run->nrecs; i++) {
        const store_record *r = &run->recs[i];
        if (r->status != ST_OK || strcmp(r->workload, run->wl[wl].name))
            continue;
        if (strcmp(r->fidelity, "measured") == 0)
            meas++;
        else
            mod++;
    }
    if (mod && meas)
        return "mixed";
    if (meas)
        return "measured";
    if (mod)
        return "modelled";
    return run->wl[wl].fidelity[0] ? run->wl[wl].fidelity : "modelled";
}
