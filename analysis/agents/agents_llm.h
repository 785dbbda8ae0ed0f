/* agents_llm: the LLM providers' client — Anthropic Messages and
 * OpenAI-compatible chat completions over HTTP, with retries, a request cap
 * and a cache by content hash — and the key redaction and reply parsing
 * every caller of it uses. */
#ifndef GPUDSE_AGENTS_LLM_H
#define GPUDSE_AGENTS_LLM_H

#include <stddef.h>
#include "util.h"
#include "campaign.h"

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

#endif
