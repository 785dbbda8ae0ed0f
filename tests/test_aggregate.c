/* test_aggregate: the campaign's <aggregate> objectives across workloads
 * (issue 26.4) — the maths of each fn, normalise="baseline", configs
 * missing on a workload or lacking the metric dropped and counted by
 * reason (absent, never 0), the aggregate front over the aggregates and a
 * config-only objective, FILE:LINE errors for bad declarations, and a
 * whole run: analysis.json "aggregates", aggregates.csv (rewritten alone
 * by gpudse analyze), the report's page and its figure files. */
#include "testutil.h"
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cjson/cJSON.h>
#include "aggregate.h"
#include "campaign.h"
#include "model.h"
#include "preflight.h"
#include "space.h"
#include "store.h"
#include "util.h"

#define T "tests/tmp/aggregate"

/* A campaign over n_clusters (values), workloads, objectives: ipc and
 * area_mm2 and the given aggregates. */
#define CAMP_FMT \
    "<campaign name=\"aggtest\" seed=\"1\">\n" \
    "  <simulator backend=\"analytic\"/>\n" \
    "  <workloads>%s</workloads>\n" \
    "  <space><knob name=\"n_clusters\" values=\"%s\"/></space>\n" \
    "  <objectives>\n" \
    "    <maximize metric=\"ipc\"/>\n" \
    "    <minimize metric=\"area_mm2\"/>\n" \
    "    %s\n" \
    "  </objectives>\n" \
    "  <search strategy=\"exhaustive\" budget=\"4\"/>\n" \
    "  <report formats=\"pdf svg\"/>\n" \
    "</campaign>\n"

#define TWO_WL "<workload name=\"vecadd\"/><workload name=\"sgemm\"/>"

static void write_campaign(const char *path, const char *wls,
                           const char *values, const char *aggs)
{
    char text[4096];
    gd_err err = {0, ""};
    ck_assert_int_eq(util_mkdirs(T, &err), 0);
    snprintf(text, sizeof text, CAMP_FMT, wls, values, aggs);
    tu_write(path, text);
}

static void load_campaign(const char *wls, const char *values,
                          const char *aggs, camp_campaign *c)
{
    gd_err err = {0, ""};
    write_campaign(T "/c.xml", wls, values, aggs);
    ck_assert_msg(camp_load_meta(T "/c.xml", c, &err) == GD_OK, "%s",
                  err.msg);
}

/* A record of workload wl at n_clusters=nc; ipc < 0: no ipc metric;
 * area < 0: no area. */
static store_record rec(const char *wl, int nc, double ipc, double area,
                        int status)
{
    store_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.key, sizeof r.key, "%s-%d", wl, nc);
    util_strlcpy(r.workload, wl, sizeof r.workload);
    util_strlcpy(r.backend, "analytic", sizeof r.backend);
    util_strlcpy(r.fidelity, "modelled", sizeof r.fidelity);
    r.cfg = space_baseline();
    space_set(&r.cfg, KNOB_N_CLUSTERS, nc);
    r.status = status;
    if (status == ST_OK && ipc >= 0)
        met_put(&r.metrics, "ipc", ipc);
    if (status == ST_OK && area >= 0)
        met_put(&r.metrics, "area_mm2", area);
    return r;
}

typedef struct {
    const store_record *recs;
    size_t n;
} fake_journal;

static int load_fake(void *arg, const char *name, store_record **recs,
                     size_t *n, gd_err *err)
{
    const fake_journal *j = arg;
    (void)err;
    *recs = malloc((j->n ? j->n : 1) * sizeof **recs);
    *n = 0;
    for (size_t i = 0; i < j->n; i++)
        if (strcmp(j->recs[i].workload, name) == 0)
            (*recs)[(*n)++] = j->recs[i];
    return GD_OK;
}

/* Feed the records workload by workload (campaign order) and finish;
 * the caller deletes *json and frees the state. */
