/* test_slurm: the Slurm executor. Without a cluster: Slurm states to failure
 * classes, <execution executor="slurm"> parsing, and `gpudse job-run` on a
 * prepared job directory. With a real single-node Slurm started on loopback
 * by tests/slurm/start.sh (root only; skipped loudly otherwise): a campaign
 * whose jobs replay, crash and hang, run as array jobs, lands in the same
 * records as the local executor's (the hangs time out and are resubmitted
 * once); SIGINT cancels the queued and running tasks and the run resumes;
 * a coordinator killed with -9 is resumed by adopting its tasks; tasks
 * cancelled from outside are journaled as failed, and so is one whose job
 * ended of the cancel and was saved as if ok (also when a resumed run
 * adopts it); a stop keeps the results of tasks that completed before it
 * and runs the others again. */
#include "testrun.h"
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "backend.h"
#include "campaign.h"
#include "preflight.h"
#include "jobrun.h"
#include "exec_slurm.h"
#include "execif.h"
#include "store.h"

static int have_cluster;   /* set in main when the daemons came up */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- without a cluster ---- */

START_TEST(slurm_states_map_to_failure_classes)
{
    static const struct {
        const char *state;
        int status, infra;
    } cases[] = {
        {"PENDING", -1, 0}, {"RUNNING", -1, 0}, {"COMPLETING", -1, 0},
        {"TIMEOUT", ST_TIMEOUT, 0}, {"OUT_OF_MEMORY", ST_OOM, 0},
        {"NODE_FAIL", ST_CRASHED, 1}, {"PREEMPTED", ST_FAILED, 1},
        {"CANCELLED", ST_FAILED, 0}, {"FAILED", ST_FAILED, 0},
        {"COMPLETED", ST_FAILED, 0}, {"", ST_FAILED, 1},
        {"SOMETHING_NEW", ST_FAILED, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[128] = "";
        int infra = -1;
        int st = slurm_state_class(cases[i].state, &infra, why, sizeof why);
        ck_assert_msg(st == cases[i].status, "%s: %d", cases[i].state, st);
        ck_assert_msg(infra == cases[i].infra, "%s: infra %d",
                      cases[i].state, infra);
        if (st >= 0)
            ck_assert_msg(why[0], "%s: no reason", cases[i].state);
    }
    char why[128];
    int infra;
    slurm_state_class("OUT_OF_MEMORY", &infra, why, sizeof why);
    ck_assert_msg(strstr(why, "out of memory"), "%s", why);
}
END_TEST

/* A result.json is taken only from a task Slurm says COMPLETED (or no
 * longer knows); a task it cancelled, timed out or preempted is classified
 * by that state whatever its job wrote as it ended. */
START_TEST(results_are_taken_only_from_completed_tasks)
{
    static const struct {
        const char *state;
        int known, verdict;
    } cases[] = {
        {"COMPLETED", 1, SLURM_TAKE}, {"", 1, SLURM_TAKE},
        {"", 0, SLURM_WAIT}, {"RUNNING", 1, SLURM_WAIT},
        {"COMPLETING", 1, SLURM_WAIT}, {"PENDING", 1, SLURM_WAIT},
        {"REQUEUED", 1, SLURM_WAIT}, {"SIGNALING", 1, SLURM_WAIT},
        {"CANCELLED", 1, SLURM_SET_ASIDE}, {"TIMEOUT", 1, SLURM_SET_ASIDE},
        {"DEADLINE", 1, SLURM_SET_ASIDE}, {"PREEMPTED", 1, SLURM_SET_ASIDE},
        {"NODE_FAIL", 1, SLURM_SET_ASIDE},
        {"OUT_OF_MEMORY", 1, SLURM_SET_ASIDE}, {"FAILED", 1, SLURM_SET_ASIDE},
        {"SOMETHING_NEW", 1, SLURM_SET_ASIDE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(slurm_result_verdict(cases[i].state, cases[i].known)
                      == cases[i].verdict, "%s (known %d)", cases[i].state,
                      cases[i].known);
}
END_TEST

static void write_exec_campaign(const char *path, const char *exec_attrs)
{
    char text[2048];
    snprintf(text, sizeof text,
             "<campaign name=\"ex\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>echo IPC = {n_clusters}</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC = ([0-9.]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\"/></workloads>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"random\" budget=\"2\"/>\n"
             "  <execution %s/>\n"
             "</campaign>\n", exec_attrs);
    tu_write(path, text);
}

START_TEST(execution_executor_attributes)
{
    camp_campaign c;
    gd_err err;
    write_exec_campaign(tp("/ex1.xml"), "executor=\"slurm\" partition=\"gpu\" "
                        "account=\"arch\" array-limit=\"8\" "
                        "sbatch-options=\"--qos=short --nice=10\"");
    ck_assert_msg(preflight_load(tp("/ex1.xml"), &c, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(c.cluster.executor, "slurm");
    ck_assert_str_eq(c.cluster.partition, "gpu");
    ck_assert_str_eq(c.cluster.account, "arch");
    ck_assert_int_eq(c.cluster.array_limit, 8);
    ck_assert_str_eq(c.cluster.sbatch_options, "--qos=short --nice=10");
    exec_choice ch;
    exec_choose(&c, NULL, 0, &ch);
    ck_assert_str_eq(ch.executor, "slurm");
    exec_choose(&c, "local", 0, &ch);
    ck_assert_str_eq(ch.executor, "local");
    camp_free(&c);

    write_exec_campaign(tp("/ex2.xml"), "jobs=\"2\"");
    ck_assert_msg(preflight_load(tp("/ex2.xml"), &c, &err) == 0, "%s", err.msg);
    exec_choose(&c, NULL, 0, &ch);
    ck_assert_str_eq(ch.executor, "local");
    exec_choose(&c, "slurm", 0, &ch);
    ck_assert_str_eq(ch.executor, "slurm");
    camp_free(&c);

    write_exec_campaign(tp("/ex3.xml"), "executor=\"pbs\"");
    ck_assert_int_eq(preflight_load(tp("/ex3.xml"), &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "ex3.xml:") && strstr(err.msg,
                  "execution"), "%s", err.msg);
    write_exec_campaign(tp("/ex4.xml"), "executor=\"slurm\" "
                        "array-limit=\"-1\"");
    ck_assert_int_eq(preflight_load(tp("/ex4.xml"), &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "ex4.xml:9") && strstr(err.msg,
                  "array-limit"), "%s", err.msg);
    /* the flag is checked too */
    ck_assert_int_eq(shf("%s run %s --executor pbs >/dev/null 2>&1",
                         tu_bin(), tp("/ex2.xml")), 2);
}
END_TEST

/* -j and <execution jobs=> are one setting: one range (0, one per online
 * core, to 4096) and one message whichever executor, and the command
 * line's wins over the campaign's, decided in one place (exec_choose). */
START_TEST(jobs_from_cli_and_campaign_one_range_one_message)
{
    static const char *const exs[] = {"local", "slurm"};
    static const char *const bad[] = {"5000", "-1"};
    for (int e = 0; e < 2; e++)
        for (int b = 0; b < 2; b++) {
            char attrs[128], path[PATH_MAX], msg[128], out[8192], cmd[2048];
            snprintf(msg, sizeof msg, "jobs must be 0 (one per online core) "
                     "to 4096, not \"%s\"", bad[b]);
            snprintf(attrs, sizeof attrs, "executor=\"%s\" jobs=\"%s\"",
                     exs[e], bad[b]);
            snprintf(path, sizeof path, "%s/jobs-%s-%d.xml", T, exs[e], b);
            write_exec_campaign(path, attrs);
            camp_campaign c;
            gd_err err;
            ck_assert_int_eq(camp_load(path, &c, &err), GD_EINPUT);
            ck_assert_msg(names_file_line(err.msg, path)
                          && strstr(err.msg, msg), "%s", err.msg);
            /* the same count on the command line: the same message */
            write_exec_campaign(path, "jobs=\"2\"");
            snprintf(cmd, sizeof cmd, "%s run %s -j %s --executor %s -o "
                     "%s/jobs-never 2>&1", tu_bin(), path, bad[b], exs[e], T);
            ck_assert_int_eq(shf("%s >/dev/null 2>&1", cmd), 2);
            capture(cmd, out, sizeof out);
            ck_assert_msg(strstr(out, msg), "%s: %s", exs[e], out);
            ck_assert_int_ne(shf("test -e %s/jobs-never", T), 0);
        }
    /* the bounds are in range, for both */
    camp_campaign c;
    gd_err err;
    write_exec_campaign(tp("/jobs0.xml"), "executor=\"slurm\" jobs=\"0\"");
    ck_assert_msg(camp_load(tp("/jobs0.xml"), &c, &err) == 0, "%s", err.msg);
    camp_free(&c);
    write_exec_campaign(tp("/jobs3.xml"), "jobs=\"3\"");
    ck_assert_msg(camp_load(tp("/jobs3.xml"), &c, &err) == 0, "%s", err.msg);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    exec_choice ch;
    exec_choose(&c, NULL, 0, &ch);
    ck_assert_int_eq(ch.workers, 3);
    ck_assert_str_eq(ch.executor, "local");
    exec_choose(&c, "slurm", 2, &ch);
    ck_assert_int_eq(ch.workers, 2);
    ck_assert_str_eq(ch.executor, "slurm");
    exec_choose(&c, NULL, ENG_JOBS_PER_CORE, &ch);
    ck_assert_int_eq(ch.workers, cores > 0 ? (int)cores : 1);
    camp_free(&c);
    /* -j 0 runs, one worker per online core over the campaign's 3 */
    char out[8192], want[64], cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run %s -j 0 --executor local -o %s/jobs-run"
             " 2>&1", tu_bin(), tp("/jobs3.xml"), T);
    capture(cmd, out, sizeof out);
    snprintf(want, sizeof want, "with %ld worker(s)", cores);
    ck_assert_msg(strstr(out, want), "%s", out);
    ck_assert_int_eq(shf("test -s %s/jobs-run/results.jsonl", T), 0);
}
END_TEST

/* Prepare one command-backend job as the coordinator does, then run
 * `gpudse job-run` on it. */
START_TEST(job_run_writes_the_record)
{
    tu_write(tp("/jr.xml"),
             "<campaign name=\"jr\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>printf '%03000d\\n' 0; echo IPC = {n_clusters}; "
             "[ {n_clusters} = 15 ] || kill -SEGV $$</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC = ([0-9.]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"15 30\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
             "</campaign>\n");
    camp_campaign c;
    gd_err err;
    ck_assert_msg(preflight_load(tp("/jr.xml"), &c, &err) == 0, "%s", err.msg);
    const be_backend *be = be_find("command");
    char absT[PATH_MAX], camp[PATH_MAX + 16];
    ck_assert(realpath(T, absT) != NULL);
    snprintf(camp, sizeof camp, "%s/jr.xml", absT);
    for (int clusters = 15; clusters <= 30; clusters += 15) {
        char dir[PATH_MAX + 32];
        snprintf(dir, sizeof dir, "%s/job%d", absT, clusters);
        shf("rm -rf %s; mkdir -p %s", dir, dir);
        be_job bj;
        memset(&bj, 0, sizeof bj);
        bj.camp = &c;
        bj.workload = &c.workloads[0];
        bj.cfg = space_baseline();
        bj.cfg.n_clusters = clusters;
        bj.seed = 1;
        be_job_key(be, c.sim_fingerprint, &c.space, bj.workload, &bj.cfg, 1, bj.key);
        bj.job_dir = dir;
        be_exec x;
        be_exec_init(&x);
        ck_assert_msg(be->prepare(&bj, &x, &err) == 0, "%s", err.msg);
        ck_assert_msg(jobrun_write_spec(be, &bj, &x, camp, &err) == 0, "%s",
                      err.msg);
        be_exec_free(&x);
        ck_assert_int_eq(shf("%s job-run %s", tu_bin(), dir), 0);
        store_record r;
        ck_assert_msg(jobrun_read_result(dir, &c.space, &r, &err) == 0, "%s", err.msg);
        ck_assert_str_eq(r.key, bj.key);
        ck_assert_str_eq(r.workload, "a");
        ck_assert_int_eq(r.cfg.n_clusters, clusters);
        if (clusters == 15) {
            double v;
            ck_assert_msg(r.status == ST_OK, "%s", r.reason);
            ck_assert(met_get(&r.metrics, "ipc", &v) == 0);
            ck_assert_double_eq(v, 15);
        } else {
            ck_assert_int_eq(r.status, ST_CRASHED);
        }
    }
    camp_free(&c);
    /* output that cannot be saved (a 1 KB file size limit under the job's
     * 3 KB, as a full disk would): exit 3, no result.json, the message left
     * for the
     * coordinator, which journals nothing and stops (issue 22.1) */
    ck_assert_int_eq(shf("rm -f %s/job15/result.json && sh -c 'trap \"\" "
                         "XFSZ; ulimit -f 2; exec %s job-run %s/job15' "
                         "2>/dev/null", absT, tu_bin(), absT), 3);
    ck_assert_int_ne(shf("test -e %s/job15/result.json", absT), 0);
    char msg[512], dir15[PATH_MAX + 32];
    snprintf(dir15, sizeof dir15, "%s/job15", absT);
    ck_assert_int_eq(jobrun_take_env_error(dir15, msg, sizeof msg), 1);
    ck_assert_msg(strstr(msg, "File too large"), "%s", msg);
    ck_assert_int_eq(jobrun_take_env_error(dir15, msg, sizeof msg), 0);
    /* a broken job.json: bad input, no result */
    shf("mkdir -p %s/bad && echo '{\"key\": 1}' > %s/bad/job.json", T, T);
    ck_assert_int_eq(shf("%s job-run %s/bad 2>/dev/null", tu_bin(), T), 2);
    ck_assert_int_ne(shf("test -e %s/bad/result.json", T), 0);
}
END_TEST

/* ---- on the test cluster ---- */

#define NEED_CLUSTER()                                                   \
    do {                                                                 \
        if (!have_cluster)                                               \
            return;  /* main printed SKIP with the reason */             \
    } while (0)

static void write_modes_campaign(const char *path, const char *name,
                                 const char *exec_extra)
{
    static const char *const modes[] = {"replay", "crash", "hang"};
    char text[8192];
    int off = snprintf(text, sizeof text,
        "<campaign name=\"%s\" seed=\"1\">\n"
        "  <simulator backend=\"gpgpusim\" root=\"%s/%s\"/>\n"
        "  <workloads>\n", name, root, T);
    for (int i = 0; i < 3; i++)
        off += snprintf(text + off, sizeof text - (size_t)off,
            "    <workload name=\"%s\"><command>%s/tests/fakesim/fakesim.sh "
            "%s %s/tests/data/gpgpusim/vecadd-baseline.log.gz</command>"
            "</workload>\n", modes[i], root, modes[i], root);
    snprintf(text + off, sizeof text - (size_t)off,
        "  </workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"15 30\"/></space>\n"
        "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
        "  <execution jobs=\"2\" timeout=\"1.5\" retries=\"1\" grace=\"0.3\" "
        "backoff=\"0.05\" memory-mb=\"512\" %s/>\n"
        "  <report formats=\"svg\"/>\n"
        "</campaign>\n", exec_extra);
    tu_write(path, text);
}

/* results.jsonl with its lines sorted (completion order varies). */
static void sorted_journal(const char *dir, char *buf, size_t n)
{
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "sort %s/results.jsonl", dir);
    capture(cmd, buf, n);
}

START_TEST(campaign_runs_as_array_jobs)
{
    NEED_CLUSTER();
    write_modes_campaign(tp("/m.xml"), "m", "array-limit=\"4\"");
    shf("rm -rf %s/m-slurm %s/m-local", T, T);
    ck_assert_int_eq(shf("%s run %s -o %s -q --executor slurm >/dev/null",
                         tu_bin(), tp("/m.xml"), tp("/m-slurm")), 1);
    size_t n;
    store_record *r = load(tp("/m-slurm"), &n);
    ck_assert_uint_eq(n, 6);
    for (int c = 15; c <= 30; c += 15) {
        const store_record *ok = find(r, n, "replay", c);
        ck_assert_msg(ok->status == ST_OK, "replay: %s", ok->reason);
        double ipc;
        ck_assert(met_get(&ok->metrics, "ipc", &ipc) == 0);
        ck_assert_double_eq_tol(ipc, 280.4393, 1e-9);
        ck_assert_int_eq(find(r, n, "crash", c)->status, ST_CRASHED);
        const store_record *h = find(r, n, "hang", c);
        ck_assert_msg(h->status == ST_TIMEOUT, "hang: %s %s",
                      store_status_name(h->status), h->reason);
    }
    free(r);
    /* the first arrays have all 6 jobs, one array per workload (with the
     * %4 throttle), then the two timed-out jobs are resubmitted once — in
     * one array or two, as their backoffs end — so 8 tasks in all; each
     * job's Slurm id is kept */
    ck_assert_int_eq(shf("grep 'submitted Slurm array job' %s/m-slurm/run.log"
                         " | head -3 | grep -c ': 2 task(s) of ' | grep -qx 3",
                         T), 0);
    ck_assert_int_eq(shf("test $(sed -n 's/.*submitted Slurm array job .*: "
                         "\\([0-9]*\\) task.*/\\1/p' %s/m-slurm/run.log | "
                         "awk '{ s += $1 } END { print s }') = 8", T), 0);
    ck_assert_int_eq(shf("grep -q 'retry .* attempt 2 after timeout' "
                         "%s/m-slurm/run.log", T), 0);
    ck_assert_int_eq(shf("test $(ls %s/m-slurm/jobs/*/attempt1.stdout.log "
                         "| wc -l) = 2", T), 0);
    ck_assert_int_eq(shf("test $(ls %s/m-slurm/jobs/*/slurm.json | wc -l) "
                         "= 6", T), 0);
    /* the same records as the local executor's */
    ck_assert_int_eq(shf("%s run %s -o %s -q --executor local >/dev/null",
                         tu_bin(), tp("/m.xml"), tp("/m-local")), 1);
    static char a[65536], b[65536];
    sorted_journal(tp("/m-slurm"), a, sizeof a);
    sorted_journal(tp("/m-local"), b, sizeof b);
    ck_assert_msg(strlen(a) > 100 && !strcmp(a, b),
                  "journals differ:\n%s\n--\n%s", a, b);
}
END_TEST

/* A command-backend campaign of n jobs that sleep $GPUDSE_TEST_SLEEP s. */
static void write_sleep_campaign(const char *path, const char *name, int n)
{
    /* a sleep cut short reports nothing: when scancel's SIGTERM reaches
     * the sleep before the shell, the shell must not go on to print a
     * result (that would be a job that finished) */
    tu_write(tp("/sleepy.sh"), "#!/bin/sh\nsleep \"${GPUDSE_TEST_SLEEP:-30}\" "
             "|| exit 1\necho \"IPC = $1\"\n");
    shf("chmod +x %s", tp("/sleepy.sh"));
    char values[64] = "";
    static const int cl[] = {8, 15, 30, 60};
    for (int i = 0; i < n && i < 4; i++)
        snprintf(values + strlen(values), sizeof values - strlen(values),
                 "%s%d", i ? " " : "", cl[i]);
    char text[4096];
    snprintf(text, sizeof text,
             "<campaign name=\"%s\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>{campaign_dir}/sleepy.sh {n_clusters}</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC = ([0-9.]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\" timeout=\"300\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"%s\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"%d\"/>\n"
             "  <execution executor=\"slurm\" timeout=\"60\" grace=\"0.5\"/>\n"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n", name, values, n);
    tu_write(path, text);
}

static pid_t start_run(const char *camp, const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {  /* its messages go to T/child.log */
        FILE *log = freopen(tp("/child.log"), "a", stdout);
        if (log)
            dup2(fileno(log), 2);
        execl(tu_bin(), "gpudse", "run", camp, "-o", dir, "-q", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Wait up to limit_s until `cmd` exits 0. */
static int wait_for(const char *cmd, double limit_s)
{
    double t0 = now_s();
    while (now_s() - t0 < limit_s) {
        if (shf("%s", cmd) == 0)
            return 1;
        usleep(100000);
    }
    return 0;
}

/* A Slurm task ended for its time limit: Slurm sends SIGTERM to job-run
 * (its own process group, not the job's), and SIGKILL only after KillWait
 * (30 s by default), longer than the job's grace. job-run passes the
 * SIGTERM on to everything the job started — its own children and a
 * daemon it started with setsid() — and kills what is left after the
 * grace: the simulator ends with the task, which leaves no result. */
START_TEST(job_run_stopped_takes_its_job)
{
    tu_write(tp("/hold.xml"),
             "<campaign name=\"hold\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>sleep 300 &amp; echo $! &gt; bg.pid; (setsid sh -c "
             "'echo $$ &gt; gc.pid; exec sleep 300' &amp;); trap '' TERM; "
             "while :; do sleep 0.05; done</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC = ([0-9.]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"15\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"1\"/>\n"
             "  <execution timeout=\"60\" grace=\"0.3\"/>\n"
             "</campaign>\n");
    camp_campaign c;
    gd_err err;
    ck_assert_msg(preflight_load(tp("/hold.xml"), &c, &err) == 0, "%s", err.msg);
    const be_backend *be = be_find("command");
    char absT[PATH_MAX], camp[PATH_MAX + 16];
    ck_assert(realpath(T, absT) != NULL);
    snprintf(camp, sizeof camp, "%s/hold.xml", absT);
    static const int sigs[] = {SIGTERM};
    for (int k = 0; k < 1; k++) {
        char dir[PATH_MAX + 32];
        snprintf(dir, sizeof dir, "%s/hold%d", absT, k);
        shf("rm -rf %s; mkdir -p %s", dir, dir);
        be_job bj;
        memset(&bj, 0, sizeof bj);
        bj.camp = &c;
        bj.workload = &c.workloads[0];
        bj.cfg = space_baseline();
        bj.seed = 1;
        be_job_key(be, c.sim_fingerprint, &c.space, bj.workload, &bj.cfg, 1, bj.key);
        bj.job_dir = dir;
        be_exec x;
        be_exec_init(&x);
        ck_assert_msg(be->prepare(&bj, &x, &err) == 0, "%s", err.msg);
        ck_assert(jobrun_write_spec(be, &bj, &x, camp, &err) == 0);
        be_exec_free(&x);
        /* an earlier run's result (a requeued task): not this run's */
        shf("echo '{\"stale\": 1}' > %s/result.json", dir);
        pid_t jr = fork();
        if (jr == 0) {
            execl(tu_bin(), "gpudse", "job-run", dir, (char *)NULL);
            _exit(127);
        }
        char cmd[PATH_MAX + 64];
        snprintf(cmd, sizeof cmd, "test -s %s/gc.pid -a -s %s/bg.pid", dir,
                 dir);
        ck_assert_msg(wait_for(cmd, 10), "the job never started");
        kill(jr, sigs[k]);
        int st;
        waitpid(jr, &st, 0);
        pid_t left[2];
        for (int i = 0; i < 2; i++) {
            char path[PATH_MAX + 16], *text;
            snprintf(path, sizeof path, "%s/%s", dir, i ? "gc.pid" : "bg.pid");
            ck_assert(util_read_file(path, &text, NULL, &err) == 0);
            left[i] = (pid_t)atol(text);
            free(text);
        }
        int ok0 = pid_gone(left[0]), ok1 = pid_gone(left[1]);
        if (!ok0)
            kill(left[0], SIGKILL);
        if (!ok1)
            kill(left[1], SIGKILL);
        ck_assert_msg(ok0 && ok1, "after %s to job-run: its job's child %s, "
                      "its daemon %s", strsignal(sigs[k]),
                      ok0 ? "gone" : "ALIVE", ok1 ? "gone" : "ALIVE");
        if (k == 0)  /* stopped: no result, an environment error */
            ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3
                          && shf("test -e %s/result.json", dir) != 0,
                          "status %d", st);
    }
    camp_free(&c);
}
END_TEST

START_TEST(sigint_cancels_the_tasks_and_the_run_resumes)
{
    NEED_CLUSTER();
    unsetenv("GPUDSE_TEST_SLEEP");
    write_sleep_campaign(tp("/int.xml"), "int", 2);
    shf("rm -rf %s/int-run", T);
    pid_t pid = start_run(tp("/int.xml"), tp("/int-run"));
    char cmd[PATH_MAX];
    /* both tasks running: their sleeps have written nothing yet */
    snprintf(cmd, sizeof cmd, "test \"$(squeue -h -t RUNNING -n gpudse-int-a "
             "-o %%i | wc -l)\" = 2 && test $(ls %s/int-run/jobs/*/stdout.log "
             "2>/dev/null | wc -l) = 2", T);
    ck_assert_msg(wait_for(cmd, 20), "the tasks never ran");
    kill(pid, SIGINT);
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status %d", st);
    /* Slurm cancelled them: nothing of ours queued or running, no
     * process left in the run directory, no Slurm id kept for resume */
    ck_assert_msg(wait_for("test -z \"$(squeue -h -n gpudse-int-a "
                           "-t PENDING,RUNNING,COMPLETING -o %i)\"", 10),
                  "tasks still alive after SIGINT");
    usleep(500000);  /* KillWait lets job-run stop its job first */
    int left = procs_in(tp("/int-run/jobs"));
    ck_assert_msg(left == 0, "%d processes left in the job directories",
                  left);
    ck_assert_int_ne(shf("ls %s/int-run/jobs/*/slurm.json >/dev/null 2>&1",
                         T), 0);
    ck_assert_int_eq(shf("test $(grep -c 'interrupted .* cancelled Slurm "
                         "job' %s/int-run/run.log) = 2", T), 0);
    /* resume: both run again, now quickly */
    setenv("GPUDSE_TEST_SLEEP", "0", 1);
    snprintf(cmd, sizeof cmd, "%s run %s -o %s -q >/dev/null", tu_bin(),
             tp("/int.xml"), tp("/int-run"));
    ck_assert_int_eq(shf("%s", cmd), 0);
    unsetenv("GPUDSE_TEST_SLEEP");
    size_t n;
    store_record *r = load(tp("/int-run"), &n);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(r[i].status == ST_OK, "%s", r[i].reason);
    free(r);
}
END_TEST

START_TEST(a_dead_coordinators_tasks_are_adopted)
{
    NEED_CLUSTER();
    setenv("GPUDSE_TEST_SLEEP", "3", 1);
    write_sleep_campaign(tp("/k9.xml"), "k9", 4);
    shf("rm -rf %s/k9-run", T);
    pid_t pid = start_run(tp("/k9.xml"), tp("/k9-run"));
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "test $(ls %s/k9-run/jobs/*/slurm.json "
             "2>/dev/null | wc -l) = 4", T);
    ck_assert_msg(wait_for(cmd, 20), "never submitted");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    char ids[512];
    snprintf(cmd, sizeof cmd, "cat %s/k9-run/jobs/*/slurm.json | sort", T);
    capture(cmd, ids, sizeof ids);
    /* the tasks live on without their coordinator */
    /* the array is named after the campaign and the workload, and asks
     * for the workload's own time limit (300 s + grace + a minute) */
    ck_assert_int_eq(shf("test \"$(squeue -h -n gpudse-k9-a -o %%l | sort "
                         "-u)\" = 7:00"), 0);
    ck_assert_int_ne(shf("test -z \"$(squeue -h -n gpudse-k9-a "
                         "-t PENDING,RUNNING -o %%i)\""), 0);
    /* gpudse status asks Slurm about them: 4 queued or running, none
     * done, each listed with its task id and state */
    static char st[16384];
    snprintf(cmd, sizeof cmd, "%s status %s", tu_bin(), tp("/k9-run"));
    capture(cmd, st, sizeof st);
    ck_assert_msg(strstr(st, "not running") && strstr(st, "slurm ")
                  && (strstr(st, " RUNNING") || strstr(st, " PENDING")),
                  "%s", st);
    snprintf(cmd, sizeof cmd, "%s status %s --json | tr -d ' \t\n' | "
             "grep -Eq '\"total\":\\{\"queued\":[0-4],\"running\":"
             "[0-4],\"done\":0,\"failed\":0\\}'", tu_bin(),
             tp("/k9-run"));
    ck_assert_msg(shf("%s", cmd) == 0, "%s", st);
    snprintf(cmd, sizeof cmd, "%s run %s -o %s -q >/dev/null", tu_bin(),
             tp("/k9.xml"), tp("/k9-run"));
    ck_assert_int_eq(shf("%s", cmd), 0);
    unsetenv("GPUDSE_TEST_SLEEP");
    size_t n;
    store_record *r = load(tp("/k9-run"), &n);
    ck_assert_uint_eq(n, 4);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(r[i].status == ST_OK, "%s", r[i].reason);
    free(r);
    /* adopted, never submitted again */
    char after[512];
    snprintf(cmd, sizeof cmd, "cat %s/k9-run/jobs/*/slurm.json | sort", T);
    capture(cmd, after, sizeof after);
    ck_assert_str_eq(ids, after);
    ck_assert_int_eq(shf("test $(grep -c 'submitted Slurm array job' "
                         "%s/k9-run/run.log) = 1", T), 0);
    ck_assert_int_eq(shf("test $(grep -c 'adopted' %s/k9-run/run.log) = 4",
                         T), 0);
}
END_TEST

/* Tasks Slurm ends without a result (scancel from outside): after a grace
 * period for the result file, each is journaled in its failure class. */
START_TEST(tasks_slurm_ends_are_classified)
{
    NEED_CLUSTER();
    unsetenv("GPUDSE_TEST_SLEEP");
    write_sleep_campaign(tp("/cx.xml"), "cx", 2);
    shf("rm -rf %s/cx-run", T);
    pid_t pid = start_run(tp("/cx.xml"), tp("/cx-run"));
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "test \"$(squeue -h -t RUNNING -n gpudse-cx-a "
             "-o %%i | wc -l)\" = 2");
    ck_assert_msg(wait_for(cmd, 20), "the tasks never ran");
    ck_assert_int_eq(shf("scancel -n gpudse-cx-a"), 0);
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
    size_t n;
    store_record *r = load(tp("/cx-run"), &n);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(r[i].status, ST_FAILED);
        ck_assert_msg(strstr(r[i].reason, "CANCELLED")
                      && strstr(r[i].reason, "cancelled outside gpudse"),
                      "%s", r[i].reason);
    }
    free(r);
    ck_assert_int_eq(shf("test $(grep -c 'submitted Slurm array job' "
                         "%s/cx-run/run.log) = 1", T), 0);
}
END_TEST

/* A campaign of two jobs whose simulator wrapper, told to stop (SIGTERM),
 * prints the partial metrics it has (IPC = 0.5) and exits 0, as real
 * wrappers do; otherwise it sleeps $GPUDSE_TEST_SLEEP s (30) and prints
 * IPC = n_clusters. Its pid and its sleep's land in sim.pid and sleep.pid
 * in the job directory. */
static void write_trap_campaign(const char *path, const char *name)
{
    tu_write(tp("/trapper.sh"), "#!/bin/sh\n"
             "trap 'kill $pid 2>/dev/null; echo \"IPC = 0.5\"; exit 0' TERM\n"
             "sleep \"${GPUDSE_TEST_SLEEP:-30}\" &\npid=$!\n"
             "echo $pid > sleep.pid\necho $$ > sim.pid\nwait $pid\n"
             "echo \"IPC = $1\"\n");
    shf("chmod +x %s", tp("/trapper.sh"));
    char text[4096];
    snprintf(text, sizeof text,
             "<campaign name=\"%s\">\n"
             "  <simulator backend=\"command\">\n"
             "    <command>{campaign_dir}/trapper.sh {n_clusters}</command>\n"
             "    <metric name=\"ipc\" regex=\"IPC = ([0-9.]+)\"/>\n"
             "  </simulator>\n"
             "  <workloads><workload name=\"a\" timeout=\"300\"/></workloads>\n"
             "  <space><knob name=\"n_clusters\" values=\"8 15\"/></space>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
             "  <execution executor=\"slurm\" timeout=\"60\" grace=\"0.5\"/>\n"
             "  <report formats=\"svg\"/>\n"
             "</campaign>\n", name);
    tu_write(path, text);
}

/* The two job directories of run dir (sorted), once both tasks run and
 * their simulators wrote their pids. */
static void two_running_jobs(const char *run, const char *name,
                             char dirs[2][PATH_MAX])
{
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "test \"$(squeue -h -t RUNNING -n gpudse-%s-a "
             "-o %%i | wc -l)\" = 2 && test $(ls %s/jobs/*/sim.pid "
             "2>/dev/null | wc -l) = 2", name, run);
    ck_assert_msg(wait_for(cmd, 20), "the tasks never ran");
    char list[2 * PATH_MAX + 8];
    snprintf(cmd, sizeof cmd, "ls -d %s/jobs/*/ | sort | tr -s / | "
             "sed 's,/$,,'", run);
    capture(cmd, list, sizeof list);
    char *nl = strchr(list, '\n');
    ck_assert(nl != NULL);
    *nl = '\0';
    util_strlcpy(dirs[0], list, PATH_MAX);
    util_strlcpy(dirs[1], nl + 1, PATH_MAX);
    nl = strchr(dirs[1], '\n');
    if (nl)
        *nl = '\0';
}

/* The task id (JOB_TASK) in dir/slurm.json. */
static void task_id(const char *dir, char *out, size_t n)
{
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "sed -n 's/.*\"job\": \\([0-9]*\\), \"task\": "
             "\\([0-9]*\\).*/\\1_\\2/p' %s/slurm.json | tr -d '\\n'", dir);
    capture(cmd, out, n);
    ck_assert_msg(out[0], "no Slurm id in %s", dir);
}

/* The job in dir ends as it should: its sleep is cut, so the wrapper
 * prints its full metrics and exits 0; returns once Slurm says its task
 * COMPLETED. */
static void finish_job(const char *dir)
{
    char id[64], cmd[PATH_MAX + 128];
    task_id(dir, id, sizeof id);
    ck_assert_int_eq(shf("kill $(cat %s/sleep.pid)", dir), 0);
    snprintf(cmd, sizeof cmd, "test \"$(squeue -h -j %s -t all -o %%T)\" = "
             "COMPLETED", id);
    ck_assert_msg(wait_for(cmd, 20), "%s never completed", id);
}

/* What the race leaves in dir: Slurm signals a task's processes in no set
 * order, so the wrapper can end of its SIGTERM, printing partial metrics,
 * and job-run save that as ok before its own SIGTERM comes. Forced here:
 * job-run runs the same job.json in a copy of dir, only its wrapper gets
 * the SIGTERM, and the ok result.json it writes (IPC = 0.5) is moved into
 * dir while dir's own task still runs. */
static void race_result(const char *dir)
{
    char copy[PATH_MAX], path[PATH_MAX + 32];
    snprintf(copy, sizeof copy, "%s/race", tp(""));
    ck_assert_int_eq(shf("rm -rf %s && mkdir -p %s && cp %s/job.json "
                         "%s/cmd.sh %s/config.json %s/", copy, copy, dir, dir,
                         dir, copy), 0);
    unsetenv("GPUDSE_TEST_SLEEP");
    pid_t jr = fork();
    if (jr == 0) {
        execl(tu_bin(), "gpudse", "job-run", copy, (char *)NULL);
        _exit(127);
    }
    snprintf(path, sizeof path, "test -s %s/sim.pid", copy);
    ck_assert_msg(wait_for(path, 10), "the copy's job never started");
    ck_assert_int_eq(shf("kill -TERM $(cat %s/sim.pid)", copy), 0);
    int st;
    waitpid(jr, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "job-run: %d", st);
    store_record r;
    gd_err err;
    ck_assert_msg(jobrun_read_result(copy, NULL, &r, &err) == 0, "%s",
                  err.msg);
    double ipc;
    ck_assert_msg(r.status == ST_OK && met_get(&r.metrics, "ipc", &ipc) == 0
                  && ipc == 0.5, "the race's result: %s %s",
                  store_status_name(r.status), r.reason);
    ck_assert_int_eq(shf("mv %s/result.json %s/result.json", copy, dir), 0);
}

static const store_record *by_key(const store_record *r, size_t n,
                                  const char *dir)
{
    const char *key = strrchr(dir, '/') + 1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].key, key))
            return &r[i];
    return NULL;
}

