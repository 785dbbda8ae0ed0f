/* fuzz_llm: libFuzzer harness for everything that reads an LLM's words —
 * the provider answer bodies (Anthropic and OpenAI-compatible JSON, through
 * llm.c's private answer_text, included here for that reason), the cache
 * file reader, the annotation reply parser agents_parse_reply and the config
 * proposal parser agents_proposal_parse. No network is touched. */
#include "fuzz_common.h"
#include "../../analysis/agents/llm.c"
#include "agents_propose.h"

static void check_proposal(const char *text)
{
    space_def s;
    space_def_full(&s);
    gpu_config base = space_baseline(), tried[2] = {base, base}, out;
    tried[1].n_clusters = 60;
    char reason[200];
    memset(reason, 'x', sizeof reason);
    int rc = agents_proposal_parse(text, &s, &base, tried, 2, &out, reason,
                                   sizeof reason);
    if (memchr(reason, 0, sizeof reason) == NULL)
        abort();
    if (rc == GD_OK) {
        if (space_index(&s, &out) < 0)
            abort();
        if (memcmp(&out, &tried[0], sizeof out) == 0
            || memcmp(&out, &tried[1], sizeof out) == 0)
            abort();
    } else if (rc != GD_EINPUT) {
        abort();
    }
    space_def_baseline(&s);
    agents_proposal_parse(text, &s, &base, NULL, 0, &out, reason,
                          sizeof reason);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_str(data, size);
    agents_llm l;
    camp_agents cfg;
    memset(&cfg, 0, sizeof cfg);
    strcpy(cfg.provider, "anthropic");
    agents_llm_init(&l, &cfg, "");
    free(answer_text(&l, text));
    strcpy(cfg.provider, "openai-compatible");
    agents_llm_init(&l, &cfg, "");
    free(answer_text(&l, text));

    const char *cpath = fz_write("llm", "cache.json", data, size);
    free(cache_read(cpath));

    char out[300];
    int status = -7;
    int rc = agents_parse_reply(text, out, sizeof out, &status);
    if (strlen(out) >= sizeof out)
        abort();
    for (const char *p = out; *p; p++)
        if ((unsigned char)*p < 0x20)
            abort();
    (void)rc;
    check_proposal(text);
    char *red = agents_redact(text, size > 3 ? "key" : NULL);
    free(red);
    free(text);
    return 0;
}
