/* test_trust: the answers a run gives can be trusted, end to end through
 * the gpudse binary — a command backend reporting only ipc and cycles gets
 * no annotation built on metrics it lacks (issue 24 item 1); random, lhs
 * and nsga2 evaluate the baseline, and a space without it says so on
 * stderr, in manifest.json and run.log (item 2); run.log's closing line and
 * the progress line agree with the exit code and the journal on a resume
 * (item 5); campaigns/nightly.sh writes junit.xml every night, --accept
 * promotes a run deliberately, KEEP prunes old runs, and make install
 * installs the campaigns and the script (items 13 and 4); README, docs,
 * help texts, templates and messages name only paths a clone has
 * (tests/doc_paths.sh, item 7). */
#include "testrun.h"
#include <sys/stat.h>
#include <cjson/cJSON.h>
#include "util.h"

#define T "tests/tmp/trust"

static cJSON *load_json(const char *path)
{
    char *s = tu_slurp(path, NULL);
    cJSON *j = cJSON_Parse(s);
    free(s);
    ck_assert_msg(j != NULL, "%s: not JSON", path);
    return j;
}

/* A command backend whose simulator prints only IPC and cycles and fails
 * (exit 1) at n_clusters=8. */
static void write_sparse_campaign(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sim.sh", dir);
    tu_write(path, "#!/bin/sh\n[ \"$1\" = 8 ] && { echo boom >&2; exit 1; }\n"
             "echo \"IPC = $(( $1 * 2 )).5\"\necho \"cycles = $(( 1000 / $1 ))\"\n");
    chmod(path, 0755);
    snprintf(path, sizeof path, "%s/sparse.xml", dir);
    tu_write(path,
             "<campaign name=\"sparse\" seed=\"1\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>{campaign_dir}/sim.sh {n_clusters}</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC\\s*=\\s*([0-9.]+)\"/>\n"
             "    <metric name=\"cycles\" regex=\"cycles\\s*=\\s*([0-9]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"app\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"8 15 30 60\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/><minimize "
             "metric=\"cycles\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"4\"/>\n"
             "  <execution jobs=\"2\" timeout=\"20\" retries=\"0\"/>\n"
             "</campaign>\n");
}

/* The last line of run.log holding "finished:". */
static void last_finished(const char *dir, char *out, size_t n)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "grep 'finished:' %s/run.log | tail -1", dir);
    capture(cmd, out, n);
}

