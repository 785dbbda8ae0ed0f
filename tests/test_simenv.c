/* test_simenv: gpudse in a GPGPU-Sim user's shell — a fake libcudart.so
 * first on LD_LIBRARY_PATH (what GPGPU-Sim's setup_environment does) is
 * never loaded into gpudse itself: the binary has no NEEDED libcudart and
 * the CUDA build links the runtime statically. Also `gpudse validate` on a
 * gpgpusim campaign: the root's libcudart, the templates and each
 * workload's program are checked, and the first job is printed. */
#include "testrun.h"
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>
#include "campaign.h"
#include "preflight.h"
#include "model.h"
#include "util.h"
#include "verify.h"
#include "verification.h"


/* A libcudart whose constructor prints a banner, leaves a mark file
 * ($FAKECUDART_MARK) and exits 1, as a GPGPU-Sim libcudart without
 * gpgpusim.config does; under every soname a CUDA program may ask for. */
static void build_fake_cudart(const char *dir)
{
    char src[600];
    snprintf(src, sizeof src, "%s/fake_cudart.c", dir);
    tu_write(src,
        "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
        "__attribute__((constructor)) static void fake(void) {\n"
        "  const char *m = getenv(\"FAKECUDART_MARK\");\n"
        "  if (m) { FILE *f = fopen(m, \"w\"); if (f) fclose(f); }\n"
        "  fputs(\"GPGPU-Sim PTX: FAKE libcudart loaded\\n\", stderr);\n"
        "  fputs(\"GPGPU-Sim ** ERROR: Cannot open config file "
        "'gpgpusim.config'\\n\", stderr);\n"
        "  _exit(1);\n}\n"
        "int cudaGetDeviceCount(int *n) { *n = 0; return 0; }\n");
    ck_assert_int_eq(shf("mkdir -p %s/lib && cc -shared -fPIC -o "
                         "%s/lib/libcudart.so.13 %s", dir, dir, src), 0);
    ck_assert_int_eq(shf("cd %s/lib && for v in libcudart.so libcudart.so.12 "
                         "libcudart.so.11.0 libcudart.so.10.1; do "
                         "cp libcudart.so.13 $v; done", dir), 0);
}

START_TEST(fake_cudart_first_on_path_is_not_loaded)
{
    build_fake_cudart(T);
    const char *mark = tp("/loaded");
    /* the fake works: forced into a program, it takes it over */
    shf("rm -f %s", mark);
    ck_assert_int_eq(shf("FAKECUDART_MARK=%s LD_PRELOAD=%s/lib/libcudart.so.13 "
                         "/bin/true >/dev/null 2>&1", mark, T), 1);
    ck_assert_int_eq(access(mark, F_OK), 0);
    shf("rm -f %s", mark);
    /* first on LD_LIBRARY_PATH, as in a GPGPU-Sim shell: not loaded */
    char out[4096];
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "FAKECUDART_MARK=%s LD_LIBRARY_PATH=%s/lib "
             "%s --version 2>&1", mark, T, tu_bin());
    capture(cmd, out, sizeof out);
    ck_assert_msg(strncmp(out, "gpudse ", 7) == 0, "%s", out);
    ck_assert_msg(!strstr(out, "FAKE"), "%s", out);
    ck_assert_int_eq(shf("FAKECUDART_MARK=%s LD_LIBRARY_PATH=%s/lib "
                         "%s --version >/dev/null 2>&1", mark, T, tu_bin()), 0);
    /* a tiny analytic campaign validates and runs to its report */
    tu_write(tp("/tiny.xml"),
        "<campaign name=\"tiny\" seed=\"1\">\n"
        "  <simulator backend=\"analytic\"/>\n"
        "  <workloads><workload name=\"vecadd\"/></workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"15 30\"/></space>\n"
        "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
        "  <report formats=\"svg\"/>\n"
        "</campaign>\n");
    ck_assert_int_eq(shf("FAKECUDART_MARK=%s LD_LIBRARY_PATH=%s/lib "
                         "%s validate %s >/dev/null", mark, T, tu_bin(),
                         tp("/tiny.xml")), 0);
    ck_assert_int_eq(shf("FAKECUDART_MARK=%s LD_LIBRARY_PATH=%s/lib "
                         "%s run %s -q -o %s >/dev/null", mark, T, tu_bin(),
                         tp("/tiny.xml"), tp("/tiny-run")), 0);
    ck_assert_int_eq(shf("test -s %s/results.csv", tp("/tiny-run")), 0);
    ck_assert_int_ne(access(mark, F_OK), 0);
}
END_TEST

