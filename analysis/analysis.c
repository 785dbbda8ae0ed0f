/* analysis: per workload, the Pareto front over the campaign's objectives,
 * its hypervolume (and ratio, ADRS, IGD against the exhaustive front when
 * known) and the knobs' sensitivity, computed from the run directory's
 * campaign copy, manifest and journal and written to analysis.json; with
 * <aggregate> objectives also the aggregates across workloads
 * (aggregate.h: analysis.json "aggregates" and aggregates.csv). Output
 * depends on the set of records, not their order. The journal is read one
 * workload at a time: memory holds one workload's records. */
#include "analysis.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "aggregate.h"
#include "campaign.h"
#include "front.h"
#include "model.h"
#include "pareto.h"
#include "verification.h"
#include "quality.h"
#include "sensitivity.h"
#include "study.h"
#include "store.h"
#include "workfork.h"

/* What the manifest says about where the results came from; empty strings
 * when there is no manifest. */
typedef struct {
    char backend[32], backend_version[64];
    cJSON *workloads;          /* the manifest's array (owned by root) */
    cJSON *root;
} manifest_info;

/* The config's knobs by name: numbers, the scheduler's and categorical
 * user knobs' levels as strings (user knobs after the built-in ones). */
static cJSON *config_json(const space_def *sp, const gpu_config *c)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < space_nknobs(sp); k++) {
        const char *name = space_knob_name(sp, k);
        char t[SPACE_TEXTLEN];
        space_level_str(sp, k, space_get(c, k), t, sizeof t);
        if (space_knob_numeric(sp, k) && strcmp(t, "?"))
            cJSON_AddNumberToObject(o, name, atof(t));
        else
            cJSON_AddStringToObject(o, name, t);
    }
    return o;
}

static cJSON *point_json(const space_def *sp, const store_record *r)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "key", r->key);
    cJSON_AddItemToObject(p, "config", config_json(sp, &r->cfg));
    cJSON *m = cJSON_AddObjectToObject(p, "metrics");
    for (int i = 0; i < r->metrics.n; i++) {
        if (isfinite(r->metrics.val[i]))
            cJSON_AddNumberToObject(m, r->metrics.name[i], r->metrics.val[i]);
        else
            cJSON_AddNullToObject(m, r->metrics.name[i]);
    }
    return p;
}


/* Sort front members best-first on the first objective, then the others,
 * then key: a total order, so the output never depends on journal order. */
static int cmp_front(const store_record *a, const store_record *b,
                     const camp_campaign *c)
{
    for (int j = 0; j < c->nobjectives; j++) {
        double x = ana_objective(a, &c->obj[j]), y = ana_objective(b, &c->obj[j]);
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
    for (int k = 0; k < SPACE_MAXKNOBS; k++)
        if (space_get(a, k) != space_get(b, k))
            return 0;
    return 1;
}

static void read_manifest(const char *rundir, manifest_info *mi)
{
    char path[PATH_MAX], *text = NULL;
    size_t len;
    gd_err ignore;
    memset(mi, 0, sizeof *mi);
    util_path_join(path, sizeof path, rundir, "manifest.json");
    if (!util_path_exists(path)
        || util_read_file(path, &text, &len, &ignore) != GD_OK)
        return;
    mi->root = cJSON_Parse(text);
    free(text);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(mi->root, "backend");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(mi->root,
                                                      "backend_version");
    if (cJSON_IsString(b))
        util_strlcpy(mi->backend, b->valuestring, sizeof mi->backend);
    if (cJSON_IsString(v))
        util_strlcpy(mi->backend_version, v->valuestring,
                     sizeof mi->backend_version);
    mi->workloads = cJSON_GetObjectItemCaseSensitive(mi->root, "workloads");
}

/* The built-in descriptor of name when it is the one the run used (same
 * sha256 as in the manifest) and the run used this very embedded model. */
static int model_workload(const manifest_info *mi, const char *name,
                          wl_workload *w)
{
    if (strcmp(mi->backend, "analytic") != 0
        || strcmp(mi->backend_version, model_version()) != 0)
        return 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, mi->workloads) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(it, "sha256");
        if (!cJSON_IsString(n) || !cJSON_IsString(h)
            || strcmp(n->valuestring, name) != 0)
            continue;
        gd_err ignore = {0, ""};
        return wl_load_builtin(name, w, &ignore) == GD_OK
               && strcmp(w->sha256, h->valuestring) == 0;
    }
    return 0;
}

