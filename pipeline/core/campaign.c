/* campaign: parse a campaign XML file with libxml2 (no network, no external
 * entities, no DTDs), validate it against templates/campaign.rng, then check
 * its meaning as a document; the stages check what their sections mean to
 * them (campaign.h). Every error is "FILE:LINE: message" with exit class 2. */
#include "campaign.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <regex.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>

#include "campaign_impl.h"
#include "store.h"
#include "xmlsafe.h"

/* Which elements may appear inside which. RELAX NG's own message for a
 * stray element inside an interleave points at the parent and talks about a
 * missing sibling; this pass names the stray element, its line and the
 * closest known name before the schema runs. */
static const struct {
    const char *parent;
    const char *children[16];
} known_children[] = {
    {"campaign", {"description", "simulator", "workloads", "space",
                  "objectives", "search", "execution", "report", "agents",
                  "verify",
                  "regression", "derived", NULL}},
    {"regression", {"threshold", NULL}},
    {"workloads", {"workload", NULL}},
    {"search", {"study", "agents", NULL}},
    {"workload", {"command", "env", NULL}},
    {"simulator", {"command", "file", "metric", NULL}},
    {"verify", {"command", "file", "metric", NULL}},
    {"space", {"knob", NULL}},
    {"objectives", {"maximize", "minimize", "constraint", "aggregate",
                    NULL}},
};

static const char *const *children_of(const char *parent)
{
    for (size_t i = 0; i < sizeof known_children / sizeof known_children[0];
         i++)
        if (strcmp(known_children[i].parent, parent) == 0)
            return known_children[i].children;
    return NULL;
}

static int check_elements(const char *path, xmlNodePtr parent, gd_err *err)
{
    static const char *const none[] = {NULL};
    const char *const *ok = children_of((const char *)parent->name);
    if (!ok)
        ok = none;
    for (xmlNodePtr n = parent->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *name = (const char *)n->name, *best = NULL;
        int found = 0, bestd = 1 << 30;
        for (int i = 0; ok[i]; i++) {
            int d = util_edit_distance(name, ok[i]);
            found |= d == 0;
            if (d < bestd) {
                bestd = d;
                best = ok[i];
            }
        }
        if (!found) {
            char hint[128] = "";
            if (best && bestd <= (int)strlen(name) / 3 + 1)
                snprintf(hint, sizeof hint, "; did you mean <%s>?", best);
            return gd_errf(err, GD_EINPUT, "%s:%ld: unknown element <%s> "
                           "inside <%s>%s", path, xmlGetLineNo(n), name,
                           (const char *)parent->name, hint);
        }
        int rc = check_elements(path, n, err);
        if (rc)
            return rc;
    }
    return GD_OK;
}

/* ---- meaning checks ---- */

static int parse_metric(ctx_t *x, xmlNodePtr n)
{
    camp_campaign *c = x->c;
    char *name = attr(n, "name"), *re = attr(n, "regex"), *req = attr(n, "required");
    int rc = GD_OK;
    regex_t compiled;
    if (c->nmetrics == CAMP_MAXMETRICS)
        rc = fail(x, n, "too many metrics (at most 32)");
    else if (strlen(name) >= sizeof c->metrics[0].name || !*name)
        rc = fail(x, n, "metric name \"%s\" is empty or too long", name);
    else if (strlen(re) >= sizeof c->metrics[0].regex)
        rc = fail(x, n, "regex of metric %s is too long", name);
    for (int i = 0; !rc && i < c->nmetrics; i++)
        if (!strcmp(c->metrics[i].name, name))
            rc = fail(x, n, "metric %s is declared twice", name);
    if (!rc) {
        int bad = regcomp(&compiled, re, REG_EXTENDED);
        if (!bad && compiled.re_nsub < 1)
            rc = fail(x, n, "regex of metric %s has no capture group: wrap the "
                      "number in ( )", name);
        else if (bad) {
            char why[256];
            regerror(bad, &compiled, why, sizeof why);
            rc = fail(x, n, "regex of metric %s does not compile: %s", name,
                      why);
        }
        if (!bad)
            regfree(&compiled);
    }
    if (!rc) {
        camp_metric *m = &c->metrics[c->nmetrics++];
        util_strlcpy(m->name, name, sizeof m->name);
        util_strlcpy(m->regex, re, sizeof m->regex);
        m->required = !req || strcmp(req, "false") != 0;
    }
    xmlFree(name);
    xmlFree(re);
    xmlFree(req);
    return rc;
}

