/* test_mfloop: the multi-fidelity loop (<verify rounds=>, issue 21.7) end
 * to end through eng_run, with tests/fakesim/replay.sh answering every
 * config from real GPGPU-Sim results (tests/data/reference_results_strat.csv):
 * K rounds run, re-calibration changes the predictions, a run stopped
 * mid-loop resumes where it stopped (same journal, byte for byte), the stop
 * threshold, the round journal, bad settings, the expected improvement. */
#include "testrun.h"
#include <math.h>
#include <cjson/cJSON.h>
#include "campaign.h"
#include "mfloop.h"
#include "preflight.h"
#include "model.h"
#include "workload.h"


/* A loop campaign on vecadd over the 24 strat configs. extra: more
 * attributes of <verify>. */
static void write_loop(const char *name, const char *verify_attrs)
{
    char text[4096], path[512];
    snprintf(text, sizeof text,
        "<campaign name=\"%s\" seed=\"1\">\n"
        "  <simulator backend=\"analytic\"/>\n"
        "  <verify backend=\"command\" %s\n"
        "          configs=\"%s/tests/data/reference_results_strat.csv\">\n"
        "    <command>%s/tests/fakesim/replay.sh "
        "%s/tests/data/reference_results_strat.csv {workload} {n_clusters} "
        "{cores_per_cluster} {n_mem} {shmem_size} {scheduler} "
        "{num_sched_per_core} {l1_sets} {l2_sets}</command>\n"
        "    <metric name=\"ipc\" regex=\"gpu_tot_ipc = ([0-9.]+)\"/>\n"
        "  </verify>\n"
        "  <workloads><workload name=\"vecadd\"/></workloads>\n"
        "  <space>\n"
        "    <knob name=\"n_clusters\" values=\"8 15 30 60\"/>\n"
        "    <knob name=\"cores_per_cluster\" values=\"1 2 4\"/>\n"
        "    <knob name=\"n_mem\" values=\"4 6 8 12\"/>\n"
        "    <knob name=\"shmem_size\" values=\"16384 32768 49152\"/>\n"
        "    <knob name=\"scheduler\" values=\"gto lrr two_level_active\"/>\n"
        "    <knob name=\"num_sched_per_core\" values=\"1 2 4\"/>\n"
        "    <knob name=\"l1_sets\" values=\"16 32 64 128\"/>\n"
        "    <knob name=\"l2_sets\" values=\"32 64 128\"/>\n"
        "  </space>\n"
        "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
        "  <search strategy=\"random\" budget=\"4\"/>\n"
        "  <execution jobs=\"1\" timeout=\"30\"/>\n"
        "  <report formats=\"svg\"/>\n"
        "</campaign>\n", name, verify_attrs, root, root, root);
    snprintf(path, sizeof path, "%s/%s.xml", T, name);
    tu_write(path, text);
}

static cJSON *journal(const char *dir)
{
    char path[PATH_MAX], *text;
    size_t len;
    gd_err err;
    snprintf(path, sizeof path, "%s/verify_rounds.json", dir);
    ck_assert_msg(util_read_file(path, &text, &len, &err) == GD_OK, "%s",
                  err.msg);
    cJSON *j = cJSON_Parse(text);
    free(text);
    ck_assert(j != NULL);
    return j;
}

static cJSON *get(const cJSON *o, const char *k)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    ck_assert_msg(v != NULL, "no \"%s\"", k);
    return v;
}

static cJSON *wl0(const cJSON *j)
{
    return cJSON_GetArrayItem(get(j, "workloads"), 0);
}

static size_t measured_count(const char *dir)
{
    size_t n, m = 0;
    store_record *r = load(dir, &n);
    for (size_t i = 0; i < n; i++)
        m += !strcmp(r[i].backend, "command");
    free(r);
    return m;
}

