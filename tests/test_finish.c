/* test_finish: finishing a campaign (issue 24, items 8-12) — rerunning
 * journaled failures with `run --retry` (an append-only journal read back
 * as each key's latest record), resuming across edits that do not change
 * results, `gpudse status`, per-job provenance and per-workload
 * resources. */
#include "testrun.h"
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "campaign.h"
#include "preflight.h"
#include "engine.h"
#include "jobrun.h"
#include "store.h"
#include "util.h"


/* A command-backend campaign whose simulator fails (exit 1) for workload
 * "flaky" while T/broken exists, and sleeps for "slow" while T/slow
 * exists. extra goes inside <campaign> (execution, comments). */
static void write_flaky(const char *path, const char *name, int budget,
                        const char *extra)
{
    char text[8192];
    tu_write(tp("/sim.sh"),
             "#!/bin/sh\n"
             "# args: clusters workload\n"
             "d=$(dirname \"$0\")\n"
             "if [ \"$2\" = flaky ] && [ -e \"$d/broken\" ]; then\n"
             "  echo 'simulator fell over' >&2; exit 1; fi\n"
             "if [ \"$2\" = slow ] && [ -e \"$d/slow\" ]; then\n"
             "  echo 'slow: starting'; sleep 30; fi\n"
             "echo \"IPC = $(($1 * 10))\"\n"
             "echo \"cycles = 1000\"\n");
    shf("chmod +x %s/sim.sh", T);
    snprintf(text, sizeof text,
             "<campaign name=\"%s\" seed=\"1\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>{campaign_dir}/sim.sh {n_clusters} {workload}"
             "</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC\\s*=\\s*([0-9.]+)\"/>\n"
             "    <metric name=\"cycles\" regex=\"cycles\\s*=\\s*([0-9]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"good\"/><workload name=\"flaky\"/>"
             "</workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"8 15 30 60\"/>"
             "</space>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"%d\"/>\n"
             "%s"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n", name, budget,
             extra ? extra : "  <execution jobs=\"2\" timeout=\"10\"/>\n");
    tu_write(path, text);
}

/* The same metrics, name for name and bit for bit. */
static int met_equal_test(const met_set *a, const met_set *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++) {
        double v;
        if (met_get(b, a->name[i], &v) != 0 || v != a->val[i])
            return 0;
    }
    return 1;
}

static int count_lines(const char *path)
{
    char cmd[PATH_MAX + 32], out[64];
    snprintf(cmd, sizeof cmd, "wc -l < %s", path);
    capture(cmd, out, sizeof out);
    return atoi(out);
}

static int run_retry(const char *camp, const char *dir, unsigned mask,
                     gd_err *err)
{
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.campaign_path = camp;
    o.outdir = dir;
    o.quiet = 1;
    o.retry_mask = mask;
    memset(err, 0, sizeof *err);
    return eng_run(&o, NULL, 0, err);
}

/* Item 8: journaled failures run again with --retry; the journal keeps
 * every attempt and readers take each key's latest. */
START_TEST(retry_reruns_journaled_failures)
{
    const char *camp = tp("/retry.xml"), *dir = tp("/retry-run");
    write_flaky(camp, "retry", 4, NULL);
    shf("touch %s/broken", T);
    gd_err err;
    ck_assert_int_eq(run_retry(camp, dir, 0, &err), GD_EJOBS);
    char journal[PATH_MAX];
    snprintf(journal, sizeof journal, "%s/results.jsonl", dir);
    ck_assert_int_eq(count_lines(journal), 8);
    /* without --retry, a resume leaves the failures as they are */
    shf("rm -f %s/broken", T);
    ck_assert_int_eq(run_retry(camp, dir, 0, &err), GD_EJOBS);
    ck_assert_int_eq(count_lines(journal), 8);
    /* --retry of another class reruns nothing */
    ck_assert_int_eq(run_retry(camp, dir, 1u << ST_TIMEOUT, &err), GD_EJOBS);
    ck_assert_int_eq(count_lines(journal), 8);
    /* --retry failed: four new records, each key's latest is ok */
    ck_assert_msg(run_retry(camp, dir, 1u << ST_FAILED, &err) == GD_OK, "%s",
                  err.msg);
    ck_assert_int_eq(count_lines(journal), 12);
    size_t n;
    store_record *r = load(dir, &n);
    ck_assert_uint_eq(n, 8);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(r[i].status, ST_OK);
        ck_assert_int_eq(r[i].attempts,
                         strcmp(r[i].workload, "flaky") ? 1 : 2);
    }
    free(r);
    /* the earlier attempt's logs are kept beside the new ones */
    ck_assert_int_eq(shf("ls %s/jobs/*/previous.stderr.log | wc -l | "
                         "grep -qx 4", dir), 0);
    ck_assert_int_eq(shf("grep -q 'rerun .* (journaled failed' %s/run.log",
                         dir), 0);
    ck_assert_int_eq(shf("grep -q 'finished: ok 8 failed 0 rc 0' %s/run.log",
                         dir), 0);
    /* a second --retry finds nothing to rerun */
    ck_assert_int_eq(run_retry(camp, dir, 1u << ST_FAILED, &err), GD_OK);
    ck_assert_int_eq(count_lines(journal), 12);
}
END_TEST