static int parse_sim_file(ctx_t *x, xmlNodePtr n)
{
    camp_campaign *c = x->c;
    char *name = attr(n, "name"), *tpl = attr(n, "template");
    int rc = GD_OK;
    if (c->nfiles == CAMP_MAXFILES)
        rc = fail(x, n, "too many files (at most 8)");
    else if (!*name || strchr(name, '/') || !strcmp(name, "..")
             || !strcmp(name, ".") || strlen(name) >= sizeof c->files[0].name)
        rc = fail(x, n, "file name \"%s\" must be a plain name inside the "
                  "job directory", name);
    if (!rc) {
        camp_file *f = &c->files[c->nfiles];
        util_path_join(f->template_path, sizeof f->template_path, c->dir, tpl);
        if (!x->names_only && !util_path_exists(f->template_path))
            rc = fail(x, n, "template \"%s\" not found (relative paths start "
                      "at the campaign's folder)", tpl);
        util_strlcpy(f->name, name, sizeof f->name);
        f->line = line_of(n);
        c->nfiles += !rc;
    }
    xmlFree(name);
    xmlFree(tpl);
    return rc;
}

const char *camp_ext_backend(const camp_campaign *c)
{
    return c->verify_backend[0] ? c->verify_backend : c->backend;
}

static int parse_sim_children(ctx_t *x, xmlNodePtr sim)
{
    camp_campaign *c = x->c;
    int rc = GD_OK;
    for (xmlNodePtr n = sim->children; n && !rc; n = n->next) {
        if (is_elem(n, "command") && elem_text(n, c->sim_command,
                                               sizeof c->sim_command))
            rc = fail(x, n, "command is too long");
        else if (is_elem(n, "command"))
            c->sim_command_line = line_of(n);
        else if (is_elem(n, "metric"))
            rc = parse_metric(x, n);
        else if (is_elem(n, "file"))
            rc = parse_sim_file(x, n);
    }
    if (rc)
        return rc;
    const char *backend = camp_ext_backend(c);
    int is_cmd = !strcmp(backend, "command");
    if (is_cmd && !c->sim_command[0])
        return fail(x, sim, "the command backend needs a <command> inside "
                    "<simulator>");
    if (is_cmd && !c->nmetrics)
        return fail(x, sim, "the command backend needs at least one <metric "
                    "name=\"...\" regex=\"...\"/> to read results");
    if (!is_cmd && (c->sim_command[0] || c->nmetrics || c->nfiles))
        return fail(x, sim, "<command>, <file> and <metric> belong to the "
                    "command backend, not \"%s\"", backend);
    return GD_OK;
}

/* <simulator>, or <verify> (dst = verify_backend): the backend and the
 * external simulator's set-up. */
static int parse_sim_element(ctx_t *x, xmlNodePtr n, char *dst, size_t dstsz)
{
    char *b = attr(n, "backend"), *root = attr(n, "root"), *cfg = attr(n, "config");
    int rc = GD_OK;
    if (b && strcmp(b, "analytic") != 0)
        x->c->sim_line = line_of(n);
    util_strlcpy(dst, b ? b : "", dstsz);   /* known: be_check_campaign */
    if (root)
        util_path_join(x->c->sim_root, sizeof x->c->sim_root, x->c->dir, root);
    else if (!rc && getenv("GPGPUSIM_ROOT"))
        util_strlcpy(x->c->sim_root, getenv("GPGPUSIM_ROOT"),
                     sizeof x->c->sim_root);
    if (!rc && cfg) {
        util_path_join(x->c->sim_config, sizeof x->c->sim_config, x->c->dir,
                       cfg);
        if (!x->names_only && !util_is_dir(x->c->sim_config))
            rc = fail(x, n, "config folder \"%s\" not found", cfg);
    }
    if (!rc && !x->names_only && !strcmp(camp_ext_backend(x->c), "gpgpusim")
        && !x->c->sim_root[0])
        rc = fail(x, n, "the gpgpusim backend needs root=\"...\" (the "
                  "simulator's folder) or GPGPUSIM_ROOT in the environment");
    if (!rc)
        rc = parse_sim_children(x, n);
    xmlFree(b);
    xmlFree(root);
    xmlFree(cfg);
    return rc;
}

