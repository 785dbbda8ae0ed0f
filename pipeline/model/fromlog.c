/* fromlog: parse a GPGPU-Sim 4.x log (ptxas lines, kernel launches, the
 * cumulative statistics printed after every kernel) into a workload
 * descriptor (fromlog_anchor.c fits what the log does not count;
 * fromlog_cmd.c is the `gpudse workload from-log` command). Every derived
 * number and its counter are listed in docs/model.md. */
#include "fromlog_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define FL_NAMELEN 256
#define FL_MAXBANKS 64
#define L2_LINE_BYTES 128.0    /* -gpgpu_cache:dl2 S:<sets>:128:8 */
#define L1_LINE_BYTES 128.0    /* -gpgpu_cache:dl1 ...:128:4 */
#define SECTOR_BYTES 32.0      /* L2 sector, one GLOBAL_ACC access */

/* Cumulative counters read from every statistics dump. */
enum {
    C_THRD, C_WARP, C_LD, C_ST, C_SH, C_CONST, C_PARAM, C_BKCONF,
    C_L1R_TOT, C_L1R_HIT, C_L1R_HITRES,
    C_L1R_MISS,                /* L1 read line misses (each fetches a line) */
    C_L1W_TOT, C_CONSTR_TOT,
    C_INSTR_TOT,               /* L1I accesses: instruction fetches */
    C_L2R_TOT, C_L2R_HIT, C_L2R_HITRES, C_L2W_TOT,
    C_L2W_MISS,                /* L2 writes that allocated a line (cold) */
    C_L2R_MISS, C_L2R_SMISS,   /* L2 read (and atomic) line / sector misses */
    C_ATOM_TX,                 /* GLOBAL_ATOMIC packets core to memory */
    C_INST_TX,                 /* INST_ACC_R packets core to memory (il1 misses) */
    C_CONST_TX,                /* CONST_ACC_R packets core to memory (L1C misses) */
    C_TEX,                     /* texture instructions (no path in the model) */
    /* Local memory (spills, local arrays): GPGPU-Sim counts its loads and
     * stores in gpgpu_n_{load,store}_insn with the global ones but its
     * cache accesses apart, as LOCAL_ACC_*. After parsing, each is added to
     * its global counterpart (fold_local_memory), so the per-load figures
     * see the same accesses the instruction counts do. */
    C_LOC_L1R_TOT, C_LOC_L1R_HIT, C_LOC_L1R_HITRES, C_LOC_L1R_MISS,
    C_LOC_L1W_TOT, C_LOC_L2R_TOT, C_LOC_L2R_HIT, C_LOC_L2R_HITRES,
    C_LOC_L2W_TOT, C_LOC_L2W_MISS, C_LOC_L2R_MISS, C_LOC_L2R_SMISS,
    C_BANK0,                   /* L2_cache_bank[i] accesses follow */
    C_NCUM = C_BANK0 + FL_MAXBANKS
};
/* The log's name of every counter before C_BANK0, in enum order; the size
 * check below refuses to compile a table that misses one. Lines of the form
 * "name = value" are read by on_stat; the three traffic_breakdown ones by
 * on_other (their value is a sum over packet sizes). */
static const char *const cum_keys[] = {
    "gpgpu_n_tot_thrd_icount", "gpgpu_n_tot_w_icount", "gpgpu_n_load_insn",
    "gpgpu_n_store_insn", "gpgpu_n_shmem_insn", "gpgpu_n_const_mem_insn",
    "gpgpu_n_param_mem_insn", "gpgpu_stall_shd_mem[s_mem][bk_conf]",
    "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]",
    "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT]",
    "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT_RESERVED]",
    "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][MISS]",
    "Total_core_cache_stats_breakdown[GLOBAL_ACC_W][TOTAL_ACCESS]",
    "Total_core_cache_stats_breakdown[CONST_ACC_R][TOTAL_ACCESS]",
    "Total_core_cache_stats_breakdown[INST_ACC_R][TOTAL_ACCESS]",
    "L2_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]",
    "L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT]",
    "L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT_RESERVED]",
    "L2_cache_stats_breakdown[GLOBAL_ACC_W][TOTAL_ACCESS]",
    "L2_cache_stats_breakdown[GLOBAL_ACC_W][MISS]",
    "L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS]",
    "L2_cache_stats_breakdown[GLOBAL_ACC_R][SECTOR_MISS]",
    "traffic_breakdown_coretomem[GLOBAL_ATOMIC]",
    "traffic_breakdown_coretomem[INST_ACC_R]",
    "traffic_breakdown_coretomem[CONST_ACC_R]",
    "gpgpu_n_tex_insn",
    "Total_core_cache_stats_breakdown[LOCAL_ACC_R][TOTAL_ACCESS]",
    "Total_core_cache_stats_breakdown[LOCAL_ACC_R][HIT]",
    "Total_core_cache_stats_breakdown[LOCAL_ACC_R][HIT_RESERVED]",
    "Total_core_cache_stats_breakdown[LOCAL_ACC_R][MISS]",
    "Total_core_cache_stats_breakdown[LOCAL_ACC_W][TOTAL_ACCESS]",
    "L2_cache_stats_breakdown[LOCAL_ACC_R][TOTAL_ACCESS]",
    "L2_cache_stats_breakdown[LOCAL_ACC_R][HIT]",
    "L2_cache_stats_breakdown[LOCAL_ACC_R][HIT_RESERVED]",
    "L2_cache_stats_breakdown[LOCAL_ACC_W][TOTAL_ACCESS]",
    "L2_cache_stats_breakdown[LOCAL_ACC_W][MISS]",
    "L2_cache_stats_breakdown[LOCAL_ACC_R][MISS]",
    "L2_cache_stats_breakdown[LOCAL_ACC_R][SECTOR_MISS]",
};
_Static_assert(sizeof cum_keys / sizeof cum_keys[0] == C_BANK0,
               "cum_keys: one name per counter before C_BANK0, in enum order");

