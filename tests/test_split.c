/* test_split: the split-study campaign kind end to end — a predicted run is
 * byte-identical for a seed, every record is keyed and labelled, labels
 * never mix (predicted records are PREDICTED(costmodel), measured ones
 * MEASURED(cpu)), bad campaigns fail with FILE:LINE and exit 2 leaving
 * nothing behind, measure-cuda without a GPU says it skipped, and the
 * probe writes a loadable machine labelled measured. */
#include "testutil.h"

#include <math.h>
#include <signal.h>
#include <cjson/cJSON.h>
#include <sys/wait.h>

#include "be_split.h"
#include "engine.h"
#include "machine.h"
#include "split.h"
#include "store.h"

#define TMP "tests/tmp/test_split"

/* A split study through the engine, as `gpudse run CAMPAIGN -o DIR -q`. */
static int run_study(const char *campaign, const char *dir, gd_err *err)
{
    eng_opts o = {0};
    o.campaign_path = campaign;
    o.outdir = dir;
    o.quiet = 1;
    return eng_run(&o, NULL, 0, err);
}

static void fresh(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p " TMP, dir);
    ck_assert_int_eq(system(cmd), 0);
}

static int count_lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* Every journal line: 64-hex key (each exactly once), kind split, label
 * matching backend; counts of predicted and measured lines. */
static void check_journal(const char *path, int *npred, int *nmeas)
{
    char *s = tu_slurp(path, NULL);
    *npred = *nmeas = 0;
    char (*keys)[65] = calloc(4096, 65);
    int nkeys = 0;
    char *save = NULL;
    for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *o = cJSON_Parse(line);
        ck_assert_msg(o != NULL, "bad JSON line %s", line);
        const char *key = cJSON_GetStringValue(cJSON_GetObjectItem(o, "key"));
        ck_assert(key && strlen(key) == 64 && strspn(key, "0123456789abcdef") == 64);
        for (int i = 0; i < nkeys; i++)
            ck_assert_msg(strcmp(keys[i], key) != 0, "key %.12s twice", key);
        ck_assert(nkeys < 4096);
        memcpy(keys[nkeys++], key, 65);
        ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(o, "kind")), "split");
        const char *be = cJSON_GetStringValue(cJSON_GetObjectItem(o, "backend"));
        const char *lb = cJSON_GetStringValue(cJSON_GetObjectItem(o, "label"));
        const char *role = cJSON_GetStringValue(cJSON_GetObjectItem(o, "role"));
        ck_assert(be && lb && role);
        if (!strcmp(be, "costmodel")) {
            ck_assert_str_eq(lb, "PREDICTED(costmodel)");
            ck_assert_str_eq(role, "policy");          /* ladders are measured */
            (*npred)++;
        } else if (!strcmp(be, "measure-cpu")) {
            ck_assert_str_eq(lb, "MEASURED(cpu)");
            ck_assert(cJSON_GetObjectItem(o, "terms") == NULL);  /* no model terms */
            (*nmeas)++;
        } else {
            ck_assert_str_eq(be, "measure-cuda");
            ck_assert_str_eq(lb, "MEASURED(cuda)");
            (*nmeas)++;
        }
        cJSON_Delete(o);
    }
    free(keys);
    free(s);
}

/* Lines of the journal whose "role" is role. */
static int count_role(const char *path, const char *role)
{
    char *s = tu_slurp(path, NULL), needle[64];
    snprintf(needle, sizeof needle, "\"role\":\"%s\"", role);
    int n = count_lines_with(s, needle);
    free(s);
    return n;
}

/* A small measured study: five classes on this machine's two cores. */
static const char tiny_measured[] =
    "<split-study name=\"tiny\" seed=\"3\">\n"
    "  <backend name=\"measure-cpu\" repeats=\"2\" warmups=\"1\"/>\n"
    "  <machines><machine name=\"local-cpu\" probe=\"yes\" slowdown=\"1 2\"/></machines>\n"
    "  <tasks>\n"
    "    <task kind=\"triad\" sizes=\"20000\"/>\n"
    "    <task kind=\"dot\" sizes=\"20000\"/>\n"
    "    <task kind=\"gemm\" sizes=\"16\" n=\"32\" k=\"32\"/>\n"
    "    <task kind=\"jacobi\" sizes=\"32\" cols=\"32\" iters=\"3\"/>\n"
    "    <task kind=\"map\" sizes=\"4000\" k=\"8\"/>\n"
    "  </tasks>\n"
    "  <calibration ladder=\"0.5 1\"/>\n"
    "</split-study>\n";

static int run_cli(const char *args, char *out, size_t outsz);
static void tear(const char *path, int lines);

/* report.pdf of dir, re-rendered by `gpudse report DIR` from the files
 * alone, is byte-identical to the run's own. */
static void check_rerender(const char *dir)
{
    char path[256], args[300], out[4096];
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    size_t n1, n2;
    char *a, *b;
    gd_err err = {0, ""};
    ck_assert(util_read_file(path, &a, &n1, &err) == GD_OK);
    ck_assert_int_eq(unlink(path), 0);
    snprintf(args, sizeof args, "report %s", dir);
    ck_assert_msg(run_cli(args, out, sizeof out) == 0, "%s", out);
    ck_assert(util_read_file(path, &b, &n2, &err) == GD_OK);
    ck_assert_msg(n1 == n2 && memcmp(a, b, n1) == 0, "%s: re-rendered report differs", dir);
    free(a);
    free(b);
}