static int parse_simulator(ctx_t *x, xmlNodePtr n)
{
    x->c->simulator_line = line_of(n);
    return parse_sim_element(x, n, x->c->backend, sizeof x->c->backend);
}

/* <verify rounds= per-round= min-improvement= configs=>: the loop. */
static int parse_verify_loop(ctx_t *x, xmlNodePtr n, int has_top)
{
    char *r = attr(n, "rounds"), *p = attr(n, "per-round"),
         *m = attr(n, "min-improvement"), *f = attr(n, "configs");
    long rounds = 0, per = 2;
    double mi = 0.005;
    int rc = GD_OK;
    if (r && util_parse_long(r, 1, 1000, &rounds) != 0)
        rc = fail(x, n, "rounds must be 1 to 1000 (got \"%s\")", r);
    else if (p && util_parse_long(p, 1, 10000, &per) != 0)
        rc = fail(x, n, "per-round must be 1 to 10000 configs (got \"%s\")",
                  p);
    else if (m && (util_parse_double(m, &mi) != 0 || !(mi >= 0 && mi < 1)))
        rc = fail(x, n, "min-improvement must be a fraction 0 to 1 (got "
                  "\"%s\")", m);
    else if (!r && (p || m))
        rc = fail(x, n, "per-round= and min-improvement= belong to the "
                  "verification loop: give rounds= too");
    else if (r && has_top)
        rc = fail(x, n, "top= is the one-pass count; the loop (rounds=) "
                  "verifies per-round= configs a round");
    if (!rc && f)
        util_path_join(x->c->verify_configs, sizeof x->c->verify_configs,
                       x->c->dir, f);
    x->c->verify_rounds = (int)rounds;
    x->c->verify_per_round = (int)per;
    x->c->verify_min_improvement = mi;
    x->c->verify_line = line_of(n);
    xmlFree(r);
    xmlFree(p);
    xmlFree(m);
    xmlFree(f);
    return rc;
}

static int parse_verify(ctx_t *x, xmlNodePtr n)
{
    char *top = attr(n, "top");
    long k = 8;
    int rc = GD_OK;
    if (strcmp(x->c->backend, "analytic") != 0)
        rc = fail(x, n, "<verify> re-runs the analytic backend's predicted "
                  "front on another simulator; the campaign's simulator is "
                  "\"%s\"", x->c->backend);
    else if (top && util_parse_long(top, 1, 100000, &k) != 0)
        rc = fail(x, n, "top must be 1 to 100000 configs per workload (got "
                  "\"%s\")", top);
    if (!rc)
        rc = parse_verify_loop(x, n, top != NULL);
    xmlFree(top);
    if (rc)
        return rc;
    x->c->verify_top = (int)k;
    rc = parse_sim_element(x, n, x->c->verify_backend,
                           sizeof x->c->verify_backend);
    if (!rc && !strcmp(x->c->verify_backend, "analytic"))
        rc = fail(x, n, "<verify> needs an expensive backend (gpgpusim or "
                  "command), not analytic");
    return rc;
}

static int parse_objectives(ctx_t *x, xmlNodePtr list)
{
    for (xmlNodePtr n = list->children; n; n = n->next) {
        int maxi = is_elem(n, "maximize");
        if (!maxi && !is_elem(n, "minimize"))
            continue;
        char *m = attr(n, "metric");
        int rc = GD_OK;
        for (int i = 0; !rc && i < x->c->nobjectives; i++)
            if (strcmp(x->c->obj[i].metric, m) == 0)
                rc = fail(x, n, "metric \"%s\" is an objective twice", m);
        if (!rc && x->c->nobjectives == CAMP_MAXOBJ)
            rc = fail(x, n, "too many objectives (at most 8)");
        if (!rc) {
            x->c->obj_line[x->c->nobjectives] = line_of(n);
            camp_objective *o = &x->c->obj[x->c->nobjectives++];
            util_strlcpy(o->metric, m, sizeof o->metric);
            o->maximize = maxi;
        }
        xmlFree(m);
        if (rc)
            return rc;
    }
    /* after every <maximize>/<minimize>: an aggregate's default sense is
     * its metric's objective's */
    for (xmlNodePtr n = list->children; n; n = n->next) {
        int rc = is_elem(n, "aggregate") ? campx_aggregate(x, n) : GD_OK;
        if (rc)
            return rc;
    }
    return GD_OK;
}

