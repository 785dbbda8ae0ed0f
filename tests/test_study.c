/* test_study: analysis.json's front quality, sensitivity and strategy
 * study end to end through ./gpudse on a 48-point space — keys and their
 * invariants (ratios within 0..1, quartiles ordered, budgets kept), the
 * exhaustive reference from the journal and from the embedded model,
 * byte-identical output when the journal is reordered, and <study> errors
 * naming FILE:LINE. Checks mechanisms, not model numbers. */
#include "testutil.h"

#include <math.h>
#include <sys/wait.h>
#include <cjson/cJSON.h>
#include "study.h"

#define T "tests/tmp/study"

#define CAMPAIGN_FMT \
    "<?xml version=\"1.0\"?>\n" \
    "<campaign name=\"%s\" seed=\"3\">\n" \
    "  <simulator backend=\"analytic\"/>\n" \
    "  <workloads><workload name=\"sgemm\"/></workloads>\n" \
    "  <space>\n" \
    "    <knob name=\"n_clusters\" values=\"8 15 30 60\"/>\n" \
    "    <knob name=\"cores_per_cluster\" values=\"1 2 4\"/>\n" \
    "    <knob name=\"l1_sets\" values=\"16 32 64 128\"/>\n" \
    "  </space>\n" \
    "  <objectives><maximize metric=\"ipc\"/><minimize metric=\"area_mm2\"/></objectives>\n" \
    "  <search strategy=\"%s\" budget=\"%d\">%s</search>\n" \
    "  <execution jobs=\"1\"/>\n" \
    "  <report formats=\"svg\"/>\n" \
    "</campaign>\n"

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_campaign(const char *path, const char *name,
                           const char *strategy, int budget, const char *study)
{
    char text[4096];
    snprintf(text, sizeof text, CAMPAIGN_FMT, name, strategy, budget, study);
    tu_write(path, text);
}

static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no %s", path);
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cJSON *j = cJSON_Parse(buf);
    ck_assert_msg(j != NULL, "%s is not JSON", path);
    return j;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(v != NULL, "missing key \"%s\"", key);
    return v;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "\"%s\" is not a number", key);
    return v->valuedouble;
}

static void run_campaign(const char *name, const char *strategy, int budget,
                         const char *study)
{
    char cmd[1024], path[256];
    snprintf(path, sizeof path, T "/%s.xml", name);
    write_campaign(path, name, strategy, budget, study);
    snprintf(cmd, sizeof cmd, "rm -rf " T "/%s-run && %s run %s -o " T
             "/%s-run -q", name, tu_bin(), path, name);
    ck_assert_int_eq(sh(cmd), 0);
}

START_TEST(quality_sensitivity_and_study_keys)
{
    run_campaign("st", "random", 12,
                 "<study strategies=\"random nsga2 surrogate agent\" "
                 "seeds=\"3\"/>");
    cJSON *a = load_json(T "/st-run/analysis.json");
    const cJSON *w = cJSON_GetArrayItem(get(a, "workloads"), 0);
    ck_assert_int_eq((int)num(w, "points"), 12);
    const cJSON *hv = get(w, "hypervolume");
    ck_assert(num(hv, "value") > 0);
    ck_assert_int_eq(cJSON_GetArraySize(get(hv, "reference_point")), 2);
    const cJSON *nm = get(hv, "normalisation");
    ck_assert_int_eq(cJSON_GetArraySize(get(nm, "min")), 2);
    ck_assert_int_eq(cJSON_GetArraySize(get(nm, "max")), 2);
    /* 12 of 48 points: the reference comes from the embedded model */
    const cJSON *ref = get(w, "reference");
    ck_assert_ptr_nonnull(strstr(get(ref, "source")->valuestring, "model"));
    double ratio = num(ref, "hv_ratio");
    ck_assert(ratio > 0 && ratio <= 1 + 1e-12);
    ck_assert(num(ref, "adrs") >= 0 && num(ref, "igd") >= 0);
    ck_assert_double_eq_tol(num(hv, "value") / num(ref, "hypervolume"),
                            ratio, 1e-12);
    /* sensitivity: both objectives, the three knobs that vary */
    const cJSON *sens = get(w, "sensitivity");
    for (int m = 0; m < 2; m++) {
        const cJSON *s = get(sens, m ? "area_mm2" : "ipc");
        ck_assert_int_eq(cJSON_GetArraySize(get(s, "knobs")), 3);
        ck_assert(cJSON_GetArraySize(get(s, "interactions")) <= 3);
        const cJSON *k0 = cJSON_GetArrayItem(get(s, "knobs"), 0);
        ck_assert_str_eq(get(k0, "knob")->valuestring, "n_clusters");
        ck_assert_int_eq(cJSON_GetArraySize(get(k0, "levels")), 4);
        get(s, "r2");
        get(s, "cv_rmse");
    }
    /* study: 4 strategies x 3 seeds, 12 evaluations each */
    const cJSON *st = get(w, "study");
    ck_assert_int_eq(cJSON_GetArraySize(get(st, "seeds")), 3);
    const cJSON *ss = get(st, "strategies");
    ck_assert_int_eq(cJSON_GetArraySize(ss), 4);
    const cJSON *s;
    cJSON_ArrayForEach(s, ss) {
        ck_assert_int_eq((int)num(s, "evaluations"), 12);
        const cJSON *med = get(s, "median"), *q1 = get(s, "q1"),
                    *q3 = get(s, "q3");
        ck_assert_int_eq(cJSON_GetArraySize(med), 12);
        double prev = 0;
        for (int i = 0; i < 12; i++) {
            double a1 = cJSON_GetArrayItem(q1, i)->valuedouble;
            double m = cJSON_GetArrayItem(med, i)->valuedouble;
            double a3 = cJSON_GetArrayItem(q3, i)->valuedouble;
            ck_assert(a1 <= m && m <= a3);
            ck_assert(m >= prev - 1e-12 && m <= 1 + 1e-6);  /* never drops */
            prev = m;
        }
        get(get(s, "evals_to_95"), "median");
        ck_assert_int_eq(cJSON_GetArraySize(get(get(s, "evals_to_99"),
                                                "per_seed")), 3);
    }
    cJSON_Delete(a);
}
END_TEST