START_TEST(predicted_run_is_deterministic_and_labelled)
{
    fresh(TMP "/a " TMP "/b");
    gd_err err = {0, ""};
    ck_assert_msg(run_study("campaigns/split-hetero4.xml", TMP "/a", &err) == GD_OK, "%s", err.msg);
    ck_assert_msg(run_study("campaigns/split-hetero4.xml", TMP "/b", &err) == GD_OK, "%s", err.msg);
    const char *files[] = {"results.jsonl", "split-analysis.json", "campaign.xml",
                           "machines/hetero-4.xml", "report.pdf"};
    for (int i = 0; i < 5; i++) {
        char pa[256], pb[256];
        snprintf(pa, sizeof pa, TMP "/a/%s", files[i]);
        snprintf(pb, sizeof pb, TMP "/b/%s", files[i]);
        char *x = tu_slurp(pa, NULL), *y = tu_slurp(pb, NULL);
        ck_assert_msg(strcmp(x, y) == 0, "%s differs between runs", files[i]);
        free(x);
        free(y);
    }
    int np, nm;
    check_journal(TMP "/a/results.jsonl", &np, &nm);
    ck_assert_int_eq(np, 2 * 10 * 7);           /* machines x task sizes x policies */
    ck_assert_int_eq(nm, 0);
    char *an = tu_slurp(TMP "/a/split-analysis.json", NULL);
    ck_assert(strstr(an, "\"measured_label\":\t\"none\""));
    free(an);
    ck_assert(util_path_exists(TMP "/a/manifest.json"));
    /* nothing calibrated: no calibration file */
    ck_assert(!util_path_exists(TMP "/a/machines/hetero-4.calibration.json"));
}
END_TEST

/* The manifest of a split run has the engine's one format: the head, the
 * study's own fields, libraries, host, times and the jobs object. */
START_TEST(split_manifest_has_the_engine_format)
{
    fresh(TMP "/f");
    gd_err err = {0, ""};
    ck_assert_msg(run_study("campaigns/split-hetero4.xml", TMP "/f", &err) == GD_OK, "%s", err.msg);
    char *text = tu_slurp(TMP "/f/manifest.json", NULL);
    cJSON *m = cJSON_Parse(text);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(m, "kind")), "split");
    ck_assert(cJSON_IsObject(cJSON_GetObjectItem(m, "libraries")));
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(m, "finished")));
    const cJSON *j = cJSON_GetObjectItem(m, "jobs");
    ck_assert(cJSON_IsObject(j));
    const char *names[] = {"planned", "total", "ok", "run_this_session"};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, names[i])), 140);
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "failed")), 0);
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "resumed_from_journal")), 0);
    cJSON_Delete(m);
    free(text);
    /* a second session reads every job back */
    ck_assert_msg(run_study("campaigns/split-hetero4.xml", TMP "/f", &err) == GD_OK, "%s", err.msg);
    text = tu_slurp(TMP "/f/manifest.json", NULL);
    m = cJSON_Parse(text);
    j = cJSON_GetObjectItem(m, "jobs");
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "resumed_from_journal")), 140);
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "run_this_session")), 0);
    cJSON_Delete(m);
    free(text);
}
END_TEST

/* `gpudse status DIR` counts a split run's jobs per machine from its
 * journal (they carry "kind":"split", which the design-space count skips),
 * with a torn journal too; `gpudse analyze DIR` writes split-analysis.json
 * again from the files, byte for byte. */
START_TEST(status_and_analyze_read_a_split_run)
{
    fresh(TMP "/s");
    gd_err err = {0, ""};
    ck_assert_msg(run_study("campaigns/split-hetero4.xml", TMP "/s", &err) == GD_OK, "%s", err.msg);
    char out[8192];
    ck_assert_msg(run_cli("status " TMP "/s --json", out, sizeof out) == 0, "%s", out);
    cJSON *o = cJSON_Parse(out);
    ck_assert_msg(o != NULL, "%s", out);
    const cJSON *t = cJSON_GetObjectItem(o, "total");
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(t, "done")), 140);
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(t, "queued")), 0);
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(t, "failed")), 0);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "workloads")), 2);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(o, "phase")), "finished");
    cJSON_Delete(o);
    char *an = tu_slurp(TMP "/s/split-analysis.json", NULL);
    ck_assert_int_eq(unlink(TMP "/s/split-analysis.json"), 0);
    ck_assert_msg(run_cli("analyze " TMP "/s", out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "split-analysis.json"), "%s", out);
    char *again = tu_slurp(TMP "/s/split-analysis.json", NULL);
    ck_assert_msg(strcmp(an, again) == 0, "re-analysed split-analysis.json differs");
    free(an);
    free(again);
    /* 40 whole lines left: 40 predictions on the first machine */
    tear(TMP "/s/results.jsonl", 40);
    ck_assert_msg(run_cli("status " TMP "/s", out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "machine "), "%s", out);
    char row[128];
    snprintf(row, sizeof row, "  %-16s %8d %8d %8d %8d\n", "hetero-4", 30, 0, 40, 0);
    ck_assert_msg(strstr(out, row), "%s", out);
    snprintf(row, sizeof row, "  %-16s %8d %8d %8d %8d\n", "total", 100, 0, 40, 0);
    ck_assert_msg(strstr(out, row), "%s", out);
}
END_TEST

