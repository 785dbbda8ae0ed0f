/* prompt: the agents' prompts — templates read from templates/agents/,
 * design points written as prompt facts (what was not measured said so,
 * never 0), placeholders filled, and one LLM note parsed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents_prompt.h"

void agents_point_facts(util_buf *b, const char *label,
                        const agents_point *p)
{
    char canon[SPACE_CANON_MAX];
    /* built-in knobs: the agents' prompts name no user knob */
    space_config_canon(NULL, &p->cfg, canon, sizeof canon);
    util_buf_printf(b, "%s: config %s; limit %s; bottleneck %s; metrics", label,
                    canon, p->limit[0] ? p->limit : "unknown",
                    p->bottleneck[0] ? p->bottleneck : "unknown");
    for (int i = 0; i < p->m.n; i++)
        if (isfinite(p->m.val[i]))
            util_buf_printf(b, " %s=%.6g", p->m.name[i], p->m.val[i]);
    /* what the record lacks is not measured, never 0 */
    int first = 1;
    for (int k = 0; k < met_known_count(); k++) {
        double v;
        const char *name = met_known_name(k);
        if (met_get(&p->m, name, &v) == 0 && isfinite(v))
            continue;
        if (first)
            util_buf_puts(b, "; not measured (unknown, not 0):");
        util_buf_printf(b, " %s", name);
        first = 0;
    }
    util_buf_puts(b, "\n");
}

char *agents_fill_template(const char *tpl, const char *const *names,
                           const char *const *vals, int n)
{
    util_buf b;
    util_buf_init(&b);
    for (const char *p = tpl; *p;) {
        int done = 0;
        for (int i = 0; i < n && !done; i++) {
            size_t nl = strlen(names[i]);
            if (strncmp(p, "{{", 2) == 0 && strncmp(p + 2, names[i], nl) == 0
                && strncmp(p + 2 + nl, "}}", 2) == 0) {
                util_buf_puts(&b, vals[i]);
                p += nl + 4;
                done = 1;
            }
        }
        if (!done)
            util_buf_add(&b, p++, 1);
    }
    util_buf_add(&b, "", 0);
    return b.s;
}

int agents_prompts_read(char *tpl[AGENTS_NPROMPTS], gd_err *err)
{
    char dir[4096];
    int rc = util_datadir(dir, sizeof dir, err);
    for (int i = 0; i < AGENTS_NPROMPTS && !rc; i++) {
        char path[4300], file[64];
        size_t len;
        snprintf(file, sizeof file, "agents/%s.txt",
                 i < 4 ? agents_agent_name(i) : "user");
        util_path_join(path, sizeof path, dir, file);
        rc = util_read_file(path, &tpl[i], &len, err);
        if (rc)   /* a broken install, not bad input */
            rc = gd_errf(err, GD_EENV, "%s: agent prompt template missing "
                         "(check GPUDSE_DATA or the installation)", path);
    }
    return rc;
}

int agents_llm_note(agents_llm *l, char *const tpl[AGENTS_NPROMPTS],
                    int agent, const char *workload, const char *scope,
                    const char *facts, const agents_note *rules,
                    agents_note *out, gd_err *err)
{
    char *reply = NULL;
    const char *names[] = {"workload", "scope", "facts", "rules"};
    const char *vals[] = {workload ? workload : "(campaign)", scope, facts,
                          rules->text};
    char *user = agents_fill_template(tpl[4], names, vals, 4);
    int cached;
    int rc = agents_llm_ask(l, tpl[agent], user, &reply, &cached, err);
    if (!rc && agents_parse_reply(reply, out->text, sizeof out->text,
                                  &out->status) != 0)
        rc = gd_errf(err, GD_EINPUT, "agents: the answer has no analysis "
                     "text or no final STATUS: GREEN|AMBER|RED line");
    free(user);
    free(reply);
    return rc;
}
