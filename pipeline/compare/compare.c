/* compare: gpudse compare — reads two run directories one workload at a
 * time (both journals indexed by workload; only one workload's records of
 * each in memory), matches their jobs (by key, else by workload +
 * canonical config when the tool or model version changed the keys) and
 * fills the checks: per workload job status, coverage, Pareto front and
 * every metric; campaign-wide calibration error and job counts.
 * Thresholds come from --threshold flags, else the NEW run's campaign
 * <regression>, else 1 % of the base value. Output is in compare_out.c,
 * the command line and the --threshold flags in compare_cmd.c. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib_metrics.h"
#include "compare_impl.h"
#include "metrics.h"
#include "space.h"
#include "verification.h"

#define BIG_RATIO 1e300    /* a change against a zero allowance */

/* ---- thresholds ------------------------------------------------------- */

/* The last entry of list naming metric (exact name first, then "*"). */
static const camp_threshold *find_thr(const camp_threshold *list, int n,
                                      const char *metric)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = n - 1; i >= 0; i--)
            if (strcmp(list[i].metric, pass ? "*" : metric) == 0)
                return &list[i];
    return NULL;
}

/* Which way of a change is better: the campaign's <threshold direction>
 * for the metric, else its objective, else the built-in sense of the
 * hypervolume and the calibration error; else none (CAMP_DIR_ANY). */
static void direction_for(const camp_campaign *camp, const char *metric,
                          cmp_check *c)
{
    c->dir = CAMP_DIR_ANY;
    c->dir_source = NULL;
    for (int i = 0; camp && i < camp->nthresholds; i++)
        if (strcmp(camp->thresholds[i].metric, metric) == 0
            && camp->thresholds[i].direction != CAMP_DIR_UNSET) {
            c->dir = camp->thresholds[i].direction;
            c->dir_source = "campaign";
            return;
        }
    for (int i = 0; camp && i < camp->nobjectives; i++)
        if (strcmp(camp->obj[i].metric, metric) == 0) {
            c->dir = camp->obj[i].maximize ? CAMP_DIR_HIGHER : CAMP_DIR_LOWER;
            c->dir_source = "objective";
            return;
        }
    if (strcmp(metric, CMP_HYPERVOLUME) == 0
        || strcmp(metric, CMP_CALIB_MAPE) == 0) {
        c->dir = strcmp(metric, CMP_HYPERVOLUME) == 0 ? CAMP_DIR_HIGHER
                                                      : CAMP_DIR_LOWER;
        c->dir_source = "built-in";
    }
}

/* Flags win over the campaign, the campaign over the default. */
static void threshold_for(const cmp_ctx *x, const camp_campaign *camp,
                          const char *metric, cmp_check *c)
{
    const camp_threshold *t = find_thr(x->o->flags, x->o->nflags, metric);
    c->thr_source = "flag";
    if (!t && camp) {
        t = find_thr(camp->thresholds, camp->nthresholds, metric);
        c->thr_source = "campaign";
    }
    if (!t) {
        t = &x->dflt;
        c->thr_source = x->dflt_source;
    }
    c->thr = *t;
    util_strlcpy(c->thr.metric, metric, sizeof c->thr.metric);
    direction_for(camp, metric, c);
}

/* ---- loading ---------------------------------------------------------- */

/* line of a position in text, for parse errors */
static int line_at(const char *text, const char *at)
{
    int line = 1;
    for (const char *p = text; at && p < at && *p; p++)
        line += *p == '\n';
    return line;
}

/* DIR/NAME as JSON; *out NULL when the file does not exist. */
static int load_json(const char *dir, const char *name, cJSON **out,
                     gd_err *err)
{
    char path[4096], *text = NULL;
    size_t len;
    *out = NULL;
    if (util_path_join(path, sizeof path, dir, name))
        return gd_errf(err, GD_EINPUT, "%s: path too long", dir);
    if (!util_path_exists(path))
        return GD_OK;
    int rc = util_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    const char *end = NULL;
    *out = cJSON_ParseWithOpts(text, &end, 0);
    if (!*out || !cJSON_IsObject(*out)) {
        rc = gd_errf(err, GD_EINPUT, "%s:%d: not a valid JSON object", path,
                     line_at(text, end ? end : cJSON_GetErrorPtr()));
        cJSON_Delete(*out);
        *out = NULL;
    }
    free(text);
    return rc;
}

/* The user knobs of the run's campaign copy, to read its journal with;
 * none when it has no readable copy (its records then hold built-in knobs
 * alone). */
