/* test_compare: gpudse compare on small real run directories (eng_run on a
 * random-30 analytic campaign) — identical runs pass, programmatic
 * perturbations of results.jsonl / analysis.json fail exactly the checks
 * they touch with the right numbers, the JUnit XML parses with the right
 * counts, bad input exits 2. Works under tests/tmp/compare-<pid>/. */
#include "testutil.h"

#include <fcntl.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "analysis.h"
#include "campaign.h"
#include "compare.h"
#include "engine.h"
#include "store.h"
#include "util.h"

#define NCHECKS 19      /* status, coverage, front + 13 analytic metrics + the
                         * interval (ipc_lo, ipc_hi, extrapolated; analytic-3.0) */

static char T[128];     /* tests/tmp/compare-<pid> */
static char BASE[256];

static const char campaign_text[] =
    "<campaign name=\"cmptest\" seed=\"5\">\n"
    "  <workloads><workload name=\"dct8x8\"/></workloads>\n"
    "  <space>\n"
    "    <knob name=\"n_clusters\" values=\"8 15 30 60\"/>\n"
    "    <knob name=\"scheduler\" values=\"gto lrr two_level_active\"/>\n"
    "    <knob name=\"l2_sets\" values=\"32 64 128\"/>\n"
    "  </space>\n"
    "  <objectives><maximize metric=\"ipc\"/><minimize metric=\"area_mm2\"/>"
    "</objectives>\n"
    "  <search strategy=\"random\" budget=\"30\"/>\n"
    "  <report formats=\"svg\"/>\n"
    "  <regression><threshold metric=\"ipc\" relative=\"2\" absolute=\"0.5\"/>"
    "</regression>\n"
    "</campaign>\n";

static void path_in(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", T, name);
}

static void run_campaign(const char *outdir)
{
    char camp[256];
    path_in(camp, sizeof camp, "c.xml");
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.campaign_path = camp;
    o.outdir = outdir;
    o.jobs = 1;
    o.quiet = 1;
    gd_err err = {0, ""};
    int rc = eng_run(&o, NULL, 0, &err);
    ck_assert_msg(rc == GD_OK, "eng_run %s: %d %s", outdir, rc, err.msg);
}

static void suite_setup(void)
{
    char cmd[512], camp[256];
    setenv("GPUDSE_DATA", "templates", 0);
    snprintf(T, sizeof T, "tests/tmp/compare-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", T, T);
    ck_assert_int_eq(system(cmd), 0);
    path_in(camp, sizeof camp, "c.xml");
    tu_write(camp, campaign_text);
    path_in(BASE, sizeof BASE, "base");
    run_campaign(BASE);
}

static void suite_teardown(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", T);
    if (system(cmd) != 0)
        fprintf(stderr, "test_compare: could not remove %s\n", T);
}

/* A copy of BASE named name; its path into out. */
static void copy_base(const char *name, char *out, size_t n)
{
    char cmd[1024];
    path_in(out, n, name);
    snprintf(cmd, sizeof cmd, "rm -rf %s && cp -r %s %s", out, BASE, out);
    ck_assert_int_eq(system(cmd), 0);
}

/* ---- editing results.jsonl ------------------------------------------- */

typedef struct {
    char *lines[256];
    int n;
} jsonl;

static void jsonl_read(const char *dir, jsonl *j)
{
    char path[512], *text = NULL;
    size_t len;
    gd_err err;
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    ck_assert_int_eq(util_read_file(path, &text, &len, &err), 0);
    j->n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && j->n < 256;
         l = strtok_r(NULL, "\n", &save))
        j->lines[j->n++] = strdup(l);
    free(text);
}

static void jsonl_write(const char *dir, jsonl *j)
{
    char path[512];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < j->n; i++) {
        fprintf(f, "%s\n", j->lines[i]);
        free(j->lines[i]);
    }
    fclose(f);
}

static cJSON *jsonl_get(jsonl *j, int i)
{
    ck_assert_int_lt(i, j->n);
    cJSON *o = cJSON_Parse(j->lines[i]);
    ck_assert_ptr_nonnull(o);
    return o;
}

static void jsonl_put(jsonl *j, int i, cJSON *o)
{
    free(j->lines[i]);
    j->lines[i] = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
}

/* Multiply one job's metric by factor; returns the old value. */
static double scale_metric(jsonl *j, int i, const char *metric, double f)
{
    cJSON *o = jsonl_get(j, i);
    cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"), metric);
    ck_assert(cJSON_IsNumber(m));
    double old = m->valuedouble;
    cJSON_SetNumberValue(m, old * f);
    jsonl_put(j, i, o);
    return old;
}

static void set_status(jsonl *j, int i, const char *status)
{
    cJSON *o = jsonl_get(j, i);
    cJSON_ReplaceItemInObject(o, "status", cJSON_CreateString(status));
    cJSON_DeleteItemFromObject(o, "reason");
    cJSON_AddStringToObject(o, "reason", "exit code 1");
    jsonl_put(j, i, o);
}

/* ---- running compare --------------------------------------------------- */

static int compare(const char *base, const char *now, const char *junit,
                   const char *flag, gd_err *err)
{
    cmp_opts o;
    memset(&o, 0, sizeof o);
    o.base_dir = base;
    o.new_dir = now;
    o.junit_path = junit;
    if (flag) {
        ck_assert_int_eq(cmp_parse_threshold(flag, &o.flags[0], err), 0);
        o.nflags = 1;
    }
    util_buf out;
    util_buf_init(&out);
    int rc = cmp_run(&o, &out, err);
    util_buf_free(&out);
    return rc;
}

static cJSON *load_compare(const char *dir)
{
    char path[512], *text = NULL;
    size_t len;
    gd_err err;
    snprintf(path, sizeof path, "%s/compare.json", dir);
    ck_assert_int_eq(util_read_file(path, &text, &len, &err), 0);
    cJSON *o = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(o);
    return o;
}

