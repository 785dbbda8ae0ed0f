/* rules: the offline, deterministic provider — Memory, Warp and Bottleneck
 * specialists and the Orchestrator write 2-4 sentences from a point's
 * counters using the fixed thresholds below (also in docs/agents.md).
 *
 *  agent        quantity                           GREEN      AMBER        RED
 *  memory       DRAM-stall share s = stall/cycles  s < 5%     5% <= s      s >= 20%
 *               DRAM use u = dram_bw / peak(n_mem) u < 50%    50% <= u     u >= 80%
 *               bottleneck                         other      mem_latency  mem_bandwidth
 *               (status = worst of the three; peak(n_mem) = n_mem x 14.78 GB/s,
 *                n_mem x 32 B x 924 MHz x 0.5, docs/model.md)
 *  warp         occupancy o, issue use e =         o >= 50%   o < 50% or   o < 25% and
 *               ipc / (SMs x 32 x min(sched, 2))   and e>=30%  e < 30%      e < 30%
 *               (a point with o < 50% but e >= 50% is latency-tolerant: GREEN)
 *  bottleneck   class of the largest bound         compute    mem_latency, mem_bandwidth
 *                                                                          with u >= 80%
 *                                                             mem_bw u<80%
 *  orchestrator recommended point vs baseline on   gain>=10%  gain < 10%,  no front or
 *  (workload)   the first objective; failures      no failure failures, or no points
 *                                                             no baseline
 *  orchestrator worst status of the workloads
 *  (campaign)
 *
 * L1 wording: miss rate >= 90% streaming, <= 30% fits, between partial.
 *
 * A metric the point lacks (or holds as null) is not measured: no row reads
 * it, the text says what could not be judged, and a specialist with nothing
 * to judge is UNKNOWN (bottleneck: no recorded bound). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agents.h"

#define DRAM_GBPS_PER_CHANNEL 14.784   /* 32 B x 924 MHz x 0.5 */
#define WARP 32.0

static const char *const status_names[] = {"GREEN", "AMBER", "RED",
                                           "UNKNOWN"};
static const char *const agent_names[] = {"memory", "warp", "bottleneck",
                                          "orchestrator"};

const char *agents_status_name(int status)
{
    return status >= 0 && status <= AGENTS_UNKNOWN ? status_names[status]
                                                   : "AMBER";
}

int agents_status_parse(const char *s)
{
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, status_names[i]) == 0)
            return i;
    return -1;
}

const char *agents_agent_name(int agent)
{
    return agent >= 0 && agent <= 3 ? agent_names[agent] : "orchestrator";
}

/* 1 and *v when the point holds a finite value of name; 0 when the metric
 * was not measured (absent from the record, or null). Nothing is read as 0. */
static int has(const agents_point *p, const char *name, double *v)
{
    double x = NAN;
    if (met_get(&p->m, name, &x) != 0 || !isfinite(x))
        return 0;
    if (v)
        *v = x;
    return 1;
}

/* The value of a metric the caller has checked with has(). */
static double metric(const agents_point *p, const char *name)
{
    double v = NAN;
    has(p, name, &v);
    return v;
}

static int worse(int a, int b)
{
    return a > b ? a : b;
}

static double pct(double x)
{
    return 100.0 * x;
}

/* Append printf text to out->text (truncating at its size). */
static void put(agents_note *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(agents_note *out, const char *fmt, ...)
{
    size_t used = strlen(out->text);
    if (used + 1 >= sizeof out->text)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->text + used, sizeof out->text - used, fmt, ap);
    va_end(ap);
}

/* "a", "a and b", "a, b and c" of the names flagged missing. */
static void list_names(const char *const *names, const int *miss, int n,
                       char *b, size_t sz)
{
    int total = 0, done = 0;
    for (int i = 0; i < n; i++)
        total += miss[i] != 0;
    b[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (!miss[i])
            continue;
        size_t used = strlen(b);
        snprintf(b + used, sz - used, "%s%s",
                 done == 0 ? "" : done == total - 1 ? " and " : ", ",
                 names[i]);
        done++;
    }
}

