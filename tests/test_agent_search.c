/* test_agent_search: the agent strategy driven by an LLM (issue 27) against
 * fake Anthropic and OpenAI-compatible servers on loopback (fakellm.h):
 * valid proposals are the next configs run, in order, and a rerun from the
 * cache writes the same transcript without the network; hostile proposals
 * (out of the space, shell text, paths, repeats) are rejected with their
 * reasons and rules moves run instead; 429, 500, timeouts and garbage hand
 * the run to the rules; an echoed API key reaches no file; <agents> in
 * <search> is checked. */
#include "testutil.h"
#include <limits.h>
#include <cjson/cJSON.h>
#include "store.h"

#define TMP "tests/tmp/agent-search"
#define KEY "sk-gpudse-test-5d1e0b-SECRET"
#define KEYVAR "GPUDSE_TEST_AGENT_SEARCH_KEY"

#include "fakellm.h"

/* Three knobs vary: 4 x 3 x 4 = 48 points; the baseline (15, 1, 6) is in. */
#define SPACE "<space><knob name=\"n_clusters\" values=\"8 15 30 60\"/>" \
    "<knob name=\"cores_per_cluster\" values=\"1 2 4\"/>" \
    "<knob name=\"n_mem\" values=\"4 6 8 12\"/></space>"

static int shf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int shf(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A campaign NAME at TMP/NAME.xml whose search is the agent strategy with
 * budget evaluations and agents (an <agents .../> element or ""), over
 * the workload element wl. */
static void write_campaign_wl(const char *name, const char *backend_xml,
                              const char *wl, long budget, const char *agents)
{
    char path[256], xml[4096];
    snprintf(path, sizeof path, TMP "/%s.xml", name);
    snprintf(xml, sizeof xml, "<campaign name=\"%s\" seed=\"3\">%s"
             "<workloads>%s</workloads>" SPACE
             "<objectives><maximize metric=\"ipc\"/><minimize "
             "metric=\"area_mm2\"/></objectives>"
             "<search strategy=\"agent\" budget=\"%ld\">%s</search>"
             "<execution jobs=\"1\"/><report formats=\"svg\"/></campaign>\n",
             name, backend_xml, wl, budget, agents);
    tu_write(path, xml);
}

static void write_campaign(const char *name, const char *backend_xml,
                           long budget, const char *agents)
{
    write_campaign_wl(name, backend_xml, "<workload name=\"dct8x8\"/>",
                      budget, agents);
}

static void agents_elem(char *out, size_t n, const char *provider, int port,
                        const char *extra)
{
    snprintf(out, n, "<agents provider=\"%s\" endpoint=\"http://127.0.0.1:%d%s\" "
             "model=\"test-model\" key-env=\"" KEYVAR "\" %s/>", provider, port,
             strcmp(provider, "anthropic") ? "/v1" : "", extra);
}

/* gpudse run TMP/NAME.xml into TMP/NAME; its exit status. */
static int run_campaign(const char *name, const char *extra)
{
    return shf("%s run " TMP "/%s.xml -o " TMP "/%s -q %s >" TMP "/%s.out "
               "2>&1", tu_bin(), name, name, extra, name);
}

/* The run's journal in run order (one worker). */
static store_record *journal(const char *name, size_t *n)
{
    char path[256];
    store_record *r = NULL;
    gd_err e;
    snprintf(path, sizeof path, TMP "/%s/results.jsonl", name);
    ck_assert_msg(store_load_all(path, &r, n, &e) == GD_OK, "%s", e.msg);
    return r;
}

/* The transcript's rounds as one JSON array. */
static cJSON *transcript(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, TMP "/%s/agent-log.jsonl", name);
    char *s = tu_slurp_opt(path, NULL);
    ck_assert_msg(s != NULL, "no %s", path);
    cJSON *all = cJSON_CreateArray();
    for (char *save = NULL, *l = strtok_r(s, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(l);
        ck_assert_msg(j != NULL, "%s: not JSON: %s", path, l);
        cJSON_AddItemToArray(all, j);
    }
    free(s);
    return all;
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void assert_cfg(const store_record *r, int ncl, int cores, int nmem)
{
    ck_assert_msg(r->cfg.n_clusters == ncl && r->cfg.cores_per_cluster == cores
                  && r->cfg.n_mem == nmem, "ran %d/%d/%d, expected %d/%d/%d",
                  r->cfg.n_clusters, r->cfg.cores_per_cluster, r->cfg.n_mem,
                  ncl, cores, nmem);
}

static void assert_no_key(const char *name)
{
    ck_assert_msg(shf("grep -rqF '" KEY "' " TMP "/%s " TMP "/%s.out", name,
                      name) == 1, "the key leaked into " TMP "/%s", name);
}

/* Every config of rounds 1.. of the transcript was proposed by `by`. */
static int count_by(const cJSON *log, const char *by)
{
    int n = 0;
    const cJSON *r, *c;
    cJSON_ArrayForEach(r, log)
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "configs"))
            n += strcmp(str_of(c, "by"), by) == 0;
    return n;
}

