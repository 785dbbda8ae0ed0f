/* strat_agent_llm: the LLM rounds of the agent strategy (the Studio loop).
 * Each round the specialists (rules text) diagnose the front's balanced
 * point and the last round's results; the orchestrator prompt
 * (templates/agents/propose.txt) gets those notes with the objectives, the
 * allowed values and the configs evaluated so far, and its reply's CONFIG:
 * lines are validated (agents_propose.h: knob names, levels, the space,
 * nothing tried before); each rejected or missing proposal is replaced by
 * the rules proposer's next move, with the reason kept. A provider that
 * fails (agents_llm.h: retries spent, request cap reached, three malformed
 * answers) hands the rest of the run to the rules. Every round - the
 * diagnoses, the prompt's hash, the sanitised reply, the proposals with
 * their verdicts and the results that came back - is one line of
 * RUNDIR/agent-log.jsonl, rewritten in (workload, round) order when the
 * strategy ends, so a rerun from the cache writes the same bytes. */
#include "strategy_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "agents.h"
#include "agents_llm.h"
#include "agents_prompt.h"
#include "agents_propose.h"

#define REPLY_CAP 2000     /* bytes of the reply kept in the transcript */
#define MAX_ROWS 48        /* evaluated configs listed in the prompt */
#define MAX_LAST 3         /* last results diagnosed per round */

enum { BY_START, BY_LLM, BY_RULES };
static const char *const by_name[] = {"start", "llm", "rules"};

typedef struct {
    uint64_t idx;
    int by;
} slot_t;

typedef struct {
    char text[200];        /* the proposal as written (a short excerpt) */
    int accepted;
    char reason[400];
} prop_t;

typedef struct {
    agents_point p;
    int status;            /* the record's store status */
    int ok;
} obs_pt;

struct agent_llm {
    agents_llm client;
    int batch;
    char workload[64];
    char log_path[4200];
    char *system;          /* propose.txt */
    char *tpl[AGENTS_NPROMPTS];   /* the specialists' prompts, when the
                                   * LLM writes the diagnoses */
    int llm_specialists;
    obs_pt *pts;           /* by observation position */
    size_t npts, cappts;
    /* the open round */
    int round, open;
    const char *source;    /* "start", "llm" or "rules" */
    slot_t *slots;
    size_t nslots, capslots;
    prop_t *props;
    size_t nprops, capprops;
    cJSON *diag;
    char prompt_sha[65];
    char *reply;           /* sanitised, capped, key-free; NULL: none */
    char error[512];       /* why the LLM did not drive this round */
    char down_why[512];    /* the failure that handed the run to rules */
};

/* ---- set-up ------------------------------------------------------------- */

size_t agent_llm_start_size(const strat *st)
{
    size_t m = (size_t)(st->cap / 5);
    return m < 2 ? 2 : m > 8 ? 8 : m;
}

int agent_llm_new(strat *st, const camp_agents *a, int batch,
                  int llm_specialists, const char *rundir,
                  const char *workload, agent_llm **out, gd_err *err)
{
    char dir[4096], path[4300], cache[4200];
    size_t len;
    (void)st;
    agent_llm *l = calloc(1, sizeof *l);
    if (!l)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = util_datadir(dir, sizeof dir, err);
    if (!rc)
        rc = util_path_join(path, sizeof path, dir, "agents/propose.txt");
    if (!rc && util_read_file(path, &l->system, &len, err) != GD_OK)
        rc = gd_errf(err, GD_EENV, "%s: agent prompt template missing "
                     "(check GPUDSE_DATA or the installation)", path);
    if (!rc && llm_specialists)
        rc = agents_prompts_read(l->tpl, err);
    if (rc) {
        for (int i = 0; i < AGENTS_NPROMPTS; i++)
            free(l->tpl[i]);
        free(l->system);
        free(l);
        return rc;
    }
    l->llm_specialists = llm_specialists;
    util_path_join(cache, sizeof cache, rundir, "agents-cache");
    util_path_join(l->log_path, sizeof l->log_path, rundir,
                   "agent-log.jsonl");
    agents_llm_init(&l->client, a, cache);
    l->batch = batch > 0 ? batch : 1;
    util_strlcpy(l->workload, workload, sizeof l->workload);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    *out = l;
    return GD_OK;
}