static agg_state *aggregate(const camp_campaign *c, const store_record *recs,
                            size_t n, cJSON **json)
{
    gd_err err = {0, ""};
    agg_state *s = NULL;
    fake_journal j = { recs, n };
    ck_assert_int_eq(agg_begin(c, &s, &err), GD_OK);
    ck_assert_ptr_nonnull(s);
    for (int w = 0; w < c->nworkloads; w++) {
        store_record *mine;
        size_t m;
        load_fake(&j, c->workloads[w].name, &mine, &m, &err);
        ck_assert_msg(agg_add_workload(s, c->workloads[w].name, mine, m,
                                       &err) == GD_OK, "%s", err.msg);
        free(mine);
    }
    ck_assert_msg(agg_finish(s, load_fake, &j, json, &err) == GD_OK, "%s",
                  err.msg);
    ck_assert_ptr_nonnull(*json);
    return s;
}

static const cJSON *item(const cJSON *json, const char *name)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(json,
                                                             "aggregates")) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (cJSON_IsString(nm) && strcmp(nm->valuestring, name) == 0)
            return it;
    }
    ck_abort_msg("no aggregate %s", name);
    return NULL;
}

static double num(const cJSON *o, const char *path)
{
    char part[64];
    const cJSON *v = o;
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, ".");
        util_strlcpy(part, p, len + 1);
        v = isdigit((unsigned char)part[0])
            ? cJSON_GetArrayItem(v, atoi(part))
            : cJSON_GetObjectItemCaseSensitive(v, part);
        p += len + (p[len] == '.');
    }
    ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", path);
    return v->valuedouble;
}

static void near(double a, double b, int line)
{
    ck_assert_msg(fabs(a - b) < 1e-12 * fmax(1, fabs(b)), "line %d: %.17g "
                  "!= %.17g", line, a, b);
}

#define NEAR(a, b) near((a), (b), __LINE__)

/* ---- the maths --------------------------------------------------------- */

START_TEST(aggregate_maths)
{
    double g[] = {1, 4, 16}, m[] = {1, 2, 3, 6}, h[] = {1, 2, 4};
    NEAR(agg_apply(CAMP_AGG_GEOMEAN, g, 3), 4);
    NEAR(agg_apply(CAMP_AGG_MEAN, m, 4), 3);
    NEAR(agg_apply(CAMP_AGG_HMEAN, h, 3), 3 / 1.75);
    NEAR(agg_apply(CAMP_AGG_MIN, m, 4), 1);
    NEAR(agg_apply(CAMP_AGG_MAX, m, 4), 6);
    double neg[] = {-2, 3};
    NEAR(agg_apply(CAMP_AGG_MEAN, neg, 2), 0.5);
    NEAR(agg_apply(CAMP_AGG_MIN, neg, 2), -2);
    /* the geometric and harmonic means need positive values */
    double zero[] = {2, 0};
    ck_assert(isnan(agg_apply(CAMP_AGG_GEOMEAN, zero, 2)));
    ck_assert(isnan(agg_apply(CAMP_AGG_HMEAN, neg, 2)));
    double nan[] = {1, NAN};
    ck_assert(isnan(agg_apply(CAMP_AGG_MAX, nan, 2)));
    ck_assert(isnan(agg_apply(CAMP_AGG_MEAN, g, 0)));
    ck_assert_str_eq(camp_agg_fn_name(CAMP_AGG_HMEAN), "hmean");
}
END_TEST

/* normalise="baseline": each workload's value over its baseline (n_clusters
 * 15) value; raw otherwise. Best per aggregate and each workload's value,
 * baseline and ratio under it. */