/* What is known of a workload beyond its journal: the embedded model's
 * descriptor (when the run used the model) and the exhaustive front. */
typedef struct {
    wl_workload *model;        /* NULL unless the run used the model */
    double *ref;               /* reference front rows, or NULL */
    size_t nref;
    const char *source;
} known_t;

/* The exhaustive front of a workload on the embedded model over the
 * campaign's space (its feasible configs): minimised objective rows (malloc'd, caller frees) of
 * its non-dominated points. */
static int model_front(const camp_campaign *c, const wl_workload *w,
                       double **front, size_t *nf, gd_err *err)
{
    size_t k = (size_t)c->nobjectives, n = (size_t)space_size(&c->space);
    double *rows = malloc((n ? n : 1) * k * sizeof *rows);
    if (!rows)
        return gd_errf(err, GD_EENV, "out of memory");
    for (size_t i = 0; i < n; i++) {
        gpu_config cfg = space_at(&c->space, i);
        model_out mo;
        met_set m;
        gd_err why = {0, ""};
        int ok = model_eval(w, &cfg, &mo, &why) == 0;
        if (ok) {
            memset(&m, 0, sizeof m);
            model_to_metrics(&mo, &m);
            drv_apply(c->derived, c->nderived, &m);
            ok = camp_feasible(c, &m, NULL);  /* the feasible front */
        }
        for (size_t j = 0; j < k; j++) {
            double v = NAN;
            if (ok && met_get(&m, c->obj[j].metric, &v) != 0)
                v = NAN;
            rows[i * k + j] = c->obj[j].maximize ? -v : v;
        }
    }
    int rc = qual_front_rows(rows, n, k, front, nf, err);
    free(rows);
    return rc;
}

/* The exhaustive front when it is known: the journal holds the whole
 * space, or the run used the embedded model, whose front over the space is
 * computed here (milliseconds). */
static int find_reference(const camp_campaign *c, const char *name,
                          const manifest_info *mi, const double *pts,
                          size_t npts, size_t evaluated, known_t *kn,
                          gd_err *err)
{
    size_t k = (size_t)c->nobjectives;
    memset(kn, 0, sizeof *kn);
    kn->model = malloc(sizeof *kn->model);
    if (!kn->model)
        return gd_errf(err, GD_EENV, "out of memory");
    if (!model_workload(mi, name, kn->model)) {
        free(kn->model);
        kn->model = NULL;
    }
    if (evaluated >= space_size(&c->space)) {
        kn->source = "journal: the whole space was evaluated";
        return qual_front_rows(pts, npts, k, &kn->ref, &kn->nref, err);
    }
    if (kn->model) {
        kn->source = "embedded model over the whole space (modelled)";
        return model_front(c, kn->model, &kn->ref, &kn->nref, err);
    }
    return GD_OK;
}

/* Hypervolume, and the comparison with the exhaustive front when known. */
static int add_quality(cJSON *w, const camp_campaign *c, const double *pts,
                       size_t npts, const known_t *kn, gd_err *err)
{
    int rc = qual_add_json(w, c, pts, npts, kn->ref, kn->nref, err);
    cJSON *r = cJSON_GetObjectItemCaseSensitive(w, "reference");
    if (!rc && r)
        cJSON_AddStringToObject(r, "source", kn->source);
    return rc;
}

/* The study's oracle: the journal's record of a config, else the embedded
 * model's result when the run used the model. */
typedef struct {
    const camp_campaign *c;
    const store_record **by_index;   /* space index -> record or NULL */
    const wl_workload *model;
} oracle_t;

static int oracle(void *arg, const gpu_config *cfg, store_record *r)
{
    const oracle_t *o = arg;
    int64_t i = space_index(&o->c->space, cfg);
    if (i < 0)
        return -1;
    if (o->by_index[i]) {
        *r = *o->by_index[i];
        return 0;
    }
    if (!o->model)
        return -1;
    model_out mo;
    gd_err why = {0, ""};
    r->cfg = *cfg;
    if (model_eval(o->model, cfg, &mo, &why) != 0) {
        r->status = ST_INVALID_CONFIG;
        return 0;
    }
    r->status = ST_OK;
    model_to_metrics(&mo, &r->metrics);
    drv_apply(o->c->derived, o->c->nderived, &r->metrics);
    util_strlcpy(r->limit, model_limit_name(mo.limit), sizeof r->limit);
    util_strlcpy(r->bottleneck, model_bottleneck_name(mo.bottleneck),
                 sizeof r->bottleneck);
    return 0;
}

