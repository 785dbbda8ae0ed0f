/* bench_costmodel: figures for the split cost model — Eq. (1) predictions
 * per second on one core, and the cost-model optimum against the
 * exhaustive fine grid on every preset machine and task class. Prints
 * figures, never pass/fail. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "costmodel.h"
#include "machine.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const cm_task tasks[] = {
    {CM_TRIAD, {1 << 26, 0, 0}, 4}, {CM_DOT, {1 << 26, 0, 0}, 4},
    {CM_GEMM, {8192, 8192, 8192}, 4}, {CM_JACOBI, {8192, 8192, 100}, 4},
    {CM_MAP, {1 << 26, 256, 0}, 4},
};

static void predictions_per_second(const cm_machine *m)
{
    cm_shape s;
    cm_task_shape(&tasks[2], &s);
    cm_decision d;
    memset(&d, 0, sizeof d);
    d.n = m->ndev;
    for (int i = 0; i < m->ndev; i++) {
        d.idx[i] = i;
        util_strlcpy(d.dev[i], m->dev[i].name, CM_NAMELEN);
    }
    d.chunk = 512;
    d.block = 256;
    d.mode = CM_PIPELINED;
    long n = 2000000;
    double sink = 0, t0 = now_s();
    for (long k = 0; k < n; k++) {
        double a = (double)(k % 97) / 97.0;
        d.share[0] = 0.1 + 0.3 * a;
        d.share[1] = 0.4 - 0.3 * a;
        d.share[2] = 0.25;
        d.share[3] = 0.25;
        cm_terms o;
        sink += cm_predict(m, &tasks[2], &s, &d, &o);
    }
    double dt = now_s() - t0;
    printf("  Eq. (1) predictions per second (one core, 4-device gemm, full term breakdown): %.0f  [%ld in %.3f s, checksum %.6g]\n",
           n / dt, n, dt, sink);
}

int main(void)
{
    const char *names[] = {"hetero-4", "uni-server-1gpu", "uni-server-2gpu-induced"};
    cm_machine m;
    gd_err err = {0, ""};
    if (mach_load("hetero-4", &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 3;
    }
    printf("split cost model (PREDICTED(costmodel))\n");
    predictions_per_second(&m);
    printf("  optimum (coarse grid 1/10 + closed form + polish) vs exhaustive grid 1/40:\n");
    double worst = 0;
    for (int mi = 0; mi < 3; mi++) {
        if (mach_load(names[mi], &m, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 3;
        }
        for (int ti = 0; ti < 5; ti++) {
            cm_search g;
            cm_search_default(&tasks[ti], &g);
            g.grid = 10;
            long e1, e2;
            double t0 = now_s();
            double opt = cm_optimum(&m, &tasks[ti], &g, NULL, &e1);
            double t1 = now_s();
            g.grid = 40;
            double fine = cm_grid_best(&m, &tasks[ti], &g, NULL, &e2);
            double t2 = now_s();
            double gap = opt / fine - 1;
            worst = fmax(worst, gap);
            printf("    %-24s %-7s optimum %.6g s (%ld predictions, %.3f s)  grid %.6g s (%ld predictions, %.3f s)  gap %+.4f%%\n",
                   names[mi], cm_kind_name(tasks[ti].kind), opt, e1, t1 - t0, fine, e2,
                   t2 - t1, 100 * gap);
        }
    }
    printf("  worst gap optimum over exhaustive grid: %+.4f%% (negative: optimum better)\n", 100 * worst);
    return 0;
}
