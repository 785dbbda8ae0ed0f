/* test_derived: derived metrics (<derived>) and constraints (<constraint>)
 * — their campaign errors at FILE:LINE, absent inputs and divisions by zero
 * giving an absent metric, a derived objective in the journal, CSV and
 * analysis.json, constrained fronts and their counts, NSGA-II's
 * constrained domination and the surrogate skipping predicted-infeasible
 * configs. */
#include <math.h>
#include "testrun.h"
#include "campaign.h"
#include "derived.h"
#include "preflight.h"
#include "nsga2.h"
#include "strategy.h"
#include "model.h"
#include "layout.h"
#include <cjson/cJSON.h>

/* The campaign text of a test, written to T/NAME.xml; its path. */
static const char *write_camp(const char *name, const char *text)
{
    char sub[128];
    snprintf(sub, sizeof sub, "/%s", name);
    const char *path = tp(sub);
    tu_write(path, text);
    return path;
}

static const char *head =
    "<campaign name=\"t\" seed=\"7\">\n"                              /* 1 */
    "  <workloads><workload name=\"vecadd\"/></workloads>\n";         /* 2 */

/* Load head + body; expect GD_EINPUT at FILE:line naming want. */
static void expect_error(const char *name, const char *body, int line,
                         const char *want)
{
    char text[8192], prefix[600];
    snprintf(text, sizeof text, "%s%s", head, body);
    const char *path = write_camp(name, text);
    camp_campaign *c = calloc(1, sizeof *c);
    gd_err err = {0, ""};
    ck_assert_int_eq(preflight_load(path, c, &err), GD_EINPUT);
    snprintf(prefix, sizeof prefix, "%s:%d:", path, line);
    ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0,
                  "expected prefix '%s' in '%s'", prefix, err.msg);
    ck_assert_msg(strstr(err.msg, want) != NULL, "expected '%s' in '%s'",
                  want, err.msg);
    free(c);
}

static const char *tail_ =
    "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
    "  <search strategy=\"random\" budget=\"5\"/>\n"
    "</campaign>\n";

START_TEST(expression_errors_name_the_line)
{
    char b[2048];
    snprintf(b, sizeof b, "  <derived name=\"x\" expr=\"ipc /\"/>\n%s", tail_);
    expect_error("bad_expr.xml", b, 3, "does not parse");
    snprintf(b, sizeof b, "  <derived name=\"x\" expr=\"ipc @ 2\"/>\n%s",
             tail_);
    expect_error("bad_char.xml", b, 3, "character '@' is not allowed");
    snprintf(b, sizeof b, "\n  <derived name=\"x\" expr=\"ipc / aera_mm2\"/>"
             "\n%s", tail_);
    expect_error("unknown_name.xml", b, 4,
                 "unknown metric \"aera_mm2\" (a metric of the backend");
    expect_error("unknown_hint.xml", b, 4, "did you mean \"area_mm2\"?");
    snprintf(b, sizeof b, "  <derived name=\"ipc\" expr=\"ipc * 2\"/>\n%s",
             tail_);
    expect_error("clash.xml", b, 3, "has the name of another metric");
    snprintf(b, sizeof b, "  <derived name=\"sin\" expr=\"ipc * 2\"/>\n%s",
             tail_);
    expect_error("reserved.xml", b, 3, "not a constant or function");
    snprintf(b, sizeof b, "  <derived name=\"k\" expr=\"2 * 3\"/>\n%s",
             tail_);
    expect_error("constant.xml", b, 3, "reads no metric");
    /* a later derived metric may read an earlier one, not the reverse */
    snprintf(b, sizeof b, "  <derived name=\"a\" expr=\"b * 2\"/>\n"
             "  <derived name=\"b\" expr=\"ipc * 2\"/>\n%s", tail_);
    expect_error("order.xml", b, 3, "unknown metric \"b\"");
}
END_TEST