/* Each local-memory counter and the global one it is added to. */
static const int local_pairs[][2] = {
    {C_LOC_L1R_TOT, C_L1R_TOT},   {C_LOC_L1R_HIT, C_L1R_HIT},
    {C_LOC_L1R_HITRES, C_L1R_HITRES}, {C_LOC_L1R_MISS, C_L1R_MISS},
    {C_LOC_L1W_TOT, C_L1W_TOT},   {C_LOC_L2R_TOT, C_L2R_TOT},
    {C_LOC_L2R_HIT, C_L2R_HIT},   {C_LOC_L2R_HITRES, C_L2R_HITRES},
    {C_LOC_L2W_TOT, C_L2W_TOT},   {C_LOC_L2W_MISS, C_L2W_MISS},
    {C_LOC_L2R_MISS, C_L2R_MISS}, {C_LOC_L2R_SMISS, C_L2R_SMISS},
};

typedef struct {
    char mangled[FL_NAMELEN];
    int regs, smem;
} ptxas_entry;

typedef struct {
    char mangled[FL_NAMELEN];
    long grid[3], block[3];
    int line, cta_per_core, have_stats;
    char cta_limit[16];        /* "limited by: X" of the CTA/core line */
    double insn, cycles;
    double pl_util;            /* partiton_level_parallism_util of this launch */
    double icnt2mem;           /* avg_icnt2mem_latency at this dump (GPGPU-Sim
                                  keeps it over the run: in a multi-kernel
                                  log, the mean up to this launch) */
    double cum[C_NCUM];        /* counters after this launch */
} launch_rec;

/* What the log's PTX dump shows of a kernel's control flow: GPGPU-Sim
 * prints each branch and its immediate post-dominator when it first loads
 * a kernel. A __syncthreads() after a conditional is a post-dominator; a
 * branch whose post-dominator is the next instruction (PC + 8) is a loop's
 * back edge (only a path back to an earlier PC can rejoin there). */
typedef struct {
    char mangled[FL_NAMELEN];
    unsigned long pc;
    int back_edge;             /* 1: a loop's back edge; 0: a barrier */
} ptx_mark;

typedef struct {
    ptxas_entry *ptx;
    size_t nptx, capptx;
    ptx_mark *mark;
    size_t nmark, capmark;
    char recon[FL_NAMELEN];    /* kernel whose reconvergence points follow */
    unsigned long branch_pc;   /* the last branch of that dump */
    int have_branch;
    launch_rec *l;
    size_t nl, capl;
    double cum[C_NCUM];        /* latest value of every counter */
    gpu_config cfg;            /* the knobs of the run (option lines) */
    int memcpy_l2;             /* -gpgpu_perf_sim_memcpy 1: copies fill L2 */
} parse_state;

static int grow(void **p, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    void *g = realloc(*p, nc * sz);
    if (!g)
        return -1;
    *p = g;
    *cap = nc;
    return 0;
}

/* "GPGPU-Sim PTX: Kernel 'NAME' : regs=R, lmem=L, smem=S, cmem=C" */
static int on_ptxas(parse_state *s, const char *line)
{
    const char *q = strstr(line, "Kernel '");
    if (!q)
        return 0;
    q += 8;
    const char *e = strchr(q, '\'');
    const char *r = strstr(line, "regs="), *m = strstr(line, "smem=");
    if (!e || !r || !m || e - q >= FL_NAMELEN)
        return 0;
    if (grow((void **)&s->ptx, &s->capptx, s->nptx, sizeof *s->ptx))
        return -1;
    ptxas_entry *p = &s->ptx[s->nptx++];
    memcpy(p->mangled, q, (size_t)(e - q));
    p->mangled[e - q] = '\0';
    p->regs = atoi(r + 5);
    p->smem = atoi(m + 5);
    return 0;
}

/* "GPGPU-Sim PTX: pushing kernel 'NAME' to stream 0, gridDim= (x,y,z)
 * blockDim = (x,y,z)" */
static int on_push(parse_state *s, const char *line, int lineno)
{
    const char *q = strstr(line, "kernel '");
    const char *g = strstr(line, "gridDim=");
    const char *b = strstr(line, "blockDim");
    if (!q || !g || !b)
        return 1;
    q += 8;
    const char *e = strchr(q, '\'');
    if (!e || e - q >= FL_NAMELEN)
        return 1;
    if (grow((void **)&s->l, &s->capl, s->nl, sizeof *s->l))
        return -1;
    launch_rec *l = &s->l[s->nl];
    memset(l, 0, sizeof *l);
    memcpy(l->mangled, q, (size_t)(e - q));
    l->line = lineno;
    const char *gp = strchr(g, '('), *bp = strchr(b, '(');
    if (!gp || !bp
        || sscanf(gp, "(%ld,%ld,%ld)", &l->grid[0], &l->grid[1], &l->grid[2])
               != 3
        || sscanf(bp, "(%ld,%ld,%ld)", &l->block[0], &l->block[1],
                  &l->block[2]) != 3)
        return 1;
    for (int i = 0; i < 3; i++)
        if (l->grid[i] < 1 || l->block[i] < 1 || l->grid[i] > (1L << 30)
            || l->block[i] > 1024)
            return 1;
    s->nl++;
    return 0;
}

/* Is the PTX instruction text ins (past its "(file:line) ") a blocking
 * CTA barrier: bar.sync / bar.red / barrier.sync / barrier.red, or the
 * bare "bar" / "barrier" forms, with an optional guard? bar.arrive does
 * not wait. */
static int is_barrier(const char *ins)
{
    while (*ins == ' ' || *ins == '\t')
        ins++;
    if (*ins == '@') {          /* guard predicate "@%p1 " or "@!%p1 " */
        ins = strchr(ins, ' ');
        if (!ins)
            return 0;
        while (*ins == ' ')
            ins++;
    }
    size_t l = !strncmp(ins, "barrier", 7) ? 7 : !strncmp(ins, "bar", 3) ? 3
                                                                        : 0;
    if (!l)
        return 0;
    const char *t = ins + l;
    if (*t == ' ' || *t == '\t' || *t == ';')
        return 1;
    return *t == '.'
           && (!strncmp(t + 1, "sync", 4) || !strncmp(t + 1, "red", 3));
}

