/* test_simenv: gpudse in a GPGPU-Sim user's shell — a fake libcudart.so
 * first on LD_LIBRARY_PATH (what GPGPU-Sim's setup_environment does) is
 * never loaded into gpudse itself: the binary has no NEEDED libcudart and
 * the CUDA build links the runtime statically. Also `gpudse validate` on a
 * gpgpusim campaign: the root's libcudart, the templates and each
 * workload's program are checked, and the first job is printed. */
#include "testrun.h"
#include <limits.h>
#include <sys/stat.h>

static char T[256];

static const char *tp(const char *suffix)
{
    static char pool[8][512];
    static int next;
    char *b = pool[next++ % 8];
    snprintf(b, 512, "%s%s", T, suffix);
    return b;
}

static char root[PATH_MAX];

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
    /* the fake works: forced into gpudse, it takes it over */
    shf("rm -f %s", mark);
    ck_assert_int_eq(shf("FAKECUDART_MARK=%s LD_PRELOAD=%s/lib/libcudart.so.13 "
                         "%s --version >/dev/null 2>&1", mark, T, tu_bin()), 1);
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

static Suite *suite(void)
{
    Suite *s = suite_create("simenv");
    TCase *t = tcase_create("cudart");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, fake_cudart_first_on_path_is_not_loaded);
    tcase_add_test(t, binary_needs_no_shared_cudart);
    tcase_add_test(t, cuda_build_links_runtime_statically);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    snprintf(T, sizeof T, "tests/tmp/simenv-%ld", (long)getpid());
    shf("rm -rf %s; mkdir -p %s", T, T);
    if (!getcwd(root, sizeof root))
        return 1;
    int rc = tu_run_suite(suite());
    if (rc == 0)
        shf("rm -rf %s", T);
    return rc;
}