static void side_space(const char *dir, space_def *sp)
{
    char path[4096];
    gd_err ignore;
    camp_campaign *c = calloc(1, sizeof *c);
    memset(sp, 0, sizeof *sp);
    if (c && !util_path_join(path, sizeof path, dir, "campaign.xml")
        && util_path_exists(path) && camp_load_meta(path, c, &ignore) == 0) {
        *sp = c->space;
        camp_free(c);
    }
    free(c);
}

/* The run directory's journal indexed by workload (its records are read
 * one workload at a time: checks_by_workload), its analysis and
 * manifest. */
static int load_side(const char *dir, cmp_side *s, gd_err *err)
{
    memset(s, 0, sizeof *s);
    s->dir = dir;
    if (!util_is_dir(dir))
        return gd_errf(err, GD_EINPUT, "%s: no such run directory", dir);
    if (util_path_join(s->journal, sizeof s->journal, dir, "results.jsonl"))
        return gd_errf(err, GD_EINPUT, "%s: path too long", dir);
    if (!util_path_exists(s->journal))
        return gd_errf(err, GD_EINPUT, "%s: not a gpudse run directory (no "
                       "results.jsonl)", dir);
    side_space(dir, &s->space);
    int rc = store_index_workloads(s->journal, &s->wl, &s->nwl, err);
    if (!rc)
        rc = load_json(dir, "analysis.json", &s->analysis, err);
    if (!rc)
        rc = load_json(dir, "manifest.json", &s->manifest, err);
    return rc;
}

static void free_side(cmp_side *s)
{
    free(s->recs);
    store_wl_lines_free(s->wl, s->nwl);
    cJSON_Delete(s->analysis);
    cJSON_Delete(s->manifest);
    memset(s, 0, sizeof *s);
}

/* The NEW run's campaign copy, for its <regression> thresholds; *have 0
 * when the run has none. */
static int load_campaign(const char *dir, camp_campaign *c, int *have,
                         gd_err *err)
{
    char path[4096];
    *have = 0;
    util_path_join(path, sizeof path, dir, "campaign.xml");
    if (!util_path_exists(path))
        return GD_OK;
    int rc = camp_load_meta(path, c, err);
    if (!rc && (rc = cmp_check_campaign(c, err)) != GD_OK)
        camp_free(c);
    *have = rc == GD_OK;
    return rc;
}

/* ---- checks ----------------------------------------------------------- */

static cmp_check *add_check(cmp_ctx *x, const char *wl, int kind,
                            const char *name, const char *metric)
{
    if (x->nck == x->capck) {
        size_t cap = x->capck ? 2 * x->capck : 64;
        cmp_check *p = realloc(x->ck, cap * sizeof *p);
        if (!p)
            return NULL;
        x->ck = p;
        x->capck = cap;
    }
    cmp_check *c = &x->ck[x->nck++];
    memset(c, 0, sizeof *c);
    util_strlcpy(c->workload, wl, sizeof c->workload);
    util_strlcpy(c->name, name, sizeof c->name);
    util_strlcpy(c->metric, metric ? metric : "", sizeof c->metric);
    c->kind = kind;
    return c;
}

/* Keep item among the CMP_WORST largest ratios (first seen wins ties). */
static void keep_worst(cmp_check *c, const cmp_item *it)
{
    int at = c->nworst;
    while (at > 0 && it->ratio > c->worst[at - 1].ratio)
        at--;
    if (at >= CMP_WORST)
        return;
    int last = c->nworst < CMP_WORST ? c->nworst : CMP_WORST - 1;
    memmove(&c->worst[at + 1], &c->worst[at],
            (size_t)(last - at) * sizeof *it);
    c->worst[at] = *it;
    if (c->nworst < CMP_WORST)
        c->nworst++;
}

static void offend(cmp_check *c, const cmp_item *it)
{
    c->over++;
    if (it->ratio > c->max_ratio)
        c->max_ratio = it->ratio;
    keep_worst(c, it);
}

/* |change| over the allowance; NaN on one side only is infinitely far. */
static double change_ratio(double base, double now, const camp_threshold *t,
                           int *over)
{
    int nb = !isfinite(base), nn = !isfinite(now);
    *over = 0;
    if (nb || nn) {
        *over = !(nb && nn);
        return *over ? BIG_RATIO : 0;
    }
    double d = fabs(now - base), rel = t->relative_pct / 100 * fabs(base);
    *over = d > t->absolute && d > rel;
    double allow = fmax(t->absolute, rel);
    return allow > 0 ? d / allow : d > 0 ? BIG_RATIO : 0;
}

static double rel_abs(double base, double now)
{
    if (!isfinite(base) || !isfinite(now))
        return INFINITY;
    if (base == now)
        return 0;
    return base != 0 ? fabs(now - base) / fabs(base) : INFINITY;
}

/* The item of a pair; its label the config's canonical text with the user
 * knobs of its run's space (base's when it has the record). */