/* Record mark (pc, back_edge) of the kernel whose dump is being read,
 * once. */
static int add_mark(parse_state *s, unsigned long pc, int back_edge)
{
    for (size_t i = 0; i < s->nmark; i++)
        if (s->mark[i].pc == pc && s->mark[i].back_edge == back_edge
            && !strcmp(s->mark[i].mangled, s->recon))
            return 0;
    if (grow((void **)&s->mark, &s->capmark, s->nmark, sizeof *s->mark))
        return -1;
    util_strlcpy(s->mark[s->nmark].mangled, s->recon, FL_NAMELEN);
    s->mark[s->nmark].pc = pc;
    s->mark[s->nmark++].back_edge = back_edge;
    return 0;
}

/* The PC of "... @  PC=0x100 (f.ptx:70) INSN" into *pc and the text of
 * INSN into *insn; 0 when the line has none. */
static int marked_pc(const char *line, unsigned long *pc, const char **insn)
{
    const char *p = strstr(line, "PC=");
    if (!p)
        return 0;
    char *end;
    *pc = strtoul(p + 3, &end, 16);
    *insn = strchr(end, ')');
    if (end == p + 3 || !*insn)
        return 0;
    (*insn)++;
    return 1;
}

/* The reconvergence dump of one kernel, printed where it is first loaded:
 * "GPGPU-Sim PTX: reconvergence points for NAME...", then per branch
 * "... branch divergence @  PC=0x0d8 (f.ptx:62) @%p3 bra $L__BB0_6;" and
 * "... immediate post dominator @ PC=0x100 (f.ptx:70) bar.sync 0;", up to
 * "GPGPU-Sim PTX: ... end of reconvergence points for NAME". Records the
 * kernel's distinct barrier PCs and loop back edges. */
static int on_reconvergence(parse_state *s, const char *line)
{
    const char *q = strstr(line, "reconvergence points for ");
    if (q) {
        s->recon[0] = '\0';
        s->have_branch = 0;
        if (strstr(line, "end of reconvergence points")
            || strstr(line, "finding reconvergence points"))
            return 0;        /* the dump has ended, or not yet begun */
        q += 25;
        size_t n = strcspn(q, " \t\r");
        while (n > 0 && q[n - 1] == '.')
            n--;
        if (n > 0 && n < FL_NAMELEN) {
            memcpy(s->recon, q, n);
            s->recon[n] = '\0';
        }
        return 0;
    }
    unsigned long pc;
    const char *insn;
    if (!s->recon[0] || !marked_pc(line, &pc, &insn))
        return 0;
    if (strstr(line, "branch divergence")) {
        s->branch_pc = pc;
        s->have_branch = 1;
        return 0;
    }
    if (!strstr(line, "immediate post dominator"))
        return 0;
    int rc = 0;
    if (s->have_branch && pc == s->branch_pc + 8)
        rc = add_mark(s, s->branch_pc, 1);
    s->have_branch = 0;
    if (rc == 0 && is_barrier(insn))
        rc = add_mark(s, pc, 0);
    return rc;
}

/* Barriers per warp the log shows for kernel `mangled`: its distinct
 * barrier PCs among the reconvergence points. A lower bound: a barrier
 * that follows no branch is not printed, and one in a loop runs once per
 * trip. */
static int barriers_shown(const parse_state *s, const char *mangled)
{
    int n = 0;
    for (size_t i = 0; i < s->nmark; i++)
        n += !s->mark[i].back_edge && !strcmp(s->mark[i].mangled, mangled);
    return n;
}

/* Does a shown barrier of `mangled` come before one of its loops' back
 * edges, so that it may run once per trip? */
static int barrier_before_back_edge(const parse_state *s, const char *mangled)
{
    for (size_t i = 0; i < s->nmark; i++) {
        if (s->mark[i].back_edge || strcmp(s->mark[i].mangled, mangled))
            continue;
        for (size_t j = 0; j < s->nmark; j++)
            if (s->mark[j].back_edge && s->mark[j].pc > s->mark[i].pc
                && !strcmp(s->mark[j].mangled, mangled))
                return 1;
    }
    return 0;
}

/* "GPGPU-Sim uArch: CTA/core = 4, limited by: regs" */
static void on_cta_per_core(launch_rec *l, const char *line)
{
    l->cta_per_core = atoi(strstr(line, "CTA/core = ") + 11);
    const char *by = strstr(line, "limited by: ");
    if (by)
        sscanf(by + 12, "%15s", l->cta_limit);
}

static void set_cum(parse_state *s, int c, double v)
{
    s->cum[c] = v;
    if (s->nl > 0)
        memcpy(s->l[s->nl - 1].cum, s->cum, sizeof s->cum);
}

/* "L2_cache_bank[i]: Access = N, ..." and
 * "traffic_breakdown_coretomem[GLOBAL_ATOMIC] = B {size:count,...}". */
static int on_other(parse_state *s, const char *line)
{
    int bank;
    double v;
    if (sscanf(line, "L2_cache_bank[%d]: Access = %lf", &bank, &v) == 2) {
        if (bank >= 0 && bank < FL_MAXBANKS)
            set_cum(s, C_BANK0 + bank, v);
        return 1;
    }
    const char *t = strstr(line, cum_keys[C_ATOM_TX]);
    const char *ti = strstr(line, cum_keys[C_INST_TX]);
    const char *tc = strstr(line, cum_keys[C_CONST_TX]);
    if (t || ti || tc) {
        int key = t ? C_ATOM_TX : ti ? C_INST_TX : C_CONST_TX;
        if (!t)
            t = ti ? ti : tc;
        double n = 0;
        const char *p = strchr(t, '{');
        while (p && (p = strchr(p, ':')) != NULL) {
            n += strtod(p + 1, NULL);
            p++;
        }
        set_cum(s, key, n);
        return 1;
    }
    return 0;
}