START_TEST(measured_run_keeps_labels_apart)
{
    fresh(TMP "/m");
    tu_write(TMP "/m.xml", tiny_measured);
    gd_err err = {0, ""};
    ck_assert_msg(run_study(TMP "/m.xml", TMP "/m", &err) == GD_OK, "%s", err.msg);
    int np, nm;
    check_journal(TMP "/m/results.jsonl", &np, &nm);
    ck_assert_int_eq(np, 5 * 7);
    /* policy jobs, ladder rungs (5 classes x 2 devices x 2 rungs), the
     * parallel-efficiency pair and the link ladder's 4 rungs */
    ck_assert_int_eq(nm, 5 * 7 + 5 * 2 * 2 + 2 + 4);
    ck_assert_int_eq(count_role(TMP "/m/results.jsonl", "ladder"), 20);
    ck_assert_int_eq(count_role(TMP "/m/results.jsonl", "parallel-efficiency"), 2);
    ck_assert_int_eq(count_role(TMP "/m/results.jsonl", "link"), 4);
    /* the run records its calibration; the analysis stage reads it back */
    char *cal = tu_slurp(TMP "/m/machines/local-cpu.calibration.json", NULL);
    ck_assert(strstr(cal, "\"calibrated\":\ttrue"));
    ck_assert(strstr(cal, "\"fits\""));
    free(cal);
    char *an = tu_slurp(TMP "/m/split-analysis.json", NULL);
    ck_assert(strstr(an, "MEASURED(cpu)"));
    ck_assert(strstr(an, "median_ape_pct"));
    ck_assert(strstr(an, "kendall_tau_b"));
    free(an);
    cm_machine m;
    ck_assert_int_eq(mach_load(TMP "/m/machines/local-cpu.xml", &m, &err), GD_OK);
    ck_assert_int_eq(m.dev[0].peak_flops.prov, CM_MEASURED);
    ck_assert_int_eq(m.dev[1].slowdown.prov, CM_SPEC);
    ck_assert_double_eq_tol(m.dev[1].slowdown.v, 2, 1e-12);
    ck_assert_int_eq(m.dev[0].eta_f[CM_GEMM].prov, CM_MEASURED);
    ck_assert(util_path_exists(TMP "/m/machines/local-cpu.probe.xml"));
    char *j = tu_slurp(TMP "/m/results.jsonl", NULL);
    ck_assert_int_eq(count_lines_with(j, "\"contended_dropped\":"), nm);
    free(j);
    check_rerender(TMP "/m");
}
END_TEST

/* Keep the first `lines` lines of path and half of the next one: the
 * journal of a run killed in the middle of a write. */
static void tear(const char *path, int lines)
{
    char *s = tu_slurp(path, NULL), *p = s;
    for (int i = 0; i < lines; i++) {
        p = strchr(p, '\n');
        ck_assert(p != NULL);
        p++;
    }
    char *nl = strchr(p, '\n');
    ck_assert(nl != NULL);
    ck_assert_int_eq(truncate(path, (off_t)(p - s) + (nl - p) / 2), 0);
    free(s);
}

START_TEST(predicted_run_resumes_from_a_torn_journal)
{
    fresh(TMP "/r");
    gd_err err = {0, ""};
    ck_assert_msg(run_study("campaigns/split-hetero4.xml", TMP "/r", &err) == GD_OK, "%s", err.msg);
    char *full = tu_slurp(TMP "/r/results.jsonl", NULL), *pdf = tu_slurp(TMP "/r/report.pdf", NULL);
    tear(TMP "/r/results.jsonl", 40);
    ck_assert_int_eq(unlink(TMP "/r/split-analysis.json"), 0);
    ck_assert_int_eq(unlink(TMP "/r/report.pdf"), 0);
    ck_assert_msg(run_study("campaigns/split-hetero4.xml", TMP "/r", &err) == GD_OK, "%s", err.msg);
    char *again = tu_slurp(TMP "/r/results.jsonl", NULL), *pdf2 = tu_slurp(TMP "/r/report.pdf", NULL);
    ck_assert_msg(strcmp(full, again) == 0, "resumed journal differs from the uninterrupted one");
    ck_assert_int_eq(strlen(pdf), strlen(pdf2));
    int np, nm;
    check_journal(TMP "/r/results.jsonl", &np, &nm);   /* every key once */
    ck_assert_int_eq(np, 2 * 10 * 7);
    free(full);
    free(again);
    free(pdf);
    free(pdf2);
    check_rerender(TMP "/r");
    char out[4096];
    ck_assert_int_eq(run_cli("report " TMP "/r --layout x.xml", out, sizeof out), 2);
    ck_assert_msg(strstr(out, "--layout applies to design-space runs"), "%s", out);
}
END_TEST

static int lines_of(const char *path)
{
    char *s = NULL;
    size_t n = 0;
    gd_err err = {0, ""};
    if (util_read_file(path, &s, &n, &err) != GD_OK)
        return 0;
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    free(s);
    return k;
}

/* Lines of text (complete ones) that are measurements. */
static int measured_lines(const char *text, size_t len)
{
    int n = 0;
    for (const char *p = text; p < text + len;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        if (!nl)
            break;
        char line[8192];
        size_t k = (size_t)(nl - p) < sizeof line - 1 ? (size_t)(nl - p) : sizeof line - 1;
        memcpy(line, p, k);
        line[k] = '\0';
        n += strstr(line, "\"label\":\"MEASURED(cpu)\"") != NULL;
        p = nl + 1;
    }
    return n;
}