/* "The run did not measure X and Y, so A and B could not be judged." */
static void put_unmeasured(agents_note *out, const char *const *metrics,
                           const int *mmiss, int nm,
                           const char *const *judged, const int *jmiss,
                           int nj)
{
    char what[300], lost[300];
    list_names(metrics, mmiss, nm, what, sizeof what);
    if (!what[0])
        return;
    list_names(judged, jmiss, nj, lost, sizeof lost);
    put(out, "%sThe run did not measure %s", out->text[0] ? " " : "", what);
    if (lost[0])
        put(out, ", so %s could not be judged", lost);
    put(out, ".");
}

/* DRAM use u = dram_bw / peak(n_mem); 0 when not measured. */
static int dram_use(const agents_point *p, double *u)
{
    double bw, peak = p->cfg.n_mem * DRAM_GBPS_PER_CHANNEL;
    if (!has(p, "dram_bw_gbps", &bw) || !(peak > 0))
        return 0;
    *u = bw / peak;
    return 1;
}

/* DRAM-stall share s = stall / cycles; 0 when not measured. */
static int stall_share(const agents_point *p, double *s)
{
    double st, cyc;
    if (!has(p, "dram_stall_cycles", &st) || !has(p, "cycles", &cyc)
        || !(cyc > 0))
        return 0;
    *s = st / cyc;
    return 1;
}

/* ---- memory ---------------------------------------------------------- */

/* The worst of the rows that could be judged; AGENTS_UNKNOWN when none. */
static int memory_status(const agents_point *p)
{
    double s = 0, u = 0;
    int hs = stall_share(p, &s), hu = dram_use(p, &u);
    int hb = p->bottleneck[0] != '\0';
    if (!hs && !hu && !hb)
        return AGENTS_UNKNOWN;
    int st = AGENTS_GREEN;
    if ((hs && s >= 0.05) || (hu && u >= 0.50)
        || strcmp(p->bottleneck, "mem_latency") == 0)
        st = AGENTS_AMBER;
    if ((hs && s >= 0.20) || (hu && u >= 0.80)
        || strcmp(p->bottleneck, "mem_bandwidth") == 0)
        st = AGENTS_RED;
    return st;
}

static void l1_sentence(const agents_point *p, agents_note *out)
{
    double l1;
    if (!has(p, "l1d_miss_rate", &l1))
        return;
    if (l1 >= 0.90)
        put(out, " Almost every L1 access misses, so the global traffic "
            "is low-reuse streaming and more L1 than the current %d sets "
            "would be wasted area.", p->cfg.l1_sets);
    else if (l1 <= 0.30)
        put(out, " The L1 catches %.0f%% of accesses, so the working "
            "set already fits in the current %d sets.", pct(1 - l1),
            p->cfg.l1_sets);
    else
        put(out, " The L1 catches only %.0f%% of accesses, so the "
            "working set partly fits in the current %d sets and l1_sets "
            "is a secondary knob.", pct(1 - l1), p->cfg.l1_sets);
}

/* What the status means for the knobs, by its cause. */
static void memory_tail(const agents_point *p, int st, char *b, size_t n)
{
    double s = 0, u = 0, l2 = 0;
    int hs = stall_share(p, &s), hu = dram_use(p, &u);
    int hl2 = has(p, "l2_miss_rate", &l2);
    int pressure = (hs && s >= 0.05) || (hu && u >= 0.50);
    if (st == AGENTS_GREEN)
        snprintf(b, n, "bandwidth is not the limiter, so more memory "
                 "channels will not move IPC.");
    else if (st == AGENTS_RED)
        snprintf(b, n, "the memory system is the limiter, so more n_mem or "
                 "l2_sets is the highest-leverage change.");
    else if (pressure)
        snprintf(b, n, "DRAM is under pressure; watch n_mem (now %d) as "
                 "compute grows.", p->cfg.n_mem);
    else if (!hl2)
        snprintf(b, n, "the bound is memory latency, and without an L2 miss "
                 "rate its source cannot be told.");
    else if (l2 >= 0.20)
        snprintf(b, n, "bandwidth is idle but misses are slow, so fewer L2 "
                 "misses (l2_sets now %d) matter more than more channels.",
                 p->cfg.l2_sets);
    else
        snprintf(b, n, "bandwidth is idle and L2 hits %.0f%%, so the "
                 "latency comes from L1 misses reaching L2, not from DRAM.",
                 pct(1 - l2));
}

