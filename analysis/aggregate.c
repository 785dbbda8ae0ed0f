/* aggregate: the campaign's aggregates across workloads (see aggregate.h):
 * per-configuration accumulators fed one workload at a time, then the
 * values, the dropped configurations by reason, the aggregate front, the
 * best configuration per aggregate and each workload's value under it. */
#include "aggregate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "numtext.h"
#include "pareto.h"

/* Why a configuration does not count for an aggregate, in the order the
 * first that applies is reported (not evaluated on a workload first). */
enum {
    WHY_FAILED = 1, WHY_INFEASIBLE = 2, WHY_ABSENT = 4, WHY_NOBASE = 8,
    WHY_NONPOS = 16
};

static const char *const why_key[] = {
    "not_evaluated_on_every_workload", "failed", "infeasible",
    "metric_absent", "no_baseline_value", "not_positive"
};
static const char *const why_text[] = {
    "not evaluated on every workload", "failed on a workload",
    "outside a constraint on a workload", "metric absent on a workload",
    "no baseline value on a workload",
    "not positive on a workload (the mean needs values > 0)"
};
#define NWHY 6

typedef struct {
    gpu_config cfg;
    int nseen;                 /* workloads with a record of it */
    double acc[CAMP_MAXAGG];   /* the running aggregate */
    int nval[CAMP_MAXAGG];     /* workloads whose value went into acc */
    unsigned char why[CAMP_MAXAGG];   /* WHY_* bits */
    double cobj[CAMP_MAXOBJ];  /* config-only objectives, NaN absent */
} agg_entry;

struct agg_state {
    const camp_campaign *c;
    agg_entry *e;              /* in config order, knob by knob */
    size_t n;
    int ncobj;
    int cobj[CAMP_MAXOBJ];     /* campaign objectives on config-only metrics */
    char nobase[CAMP_MAXAGG][1024];   /* workloads lacking a baseline value */
    /* agg_finish */
    double *val;               /* n * naggregates, NaN: does not count */
    unsigned char *front;      /* n: on the aggregate front */
    long best[CAMP_MAXAGG];    /* entry of the best, -1 none */
    double *wval, *wbase;      /* naggregates * nworkloads, second pass */
    char (*wbn)[2][24];        /* their bottlenecks (best, baseline) */
};

/* ---- the maths --------------------------------------------------------- */

static int needs_positive(int fn)
{
    return fn == CAMP_AGG_GEOMEAN || fn == CAMP_AGG_HMEAN;
}

/* Fold v into acc (nval values folded so far). */
static double fold(int fn, double acc, int nval, double v)
{
    switch (fn) {
    case CAMP_AGG_GEOMEAN: return (nval ? acc : 0) + log(v);
    case CAMP_AGG_HMEAN: return (nval ? acc : 0) + 1 / v;
    case CAMP_AGG_MIN: return nval ? fmin(acc, v) : v;
    case CAMP_AGG_MAX: return nval ? fmax(acc, v) : v;
    default: return (nval ? acc : 0) + v;
    }
}

static double result(int fn, double acc, int nval)
{
    if (nval <= 0)
        return NAN;
    switch (fn) {
    case CAMP_AGG_GEOMEAN: return exp(acc / nval);
    case CAMP_AGG_HMEAN: return nval / acc;
    case CAMP_AGG_MEAN: return acc / nval;
    default: return acc;
    }
}

double agg_apply(int fn, const double *v, size_t n)
{
    double acc = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]) || (needs_positive(fn) && !(v[i] > 0)))
            return NAN;
        acc = fold(fn, acc, (int)i, v[i]);
    }
    return result(fn, acc, (int)n);
}

/* ---- feeding workloads ------------------------------------------------- */

int agg_begin(const camp_campaign *c, agg_state **out, gd_err *err)
{
    *out = NULL;
    if (c->naggregates == 0)
        return GD_OK;
    agg_state *s = calloc(1, sizeof *s);
    if (!s)
        return gd_errf(err, GD_EENV, "out of memory");
    s->c = c;
    for (int j = 0; j < c->nobjectives; j++)
        if (be_config_metric(c->obj[j].metric))
            s->cobj[s->ncobj++] = j;
    for (int a = 0; a < CAMP_MAXAGG; a++)
        s->best[a] = -1;
    *out = s;
    return GD_OK;
}