/* ---- the open round ------------------------------------------------------- */

static int add_slot(agent_llm *l, uint64_t idx, int by)
{
    if (l->nslots == l->capslots) {
        size_t cap = l->capslots ? l->capslots * 2 : 16;
        slot_t *s = realloc(l->slots, cap * sizeof *s);
        if (!s)
            return -1;
        l->slots = s;
        l->capslots = cap;
    }
    l->slots[l->nslots++] = (slot_t){idx, by};
    return 0;
}

static prop_t *add_prop(agent_llm *l)
{
    if (l->nprops == l->capprops) {
        size_t cap = l->capprops ? l->capprops * 2 : 8;
        prop_t *p = realloc(l->props, cap * sizeof *p);
        if (!p)
            return NULL;
        l->props = p;
        l->capprops = cap;
    }
    prop_t *p = &l->props[l->nprops++];
    memset(p, 0, sizeof *p);
    return p;
}

static void open_round(agent_llm *l, int round, const char *source)
{
    l->round = round;
    l->open = 1;
    l->source = source;
    l->nslots = l->nprops = 0;
    cJSON_Delete(l->diag);
    l->diag = cJSON_CreateArray();
    l->prompt_sha[0] = 0;
    free(l->reply);
    l->reply = NULL;
    l->error[0] = 0;
}

void agent_llm_started(agent_llm *l, const uint64_t *idx, size_t n)
{
    open_round(l, 0, "start");
    for (size_t i = 0; i < n; i++)
        add_slot(l, idx[i], BY_START);
}

void agent_llm_observed(strat *st, agent_llm *l, size_t pos,
                        const store_record *r)
{
    if (pos >= l->cappts) {
        size_t cap = l->cappts ? l->cappts * 2 : 64;
        while (cap <= pos)
            cap *= 2;
        obs_pt *p = realloc(l->pts, cap * sizeof *p);
        if (!p)
            return;
        memset(p + l->cappts, 0, (cap - l->cappts) * sizeof *p);
        l->pts = p;
        l->cappts = cap;
    }
    obs_pt *o = &l->pts[pos];
    util_strlcpy(o->p.key, r->key, sizeof o->p.key);
    o->p.cfg = r->cfg;
    o->p.m = r->metrics;
    util_strlcpy(o->p.limit, r->limit, sizeof o->p.limit);
    util_strlcpy(o->p.bottleneck, r->bottleneck, sizeof o->p.bottleneck);
    o->status = r->status;
    o->ok = st->obs[pos].ok;
    if (pos >= l->npts)
        l->npts = pos + 1;
}

/* ---- the transcript --------------------------------------------------------- */

static void add_result(const strat *st, const agent_llm *l, cJSON *c,
                       uint64_t idx)
{
    long at = st->obs_at[idx];
    if (at < 0 || (size_t)at >= l->npts) {
        cJSON_AddStringToObject(c, "status", "pending");
        return;
    }
    const obs_pt *o = &l->pts[at];
    cJSON_AddStringToObject(c, "status", store_status_name(o->status));
    cJSON *obj = cJSON_AddObjectToObject(c, "objectives");
    for (int j = 0; j < st->nobj; j++) {
        double v;
        /* a metric not produced is absent, never 0 */
        if (met_get(&o->p.m, st->obj[j].metric, &v) == 0 && isfinite(v))
            cJSON_AddNumberToObject(obj, st->obj[j].metric, v);
    }
}