START_TEST(normalise_by_baseline)
{
    camp_campaign c;
    load_campaign(TWO_WL, "8 15",
                  "<aggregate name=\"gm\" fn=\"geomean\" metric=\"ipc\" "
                  "normalise=\"baseline\"/>"
                  "<aggregate name=\"raw_mean\" fn=\"mean\" metric=\"ipc\"/>"
                  "<aggregate name=\"worst\" fn=\"min\" metric=\"ipc\" "
                  "normalise=\"baseline\"/>"
                  "<aggregate name=\"hm\" fn=\"hmean\" metric=\"ipc\" "
                  "normalise=\"baseline\" sense=\"minimize\"/>", &c);
    store_record r[] = {
        rec("vecadd", 15, 2, 10, ST_OK), rec("vecadd", 8, 1, 5, ST_OK),
        rec("sgemm", 15, 4, 10, ST_OK), rec("sgemm", 8, 16, 5, ST_OK),
    };
    cJSON *j;
    agg_state *s = aggregate(&c, r, 4, &j);
    /* n_clusters 8: ratios 0.5 and 4 */
    NEAR(num(item(j, "gm"), "best.value"), sqrt(2));
    NEAR(num(item(j, "gm"), "best.config.n_clusters"), 8);
    NEAR(num(item(j, "gm"), "best.workloads.1.ratio"), 4);
    NEAR(num(item(j, "gm"), "best.workloads.0.value"), 1);
    NEAR(num(item(j, "gm"), "best.workloads.0.baseline"), 2);
    NEAR(num(item(j, "gm"), "best.area_mm2"), 5);
    NEAR(num(item(j, "raw_mean"), "best.value"), 8.5);     /* (1 + 16) / 2 */
    NEAR(num(item(j, "worst"), "best.value"), 1);          /* baseline's */
    NEAR(num(item(j, "worst"), "best.config.n_clusters"), 15);
    /* minimised: hmean(0.5, 4) = 2 / 2.25 = 0.889 beats the baseline's 1 */
    NEAR(num(item(j, "hm"), "best.value"), 2 / 2.25);
    NEAR(num(item(j, "gm"), "configs"), 2);
    NEAR(num(item(j, "gm"), "dropped.total"), 0);
    cJSON_Delete(j);
    agg_free(s);
    camp_free(&c);
}
END_TEST

/* A config missing on one workload, failed on one, or lacking the metric
 * on one is dropped and counted by reason; its value is absent — an empty
 * CSV cell, no JSON value — never 0. */
START_TEST(dropped_configs_counted)
{
    camp_campaign c;
    load_campaign(TWO_WL, "8 15 30 60",
                  "<aggregate name=\"gm\" fn=\"geomean\" metric=\"ipc\" "
                  "normalise=\"baseline\"/>", &c);
    store_record r[] = {
        rec("vecadd", 8, 1, 5, ST_OK), rec("vecadd", 15, 2, 10, ST_OK),
        rec("vecadd", 30, 3, 20, ST_OK), rec("vecadd", 60, 4, 40, ST_OK),
        rec("sgemm", 8, -1, 5, ST_OK),         /* no ipc */
        rec("sgemm", 15, 3, 10, ST_OK),
        rec("sgemm", 30, 0, 0, ST_FAILED),
        /* n_clusters 60 never ran on sgemm */
    };
    cJSON *j;
    gd_err err = {0, ""};
    agg_state *s = aggregate(&c, r, 7, &j);
    const cJSON *it = item(j, "gm");
    NEAR(num(it, "configs"), 1);
    NEAR(num(it, "dropped.total"), 3);
    NEAR(num(it, "dropped.not_evaluated_on_every_workload"), 1);
    NEAR(num(it, "dropped.failed"), 1);
    NEAR(num(it, "dropped.metric_absent"), 1);
    NEAR(num(it, "dropped.no_baseline_value"), 0);
    NEAR(num(j, "configs_seen"), 4);
    NEAR(num(it, "best.config.n_clusters"), 15);
    NEAR(num(it, "best.value"), 1);
    /* the front holds the one config that counts */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                         j, "front")), 1);
    ck_assert_int_eq(agg_write_csv(s, T "/agg.csv", &err), GD_OK);
    char *csv;
    size_t len;
    ck_assert_int_eq(util_read_file(T "/agg.csv", &csv, &len, &err), GD_OK);
    ck_assert_msg(strstr(csv, "8,1,6,49152,gto,2,32,64,2,,5,0,\"gm: metric "
                         "absent on a workload\"\n"), "%s", csv);
    ck_assert_msg(strstr(csv, "60,1,6,49152,gto,2,32,64,1,,40,0,\"gm: not "
                         "evaluated on every workload\"\n"), "%s", csv);
    ck_assert_msg(strstr(csv, "15,1,6,49152,gto,2,32,64,2,1,10,1,\n"), "%s",
                  csv);
    free(csv);
    cJSON_Delete(j);
    agg_free(s);
    camp_free(&c);
}
END_TEST