static const cJSON *find_check(const cJSON *cmp, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cmp, "checks"))
        if (strcmp(cJSON_GetObjectItem(c, "check")->valuestring, name) == 0)
            return c;
    ck_abort_msg("no check %s", name);
    return NULL;
}

static const char *result_of(const cJSON *cmp, const char *name)
{
    return cJSON_GetObjectItem(find_check(cmp, name), "result")->valuestring;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", key);
    return v->valuedouble;
}

static double summary_num(const cJSON *cmp, const char *key)
{
    return num(cJSON_GetObjectItem(cmp, "summary"), key);
}

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The names of the failed checks, sorted, comma-separated. */
static void failed_names(const cJSON *cmp, char *out, size_t n)
{
    const cJSON *c;
    char names[64][64];
    int k = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cmp, "checks"))
        if (strcmp(cJSON_GetObjectItem(c, "result")->valuestring, "fail") == 0
            && k < 64)
            util_strlcpy(names[k++], cJSON_GetObjectItem(c, "check")
                         ->valuestring, 64);
    qsort(names, (size_t)k, 64, by_name);
    out[0] = '\0';
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? "," : "",
                 names[i]);
}

static int run_bin(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s compare %s >/dev/null 2>&1", tu_bin(),
             args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- journals of several workloads ------------------------------------- */

/* results.jsonl of dir, opened for writing from scratch. */
static FILE *open_journal(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    return f;
}

/* BASE's job i as copy c of it in workload wl, appended to f: the workload
 * renamed, the key's first 8 hex digits made from wl and c (the same in
 * any journal), ipc scaled by ipc_f, the status set unless NULL. */
static void put_job(FILE *f, const jsonl *src, int i, const char *wl, int c,
                    double ipc_f, const char *status)
{
    cJSON *o = cJSON_Parse(src->lines[i]);
    ck_assert_ptr_nonnull(o);
    unsigned h = 2166136261u;
    for (const char *p = wl; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    h += (unsigned)c * 0x9e3779b9u;
    char key[65], hex[9];
    util_strlcpy(key, cJSON_GetObjectItem(o, "key")->valuestring,
                 sizeof key);
    snprintf(hex, sizeof hex, "%08x", h);
    memcpy(key, hex, 8);
    cJSON_ReplaceItemInObject(o, "key", cJSON_CreateString(key));
    cJSON_ReplaceItemInObject(o, "workload", cJSON_CreateString(wl));
    if (ipc_f != 1) {
        cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"),
                                       "ipc");
        ck_assert(cJSON_IsNumber(m));
        cJSON_SetNumberValue(m, m->valuedouble * ipc_f);
    }
    if (status) {
        cJSON_ReplaceItemInObject(o, "status", cJSON_CreateString(status));
        cJSON_AddStringToObject(o, "reason", "exit code 1");
    }
    char *t = cJSON_PrintUnformatted(o);
    fprintf(f, "%s\n", t);
    cJSON_free(t);
    cJSON_Delete(o);
}

static void jsonl_free(jsonl *j)
{
    for (int i = 0; i < j->n; i++)
        free(j->lines[i]);
    j->n = 0;
}

static const cJSON *find_wl_check(const cJSON *cmp, const char *wl,
                                  const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cmp, "checks"))
        if (strcmp(cJSON_GetObjectItem(c, "workload")->valuestring, wl) == 0
            && strcmp(cJSON_GetObjectItem(c, "check")->valuestring, name)
               == 0)
            return c;
    ck_abort_msg("no check %s / %s", wl, name);
    return NULL;
}

/* "workload/check" of the failed checks, sorted, comma-separated. */
static void failed_wl_names(const cJSON *cmp, char *out, size_t n)
{
    const cJSON *c;
    char names[64][96];
    int k = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cmp, "checks"))
        if (strcmp(cJSON_GetObjectItem(c, "result")->valuestring, "fail") == 0
            && k < 64)
            snprintf(names[k++], 96, "%s/%s",
                     cJSON_GetObjectItem(c, "workload")->valuestring,
                     cJSON_GetObjectItem(c, "check")->valuestring);
    qsort(names, (size_t)k, 96, by_name);
    out[0] = '\0';
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? "," : "",
                 names[i]);
}

static double side_records(const cJSON *cmp, const char *side)
{
    return num(cJSON_GetObjectItem(cmp, side), "records");
}

/* ---- tests ------------------------------------------------------------- */

START_TEST(identical_runs_pass)
{
    char now[256], args[600], a[300];
    path_in(now, sizeof now, "rerun");
    run_campaign(now);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(BASE, now, NULL, NULL, &err), GD_OK);
    cJSON *cmp = load_compare(now);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(cmp, "regression")));
    ck_assert_int_eq((int)summary_num(cmp, "checks"), NCHECKS);
    ck_assert_int_eq((int)summary_num(cmp, "failed"), 0);
    ck_assert_int_eq((int)summary_num(cmp, "matched_by_key"), 30);
    ck_assert_str_eq(result_of(cmp, "front"), "pass");
    cJSON_Delete(cmp);
    /* deterministic: a second compare writes the same bytes */
    char *t1 = NULL, *t2 = NULL;
    size_t l1, l2;
    snprintf(a, sizeof a, "%s/compare.json", now);
    ck_assert_int_eq(util_read_file(a, &t1, &l1, &err), 0);
    ck_assert_int_eq(compare(BASE, now, NULL, NULL, &err), GD_OK);
    ck_assert_int_eq(util_read_file(a, &t2, &l2, &err), 0);
    ck_assert_str_eq(t1, t2);
    free(t1);
    free(t2);
    snprintf(args, sizeof args, "%s %s", BASE, now);
    ck_assert_int_eq(run_bin(args), 0);
}
END_TEST

/* Two jobs' power and one job's cycles move: exactly those two checks
 * fail, with the numbers that moved; the JUnit file says so. */
