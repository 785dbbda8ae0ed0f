/* test_charts: every array-fed chart kind (plots.h) for normal and
 * degenerate data (one point, all-equal values, NaN/inf, empty, 100,000
 * points) — renders to PDF and SVG, the SVG parses, pdftotext finds the
 * titles and axis labels, a re-render is byte-identical — plus the 1-2-5
 * and log scales of chart.h. */
#include "testutil.h"
#include <math.h>
#include <libxml/parser.h>
#include <cjson/cJSON.h>
#include "chart.h"
#include "figures.h"
#include "plots.h"
#include "space.h"
#include "table.h"
#include "util.h"

#define DIR "tests/tmp/charts"
#define BIG 100000

typedef enum { D_NORMAL, D_ONE, D_EQUAL, D_NAN, D_EMPTY, D_BIG, D__N } dcase;
static const char *const dnames[D__N] = { "normal", "one", "equal", "nan",
                                          "empty", "big" };
static const char *const knames[] = { "lines", "bars", "heatmap", "pvm",
                                      "hbars" };

/* Storage behind one spec. */
typedef struct {
    double *a, *b, *c, *d;
    size_t n;
    plot_series ser[3];
    const char *lab[64];
    char labtext[64][24];
} synth;

/* Deterministic pseudo-random in [0, 1). */
static double prand(size_t i)
{
    uint64_t x = (uint64_t)i * 6364136223846793005ull + 1442695040888963407ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (double)(x >> 11) / 9007199254740992.0;
}

static size_t case_n(dcase c, size_t normal)
{
    switch (c) {
    case D_ONE: return 1;
    case D_EMPTY: return 0;
    case D_BIG: return BIG;
    default: return normal;
    }
}

static double value(dcase c, size_t i, double v)
{
    if (c == D_EQUAL)
        return 3.0;
    if (c == D_NAN && i % 4 == 1)
        return i % 8 == 1 ? NAN : INFINITY;
    return v;
}

static void synth_alloc(synth *s, size_t n)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    size_t m = n ? n : 1;
    s->a = calloc(m, sizeof *s->a);
    s->b = calloc(m, sizeof *s->b);
    s->c = calloc(m, sizeof *s->c);
    s->d = calloc(m, sizeof *s->d);
    ck_assert(s->a && s->b && s->c && s->d);
    for (int i = 0; i < 64; i++) {
        snprintf(s->labtext[i], sizeof s->labtext[i], "cfg %d", i + 1);
        s->lab[i] = s->labtext[i];
    }
}

static void synth_free(synth *s)
{
    free(s->a);
    free(s->b);
    free(s->c);
    free(s->d);
}

static void fill_lines(plot_spec *p, synth *s, dcase c)
{
    size_t n = case_n(c, 12);
    synth_alloc(s, 3 * n);
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < n; i++) {
            size_t j = k * n + i;
            double m = 0.4 + k * 0.15 + 0.5 * (1 - exp(-(double)i / 3));
            s->a[j] = (double)(i + 1) * 10;
            s->b[j] = value(c, i, m);
            s->c[j] = value(c, i, m - 0.05 - 0.03 * prand(j));
            s->d[j] = value(c, i, m + 0.05 + 0.03 * prand(j + 7));
        }
    static const char *const lbl[] = { "random", "NSGA-II", "Bayesian" };
    for (int k = 0; k < 3; k++)
        s->ser[k] = (plot_series){ lbl[k], n, s->a + k * n, s->b + k * n,
                                   s->c + k * n, s->d + k * n };
    p->kind = PLOT_LINES;
    p->title = "Strategy study: hypervolume vs evaluations";
    p->xtitle = "Evaluations (jobs)";
    p->ytitle = "Hypervolume ratio";
    p->xlog = c == D_NORMAL;
    p->u.lines = (plot_lines){ "IQR over 10 seeds", 3, s->ser };
}