/* No baseline value on a workload: with normalise every config is dropped
 * and the aggregate's best is null (absent), not 0. */
START_TEST(absent_aggregate_is_null)
{
    camp_campaign c;
    load_campaign(TWO_WL, "8 15",
                  "<aggregate name=\"gm\" fn=\"geomean\" metric=\"ipc\" "
                  "normalise=\"baseline\"/>"
                  "<aggregate name=\"raw\" fn=\"max\" metric=\"ipc\"/>", &c);
    store_record r[] = {
        rec("vecadd", 8, 1, 5, ST_OK), rec("vecadd", 15, 2, 10, ST_OK),
        rec("sgemm", 8, 3, 5, ST_OK), rec("sgemm", 15, 0, 0, ST_CRASHED),
    };
    cJSON *j;
    agg_state *s = aggregate(&c, r, 4, &j);
    const cJSON *gm = item(j, "gm");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(gm, "best")));
    NEAR(num(gm, "configs"), 0);
    NEAR(num(gm, "dropped.no_baseline_value"), 1);
    NEAR(num(gm, "dropped.failed"), 1);
    const cJSON *nb = cJSON_GetObjectItemCaseSensitive(gm, "no_baseline_on");
    ck_assert_int_eq(cJSON_GetArraySize(nb), 1);
    ck_assert_str_eq(cJSON_GetArrayItem(nb, 0)->valuestring, "sgemm");
    /* the raw one still has n_clusters 8; its baseline value on sgemm is
     * absent, so the ratio is null rather than 0 */
    NEAR(num(item(j, "raw"), "best.value"), 3);
    const cJSON *w1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(item(j, "raw"), "best"),
        "workloads"), 1);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(w1, "ratio")));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(w1,
                                                            "baseline")));
    /* no config has both aggregates: the front is empty */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                         j, "front")), 0);
    cJSON_Delete(j);
    agg_free(s);
    camp_free(&c);
}
END_TEST

/* The aggregate front is over the aggregates and the config-only
 * objectives (area_mm2), not the per-workload ipc; best first by the first
 * aggregate. */
START_TEST(front_over_aggregates)
{
    camp_campaign c;
    load_campaign(TWO_WL, "8 15 30 60",
                  "<aggregate name=\"gm\" fn=\"geomean\" metric=\"ipc\" "
                  "normalise=\"baseline\"/>", &c);
    /* geomean: 8 -> 0.5, 15 -> 1, 30 -> 0.8 (dominated by 15: more area,
     * less ipc), 60 -> 2 */
    store_record r[] = {
        rec("vecadd", 8, 1, 5, ST_OK), rec("vecadd", 15, 2, 10, ST_OK),
        rec("vecadd", 30, 1.6, 20, ST_OK), rec("vecadd", 60, 4, 40, ST_OK),
        rec("sgemm", 8, 2, 5, ST_OK), rec("sgemm", 15, 4, 10, ST_OK),
        rec("sgemm", 30, 3.2, 20, ST_OK), rec("sgemm", 60, 8, 40, ST_OK),
    };
    cJSON *j;
    agg_state *s = aggregate(&c, r, 8, &j);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "front");
    ck_assert_int_eq(cJSON_GetArraySize(f), 3);
    NEAR(num(f, "0.config.n_clusters"), 60);
    NEAR(num(f, "1.config.n_clusters"), 15);
    NEAR(num(f, "2.config.n_clusters"), 8);
    NEAR(num(f, "0.values.gm"), 2);
    NEAR(num(f, "0.values.area_mm2"), 40);
    const cJSON *fo = cJSON_GetObjectItemCaseSensitive(j, "front_objectives");
    ck_assert_int_eq(cJSON_GetArraySize(fo), 2);   /* gm, area_mm2 */
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(fo, 1), "name")->valuestring, "area_mm2");
    cJSON_Delete(j);
    agg_free(s);
    camp_free(&c);
}
END_TEST

/* A config outside a <constraint> on a workload is dropped and counted
 * ("infeasible"); the best and the front are among the feasible ones, and
 * an infeasible baseline still normalises. */