/* Configs of the start design (round 0). */
static size_t start_size(const char *name)
{
    cJSON *log = transcript(name);
    cJSON *r0 = cJSON_GetArrayItem(log, 0);
    ck_assert_int_eq(cJSON_GetObjectItem(r0, "round")->valueint, 0);
    size_t n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(r0,
                                                              "configs"));
    cJSON_Delete(log);
    return n;
}

/* ---- (a) valid proposals are the next configs run, in order -------------- */

static void valid_run(const char *provider, int anthropic)
{
    const char *text[3] = {
        "Compute-bound: more SMs.\nCONFIG: n_clusters=30, "
        "cores_per_cluster=2, n_mem=6\n",
        "Bandwidth next.\n**CONFIG:** n_clusters=60, cores_per_cluster=2, "
        "n_mem=8\nCONFIG: n_clusters=60, cores_per_cluster=4, n_mem=12\n",
        "Smaller and cheaper.\nCONFIG: n_clusters=8, cores_per_cluster=4, "
        "n_mem=12\n"};
    char *body[3];
    reply_t script[3];
    for (int i = 0; i < 3; i++) {
        body[i] = anthropic ? anthropic_body(text[i]) : openai_body(text[i]);
        script[i] = (reply_t){200, "", body[i], 0};
    }
    reply_t none = {500, "", "{\"error\":\"no more\"}", 0};
    setenv(KEYVAR, KEY, 1);
    server_t s = server_start_at(provider, script, 3, &none,
                                 anthropic ? "x-api-key: " KEY
                                           : "authorization: bearer " KEY,
                                 anthropic ? "post /v1/messages http/1.1"
                                           : "post /v1/chat/completions "
                                             "http/1.1");
    char el[512], name[64];
    /* start: the baseline and one Latin hypercube point; then 3 rounds */
    agents_elem(el, sizeof el, provider, s.port, "");
    snprintf(name, sizeof name, "valid-%s", provider);
    write_campaign(name, "<simulator backend=\"analytic\"/>", 5, el);
    ck_assert_int_eq(run_campaign(name, ""), 0);
    ck_assert_int_eq(server_stop(&s), 3);
    size_t n;
    store_record *r = journal(name, &n);
    ck_assert_uint_eq(n, 5);
    assert_cfg(&r[0], 15, 1, 6);   /* the baseline first */
    assert_cfg(&r[2], 30, 2, 6);
    assert_cfg(&r[3], 60, 2, 8);   /* the first of two lines; one asked */
    assert_cfg(&r[4], 8, 4, 12);
    free(r);
    cJSON *log = transcript(name);
    ck_assert_int_eq(cJSON_GetArraySize(log), 4);
    ck_assert_int_eq(count_by(log, "llm"), 3);
    ck_assert_int_eq(count_by(log, "rules"), 0);
    cJSON *r2 = cJSON_GetArrayItem(log, 2);
    ck_assert_str_eq(str_of(r2, "source"), "llm");
    ck_assert_int_eq(strlen(str_of(r2, "prompt_sha256")), 64);
    ck_assert_ptr_null(strchr(str_of(r2, "reply"), '\n'));
    cJSON *p1 = cJSON_GetArrayItem(cJSON_GetObjectItem(r2, "proposals"), 1);
    ck_assert_str_eq(str_of(p1, "reason"), "beyond the 1 config(s) asked for");
    cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r2, "diagnoses"), 0);
    ck_assert_str_eq(str_of(d0, "scope"), "front");
    ck_assert(strlen(str_of(d0, "memory")) > 0);
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r2, "configs"), 0);
    ck_assert_str_eq(str_of(c0, "status"), "ok");
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(
        cJSON_GetObjectItem(c0, "objectives"), "ipc")));
    cJSON_Delete(log);
    assert_no_key(name);

    /* the server is gone: a rerun comes from the cache alone, the same */
    char path[256];
    snprintf(path, sizeof path, TMP "/%s/agent-log.jsonl", name);
    char *first = tu_slurp_opt(path, NULL);
    /* openai: the old transcript stays, its rounds replayed over it;
     * anthropic: written afresh */
    ck_assert_int_eq(shf("rm -f " TMP "/%s/results.jsonl", name), 0);
    if (anthropic)
        ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(run_campaign(name, "--force"), 0);
    char *second = tu_slurp_opt(path, NULL);
    ck_assert_str_eq(first, second);
    r = journal(name, &n);
    ck_assert_uint_eq(n, 5);
    assert_cfg(&r[4], 8, 4, 12);
    free(r);
    free(first);
    free(second);
    for (int i = 0; i < 3; i++)
        free(body[i]);
}