/* First sentence: the miss rates and the DRAM-stall share measured. */
static void memory_counters(const agents_point *p, agents_note *out)
{
    double l1, l2, s;
    int h1 = has(p, "l1d_miss_rate", &l1), h2 = has(p, "l2_miss_rate", &l2);
    int hs = stall_share(p, &s);
    if (h1)
        put(out, "L1D miss rate %.0f%%", pct(l1));
    if (h2)
        put(out, "%s miss rate %.0f%%", h1 ? " and L2" : "L2", pct(l2));
    if (hs)
        put(out, "%s%.0f DRAM-stall cycles (%.1f%% of %.0f cycles)",
            h1 || h2 ? " with " : "", metric(p, "dram_stall_cycles"),
            pct(s), metric(p, "cycles"));
    if (h1 || h2 || hs)
        put(out, ".");
}

void agents_rules_memory(const agents_point *p, agents_note *out)
{
    double u = 0, l2bw = 0;
    int st = memory_status(p), hu = dram_use(p, &u);
    int hl2bw = has(p, "l2_bw_gbps", &l2bw);
    char tail[300] = "";
    out->text[0] = '\0';
    memory_counters(p, out);
    l1_sentence(p, out);
    if (st != AGENTS_UNKNOWN)
        memory_tail(p, st, tail, sizeof tail);
    const char *lead = out->text[0] ? " " : "";
    if (hu)
        put(out, "%sDRAM moves %.1f GB/s, %.0f%% of the %.1f GB/s peak of "
            "n_mem=%d", lead, metric(p, "dram_bw_gbps"), pct(u),
            p->cfg.n_mem * DRAM_GBPS_PER_CHANNEL, p->cfg.n_mem);
    if (hl2bw)
        put(out, "%sL2 serves %.1f GB/s", hu ? ", and " : lead, l2bw);
    if (hu || hl2bw)
        put(out, "%s", tail[0] ? ": " : ".");
    else if (tail[0])
        put(out, "%sFrom what was measured, ", out->text[0] ? " " : "");
    put(out, "%s", tail);
    static const char *const mnames[] = {
        "l1d_miss_rate", "l2_miss_rate", "dram_stall_cycles", "cycles",
        "dram_bw_gbps", "l2_bw_gbps"};
    static const char *const jnames[] = {
        "the L1 reuse", "the L2 hit rate", "the DRAM-stall share",
        "the DRAM use", "the L2 traffic"};
    double s;
    int mmiss[6] = {!has(p, "l1d_miss_rate", NULL),
                    !has(p, "l2_miss_rate", NULL),
                    !has(p, "dram_stall_cycles", NULL),
                    !has(p, "cycles", NULL), !hu, !hl2bw};
    int jmiss[5] = {mmiss[0], mmiss[1], !stall_share(p, &s), !hu, !hl2bw};
    put_unmeasured(out, mnames, mmiss, 6, jnames, jmiss, 5);
    if (st == AGENTS_UNKNOWN)
        put(out, " The memory system could not be judged.");
    out->status = st;
}

/* ---- warp ------------------------------------------------------------ */

static int n_sms(const gpu_config *c)
{
    return c->n_clusters * c->cores_per_cluster;
}

static double issue_peak_per_sm(const gpu_config *c)
{
    int s = c->num_sched_per_core < 2 ? c->num_sched_per_core : 2;
    return WARP * (s > 0 ? s : 1);
}

/* Issue use e = ipc / (SMs x issue peak); 0 when ipc was not measured. */
static int issue_use(const agents_point *p, double *e)
{
    double ipc, peak = n_sms(&p->cfg) * issue_peak_per_sm(&p->cfg);
    if (!has(p, "ipc", &ipc) || !(peak > 0))
        return 0;
    *e = ipc / peak;
    return 1;
}

static void limit_advice(const agents_point *p, char *b, size_t n)
{
    const char *sched = p->cfg.scheduler == SCHED_GTO
                        ? "gto already overlaps memory phases best"
                        : "gto would overlap memory phases better";
    if (strcmp(p->limit, "smem") == 0)
        snprintf(b, n, "shared memory caps the resident CTAs, so a larger "
                 "shmem_size than %d would admit more warps.",
                 p->cfg.shmem_size);
    else if (p->limit[0])
        snprintf(b, n, "the %s limit is set by the kernel, which no knob "
                 "here changes, so gains must come from more SMs; %s.",
                 p->limit, sched);
    else
        snprintf(b, n, "gains must come from more SMs; %s.", sched);
}

