/* identity: the canonical identity and the resumable settings of a
 * campaign, and the comparison of a run directory's manifest with a
 * campaign file that may have been edited since. */
#include "identity.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "store.h"

static void put(cJSON *o, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put(cJSON *o, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char s[4096];
    vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    cJSON_AddStringToObject(o, name, s);
}

/* "n_clusters=8 15 30,n_mem=6,...": every knob with its values (the
 * campaign's user knobs after the built-in ones; with option= as
 * "name[-option]"). */
static void space_text(const space_def *s, util_buf *b)
{
    for (int k = 0; k < space_nknobs(s); k++) {
        const char *opt = k >= SPACE_NKNOBS ? s->user[k - SPACE_NKNOBS].option
                                            : "";
        util_buf_printf(b, "%s%s%s%s%s=", k ? "," : "", space_knob_name(s, k),
                        *opt ? "[" : "", opt, *opt ? "]" : "");
        for (int i = 0; i < s->nlevels[k]; i++) {
            char v[SPACE_TEXTLEN];
            util_buf_printf(b, "%s%s", i ? " " : "",
                            space_level_str(s, k, s->levels[k][i], v,
                                            sizeof v));
        }
    }
}

cJSON *ident_identity(const camp_campaign *c, const char *backend_version,
                      const char *verify_version)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    util_buf b;
    util_buf_init(&b);
    put(o, "name", "%s", c->name);
    put(o, "backend", "%s %s", c->backend, backend_version);
    put(o, "simulator", "%s", c->sim_fingerprint);
    /* the loop's settings and the bytes of its configs= file */
    char csha[65] = "none";
    gd_err ignored;
    if (c->verify_configs[0]
        && util_sha256_file(c->verify_configs, csha, &ignored) != GD_OK)
        util_strlcpy(csha, "unreadable", sizeof csha);
    if (c->verify_backend[0] && c->verify_rounds > 0)
        put(o, "verify", "%s %s loop rounds %d per-round %d "
            "min-improvement %.17g configs %s", c->verify_backend,
            verify_version, c->verify_rounds, c->verify_per_round,
            c->verify_min_improvement, csha);
    else if (c->verify_backend[0])
        put(o, "verify", "%s %s top %d", c->verify_backend, verify_version,
            c->verify_top);
    for (int i = 0; i < c->nworkloads; i++)
        util_buf_printf(&b, "%s%s %s", i ? "," : "", c->workloads[i].name,
                        c->workloads[i].sha256);
    cJSON_AddStringToObject(o, "workloads", b.s ? b.s : "");
    b.len = 0;
    space_text(&c->space, &b);
    cJSON_AddStringToObject(o, "space", b.s ? b.s : "");
    b.len = 0;
    for (int i = 0; i < c->nobjectives; i++)
        util_buf_printf(&b, "%s%s %s", i ? "," : "",
                        c->obj[i].maximize ? "maximize" : "minimize",
                        c->obj[i].metric);
    put(o, "objectives", "%s", b.s ? b.s : "");
    /* derived metrics are journaled, constraints steer the search: part
     * of what a run is (absent when the campaign has none) */
    b.len = 0;
    for (int i = 0; i < c->nderived; i++)
        util_buf_printf(&b, "%s%s = %s [%s]", i ? "," : "",
                        c->derived[i].name, c->derived[i].expr,
                        c->derived[i].unit);
    if (c->nderived)
        put(o, "derived", "%s", b.s);
    b.len = 0;
    for (int i = 0; i < c->ncons; i++) {
        const cons_bound *k = &c->cons[i];
        util_buf_printf(&b, "%s%s", i ? "," : "", k->metric);
        if (k->has_min)
            util_buf_printf(&b, " min %.17g", k->min);
        if (k->has_max)
            util_buf_printf(&b, " max %.17g", k->max);
    }
    if (c->ncons)
        put(o, "constraints", "%s", b.s);
    /* a larger budget extends a random search to what a fresh run with
     * it proposes, and an adaptive one from where it stopped (strategy.h);
     * Latin hypercube strata (and a study's searches) are laid out for the
     * budget itself */
    if (!strcmp(c->strategy, "lhs") || c->nstudy)
        put(o, "strategy", "%s budget %ld", c->strategy, c->budget);
    else
        put(o, "strategy", "%s", c->strategy);
    /* an LLM-driven agent search proposes what its model answers */
    if (c->search_agents.provider[0]
        && strcmp(c->search_agents.provider, "rules"))
        put(o, "search_agents", "%s %s %s batch %d specialists %s",
            c->search_agents.provider, c->search_agents.endpoint,
            c->search_agents.model, c->search_batch,
            c->search_llm_specialists ? "llm" : "rules");
    b.len = 0;
    for (int i = 0; i < c->nstudy; i++)
        util_buf_printf(&b, "%s%s", i ? " " : "", c->study[i]);
    if (c->nstudy)
        put(o, "study", "%s seeds %d", b.s, c->study_seeds);
    put(o, "seed", "%llu", (unsigned long long)c->seed);
    util_buf_free(&b);
    return o;
}

static void retry_on_text(unsigned mask, char *s, size_t n)
{
    s[0] = '\0';
    for (int i = 0; i < ST__COUNT; i++)
        if (mask & (1u << i))
            snprintf(s + strlen(s), n - strlen(s), "%s%s", s[0] ? " " : "",
                     store_status_name(i));
}

