/* gpgpusim_stats: reads what GPGPU-Sim printed — the statistics dumped after
 * every kernel (per-kernel vs cumulative semantics of docs/gpgpusim.md) and
 * the GPUWattch power report — maps them to gpudse metrics, and classifies
 * a finished run by its failure signatures. */
#include "gpgpusim.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"

/* ---- lines ---------------------------------------------------------------- */

/* A cursor over the lines of a text of known length. */
typedef struct {
    const char *p, *end;
    int line;
} line_iter;

/* Next line [*s, *e) without its newline (and CR); 0 at the end. */
static int next_line(line_iter *it, const char **s, const char **e)
{
    if (it->p >= it->end)
        return 0;
    const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
    const char *le = nl ? nl : it->end;
    *s = it->p;
    *e = le;
    if (*e > *s && (*e)[-1] == '\r')
        (*e)--;
    it->p = nl ? nl + 1 : it->end;
    it->line++;
    return 1;
}

static const char *skip_blanks(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* First occurrence of needle (nl bytes) in [h, h + hl), or NULL; memchr on
 * the first byte keeps it fast on outputs of many megabytes. */
static const char *find_bytes(const char *h, size_t hl, const char *needle,
                              size_t nl)
{
    const char *end = h + hl;
    while (nl && (size_t)(end - h) >= nl) {
        const char *p = memchr(h, needle[0], (size_t)(end - h) - nl + 1);
        if (!p)
            return NULL;
        if (memcmp(p, needle, nl) == 0)
            return p;
        h = p + 1;
    }
    return NULL;
}

/* If [s, e) is `KEY<blanks>=<blanks>VALUE`, return VALUE's start. */
static const char *match_key(const char *s, const char *e, const char *key)
{
    size_t kl = strlen(key);
    if ((size_t)(e - s) < kl || memcmp(s, key, kl) != 0)
        return NULL;
    const char *p = skip_blanks(s + kl, e);
    if (p >= e || *p != '=')
        return NULL;
    return skip_blanks(p + 1, e);
}

/* Parse a number at v followed (after blanks) by suffix and then only
 * blanks. "nan"/"inf" parse as NAN (absent). 0, or -1 for garbage. */
static int parse_value(const char *v, const char *e, const char *suffix,
                       double *out)
{
    char buf[64];
    size_t n = (size_t)(e - v);
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    char *end;
    double d = strtod(buf, &end);
    if (end == buf)
        return -1;
    const char *p = skip_blanks(v + (end - buf), e);
    size_t sl = strlen(suffix);
    if (sl) {
        if ((size_t)(e - p) < sl || memcmp(p, suffix, sl) != 0)
            return -1;
        p = skip_blanks(p + sl, e);
    }
    if (p != e)
        return -1;
    *out = isfinite(d) ? d : NAN;
    return 0;
}

/* ---- statistics ------------------------------------------------------------ */

enum { IN_KERNEL, IN_CUM };

/* A statistics line: its key, where its value goes, what follows it. */
typedef struct {
    const char *key;
    int where;        /* IN_KERNEL: gsim_kernel; IN_CUM: gsim_stats */
    size_t off;
    const char *suffix;
} stat_key;

#define K(key, field, suf) {key, IN_KERNEL, offsetof(gsim_kernel, field), suf}
#define C(key, field, suf) {key, IN_CUM, offsetof(gsim_stats, field), suf}
static const stat_key stat_keys[] = {
    K("gpu_sim_cycle", sim_cycle, ""),
    K("gpu_sim_insn", sim_insn, ""),
    K("gpu_ipc", ipc, ""),
    K("gpu_occupancy", occupancy_pct, "%"),
    K("L2_BW", l2_bw_gbps, "GB/Sec"),
    C("gpu_tot_sim_cycle", tot_cycles, ""),
    C("gpu_tot_sim_insn", tot_insn, ""),
    C("gpu_tot_ipc", tot_ipc, ""),
    C("gpu_tot_occupancy", tot_occupancy_pct, "%"),
    C("gpu_tot_issued_cta", tot_issued_cta, ""),
    C("L1D_total_cache_accesses", l1d_accesses, ""),
    C("L1D_total_cache_misses", l1d_misses, ""),
    C("L1D_total_cache_miss_rate", l1d_miss_rate, ""),
    C("L2_total_cache_accesses", l2_accesses, ""),
    C("L2_total_cache_misses", l2_misses, ""),
    C("L2_total_cache_miss_rate", l2_miss_rate, ""),
    C("gpu_stall_dramfull", dram_stall, ""),
    C("gpu_stall_icnt2sh", icnt2sh_stall, ""),
    C("L2_BW_total", l2_bw_total_gbps, "GB/Sec"),
    C("total dram reads", dram_reads, ""),
    C("total dram writes", dram_writes, ""),
    C("gpgpu_n_load_insn", n_load_insn, ""),
    C("gpgpu_n_store_insn", n_store_insn, ""),
    C("gpgpu_n_shmem_insn", n_shmem_insn, ""),
    C("gpgpu_n_sstarr_insn", n_sstarr_insn, ""),
    C("gpgpu_n_tex_insn", n_tex_insn, ""),
    C("gpgpu_n_const_mem_insn", n_const_mem_insn, ""),
    C("gpgpu_n_param_mem_insn", n_param_mem_insn, ""),
    C("gpgpu_n_stall_shd_mem", n_stall_shd_mem, ""),
    C("averagemflatency", avg_mem_latency, ""),
    C("gpgpu_simulation_rate", sim_rate_insn, "(inst/sec)"),
    C("gpgpu_simulation_rate", sim_rate_cycle, "(cycle/sec)"),
};
#undef K
#undef C
#define NSTATKEYS (sizeof stat_keys / sizeof stat_keys[0])

/* One kernel's dump while parsing: its per-kernel values and the
 * cumulative counters as printed. */
typedef struct {
    gsim_kernel k;
    gsim_stats cum;
} dump;

static void kernel_init(gsim_kernel *k)
{
    memset(k, 0, sizeof *k);
    k->uid = -1;
    double *d[] = {&k->sim_cycle, &k->sim_insn, &k->ipc, &k->occupancy_pct,
                   &k->l2_bw_gbps, &k->d_dram_stall, &k->d_l1d_accesses,
                   &k->d_l1d_misses, &k->d_l2_accesses, &k->d_l2_misses,
                   &k->d_dram_reads, &k->d_dram_writes, &k->l1d_miss_rate,
                   &k->l2_miss_rate};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        *d[i] = NAN;
}

/* Every value of gsim_stats to NAN (absent), no kernels. */
static void stats_init(gsim_stats *s)
{
    memset(s, 0, sizeof *s);
    double *d[] = {
        &s->tot_cycles, &s->tot_insn, &s->tot_ipc, &s->tot_occupancy_pct,
        &s->tot_issued_cta, &s->l1d_accesses, &s->l1d_misses,
        &s->l1d_miss_rate, &s->l2_accesses, &s->l2_misses, &s->l2_miss_rate,
        &s->dram_stall, &s->icnt2sh_stall, &s->l2_bw_total_gbps,
        &s->dram_reads, &s->dram_writes, &s->n_load_insn, &s->n_store_insn,
        &s->n_shmem_insn, &s->n_sstarr_insn, &s->n_tex_insn,
        &s->n_const_mem_insn, &s->n_param_mem_insn, &s->n_stall_shd_mem,
        &s->avg_mem_latency, &s->sim_seconds, &s->sim_rate_insn,
        &s->sim_rate_cycle, &s->core_clock_mhz};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        *d[i] = NAN;
}

typedef struct {
    dump *v;
    int n, cap;
} dump_list;

static dump *dump_push(dump_list *l)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        dump *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    dump *d = &l->v[l->n++];
    kernel_init(&d->k);
    stats_init(&d->cum);
    return d;
}