static cJSON *round_json(const strat *st, const agent_llm *l)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "workload", l->workload);
    cJSON_AddNumberToObject(r, "round", l->round);
    cJSON_AddStringToObject(r, "source", l->source);
    if (l->round > 0) {
        cJSON_AddItemReferenceToObject(r, "diagnoses", l->diag);
        if (l->prompt_sha[0])
            cJSON_AddStringToObject(r, "prompt_sha256", l->prompt_sha);
        if (l->reply)
            cJSON_AddStringToObject(r, "reply", l->reply);
        if (l->error[0])
            cJSON_AddStringToObject(r, "error", l->error);
        cJSON *ps = cJSON_AddArrayToObject(r, "proposals");
        for (size_t i = 0; i < l->nprops; i++) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddStringToObject(p, "text", l->props[i].text);
            cJSON_AddBoolToObject(p, "accepted", l->props[i].accepted);
            if (!l->props[i].accepted)
                cJSON_AddStringToObject(p, "reason", l->props[i].reason);
            cJSON_AddItemToArray(ps, p);
        }
    }
    cJSON *cs = cJSON_AddArrayToObject(r, "configs");
    for (size_t i = 0; i < l->nslots; i++) {
        cJSON *c = cJSON_CreateObject();
        char canon[SPACE_CANON_MAX];
        gpu_config cfg = space_at(&st->space, l->slots[i].idx);
        space_config_canon(&st->space, &cfg, canon, sizeof canon);
        cJSON_AddStringToObject(c, "config", canon);
        cJSON_AddStringToObject(c, "by", by_name[l->slots[i].by]);
        add_result(st, l, c, l->slots[i].idx);
        cJSON_AddItemToArray(cs, c);
    }
    return r;
}

/* Append the open round to the transcript (the strategy's end puts the
 * file in order). A transcript that cannot be written costs the
 * transcript, never the search: the failure goes to stderr. */
static void close_round(const strat *st, agent_llm *l)
{
    if (!l->open)
        return;
    l->open = 0;
    cJSON *r = round_json(st, l);
    char *line = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    char *red = line ? agents_llm_redact(&l->client, line) : NULL;
    FILE *f = red ? fopen(l->log_path, "a") : NULL;
    if (!f || fprintf(f, "%s\n", red) < 0 || fclose(f) != 0)
        fprintf(stderr, "gpudse: %s: cannot append the agent transcript\n",
                l->log_path);
    free(line);
    free(red);
}

typedef struct {
    char workload[64];
    int round;
    size_t at;             /* position in the file */
    char *line;
} log_line;

/* (workload, round), then file order. */
static int cmp_line(const void *a, const void *b)
{
    const log_line *x = a, *y = b;
    int c = strcmp(x->workload, y->workload);
    if (c)
        return c;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The transcript's lines with a workload and a round, in file order. */
static size_t read_lines(char *data, log_line **out)
{
    size_t n = 0, cap = 0;
    log_line *v = NULL;
    for (char *save = NULL, *s = strtok_r(data, "\n", &save); s;
         s = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(s);
        cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "workload");
        cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "round");
        if (cJSON_IsString(w) && cJSON_IsNumber(r)) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                log_line *nv = realloc(v, cap * sizeof *nv);
                if (!nv) {
                    cJSON_Delete(j);
                    break;
                }
                v = nv;
            }
            v[n] = (log_line){"", r->valueint, n, s};
            util_strlcpy(v[n].workload, w->valuestring, sizeof v[n].workload);
            n++;
        }
        cJSON_Delete(j);
    }
    *out = v;
    return n;
}

/* Rewrite the transcript in (workload, round) order, the last line of each
 * pair kept (a resumed run replays its rounds from the cache). */
static void canonical_log(const agent_llm *l)
{
    char *data = NULL;
    size_t len;
    gd_err e;
    if (!util_path_exists(l->log_path)
        || util_read_file(l->log_path, &data, &len, &e) != GD_OK)
        return;
    log_line *v = NULL;
    size_t n = read_lines(data, &v);
    qsort(v, n, sizeof *v, cmp_line);
    util_buf b;
    util_buf_init(&b);
    for (size_t i = 0; i < n; i++)
        if (i + 1 == n || strcmp(v[i].workload, v[i + 1].workload)
            || v[i].round != v[i + 1].round)
            util_buf_printf(&b, "%s\n", v[i].line);
    if (b.s && util_write_file_atomic(l->log_path, b.s, b.len, &e) != GD_OK)
        fprintf(stderr, "gpudse: %s\n", e.msg);
    util_buf_free(&b);
    free(v);
    free(data);
}

