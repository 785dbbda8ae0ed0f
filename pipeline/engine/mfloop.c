/* mfloop: the multi-fidelity loop — per round and workload, re-calibrate
 * on what was measured, re-predict the candidates, pick the next configs by
 * expected improvement (or front extension), journal the round. The
 * journal (a cJSON tree rewritten atomically) is the loop's state: a
 * resumed run reads it back and goes on from its last round. */
#include "mfloop.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_cdf.h>

#include "calibrate.h"
#include "model.h"
#include "pareto.h"
#include "verify.h"

typedef struct {
    gpu_config cfg;
    int64_t index;
    int ok;                        /* the model can run it */
    double pred[CAMP_MAXOBJ];      /* objective values, as predicted */
    double ipc, sigma, lo, hi;     /* IPC, its log-space sd and interval */
    int tried;                     /* picked in an earlier round */
    double score;                  /* this round's ranking, higher first */
} mf_cand;

typedef struct {
    mf_cand *cand;
    size_t ncand;
    cJSON *j;                      /* its object in the journal */
} mf_wl;

struct mf_loop {
    const camp_campaign *c;
    char path[PATH_MAX];
    cJSON *root;
    mf_wl *wl;
    int round;                     /* the last round planned */
    int pending;                   /* its jobs ran: complete it next */
    int replay;                    /* planned by an earlier session */
};

/* ----------------------------------------------------------- arithmetic */

double mf_expected_improvement(double mu, double sigma, double best,
                               int maximize)
{
    if (!(mu > 0) || !(best > 0))
        return NAN;
    if (!(sigma > 0))
        return maximize ? fmax(mu - best, 0) : fmax(best - mu, 0);
    double d = (log(mu) - log(best)) / sigma, m = mu * exp(sigma * sigma / 2);
    if (maximize)
        return m * gsl_cdf_ugaussian_P(d + sigma)
               - best * gsl_cdf_ugaussian_P(d);
    return best * gsl_cdf_ugaussian_P(-d) - m * gsl_cdf_ugaussian_P(-d - sigma);
}

/* Whether the model's IPC interval applies to metric (the metrics that
 * scale with 1/IPC share its log-space error); others are taken as
 * predicted. */
static int uncertain(const char *metric)
{
    return !strcmp(metric, "ipc") || !strcmp(metric, "cycles")
           || !strcmp(metric, "time_s");
}

/* ----------------------------------------------------------- candidates */

static int cmp_cand_index(const void *a, const void *b)
{
    const mf_cand *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* Sorted by index, duplicates dropped; returns the new count. */
static size_t dedupe(mf_cand *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_cand_index);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1].index != v[i].index)
            v[m++] = v[i];
    return m;
}

static int load_candidates(mf_loop *m, int w, const cal_row *rows,
                           size_t nrows, const store_record *recs, size_t n,
                           gd_err *err)
{
    const camp_campaign *c = m->c;
    const char *name = c->workloads[w].name;
    size_t cap = (rows ? nrows : n) + 1;
    mf_cand *v = calloc(cap, sizeof *v);
    if (!v)
        return gd_errf(err, GD_EENV, "out of memory");
    size_t k = 0;
    for (size_t i = 0; rows && i < nrows; i++)
        if (!rows[i].kernel[0] || !strcmp(rows[i].kernel, name))
            v[k++].cfg = rows[i].c;
    for (size_t i = 0; !rows && i < n; i++)
        if (!strcmp(recs[i].workload, name)
            && !strcmp(recs[i].backend, c->backend)
            && recs[i].status == ST_OK)
            v[k++].cfg = recs[i].cfg;
    size_t kept = 0;
    for (size_t i = 0; i < k; i++) {   /* (camp_load checked configs=) */
        v[i].index = space_index(&c->space, &v[i].cfg);
        if (v[i].index >= 0)
            v[kept++] = v[i];
    }
    k = kept;
    m->wl[w].cand = v;
    m->wl[w].ncand = dedupe(v, k);
    return GD_OK;
}

/* ----------------------------------------------------------- journal */

