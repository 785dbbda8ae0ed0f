/* strategy: the strategy interface and what every strategy shares — the
 * budget, the never-twice bookkeeping, observations, Latin hypercube
 * sampling — plus the non-adaptive strategies: exhaustive (index order),
 * random (distinct points, GSL MT19937 from the seed) and lhs (a Latin
 * hypercube over the knob levels). Adaptive ones live in strat_*.c. */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "pareto.h"

/* ---- non-adaptive kinds: a precomputed order ---- */

static int init_exhaustive(strat *st)
{
    for (uint64_t i = 0; i < st->cap; i++)
        st->order[i] = i;
    st->norder = st->cap;
    return 0;
}

/* A uniformly random sample of cap distinct indices, in random order: a
 * partial Fisher-Yates shuffle (the same draws as gpudse 0.1's random). */
static int init_random(strat *st)
{
    uint64_t *all = malloc(st->size * sizeof *all);
    if (!all)
        return -1;
    for (uint64_t i = 0; i < st->size; i++)
        all[i] = i;
    for (uint64_t i = 0; i < st->cap; i++) {
        uint64_t j = i + (uint64_t)gsl_rng_uniform_int(st->rng, st->size - i);
        uint64_t t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    memcpy(st->order, all, st->cap * sizeof *all);
    st->norder = st->cap;
    free(all);
    return 0;
}

static int init_lhs(strat *st)
{
    st->norder = strat_lhs(st, (size_t)st->cap, st->order);
    return 0;
}

static size_t next_ordered(strat *st, gpu_config *out, size_t max)
{
    return strat_emit_queued(st, out, max);
}

static const strat_kind kind_exhaustive = {"exhaustive", 0, init_exhaustive,
                                           next_ordered, NULL, NULL};
static const strat_kind kind_random = {"random", 0, init_random,
                                       next_ordered, NULL, NULL};
static const strat_kind kind_lhs = {"lhs", 0, init_lhs, next_ordered, NULL,
                                    NULL};

static const strat_kind *const kinds[] = {
    &kind_exhaustive, &kind_random, &kind_lhs, &strat_kind_nsga2,
    &strat_kind_surrogate, &strat_kind_agent,
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static const strat_kind *find_kind(const char *name)
{
    for (size_t i = 0; name && i < NKINDS; i++)
        if (strcmp(name, kinds[i]->name) == 0)
            return kinds[i];
    return NULL;
}

int strat_known(const char *name)
{
    return find_kind(name) != NULL;
}

const char *strat_names(void)
{
    return "exhaustive, random, lhs, nsga2, surrogate, agent";
}

int strat_check_campaign(const camp_campaign *c, gd_err *err)
{
    if (!strat_known(c->strategy))
        return camp_errf(c, c->search_line, err, "unknown search strategy "
                         "\"%s\" (known: %s)", c->strategy, strat_names());
    for (int i = 0; i < c->nstudy; i++)
        if (!strat_known(c->study[i]))
            return camp_errf(c, c->study_line, err, "unknown search strategy "
                             "\"%s\" in <study> (known: %s)", c->study[i],
                             strat_names());
    char why[256];
    if (c->search_agents_line
        && strat_check_agents(c->strategy, &c->search_agents, why,
                              sizeof why) != 0)
        return camp_errf(c, c->search_agents_line, err, "%s", why);
    return GD_OK;
}

/* ---- shared helpers ---- */

uint64_t strat_left(const strat *st)
{
    return st->cap - st->issued;
}

uint64_t strat_pending(const strat *st)
{
    return st->issued > st->nobs ? st->issued - st->nobs : 0;
}

void strat_emit(strat *st, uint64_t idx, gpu_config *out, size_t *k)
{
    st->seen[idx] = 1;
    st->issued++;
    out[(*k)++] = space_at(&st->space, idx);
}

void strat_queue(strat *st, const uint64_t *idx, size_t n)
{
    for (size_t i = 0; i < n && st->norder < st->cap; i++)
        st->order[st->norder++] = idx[i];
}

size_t strat_emit_queued(strat *st, gpu_config *out, size_t max)
{
    size_t k = 0;
    while (k < max && st->next < st->norder) {
        uint64_t idx = st->order[st->next++];
        if (!st->seen[idx])
            strat_emit(st, idx, out, &k);
    }
    return k;
}

int64_t strat_random_unseen(strat *st)
{
    for (int tries = 0; tries < 64; tries++) {
        uint64_t i = (uint64_t)gsl_rng_uniform_int(st->rng, st->size);
        if (!st->seen[i])
            return (int64_t)i;
    }
    uint64_t start = (uint64_t)gsl_rng_uniform_int(st->rng, st->size);
    for (uint64_t d = 0; d < st->size; d++) {
        uint64_t i = (start + d) % st->size;
        if (!st->seen[i])
            return (int64_t)i;
    }
    return -1;
}

size_t strat_emit_random(strat *st, gpu_config *out, size_t want)
{
    size_t k = 0;
    while (k < want) {
        int64_t i = strat_random_unseen(st);
        if (i < 0)
            break;
        strat_emit(st, (uint64_t)i, out, &k);
    }
    return k;
}

void strat_levels(const strat *st, uint64_t idx, int lv[SPACE_MAXKNOBS])
{
    for (int k = space_nknobs(&st->space) - 1; k >= 0; k--) {
        uint64_t n = (uint64_t)st->space.nlevels[k];
        lv[k] = (int)(idx % n);
        idx /= n;
    }
}

uint64_t strat_index_of(const strat *st, const int lv[SPACE_MAXKNOBS])
{
    uint64_t idx = 0;
    for (int k = 0; k < space_nknobs(&st->space); k++)
        idx = idx * (uint64_t)st->space.nlevels[k] + (uint64_t)lv[k];
    return idx;
}

/* The unseen point nearest to lv (fewest knobs changed, searched by
 * random single-knob moves, then any random unseen point). */
static int64_t nearest_unseen(strat *st, const int lv[SPACE_MAXKNOBS],
                              const unsigned char *taken)
{
    int cur[SPACE_MAXKNOBS];
    for (int tries = 0; tries < 256; tries++) {
        memcpy(cur, lv, sizeof cur);
        int moves = 1 + tries / 32;
        for (int m = 0; m < moves; m++) {
            int k = (int)gsl_rng_uniform_int(
                st->rng, (unsigned long)space_nknobs(&st->space));
            if (st->space.nlevels[k] > 1)
                cur[k] = (int)gsl_rng_uniform_int(
                    st->rng, (unsigned long)st->space.nlevels[k]);
        }
        uint64_t i = strat_index_of(st, cur);
        if (!st->seen[i] && !taken[i])
            return (int64_t)i;
    }
    for (uint64_t i = 0; i < st->size; i++)
        if (!st->seen[i] && !taken[i])
            return (int64_t)i;
    return -1;
}

size_t strat_lhs(strat *st, size_t m, uint64_t *out)
{
    if (m == 0)
        return 0;
    int *col = malloc((m ? m : 1) * SPACE_MAXKNOBS * sizeof *col);
    unsigned char *taken = calloc(st->size, 1);
    if (!col || !taken) {
        free(col);
        free(taken);
        return 0;
    }
    /* Each knob: its levels repeated evenly over m rows, then shuffled. */
    int base_lv[SPACE_MAXKNOBS];
    int with_base = st->base_idx >= 0 && !st->seen[st->base_idx];
    if (with_base)
        strat_levels(st, (uint64_t)st->base_idx, base_lv);
    for (int k = 0; k < space_nknobs(&st->space); k++) {
        int nl = st->space.nlevels[k];
        int *c = col + (size_t)k * m;
        for (size_t i = 0; i < m; i++)
            c[i] = (int)(i % (size_t)nl);
        gsl_ran_shuffle(st->rng, c, m, sizeof *c);
        /* The baseline is the first row (swapped in: every level keeps
         * its count), so every start design holds it. */
        for (size_t i = 0; with_base && i < m; i++)
            if (c[i] == base_lv[k]) {
                c[i] = c[0];
                c[0] = base_lv[k];
                break;
            }
    }
    size_t got = 0;
    for (size_t i = 0; i < m; i++) {
        int lv[SPACE_MAXKNOBS];
        for (int k = 0; k < space_nknobs(&st->space); k++)
            lv[k] = col[(size_t)k * m + i];
        uint64_t idx = strat_index_of(st, lv);
        int64_t pick = (!st->seen[idx] && !taken[idx])
                           ? (int64_t)idx : nearest_unseen(st, lv, taken);
        if (pick < 0)
            break;
        taken[pick] = 1;
        out[got++] = (uint64_t)pick;
    }
    free(col);
    free(taken);
    return got;
}

size_t strat_front(const strat *st, size_t *pos)
{
    size_t k = (size_t)st->nobj, n = 0;
    double *pts = malloc((st->nobs ? st->nobs : 1) * k * sizeof *pts);
    size_t *map = malloc((st->nobs ? st->nobs : 1) * sizeof *map);
    size_t *idx = malloc((st->nobs ? st->nobs : 1) * sizeof *idx);
    if (!pts || !map || !idx) {
        free(pts); free(map); free(idx);
        return 0;
    }
    double least = HUGE_VAL;    /* the smallest violation of an ok row */
    for (size_t i = 0; i < st->nobs; i++)
        if (st->obs[i].ok && st->obs[i].viol < least)
            least = st->obs[i].viol;
    for (size_t i = 0; i < st->nobs; i++)
        if (st->obs[i].ok && st->obs[i].viol == least) {
            memcpy(pts + n * k, st->obs[i].y, k * sizeof *pts);
            map[n++] = i;
        }
    size_t nf = pareto_front(pts, n, k, idx);
    for (size_t i = 0; i < nf; i++)
        pos[i] = map[idx[i]];
    free(pts); free(map); free(idx);
    return nf;
}

/* ---- interface ---- */

static void default_objectives(strat *st)
{
    st->nobj = 2;
    util_strlcpy(st->obj[0].metric, "ipc", sizeof st->obj[0].metric);
    st->obj[0].maximize = 1;
    util_strlcpy(st->obj[1].metric, "area_mm2", sizeof st->obj[1].metric);
    st->obj[1].maximize = 0;
}

static int alloc_state(strat *st)
{
    st->seen = calloc(st->size, 1);
    st->order = malloc((st->cap ? st->cap : 1) * sizeof *st->order);
    st->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (st->kind->adaptive) {
        st->obs_at = malloc(st->size * sizeof *st->obs_at);
        if (st->obs_at)
            for (uint64_t i = 0; i < st->size; i++)
                st->obs_at[i] = -1;
    }
    return st->seen && st->order && st->rng
                   && (!st->kind->adaptive || st->obs_at) ? 0 : -1;
}

int strat_new(const char *name, const space_def *s, long budget,
              uint64_t seed, strat **out, gd_err *err)
{
    const strat_kind *kind = find_kind(name);
    if (!kind)
        return gd_errf(err, GD_EINPUT, "unknown search strategy \"%s\" "
                       "(known: %s)", name ? name : "", strat_names());
    if (budget < 1)
        return gd_errf(err, GD_EINPUT, "budget must be at least 1");
    uint64_t size = space_size(s);
    if (size > (1u << 26))
        return gd_errf(err, GD_EINPUT, "design space of %llu points is too "
                       "large to enumerate", (unsigned long long)size);
    strat *st = calloc(1, sizeof *st);
    if (!st)
        return gd_errf(err, GD_EENV, "out of memory");
    st->kind = kind;
    st->space = *s;
    st->size = size;
    st->cap = (uint64_t)budget < size ? (uint64_t)budget : size;
    st->batch = 8;
    default_objectives(st);
    if (alloc_state(st) != 0) {
        strat_free(st);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    gpu_config base = space_baseline();
    st->base_idx = space_index(&st->space, &base);
    gsl_rng_set(st->rng, (unsigned long)seed);
    if (kind->init(st) != 0) {
        strat_free(st);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    *out = st;
    return GD_OK;
}

int strat_set_objectives(strat *st, const camp_objective *obj, int n,
                         gd_err *err)
{
    if (n < 1 || n > CAMP_MAXOBJ)
        return gd_errf(err, GD_EINPUT, "a strategy needs 1 to %d objectives",
                       CAMP_MAXOBJ);
    if (st->nobs > 0)
        return gd_errf(err, GD_EENV, "objectives set after results were "
                       "observed");
    st->nobj = n;
    memcpy(st->obj, obj, (size_t)n * sizeof *obj);
    return GD_OK;
}

int strat_extensible(const char *name)
{
    const strat_kind *k = find_kind(name);
    return k && k->adaptive;
}

int strat_extend(strat *st, long budget)
{
    uint64_t cap = (uint64_t)budget < st->size ? (uint64_t)budget : st->size;
    if (!st->kind->adaptive)
        return -1;
    if (cap <= st->cap)
        return 0;
    uint64_t *o = realloc(st->order, cap * sizeof *o);
    if (!o)
        return -1;
    st->order = o;
    st->cap = cap;
    return 0;
}

void strat_set_batch(strat *st, size_t n)
{
    st->batch = n ? n : 1;
}

/* Whether the baseline still has to be proposed: it lies in the space and
 * nothing proposed or observed it yet. Exhaustive covers it anyway. */
static int baseline_owed(const strat *st)
{
    return st->base_idx >= 0 && !st->seen[st->base_idx]
           && st->kind != &kind_exhaustive;
}

size_t strat_next(strat *st, gpu_config *out, size_t max)
{
    if (max == 0 || strat_left(st) == 0)
        return 0;
    if (max > strat_left(st))
        max = (size_t)strat_left(st);
    if (!baseline_owed(st))
        return st->kind->next(st, out, max);
    /* Every strategy evaluates the baseline, inside the budget: the
     * strategy's own first proposals (which may hold it), then the
     * baseline in the slot kept for it. */
    size_t k = max > 1 ? st->kind->next(st, out, max - 1) : 0;
    if (baseline_owed(st))
        strat_emit(st, (uint64_t)st->base_idx, out, &k);
    else if (k < max)   /* it was among them: the kept slot is free again */
        k += st->kind->next(st, out + k, max - k);
    return k;
}

int strat_has_baseline(const strat *st)
{
    return st->base_idx >= 0;
}

int strat_done(const strat *st)
{
    if (strat_left(st) == 0)
        return 1;
    if (!st->kind->adaptive)
        return st->next >= st->norder;
    return st->next >= st->norder && st->issued >= st->size;
}

static void fill_obs(const strat *st, const store_record *r, strat_obs *o)
{
    o->ok = r->status == ST_OK;
    for (int j = 0; j < st->nobj; j++) {
        double v = NAN;
        if (o->ok && met_get(&r->metrics, st->obj[j].metric, &v) == 0
            && isfinite(v))
            o->y[j] = st->obj[j].maximize ? -v : v;
        else {
            o->y[j] = NAN;
            o->ok = 0;
        }
    }
    strat_obs_constraints(st, r, o);
    util_strlcpy(o->bottleneck, r->bottleneck, sizeof o->bottleneck);
    util_strlcpy(o->limit, r->limit, sizeof o->limit);
    struct { const char *m; double *v; } want[] = {
        {"occupancy", &o->occupancy}, {"l1d_miss_rate", &o->l1d_miss_rate},
        {"l2_miss_rate", &o->l2_miss_rate}, {"dram_bw_gbps", &o->dram_bw_gbps},
        {"l2_bw_gbps", &o->l2_bw_gbps},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (met_get(&r->metrics, want[i].m, want[i].v) != 0)
            *want[i].v = NAN;
}

int strat_reads_results(const strat *st)
{
    return st->kind->adaptive != 0;
}

void strat_observe(strat *st, const gpu_config *c, const store_record *r)
{
    int64_t idx = space_index(&st->space, c);
    if (idx < 0)
        return;
    if (!st->seen[idx]) {
        /* not proposed by us (a journal from another path): never again */
        st->seen[idx] = 1;
    }
    if (!st->kind->adaptive || st->obs_at[idx] >= 0)
        return;
    if (st->nobs == st->capobs) {
        size_t cap = st->capobs ? st->capobs * 2 : 64;
        strat_obs *o = realloc(st->obs, cap * sizeof *o);
        if (!o)
            return;   /* the observation is lost; the search still ends */
        st->obs = o;
        st->capobs = cap;
    }
    strat_obs *o = &st->obs[st->nobs];
    memset(o, 0, sizeof *o);
    o->idx = (uint64_t)idx;
    fill_obs(st, r, o);
    st->obs_at[idx] = (long)st->nobs;
    st->nobs++;
    if (st->kind->observed)
        st->kind->observed(st, st->nobs - 1, r);
}

int strat_check_agents(const char *strategy, const camp_agents *a,
                       char *why, size_t n)
{
    if (a->provider[0] && strcmp(a->provider, "rules") != 0
        && (!strategy || strcmp(strategy, "agent")))
        return snprintf(why, n, "an <agents> element in <search> drives only "
                        "strategy=\"agent\" (this search is \"%s\"); move "
                        "it out of <search> to annotate results",
                        strategy ? strategy : ""), -1;
    return 0;
}

int strat_set_agents(strat *st, const camp_agents *a, int batch,
                     int llm_specialists, const char *rundir,
                     const char *workload, gd_err *err)
{
    if (!a->provider[0] || strcmp(a->provider, "rules") == 0)
        return GD_OK;   /* "" = a campaign built without defaults */
    char why[256];
    if (strat_check_agents(st->kind->name, a, why, sizeof why) != 0)
        return gd_errf(err, GD_EINPUT, "%s", why);
    agent_llm **slot = strat_agent_llm_slot(st);
    if (*slot)
        return GD_OK;
    return agent_llm_new(st, a, batch, llm_specialists, rundir, workload,
                         slot, err);
}

void strat_free(strat *st)
{
    if (!st)
        return;
    if (st->kind && st->kind->free_impl)
        st->kind->free_impl(st);
    free(st->seen);
    free(st->order);
    free(st->obs);
    free(st->obs_at);
    gsl_rng_free(st->rng);
    free(st);
}
