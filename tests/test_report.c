/* test_report: rep_render on small synthetic run directories — outputs
 * exist, text is extractable from report.pdf, SVGs parse, renders are
 * byte-identical in and across processes, degenerate data renders, and
 * missing inputs give errors naming the file. */
#include "testutil.h"
#include <math.h>
#include <sys/wait.h>
#include <libxml/parser.h>
#include <cjson/cJSON.h>
#include "analysis.h"
#include "figcross.h"
#include "figures.h"
#include "layout.h"
#include "reccache.h"
#include "report.h"
#include "rundata.h"
#include "space.h"
#include "store.h"
#include "util.h"

#define CAMPAIGN_FMT \
    "<campaign name=\"reptest\" seed=\"1\"><simulator backend=\"analytic\"/>" \
    "<workloads>%s</workloads><space><knob name=\"n_clusters\" " \
    "values=\"8 15\"/></space><objectives><maximize metric=\"ipc\"/>" \
    "<minimize metric=\"area_mm2\"/>%s</objectives><search " \
    "strategy=\"exhaustive\" budget=\"10\"/><execution jobs=\"1\" " \
    "timeout=\"600\" retries=\"0\"/><report formats=\"pdf svg\"/></campaign>\n"

#define MANIFEST \
    "{\"tool\":\"gpudse\",\"version\":\"0.1.0\",\"campaign\":\"reptest.xml\"," \
    "\"campaign_sha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef" \
    "0123456789abcdef\",\"seed\":1,\"backend\":\"analytic\"," \
    "\"model_version\":\"m1\",\"libraries\":{\"cairo\":\"1.16.0\"," \
    "\"gsl\":\"2.7\"},\"host\":\"testhost\",\"started\":" \
    "\"2024-01-01T00:00:00Z\",\"finished\":\"2024-01-01T00:01:00Z\"," \
    "\"jobs\":{\"total\":3,\"ok\":3,\"failed\":0}}\n"

/* How the synthetic records look. */
typedef struct {
    const char *workload;
    size_t n;            /* records */
    int nan_every;       /* every Nth record gets ipc NaN (0: none) */
    int failed;          /* all records failed */
} wl_spec;

static double syn_area(size_t i)
{
    return 100.0 + (double)((i * 53) % 97) * 3.3;
}

/* Grows with area, with diminishing returns and a spread below the front. */
static double syn_ipc(size_t i)
{
    double a = (syn_area(i) - 100.0) / 320.0;
    return 0.5 + 7.0 * sqrt(a) * (0.55 + 0.45 * (double)((i * 37) % 101)
                                                  / 100.0);
}

static void make_record(const wl_spec *w, size_t i, store_record *r)
{
    space_def full;
    char seed[128];
    space_def_full(&full);
    memset(r, 0, sizeof *r);
    snprintf(seed, sizeof seed, "%s/%zu", w->workload, i);
    util_sha256_hex(seed, strlen(seed), r->key);
    util_strlcpy(r->workload, w->workload, sizeof r->workload);
    util_strlcpy(r->backend, "analytic", sizeof r->backend);
    util_strlcpy(r->fidelity, "modelled", sizeof r->fidelity);
    r->cfg = space_at(&full, (i * 7919) % space_size(&full));
    if (i == 0)
        r->cfg = space_baseline();
    r->status = w->failed ? ST_TIMEOUT : ST_OK;
    if (w->failed)
        util_strlcpy(r->reason, "ran past 600 s, \"killed\"",
                     sizeof r->reason);
    else {
        double ipc = syn_ipc(i);
        if (w->nan_every && i % (size_t)w->nan_every == 1)
            ipc = NAN;
        met_put(&r->metrics, "ipc", ipc);
        met_put(&r->metrics, "area_mm2", syn_area(i));
        met_put(&r->metrics, "power_w", 10.0 + (double)(i % 7));
        if (!strcmp(w->workload, "xtrap"))   /* every other one outside */
            met_put(&r->metrics, "extrapolated", i % 2 == 0);
        if (!strcmp(w->workload, "pint")) {  /* a modelled interval */
            met_put(&r->metrics, "ipc_lo", ipc * 0.9);
            met_put(&r->metrics, "ipc_hi", ipc * 1.1);
        }
    }
}

/* A run directory tests/tmp/report_NAME with campaign, manifest, journal
 * and analysis.json (from the analysis stage). */
static void make_run(const char *name, const wl_spec *wls, int nwl,
                     const char *extra_obj, char *dir, size_t dirsz)
{
    char cmd[4400], path[4200], wlxml[1024] = "", camp[4096];
    gd_err err = { 0 };
    snprintf(dir, dirsz, "tests/tmp/report_%s", name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(util_mkdirs(dir, &err), 0);
    for (int w = 0; w < nwl; w++)
        snprintf(wlxml + strlen(wlxml), sizeof wlxml - strlen(wlxml),
                 "<workload name=\"%s\"/>", wls[w].workload);
    snprintf(camp, sizeof camp, CAMPAIGN_FMT, wlxml, extra_obj);
    util_path_join(path, sizeof path, dir, "campaign.xml");
    tu_write(path, camp);
    util_path_join(path, sizeof path, dir, "manifest.json");
    tu_write(path, MANIFEST);
    store *s = NULL;
    ck_assert_msg(store_open(dir, &s, NULL, &err) == 0, "%s", err.msg);
    for (int w = 0; w < nwl; w++)
        for (size_t i = 0; i < wls[w].n; i++) {
            store_record r;
            make_record(&wls[w], i, &r);
            ck_assert_msg(store_append(s, &r, &err) == 0, "%s", err.msg);
        }
    ck_assert_msg(store_close(s, &err) == 0, "%s", err.msg);
    ck_assert_msg(ana_run(dir, &err) == 0, "ana_run: %s", err.msg);
}

static void render_ok(const char *dir, const char *layout)
{
    gd_err err = { 0 };
    int rc = rep_render(dir, layout, &err);
    ck_assert_msg(rc == 0, "rep_render %s: %d %s", dir, rc, err.msg);
}

static char *pdf_text(const char *pdf)
{
    char cmd[4400];
    util_buf b;
    util_buf_init(&b);
    snprintf(cmd, sizeof cmd, "pdftotext -enc UTF-8 '%s' - 2>/dev/null",
             pdf);
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "cannot run pdftotext");
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
        util_buf_add(&b, chunk, n);
    ck_assert_msg(pclose(p) == 0, "pdftotext failed on %s", pdf);
    util_buf_add(&b, "", 0);
    return b.s;
}

static void assert_contains(const char *text, const char *what,
                            const char *where)
{
    ck_assert_msg(text && strstr(text, what), "%s lacks \"%s\"", where,
                  what);
}

/* dir/name, read whole. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[4200];
    util_path_join(path, sizeof path, dir, name);
    return tu_slurp(path, len);
}

static void assert_svg_parses(const char *dir, const char *name)
{
    char path[4200];
    util_path_join(path, sizeof path, dir, name);
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    ck_assert_msg(doc != NULL, "%s does not parse", path);
    xmlNode *root = xmlDocGetRootElement(doc);
    ck_assert_str_eq((const char *)root->name, "svg");
    xmlFreeDoc(doc);
}

static const char *outputs[] = {
    "report.pdf", "results.csv", "figures/pareto_vecadd.svg",
    "figures/pareto_vecadd.pdf", "figures/heatmap_vecadd_ipc.svg",
    "figures/heatmap_vecadd_ipc.pdf"
};
#define NOUT (sizeof outputs / sizeof outputs[0])

/* Front points modelled outside the calibrated region (record metric
 * extrapolated = 1, docs/model.md "Uncertainty") are starred in the front
 * table, with a note saying how many. */
START_TEST(extrapolated_front_points_marked)
{
    char dir[512];
    wl_spec w = { "xtrap", 40, 0, 0 };
    make_run("xtrap", &w, 1, "", dir, sizeof dir);
    render_ok(dir, NULL);
    char pdf[600];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = pdf_text(pdf);
    assert_contains(text, "front points are extrapolated", "report.pdf");
    assert_contains(text, "*", "report.pdf (starred row)");
    free(text);
}
END_TEST

/* Modelled front points carry ipc_lo..ipc_hi; the Pareto figure draws
 * them as bars and its legend says so (the old figure drew no interval). */
