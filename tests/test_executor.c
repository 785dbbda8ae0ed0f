/* test_executor: the process pool — exit codes, signals, timeouts with and
 * without a cooperative child, children left behind are killed with the
 * group, output capped to its tail, the memory cap, parallel slots and a
 * stop with a grace period, the job's directory and logs made by its own
 * process (and the errors when they cannot be), job variables. */
#include "testutil.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "executor.h"

#define T "tests/tmp/executor"

static exec_result run1(const char *cmd, double timeout, double grace,
                        size_t mem, size_t cap)
{
    exec_pool *p;
    gd_err err;
    ck_assert(exec_pool_new(1, &p, &err) == 0);
    exec_spec s = {T, cmd, NULL, timeout, grace, mem, cap, (void *)7};
    ck_assert_msg(exec_pool_start(p, &s, &err) == 0, "%s", err.msg);
    exec_result r;
    int n = exec_pool_wait(p, &r, 1, 30, NULL, &err);
    ck_assert_int_eq(n, 1);
    ck_assert_ptr_eq(r.tag, (void *)7);
    exec_pool_free(p);
    return r;
}

/* T/name, read whole. */
static char *slurp(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, T "/%s", name);
    return tu_slurp(path, NULL);
}

START_TEST(exit_codes_and_output)
{
    exec_result r = run1("echo hello; echo oops >&2; exit 3", 10, 1, 0, 0);
    ck_assert(r.exited);
    ck_assert_int_eq(r.exit_code, 3);
    ck_assert(!r.timed_out && !r.signaled);
    char *o = slurp("stdout.log"), *e = slurp("stderr.log");
    ck_assert_str_eq(o, "hello\n");
    ck_assert_str_eq(e, "oops\n");
    free(o);
    free(e);
    r = run1("kill -SEGV $$", 10, 1, 0, 0);
    ck_assert(r.signaled);
    ck_assert_int_eq(r.signo, SIGSEGV);
}
END_TEST

START_TEST(timeout_term_then_kill)
{
    exec_result r = run1("sleep 30", 0.3, 1, 0, 0);
    ck_assert(r.timed_out);
    ck_assert(r.signaled && r.signo == SIGTERM);
    ck_assert(r.wall_s < 5);
    /* a job that ignores SIGTERM gets SIGKILL after the grace period */
    r = run1("trap '' TERM; while :; do sleep 0.1; done", 0.3, 0.3, 0, 0);
    ck_assert(r.timed_out);
    ck_assert(r.signaled && r.signo == SIGKILL);
    ck_assert(r.wall_s < 5);
}
END_TEST

START_TEST(leftover_children_are_killed)
{
    exec_result r = run1("sleep 300 & echo $!; exit 0", 10, 1, 0, 0);
    ck_assert(r.exited && r.exit_code == 0);
    char *o = slurp("stdout.log");
    pid_t child = (pid_t)atol(o);
    free(o);
    ck_assert(child > 0);
    usleep(100000);
    int alive = kill(child, 0) == 0;
    /* a zombie counts as gone: check its state */
    char stat_path[64], state = 'X';
    snprintf(stat_path, sizeof stat_path, "/proc/%d/stat", (int)child);
    FILE *f = fopen(stat_path, "r");
    if (f) {
        if (fscanf(f, "%*d %*s %c", &state) != 1)
            state = 'X';
        fclose(f);
    }
    ck_assert_msg(!alive || state == 'Z', "background child %d survived",
                  (int)child);
}
END_TEST

START_TEST(output_capped_to_tail)
{
    exec_result r = run1("i=0; while [ $i -lt 3000 ]; do "
                         "echo line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; "
                         "i=$((i+1)); done; echo END", 20, 1, 0, 20000);
    ck_assert(r.exited && r.exit_code == 0);
    ck_assert(r.out_bytes > 100000);
    struct stat st;
    ck_assert(stat(T "/stdout.log", &st) == 0);
    ck_assert_int_le(st.st_size, 20000);
    char *o = slurp("stdout.log");
    size_t len = strlen(o);
    ck_assert(len >= 4 && strcmp(o + len - 4, "END\n") == 0);
    free(o);
}
END_TEST