/* The verdict on occupancy o and issue use e, both measured. */
static int warp_verdict(const agents_point *p, double o, double e, char *why,
                        size_t n)
{
    if (o < 0.50 && e >= 0.50) {
        snprintf(why, n, "Issue slots stay busy despite the low "
                 "occupancy, so the kernel is latency-tolerant and chasing "
                 "occupancy will not pay.");
        return AGENTS_GREEN;
    }
    if (o < 0.25 && e < 0.30) {
        char adv[300];
        limit_advice(p, adv, sizeof adv);
        snprintf(why, n, "Too few warps are resident to hide "
                 "latency and the issue slots idle; %s", adv);
        return AGENTS_RED;
    }
    if (o < 0.50 || e < 0.30) {
        snprintf(why, n, "%.0f%% of issue slots go unused, so warps "
                 "wait on dependencies or memory rather than on the %s "
                 "scheduler.", pct(1 - e), space_sched_name(p->cfg.scheduler));
        return AGENTS_AMBER;
    }
    if (p->cfg.num_sched_per_core < 2)
        snprintf(why, n, "Warps are plentiful and issue is busy; a "
                 "second scheduler per core would double the issue ceiling.");
    else
        snprintf(why, n, "Warps are plentiful and issue is busy; "
                 "more schedulers than %d add little because dispatch caps at "
                 "2 warp instructions per cycle.", p->cfg.num_sched_per_core);
    return AGENTS_GREEN;
}

void agents_rules_warp(const agents_point *p, agents_note *out)
{
    double o = 0, e = 0;
    int ho = has(p, "occupancy", &o), he = issue_use(p, &e);
    int sms = n_sms(&p->cfg);
    char why[400] = "", lim[64] = "";
    int st = AGENTS_UNKNOWN;
    if (ho && he)
        st = warp_verdict(p, o, e, why, sizeof why);
    if (p->limit[0])
        snprintf(lim, sizeof lim, " (limited by %s)", p->limit);
    out->text[0] = '\0';
    if (ho)
        put(out, "Occupancy is %.0f%%%s", pct(o), lim);
    if (he)
        put(out, "%s is %.1f over %d SMs, %.1f per SM or %.0f%% of the "
            "%.0f-per-SM issue peak of %s with %d scheduler(s)",
            ho ? " and IPC" : "IPC", metric(p, "ipc"), sms,
            sms > 0 ? metric(p, "ipc") / sms : 0, pct(e),
            issue_peak_per_sm(&p->cfg), space_sched_name(p->cfg.scheduler),
            p->cfg.num_sched_per_core);
    if (ho || he)
        put(out, ".");
    if (why[0])
        put(out, " %s", why);
    if (!ho || !he) {
        put(out, "%sThe run did not measure %s, so whether enough warps are "
            "resident to hide latency could not be judged.",
            out->text[0] ? " " : "", !ho && !he ? "occupancy and ipc"
                                                : !ho ? "occupancy" : "ipc");
    }
    out->status = st;
}

/* ---- bottleneck ------------------------------------------------------- */

static void leverage(const agents_point *p, char *b, size_t n)
{
    const gpu_config *c = &p->cfg;
    double l2 = 0;
    int hl2 = has(p, "l2_miss_rate", &l2);
    if (strcmp(p->bottleneck, "compute") == 0)
        snprintf(b, n, "The highest-leverage change is more SMs through "
                 "n_clusters (now %d) or cores_per_cluster (now %d); memory "
                 "knobs will not move IPC here.", c->n_clusters,
                 c->cores_per_cluster);
    else if (strcmp(p->bottleneck, "mem_bandwidth") == 0)
        snprintf(b, n, "The highest-leverage change is more memory channels "
                 "(n_mem now %d) or more l2_sets (now %d) to cut DRAM "
                 "traffic; more SMs would only queue behind DRAM.", c->n_mem,
                 c->l2_sets);
    else if (strcmp(p->bottleneck, "mem_latency") == 0) {
        char warps[160], l2t[160];
        if (strcmp(p->limit, "smem") == 0)
            snprintf(warps, sizeof warps, "more resident warps via a larger "
                     "shmem_size (now %d)", c->shmem_size);
        else
            snprintf(warps, sizeof warps, "more warps in flight via more SMs "
                     "(n_clusters now %d)", c->n_clusters);
        if (!hl2)
            snprintf(l2t, sizeof l2t, "possibly fewer L2 misses via l2_sets "
                     "(now %d; the L2 miss rate was not measured)",
                     c->l2_sets);
        else if (l2 >= 0.20)
            snprintf(l2t, sizeof l2t, "fewer L2 misses via l2_sets (now %d)",
                     c->l2_sets);
        else
            snprintf(l2t, sizeof l2t, "not more l2_sets, since L2 already "
                     "hits %.0f%%", pct(1 - l2));
        snprintf(b, n, "The highest-leverage change is better latency "
                 "hiding: %s, and %s.", warps, l2t);
    }
    else
        snprintf(b, n, "No bound is recorded for this point, so the next "
                 "step is a run that reports one.");
}