START_TEST(infeasible_configs_dropped)
{
    camp_campaign c;
    load_campaign(TWO_WL, "8 15 30 60",
                  "<constraint metric=\"area_mm2\" max=\"15\"/>"
                  "<constraint metric=\"ipc\" min=\"1.5\"/>"
                  "<aggregate name=\"gm\" fn=\"geomean\" metric=\"ipc\" "
                  "normalise=\"baseline\"/>", &c);
    store_record r[] = {
        rec("vecadd", 8, 1, 5, ST_OK), rec("vecadd", 15, 2, 10, ST_OK),
        rec("vecadd", 30, 3, 20, ST_OK), rec("vecadd", 60, 4, 40, ST_OK),
        rec("sgemm", 8, 2, 5, ST_OK), rec("sgemm", 15, 4, 10, ST_OK),
        rec("sgemm", 30, 6, 20, ST_OK), rec("sgemm", 60, 8, 40, ST_OK),
    };
    cJSON *j;
    agg_state *s = aggregate(&c, r, 8, &j);
    const cJSON *it = item(j, "gm");
    NEAR(num(it, "configs"), 1);                  /* n_clusters 15 */
    NEAR(num(it, "dropped.infeasible"), 3);       /* 30, 60 (area), 8 (ipc
                                                   * 1 on vecadd) */
    NEAR(num(it, "best.config.n_clusters"), 15);
    NEAR(num(it, "best.value"), 1);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                         j, "front")), 1);
    cJSON_Delete(j);
    agg_free(s);
    camp_free(&c);
    /* an infeasible baseline (area 10 > 7) still normalises: only
     * n_clusters 8 is feasible, at ratios 0.5 and 0.5 */
    load_campaign(TWO_WL, "8 15",
                  "<constraint metric=\"area_mm2\" max=\"7\"/>"
                  "<aggregate name=\"gm\" fn=\"geomean\" metric=\"ipc\" "
                  "normalise=\"baseline\"/>", &c);
    s = aggregate(&c, r, 8, &j);
    NEAR(num(item(j, "gm"), "best.value"), 0.5);
    NEAR(num(item(j, "gm"), "dropped.infeasible"), 3);   /* 15, 30, 60 */
    cJSON_Delete(j);
    agg_free(s);
    camp_free(&c);
}
END_TEST

/* A <derived> metric may be aggregated (with sense=, as it is no
 * objective); an aggregate may not take a derived metric's name. */
#define DERIVED_FMT \
    "<campaign name=\"d\" seed=\"1\">\n" \
    "  <derived name=\"ipc_per_mm2\" expr=\"ipc / area_mm2\"/>\n" \
    "  <workloads>" TWO_WL "</workloads>\n" \
    "  <objectives><maximize metric=\"ipc\"/>\n" \
    "    <aggregate name=\"%s\" fn=\"geomean\" metric=\"ipc_per_mm2\" " \
    "sense=\"maximize\"/>\n" \
    "  </objectives>\n" \
    "  <search strategy=\"random\" budget=\"4\"/>\n" \
    "</campaign>\n"

START_TEST(aggregate_over_derived_metric)
{
    camp_campaign c;
    gd_err err = {0, ""};
    char text[1024];
    ck_assert_int_eq(util_mkdirs(T, &err), 0);
    snprintf(text, sizeof text, DERIVED_FMT, "g");
    tu_write(T "/d.xml", text);
    ck_assert_msg(preflight_load(T "/d.xml", &c, &err) == GD_OK, "%s",
                  err.msg);
    ck_assert_str_eq(c.agg[0].metric, "ipc_per_mm2");
    camp_free(&c);
    snprintf(text, sizeof text, DERIVED_FMT, "ipc_per_mm2");
    tu_write(T "/d.xml", text);
    ck_assert_int_eq(preflight_load(T "/d.xml", &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "d.xml:5: aggregate name \"ipc_per_mm2\" "
                         "is a metric's name"), "%s", err.msg);
}
END_TEST

/* ---- bad declarations -------------------------------------------------- */

