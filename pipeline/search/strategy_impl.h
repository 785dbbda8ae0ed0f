/* strategy_impl: what the search strategies share inside pipeline/ — the
 * strategy state, observations, and helpers to propose distinct configs.
 * Not for use outside strategy*.c / strat_*.c. */
#ifndef GPUDSE_STRATEGY_IMPL_H
#define GPUDSE_STRATEGY_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "campaign.h"
#include "strategy.h"

/* What an adaptive strategy keeps of one observed result. */
typedef struct {
    uint64_t idx;               /* index in the strategy's space */
    int ok;                     /* status ok and every objective finite */
    double y[CAMP_MAXOBJ];      /* objectives, all minimised; NaN if !ok */
    char bottleneck[24], limit[16];
    double occupancy, l1d_miss_rate, l2_miss_rate, dram_bw_gbps, l2_bw_gbps;
    /* the campaign's constraints (strat_set_constraints): total violation
     * (cons_feasible; 0 feasible, always 0 without constraints) and each
     * constraint's metric as observed (NaN when absent) */
    double viol;
    double cv[CONS_MAX];
} strat_obs;

typedef struct strat_kind strat_kind;

struct strat {
    const strat_kind *kind;
    space_def space;
    uint64_t size;              /* points in the space */
    uint64_t cap;               /* proposals allowed: min(budget, size) */
    uint64_t issued;            /* proposed so far */
    unsigned char *seen;        /* per index: proposed or observed */
    gsl_rng *rng;
    int nobj;
    camp_objective obj[CAMP_MAXOBJ];
    size_t batch;               /* adaptive batch size */
    strat_obs *obs;             /* adaptive strategies only */
    size_t nobs, capobs;
    long *obs_at;               /* per index: position in obs, or -1 */
    uint64_t *order;            /* precomputed proposals (non-adaptive) */
    uint64_t norder, next;
    void *impl;                 /* per-kind state */
    int64_t base_idx;           /* the baseline's index, or -1 outside */
    const camp_campaign *camp;  /* constraints and derived metrics, NULL:
                                 * none (strat_set_constraints) */
};

struct strat_kind {
    const char *name;
    int adaptive;               /* keeps observations */
    int (*init)(strat *st);     /* 0 or -1 (out of memory) */
    size_t (*next)(strat *st, gpu_config *out, size_t max);
    /* the record as it came back (obs_pos its observation); may be NULL */
    void (*observed)(strat *st, size_t obs_pos, const store_record *r);
    void (*free_impl)(strat *st);                  /* may be NULL */
};

extern const strat_kind strat_kind_nsga2, strat_kind_surrogate,
    strat_kind_agent;

/* Proposals still allowed. */
uint64_t strat_left(const strat *st);
/* Mark idx proposed and write its config to out[*k], ++*k. */
void strat_emit(strat *st, uint64_t idx, gpu_config *out, size_t *k);
/* A uniformly random index not yet seen; -1 when every point is seen. */
int64_t strat_random_unseen(strat *st);
/* Up to want random unseen configs into out; returns how many (fewer once
 * every point is seen). */
size_t strat_emit_random(strat *st, gpu_config *out, size_t want);
/* Level positions (in st->space) of a config at index idx, and back. */
void strat_levels(const strat *st, uint64_t idx, int lv[SPACE_MAXKNOBS]);
uint64_t strat_index_of(const strat *st, const int lv[SPACE_MAXKNOBS]);
/* m distinct unseen indices laid out as a Latin hypercube over the knob
 * levels (collisions repaired by the nearest unseen point); the first is the
 * baseline when it lies in the space and is unseen (when m covers each
 * knob's levels, swapped in without changing any level's count); returns
 * how many were written (fewer only when the space runs out). Does not
 * mark. */
size_t strat_lhs(strat *st, size_t m, uint64_t *out);
/* Observed ok rows in non-dominated order: writes positions in st->obs of
 * the current Pareto front into pos (room for nobs); returns the count.
 * With constraints, the front of the feasible rows; while none is
 * feasible, the Pareto front of the rows of least violation. */
size_t strat_front(const strat *st, size_t *pos);
/* The queue of planned proposals (st->order): add idx (up to the
 * budget), and emit up to max queued unseen configs without waiting for
 * results (a start design fills all workers). */
void strat_queue(strat *st, const uint64_t *idx, size_t n);
size_t strat_emit_queued(strat *st, gpu_config *out, size_t max);
/* Pending: proposed but not yet observed. */
uint64_t strat_pending(const strat *st);

/* ---- constraints (strat_feasible.c) */

/* Fill o->viol and o->cv from record r (0 and NaN without constraints). */
void strat_obs_constraints(const strat *st, const store_record *r,
                           strat_obs *o);
/* Is the config at idx predicted to miss a constraint (1)? The prediction
 * is what the config alone determines (backend.h be_config_metrics: the
 * area model's area_mm2) and derived metrics over it; a constraint on a
 * metric the config does not determine cannot be predicted here and does
 * not count (0): its result decides. 0 without constraints. */
int strat_predict_infeasible(const strat *st, uint64_t idx);
/* strat_emit_random, but each pick is the first of up to 64 unseen draws
 * not predicted infeasible (else the first draw); strat_emit_random itself
 * without constraints. */
size_t strat_emit_random_feasible(strat *st, gpu_config *out, size_t want);
/* Is constraint b's metric one the config alone determines (1), so that
 * strat_predict_infeasible knows it? */
int strat_cons_from_config(const strat *st, int b);

/* ---- the agent strategy: rules (strat_agent.c) and LLM (strat_agent_llm.c) */

/* The rules proposer's next n moves (one-knob, then two-knob moves from
 * the front, then random points), marked seen but not counted as issued;
 * returns how many (fewer once the space runs out). */
size_t strat_agent_rules_pick(strat *st, uint64_t *idx, size_t n);

typedef struct agent_llm agent_llm;
/* The LLM loop of one workload (strat_set_agents); NULL-safe free, which
 * closes the open round into the transcript. */
int agent_llm_new(strat *st, const camp_agents *a, int batch,
                  int llm_specialists, const char *rundir,
                  const char *workload, agent_llm **out, gd_err *err);
void agent_llm_free(strat *st, agent_llm *l);
/* The start design of an LLM-driven search: the baseline and a small
 * Latin hypercube (budget/5, 2..8 points). */
size_t agent_llm_start_size(const strat *st);
/* Record the start design (round 0) of the transcript. */
void agent_llm_started(agent_llm *l, const uint64_t *idx, size_t n);
void agent_llm_observed(strat *st, agent_llm *l, size_t obs_pos,
                        const store_record *r);
/* One round: close the last one into the transcript, ask the LLM for up to
 * want configs, validate them, fill the rest with rules moves; emits them
 * into out and returns how many. */
size_t agent_llm_round(strat *st, agent_llm *l, gpu_config *out,
                       size_t want);
/* The agent's LLM loop, or NULL (strat_agent.c). */
agent_llm **strat_agent_llm_slot(strat *st);

#endif