/* The value of option `opt` on an option-dump line ("-opt   value # ..."),
 * past its blanks; NULL when the line sets another option. */
static const char *option_value(const char *line, const char *opt)
{
    size_t l = strlen(opt);
    if (strncmp(line, opt, l) != 0 || (line[l] != ' ' && line[l] != '\t'))
        return NULL;
    const char *v = line + l;
    while (*v == ' ' || *v == '\t')
        v++;
    return v;
}

/* The eight knobs from the option dump ("-gpgpu_n_mem   6 # ..."). */
static void on_option(parse_state *s, const char *line)
{
    const char *v = option_value(line, "-gpgpu_perf_sim_memcpy");
    if (v) {
        s->memcpy_l2 = atoi(v) == 1;
        return;
    }
    static const struct { const char *opt; int knob; } opts[] = {
        {"-gpgpu_n_clusters", KNOB_N_CLUSTERS},
        {"-gpgpu_n_cores_per_cluster", KNOB_CORES_PER_CLUSTER},
        {"-gpgpu_n_mem", KNOB_N_MEM},
        {"-gpgpu_shmem_size", KNOB_SHMEM_SIZE},
        {"-gpgpu_num_sched_per_core", KNOB_NUM_SCHED_PER_CORE},
        {"-gpgpu_cache:dl1", KNOB_L1_SETS},
        {"-gpgpu_cache:dl2", KNOB_L2_SETS},
        {"-gpgpu_scheduler", KNOB_SCHEDULER},
    };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        if (!(v = option_value(line, opts[i].opt)))
            continue;
        int knob = opts[i].knob;
        if (knob == KNOB_SCHEDULER) {
            space_set(&s->cfg, knob, !strncmp(v, "lrr", 3) ? SCHED_LRR
                                     : !strncmp(v, "two_level", 9)
                                         ? SCHED_TWO_LEVEL : SCHED_GTO);
        } else if (knob == KNOB_L1_SETS || knob == KNOB_L2_SETS) {
            const char *c = strchr(v, ':');   /* T:<nsets>:... */
            int n = c ? atoi(c + 1) : 0;
            if (n > 0)
                space_set(&s->cfg, knob, n);
        } else if (atoi(v) > 0) {
            space_set(&s->cfg, knob, atoi(v));
        }
    }
}

/* "key = value" of a statistics dump (leading whitespace allowed). */
static void on_stat(parse_state *s, const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    const char *eq = strchr(line, '=');
    if (!eq || s->nl == 0)
        return;
    size_t kl = (size_t)(eq - line);
    while (kl && line[kl - 1] == ' ')
        kl--;
    launch_rec *l = &s->l[s->nl - 1];
    double v = strtod(eq + 1, NULL);
    if (kl == 13 && !strncmp(line, "gpu_sim_cycle", kl)) {
        l->cycles = v;
        l->have_stats = 1;
    } else if (kl == 12 && !strncmp(line, "gpu_sim_insn", kl)) {
        l->insn = v;
        l->have_stats = 1;
    } else if (kl == 29
               && !strncmp(line, "partiton_level_parallism_util", kl)) {
        l->pl_util = v;
    } else if (kl == 20 && !strncmp(line, "avg_icnt2mem_latency", kl)) {
        l->icnt2mem = v;
    }
    for (int c = 0; c < C_BANK0; c++)
        if (strlen(cum_keys[c]) == kl
            && !strncmp(line, cum_keys[c], kl)) {
            s->cum[c] = v;
            memcpy(l->cum, s->cum, sizeof l->cum);
        }
}

/* The log's name of cumulative counter c (0 <= c < C_NCUM): one table for
 * every counter before C_BANK0, then the L2 banks. */
static void counter_name(int c, char *out, size_t n)
{
    if (c >= 0 && c < C_BANK0)
        snprintf(out, n, "%s", cum_keys[c]);
    else if (c >= C_BANK0 && c < C_NCUM)
        snprintf(out, n, "L2_cache_bank[%d]", c - C_BANK0);
    else
        snprintf(out, n, "counter #%d", c);
}

/* GPGPU-Sim's statistics are cumulative over a run: every dump repeats
 * each counter's total so far. A counter that is negative, not finite, or
 * falls between two dumps cannot come from one run (two runs' logs pasted
 * into one file, or an edited log), and its deltas would give a kernel
 * negative instruction counts, so the log is refused. */
static int check_counters_grow(const char *path, const parse_state *s,
                               gd_err *err)
{
    for (size_t k = 0; k < s->nl; k++)
        for (int c = 0; c < C_NCUM; c++) {
            double v = s->l[k].cum[c], before = k ? s->l[k - 1].cum[c] : 0;
            if (isfinite(v) && v >= before)
                continue;
            char name[96];
            counter_name(c, name, sizeof name);
            if (!isfinite(v) || v < 0)
                return gd_errf(err, GD_EINPUT, "%s:%d: after the kernel "
                               "launched here, %s = %g: a count must be a "
                               "finite number >= 0", path, s->l[k].line,
                               name, v);
            return gd_errf(err, GD_EINPUT, "%s:%d: after the kernel launched "
                           "here, %s falls from %.17g to %.17g; GPGPU-Sim's "
                           "counters only grow during a run, so this is not "
                           "one run's log (two logs in one file?): give "
                           "from-log one run at a time", path, s->l[k].line,
                           name, before, v);
        }
    return GD_OK;
}

/* Adds every local-memory cache counter to its global counterpart, in
 * every launch's dump (both are cumulative, so the sums are too). Local loads and
 * stores go through L1 and L2 as global ones do (-gpgpu_cache:dl1 caches
 * both); the difference the model does not see is L1's write-back of
 * local stores, so a spilled store is charged as a global one. */
static void fold_local_memory(parse_state *s)
{
    for (size_t k = 0; k < s->nl; k++)
        for (size_t i = 0; i < sizeof local_pairs / sizeof local_pairs[0]; i++)
            s->l[k].cum[local_pairs[i][1]] += s->l[k].cum[local_pairs[i][0]];
}