static cJSON *config_json(const gpu_config *cfg)
{
    char buf[SPACE_CANON_MAX];
    /* no user knobs: the analytic screen takes none (be_check_campaign) */
    space_config_canon(NULL, cfg, buf, sizeof buf);
    return cJSON_CreateString(buf);
}

static cJSON *new_journal(const camp_campaign *c, const mf_wl *wl)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "format", "gpudse-verify-rounds-1");
    cJSON_AddStringToObject(r, "verify_backend", c->verify_backend);
    cJSON_AddNumberToObject(r, "rounds", c->verify_rounds);
    cJSON_AddNumberToObject(r, "per_round", c->verify_per_round);
    cJSON_AddNumberToObject(r, "min_improvement", c->verify_min_improvement);
    cJSON *o = cJSON_AddArrayToObject(r, "objectives");
    for (int i = 0; i < c->nobjectives; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "metric", c->obj[i].metric);
        cJSON_AddBoolToObject(e, "maximize", c->obj[i].maximize);
        cJSON_AddItemToArray(o, e);
    }
    cJSON *ws = cJSON_AddArrayToObject(r, "workloads");
    for (int w = 0; w < c->nworkloads; w++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", c->workloads[w].name);
        cJSON_AddNumberToObject(e, "candidates", (double)wl[w].ncand);
        cJSON_AddNullToObject(e, "stopped");
        cJSON_AddNullToObject(e, "best_measured");
        cJSON_AddArrayToObject(e, "rounds");
        cJSON_AddItemToArray(ws, e);
    }
    return r;
}

static int save(const mf_loop *m, gd_err *err)
{
    return util_write_json_atomic(m->path, m->root, err);
}

static cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* Read back DIR/verify_rounds.json of an earlier session: the same
 * settings and workloads, else GD_EINPUT naming the file. */
static int load_journal(mf_loop *m, gd_err *err)
{
    char *text = NULL;
    size_t len;
    if (util_read_file(m->path, &text, &len, err) != GD_OK)
        return GD_EINPUT;
    cJSON *j = cJSON_Parse(text);
    free(text);
    cJSON *fresh = new_journal(m->c, m->wl);
    const char *keys[] = {"format", "verify_backend", "rounds", "per_round",
                          "min_improvement", "objectives"};
    int same = j != NULL;
    for (size_t i = 0; same && i < sizeof keys / sizeof keys[0]; i++)
        same = cJSON_Compare(item(j, keys[i]), item(fresh, keys[i]), 1);
    cJSON *ws = j ? item(j, "workloads") : NULL;
    same = same && cJSON_GetArraySize(ws) == m->c->nworkloads;
    for (int w = 0; same && w < m->c->nworkloads; w++) {
        cJSON *e = cJSON_GetArrayItem(ws, w);
        same = cJSON_IsString(item(e, "name"))
               && !strcmp(item(e, "name")->valuestring,
                          m->c->workloads[w].name)
               && cJSON_IsArray(item(e, "rounds"));
        m->wl[w].j = e;
    }
    cJSON_Delete(fresh);
    if (!same) {
        cJSON_Delete(j);
        return gd_errf(err, GD_EINPUT, "%s: not the journal of this "
                       "campaign's verification loop (settings or workloads "
                       "differ, or the file is damaged); use a new run "
                       "directory", m->path);
    }
    m->root = j;
    return GD_OK;
}

/* The journaled rounds: the last round number, whether it is complete, and
 * which candidates were tried. */
