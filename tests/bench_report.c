/* bench_report: times the Pareto scatter figure kind on 100,000 points
 * (figures/pareto_bench.{pdf,svg}) and writes the same points as CSV for
 * the matplotlib comparison in bench_report.sh. Usage:
 * bench_report OUTDIR [N]. Prints "pdf_s SECONDS" and "svg_s SECONDS". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "figures.h"
#include "rundata.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long file_bytes(const char *dir, const char *ext)
{
    char path[4300];
    struct stat st;
    snprintf(path, sizeof path, "%s/figures/pareto_bench.%s", dir, ext);
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Best of 3 wall and CPU seconds of one format in one mode; prints
 * "PREFIX_s", "PREFIX_cpu_s" and "PREFIX_bytes". */
static int time_one(const fig_kind *k, rep_run *run, int flags, int svg,
                    const char *prefix, gd_err *err)
{
    double wall = INFINITY, cpu = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = clock_s(CLOCK_MONOTONIC);
        double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        if (fig_write_files(k, run, 0, NULL, flags, svg ? CAMP_FMT_SVG
                                                        : CAMP_FMT_PDF,
                            NULL, err))
            return -1;
        wall = fmin(wall, clock_s(CLOCK_MONOTONIC) - t0);
        cpu = fmin(cpu, clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
    }
    printf("%s_s %.4f\n%s_cpu_s %.4f\n%s_bytes %ld\n", prefix, wall, prefix,
           cpu, prefix, file_bytes(run->dir, svg ? "svg" : "pdf"));
    return 0;
}

static double prand(size_t i)
{
    unsigned long long x = i * 6364136223846793005ull + 1442695040888963407ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (double)(x >> 11) / 9007199254740992.0;
}

typedef struct { double a, ipc; size_t i; } pt;

static int by_area(const void *p, const void *q)
{
    const pt *a = p, *b = q;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->ipc > b->ipc ? -1 : a->ipc < b->ipc;
}

/* Maximise ipc, minimise area: sweep by area keeping rising ipc. */
static size_t front_of(const store_record *r, size_t n, rep_point *out)
{
    pt *p = malloc(n * sizeof *p);
    size_t nf = 0;
    double best = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        met_get(&r[i].metrics, "area_mm2", &p[i].a);
        met_get(&r[i].metrics, "ipc", &p[i].ipc);
        p[i].i = i;
    }
    qsort(p, n, sizeof *p, by_area);
    for (size_t i = 0; i < n; i++)
        if (p[i].ipc > best) {
            best = p[i].ipc;
            memset(&out[nf], 0, sizeof out[nf]);
            out[nf].metrics = r[p[i].i].metrics;
            nf++;
        }
    free(p);
    return nf;
}

static void make_run(rep_run *run, const char *dir, size_t n, FILE *csv)
{
    memset(run, 0, sizeof *run);
    util_strlcpy(run->dir, dir, sizeof run->dir);
    run->camp.formats = CAMP_FMT_PDF | CAMP_FMT_SVG;
    run->nobj = 2;
    util_strlcpy(run->obj[0].metric, "ipc", sizeof run->obj[0].metric);
    run->obj[0].maximize = 1;
    util_strlcpy(run->obj[1].metric, "area_mm2", sizeof run->obj[1].metric);
    run->recs = calloc(n, sizeof *run->recs);
    run->nrecs = n;
    fprintf(csv, "area_mm2,ipc\n");
    for (size_t i = 0; i < n; i++) {
        store_record *r = &run->recs[i];
        double a = 80 + 400 * prand(i);
        double ipc = 0.3 + 9 * sqrt((a - 80) / 400) * (0.4 + 0.6 * prand(i + n));
        util_strlcpy(r->workload, "bench", sizeof r->workload);
        util_strlcpy(r->fidelity, "modelled", sizeof r->fidelity);
        r->status = ST_OK;
        met_put(&r->metrics, "ipc", ipc);
        met_put(&r->metrics, "area_mm2", a);
        fprintf(csv, "%.17g,%.17g\n", a, ipc);
    }
    run->nwl = 1;
    run->wl = calloc(1, sizeof *run->wl);
    util_strlcpy(run->wl[0].name, "bench", sizeof run->wl[0].name);
    run->wl[0].points = (long)n;
    run->wl[0].front = calloc(n, sizeof *run->wl[0].front);
    run->wl[0].nfront = front_of(run->recs, n, run->wl[0].front);
    run->wl[0].has_baseline = 1;
    run->wl[0].baseline.metrics = run->recs[0].metrics;
}

int main(int argc, char **argv)
{
    rep_run run;
    gd_err err = { 0 };
    char path[4200];
    if (argc < 2)
        return 2;
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : 100000;
    snprintf(path, sizeof path, "%s/points.csv", argv[1]);
    FILE *csv = fopen(path, "w");
    if (!csv)
        return 3;
    make_run(&run, argv[1], n, csv);
    fclose(csv);
    const fig_kind *k = fig_kind_find("pareto");
    /* every job as a marker (density="off"), then the default (a density
     * raster above FIG_DENSITY_AUTO jobs), whose files stay */
    if (time_one(k, &run, FIG_EXACT, 0, "pdf_exact", &err)
        || time_one(k, &run, FIG_EXACT, 1, "svg_exact", &err)
        || time_one(k, &run, 0, 0, "pdf", &err)
        || time_one(k, &run, 0, 1, "svg", &err)) {
        fprintf(stderr, "bench_report: %s\n", err.msg);
        return 1;
    }
    printf("front %zu\n", run.wl[0].nfront);
    free(run.recs);
    free(run.wl[0].front);
    free(run.wl);
    return 0;
}
