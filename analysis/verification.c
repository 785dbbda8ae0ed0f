/* verification: pairs each measured (verify-backend) record with the
 * modelled record of the same workload and config, then reports per
 * objective the absolute percentage error and, over the verified set, which
 * points the measured values keep on the Pareto front; for the loop, the
 * rounds of verify_rounds.json summarised (predicted at pick time beside
 * measured). */
#include "verification.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib_metrics.h"
#include "pareto.h"

typedef struct {
    const store_record *pred, *meas;
    int64_t index;
} pair;

static int same_cfg(const gpu_config *a, const gpu_config *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static double obj_value(const store_record *r, const camp_objective *o)
{
    double v;
    return met_get(&r->metrics, o->metric, &v) == 0 && isfinite(v) ? v : NAN;
}

/* Measured records of the workload that have a modelled twin. */
static size_t collect(const camp_campaign *c, const char *wl,
                      const store_record *recs, size_t n, pair *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const store_record *r = &recs[i];
        if (strcmp(r->workload, wl) || strcmp(r->backend, c->verify_backend))
            continue;
        const store_record *twin = NULL;
        for (size_t j = 0; j < n && !twin; j++)
            if (!strcmp(recs[j].workload, wl)
                && !strcmp(recs[j].backend, c->backend)
                && recs[j].status == ST_OK && same_cfg(&recs[j].cfg, &r->cfg))
                twin = &recs[j];
        if (twin)
            out[m++] = (pair){twin, r, space_index(&c->space, &r->cfg)};
    }
    qsort(out, m, sizeof *out, cmp_pair);
    return m;
}

static cJSON *config_obj(const gpu_config *cfg)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        char v[32];
        const char *name = space_knob_get(k)->name;
        if (k == KNOB_SCHEDULER)
            cJSON_AddStringToObject(o, name,
                                    space_value_str(k, space_get(cfg, k), v,
                                                    sizeof v));
        else
            cJSON_AddNumberToObject(o, name, space_get(cfg, k));
    }
    return o;
}

/* Which verified points stay on the front of the measured values. */
/* 0, or -1 when out of memory. */
static int measured_front(const camp_campaign *c, const pair *p, size_t m,
                          int *on)
{
    size_t k = (size_t)c->nobjectives, nok = 0;
    double *pts = malloc((m ? m : 1) * k * sizeof *pts);
    size_t *map = malloc((m ? m : 1) * sizeof *map);
    size_t *idx = malloc((m ? m : 1) * sizeof *idx);
    if (!pts || !map || !idx) {
        free(pts);
        free(map);
        free(idx);
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        on[i] = 0;
        if (p[i].meas->status != ST_OK)
            continue;
        for (size_t j = 0; j < k; j++) {
            double v = obj_value(p[i].meas, &c->obj[j]);
            pts[nok * k + j] = c->obj[j].maximize ? -v : v;
        }
        map[nok++] = i;
    }
    size_t nf = pareto_front(pts, nok, k, idx);
    for (size_t i = 0; i < nf; i++)
        on[map[idx[i]]] = 1;
    free(pts);
    free(map);
    free(idx);
    return 0;
}

/* Spearman's rho is undefined when either side is all one value (every
 * config tied at the model's maximum, say): JSON null and why, never 0. */
static const char *rho_undefined(const double *pred, const double *meas,
                                 size_t n)
{
    int pc = 1, mc = 1;
    for (size_t i = 1; i < n; i++) {
        pc &= pred[i] == pred[0];
        mc &= meas[i] == meas[0];
    }
    if (pc)
        return "undefined: every predicted value is the same";
    if (mc)
        return "undefined: every measured value is the same";
    return NULL;
}

static void add_rho(cJSON *e, const double *pred, const double *meas,
                    size_t n, double rho)
{
    const char *why = rho_undefined(pred, meas, n);
    if (why) {
        cJSON_AddNullToObject(e, "spearman");
        cJSON_AddStringToObject(e, "spearman_note", why);
    } else if (isfinite(rho)) {
        cJSON_AddNumberToObject(e, "spearman", rho);
    }
}

/* Whether the measured record's metric came from a model (its
 * modelled_metrics, e.g. area_mm2): then there is no error to measure. */
static int rec_modelled(const store_record *r, const char *metric)
{
    char buf[sizeof r->modelled], *save = NULL;
    util_strlcpy(buf, r->modelled, sizeof buf);
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (!strcmp(t, metric))
            return 1;
    return 0;
}