/* <study strategies="random nsga2 ..." seeds="5"/> inside <search>. */
static int parse_study(ctx_t *x, xmlNodePtr n)
{
    char *list = attr(n, "strategies"), *seeds = attr(n, "seeds");
    char buf[1024], *save = NULL;
    long ns = 5;
    int rc = GD_OK;
    util_strlcpy(buf, list ? list : "", sizeof buf);
    for (char *t = strtok_r(buf, " \t\n", &save); !rc && t;
         t = strtok_r(NULL, " \t\n", &save)) {
        int dup = 0;
        for (int i = 0; i < x->c->nstudy; i++)
            dup |= strcmp(x->c->study[i], t) == 0;
        if (dup)
            rc = fail(x, n, "strategy \"%s\" is listed twice in <study>", t);
        else if (x->c->nstudy == CAMP_MAXSTUDY)
            rc = fail(x, n, "too many strategies in <study> (at most 8)");
        else
            util_strlcpy(x->c->study[x->c->nstudy++], t, sizeof x->c->study[0]);
    }
    if (!rc && seeds && util_parse_long(seeds, 1, 100, &ns) != 0)
        rc = fail(x, n, "seeds must be 1 to 100 (got \"%s\")", seeds);
    x->c->study_seeds = (int)ns;
    x->c->study_line = line_of(n);
    xmlFree(list);
    xmlFree(seeds);
    return rc;
}

static int parse_search_agents(ctx_t *x, xmlNodePtr n);

static int parse_search(ctx_t *x, xmlNodePtr n)
{
    char *s = attr(n, "strategy"), *b = attr(n, "budget");
    long budget = 0;
    int rc = GD_OK;
    x->c->search_line = line_of(n);
    if (util_parse_long(b, LONG_MIN, LONG_MAX, &budget)
             && b[strspn(b, "+-")] && !b[strspn(b, "+0123456789")])
        rc = fail(x, n, "budget \"%s\" is out of range: too large (at most "
                  "9223372036854775807 evaluations per workload)", b);
    else if (util_parse_long(b, LONG_MIN, LONG_MAX, &budget) || budget < 1)
        rc = fail(x, n, "budget must be at least 1 evaluation per workload "
                  "(got \"%s\")", b);
    if (!rc) {
        util_strlcpy(x->c->strategy, s, sizeof x->c->strategy);
        x->c->budget = budget;
    }
    xmlFree(s);
    xmlFree(b);
    for (xmlNodePtr st = n->children; !rc && st; st = st->next)
        if (is_elem(st, "study"))
            rc = parse_study(x, st);
        else if (is_elem(st, "agents"))
            rc = parse_search_agents(x, st);
    return rc;
}

int camp_parse_jobs(const char *text, int *jobs, char *why, size_t n)
{
    long v;
    if (util_parse_long(text, 0, CAMP_JOBS_MAX, &v) != 0) {
        snprintf(why, n, "jobs must be 0 (one per online core) to %d, not "
                 "\"%.40s\"", CAMP_JOBS_MAX, text);
        return -1;
    }
    *jobs = (int)v;
    return 0;
}

/* executor="slurm" and its sbatch settings. */
static int parse_execution_cluster(ctx_t *x, xmlNodePtr n)
{
    camp_cluster *k = &x->c->cluster;
    static const char *const names[] = {"executor", "partition", "account",
                                        "sbatch-options", "array-limit"};
    char *v[5];
    for (int i = 0; i < 5; i++)
        v[i] = attr(n, names[i]);
    long lv;
    int rc = GD_OK;
    if (v[0])
        util_strlcpy(k->executor, v[0], sizeof k->executor);
    if (v[1])
        util_strlcpy(k->partition, v[1], sizeof k->partition);
    if (v[2])
        util_strlcpy(k->account, v[2], sizeof k->account);
    if (v[3])
        util_strlcpy(k->sbatch_options, v[3], sizeof k->sbatch_options);
    if (v[4] && util_parse_long(v[4], 0, 100000, &lv) != 0)
        rc = fail(x, n, "array-limit must be 0 (no limit) to 100000 (got "
                  "\"%s\")", v[4]);
    else if (v[4])
        k->array_limit = (int)lv;
    for (int i = 0; i < 5; i++)
        xmlFree(v[i]);
    return rc ? rc : campx_resources(x, n, NULL, NULL, &k->cpus, k->gres,
                                     sizeof k->gres);
}