static int scan_journal(mf_loop *m, gd_err *err)
{
    int complete = 1;
    for (int w = 0; w < m->c->nworkloads; w++) {
        cJSON *r;
        cJSON_ArrayForEach(r, item(m->wl[w].j, "rounds")) {
            int k = cJSON_IsNumber(item(r, "round")) ? item(r, "round")->valueint
                                                      : 0;
            if (k < 1 || !cJSON_IsArray(item(r, "picks")))
                return gd_errf(err, GD_EINPUT, "%s: a round of %s has no "
                               "round number or no picks (damaged?)", m->path,
                               m->c->workloads[w].name);
            if (k > m->round) {
                m->round = k;
                complete = 1;
            }
            if (k == m->round && !cJSON_IsTrue(item(r, "complete")))
                complete = 0;
            cJSON *p;
            cJSON_ArrayForEach(p, item(r, "picks")) {
                cJSON *ix = item(p, "index");
                int64_t at = cJSON_IsNumber(ix) ? (int64_t)ix->valuedouble : -1;
                size_t i = 0;
                while (i < m->wl[w].ncand && m->wl[w].cand[i].index != at)
                    i++;
                if (i == m->wl[w].ncand)
                    return gd_errf(err, GD_EINPUT, "%s: round %d picks a "
                                   "config that is not a candidate of %s",
                                   m->path, k, m->c->workloads[w].name);
                m->wl[w].cand[i].tried = 1;
            }
        }
    }
    m->pending = m->replay = m->round > 0 && !complete;
    return GD_OK;
}

int mf_open(const camp_campaign *c, const char *dir, const store_record *recs,
            size_t n, mf_loop **out, gd_err *err)
{
    mf_loop *m = calloc(1, sizeof *m);
    if (!m || !(m->wl = calloc((size_t)c->nworkloads, sizeof *m->wl))) {
        free(m);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    m->c = c;
    util_path_join(m->path, sizeof m->path, dir, MF_JOURNAL);
    cal_row *rows = NULL;
    size_t nrows = 0;
    int rc = c->verify_configs[0]
             ? cal_read_csv(c->verify_configs, NULL, 0, &rows, &nrows, err)
             : GD_OK;
    for (int w = 0; !rc && w < c->nworkloads; w++)
        rc = load_candidates(m, w, c->verify_configs[0] ? rows : NULL, nrows,
                             recs, n, err);
    free(rows);
    if (!rc && access(m->path, F_OK) == 0) {
        rc = load_journal(m, err);
        if (!rc)
            rc = scan_journal(m, err);
    } else if (!rc) {
        m->root = new_journal(c, m->wl);
        cJSON *e;
        int w = 0;
        cJSON_ArrayForEach(e, item(m->root, "workloads"))
            m->wl[w++].j = e;
    }
    if (rc) {
        mf_close(m);
        return rc;
    }
    *out = m;
    return GD_OK;
}

void mf_close(mf_loop *m)
{
    if (!m)
        return;
    for (int w = 0; m->wl && w < m->c->nworkloads; w++)
        free(m->wl[w].cand);
    free(m->wl);
    cJSON_Delete(m->root);
    free(m);
}

/* ----------------------------------------------------------- measured */

static double obj_of(const met_set *ms, const camp_objective *o)
{
    double v;
    return met_get(ms, o->metric, &v) == 0 && isfinite(v) ? v : NAN;
}

/* The measured record of workload w at cfg, or NULL. */
static const store_record *measured(const mf_loop *m, int w,
                                    const gpu_config *cfg,
                                    const store_record *recs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(recs[i].workload, m->c->workloads[w].name)
            && !strcmp(recs[i].backend, m->c->verify_backend)
            && !memcmp(&recs[i].cfg, cfg, sizeof *cfg))
            return &recs[i];
    return NULL;
}

static cJSON *objectives_json(const camp_campaign *c, const double *v)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < c->nobjectives; i++)
        if (isfinite(v[i]))
            cJSON_AddNumberToObject(o, c->obj[i].metric, v[i]);
        else
            cJSON_AddNullToObject(o, c->obj[i].metric);
    return o;
}

/* Whether a is at least as good as b in every objective (values as the
 * objectives read, each improved by margin: a fraction of |b|). */
static int covers(const camp_campaign *c, const double *a, const double *b,
                  double margin)
{
    for (int i = 0; i < c->nobjectives; i++) {
        double slack = margin * fabs(a[i]);
        if (c->obj[i].maximize ? b[i] > a[i] + slack : b[i] < a[i] - slack)
            return 0;
    }
    return 1;
}

/* The best measured config of workload w (one objective) or its measured
 * front (several), into the journal. */