START_TEST(constraint_errors_name_the_line)
{
    char b[2048];
    const char *end = "  <search strategy=\"random\" budget=\"5\"/>\n"
                      "</campaign>\n";
    snprintf(b, sizeof b, "  <objectives><maximize metric=\"ipc\"/>\n"
             "    <constraint metric=\"area_mm\" max=\"600\"/></objectives>\n%s",
             end);
    expect_error("c_unknown.xml", b, 4, "did you mean \"area_mm2\"?");
    snprintf(b, sizeof b, "  <objectives><maximize metric=\"ipc\"/>\n"
             "    <constraint metric=\"area_mm2\"/></objectives>\n%s", end);
    expect_error("c_nobound.xml", b, 4, "needs min=, max= or both");
    snprintf(b, sizeof b, "  <objectives><maximize metric=\"ipc\"/>\n"
             "    <constraint metric=\"area_mm2\" min=\"700\" max=\"600\"/>"
             "</objectives>\n%s", end);
    expect_error("c_empty.xml", b, 4, "min 700 is above max 600");
    snprintf(b, sizeof b, "  <objectives><maximize metric=\"ipc\"/>\n"
             "    <constraint metric=\"area_mm2\" max=\"lots\"/>"
             "</objectives>\n%s", end);
    expect_error("c_nan.xml", b, 4, "max= must be a number");
    snprintf(b, sizeof b, "  <objectives><maximize metric=\"ipc\"/>\n"
             "    <constraint metric=\"area_mm2\" max=\"600\"/>\n"
             "    <constraint metric=\"area_mm2\" min=\"60\"/>"
             "</objectives>\n%s", end);
    expect_error("c_twice.xml", b, 5, "constrained twice");
}
END_TEST

/* A metric the backend does not produce stays an error, for an objective
 * on a derived metric (through its inputs) and for a constraint. */
START_TEST(unproduced_inputs_are_errors)
{
    /* lines: 1 campaign, 2-3 simulator, 4 workloads, 5 derived, 6
     * objective, 7 constraint */
#define CMD_CAMP \
        "<campaign name=\"t\" seed=\"7\">\n" \
        "  <simulator backend=\"command\"><command>true</command>\n" \
        "    <metric name=\"ipc\" regex=\"ipc=([0-9.]+)\"/></simulator>\n" \
        "  <workloads><workload name=\"w\"/></workloads>\n" \
        "  <derived name=\"ppw\" expr=\"ipc / power_w\"/>\n" \
        "  <objectives><maximize metric=\"%s\"/>\n" \
        "    %s</objectives>\n" \
        "  <search strategy=\"random\" budget=\"2\"/>\n" \
        "</campaign>\n"
    char text[4096], prefix[600];
    struct { const char *obj, *cons, *want; int line; } cases[] = {
        {"ppw", "", "objective on ppw, which reads unknown metric "
         "\"power_w\" (the command backend does not produce it)", 6},
        {"ipc", "<constraint metric=\"power_w\" max=\"3\"/>",
         "constraint on unknown metric \"power_w\"", 7},
    };
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof text, CMD_CAMP, cases[i].obj, cases[i].cons);
        const char *path = write_camp(i ? "p1.xml" : "p0.xml", text);
        camp_campaign *c = calloc(1, sizeof *c);
        gd_err err = {0, ""};
        ck_assert_int_eq(preflight_load(path, c, &err), GD_EINPUT);
        snprintf(prefix, sizeof prefix, "%s:%d:", path, cases[i].line);
        ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0,
                      "expected '%s' in '%s'", prefix, err.msg);
        ck_assert_msg(strstr(err.msg, cases[i].want), "expected '%s' in "
                      "'%s'", cases[i].want, err.msg);
        free(c);
    }
}
END_TEST