START_TEST(binary_needs_no_shared_cudart)
{
    char out[16384];
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "readelf -d %s 2>&1", tu_bin());
    capture(cmd, out, sizeof out);
    ck_assert_msg(strstr(out, "(NEEDED)") != NULL, "readelf: %s", out);
    ck_assert_msg(!strstr(out, "libcudart"), "gpudse needs libcudart: %s",
                  out);
    ck_assert_msg(!strstr(out, "(RPATH)") && !strstr(out, "(RUNPATH)"),
                  "gpudse has a run path: %s", out);
}
END_TEST

/* The CUDA build (where nvcc exists) links the static runtime: make's
 * link line with a stand-in nvcc, printed and not run. */
START_TEST(cuda_build_links_runtime_statically)
{
    char out[16384];
    capture("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -B "
            "--no-print-directory NVCC=/bin/true CUDA_HOME=/opt/fakecuda "
            "B=tests/tmp/simenv-nobuild BIN=tests/tmp/simenv-nobuild/gpudse "
            "tests/tmp/simenv-nobuild/gpudse 2>&1 | grep -e '-o "
            "tests/tmp/simenv-nobuild/gpudse '", out, sizeof out);
    ck_assert_msg(strstr(out, "-lcudart_static"), "link line: %s", out);
    ck_assert_msg(!strstr(out, "-lcudart ") && !strstr(out, "rpath"),
                  "link line: %s", out);
}
END_TEST

/* A stand-in GPGPU-Sim build: ROOT/lib/gcc-9.4.0/cuda-11000/release/
 * libcudart.so holding the text `build` (its hash is the build identity;
 * the fake simulator, a shell script, never loads it). */
static void make_sim_root(const char *dir, const char *build)
{
    ck_assert_int_eq(shf("mkdir -p %s/lib/gcc-9.4.0/cuda-11000/release && "
                         "printf '%%s' '%s' > %s/lib/gcc-9.4.0/cuda-11000/"
                         "release/libcudart.so", dir, build, dir), 0);
}

/* A gpgpusim campaign on the fake simulator replaying the real vecadd log,
 * n_clusters 15 and 30, with the given objectives and extra <simulator>
 * attributes. */
static void write_sim_campaign(const char *path, const char *name,
                               const char *simattrs, const char *objectives)
{
    char text[4096];
    snprintf(text, sizeof text,
        "<campaign name=\"%s\" seed=\"1\">\n"
        "  <simulator backend=\"gpgpusim\" root=\"%s/%s/sim\" %s/>\n"
        "  <workloads><workload name=\"vecadd\"><command>%s/tests/fakesim/"
        "fakesim.sh replay %s/tests/data/gpgpusim/vecadd-baseline.log.gz"
        "</command></workload></workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"15 30\"/></space>\n"
        "  <objectives>%s</objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
        "  <execution jobs=\"2\" timeout=\"20\"/>\n"
        "  <report formats=\"svg\"/>\n"
        "</campaign>\n", name, root, T, simattrs, root, root, objectives);
    tu_write(path, text);
}

/* Issue 21.2: a measured record carries area_mm2 from the area model and
 * says so; a campaign minimizing area has a front. */
