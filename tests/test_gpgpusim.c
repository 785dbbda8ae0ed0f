/* test_gpgpusim: the GPGPU-Sim backend's process-free half — config and
 * interconnect rewriting (exactly one line per knob, k rule, L1 set-index
 * rule, cache-string validation), job files, statistics of the real logs to
 * exact values (the dct8x8 fixture and every reference baseline against
 * results.csv), the power report, metrics, and failure classification of
 * crafted outputs and of tests/fakesim/fakesim.sh. */
#include "testutil.h"
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include "gpgpusim.h"
#include "store.h"

#define T "tests/tmp/gpgpusim"
#define TMPL "templates/gpgpusim"
#define DATA "tests/data/gpgpusim"

/* ---- helpers ---------------------------------------------------------------- */

/* A gzip'd log, decompressed by gzip(1). */
static char *read_gz(const char *path, size_t *len)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "cannot run gzip");
    util_buf b;
    util_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
        util_buf_add(&b, chunk, n);
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_msg(b.len > 0, "%s is empty", path);
    if (len)
        *len = b.len;
    return b.s;
}

static void parse_gz(const char *path, gsim_stats *st)
{
    size_t len;
    char *text = read_gz(path, &len);
    gd_err err;
    ck_assert_msg(gsim_parse_stats(text, len, st, &err) == 0, "%s", err.msg);
    free(text);
}