START_TEST(perturbed_checks_fail_exactly)
{
    char now[256], junit[256], names[512], args[800];
    copy_base("perturbed", now, sizeof now);
    path_in(junit, sizeof junit, "perturbed.xml");
    jsonl j;
    jsonl_read(now, &j);
    double p0 = scale_metric(&j, 0, "power_w", 1.10);
    double p3 = scale_metric(&j, 3, "power_w", 1.10);
    double c7 = scale_metric(&j, 7, "cycles", 0.95);
    jsonl_write(now, &j);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(BASE, now, junit, NULL, &err), GD_EJOBS);
    cJSON *cmp = load_compare(now);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cmp, "regression")));
    failed_names(cmp, names, sizeof names);
    ck_assert_str_eq(names, "metric cycles,metric power_w");
    const cJSON *pw = find_check(cmp, "metric power_w");
    ck_assert_int_eq((int)num(pw, "over_threshold"), 2);
    ck_assert_int_eq((int)num(pw, "compared"), 30);
    const cJSON *w0 = cJSON_GetArrayItem(cJSON_GetObjectItem(pw, "worst"), 0);
    ck_assert_double_eq_tol(num(w0, "relative_pct"), 10.0, 1e-9);
    double b0 = num(w0, "base");
    ck_assert(fabs(b0 - p0) < 1e-9 * p0 || fabs(b0 - p3) < 1e-9 * p3);
    ck_assert_double_eq_tol(num(w0, "new"), b0 * 1.10, 1e-9 * b0);
    const cJSON *cy = find_check(cmp, "metric cycles");
    ck_assert_int_eq((int)num(cy, "over_threshold"), 1);
    const cJSON *w1 = cJSON_GetArrayItem(cJSON_GetObjectItem(cy, "worst"), 0);
    ck_assert_double_eq_tol(num(w1, "base"), c7, 1e-9 * c7);
    ck_assert_double_eq_tol(num(w1, "relative_pct"), -5.0, 1e-9);
    /* the worst check comes first: power (10x over) before cycles (5x) */
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp,
                                                                 "checks"), 0);
    ck_assert_str_eq(cJSON_GetObjectItem(first, "check")->valuestring,
                     "metric power_w");
    cJSON_Delete(cmp);

    /* JUnit: well-formed, one testcase per check, two failures */
    xmlDocPtr doc = xmlReadFile(junit, NULL, XML_PARSE_NONET);
    ck_assert_ptr_nonnull(doc);
    xmlNodePtr root = xmlDocGetRootElement(doc), suite = NULL;
    ck_assert_str_eq((const char *)root->name, "testsuites");
    for (xmlNodePtr n = root->children; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE)
            suite = n;
    ck_assert_ptr_nonnull(suite);
    int cases = 0, failures = 0;
    for (xmlNodePtr n = suite->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        ck_assert_str_eq((const char *)n->name, "testcase");
        cases++;
        for (xmlNodePtr f = n->children; f; f = f->next)
            if (f->type == XML_ELEMENT_NODE
                && strcmp((const char *)f->name, "failure") == 0) {
                xmlChar *msg = xmlGetProp(f, BAD_CAST "message");
                ck_assert_msg(strstr((const char *)msg, " of 30 jobs moved "
                                     "beyond") != NULL, "%s", msg);
                xmlFree(msg);
                failures++;
            }
    }
    ck_assert_int_eq(cases, NCHECKS);
    ck_assert_int_eq(failures, 2);
    xmlChar *t = xmlGetProp(suite, BAD_CAST "tests");
    xmlChar *f = xmlGetProp(suite, BAD_CAST "failures");
    ck_assert_int_eq(atoi((const char *)t), NCHECKS);
    ck_assert_int_eq(atoi((const char *)f), 2);
    xmlFree(t);
    xmlFree(f);
    xmlFreeDoc(doc);

    snprintf(args, sizeof args, "%s %s --junit %s", BASE, now, junit);
    ck_assert_int_eq(run_bin(args), 1);
    /* a flag threshold above the power change lets it pass */
    ck_assert_int_eq(compare(BASE, now, NULL, "power_w=20", &err), GD_EJOBS);
    cmp = load_compare(now);
    failed_names(cmp, names, sizeof names);
    ck_assert_str_eq(names, "metric cycles");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(
        find_check(cmp, "metric power_w"), "threshold"), "source")
        ->valuestring, "flag");
    cJSON_Delete(cmp);
}
END_TEST

/* The campaign's threshold for ipc (2 % and 0.5) applies: a 1.5 % drop
 * passes, a 3 % drop fails (ipc is maximised: a drop is the worse way). */
START_TEST(campaign_threshold_applies)
{
    char now[256];
    copy_base("ipc", now, sizeof now);
    jsonl j;
    jsonl_read(now, &j);
    scale_metric(&j, 4, "ipc", 0.985);
    jsonl_write(now, &j);
    gd_err err = {0, ""};
    int rc = compare(BASE, now, NULL, NULL, &err);
    cJSON *cmp = load_compare(now);
    const cJSON *ipc = find_check(cmp, "metric ipc");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(ipc,
                     "threshold"), "source")->valuestring, "campaign");
    ck_assert_double_eq(num(cJSON_GetObjectItem(ipc, "threshold"),
                            "relative_pct"), 2);
    ck_assert_str_eq(result_of(cmp, "metric ipc"), "pass");
    cJSON_Delete(cmp);
    (void)rc;   /* ipc is an objective: analysis.json is not redone here */
    jsonl_read(now, &j);
    scale_metric(&j, 4, "ipc", 0.97 / 0.985);
    jsonl_write(now, &j);
    ck_assert_int_eq(compare(BASE, now, NULL, NULL, &err), GD_EJOBS);
    cmp = load_compare(now);
    ck_assert_str_eq(result_of(cmp, "metric ipc"), "fail");
    cJSON_Delete(cmp);
}
END_TEST