static void fill_bars(plot_spec *p, synth *s, dcase c)
{
    int ng = c == D_ONE ? 1 : c == D_EMPTY ? 0 : c == D_BIG ? 60 : 5;
    int ns = c == D_ONE ? 1 : 3;
    synth_alloc(s, (size_t)(ng * ns));
    for (int i = 0; i < ng * ns; i++) {
        s->a[i] = value(c, (size_t)i, 1 + 4 * prand((size_t)i));
        s->b[i] = value(c, (size_t)i + 2, 0.2 + 0.3 * prand((size_t)i + 99));
    }
    static const char *const ser[] = { "random", "NSGA-II", "Bayesian" };
    static const char *const grp[] = { "vecadd", "sgemm", "reduction",
                                       "dct8x8", "histogram" };
    p->kind = PLOT_BARS;
    p->title = "Evaluations to reach 95% of the reference hypervolume";
    p->xtitle = "Workload";
    p->ytitle = "Evaluations (thousands of jobs)";
    p->u.bars = (plot_bars){ ng, ns, ng <= 5 ? grp : s->lab, ser, s->a,
                             s->b, NULL, NULL };
}

static void fill_heat(plot_spec *p, synth *s, dcase c)
{
    int nx = c == D_ONE ? 1 : c == D_EMPTY ? 0 : c == D_BIG ? 60 : 4;
    int ny = c == D_ONE ? 1 : c == D_EMPTY ? 0 : c == D_BIG ? 50 : 3;
    synth_alloc(s, (size_t)(nx * ny));
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            s->a[j * nx + i] = value(c, (size_t)(j * nx + i),
                                     0.5 + i * 0.8 + j * 0.3 + 0.1 * i * j);
    static const char *const xl[] = { "8", "15", "30", "60" };
    static const char *const yl[] = { "gto", "lrr", "two_level_active" };
    p->kind = PLOT_HEATMAP;
    p->title = "vecadd: mean IPC over n_clusters × scheduler";
    p->xtitle = "n_clusters (clusters)";
    p->ytitle = "scheduler";
    p->u.heat = (plot_heatmap){ nx, ny, nx <= 4 ? xl : s->lab,
                                ny <= 3 ? yl : s->lab, s->a, "IPC (mean)" };
}

static void fill_pvm(plot_spec *p, synth *s, dcase c)
{
    size_t n = case_n(c, 25);
    synth_alloc(s, n);
    for (size_t i = 0; i < n; i++) {
        double m = 0.2 + 3 * prand(i);
        s->a[i] = value(c, i, m * (0.75 + 0.5 * prand(i + 1000)));
        s->b[i] = value(c, i + 1, m);
    }
    p->kind = PLOT_PVM;
    p->title = "Calibration: modelled against measured IPC";
    p->xtitle = "Predicted IPC (modelled)";
    p->ytitle = "Measured IPC (GPGPU-Sim)";
    p->u.pvm = (plot_pvm){ n, s->a, s->b, n <= 64 ? s->lab : NULL };
}

static void fill_hbars(plot_spec *p, synth *s, dcase c)
{
    int n = c == D_ONE ? 1 : c == D_EMPTY ? 0 : c == D_BIG ? 40 : 8;
    synth_alloc(s, (size_t)n);
    static const char *const kn[] = { "n_clusters", "cores_per_cluster",
                                      "n_mem", "shmem_size", "scheduler",
                                      "num_sched_per_core", "l1_sets",
                                      "l2_sets" };
    for (int i = 0; i < n; i++)
        s->a[i] = value(c, (size_t)i, 2.5 / (1 + i * i * 0.7));
    p->kind = PLOT_HBARS;
    p->title = "vecadd: sensitivity of IPC to each knob";
    p->xtitle = "Effect on IPC (range of level means)";
    p->ytitle = "Knob";
    p->u.hbars = (plot_hbars){ n, n <= 8 ? kn : s->lab, s->a, 2 };
}

static void fill(int kind, dcase c, plot_spec *p, synth *s)
{
    memset(p, 0, sizeof *p);
    switch (kind) {
    case PLOT_LINES: fill_lines(p, s, c); break;
    case PLOT_BARS: fill_bars(p, s, c); break;
    case PLOT_HEATMAP: fill_heat(p, s, c); break;
    case PLOT_PVM: fill_pvm(p, s, c); break;
    default: fill_hbars(p, s, c); break;
    }
}

static char *pdf_text(const char *pdf)
{
    char cmd[600], chunk[4096];
    util_buf b;
    size_t n;
    util_buf_init(&b);
    snprintf(cmd, sizeof cmd, "pdftotext -enc UTF-8 '%s' - 2>/dev/null",
             pdf);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
        util_buf_add(&b, chunk, n);
    ck_assert_msg(pclose(p) == 0, "pdftotext failed on %s", pdf);
    util_buf_add(&b, "", 0);
    return b.s;
}