START_TEST(openai_proposals_run_in_order)
{
    valid_run("openai-compatible", 0);
}
END_TEST

START_TEST(anthropic_proposals_run_in_order)
{
    valid_run("anthropic", 1);
}
END_TEST

/* A batch of two per round: both lines, in order. */
START_TEST(batch_of_two_per_round)
{
    char *b1 = openai_body("CONFIG: n_clusters=30, cores_per_cluster=4, "
                           "n_mem=4\nCONFIG: n_clusters=8, "
                           "cores_per_cluster=2, n_mem=12\n");
    char *b2 = openai_body("CONFIG: n_clusters=60, cores_per_cluster=1, "
                           "n_mem=4\n");
    reply_t script[2] = {{200, "", b1, 0}, {200, "", b2, 0}};
    setenv(KEYVAR, KEY, 1);
    server_t s = server_start("batch", script, 2, &script[1], NULL);
    char el[512];
    agents_elem(el, sizeof el, "openai-compatible", s.port, "batch=\"2\"");
    write_campaign("batch", "<simulator backend=\"analytic\"/>", 6, el);
    ck_assert_int_eq(run_campaign("batch", ""), 0);
    ck_assert_int_eq(server_stop(&s), 2);
    size_t n;
    store_record *r = journal("batch", &n);
    ck_assert_uint_eq(n, 6);
    assert_cfg(&r[2], 30, 4, 4);
    assert_cfg(&r[3], 8, 2, 12);
    assert_cfg(&r[4], 60, 1, 4);   /* one proposal: a rules move after it */
    free(r);
    cJSON *log = transcript("batch");
    ck_assert_int_eq(count_by(log, "llm"), 3);
    ck_assert_int_eq(count_by(log, "rules"), 1);
    cJSON_Delete(log);
    free(b1);
    free(b2);
}
END_TEST