START_TEST(front_intervals_drawn)
{
    char dir[512];
    wl_spec w = { "pint", 40, 0, 0 };
    make_run("pint", &w, 1, "", dir, sizeof dir);
    render_ok(dir, NULL);
    char pdf[600];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = pdf_text(pdf);
    assert_contains(text, "IPC 95% interval", "report.pdf (figure legend)");
    free(text);
    assert_svg_parses(dir, "figures/pareto_pint.svg");
    wl_spec plain = { "vecadd", 40, 0, 0 };
    make_run("nopint", &plain, 1, "", dir, sizeof dir);
    render_ok(dir, NULL);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    text = pdf_text(pdf);
    ck_assert_msg(!strstr(text, "95% interval"),
                  "no interval in the records, none in the legend");
    free(text);
}
END_TEST

START_TEST(renders_outputs)
{
    char dir[512], want[64];
    wl_spec w = { "vecadd", 40, 0, 0 };
    make_run("basic", &w, 1, "", dir, sizeof dir);
    render_ok(dir, NULL);
    char pdf[600];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = pdf_text(pdf);
    assert_contains(text, "reptest", "report.pdf");
    assert_contains(text, "MODELLED", "report.pdf");
    assert_contains(text, "IPC", "report.pdf");
    assert_contains(text, "Area (mm²)", "report.pdf");
    assert_contains(text, "modelled results", "report.pdf");
    double best = 0;
    for (size_t i = 0; i < w.n; i++)
        best = fmax(best, syn_ipc(i));
    snprintf(want, sizeof want, "%.4f", best);   /* 5 digits */
    assert_contains(text, want, "report.pdf (front table)");
    assert_contains(text, "1.16.0", "report.pdf (library versions)");
    free(text);
    assert_svg_parses(dir, "figures/pareto_vecadd.svg");
    size_t len;
    char *csv = slurp(dir, "results.csv", &len);
    ck_assert_msg(strncmp(csv, "key,workload,backend,fidelity,status,reason,"
                          "modelled_metrics,n_clusters,cores_per_cluster,n_mem,shmem_size,"
                          "scheduler,num_sched_per_core,l1_sets,l2_sets,"
                          "area_mm2,ipc,power_w\n", 147) == 0,
                  "results.csv header: %.200s", csv);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += csv[i] == '\n';
    ck_assert_uint_eq(lines, w.n + 1);
    free(csv);
}
END_TEST

static void snapshot(const char *dir, char **data, size_t *len)
{
    for (size_t i = 0; i < NOUT; i++)
        data[i] = slurp(dir, outputs[i], &len[i]);
}

static void compare(const char *dir, char **data, size_t *len,
                    const char *when)
{
    for (size_t i = 0; i < NOUT; i++) {
        size_t l;
        char *d = slurp(dir, outputs[i], &l);
        ck_assert_msg(l == len[i] && memcmp(d, data[i], l) == 0,
                      "%s differs %s", outputs[i], when);
        free(d);
    }
}