START_TEST(memory_cap)
{
    /* awk doubles a string until the address-space limit stops it */
    exec_result r = run1("awk 'BEGIN { s = \"x\"; while (1) s = s s }'", 20,
                         1, 64u << 20, 0);
    ck_assert(!(r.exited && r.exit_code == 0));
    ck_assert(!r.timed_out);
}
END_TEST

START_TEST(parallel_slots_and_stop)
{
    exec_pool *p;
    gd_err err;
    ck_assert(exec_pool_new(3, &p, &err) == 0);
    exec_spec s = {T, "sleep 30", NULL, 0, 0.2, 0, 0, NULL};
    for (int i = 0; i < 3; i++) {
        s.tag = (void *)(intptr_t)(i + 1);
        ck_assert(exec_pool_start(p, &s, &err) == 0);
    }
    ck_assert_int_eq(exec_pool_running(p), 3);
    ck_assert_int_eq(exec_pool_idle(p), 0);
    ck_assert(exec_pool_start(p, &s, &err) != 0);
    exec_result r[3];
    ck_assert_int_eq(exec_pool_wait(p, r, 3, 0.2, NULL, &err), 0);
    volatile sig_atomic_t stop = 1;
    ck_assert_int_eq(exec_pool_wait(p, r, 3, -1, &stop, &err), 0);
    ck_assert_int_eq(exec_pool_stop_all(p, 0.5, r), 3);
    for (int i = 0; i < 3; i++)
        ck_assert(r[i].interrupted);
    ck_assert_int_eq(exec_pool_running(p), 0);
    exec_pool_free(p);
}
END_TEST

START_TEST(environment_and_directory)
{
    exec_pool *p;
    gd_err err;
    ck_assert(exec_pool_new(1, &p, &err) == 0);
    char e1[] = "GPUDSE_TEST_VAR=with space";
    char *env[] = {e1, NULL};
    exec_spec s = {T, "printf '%s|%s' \"$GPUDSE_TEST_VAR\" \"$(basename $(pwd))\"",
                   env, 10, 1, 0, 0, NULL};
    ck_assert(exec_pool_start(p, &s, &err) == 0);
    exec_result r;
    ck_assert_int_eq(exec_pool_wait(p, &r, 1, 10, NULL, &err), 1);
    exec_pool_free(p);
    char *o = slurp("stdout.log");
    ck_assert_str_eq(o, "with space|executor");
    free(o);
    ck_assert_str_eq(e1, "GPUDSE_TEST_VAR=with space");  /* not modified */
}
END_TEST

/* The child makes the job directory and its logs; when it cannot, the job
 * never runs and exec_pool_start says which directory and what failed. */
START_TEST(setup_failures_are_errors)
{
    exec_pool *p;
    gd_err err;
    ck_assert(exec_pool_new(1, &p, &err) == 0);
    /* a missing directory is made, parents included */
    system("rm -rf " T "/deep");
    exec_spec s = {T "/deep/a/b", "echo made", NULL, 10, 1, 0, 0, NULL};
    ck_assert_msg(exec_pool_start(p, &s, &err) == 0, "%s", err.msg);
    exec_result r;
    ck_assert_int_eq(exec_pool_wait(p, &r, 1, 10, NULL, &err), 1);
    ck_assert(r.exited && r.exit_code == 0);
    ck_assert_int_eq(system("grep -qx made " T "/deep/a/b/stdout.log"), 0);
    ck_assert_int_eq(system("test -f " T "/deep/a/b/stderr.log"), 0);
    /* under a file: no directory */
    system("mkdir -p " T "/deep && : > " T "/deep/file");
    exec_spec bad = {T "/deep/file/job", "echo never", NULL, 10, 1, 0, 0,
                     NULL};
    ck_assert(exec_pool_start(p, &bad, &err) == GD_EENV);
    ck_assert_msg(strstr(err.msg, "cannot create job directory")
                  && strstr(err.msg, T "/deep/file/job")
                  && strstr(err.msg, "ot a directory"), "%s", err.msg);
    /* a directory where the log should be */
    system("mkdir -p " T "/deep/logdir/stdout.log");
    exec_spec log = {T "/deep/logdir", "echo never", NULL, 10, 1, 0, 0, NULL};
    ck_assert(exec_pool_start(p, &log, &err) == GD_EENV);
    ck_assert_msg(strstr(err.msg, "cannot create stdout.log")
                  && strstr(err.msg, T "/deep/logdir"), "%s", err.msg);
    ck_assert_int_eq(exec_pool_running(p), 0);  /* nothing left running */
    exec_pool_free(p);
}
END_TEST