/* specialists="llm": the LLM writes the diagnoses the orchestrator reads */
START_TEST(llm_specialists_write_the_diagnoses)
{
    char *b = openai_body("Misses are slow; more clusters hide them.\n"
                          "STATUS: RED\nCONFIG: n_clusters=30, "
                          "cores_per_cluster=2, n_mem=6\n");
    reply_t ok = {200, "", b, 0};
    setenv(KEYVAR, KEY, 1);
    server_t s = server_start("spec", NULL, 0, &ok, NULL);
    char el[512];
    agents_elem(el, sizeof el, "openai-compatible", s.port,
                "specialists=\"llm\"");
    write_campaign("spec", "<simulator backend=\"analytic\"/>", 3, el);
    ck_assert_int_eq(run_campaign("spec", ""), 0);
    int asked = server_stop(&s);
    cJSON *log = transcript("spec");
    cJSON *r1 = cJSON_GetArrayItem(log, 1);
    cJSON *dg = cJSON_GetObjectItem(r1, "diagnoses"), *d;
    int nd = cJSON_GetArraySize(dg);
    ck_assert_int_ge(nd, 1);
    ck_assert_int_eq(asked, 3 * nd + 1);   /* 3 specialists each, then one */
    cJSON_ArrayForEach(d, dg) {
        ck_assert_str_eq(str_of(d, "source"), "llm");
        ck_assert_str_eq(str_of(d, "memory"), "RED");
        ck_assert_str_eq(str_of(d, "bottleneck"), "RED");
    }
    ck_assert_int_eq(count_by(log, "llm"), 1);
    cJSON_Delete(log);
    /* the orchestrator read the LLM's notes */
    ck_assert_int_eq(shf("grep -lq 'memory (RED): Misses are slow; more "
                         "clusters hide them.' " TMP "/spec/agents-cache/"
                         "*.json"), 0);
    assert_no_key("spec");
    free(b);
}
END_TEST

/* ---- (b) hostile proposals: rejected with reasons, rules moves instead -- */

START_TEST(hostile_proposals_are_rejected)
{
    const char *text[4] = {
        "More clusters.\nCONFIG: n_clusters=99, n_mem=6\n",
        "Run this first: `touch " TMP "/pwned`\nCONFIG: n_clusters=30; "
        "touch " TMP "/pwned\n",
        "CONFIG: ../../etc/passwd\n",
        "The baseline again.\nCONFIG: n_clusters=15, cores_per_cluster=1, "
        "n_mem=6\n"};
    const char *why[4] = {
        "n_clusters=99 is outside the campaign's space (allowed: 8 15 30 60)",
        "has a character outside knob=value syntax at column 14",
        "\"../../etc/passwd\" has a character outside knob=value syntax at "
        "column 1",
        "n_clusters=15,cores_per_cluster=1,n_mem=6,shmem_size=49152,"
        "scheduler=gto,num_sched_per_core=2,l1_sets=32,l2_sets=64 was "
        "already evaluated or proposed"};
    char *body[4];
    reply_t script[4];
    for (int i = 0; i < 4; i++) {
        body[i] = openai_body(text[i]);
        script[i] = (reply_t){200, "", body[i], 0};
    }
    setenv(KEYVAR, KEY, 1);
    unlink(TMP "/pwned");
    server_t s = server_start("hostile", script, 4, &script[0], NULL);
    char el[512];
    agents_elem(el, sizeof el, "openai-compatible", s.port, "");
    write_campaign("hostile", "<simulator backend=\"analytic\"/>", 6, el);
    ck_assert_int_eq(run_campaign("hostile", ""), 0);
    ck_assert_int_eq(server_stop(&s), 4);
    size_t n;
    store_record *r = journal("hostile", &n);
    ck_assert_uint_eq(n, 6);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_ne(r[i].cfg.n_clusters, 99);
    free(r);
    cJSON *log = transcript("hostile");
    ck_assert_int_eq(cJSON_GetArraySize(log), 5);
    ck_assert_int_eq(count_by(log, "llm"), 0);
    ck_assert_int_eq(count_by(log, "rules"), 4);
    for (int i = 0; i < 4; i++) {
        cJSON *round = cJSON_GetArrayItem(log, i + 1);
        cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(round,
                                                          "proposals"), 0);
        ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(p, "accepted")));
        ck_assert_msg(strstr(str_of(p, "reason"), why[i]),
                      "round %d: %s", i + 1, str_of(p, "reason"));
    }
    cJSON_Delete(log);
    ck_assert_int_eq(access(TMP "/pwned", F_OK), -1);
    /* the report's Exploration log: the chart and the verdicts */
    ck_assert_int_eq(shf("pdftotext " TMP "/hostile/report.pdf - | tr -s "
                         "' \\n' '  ' > " TMP "/hostile.txt"), 0);
    ck_assert_int_eq(shf("grep -q 'Exploration log: dct8x8' " TMP
                         "/hostile.txt"), 0);
    ck_assert_int_eq(shf("grep -q 'and the best so far' " TMP
                         "/hostile.txt"), 0);
    ck_assert_int_eq(shf("grep -q 'rejected: n_clusters=99 is outside the' "
                         TMP "/hostile.txt"), 0);
    for (int i = 0; i < 4; i++)
        free(body[i]);
    assert_no_key("hostile");
}
END_TEST