START_TEST(killed_measured_run_resumes_without_remeasuring)
{
    fresh(TMP "/k");
    tu_write(TMP "/k.xml", tiny_measured);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        execl(tu_bin(), "gpudse", "run", TMP "/k.xml", "-o", TMP "/k", "-q", (char *)NULL);
        _exit(127);
    }
    int st, done = 0;
    for (int i = 0; i < 20000 && !done && lines_of(TMP "/k/results.jsonl") < 12; i++) {
        done = waitpid(pid, &st, WNOHANG) == pid;
        usleep(1000);
    }
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    char *before = tu_slurp(TMP "/k/results.jsonl", NULL);
    size_t keep = strlen(before);
    while (keep > 0 && before[keep - 1] != '\n')
        keep--;                     /* a torn last line is not a finished job */
    int measured_before = measured_lines(before, keep);
    ck_assert_int_gt(measured_before, 0);
    char out[8192];
    ck_assert_msg(run_cli("run " TMP "/k.xml -o " TMP "/k -q", out, sizeof out) == 0, "%s", out);
    char *after = tu_slurp(TMP "/k/results.jsonl", NULL);
    /* every finished line kept, byte for byte, where it was */
    ck_assert_msg(strncmp(before, after, keep) == 0, "finished records changed on resume");
    int np, nm;
    check_journal(TMP "/k/results.jsonl", &np, &nm);   /* every key once */
    ck_assert_int_eq(np, 5 * 7);
    ck_assert_int_eq(nm, 5 * 7 + 20 + 2 + 4);
    /* the rerun read each finished measurement back and took only the rest */
    char *man = tu_slurp(TMP "/k/manifest.json", NULL);
    cJSON *m = cJSON_Parse(man);
    const cJSON *ms = cJSON_GetObjectItem(m, "measurements_this_session");
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(ms, "read_back_from_journal")),
                     measured_before);
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(ms, "taken")),
                     nm - measured_before);
    cJSON_Delete(m);
    free(man);
    free(before);
    free(after);
    ck_assert(util_path_exists(TMP "/k/report.pdf"));
}
END_TEST

START_TEST(second_copy_on_a_run_directory_is_locked_out)
{
    fresh(TMP "/l");
    gd_err err = {0, ""};
    ck_assert_int_eq(util_mkdirs(TMP "/l", &err), GD_OK);
    int fd;
    ck_assert_msg(store_lock(TMP "/l", &fd, &err) == GD_OK, "%s", err.msg);
    char out[4096], pid[64];
    ck_assert_int_eq(run_cli("run campaigns/split-hetero4.xml -o " TMP "/l -q", out, sizeof out), 3);
    snprintf(pid, sizeof pid, "another gpudse (pid %ld) is running", (long)getpid());
    ck_assert_msg(strstr(out, pid), "%s", out);
    ck_assert(!util_path_exists(TMP "/l/results.jsonl"));
    store_unlock(fd);
    ck_assert_msg(run_cli("run campaigns/split-hetero4.xml -o " TMP "/l -q", out, sizeof out) == 0, "%s", out);
}
END_TEST

static int run_cli(const char *args, char *out, size_t outsz)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", tu_bin(), args);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    size_t n = fread(out, 1, outsz - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A host without the report's fonts: the run's results stay, the report
 * is refused with what to install, and renders once the fonts are back. */