void agg_free(agg_state *s)
{
    if (!s)
        return;
    free(s->e);
    free(s->val);
    free(s->front);
    free(s->wval);
    free(s->wbase);
    free(s->wbn);
    free(s);
}

/* Configurations knob by knob (the journal's canonical order; user knobs
 * by level index, unused ones 0 in every config). */
static int cmp_cfg(const gpu_config *a, const gpu_config *b)
{
    for (int k = 0; k < SPACE_MAXKNOBS; k++) {
        int x = space_get(a, k), y = space_get(b, k);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static int cmp_item(const void *pa, const void *pb)
{
    const store_record *a = *(const store_record *const *)pa;
    const store_record *b = *(const store_record *const *)pb;
    int d = cmp_cfg(&a->cfg, &b->cfg);
    if (d)
        return d;
    if ((a->status == ST_OK) != (b->status == ST_OK))
        return a->status == ST_OK ? -1 : 1;  /* an ok record first */
    return strcmp(a->key, b->key);
}

static int same_config(const gpu_config *a, const gpu_config *b)
{
    return cmp_cfg(a, b) == 0;
}

/* Metric m of an ok record, finite; NaN otherwise. */
static double metric_of(const store_record *r, const char *m)
{
    double v;
    if (!r || r->status != ST_OK || met_get(&r->metrics, m, &v) != 0
        || !isfinite(v))
        return NAN;
    return v;
}

/* The workload's baseline value of each aggregate's metric (NaN when the
 * aggregate is not normalised); names the workload where one lacks it. */
static void baseline_values(agg_state *s, const char *wl,
                            const store_record *const *it, size_t m,
                            double *base)
{
    const camp_campaign *c = s->c;
    gpu_config bc = space_baseline();
    const store_record *b = NULL;
    for (size_t i = 0; i < m && !b; i++)
        if (it[i]->status == ST_OK && same_config(&it[i]->cfg, &bc))
            b = it[i];
    for (int a = 0; a < c->naggregates; a++) {
        base[a] = c->agg[a].normalise ? metric_of(b, c->agg[a].metric) : NAN;
        if (c->agg[a].normalise && !(base[a] > 0)) {
            char *l = s->nobase[a];
            size_t len = strlen(l);
            snprintf(l + len, sizeof s->nobase[a] - len, "%s%s",
                     len ? " " : "", wl);
        }
    }
}

/* One workload's record r of entry e. */
static void add_value(agg_state *s, agg_entry *e, const store_record *r,
                      const double *base)
{
    const camp_campaign *c = s->c;
    /* a config outside a <constraint> on any workload never counts (the
     * baseline normalises whether or not it is feasible) */
    int feasible = r->status == ST_OK && camp_feasible(c, &r->metrics, NULL);
    e->nseen++;
    for (int a = 0; a < c->naggregates; a++) {
        const camp_aggregate *g = &c->agg[a];
        double v = metric_of(r, g->metric);
        if (r->status != ST_OK)
            e->why[a] |= WHY_FAILED;
        else if (!feasible)
            e->why[a] |= WHY_INFEASIBLE;
        else if (!isfinite(v))
            e->why[a] |= WHY_ABSENT;
        else if (g->normalise && !(base[a] > 0))
            e->why[a] |= WHY_NOBASE;
        else if (needs_positive(g->fn) && !((g->normalise ? v / base[a]
                                                           : v) > 0))
            e->why[a] |= WHY_NONPOS;
        else {
            v = g->normalise ? v / base[a] : v;
            e->acc[a] = fold(g->fn, e->acc[a], e->nval[a], v);
            e->nval[a]++;
        }
    }
    for (int j = 0; j < s->ncobj; j++)
        if (isnan(e->cobj[j]))
            e->cobj[j] = metric_of(r, c->obj[s->cobj[j]].metric);
}

static void new_entry(agg_entry *e, const store_record *r)
{
    memset(e, 0, sizeof *e);
    e->cfg = r->cfg;
    for (int j = 0; j < CAMP_MAXOBJ; j++)
        e->cobj[j] = NAN;
}

/* Merge the workload's sorted records into the sorted entries. */
static int merge(agg_state *s, const store_record *const *it, size_t m,
                 const double *base, gd_err *err)
{
    agg_entry *out = malloc((s->n + m + 1) * sizeof *out);
    if (!out)
        return gd_errf(err, GD_EENV, "out of memory");
    size_t i = 0, j = 0, k = 0;
    while (i < s->n || j < m) {
        if (j > 0 && j < m && same_config(&it[j]->cfg, &it[j - 1]->cfg)) {
            j++;   /* a config twice in a workload: its first record */
            continue;
        }
        int d = i == s->n ? 1 : j == m ? -1 : cmp_cfg(&s->e[i].cfg,
                                                      &it[j]->cfg);
        if (d < 0) {
            out[k++] = s->e[i++];
            continue;
        }
        if (d > 0)
            new_entry(&out[k], it[j]);
        else
            out[k] = s->e[i++];
        add_value(s, &out[k++], it[j++], base);
    }
    free(s->e);
    s->e = out;
    s->n = k;
    return GD_OK;
}

int agg_add_workload(agg_state *s, const char *wl, const store_record *recs,
                     size_t n, gd_err *err)
{
    const store_record **it = malloc((n ? n : 1) * sizeof *it);
    if (!it)
        return gd_errf(err, GD_EENV, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(recs[i].workload, wl) == 0
            && strcmp(recs[i].backend, s->c->backend) == 0)
            it[m++] = &recs[i];
    qsort(it, m, sizeof *it, cmp_item);
    double base[CAMP_MAXAGG];
    baseline_values(s, wl, it, m, base);
    int rc = merge(s, it, m, base, err);
    free(it);
    return rc;
}

/* ---- results ----------------------------------------------------------- */

/* The first reason entry e does not count for aggregate a, or -1. */
static int why_dropped(const agg_state *s, const agg_entry *e, int a)
{
    if (e->nseen < s->c->nworkloads)
        return 0;
    for (int w = 0; w < NWHY - 1; w++)
        if (e->why[a] & (1u << w))
            return w + 1;
    return e->nval[a] == s->c->nworkloads ? -1 : 0;
}

static double value_of(const agg_state *s, size_t i, int a)
{
    return s->val[i * (size_t)s->c->naggregates + (size_t)a];
}

/* Objective o of the aggregate front (aggregates, then the config-only
 * objectives) of entry i, to minimise. */
static double front_obj(const agg_state *s, size_t i, int o)
{
    const camp_campaign *c = s->c;
    if (o < c->naggregates) {
        double v = value_of(s, i, o);
        return c->agg[o].maximize ? -v : v;
    }
    const camp_objective *ob = &c->obj[s->cobj[o - c->naggregates]];
    double v = s->e[i].cobj[o - c->naggregates];
    return ob->maximize ? -v : v;
}

static int compute_values(agg_state *s, gd_err *err)
{
    int na = s->c->naggregates;
    s->val = malloc((s->n ? s->n : 1) * (size_t)na * sizeof *s->val);
    s->front = calloc(s->n ? s->n : 1, 1);
    if (!s->val || !s->front)
        return gd_errf(err, GD_EENV, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        for (int a = 0; a < na; a++)
            s->val[i * (size_t)na + (size_t)a] = why_dropped(s, &s->e[i], a)
                < 0 ? result(s->c->agg[a].fn, s->e[i].acc[a],
                             s->e[i].nval[a]) : NAN;
    }
    for (int a = 0; a < na; a++)   /* ties: the first in config order */
        for (size_t i = 0; i < s->n; i++) {
            double v = value_of(s, i, a);
            long b = s->best[a];
            if (isfinite(v) && (b < 0 || (s->c->agg[a].maximize
                    ? v > value_of(s, (size_t)b, a)
                    : v < value_of(s, (size_t)b, a))))
                s->best[a] = (long)i;
        }
    return GD_OK;
}

static int compute_front(agg_state *s, gd_err *err)
{
    size_t k = (size_t)(s->c->naggregates + s->ncobj);
    double *pts = malloc((s->n ? s->n : 1) * k * sizeof *pts);
    size_t *idx = malloc((s->n ? s->n : 1) * sizeof *idx);
    if (!pts || !idx) {
        free(pts);
        free(idx);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    for (size_t i = 0; i < s->n; i++)
        for (size_t o = 0; o < k; o++)
            pts[i * k + o] = front_obj(s, i, (int)o);
    size_t nf = pareto_front(pts, s->n, k, idx);
    for (size_t i = 0; i < nf; i++)
        s->front[idx[i]] = 1;
    free(pts);
    free(idx);
    return GD_OK;
}

/* Second pass: each workload's value (and baseline value) of each
 * aggregate's metric under the aggregate's best configuration. */
static int best_per_workload(agg_state *s, agg_load_fn load, void *arg,
                             gd_err *err)
{
    const camp_campaign *c = s->c;
    size_t cells = (size_t)c->naggregates * (size_t)(c->nworkloads + 1);
    s->wval = malloc(cells * sizeof *s->wval);
    s->wbase = malloc(cells * sizeof *s->wbase);
    s->wbn = calloc(cells, sizeof *s->wbn);
    if (!s->wval || !s->wbase || !s->wbn)
        return gd_errf(err, GD_EENV, "out of memory");
    for (size_t i = 0; i < cells; i++)
        s->wval[i] = s->wbase[i] = NAN;
    gpu_config bc = space_baseline();
    int rc = GD_OK;
    for (int w = 0; !rc && w < c->nworkloads; w++) {
        store_record *recs = NULL;
        size_t n = 0;
        rc = load(arg, c->workloads[w].name, &recs, &n, err);
        for (size_t i = 0; !rc && i < n; i++) {
            const store_record *r = &recs[i];
            if (strcmp(r->workload, c->workloads[w].name) != 0
                || strcmp(r->backend, c->backend) != 0)
                continue;
            for (int a = 0; a < c->naggregates; a++) {
                size_t cell = (size_t)a * (size_t)c->nworkloads + (size_t)w;
                if (s->best[a] >= 0 && isnan(s->wval[cell])
                    && same_config(&r->cfg, &s->e[s->best[a]].cfg)) {
                    s->wval[cell] = metric_of(r, c->agg[a].metric);
                    util_strlcpy(s->wbn[cell][0], r->bottleneck, 24);
                }
                if (isnan(s->wbase[cell]) && same_config(&r->cfg, &bc)) {
                    s->wbase[cell] = metric_of(r, c->agg[a].metric);
                    util_strlcpy(s->wbn[cell][1], r->bottleneck, 24);
                }
            }
        }
        free(recs);
    }
    return rc;
}

/* A config as the journal writes it: built-in knobs, then the campaign's
 * user knobs (a number when numeric, else its level text). */
static cJSON *config_json(const space_def *sp, const gpu_config *c)
{
    cJSON *o = cJSON_CreateObject();
    char t[64];
    for (int k = 0; k < space_nknobs(sp); k++) {
        const char *name = space_knob_name(sp, k);
        const char *v = space_level_str(sp, k, space_get(c, k), t, sizeof t);
        if (space_knob_numeric(sp, k))
            cJSON_AddNumberToObject(o, name, strtod(v, NULL));
        else
            cJSON_AddStringToObject(o, name, v);
    }
    return o;
}

static void add_num(cJSON *o, const char *name, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);   /* absent, never 0 */
}

static cJSON *best_json(const agg_state *s, int a)
{
    const camp_campaign *c = s->c;
    if (s->best[a] < 0)
        return cJSON_CreateNull();
    size_t i = (size_t)s->best[a];
    cJSON *b = cJSON_CreateObject();
    cJSON_AddItemToObject(b, "config", config_json(&s->c->space, &s->e[i].cfg));
    add_num(b, "value", value_of(s, i, a));
    for (int j = 0; j < s->ncobj; j++)
        add_num(b, c->obj[s->cobj[j]].metric, s->e[i].cobj[j]);
    cJSON *ws = cJSON_AddArrayToObject(b, "workloads");
    for (int w = 0; w < c->nworkloads; w++) {
        size_t cell = (size_t)a * (size_t)c->nworkloads + (size_t)w;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", c->workloads[w].name);
        add_num(o, "value", s->wval[cell]);
        add_num(o, "baseline", s->wbase[cell]);
        add_num(o, "ratio", s->wbase[cell] > 0
                ? s->wval[cell] / s->wbase[cell] : NAN);
        if (s->wbn[cell][0][0])   /* what binds it, when the backend says */
            cJSON_AddStringToObject(o, "bottleneck", s->wbn[cell][0]);
        if (s->wbn[cell][1][0])
            cJSON_AddStringToObject(o, "baseline_bottleneck",
                                    s->wbn[cell][1]);
        cJSON_AddItemToArray(ws, o);
    }
    return b;
}

static cJSON *item_json(const agg_state *s, int a)
{
    const camp_aggregate *g = &s->c->agg[a];
    cJSON *o = cJSON_CreateObject();
    size_t count[NWHY] = {0}, counted = 0;
    for (size_t i = 0; i < s->n; i++) {
        int w = why_dropped(s, &s->e[i], a);
        w < 0 ? (void)counted++ : (void)count[w]++;
    }
    cJSON_AddStringToObject(o, "name", g->name);
    cJSON_AddStringToObject(o, "fn", camp_agg_fn_name(g->fn));
    cJSON_AddStringToObject(o, "metric", g->metric);
    cJSON_AddStringToObject(o, "normalise", g->normalise ? "baseline"
                                                         : "none");
    cJSON_AddStringToObject(o, "sense", g->maximize ? "maximize"
                                                    : "minimize");
    cJSON_AddNumberToObject(o, "configs", (double)counted);
    cJSON *d = cJSON_AddObjectToObject(o, "dropped");
    cJSON_AddNumberToObject(d, "total", (double)(s->n - counted));
    for (int w = 0; w < NWHY; w++)
        cJSON_AddNumberToObject(d, why_key[w], (double)count[w]);
    cJSON *nb = cJSON_AddArrayToObject(o, "no_baseline_on");
    for (const char *p = s->nobase[a]; *p;) {
        size_t len = strcspn(p, " ");
        char name[64];
        util_strlcpy(name, p, len + 1 < sizeof name ? len + 1 : sizeof name);
        cJSON_AddItemToArray(nb, cJSON_CreateString(name));
        p += len + (p[len] == ' ');
    }
    cJSON_AddItemToObject(o, "best", best_json(s, a));
    return o;
}

/* Front members best first by the first front objective, then the
 * others, then config order (the entries' order). */
static int cmp_front(const agg_state *s, size_t x, size_t y)
{
    int k = s->c->naggregates + s->ncobj;
    for (int o = 0; o < k; o++) {
        double a = front_obj(s, x, o), b = front_obj(s, y, o);
        if (a != b)
            return a < b ? -1 : 1;
    }
    return x < y ? -1 : x > y;
}

static cJSON *front_json(const agg_state *s)
{
    const camp_campaign *c = s->c;
    size_t nf = 0, *f = malloc((s->n ? s->n : 1) * sizeof *f);
    if (!f)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->front[i])
            f[nf++] = i;
    for (size_t i = 1; i < nf; i++) {   /* fronts are short: insertion */
        size_t t = f[i], j = i;
        for (; j > 0 && cmp_front(s, f[j - 1], t) > 0; j--)
            f[j] = f[j - 1];
        f[j] = t;
    }
    cJSON *arr = cJSON_CreateArray();
    for (size_t q = 0; q < nf; q++) {
        size_t i = f[q];
        cJSON *p = cJSON_CreateObject();
        cJSON_AddItemToObject(p, "config", config_json(&s->c->space, &s->e[i].cfg));
        cJSON *v = cJSON_AddObjectToObject(p, "values");
        for (int a = 0; a < c->naggregates; a++)
            add_num(v, c->agg[a].name, value_of(s, i, a));
        for (int j = 0; j < s->ncobj; j++)
            add_num(v, c->obj[s->cobj[j]].metric, s->e[i].cobj[j]);
        cJSON_AddItemToArray(arr, p);
    }
    free(f);
    return arr;
}

static cJSON *state_json(const agg_state *s)
{
    const camp_campaign *c = s->c;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "workloads", c->nworkloads);
    cJSON_AddNumberToObject(root, "configs_seen", (double)s->n);
    cJSON_AddStringToObject(root, "file", "aggregates.csv");
    cJSON *obj = cJSON_AddArrayToObject(root, "front_objectives");
    for (int a = 0; a < c->naggregates; a++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", c->agg[a].name);
        cJSON_AddStringToObject(o, "sense", c->agg[a].maximize ? "maximize"
                                                               : "minimize");
        cJSON_AddItemToArray(obj, o);
    }
    for (int j = 0; j < s->ncobj; j++) {
        const camp_objective *ob = &c->obj[s->cobj[j]];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", ob->metric);
        cJSON_AddStringToObject(o, "sense", ob->maximize ? "maximize"
                                                         : "minimize");
        cJSON_AddBoolToObject(o, "config_only", 1);
        cJSON_AddItemToArray(obj, o);
    }
    cJSON *items = cJSON_AddArrayToObject(root, "aggregates");
    for (int a = 0; a < c->naggregates; a++)
        cJSON_AddItemToArray(items, item_json(s, a));
    cJSON *front = front_json(s);
    if (!front) {
        cJSON_Delete(root);
        return NULL;
    }
    cJSON_AddItemToObject(root, "front", front);
    return root;
}