static void record_best(mf_loop *m, int w, const store_record *recs,
                        size_t n)
{
    const camp_campaign *c = m->c;
    cJSON *best = cJSON_CreateArray();
    size_t cap = n ? n : 1, k = (size_t)c->nobjectives, cnt = 0;
    double *pts = malloc(cap * k * sizeof *pts);
    const store_record **who = malloc(cap * sizeof *who);
    size_t *idx = malloc(cap * sizeof *idx);
    for (size_t i = 0; pts && who && idx && i < m->wl[w].ncand; i++) {
        const store_record *r = measured(m, w, &m->wl[w].cand[i].cfg, recs, n);
        if (!r || r->status != ST_OK)
            continue;
        int fin = 1;
        for (size_t j = 0; j < k; j++) {
            double v = obj_of(&r->metrics, &c->obj[j]);
            fin &= isfinite(v);
            pts[cnt * k + j] = c->obj[j].maximize ? -v : v;
        }
        if (fin)
            who[cnt++] = r;
    }
    size_t nf = pts && who && idx ? pareto_front(pts, cnt, k, idx) : 0;
    for (size_t i = 0; i < nf && (k > 1 || i == 0); i++) {
        const store_record *r = who[idx[i]];
        double v[CAMP_MAXOBJ];
        for (size_t j = 0; j < k; j++)
            v[j] = obj_of(&r->metrics, &c->obj[j]);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "config", config_json(&r->cfg));
        cJSON_AddItemToObject(e, "measured", objectives_json(c, v));
        cJSON_AddItemToArray(best, e);
    }
    free(pts);
    free(who);
    free(idx);
    if (k == 1) {
        cJSON *one = cJSON_DetachItemFromArray(best, 0);
        cJSON_Delete(best);
        best = one ? one : cJSON_CreateNull();
    }
    cJSON_ReplaceItemInObjectCaseSensitive(m->wl[w].j, "best_measured", best);
}

/* Complete round m->round: the measured values of its picks. */
static void complete_round(mf_loop *m, const store_record *recs, size_t n)
{
    for (int w = 0; w < m->c->nworkloads; w++) {
        cJSON *rounds = item(m->wl[w].j, "rounds");
        cJSON *r = cJSON_GetArrayItem(rounds, cJSON_GetArraySize(rounds) - 1);
        if (!r || item(r, "round")->valueint != m->round)
            continue;
        cJSON *p;
        cJSON_ArrayForEach(p, item(r, "picks")) {
            gpu_config cfg = space_at(&m->c->space,
                                      (uint64_t)item(p, "index")->valuedouble);
            const store_record *mr = measured(m, w, &cfg, recs, n);
            double v[CAMP_MAXOBJ];
            for (int j = 0; j < m->c->nobjectives; j++)
                v[j] = mr && mr->status == ST_OK
                       ? obj_of(&mr->metrics, &m->c->obj[j]) : NAN;
            cJSON_ReplaceItemInObjectCaseSensitive(
                p, "measured", mr && mr->status == ST_OK
                               ? objectives_json(m->c, v) : cJSON_CreateNull());
            cJSON_ReplaceItemInObjectCaseSensitive(
                p, "status", cJSON_CreateString(
                                 mr ? store_status_name(mr->status)
                                    : "not run"));
        }
        cJSON_ReplaceItemInObjectCaseSensitive(r, "complete",
                                               cJSON_CreateTrue());
        record_best(m, w, recs, n);
    }
}

/* ----------------------------------------------------------- calibration */

static int cmp_row(const void *a, const void *b)
{
    const cal_row *x = a, *y = b;
    return memcmp(&x->c, &y->c, sizeof x->c);
}

/* Re-calibrate a copy of workload w's descriptor on its measured IPCs (fit
 * from the campaign's descriptor, so the result depends only on what was
 * measured); what happened into cal. */
