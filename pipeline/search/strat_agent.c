/* strat_agent: the seed's agent loop made systematic and rules-based
 * (deterministic for a seed). It starts from the baseline and a small Latin
 * hypercube; then every round it takes the configs on the observed Pareto
 * front, diagnoses each from its record — the bottleneck (compute,
 * mem_latency, mem_bandwidth), the binding occupancy limit, occupancy, L1
 * and L2 miss rates — and proposes one-knob moves ranked by expected
 * leverage: more of the resource that binds, less of the ones that idle
 * (they only cost area and power). Moves go round robin over the front —
 * every member's best move, sparsest members (crowding distance) first,
 * then every member's second-best — so a round spreads along the front; a
 * move already tried is never repeated; when no one-knob move is left,
 * two-knob moves, then random points. The start is the baseline and a
 * Latin hypercube of budget/5 points (8..32). With constraints the front
 * is the feasible one (strat_front) and a move predicted infeasible from
 * its config (strat_predict_infeasible) is not made, and random points
 * are drawn among those predicted feasible while there are (64 draws).
 *
 * With <search>'s <agents> naming an LLM, the rounds are the LLM's
 * (strat_agent_llm.c): this file's moves then replace the proposals it
 * rejects, and the start is smaller (budget/5, 2..8 points). */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nsga2.h"

typedef struct {
    int started;
    agent_llm *llm;        /* NULL: rules only */
} agent;

/* A proposed move: its config, its leverage, the crowding of the front
 * member it starts from, and its rank among that member's moves. */
typedef struct {
    uint64_t idx;
    double lev, crowd;
    int rank;
} move;

static int init(strat *st)
{
    st->impl = calloc(1, sizeof(agent));
    return st->impl ? 0 : -1;
}

static void free_impl(strat *st)
{
    agent *a = st->impl;
    if (a)
        agent_llm_free(st, a->llm);
    free(st->impl);
}

agent_llm **strat_agent_llm_slot(strat *st)
{
    return &((agent *)st->impl)->llm;
}

static void observed(strat *st, size_t pos, const store_record *r)
{
    agent *a = st->impl;
    if (a->llm)
        agent_llm_observed(st, a->llm, pos, r);
}

/* Leverage of moving knob k by dir (+1 more resource, -1 less) for a
 * config diagnosed from o. Higher is more promising; 0 means no reason. */
static double leverage(const strat_obs *o, int k, int dir)
{
    int compute = strcmp(o->bottleneck, "compute") == 0;
    int bw = strcmp(o->bottleneck, "mem_bandwidth") == 0;
    int lat = strcmp(o->bottleneck, "mem_latency") == 0;
    double l1 = isnan(o->l1d_miss_rate) ? 0.5 : o->l1d_miss_rate;
    double l2 = isnan(o->l2_miss_rate) ? 0.5 : o->l2_miss_rate;
    double occ = isnan(o->occupancy) ? 0.5 : o->occupancy;
    int smem_bound = strcmp(o->limit, "smem") == 0;
    switch (k) {
    case KNOB_N_CLUSTERS:
    case KNOB_CORES_PER_CLUSTER:
        if (dir > 0)
            return compute ? 3 : lat ? 2 : 0.5;
        return bw ? 2.5 : 1;
    case KNOB_NUM_SCHED_PER_CORE:
        if (dir > 0)
            return compute ? 2.5 : 0.5;
        return compute ? 0.5 : 1.5;
    case KNOB_N_MEM:
        if (dir > 0)
            return bw ? 3 : lat ? 1 : 0.3;
        return compute ? 2.5 : 1;
    case KNOB_L2_SETS:
        if (dir > 0)
            return (bw || lat) && l2 > 0.3 ? 2.5 : 0.3;
        return l2 < 0.1 || compute ? 2 : 0.8;
    case KNOB_L1_SETS:
        if (dir > 0)
            return (bw || lat) && l1 > 0.3 ? 2.5 : 0.3;
        return l1 < 0.1 || l1 > 0.9 || compute ? 2 : 0.8;
    case KNOB_SHMEM_SIZE:
        if (dir > 0)
            return smem_bound && occ < 0.99 ? 3 : 0.2;
        return smem_bound ? 0.3 : 2;
    case KNOB_SCHEDULER:
        return lat ? 2 : 0.7;
    default:
        return 0;
    }
}