static int compare_with(const char *base, const char *now, const char *junit,
                        int fail_on_improvement, int accept, gd_err *err)
{
    cmp_opts o;
    memset(&o, 0, sizeof o);
    o.base_dir = base;
    o.new_dir = now;
    o.junit_path = junit;
    o.fail_on_improvement = fail_on_improvement;
    o.accept = accept;
    util_buf out;
    util_buf_init(&out);
    int rc = cmp_run(&o, &out, err);
    ck_assert_msg(rc != GD_OK || !out.s || !accept
                  || strstr(out.s, "REGRESSION") == NULL, "%s", out.s);
    util_buf_free(&out);
    return rc;
}

/* The <failures> count and whether a testcase named check has a
 * <system-out> holding text. */
static int junit_failures(const char *path, const char *check,
                          const char *text, int *has_text)
{
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    ck_assert_ptr_nonnull(doc);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    xmlChar *f = xmlGetProp(root, BAD_CAST "failures");
    int failures = atoi((const char *)f);
    xmlFree(f);
    *has_text = 0;
    for (xmlNodePtr su = root->children; su; su = su->next)
        for (xmlNodePtr n = su->children; n; n = n->next) {
            xmlChar *name = n->type == XML_ELEMENT_NODE
                            ? xmlGetProp(n, BAD_CAST "name") : NULL;
            if (name && strcmp((const char *)name, check) == 0) {
                xmlChar *c = xmlNodeGetContent(n);
                *has_text |= c && strstr((const char *)c, text) != NULL;
                xmlFree(c);
            }
            xmlFree(name);
        }
    xmlFreeDoc(doc);
    return failures;
}

/* A 10 % IPC gain is an improvement (ipc is maximised): reported and
 * counted, not a regression, unless --fail-on-improvement; --accept takes
 * a real regression and exits 0, saying so. */
START_TEST(improvement_is_not_regression)
{
    char now[256], junit[256], args[800];
    int has;
    copy_base("better", now, sizeof now);
    path_in(junit, sizeof junit, "better.xml");
    jsonl j;
    jsonl_read(now, &j);
    scale_metric(&j, 4, "ipc", 1.10);
    scale_metric(&j, 5, "area_mm2", 0.80);   /* minimised: a gain too */
    jsonl_write(now, &j);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare_with(BASE, now, junit, 0, 0, &err), GD_OK);
    cJSON *cmp = load_compare(now);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(cmp, "regression")));
    const cJSON *ipc = find_check(cmp, "metric ipc");
    ck_assert_str_eq(result_of(cmp, "metric ipc"), "pass");
    ck_assert_str_eq(result_of(cmp, "metric area_mm2"), "pass");
    ck_assert_int_eq((int)num(ipc, "improved"), 1);
    ck_assert_int_eq((int)num(ipc, "over_threshold"), 0);
    ck_assert_str_eq(cJSON_GetObjectItem(ipc, "direction")->valuestring,
                     "higher-is-better");
    ck_assert_double_eq_tol(num(cJSON_GetObjectItem(ipc,
        "largest_improvement"), "relative_pct"), 10.0, 1e-9);
    ck_assert_int_eq((int)num(cJSON_GetObjectItem(cmp, "summary"),
                              "improvements"), 2);
    cJSON_Delete(cmp);
    ck_assert_int_eq(junit_failures(junit, "metric ipc", "improvement: 1 of "
                                    "30 jobs improved", &has), 0);
    ck_assert(has);
    snprintf(args, sizeof args, "%s %s", BASE, now);
    ck_assert_int_eq(run_bin(args), 0);
    snprintf(args, sizeof args, "%s %s --fail-on-improvement", BASE, now);
    ck_assert_int_eq(run_bin(args), 1);
    ck_assert_int_eq(compare_with(BASE, now, NULL, 1, 0, &err), GD_EJOBS);
    cmp = load_compare(now);
    ck_assert_str_eq(result_of(cmp, "metric ipc"), "fail");
    cJSON_Delete(cmp);

    /* a per-metric direction in NEW's <regression> wins over the
     * objective: "any" makes the gain a regression again */
    char path[512], *text = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/campaign.xml", now);
    ck_assert_int_eq(util_read_file(path, &text, &len, &err), 0);
    char edited[4096];
    char *at = strstr(text, "absolute=\"0.5\"/>");
    ck_assert_ptr_nonnull(at);
    snprintf(edited, sizeof edited, "%.*sabsolute=\"0.5\" direction=\"any\"/>"
             "%s", (int)(at - text), text, at + strlen("absolute=\"0.5\"/>"));
    free(text);
    tu_write(path, edited);
    ck_assert_int_eq(compare_with(BASE, now, NULL, 0, 0, &err), GD_EJOBS);
    cmp = load_compare(now);
    ck_assert_str_eq(result_of(cmp, "metric ipc"), "fail");
    ck_assert_str_eq(result_of(cmp, "metric area_mm2"), "pass");
    cJSON_Delete(cmp);
    /* --accept: the regression is reported, recorded, and exits 0 */
    ck_assert_int_eq(compare_with(BASE, now, junit, 0, 1, &err), GD_OK);
    cmp = load_compare(now);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cmp, "accepted")));
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cmp, "regression")));
    ck_assert_str_eq(result_of(cmp, "metric ipc"), "fail");
    cJSON_Delete(cmp);
    ck_assert_int_eq(junit_failures(junit, "metric ipc", "accepted (gpudse "
                                    "compare --accept)", &has), 0);
    ck_assert(has);
    snprintf(args, sizeof args, "%s %s --accept", BASE, now);
    ck_assert_int_eq(run_bin(args), 0);
    /* a bad direction names the file and line */
    tu_write(path, "<campaign name=\"x\"><workloads><workload name=\"vecadd\"/>"
             "</workloads>\n<objectives><maximize metric=\"ipc\"/></objectives>"
             "<search strategy=\"random\" budget=\"2\"/>\n<regression>"
             "<threshold metric=\"ipc\" direction=\"up\"/></regression>\n"
             "</campaign>\n");
    camp_campaign c;
    ck_assert_int_eq(camp_load_meta(path, &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "campaign.xml:3:")
                  && strstr(err.msg, "direction \"up\""), "%s", err.msg);
}
END_TEST