START_TEST(missing_fonts_keep_the_results_and_say_what_to_install)
{
    fresh(TMP "/nofonts");
    tu_write(TMP "/nofonts.conf", "<?xml version=\"1.0\"?>\n<fontconfig>"
             "<cachedir>" TMP "/fccache</cachedir></fontconfig>\n");
    char out[4096], conf[PATH_MAX + 64], cwd[PATH_MAX];
    ck_assert(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(conf, sizeof conf, "%s/" TMP "/nofonts.conf", cwd);   /* fontconfig
        reads a relative FONTCONFIG_FILE from its own directory */
    setenv("FONTCONFIG_FILE", conf, 1);
    int rc = run_cli("run campaigns/split-hetero4.xml -o " TMP "/nofonts -q", out, sizeof out);
    unsetenv("FONTCONFIG_FILE");
    ck_assert_int_eq(rc, 3);
    ck_assert_msg(strstr(out, "report.pdf: the report's fonts (DejaVu Sans, DejaVu Sans Mono) "
                             "are not installed") && strstr(out, "fonts-dejavu-core"), "%s", out);
    ck_assert(util_path_exists(TMP "/nofonts/results.jsonl"));
    ck_assert(util_path_exists(TMP "/nofonts/split-analysis.json"));
    ck_assert(!util_path_exists(TMP "/nofonts/report.pdf"));
    ck_assert_msg(run_cli("report " TMP "/nofonts", out, sizeof out) == 0, "%s", out);
    ck_assert(util_path_exists(TMP "/nofonts/report.pdf"));
}
END_TEST

START_TEST(bad_campaigns_fail_with_file_line_and_leave_nothing)
{
    fresh(TMP "/bad");
    const char *cases[][2] = {
        {"<split-study name=\"x\">\n  <backend name=\"costmodel\"/>\n"
         "  <machines><machine name=\"hetero-4\"/></machines>\n"
         "  <tasks><task kind=\"gemm\" sizes=\"64\" n=\"64\"/></tasks>\n</split-study>\n",
         "b1.xml:4: a gemm task needs k="},
        {"<split-study name=\"x\">\n  <backend name=\"costmodel\"/>\n"
         "  <machines><machine name=\"hetero-4\"/></machines>\n"
         "  <tasks><task kind=\"fft\" sizes=\"64\"/></tasks>\n</split-study>\n",
         "b2.xml:4: does not match the split-study schema"},
        {"<split-study name=\"x\">\n  <backend name=\"costmodel\"/>\n"
         "  <machines>\n    <machine name=\"local-cpu\" probe=\"yes\"/>\n  </machines>\n"
         "  <tasks><task kind=\"map\" sizes=\"64\" k=\"2\"/></tasks>\n</split-study>\n",
         "b3.xml:4: probe=\"yes\""},
        {"<split-study name=\"x\">\n  <backend name=\"costmodel\"/>\n"
         "  <machines><machine name=\"hetero-5\"/></machines>\n"
         "  <tasks><task kind=\"map\" sizes=\"64\" k=\"2\"/></tasks>\n</split-study>\n",
         "b4.xml:3: unknown machine"},
        {"<split-study name=\"x\">\n  <backend name=\"costmodel\"/>\n"
         "  <machines><machine name=\"hetero-4\"/></machines>\n"
         "  <tasks><task kind=\"map\" sizes=\"64\" k=\"2\"/></tasks>\n"
         "  <policies>optimum dynamic</policies>\n</split-study>\n",
         "b5.xml:5: policies must include \"even\""},
        {"<campaign name=\"x\"/>\n", "b6.xml:1: the root element of a split study"},
        {"<split-study name=\"x\">\n  <backend name=\"measure-cpu\"/>\n"
         "  <machines><machine name=\"hetero-4\"/></machines>\n"
         "  <tasks><task kind=\"map\" sizes=\"64\" k=\"2\"/></tasks>\n</split-study>\n",
         "b7.xml:3: measure-cpu needs a machine of cpu devices"},
    };
    for (int i = 0; i < 7; i++) {
        char path[128], args[512], out[4096];
        snprintf(path, sizeof path, TMP "/b%d.xml", i + 1);
        tu_write(path, cases[i][0]);
        snprintf(args, sizeof args, "split run %s -o " TMP "/bad/out -q", path);
        ck_assert_int_eq(run_cli(args, out, sizeof out), 2);
        ck_assert_msg(strstr(out, cases[i][1]) != NULL, "case %d: %s", i + 1, out);
        ck_assert(!util_path_exists(TMP "/bad/out"));
    }
}
END_TEST

START_TEST(cuda_without_gpu_says_skipped)
{
    if (ms_cuda_devices() > 0)
        return;                 /* a GPU answers: the skip path does not apply */
    fresh(TMP "/cu " TMP "/cu2");
    tu_write(TMP "/cu.xml",
             "<split-study name=\"cu\">\n  <backend name=\"measure-cuda\" repeats=\"1\"/>\n"
             "  <machines><machine name=\"uni-server-2gpu-induced\"/></machines>\n"
             "  <tasks><task kind=\"triad\" sizes=\"1000000\"/></tasks>\n"
             "  <policies>even optimum</policies>\n</split-study>\n");
    char out[8192];
    ck_assert_int_eq(run_cli("split run " TMP "/cu.xml -o " TMP "/cu", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "no CUDA device: skipped"), "%s", out);
    int np, nm;
    check_journal(TMP "/cu/results.jsonl", &np, &nm);
    ck_assert_int_eq(np, 2);
    ck_assert_int_eq(nm, 2);
    char *j = tu_slurp(TMP "/cu/results.jsonl", NULL);
    ck_assert_int_eq(count_lines_with(j, "\"status\":\"skipped\""), 2);
    ck_assert_int_eq(count_lines_with(j, "no CUDA device: skipped"), 2);
    free(j);
    /* the campaign still completes: analysis, machines and report */
    ck_assert(util_path_exists(TMP "/cu/split-analysis.json"));
    ck_assert(util_path_exists(TMP "/cu/machines/uni-server-2gpu-induced.xml"));
    ck_assert(util_path_exists(TMP "/cu/report.pdf"));
    /* and through `gpudse run` too */
    ck_assert_int_eq(run_cli("run " TMP "/cu.xml -o " TMP "/cu2", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "no CUDA device: skipped"), "%s", out);
    ck_assert(util_path_exists(TMP "/cu2/report.pdf"));
    check_rerender(TMP "/cu2");
}
END_TEST

/* The three split backends are one table behind be_split.h: what each can
 * do is asked of it, in the order sp_campaign.backend indexes. */
START_TEST(split_backends_are_one_seam)
{
    const char *names[] = {"costmodel", "measure-cpu", "measure-cuda"};
    for (int i = 0; i < 3; i++) {
        const be_split *b = be_split_find(names[i]);
        ck_assert_ptr_nonnull(b);
        ck_assert_ptr_eq(b, be_split_at(i));
        ck_assert_int_eq(be_split_index(names[i]), i);
        ck_assert_str_eq(b->label, sp_label(i));
        ck_assert_str_eq(b->fidelity, i == SP_COSTMODEL ? "modelled" : "measured");
        ck_assert_int_eq(b->measure != NULL, i != SP_COSTMODEL);
    }
    ck_assert_ptr_null(be_split_find("analytic"));
    ck_assert_ptr_null(be_split_at(3));
    const be_split *cpu = be_split_at(SP_MEASURE_CPU), *cu = be_split_at(SP_MEASURE_CUDA);
    ck_assert(cpu->probes && cpu->link && !cpu->copy && !cpu->devices);
    ck_assert(!cu->probes && !cu->link && cu->copy && cu->devices);
    ck_assert_str_eq(cu->device_kind, "cuda");
    ck_assert_str_eq(cu->absent, "no CUDA device: skipped");
}
END_TEST

/* The split stage runs the study; the report stage renders it (from the
 * run directory): nothing under pipeline/split names the report. */
START_TEST(split_stage_does_not_call_the_report)
{
    const char *files[] = {"pipeline/split/split.c", "pipeline/split/split.h",
                           "pipeline/split/splitload.c", "pipeline/split/splitdir.c",
                           "pipeline/split/splitcal.c", "pipeline/split/splitcal.h"};
    const char *words[] = {"split_report", "rep_render", "report.h", "chart.h", "doc.h"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *s = tu_slurp(files[i], NULL);
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
            ck_assert_msg(!strstr(s, words[w]), "%s names %s", files[i], words[w]);
        free(s);
    }
}
END_TEST

/* A run directory written by gpudse d5fecbf (its own split runner,
 * stopped by SIGINT after 30 records) resumes through the engine: every
 * finished line kept where it was, each measurement read back, only the
 * rest taken. */
START_TEST(run_directory_of_the_old_split_runner_resumes)
{
    fresh(TMP "/old");
    ck_assert_int_eq(system("cp -R tests/data/split_d5fecbf_run " TMP "/old"), 0);
    char *before = tu_slurp(TMP "/old/results.jsonl", NULL);
    gd_err err = {0, ""};
    ck_assert_msg(run_study(TMP "/old/campaign.xml", TMP "/old", &err) == GD_OK, "%s", err.msg);
    char *after = tu_slurp(TMP "/old/results.jsonl", NULL);
    ck_assert_msg(strncmp(before, after, strlen(before)) == 0, "old records changed on resume");
    int np, nm;
    check_journal(TMP "/old/results.jsonl", &np, &nm);   /* every key once */
    ck_assert_int_eq(np, 5 * 7);
    ck_assert_int_eq(nm, 5 * 7 + 20 + 2 + 4);
    char *man = tu_slurp(TMP "/old/manifest.json", NULL);
    cJSON *m = cJSON_Parse(man);
    const cJSON *ms = cJSON_GetObjectItem(m, "measurements_this_session");
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(ms, "read_back_from_journal")), 28);
    ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(ms, "taken")), nm - 28);
    cJSON_Delete(m);
    free(man);
    free(before);
    free(after);
    ck_assert(util_path_exists(TMP "/old/report.pdf"));
}
END_TEST