static void expect_error(const char *values, const char *aggs,
                         const char *what)
{
    camp_campaign c;
    gd_err err = {0, ""};
    write_campaign(T "/bad.xml", TWO_WL, values, aggs);
    int rc = preflight_load(T "/bad.xml", &c, &err);
    ck_assert_int_eq(rc, GD_EINPUT);
    ck_assert_msg(names_file_line(err.msg, "bad.xml"), "%s", err.msg);
    ck_assert_msg(strstr(err.msg, ":8:") != NULL, "not line 8: %s", err.msg);
    ck_assert_msg(strstr(err.msg, what) != NULL, "'%s' not in: %s", what,
                  err.msg);
}

START_TEST(bad_declarations_name_file_line)
{
    expect_error("8 15", "<aggregate name=\"g\" fn=\"median\" "
                 "metric=\"ipc\"/>", "fn=\"median\": use geomean, mean, "
                 "hmean, min or max");
    expect_error("8 15", "<aggregate name=\"g\" fn=\"mean\" "
                 "metric=\"ipcx\" sense=\"maximize\"/>",
                 "aggregate on unknown metric \"ipcx\"");
    expect_error("8 15", "<aggregate name=\"g\" fn=\"mean\" "
                 "metric=\"ipcx\"/>", "did you mean \"ipc\"?");
    expect_error("8 15", "<aggregate name=\"g\" fn=\"mean\" "
                 "metric=\"dram_bw_gbps\"/>", "say sense=\"maximize\"");
    expect_error("8 15", "<aggregate name=\"g\" fn=\"mean\" metric=\"ipc\" "
                 "normalise=\"base\"/>", "normalise=\"base\": use baseline");
    expect_error("8 30", "<aggregate name=\"g\" fn=\"geomean\" "
                 "metric=\"ipc\" normalise=\"baseline\"/>",
                 "knob n_clusters does not take its baseline 15");
    expect_error("8 15", "<aggregate name=\"ipc\" fn=\"mean\" "
                 "metric=\"ipc\"/>", "is a metric's name");
    expect_error("8 15", "<aggregate name=\"g\" fn=\"mean\" metric=\"ipc\" "
                 "sense=\"up\"/>", "sense=\"up\"");
    /* twice: the second names the first's line */
    camp_campaign c;
    gd_err err = {0, ""};
    write_campaign(T "/bad.xml", TWO_WL, "8 15",
                   "<aggregate name=\"g\" fn=\"mean\" metric=\"ipc\"/>\n"
                   "    <aggregate name=\"g\" fn=\"max\" metric=\"ipc\"/>");
    ck_assert_int_eq(preflight_load(T "/bad.xml", &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "bad.xml:9: aggregate \"g\" is declared "
                         "twice (line 8)"), "%s", err.msg);
    /* the command line: exit 2, no run directory */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s run " T "/bad.xml -o " T "/badrun -q "
             "2>/dev/null", tu_bin());
    int st = system(cmd);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    ck_assert(!util_path_exists(T "/badrun"));
}
END_TEST

/* ---- a whole run ------------------------------------------------------- */

static char *pdf_text(const char *pdf)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "pdftotext -enc UTF-8 '%s' - 2>/dev/null",
             pdf);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    util_buf b;
    util_buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
        util_buf_add(&b, chunk, n);
    ck_assert_int_eq(pclose(p), 0);
    for (char *q = b.s; q && *q; q++)   /* lines wrap where they fit */
        if (*q == '\n')
            *q = ' ';
    return b.s ? b.s : strdup("");
}