static void item_for(const cmp_ctx *x, cmp_item *it, const store_record *b,
                     const store_record *n)
{
    memset(it, 0, sizeof *it);
    const store_record *r = b ? b : n;
    space_config_canon(b ? &x->base.space : &x->now.space, &r->cfg,
                       it->config, sizeof it->config);
    if (b)
        util_strlcpy(it->key_base, b->key, sizeof it->key_base);
    if (n)
        util_strlcpy(it->key_new, n->key, sizeof it->key_new);
    it->base = it->now = NAN;
}

/* A finite change in the check's better direction. */
static int is_improvement(const cmp_check *c, const cmp_item *it)
{
    if (!isfinite(it->base) || !isfinite(it->now))
        return 0;
    return (c->dir == CAMP_DIR_HIGHER && it->now > it->base)
           || (c->dir == CAMP_DIR_LOWER && it->now < it->base);
}

static void compare_value(cmp_check *c, cmp_item *it)
{
    int over;
    it->ratio = change_ratio(it->base, it->now, &c->thr, &over);
    c->compared++;
    if (!c->has_largest || rel_abs(it->base, it->now)
                               > rel_abs(c->largest.base, c->largest.now)) {
        c->largest = *it;
        c->has_largest = 1;
    }
    if (over && is_improvement(c, it)) {
        c->improved++;
        if (!c->has_gain || it->ratio > c->gain.ratio) {
            c->gain = *it;
            c->has_gain = 1;
        }
    } else if (over) {
        offend(c, it);
    }
}

/* ---- workloads and their checks --------------------------------------- */

typedef struct {
    char name[64];
    size_t first;          /* index of its "status" check */
    size_t nmetric;        /* metric checks follow status, coverage, front */
} wl_entry;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted unique workload names of both sides' loaded records (pointers
 * into them). */
static const char **workload_names(const cmp_ctx *x, size_t *nout)
{
    size_t n = x->base.nrec + x->now.nrec, k = 0;
    const char **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < x->base.nrec; i++)
        v[k++] = x->base.recs[i].workload;
    for (size_t i = 0; i < x->now.nrec; i++)
        v[k++] = x->now.recs[i].workload;
    qsort(v, k, sizeof *v, cmp_name);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (!u || strcmp(v[u - 1], v[i]) != 0)
            v[u++] = v[i];
    *nout = u;
    return v;
}

static int cmp_metric_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Metric names of a workload's successful BASE jobs, sorted. */
static int metric_names(const cmp_ctx *x, const char *wl,
                        char names[][MET_NAMELEN], int max)
{
    int n = 0;
    for (size_t i = 0; i < x->base.nrec; i++) {
        const store_record *r = &x->base.recs[i];
        if (r->status != ST_OK || strcmp(r->workload, wl) != 0)
            continue;
        for (int m = 0; m < r->metrics.n; m++) {
            int seen = 0;
            for (int j = 0; j < n && !seen; j++)
                seen = strcmp(names[j], r->metrics.name[m]) == 0;
            if (!seen && n < max)
                util_strlcpy(names[n++], r->metrics.name[m], MET_NAMELEN);
        }
    }
    qsort(names, (size_t)n, MET_NAMELEN, cmp_metric_name);
    return n;
}

static int make_checks(cmp_ctx *x, const camp_campaign *camp,
                       wl_entry *wls, const char **names, size_t nwl)
{
    char met[2 * MET_MAX][MET_NAMELEN], nm[64];
    for (size_t w = 0; w < nwl; w++) {
        util_strlcpy(wls[w].name, names[w], sizeof wls[w].name);
        wls[w].first = x->nck;
        if (!add_check(x, names[w], CK_STATUS, "status", NULL)
            || !add_check(x, names[w], CK_COVERAGE, "coverage", NULL)
            || !add_check(x, names[w], CK_FRONT, "front", CMP_HYPERVOLUME))
            return -1;
        threshold_for(x, camp, CMP_HYPERVOLUME, &x->ck[x->nck - 1]);
        int nmet = metric_names(x, names[w], met, 2 * MET_MAX);
        wls[w].nmetric = (size_t)nmet;
        for (int m = 0; m < nmet; m++) {
            snprintf(nm, sizeof nm, "metric %s", met[m]);
            cmp_check *c = add_check(x, names[w], CK_METRIC, nm, met[m]);
            if (!c)
                return -1;
            threshold_for(x, camp, met[m], c);
        }
    }
    return 0;
}