static cJSON *errors_json(const camp_campaign *c, const pair *p, size_t m)
{
    cJSON *errs = cJSON_CreateObject();
    double *pred = malloc((m ? m : 1) * sizeof *pred);
    double *meas = malloc((m ? m : 1) * sizeof *meas);
    if (!errs || !pred || !meas) {
        cJSON_Delete(errs);
        free(pred);
        free(meas);
        return NULL;
    }
    for (int j = 0; j < c->nobjectives; j++) {
        size_t q = 0;
        size_t modelled = 0;
        for (size_t i = 0; i < m; i++) {
            double a = obj_value(p[i].pred, &c->obj[j]);
            double b = obj_value(p[i].meas, &c->obj[j]);
            if (p[i].meas->status == ST_OK
                && rec_modelled(p[i].meas, c->obj[j].metric)) {
                modelled++;
                continue;
            }
            if (p[i].meas->status == ST_OK && isfinite(a) && isfinite(b)) {
                pred[q] = a;
                meas[q++] = b;
            }
        }
        calm_metrics r;
        cJSON *e = cJSON_AddObjectToObject(errs, c->obj[j].metric);
        if (modelled)
            cJSON_AddStringToObject(e, "note", "modelled on both sides (the "
                                    "verify backend's records take it from "
                                    "the model): no error to measure");
        cJSON_AddNumberToObject(e, "n", (double)q);
        /* the measured values are the reference */
        if (q > 0 && calm_compute(meas, pred, q, &r) == 0) {
            cJSON_AddNumberToObject(e, "mape", r.mape);
            cJSON_AddNumberToObject(e, "max_ape", r.max_ape);
            if (q > 2)
                add_rho(e, pred, meas, q, r.spearman_rho);
        }
    }
    free(pred);
    free(meas);
    return errs;
}

cJSON *verification_json(const camp_campaign *c, const char *workload,
                         const store_record *recs, size_t n)
{
    if (!c->verify_backend[0])
        return NULL;
    pair *p = malloc((n ? n : 1) * sizeof *p);
    int *on = malloc((n ? n : 1) * sizeof *on);
    size_t m = p && on ? collect(c, workload, recs, n, p) : 0;
    cJSON *v = p && on && measured_front(c, p, m, on) == 0
                   ? cJSON_CreateObject() : NULL;
    if (!v) {
        free(p);
        free(on);
        return NULL;
    }
    cJSON_AddStringToObject(v, "predicted_by", c->backend);
    cJSON_AddStringToObject(v, "measured_by", c->verify_backend);
    size_t ok = 0, held = 0;
    cJSON *pts = cJSON_AddArrayToObject(v, "points");
    for (size_t i = 0; i < m; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "config", config_obj(&p[i].meas->cfg));
        cJSON_AddStringToObject(o, "status",
                                store_status_name(p[i].meas->status));
        cJSON *pr = cJSON_AddObjectToObject(o, "predicted");
        cJSON *me = cJSON_AddObjectToObject(o, "measured");
        for (int j = 0; j < c->nobjectives; j++) {
            double a = obj_value(p[i].pred, &c->obj[j]);
            double b = obj_value(p[i].meas, &c->obj[j]);
            if (isfinite(a))
                cJSON_AddNumberToObject(pr, c->obj[j].metric, a);
            if (isfinite(b))
                cJSON_AddNumberToObject(me, c->obj[j].metric, b);
        }
        cJSON_AddBoolToObject(o, "on_measured_front", on[i]);
        cJSON_AddItemToArray(pts, o);
        ok += p[i].meas->status == ST_OK;
        held += (size_t)on[i];
    }
    cJSON_AddNumberToObject(v, "verified", (double)m);
    cJSON_AddNumberToObject(v, "verified_ok", (double)ok);
    cJSON_AddNumberToObject(v, "held_up", (double)held);
    cJSON *errs = errors_json(c, p, m);
    free(p);
    free(on);
    if (!errs) {
        cJSON_Delete(v);
        return NULL;
    }
    cJSON_AddItemToObject(v, "errors", errs);
    return v;
}

/* A short label of a config: the knobs that differ from the baseline. */
static void short_label(const cJSON *cfg, char *out, size_t n)
{
    gpu_config base = space_baseline();
    out[0] = '\0';
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const char *name = space_knob_get(k)->name;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, name);
        char val[32], basev[32];
        if (cJSON_IsNumber(v))
            snprintf(val, sizeof val, "%d", v->valueint);
        else if (cJSON_IsString(v))
            util_strlcpy(val, v->valuestring, sizeof val);
        else
            continue;
        space_value_str(k, space_get(&base, k), basev, sizeof basev);
        if (!strcmp(val, basev))
            continue;
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s=%s", len ? " " : "", name, val);
    }
    if (!out[0])
        util_strlcpy(out, "baseline", n);
}

