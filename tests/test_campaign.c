/* test_campaign: campaign files — valid ones load, and every kind of bad
 * input is reported as FILE:LINE with the right message and class. */
#include "testutil.h"
#include "campaign.h"
#include "preflight.h"
#include "backend.h"
#include "compare.h"
#include "strategy.h"

#define TMPDIR "tests/tmp/campaign"

static const char *head =
    "<campaign name=\"t\" seed=\"7\">\n"                     /* 1 */
    "  <simulator backend=\"analytic\"/>\n";                 /* 2 */

/* Write head + body to a file and load it; returns the code. */
static int load_text(const char *name, const char *body, gd_err *err,
                     camp_campaign *c)
{
    char path[256], text[8192];
    snprintf(path, sizeof path, TMPDIR "/%s.xml", name);
    snprintf(text, sizeof text, "%s%s", head, body);
    tu_write(path, text);
    memset(err, 0, sizeof *err);
    return preflight_load(path, c, err);
}

static const char *good_tail =
    "  <workloads><workload name=\"vecadd\"/></workloads>\n"  /* 3 */
    "  <objectives><maximize metric=\"ipc\"/></objectives>\n" /* 4 */
    "  <search strategy=\"random\" budget=\"5\"/>\n"          /* 5 */
    "</campaign>\n";

/* Expect code 2 and a message starting "FILE:LINE:" and containing want. */
static void expect_error(const char *name, const char *body, int line,
                         const char *want)
{
    gd_err err;
    camp_campaign c;
    int rc = load_text(name, body, &err, &c);
    ck_assert_int_eq(rc, GD_EINPUT);
    char prefix[256];
    snprintf(prefix, sizeof prefix, TMPDIR "/%s.xml:%d:", name, line);
    ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0,
                  "expected prefix '%s' in '%s'", prefix, err.msg);
    ck_assert_msg(strstr(err.msg, want) != NULL, "expected '%s' in '%s'",
                  want, err.msg);
}

START_TEST(valid_campaign_loads)
{
    gd_err err;
    camp_campaign c;
    char body[2048];
    snprintf(body, sizeof body,
             "  <space><knob name=\"n_clusters\" values=\"8 15 30\"/>\n"
             "  <knob name=\"scheduler\" values=\"gto lrr\"/></space>\n%s",
             good_tail);
    int rc = load_text("valid", body, &err, &c);
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert_str_eq(c.name, "t");
    ck_assert_uint_eq(c.seed, 7);
    ck_assert_int_eq(c.nworkloads, 1);
    ck_assert_str_eq(c.workloads[0].name, "vecadd");
    ck_assert_uint_eq(space_size(&c.space), 6);
    ck_assert_int_eq(c.nobjectives, 1);
    ck_assert_int_eq(c.obj[0].maximize, 1);
    ck_assert_str_eq(c.strategy, "random");
    ck_assert_int_eq(c.budget, 5);
    ck_assert_int_eq(strlen(c.sha256), 64);
    camp_free(&c);
}
END_TEST

START_TEST(quickstart_is_full_space)
{
    gd_err err = {0, ""};
    camp_campaign c;
    ck_assert_msg(preflight_load("campaigns/quickstart.xml", &c, &err) == 0, "%s",
                  err.msg);
    ck_assert_uint_eq(space_size(&c.space), 15552);
    ck_assert_int_eq(c.nworkloads, 2);
    camp_free(&c);
}
END_TEST

START_TEST(not_well_formed)
{
    expect_error("wf", "  <workloads><workload name=\"vecadd\"></workloads>\n",
                 3, "not well-formed");
}
END_TEST

START_TEST(missing_required_element)
{
    expect_error("missing",
                 "  <workloads><workload name=\"vecadd\"/></workloads>\n"
                 "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
                 "</campaign>\n", 1, "schema");
}
END_TEST

START_TEST(unknown_element)
{
    char body[2048];
    snprintf(body, sizeof body, "  <spaces/>\n%s", good_tail);
    expect_error("unkelem", body, 3, "unknown element <spaces> inside "
                 "<campaign>; did you mean <space>?");
}
END_TEST

START_TEST(unknown_knob_suggests)
{
    char body[2048];
    snprintf(body, sizeof body,
             "  <space>\n"
             "    <knob name=\"n_cluster\" values=\"8\"/>\n"       /* 4 */
             "  </space>\n%s", good_tail);
    expect_error("knob", body, 4, "did you mean \"n_clusters\"");
}
END_TEST