START_TEST(sparse_metrics_are_not_facts)
{
    const char *dir = T "/sparse-run";
    ck_assert_int_eq(shf("rm -rf " T " && mkdir -p " T), 0);
    write_sparse_campaign(T);
    /* one of four jobs fails: exit 1, and run.log says rc 1 */
    ck_assert_int_eq(shf("%s run " T "/sparse.xml -o %s -q 2>" T "/err1.txt",
                         tu_bin(), dir), 1);
    char line[512];
    last_finished(dir, line, sizeof line);
    ck_assert_msg(strstr(line, "finished: ok 3 failed 1 rc 1"), "%s", line);
    /* the annotations judge nothing the backend did not measure */
    char *a = tu_slurp(T "/sparse-run/annotations.json", NULL);
    static const char *const never[] = {
        "Occupancy is 0%", "L1D miss rate 0%", "catches 100%", "0.0 mm2",
        "0.0 W", "DRAM at 0%", "occupancy 0%", "Too few warps"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        ck_assert_msg(strstr(a, never[i]) == NULL, "annotations.json says "
                      "\"%s\" of a metric never measured", never[i]);
    ck_assert_ptr_nonnull(strstr(a, "did not measure occupancy"));
    ck_assert_ptr_nonnull(strstr(a, "\"UNKNOWN\""));
    ck_assert_ptr_null(strstr(a, "\"RED\""));
    free(a);
    /* results.csv: an absent metric is an empty cell, never 0 */
    char *csv = tu_slurp(T "/sparse-run/results.csv", NULL);
    char *nl = strchr(csv, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = '\0';
    ck_assert_msg(strstr(csv, "occupancy") == NULL, "results.csv has an "
                  "occupancy column no job measured: %s", csv);
    free(csv);
    /* resume: nothing to run; the progress line counts the journal's
     * failure and run.log still says rc 1 */
    ck_assert_int_eq(shf("%s run " T "/sparse.xml -o %s 2>" T "/err2.txt",
                         tu_bin(), dir), 1);
    char *err = tu_slurp(T "/err2.txt", NULL);
    ck_assert_msg(strstr(err, "4/4 done, 1 failed"), "%s", err);
    ck_assert_msg(strstr(err, "4 already in the journal (1 failed)"), "%s",
                  err);
    free(err);
    last_finished(dir, line, sizeof line);
    ck_assert_msg(strstr(line, "finished: ok 3 failed 1 rc 1"), "%s", line);
}
END_TEST

static void write_campaign(const char *path, const char *strategy, int budget,
                           const char *clusters)
{
    char text[2048];
    snprintf(text, sizeof text,
             "<campaign name=\"b\" seed=\"3\">\n"
             "  <workloads><workload name=\"vecadd\"/></workloads>\n"
             "  <space>\n"
             "    <knob name=\"n_clusters\" values=\"%s\"/>\n"
             "    <knob name=\"n_mem\" values=\"4 6 8 12\"/>\n"
             "    <knob name=\"l1_sets\" values=\"16 32 64 128\"/>\n"
             "    <knob name=\"scheduler\" values=\"gto lrr two_level_active\"/>\n"
             "  </space>\n"
             "  <objectives><maximize metric=\"ipc\"/><minimize "
             "metric=\"area_mm2\"/></objectives>\n"
             "  <search strategy=\"%s\" budget=\"%d\"/>\n"
             "</campaign>\n", clusters, strategy, budget);
    tu_write(path, text);
}

START_TEST(every_strategy_evaluates_the_baseline)
{
    static const char *const strats[] = {"random", "lhs", "nsga2"};
    ck_assert_int_eq(shf("rm -rf " T "/b && mkdir -p " T "/b"), 0);
    for (size_t i = 0; i < 3; i++) {
        char camp[256], dir[256];
        snprintf(camp, sizeof camp, T "/b/%s.xml", strats[i]);
        snprintf(dir, sizeof dir, T "/b/%s-run", strats[i]);
        write_campaign(camp, strats[i], 12, "8 15 30 60");
        ck_assert_int_eq(shf("%s run %s -o %s -q", tu_bin(), camp, dir), 0);
        size_t n;
        store_record *r = load(dir, &n);
        ck_assert_uint_eq(n, 12);
        gpu_config base = space_baseline();
        int hits = 0;
        for (size_t j = 0; j < n; j++)
            hits += memcmp(&r[j].cfg, &base, sizeof base) == 0;
        free(r);
        ck_assert_msg(hits == 1, "%s: baseline run %d times", strats[i],
                      hits);
        char path[300];
        snprintf(path, sizeof path, "%s/analysis.json", dir);
        cJSON *a = load_json(path);
        cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "workloads"), 0);
        ck_assert_msg(cJSON_IsObject(cJSON_GetObjectItem(w, "baseline")),
                      "%s: analysis.json has no baseline", strats[i]);
        cJSON_Delete(a);
        snprintf(path, sizeof path, "%s/manifest.json", dir);
        cJSON *m = load_json(path);
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "baseline_in_space")));
        cJSON_Delete(m);
    }
    /* a space without the baseline (n_clusters 15 left out) says so */
    write_campaign(T "/b/out.xml", "random", 6, "8 30");
    ck_assert_int_eq(shf("%s run " T "/b/out.xml -o " T "/b/out-run 2>"
                         T "/b/out-err.txt", tu_bin()), 0);
    char *err = tu_slurp(T "/b/out-err.txt", NULL);
    ck_assert_msg(strstr(err, "the baseline config (n_clusters=15,"), "%s",
                  err);
    ck_assert_msg(strstr(err, "is not in this campaign's space"), "%s", err);
    free(err);
    cJSON *m = load_json(T "/b/out-run/manifest.json");
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(m, "baseline_in_space")));
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(m, "budget_exceeds_space")));
    cJSON_Delete(m);
    char *log = tu_slurp(T "/b/out-run/run.log", NULL);
    ck_assert_ptr_nonnull(strstr(log, "baseline not in the space"));
    free(log);
}
END_TEST