/* kernel_name / kernel_launch_uid values. */
static void set_kernel_name(gsim_kernel *k, const char *v, const char *e)
{
    while (e > v && isspace((unsigned char)e[-1]))
        e--;
    size_t n = (size_t)(e - v);
    if (n >= sizeof k->name)
        n = sizeof k->name - 1;
    memcpy(k->name, v, n);
    k->name[n] = '\0';
}

/* gpgpu_simulation_time = D days, H hrs, M min, S sec (T sec) */
static int parse_sim_time(const char *v, const char *e, double *out)
{
    const char *p = memchr(v, '(', (size_t)(e - v));
    if (!p)
        return -1;
    const char *close = memchr(p, ')', (size_t)(e - p));
    if (!close)
        return -1;
    return parse_value(p + 1, close, "sec", out);
}

static int garbage(gd_err *err, int line, const char *key, const char *v,
                   const char *e)
{
    int n = (int)(e - v > 40 ? 40 : e - v);
    return gd_errf(err, GD_EINPUT, "stdout:%d: value of %s is not a number: "
                   "\"%.*s\"", line, key, n, v);
}

/* Try the statistics keys on one line of a dump. */
static int parse_stat_line(dump *d, const char *s, const char *e, int line,
                           gd_err *err)
{
    const char *v, *matched = NULL;
    for (size_t i = 0; i < NSTATKEYS; i++) {
        if (!(v = match_key(s, e, stat_keys[i].key)))
            continue;
        matched = v;
        char *base = stat_keys[i].where == IN_KERNEL ? (char *)&d->k
                                                      : (char *)&d->cum;
        double val;
        if (parse_value(v, e, stat_keys[i].suffix, &val) == 0) {
            *(double *)(base + stat_keys[i].off) = val;
            return GD_OK;
        }
    }
    if (matched) {   /* a known key whose value fits none of its forms */
        const char *k = s;
        while (k < e && *k != ' ' && *k != '=')
            k++;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(k - s), s);
        return garbage(err, line, key, matched, e);
    }
    if ((v = match_key(s, e, "gpgpu_simulation_time"))) {
        if (parse_sim_time(v, e, &d->cum.sim_seconds) != 0)
            return garbage(err, line, "gpgpu_simulation_time", v, e);
    } else if ((v = match_key(s, e, "kernel_launch_uid"))) {
        char buf[24];   /* the text need not be NUL-terminated */
        snprintf(buf, sizeof buf, "%.*s", (int)(e - v < 23 ? e - v : 23), v);
        d->k.uid = strtol(buf, NULL, 10);
    }
    return GD_OK;
}

