/* agents_propose: the validator of LLM-proposed configs (knob=value text
 * checked against the knobs, their levels, the campaign's space and what was
 * tried) and the one-shot ask-and-validate of the `agent` search strategy. */
#ifndef GPUDSE_AGENTS_PROPOSE_H
#define GPUDSE_AGENTS_PROPOSE_H

#include <stddef.h>
#include "util.h"
#include "space.h"
#include "agents_llm.h"

/* Parse an LLM's proposed config and validate it: the reply must hold one
 * line "CONFIG: knob=value, knob=value, ..." (or be only such a list); every
 * name a knob of s (built-in or the campaign's own), every value one of
 * the knob's levels in the campaign's space s (space_level_parse), no knob twice, nothing but knob=value
 * syntax; knobs not named keep their value from base. The config must not
 * be one of tried[0..ntried). Returns GD_OK and *out, or GD_EINPUT with the
 * reason in reason (never containing more than a short sanitised excerpt of
 * the reply). */
int agents_proposal_parse(const char *reply, const space_def *s,
                          const gpu_config *base, const gpu_config *tried,
                          size_t ntried, gpu_config *out, char *reason,
                          size_t reasonsz);

/* The CONFIG: lines of a reply, in order (markdown decorations around
 * them allowed): up to max spans (start[i], len[i]) into reply holding the
 * text after "CONFIG:", trimmed; returns how many. The text is unchecked:
 * each goes through agents_proposal_parse. */
size_t agents_proposal_lines(const char *reply, const char **start,
                             size_t *len, size_t max);

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

#endif
