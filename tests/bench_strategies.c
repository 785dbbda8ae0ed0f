/* bench_strategies: how close each search strategy gets to the exhaustive
 * hypervolume within a budget, on the embedded model (modelled numbers).
 * For each workload: evaluate the full 15,552-point space, take the
 * exhaustive front's hypervolume (maximize ipc, minimize area_mm2,
 * normalised to that front's ideal..nadir, reference point 1.1); then run every
 * strategy at budgets 100 and 300 over 5 seeds, feeding it model results,
 * and print the median (and min..max) ratio of its hypervolume to the
 * exhaustive one, the median evaluations to reach 95% and 99% at budget
 * 300, the median ADRS against the exhaustive front (normalised
 * objectives, %), the median best IPC found after 10 and 30 evaluations
 * and the CPU time the strategy itself took (all runs). "agent+llm" is the
 * agent strategy driven by a scripted stand-in LLM (scriptllm.h) over
 * loopback, 8 configs per round. Usage: bench_strategies [workload...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontmetrics.h"
#include "hypervolume.h"
#include "model.h"
#include "pareto.h"
#include "strategy.h"
#include "workload.h"
#include "scriptllm.h"

#define NSEEDS 5
#define NSPACE 15552

typedef struct {
    const wl_workload *w;
    space_def s;
    double *y;          /* NSPACE x 2, minimised, NaN when not runnable */
    store_record *rec;  /* NSPACE records as the backend would write them */
    double lo[2], hi[2], hv_full;
    size_t nfront;
    double *front;      /* nfront x 2, normalised */
    int llm_port;       /* the scripted LLM's; 0 none */
} world;

static void record_of(const wl_workload *w, const gpu_config *c,
                      store_record *r)
{
    model_out mo;
    gd_err e = {0, ""};
    memset(r, 0, sizeof *r);
    r->cfg = *c;
    if (model_eval(w, c, &mo, &e) != 0) {
        r->status = ST_INVALID_CONFIG;
        return;
    }
    r->status = ST_OK;
    model_to_metrics(&mo, &r->metrics);
    util_strlcpy(r->limit, model_limit_name(mo.limit), sizeof r->limit);
    util_strlcpy(r->bottleneck, model_bottleneck_name(mo.bottleneck),
                 sizeof r->bottleneck);
}

static double hv_of(const world *W, const double *rows, size_t n)
{
    double *nrm = malloc((n ? n : 1) * 2 * sizeof *nrm), ref[2] = {1.1, 1.1};
    double v = 0;
    hv_normalise(rows, n, 2, W->lo, W->hi, nrm);
    hv_compute(nrm, n, 2, ref, &v);
    free(nrm);
    return v;
}

static int build_world(world *W, const wl_workload *w)
{
    W->w = w;
    space_def_full(&W->s);
    W->y = malloc(NSPACE * 2 * sizeof *W->y);
    W->rec = malloc(NSPACE * sizeof *W->rec);
    if (!W->y || !W->rec)
        return -1;
    for (uint64_t i = 0; i < NSPACE; i++) {
        gpu_config c = space_at(&W->s, i);
        record_of(w, &c, &W->rec[i]);
        double ipc, area;
        if (W->rec[i].status == ST_OK
            && met_get(&W->rec[i].metrics, "ipc", &ipc) == 0
            && met_get(&W->rec[i].metrics, "area_mm2", &area) == 0) {
            W->y[2 * i] = -ipc;
            W->y[2 * i + 1] = area;
        } else {
            W->y[2 * i] = W->y[2 * i + 1] = NAN;
        }
    }
    /* Normalise to the exhaustive front's ideal..nadir: the reference
     * point 1.1 then sits just beyond the front, so the ratio measures how
     * well the front itself is found, not the empty bulk of the space. */
    size_t *idx = malloc(NSPACE * sizeof *idx);
    double *f = malloc(NSPACE * 2 * sizeof *f);
    if (!idx || !f)
        return -1;
    size_t nf = pareto_front(W->y, NSPACE, 2, idx);
    for (size_t i = 0; i < nf; i++)
        memcpy(f + 2 * i, W->y + 2 * idx[i], 2 * sizeof *f);
    hv_bounds(f, nf, 2, W->lo, W->hi);
    W->nfront = nf;
    hv_normalise(f, nf, 2, W->lo, W->hi, f);
    W->front = f;
    free(idx);
    W->hv_full = hv_of(W, W->y, NSPACE);
    return 0;
}