START_TEST(measured_records_carry_modelled_area)
{
    make_sim_root(tp("/sim"), "build-1");
    write_sim_campaign(tp("/area.xml"), "area", "",
                       "<maximize metric=\"ipc\"/>"
                       "<minimize metric=\"area_mm2\"/>");
    gd_err err;
    int rc = run(tp("/area.xml"), tp("/area-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_OK, "rc %d: %s", rc, err.msg);
    size_t n;
    store_record *r = load(tp("/area-run"), &n);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        double a, ipc;
        ck_assert_str_eq(r[i].fidelity, "measured");
        ck_assert_int_eq(r[i].status, ST_OK);
        ck_assert(met_get(&r[i].metrics, "ipc", &ipc) == 0);
        ck_assert(met_get(&r[i].metrics, "area_mm2", &a) == 0);
        ck_assert(a == model_area_mm2(&r[i].cfg));
        ck_assert_str_eq(r[i].modelled, "area_mm2");
    }
    free(r);
    ck_assert_int_eq(shf("grep -c '\"modelled_metrics\":\\[\"area_mm2\"\\]' "
                         "%s/results.jsonl | grep -qx 2", tp("/area-run")), 0);
    ck_assert_int_eq(shf("head -1 %s/results.csv | grep -q "
                         "'reason,modelled_metrics,' && grep -c "
                         "',measured,ok,,area_mm2,' %s/results.csv | "
                         "grep -qx 2", tp("/area-run"), tp("/area-run")), 0);
    /* the front is not empty */
    char *text;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/analysis.json", tp("/area-run"));
    ck_assert(util_read_file(path, &text, NULL, &err) == GD_OK);
    cJSON *a = cJSON_Parse(text);
    free(text);
    const cJSON *w = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(a, "workloads"), 0);
    ck_assert_int_ge(cJSON_GetArraySize(
        cJSON_GetObjectItemCaseSensitive(w, "front")), 1);
    cJSON_Delete(a);
    /* the command backend: area_mm2 without a <metric> of that name comes
     * from the area model too */
    tu_write(tp("/cmd.xml"),
        "<campaign name=\"cmd\" seed=\"1\">\n"
        "  <simulator backend=\"command\">\n"
        "    <command>echo IPC=2.5</command>\n"
        "    <metric name=\"ipc\" regex=\"IPC=([0-9.]+)\"/>\n"
        "  </simulator>\n"
        "  <workloads><workload name=\"w\"/></workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"15 30\"/></space>\n"
        "  <objectives><maximize metric=\"ipc\"/><minimize "
        "metric=\"area_mm2\"/></objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"2\"/>\n"
        "  <report formats=\"svg\"/>\n"
        "</campaign>\n");
    rc = run(tp("/cmd.xml"), tp("/cmd-run"), &err, NULL, NULL);
    ck_assert_msg(rc == GD_OK, "rc %d: %s", rc, err.msg);
    r = load(tp("/cmd-run"), &n);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        double v;
        ck_assert(met_get(&r[i].metrics, "area_mm2", &v) == 0
                  && v == model_area_mm2(&r[i].cfg));
        ck_assert_str_eq(r[i].modelled, "area_mm2");
    }
    free(r);
}
END_TEST

/* Issue 21.3, any external backend: a failed job's reason ends with what
 * the program said last on stderr. */
START_TEST(command_failure_reason_has_last_lines)
{
    tu_write(tp("/fail.sh"), "echo progress 1\necho 'license server: no "
             "seat free' >&2\nexit 3\n");
    char text[2048];
    snprintf(text, sizeof text,
        "<campaign name=\"cf\" seed=\"1\">\n"
        "  <simulator backend=\"command\">\n"
        "    <command>sh %s/%s/fail.sh</command>\n"
        "    <metric name=\"ipc\" regex=\"IPC=([0-9.]+)\"/>\n"
        "  </simulator>\n"
        "  <workloads><workload name=\"w\"/></workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"15\"/></space>\n"
        "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"1\"/>\n"
        "  <report formats=\"svg\"/>\n"
        "</campaign>\n", root, T);
    tu_write(tp("/cf.xml"), text);
    gd_err err;
    ck_assert_int_eq(run(tp("/cf.xml"), tp("/cf-run"), &err, NULL, NULL),
                     GD_EJOBS);
    size_t n;
    store_record *r = load(tp("/cf-run"), &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(r[0].reason, "exit code 3: license server: no seat free");
    free(r);
}
END_TEST

/* Issue 21.2: an objective the set-up cannot produce is rejected at its
 * line by validate and run (exit 2), never an empty front. */
START_TEST(unproducible_objective_rejected)
{
    make_sim_root(tp("/sim"), "build-1");
    ck_assert_int_eq(shf("mkdir -p %s/nopower && cp templates/gpgpusim/* "
                         "%s/nopower/ && sed -i 's/^-power_simulation_enabled"
                         " 1/-power_simulation_enabled 0/' "
                         "%s/nopower/gpgpusim.config", T, T, T), 0);
    char attrs[600];
    snprintf(attrs, sizeof attrs, "config=\"%s/%s/nopower\"", root, T);
    write_sim_campaign(tp("/pw.xml"), "pw", attrs,
                       "\n    <maximize metric=\"ipc\"/>\n"
                       "    <minimize metric=\"power_w\"/>");
    camp_campaign c;
    gd_err err;
    ck_assert_int_eq(preflight_load(tp("/pw.xml"), &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "pw.xml:7: objective on metric \"power_w\"")
                  && strstr(err.msg, "-power_simulation_enabled 1"), "%s",
                  err.msg);
    ck_assert_int_eq(shf("%s validate %s 2>/dev/null", tu_bin(),
                         tp("/pw.xml")), 2);
    ck_assert_int_eq(shf("%s run %s -q -o %s 2>/dev/null", tu_bin(),
                         tp("/pw.xml"), tp("/pw-run")), 2);
    ck_assert_int_ne(access(tp("/pw-run"), F_OK), 0);
    /* with power on (the built-in templates) it validates */
    write_sim_campaign(tp("/pw2.xml"), "pw2", "",
                       "<minimize metric=\"power_w\"/>");
    ck_assert_msg(preflight_load(tp("/pw2.xml"), &c, &err) == GD_OK, "%s", err.msg);
    camp_free(&c);
}
END_TEST

/* gpudse's stderr (exit status in *rc) for `gpudse ARGS`. */
static void gpudse_err(const char *args, int *rc, char *out, size_t n)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1 >/dev/null; echo \"rc=$?\"",
             tu_bin(), args);
    capture(cmd, out, n);
    char *at = strstr(out, "rc=");
    ck_assert_ptr_nonnull(at);
    *rc = atoi(at + 3);
}