/* ---- (c) provider failures: the rules take over -------------------------- */

typedef struct {
    const char *name;
    reply_t reply;
    const char *attrs;
    int requests;          /* the server sees exactly these; -1 any */
    const char *why;       /* in the first round's error */
} failure_case;

START_TEST(provider_failures_fall_back_to_rules)
{
    const failure_case fc[] = {
        {"f429", {429, "Retry-After: 0\r\n", "{\"error\":\"slow down\"}", 0},
         "retries=\"1\"", 2, "HTTP 429"},
        {"f500", {500, "", "{\"error\":\"upstream failed for " KEY "\"}", 0},
         "retries=\"1\" backoff=\"0.01\"", 2, "[redacted]"},
        /* killed while it sleeps, before it counts: not counted */
        {"fslow", {200, "", "{}", 2000}, "timeout=\"0.3\" retries=\"0\"", -1,
         "timed out"},
        {"fjunk", {200, "", "{\"choices\": [ {\"message\": not json", 0}, "",
         3, "malformed answer"},
    };
    setenv(KEYVAR, KEY, 1);
    for (size_t i = 0; i < sizeof fc / sizeof fc[0]; i++) {
        server_t s = server_start(fc[i].name, NULL, 0, &fc[i].reply, NULL);
        char el[512];
        agents_elem(el, sizeof el, "openai-compatible", s.port, fc[i].attrs);
        write_campaign(fc[i].name, "<simulator backend=\"analytic\"/>", 7,
                       el);
        ck_assert_int_eq(run_campaign(fc[i].name, ""), 0);
        int got = server_stop(&s);
        ck_assert_msg(fc[i].requests < 0 || got == fc[i].requests,
                      "%s: %d requests", fc[i].name, got);
        size_t n;
        free(journal(fc[i].name, &n));
        ck_assert_uint_eq(n, 7);
        cJSON *log = transcript(fc[i].name);
        ck_assert_int_eq(cJSON_GetArraySize(log), 6);
        ck_assert_int_eq(count_by(log, "rules"), 5);
        cJSON *r1 = cJSON_GetArrayItem(log, 1);
        ck_assert_msg(strstr(str_of(r1, "error"), fc[i].why), "%s: %s",
                      fc[i].name, str_of(r1, "error"));
        cJSON *last = cJSON_GetArrayItem(log, 5);
        ck_assert_str_eq(str_of(last, "source"), "rules");
        ck_assert_msg(strstr(str_of(last, "error"), "failed earlier"),
                      "%s: %s", fc[i].name, str_of(last, "error"));
        cJSON_Delete(log);
        assert_no_key(fc[i].name);
    }
}
END_TEST

/* ---- (d) an echoed key reaches no file ------------------------------------- */