/* ADRS of the non-dominated rows found, against the exhaustive front. */
static double adrs_of(const world *W, const double *rows, size_t n)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    double *f = malloc((n ? n : 1) * 2 * sizeof *f);
    size_t nf = pareto_front(rows, n, 2, idx);
    for (size_t i = 0; i < nf; i++)
        memcpy(f + 2 * i, rows + 2 * idx[i], 2 * sizeof *f);
    hv_normalise(f, nf, 2, W->lo, W->hi, f);
    double a = fm_adrs(W->front, W->nfront, f, nf, 2);
    free(idx);
    free(f);
    return a;
}

/* "agent+llm": the agent strategy driven by the scripted LLM, its cache
 * and transcript in a fresh folder dir (removed by the caller). */
static int drive_with_llm(const world *W, strat *st, char *dir, gd_err *e)
{
    camp_agents a;
    memset(&a, 0, sizeof a);
    util_strlcpy(a.provider, "openai-compatible", sizeof a.provider);
    snprintf(a.endpoint, sizeof a.endpoint, "http://127.0.0.1:%d/v1",
             W->llm_port);
    util_strlcpy(a.model, "scripted", sizeof a.model);
    util_strlcpy(a.key_env, "GPUDSE_BENCH_NO_KEY", sizeof a.key_env);
    a.max_tokens = 400;
    a.max_requests = 1000000;
    a.timeout_s = 30;
    if (!mkdtemp(dir))
        return gd_errf(e, GD_EENV, "mkdtemp failed");
    return strat_set_agents(st, &a, 8, 0, dir, W->w->name, e);
}

/* Run one strategy; ratio[e] = HV ratio after e+1 evaluations, ipc[e] the
 * best IPC so far, *adrs of the final front. */
static int run_strategy(const world *W, const char *name, long budget,
                        uint64_t seed, double *ratio, double *ipc,
                        double *adrs, double *secs)
{
    strat *st;
    gd_err e = {0, ""};
    int llm = strcmp(name, "agent+llm") == 0;
    char dir[] = "/tmp/gpudse-bench-llm.XXXXXX";
    if (strat_new(llm ? "agent" : name, &W->s, budget, seed, &st, &e) != 0
        || (llm && drive_with_llm(W, st, dir, &e) != 0)) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return -1;
    }
    camp_objective obj[2] = {{"ipc", 1}, {"area_mm2", 0}};
    strat_set_objectives(st, obj, 2, &e);
    double *rows = malloc((size_t)budget * 2 * sizeof *rows);
    gpu_config batch[256];
    size_t n, done = 0;
    clock_t t0 = clock();
    double strat_time = 0;
    while (1) {
        clock_t a = clock();
        n = strat_next(st, batch, 256);
        strat_time += (double)(clock() - a);
        if (n == 0)
            break;
        for (size_t i = 0; i < n; i++) {
            int64_t idx = space_index(&W->s, &batch[i]);
            rows[2 * done] = W->y[2 * idx];
            rows[2 * done + 1] = W->y[2 * idx + 1];
            a = clock();
            strat_observe(st, &batch[i], &W->rec[idx]);
            strat_time += (double)(clock() - a);
            done++;
            ratio[done - 1] = hv_of(W, rows, done) / W->hv_full;
            double best = done > 1 ? ipc[done - 2] : -INFINITY;
            ipc[done - 1] = isfinite(rows[2 * done - 2])
                            && -rows[2 * done - 2] > best
                            ? -rows[2 * done - 2] : best;
        }
    }
    (void)t0;
    for (size_t i = done; i < (size_t)budget; i++) {
        ratio[i] = done ? ratio[done - 1] : 0;
        ipc[i] = done ? ipc[done - 1] : NAN;
    }
    *secs = strat_time / CLOCKS_PER_SEC;
    *adrs = adrs_of(W, rows, done);
    free(rows);
    strat_free(st);
    if (llm) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench: cannot remove %s\n", dir);
    }
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double evals_to(const double *ratio, long budget, double target)
{
    for (long i = 0; i < budget; i++)
        if (ratio[i] >= target)
            return (double)(i + 1);
    return INFINITY;
}