START_TEST(absent_input_and_division_by_zero_are_absent)
{
    drv_metric d[2];
    char why[256];
    memset(d, 0, sizeof d);
    util_strlcpy(d[0].name, "ratio", sizeof d[0].name);
    util_strlcpy(d[0].expr, "ipc / area_mm2", sizeof d[0].expr);
    util_strlcpy(d[1].name, "twice", sizeof d[1].name);
    util_strlcpy(d[1].expr, "2 * ratio", sizeof d[1].expr);
    ck_assert_int_eq(drv_compile(&d[0], why, sizeof why), 0);
    ck_assert_int_eq(drv_compile(&d[1], why, sizeof why), 0);
    ck_assert_int_eq(d[0].ninputs, 2);
    met_set m;
    double v;
    memset(&m, 0, sizeof m);
    met_put(&m, "ipc", 300);
    met_put(&m, "area_mm2", 600);
    ck_assert_int_eq(drv_apply(d, 2, &m), 0);
    ck_assert(met_get(&m, "ratio", &v) == 0 && v == 0.5);
    ck_assert(met_get(&m, "twice", &v) == 0 && v == 1.0);
    ck_assert_int_eq(drv_why_absent(&d[0], &m), DRV_OK);
    /* division by zero: absent (not inf, not 0), and said why; a metric
     * reading it is absent for lack of an input */
    met_put(&m, "area_mm2", 0);
    drv_apply(d, 2, &m);
    ck_assert_int_ne(met_get(&m, "ratio", &v), 0);
    ck_assert_int_ne(met_get(&m, "twice", &v), 0);
    ck_assert_int_eq(drv_why_absent(&d[0], &m), DRV_NOT_FINITE);
    ck_assert_int_eq(drv_why_absent(&d[1], &m), DRV_NO_INPUT);
    /* an input absent: absent */
    memset(&m, 0, sizeof m);
    met_put(&m, "ipc", 300);
    drv_apply(d, 2, &m);
    ck_assert_int_ne(met_get(&m, "ratio", &v), 0);
    ck_assert_int_eq(drv_why_absent(&d[0], &m), DRV_NO_INPUT);
    ck_assert_int_eq(m.n, 1);
    drv_free(&d[0]);
    drv_free(&d[1]);
}
END_TEST

START_TEST(violation_is_relative_and_summed)
{
    cons_bound b[2];
    memset(b, 0, sizeof b);
    util_strlcpy(b[0].metric, "area_mm2", sizeof b[0].metric);
    b[0].has_max = 1;
    b[0].max = 600;
    util_strlcpy(b[1].metric, "ipc", sizeof b[1].metric);
    b[1].has_min = 1;
    b[1].min = 100;
    met_set m;
    double v;
    memset(&m, 0, sizeof m);
    met_put(&m, "area_mm2", 600);
    met_put(&m, "ipc", 100);
    ck_assert_int_eq(cons_feasible(b, 2, &m, &v), 1);
    ck_assert(v == 0);
    met_put(&m, "area_mm2", 900);
    met_put(&m, "ipc", 50);
    ck_assert_int_eq(cons_feasible(b, 2, &m, &v), 0);
    ck_assert_msg(fabs(v - (0.5 + 0.5)) < 1e-12, "violation %g", v);
    met_del(&m, "ipc");   /* unknown feasibility counts as infeasible */
    ck_assert_int_eq(cons_feasible(b, 2, &m, &v), 0);
    ck_assert(isinf(v));
}
END_TEST

START_TEST(nsga2_constrained_domination)
{
    /* two objectives, minimised. 0: feasible but dominated by everything;
     * 1, 2: infeasible and non-dominated, 2 violating less; 3: feasible
     * and dominating 0 */
    double pts[] = {10, 10, 0, 0, 1, 1, 5, 5};
    double viol[] = {0, 2.0, 0.5, 0};
    int rank[4];
    ck_assert_int_ge(nsga2_sort_constrained(pts, viol, 4, 2, rank), 0);
    ck_assert_int_eq(rank[3], 0);   /* feasible and best */
    ck_assert_int_eq(rank[0], 1);   /* feasible beats infeasible */
    ck_assert_int_eq(rank[2], 2);   /* smaller violation first */
    ck_assert_int_eq(rank[1], 3);
    /* without violations: plain Pareto ranks */
    ck_assert_int_ge(nsga2_sort_constrained(pts, NULL, 4, 2, rank), 0);
    ck_assert_int_eq(rank[1], 0);
    ck_assert_int_eq(rank[2], 1);
    /* equal violations: neither dominates, whatever the objectives */
    double same[] = {0, 1.0, 0.25, 1.0};
    ck_assert_int_ge(nsga2_sort_constrained(pts, same, 4, 2, rank), 0);
    ck_assert_int_eq(rank[0], 0);
    ck_assert_int_eq(rank[2], 1);
    ck_assert_int_eq(rank[1], rank[3]);
}
END_TEST