static const wl_entry *find_wl(const wl_entry *wls, size_t n,
                               const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int d = strcmp(wls[mid].name, name);
        if (d == 0)
            return &wls[mid];
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- matching --------------------------------------------------------- */

typedef struct {
    const store_record *r;
    size_t at;             /* index in its journal */
    char id[64 + 200];     /* key, or workload|canonical config */
} match_ref;

typedef struct {
    const store_record *b, *n;   /* either may be NULL: only on one side */
    int by_config;
} rec_pair;

static int cmp_ref(const void *a, const void *b)
{
    const match_ref *p = a, *q = b;
    int d = strcmp(p->id, q->id);
    return d ? d : (p->at < q->at ? -1 : p->at > q->at);
}

/* The side's records not yet paired, sorted by id. */
static match_ref *refs_of(const cmp_side *s, const unsigned char *paired,
                          int by_config, size_t *nout)
{
    match_ref *v = calloc(s->nrec ? s->nrec : 1, sizeof *v);
    size_t k = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < s->nrec; i++) {
        if (paired[i])
            continue;
        v[k].r = &s->recs[i];
        v[k].at = i;
        if (by_config) {
            char canon[SPACE_CANON_MAX];
            space_config_canon(&s->space, &s->recs[i].cfg, canon,
                               sizeof canon);
            snprintf(v[k].id, sizeof v[k].id, "%s|%s", s->recs[i].workload,
                     canon);
        } else {
            util_strlcpy(v[k].id, s->recs[i].key, sizeof v[k].id);
        }
        k++;
    }
    qsort(v, k, sizeof *v, cmp_ref);
    *nout = k;
    return v;
}

/* Pair records of both sides with equal ids. */
static int match_pass(cmp_ctx *x, int by_config, unsigned char *pb,
                      unsigned char *pn, rec_pair *out, size_t *np)
{
    size_t na, nb, i = 0, j = 0;
    match_ref *a = refs_of(&x->base, pb, by_config, &na);
    match_ref *b = refs_of(&x->now, pn, by_config, &nb);
    int rc = a && b ? 0 : -1;
    while (!rc && i < na && j < nb) {
        int d = strcmp(a[i].id, b[j].id);
        if (d == 0) {
            out[(*np)++] = (rec_pair){ a[i].r, b[j].r, by_config };
            pb[a[i].at] = pn[b[j].at] = 1;
            *(by_config ? &x->by_config : &x->by_key) += 1;
            i++;
            j++;
        } else if (d < 0) {
            i++;
        } else {
            j++;
        }
    }
    free(a);
    free(b);
    return rc;
}

/* Every loaded record of both sides in one pair: matched by key, by
 * workload + config, or alone. */
static int match_all(cmp_ctx *x, rec_pair **out, size_t *np)
{
    unsigned char *pb = calloc(x->base.nrec + 1, 1);
    unsigned char *pn = calloc(x->now.nrec + 1, 1);
    rec_pair *p = malloc((x->base.nrec + x->now.nrec + 1) * sizeof *p);
    int rc = pb && pn && p ? 0 : -1;
    *np = 0;
    if (!rc)
        rc = match_pass(x, 0, pb, pn, p, np);
    if (!rc)
        rc = match_pass(x, 1, pb, pn, p, np);
    for (size_t i = 0; !rc && i < x->base.nrec; i++)
        if (!pb[i]) {
            p[(*np)++] = (rec_pair){ &x->base.recs[i], NULL, 0 };
            x->only_base++;
        }
    for (size_t i = 0; !rc && i < x->now.nrec; i++)
        if (!pn[i]) {
            p[(*np)++] = (rec_pair){ NULL, &x->now.recs[i], 0 };
            x->only_new++;
        }
    free(pb);
    free(pn);
    if (rc)
        free(p);
    else
        *out = p;
    return rc;
}

/* ---- per pair ---------------------------------------------------------- */

static void check_coverage(const cmp_ctx *x, cmp_check *c,
                           const rec_pair *p)
{
    cmp_item it;
    item_for(x, &it, p->b, p->n);
    it.ratio = BIG_RATIO;
    if (!p->n) {
        c->compared++;
        c->missing++;
        util_strlcpy(it.label, "missing in NEW", sizeof it.label);
        offend(c, &it);
    } else if (!p->b) {
        c->added++;
    } else {
        c->compared++;
        if (strcmp(p->b->fidelity, p->n->fidelity) != 0) {
            c->fidelity++;
            snprintf(it.label, sizeof it.label, "fidelity %s -> %s "
                     "(not comparable)", p->b->fidelity, p->n->fidelity);
            offend(c, &it);
        }
    }
}

