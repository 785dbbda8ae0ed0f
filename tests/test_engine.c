/* test_engine: whole runs through eng_run — kill -9 mid-run then resume
 * (every key exactly once), a torn last line dropped and re-run, the run
 * directory lock, refusal of a foreign run directory, nothing created on bad
 * input, byte-identical outputs across runs, and pdftotext on the report. */
#include "testrun.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "engine.h"
#include "store.h"

#define T "tests/tmp/engine"

#define CAMPAIGN_TEXT \
    "<campaign name=\"%s\" seed=\"5\">\n" \
    "  <simulator backend=\"analytic\"/>\n" \
    "  <workloads><workload name=\"vecadd\"/><workload name=\"sgemm\"/></workloads>\n" \
    "  <space>\n" \
    "    <knob name=\"n_clusters\" values=\"8 15 30 60\"/>\n" \
    "    <knob name=\"n_mem\" values=\"4 6 8 12\"/>\n" \
    "    <knob name=\"l1_sets\" values=\"16 32 64 128\"/>\n" \
    "  </space>\n" \
    "  <objectives><maximize metric=\"ipc\"/><minimize metric=\"area_mm2\"/>" \
    "<minimize metric=\"power_w\"/></objectives>\n" \
    "  <search strategy=\"%s\" budget=\"%d\"/>\n" \
    "</campaign>\n"

static void write_campaign(const char *path, const char *name,
                           const char *strategy, int budget)
{
    char text[4096];
    snprintf(text, sizeof text, CAMPAIGN_TEXT, name, strategy, budget);
    tu_write(path, text);
}

/* Every record's key once (load checks it); returns the count. */
static size_t check_unique(const char *dir)
{
    size_t n;
    free(load(dir, &n));
    return n;
}

static void kill_after(const store_record *r, void *arg)
{
    (void)r;
    int *left = arg;
    if (--*left == 0)
        raise(SIGKILL);  /* a real kill -9 between two journal appends */
}

static void kill_run_at(const char *camp, const char *dir, int at)
{
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        gd_err err;
        int left = at;
        run(camp, dir, &err, kill_after, &left);
        _exit(99);  /* not reached when the kill happened */
    }
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                  "child was not killed (status %d)", st);
}

START_TEST(killed_run_resumes_every_key_once)
{
    const char *camp = T "/resume.xml", *dir = T "/resume-run";
    write_campaign(camp, "resume", "exhaustive", 64);
    system("rm -rf " T "/resume-run");
    kill_run_at(camp, dir, 37);
    ck_assert_uint_eq(check_unique(dir), 37);
    kill_run_at(camp, dir, 50);  /* killed again, in the second workload */
    ck_assert_uint_eq(check_unique(dir), 87);
    gd_err err;
    int rc = run(camp, dir, &err, NULL, NULL);
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert_uint_eq(check_unique(dir), 128);
    /* A further run finds everything done and runs nothing. */
    int count = 0;
    rc = run(camp, dir, &err, kill_after, &count);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(count, 0);
}
END_TEST

START_TEST(torn_last_line_is_dropped_and_rerun)
{
    const char *camp = T "/torn.xml", *dir = T "/torn-run";
    write_campaign(camp, "torn", "random", 20);
    system("rm -rf " T "/torn-run");
    gd_err err;
    ck_assert_msg(run(camp, dir, &err, NULL, NULL) == 0, "%s", err.msg);
    char path[256];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    struct stat st;
    ck_assert(stat(path, &st) == 0);
    ck_assert(truncate(path, st.st_size - 30) == 0);  /* cut mid-record */
    ck_assert_uint_eq(check_unique(dir), 39);
    ck_assert(run(camp, dir, &err, NULL, NULL) == 0);
    ck_assert_uint_eq(check_unique(dir), 40);
    ck_assert(stat(path, &st) == 0);
    char *text;
    size_t len;
    ck_assert(util_read_file(path, &text, &len, &err) == 0);
    ck_assert(len > 0 && text[len - 1] == '\n');
    free(text);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    ck_assert(util_read_file(path, &text, &len, &err) == 0);
    ck_assert_msg(strstr(text, "\"torn_lines_dropped\":\t1") != NULL, "%s", text);
    free(text);
}
END_TEST

START_TEST(locked_dir_refuses_second_run)
{
    const char *camp = T "/lock.xml", *dir = T "/lock-run";
    write_campaign(camp, "lock", "random", 5);
    system("rm -rf " T "/lock-run; mkdir -p " T "/lock-run");
    gd_err err;
    ck_assert(run(camp, dir, &err, NULL, NULL) == 0);
    int fd = open(T "/lock-run/.lock", O_RDWR);
    ck_assert(fd >= 0);
    ck_assert(flock(fd, LOCK_EX | LOCK_NB) == 0);
    pid_t pid = fork();
    if (pid == 0) {  /* flock locks are per open file: try from a child */
        gd_err e;
        int rc = run(camp, dir, &e, NULL, NULL);
        _exit(rc == GD_EENV && strstr(e.msg, "another gpudse") ? 0 : 1);
    }
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "second gpudse was not refused");
    close(fd);
}
END_TEST