/* gpudse CMD ARG (output discarded): its exit code. */
static int run(const char *cmd, const char *arg)
{
    char line[1024];
    snprintf(line, sizeof line, "%s %s %s >/dev/null 2>&1", tu_bin(), cmd,
             arg);
    int st = system(line);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(run_writes_aggregates_and_page)
{
    write_campaign(T "/run.xml", TWO_WL "<workload name=\"histogram\"/>",
                   "8 15 30 60",
                   "<aggregate name=\"geomean_speedup\" fn=\"geomean\" "
                   "metric=\"ipc\" normalise=\"baseline\"/>");
    ck_assert_int_eq(system("rm -rf " T "/r1 " T "/r2"), 0);
    ck_assert_int_eq(run("run " T "/run.xml -q -o", T "/r1"), 0);
    ck_assert_int_eq(run("run " T "/run.xml -q -o", T "/r2"), 0);
    char *a1 = tu_slurp(T "/r1/aggregates.csv", NULL);
    char *a2 = tu_slurp(T "/r2/aggregates.csv", NULL);
    ck_assert_str_eq(a1, a2);                       /* same bytes */
    ck_assert_msg(strncmp(a1, "n_clusters,cores_per_cluster,", 29) == 0,
                  "%s", a1);
    ck_assert_msg(strstr(a1, ",geomean_speedup,area_mm2,on_front,dropped\n"),
                  "%s", a1);
    char *s1 = tu_slurp(T "/r1/figures/bars_aggregates.svg", NULL);
    char *s2 = tu_slurp(T "/r2/figures/bars_aggregates.svg", NULL);
    ck_assert_str_eq(s1, s2);
    ck_assert(util_path_exists(T "/r1/figures/bars_aggregates.pdf"));
    char *an = tu_slurp(T "/r1/analysis.json", NULL);
    cJSON *j = cJSON_Parse(an);
    const cJSON *ag = cJSON_GetObjectItemCaseSensitive(j, "aggregates");
    ck_assert(cJSON_IsObject(ag));
    NEAR(num(item(ag, "geomean_speedup"), "configs"), 4);
    /* the analysis stage alone rewrites the same aggregates.csv */
    ck_assert_int_eq(unlink(T "/r1/aggregates.csv"), 0);
    ck_assert_int_eq(run("analyze", T "/r1"), 0);
    char *a3 = tu_slurp(T "/r1/aggregates.csv", NULL);
    ck_assert_str_eq(a1, a3);
    /* and the report stage alone draws the page again */
    ck_assert_int_eq(unlink(T "/r1/report.pdf"), 0);
    ck_assert_int_eq(run("report", T "/r1"), 0);
    char *text = pdf_text(T "/r1/report.pdf");
    ck_assert_msg(strstr(text, "Across workloads: the best configuration "
                         "per aggregate"), "no aggregate page");
    ck_assert_msg(strstr(text, "Aggregate Pareto front"), "no front table");
    ck_assert_msg(strstr(text, "4 configurations evaluated with the metric "
                         "on every workload count; none dropped."),
                  "no dropped count");
    ck_assert_msg(strstr(text, "bound at baseline"), "no bottleneck column");
    free(text);
    cJSON_Delete(j);
    free(an);
    free(a1);
    free(a2);
    free(a3);
    free(s1);
    free(s2);
}
END_TEST

/* A run without aggregates has no aggregates.csv, no "aggregates" in
 * analysis.json and no page (the default layout names the page; it is
 * drawn only when the analysis has aggregates). */
START_TEST(no_aggregates_no_page)
{
    write_campaign(T "/plain.xml", TWO_WL, "8 15", "");
    ck_assert_int_eq(system("rm -rf " T "/plain"), 0);
    ck_assert_int_eq(run("run " T "/plain.xml -q -o", T "/plain"), 0);
    ck_assert(!util_path_exists(T "/plain/aggregates.csv"));
    ck_assert(!util_path_exists(T "/plain/figures/bars_aggregates.svg"));
    char *an = tu_slurp(T "/plain/analysis.json", NULL);
    ck_assert_ptr_null(strstr(an, "\"aggregates\""));
    char *text = pdf_text(T "/plain/report.pdf");
    ck_assert_ptr_null(strstr(text, "Across workloads"));
    free(text);
    free(an);
}
END_TEST

/* ---- campaigns/question.xml ------------------------------------------- */

/* The answer computed here from the embedded model alone, over the
 * campaign's space: the config with area at most 600 mm2 of the largest
 * geometric mean over the workloads of IPC / the workload's baseline IPC. */
static double oracle_answer(const camp_campaign *c, gpu_config *best)
{
    gpu_config base = space_baseline();
    double bipc[CAMP_MAXWL], top = -1;
    gd_err err = {0, ""};
    model_out mo;
    met_set m;
    for (int w = 0; w < c->nworkloads; w++) {
        ck_assert_int_eq(model_eval(&c->workloads[w], &base, &mo, &err), 0);
        memset(&m, 0, sizeof m);
        model_to_metrics(&mo, &m);
        ck_assert_int_eq(met_get(&m, "ipc", &bipc[w]), 0);
    }
    for (uint64_t i = 0; i < space_size(&c->space); i++) {
        gpu_config cfg = space_at(&c->space, i);
        if (model_area_mm2(&cfg) > 600)
            continue;
        double ls = 0, ipc;
        for (int w = 0; w < c->nworkloads; w++) {
            ck_assert_int_eq(model_eval(&c->workloads[w], &cfg, &mo, &err),
                             0);
            memset(&m, 0, sizeof m);
            model_to_metrics(&mo, &m);
            ck_assert_int_eq(met_get(&m, "ipc", &ipc), 0);
            ls += log(ipc / bipc[w]);
        }
        double g = exp(ls / c->nworkloads);
        if (g > top) {
            top = g;
            *best = cfg;
        }
    }
    return top;
}

/* One gpudse run answers the question: the aggregate page's best config is
 * the oracle's, under 600 mm2, and the report has the answer page, the
 * n_clusters line figure and the per-kernel bars. */
START_TEST(question_campaign_answers)
{
    camp_campaign c;
    gd_err err = {0, ""};
    ck_assert_msg(preflight_load("campaigns/question.xml", &c, &err) == GD_OK,
                  "%s", err.msg);
    ck_assert_int_eq(c.nworkloads, 5);
    ck_assert_int_eq(c.naggregates, 1);
    /* exhaustive over the declared space: the answer is exact for it */
    ck_assert_str_eq(c.strategy, "exhaustive");
    ck_assert_int_ge(c.budget, (long)space_size(&c.space));
    gpu_config want;
    double g = oracle_answer(&c, &want);
    ck_assert(g > 1);
    ck_assert_int_eq(system("rm -rf " T "/question"), 0);
    ck_assert_int_eq(run("run campaigns/question.xml -q -o", T "/question"),
                     0);
    char *an = tu_slurp(T "/question/analysis.json", NULL);
    cJSON *j = cJSON_Parse(an);
    const cJSON *it = item(cJSON_GetObjectItemCaseSensitive(j, "aggregates"),
                           "geomean_speedup");
    ck_assert_msg(fabs(num(it, "best.value") - g) < 1e-9 * g, "%.17g vs "
                  "%.17g", num(it, "best.value"), g);
    ck_assert(num(it, "best.area_mm2") <= 600);
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        char path[96];
        snprintf(path, sizeof path, "best.config.%s",
                 space_knob_get(k)->name);
        if (k != KNOB_SCHEDULER)
            NEAR(num(it, path), space_get(&want, k));
    }
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(it, "best"), "config");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cfg, "scheduler")
                         ->valuestring,
                     space_sched_name(space_get(&want, KNOB_SCHEDULER)));
    ck_assert(util_path_exists(T "/question/figures/line_n_clusters_ipc.svg"));
    ck_assert(util_path_exists(T "/question/figures/bars_ipc.svg"));
    ck_assert(util_path_exists(T "/question/figures/bars_aggregates.svg"));
    /* the answer on one page: the page after the title page */
    char *text = pdf_text(T "/question/report.pdf");
    ck_assert_msg(strstr(text, "Across workloads: the best configuration "
                         "per aggregate"), "no answer page");
    free(text);
    cJSON_Delete(j);
    free(an);
    camp_free(&c);
}
END_TEST

static Suite *aggregate_suite(void)
{
    Suite *s = suite_create("aggregate");
    TCase *tc = tcase_create("aggregate");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, aggregate_maths);
    tcase_add_test(tc, normalise_by_baseline);
    tcase_add_test(tc, dropped_configs_counted);
    tcase_add_test(tc, absent_aggregate_is_null);
    tcase_add_test(tc, front_over_aggregates);
    tcase_add_test(tc, infeasible_configs_dropped);
    tcase_add_test(tc, aggregate_over_derived_metric);
    tcase_add_test(tc, bad_declarations_name_file_line);
    tcase_add_test(tc, run_writes_aggregates_and_page);
    tcase_add_test(tc, no_aggregates_no_page);
    tcase_add_test(tc, question_campaign_answers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(aggregate_suite());
}