/* "compute-bound", "memory-bandwidth-bound", ... */
static const char *bound_words(const char *bottleneck)
{
    if (strcmp(bottleneck, "compute") == 0)
        return "compute-bound";
    if (strcmp(bottleneck, "mem_bandwidth") == 0)
        return "memory-bandwidth-bound";
    if (strcmp(bottleneck, "mem_latency") == 0)
        return "memory-latency-bound";
    return "unclassified";
}

/* " for 504.8 mm2 and 118.3 W" with what was measured. */
static void cost_phrase(const agents_point *p, agents_note *out)
{
    double a = 0, w = 0;
    int ha = has(p, "area_mm2", &a), hw = has(p, "power_w", &w);
    if (ha && hw)
        put(out, " for %.1f mm2 and %.1f W", a, w);
    else if (ha)
        put(out, " for %.1f mm2", a);
    else if (hw)
        put(out, " at %.1f W", w);
}

/* ", with DRAM at 0% of peak and occupancy 58%" with what was measured. */
static void use_phrase(const agents_point *p, agents_note *out)
{
    double u = 0, o = 0;
    int hu = dram_use(p, &u), ho = has(p, "occupancy", &o);
    if (hu && ho)
        put(out, ", with DRAM at %.0f%% of peak and occupancy %.0f%%",
            pct(u), pct(o));
    else if (hu)
        put(out, ", with DRAM at %.0f%% of peak", pct(u));
    else if (ho)
        put(out, ", with occupancy %.0f%%", pct(o));
}

void agents_rules_bottleneck(const agents_point *p,
                             const agents_point *baseline, agents_note *out)
{
    char lev[400];
    double ipc = 0, bipc = 0, u = 0;
    int hu = dram_use(p, &u);
    leverage(p, lev, sizeof lev);
    out->text[0] = '\0';
    put(out, "The point is %s", bound_words(p->bottleneck));
    if (has(p, "ipc", &ipc)) {
        put(out, " at IPC %.1f", ipc);
        if (baseline && has(baseline, "ipc", &bipc) && bipc > 0)
            put(out, " (%.2fx the baseline's %.1f)", ipc / bipc, bipc);
    }
    cost_phrase(p, out);
    use_phrase(p, out);
    put(out, ". %s", lev);
    static const char *const mnames[] = {"ipc", "area_mm2", "power_w",
                                         "dram_bw_gbps", "occupancy"};
    double o;
    int mmiss[5] = {!has(p, "ipc", NULL), !has(p, "area_mm2", NULL),
                    !has(p, "power_w", NULL), !hu, !has(p, "occupancy", &o)};
    static const char *const jnames[] = {"whether DRAM is saturated"};
    int jmiss[1] = {strcmp(p->bottleneck, "mem_bandwidth") == 0 && !hu};
    put_unmeasured(out, mnames, mmiss, 5, jnames, jmiss, 1);
    int st = AGENTS_AMBER;
    if (!p->bottleneck[0])
        st = AGENTS_UNKNOWN;
    else if (strcmp(p->bottleneck, "compute") == 0)
        st = AGENTS_GREEN;
    else if (strcmp(p->bottleneck, "mem_bandwidth") == 0 && hu && u >= 0.80)
        st = AGENTS_RED;
    out->status = st;
}

/* ---- orchestrator ------------------------------------------------------ */