/* After its start design, strategy name proposes only configs the area
 * model says meet area_mm2 <= 500 (while it has such moves); returns how
 * many adaptive proposals it made and *bad how many missed the bound. */
static size_t adaptive_over_bound(const char *name, int constrained,
                                  size_t *bad)
{
    space_def s;
    space_def_full(&s);
    camp_campaign *c = calloc(1, sizeof *c);
    c->ncons = 1;
    util_strlcpy(c->cons[0].metric, "area_mm2", sizeof c->cons[0].metric);
    c->cons[0].has_max = 1;
    c->cons[0].max = 500;
    strat *st;
    gd_err e = {0, ""};
    ck_assert_int_eq(strat_new(name, &s, 80, 3, &st, &e), GD_OK);
    camp_objective o = {"ipc", 1};
    ck_assert_int_eq(strat_set_objectives(st, &o, 1, &e), GD_OK);
    if (constrained)
        strat_set_constraints(st, c);
    strat_set_batch(st, 4);
    gpu_config b[128];
    size_t n, round = 0, later = 0;
    *bad = 0;
    while ((n = strat_next(st, b, 128)) > 0) {
        for (size_t i = 0; i < n; i++) {
            store_record r;
            memset(&r, 0, sizeof r);
            r.status = ST_OK;
            r.cfg = b[i];
            double area = model_area_mm2(&b[i]);
            /* more area, more ipc: the unconstrained optimum is the
             * largest config, far outside the bound */
            met_put(&r.metrics, "ipc", area * (1 + 0.01 * (double)i));
            met_put(&r.metrics, "area_mm2", area);
            util_strlcpy(r.bottleneck, "compute", sizeof r.bottleneck);
            if (round > 0) {
                later++;
                *bad += area > 500;
            }
            strat_observe(st, &b[i], &r);
        }
        round++;
    }
    strat_free(st);
    free(c);
    return later;
}

START_TEST(surrogate_and_agent_skip_predicted_infeasible)
{
    const char *names[] = {"surrogate", "agent"};
    for (int i = 0; i < 2; i++) {
        size_t bad, later = adaptive_over_bound(names[i], 1, &bad);
        ck_assert_uint_gt(later, 20);
        ck_assert_msg(bad == 0, "%s: %zu of %zu adaptive proposals exceed "
                      "the area bound", names[i], bad, later);
        /* the same search without the constraint does go over it */
        adaptive_over_bound(names[i], 0, &bad);
        ck_assert_msg(bad > 0, "%s: the test's bound binds nothing",
                      names[i]);
    }
}
END_TEST

/* ---- whole runs ---- */

/* DIR/NAME's bytes (tu_slurp). */
static char *slurp(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tu_slurp(path, NULL);
}

static cJSON *workload0(const char *dir, cJSON **root)
{
    char *t = slurp(dir, "analysis.json");
    *root = cJSON_Parse(t);
    free(t);
    ck_assert(*root != NULL);
    cJSON *w = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(*root, "workloads"), 0);
    ck_assert(w != NULL);
    return w;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    ck_assert_msg(cJSON_IsNumber(v), "no number \"%s\"", name);
    return v->valuedouble;
}