START_TEST(echoed_key_reaches_no_file)
{
    char *b = openai_body("Your key is " KEY ".\nCONFIG: " KEY "=1\n");
    reply_t ok = {200, "", b, 0};
    setenv(KEYVAR, KEY, 1);
    server_t s = server_start("echo", NULL, 0, &ok, NULL);
    char el[512];
    agents_elem(el, sizeof el, "openai-compatible", s.port, "");
    write_campaign("echo", "<simulator backend=\"analytic\"/>", 4, el);
    ck_assert_int_eq(run_campaign("echo", ""), 0);
    ck_assert_int_ge(server_stop(&s), 1);
    cJSON *log = transcript("echo");
    cJSON *r1 = cJSON_GetArrayItem(log, 1);
    ck_assert_msg(strstr(str_of(r1, "reply"), "[redacted]"), "%s",
                  str_of(r1, "reply"));
    cJSON_Delete(log);
    assert_no_key("echo");
    free(b);
}
END_TEST

/* ---- every backend: command, gpgpusim, analytic screening + <verify> --- */

#define SIM_CMD "<command>{campaign_dir}/sim.sh {n_clusters} " \
    "{cores_per_cluster} {n_mem}</command>" \
    "<metric name=\"ipc\" regex=\"IPC = ([0-9]+)\"/>" \
    "<metric name=\"area_mm2\" regex=\"area = ([0-9]+)\"/>"