/* Differences of the cumulative counters between consecutive dumps. */
static void kernel_diffs(gsim_kernel *k, const gsim_stats *cur,
                         const gsim_stats *prev)
{
    double z = 0;
#define DIFF(dst, f) k->dst = cur->f - (prev ? prev->f : z)
    DIFF(d_dram_stall, dram_stall);
    DIFF(d_l1d_accesses, l1d_accesses);
    DIFF(d_l1d_misses, l1d_misses);
    DIFF(d_l2_accesses, l2_accesses);
    DIFF(d_l2_misses, l2_misses);
    DIFF(d_dram_reads, dram_reads);
    DIFF(d_dram_writes, dram_writes);
#undef DIFF
    k->l1d_miss_rate = k->d_l1d_accesses > 0
        ? k->d_l1d_misses / k->d_l1d_accesses : NAN;
    k->l2_miss_rate = k->d_l2_accesses > 0
        ? k->d_l2_misses / k->d_l2_accesses : NAN;
}

/* Fill out from the dumps: kernels with differences, whole program from
 * the last dump. */
static int finish_stats(dump_list *l, gsim_stats *out, gd_err *err)
{
    double clock = out->core_clock_mhz;
    int exit_detected = out->exit_detected;
    if (l->n == 0)
        return GD_OK;
    *out = l->v[l->n - 1].cum;
    out->core_clock_mhz = clock;
    out->exit_detected = exit_detected;
    out->kernels = calloc((size_t)l->n, sizeof *out->kernels);
    if (!out->kernels)
        return gd_errf(err, GD_EENV, "out of memory");
    out->nkernels = l->n;
    for (int i = 0; i < l->n; i++) {
        out->kernels[i] = l->v[i].k;
        kernel_diffs(&out->kernels[i], &l->v[i].cum,
                     i ? &l->v[i - 1].cum : NULL);
    }
    return GD_OK;
}