START_TEST(new_failure_is_regression)
{
    char now[256], names[512];
    copy_base("newfail", now, sizeof now);
    jsonl j;
    jsonl_read(now, &j);
    set_status(&j, 2, "failed");
    jsonl_write(now, &j);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(BASE, now, NULL, NULL, &err), GD_EJOBS);
    cJSON *cmp = load_compare(now);
    failed_names(cmp, names, sizeof names);
    ck_assert_str_eq(names, "status");
    ck_assert_int_eq((int)summary_num(cmp, "new_failures"), 1);
    const cJSON *st = find_check(cmp, "status");
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "worst"), 0);
    ck_assert_str_eq(cJSON_GetObjectItem(w, "label")->valuestring,
                     "ok -> failed: exit code 1");
    cJSON_Delete(cmp);

    /* failing in both runs is not a regression; ok in NEW is a fix */
    char base2[256];
    copy_base("newfail-base", base2, sizeof base2);
    jsonl_read(base2, &j);
    set_status(&j, 2, "failed");
    set_status(&j, 9, "timeout");
    jsonl_write(base2, &j);
    ck_assert_int_eq(compare(base2, now, NULL, NULL, &err), GD_OK);
    cmp = load_compare(now);
    ck_assert_int_eq((int)summary_num(cmp, "still_failing"), 1);
    ck_assert_int_eq((int)summary_num(cmp, "fixed_failures"), 1);
    cJSON_Delete(cmp);
}
END_TEST

/* A job only NEW has (here: of a workload BASE never ran) that fails is a
 * new failure; one that succeeds is only counted. */
START_TEST(new_job_failing_is_regression)
{
    char now[256], names[512];
    copy_base("newjob", now, sizeof now);
    jsonl j;
    jsonl_read(now, &j);
    j.lines[j.n] = strdup(j.lines[0]);
    cJSON *o = jsonl_get(&j, j.n++);
    cJSON_ReplaceItemInObject(o, "workload", cJSON_CreateString("vecadd"));
    cJSON_ReplaceItemInObject(o, "key", cJSON_CreateString(
        "00000000000000000000000000000000000000000000000000000000000000aa"));
    jsonl_put(&j, j.n - 1, o);
    set_status(&j, j.n - 1, "crashed");
    jsonl_write(now, &j);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(BASE, now, NULL, NULL, &err), GD_EJOBS);
    cJSON *cmp = load_compare(now);
    failed_names(cmp, names, sizeof names);
    ck_assert_str_eq(names, "status");
    ck_assert_int_eq((int)summary_num(cmp, "new_failures"), 1);
    ck_assert_int_eq((int)summary_num(cmp, "only_in_new"), 1);
    ck_assert_int_eq((int)summary_num(cmp, "checks"), NCHECKS + 3);
    cJSON_Delete(cmp);
}
END_TEST

START_TEST(missing_job_and_new_keys)
{
    char now[256], names[512];
    copy_base("missing", now, sizeof now);
    jsonl j;
    jsonl_read(now, &j);
    free(j.lines[--j.n]);   /* the last job never ran */
    for (int i = 0; i < j.n; i++) {   /* a new model version: new keys */
        cJSON *o = jsonl_get(&j, i);
        char key[65];
        util_strlcpy(key, cJSON_GetObjectItem(o, "key")->valuestring,
                     sizeof key);
        for (char *p = key; *p; p++)
            *p = *p == 'f' ? '0' : *p == '9' ? 'a' : (char)(*p + 1);
        cJSON_ReplaceItemInObject(o, "key", cJSON_CreateString(key));
        jsonl_put(&j, i, o);
    }
    jsonl_write(now, &j);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(BASE, now, NULL, NULL, &err), GD_EJOBS);
    cJSON *cmp = load_compare(now);
    failed_names(cmp, names, sizeof names);
    ck_assert_str_eq(names, "coverage");
    ck_assert_int_eq((int)summary_num(cmp, "matched_by_key"), 0);
    ck_assert_int_eq((int)summary_num(cmp, "matched_by_config"), 29);
    ck_assert_int_eq((int)summary_num(cmp, "only_in_base"), 1);
    ck_assert_int_eq((int)num(find_check(cmp, "coverage"), "missing_in_new"),
                     1);
    cJSON_Delete(cmp);
}
END_TEST

/* A better front point in NEW (analysis redone): the front check fails
 * with the hypervolume change. */
START_TEST(front_change_detected)
{
    char now[256], path[512], *text = NULL;
    size_t len;
    gd_err err = {0, ""};
    copy_base("front", now, sizeof now);
    snprintf(path, sizeof path, "%s/analysis.json", now);
    ck_assert_int_eq(util_read_file(path, &text, &len, &err), 0);
    cJSON *an = cJSON_Parse(text);
    free(text);
    const cJSON *f0 = cJSON_GetArrayItem(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(an, "workloads"), 0),
        "front"), 0);
    char key[65];
    util_strlcpy(key, cJSON_GetObjectItem(f0, "key")->valuestring,
                 sizeof key);
    cJSON_Delete(an);
    jsonl j;
    jsonl_read(now, &j);
    int at = -1;
    for (int i = 0; i < j.n; i++)
        if (strstr(j.lines[i], key))
            at = i;
    ck_assert_int_ge(at, 0);
    scale_metric(&j, at, "ipc", 1.5);
    jsonl_write(now, &j);
    ck_assert_int_eq(ana_run(now, &err), GD_OK);
    /* a larger hypervolume is an improvement: reported, a failure only
     * with --fail-on-improvement */
    ck_assert_int_eq(compare(BASE, now, NULL, NULL, &err), GD_OK);
    cJSON *cmp = load_compare(now);
    ck_assert_str_eq(result_of(cmp, "front"), "pass");
    ck_assert_int_eq((int)num(find_check(cmp, "front"), "improved"), 1);
    const cJSON *w = cJSON_GetObjectItem(find_check(cmp, "front"),
                                         "largest_improvement");
    ck_assert(num(w, "new") > num(w, "base"));
    cJSON_Delete(cmp);
    ck_assert_int_eq(compare_with(BASE, now, NULL, 1, 0, &err), GD_EJOBS);
    cmp = load_compare(now);
    ck_assert_str_eq(result_of(cmp, "front"), "fail");
    ck_assert_str_eq(result_of(cmp, "metric ipc"), "fail");
    cJSON_Delete(cmp);
}
END_TEST