/* b NULL: a job only NEW has, counted only when it failed. */
static void check_status(const cmp_ctx *x, cmp_check *c,
                         const store_record *b,
                         const store_record *n)
{
    int okb = !b || b->status == ST_OK, okn = n->status == ST_OK;
    c->compared++;
    if (okb && !okn) {
        cmp_item it;
        item_for(x, &it, b, n);
        it.ratio = BIG_RATIO;
        snprintf(it.label, sizeof it.label, "%s -> %s%s%.60s",
                 b ? "ok" : "new job", store_status_name(n->status),
                 n->reason[0] ? ": " : "", n->reason);
        offend(c, &it);
    } else if (!okb && okn) {
        c->fixed++;
    } else if (!okb) {
        c->still++;
    }
}

static void check_metrics(cmp_ctx *x, const wl_entry *w,
                          const store_record *b, const store_record *n)
{
    for (size_t m = 0; m < w->nmetric; m++) {
        cmp_check *c = &x->ck[w->first + 3 + m];
        double vb, vn;
        if (met_get(&b->metrics, c->metric, &vb) != 0)
            continue;
        cmp_item it;
        item_for(x, &it, b, n);
        it.base = vb;
        if (met_get(&n->metrics, c->metric, &vn) == 0)
            it.now = vn;
        else
            util_strlcpy(it.label, "missing in NEW", sizeof it.label);
        compare_value(c, &it);
    }
}

static void check_pair(cmp_ctx *x, const wl_entry *wls, size_t nwl,
                       const rec_pair *p)
{
    const store_record *r = p->b ? p->b : p->n;
    const wl_entry *w = find_wl(wls, nwl, r->workload);
    if (!w)
        return;
    check_coverage(x, &x->ck[w->first + 1], p);
    if (!p->b && p->n->status != ST_OK)   /* a new job that fails */
        check_status(x, &x->ck[w->first], NULL, p->n);
    if (!p->b || !p->n || strcmp(p->b->fidelity, p->n->fidelity) != 0)
        return;
    check_status(x, &x->ck[w->first], p->b, p->n);
    if (p->b->status == ST_OK && p->n->status == ST_OK)
        check_metrics(x, w, p->b, p->n);
}

/* ---- Pareto fronts (analysis.json) ------------------------------------- */

static const cJSON *analysis_wl(const cJSON *analysis, const char *name)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(analysis,
                                                           "workloads")) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(w, "name");
        if (cJSON_IsString(nm) && strcmp(nm->valuestring, name) == 0)
            return w;
    }
    return NULL;
}

/* Canonical config text of an analysis.json "config" object: its built-in
 * knobs, then ",name=level" for each other member (the user knobs, in the
 * campaign's order), as space_config_canon writes it. */
static void config_canon(const cJSON *cfg, char *out, size_t n)
{
    char base[SPACE_CANON_MAX];
    util_buf b;
    const cJSON *m;
    util_buf_init(&b);
    gpu_config c = space_baseline();
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(
            cfg, space_knob_get(k)->name);
        int val;
        if (cJSON_IsNumber(v))
            space_set(&c, k, v->valueint);
        else if (cJSON_IsString(v)
                 && space_value_parse(k, v->valuestring, &val) == 0)
            space_set(&c, k, val);
    }
    space_config_canon(NULL, &c, base, sizeof base);
    util_buf_puts(&b, base);
    cJSON_ArrayForEach(m, cfg) {
        if (!m->string || space_knob_find(m->string) >= 0)
            continue;
        if (cJSON_IsString(m))
            util_buf_printf(&b, ",%s=%s", m->string, m->valuestring);
        else if (cJSON_IsNumber(m))
            util_buf_printf(&b, ",%s=%d", m->string, m->valueint);
    }
    util_strlcpy(out, b.s ? b.s : "", n);
    util_buf_free(&b);
}

/* Points of front a whose config is not in front b. */
static long front_minus(const cJSON *a, const cJSON *b)
{
    const cJSON *p, *q;
    long count = 0;
    char ca[SPACE_CANON_MAX], cb[SPACE_CANON_MAX];
    cJSON_ArrayForEach(p, a) {
        int found = 0;
        config_canon(cJSON_GetObjectItemCaseSensitive(p, "config"), ca,
                     sizeof ca);
        cJSON_ArrayForEach(q, b) {
            config_canon(cJSON_GetObjectItemCaseSensitive(q, "config"), cb,
                         sizeof cb);
            if (strcmp(ca, cb) == 0) {
                found = 1;
                break;
            }
        }
        count += !found;
    }
    return count;
}