static void recalibrate(const mf_loop *m, int w, const store_record *recs,
                        size_t n, wl_workload *desc, cJSON *cal)
{
    const wl_workload *orig = &m->c->workloads[w];
    *desc = *orig;
    cal_row *rows = calloc(n ? n : 1, sizeof *rows);
    double *pred = calloc(n ? n : 1, sizeof *pred);
    size_t nr = 0;
    for (size_t i = 0; rows && i < n; i++) {
        const store_record *r = &recs[i];
        double ipc;
        if (strcmp(r->workload, orig->name)
            || strcmp(r->backend, m->c->verify_backend)
            || r->status != ST_OK || met_get(&r->metrics, "ipc", &ipc)
            || !(ipc > 0))
            continue;
        rows[nr].c = r->cfg;
        rows[nr].ipc = ipc;
        nr++;
    }
    /* in space order, not the journal's completion order: the same
     * measurements give the same fit, bit for bit */
    qsort(rows, nr, sizeof *rows, cmp_row);
    cJSON_AddNumberToObject(cal, "rows", (double)nr);
    cal_opts o;
    cal_opts_default(&o);
    gd_err e = {0, ""};
    double cost = NAN;
    int rc = !rows || !pred ? gd_errf(&e, GD_EENV, "out of memory")
             : nr == 0 ? gd_errf(&e, GD_EINPUT, "no measured IPC yet")
                       : cal_fit(desc, rows, nr, &o, &cost, &e);
    /* the interval: held-out error once there are 3 rows to leave out */
    if (!rc && nr >= 3 && cal_heldout(orig, rows, nr, (int)nr, &o, pred, &e)
                              == GD_OK)
        cal_record_region(desc, rows, nr, pred);
    if (rc) {
        *desc = *orig;
        cJSON_AddStringToObject(cal, "not_recalibrated", e.msg);
    } else {
        cJSON_AddNumberToObject(cal, "fit_cost", cost);
        cJSON *ch = cJSON_AddObjectToObject(cal, "fitted");
        for (int k = 0; k < desc->nkernels; k++)
            for (int p = 0; p < CAL_NPARAMS; p++)
                if (cal_param_get(&desc->k[k], p)
                    != cal_param_get(&orig->k[k], p)) {
                    char key[WL_NAMELEN + 32];
                    snprintf(key, sizeof key, "%s.%s", desc->k[k].name,
                             cal_param_name(p));
                    cJSON_AddNumberToObject(ch, key,
                                            cal_param_get(&desc->k[k], p));
                }
        if (desc->k[0].cal_rows > 0)
            cJSON_AddNumberToObject(cal, "heldout_log_sd",
                                    desc->k[0].cal_log_sd);
    }
    free(rows);
    free(pred);
}

/* Every candidate of workload w predicted by desc. */
static void predict(mf_loop *m, int w, const wl_workload *desc)
{
    for (size_t i = 0; i < m->wl[w].ncand; i++) {
        mf_cand *x = &m->wl[w].cand[i];
        model_out mo;
        x->ok = model_eval(desc, &x->cfg, &mo, NULL) == 0 && mo.ipc > 0;
        if (!x->ok)
            continue;
        met_set ms;
        memset(&ms, 0, sizeof ms);
        model_to_metrics(&mo, &ms);
        drv_apply(m->c->derived, m->c->nderived, &ms);
        /* a config predicted infeasible is not worth verifying */
        x->ok = camp_feasible(m->c, &ms, NULL);
        if (!x->ok)
            continue;
        for (int j = 0; j < m->c->nobjectives; j++)
            x->pred[j] = obj_of(&ms, &m->c->obj[j]);
        model_pi pi;
        model_interval(desc, &x->cfg, mo.ipc, &pi);
        x->ipc = mo.ipc;
        x->sigma = pi.sigma;
        x->lo = pi.lo;
        x->hi = pi.hi;
    }
}

/* ----------------------------------------------------------- picking */