/* The campaign's strategy study, replayed for this workload. */
static int add_study(cJSON *w, const camp_campaign *c, const char *name,
                     const store_record *recs, size_t n, const known_t *kn,
                     gd_err *err)
{
    uint64_t size = space_size(&c->space);
    oracle_t o = {c, calloc(size ? size : 1, sizeof *o.by_index), kn->model};
    if (!o.by_index)
        return gd_errf(err, GD_EENV, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int64_t at = space_index(&c->space, &recs[i].cfg);
        if (at >= 0 && strcmp(recs[i].workload, name) == 0)
            o.by_index[at] = &recs[i];
    }
    cJSON *s = NULL;
    int rc = study_json(c, oracle, &o, kn->ref, kn->nref, &s, err);
    if (!rc)
        cJSON_AddItemToObject(w, "study", s);
    free(o.by_index);
    return rc;
}

static cJSON *sensitivity_metric_json(const space_def *sp,
                                      const sens_result *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "points", (double)s->n);
    if (s->fitted)
        cJSON_AddNumberToObject(o, "r2", s->r2);
    else
        cJSON_AddNullToObject(o, "r2");
    if (s->fitted && isfinite(s->cv_rmse))
        cJSON_AddNumberToObject(o, "cv_rmse", s->cv_rmse);
    else
        cJSON_AddNullToObject(o, "cv_rmse");
    cJSON *ks = cJSON_AddArrayToObject(o, "knobs");
    for (int i = 0; i < s->nmain; i++) {
        const sens_main *m = &s->main[i];
        cJSON *kj = cJSON_CreateObject();
        cJSON_AddStringToObject(kj, "knob", space_knob_name(sp, m->knob));
        cJSON_AddNumberToObject(kj, "effect", m->effect);
        cJSON *lv = cJSON_AddArrayToObject(kj, "levels");
        for (int l = 0; l < m->nlevels; l++) {
            char buf[SPACE_TEXTLEN];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "value", space_level_str(
                sp, m->knob, m->value[l], buf, sizeof buf));
            if (isfinite(m->mean[l]))
                cJSON_AddNumberToObject(e, "mean", m->mean[l]);
            else
                cJSON_AddNullToObject(e, "mean");   /* level never seen */
            cJSON_AddItemToArray(lv, e);
        }
        cJSON_AddItemToArray(ks, kj);
    }
    cJSON *is = cJSON_AddArrayToObject(o, "interactions");
    for (int i = 0; i < s->npairs; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON *names = cJSON_AddArrayToObject(e, "knobs");
        cJSON_AddItemToArray(names, cJSON_CreateString(
            space_knob_name(sp, s->pair[i].a)));
        cJSON_AddItemToArray(names, cJSON_CreateString(
            space_knob_name(sp, s->pair[i].b)));
        cJSON_AddNumberToObject(e, "strength", s->pair[i].strength);
        cJSON_AddItemToArray(is, e);
    }
    return o;
}

/* Main effects and interactions of the knobs on every objective, over the
 * ok points (5-fold cross-validation). */
static int add_sensitivity(cJSON *w, const camp_campaign *c,
                           const store_record **ok, size_t n, gd_err *err)
{
    gpu_config *cfg = malloc((n ? n : 1) * sizeof *cfg);
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!cfg || !y) {
        free(cfg);
        free(y);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    cJSON *sj = cJSON_AddObjectToObject(w, "sensitivity");
    int rc = GD_OK;
    for (int j = 0; !rc && j < c->nobjectives; j++) {
        for (size_t i = 0; i < n; i++) {
            cfg[i] = ok[i]->cfg;
            if (met_get(&ok[i]->metrics, c->obj[j].metric, &y[i]) != 0)
                y[i] = NAN;
        }
        sens_result s;
        rc = sens_fit(cfg, y, n, &c->space, 5, &s, err);
        if (!rc)
            cJSON_AddItemToObject(sj, c->obj[j].metric,
                                  sensitivity_metric_json(&c->space, &s));
    }
    free(cfg);
    free(y);
    return rc;
}

/* "derived_absent": per derived metric, how many ok records lack it and
 * why (an input absent, or a value not finite: a division by zero). */