/* pdftotext may break a long title over lines; compare the first words. */
static void assert_has_words(const char *text, const char *want,
                             const char *where)
{
    char head[24];
    util_strlcpy(head, want, sizeof head);
    ck_assert_msg(strstr(text, head), "%s lacks \"%s\"", where, head);
}

static void render(int kind, dcase c, int draw_text_checks)
{
    plot_spec p;
    synth s;
    gd_err err = { 0 };
    char svg[256], pdf[256];
    fill(kind, c, &p, &s);
    ck_assert_int_eq(util_mkdirs(DIR, &err), 0);
    snprintf(svg, sizeof svg, DIR "/%s_%s.svg", knames[kind], dnames[c]);
    snprintf(pdf, sizeof pdf, DIR "/%s_%s.pdf", knames[kind], dnames[c]);
    ck_assert_msg(plot_write_file(&p, REP_OUT_SVG, 504, 320, svg, &err) == 0,
                  "%s", err.msg);
    ck_assert_msg(plot_write_file(&p, REP_OUT_PDF, 504, 320, pdf, &err) == 0,
                  "%s", err.msg);
    xmlDoc *doc = xmlReadFile(svg, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
    ck_assert_msg(doc != NULL, "%s is not well-formed", svg);
    ck_assert_str_eq((const char *)xmlDocGetRootElement(doc)->name, "svg");
    xmlFreeDoc(doc);
    if (draw_text_checks) {
        char *t = pdf_text(pdf);
        assert_has_words(t, p.title, pdf);
        assert_has_words(t, p.xtitle, pdf);
        assert_has_words(t, p.ytitle, pdf);
        free(t);
    }
    synth_free(&s);
}

START_TEST(kind_normal)
{
    render(_i, D_NORMAL, 1);
}
END_TEST

START_TEST(kind_degenerate)
{
    for (int c = D_ONE; c < D__N; c++)
        render(_i, (dcase)c, c != D_BIG);
}
END_TEST

START_TEST(rerender_is_byte_identical)
{
    for (int c = D_NORMAL; c <= D_NAN; c++) {
        char svg[256], pdf[256];
        size_t l1, l2, l3, l4;
        render(_i, (dcase)c, 0);
        snprintf(svg, sizeof svg, DIR "/%s_%s.svg", knames[_i], dnames[c]);
        snprintf(pdf, sizeof pdf, DIR "/%s_%s.pdf", knames[_i], dnames[c]);
        char *a = tu_slurp(svg, &l1), *b = tu_slurp(pdf, &l2);
        render(_i, (dcase)c, 0);
        char *a2 = tu_slurp(svg, &l3), *b2 = tu_slurp(pdf, &l4);
        ck_assert_msg(l1 == l3 && memcmp(a, a2, l1) == 0, "%s differs", svg);
        ck_assert_msg(l2 == l4 && memcmp(b, b2, l2) == 0, "%s differs", pdf);
        free(a);
        free(b);
        free(a2);
        free(b2);
    }
}
END_TEST

START_TEST(values_are_drawn)
{
    /* Cell values of the heatmap and the within-band counts of the
     * predicted-vs-measured plot are text a reader can find. */
    render(PLOT_HEATMAP, D_NORMAL, 1);
    char *t = pdf_text(DIR "/heatmap_normal.pdf");
    ck_assert_msg(strstr(t, "0.5") && strstr(t, "4.1"), "cell values: %s",
                  t);
    ck_assert_msg(strstr(t, "IPC (mean)"), "colour bar title");
    free(t);
    render(PLOT_PVM, D_NORMAL, 1);
    t = pdf_text(DIR "/pvm_normal.pdf");
    ck_assert_msg(strstr(t, "within ±10 % of measured"), "pvm note: %s", t);
    ck_assert_msg(strstr(t, "cfg 1"), "point labels");
    free(t);
    render(PLOT_HBARS, D_NAN, 1);
    t = pdf_text(DIR "/hbars_nan.pdf");
    ck_assert_msg(strstr(t, "n/a") && strstr(t, "not shown"), "%s", t);
    free(t);
}
END_TEST

START_TEST(linear_scale_is_1_2_5)
{
    chart_scale s;
    double cases[][2] = { { 0, 1 }, { 0.013, 0.0871 }, { -3, 1234 },
                          { 5, 5 }, { 1e6, 3.3e6 }, { -1e-5, 2e-5 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        chart_scale_fit(cases[c][0], cases[c][1], 0.02, 6, &s);
        double m = s.step / pow(10, floor(log10(s.step) + 1e-9));
        ck_assert_msg(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6
                      || fabs(m - 5) < 1e-6, "step %g", s.step);
        ck_assert(s.lo <= cases[c][0] && s.hi >= cases[c][1]);
        ck_assert_int_le(chart_scale_nticks(&s), 7);
    }
    chart_scale_fit(NAN, INFINITY, 0, 5, &s);
    ck_assert(s.lo == 0 && s.hi == 1);
}
END_TEST

START_TEST(log_scale_ticks)
{
    chart_scale s;
    chart_scale_fit_log(3, 700, 10, &s);
    ck_assert(s.log && s.lo == 2 && s.hi == 1000);
    ck_assert_int_eq(chart_scale_nticks(&s), 9);   /* 2 5 10 ... 500 1000 */
    ck_assert(fabs(chart_scale_tick(&s, 1) - 5) < 1e-12);
    chart_scale_fit_log(0.3, 3000, 6, &s);   /* 4 decades: decade ticks */
    ck_assert(s.lo == 0.1 && s.hi == 10000);
    ck_assert_int_eq(chart_scale_nticks(&s), 6);
    chart_scale_fit_log(1e-3, 1e9, 6, &s);
    ck_assert_int_le(chart_scale_nticks(&s), 7);
    ck_assert(fabs(chart_scale_frac(&s, 1e3) - 0.5) < 1e-12);
    ck_assert(isnan(chart_scale_frac(&s, -1)));
    chart_scale_fit_log(-5, 0, 6, &s);   /* nothing positive: [1, 10] */
    ck_assert(s.lo == 1 && s.hi == 10);
    char buf[32];
    chart_scale_label(&s, 0.5, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.5");
}
END_TEST


/* ---- run-data figure kinds on an in-memory run ------------------------ */

typedef enum { R_BIG, R_ONE, R_EQUAL, R_NAN, R_NOFRONT, R__N } rcase;
static const char *const rnames[R__N] = { "big", "one", "equal", "nan",
                                          "nofront" };

static void mem_run(rep_run *run, rcase c, cJSON **sens)
{
    size_t n = c == R_BIG ? BIG : c == R_ONE ? 1 : 200;
    space_def full;
    space_def_full(&full);
    memset(run, 0, sizeof *run);
    snprintf(run->dir, sizeof run->dir, DIR "/run_%s", rnames[c]);
    run->camp.formats = CAMP_FMT_PDF | CAMP_FMT_SVG;
    run->nobj = 2;
    util_strlcpy(run->obj[0].metric, "ipc", sizeof run->obj[0].metric);
    run->obj[0].maximize = 1;
    util_strlcpy(run->obj[1].metric, "area_mm2", sizeof run->obj[1].metric);
    run->recs = calloc(n, sizeof *run->recs);
    ck_assert(run->recs != NULL);
    run->nrecs = n;
    for (size_t i = 0; i < n; i++) {
        store_record *r = &run->recs[i];
        util_strlcpy(r->workload, "wl", sizeof r->workload);
        util_strlcpy(r->fidelity, "modelled", sizeof r->fidelity);
        r->cfg = space_at(&full, (i * 7919) % space_size(&full));
        r->status = ST_OK;
        double ipc = c == R_EQUAL ? 2.0 : 0.5 + 5 * prand(i);
        double area = c == R_EQUAL ? 100.0 : 80 + 300 * prand(i + n);
        if (c == R_NAN && i % 3 == 0)
            ipc = i % 2 ? NAN : INFINITY;
        met_put(&r->metrics, "ipc", ipc);
        met_put(&r->metrics, "area_mm2", area);
    }
    run->nwl = 1;
    run->wl = calloc(1, sizeof *run->wl);
    util_strlcpy(run->wl[0].name, "wl", sizeof run->wl[0].name);
    run->wl[0].points = (long)n;
    size_t nf = c == R_NOFRONT ? 0 : n < 20 ? n : 20;
    run->wl[0].front = calloc(nf ? nf : 1, sizeof *run->wl[0].front);
    for (size_t i = 0; i < nf; i++)
        run->wl[0].front[i].metrics = run->recs[i].metrics;
    run->wl[0].nfront = nf;
    run->wl[0].has_baseline = c != R_NOFRONT;
    run->wl[0].baseline.metrics = run->recs[0].metrics;
    *sens = cJSON_Parse("{\"sensitivity\":{\"ipc\":{\"r2\":0.5,\"knobs\":["
                        "{\"knob\":\"l2_sets\",\"effect\":0.9},"
                        "{\"knob\":\"scheduler\",\"effect\":1.9},"
                        "{\"knob\":\"n_mem\",\"effect\":0.1}]}}}");
    run->wl[0].json = *sens;
}

static void mem_run_free(rep_run *run, cJSON *sens)
{
    free(run->recs);
    free(run->wl[0].front);
    free(run->wl);
    cJSON_Delete(sens);
}

START_TEST(run_figures)
{
    static const char *const kinds[] = { "pareto", "heatmap", "sensitivity" };
    rep_run run;
    cJSON *sens;
    gd_err err = { 0 };
    mem_run(&run, (rcase)_i, &sens);
    for (int k = 0; k < 3; k++) {
        const fig_kind *fk = fig_kind_find(kinds[k]);
        char stem[200], path[4400];
        ck_assert(fk != NULL);
        const char *metric = fk->per_metric ? "ipc" : NULL;
        if (!fig_available(fk, &run, 0, metric))
            continue;
        ck_assert_msg(fig_write_files(fk, &run, 0, metric,
                                      _i == R_BIG ? FIG_LOGX | FIG_LOGY : 0,
                                      run.camp.formats, NULL, &err) == 0,
                      "%s",
                      err.msg);
        fig_stem(fk, &run, 0, metric, stem, sizeof stem);
        snprintf(path, sizeof path, "%s/figures/%s.svg", run.dir, stem);
        xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET
                                  | XML_PARSE_HUGE);
        ck_assert_msg(doc != NULL, "%s is not well-formed", path);
        xmlFreeDoc(doc);
        snprintf(path, sizeof path, "%s/figures/%s.pdf", run.dir, stem);
        char *t = pdf_text(path);
        ck_assert_msg(strstr(t, "wl: "), "%s: no title in %s", path, t);
        if (k == 1)   /* heatmap knobs chosen by the sensitivity effect */
            ck_assert_msg(strstr(t, "scheduler × l2_sets"), "%s", t);
        free(t);
    }
    mem_run_free(&run, sens);
}
END_TEST

/* Out of memory while a table grows (README, "Conventions"): the table
 * marks itself failed, and the document that draws it ends GD_EENV and
 * writes nothing, rather than a report with a row missing. */
START_TEST(a_table_that_lost_rows_fails_the_document)
{
    rep_doc d;
    gd_err err = {0, ""};
    const char *pdf = DIR "/lost-rows.pdf";
    util_mkdirs(DIR, &err);
    unlink(pdf);
    ck_assert_int_eq(rep_doc_begin(&d, 595, 842, "t", "t", pdf, &err),
                     GD_OK);
    rep_table t;
    rep_table_init(&t, "rows");
    rep_table_col(&t, "a", CHART_LEFT);
    util_strlcpy(rep_table_row(&t, 0)[0], "kept", REP_CELL);
    t.failed = 1;   /* as rep_table_row leaves it when realloc fails */
    rep_table_draw(&d, &t);
    rep_table_free(&t);
    ck_assert_int_eq(rep_doc_end(&d, pdf, &err), GD_EENV);
    ck_assert_msg(strstr(err.msg, "out of memory"), "%s", err.msg);
    ck_assert(access(pdf, F_OK) != 0);
}
END_TEST

static Suite *charts_suite(void)
{
    Suite *s = suite_create("charts");
    TCase *tc = tcase_create("plots");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, kind_normal, 0, 5);
    tcase_add_loop_test(tc, kind_degenerate, 0, 5);
    tcase_add_loop_test(tc, rerender_is_byte_identical, 0, 5);
    tcase_add_test(tc, values_are_drawn);
    tcase_add_test(tc, linear_scale_is_1_2_5);
    tcase_add_test(tc, log_scale_ticks);
    tcase_add_loop_test(tc, run_figures, 0, R__N);
    tcase_add_test(tc, a_table_that_lost_rows_fails_the_document);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(charts_suite());
}