/* A job's variable replaces gpudse's own of the same name (no duplicate
 * entry the shell might pick first). */
START_TEST(job_variable_overrides_inherited)
{
    setenv("GPUDSE_TEST_OVER", "inherited", 1);
    char e1[] = "GPUDSE_TEST_OVER=job";
    char *env[] = {e1, NULL};
    exec_pool *p;
    gd_err err;
    ck_assert(exec_pool_new(1, &p, &err) == 0);
    exec_spec s = {T, "env | grep -c '^GPUDSE_TEST_OVER='; "
                      "printf '%s\\n' \"$GPUDSE_TEST_OVER\"",
                   env, 10, 1, 0, 0, NULL};
    ck_assert(exec_pool_start(p, &s, &err) == 0);
    exec_result r;
    ck_assert_int_eq(exec_pool_wait(p, &r, 1, 10, NULL, &err), 1);
    exec_pool_free(p);
    unsetenv("GPUDSE_TEST_OVER");
    char *o = slurp("stdout.log");
    ck_assert_str_eq(o, "1\njob\n");
    free(o);
}
END_TEST

/* ---- nothing escapes a job ---- */

/* The pid a job wrote to FILE in its directory. */
static pid_t pid_in(const char *file)
{
    char *o = slurp(file);
    pid_t pid = (pid_t)atol(o);
    free(o);
    ck_assert_int_gt(pid, 1);
    return pid;
}

/* A simulator that double-forks a grandchild into its own session
 * (setsid) — once when it then exits, once when it hangs to its timeout,
 * once with a grandchild that ignores SIGTERM. */
#define DAEMON(file, trap) \
    "(setsid sh -c '" trap "echo $$ > " file "; exec sleep 300' &); " \
    "while [ ! -s " file " ]; do sleep 0.01; done; "

START_TEST(setsid_grandchild_dies_with_its_job)
{
    system("rm -f " T "/gc*.pid");
    exec_result r = run1(DAEMON("gc1.pid", "") "echo done", 10, 1, 0, 0);
    ck_assert(r.exited && r.exit_code == 0);
    pid_t gc = pid_in("gc1.pid");
    int ok = pid_gone(gc);
    if (!ok)
        kill(gc, SIGKILL);
    ck_assert_msg(ok, "a setsid grandchild %d outlived its job", (int)gc);
    r = run1(DAEMON("gc2.pid", "") "sleep 30", 0.5, 0.3, 0, 0);
    ck_assert(r.timed_out);
    gc = pid_in("gc2.pid");
    ok = pid_gone(gc);
    if (!ok)
        kill(gc, SIGKILL);
    ck_assert_msg(ok, "a setsid grandchild %d outlived a timeout", (int)gc);
    r = run1(DAEMON("gc3.pid", "trap \"\" TERM; ") "sleep 30", 0.5, 0.3, 0,
             0);
    ck_assert(r.timed_out);
    gc = pid_in("gc3.pid");
    ok = pid_gone(gc);
    if (!ok)
        kill(gc, SIGKILL);
    ck_assert_msg(ok, "a grandchild ignoring SIGTERM %d outlived a timeout",
                  (int)gc);
}
END_TEST

