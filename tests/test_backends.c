/* test_backends: external jobs end to end through eng_run — the GPGPU-Sim
 * backend driving tests/fakesim/fakesim.sh (a real log replayed, a crash, a
 * hang, a deadlock, garbage, exit 1: each in its class, the campaign
 * completes), kill -9 mid-campaign then resume (every key once), and the
 * command backend (placeholders, templated files, regex metrics). */
#include "testrun.h"
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <dirent.h>
#include <regex.h>
#include <time.h>
#include <sys/wait.h>
#include <cjson/cJSON.h>
#include "backend.h"
#include "campaign.h"
#include "preflight.h"
#include "engine.h"
#include "store.h"
#include "util.h"


static void write_modes_campaign(const char *path, const char *name,
                                 const char *const *modes, int nmodes,
                                 int retries)
{
    char text[8192];
    int off = snprintf(text, sizeof text,
        "<campaign name=\"%s\" seed=\"1\">\n"
        "  <simulator backend=\"gpgpusim\" root=\"%s/%s\"/>\n"
        "  <workloads>\n", name, root, T);
    for (int i = 0; i < nmodes; i++)
        off += snprintf(text + off, sizeof text - (size_t)off,
            "    <workload name=\"%s\"><command>%s/tests/fakesim/fakesim.sh "
            "%s %s/tests/data/gpgpusim/vecadd-baseline.log.gz</command>"
            "<env name=\"FAKESIM_POWER_W\" value=\"110.31\"/></workload>\n",
            modes[i], root, modes[i], root);
    snprintf(text + off, sizeof text - (size_t)off,
        "  </workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"15 30\"/></space>\n"
        "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
        "  <execution jobs=\"4\" timeout=\"1.5\" retries=\"%d\" grace=\"0.3\" "
        "backoff=\"0.05\"/>\n"
        "  <report formats=\"svg\"/>\n"
        "</campaign>\n", retries);
    tu_write(path, text);
}

static void write_gpgpusim_campaign(const char *path, const char *name)
{
    static const char *const modes[] = {"replay", "crash", "hang",
                                        "deadlock", "garbage", "exit1"};
    write_modes_campaign(path, name, modes, 6, 1);
}