void agent_llm_free(strat *st, agent_llm *l)
{
    if (!l)
        return;
    close_round(st, l);
    canonical_log(l);
    cJSON_Delete(l->diag);
    free(l->reply);
    free(l->slots);
    free(l->props);
    free(l->pts);
    free(l->system);
    for (int i = 0; i < AGENTS_NPROMPTS; i++)
        free(l->tpl[i]);
    free(l);
    curl_global_cleanup();
}

/* ---- diagnoses ---------------------------------------------------------------- */

static const agents_point *baseline_point(const strat *st,
                                          const agent_llm *l)
{
    if (st->base_idx < 0)
        return NULL;
    long at = st->obs_at[st->base_idx];
    return at >= 0 && (size_t)at < l->npts && l->pts[at].ok
           ? &l->pts[at].p : NULL;
}

/* The LLM's notes in place of the rules' where it answers; how many it
 * wrote. The first failure's reason goes to the diagnosis. */
static int llm_notes(agent_llm *l, const char *scope, const agents_point *p,
                     const agents_point *base, agents_note *n, cJSON *d)
{
    util_buf f;
    util_buf_init(&f);
    agents_point_facts(&f, "point", p);
    if (base)
        agents_point_facts(&f, "baseline", base);
    int got = 0;
    for (int a = 0; a < 3 && !l->client.down; a++) {
        agents_note ln;
        gd_err e = {0, ""};
        if (agents_llm_note(&l->client, l->tpl, a, l->workload, scope,
                            f.s ? f.s : "", &n[a], &ln, &e) == GD_OK) {
            n[a] = ln;
            got++;
        } else if (!cJSON_GetObjectItemCaseSensitive(d, "error")) {
            char *red = agents_llm_redact(&l->client, e.msg);
            cJSON_AddStringToObject(d, "error", red);
            free(red);
        }
    }
    util_buf_free(&f);
    return got;
}

/* The specialists on point p: their notes into the prompt, their statuses
 * into the round's diagnoses. */
static void diagnose(const strat *st, agent_llm *l, const char *scope,
                     const agents_point *p, util_buf *facts)
{
    agents_note n[3];
    const agents_point *base = baseline_point(st, l);
    agents_rules_memory(p, &n[0]);
    agents_rules_warp(p, &n[1]);
    agents_rules_bottleneck(p, base, &n[2]);
    char canon[SPACE_CANON_MAX];
    space_config_canon(&st->space, &p->cfg, canon, sizeof canon);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "scope", scope);
    cJSON_AddStringToObject(d, "config", canon);
    if (l->llm_specialists) {
        int got = llm_notes(l, scope, p, base, n, d);
        cJSON_AddStringToObject(d, "source", got == 3 ? "llm" : got == 0
                                ? "rules" : "mixed");
    }
    util_buf_printf(facts, "[%s] %s\n", scope, canon);
    for (int a = 0; a < 3; a++) {
        cJSON_AddStringToObject(d, agents_agent_name(a),
                                agents_status_name(n[a].status));
        util_buf_printf(facts, "  %s (%s): %s\n", agents_agent_name(a),
                        agents_status_name(n[a].status), n[a].text);
    }
    cJSON_AddItemToArray(l->diag, d);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The front's balanced point ("knee"), by observation position; -1 when
 * nothing succeeded yet. The front is taken in space order, so ties do
 * not depend on the order results came back in. */