START_TEST(retry_option_on_the_command_line)
{
    const char *camp = tp("/retry-cli.xml"), *dir = tp("/retry-cli-run");
    write_flaky(camp, "retrycli", 4, NULL);
    shf("touch %s/broken", T);
    ck_assert_int_eq(shf("%s run %s -o %s -q >/dev/null 2>&1", tu_bin(), camp,
                         dir), 1);
    shf("rm -f %s/broken", T);
    ck_assert_int_eq(shf("%s run %s -o %s -q --retry bogus 2>%s/err.txt",
                         tu_bin(), camp, dir, T), 2);
    ck_assert_int_eq(shf("grep -q 'not \"bogus\"' %s/err.txt", T), 0);
    ck_assert_int_eq(shf("%s run %s -o %s -q --retry ok 2>/dev/null",
                         tu_bin(), camp, dir), 2);
    ck_assert_int_eq(shf("%s run %s -o %s -q --retry timeout,crashed "
                         ">/dev/null 2>&1", tu_bin(), camp, dir), 1);
    ck_assert_int_eq(shf("%s run %s -o %s -q --retry all >/dev/null 2>&1",
                         tu_bin(), camp, dir), 0);
    /* results.csv holds each key once, its latest outcome */
    ck_assert_int_eq(shf("grep -c ',failed' %s/results.csv | grep -qx 0",
                         dir), 0);
    ck_assert_int_eq(shf("%s help run | grep -q -- '--retry'", tu_bin()), 0);
}
END_TEST

#define ANALYTIC_TEXT \
    "<campaign name=\"ident\" seed=\"%d\">\n" \
    "  <simulator backend=\"analytic\"/>\n" \
    "  <workloads><workload name=\"vecadd\"/></workloads>\n" \
    "  <space>\n" \
    "    <knob name=\"n_clusters\" values=\"8 15 30 60\"/>\n" \
    "    <knob name=\"n_mem\" values=\"4 6 8 12\"/>\n" \
    "  </space>\n" \
    "  <objectives><maximize metric=\"ipc\"/><minimize " \
    "metric=\"area_mm2\"/></objectives>\n" \
    "  <search strategy=\"%s\" budget=\"%d\"/>\n" \
    "  <execution timeout=\"%d\"/>\n%s" \
    "  <report formats=\"svg\"/>\n" \
    "</campaign>\n"

static void write_analytic(const char *path, int seed, const char *strategy,
                           int budget, int timeout, const char *comment)
{
    char text[4096];
    snprintf(text, sizeof text, ANALYTIC_TEXT, seed, strategy, budget,
             timeout, comment);
    tu_write(path, text);
}

/* Item 9: edits that do not change results resume the run (and are
 * recorded); edits that do are refused, naming what changed. */
