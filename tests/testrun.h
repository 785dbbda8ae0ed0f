/* testrun: helpers for the suites that run whole campaigns — shell
 * commands, the journal read back with every key checked once, a record by
 * workload and cluster count, and leftover processes under a folder. */
#ifndef GPUDSE_TESTRUN_H
#define GPUDSE_TESTRUN_H

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/wait.h>
#include "testutil.h"
#include "engine.h"
#include "store.h"

/* The suite's per-process scratch folder (tests/tmp/NAME-PID), set by its
 * main: concurrent runs of a suite never meet. */
static char T[256];

/* The working directory the suite started in (the source tree), set by
 * tu_setup, for tests that change directory. */
static char root[PATH_MAX];

/* T + suffix, from a small rotating pool (several live in one call). */
static inline const char *tp(const char *suffix)
{
    static char pool[8][512];
    static int next;
    char *b = pool[next++ % 8];
    snprintf(b, 512, "%s%s", T, suffix);
    return b;
}

/* system() with printf-style formatting; the command's exit status. */
static inline int shf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline int shf(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A suite's start: T = tests/tmp/NAME-PID, made empty, and root. 0, or
 * -1 when the working directory cannot be read. */
static inline int tu_setup(const char *name)
{
    snprintf(T, sizeof T, "tests/tmp/%s-%ld", name, (long)getpid());
    shf("rm -rf %s; mkdir -p %s", T, T);
    return getcwd(root, sizeof root) ? 0 : -1;
}

/* A suite's end: T removed when every test passed (kept as the evidence
 * when one failed); returns rc, the suite's exit status. */
static inline int tu_finish(int rc)
{
    if (rc == EXIT_SUCCESS)
        shf("rm -rf %s", T);
    return rc;
}

/* The main of a suite that needs nothing more: tu_setup, the suite that
 * make builds, run, and tu_finish. */
static inline int tu_main(const char *name, Suite *(*make)(void))
{
    if (tu_setup(name) != 0)
        return EXIT_FAILURE;
    return tu_finish(tu_run_suite(make()));
}

/* A command's standard output, into buf. */
static inline void capture(const char *cmd, char *buf, size_t n)
{
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    size_t got = fread(buf, 1, n - 1, p);
    buf[got] = '\0';
    pclose(p);
}

/* DIR/results.jsonl, asserting that no key appears twice. */
static inline store_record *load(const char *dir, size_t *n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    store_record *r;
    gd_err err;
    ck_assert_msg(store_load_all(path, &r, n, &err) == 0, "%s", err.msg);
    for (size_t i = 0; i < *n; i++)
        for (size_t j = i + 1; j < *n; j++)
            ck_assert_msg(strcmp(r[i].key, r[j].key) != 0, "key twice");
    return r;
}

/* The record of workload wl at n_clusters = clusters (the test fails
 * without one). */
static inline const store_record *find(const store_record *r, size_t n,
                                       const char *wl, int clusters)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].workload, wl) && r[i].cfg.n_clusters == clusters)
            return &r[i];
    ck_abort_msg("no record for %s at %d clusters", wl, clusters);
    return NULL;
}

/* eng_run on a campaign into dir, quietly, with an optional per-record
 * hook (progress checks, kill -9 at a chosen record). */
static inline int run(const char *camp, const char *dir, gd_err *err,
                      void (*cb)(const store_record *, void *), void *arg)
{
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.campaign_path = camp;
    o.outdir = dir;
    o.quiet = 1;
    o.on_result = cb;
    o.cb_arg = arg;
    memset(err, 0, sizeof *err);
    return eng_run(&o, NULL, 0, err);
}

/* Processes whose working directory lies under dir (a job's leftovers). */
static inline int procs_in(const char *dir)
{
    char abs[PATH_MAX];
    if (!realpath(dir, abs))
        return 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char link[300], cwd[PATH_MAX];
        snprintf(link, sizeof link, "/proc/%s/cwd", e->d_name);
        ssize_t k = readlink(link, cwd, sizeof cwd - 1);
        if (k <= 0)
            continue;
        cwd[k] = '\0';
        n += strncmp(cwd, abs, strlen(abs)) == 0;
    }
    if (d)
        closedir(d);
    return n;
}

#endif