int verification_points(const cJSON *points, double **pred, double **meas,
                        size_t *k)
{
    size_t n = (size_t)cJSON_GetArraySize(points);
    *k = 0;
    *pred = malloc((n ? n : 1) * sizeof **pred);
    *meas = malloc((n ? n : 1) * sizeof **meas);
    if (!*pred || !*meas) {
        free(*pred);
        free(*meas);
        *pred = *meas = NULL;
        return -1;
    }
    const cJSON *q;
    cJSON_ArrayForEach(q, points) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(q, "predicted");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(q, "measured");
        if (cJSON_IsNumber(a) && cJSON_IsNumber(b)
            && isfinite(a->valuedouble) && isfinite(b->valuedouble)) {
            (*pred)[*k] = a->valuedouble;
            (*meas)[(*k)++] = b->valuedouble;
        }
    }
    return 0;
}

/* The modelled-against-measured error of a calibration entry's points
 * (measured values as the reference): n, MAPE, Spearman rho and the points'
 * rank resolution (calm_rank_resolution: the random error below which rho 0.9
 * is reachable on them), for the report's caption. Nothing when fewer than
 * three points or out of memory. */
static void add_error_summary(cJSON *e, const cJSON *points)
{
    double *pred, *meas;
    size_t k;
    if (verification_points(points, &pred, &meas, &k) != 0)
        return;
    calm_metrics r;
    if (k >= 3 && calm_compute(meas, pred, k, &r) == 0) {
        cJSON_AddNumberToObject(e, "n", (double)k);
        cJSON_AddNumberToObject(e, "mape", r.mape);
        add_rho(e, pred, meas, k, r.spearman_rho);
        double res = calm_rank_resolution(meas, k, 0.9,
                                        calm_resolution_draws(k), 1);
        if (res >= 0)
            cJSON_AddNumberToObject(e, "rank_resolution", res);
    }
    free(pred);
    free(meas);
}

void verification_calibration(cJSON *calibration, const camp_campaign *c,
                              const char *workload, const cJSON *ver)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(ver, "points");
    const cJSON *errs = cJSON_GetObjectItemCaseSensitive(ver, "errors");
    for (int j = 0; j < c->nobjectives; j++) {
        const char *m = c->obj[j].metric;
        if (cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(errs, m), "note"))
            continue;  /* modelled on both sides: nothing to compare */
        cJSON *e = cJSON_CreateObject();
        const cJSON *held = cJSON_GetObjectItemCaseSensitive(ver, "held_up");
        const cJSON *ver_n = cJSON_GetObjectItemCaseSensitive(ver, "verified");
        char title[320];
        snprintf(title, sizeof title, "%s: %s predicted (%s, modelled) "
                 "against measured (%s); %d of %d %s", workload, m, c->backend,
                 c->verify_backend, cJSON_IsNumber(held) ? held->valueint : 0,
                 cJSON_IsNumber(ver_n) ? ver_n->valueint : 0,
                 c->nobjectives == 1
                     ? "top predicted configs measured the best"
                     : "predicted-front points held up on the measured front");
        cJSON_AddStringToObject(e, "metric", m);
        cJSON_AddStringToObject(e, "title", title);
        cJSON *arr = cJSON_AddArrayToObject(e, "points");
        const cJSON *p;
        cJSON_ArrayForEach(p, pts) {
            const cJSON *pr = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(p, "predicted"), m);
            const cJSON *me = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(p, "measured"), m);
            if (!cJSON_IsNumber(pr) || !cJSON_IsNumber(me))
                continue;
            char label[256];
            short_label(cJSON_GetObjectItemCaseSensitive(p, "config"), label,
                        sizeof label);
            cJSON *q = cJSON_CreateObject();
            cJSON_AddStringToObject(q, "label", label);
            cJSON_AddNumberToObject(q, "predicted", pr->valuedouble);
            cJSON_AddNumberToObject(q, "measured", me->valuedouble);
            cJSON_AddItemToArray(arr, q);
        }
        add_error_summary(e, arr);
        cJSON_AddItemToArray(calibration, e);
    }
}

/* ------------------------------------------- the loop (<verify rounds=>) */