static void add_derived_absent(cJSON *w, const camp_campaign *c,
                               const store_record **ok, size_t n)
{
    cJSON *o = cJSON_AddObjectToObject(w, "derived_absent");
    for (int d = 0; o && d < c->nderived; d++) {
        size_t why[3] = {0, 0, 0};
        for (size_t i = 0; i < n; i++)
            why[drv_why_absent(&c->derived[d], &ok[i]->metrics)]++;
        cJSON *e = cJSON_AddObjectToObject(o, c->derived[d].name);
        cJSON_AddNumberToObject(e, "no_input", (double)why[DRV_NO_INPUT]);
        cJSON_AddNumberToObject(e, "not_finite", (double)why[DRV_NOT_FINITE]);
    }
}

static cJSON *workload_json(const camp_campaign *c, const char *name,
                            const manifest_info *mi, const store_record *recs,
                            size_t n, gd_err *err)
{
    size_t failed = 0;
    ana_front f;
    if (ana_front_of(c, name, recs, n, &f, err))
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (recs[i].status != ST_OK && strcmp(recs[i].workload, name) == 0
            && strcmp(recs[i].backend, c->backend) == 0)
            failed++;
    gpu_config base = space_baseline();
    const store_record *baseline = NULL;
    const char *fidelity = "modelled";
    for (size_t i = 0; i < f.nok; i++) {
        fidelity = f.ok[i]->fidelity;
        if (same_config(&f.ok[i]->cfg, &base))
            baseline = f.ok[i];
    }
    const store_record **ok = f.ok;
    double *pts = f.pts;
    size_t npts = f.nok, nf = f.nfront;
    const store_record **front = malloc((nf ? nf : 1) * sizeof *front);
    if (!front) {
        ana_front_free(&f);
        gd_errf(err, GD_EENV, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < nf; i++)
        front[i] = ok[f.idx[i]];
    sort_front(front, nf, c);

    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "name", name);
    cJSON_AddNumberToObject(w, "points", (double)npts);
    cJSON_AddNumberToObject(w, "failed", (double)failed);
    if (c->ncons) {   /* absent without <constraint>: files stay as they were */
        cJSON_AddNumberToObject(w, "feasible", (double)(npts - f.ninfeasible));
        cJSON_AddNumberToObject(w, "infeasible", (double)f.ninfeasible);
    }
    if (c->nderived)
        add_derived_absent(w, c, ok, npts);
    cJSON_AddStringToObject(w, "fidelity", fidelity);
    cJSON_AddItemToObject(w, "baseline",
                          baseline ? point_json(&c->space, baseline)
                                   : cJSON_CreateNull());
    cJSON *fa = cJSON_AddArrayToObject(w, "front");
    for (size_t i = 0; i < nf; i++)
        cJSON_AddItemToArray(fa, point_json(&c->space, front[i]));
    known_t kn;
    int rc = find_reference(c, name, mi, pts, npts, npts + failed, &kn, err);
    if (!rc)
        rc = add_quality(w, c, pts, npts, &kn, err);
    if (!rc)
        rc = add_sensitivity(w, c, ok, npts, err);
    if (!rc && c->nstudy > 0)
        rc = add_study(w, c, name, recs, n, &kn, err);
    cJSON *ver = rc ? NULL : verification_json(c, name, recs, n);
    if (ver)
        cJSON_AddItemToObject(w, "verification", ver);
    else if (!rc && c->verify_backend[0])
        rc = gd_errf(err, GD_EENV, "out of memory");
    free(kn.model);
    free(kn.ref);
    free(front);
    ana_front_free(&f);
    if (rc) {
        cJSON_Delete(w);
        return NULL;
    }
    return w;
}

/* The journal, read one workload at a time (store_index_workloads). */
typedef struct {
    const char *path;
    store_wl_lines *wl;
    int nwl;
    const space_def *space;   /* the campaign's, for its user knobs */
    rcache *cache;            /* records kept for the report; NULL: none */
} journal_t;

/* The records of workload name, canonically sorted (none when the journal
 * has none or there is no journal); the caller frees them when *owned
 * (else they are the cache's). */
static int load_workload(const journal_t *j, const char *name,
                         store_record **recs, size_t *n, int *owned,
                         gd_err *err)
{
    *recs = NULL;
    *n = 0;
    *owned = 1;
    for (int i = 0; i < j->nwl; i++)
        if (strcmp(j->wl[i].name, name) == 0)
            return rcache_load(j->cache, j->path, j->space, &j->wl[i], recs,
                               n, owned, err);
    return GD_OK;
}