START_TEST(probe_writes_measured_machine)
{
    fresh(TMP "/probe");
    char out[4096];
    ck_assert_int_eq(run_cli("machine probe -o " TMP "/local-cpu.xml --slowdown 1,3",
                             out, sizeof out), 0);
    cm_machine m;
    gd_err err = {0, ""};
    ck_assert_msg(mach_load(TMP "/local-cpu.xml", &m, &err) == GD_OK, "%s", err.msg);
    ck_assert_int_eq(m.ndev, 2);
    ck_assert(m.induced);
    ck_assert_int_eq(m.dev[1].mem_bw.prov, CM_MEASURED);
    ck_assert_int_eq(m.dev[1].h2d_bw.prov, CM_MEASURED);
    ck_assert_int_eq(m.setup_s.prov, CM_MEASURED);
    ck_assert_double_eq_tol(m.dev[1].slowdown.v, 3, 1e-12);
    ck_assert_int_eq(run_cli("machine probe --slowdown 0.5", out, sizeof out), 2);
}
END_TEST

START_TEST(measured_kernels_time_and_slow_down)
{
    cm_machine m;
    gd_err err = {0, ""};
    ck_assert_int_eq(mach_probe(2, (double[]){1, 4}, &m, &err), GD_OK);
    cm_task t = {CM_MAP, {20000, 64, 0}, 4};
    ms_opts o = {3, 1};
    ms_stat fast, slow;
    cm_decision d;
    for (int dev = 0; dev < 2; dev++) {
        memset(&d, 0, sizeof d);
        d.n = 1;
        util_strlcpy(d.dev[0], m.dev[dev].name, CM_NAMELEN);
        d.share[0] = 1;
        d.chunk = 20000;
        d.block = 256;
        ck_assert_int_eq(cm_validate(&m, &t, &d, &err), GD_OK);
        ck_assert_msg(ms_run_cpu(&m, &t, &d, &o, dev ? &slow : &fast, &err) == GD_OK, "%s", err.msg);
    }
    ck_assert_int_eq(fast.n, 3);
    ck_assert(fast.q1 <= fast.median && fast.median <= fast.q3);
    /* contended repeats are counted: dropped ones and any kept */
    ck_assert(fast.dropped >= 0 && fast.contended >= 0 && fast.contended <= fast.n);
    /* a 4x induced slowdown makes the device clearly slower (kernel-bound) */
    ck_assert_msg(slow.median > 2.0 * fast.median, "slow %g fast %g", slow.median, fast.median);
    cm_task fp64 = {CM_MAP, {100, 2, 0}, 8};
    ck_assert_int_eq(ms_run_cpu(&m, &fp64, &d, &o, &fast, &err), GD_EINPUT);
}
END_TEST

