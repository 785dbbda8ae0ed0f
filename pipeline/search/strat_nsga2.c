/* strat_nsga2: NSGA-II over the knob levels. Population P = 2 sqrt(budget)
 * (8..100); the first generation is a Latin hypercube, every later one is
 * bred from the current population by binary crowded tournament, uniform
 * crossover and level mutation (mostly to a neighbouring level), and the
 * next population is the best P of parents and offspring by
 * non-dominated rank, then crowding distance; with constraints the rank is
 * by constrained domination (feasible beats infeasible, then the smaller
 * violation: nsga2_sort_constrained). Generations run until the
 * budget is spent. A config is never proposed twice: a child already seen
 * is mutated again, then replaced by a random unseen point. */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nsga2.h"

typedef struct {
    size_t P;
    uint64_t *pop;              /* parents: space indices (observed) */
    size_t npop;
    uint64_t *gen;              /* the generation being evaluated */
    size_t ngen, nsent;         /* its size, and how many were proposed */
    /* scratch for selection */
    double *pts;
    int *rank;
    double *dist;
    double *viol;
} nsga;

static size_t pop_size(uint64_t cap)
{
    double p = 2.0 * sqrt((double)cap);
    return p < 8 ? 8 : p > 100 ? 100 : (size_t)p;
}

static int init(strat *st)
{
    nsga *g = calloc(1, sizeof *g);
    if (!g)
        return -1;
    st->impl = g;
    g->P = pop_size(st->cap);
    size_t m = 2 * g->P;
    g->pop = malloc(m * sizeof *g->pop);
    g->gen = malloc(m * sizeof *g->gen);
    g->pts = malloc(m * CAMP_MAXOBJ * sizeof *g->pts);
    g->rank = malloc(m * sizeof *g->rank);
    g->dist = malloc(m * sizeof *g->dist);
    g->viol = malloc(m * sizeof *g->viol);
    return g->pop && g->gen && g->pts && g->rank && g->dist && g->viol ? 0
                                                                       : -1;
}

static void free_impl(strat *st)
{
    nsga *g = st->impl;
    if (!g)
        return;
    free(g->pop); free(g->gen); free(g->pts); free(g->rank); free(g->dist);
    free(g->viol);
    free(g);
}

/* Objective row of an index: its observation, or NaN when failed/unknown;
 * *viol its total constraint violation (0: feasible). */
static void row_of(const strat *st, uint64_t idx, double *row, double *viol)
{
    long at = st->obs_at[idx];
    for (int j = 0; j < st->nobj; j++)
        row[j] = at >= 0 && st->obs[at].ok ? st->obs[at].y[j] : NAN;
    *viol = at >= 0 ? st->obs[at].viol : 0;
}

/* Rank and crowding of the n indices in v (scratch arrays of g). */
static int rank_all(strat *st, nsga *g, const uint64_t *v, size_t n)
{
    size_t k = (size_t)st->nobj;
    for (size_t i = 0; i < n; i++)
        row_of(st, v[i], g->pts + i * k, g->viol + i);
    /* Deb's constrained domination: feasible first, then by violation */
    int nf = nsga2_sort_constrained(g->pts, g->viol, n, k, g->rank);
    if (nf < 0)
        return -1;
    size_t *mem = malloc((n ? n : 1) * sizeof *mem);
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!mem || !d) {
        free(mem);
        free(d);
        return -1;
    }
    for (int f = 0; f <= (int)n; f++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (g->rank[i] == f)
                mem[m++] = i;
        if (m == 0)
            continue;
        if (nsga2_crowding(g->pts, k, mem, m, d) != 0) {
            free(mem);
            free(d);
            return -1;
        }
        for (size_t i = 0; i < m; i++)
            g->dist[mem[i]] = d[i];
    }
    free(mem);
    free(d);
    return 0;
}