START_TEST(renders_are_byte_identical)
{
    char dir[512], *first[NOUT];
    size_t len[NOUT];
    wl_spec w = { "vecadd", 300, 0, 0 };
    unsetenv("SOURCE_DATE_EPOCH");
    make_run("determinism", &w, 1, "", dir, sizeof dir);
    render_ok(dir, NULL);
    snapshot(dir, first, len);
    render_ok(dir, NULL);   /* same process: cairo's global ids moved on */
    compare(dir, first, len, "on a second render in one process");
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        gd_err err;
        _exit(rep_render(dir, NULL, &err) == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    compare(dir, first, len, "on a render in another process");
    /* gpudse run's way: the analysis parses the records once into a cache
     * and the report borrows them; the same analysis.json and outputs */
    char apath[600];
    snprintf(apath, sizeof apath, "%s/analysis.json", dir);
    char *ana = tu_slurp(apath, NULL);
    rcache c;
    rcache_init(&c);
    gd_err err;
    ck_assert_msg(ana_run_cached(dir, &c, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(c.n, 1);   /* vecadd's records, kept */
    char *ana2 = tu_slurp(apath, NULL);
    ck_assert_str_eq(ana, ana2);
    free(ana2);
    free(ana);
    ck_assert_msg(rep_render_cached(dir, NULL, &c, &err) == 0, "%s", err.msg);
    compare(dir, first, len, "rendered from records the analysis kept");
    rcache_free(&c);
    ck_assert_msg(rep_render_cached(dir, NULL, &c, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(c.n, 0);   /* not armed by an analysis: nothing kept */
    compare(dir, first, len, "rendered through an empty record cache");
    rcache_free(&c);
    for (size_t i = 0; i < NOUT; i++)
        free(first[i]);
}
END_TEST

static int has_bytes(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return 1;
    return 0;
}

START_TEST(pdf_date_follows_source_date_epoch)
{
    char dir[512];
    size_t len;
    wl_spec w = { "vecadd", 5, 0, 0 };
    make_run("sde", &w, 1, "", dir, sizeof dir);
    setenv("SOURCE_DATE_EPOCH", "86400", 1);
    render_ok(dir, NULL);
    unsetenv("SOURCE_DATE_EPOCH");
    char *pdf = slurp(dir, "report.pdf", &len);
    ck_assert_msg(has_bytes(pdf, len, "19700102000000"),
                  "no creation date from SOURCE_DATE_EPOCH");
    free(pdf);
}
END_TEST

START_TEST(degenerate_one_point)
{
    char dir[512];
    wl_spec w = { "vecadd", 1, 0, 0 };
    make_run("one", &w, 1, "", dir, sizeof dir);
    render_ok(dir, NULL);
    assert_svg_parses(dir, "figures/pareto_vecadd.svg");
}
END_TEST

START_TEST(degenerate_nan_metric)
{
    char dir[512], pdf[600];
    wl_spec w = { "vecadd", 30, 3, 0 };
    make_run("nan", &w, 1, "", dir, sizeof dir);
    render_ok(dir, NULL);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = pdf_text(pdf);
    assert_contains(text, "not plotted", "report.pdf (NaN note)");
    free(text);
    size_t len;
    char *csv = slurp(dir, "results.csv", &len);
    assert_contains(csv, ",NaN,", "results.csv");
    free(csv);
}
END_TEST

START_TEST(degenerate_empty_workload)
{
    char dir[512], pdf[600];
    wl_spec w[2] = { { "vecadd", 10, 0, 0 }, { "sgemm", 4, 0, 1 } };
    make_run("empty", w, 2, "", dir, sizeof dir);
    render_ok(dir, NULL);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = pdf_text(pdf);
    assert_contains(text, "no successful jobs", "report.pdf");
    assert_contains(text, "timeout 4", "report.pdf (failures)");
    free(text);
    assert_svg_parses(dir, "figures/pareto_sgemm.svg");
}
END_TEST

START_TEST(three_objectives_say_so)
{
    char dir[512], pdf[600];
    wl_spec w = { "vecadd", 50, 0, 0 };
    make_run("three", &w, 1, "<minimize metric=\"power_w\"/>", dir,
             sizeof dir);
    render_ok(dir, NULL);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = pdf_text(pdf);
    assert_contains(text, "first two", "report.pdf");
    free(text);
}
END_TEST

START_TEST(formats_are_honoured)
{
    char dir[512], path[600], *camp;
    size_t len;
    gd_err err = { 0 };
    wl_spec w = { "vecadd", 5, 0, 0 };
    make_run("formats", &w, 1, "", dir, sizeof dir);
    camp = slurp(dir, "campaign.xml", &len);
    char *f = strstr(camp, "formats=\"pdf svg\"");
    ck_assert(f != NULL);
    memcpy(f, "formats=\"svg\"    ", 17);   /* same length */
    snprintf(path, sizeof path, "%s/campaign.xml", dir);
    ck_assert_int_eq(util_write_file_atomic(path, camp, len, &err), 0);
    free(camp);
    render_ok(dir, NULL);
    snprintf(path, sizeof path, "%s/figures/pareto_vecadd.svg", dir);
    ck_assert(util_path_exists(path));
    snprintf(path, sizeof path, "%s/figures/pareto_vecadd.pdf", dir);
    ck_assert(!util_path_exists(path));
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    ck_assert(util_path_exists(path));
}
END_TEST

START_TEST(missing_analysis_names_file)
{
    char dir[512], path[600];
    gd_err err = { 0 };
    wl_spec w = { "vecadd", 3, 0, 0 };
    make_run("noanalysis", &w, 1, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/analysis.json", dir);
    ck_assert_int_eq(unlink(path), 0);
    int rc = rep_render(dir, NULL, &err);
    ck_assert(rc == GD_EINPUT || rc == GD_EENV);
    assert_contains(err.msg, "analysis.json", "error message");
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    ck_assert(!util_path_exists(path));
}
END_TEST

START_TEST(layout_files)
{
    char dir[512], path[600];
    gd_err err = { 0 };
    wl_spec w = { "vecadd", 12, 0, 0 };
    make_run("layout", &w, 1, "", dir, sizeof dir);
    render_ok(dir, "templates/report/default.xml");
    snprintf(path, sizeof path, "%s/bad_layout.xml", dir);
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"pie\"/>\n"
                   "</workloads>\n</report>\n");
    ck_assert_int_eq(rep_render(dir, path, &err), GD_EINPUT);
    assert_contains(err.msg, "bad_layout.xml:3", "error message");
    assert_contains(err.msg, "pie", "error message");
}
END_TEST


/* analysis.json as the analysis stage will write it, plus the optional
 * sections: hypervolume, reference, sensitivity, strategy study and
 * calibration; annotations.json; a failed job with a log tail. */
static void add_extras(const char *dir, const char *wl)
{
    char path[600];
    size_t len;
    gd_err err = { 0 };
    char *text = slurp(dir, "analysis.json", &len);
    cJSON *a = cJSON_ParseWithLength(text, len);
    free(text);
    ck_assert(a != NULL);
    cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "workloads"), 0);
    static const char *const keys[] = { "hypervolume", "reference",
                                        "sensitivity" };
    for (int k = 0; k < 3; k++)   /* replace what the analysis wrote */
        cJSON_DeleteItemFromObjectCaseSensitive(w, keys[k]);
    cJSON_DeleteItemFromObjectCaseSensitive(a, "calibration");
    cJSON_DeleteItemFromObjectCaseSensitive(w, "study");
    cJSON_AddItemToObject(w, "hypervolume", cJSON_Parse(
        "{\"value\":0.6125,\"reference_point\":[0,1],"
        "\"normalisation\":\"min-max\"}"));
    cJSON_AddItemToObject(w, "reference", cJSON_Parse(
        "{\"hypervolume\":0.65,\"hv_ratio\":0.9423,\"adrs\":0.0123,"
        "\"igd\":0.0456}"));
    cJSON_AddItemToObject(w, "sensitivity", cJSON_Parse(
        "{\"ipc\":{\"r2\":0.91,\"cv_rmse\":0.07,\"knobs\":["
        "{\"knob\":\"n_clusters\",\"effect\":2.5,\"levels\":[]},"
        "{\"knob\":\"l1_sets\",\"effect\":0.4},"
        "{\"knob\":\"scheduler\",\"effect\":1.25},"
        "{\"knob\":\"n_mem\",\"effect\":null}],"
        "\"interactions\":[{\"knobs\":[\"n_clusters\",\"scheduler\"],"
        "\"strength\":0.31}]}}"));
    cJSON_AddItemToObject(a, "calibration", cJSON_Parse(
        "[{\"metric\":\"ipc\",\"n\":3,\"mape\":0.2,\"spearman\":0.5,"
        "\"rank_resolution\":0.031,\"points\":[{\"label\":\"vecadd\","
        "\"predicted\":1.5,\"measured\":1.4},{\"label\":\"sgemm\","
        "\"predicted\":3.1,\"measured\":2.2},{\"predicted\":null,"
        "\"measured\":1}]}]"));
    cJSON_AddItemToObject(w, "study", cJSON_Parse(   /* analysis/study.c */
        "{\"budget\":4,\"seeds\":[1,2,3],\"basis\":\"reference front\","
        "\"strategies\":[{\"name\":\"random\",\"evaluations\":4,"
        "\"median\":[0.3,0.5,0.6,0.97],\"q1\":[0.2,0.4,0.55,0.9],"
        "\"q3\":[0.35,0.55,0.65,0.99],\"evals_to_95\":{\"per_seed\":"
        "[4,3,null],\"median\":4,\"reached\":2},\"evals_to_99\":"
        "{\"per_seed\":[null,null,null],\"median\":null,\"reached\":0}},"
        "{\"name\":\"nsga2\",\"evaluations\":4,\"median\":[0.4,0.7,"
        "0.96,1],\"q1\":[0.3,0.6,0.9,0.99],\"q3\":[0.5,0.8,0.97,1],"
        "\"evals_to_95\":{\"per_seed\":[3,3,4],\"median\":3,"
        "\"reached\":3},\"evals_to_99\":{\"per_seed\":[4,null,4],"
        "\"median\":null,\"reached\":2}}]}"));   /* the old null median */
    char *out = cJSON_Print(a);
    snprintf(path, sizeof path, "%s/analysis.json", dir);
    ck_assert_int_eq(util_write_file_atomic(path, out, strlen(out), &err), 0);
    cJSON_free(out);
    cJSON_Delete(a);
    char ann[512];
    snprintf(ann, sizeof ann, "{\"workloads\":{\"%s\":[{\"agent\":\"memory\","
             "\"text\":\"DRAM bandwidth bound above 30 clusters.\","
             "\"status\":\"GREEN\"},\"plain string note\",{\"odd\":1}]},"
             "\"campaign\":[{\"agent\":\"summary\",\"text\":\"Campaign "
             "looks sane.\"}]}", wl);
    snprintf(path, sizeof path, "%s/annotations.json", dir);
    tu_write(path, ann);
}

static void add_tail(const char *dir, const char *key, const char *text)
{
    char path[700];
    gd_err err = { 0 };
    snprintf(path, sizeof path, "%s/jobs/%s", dir, key);
    ck_assert_int_eq(util_mkdirs(path, &err), 0);
    snprintf(path, sizeof path, "%s/jobs/%s/stderr.log", dir, key);
    tu_write(path, text);
}

START_TEST(optional_sections_render)
{
    char dir[512], pdf[600];
    wl_spec w[2] = { { "vecadd", 60, 0, 0 }, { "sgemm", 3, 0, 1 } };
    make_run("extras", w, 2, "", dir, sizeof dir);
    add_extras(dir, "vecadd");
    store_record r;
    make_record(&w[1], 0, &r);
    add_tail(dir, r.key, "line one\nFATAL: deadlock detected\x01\xff\n");
    render_ok(dir, NULL);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *t = pdf_text(pdf);
    assert_contains(t, "Contents", "report.pdf");
    assert_contains(t, "Front quality", "report.pdf");
    assert_contains(t, "0.9423", "report.pdf (HV ratio)");
    assert_contains(t, "sensitivity of IPC", "report.pdf");
    assert_contains(t, "n_clusters × scheduler", "report.pdf (interaction)");
    assert_contains(t, "mean IPC over n_clusters", "report.pdf (heatmap)");
    assert_contains(t, "DRAM bandwidth bound", "report.pdf (annotation)");
    assert_contains(t, "plain string note", "report.pdf (annotation)");
    assert_contains(t, "Campaign looks sane", "report.pdf");
    assert_contains(t, "Calibration", "report.pdf");
    assert_contains(t, "within ±10 %", "report.pdf (calibration)");
    assert_contains(t, "MAPE 20.0 %, Spearman ρ 0.50 over 3 points",
                    "report.pdf (calibration caption)");
    assert_contains(t, "needs random errors under 3.1 %",
                    "report.pdf (rank resolution)");
    assert_contains(t, "Strategy study", "report.pdf");
    assert_contains(t, "evaluations to reach 95 % and", "report.pdf");
    assert_contains(t, "random 99 % (0 of 3 seeds)", "report.pdf");
    /* nsga2: 2 of 3 seeds reached 99 %: a bar, not n/a; the n/a are
     * random's 99 % and the sensitivity figure's n_mem (effect null) */
    int na = 0;
    for (const char *q = strstr(t, "n/a"); q; q = strstr(q + 3, "n/a"))
        na++;
    ck_assert_int_eq(na, 2);
    assert_contains(t, "Appendix: failed jobs", "report.pdf");
    assert_contains(t, "ran past 600 s", "report.pdf (reason)");
    assert_contains(t, "FATAL: deadlock detected", "report.pdf (log tail)");
    free(t);
    static const char *const figs[] = {
        "figures/sensitivity_vecadd_ipc.svg", "figures/heatmap_vecadd_ipc.svg",
        "figures/heatmap_vecadd_area_mm2.svg", "figures/calibration_1_ipc.svg",
        "figures/study_hv_vecadd.svg", "figures/study_evals_vecadd.svg"
    };
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        assert_svg_parses(dir, figs[i]);
    char path[700];
    /* issue 26.6: hypervolume convergence as 1 - ratio on a log axis */
    snprintf(path, sizeof path, "%s/figures/study_hv_vecadd.pdf", dir);
    t = pdf_text(path);
    assert_contains(t, "1 − hypervolume ratio", "study_hv y axis");
    assert_contains(t, "0.001", "study_hv log ticks");
    free(t);
    snprintf(path, sizeof path, "%s/figures/sensitivity_vecadd_area_mm2.svg",
             dir);
    ck_assert_msg(!util_path_exists(path), "no data: no figure");
    /* Byte-identical on a second render, every figure included. */
    size_t l1, l2;
    char *a = slurp(dir, "report.pdf", &l1);
    char *b = slurp(dir, figs[1], &l2);
    render_ok(dir, NULL);
    size_t l3, l4;
    char *a2 = slurp(dir, "report.pdf", &l3);
    char *b2 = slurp(dir, figs[1], &l4);
    ck_assert(l1 == l3 && memcmp(a, a2, l1) == 0);
    ck_assert(l2 == l4 && memcmp(b, b2, l2) == 0);
    free(a);
    free(b);
    free(a2);
    free(b2);
}
END_TEST

/* Page number printed in the contents for a heading, and the page the
 * heading is really on (pdftotext -f/-l). */
START_TEST(contents_page_numbers_are_right)
{
    char dir[512], cmd[800];
    wl_spec w[2] = { { "vecadd", 40, 0, 0 }, { "sgemm", 40, 0, 0 } };
    make_run("toc", w, 2, "", dir, sizeof dir);
    render_ok(dir, NULL);
    char *t = NULL;
    snprintf(cmd, sizeof cmd, "%s/report.pdf", dir);
    t = pdf_text(cmd);
    const char *c = strstr(t, "Workload sgemm");
    ck_assert(c != NULL);
    int page = atoi(c + strlen("Workload sgemm"));
    ck_assert_msg(page > 2, "contents says page %d", page);
    free(t);
    snprintf(cmd, sizeof cmd, "pdftotext -f %d -l %d '%s/report.pdf' - | "
             "grep -q 'Workload sgemm'", page, page, dir);
    ck_assert_msg(system(cmd) == 0, "Workload sgemm not on page %d", page);
}
END_TEST

START_TEST(annotations_tolerant)
{
    char dir[512], path[600], pdf[600];
    wl_spec w = { "vecadd", 10, 0, 0 };
    make_run("badann", &w, 1, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/annotations.json", dir);
    tu_write(path, "{not json");
    render_ok(dir, NULL);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *t = pdf_text(pdf);
    assert_contains(t, "annotations.json is not a JSON object", "report.pdf");
    free(t);
    tu_write(path, "{\"workloads\":[{\"name\":\"vecadd\",\"annotations\":"
                   "[{\"message\":\"array form works\",\"severity\":"
                   "\"RED\"}]}],\"campaign\":\"just a string\"}");
    render_ok(dir, NULL);
    t = pdf_text(pdf);
    assert_contains(t, "array form works", "report.pdf");
    assert_contains(t, "just a string", "report.pdf");
    free(t);
}
END_TEST

START_TEST(single_column_figures)
{
    char dir[512], path[600], *camp;
    size_t len;
    gd_err err = { 0 };
    wl_spec w = { "vecadd", 20, 0, 0 };
    make_run("single", &w, 1, "", dir, sizeof dir);
    camp = slurp(dir, "campaign.xml", &len);
    char *f = strstr(camp, "<report formats=\"pdf svg\"/>");
    ck_assert(f != NULL);
    char fixed[8192];
    snprintf(fixed, sizeof fixed, "%.*s<report formats=\"pdf svg\" "
             "figure-width=\"single\"/>%s", (int)(f - camp), camp,
             f + strlen("<report formats=\"pdf svg\"/>"));
    snprintf(path, sizeof path, "%s/campaign.xml", dir);
    ck_assert_int_eq(util_write_file_atomic(path, fixed, strlen(fixed), &err),
                     0);
    free(camp);
    render_ok(dir, NULL);
    char *svg = slurp(dir, "figures/pareto_vecadd.svg", &len);
    ck_assert_msg(strstr(svg, "width=\"252pt\""), "single column width");
    free(svg);
}
END_TEST

START_TEST(layout_metrics_and_errors)
{
    char dir[512], path[600];
    gd_err err = { 0 };
    wl_spec w = { "vecadd", 30, 0, 0 };
    make_run("laymetrics", &w, 1, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"heatmap\" "
                   "metrics=\"power_w\"/>\n</workloads>\n<failures/>\n"
                   "</report>\n");
    render_ok(dir, path);
    char fig[700];
    snprintf(fig, sizeof fig, "%s/figures/heatmap_vecadd_power_w.svg", dir);
    ck_assert(util_path_exists(fig));
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"heatmap\" "
                   "metrics=\"ipc bogus\"/>\n</workloads>\n</report>\n");
    ck_assert_int_eq(rep_render(dir, path, &err), GD_EINPUT);
    assert_contains(err.msg, "lay.xml:3", "error message");
    assert_contains(err.msg, "bogus", "error message");
}
END_TEST

/* Jobs that vary n_clusters alone around the baseline: every level but
 * the baseline's, ipc growing with the level (faster for "sgemm"). */
static int add_cluster_sweep(const char *dir, const char *wl, double slope)
{
    store *s = NULL;
    gd_err err = { 0 };
    const space_knob_def *k = space_knob_get(KNOB_N_CLUSTERS);
    int added = 0;
    ck_assert_msg(store_open(dir, &s, NULL, &err) == 0, "%s", err.msg);
    for (int i = 0; i < k->nlevels; i++) {
        if (k->levels[i] == k->baseline)
            continue;
        store_record r;
        char seed[128];
        memset(&r, 0, sizeof r);
        snprintf(seed, sizeof seed, "%s/sweep/%d", wl, i);
        util_sha256_hex(seed, strlen(seed), r.key);
        util_strlcpy(r.workload, wl, sizeof r.workload);
        util_strlcpy(r.backend, "analytic", sizeof r.backend);
        util_strlcpy(r.fidelity, "modelled", sizeof r.fidelity);
        r.cfg = space_baseline();
        space_set(&r.cfg, KNOB_N_CLUSTERS, k->levels[i]);
        r.status = ST_OK;
        met_put(&r.metrics, "ipc", 1.0 + slope * k->levels[i]);
        met_put(&r.metrics, "area_mm2", 50.0 + 10.0 * k->levels[i]);
        ck_assert_msg(store_append(s, &r, &err) == 0, "%s", err.msg);
        added++;
    }
    ck_assert_msg(store_close(s, &err) == 0, "%s", err.msg);
    return added;
}

/* Issue 26.5: <figure kind="line"> across workloads — one line per
 * workload, the caption says where the other knobs are held and which
 * workloads have no line; title="off" moves the caption under the figure
 * in the report; at="best" names its own file. */
START_TEST(line_figure_across_workloads)
{
    char dir[512], path[600], fig[700], want[128];
    size_t len;
    gd_err err = { 0 };
    wl_spec w[3] = { { "vecadd", 12, 0, 0 }, { "sgemm", 12, 0, 0 },
                     { "broken", 3, 0, 1 } };
    make_run("line", w, 3, "", dir, sizeof dir);
    int n = add_cluster_sweep(dir, "vecadd", 0.05);
    n += add_cluster_sweep(dir, "sgemm", 0.2);
    ck_assert_msg(ana_run(dir, &err) == 0, "ana_run: %s", err.msg);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"pareto\"/>\n"
                   "</workloads>\n<figure kind=\"line\" knob=\"n_clusters\" "
                   "metric=\"ipc\"/>\n</report>\n");
    render_ok(dir, path);
    snprintf(fig, sizeof fig, "figures/line_n_clusters_ipc.svg");
    assert_svg_parses(dir, fig);
    char *svg1 = slurp(dir, fig, &len);
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    char *text = pdf_text(path);
    assert_contains(text, "IPC against n_clusters across workloads", "pdf");
    assert_contains(text, "baseline configuration", "pdf");
    assert_contains(text, "broken (no baseline)", "pdf");
    /* the sweep plus each workload's baseline job (record 0) */
    snprintf(want, sizeof want, "%d jobs", n + 2);
    assert_contains(text, want, "pdf");
    free(text);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    render_ok(dir, path);   /* byte-identical on a rerun */
    char *svg2 = slurp(dir, fig, &len);
    ck_assert_msg(strcmp(svg1, svg2) == 0, "line figure differs on rerun");
    free(svg2);
    tu_write(path, "<report>\n<figure kind=\"line\" knob=\"n_clusters\" "
                   "title=\"off\"/>\n<figure kind=\"line\" knob=\"n_mem\" "
                   "metric=\"area_mm2\" at=\"best\" log=\"y\"/>\n</report>\n");
    render_ok(dir, path);
    svg2 = slurp(dir, fig, &len);   /* same name (metric: 1st objective) */
    ck_assert_msg(strcmp(svg1, svg2) != 0, "title=\"off\" changed nothing");
    free(svg2);
    snprintf(path, sizeof path, "%s/figures/line_n_clusters_ipc.pdf", dir);
    text = pdf_text(path);   /* the file: no title, no caption */
    ck_assert_msg(!strstr(text, "across workloads"), "title in file");
    ck_assert_msg(!strstr(text, "baseline configuration"), "caption in file");
    assert_contains(text, "n_clusters", "x axis title");
    free(text);
    assert_svg_parses(dir, "figures/line_n_mem_area_mm2_best.svg");
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    text = pdf_text(path);
    assert_contains(text, "the mean where a level ran", "pdf caption");
    assert_contains(text, "best configuration by IPC", "pdf");
    free(text);
    /* axis ranges on request: the x axis reaches 100 (data stop at 60) */
    snprintf(path, sizeof path, "%s/figures/line_n_clusters_ipc.pdf", dir);
    text = pdf_text(path);
    ck_assert_msg(!strstr(text, "100"), "x axis fitted to the data");
    free(text);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    tu_write(path, "<report>\n<figure kind=\"line\" knob=\"n_clusters\" "
                   "xrange=\"0 100\" yrange=\"0 20\"/>\n</report>\n");
    render_ok(dir, path);
    snprintf(path, sizeof path, "%s/figures/line_n_clusters_ipc.pdf", dir);
    text = pdf_text(path);
    assert_contains(text, "100", "x axis to 100");
    free(text);
    free(svg1);
}
END_TEST

/* Issue 26.5: grouped bars — each workload's ratio to its baseline for
 * chosen configs, the geomean as the last group (in the caption too), and
 * absent values said to be absent. The baselines' IPC is syn_ipc(0) = 0.5;
 * n_clusters=60 gives 1 + 0.05 * 60 = 4 (vecadd) and 13 (sgemm): 8× and
 * 26×, geomean sqrt(208) = 14.4×. */
START_TEST(bars_figure_speedups)
{
    char dir[512], path[600];
    wl_spec w[2] = { { "vecadd", 12, 0, 0 }, { "sgemm", 12, 0, 0 } };
    gd_err err = { 0 };
    make_run("bars", w, 2, "", dir, sizeof dir);
    add_cluster_sweep(dir, "vecadd", 0.05);
    add_cluster_sweep(dir, "sgemm", 0.2);
    ck_assert_msg(ana_run(dir, &err) == 0, "ana_run: %s", err.msg);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    tu_write(path, "<report>\n<figure kind=\"bars\" metric=\"ipc\" "
                   "configs=\"best; n_clusters=60; n_clusters=60,n_mem=8\"/>"
                   "\n</report>\n");
    render_ok(dir, path);
    assert_svg_parses(dir, "figures/bars_ipc.svg");
    size_t len;
    char *a = slurp(dir, "figures/bars_ipc.svg", &len);
    render_ok(dir, path);
    char *b = slurp(dir, "figures/bars_ipc.svg", &len);
    ck_assert_msg(strcmp(a, b) == 0, "bars figure differs on rerun");
    free(a);
    free(b);
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    char *text = pdf_text(path);
    assert_contains(text, "IPC relative to the baseline, per workload", "pdf");
    assert_contains(text, "n_clusters=60 14.4×", "pdf geomean");
    assert_contains(text, "vecadd × n_clusters=60,n_mem=8 (not run)", "pdf");
    free(text);
}
END_TEST

/* Issue 28: the figures across workloads (line, bars) take what they draw
 * from one workload's records at a time, like every other part of the
 * report: rendering a layout with both through gpudse run's record cache
 * keeps the cache whole (it was dropped when they loaded the whole
 * journal), and the figures drawn from a gather over the journal
 * (fig_cross_gather, the PDF's) are the bytes of the figure files (whose
 * process takes each workload in its own loop). */
START_TEST(cross_figures_one_workload_at_a_time)
{
    char dir[512], lay[600], path[700], saved[700];
    gd_err err = { 0 };
    wl_spec w[3] = { { "vecadd", 12, 0, 0 }, { "sgemm", 12, 0, 0 },
                     { "broken", 3, 0, 1 } };
    make_run("xonewl", w, 3, "", dir, sizeof dir);
    add_cluster_sweep(dir, "vecadd", 0.05);
    add_cluster_sweep(dir, "sgemm", 0.2);
    snprintf(lay, sizeof lay, "%s/lay.xml", dir);
    tu_write(lay, "<report>\n<workloads>\n<figure kind=\"pareto\"/>\n"
                  "</workloads>\n<figure kind=\"line\" knob=\"n_clusters\" "
                  "metric=\"ipc\"/>\n<figure kind=\"bars\" metric=\"ipc\" "
                  "configs=\"best; n_clusters=60\"/>\n</report>\n");
    rcache cache;   /* gpudse run's way: the analysis fills it */
    rcache_init(&cache);
    ck_assert_msg(ana_run_cached(dir, &cache, &err) == 0, "ana_run: %s",
                  err.msg);
    ck_assert_int_eq(cache.n, 3);
    ck_assert_msg(rep_render_cached(dir, lay, &cache, &err) == 0, "%s",
                  err.msg);
    ck_assert_msg(cache.n == 3, "the record cache holds %d of 3 workloads "
                  "after the figures across workloads", cache.n);
    rcache_free(&cache);
    size_t la, lb, len;
    char *line = slurp(dir, "figures/line_n_clusters_ipc.svg", &la);
    char *bars = slurp(dir, "figures/bars_ipc.svg", &lb);
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    char *text = pdf_text(path);
    assert_contains(text, "broken (no baseline)", "line caption");
    assert_contains(text, "broken × best by IPC (no baseline value)",
                    "bars caption");
    free(text);

    /* the PDF's way: one pass over the journal, then the same files */
    rep_run run;
    rep_layout l;
    fig_cross_set *xs = NULL;
    ck_assert_msg(rep_run_load(dir, &run, &err) == 0, "%s", err.msg);
    ck_assert_msg(rep_layout_load_camp(lay, &run.camp, &l, &err) == 0, "%s",
                  err.msg);
    ck_assert_int_eq(l.ncross, 2);
    snprintf(saved, sizeof saved, "%s/figures", dir);
    snprintf(path, sizeof path, "%s/figures.rendered", dir);
    ck_assert_int_eq(rename(saved, path), 0);
    ck_assert_msg(fig_cross_gather(&run, l.cross, l.ncross, &xs, &err) == 0,
                  "%s", err.msg);
    /* the pass ends on the last workload by name, holding it alone */
    ck_assert_str_eq(run.recs_wl, "vecadd");
    for (size_t i = 0; i < run.nrecs; i++)
        ck_assert_str_eq(run.recs[i].workload, "vecadd");
    for (int i = 0; i < l.ncross; i++)
        ck_assert_msg(fig_cross_write_files(&run, xs, i, CAMP_FMT_SVG,
                                            &l.font, &err) == 0, "%s",
                      err.msg);
    ck_assert_int_ne(fig_cross_write_files(&run, xs, 2, CAMP_FMT_SVG,
                                           &l.font, &err), 0);
    fig_cross_free(xs);
    rep_run_free(&run);
    char *line2 = slurp(dir, "figures/line_n_clusters_ipc.svg", &len);
    ck_assert_msg(len == la && memcmp(line, line2, la) == 0,
                  "line figure: gathered differs from the figure file");
    char *bars2 = slurp(dir, "figures/bars_ipc.svg", &len);
    ck_assert_msg(len == lb && memcmp(bars, bars2, lb) == 0,
                  "bars figure: gathered differs from the figure file");
    free(line);
    free(line2);
    free(bars);
    free(bars2);
}
END_TEST

/* Issue 26.6: title="off" leaves the title out of the figure files but
 * not the report; top="N" cuts the front table (and says so); the shmem
 * column carries its unit. */
START_TEST(figure_controls_title_top_units)
{
    char dir[512], path[600];
    wl_spec w = { "vecadd", 40, 0, 0 };
    make_run("controls", &w, 1, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"pareto\" "
                   "title=\"off\"/>\n<table kind=\"front\" top=\"2\"/>\n"
                   "<figure kind=\"heatmap\" title=\"off\"/>\n"
                   "</workloads>\n</report>\n");
    render_ok(dir, path);
    snprintf(path, sizeof path, "%s/figures/pareto_vecadd.pdf", dir);
    char *text = pdf_text(path);
    ck_assert_msg(!strstr(text, "vecadd: IPC vs"), "pareto title in file");
    assert_contains(text, "successful jobs", "pareto legend");
    free(text);
    snprintf(path, sizeof path, "%s/figures/heatmap_vecadd_ipc.pdf", dir);
    text = pdf_text(path);
    ck_assert_msg(!strstr(text, "vecadd: mean"), "heatmap title in file");
    free(text);
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    text = pdf_text(path);
    assert_contains(text, "vecadd: IPC vs", "report keeps the title");
    assert_contains(text, "top 2 of", "front table caption");
    assert_contains(text, "(bytes)", "shmem header unit");
    free(text);
    render_ok(dir, NULL);   /* default layout: the title is in the file */
    snprintf(path, sizeof path, "%s/figures/pareto_vecadd.pdf", dir);
    text = pdf_text(path);
    assert_contains(text, "vecadd: IPC vs", "pareto title by default");
    free(text);
}
END_TEST

START_TEST(figure_controls_errors)
{
    static const struct { const char *item, *want; } bad[] = {
        { "<table kind=\"front\" top=\"0\"/>", "top=\"0\"" },
        { "<table kind=\"front\" top=\"3x\"/>", "top=\"3x\"" },
        { "<table kind=\"quality\" top=\"3\"/>", "top= applies" },
        { "<figure kind=\"pareto\" top=\"3\"/>", "top= applies" },
        { "<figure kind=\"pareto\" title=\"none\"/>", "title=\"none\"" },
        { "<table kind=\"front\" title=\"off\"/>", "title= applies" },
    };
    char dir[512], path[600], xml[512];
    wl_spec w = { "vecadd", 6, 0, 0 };
    make_run("ctlbad", &w, 1, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_err err = { 0 };
        snprintf(xml, sizeof xml, "<report>\n<workloads>\n%s\n</workloads>"
                 "\n</report>\n", bad[i].item);
        tu_write(path, xml);
        ck_assert_int_eq(rep_render(dir, path, &err), GD_EINPUT);
        assert_contains(err.msg, "lay.xml:3", bad[i].item);
        assert_contains(err.msg, bad[i].want, bad[i].item);
    }
}
END_TEST

/* Bad <figure kind="line"> attributes: FILE:LINE and what is wrong. */
START_TEST(line_figure_layout_errors)
{
    static const struct { const char *fig, *want; } bad[] = {
        { "<figure kind=\"line\"/>", "needs knob=" },
        { "<figure kind=\"line\" knob=\"n_cluster\"/>", "did you mean" },
        { "<figure kind=\"line\" knob=\"scheduler\"/>", "categorical" },
        { "<figure kind=\"line\" knob=\"n_mem\" at=\"worst\"/>",
          "at=\"worst\"" },
        { "<figure kind=\"line\" knob=\"n_mem\" title=\"no\"/>",
          "title=\"no\"" },
        { "<figure kind=\"line\" knob=\"n_mem\" metric=\"bogus\"/>",
          "bogus" },
        { "<figure kind=\"line\" knob=\"n_mem\" knobs=\"x\"/>",
          "unknown attribute knobs=" },
        { "<figure kind=\"line\" knob=\"n_mem\" log=\"z\"/>", "log=" },
        { "<figure kind=\"pareto\"/>", "known: line, bars" },
        { "<figure kind=\"bars\" configs=\"n_clusters=-1\"/>",
          "'-1' is not a level of n_clusters" },
        { "<figure kind=\"bars\" configs=\"scheduler=fifo\"/>",
          "'fifo' is not a level of scheduler" },
        { "<figure kind=\"bars\" configs=\"best; cores=2\"/>",
          "unknown knob 'cores'" },
        { "<figure kind=\"bars\" configs=\"n_mem\"/>", "knob=value" },
        { "<figure kind=\"bars\" configs=\" ; \"/>", "names no" },
        { "<figure kind=\"bars\" log=\"x\"/>", "log y axis only" },
        { "<figure kind=\"bars\" knob=\"n_mem\"/>",
          "unknown attribute knob=" },
        { "<figure kind=\"bars\" xrange=\"0 1\"/>",
          "unknown attribute xrange=" },
        { "<figure kind=\"line\" knob=\"n_mem\" xrange=\"5 1\"/>",
          "lo < hi" },
        { "<figure kind=\"line\" knob=\"n_mem\" yrange=\"a b\"/>",
          "yrange=\"a b\"" },
        { "<figure kind=\"bars\" yrange=\"1 2 3\"/>", "yrange=" },
        { "<figure kind=\"bars\" log=\"y\" yrange=\"0 9\"/>",
          "log axis" },
    };
    char dir[512], path[600], xml[512];
    wl_spec w = { "vecadd", 6, 0, 0 };
    make_run("linebad", &w, 1, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_err err = { 0 };
        snprintf(xml, sizeof xml, "<report>\n<failures/>\n%s\n</report>\n",
                 bad[i].fig);
        tu_write(path, xml);
        ck_assert_int_eq(rep_render(dir, path, &err), GD_EINPUT);
        assert_contains(err.msg, "lay.xml:3", bad[i].fig);
        assert_contains(err.msg, bad[i].want, bad[i].fig);
    }
}
END_TEST

/* The quickstart's size renders (its speed is make bench's, bench_report:
 * a timed assertion here would only flake on a loaded or sanitized build). */
START_TEST(quickstart_size_renders)
{
    char dir[512], path[600];
    wl_spec w[2] = { { "vecadd", 15552, 0, 0 }, { "sgemm", 15552, 0, 0 } };
    make_run("big", w, 2, "", dir, sizeof dir);
    render_ok(dir, NULL);
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    ck_assert_msg(access(path, F_OK) == 0, "%s missing", path);
}
END_TEST

/* The report holds one workload's records at a time (rep_run_select),
 * with the run-wide facts gathered from the whole journal; the failed
 * records kept for the appendix are the first REP_FAILS_KEPT and later
 * ones with a log. */
START_TEST(rundata_one_workload_at_a_time)
{
    char dir[512], path[600];
    gd_err err = { 0 };
    wl_spec w[3] = { { "zeta", 40, 0, 0 }, { "alpha", 30, 0, 0 },
                     { "mid", REP_FAILS_KEPT + 20, 0, 1 } };
    make_run("onewl", w, 3, "", dir, sizeof dir);
    /* a log for the 11th failed job past the kept ones (canonical order) */
    store_record *all = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    ck_assert_int_eq(store_load_all(path, &all, &n, &err), 0);
    store_sort_canonical(all, n);
    size_t at = 0, seen = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].status != ST_OK && seen++ == REP_FAILS_KEPT + 10)
            at = i;
    char key[65];
    util_strlcpy(key, all[at].key, sizeof key);
    free(all);
    add_tail(dir, key, "late failure's own log line\n");

    rep_run run;
    ck_assert_msg(rep_run_load(dir, &run, &err) == 0, "%s", err.msg);
    ck_assert_msg(run.nrecs == 40, "after loading: %zu records", run.nrecs);
    for (size_t i = 0; i < run.nrecs; i++)
        ck_assert_str_eq(run.recs[i].workload, "zeta");
    ck_assert_int_eq(rep_run_select(&run, "alpha", &err), 0);
    ck_assert_uint_eq(run.nrecs, 30);
    for (size_t i = 0; i < run.nrecs; i++)
        ck_assert_str_eq(run.recs[i].workload, "alpha");
    ck_assert_int_eq(rep_run_select(&run, "nosuch", &err), 0);
    ck_assert_uint_eq(run.nrecs, 0);
    /* whole-journal facts */
    ck_assert_uint_eq(run.ok_modelled, 70);
    ck_assert_uint_eq(run.failed_total, REP_FAILS_KEPT + 20);
    ck_assert_uint_eq(run.failed_by_status[ST_TIMEOUT], REP_FAILS_KEPT + 20);
    ck_assert_uint_eq(run.nmetric, 3);
    ck_assert_str_eq(run.metric[0], "area_mm2");
    ck_assert_str_eq(run.metric[2], "power_w");
    ck_assert_str_eq(rep_wl_fidelity(&run, rep_wl_find(&run, "alpha")),
                     "modelled");
    ck_assert_uint_eq(run.nfails, REP_FAILS_KEPT + 1);
    ck_assert_str_eq(run.fails[REP_FAILS_KEPT].key, key);
    rep_run_free(&run);

    render_ok(dir, NULL);
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    char *t = pdf_text(path);
    assert_contains(t, "late failure's own log line", "report.pdf");
    assert_contains(t, "Failed jobs (320)", "report.pdf");
    free(t);
    /* results.csv: rows in canonical order, workload by workload */
    size_t len;
    char *csv = slurp(dir, "results.csv", &len);
    const char *order[3] = { "alpha", "mid", "zeta" };
    size_t count[3] = { 0 };
    int cur = 0;
    for (char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        const char *wl = strchr(l + 1, ',') + 1;
        while (cur < 3 && strncmp(wl, order[cur], strlen(order[cur])))
            cur++;
        ck_assert_msg(cur < 3, "results.csv: rows out of order");
        count[cur]++;
    }
    ck_assert_uint_eq(count[0], 30);
    ck_assert_uint_eq(count[1], REP_FAILS_KEPT + 20);
    ck_assert_uint_eq(count[2], 40);
    free(csv);
}
END_TEST