static int cmp_score(const void *a, const void *b)
{
    const mf_cand *x = *(mf_cand *const *)a, *y = *(mf_cand *const *)b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The best k of v (sorted by cmp_score): whole levels of equal score while
 * they fit, then the next level thinned evenly (both ends kept). */
static size_t take_levels(mf_cand **v, size_t nv, size_t k, mf_cand **out)
{
    size_t got = 0;
    for (size_t lo = 0; lo < nv && got < k;) {
        size_t hi = lo + 1;
        while (hi < nv && v[hi]->score == v[lo]->score)
            hi++;
        size_t level = hi - lo, room = k - got;
        for (size_t i = 0; i < (level <= room ? level : room); i++)
            out[got++] = v[lo + (level <= room ? i : room == 1 ? 0
                                 : i * (level - 1) / (room - 1))];
        lo = hi;
    }
    return got;
}

/* Several objectives: from v, front after front of the predicted values,
 * each spread evenly along its first objective; k at most. */
static size_t take_fronts(const camp_campaign *c, mf_cand **v, size_t nv,
                          size_t k, mf_cand **out)
{
    size_t no = (size_t)c->nobjectives, got = 0;
    double *pts = malloc((nv ? nv : 1) * no * sizeof *pts);
    size_t *idx = malloc((nv ? nv : 1) * sizeof *idx);
    mf_cand **f = malloc((nv ? nv : 1) * sizeof *f);
    while (pts && idx && f && got < k && nv > 0) {
        for (size_t i = 0; i < nv; i++)
            for (size_t j = 0; j < no; j++)
                pts[i * no + j] = c->obj[j].maximize ? -v[i]->pred[j]
                                                     : v[i]->pred[j];
        size_t nf = pareto_front(pts, nv, no, idx);
        if (nf == 0)
            break;
        for (size_t i = 0; i < nf; i++) {
            f[i] = v[idx[i]];
            f[i]->score = -pts[idx[i] * no];
            v[idx[i]] = NULL;
        }
        qsort(f, nf, sizeof *f, cmp_score);
        size_t take = nf < k - got ? nf : k - got;
        for (size_t i = 0; i < take; i++)
            out[got++] = f[take == 1 ? 0 : i * (nf - 1) / (take - 1)];
        size_t m = 0;
        for (size_t i = 0; i < nv; i++)
            if (v[i])
                v[m++] = v[i];
        nv = m;
    }
    free(pts);
    free(idx);
    free(f);
    return got;
}

/* The measured values (as the objectives read) of workload w's ok
 * measurements into vals (room for ncand rows); returns their count. */
static size_t measured_points(const mf_loop *m, int w,
                              const store_record *recs, size_t n,
                              double *vals)
{
    size_t cnt = 0, k = (size_t)m->c->nobjectives;
    for (size_t i = 0; i < m->wl[w].ncand; i++) {
        const store_record *r = measured(m, w, &m->wl[w].cand[i].cfg, recs, n);
        int fin = r && r->status == ST_OK;
        for (size_t j = 0; fin && j < k; j++)
            fin = isfinite(vals[cnt * k + j]
                           = obj_of(&r->metrics, &m->c->obj[j]));
        cnt += fin;
    }
    return cnt;
}

/* The candidate's value of objective j at the improving end of the
 * model's 95% IPC interval (scaled alike for cycles and time_s). */
static double optimistic(const camp_campaign *c, const mf_cand *x, int j)
{
    if (!uncertain(c->obj[j].metric) || !(x->hi > x->ipc) || !(x->ipc > 0))
        return x->pred[j];
    double r = x->hi / x->ipc;       /* exp(Z sigma) */
    return c->obj[j].maximize ? x->pred[j] * r : x->pred[j] / r;
}

/* Score the untried candidates into v; returns how many can improve, with
 * the largest relative expected improvement in *best_ei (NAN: nothing
 * measured yet, ranked by the prediction). */
static size_t score(mf_loop *m, int w, const store_record *recs, size_t n,
                    mf_cand **v, double *best_ei, const char **why)
{
    const camp_campaign *c = m->c;
    size_t k = (size_t)c->nobjectives, nv = 0;
    double *pts = malloc((m->wl[w].ncand + 1) * k * sizeof *pts);
    size_t np = pts ? measured_points(m, w, recs, n, pts) : 0;
    double fbest = NAN;
    for (size_t i = 0; k == 1 && i < np; i++)
        if (!isfinite(fbest) || (c->obj[0].maximize ? pts[i] > fbest
                                                    : pts[i] < fbest))
            fbest = pts[i];
    *best_ei = NAN;
    *why = np == 0 ? (k == 1 ? "best predicted" : "on the predicted front")
           : k == 1 ? "largest expected improvement over the best measured"
                    : "its optimistic value extends the measured front";
    for (size_t i = 0; i < m->wl[w].ncand; i++) {
        mf_cand *x = &m->wl[w].cand[i];
        if (x->tried || !x->ok || !isfinite(x->pred[0]))
            continue;
        if (np == 0) {
            x->score = c->obj[0].maximize ? x->pred[0] : -x->pred[0];
        } else if (k == 1) {
            double s = uncertain(c->obj[0].metric) ? x->sigma : 0;
            double ei = mf_expected_improvement(x->pred[0], s, fbest,
                                                c->obj[0].maximize);
            x->score = isfinite(ei) ? ei / fabs(fbest) : 0;
            if (!isfinite(*best_ei) || x->score > *best_ei)
                *best_ei = x->score;
            if (!(x->score > c->verify_min_improvement))
                continue;
        } else {
            double opt[CAMP_MAXOBJ];
            for (size_t j = 0; j < k; j++)
                opt[j] = optimistic(c, x, (int)j);
            int covered = 0;
            for (size_t p = 0; p < np && !covered; p++)
                covered = covers(c, &pts[p * k], opt,
                                 c->verify_min_improvement);
            if (covered)
                continue;
        }
        v[nv++] = x;
    }
    free(pts);
    if (k == 1)
        qsort(v, nv, sizeof *v, cmp_score);
    return nv;
}

static cJSON *pick_json(const camp_campaign *c, const mf_cand *x,
                        const char *why, int with_ei)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "index", (double)x->index);
    cJSON_AddItemToObject(p, "config", config_json(&x->cfg));
    cJSON_AddStringToObject(p, "why", why);
    cJSON_AddItemToObject(p, "predicted", objectives_json(c, x->pred));
    cJSON_AddNumberToObject(p, "ipc_lo", x->lo);
    cJSON_AddNumberToObject(p, "ipc_hi", x->hi);
    if (with_ei)
        cJSON_AddNumberToObject(p, "expected_improvement", x->score);
    cJSON_AddNullToObject(p, "measured");
    cJSON_AddStringToObject(p, "status", "planned");
    return p;
}