/* Queue the start: the baseline, then a Latin hypercube. */
static void start(strat *st)
{
    gpu_config b = space_baseline();
    int64_t bi = space_index(&st->space, &b);
    uint64_t v[33];
    size_t n = 0;
    if (bi >= 0)
        v[n++] = (uint64_t)bi;
    agent *a = st->impl;
    size_t m = st->cap / 5;
    m = m < 8 ? 8 : m > 32 ? 32 : m;
    if (a->llm)
        m = agent_llm_start_size(st);
    size_t base = n, got = strat_lhs(st, m, v + base);
    for (size_t i = 0; i < got; i++) {     /* the baseline only once */
        uint64_t x = v[base + i];
        if (bi < 0 || x != (uint64_t)bi)
            v[n++] = x;
    }
    strat_queue(st, v, n);
    if (a->llm)
        agent_llm_started(a->llm, v, n < st->cap ? n : (size_t)st->cap);
}

/* Crowding distance of the front members (normalised; extremes large). */
static void front_crowding(const strat *st, const size_t *pos, size_t nf,
                           double *crowd)
{
    size_t k = (size_t)st->nobj;
    double *pts = calloc((nf ? nf : 1) * k, sizeof *pts);
    size_t *mem = calloc(nf ? nf : 1, sizeof *mem);
    for (size_t i = 0; i < nf; i++)
        crowd[i] = 0;
    if (pts && mem) {
        for (size_t i = 0; i < nf; i++) {
            memcpy(pts + i * k, st->obs[pos[i]].y, k * sizeof *pts);
            mem[i] = i;
        }
        nsga2_crowding(pts, k, mem, nf, crowd);
        for (size_t i = 0; i < nf; i++)
            crowd[i] = isinf(crowd[i]) ? 2.0 : crowd[i];
    }
    free(pts);
    free(mem);
}

/* Best leverage first (within one member). */
static int cmp_lev(const void *a, const void *b)
{
    const move *x = a, *y = b;
    if (x->lev != y->lev)
        return x->lev > y->lev ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Round robin over the front: every member's best move, sparse members
 * first, then every member's second-best move, and so on. */
static int cmp_move(const void *a, const void *b)
{
    const move *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->crowd != y->crowd)
        return x->crowd > y->crowd ? -1 : 1;
    return cmp_lev(a, b);
}

/* All one-knob (or, with two, two-knob) moves from the front, ranked. */
static size_t rank_moves(const strat *st, const size_t *pos, size_t nf,
                         int two, move *mv)
{
    double *crowd = malloc((nf ? nf : 1) * sizeof *crowd);
    if (!crowd)
        return 0;
    front_crowding(st, pos, nf, crowd);
    size_t n = 0;
    for (size_t f = 0; f < nf; f++) {
        size_t first = n;
        const strat_obs *o = &st->obs[pos[f]];
        int lv[SPACE_MAXKNOBS];
        strat_levels(st, o->idx, lv);
        for (int k = 0; k < space_nknobs(&st->space); k++)
            for (int d = -1; d <= 1; d += 2) {
                int v = lv[k] + d;
                if (v < 0 || v >= st->space.nlevels[k])
                    continue;
                double lk = leverage(o, k, d);
                int tmp[SPACE_MAXKNOBS];
                memcpy(tmp, lv, sizeof tmp);
                tmp[k] = v;
                if (!two) {
                    uint64_t i = strat_index_of(st, tmp);
                    if (!st->seen[i] && !strat_predict_infeasible(st, i))
                        mv[n++] = (move){i, lk, crowd[f], 0};
                    continue;
                }
                for (int k2 = k + 1; k2 < space_nknobs(&st->space); k2++)
                    for (int d2 = -1; d2 <= 1; d2 += 2) {
                        int v2 = lv[k2] + d2;
                        if (v2 < 0 || v2 >= st->space.nlevels[k2])
                            continue;
                        int t2[SPACE_MAXKNOBS];
                        memcpy(t2, tmp, sizeof t2);
                        t2[k2] = v2;
                        uint64_t i = strat_index_of(st, t2);
                        if (!st->seen[i] && !strat_predict_infeasible(st, i))
                            mv[n++] = (move){i, lk + leverage(o, k2, d2),
                                             crowd[f], 0};
                    }
            }
        qsort(mv + first, n - first, sizeof *mv, cmp_lev);
        for (size_t i = first; i < n; i++)
            mv[i].rank = (int)(i - first);
    }
    free(crowd);
    qsort(mv, n, sizeof *mv, cmp_move);
    return n;
}