/* Failure paths of the streaming reads and writes: a malformed journal
 * line is named FILE:LINE; results.csv that cannot be put in place is an
 * error naming it, and no temporary file is left behind. */
START_TEST(streaming_failures_named)
{
    char dir[512], path[600], cmd[800];
    gd_err err = { 0 };
    wl_spec w[2] = { { "bb", 5, 0, 0 }, { "aa", 5, 0, 0 } };
    make_run("streamfail", w, 2, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    ck_assert_int_eq(util_mkdirs(path, &err), 0);   /* in the way */
    snprintf(path, sizeof path, "%s/sentinel", dir);
    tu_write(path, "x");   /* results.csv/ must not be empty for rename */
    snprintf(cmd, sizeof cmd, "mv '%s' '%s/results.csv/'", path, dir);
    ck_assert_int_eq(system(cmd), 0);
    int rc = rep_render(dir, NULL, &err);
    ck_assert_int_eq(rc, GD_EENV);
    ck_assert_msg(strstr(err.msg, "results.csv"), "%s", err.msg);
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q 'results.csv.tmp'", dir);
    ck_assert_msg(system(cmd) != 0, "a temporary results.csv was left");

    make_run("streamfail", w, 2, "", dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "sed -i '7s/\"status\":\"ok\"/\"status\":7/' "
             "'%s/results.jsonl'", dir);
    ck_assert_int_eq(system(cmd), 0);
    memset(&err, 0, sizeof err);
    rc = rep_render(dir, NULL, &err);
    ck_assert_int_eq(rc, GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "results.jsonl:7"), "%s", err.msg);
}
END_TEST