int agg_finish(agg_state *s, agg_load_fn load, void *arg, cJSON **json,
               gd_err *err)
{
    *json = NULL;
    int rc = compute_values(s, err);
    if (!rc)
        rc = compute_front(s, err);
    if (!rc)
        rc = best_per_workload(s, load, arg, err);
    if (!rc && !(*json = state_json(s)))
        rc = gd_errf(err, GD_EENV, "out of memory");
    return rc;
}

/* ---- aggregates.csv ---------------------------------------------------- */

static void csv_num(util_buf *b, double v)
{
    char t[NUM_TEXT_MAX];
    if (isfinite(v)) {
        num_short(v, t);
        util_buf_puts(b, t);
    }
}

static void csv_row(const agg_state *s, size_t i, util_buf *b)
{
    const camp_campaign *c = s->c;
    const agg_entry *e = &s->e[i];
    char t[64];
    for (int k = 0; k < space_nknobs(&c->space); k++)
        util_buf_printf(b, "%s,", space_level_str(&c->space, k,
                                                  space_get(&e->cfg, k), t,
                                                  sizeof t));
    util_buf_printf(b, "%d", e->nseen);
    for (int a = 0; a < c->naggregates; a++) {
        util_buf_puts(b, ",");
        csv_num(b, value_of(s, i, a));
    }
    for (int j = 0; j < s->ncobj; j++) {
        util_buf_puts(b, ",");
        csv_num(b, e->cobj[j]);
    }
    util_buf_printf(b, ",%d,", s->front[i]);
    for (int a = 0, first = 1; a < c->naggregates; a++) {
        int w = why_dropped(s, e, a);
        if (w >= 0)
            util_buf_printf(b, "%s%s: %s", first ? "\"" : "; ",
                            c->agg[a].name, why_text[w]);
        if (w >= 0)
            first = 0;
        if (a == c->naggregates - 1 && !first)
            util_buf_puts(b, "\"");
    }
    util_buf_puts(b, "\n");
}

int agg_write_csv(const agg_state *s, const char *path, gd_err *err)
{
    const camp_campaign *c = s->c;
    util_buf b;
    util_buf_init(&b);
    for (int k = 0; k < space_nknobs(&c->space); k++)
        util_buf_printf(&b, "%s,", space_knob_name(&c->space, k));
    util_buf_puts(&b, "workloads_evaluated");
    for (int a = 0; a < c->naggregates; a++)
        util_buf_printf(&b, ",%s", c->agg[a].name);
    for (int j = 0; j < s->ncobj; j++)
        util_buf_printf(&b, ",%s", c->obj[s->cobj[j]].metric);
    util_buf_puts(&b, ",on_front,dropped\n");
    for (size_t q = 0; q < s->n; q++)
        csv_row(s, q, &b);
    int rc = util_write_file_atomic(path, b.s ? b.s : "", b.len, err);
    util_buf_free(&b);
    return rc;
}