/* The run in dir journaled two jobs: the one in d[0], cut by a cancel,
 * failed (CANCELLED, its result not taken, no metric from it), the one in
 * d[1], which completed, ok with its full IPC. */
static void cut_failed_done_ok(const char *dir, char d[2][PATH_MAX])
{
    size_t n;
    store_record *r = load(dir, &n);
    ck_assert_uint_eq(n, 2);
    const store_record *cut = by_key(r, n, d[0]), *done = by_key(r, n, d[1]);
    ck_assert(cut && done);
    double ipc;
    ck_assert_msg(cut->status == ST_FAILED && strstr(cut->reason, "CANCELLED")
                  && strstr(cut->reason, "not taken")
                  && met_get(&cut->metrics, "ipc", &ipc) != 0,
                  "cancelled: %s %s", store_status_name(cut->status),
                  cut->reason);
    ck_assert_msg(done->status == ST_OK
                  && met_get(&done->metrics, "ipc", &ipc) == 0
                  && ipc == done->cfg.n_clusters, "completed: %s %s",
                  store_status_name(done->status), done->reason);
    free(r);
}

/* Slurm cancels a task (scancel from outside; its time limit is the same)
 * whose job ended of the SIGTERM and was saved as ok with partial
 * metrics: the task's state, not its result.json, classifies it; a task
 * that completed before keeps its result. */