static void add_calibration(const char *dir, double p0)
{
    char path[512], *text = NULL;
    size_t len;
    gd_err err = {0, ""};
    snprintf(path, sizeof path, "%s/analysis.json", dir);
    ck_assert_int_eq(util_read_file(path, &text, &len, &err), 0);
    cJSON *an = cJSON_Parse(text);
    free(text);
    cJSON *cal = cJSON_AddObjectToObject(an, "calibration");
    cJSON_AddStringToObject(cal, "metric", "ipc");
    cJSON *pts = cJSON_AddArrayToObject(cal, "points");
    const double pred[3] = {p0, 2, 3}, meas[3] = {1.1, 2, 3};
    for (int i = 0; i < 3; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "predicted", pred[i]);
        cJSON_AddNumberToObject(p, "measured", meas[i]);
        cJSON_AddItemToArray(pts, p);
    }
    char *out = cJSON_Print(an);
    cJSON_Delete(an);
    tu_write(path, out);
    cJSON_free(out);
}

START_TEST(calibration_error_change)
{
    char base[256], now[256];
    copy_base("cal-base", base, sizeof base);
    copy_base("cal-new", now, sizeof now);
    add_calibration(base, 1.0);   /* MAPE (0.1/1.1)/3 = 3.03 % */
    add_calibration(now, 1.5);    /* MAPE (0.4/1.1)/3 = 12.12 % */
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(base, now, NULL, NULL, &err), GD_EJOBS);
    cJSON *cmp = load_compare(now);
    ck_assert_int_eq((int)summary_num(cmp, "checks"), NCHECKS + 1);
    const cJSON *c = find_check(cmp, "calibration ipc #1");
    ck_assert_str_eq(cJSON_GetObjectItem(c, "result")->valuestring, "fail");
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "worst"), 0);
    ck_assert_double_eq_tol(num(w, "base"), 100 * 0.1 / 1.1 / 3, 1e-9);
    ck_assert_double_eq_tol(num(w, "new"), 100 * 0.4 / 1.1 / 3, 1e-9);
    cJSON_Delete(cmp);
    /* the error shrinking is an improvement, not a regression */
    ck_assert_int_eq(compare(now, base, NULL, NULL, &err), GD_OK);
}
END_TEST

START_TEST(bad_input_exits_2)
{
    char now[256], args[800], path[512];
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(BASE, "tests/tmp/no-such-run", NULL, NULL,
                             &err), GD_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "no-such-run"));
    copy_base("bad", now, sizeof now);
    jsonl j;
    jsonl_read(now, &j);
    free(j.lines[2]);
    j.lines[2] = strdup("{\"key\": 12");
    jsonl_write(now, &j);
    err.msg[0] = '\0';
    ck_assert_int_eq(compare(BASE, now, NULL, NULL, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "results.jsonl:3") != NULL, "%s", err.msg);
    snprintf(path, sizeof path, "%s/compare.json", now);
    ck_assert(!util_path_exists(path));
    camp_threshold t;
    ck_assert_int_eq(cmp_parse_threshold("ipc", &t, &err), GD_EINPUT);
    ck_assert_int_eq(cmp_parse_threshold("ipcc=2", &t, &err), GD_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "did you mean \"ipc\""));
    ck_assert_int_eq(cmp_parse_threshold("ipc=-1", &t, &err), GD_EINPUT);
    ck_assert_int_eq(cmp_parse_threshold("ipc=2%,0.5", &t, &err), GD_OK);
    ck_assert_double_eq(t.relative_pct, 2);
    ck_assert_double_eq(t.absolute, 0.5);
    snprintf(args, sizeof args, "%s %s --threshold ipc", BASE, BASE);
    ck_assert_int_eq(run_bin(args), 2);
    snprintf(args, sizeof args, "%s", BASE);
    ck_assert_int_eq(run_bin(args), 2);
    snprintf(args, sizeof args, "%s %s --bogus", BASE, BASE);
    ck_assert_int_eq(run_bin(args), 2);
    snprintf(args, sizeof args, "%s %s --junit %s/no/such/dir/j.xml", BASE,
             BASE, T);
    ck_assert_int_eq(run_bin(args), 2);
}
END_TEST

START_TEST(campaign_regression_element)
{
    char camp[256];
    camp_campaign c;
    gd_err err = {0, ""};
    path_in(camp, sizeof camp, "c.xml");
    ck_assert_int_eq(camp_load_meta(camp, &c, &err), GD_OK);
    ck_assert_int_eq(c.nthresholds, 1);
    ck_assert_str_eq(c.thresholds[0].metric, "ipc");
    ck_assert_double_eq(c.thresholds[0].relative_pct, 2);
    ck_assert_double_eq(c.thresholds[0].absolute, 0.5);
    camp_free(&c);
    path_in(camp, sizeof camp, "bad.xml");
    char text[2048];
    util_strlcpy(text, campaign_text, sizeof text);
    char *m = strstr(text, "metric=\"ipc\" relative");
    ck_assert_ptr_nonnull(m);
    memcpy(m, "metric=\"ipx\"", 12);
    tu_write(camp, text);
    /* the document reads; the compare stage refuses the metric */
    ck_assert_msg(camp_load_meta(camp, &c, &err) == GD_OK, "%s", err.msg);
    ck_assert_int_eq(cmp_check_campaign(&c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "bad.xml:11:") && strstr(err.msg, "ipx"),
                  "%s", err.msg);
    camp_free(&c);
}
END_TEST