static double hv_value(const cJSON *w)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(w, "hypervolume");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, "value");
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void check_front(const cmp_ctx *x, cmp_check *c)
{
    const cJSON *ab = analysis_wl(x->base.analysis, c->workload);
    const cJSON *an = analysis_wl(x->now.analysis, c->workload);
    if (!ab) {
        c->result = RES_SKIP;
        snprintf(c->note, sizeof c->note, "no Pareto front for %s in "
                 "BASE%s", c->workload, x->base.analysis ? ""
                 : " (no analysis.json)");
        return;
    }
    const cJSON *fb = cJSON_GetObjectItemCaseSensitive(ab, "front");
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(an, "front");
    c->nb = cJSON_GetArraySize(fb);
    if (!an) {
        cmp_item it = { .base = hv_value(ab), .now = NAN,
                        .ratio = BIG_RATIO };
        util_strlcpy(it.label, "front missing in NEW", sizeof it.label);
        c->compared = 1;
        offend(c, &it);
        snprintf(c->note, sizeof c->note, "the Pareto front of %s is missing "
                 "in NEW%s", c->workload, x->now.analysis ? ""
                 : " (no analysis.json)");
        return;
    }
    c->nn = cJSON_GetArraySize(fn);
    c->gained = front_minus(fn, fb);
    c->lost = front_minus(fb, fn);
    cmp_item it = { .base = hv_value(ab), .now = hv_value(an) };
    util_strlcpy(it.label, "hypervolume", sizeof it.label);
    const cJSON *ob = cJSON_GetObjectItemCaseSensitive(x->base.analysis,
                                                       "objectives");
    const cJSON *on = cJSON_GetObjectItemCaseSensitive(x->now.analysis,
                                                       "objectives");
    if (!cJSON_Compare(ob, on, 1)) {
        c->result = RES_SKIP;
        snprintf(c->note, sizeof c->note, "objectives differ between the "
                 "runs: hypervolumes not comparable; front %ld -> %ld "
                 "points", c->nb, c->nn);
        return;
    }
    compare_value(c, &it);
    char rel[32];
    cmp_rel_text(it.base, it.now, rel, sizeof rel);
    snprintf(c->note, sizeof c->note, "hypervolume %.6g -> %.6g (%s); front "
             "%ld -> %ld points, %ld gained, %ld lost", it.base, it.now, rel,
             c->nb, c->nn, c->gained, c->lost);
}

/* ---- calibration error (analysis.json "calibration") ------------------- */

static const cJSON *calib_entry(const cJSON *analysis, int i)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(analysis,
                                                      "calibration");
    if (cJSON_IsObject(v))
        return i == 0 ? v : NULL;
    return cJSON_IsArray(v) ? cJSON_GetArrayItem(v, i) : NULL;
}

/* MAPE (percent) of an entry's predicted-vs-measured points; NaN when it
 * has none usable. */
static double calib_mape(const cJSON *e, size_t *npts)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(e, "points");
    double *pred, *ref, out = NAN;
    size_t k = 0;
    calm_metrics m;
    if (verification_points(pts, &pred, &ref, &k) == 0 && k
        && calm_compute(ref, pred, k, &m) == 0)
        out = 100 * m.mape;
    *npts = k;
    free(ref);
    free(pred);
    return out;
}

static const char *entry_metric(const cJSON *e)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "metric");
    return cJSON_IsString(m) ? m->valuestring : "value";
}

/* One check per calibration entry of BASE (and of NEW beyond them); only
 * an error that grows past the threshold fails. Nothing when neither run
 * has calibration data. */
static int check_calibration(cmp_ctx *x, const camp_campaign *camp)
{
    for (int i = 0;; i++) {
        const cJSON *eb = calib_entry(x->base.analysis, i);
        const cJSON *en = calib_entry(x->now.analysis, i);
        if (!eb && !en)
            return 0;
        char nm[64];
        snprintf(nm, sizeof nm, "calibration %.24s #%d",
                 entry_metric(eb ? eb : en), i + 1);
        cmp_check *c = add_check(x, "", CK_CALIB, nm, CMP_CALIB_MAPE);
        if (!c)
            return -1;
        threshold_for(x, camp, CMP_CALIB_MAPE, c);
        size_t kb = 0, kn = 0;
        cmp_item it = { .base = eb ? calib_mape(eb, &kb) : NAN,
                        .now = en ? calib_mape(en, &kn) : NAN };
        snprintf(it.label, sizeof it.label, "MAPE %% (%zu -> %zu points)",
                 kb, kn);
        c->nb = (long)kb;
        c->nn = (long)kn;
        if (!isfinite(it.base)) {
            c->result = RES_SKIP;
            snprintf(c->note, sizeof c->note, "no usable calibration data "
                     "in BASE");
            continue;
        }
        int over;
        it.ratio = change_ratio(it.base, it.now, &c->thr, &over);
        c->compared = 1;
        c->largest = it;
        c->has_largest = 1;
        if (over && !(it.now < it.base))   /* an improvement passes */
            offend(c, &it);
        snprintf(c->note, sizeof c->note, "calibration error (MAPE) %.4g%% "
                 "-> %.4g%%", it.base, it.now);
    }
}