START_TEST(a_result_saved_as_slurm_cancels_is_not_ok)
{
    NEED_CLUSTER();
    unsetenv("GPUDSE_TEST_SLEEP");
    write_trap_campaign(tp("/rc.xml"), "rc");
    shf("rm -rf %s/rc-run", T);
    pid_t pid = start_run(tp("/rc.xml"), tp("/rc-run"));
    char d[2][PATH_MAX], id[64];
    two_running_jobs(tp("/rc-run"), "rc", d);
    finish_job(d[1]);
    race_result(d[0]);
    task_id(d[0], id, sizeof id);
    ck_assert_int_eq(shf("scancel %s", id), 0);
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
    cut_failed_done_ok(tp("/rc-run"), d);
    ck_assert_int_eq(shf("test -s %s/result.set-aside.json", d[0]), 0);
}
END_TEST

/* The same race while no coordinator watched (it was killed with -9):
 * the resumed run adopts both tasks and takes only the completed one's
 * result. */
START_TEST(an_adopted_task_cancelled_meanwhile_is_not_ok)
{
    NEED_CLUSTER();
    unsetenv("GPUDSE_TEST_SLEEP");
    write_trap_campaign(tp("/ra.xml"), "ra");
    shf("rm -rf %s/ra-run", T);
    pid_t pid = start_run(tp("/ra.xml"), tp("/ra-run"));
    char d[2][PATH_MAX], id[64];
    two_running_jobs(tp("/ra-run"), "ra", d);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    finish_job(d[1]);
    race_result(d[0]);
    task_id(d[0], id, sizeof id);
    ck_assert_int_eq(shf("scancel %s", id), 0);
    int st;
    pid = start_run(tp("/ra.xml"), tp("/ra-run"));
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
    ck_assert_int_eq(shf("test $(grep -c 'adopted' %s/ra-run/run.log) = 2",
                         T), 0);
    cut_failed_done_ok(tp("/ra-run"), d);
}
END_TEST