static int parse_execution_limits(ctx_t *x, xmlNodePtr n)
{
    camp_campaign *c = x->c;
    int rc = decimal_attr(x, n, "grace", 0, 3600, &c->grace_s);
    if (!rc)
        rc = decimal_attr(x, n, "memory-mb", 1, 1 << 24, &c->memory_mb);
    if (!rc)
        rc = decimal_attr(x, n, "output-cap-mb", 0.001, 1 << 20,
                          &c->output_cap_mb);
    if (!rc)
        rc = decimal_attr(x, n, "backoff", 0, 3600, &c->backoff_s);
    char *on = attr(n, "retry-on");
    if (!rc && on) {
        c->retry_mask = 0;
        char buf[256], *save = NULL;
        util_strlcpy(buf, on, sizeof buf);
        for (char *t = strtok_r(buf, " \t\n", &save); t;
             t = strtok_r(NULL, " \t\n", &save))
            c->retry_mask |= 1u << store_status_parse(t);
    }
    xmlFree(on);
    return rc ? rc : parse_execution_cluster(x, n);
}

static int parse_execution(ctx_t *x, xmlNodePtr n)
{
    char *j = attr(n, "jobs"), *t = attr(n, "timeout"), *r = attr(n, "retries");
    long lv;
    double dv;
    int rc = GD_OK;
    char why[160];
    if (j && camp_parse_jobs(j, &x->c->jobs, why, sizeof why) != 0)
        rc = fail(x, n, "%s", why);
    if (!rc && t && (util_parse_double(t, &dv) || dv <= 0 || dv > 1e7))
        rc = fail(x, n, "timeout must be a positive number of seconds (got "
                  "\"%s\")", t);
    else if (!rc && t)
        x->c->timeout_s = dv;
    if (!rc && r && util_parse_long(r, 0, 100, &lv) != 0)
        rc = fail(x, n, "retries must be 0 to 100 (got \"%s\")", r);
    else if (!rc && r)
        x->c->retries = (int)lv;
    xmlFree(j);
    xmlFree(t);
    xmlFree(r);
    return rc ? rc : parse_execution_limits(x, n);
}

static int parse_report(ctx_t *x, xmlNodePtr n)
{
    char *f = attr(n, "formats"), *p = attr(n, "paper"), *l = attr(n, "layout");
    int rc = GD_OK;
    x->c->report_line = line_of(n);
    if (f) {
        x->c->formats = (strstr(f, "pdf") ? CAMP_FMT_PDF : 0)
                        | (strstr(f, "svg") ? CAMP_FMT_SVG : 0);
    }
    if (p)
        util_strlcpy(x->c->paper, p, sizeof x->c->paper);
    char *fw = attr(n, "figure-width");
    x->c->figure_single = fw && strcmp(fw, "single") == 0;
    xmlFree(fw);
    if (l) {
        util_path_join(x->c->layout, sizeof x->c->layout, x->c->dir, l);
        if (!x->names_only && !util_path_exists(x->c->layout))
            rc = fail(x, n, "report layout \"%s\" not found", l);
    }
    xmlFree(f);
    xmlFree(p);
    xmlFree(l);
    return rc;
}

/* <agents> (or <search>'s): provider and its limits; meaning checks beyond
 * the schema. */