/* A budget larger than the space is said, on stderr, in run.log and in
 * the manifest, not clipped silently (issue 28.5). */
START_TEST(budget_larger_than_the_space_is_said)
{
    shf("rm -rf " T "/big && mkdir -p " T "/big");
    write_campaign(T "/big/big.xml", "random", 1000000, "8 15");
    ck_assert_int_eq(shf("%s run " T "/big/big.xml -o " T "/big/run 2>"
                         T "/big/err.txt", tu_bin()), 0);
    char *err = tu_slurp(T "/big/err.txt", NULL);
    ck_assert_msg(strstr(err, "the budget (1000000) is larger than the space "
                         "(96 configs)"), "%s", err);
    free(err);
    size_t n;
    free(load(T "/big/run", &n));
    ck_assert_uint_eq(n, 96);
    cJSON *m = load_json(T "/big/run/manifest.json");
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "budget_exceeds_space")));
    cJSON_Delete(m);
    char *log = tu_slurp(T "/big/run/run.log", NULL);
    ck_assert_ptr_nonnull(strstr(log, "larger than the space"));
    free(log);
}
END_TEST

/* ---- campaigns/nightly.sh (item 13) and compare --accept (item 4) ---- */

static const char nightly_campaign[] =
    "<campaign name=\"nt\" seed=\"%d\">\n"
    "  <workloads><workload name=\"dct8x8\"/></workloads>\n"
    "  <space><knob name=\"n_clusters\" values=\"8 15 30 60\"/>"
    "<knob name=\"l2_sets\" values=\"32 64 128\"/></space>\n"
    "  <objectives><maximize metric=\"ipc\"/><minimize metric=\"area_mm2\"/>"
    "</objectives>\n"
    "  <search strategy=\"random\" budget=\"6\"/>\n"
    "  <report formats=\"svg\"/>\n"
    "</campaign>\n";

static int nightly(const char *flags, const char *campaign, const char *stamp,
                   const char *keep)
{
    return shf("GPUDSE=%s CAMPAIGN=%s STAMP=%s KEEP=%s sh campaigns/nightly.sh "
               "%s " T "/nightly >>" T "/nightly.log 2>&1", tu_bin(),
               campaign, stamp, keep, flags);
}

static void expect_last_good(const char *stamp)
{
    char *g = tu_slurp(T "/nightly/LAST_GOOD", NULL);
    g[strcspn(g, "\n")] = '\0';
    ck_assert_str_eq(g, stamp);
    free(g);
}

/* junit.xml's testsuites attribute name as a number. */
static int junit_attr(const char *name)
{
    char *j = tu_slurp(T "/nightly/junit.xml", NULL);
    char key[64];
    snprintf(key, sizeof key, "%s=\"", name);
    char *at = strstr(j, key);
    ck_assert_msg(at != NULL, "junit.xml has no %s", name);
    int v = atoi(at + strlen(key));
    free(j);
    return v;
}

static int run_dirs(void)
{
    char out[64];
    capture("ls -d " T "/nightly/*/ | wc -l", out, sizeof out);
    return atoi(out);
}