static int parse_lines(const char *text, size_t len, dump_list *l,
                       gsim_stats *out, gd_err *err)
{
    line_iter it = {text, text + len, 0};
    const char *s, *e, *v;
    dump *cur = NULL;
    while (next_line(&it, &s, &e)) {
        s = skip_blanks(s, e);
        if (s == e || *s == '-')          /* blank or configuration dump */
            continue;
        if ((v = match_key(s, e, "kernel_name"))) {
            if (!(cur = dump_push(l)))
                return gd_errf(err, GD_EENV, "out of memory");
            set_kernel_name(&cur->k, v, e);
        } else if (e - s >= 32
                   && memcmp(s, "GPGPU-Sim: *** exit detected ***", 32) == 0) {
            out->exit_detected = 1;
        } else if (cur) {
            int rc = parse_stat_line(cur, s, e, it.line, err);
            if (rc)
                return rc;
        }
    }
    return GD_OK;
}

/* Core clock (MHz) from the log's configuration dump line
 * `-gpgpu_clock_domains 700.0:...`; NAN when the text lacks it. */
static double clock_from_log(const char *text, size_t len)
{
    static const char key[] = "\n-gpgpu_clock_domains";
    const char *p = find_bytes(text, len, key, sizeof key - 1);
    if (!p)
        return NAN;
    const char *v = p + sizeof key - 1, *e = memchr(v, '\n',
                                                     len - (size_t)(v - text));
    char buf[64];
    size_t n = (size_t)((e ? e : text + len) - v);
    snprintf(buf, sizeof buf, "%.*s", (int)(n < 63 ? n : 63), v);
    char *end;
    double mhz = strtod(buf, &end);
    return end != buf && *end == ':' && mhz > 0 ? mhz : NAN;
}

int gsim_parse_stats(const char *log_text, size_t len, gsim_stats *out,
                     gd_err *err)
{
    stats_init(out);
    dump_list l = {NULL, 0, 0};
    int rc = parse_lines(log_text, len, &l, out, err);
    if (rc == GD_OK) {
        out->core_clock_mhz = clock_from_log(log_text, len);
        rc = finish_stats(&l, out, err);
    }
    free(l.v);
    return rc;
}

void gsim_stats_free(gsim_stats *s)
{
    free(s->kernels);
    s->kernels = NULL;
    s->nkernels = 0;
}

/* ---- power report ----------------------------------------------------------- */

static int power_value(const char *v, const char *e, int line,
                       const char *key, double *out, gd_err *err)
{
    if (parse_value(v, e, "", out) != 0 || isnan(*out))
        return gd_errf(err, GD_EINPUT, "power report:%d: value of %s is not "
                       "a number", line, key);
    return GD_OK;
}

static int push_power(gsim_power *p, double w, gd_err *err)
{
    double *k = realloc(p->kernel_avg_w,
                        (size_t)(p->nkernels + 1) * sizeof *k);
    if (!k)
        return gd_errf(err, GD_EENV, "out of memory");
    p->kernel_avg_w = k;
    k[p->nkernels++] = w;
    return GD_OK;
}

int gsim_parse_power(const char *text, size_t len, gsim_power *out,
                     gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->tot_avg_w = out->tot_max_w = NAN;
    line_iter it = {text, text + len, 0};
    const char *s, *e, *v;
    int rc = GD_OK;
    double w;
    while (rc == GD_OK && next_line(&it, &s, &e)) {
        s = skip_blanks(s, e);
        if ((v = match_key(s, e, "kernel_avg_power"))) {
            if (!(rc = power_value(v, e, it.line, "kernel_avg_power", &w,
                                   err)))
                rc = push_power(out, w, err);
        } else if ((v = match_key(s, e, "gpu_tot_avg_power"))) {
            rc = power_value(v, e, it.line, "gpu_tot_avg_power",
                             &out->tot_avg_w, err);
        } else if ((v = match_key(s, e, "gpu_tot_max_power"))) {
            rc = power_value(v, e, it.line, "gpu_tot_max_power",
                             &out->tot_max_w, err);
        }
    }
    if (rc)
        gsim_power_free(out);
    return rc;
}

