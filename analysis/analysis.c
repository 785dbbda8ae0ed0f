/* analysis: per workload, the Pareto front over the campaign's objectives,
 * computed from the run directory's campaign copy and journal and written to
 * analysis.json. Output depends on the set of records, not their order. */
#include "analysis.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "campaign.h"
#include "pareto.h"
#include "store.h"

static cJSON *config_json(const gpu_config *c)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const char *name = space_knob_get(k)->name;
        if (k == KNOB_SCHEDULER)
            cJSON_AddStringToObject(o, name,
                                    space_sched_name(space_get(c, k)));
        else
            cJSON_AddNumberToObject(o, name, space_get(c, k));
    }
    return o;
}

static cJSON *point_json(const store_record *r)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "key", r->key);
    cJSON_AddItemToObject(p, "config", config_json(&r->cfg));
    cJSON *m = cJSON_AddObjectToObject(p, "metrics");
    for (int i = 0; i < r->metrics.n; i++) {
        if (isfinite(r->metrics.val[i]))
            cJSON_AddNumberToObject(m, r->metrics.name[i], r->metrics.val[i]);
        else
            cJSON_AddNullToObject(m, r->metrics.name[i]);
    }
    return p;
}

/* Objective value to minimise; NaN when missing or not finite. */
static double objective(const store_record *r, const camp_objective *o)
{
    double v;
    if (met_get(&r->metrics, o->metric, &v) != 0 || !isfinite(v))
        return NAN;
    return o->maximize ? -v : v;
}

/* Sort front members best-first on the first objective, then the others,
 * then key: a total order, so the output never depends on journal order. */
static int cmp_front(const store_record *a, const store_record *b,
                     const camp_campaign *c)
{
    for (int j = 0; j < c->nobjectives; j++) {
        double x = objective(a, &c->obj[j]), y = objective(b, &c->obj[j]);
        if (x < y)
            return -1;
        if (x > y)
            return 1;
    }
    return strcmp(a->key, b->key);
}

static void sort_front(const store_record **v, size_t n,
                       const camp_campaign *c)
{
    for (size_t i = 1; i < n; i++) {  /* fronts are short: insertion sort */
        const store_record *t = v[i];
        size_t j = i;
        while (j > 0 && cmp_front(v[j - 1], t, c) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = t;
    }
}

static int same_config(const gpu_config *a, const gpu_config *b)
{
    for (int k = 0; k < SPACE_NKNOBS; k++)
        if (space_get(a, k) != space_get(b, k))
            return 0;
    return 1;
}

static cJSON *workload_json(const camp_campaign *c, const char *name,
                            const store_record *recs, size_t n)
{
    size_t k = (size_t)c->nobjectives, npts = 0, failed = 0;
    const store_record **ok = malloc((n ? n : 1) * sizeof *ok);
    double *pts = malloc((n ? n : 1) * k * sizeof *pts);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!ok || !pts || !idx)
        abort();
    gpu_config base = space_baseline();
    const store_record *baseline = NULL;
    const char *fidelity = "modelled";
    for (size_t i = 0; i < n; i++) {
        if (strcmp(recs[i].workload, name) != 0)
            continue;
        if (recs[i].status != ST_OK) {
            failed++;
            continue;
        }
        fidelity = recs[i].fidelity;
        if (same_config(&recs[i].cfg, &base))
            baseline = &recs[i];
        ok[npts] = &recs[i];
        for (size_t j = 0; j < k; j++)
            pts[npts * k + j] = objective(&recs[i], &c->obj[j]);
        npts++;
    }
    size_t nf = pareto_front(pts, npts, k, idx);
    const store_record **front = malloc((nf ? nf : 1) * sizeof *front);
    if (!front)
        abort();
    for (size_t i = 0; i < nf; i++)
        front[i] = ok[idx[i]];
    sort_front(front, nf, c);

    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "name", name);
    cJSON_AddNumberToObject(w, "points", (double)npts);
    cJSON_AddNumberToObject(w, "failed", (double)failed);
    cJSON_AddStringToObject(w, "fidelity", fidelity);
    cJSON_AddItemToObject(w, "baseline",
                          baseline ? point_json(baseline) : cJSON_CreateNull());
    cJSON *fa = cJSON_AddArrayToObject(w, "front");
    for (size_t i = 0; i < nf; i++)
        cJSON_AddItemToArray(fa, point_json(front[i]));
    free(front);
    free(ok);
    free(pts);
    free(idx);
    return w;
}

static cJSON *analysis_json(const camp_campaign *c, const store_record *recs,
                            size_t n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "campaign", c->name);
    cJSON *objs = cJSON_AddArrayToObject(root, "objectives");
    for (int j = 0; j < c->nobjectives; j++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "metric", c->obj[j].metric);
        cJSON_AddStringToObject(o, "sense",
                                c->obj[j].maximize ? "maximize" : "minimize");
        cJSON_AddItemToArray(objs, o);
    }
    cJSON *ws = cJSON_AddArrayToObject(root, "workloads");
    for (int i = 0; i < c->nworkloads; i++)
        cJSON_AddItemToArray(ws, workload_json(c, c->workloads[i].name, recs,
                                               n));
    return root;
}

int ana_run(const char *rundir, gd_err *err)
{
    char cpath[PATH_MAX], jpath[PATH_MAX], apath[PATH_MAX];
    util_path_join(cpath, sizeof cpath, rundir, "campaign.xml");
    util_path_join(jpath, sizeof jpath, rundir, "results.jsonl");
    util_path_join(apath, sizeof apath, rundir, "analysis.json");
    if (!util_path_exists(cpath))
        return gd_errf(err, GD_EINPUT, "%s: not a gpudse run directory (no "
                       "campaign.xml)", rundir);
    camp_campaign c;
    int rc = camp_load_meta(cpath, &c, err);
    if (rc)
        return rc;
    store_record *recs = NULL;
    size_t n = 0;
    if (util_path_exists(jpath))
        rc = store_load_all(jpath, &recs, &n, err);
    if (!rc) {
        cJSON *root = analysis_json(&c, recs, n);
        char *text = cJSON_Print(root);
        cJSON_Delete(root);
        if (!text)
            rc = gd_errf(err, GD_EENV, "out of memory");
        else {
            size_t len = strlen(text);
            util_buf b;
            util_buf_init(&b);
            util_buf_add(&b, text, len);
            util_buf_add(&b, "\n", 1);
            rc = util_write_file_atomic(apath, b.s, b.len, err);
            util_buf_free(&b);
            cJSON_free(text);
        }
    }
    free(recs);
    camp_free(&c);
    return rc;
}