static int parse_agents_into(ctx_t *x, xmlNodePtr n, camp_agents *a)
{
    static const char *const names[] = {"provider", "endpoint", "model",
        "key-env", "max-tokens", "temperature", "max-requests", "timeout",
        "retries", "backoff"};
    char *v[10];
    for (int i = 0; i < 10; i++)
        v[i] = attr(n, names[i]);
    long lv;
    double dv;
    int rc = GD_OK;
    if (v[0])
        util_strlcpy(a->provider, v[0], sizeof a->provider);
    if (v[1] && strncmp(v[1], "http://", 7) && strncmp(v[1], "https://", 8))
        rc = fail(x, n, "agents endpoint must start with http:// or https:// "
                  "(got \"%s\")", v[1]);
    else if (v[1])
        util_strlcpy(a->endpoint, v[1], sizeof a->endpoint);
    if (v[2])
        util_strlcpy(a->model, v[2], sizeof a->model);
    if (v[3])
        util_strlcpy(a->key_env, v[3], sizeof a->key_env);
    if (!rc && v[4] && util_parse_long(v[4], 1, 100000, &lv))
        rc = fail(x, n, "max-tokens must be 1 to 100000 (got \"%s\")", v[4]);
    else if (v[4])
        a->max_tokens = (int)lv;
    if (!rc && v[5] && (util_parse_double(v[5], &dv) || dv < 0 || dv > 2))
        rc = fail(x, n, "temperature must be 0 to 2 (got \"%s\")", v[5]);
    else if (v[5])
        a->temperature = dv;
    if (!rc && v[6] && util_parse_long(v[6], 0, 1000000, &lv))
        rc = fail(x, n, "max-requests must be 0 to 1000000 (got \"%s\")",
                  v[6]);
    else if (v[6])
        a->max_requests = lv;
    if (!rc && v[7] && (util_parse_double(v[7], &dv) || dv <= 0 || dv > 3600))
        rc = fail(x, n, "agents timeout must be over 0, at most 3600 "
                  "seconds (got "
                  "\"%s\")", v[7]);
    else if (v[7])
        a->timeout_s = dv;
    if (!rc && v[8] && util_parse_long(v[8], 0, 10, &lv))
        rc = fail(x, n, "agents retries must be 0 to 10 (got \"%s\")", v[8]);
    else if (v[8])
        a->retries = (int)lv;
    if (!rc && v[9] && (util_parse_double(v[9], &dv) || dv < 0 || dv > 600))
        rc = fail(x, n, "backoff must be 0 to 600 seconds (got \"%s\")", v[9]);
    else if (v[9])
        a->backoff_s = dv;
    for (int i = 0; i < 10; i++)
        xmlFree(v[i]);
    return rc;
}

static int parse_agents(ctx_t *x, xmlNodePtr n)
{
    return parse_agents_into(x, n, &x->c->agents);
}

/* <search>'s <agents batch=...>: the LLM of the agent strategy; what it
 * may drive is the strategy's to say (strat_check_campaign). */
static int parse_search_agents(ctx_t *x, xmlNodePtr n)
{
    char *b = attr(n, "batch"), *sp = attr(n, "specialists");
    long batch = 1;
    int rc = parse_agents_into(x, n, &x->c->search_agents);
    if (!rc && b && util_parse_long(b, 1, 4096, &batch))
        rc = fail(x, n, "agents batch must be 1 to 4096 configs per round "
                  "(got \"%s\")", b);
    x->c->search_llm_specialists = sp && strcmp(sp, "llm") == 0;
    xmlFree(b);
    xmlFree(sp);
    x->c->search_batch = (int)batch;
    x->c->search_agents_line = line_of(n);
    return rc;
}

/* <threshold direction="higher-is-better|lower-is-better|any">. */
static int direction_attr(ctx_t *x, xmlNodePtr n, int *out)
{
    static const char *const names[] = {"higher-is-better",
                                        "lower-is-better", "any"};
    char *d = attr(n, "direction");
    int rc = GD_OK;
    *out = CAMP_DIR_UNSET;
    for (int i = 0; d && i < 3; i++)
        if (strcmp(d, names[i]) == 0)
            *out = CAMP_DIR_HIGHER + i;
    if (d && *out == CAMP_DIR_UNSET)
        rc = fail(x, n, "direction \"%s\": expected higher-is-better, "
                  "lower-is-better or any", d);
    xmlFree(d);
    return rc;
}