START_TEST(gpgpusim_failures_land_in_their_classes)
{
    write_gpgpusim_campaign(tp("/gs.xml"), "gs");
    shf("rm -rf %s/gs-run", T);
    gd_err err;
    int rc = run(tp("/gs.xml"), tp("/gs-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_EJOBS, "rc %d: %s", rc, err.msg);
    size_t n;
    store_record *r = load(tp("/gs-run"), &n);
    ck_assert_uint_eq(n, 12);
    for (int c = 15; c <= 30; c += 15) {
        const store_record *ok = find(r, n, "replay", c);
        ck_assert_msg(ok->status == ST_OK, "replay: %s", ok->reason);
        double ipc, pw;
        ck_assert(met_get(&ok->metrics, "ipc", &ipc) == 0);
        ck_assert_double_eq_tol(ipc, 280.4393, 1e-9);
        ck_assert(met_get(&ok->metrics, "power_w", &pw) == 0);
        ck_assert_double_eq_tol(pw, 110.31, 1e-9);
        ck_assert_str_eq(ok->fidelity, "measured");
        ck_assert_int_eq(find(r, n, "crash", c)->status, ST_CRASHED);
        ck_assert_int_eq(find(r, n, "hang", c)->status, ST_TIMEOUT);
        ck_assert_int_eq(find(r, n, "deadlock", c)->status, ST_DEADLOCK);
        ck_assert_int_eq(find(r, n, "garbage", c)->status, ST_BAD_OUTPUT);
        ck_assert_int_eq(find(r, n, "exit1", c)->status, ST_FAILED);
    }
    free(r);
    /* the job directory holds the rewritten config and the capped logs */
    ck_assert_int_eq(shf("ls %s/gs-run/jobs/*/gpgpusim.config >/dev/null && "
        "grep -q '^-gpgpu_n_clusters 30' %s/gs-run/jobs/*/gpgpusim.config",
        T, T), 0);
    /* every job has both logs (its own process made them); how the process
     * ended (status.json) is kept for the 10 that did not end ok only */
    ck_assert_int_eq(shf("test $(ls %s/gs-run/jobs/*/stdout.log | wc -l) = 12"
                         " && test $(ls %s/gs-run/jobs/*/stderr.log | wc -l)"
                         " = 12 && test $(ls %s/gs-run/jobs/*/status.json | "
                         "wc -l) = 10", T, T, T), 0);
    ck_assert_int_eq(shf("grep -lE '\"status\":[[:space:]]*\"ok\"' "
                         "%s/gs-run/jobs/*/status.json", T), 1);
    /* a timed-out job was retried once: its first attempt's log is kept */
    ck_assert_int_eq(shf("ls %s/gs-run/jobs/*/attempt1.stdout.log "
                         ">/dev/null 2>&1", T), 0);
}
END_TEST

static void kill_after(const store_record *r, void *arg)
{
    (void)r;
    int *left = arg;
    if (--*left == 0)
        raise(SIGKILL);
}

START_TEST(kill9_mid_campaign_then_resume)
{
    write_gpgpusim_campaign(tp("/k9.xml"), "k9");
    shf("rm -rf %s/k9-run", T);
    for (int at = 2; at <= 7; at += 5) {
        pid_t pid = fork();
        if (pid == 0) {
            gd_err e;
            int left = at;
            run(tp("/k9.xml"), tp("/k9-run"), &e, kill_after, &left);
            _exit(99);
        }
        int st;
        waitpid(pid, &st, 0);
        ck_assert_msg(WIFSIGNALED(st), "child not killed at %d", at);
        size_t n;
        free(load(tp("/k9-run"), &n));
        ck_assert_uint_ge(n, (size_t)at);
    }
    gd_err err;
    int rc = run(tp("/k9.xml"), tp("/k9-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_EJOBS, "rc %d: %s", rc, err.msg);
    size_t n;
    free(load(tp("/k9-run"), &n));
    ck_assert_uint_eq(n, 12);
}
END_TEST

/* The done (ok) count of `gpudse status`'s total line, -1 without one. */
static int status_done(const char *out)
{
    const char *t = strstr(out, "  total ");
    int q, r, d, f;
    return t && sscanf(t + 8, "%d %d %d %d", &q, &r, &d, &f) == 4 ? d : -1;
}

START_TEST(sigint_stops_and_stays_resumable)
{
    static const char *const modes[] = {"replay", "hang"};
    write_modes_campaign(tp("/int.xml"), "int", modes, 2, 0);
    /* hangs that outlast any load: the SIGINT below must find them */
    shf("sed -i 's/timeout=\"1.5\"/timeout=\"60\"/' %s/int.xml", T);
    shf("rm -rf %s/int-run", T);
    pid_t pid = fork();
    if (pid == 0) {
        execl(tu_bin(), "gpudse", "run", tp("/int.xml"), "-o", tp("/int-run"),
              "-q", (char *)NULL);
        _exit(127);
    }
    /* until the replays have finished and the hangs are running (no fixed
     * sleep: a loaded machine takes longer) */
    char out[4096];
    char st_cmd[512];
    snprintf(st_cmd, sizeof st_cmd, "%s status %s/int-run 2>&1", tu_bin(), T);
    for (int i = 0; i < 1500; i++) {
        capture(st_cmd, out, sizeof out);
        if (status_done(out) == 2)
            break;
        usleep(20000);
    }
    ck_assert_msg(status_done(out) == 2 && strstr(out, "running")
                  && !strstr(out, "not running"), "%s", out);
    kill(pid, SIGINT);
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status %d", st);
    capture(st_cmd, out, sizeof out);
    /* 2 done; the 2 hangs queued again and said to be cut off */
    ck_assert_msg(strstr(out, "not running") && status_done(out) == 2
                  && strstr(out, "2 job(s) were cut off"), "%s", out);
    /* no hanging job survived the stop */
    int left = procs_in(tp("/int-run"));
    ck_assert_msg(left == 0, "%d processes left in the run directory", left);
    gd_err err;
    ck_assert_int_eq(run(tp("/int.xml"), tp("/int-run"), &err, NULL, NULL),
                     GD_EJOBS);
    size_t n;
    free(load(tp("/int-run"), &n));
    ck_assert_uint_eq(n, 4);
}
END_TEST

START_TEST(command_backend)
{
    tu_write(tp("/sim.sh"),
             "#!/bin/sh\n"
             "# args: clusters scheduler workload; reads sim.cfg\n"
             ". ./sim.cfg\n"
             "case \"$3\" in\n"
             "  nostats) echo 'no numbers here' ;;\n"
             "  weird) echo 'IPC = 1.2.3'; echo 'cycles = 7' ;;\n"
             "  *) echo \"IPC = $(($1 * 10))\"; echo \"cycles = $CYCLES\"; "
             "echo \"sched=$2 dir=$JOBDIR\" ;;\n"
             "esac\n");
    shf("chmod +x %s/sim.sh", T);
    tu_write(tp("/sim.cfg.in"), "CYCLES={l2_sets}000\nJOBDIR={job_dir}\n");
    tu_write(tp("/cmd.xml"),
             "<campaign name=\"cmd\" seed=\"1\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>{campaign_dir}/sim.sh {n_clusters} {scheduler} "
             "{workload}</command>\n"
             "    <file name=\"sim.cfg\" template=\"sim.cfg.in\"/>\n"
             "    <metric name=\"ipc\" regex=\"IPC\\s*=\\s*([0-9.]+)\"/>\n"
             "    <metric name=\"cycles\" regex=\"cycles\\s*=\\s*([0-9]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"app\"/><workload name=\"nostats\"/>"
             "<workload name=\"weird\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"8 60\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/><minimize "
             "metric=\"cycles\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
             "  <execution jobs=\"2\" timeout=\"10\"/>\n"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n");
    shf("rm -rf %s/cmd-run", T);
    gd_err err;
    int rc = run(tp("/cmd.xml"), tp("/cmd-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_EJOBS, "rc %d: %s", rc, err.msg);
    size_t n;
    store_record *r = load(tp("/cmd-run"), &n);
    ck_assert_uint_eq(n, 6);
    double v;
    const store_record *a = find(r, n, "app", 60);
    ck_assert_msg(a->status == ST_OK, "%s", a->reason);
    ck_assert(met_get(&a->metrics, "ipc", &v) == 0);
    ck_assert_double_eq(v, 600);
    ck_assert(met_get(&a->metrics, "cycles", &v) == 0);
    ck_assert_double_eq(v, 64000);
    ck_assert_int_eq(find(r, n, "nostats", 8)->status, ST_NO_STATS);
    ck_assert_int_eq(find(r, n, "weird", 8)->status, ST_BAD_OUTPUT);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "grep -q 'sched=gto dir=%s/%s/cmd-run/jobs/%s'"
             " %s/cmd-run/jobs/%s/stdout.log", root, T, a->key, T, a->key);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
    free(r);
}
END_TEST

/* analysis.json's calibration entries carry the modelled-against-measured
 * error of their points for the report's caption: n, MAPE, Spearman rho
 * and the points' rank resolution (analysis/verification.c). The fake
 * simulator's IPC (7 per cluster + n_mem, about 100) is far from the
 * model's (hundreds): a large MAPE. */
static void check_calibration_summary(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    gd_err err;
    ck_assert_int_eq(util_read_file(path, &text, &len, &err), 0);
    cJSON *a = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(a, "calibration"), *e;
    int seen = 0;
    cJSON_ArrayForEach(e, cal) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "metric");
        if (!cJSON_IsString(m) || strcmp(m->valuestring, "ipc"))
            continue;
        seen++;
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "n");
        const cJSON *mape = cJSON_GetObjectItemCaseSensitive(e, "mape");
        const cJSON *rho = cJSON_GetObjectItemCaseSensitive(e, "spearman");
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(e,
                                                          "rank_resolution");
        ck_assert(cJSON_IsNumber(n) && n->valueint == 3);
        ck_assert(cJSON_IsNumber(mape) && mape->valuedouble > 0.5);
        ck_assert(cJSON_IsNumber(rho) && fabs(rho->valuedouble) <= 1);
        ck_assert(cJSON_IsNumber(res) && res->valuedouble >= 0
                  && res->valuedouble <= 1);
    }
    ck_assert_int_eq(seen, 2);   /* one per workload */
    cJSON_Delete(a);
}

START_TEST(multi_fidelity_verifies_predicted_front)
{
    tu_write(tp("/mf.sh"),
             "#!/bin/sh\n"
             "# a stand-in expensive simulator: IPC grows with clusters\n"
             "echo \"IPC = $(($1 * 7 + $2))\"\n"
             "echo \"area = $(($1 * 10 + $2 * 3))\"\n");
    shf("chmod +x %s/mf.sh", T);
    tu_write(tp("/mf.xml"),
             "<campaign name=\"mf\" seed=\"3\">\n"
             "  <simulator backend=\"analytic\"/>\n"
             "  <verify backend=\"command\" top=\"3\">\n"
             "    <command>{campaign_dir}/mf.sh {n_clusters} {n_mem}</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC = ([0-9]+)\"/>\n"
             "    <metric name=\"area_mm2\" regex=\"area = ([0-9]+)\"/>\n"
             "  </verify>\n"
             "  <workloads><workload name=\"vecadd\"/><workload name=\"sgemm\"/>"
             "</workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"8 15 30 60\"/>"
             "<knob name=\"n_mem\" values=\"4 6 8 12\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/><minimize "
             "metric=\"area_mm2\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"16\"/>\n"
             "  <execution jobs=\"2\" timeout=\"10\"/>\n"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n");
    gd_err err;
    int rc = run(tp("/mf.xml"), tp("/mf-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_OK, "rc %d: %s", rc, err.msg);
    size_t n;
    store_record *r = load(tp("/mf-run"), &n);
    size_t modelled = 0, measured = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(r[i].backend, "analytic")) {
            modelled++;
            ck_assert_str_eq(r[i].fidelity, "modelled");
            continue;
        }
        measured++;
        ck_assert_str_eq(r[i].backend, "command");
        ck_assert_str_eq(r[i].fidelity, "measured");
        ck_assert_int_eq(r[i].status, ST_OK);
        double ipc;
        ck_assert(met_get(&r[i].metrics, "ipc", &ipc) == 0);
        ck_assert_double_eq(ipc, r[i].cfg.n_clusters * 7 + r[i].cfg.n_mem);
    }
    ck_assert_uint_eq(modelled, 32);
    ck_assert_uint_eq(measured, 6);  /* top 3 of each workload's front */
    free(r);
    check_calibration_summary(tp("/mf-run/analysis.json"));
    /* a second run finds everything, the verification included */
    rc = run(tp("/mf.xml"), tp("/mf-run"), &err, NULL, NULL);
    ck_assert_int_eq(rc, GD_OK);
    free(load(tp("/mf-run"), &n));
    ck_assert_uint_eq(n, 38);
}
END_TEST

START_TEST(bad_external_campaigns)
{
    camp_campaign c;
    gd_err err;
    tu_write(tp("/bad1.xml"),
             "<campaign name=\"b\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>run {n_clustrs}</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC=([0-9]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\"/></workloads>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"random\" budget=\"2\"/>\n"
             "</campaign>\n");
    ck_assert_int_eq(preflight_load(tp("/bad1.xml"), &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "bad1.xml:3: command: unknown placeholder "
                         "{n_clustrs}"), "%s", err.msg);
    tu_write(tp("/bad2.xml"),
             "<campaign name=\"b\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>run</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC=[0-9]+\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\"/></workloads>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"random\" budget=\"2\"/>\n"
             "</campaign>\n");
    ck_assert_int_eq(preflight_load(tp("/bad2.xml"), &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "bad2.xml:4: regex of metric ipc has no "
                         "capture group"), "%s", err.msg);
    tu_write(tp("/bad3.xml"),
             "<campaign name=\"b\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>run</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC=([0-9]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\"/></workloads>\n"
             "  <objectives><minimize metric=\"cycles\"/></objectives>\n"
             "  <search strategy=\"random\" budget=\"2\"/>\n"
             "</campaign>\n");
    ck_assert_int_eq(preflight_load(tp("/bad3.xml"), &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "bad3.xml:7: objective on unknown metric"),
                  "%s", err.msg);
}
END_TEST

/* ---- a full disk ---- */

/* A command campaign of 4 x nmem jobs, each printing kb KB of progress
 * before its metric. */
static void write_big_campaign(const char *name, int kb, const char *nmem)
{
    char sh[512], xml[2048];
    snprintf(sh, sizeof sh, "#!/bin/sh\nhead -c %d /dev/zero | tr '\\0' "
             "'.'\necho\necho \"IPC = $1\"\n", kb * 1024);
    tu_write(tp("/big.sh"), sh);
    shf("chmod +x %s/big.sh", T);
    snprintf(xml, sizeof xml,
             "<campaign name=\"%s\" seed=\"1\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>{campaign_dir}/big.sh {n_clusters}</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC = ([0-9]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"app\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"8 15 30 60\"/>"
             "<knob name=\"n_mem\" values=\"%s\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"64\"/>\n"
             "  <execution jobs=\"4\" timeout=\"60\" retries=\"0\"/>\n"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n", name, nmem);
    char path[600];
    snprintf(path, sizeof path, "%s/%s.xml", T, name);
    tu_write(path, xml);
}

/* Output that cannot be saved (here the file size limit, deterministic)
 * stops the run as an environment error (exit 3) with nothing journaled
 * for the job; the resume runs it and it succeeds. */
START_TEST(output_save_failure_stops_the_run)
{
    write_big_campaign("fsz", 300, "6");
    shf("rm -rf %s/fsz-run", T);
    char out[4096];
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sh -c 'trap \"\" XFSZ; ulimit -f 200; exec "
             "%s run %s/fsz.xml -o %s/fsz-run -q' 2>&1; echo \"exit=$?\"",
             tu_bin(), T, T);
    capture(cmd, out, sizeof out);
    ck_assert_msg(strstr(out, "exit=3") && strstr(out, "cannot save the "
                  "job's output") && strstr(out, "File too large"), "%s",
                  out);
    ck_assert_int_eq(shf("test ! -s %s/fsz-run/results.jsonl", T), 0);
    ck_assert_int_eq(shf("%s run %s/fsz.xml -o %s/fsz-run -q >/dev/null",
                         tu_bin(), T, T), 0);
    size_t n;
    store_record *r = load(tp("/fsz-run"), &n);
    ck_assert_uint_eq(n, 4);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(r[i].status == ST_OK, "%s", r[i].reason);
    free(r);
}
END_TEST

/* The reproduction: the run directory on a 1 MB tmpfs (in a mount
 * namespace of its own, so nothing stays mounted), grown to 8 MB, resumed:
 * every job ends ok, none journaled as no-stats, no status.json empty. */
START_TEST(full_tmpfs_then_resume)
{
    write_big_campaign("full", 64, "4 6 8 12");
    char script[4096], out[4096];
    snprintf(script, sizeof script,
        "set -u; m=%s/mnt; mkdir -p $m; "
        "mount -t tmpfs -o size=1m tmpfs $m 2>/dev/null || "
        "{ echo 'SKIP: cannot mount a tmpfs here (needs root and "
        "CAP_SYS_ADMIN)'; exit 0; }; "
        "%s run %s/full.xml -o $m/run -q >/dev/null 2>&1; echo first=$?; "
        "mount -o remount,size=8m $m; "
        "%s run %s/full.xml -o $m/run -q >/dev/null 2>&1; echo second=$?; "
        "echo records=$(wc -l < $m/run/results.jsonl); "
        "echo nostats=$(grep -c no-stats $m/run/results.jsonl); "
        "echo empty=$(find $m/run -name status.json -empty | wc -l)",
        T, tu_bin(), T, tu_bin(), T);
    tu_write(tp("/full.sh"), script);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "unshare -m --propagation private sh %s/full.sh"
             " 2>&1 || echo 'SKIP: unshare -m is not permitted here'", T);
    capture(cmd, out, sizeof out);
    if (strstr(out, "SKIP")) {
        printf("full_tmpfs_then_resume: %s", out);
        return;
    }
    ck_assert_msg(strstr(out, "first=3\n") && strstr(out, "second=0\n")
                  && strstr(out, "records=16\n") && strstr(out, "nostats=0\n")
                  && strstr(out, "empty=0\n"), "%s", out);
}
END_TEST

/* ---- metric extraction ---- */

/* The extraction as it was before it became linear (regexec on the rest
 * of the text per match): the reference the new one must agree with. */
static int old_last_match(const regex_t *re, const char *text, char *val,
                          size_t n)
{
    regmatch_t m[2];
    int found = 0;
    const char *p = text;
    while (*p && regexec(re, p, 2, m, p == text ? 0 : REG_NOTBOL) == 0) {
        if (m[1].rm_so >= 0) {
            size_t len = (size_t)(m[1].rm_eo - m[1].rm_so);
            if (len >= n)
                len = n - 1;
            memcpy(val, p + m[1].rm_so, len);
            val[len] = '\0';
            found = 1;
        }
        p += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
    }
    return found ? 0 : -1;
}

/* The command backend's finish on stdout text (len bytes) with one metric
 * "m" of regex re: the record (status and value). */
static store_record finish_on(const char *re, const char *text, size_t len)
{
    static camp_campaign c;
    memset(&c, 0, sizeof c);
    c.nmetrics = 1;
    util_strlcpy(c.metrics[0].name, "m", sizeof c.metrics[0].name);
    util_strlcpy(c.metrics[0].regex, re, sizeof c.metrics[0].regex);
    c.metrics[0].required = 1;
    shf("mkdir -p %s/mx && : > %s/mx/stderr.log", T, T);
    FILE *f = fopen(tp("/mx/stdout.log"), "wb");
    ck_assert(f && fwrite(text, 1, len, f) == len);
    fclose(f);
    be_job j;
    memset(&j, 0, sizeof j);
    j.camp = &c;
    j.job_dir = tp("/mx");
    exec_result r;
    memset(&r, 0, sizeof r);
    r.exited = 1;
    r.out_bytes = len;
    store_record rec;
    memset(&rec, 0, sizeof rec);
    gd_err err;
    ck_assert_int_eq(be_find("command")->finish(&j, &r, &rec, &err), GD_OK);
    return rec;
}

START_TEST(metric_extraction_unchanged)
{
    static const struct { const char *re, *text; } cases[] = {
        {"IPC = ([0-9.]+)", "IPC = 1\nIPC = 2.5\nnoise\nIPC = 3.25\ntail\n"},
        {"IPC\\s*=\\s*([0-9.]+)", "cycles 9\nIPC =\n  42\n"},  /* spans lines */
        {"^IPC=([0-9]+)", "IPC=1\nIPC=2\n"},        /* ^: the text's start */
        {"IPC=([0-9]+)$", "IPC=1\nIPC=2\nIPC=3"},   /* $: the text's end */
        {"IPC=([0-9]+)|END", "IPC=5\nIPC=6\nEND\n"},  /* last has no group */
        {"(END)|IPC=([0-9]+)", "IPC=5\n"},          /* group 1 never */
        {"x*([0-9]*)", "ab 12 x34 y"},              /* empty matches */
        {"v=([0-9]+)", "v=1 v=22 v=333v=4444"},     /* several per line */
        {"v=([0-9]+)", "nothing here\n"},
        {"\\bk=([0-9]+)", "k=1 xk=2 k=3x"},
        {"t=([a-z]*)([0-9])", "t=ab1 t=2 t=cd3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        regex_t re;
        ck_assert_int_eq(regcomp(&re, cases[i].re, REG_EXTENDED), 0);
        char want[128];
        int found = old_last_match(&re, cases[i].text, want, sizeof want) == 0;
        regfree(&re);
        store_record rec = finish_on(cases[i].re, cases[i].text,
                                     strlen(cases[i].text));
        double got, w;
        if (!found || util_parse_double(want, &w) != 0) {
            ck_assert_msg(rec.status != ST_OK, "case %zu: %s", i,
                          rec.reason);
            continue;
        }
        ck_assert_msg(rec.status == ST_OK, "case %zu: %s", i, rec.reason);
        ck_assert(met_get(&rec.metrics, "m", &got) == 0);
        ck_assert_msg(got == w, "case %zu: %g, before %g", i, got, w);
    }
    /* a NUL in the output is a line break, never the end of the text */
    static const char nul[] = "IPC = 1\n\0junk\nIPC = 7\n";
    store_record rec = finish_on("IPC = ([0-9]+)", nul, sizeof nul - 1);
    double v;
    ck_assert(rec.status == ST_OK && met_get(&rec.metrics, "m", &v) == 0);
    ck_assert(v == 7);
}
END_TEST

/* 320,000 matching lines: linear, well under a second on one core (the
 * quadratic scan took 29 s); 5 s is a guard, not a target (make bench
 * prints the figure). */
START_TEST(metric_extraction_is_linear)
{
#ifdef __SANITIZE_ADDRESS__
    /* AddressSanitizer's regexec interceptor measures the whole string on
     * every call (it knows nothing of REG_STARTEND): quadratic there, so
     * a sanitizer build checks the values on fewer lines, untimed */
    enum { N = 20000, TIMED = 0 };
#else
    enum { N = 320000, TIMED = 1 };
#endif
    size_t cap = (size_t)N * 32, len = 0;
    char *text = malloc(cap);
    ck_assert(text != NULL);
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(text + len, cap - len, "IPC = %d.5\n", i);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    store_record rec = finish_on("IPC\\s*=\\s*([0-9.]+)", text, len);
    clock_gettime(CLOCK_MONOTONIC, &b);
    free(text);
    double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    double v;
    ck_assert(rec.status == ST_OK && met_get(&rec.metrics, "m", &v) == 0);
    ck_assert(v == N - 1 + 0.5);
    ck_assert_msg(!TIMED || s < 5, "%d matching lines took %.1f s", N, s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("backends");
    TCase *t = tcase_create("backends");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, gpgpusim_failures_land_in_their_classes);
    tcase_add_test(t, kill9_mid_campaign_then_resume);
    tcase_add_test(t, command_backend);
    tcase_add_test(t, sigint_stops_and_stays_resumable);
    tcase_add_test(t, bad_external_campaigns);
    tcase_add_test(t, multi_fidelity_verifies_predicted_front);
    suite_add_tcase(s, t);
    TCase *m = tcase_create("metrics");
    tcase_set_timeout(m, 120);
    tcase_add_test(m, metric_extraction_unchanged);
    tcase_add_test(m, metric_extraction_is_linear);
    tcase_add_test(m, output_save_failure_stops_the_run);
    tcase_add_test(m, full_tmpfs_then_resume);
    suite_add_tcase(s, m);
    return s;
}

int main(void)
{
    if (tu_setup("backends") != 0)
        return 1;
    /* T is the simulator root of the fake GPGPU-Sim: a stand-in of its
     * built libcudart (the fake simulator, a script, never loads it) */
    shf("mkdir -p %s/lib/gcc-9.4.0/cuda-11000/release && echo stand-in > "
        "%s/lib/gcc-9.4.0/cuda-11000/release/libcudart.so", T, T);
    return tu_finish(tu_run_suite(suite()));
}