START_TEST(command_backend_and_verify)
{
    tu_write(TMP "/sim.sh", "#!/bin/sh\n# a stand-in simulator\n"
             "echo \"IPC = $(($1 * $2 * 7 + $3))\"\n"
             "echo \"area = $(($1 * $2 * 10 + $3 * 3))\"\n");
    ck_assert_int_eq(shf("chmod +x " TMP "/sim.sh"), 0);
    char *b1 = openai_body("CONFIG: n_clusters=30, cores_per_cluster=4, "
                           "n_mem=8\n");
    char *b2 = openai_body("CONFIG: n_clusters=60, cores_per_cluster=1, "
                           "n_mem=12\n");
    reply_t script[2] = {{200, "", b1, 0}, {200, "", b2, 0}};
    setenv(KEYVAR, KEY, 1);
    /* the fake GPGPU-Sim (tests/fakesim) replays one log for every
     * config; its root needs only a stand-in libcudart */
    char cwd[PATH_MAX], gs[PATH_MAX + 64], wl[3 * PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(shf("mkdir -p " TMP "/gsroot/lib/gcc-9.4.0/cuda-11000/"
                         "release && echo stand-in > " TMP "/gsroot/lib/"
                         "gcc-9.4.0/cuda-11000/release/libcudart.so"), 0);
    snprintf(gs, sizeof gs, "<simulator backend=\"gpgpusim\" root=\"%s/"
             TMP "/gsroot\"/>", cwd);
    snprintf(wl, sizeof wl, "<workload name=\"replay\"><command>%s/tests/"
             "fakesim/fakesim.sh replay %s/tests/data/gpgpusim/"
             "vecadd-baseline.log.gz</command></workload>", cwd, cwd);
    const char *backend[3] = {
        "<simulator backend=\"command\">" SIM_CMD "</simulator>",
        "<simulator backend=\"analytic\"/><verify backend=\"command\" "
        "top=\"2\">" SIM_CMD "</verify>", gs};
    const char *name[3] = {"cmd", "verify", "gpgpusim"};
    for (int k = 0; k < 3; k++) {
        server_t s = server_start(name[k], script, 2, &script[1], NULL);
        char el[512];
        agents_elem(el, sizeof el, "openai-compatible", s.port, "");
        if (k == 2)
            write_campaign_wl(name[k], backend[k], wl, 5, el);
        else
            write_campaign(name[k], backend[k], 5, el);
        ck_assert_int_eq(run_campaign(name[k], ""), 0);
        server_stop(&s);
        size_t n, screened = 0, measured = 0, s0 = start_size(name[k]);
        ck_assert_uint_ge(s0, 2);
        store_record *r = journal(name[k], &n);
        assert_cfg(&r[s0], 30, 4, 8);
        assert_cfg(&r[s0 + 1], 60, 1, 12);
        for (size_t i = 0; i < n; i++) {
            static const char *const first[3] = {"command", "analytic",
                                                 "gpgpusim"};
            screened += !strcmp(r[i].backend, first[k]);
            measured += !strcmp(r[i].fidelity, "measured");
            ck_assert_msg(r[i].status == ST_OK, "%s: %s", name[k],
                          r[i].reason);
            if (!strcmp(r[i].backend, "command")) {
                double ipc;
                ck_assert(met_get(&r[i].metrics, "ipc", &ipc) == 0);
                ck_assert_double_eq(ipc, r[i].cfg.n_clusters
                                    * r[i].cfg.cores_per_cluster * 7
                                    + r[i].cfg.n_mem);
            }
        }
        ck_assert_uint_eq(screened, 5);
        ck_assert_uint_eq(measured, k == 1 ? 2 : 5);   /* top 2 verified */
        free(r);
        cJSON *log = transcript(name[k]);
        ck_assert_int_eq(count_by(log, "llm"), 2);
        cJSON_Delete(log);
    }
    free(b1);
    free(b2);
}
END_TEST

/* ---- the element ------------------------------------------------------------- */

START_TEST(agents_in_search_is_checked)
{
    tu_write(TMP "/wrong.xml", "<campaign name=\"wrong\">"
             "<simulator backend=\"analytic\"/>"
             "<workloads><workload name=\"dct8x8\"/></workloads>" SPACE
             "<objectives><maximize metric=\"ipc\"/></objectives>\n"
             "<search strategy=\"nsga2\" budget=\"10\">\n"
             "<agents provider=\"anthropic\"/></search></campaign>\n");
    ck_assert_int_eq(shf("%s validate " TMP "/wrong.xml 2>" TMP "/wrong.err",
                         tu_bin()), 2);
    ck_assert_int_eq(shf("grep -q 'wrong.xml:3: an <agents> element in "
                         "<search> drives only strategy=\"agent\"' " TMP
                         "/wrong.err"), 0);
    write_campaign("batch0", "<simulator backend=\"analytic\"/>", 10,
                   "<agents provider=\"anthropic\" batch=\"0\"/>");
    ck_assert_int_eq(shf("%s validate " TMP "/batch0.xml 2>" TMP
                         "/batch0.err", tu_bin()), 2);
    ck_assert_int_eq(shf("grep -q 'batch must be 1 to 4096' " TMP
                         "/batch0.err"), 0);
    /* provider rules: the rules-only strategy, no transcript */
    write_campaign("rules", "<simulator backend=\"analytic\"/>", 10,
                   "<agents provider=\"rules\"/>");
    ck_assert_int_eq(run_campaign("rules", ""), 0);
    ck_assert_int_eq(access(TMP "/rules/agent-log.jsonl", F_OK), -1);
    ck_assert_int_eq(shf("pdftotext " TMP "/rules/report.pdf - | grep -q "
                         "'Exploration log'"), 1);
}
END_TEST

int main(void)
{
    if (shf("rm -rf " TMP " && mkdir -p " TMP) != 0)
        return EXIT_FAILURE;
    Suite *s = suite_create("agent_search");
    TCase *t = tcase_create("llm");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, openai_proposals_run_in_order);
    tcase_add_test(t, anthropic_proposals_run_in_order);
    tcase_add_test(t, batch_of_two_per_round);
    tcase_add_test(t, llm_specialists_write_the_diagnoses);
    tcase_add_test(t, hostile_proposals_are_rejected);
    tcase_add_test(t, provider_failures_fall_back_to_rules);
    tcase_add_test(t, echoed_key_reaches_no_file);
    tcase_add_test(t, command_backend_and_verify);
    tcase_add_test(t, agents_in_search_is_checked);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
