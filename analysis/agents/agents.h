/* agents: the annotators of a run — Memory, Warp and Bottleneck specialists
 * per design point and an Orchestrator per workload and per campaign — with
 * the offline `rules` provider, LLM providers over HTTP (Anthropic Messages,
 * OpenAI-compatible chat completions) cached by content hash, and the
 * validator of LLM-proposed configs. Thresholds: docs/agents.md. */
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

/* ---- LLM providers ---------------------------------------------------- */

/* A client for one annotate (or strategy) session. The key is read from the
 * environment per request and never written anywhere. */
typedef struct {
    camp_agents cfg;
    char cache_dir[4096];  /* DIR/agents-cache; "" = no cache */
    long requests;         /* network requests made (the spending cap) */
    int down;              /* the provider failed hard; callers fall back */
    int bad_answers;       /* malformed answers in a row (3 = down) */
} agents_llm;

void agents_llm_init(agents_llm *l, const camp_agents *cfg,
                     const char *cache_dir);
/* Ask system+user; *reply (malloc'd, caller frees) is the model's text.
 * A cached answer is used without the network (*cached = 1). Retries on
 * 429, 5xx, timeouts and connection failures with backoff, honouring
 * Retry-After. On failure returns GD_EENV (GD_EINPUT for a malformed
 * answer) with a key-free reason in err. */
int agents_llm_ask(agents_llm *l, const char *system, const char *user,
                   char **reply, int *cached, gd_err *err);

/* Copy of s with every occurrence of key replaced by "[redacted]"
 * (malloc'd); key NULL or "" copies s. */
char *agents_redact(const char *s, const char *key);

/* agents_redact with the key this client's provider reads. */
char *agents_llm_redact(const agents_llm *l, const char *s);

/* Split an LLM reply into its analysis text (sanitised: control characters
 * become spaces, at most outsz-1 bytes) and the status of its last
 * "STATUS: X" line. -1 when no status line is found. */
int agents_parse_reply(const char *reply, char *text, size_t outsz,
                       int *status);

/* ---- proposals (the `agent` search strategy) --------------------------- */

/* Parse an LLM's proposed config and validate it: the reply must hold one
 * line "CONFIG: knob=value, knob=value, ..." (or be only such a list); every
 * name a knob, every value one of the knob's levels (space_value_parse) and
 * within the campaign's space s, no knob twice, nothing but knob=value
 * syntax; knobs not named keep their value from base. The config must not
 * be one of tried[0..ntried). Returns GD_OK and *out, or GD_EINPUT with the
 * reason in reason (never containing more than a short sanitised excerpt of
 * the reply). */
int agents_proposal_parse(const char *reply, const space_def *s,
                          const gpu_config *base, const gpu_config *tried,
                          size_t ntried, gpu_config *out, char *reason,
                          size_t reasonsz);

/* Ask the provider for the next config: templates/agents/propose.txt (under
 * datadir, util_datadir) as the system prompt, facts (objectives, allowed
 * values, tried configs and their results) as the user message, and the
 * reply through agents_proposal_parse. GD_OK and *out; GD_EINPUT when the
 * reply was rejected (reason says why); GD_EENV when the provider could not
 * answer (err says why). Either way the caller's rules proposer steps in. */
int agents_llm_propose(agents_llm *l, const char *datadir, const char *facts,
                       const space_def *s, const gpu_config *base,
                       const gpu_config *tried, size_t ntried,
                       gpu_config *out, char *reason, size_t reasonsz,
                       gd_err *err);

/* ---- the annotate stage -------------------------------------------------- */

/* Read DIR/campaign.xml, DIR/results.jsonl and DIR/analysis.json; write
 * DIR/annotations.json (atomically). Provider failures are recorded in the
 * file and fall back to rules; only bad inputs or I/O fail. */
int agents_annotate(const char *rundir, gd_err *err);

/* `gpudse annotate DIR` */
int cmd_annotate(int argc, char **argv);

#endif