/* Issue 21.4 and 24.6: validate checks what run needs, with the line. */
START_TEST(validate_checks_root_and_programs)
{
    char out[8192], args[1024];
    int rc;
    /* a root without lib/.../libcudart.so */
    ck_assert_int_eq(shf("rm -rf %s/sim && mkdir -p %s/sim", T, T), 0);
    write_sim_campaign(tp("/v.xml"), "v", "", "<maximize metric=\"ipc\"/>");
    snprintf(args, sizeof args, "validate %s", tp("/v.xml"));
    gpudse_err(args, &rc, out, sizeof out);
    ck_assert_msg(rc == 2 && strstr(out, "v.xml:2: simulator root")
                  && strstr(out, "has no lib/.../libcudart.so"), "%s", out);
    snprintf(args, sizeof args, "run %s -q -o %s", tp("/v.xml"),
             tp("/v-run"));
    gpudse_err(args, &rc, out, sizeof out);
    ck_assert_msg(rc == 2 && strstr(out, "has no lib/.../libcudart.so"),
                  "%s", out);
    ck_assert_int_ne(access(tp("/v-run"), F_OK), 0);
    /* a root that is not a folder */
    tu_write(tp("/notdir"), "x");
    snprintf(args, sizeof args, "root=\"%s/%s/notdir\"", root, T);
    tu_write(tp("/nd.xml"),
        "<campaign name=\"nd\">\n"
        "  <simulator backend=\"gpgpusim\" root=\"notdir\"/>\n"
        "  <workloads><workload name=\"a\"><command>true</command>"
        "</workload></workloads>\n"
        "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
        "  <search strategy=\"random\" budget=\"1\"/>\n"
        "</campaign>\n");
    snprintf(args, sizeof args, "validate %s", tp("/nd.xml"));
    gpudse_err(args, &rc, out, sizeof out);
    ck_assert_msg(rc == 2 && strstr(out, "nd.xml:2: simulator root")
                  && strstr(out, "is not a folder"), "%s", out);
    /* a workload whose program does not exist, or is relative */
    make_sim_root(tp("/sim"), "build-1");
    const char *bad[][2] = {
        {"CUDA_VISIBLE_DEVICES=0 /no/such/prog --x",
         "program /no/such/prog is not a program"},
        {"./vecadd", "program ./vecadd is a relative path"},
        {"no-such-program-xyz 1", "program no-such-program-xyz is not on "
         "PATH"},
        {"'/no/such dir/prog'", "program /no/such dir/prog is not a "
         "program"},
    };
    for (int i = 0; i < 4; i++) {
        char text[2048];
        snprintf(text, sizeof text,
            "<campaign name=\"p\">\n"
            "  <simulator backend=\"gpgpusim\" root=\"sim\"/>\n"
            "  <workloads>\n"
            "    <workload name=\"a\"><command>true</command></workload>\n"
            "    <workload name=\"b\"><command>%s</command></workload>\n"
            "  </workloads>\n"
            "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
            "  <search strategy=\"random\" budget=\"1\"/>\n"
            "</campaign>\n", bad[i][0]);
        tu_write(tp("/p.xml"), text);
        snprintf(args, sizeof args, "validate %s", tp("/p.xml"));
        gpudse_err(args, &rc, out, sizeof out);
        ck_assert_msg(rc == 2 && strstr(out, "p.xml:5: workload b: ")
                      && strstr(out, bad[i][1]), "%s", out);
    }
    /* a good set-up: ok, and the first job printed as run will start it */
    snprintf(args, sizeof args, "cd %s && %s/%s validate v.xml", T, root,
             tu_bin());
    capture(args, out, sizeof out);
    ck_assert_msg(strstr(out, ": ok: campaign v, backend gpgpusim"), "%s",
                  out);
    ck_assert_msg(strstr(out, "first job (the search's first proposal): "
                          "workload vecadd"), "%s", out);
    char want[1024];
    snprintf(want, sizeof want, "    LD_LIBRARY_PATH=%s/%s/sim/lib/gcc-9.4.0/"
             "cuda-11000/release", root, T);
    ck_assert_msg(strstr(out, want), "%s", out);
    snprintf(want, sizeof want, "    GPGPUSIM_ROOT=%s/%s/sim\n", root, T);
    ck_assert_msg(strstr(out, want), "%s", out);
    ck_assert_msg(strstr(out, "fakesim.sh' replay '") || strstr(out,
                  "fakesim.sh replay"), "%s", out);
    const char *wd = strstr(out, "working directory: runs/v/jobs/");
    ck_assert_msg(wd != NULL, "%s", out);
    char key[65];
    memcpy(key, wd + strlen("working directory: runs/v/jobs/"), 64);
    key[64] = '\0';
    /* that is the directory run gives the job */
    ck_assert_int_eq(shf("cd %s && %s/%s run v.xml -q >/dev/null", T, root,
                         tu_bin()), 0);
    ck_assert_int_eq(shf("test -f %s/runs/v/jobs/%s/gpgpusim.config", T, key),
                     0);
    /* and its "by hand" line runs it */
    const char *hand = strstr(out, "  by hand: ");
    ck_assert_ptr_nonnull(hand);
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(hand + 11, "\n"),
             hand + 11);
    tu_write(tp("/hand.sh"), line);
    ck_assert_int_eq(shf("cd %s && sh hand.sh | grep -q '^gpu_tot_ipc'", T),
                     0);
}
END_TEST

