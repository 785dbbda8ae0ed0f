/* exploration: the "Exploration log" pages of a run whose agent strategy
 * an LLM drove (DIR/agent-log.jsonl; docs/agents.md). */
#ifndef GPUDSE_EXPLORATION_H
#define GPUDSE_EXPLORATION_H

#include "doc.h"
#include "rundata.h"

/* Per workload in the transcript: the first objective per evaluation with
 * the best-so-far line, then every round's specialist statuses, proposals
 * (accepted, or rejected with the reason) and the configs that ran. Nothing
 * when the run has no transcript. */
void rep_exploration_pages(rep_doc *d, const rep_run *run);

#endif