/* gpudse killed with SIGKILL while a job runs: the job's leader dies with
 * it (PR_SET_PDEATHSIG), what it started lives on — until the next pool
 * set on the same registry kills it: its group's members, whether the
 * dead leader is still a zombie or already reaped, and a daemon that left
 * the group (setsid), by the marker in its environment. */
START_TEST(coordinator_killed_then_resumed)
{
    system("rm -f " T "/bg.pid " T "/gc9.pid " T "/k9reg");
    pid_t coord = fork();
    ck_assert_int_ge(coord, 0);
    if (coord == 0) {
        exec_pool *p;
        gd_err err;
        if (exec_pool_new(1, &p, &err) != 0
            || exec_pool_set_registry(p, T "/k9reg", NULL, &err) != 0)
            _exit(2);
        exec_spec s = {T, "sleep 300 & echo $! > bg.pid; "
                          DAEMON("gc9.pid", "") "wait", NULL, 0, 0, 0, 0,
                       NULL};
        if (exec_pool_start(p, &s, &err) != 0)
            _exit(3);
        for (int i = 0; i < 500 && system("test -s " T "/gc9.pid"); i++)
            usleep(10000);
        raise(SIGKILL);
    }
    int st;
    waitpid(coord, &st, 0);
    ck_assert(WIFSIGNALED(st));
    pid_t bg = pid_in("bg.pid"), gc = pid_in("gc9.pid");
    exec_pool *p;
    gd_err err;
    ck_assert(exec_pool_new(1, &p, &err) == 0);
    int killed = 0;
    ck_assert_int_eq(exec_pool_set_registry(p, T "/k9reg", &killed, &err), 0);
    exec_pool_free(p);
    int ok1 = pid_gone(bg), ok2 = pid_gone(gc);
    if (!ok1)
        kill(bg, SIGKILL);
    if (!ok2)
        kill(gc, SIGKILL);
    ck_assert_msg(ok1 && ok2 && killed >= 2, "after the resume: the job's "
                  "child %s, its daemon %s (%d killed)", ok1 ? "gone" :
                  "ALIVE", ok2 ? "gone" : "ALIVE", killed);
}
END_TEST

/* A leader left a zombie (its parent died and nobody reaped it yet) is
 * gone: its group is killed. A group whose leader still runs is not
 * killed, and stays in the registry. */
START_TEST(orphans_behind_a_zombie_leader)
{
    int pp[2];
    ck_assert_int_eq(pipe(pp), 0);
    pid_t leader = fork();
    ck_assert_int_ge(leader, 0);
    if (leader == 0) {
        setpgid(0, 0);
        pid_t m = fork();
        if (m == 0) {
            execl("/bin/sleep", "sleep", "300", (char *)NULL);
            _exit(127);
        }
        dprintf(pp[1], "%d\n", (int)m);
        _exit(0);  /* a zombie: this test does not reap it yet */
    }
    close(pp[1]);
    char buf[32] = "";
    ck_assert(read(pp[0], buf, sizeof buf - 1) > 0);
    close(pp[0]);
    pid_t member = (pid_t)atol(buf);
    pid_t live = fork();  /* a running leader: never killed */
    if (live == 0) {
        setpgid(0, 0);
        execl("/bin/sleep", "sleep", "300", (char *)NULL);
        _exit(127);
    }
    setpgid(live, live);
    usleep(100000);
    FILE *f = fopen(T "/reg", "w");
    ck_assert(f != NULL);
    fprintf(f, "%d\n%d\n", (int)leader, (int)live);
    fclose(f);
    exec_pool *p;
    gd_err err;
    ck_assert(exec_pool_new(1, &p, &err) == 0);
    int killed = -1;
    ck_assert_int_eq(exec_pool_set_registry(p, T "/reg", &killed, &err), 0);
    int ok = pid_gone(member);
    if (!ok)
        kill(member, SIGKILL);
    waitpid(leader, NULL, 0);
    char *reg = slurp("reg");
    int kept = (pid_t)atol(reg) == live;
    free(reg);
    exec_pool_free(p);
    int live_alive = kill(live, 0) == 0;
    kill(live, SIGKILL);
    waitpid(live, NULL, 0);
    ck_assert_msg(ok, "the member of a zombie leader's group survived");
    ck_assert_int_eq(killed, 1);
    ck_assert(live_alive);
    ck_assert_msg(kept, "the group not killed left the registry");
}
END_TEST