START_TEST(split_results_equal_single_device_results)
{
    cm_machine m;
    gd_err err = {0, ""};
    ck_assert_int_eq(mach_probe(2, (double[]){1, 1.5}, &m, &err), GD_OK);
    cm_task tasks[] = {{CM_TRIAD, {10007, 0, 0}, 4}, {CM_DOT, {10007, 0, 0}, 4},
                       {CM_GEMM, {37, 24, 16}, 4}, {CM_JACOBI, {41, 19, 7}, 4},
                       {CM_MAP, {5003, 9, 0}, 4}};
    ms_opts o = {1, 0};
    for (int k = 0; k < 5; k++)
        for (int path = 0; path < 2; path++) {
            cm_decision one, two;
            memset(&one, 0, sizeof one);
            one.n = 1;
            util_strlcpy(one.dev[0], "cpu0", CM_NAMELEN);
            one.share[0] = 1;
            one.chunk = 7;
            one.block = 64;
            two = one;
            two.n = 2;
            util_strlcpy(two.dev[1], "cpu1", CM_NAMELEN);
            two.share[0] = 0.37;
            two.share[1] = 0.63;
            two.path = path;
            two.dynamic = k != CM_JACOBI && path;     /* queue on the p2p pass */
            ck_assert_int_eq(cm_validate(&m, &tasks[k], &one, &err), GD_OK);
            ck_assert_int_eq(cm_validate(&m, &tasks[k], &two, &err), GD_OK);
            ms_stat a, b;
            ck_assert_int_eq(ms_run_cpu(&m, &tasks[k], &one, &o, &a, &err), GD_OK);
            ck_assert_msg(ms_run_cpu(&m, &tasks[k], &two, &o, &b, &err) == GD_OK, "%s", err.msg);
            ck_assert_msg(fabs(a.checksum - b.checksum) <= 1e-9 * fabs(a.checksum) + 1e-9,
                          "%s path %d: %.17g vs %.17g", cm_kind_name(k), path,
                          a.checksum, b.checksum);
            ck_assert(a.checksum != 0);
        }
}
END_TEST

/* Independent, naive versions of the five results (2-D indexing, no
 * shortcuts), summed: what ms_reference_sum must equal. */
static double naive_sum(const cm_task *t)
{
    long n = t->dims[0], N = t->dims[1], K = t->dims[2];
    double s = 0;
    if (t->kind == CM_TRIAD || t->kind == CM_DOT || t->kind == CM_MAP) {
        for (long i = 0; i < n; i++) {
            float b = (float)(i % 13) * 0.25f, c = (float)(i % 11) * 0.5f;
            if (t->kind == CM_TRIAD)
                s += b + 3.0f * c;
            else if (t->kind == CM_DOT)
                s += (double)b * c;
            else {
                for (long k = 0; k < N; k++)
                    b = b * 0.999999f + 0.5f;
                s += b;
            }
        }
    } else if (t->kind == CM_GEMM) {
        for (long r = 0; r < n; r++)
            for (long j = 0; j < N; j++) {
                float acc = 0;
                for (long p = 0; p < K; p++)
                    acc += (float)((r * K + p) % 17) * 0.125f *
                           ((float)((p * N + j) % 13) * 0.25f);
                s += acc;
            }
    } else {                             /* jacobi, zero rows above and below */
        float g[2][12][9] = {{{0}}};
        ck_assert(n <= 10 && N <= 9);
        for (long r = 0; r < n; r++)
            for (long c = 0; c < N; c++)
                g[0][r + 1][c] = (float)((r * N + c) % 17) * 0.125f;
        for (long it = 0; it < K; it++) {
            float (*a)[9] = g[it % 2], (*b)[9] = g[(it + 1) % 2];
            for (long r = 1; r <= n; r++)
                for (long c = 0; c < N; c++)
                    b[r][c] = c == 0 || c == N - 1 ? a[r][c]
                            : 0.2f * (a[r][c] + a[r - 1][c] + a[r + 1][c] +
                                      a[r][c - 1] + a[r][c + 1]);
        }
        for (long r = 1; r <= n; r++)
            for (long c = 0; c < N; c++)
                s += g[K % 2][r][c];
    }
    return s;
}

START_TEST(reference_sums_are_the_tasks_results)
{
    cm_task tasks[] = {{CM_TRIAD, {1009, 0, 0}, 4}, {CM_DOT, {1009, 0, 0}, 4},
                       {CM_GEMM, {13, 24, 37}, 4}, {CM_JACOBI, {10, 9, 5}, 4},
                       {CM_MAP, {1009, 40, 0}, 4}, {CM_MAP, {7, 3, 0}, 4}};
    gd_err err = {0, ""};
    for (int k = 0; k < 6; k++) {
        double ref = 0, naive = naive_sum(&tasks[k]);
        ck_assert_int_eq(ms_reference_sum(&tasks[k], &ref, &err), GD_OK);
        ck_assert_msg(fabs(ref - naive) <= 1e-12 * fabs(naive), "%s: %.17g vs %.17g",
                      cm_kind_name(tasks[k].kind), ref, naive);
        ck_assert(ref > 0);
        /* one chunk's worth too much or too little is caught */
        ck_assert_int_eq(ms_check_sum("measure-x", 3, ref, ref, &err), GD_OK);
        ck_assert_int_eq(ms_check_sum("measure-x", 3, ref * (1 + 1e-4), ref, &err), GD_EENV);
        ck_assert_msg(strstr(err.msg, "measure-x: run 3's result sums to"), "%s", err.msg);
    }
}
END_TEST

/* Only where a GPU answers (the device check of a session lent one; CI has
 * none, and cuda_without_gpu_says_skipped covers that side): every class
 * split over the two devices of uni-server-2gpu-induced, sync and
 * pipelined, host and peer halos, computes the task's exact result. */
