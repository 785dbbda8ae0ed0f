/* test_executor: the process pool — exit codes, signals, timeouts with and
 * without a cooperative child, children left behind are killed with the
 * group, output capped to its tail, the memory cap, parallel slots and a
 * stop with a grace period, the job's directory and logs made by its own
 * process (and the errors when they cannot be), job variables. */
#include "testutil.h"
#include <signal.h>
#include <sys/stat.h>
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

static char *slurp(const char *name)
{
    char path[256], *text;
    gd_err err;
    snprintf(path, sizeof path, T "/%s", name);
    ck_assert(util_read_file(path, &text, NULL, &err) == 0);
    return text;
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
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    system("mkdir -p " T);
    return tu_run_suite(suite());
}