START_TEST(harmless_edits_resume_and_are_recorded)
{
    const char *camp = tp("/ident.xml"), *dir = tp("/ident-run");
    gd_err err;
    write_analytic(camp, 5, "random", 6, 5, "");
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_OK);
    write_analytic(camp, 5, "random", 6, 50, "");
    ck_assert_msg(run(camp, dir, &err, NULL, NULL) == GD_OK, "%s", err.msg);
    write_analytic(camp, 5, "random", 6, 50, "  <!-- a comment -->\n");
    ck_assert_msg(run(camp, dir, &err, NULL, NULL) == GD_OK, "%s", err.msg);
    ck_assert_int_eq(shf("grep -q 'campaign changed: timeout: 5 -> 50' "
                         "%s/run.log", dir), 0);
    ck_assert_int_eq(shf("grep -q 'campaign changed: comments or formatting' "
                         "%s/run.log", dir), 0);
    char path[PATH_MAX], *text;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    ck_assert_int_eq(util_read_file(path, &text, NULL, &err), 0);
    ck_assert_msg(strstr(text, "\"history\"") && strstr(text,
                  "timeout: 5 -> 50") && strstr(text, "comments or "
                  "formatting only"), "%s", text);
    free(text);
    /* the run directory's copy is the latest file */
    ck_assert_int_eq(shf("cmp -s %s %s/campaign.xml", camp, dir), 0);
}
END_TEST

START_TEST(edits_that_change_results_are_refused)
{
    const char *camp = tp("/ident2.xml"), *dir = tp("/ident2-run");
    gd_err err;
    write_analytic(camp, 5, "random", 6, 5, "");
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_OK);
    shf("cp %s/results.jsonl %s/before.jsonl", dir, T);
    write_analytic(camp, 6, "random", 6, 5, "");
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "seed: 5 -> 6"), "%s", err.msg);
    write_analytic(camp, 5, "nsga2", 6, 5, "");
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "strategy: random -> nsga2"), "%s",
                  err.msg);
    write_analytic(camp, 5, "random", 4, 5, "");
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "budget: 6 -> 4"), "%s", err.msg);
    /* nothing was touched by the refusals */
    ck_assert_int_eq(shf("cmp -s %s/results.jsonl %s/before.jsonl", dir, T),
                     0);
    ck_assert_int_eq(shf("grep -c 'start campaign' %s/run.log | grep -qx 1",
                         dir), 0);
    /* Latin hypercube strata depend on the budget: a larger one is new */
    const char *lhs = tp("/ident-lhs.xml"), *ldir = tp("/ident-lhs-run");
    write_analytic(lhs, 5, "lhs", 6, 5, "");
    ck_assert_int_eq(run(lhs, ldir, &err, NULL, NULL), GD_OK);
    write_analytic(lhs, 5, "lhs", 8, 5, "");
    ck_assert_int_eq(run(lhs, ldir, &err, NULL, NULL), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "strategy: lhs budget 6 -> lhs budget 8"),
                  "%s", err.msg);
}
END_TEST

/* Run camp at budget 6, then at 12, in dir. */
static void run_extended(const char *camp, const char *dir,
                         const char *strategy)
{
    gd_err err;
    write_analytic(camp, 5, strategy, 6, 5, "");
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_OK);
    write_analytic(camp, 5, strategy, 12, 5, "");
    ck_assert_msg(run(camp, dir, &err, NULL, NULL) == GD_OK, "%s", err.msg);
    ck_assert_int_eq(shf("grep -q 'campaign changed: budget: 6 -> 12' "
                         "%s/run.log", dir), 0);
    size_t n;
    free(load(dir, &n));
    ck_assert_uint_eq(n, 12);
}

/* A larger budget extends a random search to the records a fresh run with
 * that budget gives, and an adaptive one from where it stopped (the same
 * way each time). */