static size_t emit_moves(strat *st, const move *mv, size_t n, gpu_config *out,
                         size_t want, size_t k)
{
    for (size_t i = 0; i < n && k < want; i++)
        if (!st->seen[mv[i].idx])
            strat_emit(st, mv[i].idx, out, &k);
    return k;
}

/* The rules proposer's next n unseen moves, marked seen (the same order
 * as a rules round: one-knob, two-knob, random). */
size_t strat_agent_rules_pick(strat *st, uint64_t *idx, size_t n)
{
    size_t *pos = malloc((st->nobs ? st->nobs : 1) * sizeof *pos), k = 0;
    if (!pos)
        return 0;
    size_t nf = strat_front(st, pos);
    for (int two = 0; two <= 1 && k < n; two++) {
        size_t K = (size_t)space_nknobs(&st->space);
        size_t cap = nf * (two ? 4 * K * K : 2 * K) + 1;
        move *mv = malloc(cap * sizeof *mv);
        if (!mv)
            break;
        size_t m = rank_moves(st, pos, nf, two, mv);
        for (size_t i = 0; i < m && k < n; i++)
            if (!st->seen[mv[i].idx]) {
                st->seen[mv[i].idx] = 1;
                idx[k++] = mv[i].idx;
            }
        free(mv);
    }
    free(pos);
    while (k < n) {
        int64_t i = strat_random_unseen(st);
        for (int t = 0; st->camp && i >= 0 && t < 64
                        && strat_predict_infeasible(st, (uint64_t)i); t++) {
            int64_t j = strat_random_unseen(st);   /* a feasible draw */
            i = j >= 0 && !strat_predict_infeasible(st, (uint64_t)j) ? j : i;
        }
        if (i < 0)
            break;
        st->seen[i] = 1;
        idx[k++] = (uint64_t)i;
    }
    return k;
}

static size_t next(strat *st, gpu_config *out, size_t max)
{
    agent *a = st->impl;
    if (!a->started) {
        a->started = 1;
        start(st);
    }
    size_t k0 = strat_emit_queued(st, out, max);   /* the start design */
    if (k0 > 0)
        return k0;
    if (strat_pending(st) > 0)
        return 0;
    if (a->llm)
        return agent_llm_round(st, a->llm, out, max);
    size_t want = st->batch < max ? st->batch : max, k = 0;
    size_t *pos = malloc((st->nobs ? st->nobs : 1) * sizeof *pos);
    if (!pos)
        return 0;
    size_t nf = strat_front(st, pos);
    /* one-knob moves: 16 per member; two-knob: 8*7/2*4 per member */
    for (int two = 0; two <= 1 && k < want; two++) {
        size_t K = (size_t)space_nknobs(&st->space);
        size_t cap = nf * (two ? 4 * K * K : 2 * K) + 1;
        move *mv = malloc(cap * sizeof *mv);
        if (!mv)
            break;
        size_t n = rank_moves(st, pos, nf, two, mv);
        k = emit_moves(st, mv, n, out, want, k);
        free(mv);
    }
    free(pos);
    return k + strat_emit_random_feasible(st, out + k, want - k);
}

const strat_kind strat_kind_agent = {"agent", 1, init, next, observed,
                                     free_impl};