START_TEST(nightly_junit_accept_and_keep)
{
    char text[2048];
    ck_assert_int_eq(shf("rm -rf " T "/nightly && mkdir -p " T "/nightly"), 0);
    snprintf(text, sizeof text, nightly_campaign, 5);
    tu_write(T "/nt5.xml", text);
    snprintf(text, sizeof text, nightly_campaign, 6);   /* other configs */
    tu_write(T "/nt6.xml", text);
    /* a run error on the first night: an <error> case, nothing promoted */
    ck_assert_int_eq(nightly("", T "/missing.xml", "n0", "2"), 2);
    ck_assert_int_eq(junit_attr("errors"), 1);
    char *j = tu_slurp(T "/nightly/junit.xml", NULL);
    ck_assert_ptr_nonnull(strstr(j, "<error message=\"gpudse run"));
    ck_assert_ptr_nonnull(strstr(j, "missing.xml"));
    free(j);
    ck_assert(!util_path_exists(T "/nightly/LAST_GOOD"));
    /* first night: a passing "baseline established" case */
    ck_assert_int_eq(nightly("", T "/nt5.xml", "n1", "2"), 0);
    expect_last_good("n1");
    j = tu_slurp(T "/nightly/junit.xml", NULL);
    ck_assert_ptr_nonnull(strstr(j, "name=\"baseline established\""));
    free(j);
    ck_assert_int_eq(junit_attr("failures"), 0);
    ck_assert_int_eq(junit_attr("tests"), 1);
    /* a regressing night is not promoted; its junit.xml fails */
    ck_assert_int_eq(nightly("", T "/nt6.xml", "n2", "2"), 1);
    expect_last_good("n1");
    ck_assert_int_gt(junit_attr("failures"), 0);
    /* --accept promotes it deliberately and the night passes */
    ck_assert_int_eq(nightly("--accept", T "/nt6.xml", "n3", "2"), 0);
    expect_last_good("n3");
    ck_assert_int_eq(junit_attr("failures"), 0);
    char *cmp = tu_slurp(T "/nightly/n3/compare.json", NULL);
    ck_assert_ptr_nonnull(strstr(cmp, "\"accepted\":\ttrue"));
    free(cmp);
    /* KEEP=2: the two newest run directories stay */
    ck_assert_int_eq(nightly("", T "/nt6.xml", "n4", "2"), 0);
    expect_last_good("n4");
    ck_assert_int_eq(run_dirs(), 2);
    ck_assert(util_path_exists(T "/nightly/n3"));
    ck_assert(!util_path_exists(T "/nightly/n1"));
    /* the one LAST_GOOD names is kept even when older than KEEP */
    ck_assert_int_eq(nightly("", T "/nt5.xml", "n5", "1"), 1);
    expect_last_good("n4");
    ck_assert(util_path_exists(T "/nightly/n4"));
    ck_assert(util_path_exists(T "/nightly/n5"));
    ck_assert_int_eq(run_dirs(), 2);
    ck_assert_int_eq(nightly("", T "/nt5.xml", "n6", "x"), 2);
}
END_TEST

/* make install puts the campaigns, nightly.sh and gpudse-nightly in place. */
START_TEST(install_has_campaigns_and_nightly)
{
    /* the binary under test (a sanitizer build: B and BIN of its own) */
    char bin[256], b[256] = "build";
    snprintf(bin, sizeof bin, "%s", tu_bin());
    if (strcmp(bin, "./gpudse") != 0 && strchr(bin, '/'))
        snprintf(b, sizeof b, "%.*s", (int)(strrchr(bin, '/') - bin), bin);
    ck_assert_int_eq(shf("rm -rf " T "/inst && make -s install B=%s BIN=%s "
                         "DESTDIR=$PWD/" T "/inst PREFIX=/usr >/dev/null", b,
                         strcmp(bin, "./gpudse") ? bin : "gpudse"), 0);
    ck_assert(util_path_exists(T "/inst/usr/share/gpudse/campaigns/nightly.xml"));
    ck_assert(util_path_exists(T "/inst/usr/share/gpudse/campaigns/quickstart.xml"));
    ck_assert_int_eq(access(T "/inst/usr/share/gpudse/campaigns/nightly.sh",
                            X_OK), 0);
    ck_assert_int_eq(access(T "/inst/usr/bin/gpudse-nightly", X_OK), 0);
    char out[256];
    capture("sh " T "/inst/usr/share/gpudse/campaigns/nightly.sh --help 2>&1"
            " | head -1", out, sizeof out);
    ck_assert_msg(strstr(out, "nightly.sh: one night"), "%s", out);
    char *w = tu_slurp(T "/inst/usr/bin/gpudse-nightly", NULL);
    ck_assert_ptr_nonnull(strstr(w, "exec \"/usr/share/gpudse/campaigns/"
                                    "nightly.sh\" \"$@\""));
    ck_assert_ptr_nonnull(strstr(w, "GPUDSE:-/usr/bin/gpudse"));
    free(w);
}
END_TEST

