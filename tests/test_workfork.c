/* test_workfork: a stage's part run by a forked child (workfork.h) — it
 * runs in another process on a machine with two cores, its error comes
 * back whole (code and message), and a child that dies says so. */
#include "testutil.h"

#include <signal.h>
#include <sys/types.h>

#include "util.h"
#include "workfork.h"

typedef struct {
    int fail;       /* 0 ok, 1 an error, 2 killed */
    char pidfile[256];
} part_t;

static int part(void *arg, gd_err *err)
{
    part_t *p = arg;
    FILE *f = fopen(p->pidfile, "w");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    if (p->fail == 2)
        raise(SIGKILL);
    if (p->fail == 1)
        return gd_errf(err, GD_EINPUT, "part.xml:%d: no such knob", 7);
    return GD_OK;
}

static long pid_in(const char *path)
{
    long pid = -1;
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%ld", &pid), 1);
    fclose(f);
    return pid;
}

START_TEST(part_runs_beside_and_its_error_comes_back)
{
    part_t p = { 0, "" };
    snprintf(p.pidfile, sizeof p.pidfile, "/tmp/gpudse-wf-%ld",
             (long)getpid());
    wf_child c;
    gd_err err = { 0 };
    wf_start(&c, part, &p);
    ck_assert_int_eq(wf_wait(&c, &err), GD_OK);
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
        ck_assert_int_ne(pid_in(p.pidfile), (long)getpid());
    p.fail = 1;
    wf_start(&c, part, &p);
    ck_assert_int_eq(wf_wait(&c, &err), GD_EINPUT);
    ck_assert_str_eq(err.msg, "part.xml:7: no such knob");
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
        p.fail = 2;
        wf_start(&c, part, &p);
        ck_assert_int_eq(wf_wait(&c, &err), GD_EENV);
        ck_assert_msg(strstr(err.msg, "died of signal 9") != NULL, "%s",
                      err.msg);
    }
    unlink(p.pidfile);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("workfork");
    TCase *t = tcase_create("workfork");
    tcase_add_test(t, part_runs_beside_and_its_error_comes_back);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}