/* Issue 24.6: a split study that run accepts, validate accepts. */
START_TEST(validate_accepts_split_studies)
{
    char a[4096], b[4096];
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s validate campaigns/split-local.xml 2>&1; "
             "echo rc=$?", tu_bin());
    capture(cmd, a, sizeof a);
    snprintf(cmd, sizeof cmd, "%s split validate campaigns/split-local.xml "
             "2>&1; echo rc=$?", tu_bin());
    capture(cmd, b, sizeof b);
    ck_assert_msg(strstr(a, "rc=0") && strstr(a, ": ok: split study"), "%s",
                  a);
    ck_assert_str_eq(a, b);
}
END_TEST

/* Issue 21.5: the simulator's build and the config templates are in the
 * job key and the manifest: changing either never reuses old results. */
START_TEST(simulator_build_and_templates_in_job_key)
{
    make_sim_root(tp("/sim"), "build-1 gpgpu-sim_git-commit-90ec3399_modified_0");
    ck_assert_int_eq(shf("rm -rf %s/tpl && mkdir -p %s/tpl && "
                         "cp templates/gpgpusim/* %s/tpl/", T, T, T), 0);
    char attrs[600];
    snprintf(attrs, sizeof attrs, "config=\"%s/%s/tpl\"", root, T);
    write_sim_campaign(tp("/id.xml"), "id", attrs,
                       "<maximize metric=\"ipc\"/>");
    gd_err err;
    size_t n;
    ck_assert_int_eq(run(tp("/id.xml"), tp("/id-run"), &err, NULL, NULL),
                     GD_OK);
    free(load(tp("/id-run"), &n));
    ck_assert_uint_eq(n, 2);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/manifest.json", tp("/id-run"));
    char *man = tu_slurp(path, NULL);
    ck_assert_msg(strstr(man, "gpgpu-sim_git-commit-90ec3399_modified_0")
                  && strstr(man, "\"libcudart\"")
                  && strstr(man, "gpgpusim.config ")
                  && strstr(man, "\"fingerprint\""), "%s", man);
    free(man);
    /* unchanged: resumed, nothing runs again */
    ck_assert_int_eq(run(tp("/id.xml"), tp("/id-run"), &err, NULL, NULL),
                     GD_OK);
    free(load(tp("/id-run"), &n));
    ck_assert_uint_eq(n, 2);
    /* a rebuilt simulator changes the campaign's identity: the old
     * directory is refused naming the simulator (never a mix of two
     * builds' results), and a new one runs every job again with the new
     * build in its keys */
    make_sim_root(tp("/sim"), "build-2 gpgpu-sim_git-commit-aaaa_modified_1");
    ck_assert_int_eq(run(tp("/id.xml"), tp("/id-run"), &err, NULL, NULL),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "simulator"), "%s", err.msg);
    free(load(tp("/id-run"), &n));
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(run(tp("/id.xml"), tp("/id-run2"), &err, NULL, NULL),
                     GD_OK);
    size_t m;
    store_record *a = load(tp("/id-run"), &n), *b = load(tp("/id-run2"), &m);
    ck_assert_uint_eq(m, 2);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            ck_assert_str_ne(a[i].key, b[j].key);
    free(a);
    free(b);
    /* an edited template: refused likewise */
    ck_assert_int_eq(shf("echo '# edited' >> %s/tpl/gpgpusim.config", T), 0);
    ck_assert_int_eq(run(tp("/id.xml"), tp("/id-run2"), &err, NULL, NULL),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "simulator"), "%s", err.msg);
}
END_TEST