void gsim_power_free(gsim_power *p)
{
    free(p->kernel_avg_w);
    p->kernel_avg_w = NULL;
    p->nkernels = 0;
}

/* ---- metrics ----------------------------------------------------------------- */

static int put(met_set *m, const char *name, double v)
{
    if (isnan(v))
        return 0;
    return met_put(m, name, v);
}

int gsim_stats_to_metrics(const gsim_stats *s, double power_w, met_set *m)
{
    double time_s = s->core_clock_mhz > 0
        ? s->tot_cycles / (s->core_clock_mhz * 1e6) : NAN;
    double power = isfinite(power_w) ? power_w : NAN;
    int rc = put(m, "ipc", s->tot_ipc) |
             put(m, "cycles", s->tot_cycles) |
             put(m, "instructions", s->tot_insn) |
             put(m, "occupancy", s->tot_occupancy_pct / 100.0) |
             put(m, "l1d_miss_rate", s->l1d_miss_rate) |
             put(m, "l2_miss_rate", s->l2_miss_rate) |
             put(m, "dram_stall_cycles", s->dram_stall) |
             put(m, "l2_bw_gbps", s->l2_bw_total_gbps) |
             put(m, "time_s", time_s) |
             put(m, "power_w", power) |
             put(m, "energy_j", power * time_s);
    return rc ? GD_EENV : GD_OK;
}

/* ---- classification ------------------------------------------------------- */