/* docs/strategies.md: the median counts an unreached seed as +infinity and
 * is null only when fewer than half the seeds reached the target. */
START_TEST(reach_median_counts_unreached_as_infinite)
{
    double sgemm[5] = {172, 204, NAN, 261, NAN};   /* 3 of 5 reached */
    ck_assert_double_eq(study_reach_median(sgemm, 5), 261);
    double two[5] = {172, NAN, NAN, 261, NAN};     /* 2 of 5 */
    ck_assert(isnan(study_reach_median(two, 5)));
    double half[4] = {10, NAN, 30, NAN};           /* exactly half */
    ck_assert_double_eq(study_reach_median(half, 4), 30);
    double all[4] = {4, 1, 3, 2};
    ck_assert_double_eq(study_reach_median(all, 4), 2.5);
    double one[1] = {NAN};
    ck_assert(isnan(study_reach_median(one, 1)));
}
END_TEST

START_TEST(exhaustive_reference_from_journal)
{
    run_campaign("ex", "exhaustive", 48, "");
    cJSON *a = load_json(T "/ex-run/analysis.json");
    const cJSON *w = cJSON_GetArrayItem(get(a, "workloads"), 0);
    const cJSON *ref = get(w, "reference");
    ck_assert_ptr_nonnull(strstr(get(ref, "source")->valuestring, "journal"));
    ck_assert_double_eq_tol(num(ref, "hv_ratio"), 1, 1e-12);
    ck_assert_double_eq_tol(num(ref, "adrs"), 0, 1e-12);
    ck_assert_double_eq_tol(num(ref, "igd"), 0, 1e-12);
    ck_assert(cJSON_GetObjectItemCaseSensitive(w, "study") == NULL);
    cJSON_Delete(a);
}
END_TEST

START_TEST(analysis_independent_of_journal_order)
{
    run_campaign("ord", "nsga2", 20,
                 "<study strategies=\"lhs agent\" seeds=\"2\"/>");
    ck_assert_int_eq(sh("cp " T "/ord-run/analysis.json " T "/ord-a.json && "
                        "tac " T "/ord-run/results.jsonl > " T "/ord-r && "
                        "mv " T "/ord-r " T "/ord-run/results.jsonl"), 0);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s analyze " T "/ord-run >/dev/null", tu_bin());
    ck_assert_int_eq(sh(cmd), 0);
    ck_assert_int_eq(sh("cmp -s " T "/ord-a.json " T
                        "/ord-run/analysis.json"), 0);
}
END_TEST

START_TEST(study_errors_name_the_line)
{
    write_campaign(T "/bad1.xml", "bad1", "random", 10,
                   "\n    <study strategies=\"random anneal\"/>");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s validate " T "/bad1.xml 2>" T "/bad1.err",
             tu_bin());
    ck_assert_int_eq(sh(cmd), 2);
    ck_assert_int_eq(sh("grep -q 'bad1.xml:12: unknown search strategy "
                        "\"anneal\"' " T "/bad1.err"), 0);
    write_campaign(T "/bad2.xml", "bad2", "random", 10,
                   "<study strategies=\"lhs lhs\"/>");
    snprintf(cmd, sizeof cmd, "%s validate " T "/bad2.xml 2>" T "/bad2.err",
             tu_bin());
    ck_assert_int_eq(sh(cmd), 2);
    ck_assert_int_eq(sh("grep -q 'listed twice' " T "/bad2.err"), 0);
    write_campaign(T "/bad3.xml", "bad3", "surogate", 10, "");
    snprintf(cmd, sizeof cmd, "%s validate " T "/bad3.xml 2>" T "/bad3.err",
             tu_bin());
    ck_assert_int_eq(sh(cmd), 2);
    ck_assert_int_eq(sh("grep -q 'known: exhaustive, random, lhs, nsga2, "
                        "surrogate, agent' " T "/bad3.err"), 0);
}
END_TEST

int main(void)
{
    if (sh("mkdir -p " T) != 0)
        return EXIT_FAILURE;
    Suite *s = suite_create("study");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, quality_sensitivity_and_study_keys);
    tcase_add_test(t, reach_median_counts_unreached_as_infinite);
    tcase_add_test(t, exhaustive_reference_from_journal);
    tcase_add_test(t, analysis_independent_of_journal_order);
    tcase_add_test(t, study_errors_name_the_line);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