/* Ctrl-C: the coordinator cancels its tasks; one whose job ended of it and
 * was saved as ok is not journaled but runs again on resume, one that
 * completed before the stop keeps its result. */
START_TEST(a_stop_keeps_only_what_completed_before_it)
{
    NEED_CLUSTER();
    unsetenv("GPUDSE_TEST_SLEEP");
    write_trap_campaign(tp("/rs.xml"), "rs");
    shf("rm -rf %s/rs-run", T);
    pid_t pid = start_run(tp("/rs.xml"), tp("/rs-run"));
    char d[2][PATH_MAX];
    two_running_jobs(tp("/rs-run"), "rs", d);
    finish_job(d[1]);
    race_result(d[0]);
    kill(pid, SIGINT);
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status %d", st);
    size_t n;
    store_record *r = load(tp("/rs-run"), &n);
    double ipc;
    ck_assert_msg(n == 1 && by_key(r, n, d[1]) && r[0].status == ST_OK
                  && met_get(&r[0].metrics, "ipc", &ipc) == 0
                  && ipc == r[0].cfg.n_clusters, "%zu records, first %s %s",
                  n, n ? store_status_name(r[0].status) : "-",
                  n ? r[0].reason : "");
    free(r);
    ck_assert_int_eq(shf("grep -q 'interrupted .* cancelled Slurm job' "
                         "%s/rs-run/run.log", T), 0);
    /* resume: the cut job runs again, to its end */
    setenv("GPUDSE_TEST_SLEEP", "0", 1);
    pid = start_run(tp("/rs.xml"), tp("/rs-run"));
    waitpid(pid, &st, 0);
    unsetenv("GPUDSE_TEST_SLEEP");
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    r = load(tp("/rs-run"), &n);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(r[i].status == ST_OK
                      && met_get(&r[i].metrics, "ipc", &ipc) == 0
                      && ipc == r[i].cfg.n_clusters, "%s: %s %s", r[i].key,
                      store_status_name(r[i].status), r[i].reason);
    free(r);
}
END_TEST