static long knee_of(const strat *st, const agent_llm *l)
{
    size_t *pos = malloc((st->nobs ? st->nobs : 1) * sizeof *pos);
    uint64_t *ix = malloc((st->nobs ? st->nobs : 1) * sizeof *ix);
    agents_point *fp = malloc((st->nobs ? st->nobs : 1) * sizeof *fp);
    long best = -1;
    if (pos && ix && fp) {
        size_t nf = strat_front(st, pos), m = 0;
        for (size_t i = 0; i < nf; i++)
            ix[i] = st->obs[pos[i]].idx;
        qsort(ix, nf, sizeof *ix, cmp_u64);
        for (size_t i = 0; i < nf; i++) {
            size_t at = (size_t)st->obs_at[ix[i]];
            if (at < l->npts) {
                pos[m] = at;
                fp[m++] = l->pts[at].p;
            }
        }
        int k = agents_pick_knee(fp, (int)m, st->obj, st->nobj);
        best = k >= 0 ? (long)pos[k] : -1;
    }
    free(pos);
    free(ix);
    free(fp);
    return best;
}

/* ---- the prompt ------------------------------------------------------------------ */

static void put_result(const strat *st, const agent_llm *l, size_t at,
                       util_buf *b)
{
    char canon[SPACE_CANON_MAX];
    const obs_pt *o = &l->pts[at];
    space_config_canon(&st->space, &o->p.cfg, canon, sizeof canon);
    util_buf_printf(b, "%s ->", canon);
    if (!o->ok) {
        util_buf_printf(b, " failed (%s)\n", store_status_name(o->status));
        return;
    }
    for (int j = 0; j < st->nobj; j++) {
        double v = NAN;
        met_get(&o->p.m, st->obj[j].metric, &v);
        util_buf_printf(b, " %s=%.6g", st->obj[j].metric, v);
    }
    util_buf_puts(b, "\n");
}

/* The evaluated configs: the front first, then the others, each part in
 * space order (so the prompt does not depend on when results came back);
 * at most MAX_ROWS lines. */
static void put_evaluated(const strat *st, const agent_llm *l, util_buf *b)
{
    size_t n = st->nobs, *pos = malloc((n ? n : 1) * sizeof *pos);
    uint64_t *ix = malloc((n ? n : 1) * sizeof *ix);
    unsigned char *on = calloc(n ? n : 1, 1);
    if (!pos || !ix || !on) {
        free(pos); free(ix); free(on);
        return;
    }
    size_t nf = strat_front(st, pos), rows = 0;
    util_buf_printf(b, "Evaluated so far (%zu configs; the front first, "
                    "then the others):\n", n);
    for (int part = 0; part < 2; part++) {
        size_t m = 0;
        for (size_t i = 0; i < nf; i++)
            on[pos[i]] = 1;
        for (size_t i = 0; i < n && i < l->npts; i++)
            if (on[i] == (part == 0))
                ix[m++] = st->obs[i].idx;
        qsort(ix, m, sizeof *ix, cmp_u64);
        for (size_t i = 0; i < m && rows < MAX_ROWS; i++, rows++) {
            util_buf_puts(b, part == 0 ? "front: " : "other: ");
            put_result(st, l, (size_t)st->obs_at[ix[i]], b);
        }
    }
    if (rows < n)
        util_buf_printf(b, "(%zu more not listed; none may be proposed "
                        "again)\n", n - rows);
    free(pos);
    free(ix);
    free(on);
}

static void put_space(const strat *st, util_buf *b)
{
    util_buf_puts(b, "Allowed values (the campaign's space):\n");
    for (int k = 0; k < space_nknobs(&st->space); k++) {
        util_buf_printf(b, "%s:", space_knob_name(&st->space, k));
        for (int i = 0; i < st->space.nlevels[k]; i++) {
            char v[SPACE_TEXTLEN];
            util_buf_printf(b, " %s", space_level_str(
                &st->space, k, st->space.levels[k][i], v, sizeof v));
        }
        util_buf_puts(b, "\n");
    }
}

/* The user message of round l->round; *base the config whose values the
 * knobs a proposal leaves out keep. */