const char *gsim_signal_name(int signo)
{
    static const struct { int no; const char *name; } sigs[] = {
        {SIGHUP, "SIGHUP"}, {SIGINT, "SIGINT"}, {SIGQUIT, "SIGQUIT"},
        {SIGILL, "SIGILL"}, {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
        {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGKILL, "SIGKILL"},
        {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
        {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigs[i].no == signo)
            return sigs[i].name;
    return "SIG?";
}

int gsim_classify_exit(int exited, int exit_code, int signaled, int signo,
                       int timed_out, char *reason, size_t n)
{
    if (timed_out) {
        snprintf(reason, n, "timed out");
        return ST_TIMEOUT;
    }
    if (signaled) {
        snprintf(reason, n, "signal %d (%s)%s", signo,
                 gsim_signal_name(signo),
                 signo == SIGKILL ? ", possibly the kernel's OOM killer" : "");
        return ST_CRASHED;
    }
    if (exited && exit_code > 128 && exit_code < 160) {
        snprintf(reason, n, "exit code %d (a shell's report of signal %d, "
                 "%s)", exit_code, exit_code - 128,
                 gsim_signal_name(exit_code - 128));
        return ST_CRASHED;
    }
    if (exited && exit_code != 0) {
        snprintf(reason, n, "exit code %d", exit_code);
        return ST_FAILED;
    }
    if (!exited) {
        snprintf(reason, n, "ended without an exit status");
        return ST_CRASHED;
    }
    snprintf(reason, n, "%s", "");
    return ST_OK;
}

/* The line around position p of text: [*s, *e), leading blanks skipped. */
static void line_around(const char *text, const char *end, const char *p,
                        const char **s, const char **e)
{
    const char *ls = p;
    while (ls > text && ls[-1] != '\n')
        ls--;
    const char *le = memchr(p, '\n', (size_t)(end - p));
    if (!le)
        le = end;
    if (le > ls && le[-1] == '\r')
        le--;
    *s = skip_blanks(ls, le);
    *e = le;
}

static void copy_line(const char *s, const char *e, char *line, size_t n)
{
    size_t len = (size_t)(e - s) < n ? (size_t)(e - s) : n - 1;
    memcpy(line, s, len);
    line[len] = '\0';
}

/* The first line of text containing needle, copied trimmed into line; 1 when
 * found. Lines of the configuration dump (starting with '-') are skipped.
 */
static int find_line(const char *text, const char *needle, char *line,
                     size_t n)
{
    if (!text)
        return 0;
    const char *end = text + strlen(text), *p = text, *s, *e;
    size_t nl = strlen(needle);
    while ((p = find_bytes(p, (size_t)(end - p), needle, nl)) != NULL) {
        line_around(text, end, p, &s, &e);
        if (s < e && *s != '-') {
            copy_line(s, e, line, n);
            return 1;
        }
        p = e;
    }
    return 0;
}

static int is_word_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* A line with FAIL or FAILED as a whole word (RESERVATION_FAIL is not). */
static int find_fail_word(const char *text, char *line, size_t n)
{
    if (!text)
        return 0;
    const char *end = text + strlen(text), *p = text, *s, *e;
    for (; (p = find_bytes(p, (size_t)(end - p), "FAIL", 4)) != NULL; p += 4) {
        const char *q = p + 4;
        if (end - q >= 2 && memcmp(q, "ED", 2) == 0)
            q += 2;
        if ((p > text && is_word_char(p[-1])) || (q < end && is_word_char(*q)))
            continue;
        line_around(text, end, p, &s, &e);
        if (s < e && *s == '-')
            continue;
        copy_line(s, e, line, n);
        return 1;
    }
    return 0;
}

/* Reason text for the deadlock banner. */
static void deadlock_reason(const char *banner, char *reason, size_t n)
{
    const char *p = strstr(banner, "last writeback core");
    unsigned core, last, before, ago;
    if (p && sscanf(p, "last writeback core %u @ gpu_sim_cycle %u "
                    "(+ gpu_tot_sim_cycle %u) (%u cycles ago)",
                    &core, &last, &before, &ago) == 4) {
        unsigned long long at = (unsigned long long)before + last + ago;
        snprintf(reason, n, "deadlock detected at cycle %llu (nothing "
                 "committed for %u cycles; last writeback by core %u)", at,
                 ago, core);
        return;
    }
    snprintf(reason, n, "%s", banner);
}

/* GPGPU-Sim's own fatal messages (libcuda/cuda_runtime_api.cc,
 * option_parser.cc, cuda-sim/), each with what it means for the job's set-up;
 * the first found names the cause of a failed or aborted run. */
static const struct {
    const char *needle;
    const char *hint;
} fatal_sigs[] = {
    {"Cannot open config file",
     "GPGPU-Sim found no config in the job's working directory"},
    {"Unknown Option", "GPGPU-Sim rejected a config option"},
    {"cuobjdump: not found",
     "cuobjdump did not run: set CUDA_INSTALL_PATH (GPGPU-Sim runs "
     "$CUDA_INSTALL_PATH/bin/cuobjdump) or CUOBJDUMP_SIM_FILE"},
    {"cuobjdump: No such file",
     "cuobjdump did not run: set CUDA_INSTALL_PATH (GPGPU-Sim runs "
     "$CUDA_INSTALL_PATH/bin/cuobjdump) or CUOBJDUMP_SIM_FILE"},
    {"Error in system command",
     "a command GPGPU-Sim runs failed (cuobjdump: CUDA_INSTALL_PATH, "
     "CUOBJDUMP_SIM_FILE)"},
    {"Failed to execute", "a command GPGPU-Sim runs failed (cuobjdump: "
     "CUDA_INSTALL_PATH, CUOBJDUMP_SIM_FILE)"},
    {"CUOBJDUMP_SIM_FILE", "GPGPU-Sim's saved cuobjdump output "
     "(CUOBJDUMP_SIM_FILE) is missing or wrong"},
    {"no PTX implementation found", "GPGPU-Sim has no PTX for the kernel "
     "(the program's PTX was not extracted: CUDA_INSTALL_PATH, the PTX "
     "files of a -cudart shared build)"},
    {"Could find/open .ptx file", "GPGPU-Sim found no PTX file (a -cudart "
     "shared build: PTX_SIM_USE_PTX_FILE with PTX_SIM_KERNELFILE naming it, "
     "or the .ptx in the job's working directory)"},
    {"PTX parsing errors detected", "GPGPU-Sim could not parse the PTX"},
    {"GPGPU-Sim PTX: ERROR", "GPGPU-Sim PTX error"},
    {"GPGPU-Sim PTX Simulator error", "GPGPU-Sim PTX error"},
    {"GPGPU-Sim ** ERROR", "GPGPU-Sim error"},
    {"GPGPU-Sim CUDA API:", "GPGPU-Sim CUDA API error"},
    {"has not been implemented yet",
     "the program calls a CUDA function GPGPU-Sim does not implement"},
};

/* A PTX file that could not be opened (apps built with -cudart shared
 * read theirs from the working directory). */
static int find_ptx_missing(const char *text, char *line, size_t n)
{
    static const char *const miss[] = {"No such file", "cannot open",
                                       "Cannot open", "Unable to open",
                                       "not found"};
    char l[512];
    for (size_t i = 0; i < sizeof miss / sizeof miss[0]; i++)
        if (find_line(text, miss[i], l, sizeof l) && strstr(l, ".ptx")) {
            snprintf(line, n, "%s", l);
            return 1;
        }
    return 0;
}

int gsim_fatal_cause(const char *stdout_text, const char *stderr_text,
                     char *cause, size_t n)
{
    char line[512];
    if (find_ptx_missing(stderr_text, line, sizeof line)
        || find_ptx_missing(stdout_text, line, sizeof line)) {
        snprintf(cause, n, "PTX file missing (CUOBJDUMP_SIM_FILE, or the "
                 "PTX of a -cudart shared build beside the job): %s", line);
        return 1;
    }
    for (size_t i = 0; i < sizeof fatal_sigs / sizeof fatal_sigs[0]; i++)
        if (find_line(stderr_text, fatal_sigs[i].needle, line, sizeof line)
            || find_line(stdout_text, fatal_sigs[i].needle, line,
                         sizeof line)) {
            snprintf(cause, n, "%s: %s", fatal_sigs[i].hint, line);
            return 1;
        }
    return 0;
}

/* Whether a line says nothing about why a run ended: blank, the config
 * dump, progress and timing lines. */
static int is_noise(const char *s, const char *e)
{
    static const char *const noise[] = {
        "instructions simulated", "cycles simulated", "gpgpu_simulation_",
        "gpgpu_silicon_slowdown", "GPGPU-Sim: synchronize",
        "GPGPU-Sim: detected inactive", "Destroy streams", "kernel_stream_id",
    };
    if (s >= e || *s == '-')
        return 1;
    for (size_t i = 0; i < sizeof noise / sizeof noise[0]; i++)
        if (find_bytes(s, (size_t)(e - s), noise[i], strlen(noise[i])))
            return 1;
    return 0;
}

int gsim_last_lines(const char *text, int max, char *out, size_t n)
{
    out[0] = '\0';
    if (!text || n == 0)
        return 0;
    const char *lines[4][2];
    int k = 0;
    const char *e = text + strlen(text);
    if (max > 4)
        max = 4;
    while (e > text && k < max) {
        const char *ls = e;
        while (ls > text && ls[-1] != '\n')
            ls--;
        const char *le = e;
        while (le > ls && isspace((unsigned char)le[-1]))
            le--;
        const char *st = skip_blanks(ls, le);
        if (!is_noise(st, le)) {
            lines[k][0] = st;
            lines[k][1] = le;
            k++;
        }
        e = ls > text ? ls - 1 : text;
    }
    for (int i = k - 1; i >= 0; i--) {
        size_t used = strlen(out);
        snprintf(out + used, n - used, "%s%.*s", used ? " | " : "",
                 (int)(lines[i][1] - lines[i][0]), lines[i][0]);
    }
    return k;
}

/* ": CAUSE" appended to reason: GPGPU-Sim's fatal message when there is
 * one, else the last meaningful lines of stderr, else of stdout. */
static void append_cause(const char *out, const char *errt, char *reason,
                         size_t n)
{
    char cause[512];
    if (!gsim_fatal_cause(out, errt, cause, sizeof cause)
        && !gsim_last_lines(errt, 2, cause, sizeof cause)
        && !gsim_last_lines(out, 2, cause, sizeof cause))
        return;
    size_t used = strlen(reason);
    snprintf(reason + used, n - used, ": %s", cause);
}

/* Signatures found in the text, most specific first; -1 when none. */
static int classify_text(const char *out, const char *errt, char *reason,
                         size_t n)
{
    char line[512];
    const char *dl = "GPGPU-Sim uArch: ERROR ** deadlock detected";
    if (find_line(out, dl, line, sizeof line) ||
        find_line(errt, dl, line, sizeof line)) {
        deadlock_reason(line, reason, n);
        return ST_DEADLOCK;
    }
    static const char *const oom[] = {"bad_alloc", "Cannot allocate memory",
                                      "out of memory", "Out of memory",
                                      "OUT OF MEMORY"};
    for (size_t i = 0; i < sizeof oom / sizeof oom[0]; i++)
        if (find_line(errt, oom[i], line, sizeof line) ||
            find_line(out, oom[i], line, sizeof line)) {
            snprintf(reason, n, "out of memory: %s", line);
            return ST_OOM;
        }
    if (find_line(errt, "Assertion", line, sizeof line) ||
        find_line(out, "Assertion", line, sizeof line)) {
        snprintf(reason, n, "%s", line);
        return ST_ASSERT;
    }
    return -1;
}

/* Crash texts a shell prints for a child. */
static int classify_crash_text(const char *out, const char *errt,
                               char *reason, size_t n)
{
    static const char *const crash[] = {"Segmentation fault", "Aborted"};
    char line[512];
    for (size_t i = 0; i < 2; i++)
        if (find_line(errt, crash[i], line, sizeof line) ||
            find_line(out, crash[i], line, sizeof line)) {
            snprintf(reason, n, "%s", line);
            return ST_CRASHED;
        }
    return -1;
}

/* The statistics: garbage, none, incomplete, or fine. */
static int classify_stats(const char *out, char *reason, size_t n)
{
    gsim_stats st;
    gd_err err;
    if (!out)
        out = "";
    if (gsim_parse_stats(out, strlen(out), &st, &err) != GD_OK) {
        gsim_stats_free(&st);
        snprintf(reason, n, "unparseable statistics: %s", err.msg);
        return ST_BAD_OUTPUT;
    }
    int status = ST_OK;
    if (st.nkernels == 0) {
        snprintf(reason, n, "no statistics in the output (no kernel_name "
                 "dump)");
        status = ST_NO_STATS;
    } else if (isnan(st.tot_ipc) || isnan(st.tot_cycles) ||
               isnan(st.tot_insn)) {
        snprintf(reason, n, "incomplete statistics: the last dump lacks "
                 "gpu_tot_ipc, gpu_tot_sim_cycle or gpu_tot_sim_insn");
        status = ST_NO_STATS;
    } else {
        snprintf(reason, n, "%s", "");
    }
    gsim_stats_free(&st);
    return status;
}

int gsim_classify(const char *stdout_text, const char *stderr_text,
                  int exited, int exit_code, int signaled, int signo,
                  int timed_out, char *reason, size_t n)
{
    char line[512];
    int st = classify_text(stdout_text, stderr_text, reason, n);
    if (st == ST_DEADLOCK)   /* the root cause even if it then hung */
        return st;
    if (timed_out)
        return gsim_classify_exit(exited, exit_code, signaled, signo, 1,
                                  reason, n);
    if (st >= 0)
        return st;
    st = gsim_classify_exit(exited, exit_code, signaled, signo, 0, reason, n);
    if (st != ST_OK) {
        append_cause(stdout_text, stderr_text, reason, n);
        return st;
    }
    if ((st = classify_crash_text(stdout_text, stderr_text, reason, n)) >= 0)
        return st;
    if (find_fail_word(stdout_text, line, sizeof line) ||
        find_fail_word(stderr_text, line, sizeof line)) {
        snprintf(reason, n, "the program's own check failed: %s", line);
        return ST_FAILED;
    }
    st = classify_stats(stdout_text, reason, n);
    if (st == ST_NO_STATS) {
        /* exit 0 without statistics: GPGPU-Sim exits 0 after some of its
         * own errors */
        char cause[512];
        if (gsim_fatal_cause(stdout_text, stderr_text, cause, sizeof cause)) {
            snprintf(reason, n, "%s", cause);
            return ST_FAILED;
        }
        append_cause(stdout_text, stderr_text, reason, n);
    }
    return st;
}