static const cJSON *jget(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* The first objective's value in a pick's "predicted" or "measured". */
static double first_value(const cJSON *vals, const char *metric)
{
    const cJSON *v = jget(vals, metric);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static cJSON *loop_pick(const cJSON *p, const char *metric, double *ape)
{
    cJSON *o = cJSON_CreateObject();
    double pr = first_value(jget(p, "predicted"), metric);
    double me = first_value(jget(p, "measured"), metric);
    const cJSON *cfg = jget(p, "config"), *why = jget(p, "why");
    cJSON_AddStringToObject(o, "config", cJSON_IsString(cfg)
                                         ? cfg->valuestring : "");
    cJSON_AddStringToObject(o, "why", cJSON_IsString(why)
                                      ? why->valuestring : "");
    cJSON_AddNumberToObject(o, "predicted", pr);
    cJSON_AddItemToObject(o, "ipc_lo", cJSON_Duplicate(jget(p, "ipc_lo"), 1));
    cJSON_AddItemToObject(o, "ipc_hi", cJSON_Duplicate(jget(p, "ipc_hi"), 1));
    if (isfinite(me)) {
        cJSON_AddNumberToObject(o, "measured", me);
        *ape = fabs(pr - me) / fabs(me);
        cJSON_AddNumberToObject(o, "error_pct", 100 * *ape);
    } else {
        const cJSON *st = jget(p, "status");
        cJSON_AddNullToObject(o, "measured");
        cJSON_AddStringToObject(o, "measured_note", cJSON_IsString(st)
                                ? st->valuestring : "not measured");
        *ape = NAN;
    }
    return o;
}

/* One workload's rounds from the journal, summarised: per round its picks
 * with the prediction they were picked on (modelled) beside the measured
 * value, the round's MAPE and the best measured so far. */
static cJSON *loop_summary(const cJSON *wj, const camp_campaign *c)
{
    const char *metric = c->obj[0].metric;
    int maximize = c->obj[0].maximize;
    cJSON *o = cJSON_CreateObject(), *rs = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "metric", metric);
    cJSON_AddStringToObject(o, "predicted_fidelity", "modelled");
    cJSON_AddStringToObject(o, "measured_fidelity", "measured");
    double best = NAN;
    int sims = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, jget(wj, "rounds")) {
        cJSON *e = cJSON_CreateObject(), *ps = cJSON_CreateArray();
        const cJSON *p, *cal = jget(r, "calibration");
        cJSON_AddItemToObject(e, "round", cJSON_Duplicate(jget(r, "round"), 1));
        cJSON_AddItemToObject(e, "calibration_rows",
                              cJSON_Duplicate(jget(cal, "rows"), 1));
        double sum = 0;
        int k = 0;
        cJSON_ArrayForEach(p, jget(r, "picks")) {
            double ape;
            cJSON_AddItemToArray(ps, loop_pick(p, metric, &ape));
            double me = first_value(jget(p, "measured"), metric);
            if (isfinite(me) && (!isfinite(best)
                                 || (maximize ? me > best : me < best)))
                best = me;
            if (isfinite(ape)) {
                sum += ape;
                k++;
            }
            sims++;
        }
        cJSON_AddItemToObject(e, "picks", ps);
        if (k)
            cJSON_AddNumberToObject(e, "mape_pct", 100 * sum / k);
        else
            cJSON_AddNullToObject(e, "mape_pct");
        if (isfinite(best))
            cJSON_AddNumberToObject(e, "best_measured_so_far", best);
        else
            cJSON_AddNullToObject(e, "best_measured_so_far");
        cJSON_AddItemToArray(rs, e);
    }
    cJSON_AddNumberToObject(o, "simulations", sims);
    cJSON_AddItemToObject(o, "stopped", cJSON_Duplicate(jget(wj, "stopped"), 1));
    cJSON_AddItemToObject(o, "best_measured",
                          cJSON_Duplicate(jget(wj, "best_measured"), 1));
    cJSON_AddItemToObject(o, "rounds", rs);
    return o;
}

int verification_loop(cJSON *analysis, const char *rundir,
                      const camp_campaign *c, gd_err *err)
{
    if (c->verify_rounds <= 0)
        return GD_OK;
    char path[4096];
    util_path_join(path, sizeof path, rundir, "verify_rounds.json");
    if (!util_path_exists(path))
        return GD_OK;   /* the loop has not started: no entry */
    char *text = NULL;
    size_t len;
    int rc = util_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j || !cJSON_IsArray(jget(j, "workloads"))) {
        cJSON_Delete(j);
        return gd_errf(err, GD_EINPUT, "%s: not a verification-loop journal "
                       "(damaged?)", path);
    }
    const cJSON *wj;
    cJSON_ArrayForEach(wj, jget(j, "workloads")) {
        const cJSON *nm = jget(wj, "name"), *w;
        cJSON_ArrayForEach(w, jget(analysis, "workloads")) {
            const cJSON *wn = jget(w, "name");
            if (cJSON_IsString(nm) && cJSON_IsString(wn)
                && !strcmp(nm->valuestring, wn->valuestring))
                cJSON_AddItemToObject((cJSON *)w, "verification_loop",
                                      loop_summary(wj, c));
        }
    }
    cJSON_Delete(j);
    return GD_OK;
}