static char *build_facts(const strat *st, agent_llm *l, size_t want,
                         const long *last, size_t nlast, gpu_config *base)
{
    util_buf b;
    util_buf_init(&b);
    util_buf_printf(&b, "Workload: %s\nObjectives:", l->workload);
    for (int j = 0; j < st->nobj; j++)
        util_buf_printf(&b, " %s %s;", st->obj[j].maximize ? "maximize"
                        : "minimize", st->obj[j].metric);
    util_buf_puts(&b, "\n");
    for (int i = 0; st->camp && i < st->camp->ncons; i++) {
        const cons_bound *c = &st->camp->cons[i];
        util_buf_printf(&b, "%s %s", i ? ";" : "Constraints (results "
                        "outside are never on the front):", c->metric);
        if (c->has_min)
            util_buf_printf(&b, " >= %g", c->min);
        if (c->has_max)
            util_buf_printf(&b, " <= %g", c->max);
        util_buf_puts(&b, i + 1 == st->camp->ncons ? "\n" : "");
    }
    put_space(st, &b);
    put_evaluated(st, l, &b);
    long knee = knee_of(st, l);
    util_buf_puts(&b, "Specialists' notes:\n");
    *base = space_at(&st->space, st->base_idx >= 0 ? (uint64_t)st->base_idx
                                                   : 0);
    if (knee >= 0) {
        *base = l->pts[knee].p.cfg;
        diagnose(st, l, "front", &l->pts[knee].p, &b);
    }
    for (size_t i = 0; i < nlast; i++)   /* the last round's results */
        if (last[i] != knee)
            diagnose(st, l, "last", &l->pts[last[i]].p, &b);
    char canon[SPACE_CANON_MAX];
    space_config_canon(&st->space, base, canon, sizeof canon);
    util_buf_printf(&b, "Current configuration (knobs you leave out keep "
                    "these values): %s\n", canon);
    util_buf_printf(&b, "Propose %zu configuration(s) not evaluated yet, "
                    "one CONFIG: line each.\n", want);
    return b.s;
}

/* ---- one round ------------------------------------------------------------------- */

/* The reply as the transcript keeps it: key-free, control characters as
 * spaces, at most REPLY_CAP bytes without a cut UTF-8 sequence. */
static char *clean_reply(const agent_llm *l, const char *reply)
{
    char *red = agents_llm_redact(&l->client, reply);
    size_t n = strlen(red);
    if (n > REPLY_CAP) {
        n = REPLY_CAP;
        while (n > 0 && ((unsigned char)red[n] & 0xC0) == 0x80)
            n--;
        red[n] = 0;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)red[i] < 0x20 || red[i] == 0x7f)
            red[i] = ' ';
    return red;
}