START_TEST(derived_objective_and_constraint_in_a_run)
{
    /* a layout may name the derived metric as a figure's metric */
    write_camp("layout.xml",
        "<report>\n"
        "  <workloads><figure kind=\"pareto\"/>"
        "<figure kind=\"heatmap\" metrics=\"ipc_per_mm2\"/></workloads>\n"
        "  <figure kind=\"line\" knob=\"n_clusters\" "
        "metric=\"ipc_per_mm2\"/>\n"
        "</report>\n");
    const char *camp = write_camp("run.xml",
        "<campaign name=\"dc\" seed=\"1\">\n"
        "  <workloads><workload name=\"sgemm\"/></workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"8 15 30 60\"/>\n"
        "    <knob name=\"n_mem\" values=\"4 6 8 12\"/></space>\n"
        "  <derived name=\"ipc_per_mm2\" expr=\"ipc / area_mm2\" "
        "unit=\"1/mm²\"/>\n"
        "  <objectives><maximize metric=\"ipc_per_mm2\"/>"
        "<minimize metric=\"power_w\"/>\n"
        "    <constraint metric=\"area_mm2\" max=\"600\"/></objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"16\"/>\n"
        "  <report formats=\"svg\" layout=\"layout.xml\"/>\n"
        "</campaign>\n");
    const char *dir = tp("/run");
    gd_err err;
    ck_assert_msg(run(camp, dir, &err, NULL, NULL) == 0, "%s", err.msg);
    size_t n, over = 0;
    store_record *r = load(dir, &n);
    ck_assert_uint_eq(n, 16);
    for (size_t i = 0; i < n; i++) {
        double ipc, area, d;
        ck_assert(met_get(&r[i].metrics, "ipc", &ipc) == 0);
        ck_assert(met_get(&r[i].metrics, "area_mm2", &area) == 0);
        ck_assert_msg(met_get(&r[i].metrics, "ipc_per_mm2", &d) == 0,
                      "derived metric not journaled");
        ck_assert(fabs(d - ipc / area) <= 1e-12 * d);
        over += area > 600;
    }
    ck_assert_uint_gt(over, 0);
    ck_assert_uint_lt(over, n);
    cJSON *root, *w = workload0(dir, &root);
    ck_assert_int_eq((int)num(w, "infeasible"), (int)over);
    ck_assert_int_eq((int)num(w, "feasible"), (int)(n - over));
    const cJSON *p, *front = cJSON_GetObjectItemCaseSensitive(w, "front");
    ck_assert_int_gt(cJSON_GetArraySize(front), 0);
    cJSON_ArrayForEach(p, front) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "metrics");
        ck_assert_msg(num(m, "area_mm2") <= 600, "infeasible point on the "
                      "front");
        ck_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(
            m, "ipc_per_mm2")));
    }
    cJSON_Delete(root);
    char *csv = slurp(dir, "results.csv");
    char *nl = strchr(csv, '\n');
    ck_assert(nl != NULL);
    *nl = '\0';
    ck_assert_msg(strstr(csv, ",ipc_per_mm2") != NULL, "no CSV column: %s",
                  csv);
    free(csv);
    /* the derived axis with its unit, and the bound on the area axis */
    char *svg = slurp(dir, "figures/heatmap_sgemm_ipc_per_mm2.svg");
    free(svg);
    gd_err e2 = {0, ""};
    rep_layout *lay = malloc(sizeof *lay);
    ck_assert_int_eq(rep_layout_load(tp("/layout.xml"), lay, &e2),
                     GD_EINPUT);   /* without the campaign: unknown */
    ck_assert_msg(strstr(e2.msg, "unknown metric 'ipc_per_mm2'"), "%s",
                  e2.msg);
    free(lay);
    free(r);
}
END_TEST

/* A command backend: a division by zero and an absent optional input make
 * the derived metrics absent and counted in analysis.json; a campaign
 * without constraints has no feasible/infeasible counts. */