cJSON *ident_settings(const camp_campaign *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char on[256];
    retry_on_text(c->retry_mask, on, sizeof on);
    put(o, "budget", "%ld", c->budget);
    put(o, "jobs", "%d", c->jobs);
    put(o, "timeout", "%g", c->timeout_s);
    put(o, "retries", "%d", c->retries);
    put(o, "retry-on", "%s", on);
    put(o, "grace", "%g", c->grace_s);
    put(o, "memory-mb", "%g", c->memory_mb);
    put(o, "output-cap-mb", "%g", c->output_cap_mb);
    put(o, "backoff", "%g", c->backoff_s);
    put(o, "executor", "%s", c->cluster.executor[0] ? c->cluster.executor
                                                    : "local");
    put(o, "partition", "%s", c->cluster.partition);
    put(o, "account", "%s", c->cluster.account);
    put(o, "array-limit", "%d", c->cluster.array_limit);
    put(o, "sbatch-options", "%s", c->cluster.sbatch_options);
    put(o, "cpus", "%d", c->cluster.cpus);
    put(o, "gres", "%s", c->cluster.gres);
    util_buf b;  /* per-workload resources (<workload timeout= ...>) */
    util_buf_init(&b);
    for (int i = 0; c->wlrun && i < c->nworkloads; i++) {
        const camp_wlrun *r = &c->wlrun[i];
        if (r->timeout_s > 0 || r->memory_mb > 0 || r->cpus || r->gres[0])
            util_buf_printf(&b, "%s%s timeout %g memory-mb %g cpus %d gres "
                            "%s", b.len ? ", " : "", c->workloads[i].name,
                            r->timeout_s, r->memory_mb, r->cpus, r->gres);
    }
    cJSON_AddStringToObject(o, "workload-resources", b.s ? b.s : "");
    util_buf_free(&b);
    put(o, "report", "formats %d paper %s figure %s layout %s", c->formats,
        c->paper, c->figure_single ? "single" : "double", c->layout);
    put(o, "agents", "%s %s %s", c->agents.provider, c->agents.model,
        c->agents.endpoint);
    put(o, "regression", "%d thresholds", c->nthresholds);
    return o;
}

static const char *str_of(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* "what: old -> new", long values cut to their first 60 characters. */
static void change_text(const char *what, const char *a, const char *b,
                        char *s, size_t n)
{
    snprintf(s, n, "%s: %.60s%s -> %.60s%s", what, a ? a : "(none)",
             a && strlen(a) > 60 ? "..." : "", b ? b : "(none)",
             b && strlen(b) > 60 ? "..." : "");
}

/* Every item of now that differs from then (and items only then has). */
static void diff(const cJSON *then, const cJSON *now, cJSON *out)
{
    const cJSON *v;
    char s[512];
    cJSON_ArrayForEach(v, now) {
        const char *a = str_of(then, v->string);
        if (!cJSON_IsString(v) || (a && !strcmp(a, v->valuestring)))
            continue;
        change_text(v->string, a, v->valuestring, s, sizeof s);
        cJSON_AddItemToArray(out, cJSON_CreateString(s));
    }
    cJSON_ArrayForEach(v, then) {
        if (!cJSON_GetObjectItemCaseSensitive(now, v->string)
            && cJSON_IsString(v)) {
            change_text(v->string, v->valuestring, NULL, s, sizeof s);
            cJSON_AddItemToArray(out, cJSON_CreateString(s));
        }
    }
}

static void join(const cJSON *arr, util_buf *b)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
        util_buf_printf(b, "%s%s", b->len ? "; " : "", v->valuestring);
}

int ident_compare(const cJSON *old, const cJSON *identity,
                  const cJSON *settings, const char *dir, cJSON **changes,
                  gd_err *err)
{
    *changes = NULL;
    const cJSON *oid = cJSON_GetObjectItemCaseSensitive(old, "identity");
    const cJSON *oset = cJSON_GetObjectItemCaseSensitive(old, "settings");
    cJSON *bad = cJSON_CreateArray(), *ok = cJSON_CreateArray();
    if (!bad || !ok) {
        cJSON_Delete(bad);
        cJSON_Delete(ok);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    diff(oid, identity, bad);
    const char *ob = str_of(oset, "budget"), *nb = str_of(settings, "budget");
    if (ob && nb && atol(nb) < atol(ob)) {
        char s[256];
        snprintf(s, sizeof s, "budget: %s -> %s (the journal may hold more "
                 "evaluations than the new budget)", ob, nb);
        cJSON_AddItemToArray(bad, cJSON_CreateString(s));
    }
    if (cJSON_GetArraySize(bad) > 0) {
        util_buf b;
        util_buf_init(&b);
        join(bad, &b);
        int rc = gd_errf(err, GD_EINPUT, "%s: holds a run of a different "
                         "campaign: this file changes what determines its "
                         "results (%s); undo that change, or choose another "
                         "directory with -o DIR", dir, b.s);
        util_buf_free(&b);
        cJSON_Delete(bad);
        cJSON_Delete(ok);
        return rc;
    }
    cJSON_Delete(bad);
    diff(oset, settings, ok);
    *changes = ok;
    return GD_OK;
}