/* Bytes of DIR/NAME equal on a second render (same layout, overlays). */
static void assert_rerender_same(const char *dir, const char *layout,
                                 const char *const *ov, int nov,
                                 const char *name)
{
    size_t l1, l2;
    gd_err err = { 0 };
    char *a = slurp(dir, name, &l1);
    ck_assert_msg(rep_render_overlay(dir, layout, ov, nov, &err) == 0, "%s",
                  err.msg);
    char *b = slurp(dir, name, &l2);
    ck_assert_msg(l1 == l2 && memcmp(a, b, l1) == 0, "%s differs on a "
                  "rerender", name);
    free(a);
    free(b);
}

/* Issue 26.5: `gpudse report A --overlay B[:LABEL]` draws each workload's
 * fronts of both runs on one plot, one labelled series per run, each
 * saying whether it is modelled or measured; the title says when they
 * are mixed; same bytes on a rerender. */
START_TEST(overlay_two_runs)
{
    char a[512], b[512], c[512], path[700], spec[600];
    gd_err err = { 0 };
    char cmd[800];
    wl_spec wa = { "vecadd", 40, 0, 0 }, wb = { "vecadd", 25, 0, 0 };
    wl_spec wc[2] = { { "vecadd", 30, 0, 0 }, { "other", 5, 0, 0 } };
    make_run("ovA", &wa, 1, "", a, sizeof a);
    make_run("ovB", &wb, 1, "", b, sizeof b);
    /* B: measured results (as a simulator backend journals them) */
    snprintf(cmd, sizeof cmd, "sed -i 's/\"fidelity\":\"modelled\"/"
             "\"fidelity\":\"measured\"/' '%s/results.jsonl'", b);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(ana_run(b, &err) == 0, "ana_run: %s", err.msg);
    make_run("ovC", wc, 2, "", c, sizeof c);
    snprintf(spec, sizeof spec, "%s:new model", b);
    const char *ov[2] = { spec, c };
    ck_assert_msg(rep_render_overlay(a, NULL, ov, 2, &err) == 0, "%s",
                  err.msg);
    assert_svg_parses(a, "figures/overlay_vecadd.svg");
    snprintf(path, sizeof path, "%s/figures/overlay_vecadd.pdf", a);
    char *t = pdf_text(path);
    assert_contains(t, "vecadd: Pareto fronts of 3 runs", "overlay title");
    assert_contains(t, "MIXED modelled and measured", "overlay note");
    assert_contains(t, "reptest — modelled", "series A");
    assert_contains(t, "new model — measured", "series B, its label");
    /* the same campaign name again: the directory's name */
    assert_contains(t, "report_ovC — modelled", "series C, default label");
    free(t);
    snprintf(path, sizeof path, "%s/report.pdf", a);
    t = pdf_text(path);
    assert_contains(t, "Pareto fronts of 3 runs", "report page");
    free(t);
    assert_rerender_same(a, NULL, ov, 2, "figures/overlay_vecadd.svg");
    assert_rerender_same(a, NULL, ov, 2, "figures/overlay_vecadd.pdf");
    /* the run C as base: workload "other" is not in A */
    const char *ova[1] = { a };
    ck_assert_msg(rep_render_overlay(c, NULL, ova, 1, &err) == 0, "%s",
                  err.msg);
    snprintf(path, sizeof path, "%s/figures/overlay_other.pdf", c);
    t = pdf_text(path);
    assert_contains(t, "has no workload other", "absent workload said");
    free(t);
}
END_TEST