static int nightly(const char *campaign, const char *stamp)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "GPUDSE=%s CAMPAIGN=%s/%s STAMP=%s "
             "sh campaigns/nightly.sh %s/nightly >/dev/null 2>&1", tu_bin(),
             T, campaign, stamp, T);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void last_good(char *out, size_t n)
{
    char path[256], *text = NULL;
    size_t len;
    gd_err err;
    snprintf(path, sizeof path, "%s/nightly/LAST_GOOD", T);
    ck_assert_int_eq(util_read_file(path, &text, &len, &err), 0);
    util_strlcpy(out, text, n);
    out[strcspn(out, "\n")] = '\0';
    free(text);
}

/* campaigns/nightly.sh: the first night becomes the baseline, a passing
 * night is promoted, a regressing one (another seed: other configs) is
 * not, and the JUnit file is left for CI. */
START_TEST(nightly_script_promotes_only_on_pass)
{
    char good[64], path[512], text[2048];
    ck_assert_int_eq(nightly("c.xml", "n1"), 0);
    last_good(good, sizeof good);
    ck_assert_str_eq(good, "n1");
    ck_assert_int_eq(nightly("c.xml", "n2"), 0);
    last_good(good, sizeof good);
    ck_assert_str_eq(good, "n2");
    util_strlcpy(text, campaign_text, sizeof text);
    memcpy(strstr(text, "seed=\"5\""), "seed=\"6\"", 8);
    path_in(path, sizeof path, "c6.xml");
    tu_write(path, text);
    ck_assert_int_eq(nightly("c6.xml", "n3"), 1);
    last_good(good, sizeof good);
    ck_assert_str_eq(good, "n2");
    snprintf(path, sizeof path, "%s/nightly/junit.xml", T);
    ck_assert(util_path_exists(path));
    snprintf(path, sizeof path, "%s/nightly/n3/figures/regression.svg", T);
    ck_assert(util_path_exists(path));
}
END_TEST

/* Workloads interleaved in BASE and one after another (in another order)
 * in NEW, one only in BASE, one only in NEW, reruns on both sides: each
 * workload is compared on its own records, each key's latest attempt. */
START_TEST(workloads_in_any_journal_order)
{
    static const char *const bw[] = {"w3", "w1", "w2", "onlybase"};
    static const char *const nw[] = {"onlynew", "w2", "w1", "w3"};
    char base[256], now[256], names[512];
    jsonl src;
    jsonl_read(BASE, &src);
    copy_base("wl-base", base, sizeof base);
    copy_base("wl-new", now, sizeof now);
    FILE *f = open_journal(base);
    put_job(f, &src, 0, "w2", 0, 1, "failed");   /* retried: ok below */
    for (int i = 0; i < src.n; i++)
        for (int w = 0; w < 4; w++)
            put_job(f, &src, i, bw[w], 0, 1, NULL);
    fclose(f);
    f = open_journal(now);
    put_job(f, &src, 3, "w1", 0, 3, NULL);       /* superseded below */
    for (int w = 0; w < 4; w++)
        for (int i = 0; i < src.n; i++)
            put_job(f, &src, i, nw[w], 0, 1, NULL);
    put_job(f, &src, 5, "w3", 0, 0.5, NULL);     /* a rerun that regressed */
    fclose(f);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(base, now, NULL, NULL, &err), GD_EJOBS);
    cJSON *cmp = load_compare(now);
    failed_wl_names(cmp, names, sizeof names);
    ck_assert_str_eq(names, "onlybase/coverage,w3/metric ipc");
    ck_assert_int_eq((int)summary_num(cmp, "matched_by_key"), 3 * src.n);
    ck_assert_int_eq((int)summary_num(cmp, "matched_by_config"), 0);
    ck_assert_int_eq((int)summary_num(cmp, "only_in_base"), src.n);
    ck_assert_int_eq((int)summary_num(cmp, "only_in_new"), src.n);
    ck_assert_int_eq((int)summary_num(cmp, "new_failures"), 0);
    ck_assert_int_eq((int)summary_num(cmp, "fixed_failures"), 0);
    /* onlynew has no BASE metrics: status, coverage, front alone */
    ck_assert_int_eq((int)summary_num(cmp, "checks"), 4 * NCHECKS + 3);
    ck_assert_int_eq((int)side_records(cmp, "base"), 4 * src.n);
    ck_assert_int_eq((int)side_records(cmp, "new"), 4 * src.n);
    const cJSON *c = find_wl_check(cmp, "w3", "metric ipc");
    ck_assert_int_eq((int)num(c, "over_threshold"), 1);
    ck_assert_int_eq((int)num(c, "compared"), src.n);
    c = find_wl_check(cmp, "w1", "metric ipc");
    ck_assert_int_eq((int)num(c, "over_threshold"), 0);
    ck_assert_int_eq((int)num(c, "compared"), src.n);
    c = find_wl_check(cmp, "w2", "status");
    ck_assert_int_eq((int)num(c, "compared"), src.n);
    ck_assert_int_eq((int)num(c, "still_failing"), 0);
    c = find_wl_check(cmp, "onlybase", "coverage");
    ck_assert_int_eq((int)num(c, "missing_in_new"), src.n);
    c = find_wl_check(cmp, "onlynew", "coverage");
    ck_assert_int_eq((int)num(c, "only_in_new"), src.n);
    ck_assert_str_eq(result_of(cmp, "front"), "skipped");
    cJSON_Delete(cmp);
    jsonl_free(&src);
}
END_TEST

/* Names whose journal text has an escape: the checks still come in the
 * names' order ("w\"a" before "w#"; its text, w\"a, sorts after). */
