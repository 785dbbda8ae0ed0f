/* agents_prompt: the specialists' and orchestrator's prompts — the
 * templates of templates/agents/, a design point as prompt facts, and one
 * LLM-written note with the rules note as its fall-back — shared by the
 * annotate stage and the LLM-driven agent search. */
#ifndef GPUDSE_AGENTS_PROMPT_H
#define GPUDSE_AGENTS_PROMPT_H

#include "util.h"
#include "agents.h"
#include "agents_llm.h"

/* The templates, by agent (AGENTS_MEMORY .. AGENTS_ORCHESTRATOR: system
 * prompts), then [4] the user message; read from util_datadir's agents/.
 * GD_EENV naming the missing file (a broken install); the caller frees
 * every non-NULL entry. */
#define AGENTS_NPROMPTS 5
int agents_prompts_read(char *tpl[AGENTS_NPROMPTS], gd_err *err);

/* One line of facts about p: "LABEL: config ...; limit ...; bottleneck ...;
 * metrics name=value ...; not measured (unknown, not 0): ...". */
void agents_point_facts(util_buf *b, const char *label,
                        const agents_point *p);

/* Template text with {{names[i]}} replaced by vals[i] (malloc'd). */
char *agents_fill_template(const char *tpl, const char *const *names,
                           const char *const *vals, int n);

/* Ask l for agent's note on scope (workload NULL: the campaign) given the
 * facts and the rules note; GD_OK and *out (text and STATUS) on a usable
 * answer, else the reason in err (the caller keeps the rules note). */
int agents_llm_note(agents_llm *l, char *const tpl[AGENTS_NPROMPTS],
                    int agent, const char *workload, const char *scope,
                    const char *facts, const agents_note *rules,
                    agents_note *out, gd_err *err);

#endif