START_TEST(value_not_allowed)
{
    char body[2048];
    snprintf(body, sizeof body,
             "  <space>\n"
             "    <knob name=\"l1_sets\" values=\"32 0\"/>\n"      /* 4 */
             "  </space>\n%s", good_tail);
    expect_error("value", body, 4, "\"0\" is not allowed for knob l1_sets");
}
END_TEST

START_TEST(duplicate_knob_and_value)
{
    char body[2048];
    snprintf(body, sizeof body,
             "  <space>\n"
             "    <knob name=\"n_mem\" values=\"4\"/>\n"
             "    <knob name=\"n_mem\" values=\"6\"/>\n"           /* 5 */
             "  </space>\n%s", good_tail);
    expect_error("dupknob", body, 5, "listed twice");
    snprintf(body, sizeof body,
             "  <space><knob name=\"n_mem\" values=\"4 4\"/></space>\n%s",
             good_tail);
    expect_error("dupval", body, 3, "listed twice");
}
END_TEST

START_TEST(duplicate_workload)
{
    expect_error("dupwl",
                 "  <workloads>\n"
                 "    <workload name=\"vecadd\"/>\n"
                 "    <workload name=\"vecadd\"/>\n"                /* 5 */
                 "  </workloads>\n"
                 "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
                 "  <search strategy=\"random\" budget=\"5\"/>\n"
                 "</campaign>\n", 5, "listed twice");
}
END_TEST

START_TEST(unknown_workload_suggests)
{
    expect_error("wl",
                 "  <workloads><workload name=\"dct8x9\"/></workloads>\n"
                 "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
                 "  <search strategy=\"random\" budget=\"5\"/>\n"
                 "</campaign>\n", 3, "did you mean \"dct8x8\"");
}
END_TEST

START_TEST(budget_below_one)
{
    expect_error("budget",
                 "  <workloads><workload name=\"vecadd\"/></workloads>\n"
                 "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
                 "  <search strategy=\"random\" budget=\"0\"/>\n"   /* 5 */
                 "</campaign>\n", 5, "budget must be at least 1");
}
END_TEST

START_TEST(exhaustive_budget_too_small)
{
    expect_error("exh",
                 "  <workloads><workload name=\"vecadd\"/></workloads>\n"
                 "  <space><knob name=\"n_mem\" values=\"4 6 8\"/></space>\n"
                 "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
                 "  <search strategy=\"exhaustive\" budget=\"2\"/>\n" /* 6 */
                 "</campaign>\n", 6, "the space has 3 points");
}
END_TEST

START_TEST(unknown_metric)
{
    expect_error("metric",
                 "  <workloads><workload name=\"vecadd\"/></workloads>\n"
                 "  <objectives>\n"
                 "    <minimize metric=\"latency_ns\"/>\n"          /* 5 */
                 "  </objectives>\n"
                 "  <search strategy=\"random\" budget=\"5\"/>\n"
                 "</campaign>\n", 5, "unknown metric \"latency_ns\"");
}
END_TEST

START_TEST(unknown_strategy_and_backend)
{
    expect_error("strat",
                 "  <workloads><workload name=\"vecadd\"/></workloads>\n"
                 "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
                 "  <search strategy=\"magic\" budget=\"5\"/>\n"
                 "</campaign>\n", 5, "unknown search strategy");
    gd_err err;
    camp_campaign c;
    tu_write(TMPDIR "/backend.xml",
             "<campaign name=\"t\">\n"
             "  <simulator backend=\"teleport\"/>\n"
             "  <workloads><workload name=\"vecadd\"/></workloads>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"random\" budget=\"5\"/>\n"
             "</campaign>\n");
    ck_assert_int_eq(preflight_load(TMPDIR "/backend.xml", &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "backend.xml:2: unknown simulator backend")
                  != NULL, "%s", err.msg);
}
END_TEST

/* The campaign is a document: camp_load checks its schema and meaning and
 * nothing a stage means by a section; each stage checks its own through its
 * seam, naming the campaign's FILE:LINE, and preflight_load runs them all. */