static int parse_lines(const char *path, const char *buf, size_t len,
                       parse_state *s, gd_err *err)
{
    int lineno = 0;
    size_t i = 0;
    char line[4096];
    while (i < len) {
        size_t j = i;
        while (j < len && buf[j] != '\n')
            j++;
        size_t n = j - i < sizeof line - 1 ? j - i : sizeof line - 1;
        memcpy(line, buf + i, n);
        line[n] = '\0';
        lineno++;
        i = j + 1;
        int rc = 0;
        if (line[0] == '-' && line[1] == 'g')
            on_option(s, line);
        else if (strstr(line, "GPGPU-Sim PTX: Kernel '"))
            rc = on_ptxas(s, line);
        else if (strstr(line, "GPGPU-Sim PTX: ")
                 && (strstr(line, "reconvergence points for ")
                     || strstr(line, "branch divergence")
                     || strstr(line, "immediate post dominator")))
            rc = on_reconvergence(s, line);
        else if (strstr(line, "GPGPU-Sim PTX: pushing kernel '")) {
            rc = on_push(s, line, lineno);
            if (rc > 0)
                return gd_errf(err, GD_EINPUT, "%s:%d: cannot read the grid "
                               "and block of this kernel launch", path,
                               lineno);
            if (s->nl > 1)  /* counters carry over until the next dump */
                memcpy(s->l[s->nl - 1].cum, s->cum, sizeof s->cum);
        } else if (strstr(line, "CTA/core = ") && s->nl > 0
                   && s->l[s->nl - 1].cta_per_core == 0)
            on_cta_per_core(&s->l[s->nl - 1], line);
        else if (!on_other(s, line) && strchr(line, '='))
            on_stat(s, line);
        if (rc < 0)
            return gd_errf(err, GD_EENV, "out of memory reading %s", path);
    }
    if (s->nl == 0)
        return gd_errf(err, GD_EINPUT, "%s:%d: no kernel launch found (no "
                       "\"GPGPU-Sim PTX: pushing kernel\" line); is this a "
                       "GPGPU-Sim log?", path, lineno > 0 ? lineno : 1);
    for (size_t k = 0; k < s->nl; k++)
        if (!s->l[k].have_stats || s->l[k].insn <= 0)
            return gd_errf(err, GD_EINPUT, "%s:%d: kernel '%s' launched "
                           "here has no statistics (gpu_sim_insn) after it: "
                           "the run did not finish", path, s->l[k].line,
                           s->l[k].mangled);
    int rc = check_counters_grow(path, s, err);
    if (rc == GD_OK)
        fold_local_memory(s);
    return rc;
}

/* Short kernel name: the identifier of an Itanium-mangled "_Z<len><id>",
 * else the name itself with characters outside [A-Za-z0-9_.-] as '_'. */
static void short_name(const char *mangled, char *out, size_t n)
{
    const char *p = mangled;
    if (p[0] == '_' && p[1] == 'Z' && isdigit((unsigned char)p[2])) {
        char *end;
        long l = strtol(p + 2, &end, 10);
        if (l > 0 && (size_t)l < n && strlen(end) >= (size_t)l) {
            memcpy(out, end, (size_t)l);
            out[l] = '\0';
            return;
        }
    }
    util_strlcpy(out, mangled, n);
    for (char *c = out; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-'
            && *c != '.')
            *c = '_';
}

static double clampd(double x, double lo, double hi)
{
    return !(x >= lo) ? lo : x > hi ? hi : x;
}

/* Bytes one launch reads (KB), before any cap: thread loads x word size
 * (the written bytes per thread store, 4 B without stores), at most the
 * L2 read traffic less the atomics (see infer_footprint). */
static double read_kb(const wl_kernel *k, const double *d, double cold_w,
                      double per, int nlaunch)
{
    /* thread-level loads and stores (per = 32 x SIMD efficiency x warps) */
    double thr_st = k->insn_st_global * per, thr_ld = k->insn_ld_global * per;
    double wr_kb = cold_w * L2_LINE_BYTES / 1024.0;
    double word = thr_st > 0 && wr_kb > 0
                      ? clampd(wr_kb * 1024.0 * nlaunch / thr_st, 1, 16)
                      : 4;
    double rd_traffic = fmax(0, d[C_L2R_TOT] - d[C_ATOM_TX]) * SECTOR_BYTES
                        / 1024.0 / nlaunch;
    return fmin(rd_traffic, thr_ld * word / 1024.0 / nlaunch);
}

/* Unique footprint of one launch in L2 (footprint_kb_total) and the share
 * of it that is copied-in input (read_share), from the counters:
 * - written: L2 GLOBAL_ACC_W MISS counts the writes that found no line
 *   (the sector cache's line miss; a write to an allocated line is a
 *   SECTOR_MISS or HIT): the lines the launch writes first, cold_w (the
 *   most any one launch of the group allocated: a repeated launch finds
 *   its output lines in L2). A write that finds its line (HIT or
 *   SECTOR_MISS: written in place after a read, or again) adds nothing.
 * - read: with copied-in input preloaded (-gpgpu_perf_sim_memcpy 1) the
 *   reads hit and no miss counts their lines, so the bytes the threads
 *   load are taken: thread loads x word size, the word being the written
 *   bytes per thread store (4 B without stores), at most the read traffic
 *   (L2 GLOBAL_ACC_R sectors less the atomics, which GPGPU-Sim counts
 *   there too). This over-counts a word several threads load (tiles).
 * The total is lowered to L2 / sqrt(hit rate) when the measured read hit
 * rate says the data fitted better than the model's LRU cliff allows (the
 * read part gives way; the written lines are counted); with every read
 * hitting that is only an upper bound, and the geometric middle of the
 * written lines and it is taken. read_share is the read part's share
 * where the log shows it counted (input preloaded) and not lowered by that
 * cap (then only bounded: reuse the counters cannot see); else 0,
 * unknown. An input larger than the log's L2 counts too since
 * analytic-2.22: the model's first-wave window no longer switches off
 * there (analytic-2.18-2.21 left such an input's share 0 because the
 * model used the whole footprint anyway).
 * - atomic target (analytic-2.24): GPGPU-Sim counts atomics as L2
 *   GLOBAL_ACC_R; with the input preloaded the read misses (line and
 *   sector) of a launch with atomics are the sectors its atomics found cold
 *   (histogram: 8 + 24 = 32 sectors, its 1 KB of cudaMemset bins). They
 *   join the footprint as a part not copied in, so read_share < 1 tells
 *   the model the atomic target is cold, as the built-in descriptor's
 *   65 KB / 0.985 do. */