/* A task whose job-run could not save the job's output (a full disk)
 * leaves its message instead of a result: the run stops with exit 3,
 * nothing journaled, and every job runs on resume (issue 22.1). */
START_TEST(environment_error_in_a_task_stops_the_run)
{
    NEED_CLUSTER();
    unsetenv("GPUDSE_TEST_SLEEP");
    write_sleep_campaign(tp("/ee.xml"), "ee", 2);
    shf("rm -rf %s/ee-run", T);
    pid_t pid = start_run(tp("/ee.xml"), tp("/ee-run"));
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "test \"$(squeue -h -t RUNNING -n gpudse-ee-a "
             "-o %%i | wc -l)\" = 2");
    ck_assert_msg(wait_for(cmd, 20), "the tasks never ran");
    /* what job-run leaves when stdout.log cannot be written */
    ck_assert_int_eq(shf("for d in %s/ee-run/jobs/*/; do echo 'stdout.log: "
                         "No space left on device' > $d/%s; done", T,
                         JOBRUN_ENV_ERROR), 0);
    ck_assert_int_eq(shf("scancel -n gpudse-ee-a"), 0);
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status %d", st);
    ck_assert_int_eq(shf("test ! -s %s/ee-run/results.jsonl", T), 0);
    ck_assert_int_eq(shf("grep -q 'environment error in .*No space left' "
                         "%s/ee-run/run.log", T), 0);
    setenv("GPUDSE_TEST_SLEEP", "0", 1);
    pid = start_run(tp("/ee.xml"), tp("/ee-run"));
    waitpid(pid, &st, 0);
    unsetenv("GPUDSE_TEST_SLEEP");
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    size_t n;
    store_record *r = load(tp("/ee-run"), &n);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(r[i].status == ST_OK, "%s", r[i].reason);
    free(r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("slurm");
    TCase *t = tcase_create("slurm");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, slurm_states_map_to_failure_classes);
    tcase_add_test(t, results_are_taken_only_from_completed_tasks);
    tcase_add_test(t, execution_executor_attributes);
    tcase_add_test(t, jobs_from_cli_and_campaign_one_range_one_message);
    tcase_add_test(t, job_run_writes_the_record);
    tcase_add_test(t, job_run_stopped_takes_its_job);
    tcase_add_test(t, campaign_runs_as_array_jobs);
    tcase_add_test(t, sigint_cancels_the_tasks_and_the_run_resumes);
    tcase_add_test(t, a_dead_coordinators_tasks_are_adopted);
    tcase_add_test(t, tasks_slurm_ends_are_classified);
    tcase_add_test(t, a_result_saved_as_slurm_cancels_is_not_ok);
    tcase_add_test(t, a_stop_keeps_only_what_completed_before_it);
    tcase_add_test(t, an_adopted_task_cancelled_meanwhile_is_not_ok);
    tcase_add_test(t, environment_error_in_a_task_stops_the_run);
    suite_add_tcase(s, t);
    return s;
}