/* Value with its unit: "504.8 mm2", "618.7". */
static void fmt_value(const char *metric_name, double v, char *b, size_t n)
{
    const char *u = met_unit(metric_name);
    if (strcmp(u, "mm²") == 0)
        u = "mm2";
    else if (strstr(u, "/cycle"))
        u = "";     /* "IPC 618.7", not "IPC 618.7 instructions/cycle" */
    if (fabs(v) >= 10 || v == 0)
        snprintf(b, n, "%.1f%s%s", v, *u ? " " : "", u);
    else
        snprintf(b, n, "%.3g%s%s", v, *u ? " " : "", u);
}

/* "n_clusters=30, cores_per_cluster=2" (knobs off baseline) or "the
 * baseline config". */
static void config_delta(const gpu_config *c, char *b, size_t n)
{
    gpu_config base = space_baseline();
    size_t used = 0;
    b[0] = 0;
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        if (space_get(c, k) == space_get(&base, k))
            continue;
        char v[32];
        int w = snprintf(b + used, n - used, "%s%s=%s", used ? ", " : "",
                         space_knob_get(k)->name,
                         space_value_str(k, space_get(c, k), v, sizeof v));
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
    if (!used)
        snprintf(b, n, "the baseline config");
}

/* Improvement factor of a over b for an objective (>1 means a is better). */
static double gain_of(double a, double b, int maximize)
{
    if (maximize)
        return b > 0 ? a / b : 0;
    return a > 0 ? b / a : 0;
}

static void next_step(const char *bottleneck, char *b, size_t n)
{
    if (strcmp(bottleneck, "compute") == 0)
        snprintf(b, n, "it is compute-bound, so next explore SM count "
                 "(n_clusters, cores_per_cluster) around it.");
    else if (strcmp(bottleneck, "mem_bandwidth") == 0)
        snprintf(b, n, "it is bandwidth-bound, so next explore n_mem and "
                 "l2_sets around it.");
    else if (strcmp(bottleneck, "mem_latency") == 0)
        snprintf(b, n, "it is latency-bound, so next explore shmem_size, "
                 "scheduler and l2_sets around it.");
    else
        snprintf(b, n, "its bound is not recorded, so next rerun it with a "
                 "backend that reports one.");
}

static void front_sentence(const agents_workload_view *w, char *b, size_t n)
{
    size_t used = (size_t)snprintf(b, n, "The front holds %d of %ld points "
                                   "(%ld failed)", w->nfront, w->points,
                                   w->failed);
    for (int i = 0; i < w->nobj && i < 3 && used < n; i++) {
        char lo[48], hi[48];
        fmt_value(w->obj[i].metric, w->front_lo[i], lo, sizeof lo);
        fmt_value(w->obj[i].metric, w->front_hi[i], hi, sizeof hi);
        used += (size_t)snprintf(b + used, n - used, "%s %s %s to %s",
                                 i == 0 ? ", with" : i == w->nobj - 1
                                     || i == 2 ? " and" : ",",
                                 met_label(w->obj[i].metric), lo, hi);
    }
    if (used < n)
        snprintf(b + used, n - used, ".");
}

static void pick_sentence(const agents_workload_view *w, char *b, size_t n)
{
    char cfg[400];
    config_delta(&w->pick->cfg, cfg, sizeof cfg);
    size_t used = (size_t)snprintf(b, n, "The recommended balanced point "
                                   "(%s%s) reaches", cfg[0] == 't' ? ""
                                   : "baseline with ", cfg);
    for (int i = 0; i < w->nobj && i < 2 && used < n; i++) {
        double v = 0, bv = 0;
        char val[48], rel[64] = "";
        met_get(&w->pick->m, w->obj[i].metric, &v);
        fmt_value(w->obj[i].metric, v, val, sizeof val);
        if (w->baseline && met_get(&w->baseline->m, w->obj[i].metric, &bv) == 0
            && bv != 0)
            snprintf(rel, sizeof rel, " (%.2fx baseline)", v / bv);
        used += (size_t)snprintf(b + used, n - used, "%s %s %s%s",
                                 i ? " for" : "", met_label(w->obj[i].metric),
                                 val, rel);
    }
    if (used < n)
        snprintf(b + used, n - used, ";");
}