START_TEST(larger_budget_extends_the_search)
{
    gd_err err;
    run_extended(tp("/ext-random.xml"), tp("/ext-random-run"), "random");
    ck_assert_int_eq(run(tp("/ext-random.xml"), tp("/ext-random-fresh"), &err,
                         NULL, NULL), GD_OK);
    /* the same records; only `order` tells the two sessions' proposal
     * orders apart (the baseline joins a budget's first batch) */
    ck_assert_int_eq(shf("cd %s && cut -d, -f1-17,19- ext-random-run/"
                         "results.csv | sort > a.csv && cut -d, -f1-17,19- "
                         "ext-random-fresh/results.csv | sort > b.csv && "
                         "cmp -s a.csv b.csv", T), 0);
    static const char *const adaptive[] = {"nsga2", "surrogate", "agent"};
    for (int i = 0; i < 3; i++) {
        char camp[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
        snprintf(camp, sizeof camp, "%s/ext-%s.xml", T, adaptive[i]);
        snprintf(a, sizeof a, "%s/ext-%s-a", T, adaptive[i]);
        snprintf(b, sizeof b, "%s/ext-%s-b", T, adaptive[i]);
        run_extended(camp, a, adaptive[i]);
        run_extended(camp, b, adaptive[i]);
        ck_assert_msg(shf("cmp -s %s/results.csv %s/results.csv", a, b) == 0,
                      "%s: two extended runs differ", adaptive[i]);
        ck_assert_int_eq(shf("grep -Eq '\"budgets\":[[:space:]]*.6, 12.' "
                             "%s/manifest.json", a), 0);
    }
}
END_TEST

/* Item 10: status while a run goes on, after its coordinator died, and
 * with a result job-run wrote that nobody merged. */
static int wait_for(const char *cmd, double seconds)
{
    for (int i = 0; i < seconds * 20; i++) {
        if (shf("%s", cmd) == 0)
            return 1;
        usleep(50000);
    }
    return 0;
}

static cJSON *status_json(const char *dir)
{
    static char out[65536];
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "%s status %s --json", tu_bin(), dir);
    capture(cmd, out, sizeof out);
    cJSON *o = cJSON_Parse(out);
    ck_assert_msg(o != NULL, "not JSON: %s", out);
    return o;
}

static int total_of(const cJSON *o, const char *what)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "total");
    return cJSON_GetObjectItemCaseSensitive(t, what)->valueint;
}

START_TEST(status_while_running_and_after_a_crash)
{
    const char *camp = tp("/st.xml"), *dir = tp("/st-run");
    char text[8192];
    write_flaky(camp, "st", 4, NULL);
    /* the slow workload's jobs hang after a first line of output */
    snprintf(text, sizeof text, "sed -i 's/workload name=\"flaky\"/"
             "workload name=\"slow\"/' %s", camp);
    ck_assert_int_eq(shf("%s", text), 0);
    /* a user knob of one level: the running jobs' configs name it */
    snprintf(text, sizeof text, "sed -i 's#</space>#<knob name=\"my_policy\" "
             "values=\"lru\"/></space>#' %s", camp);
    ck_assert_int_eq(shf("%s", text), 0);
    shf("touch %s/slow", T);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        execl(tu_bin(), "gpudse", "run", camp, "-o", dir, "-q", "-j", "2",
              (char *)NULL);
        _exit(127);
    }
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "test $(grep -l 'slow: starting' "
             "%s/jobs/*/stdout.log 2>/dev/null | wc -l) = 2", dir);
    ck_assert_msg(wait_for(cmd, 20), "the slow jobs never started");
    cJSON *o = status_json(dir);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "running")));
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(o, "phase")
                     ->valuestring, "jobs");
    ck_assert_int_eq(total_of(o, "done"), 4);
    ck_assert_int_eq(total_of(o, "running"), 2);
    ck_assert_int_eq(total_of(o, "queued"), 2);
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(o, "jobs"), *j;
    ck_assert_int_eq(cJSON_GetArraySize(jobs), 2);
    cJSON_ArrayForEach(j, jobs) {
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "workload")
                         ->valuestring, "slow");
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "last_line")
                         ->valuestring, "slow: starting");
        const char *cfg = cJSON_GetObjectItemCaseSensitive(j, "config")
                          ->valuestring;
        ck_assert_msg(strstr(cfg, "n_clusters=")
                      && strstr(cfg, ",l2_sets=64,my_policy=lru"), "%s", cfg);
    }
    cJSON_Delete(o);
    /* the text form says the same */
    snprintf(cmd, sizeof cmd, "%s status %s | grep -q '^  total  *2  *2  *4"
             "  *0$'", tu_bin(), dir);
    ck_assert_int_eq(shf("%s", cmd), 0);
    /* the coordinator dies with its jobs */
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
    /* (the jobs' groups outlive it: end them, as a resume would) */
    shf("for g in $(cat %s/jobs.running); do kill -9 -$g; done "
        "2>/dev/null", dir);
    o = status_json(dir);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "running")));
    ck_assert_int_eq(total_of(o, "queued"), 4);
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(o, "interrupted")
                     ->valueint, 2);
    cJSON_Delete(o);
    /* finish it; then take the last record out of the journal as if a
     * Slurm task had written it and its coordinator died before merging */
    shf("rm -f %s/slow", T);
    ck_assert_int_eq(run(camp, dir, &(gd_err){0, ""}, NULL, NULL), GD_OK);
    snprintf(cmd, sizeof cmd, "cd %s && k=$(tail -1 results.jsonl | cut -c9-72)"
             " && tail -1 results.jsonl > jobs/$k/result.json && sed -i '$d' "
             "results.jsonl", dir);
    ck_assert_int_eq(shf("%s", cmd), 0);
    o = status_json(dir);
    ck_assert_int_eq(total_of(o, "done"), 8);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(o, "phase")
                     ->valuestring, "finished");
    cJSON_Delete(o);
    snprintf(cmd, sizeof cmd, "%s status %s | grep -q '1 result(s) written "
             "by job-run are not yet in the journal'", tu_bin(), dir);
    ck_assert_int_eq(shf("%s", cmd), 0);
    /* --watch on a run that is not running prints once and ends */
    ck_assert_int_eq(shf("timeout 10 %s status %s --watch 0.1 >/dev/null",
                         tu_bin(), dir), 0);
    ck_assert_int_eq(shf("%s status %s --bogus 2>/dev/null", tu_bin(), dir),
                     2);
}
END_TEST