/* Arm the cache when it can hold the whole journal (else nothing is kept:
 * no process holds more than it would without one), and then parse every
 * workload here before the odd half is forked (fill): the child reads the
 * parsed records, and the report that follows parses nothing. */
static void plan_cache(const camp_campaign *c, const journal_t *j, int fill)
{
    size_t total = 0;
    for (int i = 0; i < j->nwl; i++)
        total += j->wl[i].n;
    if (!rcache_plan(j->cache, j->path, total) || !fill)
        return;
    for (int i = 0; i < c->nworkloads; i++) {
        store_record *recs;
        size_t n;
        int owned;
        gd_err ignore = { 0 };   /* one_workload reads it again and says */
        if (load_workload(j, c->workloads[i].name, &recs, &n, &owned,
                          &ignore) == GD_OK && owned)
            free(recs);
    }
}

/* One workload's object (its records loaded, folded into the
 * aggregates' accumulators when agg is not NULL, then freed unless the
 * record cache keeps them for the report). */
static cJSON *one_workload(const camp_campaign *c, const manifest_info *mi,
                           const journal_t *j, int i, agg_state *agg,
                           gd_err *err)
{
    store_record *recs;
    size_t n;
    int owned;
    cJSON *w = NULL;
    if (load_workload(j, c->workloads[i].name, &recs, &n, &owned, err)
        == GD_OK)
        w = workload_json(c, c->workloads[i].name, mi, recs, n, err);
    if (w && agg
        && agg_add_workload(agg, c->workloads[i].name, recs, n, err)) {
        cJSON_Delete(w);
        w = NULL;
    }
    if (owned)
        free(recs);
    return w;
}

/* The workloads at odd places, analysed by a forked child (workfork.h)
 * while this process does the even ones: each object goes back as its
 * length and JSON text into a temporary file read after the child ends.
 * Text read back prints as it was printed (cJSON prints a number in 15
 * digits only when they read back to it, else 17), so analysis.json is
 * byte for byte what one process writes. */
typedef struct {
    const camp_campaign *c;
    const manifest_info *mi;
    const journal_t *j;
    FILE *out;
} half_t;

static int odd_half(void *arg, gd_err *err)
{
    half_t *h = arg;
    for (int i = 1; i < h->c->nworkloads; i += 2) {
        cJSON *w = one_workload(h->c, h->mi, h->j, i, NULL, err);
        if (!w)
            return err->code ? err->code : GD_EENV;
        char *t = cJSON_PrintUnformatted(w);
        cJSON_Delete(w);
        int bad = !t || fprintf(h->out, "%zu\n%s", strlen(t), t) < 0;
        cJSON_free(t);
        if (bad)
            return gd_errf(err, GD_EENV, "analysis: cannot hand a workload "
                           "back from its worker process: %s",
                           strerror(errno));
    }
    return fflush(h->out) == 0 ? GD_OK
           : gd_errf(err, GD_EENV, "analysis: cannot hand a workload back "
                     "from its worker process: %s", strerror(errno));
}

/* The odd half's objects read back into w[]. */
static int read_half(FILE *f, const camp_campaign *c, cJSON **w,
                     gd_err *err)
{
    rewind(f);
    for (int i = 1; i < c->nworkloads; i += 2) {
        size_t len;
        char *t = NULL;
        if (fscanf(f, "%zu", &len) == 1 && fgetc(f) == '\n'
            && (t = malloc(len + 1)) && fread(t, 1, len, f) == len)
            w[i] = cJSON_ParseWithLength(t, len);
        free(t);
        if (!w[i])
            return gd_errf(err, GD_EENV, "analysis: a workload's result "
                           "from its worker process is unreadable");
    }
    return GD_OK;
}

/* Every workload's object into w[] in campaign order, two processes at
 * once where that is sure to change nothing (no verification: its loop
 * edits the objects after; no aggregates: their accumulators fold every
 * workload in campaign order in this process). */