/* <regression>: thresholds of gpudse compare (pipeline/compare/compare.h). */
static int parse_regression(ctx_t *x, xmlNodePtr list)
{
    camp_campaign *c = x->c;
    int rc = GD_OK;
    for (xmlNodePtr n = list->children; !rc && n; n = n->next) {
        if (!is_elem(n, "threshold"))
            continue;
        char *m = attr(n, "metric");
        camp_threshold *t = &c->thresholds[c->nthresholds];
        if (c->nthresholds >= CAMP_MAXTHRESH)
            rc = fail(x, n, "too many regression thresholds (at most 48)");
        if (!rc) {
            memset(t, 0, sizeof *t);
            util_strlcpy(t->metric, m ? m : "", sizeof t->metric);
            c->threshold_line[c->nthresholds] = line_of(n);
            rc = decimal_attr(x, n, "relative", 0, 1e9, &t->relative_pct);
        }
        if (!rc)
            rc = decimal_attr(x, n, "absolute", 0, 1e300, &t->absolute);
        if (!rc)
            rc = direction_attr(x, n, &t->direction);
        if (!rc)
            c->nthresholds++;
        xmlFree(m);
    }
    return rc;
}

static int check_budget(ctx_t *x, xmlNodePtr search)
{
    uint64_t size = space_size(&x->c->space);
    if (strcmp(x->c->strategy, "exhaustive") == 0
        && (uint64_t)x->c->budget < size) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%llu", (unsigned long long)size);
        snprintf(b, sizeof b, "%ld", x->c->budget);
        char msg[160];
        snprintf(msg, sizeof msg, "%s points but the budget is %s", a, b);
        return fail(x, search, "exhaustive search needs a budget of at least "
                    "the space size: the space has %s; raise the budget or "
                    "use strategy=\"random\"", msg);
    }
    return GD_OK;
}

static void defaults(camp_campaign *c)
{
    util_strlcpy(c->backend, "analytic", sizeof c->backend);
    space_def_baseline(&c->space);
    c->seed = 1;
    c->jobs = 0;
    c->timeout_s = 3600;
    c->retries = 1;
    c->grace_s = 5;
    c->output_cap_mb = 64;
    c->backoff_s = 1;
    /* Deterministic simulators fail the same way twice: retry only what
     * the machine may have caused. */
    c->retry_mask = (1u << ST_TIMEOUT) | (1u << ST_OOM);
    c->formats = CAMP_FMT_PDF | CAMP_FMT_SVG;
    util_strlcpy(c->paper, "a4", sizeof c->paper);
    util_strlcpy(c->agents.provider, "rules", sizeof c->agents.provider);
    c->agents.max_tokens = 400;
    c->agents.max_requests = 200;
    c->agents.timeout_s = 60;
    c->agents.retries = 3;
    c->agents.backoff_s = 1;
    c->search_agents = c->agents;
    c->search_batch = 1;
}

/* Walk the validated tree: simulator first (objectives depend on it). */
static int check_meaning(ctx_t *x, xmlNodePtr root)
{
    char *name = attr(root, "name"), *seed = attr(root, "seed");
    util_strlcpy(x->c->name, name, sizeof x->c->name);
    if (seed)
        x->c->seed = strtoull(seed, NULL, 10);
    xmlFree(name);
    xmlFree(seed);
    if (!camp_name_ok(x->c->name))
        return fail(x, root, "campaign name \"%s\" is not a plain file name "
                    "(it names the run directory runs/NAME/): use letters, "
                    "digits, '_', '-' and '.', not first a '.' or '-'",
                    x->c->name);
    const char *order[] = {"simulator", "workloads", "space", "objectives",
                           "search", "execution", "report", "agents",
                           "regression", "verify"};
    xmlNodePtr search = NULL;
    /* the simulator and <verify> first: workloads and objectives depend
     * on both */
    for (xmlNodePtr n = root->children; n; n = n->next) {
        int rc = is_elem(n, "simulator") ? parse_simulator(x, n) : GD_OK;
        if (rc)
            return rc;
    }
    for (xmlNodePtr n = root->children; n; n = n->next) {
        int rc = is_elem(n, "verify") ? parse_verify(x, n) : GD_OK;
        if (rc)
            return rc;
    }
    int drc = campx_derived(x, root);  /* objectives may name them */
    if (drc)
        return drc;
    for (size_t i = 1; i < sizeof order / sizeof order[0]; i++)
        for (xmlNodePtr n = root->children; n; n = n->next) {
            if (!is_elem(n, order[i]))
                continue;
            int rc = GD_OK;
            switch (i) {
            case 0: rc = parse_simulator(x, n); break;
            case 1: rc = campx_workloads(x, n); break;
            case 2: rc = campx_space(x, n); break;
            case 3: rc = parse_objectives(x, n);
                    rc = rc ? rc : campx_constraints(x, n); break;
            case 4: rc = parse_search(x, n); search = n; break;
            case 5: rc = parse_execution(x, n); break;
            case 6: rc = parse_report(x, n); break;
            case 7: rc = parse_agents(x, n); break;
            case 8: rc = parse_regression(x, n); break;
            case 9: break;  /* parsed first, below */
            }
            if (rc)
                return rc;
        }
    return search ? check_budget(x, search) : GD_OK;
}