static void excerpt(const char *s, size_t len, char *out, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < len && j + 4 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        out[j++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (j + 4 >= n && j < len)
        memcpy(out + j, "...", 3), j += 3;
    out[j] = 0;
}

/* Validate one proposal text (agents_proposal_parse's input); 0 with *idx
 * (marked seen), or -1 and the reason. */
static int judge_text(strat *st, const char *text, const gpu_config *base,
                      uint64_t *idx, prop_t *p)
{
    gpu_config cfg;
    if (agents_proposal_parse(text, &st->space, base, NULL, 0, &cfg,
                              p->reason, sizeof p->reason) != GD_OK)
        return -1;
    int64_t i = space_index(&st->space, &cfg);
    if (i < 0 || st->seen[i]) {
        char canon[SPACE_CANON_MAX];
        space_config_canon(&st->space, &cfg, canon, sizeof canon);
        snprintf(p->reason, sizeof p->reason, "%s was already evaluated or "
                 "proposed", canon);
        return -1;
    }
    if (strat_predict_infeasible(st, (uint64_t)i)) {
        char canon[SPACE_CANON_MAX];
        space_config_canon(&st->space, &cfg, canon, sizeof canon);
        snprintf(p->reason, sizeof p->reason, "%s is predicted to miss a "
                 "<constraint> of the campaign", canon);
        return -1;
    }
    st->seen[i] = 1;
    *idx = (uint64_t)i;
    p->accepted = 1;
    return 0;
}

/* One CONFIG: line's list. */
static int judge_line(strat *st, const char *line, size_t len,
                      const gpu_config *base, uint64_t *idx, prop_t *p)
{
    excerpt(line, len, p->text, sizeof p->text);
    char *one = malloc(len + 10);
    if (!one)
        return snprintf(p->reason, sizeof p->reason, "out of memory"), -1;
    memcpy(one, "CONFIG: ", 8);
    memcpy(one + 8, line, len);
    one[8 + len] = 0;
    int rc = judge_text(st, one, base, idx, p);
    free(one);
    return rc;
}

/* The reply's proposals: accepted ones become slots (BY_LLM), in the
 * reply's order; every proposal is kept with its verdict. */
static void take_reply(strat *st, agent_llm *l, const char *reply,
                       size_t want, const gpu_config *base)
{
    const char *start[64];
    size_t len[64], n = agents_proposal_lines(reply, start, len, 64);
    uint64_t idx;
    if (n == 0) {   /* no CONFIG: line: a bare list, or the reason */
        prop_t *p = add_prop(l);
        size_t rl = strlen(reply);
        if (p) {
            excerpt(reply, rl < 60 ? rl : 60, p->text, sizeof p->text);
            if (judge_text(st, reply, base, &idx, p) == 0)
                add_slot(l, idx, BY_LLM);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        prop_t *p = add_prop(l);
        if (!p)
            break;
        if (l->nslots >= want) {
            excerpt(start[i], len[i], p->text, sizeof p->text);
            snprintf(p->reason, sizeof p->reason, "beyond the %zu "
                     "config(s) asked for", want);
            continue;
        }
        if (judge_line(st, start[i], len[i], base, &idx, p) == 0)
            add_slot(l, idx, BY_LLM);
    }
}

size_t agent_llm_round(strat *st, agent_llm *l, gpu_config *out,
                       size_t max)
{
    close_round(st, l);
    long last[MAX_LAST];   /* the last round's results that came back */
    size_t nlast = 0;
    for (size_t i = 0; i < l->nslots && nlast < MAX_LAST; i++) {
        long at = st->obs_at[l->slots[i].idx];
        if (at >= 0 && (size_t)at < l->npts && l->pts[at].ok)
            last[nlast++] = at;
    }
    size_t want = (size_t)l->batch < max ? (size_t)l->batch : max;
    int was_down = l->client.down;
    open_round(l, l->round + 1, "llm");
    gpu_config base;
    char *facts = build_facts(st, l, want, last, nlast, &base);
    if (was_down) {
        l->source = "rules";
        snprintf(l->error, sizeof l->error, "the provider failed earlier; "
                 "rules for the rest of the run: %s", l->down_why);
    } else if (facts) {
        util_buf pr;
        util_buf_init(&pr);
        util_buf_printf(&pr, "%s\n%s", l->system, facts);
        util_sha256_hex(pr.s, pr.len, l->prompt_sha);
        util_buf_free(&pr);
        char *reply = NULL;
        int cached;
        gd_err e = {0, ""};
        if (agents_llm_ask(&l->client, l->system, facts, &reply, &cached,
                           &e) == GD_OK) {
            l->reply = clean_reply(l, reply);
            take_reply(st, l, reply, want, &base);
        } else {
            char *red = agents_llm_redact(&l->client, e.msg);
            l->source = "rules";
            util_strlcpy(l->error, red, sizeof l->error);
            if (l->client.down)
                util_strlcpy(l->down_why, red, sizeof l->down_why);
            free(red);
        }
        free(reply);
    }
    free(facts);
    /* the rules proposer's next moves where the LLM gave none usable */
    size_t got = l->nslots;
    uint64_t *more = malloc((want > got ? want - got : 1) * sizeof *more);
    size_t nm = more && want > got ? strat_agent_rules_pick(st, more,
                                                            want - got) : 0;
    for (size_t i = 0; i < nm; i++)
        add_slot(l, more[i], BY_RULES);
    free(more);
    size_t k = 0;
    for (size_t i = 0; i < l->nslots; i++)
        strat_emit(st, l->slots[i].idx, out, &k);
    return k;
}