static int all_workloads(const camp_campaign *c, const manifest_info *mi,
                         const journal_t *j, agg_state *agg, cJSON **w,
                         gd_err *err)
{
    int two = c->nworkloads > 1 && !c->verify_backend[0]
              && c->verify_rounds <= 0 && !agg;
    half_t h = { c, mi, j, two ? tmpfile() : NULL };
    wf_child ch;
    plan_cache(c, j, h.out != NULL);
    if (h.out)
        wf_start(&ch, odd_half, &h);
    int rc = GD_OK;
    for (int i = 0; !rc && i < c->nworkloads; i += h.out ? 2 : 1)
        if (!(w[i] = one_workload(c, mi, j, i, agg, err)))
            rc = err->code ? err->code : GD_EENV;
    if (h.out) {
        gd_err cerr = { 0 };
        int crc = wf_wait(&ch, &cerr);
        if (!crc && !rc)
            crc = read_half(h.out, c, w, &cerr);
        if (crc && !rc) {
            rc = crc;
            if (err)
                *err = cerr;
        }
        fclose(h.out);
    }
    return rc;
}

/* agg_finish's second pass: one workload's records again, the caller's
 * to free (read again, not lent from the cache). */
static int load_again(void *arg, const char *name, store_record **recs,
                      size_t *n, gd_err *err)
{
    journal_t j = *(const journal_t *)arg;
    int owned;
    j.cache = NULL;
    return load_workload(&j, name, recs, n, &owned, err);
}

static cJSON *analysis_json(const camp_campaign *c, const manifest_info *mi,
                            const journal_t *j, agg_state *agg, gd_err *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "campaign", c->name);
    cJSON *objs = cJSON_AddArrayToObject(root, "objectives");
    for (int k = 0; k < c->nobjectives; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "metric", c->obj[k].metric);
        cJSON_AddStringToObject(o, "sense",
                                c->obj[k].maximize ? "maximize" : "minimize");
        cJSON_AddItemToArray(objs, o);
    }
    cJSON *ws = cJSON_AddArrayToObject(root, "workloads");
    /* one workload's records in memory at a time (per process): a
     * workload's analysis reads only its own records */
    cJSON **w = calloc((size_t)c->nworkloads + 1, sizeof *w);
    int rc = w ? all_workloads(c, mi, j, agg, w, err)
               : gd_errf(err, GD_EENV, "out of memory");
    for (int i = 0; w && i < c->nworkloads; i++)
        if (rc)
            cJSON_Delete(w[i]);
        else
            cJSON_AddItemToArray(ws, w[i]);
    free(w);
    if (rc) {
        cJSON_Delete(root);
        return NULL;
    }
    cJSON *aj = NULL;
    if (agg && agg_finish(agg, load_again, (void *)j, &aj, err)) {
        cJSON_Delete(root);
        return NULL;
    }
    if (aj)
        cJSON_AddItemToObject(root, "aggregates", aj);
    if (c->verify_backend[0]) {
        /* the report's predicted-against-measured pages */
        cJSON *cal = cJSON_AddArrayToObject(root, "calibration");
        const cJSON *w;
        cJSON_ArrayForEach(w, ws) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(w, "verification");
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(w, "name");
            if (v && cJSON_IsString(nm))
                verification_calibration(cal, c, nm->valuestring, v);
        }
    }
    return root;
}

static int write_aggregates_csv(const char *rundir, const agg_state *agg,
                                gd_err *err)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, rundir, "aggregates.csv");
    return agg_write_csv(agg, path, err);
}

int ana_run(const char *rundir, gd_err *err)
{
    return ana_run_cached(rundir, NULL, err);
}

int ana_run_cached(const char *rundir, rcache *cache, gd_err *err)
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
    journal_t j = {jpath, NULL, 0, &c.space, cache};
    if (util_path_exists(jpath))
        rc = store_index_workloads(jpath, &j.wl, &j.nwl, err);
    manifest_info mi;
    read_manifest(rundir, &mi);
    agg_state *agg = NULL;
    if (!rc)
        rc = agg_begin(&c, &agg, err);
    if (!rc) {
        cJSON *root = analysis_json(&c, &mi, &j, agg, err);
        rc = root ? verification_loop(root, rundir, &c, err)
                  : err->code ? err->code : GD_EENV;
        if (!rc && agg)   /* before analysis.json, which names it */
            rc = write_aggregates_csv(rundir, agg, err);
        if (!rc)
            rc = util_write_json_atomic(apath, root, err);
        cJSON_Delete(root);
    }
    agg_free(agg);
    cJSON_Delete(mi.root);
    store_wl_lines_free(j.wl, j.nwl);
    camp_free(&c);
    return rc;
}
