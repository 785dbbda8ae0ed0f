/* test_layers: the source folders stand in layers and the includes run
 * downwards (tests/layers.sh, README "Source layout"; issue 25): the tree
 * passes, and the check fails on a tree with an include that points up a
 * layer, one that points sideways to a folder of the same layer, an include
 * cycle between headers or between modules (.c/.h pairs, a NAME_impl.h in
 * module NAME), an include of no file, or a built folder that has no
 * layer. */
#include "testrun.h"

/* Write text into T/rel, making its folder. */
static void put(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", T, rel);
    ck_assert_int_eq(shf("mkdir -p \"$(dirname '%s')\"", path), 0);
    tu_write(path, text);
}

START_TEST(the_tree_keeps_its_layers)
{
    char out[16384];
    capture("sh tests/layers.sh 2>&1; echo rc=$?", out, sizeof out);
    ck_assert_msg(strstr(out, "rc=0") != NULL, "layers broken:\n%s", out);
}
END_TEST

START_TEST(upward_sideways_cyclic_and_unplaced_includes_fail)
{
    shf("rm -rf %s", T);
    /* the vocabulary reaching up into the engine */
    put("pipeline/engine/engine.h", "int eng(void);\n");
    put("pipeline/core/campaign.c", "#include \"engine.h\"\n");
    /* report and compare share a layer: neither includes the other */
    put("pipeline/compare/compare.h", "int cmp(void);\n");
    put("report/report.c", "#include \"compare.h\"\n");
    /* two headers of one folder including each other */
    put("pipeline/model/a.h", "#include \"b.h\"\n");
    put("pipeline/model/b.h", "#include \"a.h\"\n");
    put("pipeline/search/s.c", "#include \"nowhere.h\"\n");
    /* two modules whose .c files include each other's headers, one of
     * them through its _impl.h */
    put("pipeline/backends/m1.h", "int m1(void);\n");
    put("pipeline/backends/m1_impl.h", "#include \"m1.h\"\n");
    put("pipeline/backends/m1.c", "#include \"m2.h\"\n");
    put("pipeline/backends/m2.h", "int m2(void);\n");
    put("pipeline/backends/m2.c", "#include \"m1_impl.h\"\n");
    /* a module's own headers including each other's is no cycle */
    put("pipeline/backends/k.h", "int k(void);\n");
    put("pipeline/backends/k_int.h", "#include \"k.h\"\n");
    put("pipeline/backends/k.c", "#include \"k_int.h\"\n#include \"m2.h\"\n");
    /* downwards is fine */
    put("pipeline/cli/main.c", "#include \"engine.h\"\n#include \"a.h\"\n");
    /* a folder the Makefile builds that the table does not place */
    put("Makefile", "print-srcdirs:\n\t@echo pipeline/core pipeline/extra\n");
    char cmd[1024], out[16384];
    snprintf(cmd, sizeof cmd, "sh tests/layers.sh %s 2>&1; echo rc=$?", T);
    capture(cmd, out, sizeof out);
    ck_assert_msg(strstr(out, "rc=1"), "%s", out);
    ck_assert_msg(strstr(out, "pipeline/core/campaign.c: includes "
                         "pipeline/engine/engine.h, which is a higher layer"),
                  "%s", out);
    ck_assert_msg(strstr(out, "report/report.c: includes "
                         "pipeline/compare/compare.h, of pipeline/compare, on "
                         "the same layer"), "%s", out);
    ck_assert_msg(strstr(out, "include cycle between headers")
                  && strstr(out, "pipeline/model/a.h")
                  && strstr(out, "pipeline/model/b.h"), "%s", out);
    ck_assert_msg(strstr(out, "include cycle between modules")
                  && strstr(out, "pipeline/backends/m1\n")
                  && strstr(out, "pipeline/backends/m2\n"), "%s", out);
    ck_assert_msg(!strstr(out, "pipeline/backends/k"), "%s", out);
    ck_assert_msg(strstr(out, "pipeline/search/s.c: #include \"nowhere.h\" "
                         "names no file"), "%s", out);
    ck_assert_msg(strstr(out, "SRCDIRS folder pipeline/extra has no layer"),
                  "%s", out);
    ck_assert_msg(!strstr(out, "pipeline/cli/main.c"), "%s", out);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("layers");
    TCase *t = tcase_create("includes");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, the_tree_keeps_its_layers);
    tcase_add_test(t, upward_sideways_cyclic_and_unplaced_includes_fail);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_main("layers", suite);
}