static void infer_footprint(wl_kernel *k, const double *d, double cold_w,
                            double rd_kb, int nlaunch, double l2_kb,
                            double h2, int memcpy_l2)
{
    double wr_kb = cold_w * L2_LINE_BYTES / 1024.0;
    double atom_kb = memcpy_l2 && d[C_ATOM_TX] > 0
                         ? (d[C_L2R_MISS] + d[C_L2R_SMISS]) * SECTOR_BYTES
                               / 1024.0 / nlaunch
                         : 0;
    double fp = rd_kb + wr_kb + atom_kb;
    int counted = memcpy_l2;
    if (h2 > pow(fmin(1.0, l2_kb / fmax(fp, 1)), 2.0)) {
        double cap = l2_kb / sqrt(fmax(h2, 1e-3));
        if (fp > cap) {
            fp = fmax(cap, wr_kb);
            /* No read missed: the cliff then only bounds the footprint,
             * to [written lines, L2] (analytic-2.22); take the geometric
             * middle, the estimate whose worst factor error over those
             * bounds is the least (sgemm: 64 KB written, 1 MB of tile
             * loads all hitting 768 KB: 222 KB; its data are 192 KB). */
            if (h2 >= 1 && wr_kb > 0 && wr_kb < fp)
                fp = sqrt(wr_kb * fp);
            rd_kb = fmax(0, fp - wr_kb);
            counted = 0;
        }
    }
    k->footprint_kb_total = fp > 1 ? fp : 1;
    k->read_share = counted && fp > 0 ? clampd(rd_kb / fp, 0, 1) : 0;
}

/* L1 working set of one CTA (KB). By default the log's L1 is taken as
 * exactly full: L1 / CTAs per core. But when the L1 read line misses do
 * not exceed the lines the launch reads (rd_kb / 128 B, an upper bound
 * on its compulsory lines), no line was fetched twice: every hit found a
 * line that had not been evicted since its first miss, whatever the L1
 * size, so the log does not say the L1 was full. The reuse is then within
 * the lines the CTA's warps touch in one load instruction (histogram:
 * four consecutive warps' 32-B loads share a 128-B line; 2/3 of its hits
 * are HIT_RESERVED, merged in the MSHR on a line still in flight), and the
 * working set is those lines: L1 line misses per CTA per warp load
 * instruction x 128 B (histogram 512 / (128 CTAs x 2) = 2 lines, 0.25 KB,
 * the built-in descriptor's value). Never more than L1 / n. */
static double l1_working_set(const wl_kernel *k, const double *d,
                             double rd_kb, int nlaunch, double full_kb)
{
    double miss = d[C_L1R_MISS] / nlaunch;
    double lines = rd_kb * 1024.0 / L1_LINE_BYTES;
    double ctas = (double)k->grid_ctas;
    if (k->l1_reuse <= 0 || miss <= 0 || miss > lines || ctas <= 0
        || k->insn_ld_global <= 0)
        return full_kb;
    double step = miss / ctas / k->insn_ld_global * L1_LINE_BYTES / 1024.0;
    return fmin(step, full_kb);
}

/* Kernel facts from one group of launches; d holds summed counter
 * deltas, cold_w the most lines one launch's writes allocated in L2,
 * nlaunch the launches. */