START_TEST(escaped_workload_names_keep_order)
{
    static const char *const wl[] = {"w#", "w\"a"};
    char base[256], now[256];
    jsonl src;
    jsonl_read(BASE, &src);
    copy_base("esc-base", base, sizeof base);
    copy_base("esc-new", now, sizeof now);
    FILE *fb = open_journal(base), *fn = open_journal(now);
    for (int i = 0; i < src.n; i++)
        for (int w = 0; w < 2; w++) {
            put_job(fb, &src, i, wl[w], 0, 1, NULL);
            put_job(fn, &src, i, wl[1 - w], 0, i == 7 && w ? 0.5 : 1, NULL);
        }
    fclose(fb);
    fclose(fn);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(base, now, NULL, NULL, &err), GD_EJOBS);
    cJSON *cmp = load_compare(now);
    ck_assert_int_eq((int)summary_num(cmp, "matched_by_key"), 2 * src.n);
    ck_assert_int_eq((int)summary_num(cmp, "checks"), 2 * NCHECKS);
    ck_assert_int_eq((int)side_records(cmp, "new"), 2 * src.n);
    /* the one failure first, then the rest in natural order */
    const cJSON *checks = cJSON_GetObjectItem(cmp, "checks");
    const cJSON *c0 = cJSON_GetArrayItem(checks, 0);
    const cJSON *c1 = cJSON_GetArrayItem(checks, 1);
    ck_assert_str_eq(cJSON_GetObjectItem(c0, "check")->valuestring,
                     "metric ipc");
    ck_assert_str_eq(cJSON_GetObjectItem(c0, "workload")->valuestring, "w#");
    ck_assert_str_eq(cJSON_GetObjectItem(c1, "workload")->valuestring,
                     "w\"a");
    ck_assert_int_eq((int)num(find_wl_check(cmp, "w\"a", "coverage"),
                              "compared"), src.n);
    cJSON_Delete(cmp);
    jsonl_free(&src);
}
END_TEST

/* A bad line of the last workload read, after others were compared: the
 * error names FILE:LINE and nothing is written. */
START_TEST(bad_line_in_a_later_workload)
{
    char base[256], now[256], path[512];
    jsonl src;
    jsonl_read(BASE, &src);
    copy_base("late-base", base, sizeof base);
    copy_base("late-new", now, sizeof now);
    FILE *fb = open_journal(base), *fn = open_journal(now);
    for (int i = 0; i < src.n; i++) {
        put_job(fb, &src, i, "a", 0, 1, NULL);
        put_job(fb, &src, i, "z", 0, 1, NULL);
        put_job(fn, &src, i, "a", 0, 1, NULL);
    }
    for (int i = 0; i < src.n; i++)
        if (i == 4)   /* line src.n + 5 */
            fprintf(fn, "{\"key\":\"12\",\"workload\":\"z\"}\n");
        else
            put_job(fn, &src, i, "z", 0, 1, NULL);
    fclose(fb);
    fclose(fn);
    gd_err err = {0, ""};
    ck_assert_int_eq(compare(base, now, NULL, NULL, &err), GD_EINPUT);
    char want[300];
    snprintf(want, sizeof want, "late-new/results.jsonl:%d:", src.n + 5);
    ck_assert_msg(strstr(err.msg, want) != NULL, "%s", err.msg);
    snprintf(path, sizeof path, "%s/compare.json", now);
    ck_assert(!util_path_exists(path));
    jsonl_free(&src);
}
END_TEST

/* Peak resident memory (KiB) of `gpudse compare base now`; its exit
 * status into *st. */
static long compare_peak_kib(const char *base, const char *now, int *st)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(tu_bin(), tu_bin(), "compare", base, now, (char *)NULL);
        _exit(127);
    }
    struct rusage ru;
    ck_assert_int_eq(wait4(pid, st, 0, &ru), pid);
    return ru.ru_maxrss;
}

/* Memory follows the largest workload, not the journal: 16 workloads of
 * 480 jobs a side take less than a third of their records' size more
 * than comparing 30 jobs (the whole journals' records: 7,680 a side). */
START_TEST(memory_follows_one_workload)
{
#if defined(__SANITIZE_ADDRESS__)
    return;   /* freed memory is quarantined, not reused */
#endif
    enum { NWL = 16, COPIES = 16 };
    char base[256], now[256], wl[16];
    jsonl src;
    jsonl_read(BASE, &src);
    copy_base("mem-base", base, sizeof base);
    copy_base("mem-new", now, sizeof now);
    FILE *fb = open_journal(base), *fn = open_journal(now);
    for (int w = 0; w < NWL; w++) {
        snprintf(wl, sizeof wl, "w%02d", w);
        for (int c = 0; c < COPIES; c++)
            for (int i = 0; i < src.n; i++) {
                put_job(fb, &src, i, wl, c, 1, NULL);
                put_job(fn, &src, i, wl, c, 1, NULL);
            }
    }
    fclose(fb);
    fclose(fn);
    int st;
    long small = compare_peak_kib(BASE, BASE, &st);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    long big = compare_peak_kib(base, now, &st);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    long whole = (long)(2 * NWL * COPIES * src.n * sizeof(store_record)
                        / 1024);
    fprintf(stderr, "test_compare: compare peak %ld KiB (%ld KiB on 30 "
            "jobs); the journals' records %ld KiB\n", big, small, whole);
    ck_assert_msg(big - small < whole / 3, "peak %ld KiB, %ld KiB on 30 "
                  "jobs; the journals' records: %ld KiB", big, small, whole);
    jsonl_free(&src);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("compare");
    TCase *t = tcase_create("compare");
    tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, identical_runs_pass);
    tcase_add_test(t, perturbed_checks_fail_exactly);
    tcase_add_test(t, campaign_threshold_applies);
    tcase_add_test(t, improvement_is_not_regression);
    tcase_add_test(t, new_failure_is_regression);
    tcase_add_test(t, new_job_failing_is_regression);
    tcase_add_test(t, missing_job_and_new_keys);
    tcase_add_test(t, front_change_detected);
    tcase_add_test(t, calibration_error_change);
    tcase_add_test(t, bad_input_exits_2);
    tcase_add_test(t, campaign_regression_element);
    tcase_add_test(t, nightly_script_promotes_only_on_pass);
    tcase_add_test(t, workloads_in_any_journal_order);
    tcase_add_test(t, escaped_workload_names_keep_order);
    tcase_add_test(t, bad_line_in_a_later_workload);
    tcase_add_test(t, memory_follows_one_workload);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