/* An analytic campaign verified on the command backend, one objective. */
static void load_verify_campaign(camp_campaign *c, int top)
{
    char text[2048];
    snprintf(text, sizeof text,
        "<campaign name=\"one\" seed=\"1\">\n"
        "  <simulator backend=\"analytic\"/>\n"
        "  <verify backend=\"command\" top=\"%d\">\n"
        "    <command>echo IPC=1</command>\n"
        "    <metric name=\"ipc\" regex=\"IPC=([0-9.]+)\"/>\n"
        "  </verify>\n"
        "  <workloads><workload name=\"vecadd\"/></workloads>\n"
        "  <space><knob name=\"n_clusters\" values=\"8 15 30 60\"/>"
        "<knob name=\"n_mem\" values=\"4 6 8 12\"/></space>\n"
        "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
        "  <search strategy=\"exhaustive\" budget=\"16\"/>\n"
        "</campaign>\n", top);
    tu_write(tp("/one.xml"), text);
    gd_err err;
    ck_assert_msg(preflight_load(tp("/one.xml"), c, &err) == GD_OK, "%s", err.msg);
}

static store_record mkrec(const char *backend, int nc, int nm, double ipc)
{
    store_record r;
    memset(&r, 0, sizeof r);
    util_strlcpy(r.workload, "vecadd", sizeof r.workload);
    util_strlcpy(r.backend, backend, sizeof r.backend);
    r.cfg = space_baseline();
    space_set(&r.cfg, KNOB_N_CLUSTERS, nc);
    space_set(&r.cfg, KNOB_N_MEM, nm);
    r.status = ST_OK;
    met_put(&r.metrics, "ipc", ipc);
    return r;
}

/* Issue 21.6: with one objective the verified configs are the top N by the
 * prediction, not only the configs tied at the model's best; ties are
 * spread across the tied set. */