/* Issue 28.3: status answers from the journal's summary (counts as of a
 * byte offset and the key of the line that ends there) and the lines
 * after it; a summary that does not match the journal is ignored. */
START_TEST(status_reads_the_summary_and_the_lines_after)
{
    const char *camp = tp("/sum.xml"), *dir = tp("/sum-run");
    write_flaky(camp, "sum", 4, NULL);
    ck_assert_int_eq(run(camp, dir, &(gd_err){0, ""}, NULL, NULL), GD_OK);
    shf("rm -rf %s/jobs", dir);
    char sum[PATH_MAX + 32], cmd[3 * PATH_MAX];
    snprintf(sum, sizeof sum, "%s/%s", dir, STORE_SUMMARY);
    ck_assert(util_path_exists(sum));
    cJSON *o = status_json(dir);
    ck_assert_int_eq(total_of(o, "done"), 8);
    ck_assert_int_eq(total_of(o, "failed"), 0);
    cJSON_Delete(o);
    /* the summary is what status counts from: say 3 of flaky's failed */
    snprintf(cmd, sizeof cmd, "sed -i 's/\\(\"workload\":\"flaky\"[^}]*"
             "\"failed\":\\)0/\\13/' %s", sum);
    ck_assert_int_eq(shf("%s", cmd), 0);
    o = status_json(dir);
    ck_assert_int_eq(total_of(o, "failed"), 3);
    cJSON_Delete(o);
    /* a line appended after it is read: a new key that failed */
    snprintf(cmd, sizeof cmd, "cd %s && tail -1 results.jsonl | sed "
             "'s/\"key\":\"./\"key\":\"z/; s/\"status\":\"ok\"/"
             "\"status\":\"failed\"/' > extra && cat extra >> results.jsonl",
             dir);
    ck_assert_int_eq(shf("%s", cmd), 0);
    o = status_json(dir);
    ck_assert_int_eq(total_of(o, "failed"), 4);
    cJSON_Delete(o);
    /* the journal no longer ends where the summary says: it is ignored
     * and the whole journal read (8 records, none failed) */
    snprintf(cmd, sizeof cmd, "cd %s && sed -i '$d' results.jsonl && "
             "sed -i '$d' results.jsonl", dir);
    ck_assert_int_eq(shf("%s", cmd), 0);
    o = status_json(dir);
    ck_assert_int_eq(total_of(o, "done"), 7);
    ck_assert_int_eq(total_of(o, "failed"), 0);
    cJSON_Delete(o);
}
END_TEST

/* Issue 28.3: with job folders (jobs/KEY of every external job), status
 * still counts from the summary and the lines after it, and finds which
 * folders are journaled in results.index — or, without a usable index,
 * in the journal's keys — never by reading every line. */