static void bench_workload(const world *W)
{
    static const char *const names[] = {"random", "lhs", "nsga2", "surrogate",
                                        "agent", "agent+llm"};
    printf("%s: exhaustive front %zu points, hypervolume %.4f (normalised "
           "to the front's ideal..nadir, reference point 1.1)\n", W->w->name,
           W->nfront, W->hv_full);
    printf("  %-10s %22s %22s %7s %7s %8s %8s %7s %7s %6s\n", "strategy",
           "HV@100 med [min..max]", "HV@300 med [min..max]", "n->95%",
           "n->99%", "ADRS@100", "ADRS@300", "IPC@10", "IPC@30", "cpu s");
    for (size_t s = 0; s < sizeof names / sizeof names[0]; s++) {
        double r100[NSEEDS], r300[NSEEDS], n95[NSEEDS], n99[NSEEDS];
        double a100[NSEEDS], a300[NSEEDS], ratio[300], secs = 0, t;
        double ipc[300], i10[NSEEDS], i30[NSEEDS];
        if (!strcmp(names[s], "agent+llm") && !W->llm_port)
            continue;
        for (int seed = 0; seed < NSEEDS; seed++) {
            if (run_strategy(W, names[s], 100, (uint64_t)seed + 1, ratio,
                             ipc, &a100[seed], &t))
                return;
            r100[seed] = ratio[99];
            i10[seed] = ipc[9];
            i30[seed] = ipc[29];
            secs += t;
            if (run_strategy(W, names[s], 300, (uint64_t)seed + 1, ratio,
                             ipc, &a300[seed], &t))
                return;
            r300[seed] = ratio[299];
            n95[seed] = evals_to(ratio, 300, 0.95);
            n99[seed] = evals_to(ratio, 300, 0.99);
            secs += t;
        }
        double m100 = median(r100, NSEEDS), m300 = median(r300, NSEEDS);
        printf("  %-10s %6.2f%% [%5.1f..%5.1f] %6.2f%% [%5.1f..%5.1f] %7.0f "
               "%7.0f %7.2f%% %7.2f%% %7.1f %7.1f %6.2f\n", names[s],
               100 * m100, 100 * r100[0], 100 * r100[NSEEDS - 1], 100 * m300,
               100 * r300[0], 100 * r300[NSEEDS - 1], median(n95, NSEEDS),
               median(n99, NSEEDS), 100 * median(a100, NSEEDS),
               100 * median(a300, NSEEDS), median(i10, NSEEDS),
               median(i30, NSEEDS), secs);
    }
}

int main(int argc, char **argv)
{
    static const char *const dflt[] = {"sgemm", "dct8x8", "reduction",
                                       "histogram", "transpose", "vecadd",
                                       "sfu"};
    const char *const *names = argc > 1 ? (const char *const *)argv + 1 : dflt;
    int n = argc > 1 ? argc - 1 : (int)(sizeof dflt / sizeof dflt[0]);
    printf("strategy study on the embedded model (modelled), full space of "
           "%d configs, %d seeds, maximize ipc / minimize area_mm2\n",
           NSPACE, NSEEDS);
    int port = 0;
    pid_t llm = sl_start(&port);
    if (llm < 0)
        fprintf(stderr, "bench: no loopback socket; agent+llm left out\n");
    for (int i = 0; i < n; i++) {
        wl_workload w;
        gd_err e = {0, ""};
        if (wl_load_builtin(names[i], &w, &e) != 0) {
            fprintf(stderr, "bench: %s\n", e.msg);
            sl_stop(llm);
            return 2;
        }
        world W;
        if (build_world(&W, &w) != 0) {
            sl_stop(llm);
            return 3;
        }
        W.llm_port = port;
        bench_workload(&W);
        free(W.y);
        free(W.rec);
        free(W.front);
    }
    sl_stop(llm);
    return 0;
}