START_TEST(loop_runs_k_rounds_and_journals_them)
{
    write_loop("k3", "rounds=\"3\" per-round=\"2\" min-improvement=\"0\"");
    gd_err err;
    int rc = run(tp("/k3.xml"), tp("/k3-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_OK, "rc %d: %s", rc, err.msg);
    ck_assert_uint_eq(measured_count(tp("/k3-run")), 6);
    cJSON *j = journal(tp("/k3-run")), *w = wl0(j), *r, *p;
    ck_assert_int_eq(get(w, "candidates")->valueint, 24);
    ck_assert_str_eq(get(w, "stopped")->valuestring, "budget: 3 rounds of 2");
    ck_assert_int_eq(cJSON_GetArraySize(get(w, "rounds")), 3);
    double best = 0;
    int k = 0;
    char seen[6][256];
    cJSON_ArrayForEach(r, get(w, "rounds")) {
        ck_assert_int_eq(get(r, "round")->valueint, ++k);
        ck_assert(cJSON_IsTrue(get(r, "complete")));
        ck_assert_int_eq(cJSON_GetArraySize(get(r, "picks")), 2);
        cJSON_ArrayForEach(p, get(r, "picks")) {
            const char *cfg = get(p, "config")->valuestring;
            for (int i = 0; i < (k - 1) * 2; i++)
                ck_assert_str_ne(seen[i], cfg);   /* never twice */
            ck_assert_str_eq(get(p, "status")->valuestring, "ok");
            ck_assert(strlen(get(p, "why")->valuestring) > 0);
            double pr = get(get(p, "predicted"), "ipc")->valuedouble;
            double lo = get(p, "ipc_lo")->valuedouble;
            double hi = get(p, "ipc_hi")->valuedouble;
            ck_assert(lo < pr && pr < hi);
            double m = get(get(p, "measured"), "ipc")->valuedouble;
            ck_assert(m > 0);
            best = m > best ? m : best;
            /* expected improvement from round 2, once something is measured */
            ck_assert(!cJSON_GetObjectItem(p, "expected_improvement") == (k == 1));
        }
        int i = (k - 1) * 2;
        cJSON_ArrayForEach(p, get(r, "picks"))
            util_strlcpy(seen[i++], get(p, "config")->valuestring, 256);
    }
    ck_assert_double_eq(get(get(get(w, "best_measured"), "measured"),
                            "ipc")->valuedouble, best);
    cJSON_Delete(j);
    /* analysis.json: per round predicted (modelled) beside measured */
    char path[PATH_MAX], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/k3-run/analysis.json", T);
    ck_assert_int_eq(util_read_file(path, &text, &len, &err), GD_OK);
    j = cJSON_Parse(text);
    free(text);
    cJSON *loop = get(wl0(j), "verification_loop");
    ck_assert_str_eq(get(loop, "predicted_fidelity")->valuestring, "modelled");
    ck_assert_str_eq(get(loop, "measured_fidelity")->valuestring, "measured");
    ck_assert_int_eq(get(loop, "simulations")->valueint, 6);
    ck_assert_int_eq(cJSON_GetArraySize(get(loop, "rounds")), 3);
    r = cJSON_GetArrayItem(get(loop, "rounds"), 2);
    ck_assert_double_eq(get(r, "best_measured_so_far")->valuedouble, best);
    ck_assert(get(r, "mape_pct")->valuedouble >= 0);
    p = cJSON_GetArrayItem(get(r, "picks"), 0);
    ck_assert(get(p, "predicted")->valuedouble > 0
              && get(p, "measured")->valuedouble > 0);
    cJSON_Delete(j);
}
END_TEST

START_TEST(recalibration_changes_predictions)
{
    write_loop("rc", "rounds=\"2\" per-round=\"3\" min-improvement=\"0\"");
    gd_err err;
    ck_assert_int_eq(run(tp("/rc.xml"), tp("/rc-run"), &err, NULL, NULL),
                     GD_OK);
    cJSON *j = journal(tp("/rc-run"));
    cJSON *rounds = get(wl0(j), "rounds");
    cJSON *r1 = cJSON_GetArrayItem(rounds, 0), *r2 = cJSON_GetArrayItem(rounds, 1);
    ck_assert_int_eq(get(get(r1, "calibration"), "rows")->valueint, 0);
    cJSON *cal = get(r2, "calibration");
    ck_assert_int_eq(get(cal, "rows")->valueint, 3);
    ck_assert(cJSON_GetArraySize(get(cal, "fitted")) > 0);
    ck_assert(get(cal, "heldout_log_sd")->valuedouble >= 0);
    /* round 2's predictions are the recalibrated model's, not the
     * campaign descriptor's */
    wl_workload w;
    ck_assert_int_eq(wl_load_builtin("vecadd", &w, &err), GD_OK);
    camp_campaign c;
    ck_assert_msg(preflight_load(tp("/rc.xml"), &c, &err) == GD_OK, "%s", err.msg);
    cJSON *p;
    int differ = 0;
    cJSON_ArrayForEach(p, get(r2, "picks")) {
        gpu_config cfg = space_at(&c.space,
                                  (uint64_t)get(p, "index")->valuedouble);
        model_out mo;
        ck_assert_int_eq(model_eval(&w, &cfg, &mo, NULL), 0);
        differ += fabs(mo.ipc - get(get(p, "predicted"), "ipc")->valuedouble)
                  > 1e-6 * mo.ipc;
    }
    ck_assert_int_gt(differ, 0);
    camp_free(&c);
    cJSON_Delete(j);
}
END_TEST

/* Stop after the third measured record (in round 2), as SIGINT does. */
static volatile sig_atomic_t stop_flag;
static int nmeasured;
static void stop_in_round2(const store_record *r, void *arg)
{
    (void)arg;
    if (!strcmp(r->backend, "command") && ++nmeasured == 3)
        stop_flag = 1;
}

START_TEST(resume_mid_loop_continues_where_it_stopped)
{
    write_loop("rs", "rounds=\"3\" per-round=\"2\" min-improvement=\"0\"");
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.campaign_path = tp("/rs.xml");
    o.outdir = tp("/rs-run");
    o.quiet = 1;
    o.on_result = stop_in_round2;
    o.stop = &stop_flag;
    gd_err err = {0, ""};
    int rc = eng_run(&o, NULL, 0, &err);
    ck_assert_msg(rc != GD_OK, "the stop was not seen");
    ck_assert_uint_eq(measured_count(tp("/rs-run")), 3);
    cJSON *j = journal(tp("/rs-run")), *w = wl0(j);
    ck_assert(cJSON_IsNull(get(w, "stopped")));
    ck_assert_int_eq(cJSON_GetArraySize(get(w, "rounds")), 2);
    ck_assert(cJSON_IsFalse(get(cJSON_GetArrayItem(get(w, "rounds"), 1),
                                "complete")));
    cJSON_Delete(j);
    /* the resume finishes round 2 (its one missing job), then round 3 */
    rc = run(tp("/rs.xml"), tp("/rs-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_OK, "rc %d: %s", rc, err.msg);
    ck_assert_uint_eq(measured_count(tp("/rs-run")), 6);
    /* and ends where an uninterrupted run of the same loop ends */
    write_loop("rs2", "rounds=\"3\" per-round=\"2\" min-improvement=\"0\"");
    shf("sed -i 's/name=\"rs2\"/name=\"rs\"/' %s/rs2.xml", T);
    ck_assert_int_eq(run(tp("/rs2.xml"), tp("/rs2-run"), &err, NULL, NULL),
                     GD_OK);
    ck_assert_int_eq(shf("cmp -s %s/rs-run/verify_rounds.json "
                         "%s/rs2-run/verify_rounds.json", T, T), 0);
}
END_TEST

START_TEST(stops_when_nothing_can_improve_enough)
{
    write_loop("th", "rounds=\"6\" per-round=\"2\" min-improvement=\"0.5\"");
    gd_err err;
    ck_assert_int_eq(run(tp("/th.xml"), tp("/th-run"), &err, NULL, NULL),
                     GD_OK);
    ck_assert_uint_eq(measured_count(tp("/th-run")), 2);
    cJSON *j = journal(tp("/th-run")), *w = wl0(j);
    ck_assert_str_eq(get(w, "stopped")->valuestring,
                     "no candidate can improve by more than 50%");
    ck_assert_int_eq(cJSON_GetArraySize(get(w, "rounds")), 1);
    cJSON_Delete(j);
    /* with a small threshold it goes on, but not to the budget of 6 */
    write_loop("th2", "rounds=\"6\" per-round=\"2\" min-improvement=\"0.005\"");
    ck_assert_int_eq(run(tp("/th2.xml"), tp("/th2-run"), &err, NULL, NULL),
                     GD_OK);
    size_t m = measured_count(tp("/th2-run"));
    ck_assert(m > 2 && m < 12);
    j = journal(tp("/th2-run"));
    ck_assert(strstr(get(wl0(j), "stopped")->valuestring,
                     "no candidate can improve"));
    cJSON_Delete(j);
}
END_TEST

START_TEST(damaged_journal_is_refused)
{
    write_loop("dj", "rounds=\"2\" per-round=\"1\"");
    gd_err err;
    ck_assert_int_eq(run(tp("/dj.xml"), tp("/dj-run"), &err, NULL, NULL),
                     GD_OK);
    shf("echo '{' > %s/dj-run/verify_rounds.json", T);
    ck_assert_int_eq(run(tp("/dj.xml"), tp("/dj-run"), &err, NULL, NULL),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "verify_rounds.json"), "%s", err.msg);
    /* well-formed JSON, a round without its number: refused, not read */
    shf("rm -rf %s/dj-run2", T);
    ck_assert_int_eq(run(tp("/dj.xml"), tp("/dj-run2"), &err, NULL, NULL),
                     GD_OK);
    shf("sed -i 's/\"round\":/\"rnd\":/' %s/dj-run2/verify_rounds.json", T);
    ck_assert_int_eq(run(tp("/dj.xml"), tp("/dj-run2"), &err, NULL, NULL),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "no round number"), "%s", err.msg);
    /* a pick that is not a candidate */
    ck_assert_int_eq(run(tp("/dj.xml"), tp("/dj-run3"), &err, NULL, NULL),
                     GD_OK);
    shf("sed -i 's/\"index\":\t*[0-9]*/\"index\": 999999/' "
        "%s/dj-run3/verify_rounds.json", T);
    ck_assert_int_eq(run(tp("/dj.xml"), tp("/dj-run3"), &err, NULL, NULL),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "not a candidate"), "%s", err.msg);
}
END_TEST

START_TEST(bad_loop_settings_name_the_line)
{
    static const struct { const char *attrs, *msg; } bad[] = {
        {"rounds=\"0\"", "rounds must be 1 to 1000"},
        {"rounds=\"2\" per-round=\"0\"", "per-round must be 1 to 10000"},
        {"rounds=\"2\" min-improvement=\"1.5\"", "min-improvement must be"},
        {"per-round=\"2\"", "give rounds= too"},
        {"rounds=\"2\" top=\"3\"", "top= is the one-pass count"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_loop("bad", bad[i].attrs);
        camp_campaign c;
        gd_err err;
        ck_assert_int_eq(camp_load(tp("/bad.xml"), &c, &err), GD_EINPUT);
        ck_assert_msg(strstr(err.msg, "bad.xml:4: ")
                      && strstr(err.msg, bad[i].msg), "%s", err.msg);
    }
    /* a config outside the space: the CSV's line */
    tu_write(tp("/out.csv"), "n_clusters,n_mem\n15,6\n60,6\n");
    write_loop("bad", "rounds=\"2\"");
    shf("sed -i 's|configs=\"[^\"]*\"|configs=\"out.csv\"|; "
        "s|values=\"8 15 30 60\"|values=\"8 15 30\"|' %s/bad.xml", T);
    camp_campaign c;
    gd_err err;
    ck_assert_int_eq(preflight_load(tp("/bad.xml"), &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "out.csv:3: this config is not in the "
                         "campaign's space"), "%s", err.msg);
}
END_TEST

START_TEST(expected_improvement_arithmetic)
{
    /* no uncertainty: the plain improvement */
    ck_assert_double_eq(mf_expected_improvement(110, 0, 100, 1), 10);
    ck_assert_double_eq(mf_expected_improvement(90, 0, 100, 1), 0);
    ck_assert_double_eq(mf_expected_improvement(90, 0, 100, 0), 10);
    /* uncertainty gives a worse prediction a chance, growing with sigma */
    double a = mf_expected_improvement(90, 0.05, 100, 1);
    double b = mf_expected_improvement(90, 0.2, 100, 1);
    ck_assert(a > 0 && b > a);
    /* at best: E[max(X - b, 0)] of a lognormal centred on b, about
     * b * sigma / sqrt(2 pi) for small sigma */
    ck_assert_double_eq_tol(mf_expected_improvement(100, 0.01, 100, 1),
                            100 * 0.01 / sqrt(2 * M_PI), 0.01);
    ck_assert(isnan(mf_expected_improvement(100, 0.1, 0, 1)));
}
END_TEST

START_TEST(several_objectives_extend_the_measured_front)
{
    write_loop("mo", "rounds=\"2\" per-round=\"2\" min-improvement=\"0\"");
    shf("sed -i 's|<objectives>.*</objectives>|<objectives><maximize "
        "metric=\"ipc\"/><minimize metric=\"area_mm2\"/></objectives>|' "
        "%s/mo.xml", T);
    gd_err err;
    int rc = run(tp("/mo.xml"), tp("/mo-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_OK, "rc %d: %s", rc, err.msg);
    cJSON *j = journal(tp("/mo-run")), *w = wl0(j), *p;
    cJSON *r1 = cJSON_GetArrayItem(get(w, "rounds"), 0);
    cJSON *r2 = cJSON_GetArrayItem(get(w, "rounds"), 1);
    /* round 1: the two ends of the predicted front */
    double a0 = get(get(cJSON_GetArrayItem(get(r1, "picks"), 0), "predicted"),
                    "area_mm2")->valuedouble;
    double a1 = get(get(cJSON_GetArrayItem(get(r1, "picks"), 1), "predicted"),
                    "area_mm2")->valuedouble;
    ck_assert(a0 != a1);
    cJSON_ArrayForEach(p, get(r2, "picks"))
        ck_assert(strstr(get(p, "why")->valuestring, "front"));
    /* the best measured is the measured front: a list */
    ck_assert(cJSON_IsArray(get(w, "best_measured")));
    ck_assert_int_ge(cJSON_GetArraySize(get(w, "best_measured")), 1);
    cJSON_Delete(j);
}
END_TEST

/* Without configs= the candidates are the screened configs. */
START_TEST(without_configs_the_screened_configs_are_candidates)
{
    tu_write(tp("/lin.sh"), "#!/bin/sh\necho \"IPC = $(($1 * 7 + $2))\"\n");
    shf("chmod +x %s/lin.sh", T);
    tu_write(tp("/sc.xml"),
             "<campaign name=\"sc\" seed=\"3\">\n"
             "  <simulator backend=\"analytic\"/>\n"
             "  <verify backend=\"command\" rounds=\"4\" per-round=\"1\">\n"
             "    <command>{campaign_dir}/lin.sh {n_clusters} {n_mem}</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC = ([0-9]+)\"/>\n"
             "  </verify>\n"
             "  <workloads><workload name=\"vecadd\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"8 15 30 60\"/>"
             "<knob name=\"n_mem\" values=\"4 6 8 12\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"random\" budget=\"5\"/>\n"
             "  <execution jobs=\"1\" timeout=\"10\"/>\n"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n");
    gd_err err;
    int rc = run(tp("/sc.xml"), tp("/sc-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_OK, "rc %d: %s", rc, err.msg);
    cJSON *j = journal(tp("/sc-run"));
    ck_assert_int_eq(get(wl0(j), "candidates")->valueint, 5);
    size_t n;
    store_record *r = load(tp("/sc-run"), &n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].backend, "command"))
            continue;
        int screened = 0;
        for (size_t k = 0; k < n; k++)
            screened |= !strcmp(r[k].backend, "analytic")
                        && !memcmp(&r[k].cfg, &r[i].cfg, sizeof r[i].cfg);
        ck_assert(screened);
    }
    free(r);
    cJSON_Delete(j);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mfloop");
    TCase *t = tcase_create("loop");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, expected_improvement_arithmetic);
    tcase_add_test(t, bad_loop_settings_name_the_line);
    tcase_add_test(t, loop_runs_k_rounds_and_journals_them);
    tcase_add_test(t, recalibration_changes_predictions);
    tcase_add_test(t, resume_mid_loop_continues_where_it_stopped);
    tcase_add_test(t, stops_when_nothing_can_improve_enough);
    tcase_add_test(t, damaged_journal_is_refused);
    tcase_add_test(t, several_objectives_extend_the_measured_front);
    tcase_add_test(t, without_configs_the_screened_configs_are_candidates);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_main("mfloop", suite);
}