static void stop(cJSON *wj, const char *why)
{
    cJSON_ReplaceItemInObjectCaseSensitive(wj, "stopped",
                                           cJSON_CreateString(why));
}

/* Plan workload w's part of round m->round; returns its number of picks
 * into out (room for per_round), 0 when it stops. */
static size_t plan_workload(mf_loop *m, int w, const store_record *recs,
                            size_t n, gpu_config *out)
{
    const camp_campaign *c = m->c;
    cJSON *wj = m->wl[w].j;
    if (!cJSON_IsNull(item(wj, "stopped")))
        return 0;
    if (m->round > c->verify_rounds) {
        char why[96];
        snprintf(why, sizeof why, "budget: %d rounds of %d",
                 c->verify_rounds, c->verify_per_round);
        stop(wj, why);
        return 0;
    }
    cJSON *r = cJSON_CreateObject(), *cal = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "round", m->round);
    cJSON_AddFalseToObject(r, "complete");
    wl_workload *desc = malloc(sizeof *desc);
    mf_cand **v = malloc((m->wl[w].ncand + 1) * sizeof *v);
    mf_cand **pick = malloc(((size_t)c->verify_per_round + 1) * sizeof *pick);
    size_t np = 0, nv = 0;
    double best_ei = NAN;
    const char *why = "";
    if (desc && v && pick) {
        recalibrate(m, w, recs, n, desc, cal);
        predict(m, w, desc);
        nv = score(m, w, recs, n, v, &best_ei, &why);
        size_t k = (size_t)c->verify_per_round;
        np = c->nobjectives == 1 ? take_levels(v, nv, k, pick)
                                 : take_fronts(c, v, nv, k, pick);
    }
    cJSON_AddItemToObject(r, "calibration", cal);
    if (isfinite(best_ei))
        cJSON_AddNumberToObject(r, "max_expected_improvement", best_ei);
    cJSON *pj = cJSON_AddArrayToObject(r, "picks");
    int ei = c->nobjectives == 1 && isfinite(best_ei);
    for (size_t i = 0; i < np; i++) {
        pick[i]->tried = 1;
        out[i] = pick[i]->cfg;
        cJSON_AddItemToArray(pj, pick_json(c, pick[i], why, ei));
    }
    if (np > 0) {
        cJSON_AddItemToArray(item(wj, "rounds"), r);
    } else {
        char msg[160];
        if (isfinite(best_ei) || c->nobjectives > 1)
            snprintf(msg, sizeof msg, "no candidate can improve by more than "
                     "%.3g%%", 100 * c->verify_min_improvement);
        else
            snprintf(msg, sizeof msg, "no candidate left to verify");
        stop(wj, msg);
        cJSON_Delete(r);
    }
    free(desc);
    free(v);
    free(pick);
    return np;
}