#define ck_near(a, b, tol) \
    ck_assert_msg(fabs((double)(a) - (double)(b)) <= (tol), \
                  "%s = %.10g, expected %.10g", #a, (double)(a), (double)(b))

/* Lines of a text as an array (pointers into a copy). */
typedef struct {
    char *buf;
    char **line;
    int n;
} lines;

static lines split_lines(const char *text)
{
    lines l = {strdup(text), NULL, 0};
    int cap = 0;
    char *p = l.buf;
    while (*p) {
        if (l.n == cap) {
            cap = cap ? cap * 2 : 64;
            l.line = realloc(l.line, (size_t)cap * sizeof *l.line);
        }
        l.line[l.n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return l;
}

static void free_lines(lines *l)
{
    free(l->buf);
    free(l->line);
}

/* Compare line by line: the 1-based numbers of differing lines go into
 * diff (up to 8); returns how many differ. Same line count required. */
static int diff_lines(const char *a, const char *b, int diff[8])
{
    lines la = split_lines(a), lb = split_lines(b);
    ck_assert_int_eq(la.n, lb.n);
    int nd = 0;
    for (int i = 0; i < la.n; i++)
        if (strcmp(la.line[i], lb.line[i]) != 0) {
            if (nd < 8)
                diff[nd] = i + 1;
            nd++;
        }
    free_lines(&la);
    free_lines(&lb);
    return nd;
}

/* Text of line no (1-based) into out. */
static void line_of(const char *text, int no, char *out, size_t n)
{
    lines l = split_lines(text);
    ck_assert_int_le(no, l.n);
    util_strlcpy(out, l.line[no - 1], n);
    free_lines(&l);
}

/* 1-based line of the first line starting with prefix, or 0. */
static int line_no(const char *text, const char *prefix)
{
    lines l = split_lines(text);
    int at = 0;
    for (int i = 0; i < l.n && !at; i++)
        if (strncmp(l.line[i], prefix, strlen(prefix)) == 0)
            at = i + 1;
    free_lines(&l);
    return at;
}

static char *rewrite(const char *tmpl, const gpu_config *c)
{
    char *out = NULL;
    gd_err err;
    ck_assert_msg(gsim_rewrite_config_text(tmpl, "gpgpusim.config", c, &out,
                                           &err) == 0, "%s", err.msg);
    return out;
}

/* ---- config rewriting --------------------------------------------------------- */

START_TEST(baseline_reproduces_template_bytes)
{
    char *tmpl = tu_slurp(TMPL "/gpgpusim.config", NULL);
    char *icnt = tu_slurp(TMPL "/config_fermi_islip.icnt", NULL);
    gpu_config base = space_baseline();
    char *out = rewrite(tmpl, &base);
    ck_assert_str_eq(out, tmpl);
    char *iout = NULL;
    gd_err err;
    ck_assert(gsim_rewrite_icnt_text(icnt, "icnt", &base, 2, &iout, &err)
              == 0);
    ck_assert_str_eq(iout, icnt);
    ck_assert_ptr_nonnull(strstr(iout, "\nk = 27;\n"));
    free(out);
    free(iout);
    free(icnt);
    free(tmpl);
}
END_TEST

/* The line(s) a knob value must produce. */
static void expected_lines(int knob, int v, char exp[2][128], int *nexp)
{
    char sched[32];
    *nexp = 1;
    switch (knob) {
    case KNOB_N_CLUSTERS:
        snprintf(exp[0], 128, "-gpgpu_n_clusters %d", v);
        break;
    case KNOB_CORES_PER_CLUSTER:
        snprintf(exp[0], 128, "-gpgpu_n_cores_per_cluster %d", v);
        break;
    case KNOB_N_MEM:
        snprintf(exp[0], 128, "-gpgpu_n_mem %d", v);
        break;
    case KNOB_SHMEM_SIZE:
        snprintf(exp[0], 128, "-gpgpu_shmem_size %d", v);
        snprintf(exp[1], 128, "-gpgpu_shmem_sizeDefault %d", v);
        *nexp = 2;
        break;
    case KNOB_SCHEDULER:
        util_strlcpy(sched, v == SCHED_TWO_LEVEL ? "two_level_active:6:0:1"
                     : space_sched_name(v), sizeof sched);
        snprintf(exp[0], 128, "-gpgpu_scheduler %s", sched);
        break;
    case KNOB_NUM_SCHED_PER_CORE:
        snprintf(exp[0], 128, "-gpgpu_num_sched_per_core %d", v);
        break;
    case KNOB_L1_SETS:
        snprintf(exp[0], 128, "-gpgpu_cache:dl1  N:%d:128:4,L:L:m:N:%c,"
                 "S:64:8,8", v, (v == 32 || v == 64) ? 'H' : 'L');
        break;
    default:
        snprintf(exp[0], 128, "-gpgpu_cache:dl2 S:%d:128:8,L:B:m:L:L,"
                 "A:256:4,4:0,32", v);
    }
}

START_TEST(each_knob_changes_exactly_its_lines)
{
    char *tmpl = tu_slurp(TMPL "/gpgpusim.config", NULL);
    int checked = 0;
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const space_knob_def *d = space_knob_get(k);
        for (int i = 0; i < d->nlevels; i++) {
            int v = d->levels[i];
            if (v == d->baseline)
                continue;
            gpu_config c = space_baseline();
            space_set(&c, k, v);
            char *out = rewrite(tmpl, &c);
            char exp[2][128];
            int nexp, diff[8];
            expected_lines(k, v, exp, &nexp);
            int nd = diff_lines(tmpl, out, diff);
            ck_assert_msg(nd == nexp, "%s=%d changed %d lines", d->name, v,
                          nd);
            for (int j = 0; j < nd; j++) {
                char got[256];
                line_of(out, diff[j], got, sizeof got);
                ck_assert_str_eq(got, exp[j]);
            }
            free(out);
            checked++;
        }
    }
    ck_assert_int_eq(checked, 3 + 2 + 3 + 2 + 2 + 2 + 3 + 2);
    free(tmpl);
}
END_TEST

START_TEST(similar_keys_are_left_alone)
{
    char *tmpl = tu_slurp(TMPL "/gpgpusim.config", NULL);
    gpu_config c = space_baseline();
    c.n_mem = 12;
    c.shmem_size = 16384;
    c.l2_sets = 128;
    char *out = rewrite(tmpl, &c);
    ck_assert_ptr_nonnull(strstr(out, "\n-gpgpu_n_mem_per_ctrlr 2\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n-gpgpu_shmem_sizeDefault 16384\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n-gpgpu_cache:dl2_texture_only 0 \n"));
    ck_assert_ptr_nonnull(strstr(out, "\n-gpgpu_n_mem 12\n"));
    /* commented alternatives stay commented and unchanged */
    ck_assert_ptr_nonnull(strstr(out, "#-gpgpu_shmem_size 16384\n"));
    ck_assert_ptr_nonnull(strstr(out, "#-gpgpu_scheduler two_level_active"));
    free(out);
    free(tmpl);
}
END_TEST

START_TEST(icnt_k_follows_rule)
{
    char *icnt = tu_slurp(TMPL "/config_fermi_islip.icnt", NULL);
    int nc[] = {8, 15, 30, 60}, nm[] = {4, 6, 8, 12};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            gpu_config c = space_baseline();
            c.n_clusters = nc[i];
            c.n_mem = nm[j];
            char *out = NULL, want[32];
            gd_err err;
            ck_assert(gsim_rewrite_icnt_text(icnt, "icnt", &c, 2, &out, &err)
                      == 0);
            int diff[8];
            int nd = diff_lines(icnt, out, diff);
            snprintf(want, sizeof want, "k = %d;", nc[i] + 2 * nm[j]);
            char got[64];
            line_of(out, line_no(out, "k ="), got, sizeof got);
            ck_assert_str_eq(got, want);
            ck_assert_int_eq(nd, nc[i] + 2 * nm[j] == 27 ? 0 : 1);
            free(out);
        }
    /* 30 clusters at baseline memory: the k = 42 the fixture README names */
    gpu_config c = space_baseline();
    c.n_clusters = 30;
    char *out = NULL;
    gd_err err;
    ck_assert(gsim_rewrite_icnt_text(icnt, "icnt", &c, 2, &out, &err) == 0);
    ck_assert_ptr_nonnull(strstr(out, "\nk = 42;\n"));
    free(out);
    free(icnt);
}
END_TEST

START_TEST(icnt_without_or_with_two_k_lines_rejected)
{
    gpu_config c = space_baseline();
    char *out = NULL;
    gd_err err;
    ck_assert_int_eq(gsim_rewrite_icnt_text("n = 1;\nkk = 3;\n", "x.icnt",
                                            &c, 2, &out, &err), GD_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "x.icnt"));
    ck_assert_int_eq(gsim_rewrite_icnt_text("k = 27;\nk=3;\n", "x.icnt", &c,
                                            2, &out, &err), GD_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "x.icnt:2"));
    ck_assert_ptr_null(out);
}
END_TEST