START_TEST(foreign_run_dir_refused)
{
    const char *a = T "/foreign-a.xml", *b = T "/foreign-b.xml";
    const char *dir = T "/foreign-run";
    write_campaign(a, "fa", "random", 5);
    write_campaign(b, "fb", "random", 6);
    system("rm -rf " T "/foreign-run");
    gd_err err;
    ck_assert(run(a, dir, &err, NULL, NULL) == 0);
    ck_assert_int_eq(run(b, dir, &err, NULL, NULL), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "different campaign") != NULL, "%s",
                  err.msg);
}
END_TEST

START_TEST(bad_campaign_creates_nothing)
{
    const char *camp = T "/bad.xml", *dir = T "/bad-run";
    tu_write(camp, "<campaign name=\"bad\">\n<workloads>\n</campaign>\n");
    system("rm -rf " T "/bad-run");
    gd_err err;
    ck_assert_int_eq(run(camp, dir, &err, NULL, NULL), GD_EINPUT);
    ck_assert(!util_path_exists(dir));
    /* The CLI: exit 2, FILE:LINE on stderr, no directory. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s run " T "/bad.xml -o " T "/bad-run "
             "2>" T "/bad.err", tu_bin());
    int rc = system(cmd);
    ck_assert_int_eq(WEXITSTATUS(rc), 2);
    ck_assert(!util_path_exists(dir));
    char *text;
    ck_assert(util_read_file(T "/bad.err", &text, NULL, &err) == 0);
    ck_assert_msg(strstr(text, T "/bad.xml:3:") != NULL, "%s", text);
    free(text);
}
END_TEST

static int files_equal(const char *a, const char *b)
{
    char *x, *y;
    size_t lx, ly;
    gd_err err;
    if (util_read_file(a, &x, &lx, &err) || util_read_file(b, &y, &ly, &err))
        return 0;
    int eq = lx == ly && memcmp(x, y, lx) == 0;
    free(x);
    free(y);
    return eq;
}

START_TEST(two_runs_are_byte_identical)
{
    const char *camp = T "/det.xml";
    write_campaign(camp, "det", "random", 40);
    system("rm -rf " T "/det-a " T "/det-b");
    gd_err err;
    ck_assert_msg(run(camp, T "/det-a", &err, NULL, NULL) == 0, "%s", err.msg);
    ck_assert_msg(run(camp, T "/det-b", &err, NULL, NULL) == 0, "%s", err.msg);
    ck_assert(files_equal(T "/det-a/results.jsonl", T "/det-b/results.jsonl"));
    ck_assert(files_equal(T "/det-a/analysis.json", T "/det-b/analysis.json"));
    ck_assert(files_equal(T "/det-a/results.csv", T "/det-b/results.csv"));
    FILE *ls = popen("ls " T "/det-a/figures", "r");
    char name[256];
    int nsvg = 0;
    while (fgets(name, sizeof name, ls)) {
        name[strcspn(name, "\n")] = '\0';
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, T "/det-a/figures/%s", name);
        snprintf(pb, sizeof pb, T "/det-b/figures/%s", name);
        ck_assert_msg(files_equal(pa, pb), "%s differs between runs", name);
        nsvg += strstr(name, ".svg") != NULL;
    }
    pclose(ls);
    ck_assert_int_ge(nsvg, 2);
    /* The report finds the campaign name in its text. */
    int rc = system("pdftotext " T "/det-a/report.pdf - | grep -q det");
    ck_assert_int_eq(WEXITSTATUS(rc), 0);
}
END_TEST

START_TEST(atomic_write_keeps_special_files)
{
    /* `-o /dev/null` must not turn the device into a regular file */
    gd_err err;
    struct stat st;
    ck_assert(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    ck_assert_int_eq(util_write_file_atomic("/dev/null", "x\n", 2, &err), 0);
    ck_assert(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("engine");
    TCase *t = tcase_create("engine");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, killed_run_resumes_every_key_once);
    tcase_add_test(t, torn_last_line_is_dropped_and_rerun);
    tcase_add_test(t, locked_dir_refuses_second_run);
    tcase_add_test(t, foreign_run_dir_refused);
    tcase_add_test(t, bad_campaign_creates_nothing);
    tcase_add_test(t, two_runs_are_byte_identical);
    tcase_add_test(t, atomic_write_keeps_special_files);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    system("mkdir -p " T);
    return tu_run_suite(suite());
}