/* ---- the whole comparison ---------------------------------------------- */

static void decide(cmp_ctx *x)
{
    for (size_t i = 0; i < x->nck; i++) {
        cmp_check *c = &x->ck[i];
        if (c->result == RES_SKIP)
            continue;
        c->result = c->over || (c->improved && x->o->fail_on_improvement)
                    ? RES_FAIL : RES_PASS;
    }
}

/* ---- one workload at a time -------------------------------------------- */

/* A workload to compare: its lines' list in either journal's index (-1
 * when the journal has none). */
typedef struct {
    const char *name;
    int ib, in;
} cmp_unit;

static int cmp_unit_name(const void *a, const void *b)
{
    const cmp_unit *p = a, *q = b;
    int d = strcmp(p->name, q->name);
    return d ? d : q->ib - p->ib;   /* BASE's entry first */
}

/* The workloads of both journals' indices in name order (the order of
 * their checks), each once. */
static cmp_unit *units_of(const cmp_ctx *x, size_t *nout)
{
    size_t n = (size_t)x->base.nwl + (size_t)x->now.nwl, k = 0;
    cmp_unit *u = malloc((n ? n : 1) * sizeof *u);
    if (!u)
        return NULL;
    for (int i = 0; i < x->base.nwl; i++)
        u[k++] = (cmp_unit){ x->base.wl[i].name, i, -1 };
    for (int i = 0; i < x->now.nwl; i++)
        u[k++] = (cmp_unit){ x->now.wl[i].name, -1, i };
    qsort(u, k, sizeof *u, cmp_unit_name);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && strcmp(u[m - 1].name, u[i].name) == 0)
            u[m - 1].in = u[i].in;
        else
            u[m++] = u[i];
    }
    *nout = m;
    return u;
}

static int cmp_line_off(const void *a, const void *b)
{
    const store_line *p = a, *q = b;
    return (p->off > q->off) - (p->off < q->off);
}

/* Read these lines of the side's journal in place of the records held
 * (each key's latest, in journal order), counting them into s->n. */
static int load_lines(cmp_side *s, const store_line *lines, size_t n,
                      gd_err *err)
{
    free(s->recs);
    s->recs = NULL;
    s->nrec = 0;
    if (!n)
        return GD_OK;
    int rc = store_load_lines_in(s->journal, &s->space, lines, n, &s->recs,
                                 &s->nrec, err);
    if (!rc)
        s->n += s->nrec;
    return rc;
}

/* Every line of the side's journal at once, in journal order. */
static int load_whole(cmp_side *s, gd_err *err)
{
    size_t n = 0;
    for (int i = 0; i < s->nwl; i++)
        n += s->wl[i].n;
    store_line *all = malloc((n ? n : 1) * sizeof *all);
    if (!all)
        return gd_errf(err, GD_EENV, "%s: out of memory", s->journal);
    n = 0;
    for (int i = 0; i < s->nwl; i++) {
        memcpy(all + n, s->wl[i].line, s->wl[i].n * sizeof *all);
        n += s->wl[i].n;
    }
    qsort(all, n, sizeof *all, cmp_line_off);
    int rc = load_lines(s, all, n, err);
    free(all);
    return rc;
}

/* The index names a workload by its text in the lines; with an escape in
 * it, that may not be the record's name. */
static int escaped_names(const cmp_side *s)
{
    for (int i = 0; i < s->nwl; i++)
        if (strchr(s->wl[i].name, '\\'))
            return 1;
    return 0;
}

/* Whether every record held is of workload name. */
static int all_named(const cmp_side *s, const char *name)
{
    for (size_t i = 0; i < s->nrec; i++)
        if (strcmp(s->recs[i].workload, name) != 0)
            return 0;
    return 1;
}

/* The checks of the workloads of the records held (one workload, or
 * every workload at once): status, coverage, front and metrics. -1 when
 * out of memory. */
static int held_checks(cmp_ctx *x, const camp_campaign *camp)
{
    size_t nwl = 0, np = 0;
    const char **names = workload_names(x, &nwl);
    wl_entry *wls = calloc(nwl + 1, sizeof *wls);
    rec_pair *pairs = NULL;
    int rc = names && wls ? make_checks(x, camp, wls, names, nwl) : -1;
    if (!rc)
        rc = match_all(x, &pairs, &np);
    for (size_t i = 0; !rc && i < np; i++)
        check_pair(x, wls, nwl, &pairs[i]);
    for (size_t w = 0; !rc && w < nwl; w++)
        check_front(x, &x->ck[wls[w].first + 2]);
    free(pairs);
    free(wls);
    free(names);
    return rc;
}