START_TEST(cuda_splits_compute_the_task_and_time_it)
{
    int gpus = ms_cuda_devices();
    if (gpus <= 0)
        return;
    cm_machine m;
    gd_err err = {0, ""};
    ck_assert_int_eq(mach_load("uni-server-2gpu-induced", &m, &err), GD_OK);
    cm_task tasks[] = {{CM_TRIAD, {1000003, 0, 0}, 4}, {CM_DOT, {1000003, 0, 0}, 4},
                       {CM_GEMM, {301, 128, 96}, 4}, {CM_JACOBI, {257, 300, 9}, 4},
                       {CM_MAP, {1000003, 64, 0}, 4}};
    ms_opts o = {3, 1};
    for (int k = 0; k < 5; k++)
        for (int v = 0; v < 4; v++) {
            cm_decision d;
            memset(&d, 0, sizeof d);
            d.n = 2;
            util_strlcpy(d.dev[0], "gpu0", CM_NAMELEN);
            util_strlcpy(d.dev[1], "gpu1", CM_NAMELEN);
            d.share[0] = 0.63;
            d.share[1] = 0.37;
            d.chunk = k == CM_GEMM ? 50 : k == CM_JACOBI ? 40 : 99991;
            d.block = 128;
            d.mode = v & 1 ? CM_PIPELINED : CM_SYNC;
            d.path = v & 2 ? CM_P2P : CM_HOST;
            d.dynamic = v == 3 && k != CM_JACOBI;
            ck_assert_int_eq(cm_validate(&m, &tasks[k], &d, &err), GD_OK);
            ms_stat st;
            int rc = ms_run_cuda(&m, &tasks[k], &d, &o, &st, &err);
            if (d.dynamic && gpus < 2) {     /* needs the devices apart */
                ck_assert_int_eq(rc, GD_EENV);
                ck_assert(st.skipped);
                ck_assert_msg(strstr(err.msg, "one GPU per device"), "%s", err.msg);
                continue;
            }
            ck_assert_msg(rc == GD_OK, "%s v%d: %s", cm_kind_name(k), v, err.msg);
            ck_assert(st.n == 3 && st.median > 0 && st.q1 <= st.median && st.median <= st.q3);
            ck_assert_int_eq(st.time_sliced, gpus < 2);
            double ref;
            ck_assert_int_eq(ms_reference_sum(&tasks[k], &ref, &err), GD_OK);
            ck_assert(fabs(st.checksum - ref) <= 1e-5 * ref);
        }
    /* host links: a copy ladder fits latency and bandwidth per direction */
    scal_host_links hl;
    ck_assert_msg(scal_fit_host_links(&m, scal_copy_cuda, &o, &hl, &err) == GD_OK, "%s", err.msg);
    ck_assert_int_eq(hl.nlinks, 4);
    for (int i = 0; i < hl.nlinks; i++) {
        const cm_device *dv = &m.dev[hl.links[i].dev];
        const cm_num *bw = hl.links[i].h2d ? &dv->h2d_bw : &dv->d2h_bw;
        ck_assert(bw->prov == CM_MEASURED && bw->v == hl.links[i].bw);
        ck_assert_msg(hl.links[i].bw > 1e9 && hl.links[i].r2 > 0.9 &&
                      hl.links[i].lat < 1e-3, "link %d: %g B/s, r2 %g, lat %g", i,
                      hl.links[i].bw, hl.links[i].r2, hl.links[i].lat);
    }
    /* the half-speed card is slower on kernel-bound work */
    cm_task heavy = {CM_MAP, {1 << 20, 65536, 0}, 4};
    ms_stat fast, slow;
    for (int dev = 0; dev < 2; dev++) {
        cm_decision d;
        cm_single_decision(&m, dev, 1 << 20, &d);
        ck_assert_int_eq(cm_validate(&m, &heavy, &d, &err), GD_OK);
        ck_assert_msg(ms_run_cuda(&m, &heavy, &d, &o, dev ? &slow : &fast, &err) == GD_OK,
                      "%s", err.msg);
    }
    ck_assert_msg(slow.median > 1.5 * fast.median, "slow %g fast %g", slow.median,
                  fast.median);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("split");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, predicted_run_is_deterministic_and_labelled);
    tcase_add_test(tc, split_manifest_has_the_engine_format);
    tcase_add_test(tc, status_and_analyze_read_a_split_run);
    tcase_add_test(tc, measured_run_keeps_labels_apart);
    tcase_add_test(tc, predicted_run_resumes_from_a_torn_journal);
    tcase_add_test(tc, killed_measured_run_resumes_without_remeasuring);
    tcase_add_test(tc, second_copy_on_a_run_directory_is_locked_out);
    tcase_add_test(tc, bad_campaigns_fail_with_file_line_and_leave_nothing);
    tcase_add_test(tc, cuda_without_gpu_says_skipped);
    tcase_add_test(tc, probe_writes_measured_machine);
    tcase_add_test(tc, measured_kernels_time_and_slow_down);
    tcase_add_test(tc, split_results_equal_single_device_results);
    tcase_add_test(tc, reference_sums_are_the_tasks_results);
    tcase_add_test(tc, missing_fonts_keep_the_results_and_say_what_to_install);
    tcase_add_test(tc, cuda_splits_compute_the_task_and_time_it);
    tcase_add_test(tc, split_backends_are_one_seam);
    tcase_add_test(tc, split_stage_does_not_call_the_report);
    tcase_add_test(tc, run_directory_of_the_old_split_runner_resumes);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