static int fill_kernel(const char *path, const launch_rec *first,
                       const parse_state *s, const double *d, double cold_w,
                       double insn, int nlaunch, const fl_extra *x,
                       wl_kernel *k, gd_err *err)
{
    memset(k, 0, sizeof *k);
    short_name(first->mangled, k->name, sizeof k->name);
    const ptxas_entry *pe = NULL;
    for (size_t i = 0; i < s->nptx; i++)
        if (!strcmp(s->ptx[i].mangled, first->mangled))
            pe = &s->ptx[i];
    if (!pe)
        return gd_errf(err, GD_EINPUT, "%s:%d: no ptxas line (\"GPGPU-Sim "
                       "PTX: Kernel '%s' : regs=...\") for this kernel",
                       path, first->line, first->mangled);
    k->grid_ctas = (int)(first->grid[0] * first->grid[1] * first->grid[2]);
    k->threads_per_cta =
        (int)(first->block[0] * first->block[1] * first->block[2]);
    k->launches = nlaunch;
    k->regs_per_thread = pe->regs;
    k->smem_per_cta = pe->smem;
    double wpc = (k->threads_per_cta + 31) / 32;
    double threads = (double)k->grid_ctas * k->threads_per_cta * nlaunch;
    double warps = (double)k->grid_ctas * wpc * nlaunch;
    k->thread_insns = insn / threads;
    k->warp_insns = d[C_WARP] > 0 ? d[C_WARP] / warps : k->thread_insns;
    if (k->thread_insns > k->warp_insns)
        k->warp_insns = k->thread_insns;
    /* SIMD efficiency turns thread-level class counts into warp counts. */
    double eff = d[C_WARP] > 0 && d[C_THRD] > 0
                     ? clampd(d[C_THRD] / (32.0 * d[C_WARP]), 1.0 / 32, 1)
                     : 1;
    double per = 32.0 * eff * warps;
    k->insn_sfu = x->sfu;
    /* Without --mix sync, the barriers the PTX dump shows (a lower bound). */
    k->insn_sync = x->sync_set ? x->sync : barriers_shown(s, first->mangled);
    k->insn_atomic = x->atomic;
    /* gpgpu_n_load_insn counts atomics too. Without --mix atomic, a log
     * with GLOBAL_ATOMIC traffic splits it: loads are the L1 read accesses
     * (one per warp load, coalesced), atomics the rest. */
    if (x->atomic == 0 && d[C_ATOM_TX] > 0 && d[C_L1R_TOT] > 0)
        k->insn_atomic = fmax(0, d[C_LD] / per - d[C_L1R_TOT] / warps);
    k->insn_ld_global = fmax(0, d[C_LD] / per - k->insn_atomic);
    k->insn_st_global = d[C_ST] / per;
    k->insn_shared = d[C_SH] / per;
    k->insn_const = (d[C_CONST] + d[C_PARAM]) / per;
    double other = k->insn_sfu + k->insn_sync + k->insn_atomic
                   + k->insn_ld_global + k->insn_st_global + k->insn_shared
                   + k->insn_const;
    if (other > k->warp_insns) /* --mix asked for more than was executed */
        return gd_errf(err, GD_EINPUT, "%s:%d: kernel '%s': the classes add "
                       "up to %.3g warp instructions per warp, more than the "
                       "%.3g it executed (check --mix)", path, first->line,
                       k->name, other, k->warp_insns);
    double ldw = k->insn_ld_global * warps, stw = k->insn_st_global * warps;
    k->ld_tx = ldw > 0 && d[C_L1R_TOT] > 0 ? clampd(d[C_L1R_TOT] / ldw, 1, 32)
                                           : 1;
    k->st_tx = stw > 0 && d[C_L1W_TOT] > 0 ? clampd(d[C_L1W_TOT] / stw, 1, 32)
                                           : 1;
    k->st_sectors = d[C_L1W_TOT] > 0 && d[C_L2W_TOT] > 0
                        ? clampd(d[C_L2W_TOT] / d[C_L1W_TOT], 1, 4) : 4;
    double aw = k->insn_atomic * warps, banks = 0, hot = 0;
    k->atom_tx = aw > 0 && d[C_ATOM_TX] > 0 ? clampd(d[C_ATOM_TX] / aw, 1, 32)
                                            : 1;
    for (int b = 0; b < FL_MAXBANKS; b++) {
        banks += d[C_BANK0 + b];
        hot = fmax(hot, d[C_BANK0 + b]);
    }
    /* Share of the atomic transactions at the busiest slice, where they
     * queue: its accesses less its share of the other accesses (loads,
     * spread over all 2·n_mem slices), over the atomic packets. Without
     * GLOBAL_ATOMIC traffic, its share of all accesses. */
    double nsub = 2.0 * s->cfg.n_mem, atom_pk = d[C_ATOM_TX];
    if (aw > 0 && atom_pk > 0 && nsub > 0)
        k->atom_hot = clampd((hot - fmax(0, banks - atom_pk) / nsub) / atom_pk,
                             0, 1);
    else
        k->atom_hot = aw > 0 && banks > 0 ? clampd(hot / banks, 0, 1) : 0.1;
    double shw = k->insn_shared * warps, cw = k->insn_const * warps;
    k->shared_conflict = shw > 0 ? clampd(1 + d[C_BKCONF] / shw, 1, 32) : 1;
    k->const_conflict = cw > 0 && d[C_CONSTR_TOT] > 0
                            ? clampd(d[C_CONSTR_TOT] / cw, 1, 32) : 1;
    /* Cold instruction cache: every SM that runs the kernel fetches each
     * 128-B code line once per launch (one INST_ACC_R packet each). */
    {
        int sms = s->cfg.n_clusters * s->cfg.cores_per_cluster;
        if (sms > k->grid_ctas)
            sms = k->grid_ctas;
        k->code_lines = sms > 0 && d[C_INST_TX] > 0
                            ? d[C_INST_TX] / nlaunch / sms : 0;
        /* Cold constant cache likewise: one CONST_ACC_R packet per 64-B
         * line an SM fetches (the parameter line and __constant__ data). */
        k->const_lines = sms > 0 && d[C_CONST_TX] > 0
                             ? d[C_CONST_TX] / nlaunch / sms : 0;
    }
    /* Instruction fetches per warp: one L1I access fetches up to 2
     * instructions of one warp, a taken branch refetches (analytic-2.23). */
    k->fetches = warps > 0 && d[C_INSTR_TOT] > 0 ? d[C_INSTR_TOT] / warps : 0;
    k->l1_reuse = d[C_L1R_TOT] > 0
                      ? clampd((d[C_L1R_HIT] + d[C_L1R_HITRES]) / d[C_L1R_TOT],
                               0, 1) : 0;
    double l1_kb = s->cfg.l1_sets * 128.0 * 4 / 1024.0;
    double l2_kb = s->cfg.l2_sets * 128.0 * 8 * 2 * s->cfg.n_mem / 1024.0;
    int n = first->cta_per_core > 0 ? first->cta_per_core : 1;
    double rd_kb = read_kb(k, d, cold_w, per, nlaunch);
    k->footprint_kb_per_cta = l1_working_set(k, d, rd_kb, nlaunch, l1_kb / n);
    double h2 = d[C_L2R_TOT] > 0
                    ? (d[C_L2R_HIT] + d[C_L2R_HITRES]) / d[C_L2R_TOT] : 1;
    infer_footprint(k, d, cold_w, rd_kb, nlaunch, l2_kb, h2, s->memcpy_l2);
    double fit = pow(fmin(1.0, l2_kb / k->footprint_kb_total), 2.0);
    k->l2_reuse = clampd(h2 / fit, 0, 1);
    k->ilp = 1;
    k->mem_waits = k->insn_ld_global + k->insn_atomic > 0 ? 1 : 0;
    k->mem_eff = 1;
    k->insn_alu = k->warp_insns - other;
    return GD_OK;
}

/* A kernel whose numbers no descriptor may hold (ptxas registers beyond
 * 255, more instructions of one class than the warp executed, ...) means
 * a log that is not one consistent run: refuse it here, at the launch,
 * rather than write a descriptor that every later command rejects. */