/* Each workload's checks with only its records of both journals in
 * memory, in name order; every workload at once when whole. *mixed set
 * (and nothing more done) when a workload's lines held records of
 * another. */
static int checks_by_workload(cmp_ctx *x, const camp_campaign *camp,
                              int whole, int *mixed, gd_err *err)
{
    size_t nu = 1;
    cmp_unit *u = whole ? NULL : units_of(x, &nu);
    int rc = whole || u ? GD_OK : gd_errf(err, GD_EENV, "compare: out of "
                                          "memory");
    *mixed = 0;
    for (size_t k = 0; !rc && k < nu; k++) {
        if (whole) {
            rc = load_whole(&x->base, err);
            if (!rc)
                rc = load_whole(&x->now, err);
        } else {
            const store_wl_lines *b = u[k].ib >= 0 ? &x->base.wl[u[k].ib]
                                                   : NULL;
            const store_wl_lines *n = u[k].in >= 0 ? &x->now.wl[u[k].in]
                                                   : NULL;
            rc = load_lines(&x->base, b ? b->line : NULL, b ? b->n : 0, err);
            if (!rc)
                rc = load_lines(&x->now, n ? n->line : NULL, n ? n->n : 0,
                                err);
            if (!rc && (!all_named(&x->base, u[k].name)
                        || !all_named(&x->now, u[k].name))) {
                *mixed = 1;
                break;
            }
        }
        if (!rc && held_checks(x, camp) != 0)
            rc = gd_errf(err, GD_EENV, "compare: out of memory");
    }
    free(u);
    return rc;
}

/* Back to no checks and no records read. */
static void restart(cmp_ctx *x)
{
    x->nck = 0;
    x->by_key = x->by_config = x->only_base = x->only_new = 0;
    x->base.n = x->now.n = 0;
}

static int run_checks(cmp_ctx *x, const camp_campaign *camp, gd_err *err)
{
    int mixed = 0;
    int whole = escaped_names(&x->base) || escaped_names(&x->now);
    int rc = checks_by_workload(x, camp, whole, &mixed, err);
    if (!rc && mixed) {
        restart(x);
        rc = checks_by_workload(x, camp, 1, &mixed, err);
    }
    free(x->base.recs);
    free(x->now.recs);
    x->base.recs = x->now.recs = NULL;
    x->base.nrec = x->now.nrec = 0;
    if (!rc && check_calibration(x, camp) != 0)
        rc = gd_errf(err, GD_EENV, "compare: out of memory");
    if (!rc)
        decide(x);
    return rc;
}

static int any_failed(const cmp_ctx *x)
{
    for (size_t i = 0; i < x->nck; i++)
        if (x->ck[i].result == RES_FAIL)
            return 1;
    return 0;
}

/* The JUnit file's folder must exist: checked before anything is
 * written. */
static int check_junit_path(const char *path, gd_err *err)
{
    char dir[4096];
    if (!path)
        return GD_OK;
    if (!*path || util_is_dir(path))
        return gd_errf(err, GD_EINPUT, "--junit \"%s\": not a file name",
                       path);
    util_dirname(dir, sizeof dir, path);
    if (!util_is_dir(dir))
        return gd_errf(err, GD_EINPUT, "--junit %s: folder %s does not "
                       "exist", path, dir);
    return GD_OK;
}

int cmp_run(const cmp_opts *o, util_buf *summary, gd_err *err)
{
    cmp_ctx x;
    camp_campaign camp;
    int have_camp = 0;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.dflt = (camp_threshold){ "*", CMP_DEFAULT_REL_PCT, CMP_DEFAULT_ABS,
                               CAMP_DIR_UNSET };
    x.dflt_source = "default";
    int rc = check_junit_path(o->junit_path, err);
    if (!rc)
        rc = load_side(o->base_dir, &x.base, err);
    if (!rc)
        rc = load_side(o->new_dir, &x.now, err);
    if (!rc)
        rc = load_campaign(o->new_dir, &camp, &have_camp, err);
    if (!rc)
        rc = run_checks(&x, have_camp ? &camp : NULL, err);
    size_t *order = rc ? NULL : cmp_severity_order(&x);
    if (!rc && !order)
        rc = gd_errf(err, GD_EENV, "compare: out of memory");
    if (!rc)
        rc = cmp_write_json(&x, order, err);
    if (!rc && o->junit_path)
        rc = cmp_write_junit(&x, o->junit_path, err);
    if (!rc && summary)
        cmp_summary(&x, order, summary);
    if (!rc && any_failed(&x) && !o->accept)
        rc = GD_EJOBS;
    free(order);
    free(x.ck);
    if (have_camp)
        camp_free(&camp);
    free_side(&x.base);
    free_side(&x.now);
    return rc;
}