/* A bad --overlay is an input error naming it, before anything is
 * written. */
START_TEST(overlay_bad_dir)
{
    char a[512], path[700];
    wl_spec wa = { "vecadd", 10, 0, 0 };
    make_run("ovbad", &wa, 1, "", a, sizeof a);
    static const struct { const char *spec, *want; } bad[] = {
        { "tests/tmp/no_such_run_dir", "no such run directory" },
        { "tests/data", "not a finished run directory" },
        { "tests/tmp/no_such_run_dir:label", "no such run directory" },
        { "tests/tmp/report_ovbad_power", "fronts of different questions" },
    };
    /* a run of another question: IPC against power, not area */
    char o[512], cmd[1200];
    gd_err e0 = { 0 };
    make_run("ovbad_power", &wa, 1, "", o, sizeof o);
    snprintf(cmd, sizeof cmd, "sed -i 's/<minimize metric=\"area_mm2\"/"
             "<minimize metric=\"power_w\"/' '%s/campaign.xml'", o);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(ana_run(o, &e0) == 0, "ana_run: %s", e0.msg);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_err err = { 0 };
        snprintf(path, sizeof path, "%s/report.pdf", a);
        unlink(path);
        const char *ov[1] = { bad[i].spec };
        ck_assert_int_eq(rep_render_overlay(a, NULL, ov, 1, &err),
                         GD_EINPUT);
        assert_contains(err.msg, "--overlay", bad[i].spec);
        assert_contains(err.msg, bad[i].want, bad[i].spec);
        ck_assert_msg(!util_path_exists(path), "report.pdf written");
    }
}
END_TEST

