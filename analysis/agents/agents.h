/* agents: the agents' shared vocabulary — statuses, the design point as the
 * specialists see it, their notes — and the offline `rules` provider: Memory,
 * Warp and Bottleneck specialists per design point and an Orchestrator per
 * workload and per campaign. Thresholds: docs/agents.md. The LLM client is
 * agents_llm.h, the proposal validator agents_propose.h, the annotate stage
 * annotate.h. */
#ifndef GPUDSE_AGENTS_H
#define GPUDSE_AGENTS_H

#include <stddef.h>
#include "util.h"
#include "space.h"
#include "metrics.h"
#include "campaign.h"

/* UNKNOWN: nothing the agent judges was measured (no rule fired). */
enum { AGENTS_GREEN, AGENTS_AMBER, AGENTS_RED, AGENTS_UNKNOWN };
enum { AGENTS_MEMORY, AGENTS_WARP, AGENTS_BOTTLENECK, AGENTS_ORCHESTRATOR };

const char *agents_status_name(int status);   /* "GREEN" ... "UNKNOWN" */
int agents_status_parse(const char *s);        /* GREEN|AMBER|RED; else -1 */
const char *agents_agent_name(int agent);      /* "memory" ... */

/* One design point as the specialists see it. */
typedef struct {
    char key[65];
    gpu_config cfg;
    met_set m;
    char limit[16];        /* binding occupancy limit; "" unknown */
    char bottleneck[24];   /* compute | mem_latency | mem_bandwidth; "" unknown */
} agents_point;

/* One annotation: 2-4 sentences and a status. */
typedef struct {
    char text[1536];
    int status;
} agents_note;

/* The rules provider: deterministic text from fixed thresholds. baseline may
 * be NULL (no comparison sentence then). */
void agents_rules_memory(const agents_point *p, agents_note *out);
void agents_rules_warp(const agents_point *p, agents_note *out);
void agents_rules_bottleneck(const agents_point *p,
                             const agents_point *baseline, agents_note *out);

/* What the workload orchestrator reads. */
typedef struct {
    const char *workload;
    long points, failed;
    int nobj;
    const camp_objective *obj;
    int nfront;
    double front_lo[CAMP_MAXOBJ], front_hi[CAMP_MAXOBJ]; /* per objective */
    const agents_point *baseline;  /* may be NULL */
    const agents_point *pick;      /* recommended front point; NULL if none */
} agents_workload_view;

void agents_rules_orch_workload(const agents_workload_view *w,
                                agents_note *out);

/* What the campaign orchestrator reads: one line per workload. */
typedef struct {
    char workload[64];
    long points, failed;
    int status;            /* the workload orchestrator's */
    int has_gain;
    double gain;           /* pick / baseline on the first objective, as a
                              factor of improvement (>1 better) */
    char bottleneck[24];   /* of the pick */
} agents_wl_summary;

void agents_rules_orch_campaign(const char *metric_label,
                                const agents_wl_summary *w, int n,
                                agents_note *out);

/* Index of the recommended ("knee") point of a front: the one nearest the
 * ideal point after normalising each objective over the front; ties go to
 * the earlier point. -1 when n is 0. */
int agents_pick_knee(const agents_point *front, int n,
                     const camp_objective *obj, int nobj);

#endif