static int check_built(const char *path, int line, const wl_kernel *k,
                       gd_err *err)
{
    if (wl_check_kernel(k, err) == GD_OK)
        return GD_OK;
    char why[sizeof err->msg];
    util_strlcpy(why, err->msg, sizeof why);
    return gd_errf(err, GD_EINPUT, "%s:%d: for the kernel launched here the "
                   "log gives %s; no descriptor can hold that, so the log is "
                   "not one consistent run (cut or edited?)", path, line,
                   why);
}

static int same_shape(const launch_rec *a, const launch_rec *b)
{
    return !strcmp(a->mangled, b->mangled)
           && !memcmp(a->grid, b->grid, sizeof a->grid)
           && !memcmp(a->block, b->block, sizeof a->block);
}

/* What info records of kernel k built from the launches of `first`:
 * the log's cycles, instructions and occupancy beside the model's at the
 * log's config (one evaluation), and what the log showed that the
 * descriptor cannot hold. */
static void describe_kernel(const parse_state *s, const launch_rec *first,
                            const double *d, double cycles, double insn,
                            const fl_extra *x, const wl_kernel *k,
                            fl_kernel_info *info)
{
    model_out o;
    int ok = fl_kernel_eval(k, &s->cfg, &o) == 0;
    info->model_cycles = ok ? o.cycles : -1;
    info->model_cta_per_core = ok ? o.ctas_per_sm : 0;
    util_strlcpy(info->model_cta_limit, ok ? model_limit_name(o.limit) : "",
                 sizeof info->model_cta_limit);
    info->log_config = s->cfg;
    info->log_cycles = cycles;
    info->log_thread_insns = insn;
    info->log_cta_per_core = first->cta_per_core;
    util_strlcpy(info->log_cta_limit, first->cta_limit,
                 sizeof info->log_cta_limit);
    info->local_accesses = d[C_LOC_L1R_TOT] + d[C_LOC_L1W_TOT];
    info->tex_insns = d[C_TEX];
    info->log_barriers = barriers_shown(s, first->mangled);
    info->barrier_in_loop =
        !x->sync_set && barrier_before_back_edge(s, first->mangled);
}

static int build(const char *path, const parse_state *s, const char *name,
                 const fl_extra *x, wl_workload *w, fl_kernel_info *info,
                 gd_err *err)
{
    memset(w, 0, sizeof *w);
    util_strlcpy(w->name, name, sizeof w->name);
    snprintf(w->description, sizeof w->description,
             "from the GPGPU-Sim log %s", path);
    char *used = calloc(s->nl, 1);
    if (!used)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = GD_OK;
    for (size_t i = 0; i < s->nl && rc == GD_OK; i++) {
        if (used[i])
            continue;
        if (w->nkernels == WL_MAXKERNELS) {
            rc = gd_errf(err, GD_EINPUT, "%s:%d: more than %d distinct "
                         "kernels", path, s->l[i].line, WL_MAXKERNELS);
            break;
        }
        double d[C_NCUM] = {0}, insn = 0, cycles = 0, util = 0, icnt = 0;
        double cold_w = 0;
        int cnt = 0;
        for (size_t j = i; j < s->nl; j++) {
            if (!same_shape(&s->l[i], &s->l[j]))
                continue;
            used[j] = 1;
            cnt++;
            insn += s->l[j].insn;
            cycles += s->l[j].cycles;
            /* per-launch figures, weighted by the launch's cycles */
            util += s->l[j].pl_util * s->l[j].cycles;
            icnt += s->l[j].icnt2mem * s->l[j].cycles;
            for (int c = 0; c < C_NCUM; c++)
                d[c] += s->l[j].cum[c] - (j ? s->l[j - 1].cum[c] : 0);
            cold_w = fmax(cold_w, s->l[j].cum[C_L2W_MISS]
                                      - (j ? s->l[j - 1].cum[C_L2W_MISS] : 0));
        }
        rc = fill_kernel(path, &s->l[i], s, d, cold_w, insn, cnt, x,
                         &w->k[w->nkernels], err);
        if (rc == GD_OK && cycles > 0)
            fl_infer_store_camping(&w->k[w->nkernels], &s->cfg,
                                   util / cycles, icnt / cycles);
        if (rc == GD_OK)
            fl_anchor(&w->k[w->nkernels], &s->cfg, cycles, x->sfu_set,
                      cycles > 0 && icnt / cycles > ICNT_IN_BUFFER_FLITS);
        if (rc == GD_OK)
            rc = check_built(path, s->l[i].line, &w->k[w->nkernels], err);
        if (rc == GD_OK && info)
            describe_kernel(s, &s->l[i], d, cycles, insn, x,
                            &w->k[w->nkernels], &info[w->nkernels]);
        w->nkernels++;
    }
    free(used);
    return rc;
}

int fl_parse(const char *path, const char *buf, size_t len, const char *name,
             const fl_extra *extra, wl_workload *w, fl_kernel_info *info,
             gd_err *err)
{
    fl_extra none = {0, 0, 0, 0, 0};
    parse_state s;
    memset(&s, 0, sizeof s);
    s.cfg = space_baseline();
    int rc = parse_lines(path, buf, len, &s, err);
    if (rc == GD_OK)
        rc = build(path, &s, name, extra ? extra : &none, w, info, err);
    free(s.ptx);
    free(s.mark);
    free(s.l);
    return rc;
}

int fl_from_file(const char *path, const char *name, const fl_extra *extra,
                 wl_workload *w, fl_kernel_info *info, gd_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    if (util_read_file(path, &buf, &len, err)) {
        if (err)
            err->code = GD_EINPUT;
        return GD_EINPUT;
    }
    int rc;
    if (len >= 2 && (unsigned char)buf[0] == 0x1f
        && (unsigned char)buf[1] == 0x8b)
        rc = gd_errf(err, GD_EINPUT, "%s:1: gzip-compressed; decompress it "
                     "first (gzip -dc %s > run.log) and pass the plain log",
                     path, path);
    else
        rc = fl_parse(path, buf, len, name, extra, w, info, err);
    free(buf);
    return rc;
}