/* Issue 26.5: a third objective is the Pareto scatter's colour, with a
 * colour bar naming the metric and its unit. */
START_TEST(three_objectives_colour_bar)
{
    char dir[512], path[700];
    wl_spec w = { "vecadd", 60, 0, 0 };
    make_run("colour3", &w, 1, "<minimize metric=\"power_w\"/>", dir,
             sizeof dir);
    render_ok(dir, NULL);
    snprintf(path, sizeof path, "%s/figures/pareto_vecadd.pdf", dir);
    char *t = pdf_text(path);
    assert_contains(t, "Power (W), lower is better", "colour bar title");
    assert_contains(t, "colour the third", "note");
    free(t);
    assert_svg_parses(dir, "figures/pareto_vecadd.svg");
    assert_rerender_same(dir, NULL, NULL, 0, "figures/pareto_vecadd.svg");
    /* as a density raster: the image carries the colour, the bar stays */
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"pareto\" "
                   "density=\"on\"/>\n</workloads>\n</report>\n");
    render_ok(dir, path);
    size_t len;
    char *svg = slurp(dir, "figures/pareto_vecadd.svg", &len);
    ck_assert_msg(strstr(svg, "<image") != NULL, "no density image");
    free(svg);
    snprintf(path, sizeof path, "%s/figures/pareto_vecadd.pdf", dir);
    t = pdf_text(path);
    assert_contains(t, "Power (W), lower is better", "colour bar (raster)");
    free(t);
}
END_TEST