/* The picks of round m->round as journaled (a replay). */
static size_t journaled_picks(const mf_loop *m, int w, gpu_config *out)
{
    cJSON *rounds = item(m->wl[w].j, "rounds");
    cJSON *r = cJSON_GetArrayItem(rounds, cJSON_GetArraySize(rounds) - 1), *p;
    size_t k = 0;
    if (!r || item(r, "round")->valueint != m->round)
        return 0;
    cJSON_ArrayForEach(p, item(r, "picks")) {
        if (k < (size_t)m->c->verify_per_round)
            out[k++] = space_at(&m->c->space,
                                (uint64_t)item(p, "index")->valuedouble);
    }
    return k;
}

int mf_step(mf_loop *m, const store_record *recs, size_t n,
            gpu_config ***fixed, size_t **nfixed, int *round,
            size_t *total, gd_err *err)
{
    const camp_campaign *c = m->c;
    size_t nw = (size_t)c->nworkloads;
    *total = 0;
    *fixed = calloc(nw, sizeof **fixed);
    *nfixed = calloc(nw, sizeof **nfixed);
    for (size_t w = 0; *fixed && w < nw; w++)
        if (!((*fixed)[w] = malloc((size_t)c->verify_per_round
                                   * sizeof ***fixed)))
            break;
    if (!*fixed || !*nfixed || !(*fixed)[nw - 1])
        return gd_errf(err, GD_EENV, "out of memory");
    if (m->replay) {
        m->replay = 0;
        for (size_t w = 0; w < nw; w++)
            *total += (*nfixed)[w] = journaled_picks(m, (int)w, (*fixed)[w]);
        *round = m->round;
        return GD_OK;
    }
    if (m->pending)
        complete_round(m, recs, n);
    m->pending = 0;
    m->round++;
    for (size_t w = 0; w < nw; w++)
        *total += (*nfixed)[w] = plan_workload(m, (int)w, recs, n,
                                               (*fixed)[w]);
    if (*total > 0)
        m->pending = 1;
    else
        m->round--;
    *round = m->round;
    return save(m, err);
}

int mf_check_campaign(const camp_campaign *c, gd_err *err)
{
    if (!c->verify_configs[0])
        return GD_OK;
    cal_row *rows = NULL;
    size_t n = 0;
    int rc = cal_read_csv(c->verify_configs, NULL, 0, &rows, &n, err);
    for (size_t i = 0; !rc && i < n; i++)
        if (space_index(&c->space, &rows[i].c) < 0)
            rc = gd_errf(err, GD_EINPUT, "%s:%d: this config is not in "
                         "the campaign's space (%s:%d, <verify configs=>)",
                         c->verify_configs, rows[i].line, c->path,
                         c->verify_line);
    if (!rc && n == 0)
        rc = gd_errf(err, GD_EINPUT, "%s:%d: <verify configs=\"%s\"> "
                     "has no config", c->path, c->verify_line,
                     c->verify_configs);
    free(rows);
    return rc;
}