START_TEST(status_with_job_folders_reads_the_index)
{
    const char *camp = tp("/jf.xml"), *dir = tp("/jf-run");
    write_flaky(camp, "jf", 4, NULL);
    ck_assert_int_eq(run(camp, dir, &(gd_err){0, ""}, NULL, NULL), GD_OK);
    char sum[PATH_MAX + 32], cmd[3 * PATH_MAX];
    snprintf(sum, sizeof sum, "%s/%s", dir, STORE_SUMMARY);
    ck_assert_int_eq(shf("test $(ls %s/jobs | wc -l) = 8", dir), 0);
    /* the summary is what status counts from, job folders or not */
    snprintf(cmd, sizeof cmd, "sed -i 's/\\(\"workload\":\"flaky\"[^}]*"
             "\"failed\":\\)0/\\13/' %s", sum);
    ck_assert_int_eq(shf("%s", cmd), 0);
    cJSON *o = status_json(dir);
    ck_assert_int_eq(total_of(o, "done"), 5);   /* 8 less 3 failed */
    ck_assert_int_eq(total_of(o, "failed"), 3);
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(o, "interrupted")
                     ->valueint, 0);
    cJSON_Delete(o);
    /* every folder is journaled: found in the index, or without it (gone,
     * or damaged) in the journal's keys */
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            shf("rm -f %s/results.index", dir);
        else
            shf("echo damaged > %s/results.index", dir);
        o = status_json(dir);
        ck_assert_int_eq(total_of(o, "done"), 5);
        ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(o, "interrupted")
                         ->valueint, 0);
        cJSON_Delete(o);
    }
    snprintf(cmd, sizeof cmd, "%s status %s | grep -q 'not yet in the "
             "journal'", tu_bin(), dir);
    ck_assert_int_ne(shf("%s", cmd), 0);
}
END_TEST

/* Item 11: every job folder says what ran (cmd.sh, runnable by hand,
 * config.json, job.json for job-run); results.csv carries provenance,
 * timing.csv the wall times; the failures appendix each failed job's
 * config and whole reason. */