START_TEST(l1_set_index_h_only_for_32_and_64)
{
    char *tmpl = tu_slurp(TMPL "/gpgpusim.config", NULL);
    int sets[] = {16, 32, 64, 128};
    const char *want[] = {"N:16:128:4,L:L:m:N:L,S:64:8,8",
                          "N:32:128:4,L:L:m:N:H,S:64:8,8",
                          "N:64:128:4,L:L:m:N:H,S:64:8,8",
                          "N:128:128:4,L:L:m:N:L,S:64:8,8"};
    for (int i = 0; i < 4; i++) {
        gpu_config c = space_baseline();
        c.l1_sets = sets[i];
        char *out = rewrite(tmpl, &c);
        char v[128];
        ck_assert_int_eq(gsim_config_value(out, "-gpgpu_cache:dl1", v,
                                           sizeof v), 0);
        ck_assert_str_eq(v, want[i]);
        free(out);
    }
    free(tmpl);
}
END_TEST

START_TEST(cache_strings_validated)
{
    char why[200];
    const char *good[] = {
        "N:32:128:4,L:L:m:N:H,S:64:8,8", "S:64:128:8,L:B:m:L:L,A:256:4,4:0,32",
        "N:4:128:4,L:R:f:N:L,S:2:32,4", "N:4:128:24,L:R:m:N:L,T:128:4,128:2",
        "N:64:64:2,L:R:f:N:L,S:2:32,4", "N:16:128:4,L:L:m:N:L,S:64:8,8",
        "none"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(gsim_cache_string_check(good[i], why, sizeof why) == 0,
                      "%s: %s", good[i], why);
    struct { const char *s, *why; } bad[] = {
        {"N:32:128:4,L:B:f:N:H,S:64:8,8", "write-back"},
        {"N:32:128:4,L:T:f:F:H,S:64:8,8", "fetch-on-write"},
        {"N:32:128:4,L:T:f:L:H,S:64:8,8", "lazy-fetch-on-read"},
        {"N:16:128:4,L:L:m:N:H,S:64:8,8", "32 or 64 sets"},
        {"N:128:128:4,L:L:m:N:H,S:64:8,8", "32 or 64 sets"},
        {"S:64:64:8,L:B:m:L:L,A:256:4,4:0,32", "128-byte"},
        {"N:32:128:4,L:L:m:N,S:64:8,8", "not of the form"},
        {"N:32:128:4,L:L:m:N:H,S:64:8", "not of the form"},
        {"N:30:128:4,L:L:m:N:L,S:64:8,8", "power of two"},
        {"Q:32:128:4,L:L:m:N:H,S:64:8,8", "cache type"},
        {"N:32:128:4,L:Z:m:N:H,S:64:8,8", "write policy"},
        {"N:32:128:4,L:L:m:N:H,S:64:8,x", "queue field"},
        {"", "not of the form"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        ck_assert_msg(gsim_cache_string_check(bad[i].s, why, sizeof why)
                      == -1, "%s accepted", bad[i].s);
        ck_assert_msg(strstr(why, bad[i].why) != NULL, "%s: %s", bad[i].s,
                      why);
    }
}
END_TEST

/* The template with one line replaced. */
static char *template_with(const char *old, const char *neu)
{
    char *tmpl = tu_slurp(TMPL "/gpgpusim.config", NULL);
    char *at = strstr(tmpl, old);
    ck_assert_ptr_nonnull(at);
    util_buf b;
    util_buf_init(&b);
    util_buf_add(&b, tmpl, (size_t)(at - tmpl));
    util_buf_puts(&b, neu);
    util_buf_puts(&b, at + strlen(old));
    free(tmpl);
    return b.s;
}

START_TEST(aborting_template_rejected_with_line)
{
    char *t = template_with("-gpgpu_cache:dl2 S:64:128:8,L:B:m:L:L",
                            "-gpgpu_cache:dl2 S:64:128:8,L:B:f:L:L");
    gpu_config c = space_baseline();
    char *out = NULL;
    gd_err err;
    ck_assert_int_eq(gsim_rewrite_config_text(t, "my.config", &c, &out, &err),
                     GD_EINPUT);
    ck_assert_ptr_null(out);
    char want[64];
    snprintf(want, sizeof want, "my.config:%d:",
             line_no(t, "-gpgpu_cache:dl2 "));
    ck_assert_msg(strstr(err.msg, want) && strstr(err.msg, "write-back"),
                  "%s", err.msg);
    free(t);
}
END_TEST

START_TEST(missing_or_repeated_key_rejected)
{
    gpu_config c = space_baseline();
    char *out = NULL;
    gd_err err;
    char *t = template_with("-gpgpu_n_mem 6\n", "");
    ck_assert_int_eq(gsim_rewrite_config_text(t, "a.config", &c, &out, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "-gpgpu_n_mem") != NULL, "%s", err.msg);
    free(t);
    t = template_with("-gpgpu_n_mem 6\n", "-gpgpu_n_mem 6\n-gpgpu_n_mem 8\n");
    ck_assert_int_eq(gsim_rewrite_config_text(t, "a.config", &c, &out, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "more than one line") != NULL, "%s",
                  err.msg);
    free(t);
    ck_assert_ptr_null(out);
}
END_TEST

START_TEST(core_clock_from_config_and_log)
{
    char *tmpl = tu_slurp(TMPL "/gpgpusim.config", NULL);
    double mhz = 0;
    ck_assert_int_eq(gsim_core_clock_mhz(tmpl, &mhz), 0);
    ck_near(mhz, 700.0, 0);
    free(tmpl);
    ck_assert_int_eq(gsim_core_clock_mhz("# -gpgpu_clock_domains 1:2\n",
                                         &mhz), -1);
}
END_TEST

/* ---- job files ------------------------------------------------------------------ */

static void mkdir_p(const char *d)
{
    gd_err err;
    ck_assert_msg(util_mkdirs(d, &err) == 0, "%s", err.msg);
}

START_TEST(write_configs_into_job_dir)
{
    const char *job = T "/job1";
    mkdir_p(job);
    gpu_config c = space_baseline();
    c.n_clusters = 60;
    c.n_mem = 12;
    c.l1_sets = 128;
    int power = -1;
    gd_err err;
    ck_assert_msg(gsim_write_configs(TMPL, NULL, &c, job, &power, &err) == 0, "%s",
                  err.msg);
    ck_assert_int_eq(power, 1);
    char *tmpl = tu_slurp(TMPL "/gpgpusim.config", NULL);
    char *want = rewrite(tmpl, &c);
    char *got = tu_slurp(T "/job1/gpgpusim.config", NULL);
    ck_assert_str_eq(got, want);
    char *icnt = tu_slurp(T "/job1/config_fermi_islip.icnt", NULL);
    ck_assert_ptr_nonnull(strstr(icnt, "\nk = 84;\n"));
    char *x1 = tu_slurp(TMPL "/gpuwattch_gtx480.xml", NULL);
    char *x2 = tu_slurp(T "/job1/gpuwattch_gtx480.xml", NULL);
    ck_assert_str_eq(x1, x2);
    ck_assert(gsim_check_templates(TMPL, &err) == 0);
    free(x1);
    free(x2);
    free(icnt);
    free(got);
    free(want);
    free(tmpl);
}
END_TEST

START_TEST(rejected_config_writes_nothing)
{
    const char *tdir = T "/badtmpl", *job = T "/job2";
    mkdir_p(tdir);
    mkdir_p(job);
    unlink(T "/job2/gpgpusim.config");
    unlink(T "/job2/config_fermi_islip.icnt");
    char *t = template_with("L:L:m:N:H,S:64:8,8", "L:B:f:N:H,S:64:8,8");
    tu_write(T "/badtmpl/gpgpusim.config", t);
    char *icnt = tu_slurp(TMPL "/config_fermi_islip.icnt", NULL);
    tu_write(T "/badtmpl/config_fermi_islip.icnt", icnt);
    gpu_config c = space_baseline();
    gd_err err;
    int power = -1;
    ck_assert_int_eq(gsim_write_configs(tdir, NULL, &c, job, &power, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "write-back") != NULL, "%s", err.msg);
    ck_assert(!util_path_exists(T "/job2/gpgpusim.config"));
    ck_assert(!util_path_exists(T "/job2/config_fermi_islip.icnt"));
    ck_assert_int_eq(gsim_check_templates(tdir, &err), GD_EINPUT);
    /* power on but its XML missing from the template directory */
    free(t);
    t = tu_slurp(TMPL "/gpgpusim.config", NULL);
    tu_write(T "/badtmpl/gpgpusim.config", t);
    ck_assert_int_eq(gsim_check_templates(tdir, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "gpuwattch_gtx480.xml") != NULL, "%s",
                  err.msg);
    /* power off: no XML needed, none copied */
    free(t);
    t = template_with("-power_simulation_enabled 1",
                      "-power_simulation_enabled 0");
    tu_write(T "/badtmpl/gpgpusim.config", t);
    ck_assert_msg(gsim_write_configs(tdir, NULL, &c, job, &power, &err) == 0, "%s",
                  err.msg);
    ck_assert_int_eq(power, 0);
    ck_assert(!util_path_exists(T "/job2/gpuwattch_gtx480.xml"));
    free(t);
    free(icnt);
}
END_TEST

/* ---- statistics ------------------------------------------------------------------ */

START_TEST(dct8x8_fixture_exact_values)
{
    gsim_stats st;
    parse_gz(DATA "/dct8x8-baseline-gpgpusim4.2.log.gz", &st);
    ck_near(st.tot_ipc, 315.2309, 0);
    ck_near(st.tot_cycles, 59355, 0);
    ck_near(st.tot_insn, 18710528, 0);
    ck_near(st.l1d_miss_rate, 0.5417, 0);
    ck_near(st.l2_miss_rate, 0.3010, 0);
    ck_near(st.tot_occupancy_pct, 31.3750, 0);
    ck_near(st.l2_bw_total_gbps, 82.2801, 0);
    ck_near(st.dram_stall, 876, 0);
    ck_near(st.dram_writes, 20480, 0);
    ck_near(st.dram_reads, 0, 0);
    ck_near(st.n_shmem_insn, 1572864, 0);
    ck_near(st.n_param_mem_insn, 589824, 0);
    ck_near(st.avg_mem_latency, 264, 0);
    ck_near(st.sim_seconds, 21, 0);
    ck_near(st.sim_rate_insn, 890977, 0);
    ck_near(st.sim_rate_cycle, 2826, 0);
    ck_near(st.core_clock_mhz, 700, 0);
    ck_assert_int_eq(st.exit_detected, 1);
    ck_assert_int_eq(st.nkernels, 2);
    gsim_kernel *k = st.kernels;
    ck_assert_str_eq(k[0].name, "_Z14CUDAkernel2DCTPfi");
    ck_assert_str_eq(k[1].name, "_Z27CUDAkernelQuantizationFloatPfi");
    ck_assert_int_eq(k[0].uid, 1);
    ck_assert_int_eq(k[1].uid, 2);
    ck_near(k[0].ipc, 263.9486, 0);
    ck_near(k[1].ipc, 361.5895, 0);
    ck_near(k[0].sim_cycle + k[1].sim_cycle, st.tot_cycles, 0);
    ck_near(k[0].sim_insn + k[1].sim_insn, st.tot_insn, 0);
    ck_near(k[0].occupancy_pct, 30.1991, 0);
    ck_near(k[1].l2_bw_gbps, 108.8370, 0);
    /* cumulative counters: per-kernel values are differences of dumps */
    ck_near(k[0].d_dram_writes, 4096, 0);
    ck_near(k[1].d_dram_writes, 20480 - 4096, 0);
    ck_near(k[1].d_dram_stall, 876 - 546, 0);
    ck_near(k[0].d_l2_accesses, 66556, 0);
    ck_near(k[1].d_l2_accesses, 218024 - 66556, 0);
    ck_near(k[0].d_l2_accesses + k[1].d_l2_accesses, st.l2_accesses, 0);
    ck_near(k[0].l2_miss_rate, 0.4934, 0.00005);   /* printed rate, 4 dp */

    met_set m = {0};
    ck_assert_int_eq(gsim_stats_to_metrics(&st, NAN, &m), 0);
    double v;
    ck_assert(met_get(&m, "ipc", &v) == 0);
    ck_near(v, 315.2309, 0);
    ck_assert(met_get(&m, "time_s", &v) == 0);
    ck_near(v, 59355 / 700e6, 1e-15);
    ck_assert(met_get(&m, "power_w", &v) == -1);
    ck_assert(met_get(&m, "energy_j", &v) == -1);
    gsim_stats_free(&st);
}
END_TEST

/* One row of the reference results.csv: header names -> values. */
typedef struct {
    char col[32][32];
    char val[32][32];
    int n;
} csv_row;

static int csv_split(char *line, char out[32][32])
{
    int n = 0;
    for (char *tok = strtok(line, ",\n"); tok && n < 32;
         tok = strtok(NULL, ",\n"))
        util_strlcpy(out[n++], tok, 32);
    return n;
}

static int baseline_row(const char *kernel, csv_row *r)
{
    FILE *f = fopen("tests/data/reference_results.csv", "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    r->n = csv_split(line, r->col);
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char v[32][32];
        int n = csv_split(line, v);
        if (n == r->n && strcmp(v[0], kernel) == 0 &&
            strcmp(v[1], "baseline") == 0) {
            memcpy(r->val, v, sizeof v);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static double csv_get(const csv_row *r, const char *col)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->col[i], col) == 0)
            return atof(r->val[i]);
    ck_abort_msg("no column %s", col);
    return NAN;
}

START_TEST(reference_logs_match_results_csv)
{
    const char *kernels[] = {"vecadd", "sgemm", "reduction", "dct8x8",
                             "histogram", "transpose", "sfu"};
    const char *metrics[] = {"ipc", "cycles", "instructions", "occupancy",
                             "l1d_miss_rate", "l2_miss_rate",
                             "dram_stall_cycles", "l2_bw_gbps"};
    for (int i = 0; i < 7; i++) {
        char path[256];
        snprintf(path, sizeof path, DATA "/%s-baseline.log.gz", kernels[i]);
        gsim_stats st;
        parse_gz(path, &st);
        ck_assert_int_eq(st.nkernels, 1);
        ck_assert_int_eq(st.exit_detected, 1);
        char *text = read_gz(path, NULL), reason[256];
        ck_assert_msg(gsim_classify(text, "", 1, 0, 0, 0, 0, reason,
                                    sizeof reason) == ST_OK, "%s: %s",
                      kernels[i], reason);
        free(text);
        csv_row row;
        ck_assert_msg(baseline_row(kernels[i], &row), "%s", kernels[i]);
        met_set m = {0};
        double power = csv_get(&row, "power_w");
        ck_assert_int_eq(gsim_stats_to_metrics(&st, power, &m), 0);
        for (int j = 0; j < 8; j++) {
            double got, want = csv_get(&row, metrics[j]);
            ck_assert_msg(met_get(&m, metrics[j], &got) == 0, "%s: no %s",
                          kernels[i], metrics[j]);
            ck_assert_msg(fabs(got - want) <= 1e-9 * fmax(1, fabs(want)),
                          "%s %s: %.10g vs results.csv %.10g", kernels[i],
                          metrics[j], got, want);
        }
        double t, e, p;
        ck_assert(met_get(&m, "time_s", &t) == 0);
        ck_near(t, csv_get(&row, "cycles") / 700e6, 1e-15);
        ck_assert(met_get(&m, "power_w", &p) == 0);
        ck_assert(met_get(&m, "energy_j", &e) == 0);
        ck_near(e, p * t, 1e-15);
        /* one kernel: per-kernel IPC equals the whole program's */
        ck_near(st.kernels[0].ipc, st.tot_ipc, 0);
        gsim_stats_free(&st);
    }
}
END_TEST

START_TEST(l2_miss_rate_absent_without_accesses)
{
    const char *log =
        "kernel_name = k \nkernel_launch_uid = 7 \ngpu_sim_cycle = 100\n"
        "gpu_sim_insn = 50\ngpu_ipc =       0.5000\ngpu_tot_sim_cycle = 100\n"
        "gpu_tot_sim_insn = 50\ngpu_tot_ipc =       0.5000\n"
        "gpu_occupancy = 10.0000% \ngpu_tot_occupancy = 10.0000% \n"
        "\tL1D_total_cache_accesses = 0\n\tL1D_total_cache_misses = 0\n"
        "\tL1D_total_cache_miss_rate = -nan\n"
        "L2_total_cache_accesses = 0\nL2_total_cache_misses = 0\n"
        "L2_total_cache_pending_hits = 0\n";
    gsim_stats st;
    gd_err err;
    ck_assert_msg(gsim_parse_stats(log, strlen(log), &st, &err) == 0, "%s",
                  err.msg);
    ck_assert(isnan(st.l2_miss_rate));
    ck_assert(isnan(st.l1d_miss_rate));
    ck_assert_int_eq(st.kernels[0].uid, 7);
    met_set m = {0};
    double v;
    ck_assert_int_eq(gsim_stats_to_metrics(&st, NAN, &m), 0);
    ck_assert(met_get(&m, "l2_miss_rate", &v) == -1);
    ck_assert(met_get(&m, "time_s", &v) == -1);   /* no clock in this log */
    ck_assert(met_get(&m, "occupancy", &v) == 0);
    ck_near(v, 0.1, 1e-15);
    gsim_stats_free(&st);
}
END_TEST

START_TEST(garbage_numbers_rejected_with_line)
{
    const char *log = "junk\nkernel_name = k\ngpu_sim_cycle = 12\n"
                      "gpu_tot_ipc = 3x.5\n";
    gsim_stats st;
    gd_err err;
    ck_assert_int_eq(gsim_parse_stats(log, strlen(log), &st, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "stdout:4:") && strstr(err.msg,
                  "gpu_tot_ipc"), "%s", err.msg);
    gsim_stats_free(&st);
    ck_assert_int_eq(gsim_parse_stats("", 0, &st, &err), 0);
    ck_assert_int_eq(st.nkernels, 0);
    ck_assert(isnan(st.tot_ipc));
    gsim_stats_free(&st);
}
END_TEST

/* GPUWattch report in GPGPU-Sim 4.0's print_power_kernel_stats layout;
 * crafted (the reference runs kept no power report files). */
static const char *power_report =
    "kernel_name = _Z6vecaddPKfS0_Pfi \nkernel_launch_uid = 1 \n"
    "Kernel Average Power Data:\nkernel_avg_power = 104.5\n"
    "gpu_avg_IBP, = 1.25\ngpu_avg_DRAMP, = 20.1\n\n"
    "Kernel Maximum Power Data:\nkernel_max_power = 140.2\n\n"
    "Accumulative Power Statistics Over Previous Kernels:\n"
    "gpu_tot_avg_power = 104.5\ngpu_tot_max_power = 140.2\n"
    "gpu_tot_min_power = 60\n\n\n"
    "kernel_name = _Z2k2v \nkernel_launch_uid = 2 \n"
    "Kernel Average Power Data:\nkernel_avg_power = 116.12\n\n"
    "Accumulative Power Statistics Over Previous Kernels:\n"
    "gpu_tot_avg_power = 110.31\ngpu_tot_max_power = 150\n";

START_TEST(power_report_parsed)
{
    gsim_power p;
    gd_err err;
    ck_assert_msg(gsim_parse_power(power_report, strlen(power_report), &p,
                                   &err) == 0, "%s", err.msg);
    ck_assert_int_eq(p.nkernels, 2);
    ck_near(p.kernel_avg_w[0], 104.5, 0);
    ck_near(p.kernel_avg_w[1], 116.12, 0);
    ck_near(p.tot_avg_w, 110.31, 0);
    ck_near(p.tot_max_w, 150, 0);
    gsim_power_free(&p);
    const char *bad = "kernel_avg_power = 1\ngpu_tot_avg_power = W\n";
    ck_assert_int_eq(gsim_parse_power(bad, strlen(bad), &p, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "power report:2:") != NULL, "%s", err.msg);
    ck_assert_ptr_null(p.kernel_avg_w);
}
END_TEST

/* ---- classification ----------------------------------------------------------------- */

static int classify(const char *out, const char *errt, int code, int sig,
                    char *reason)
{
    return gsim_classify(out, errt, !sig, code, sig != 0, sig, 0, reason,
                         256);
}

START_TEST(classify_real_log_ok)
{
    char *log = read_gz(DATA "/vecadd-baseline.log.gz", NULL);
    char reason[256];
    ck_assert_int_eq(classify(log, "", 0, 0, reason), ST_OK);
    ck_assert_str_eq(reason, "");
    free(log);
    log = read_gz(DATA "/dct8x8-baseline-gpgpusim4.2.log.gz", NULL);
    ck_assert_int_eq(classify(log, NULL, 0, 0, reason), ST_OK);
    /* the same output with the program's check failing */
    char *at = strstr(log, "\nSUCCESS\n");
    ck_assert_ptr_nonnull(at);
    memcpy(at + 1, "FAILED!", 7);
    ck_assert_int_eq(classify(log, NULL, 0, 0, reason), ST_FAILED);
    ck_assert_msg(strstr(reason, "FAILED!") != NULL, "%s", reason);
    free(log);
}
END_TEST

START_TEST(classify_crafted_outputs)
{
    char r[256];
    const char *stats = "kernel_name = k\ngpu_tot_sim_cycle = 10\n"
                        "gpu_tot_sim_insn = 20\ngpu_tot_ipc = 2.0000\n";
    const char *banner =
        "kernel_name = k\n\n\nGPGPU-Sim uArch: ERROR ** deadlock detected: "
        "last writeback core 3 @ gpu_sim_cycle 4242 (+ gpu_tot_sim_cycle "
        "1000) (50000 cycles ago)\nGPGPU-Sim uArch: DEADLOCK  shader cores "
        "no longer committing instructions [core(# threads)]:\n";
    ck_assert_int_eq(classify(banner, "", 134, 0, r), ST_DEADLOCK);
    ck_assert_str_eq(r, "deadlock detected at cycle 55242 (nothing committed "
                     "for 50000 cycles; last writeback by core 3)");
    ck_assert_int_eq(classify(banner, "", 0, SIGABRT, r), ST_DEADLOCK);
    /* the banner is the root cause even when the run then timed out */
    ck_assert_int_eq(gsim_classify(banner, "", 0, 0, 1, SIGKILL, 1, r, 256),
                     ST_DEADLOCK);

    const char *as = "prog: shader.cc:1234: void f(): Assertion `n > 0' "
                     "failed.\n";
    ck_assert_int_eq(classify(stats, as, 0, SIGABRT, r), ST_ASSERT);
    ck_assert_str_eq(r, "prog: shader.cc:1234: void f(): Assertion `n > 0' "
                     "failed.");

    ck_assert_int_eq(classify(stats, "", 0, SIGSEGV, r), ST_CRASHED);
    /* the cause: the last meaningful lines (stderr is empty: stdout's) */
    ck_assert_str_eq(r, "signal 11 (SIGSEGV): gpu_tot_sim_insn = 20 | "
                     "gpu_tot_ipc = 2.0000");
    ck_assert_int_eq(classify(stats, "sh: line 1: 99 Segmentation fault\n",
                              139, 0, r), ST_CRASHED);
    ck_assert_msg(strstr(r, "signal 11") != NULL, "%s", r);
    ck_assert_int_eq(classify(stats, "Segmentation fault (core dumped)\n", 0,
                              0, r), ST_CRASHED);
    ck_assert_int_eq(classify(stats, "Aborted\n", 0, 0, r), ST_CRASHED);

    ck_assert_int_eq(classify("kernel_name = k\ngpu_tot_ipc = @@!\n", "", 0,
                              0, r), ST_BAD_OUTPUT);
    ck_assert_msg(strstr(r, "gpu_tot_ipc") != NULL, "%s", r);
    ck_assert_int_eq(classify("", "", 0, 0, r), ST_NO_STATS);
    ck_assert_int_eq(classify(NULL, NULL, 0, 0, r), ST_NO_STATS);
    ck_assert_int_eq(classify("kernel_name = k\ngpu_sim_cycle = 5\n", "", 0,
                              0, r), ST_NO_STATS);
    ck_assert_msg(strstr(r, "incomplete") != NULL, "%s", r);

    ck_assert_int_eq(classify(stats, "", 1, 0, r), ST_FAILED);
    ck_assert_str_eq(r, "exit code 1: gpu_tot_sim_insn = 20 | gpu_tot_ipc "
                     "= 2.0000");
    ck_assert_int_eq(classify(stats, "cudaMalloc: bad\n", 3, 0, r),
                     ST_FAILED);
    ck_assert_str_eq(r, "exit code 3: cudaMalloc: bad");
    ck_assert_int_eq(classify("vecadd FAIL (bad=12)\n", "", 0, 0, r),
                     ST_FAILED);
    ck_assert_str_eq(r, "the program's own check failed: vecadd FAIL "
                     "(bad=12)");
    /* RESERVATION_FAIL is a counter name, not a failure */
    char *ok = NULL;
    size_t len = strlen(stats);
    ok = malloc(len + 64);
    snprintf(ok, len + 64, "%s\tL2_cache_stats_breakdown[X][RESERVATION_FAIL]"
             " = 0\n", stats);
    ck_assert_int_eq(classify(ok, "", 0, 0, r), ST_OK);
    free(ok);

    ck_assert_int_eq(classify(stats, "terminate called after throwing an "
                              "instance of 'std::bad_alloc'\n", 0, SIGABRT, r),
                     ST_OOM);
    ck_assert_int_eq(classify("", "mmap: Cannot allocate memory\n", 1, 0, r),
                     ST_OOM);
    ck_assert_int_eq(classify("CUDA error: Out of memory\n", "", 1, 0, r),
                     ST_OOM);
    ck_assert_int_eq(gsim_classify(stats, "", 0, 0, 1, SIGKILL, 1, r, 256),
                     ST_TIMEOUT);
}
END_TEST

START_TEST(classify_exit_generic)
{
    char r[128];
    ck_assert_int_eq(gsim_classify_exit(1, 0, 0, 0, 0, r, sizeof r), ST_OK);
    ck_assert_int_eq(gsim_classify_exit(1, 2, 0, 0, 0, r, sizeof r),
                     ST_FAILED);
    ck_assert_str_eq(r, "exit code 2");
    ck_assert_int_eq(gsim_classify_exit(0, 0, 1, SIGKILL, 0, r, sizeof r),
                     ST_CRASHED);
    ck_assert_str_eq(r, "signal 9 (SIGKILL), possibly the kernel's OOM "
                     "killer");
    ck_assert_int_eq(gsim_classify_exit(1, 134, 0, 0, 0, r, sizeof r),
                     ST_CRASHED);
    ck_assert_str_eq(r, "exit code 134 (a shell's report of signal 6, "
                     "SIGABRT)");
    ck_assert_int_eq(gsim_classify_exit(0, 0, 1, SIGTERM, 1, r, sizeof r),
                     ST_TIMEOUT);
}
END_TEST

/* Run fakesim MODE LOG in dir with stdout/stderr to files; classify. */
static int run_fakesim(const char *mode, char *reason)
{
    const char *dir = T "/fake";
    mkdir_p(dir);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int o = open(T "/fake/stdout", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(T "/fake/stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0)
            _exit(127);
        dup2(o, 1);
        dup2(e, 2);
        setenv("FAKESIM_MB", "1", 1);
        execl("/bin/sh", "sh", "tests/fakesim/fakesim.sh", mode,
              DATA "/sgemm-baseline.log.gz", (char *)NULL);
        _exit(127);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    char *out = tu_slurp(T "/fake/stdout", NULL);
    char *errt = tu_slurp(T "/fake/stderr", NULL);
    int st = gsim_classify(out, errt, WIFEXITED(status),
                           WIFEXITED(status) ? WEXITSTATUS(status) : 0,
                           WIFSIGNALED(status),
                           WIFSIGNALED(status) ? WTERMSIG(status) : 0, 0,
                           reason, 256);
    free(out);
    free(errt);
    return st;
}

START_TEST(fakesim_modes_land_in_their_class)
{
    struct { const char *mode; int st; const char *reason; } cases[] = {
        {"replay", ST_OK, ""},
        {"bigout", ST_OK, ""},
        {"crash", ST_CRASHED, "signal 11 (SIGSEGV)"},
        {"deadlock", ST_DEADLOCK, "deadlock detected at cycle 55242"},
        {"garbage", ST_BAD_OUTPUT, "gpu_sim_cycle"},
        {"nostats", ST_NO_STATS, "no statistics"},
        {"fail", ST_FAILED, "own check failed"},
        {"exit1", ST_FAILED, "exit code 1: fakesim: cudaMalloc failed"},
        {"oom", ST_OOM, "std::bad_alloc"},
        {"assert", ST_ASSERT, "Assertion `m_nset > 0' failed."},
        /* GPGPU-Sim's own fatal messages name the cause (issue 21.3) */
        {"noconfig", ST_FAILED, "exit code 1: GPGPU-Sim found no config in "
         "the job's working directory: GPGPU-Sim ** ERROR: Cannot open "
         "config file 'gpgpusim.config'"},
        {"nocuda", ST_CRASHED, "signal 6 (SIGABRT): cuobjdump did not run: "
         "set CUDA_INSTALL_PATH"},
        {"noptx", ST_CRASHED, "signal 6 (SIGABRT): PTX file missing "
         "(CUOBJDUMP_SIM_FILE, or the PTX of a -cudart shared build beside "
         "the job): vecadd.1.sm_75.ptx: No such file or directory"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char reason[256];
        int st = run_fakesim(cases[i].mode, reason);
        ck_assert_msg(st == cases[i].st, "%s: %s (%s), want %s",
                      cases[i].mode, store_status_name(st), reason,
                      store_status_name(cases[i].st));
        ck_assert_msg(strstr(reason, cases[i].reason) != NULL, "%s: %s",
                      cases[i].mode, reason);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gpgpusim");
    TCase *c = tcase_create("config");
    tcase_add_test(c, baseline_reproduces_template_bytes);
    tcase_add_test(c, each_knob_changes_exactly_its_lines);
    tcase_add_test(c, similar_keys_are_left_alone);
    tcase_add_test(c, icnt_k_follows_rule);
    tcase_add_test(c, icnt_without_or_with_two_k_lines_rejected);
    tcase_add_test(c, l1_set_index_h_only_for_32_and_64);
    tcase_add_test(c, cache_strings_validated);
    tcase_add_test(c, aborting_template_rejected_with_line);
    tcase_add_test(c, missing_or_repeated_key_rejected);
    tcase_add_test(c, core_clock_from_config_and_log);
    tcase_add_test(c, write_configs_into_job_dir);
    tcase_add_test(c, rejected_config_writes_nothing);
    suite_add_tcase(s, c);
    TCase *st = tcase_create("stats");
    tcase_add_test(st, dct8x8_fixture_exact_values);
    tcase_add_test(st, reference_logs_match_results_csv);
    tcase_add_test(st, l2_miss_rate_absent_without_accesses);
    tcase_add_test(st, garbage_numbers_rejected_with_line);
    tcase_add_test(st, power_report_parsed);
    suite_add_tcase(s, st);
    TCase *cl = tcase_create("classify");
    tcase_add_test(cl, classify_real_log_ok);
    tcase_add_test(cl, classify_crafted_outputs);
    tcase_add_test(cl, classify_exit_generic);
    tcase_add_test(cl, fakesim_modes_land_in_their_class);
    suite_add_tcase(s, cl);
    return s;
}

int main(void)
{
    util_mkdirs(T, NULL);
    return tu_run_suite(suite());
}