/* Keep the best P of parents + the evaluated generation. */
static void select_survivors(strat *st, nsga *g)
{
    uint64_t all[200 + 200];
    size_t n = 0;
    for (size_t i = 0; i < g->npop; i++)
        all[n++] = g->pop[i];
    for (size_t i = 0; i < g->ngen; i++)
        all[n++] = g->gen[i];
    if (rank_all(st, g, all, n) != 0) {
        g->npop = n < g->P ? n : g->P;   /* out of memory: keep the first */
        memcpy(g->pop, all, g->npop * sizeof *all);
        return;
    }
    /* selection sort by crowded comparison, ties by index: deterministic */
    size_t keep = n < g->P ? n : g->P;
    for (size_t s = 0; s < keep; s++) {
        size_t best = s;
        for (size_t i = s + 1; i < n; i++) {
            int c = nsga2_prefer(g->rank[i], g->dist[i], g->rank[best],
                                 g->dist[best]);
            if (c < 0 || (c == 0 && all[i] < all[best]))
                best = i;
        }
        uint64_t ti = all[s]; all[s] = all[best]; all[best] = ti;
        int tr = g->rank[s]; g->rank[s] = g->rank[best]; g->rank[best] = tr;
        double td = g->dist[s]; g->dist[s] = g->dist[best]; g->dist[best] = td;
    }
    memcpy(g->pop, all, keep * sizeof *all);
    g->npop = keep;
    /* g->rank/dist now hold the survivors' values at 0..keep-1 */
}

static size_t tournament(strat *st, nsga *g)
{
    size_t a = (size_t)gsl_rng_uniform_int(st->rng, g->npop);
    size_t b = (size_t)gsl_rng_uniform_int(st->rng, g->npop);
    int c = nsga2_prefer(g->rank[a], g->dist[a], g->rank[b], g->dist[b]);
    return c < 0 ? a : c > 0 ? b : (a < b ? a : b);
}

static void mutate(strat *st, int lv[SPACE_MAXKNOBS], double rate)
{
    for (int k = 0; k < space_nknobs(&st->space); k++) {
        int nl = st->space.nlevels[k];
        if (nl < 2 || gsl_rng_uniform(st->rng) >= rate)
            continue;
        if (gsl_rng_uniform(st->rng) < 0.7) {
            int step = gsl_rng_uniform(st->rng) < 0.5 ? -1 : 1;
            int v = lv[k] + step;
            lv[k] = v < 0 ? 1 : v >= nl ? nl - 2 : v;
        } else {
            lv[k] = (int)gsl_rng_uniform_int(st->rng, (unsigned long)nl);
        }
    }
}

static int in_gen(const nsga *g, size_t n, uint64_t idx)
{
    for (size_t i = 0; i < n; i++)
        if (g->gen[i] == idx)
            return 1;
    return 0;
}

static int64_t child(strat *st, nsga *g, size_t made)
{
    int a[SPACE_MAXKNOBS], b[SPACE_MAXKNOBS], c[SPACE_MAXKNOBS];
    strat_levels(st, g->pop[tournament(st, g)], a);
    strat_levels(st, g->pop[tournament(st, g)], b);
    int cross = gsl_rng_uniform(st->rng) < 0.9;
    for (int k = 0; k < space_nknobs(&st->space); k++)
        c[k] = cross && gsl_rng_uniform(st->rng) < 0.5 ? b[k] : a[k];
    mutate(st, c, 1.0 / space_nknobs(&st->space));
    for (int tries = 0; tries < 32; tries++) {
        uint64_t idx = strat_index_of(st, c);
        if (!st->seen[idx] && !in_gen(g, made, idx))
            return (int64_t)idx;
        mutate(st, c, 2.0 / space_nknobs(&st->space));
    }
    for (int tries = 0; tries < 64; tries++) {
        int64_t r = strat_random_unseen(st);
        if (r < 0 || !in_gen(g, made, (uint64_t)r))
            return r;
    }
    return -1;
}

static void breed(strat *st, nsga *g)
{
    size_t want = g->P < strat_left(st) ? g->P : (size_t)strat_left(st);
    g->ngen = 0;
    g->nsent = 0;
    if (g->npop == 0) {
        g->ngen = strat_lhs(st, want, g->gen);
        return;
    }
    while (g->ngen < want) {
        int64_t idx = child(st, g, g->ngen);
        if (idx < 0)
            break;
        g->gen[g->ngen++] = (uint64_t)idx;
    }
}

static size_t next(strat *st, gpu_config *out, size_t max)
{
    nsga *g = st->impl;
    if (g->nsent == g->ngen) {
        if (strat_pending(st) > 0)
            return 0;                   /* wait for the generation */
        if (g->ngen > 0)
            select_survivors(st, g);
        breed(st, g);
    }
    size_t k = 0;
    while (k < max && g->nsent < g->ngen) {
        uint64_t idx = g->gen[g->nsent++];
        if (!st->seen[idx])
            strat_emit(st, idx, out, &k);
    }
    return k;
}

const strat_kind strat_kind_nsga2 = {"nsga2", 1, init, next, NULL,
                                     free_impl};