START_TEST(per_job_provenance)
{
    const char *camp = tp("/prov.xml"), *dir = tp("/prov-run");
    write_flaky(camp, "prov", 4, NULL);
    shf("touch %s/broken", T);
    gd_err err;
    ck_assert_int_eq(run_retry(camp, dir, 0, &err), GD_EJOBS);
    size_t n;
    store_record *r = load(dir, &n);
    ck_assert_uint_eq(n, 8);
    const store_record *ok = find(r, n, "good", 30);
    char bad_key[65];
    util_strlcpy(bad_key, find(r, n, "flaky", 8)->key, sizeof bad_key);
    char cmd[PATH_MAX * 2], out[4096];
    /* cmd.sh reruns the job by hand, from anywhere */
    snprintf(cmd, sizeof cmd, "cd / && %s/%s/jobs/%s/cmd.sh", root, dir,
             ok->key);
    capture(cmd, out, sizeof out);
    ck_assert_msg(strstr(out, "IPC = 300"), "%s", out);
    ck_assert_int_eq(shf("grep -q '\"n_clusters\":.30' %s/jobs/%s/config.json",
                         dir, ok->key), 0);
    ck_assert_int_eq(shf("grep -q '\"workload\":.\"good\"' "
                         "%s/jobs/%s/config.json", dir, ok->key), 0);
    /* job-run runs a local job again: the same record */
    ck_assert_int_eq(shf("%s job-run %s/jobs/%s", tu_bin(), dir, ok->key), 0);
    char res[PATH_MAX];
    snprintf(res, sizeof res, "%s/jobs/%s", dir, ok->key);
    store_record again;
    ck_assert_int_eq(jobrun_read_result(res, NULL, &again, &err), GD_OK);
    ck_assert_int_eq(again.status, ST_OK);
    ck_assert(met_equal_test(&again.metrics, &ok->metrics));
    free(r);
    /* a rerun with --retry: two attempts for the flaky jobs */
    shf("rm -f %s/broken", T);
    ck_assert_int_eq(run_retry(camp, dir, 1u << ST_FAILED, &err), GD_OK);
    snprintf(cmd, sizeof cmd, "head -1 %s/results.csv", dir);
    capture(cmd, out, sizeof out);
    ck_assert_msg(strstr(out, ",l2_sets,attempts,seed,order,on_front,"
                         "is_baseline,limit,bottleneck,"), "%s", out);
    ck_assert_msg(!strstr(out, "wall"), "%s", out);
    /* the flaky job at 8 clusters: attempts 2, seed 1, proposed first
     * (exhaustive order), not on the front (lowest IPC), not the baseline;
     * 15 clusters is the baseline */
    snprintf(cmd, sizeof cmd, "grep '^%s,' %s/results.csv | cut -d, -f16-22",
             bad_key, dir);
    capture(cmd, out, sizeof out);
    ck_assert_str_eq(out, "2,1,1,0,0,,\n");
    snprintf(cmd, sizeof cmd, "grep ',flaky,.*,15,1,6,49152,' %s/results.csv"
             " | cut -d, -f16-22", dir);
    capture(cmd, out, sizeof out);
    ck_assert_str_eq(out, "2,1,2,0,1,,\n");
    snprintf(cmd, sizeof cmd, "grep ',good,.*,60,1,6,49152,' %s/results.csv"
             " | cut -d, -f16-22", dir);
    capture(cmd, out, sizeof out);
    ck_assert_str_eq(out, "1,1,4,1,0,,\n");
    /* wall times: timing.csv, one row per attempt */
    ck_assert_int_eq(shf("test $(grep -c ',[0-9]*\\.[0-9]*$' "
                         "%s/timing.csv) = 12", dir), 0);
    /* the failures appendix (of the first session's report) */
    shf("touch %s/broken", T);
    ck_assert_int_eq(shf("rm -rf %s/prov-fail && %s run %s -o %s/prov-fail "
                         "-q >/dev/null 2>&1", T, tu_bin(), camp, T), 1);
    snprintf(cmd, sizeof cmd, "pdftotext %s/prov-fail/report.pdf - | tr '\n'"
             " ' ' | grep -q 'config: n_clusters=8, cores_per_cluster=1, "
             "n_mem=6, shmem_size=49152, scheduler=gto, num_sched_per_core=2,"
             " l1_sets=32, l2_sets=64 reason: exit code 1'", T);
    ck_assert_int_eq(shf("%s", cmd), 0);
    shf("rm -f %s/broken", T);
}
END_TEST

/* Item 12: per-workload resources over <execution>'s; a missing Slurm
 * configuration is said as such and leaves no run directory. */