/* Issue 26.6: font="..." font-size="..." on the layout's root: an
 * installed family is used in the figure files; one fontconfig would
 * substitute is refused at FILE:LINE. */
START_TEST(layout_font_and_refusal)
{
    static const struct { const char *attrs, *want; } bad[] = {
        { "font=\"No Such Font Family 42\"", "is not installed" },
        { "font=\"\"", "name a font family" },
        { "font-size=\"40\"", "font-size=\"40\"" },
        { "font-size=\"big\"", "font-size=\"big\"" },
        { "fontsize=\"9\"", "unknown attribute fontsize=" },
    };
    char dir[512], path[700], xml[512];
    size_t len;
    wl_spec w = { "vecadd", 12, 0, 0 };
    make_run("font", &w, 1, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_err err = { 0 };
        snprintf(xml, sizeof xml, "<?xml version=\"1.0\"?>\n<report %s>\n"
                 "<workloads><figure kind=\"pareto\"/></workloads>\n"
                 "</report>\n", bad[i].attrs);
        tu_write(path, xml);
        ck_assert_int_eq(rep_render(dir, path, &err), GD_EINPUT);
        assert_contains(err.msg, "lay.xml:2", bad[i].attrs);
        assert_contains(err.msg, bad[i].want, bad[i].attrs);
    }
    tu_write(path, "<report font=\"DejaVu Serif\" font-size=\"10\">\n"
                   "<workloads><figure kind=\"pareto\"/></workloads>\n"
                   "</report>\n");
    render_ok(dir, path);
    char *pdf = slurp(dir, "figures/pareto_vecadd.pdf", &len);
    ck_assert_msg(has_bytes(pdf, len, "DejaVuSerif"),
                  "figure not set in DejaVu Serif");
    free(pdf);
    pdf = slurp(dir, "report.pdf", &len);   /* the pages keep DejaVu Sans */
    ck_assert_msg(has_bytes(pdf, len, "DejaVuSans"), "report font");
    free(pdf);
    assert_rerender_same(dir, path, NULL, 0, "figures/pareto_vecadd.pdf");
}
END_TEST

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Issues 26.6 and 28.1: above the threshold the jobs are one embedded
 * image, not a path per point, and the front's markers are still drawn
 * exactly; density= moves the threshold; the bytes are stable. */
START_TEST(density_raster_above_threshold)
{
    char dir[512], path[700];
    size_t len;
    /* front colour (Okabe-Ito vermillion) as cairo writes it in SVG */
    const char *front = "fill:rgb(83.529412%,36.862745%,0%)";
    wl_spec w = { "vecadd", FIG_DENSITY_AUTO + 500, 0, 0 };
    make_run("density", &w, 1, "", dir, sizeof dir);
    render_ok(dir, NULL);
    char *svg = slurp(dir, "figures/pareto_vecadd.svg", &len);
    ck_assert_msg(count_of(svg, "<image") == 1, "no density image");
    ck_assert_msg(count_of(svg, front) >= 1, "front markers not drawn");
    size_t dens_len = len;
    free(svg);
    snprintf(path, sizeof path, "%s/figures/pareto_vecadd.pdf", dir);
    char *t = pdf_text(path);
    assert_contains(t, "density raster", "figure note");
    assert_contains(t, "density)", "legend");
    free(t);
    assert_rerender_same(dir, NULL, NULL, 0, "figures/pareto_vecadd.svg");
    assert_rerender_same(dir, NULL, NULL, 0, "figures/pareto_vecadd.pdf");
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"pareto\" "
                   "density=\"off\"/>\n</workloads>\n</report>\n");
    render_ok(dir, path);
    svg = slurp(dir, "figures/pareto_vecadd.svg", &len);
    ck_assert_msg(count_of(svg, "<image") == 0, "density=off: an image");
    ck_assert_msg(len > dens_len, "exact points not larger: %zu <= %zu",
                  len, dens_len);
    free(svg);
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"pareto\" "
                   "density=\"100000\"/>\n</workloads>\n</report>\n");
    render_ok(dir, path);
    svg = slurp(dir, "figures/pareto_vecadd.svg", &len);
    ck_assert_msg(count_of(svg, "<image") == 0, "under the threshold");
    free(svg);
    /* a small run as density on request: the front stays exact */
    wl_spec small = { "vecadd", 40, 0, 0 };
    make_run("density_small", &small, 1, "", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/lay.xml", dir);
    tu_write(path, "<report>\n<workloads>\n<figure kind=\"pareto\" "
                   "density=\"on\"/>\n</workloads>\n</report>\n");
    render_ok(dir, path);
    svg = slurp(dir, "figures/pareto_vecadd.svg", &len);
    ck_assert_msg(count_of(svg, "<image") == 1, "density=on: no image");
    ck_assert_msg(count_of(svg, front) >= 1, "front markers not drawn");
    free(svg);
    static const struct { const char *item, *want; } bad[] = {
        { "<figure kind=\"pareto\" density=\"some\"/>", "density=\"some\"" },
        { "<figure kind=\"pareto\" density=\"-3\"/>", "density=\"-3\"" },
        { "<figure kind=\"heatmap\" density=\"on\"/>", "density= applies" },
        { "<table kind=\"front\" density=\"on\"/>", "density= applies" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_err err = { 0 };
        char xml[512];
        snprintf(xml, sizeof xml, "<report>\n<workloads>\n%s\n</workloads>"
                 "\n</report>\n", bad[i].item);
        tu_write(path, xml);
        ck_assert_int_eq(rep_render(dir, path, &err), GD_EINPUT);
        assert_contains(err.msg, "lay.xml:3", bad[i].item);
        assert_contains(err.msg, bad[i].want, bad[i].item);
    }
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("render");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, renders_outputs);
    tcase_add_test(tc, extrapolated_front_points_marked);
    tcase_add_test(tc, front_intervals_drawn);
    tcase_add_test(tc, renders_are_byte_identical);
    tcase_add_test(tc, pdf_date_follows_source_date_epoch);
    tcase_add_test(tc, degenerate_one_point);
    tcase_add_test(tc, degenerate_nan_metric);
    tcase_add_test(tc, degenerate_empty_workload);
    tcase_add_test(tc, three_objectives_say_so);
    tcase_add_test(tc, formats_are_honoured);
    tcase_add_test(tc, missing_analysis_names_file);
    tcase_add_test(tc, layout_files);
    tcase_add_test(tc, quickstart_size_renders);
    tcase_add_test(tc, optional_sections_render);
    tcase_add_test(tc, contents_page_numbers_are_right);
    tcase_add_test(tc, annotations_tolerant);
    tcase_add_test(tc, single_column_figures);
    tcase_add_test(tc, layout_metrics_and_errors);
    tcase_add_test(tc, line_figure_across_workloads);
    tcase_add_test(tc, line_figure_layout_errors);
    tcase_add_test(tc, bars_figure_speedups);
    tcase_add_test(tc, cross_figures_one_workload_at_a_time);
    tcase_add_test(tc, figure_controls_title_top_units);
    tcase_add_test(tc, figure_controls_errors);
    tcase_add_test(tc, rundata_one_workload_at_a_time);
    tcase_add_test(tc, streaming_failures_named);
    tcase_add_test(tc, overlay_two_runs);
    tcase_add_test(tc, overlay_bad_dir);
    tcase_add_test(tc, three_objectives_colour_bar);
    tcase_add_test(tc, layout_font_and_refusal);
    tcase_add_test(tc, density_raster_above_threshold);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(report_suite());
}
