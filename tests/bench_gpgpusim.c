/* bench_gpgpusim: how long the GPGPU-Sim backend's process-free half takes
 * per job — rewriting the config and interconnect text, parsing a real log's
 * statistics, classifying it — and its scan rate on a large stdout.
 * Usage: bench_gpgpusim REAL_LOG BIG_LOG (plain text); prints figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "gpgpusim.h"
#include "store.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char *load(const char *path, size_t *len)
{
    char *s = NULL;
    gd_err err;
    if (util_read_file(path, &s, len, &err) != GD_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(3);
    }
    return s;
}

/* Microseconds per call of the rewrite of both files. */
static double bench_rewrite(const char *cfg, const char *icnt, int reps)
{
    gpu_config c = space_baseline();
    c.n_clusters = 30;
    c.l1_sets = 128;
    double t0 = now();
    for (int i = 0; i < reps; i++) {
        char *a = NULL, *b = NULL;
        gd_err err;
        if (gsim_rewrite_config_text(cfg, "cfg", &c, &a, &err) ||
            gsim_rewrite_icnt_text(icnt, "icnt", &c, 2, &b, &err))
            exit(3);
        free(a);
        free(b);
    }
    return (now() - t0) / reps * 1e6;
}

/* Microseconds per parse + classify of text. */
static double bench_read(const char *text, size_t len, int reps, double *ipc)
{
    double t0 = now();
    for (int i = 0; i < reps; i++) {
        gsim_stats st;
        gd_err err;
        char reason[256];
        if (gsim_parse_stats(text, len, &st, &err) != GD_OK ||
            gsim_classify(text, "", 1, 0, 0, 0, 0, reason, sizeof reason)
            != ST_OK)
            exit(3);
        *ipc = st.tot_ipc;
        gsim_stats_free(&st);
    }
    return (now() - t0) / reps * 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_gpgpusim REAL_LOG BIG_LOG\n");
        return 2;
    }
    size_t n, bn;
    char *cfg = load("templates/gpgpusim/gpgpusim.config", NULL);
    char *icnt = load("templates/gpgpusim/config_fermi_islip.icnt", NULL);
    char *log = load(argv[1], &n), *big = load(argv[2], &bn);
    double ipc = NAN;
    printf("rewrite_us %.1f\n", bench_rewrite(cfg, icnt, 2000));
    printf("log_bytes %zu\n", n);
    printf("read_us %.1f\n", bench_read(log, n, 200, &ipc));
    printf("big_bytes %zu\n", bn);
    double us = bench_read(big, bn, 3, &ipc);
    printf("big_read_ms %.1f\n", us / 1e3);
    printf("big_mb_per_s %.0f\n", (double)bn / 1048576.0 / (us / 1e6));
    printf("ipc %.4f\n", ipc);
    free(cfg);
    free(icnt);
    free(log);
    free(big);
    return 0;
}