/* ---- docs and messages name only paths a clone has (item 7) ---------- */

START_TEST(docs_name_existing_paths)
{
    char out[8192];
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sh tests/doc_paths.sh %s 2>&1; echo rc=$?",
             tu_bin());
    capture(cmd, out, sizeof out);
    ck_assert_msg(strstr(out, "rc=0") != NULL, "paths named but not in the "
                  "repository:\n%s", out);
    /* the check can fail: a text naming what a clone lacks */
    ck_assert_int_eq(shf("mkdir -p " T " && printf 'see docs/nowhere.md, "
                         "../shared/reference/x.csv, reference/results.csv "
                         "and docs/costmodel.md\\n' > " T "/extra.md"), 0);
    snprintf(cmd, sizeof cmd, "DOC_PATHS_EXTRA=" T "/extra.md sh "
             "tests/doc_paths.sh %s 2>&1; echo rc=$?", tu_bin());
    capture(cmd, out, sizeof out);
    ck_assert_msg(strstr(out, "rc=1") && strstr(out, "docs/nowhere.md")
                  && strstr(out, "../shared/reference/x.csv")
                  && strstr(out, ": reference/results.csv")
                  && !strstr(out, "costmodel"), "%s", out);
}
END_TEST

/* A resume with nothing to run and nothing changed keeps the analysis and
 * report (issue 28.4); a changed setting renders them again. */
START_TEST(resume_with_nothing_new_keeps_the_report)
{
    shf("rm -rf " T "/same && mkdir -p " T "/same");
    write_campaign(T "/same/s.xml", "random", 8, "8 15");
    ck_assert_int_eq(shf("%s run " T "/same/s.xml -o " T "/same/run -q",
                         tu_bin()), 0);
    ck_assert_int_eq(shf("echo kept > " T "/same/run/analysis.json"), 0);
    ck_assert_int_eq(shf("%s run " T "/same/s.xml -o " T "/same/run 2>"
                         T "/same/err.txt", tu_bin()), 0);
    char *err = tu_slurp(T "/same/err.txt", NULL);
    ck_assert_msg(strstr(err, "nothing new to run and nothing changed"),
                  "%s", err);
    free(err);
    char *ana = tu_slurp(T "/same/run/analysis.json", NULL);
    ck_assert_str_eq(ana, "kept\n");
    free(ana);
    /* a setting changed (the report's formats): analysed and rendered */
    ck_assert_int_eq(shf("sed -i 's|</campaign>|  <report formats=\"svg\"/>"
                         "</campaign>|' " T "/same/s.xml"), 0);
    ck_assert_int_eq(shf("%s run " T "/same/s.xml -o " T "/same/run -q",
                         tu_bin()), 0);
    ana = tu_slurp(T "/same/run/analysis.json", NULL);
    ck_assert_msg(strstr(ana, "\"workloads\""), "%s", ana);
    free(ana);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trust");
    TCase *t = tcase_create("runs");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, sparse_metrics_are_not_facts);
    tcase_add_test(t, every_strategy_evaluates_the_baseline);
    tcase_add_test(t, budget_larger_than_the_space_is_said);
    tcase_add_test(t, resume_with_nothing_new_keeps_the_report);
    tcase_add_test(t, nightly_junit_accept_and_keep);
    tcase_add_test(t, install_has_campaigns_and_nightly);
    tcase_add_test(t, docs_name_existing_paths);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