START_TEST(single_objective_verifies_top_n)
{
    static const int ncs[] = {8, 15, 30, 60}, nms[] = {4, 6, 8, 12};
    store_record recs[16];
    size_t n = 0;
    /* 8 configs tied at the best (n_mem 4 and 6), the rest 1 per n_mem */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            recs[n++] = mkrec("analytic", ncs[i], nms[j],
                              nms[j] <= 6 ? 500.0 : 400.0 - nms[j] - ncs[i]);
    camp_campaign c;
    load_verify_campaign(&c, 10);
    gpu_config **fixed;
    size_t *nfixed;
    gd_err err;
    ck_assert_int_eq(verify_pick(&c, recs, n, &fixed, &nfixed, &err), GD_OK);
    /* all 8 tied, then the two next best (ipc 400-8-8, 400-12-8) */
    ck_assert_uint_eq(nfixed[0], 10);
    int tied = 0;
    for (size_t i = 0; i < nfixed[0]; i++)
        tied += space_get(&fixed[0][i], KNOB_N_MEM) <= 6;
    ck_assert_int_eq(tied, 8);
    ck_assert_int_eq(space_get(&fixed[0][8], KNOB_N_MEM), 8);
    ck_assert_int_eq(space_get(&fixed[0][8], KNOB_N_CLUSTERS), 8);
    ck_assert_int_eq(space_get(&fixed[0][9], KNOB_N_MEM), 12);
    ck_assert_int_eq(space_get(&fixed[0][9], KNOB_N_CLUSTERS), 8);
    verify_free(&c, fixed, nfixed);
    camp_free(&c);
    /* top 3 of the 8 tied: spread across them, both ends kept */
    load_verify_campaign(&c, 3);
    ck_assert_int_eq(verify_pick(&c, recs, n, &fixed, &nfixed, &err), GD_OK);
    ck_assert_uint_eq(nfixed[0], 3);
    int64_t a = space_index(&c.space, &fixed[0][0]);
    int64_t b = space_index(&c.space, &fixed[0][1]);
    int64_t d = space_index(&c.space, &fixed[0][2]);
    ck_assert(a < b && b < d);
    ck_assert_int_eq(space_get(&fixed[0][0], KNOB_N_CLUSTERS), 8);
    ck_assert_int_eq(space_get(&fixed[0][2], KNOB_N_CLUSTERS), 60);
    verify_free(&c, fixed, nfixed);
    camp_free(&c);
}
END_TEST

/* Issue 21.6: Spearman's rho over predictions that are all tied is
 * undefined (null, with why), not 0. */
START_TEST(spearman_undefined_when_tied)
{
    camp_campaign c;
    load_verify_campaign(&c, 3);
    store_record recs[6];
    for (int i = 0; i < 3; i++) {
        recs[i] = mkrec("analytic", 15, (int[]){4, 6, 8}[i], 500.0);
        recs[3 + i] = mkrec("command", 15, (int[]){4, 6, 8}[i],
                            400.0 + 10 * i);
    }
    cJSON *v = verification_json(&c, "vecadd", recs, 6);
    ck_assert_ptr_nonnull(v);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(v, "errors"), "ipc");
    const cJSON *rho = cJSON_GetObjectItemCaseSensitive(e, "spearman");
    char *txt = cJSON_PrintUnformatted(v);
    ck_assert_msg(cJSON_IsNull(rho), "%s", txt);
    ck_assert_msg(strstr(txt, "undefined: every predicted value is the same"),
                  "%s", txt);
    free(txt);
    cJSON_Delete(v);
    /* predictions that differ: a number */
    recs[0] = mkrec("analytic", 15, 4, 300.0);
    v = verification_json(&c, "vecadd", recs, 6);
    e = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(v, "errors"), "ipc");
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "spearman")));
    cJSON_Delete(v);
    /* a metric the measured records took from the model (area_mm2 of a
     * gpgpusim record) has no error to measure: a note, no MAPE */
    for (int i = 3; i < 6; i++)
        util_strlcpy(recs[i].modelled, "ipc", sizeof recs[i].modelled);
    v = verification_json(&c, "vecadd", recs, 6);
    e = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(v, "errors"), "ipc");
    ck_assert(cJSON_GetObjectItemCaseSensitive(e, "note") != NULL);
    ck_assert(cJSON_GetObjectItemCaseSensitive(e, "mape") == NULL);
    cJSON_Delete(v);
    camp_free(&c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("simenv");
    TCase *t = tcase_create("cudart");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, fake_cudart_first_on_path_is_not_loaded);
    tcase_add_test(t, binary_needs_no_shared_cudart);
    tcase_add_test(t, cuda_build_links_runtime_statically);
    suite_add_tcase(s, t);
    TCase *g = tcase_create("gpgpusim");
    tcase_set_timeout(g, 120);
    tcase_add_test(g, measured_records_carry_modelled_area);
    tcase_add_test(g, unproducible_objective_rejected);
    tcase_add_test(g, command_failure_reason_has_last_lines);
    tcase_add_test(g, validate_checks_root_and_programs);
    tcase_add_test(g, validate_accepts_split_studies);
    tcase_add_test(g, simulator_build_and_templates_in_job_key);
    tcase_add_test(g, single_objective_verifies_top_n);
    tcase_add_test(g, spearman_undefined_when_tied);
    suite_add_tcase(s, g);
    return s;
}

int main(void)
{
    return tu_main("simenv", suite);
}