static int load(const char *path, int names_only, camp_campaign *c,
                gd_err *err)
{
    memset(c, 0, sizeof *c);
    defaults(c);
    util_strlcpy(c->path, path, sizeof c->path);
    util_dirname(c->dir, sizeof c->dir, path);
    /* {campaign_dir} is used from inside job directories: make it absolute */
    char abs[PATH_MAX];
    if (realpath(c->dir, abs))
        util_strlcpy(c->dir, abs, sizeof c->dir);
    xmlDocPtr doc = NULL;
    /* one read: the bytes hashed are the bytes parsed */
    char *text;
    size_t len;
    int rc = util_read_input(path, UTIL_INPUT_MAX, &text, &len, err);
    if (rc)
        return rc;
    util_sha256_hex(text, len, c->sha256);
    rc = xs_read_buf(path, text, len, "campaign", &doc, err);
    free(text);
    if (!rc && strcmp((const char *)xmlDocGetRootElement(doc)->name,
                      "campaign") != 0)
        rc = gd_errf(err, GD_EINPUT, "%s:%ld: the root element is <%s>; a "
                     "campaign file starts with <campaign name=\"...\">",
                     path, xmlGetLineNo(xmlDocGetRootElement(doc)),
                     (const char *)xmlDocGetRootElement(doc)->name);
    if (!rc)
        rc = check_elements(path, xmlDocGetRootElement(doc), err);
    if (!rc)
        rc = xs_validate(path, doc, "campaign.rng", "campaign", err);
    if (!rc) {
        ctx_t x = {path, c, err, names_only};
        rc = check_meaning(&x, xmlDocGetRootElement(doc));
    }
    xmlFreeDoc(doc);
    if (rc)
        camp_free(c);
    return rc;
}

int camp_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 63 || name[0] == '.' || name[0] == '-')
        return 0;
    return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                        "0123456789_.-") == n;
}

int camp_root_name(const char *path, char *out, size_t n, char *name,
                   size_t nn, gd_err *err)
{
    out[0] = '\0';
    if (name)
        name[0] = '\0';
    /* the parse of camp_load: a DOCTYPE is refused before any entity is
     * declared, special files and huge ones before anything is read */
    xmlDocPtr doc;
    int rc = xs_read(path, "campaign", &doc, err);
    if (rc)
        return rc;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    util_strlcpy(out, root ? (const char *)root->name : "", n);
    char *v = root ? attr(root, "name") : NULL;
    if (name && v)
        util_strlcpy(name, v, nn);
    xmlFree(v);
    xmlFreeDoc(doc);
    return GD_OK;
}

int camp_load(const char *path, camp_campaign *c, gd_err *err)
{
    return load(path, 0, c, err);
}

int camp_load_meta(const char *path, camp_campaign *c, gd_err *err)
{
    return load(path, 1, c, err);
}

void camp_free(camp_campaign *c)
{
    for (int i = 0; i < c->nderived; i++)
        drv_free(&c->derived[i]);
    c->nderived = 0;
    free(c->workloads);
    free(c->wlrun);
    c->workloads = NULL;
    c->wlrun = NULL;
    c->nworkloads = 0;
}

int camp_errf(const camp_campaign *c, int line, gd_err *err, const char *fmt,
              ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gd_errf(err, GD_EINPUT, "%s:%d: %s", c->path, line, msg);
}