START_TEST(per_workload_resources)
{
    const char *camp = tp("/res.xml"), *dir = tp("/res-run");
    write_flaky(camp, "res", 4, "  <execution jobs=\"2\" timeout=\"10\" "
                "retries=\"0\"/>\n");
    char cmd[PATH_MAX * 2];
    /* the slow workload may take 0.5 s, the others the campaign's 10 s */
    snprintf(cmd, sizeof cmd, "sed -i 's/workload name=\"flaky\"/workload "
             "name=\"slow\" timeout=\"0.5\" memory-mb=\"2048\" cpus=\"2\" "
             "gres=\"gpu:1\"/' %s", camp);
    ck_assert_int_eq(shf("%s", cmd), 0);
    camp_campaign c;
    gd_err err;
    ck_assert_msg(preflight_load(camp, &c, &err) == GD_OK, "%s", err.msg);
    ck_assert_double_eq(camp_wl_timeout(&c, 0), 10);
    ck_assert_double_eq(camp_wl_timeout(&c, 1), 0.5);
    ck_assert_double_eq(camp_wl_memory_mb(&c, 1), 2048);
    ck_assert_int_eq(camp_wl_cpus(&c, 1), 2);
    ck_assert_int_eq(camp_wl_cpus(&c, 0), 0);
    ck_assert_str_eq(camp_wl_gres(&c, 1), "gpu:1");
    ck_assert_str_eq(camp_wl_gres(&c, 0), "");
    camp_free(&c);
    shf("touch %s/slow", T);
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_EJOBS);
    shf("rm -f %s/slow", T);
    size_t n;
    store_record *r = load(dir, &n);
    ck_assert_uint_eq(n, 8);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(r[i].status,
                         (strcmp(r[i].workload, "slow") ? ST_OK : ST_TIMEOUT));
    free(r);
    /* each job's job.json carries its workload's limits (job-run, Slurm) */
    ck_assert_int_eq(shf("grep -l '\"timeout_s\":.0.5' %s/jobs/*/job.json | "
                         "wc -l | grep -qx 4", dir), 0);
    /* bad values name the file and line */
    tu_write(tp("/res-bad.xml"),
             "<campaign name=\"b\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>run</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC=([0-9]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\"/>\n"
             "    <workload name=\"b\" cpus=\"0\"/></workloads>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"random\" budget=\"2\"/>\n"
             "</campaign>\n");
    ck_assert_int_eq(preflight_load(tp("/res-bad.xml"), &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "res-bad.xml:7: cpus must be 1 to 4096"),
                  "%s", err.msg);
    /* no Slurm configuration: said as such, and no run directory made */
    ck_assert_int_eq(shf("SLURM_CONF=%s/none.conf %s run %s -o %s/res-slurm "
                         "--executor slurm 2>%s/slurm-err.txt", T, tu_bin(),
                         camp, T, T), 3);
    ck_assert_int_eq(shf("grep -q 'Slurm is not configured on this host' "
                         "%s/slurm-err.txt", T), 0);
    ck_assert_int_eq(shf("grep -q 'account\\|partition' %s/slurm-err.txt",
                         T), 1);
    ck_assert_int_eq(shf("test -e %s/res-slurm", T), 1);
    /* validate makes the same check for a campaign on Slurm (issue 24.6:
     * validate passes only what run accepts) */
    ck_assert_int_eq(shf("sed 's/<execution /<execution executor=\"slurm\" "
                         "/' %s > %s/res-onslurm.xml", camp, T), 0);
    ck_assert_int_eq(shf("SLURM_CONF=%s/none.conf %s validate "
                         "%s/res-onslurm.xml 2>%s/slurm-val.txt", T, tu_bin(),
                         T, T), 3);
    ck_assert_int_eq(shf("grep -q 'Slurm is not configured on this host' "
                         "%s/slurm-val.txt", T), 0);
}
END_TEST

/* A retry waiting for a worker while every worker runs a hanging job:
 * the running jobs still time out (the coordinator used to spin on a
 * zero wait that never fired their timers, and they ran 30 s). */
START_TEST(retried_jobs_keep_their_timeout)
{
    const char *camp = tp("/rt.xml"), *dir = tp("/rt-run");
    write_flaky(camp, "rt", 4, "  <execution jobs=\"2\" timeout=\"0.5\" "
                "retries=\"1\" backoff=\"0.1\" grace=\"0.2\"/>\n");
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "sed -i 's/workload name=\"good\"/workload "
             "name=\"slow\"/' %s", camp);
    ck_assert_int_eq(shf("%s", cmd), 0);
    shf("touch %s/slow", T);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    gd_err err;
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_EJOBS);
    clock_gettime(CLOCK_MONOTONIC, &b);
    shf("rm -f %s/slow", T);
    double dt = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    ck_assert_msg(dt < 20, "took %.1f s: the retries ran past their timeout",
                  dt);
    size_t n;
    store_record *r = load(dir, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].workload, "slow"))
            ck_assert_int_eq(r[i].status, ST_TIMEOUT);
    free(r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("finish");
    TCase *t = tcase_create("finish");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, retry_reruns_journaled_failures);
    tcase_add_test(t, retry_option_on_the_command_line);
    tcase_add_test(t, harmless_edits_resume_and_are_recorded);
    tcase_add_test(t, edits_that_change_results_are_refused);
    tcase_add_test(t, larger_budget_extends_the_search);
    tcase_add_test(t, status_while_running_and_after_a_crash);
    tcase_add_test(t, status_reads_the_summary_and_the_lines_after);
    tcase_add_test(t, status_with_job_folders_reads_the_index);
    tcase_add_test(t, per_job_provenance);
    tcase_add_test(t, per_workload_resources);
    tcase_add_test(t, retried_jobs_keep_their_timeout);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_main("finish", suite);
}