START_TEST(absent_derived_in_a_run)
{
    const char *camp = write_camp("zero.xml",
        "<campaign name=\"z\" seed=\"1\">\n"
        "  <simulator backend=\"command\">\n"
        "    <command>printf 'ipc = %s\\nzero = 0\\n' {n_clusters}</command>\n"
        "    <metric name=\"ipc\" regex=\"ipc = ([0-9.]+)\"/>\n"
        "    <metric name=\"zero\" regex=\"zero = ([0-9.]+)\"/>\n"
        "    <metric name=\"opt\" regex=\"opt = ([0-9.]+)\" "
        "required=\"false\"/>\n"
        "  </simulator>\n"
        "  <workloads><workload name=\"w\"/></workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"8 15\"/></space>\n"
        "  <derived name=\"per_zero\" expr=\"ipc / zero\"/>\n"
        "  <derived name=\"withopt\" expr=\"ipc * opt\"/>\n"
        "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
        "  <execution jobs=\"1\"/>\n"
        "  <report formats=\"svg\"/>\n"
        "</campaign>\n");
    const char *dir = tp("/zero");
    gd_err err;
    ck_assert_msg(run(camp, dir, &err, NULL, NULL) == 0, "%s", err.msg);
    size_t n;
    store_record *r = load(dir, &n);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        double v;
        ck_assert_int_eq(r[i].status, ST_OK);
        ck_assert(met_get(&r[i].metrics, "ipc", &v) == 0);
        ck_assert_int_ne(met_get(&r[i].metrics, "per_zero", &v), 0);
        ck_assert_int_ne(met_get(&r[i].metrics, "withopt", &v), 0);
    }
    free(r);
    char *journal = slurp(dir, "results.jsonl");
    ck_assert_msg(!strstr(journal, "\"per_zero\"")
                  && !strstr(journal, "\"withopt\""),
                  "an absent derived metric was written: %s", journal);
    free(journal);
    cJSON *root, *w = workload0(dir, &root);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(w, "derived_absent");
    ck_assert_int_eq((int)num(cJSON_GetObjectItemCaseSensitive(a, "per_zero"),
                              "not_finite"), 2);
    ck_assert_int_eq((int)num(cJSON_GetObjectItemCaseSensitive(a, "withopt"),
                              "no_input"), 2);
    ck_assert(!cJSON_GetObjectItemCaseSensitive(w, "feasible"));
    ck_assert(!cJSON_GetObjectItemCaseSensitive(w, "infeasible"));
    cJSON_Delete(root);
}
END_TEST

/* A regression threshold may name a derived metric. */
START_TEST(threshold_on_derived_metric)
{
    char text[2048];
    snprintf(text, sizeof text, "%s"
             "  <derived name=\"q\" expr=\"ipc * 2\"/>\n"
             "  <objectives><maximize metric=\"q\"/></objectives>\n"
             "  <search strategy=\"random\" budget=\"3\"/>\n"
             "  <regression><threshold metric=\"q\" relative=\"1\"/>"
             "</regression>\n"
             "</campaign>\n", head);
    const char *path = write_camp("th.xml", text);
    camp_campaign *c = calloc(1, sizeof *c);
    gd_err err = {0, ""};
    ck_assert_msg(preflight_load(path, c, &err) == GD_OK, "%s", err.msg);
    ck_assert_int_eq(c->nderived, 1);
    camp_free(c);
    free(c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("derived");
    TCase *t = tcase_create("core");
    tcase_add_test(t, expression_errors_name_the_line);
    tcase_add_test(t, constraint_errors_name_the_line);
    tcase_add_test(t, unproduced_inputs_are_errors);
    tcase_add_test(t, absent_input_and_division_by_zero_are_absent);
    tcase_add_test(t, violation_is_relative_and_summed);
    tcase_add_test(t, nsga2_constrained_domination);
    tcase_add_test(t, surrogate_and_agent_skip_predicted_infeasible);
    tcase_add_test(t, derived_objective_and_constraint_in_a_run);
    tcase_add_test(t, absent_derived_in_a_run);
    tcase_add_test(t, threshold_on_derived_metric);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_main("derived", suite);
}