START_TEST(stage_sections_are_checked_by_their_stages)
{
    const char *path = TMPDIR "/stages.xml";
    tu_write(path,
             "<campaign name=\"t\">\n"
             "  <simulator backend=\"teleport\"/>\n"                  /* 2 */
             "  <workloads><workload name=\"vecadd\"/></workloads>\n"
             "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
             "  <search strategy=\"magic\" budget=\"5\">\n"           /* 5 */
             "    <study strategies=\"random sorcery\"/></search>\n"   /* 6 */
             "  <regression>\n"
             "    <threshold metric=\"ipx\" relative=\"2\"/>\n"        /* 8 */
             "  </regression>\n"
             "</campaign>\n");
    gd_err err = {0, ""};
    camp_campaign c;
    ck_assert_msg(camp_load(path, &c, &err) == GD_OK, "%s", err.msg);
    ck_assert_int_eq(be_check_campaign(&c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "stages.xml:2: unknown simulator backend "
                         "\"teleport\""), "%s", err.msg);
    ck_assert_int_eq(strat_check_campaign(&c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "stages.xml:5: unknown search strategy "
                         "\"magic\""), "%s", err.msg);
    util_strlcpy(c.strategy, "random", sizeof c.strategy);
    ck_assert_int_eq(strat_check_campaign(&c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "stages.xml:6: unknown search strategy "
                         "\"sorcery\" in <study>"), "%s", err.msg);
    ck_assert_int_eq(cmp_check_campaign(&c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "stages.xml:8: unknown threshold metric "
                         "\"ipx\"; did you mean \"ipc\"?"), "%s", err.msg);
    camp_free(&c);
    /* run and validate load through preflight_load: the first stage's
     * error, exit class 2 */
    ck_assert_int_eq(preflight_load(path, &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "stages.xml:2: unknown simulator backend"),
                  "%s", err.msg);
}
END_TEST

START_TEST(bad_execution_values)
{
    char body[2048];
    snprintf(body, sizeof body,
             "  <execution timeout=\"-5\"/>\n%s", good_tail);
    expect_error("timeout", body, 3, "timeout must be a positive");
}
END_TEST

START_TEST(doctype_rejected)
{
    gd_err err;
    camp_campaign c;
    tu_write(TMPDIR "/dtd.xml",
             "<?xml version=\"1.0\"?>\n"
             "<!DOCTYPE campaign [ <!ENTITY x SYSTEM \"file:///etc/passwd\"> ]>\n"
             "<campaign name=\"&x;\">\n"
             "</campaign>\n");
    ck_assert_int_eq(camp_load(TMPDIR "/dtd.xml", &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "dtd.xml:") != NULL, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "root:") == NULL, "leaked file: %s",
                  err.msg);
}
END_TEST

START_TEST(wrong_root)
{
    gd_err err;
    camp_campaign c;
    tu_write(TMPDIR "/root.xml", "<?xml version=\"1.0\"?>\n<workload name=\"x\"/>\n");
    ck_assert_int_eq(camp_load(TMPDIR "/root.xml", &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "root.xml:2: the root element is <workload>")
                  != NULL, "%s", err.msg);
}
END_TEST

START_TEST(missing_and_empty_file)
{
    gd_err err;
    camp_campaign c;
    ck_assert_int_eq(camp_load(TMPDIR "/nope.xml", &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "nope.xml") != NULL, "%s", err.msg);
    tu_write(TMPDIR "/empty.xml", "");
    ck_assert_int_eq(camp_load(TMPDIR "/empty.xml", &c, &err), GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "empty.xml:1:") != NULL, "%s", err.msg);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("campaign");
    TCase *t = tcase_create("campaign");
    tcase_add_test(t, valid_campaign_loads);
    tcase_add_test(t, quickstart_is_full_space);
    tcase_add_test(t, not_well_formed);
    tcase_add_test(t, missing_required_element);
    tcase_add_test(t, unknown_element);
    tcase_add_test(t, unknown_knob_suggests);
    tcase_add_test(t, value_not_allowed);
    tcase_add_test(t, duplicate_knob_and_value);
    tcase_add_test(t, duplicate_workload);
    tcase_add_test(t, unknown_workload_suggests);
    tcase_add_test(t, budget_below_one);
    tcase_add_test(t, exhaustive_budget_too_small);
    tcase_add_test(t, unknown_metric);
    tcase_add_test(t, unknown_strategy_and_backend);
    tcase_add_test(t, stage_sections_are_checked_by_their_stages);
    tcase_add_test(t, bad_execution_values);
    tcase_add_test(t, doctype_rejected);
    tcase_add_test(t, missing_and_empty_file);
    tcase_add_test(t, wrong_root);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    system("mkdir -p " TMPDIR);
    return tu_run_suite(suite());
}