/* The Slurm and munge programs, installed from Debian when root and
 * missing. 0 when present. */
static int ensure_packages(void)
{
    if (shf("command -v sbatch >/dev/null && command -v squeue >/dev/null "
            "&& test -x /usr/sbin/slurmctld -a -x /usr/sbin/slurmd "
            "-a -x /usr/sbin/munged") == 0)
        return 0;
    printf("test_slurm: installing Debian packages munge slurmctld slurmd "
           "slurm-client (apt-get)\n");
    fflush(stdout);
    return shf("DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
               "--no-install-recommends munge slurmctld slurmd slurm-client "
               ">%s/apt.log 2>&1 || (apt-get update -qq >>%s/apt.log 2>&1 && "
               "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
               "--no-install-recommends munge slurmctld slurmd slurm-client "
               ">>%s/apt.log 2>&1)", T, T, T);
}

/* Start the cluster in T/cluster; 1 when it is up, else 0 with a SKIP
 * line saying why. */
static int start_cluster(void)
{
    if (geteuid() != 0) {
        printf("SKIP: test_slurm: not root, so no Slurm cluster to test "
               "against (munged, slurmctld and slurmd need root); only "
               "the tests without a cluster run\n");
        return 0;
    }
    if (ensure_packages() != 0) {
        printf("SKIP: test_slurm: the Slurm packages are missing and "
               "apt-get could not install them (see %s/apt.log)\n", T);
        return 0;
    }
    char out[4096] = "";
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "timeout 60 tests/slurm/start.sh %s/cluster "
             "%ld 2>&1", T, (long)getpid());
    FILE *p = popen(cmd, "r");  /* no ck_assert outside a test */
    if (p) {
        size_t got = fread(out, 1, sizeof out - 1, p);
        out[got] = '\0';
        pclose(p);
    }
    char conf[PATH_MAX + 32];
    snprintf(conf, sizeof conf, "%s/%s/cluster/slurm.conf", root, T);
    if (!strstr(out, "export SLURM_CONF=")) {
        printf("SKIP: test_slurm: the Slurm daemons cannot start in this "
               "sandbox: %s\n", out);
        return 0;
    }
    setenv("SLURM_CONF", conf, 1);
    return 1;
}

int main(void)
{
    if (tu_setup("slurm") != 0)
        return 1;
    /* T is the simulator root of the fake GPGPU-Sim: a stand-in of its
     * built libcudart (the fake simulator, a script, never loads it) */
    shf("mkdir -p %s/lib/gcc-9.4.0/cuda-11000/release && echo stand-in > "
        "%s/lib/gcc-9.4.0/cuda-11000/release/libcudart.so", T, T);
    double t0 = now_s();
    have_cluster = start_cluster();
    double t1 = now_s();
    int rc = tu_run_suite(suite());
    double t2 = now_s();
    if (have_cluster) {
        shf("tests/slurm/stop.sh %s/cluster", T);
        printf("test_slurm: cluster up in %.1f s, tests %.1f s, stopped in "
               "%.1f s\n", t1 - t0, t2 - t1, now_s() - t2);
    }
    return tu_finish(rc);
}