void agents_rules_orch_workload(const agents_workload_view *w,
                                agents_note *out)
{
    if (!w->pick || w->points <= 0 || w->nobj <= 0) {
        snprintf(out->text, sizeof out->text,
                 "Workload %s has no Pareto front: %ld points evaluated, %ld "
                 "failed. Nothing can be recommended; check the failed jobs "
                 "before widening the search.",
                 w->workload, w->points, w->failed);
        out->status = AGENTS_RED;
        return;
    }
    char front[600], pick[700], next[200];
    front_sentence(w, front, sizeof front);
    pick_sentence(w, pick, sizeof pick);
    next_step(w->pick->bottleneck, next, sizeof next);
    snprintf(out->text, sizeof out->text, "%s %s %s", front, pick, next);
    int st = AGENTS_GREEN;
    double v = 0, bv = 0;
    if (!w->baseline || w->failed > 0)
        st = AGENTS_AMBER;
    else if (met_get(&w->pick->m, w->obj[0].metric, &v) == 0
             && met_get(&w->baseline->m, w->obj[0].metric, &bv) == 0
             && gain_of(v, bv, w->obj[0].maximize) < 1.10)
        st = AGENTS_AMBER;
    out->status = st;
}

int agents_pick_knee(const agents_point *front, int n,
                     const camp_objective *obj, int nobj)
{
    if (n <= 0)
        return -1;
    double lo[CAMP_MAXOBJ], hi[CAMP_MAXOBJ];
    for (int j = 0; j < nobj; j++) {
        lo[j] = INFINITY;
        hi[j] = -INFINITY;
        for (int i = 0; i < n; i++) {
            double v = 0;
            met_get(&front[i].m, obj[j].metric, &v);
            lo[j] = fmin(lo[j], v);
            hi[j] = fmax(hi[j], v);
        }
    }
    int best = 0;
    double bestd = INFINITY;
    for (int i = 0; i < n; i++) {
        double d = 0;
        for (int j = 0; j < nobj; j++) {
            double v = 0, span = hi[j] - lo[j];
            met_get(&front[i].m, obj[j].metric, &v);
            double good = 1;
            if (span > 0)
                good = obj[j].maximize ? (v - lo[j]) / span
                                       : (hi[j] - v) / span;
            d += (1 - good) * (1 - good);
        }
        if (d < bestd) {
            bestd = d;
            best = i;
        }
    }
    return best;
}

void agents_rules_orch_campaign(const char *metric_label,
                                const agents_wl_summary *w, int n,
                                agents_note *out)
{
    long points = 0, failed = 0;
    int st = AGENTS_GREEN, worst = 0;
    for (int i = 0; i < n; i++) {
        points += w[i].points;
        failed += w[i].failed;
        if (w[i].status > w[worst].status)
            worst = i;
        st = worse(st, w[i].status);
    }
    size_t used = (size_t)snprintf(out->text, sizeof out->text,
                                   "Across %d workload(s), %ld points were "
                                   "evaluated and %ld failed.", n, points,
                                   failed);
    for (int i = 0; i < n && i < 6 && used < sizeof out->text; i++) {
        char g[96];
        if (w[i].has_gain)
            snprintf(g, sizeof g, "%.2fx %s at the recommended point",
                     w[i].gain, metric_label);
        else
            snprintf(g, sizeof g, "no recommendation");
        used += (size_t)snprintf(out->text + used, sizeof out->text - used,
                                 "%s %s: %s, %s (%s)", i ? ";" : "",
                                 w[i].workload, g,
                                 bound_words(w[i].bottleneck),
                                 agents_status_name(w[i].status));
    }
    if (n > 6 && used < sizeof out->text)
        used += (size_t)snprintf(out->text + used, sizeof out->text - used,
                                 "; and %d more", n - 6);
    if (used < sizeof out->text && n > 0)
        used += (size_t)snprintf(out->text + used, sizeof out->text - used,
                                 ".");
    if (used >= sizeof out->text)
        ;
    else if (n == 0)
        snprintf(out->text + used, sizeof out->text - used, " No workload "
                 "finished, so there is nothing to recommend.");
    else if (st == AGENTS_GREEN)
        snprintf(out->text + used, sizeof out->text - used, " Every "
                 "workload gains at least 10%% over baseline; next refine "
                 "around the recommended points.");
    else
        snprintf(out->text + used, sizeof out->text - used, " Start with %s, "
                 "the weakest result, before refining the others.",
                 w[worst].workload);
    out->status = n == 0 ? AGENTS_RED : st;
}
