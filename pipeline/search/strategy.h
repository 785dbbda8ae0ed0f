/* strategy: proposes the configs to evaluate for one workload, within the
 * campaign's budget, reproducibly from the seed. Strategies: exhaustive,
 * random, lhs, nsga2, surrogate, agent. */
#ifndef GPUDSE_STRATEGY_H
#define GPUDSE_STRATEGY_H

#include <stdint.h>
#include <stddef.h>
#include "util.h"
#include "space.h"
#include "store.h"
#include "campaign.h"

typedef struct strat strat;

/* Create the strategy `name` over space s with budget evaluations. Adaptive
 * strategies optimise maximize ipc / minimize area_mm2 until
 * strat_set_objectives says otherwise. */
int strat_new(const char *name, const space_def *s, long budget,
              uint64_t seed, strat **out, gd_err *err);
/* The objectives adaptive strategies optimise (the campaign's); call before
 * the first strat_next. n in 1..CAMP_MAXOBJ. */
int strat_set_objectives(strat *st, const camp_objective *obj, int n,
                         gd_err *err);
/* The campaign's constraints (c->cons, over c->derived) that adaptive
 * strategies search within: NSGA-II ranks by constrained domination, the
 * surrogate and the agent skip configs predicted infeasible. c must
 * outlive st; call before the first strat_next. Nothing when c has none. */
void strat_set_constraints(strat *st, const camp_campaign *c);
/* How many configs an adaptive strategy proposes per round before it needs
 * their results (default 8; set it to the number of workers). */
void strat_set_batch(strat *st, size_t n);
/* Next batch of at most max configs; returns the count. Every strategy
 * proposes the baseline config (inside the budget) when it lies in the space
 * (strat_has_baseline); the first batch holds it. Adaptive
 * strategies return fewer (or 0) while results of earlier proposals are
 * still outstanding; strat_done tells the end apart from waiting. With every
 * proposal observed, 0 means done. */
size_t strat_next(strat *st, gpu_config *out, size_t max);
/* 1 when the baseline lies in the strategy's space (and so is proposed). */
int strat_has_baseline(const strat *st);
/* 1 when the strategy will propose nothing more (budget or space spent). */
int strat_done(const strat *st);
/* Tell the strategy the outcome of a config it proposed (or that the journal
 * already held, on resume), so adaptive strategies can use it. */
void strat_observe(strat *st, const gpu_config *c, const store_record *r);
/* 1 when strat_observe reads the record (adaptive strategies); others only
 * note the config, so a resume need not read journaled records back. */
int strat_reads_results(const strat *st);
void strat_free(strat *st);
/* Whether <search>'s <agents> (a) may drive strategy (only "agent" is
 * driven by an LLM; provider "rules" goes with any): 0, or -1 with the
 * reason in why. */
int strat_check_agents(const char *strategy, const camp_agents *a,
                       char *why, size_t n);
/* Let the LLM of a drive the agent strategy st for workload: rounds of
 * batch configs proposed by the orchestrator prompt, validated, rules moves
 * in place of rejected ones; with llm_specialists the LLM also writes the
 * specialists' diagnoses (rules text when it cannot); replies cached in
 * RUNDIR/agents-cache, the transcript in RUNDIR/agent-log.jsonl
 * (docs/agents.md). A "rules" provider changes nothing. Call before the
 * first strat_next. GD_EENV when a prompt template is missing. */
int strat_set_agents(strat *st, const camp_agents *a, int batch,
                     int llm_specialists, const char *rundir,
                     const char *workload, gd_err *err);
/* Whether strategy name continues past its budget with strat_extend (the
 * adaptive ones: their rounds depend on the budget they started with, so a
 * larger budget on resume extends the search instead of restarting it). */
int strat_extensible(const char *name);
/* Raise an extensible strategy's budget to budget (a resumed run whose
 * campaign's budget grew); it then proposes on from what it observed.
 * 0, or -1 (not extensible, or out of memory). */
int strat_extend(strat *st, long budget);
/* Whether name is a known strategy. */
int strat_known(const char *name);
/* "exhaustive, random, lhs, ..." for messages. */
const char *strat_names(void);
/* The campaign's <search strategy=""> and <study strategies=""> name known
 * strategies, and <search>'s <agents> may drive the strategy
 * (strat_check_agents); GD_EINPUT at the element's FILE:LINE when not. Run
 * by preflight_load before anything runs. */
int strat_check_campaign(const camp_campaign *c, gd_err *err);

#endif