/* An error saving the job's output (here the file size limit; a full disk
 * alike) is reported, never taken for output the job did not write. */
START_TEST(output_save_failure_is_reported)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, small;
    getrlimit(RLIMIT_FSIZE, &old);
    small = old;
    small.rlim_cur = 100000;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    exec_result r = run1("head -c 300000 /dev/zero | tr '\\0' x; echo; "
                         "echo IPC = 1", 20, 1, 0, 0);
    setrlimit(RLIMIT_FSIZE, &old);
    ck_assert(r.exited && r.exit_code == 0);
    ck_assert_int_eq(r.out_bytes, 300009);
    ck_assert_int_eq(r.io_err, EFBIG);
    ck_assert_str_eq(r.io_file, "stdout.log");
    r = run1("echo fine", 20, 1, 0, 0);
    ck_assert_int_eq(r.io_err, 0);
}
END_TEST

/* More workers than 256: every job's pipes are watched (a job writing
 * more than a pipe holds must not stall to a false timeout). */
START_TEST(pool_of_300)
{
    enum { N = 300 };
    exec_pool *p;
    gd_err err;
    ck_assert(exec_pool_new(N, &p, &err) == 0);
    static char dirs[N][64];
    for (int i = 0; i < N; i++) {
        snprintf(dirs[i], sizeof dirs[i], T "/p300/%d", i);
        exec_spec s = {dirs[i], "head -c 100000 /dev/zero; echo END >&2",
                       NULL, 20, 0.2, 0, 0, (void *)(intptr_t)i};
        ck_assert_msg(exec_pool_start(p, &s, &err) == 0, "%d: %s", i,
                      err.msg);
    }
    static exec_result r[N];
    int done = 0, bad = 0;
    while (done < N) {
        int k = exec_pool_wait(p, r, N, 30, NULL, &err);
        ck_assert_int_gt(k, 0);
        for (int i = 0; i < k; i++)
            bad += r[i].timed_out || !r[i].exited || r[i].exit_code
                   || r[i].out_bytes != 100000;
        done += k;
    }
    exec_pool_free(p);
    ck_assert_msg(bad == 0, "%d of %d jobs failed or timed out", bad, N);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("executor");
    TCase *t = tcase_create("executor");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, exit_codes_and_output);
    tcase_add_test(t, timeout_term_then_kill);
    tcase_add_test(t, leftover_children_are_killed);
    tcase_add_test(t, output_capped_to_tail);
    tcase_add_test(t, memory_cap);
    tcase_add_test(t, parallel_slots_and_stop);
    tcase_add_test(t, environment_and_directory);
    tcase_add_test(t, setup_failures_are_errors);
    tcase_add_test(t, job_variable_overrides_inherited);
    tcase_add_test(t, setsid_grandchild_dies_with_its_job);
    tcase_add_test(t, coordinator_killed_then_resumed);
    tcase_add_test(t, orphans_behind_a_zombie_leader);
    tcase_add_test(t, output_save_failure_is_reported);
    suite_add_tcase(s, t);
    TCase *big = tcase_create("pool");
    tcase_set_timeout(big, 120);
    tcase_add_test(big, pool_of_300);
    suite_add_tcase(s, big);
    return s;
}

int main(void)
{
    system("mkdir -p " T);
    return tu_run_suite(suite());
}
