/* test_knobs: user-declared knobs — categorical, numeric and range knobs
 * parsed into the space; their errors at FILE:LINE (a knob a backend
 * cannot take names the backends that can; bad ranges; duplicates; too
 * many levels); built-in-only job keys unchanged and user knobs in keys,
 * journal records and placeholders; GPGPU-Sim option lines; every strategy
 * over a space with user knobs; and campaigns/custom-knobs*.xml end to end
 * (results.csv columns, the report's figures, byte-identical reruns). */
#include "testrun.h"
#include "backend.h"
#include "campaign.h"
#include "gpgpusim.h"
#include "preflight.h"
#include "space.h"
#include "strategy.h"
#include "agents_propose.h"
#include "layout.h"

#define TMPDIR "tests/tmp/knobs"

static const char *head =
    "<campaign name=\"t\" seed=\"7\">\n";                            /* 1 */

static const char *tail =
    "  <workloads><workload name=\"vecadd\"/></workloads>\n"
    "  <objectives><maximize metric=\"ipc\"/></objectives>\n"
    "  <search strategy=\"random\" budget=\"5\"/>\n"
    "</campaign>\n";

/* A command simulator (line 2..4) whose command names the given knobs. */
static void command_sim(char *out, size_t n, const char *placeholders)
{
    snprintf(out, n, "  <simulator backend=\"command\">\n"           /* 2 */
             "    <command>echo %s</command>\n"                       /* 3 */
             "    <metric name=\"ipc\" regex=\"([0-9.]+)\"/>"
             "</simulator>\n", placeholders);                         /* 4 */
}

/* head + sim + space + tail into TMPDIR/name.xml, through preflight_load. */
static int load_camp(const char *name, const char *sim, const char *space,
                camp_campaign *c, gd_err *err)
{
    char path[256], text[8192];
    snprintf(path, sizeof path, TMPDIR "/%s.xml", name);
    snprintf(text, sizeof text, "%s%s%s%s", head, sim, space, tail);
    tu_write(path, text);
    memset(err, 0, sizeof *err);
    memset(c, 0, sizeof *c);
    return preflight_load(path, c, err);
}

static void expect_error(const char *name, const char *sim, const char *space,
                         int line, const char *want)
{
    camp_campaign c;
    gd_err err;
    ck_assert_int_eq(load_camp(name, sim, space, &c, &err), GD_EINPUT);
    char prefix[256];
    snprintf(prefix, sizeof prefix, TMPDIR "/%s.xml:%d:", name, line);
    ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0,
                  "expected prefix '%s' in '%s'", prefix, err.msg);
    ck_assert_msg(strstr(err.msg, want) != NULL, "expected '%s' in '%s'",
                  want, err.msg);
}

static const char *space4 =
    "  <space>\n"                                                     /* 5 */
    "    <knob name=\"my_policy\" values=\"lru srrip drrip\"/>\n"     /* 6 */
    "    <knob name=\"n_sms\" values=\"40 080 108\"/>\n"              /* 7 */
    "    <knob name=\"ways\" from=\"1\" to=\"64\" log2=\"1\"/>\n"     /* 8 */
    "    <knob name=\"lat\" from=\"10\" to=\"30\" step=\"5\"/>\n"     /* 9 */
    "    <knob name=\"n_clusters\" values=\"15 20\"/>\n"              /* 10 */
    "  </space>\n";

START_TEST(categorical_numeric_and_range_knobs)
{
    char sim[512];
    command_sim(sim, sizeof sim, "{my_policy} {n_sms} {ways} {lat}");
    camp_campaign c;
    gd_err err;
    ck_assert_msg(load_camp("kinds", sim, space4, &c, &err) == 0, "%s", err.msg);
    const space_def *s = &c.space;
    ck_assert_int_eq(s->nuser, 4);
    ck_assert_int_eq(space_nknobs(s), SPACE_NKNOBS + 4);
    int pol = space_knob_index(s, "my_policy"), sms = space_knob_index(s,
                                                                      "n_sms");
    int ways = space_knob_index(s, "ways"), lat = space_knob_index(s, "lat");
    ck_assert_int_eq(pol, SPACE_NKNOBS);
    ck_assert_int_eq(lat, SPACE_NKNOBS + 3);
    ck_assert_int_eq(s->nlevels[pol], 3);
    ck_assert(!space_knob_numeric(s, pol));
    ck_assert(space_knob_numeric(s, sms));
    ck_assert_str_eq(s->user[1].text[1], "80");   /* "080": canonical */
    ck_assert_int_eq(s->nlevels[ways], 7);        /* 1 2 4 8 16 32 64 */
    ck_assert_str_eq(s->user[2].text[6], "64");
    ck_assert_int_eq(s->nlevels[lat], 5);         /* 10 15 20 25 30 */
    ck_assert_str_eq(s->user[3].text[2], "20");
    ck_assert_int_eq(s->line[pol], 6);
    /* a built-in numeric knob off its GTX480 levels, on the command
     * backend */
    ck_assert_int_eq(s->levels[KNOB_N_CLUSTERS][1], 20);
    ck_assert_uint_eq(space_size(s), 3 * 3 * 7 * 5 * 2);
    int v;
    ck_assert_int_eq(space_level_parse(s, pol, "drrip", &v), 0);
    ck_assert_int_eq(v, 2);
    ck_assert_int_eq(space_level_parse(s, pol, "fifo", &v), -1);
    camp_free(&c);
}
END_TEST

START_TEST(analytic_takes_builtin_knobs_anywhere)
{
    /* the model evaluates any whole number (configs outside its
     * calibration are marked extrapolated) */
    camp_campaign c;
    gd_err err;
    ck_assert_msg(load_camp("anyval", "  <simulator backend=\"analytic\"/>\n",
                       "  <space><knob name=\"n_clusters\" values=\"8 20 80\"/>"
                       "<knob name=\"l1_sets\" values=\"48\"/></space>\n",
                       &c, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(space_size(&c.space), 3);
    camp_free(&c);
}
END_TEST

START_TEST(unknown_knob_on_analytic_names_backends)
{
    expect_error("analytic", "  <simulator backend=\"analytic\"/>\n",
                 "  <space>\n"                                          /* 3 */
                 "    <knob name=\"my_policy\" values=\"lru srrip\"/>\n" /* 4 */
                 "  </space>\n", 4,
                 "knob my_policy: the analytic backend cannot take it");
    expect_error("analytic2", "  <simulator backend=\"analytic\"/>\n",
                 "  <space>\n"
                 "    <knob name=\"my_policy\" values=\"lru srrip\"/>\n"
                 "  </space>\n", 4, "backends that can: command");
    /* a typo of a built-in knob is still suggested */
    expect_error("typo", "  <simulator backend=\"analytic\"/>\n",
                 "  <space>\n"
                 "    <knob name=\"n_cluster\" values=\"8\"/>\n"
                 "  </space>\n", 4, "did you mean "
                 "\"n_clusters\"");
}
END_TEST

START_TEST(range_and_list_errors)
{
    char sim[512];
    command_sim(sim, sizeof sim, "x");
    expect_error("reach", sim, "  <space>\n"
                 "    <knob name=\"a\" from=\"1\" to=\"10\" step=\"4\"/>\n"
                 "  </space>\n", 6, "does not reach to=10");
    expect_error("log", sim, "  <space>\n"
                 "    <knob name=\"a\" from=\"3\" to=\"10\" log2=\"1\"/>\n"
                 "  </space>\n", 6, "power of 2^log2");
    expect_error("back", sim, "  <space>\n"
                 "    <knob name=\"a\" from=\"8\" to=\"2\" step=\"1\"/>\n"
                 "  </space>\n", 6, "from <= to");
    expect_error("many", sim, "  <space>\n"
                 "    <knob name=\"a\" from=\"1\" to=\"100\" step=\"1\"/>\n"
                 "  </space>\n", 6, "too many levels (at most 32)");
    expect_error("dup", sim, "  <space>\n"
                 "    <knob name=\"a\" values=\"x y\"/>\n"
                 "    <knob name=\"a\" values=\"z\"/>\n"
                 "  </space>\n", 7, "knob a is listed twice");
    expect_error("dupval", sim, "  <space>\n"
                 "    <knob name=\"a\" values=\"5 05\"/>\n"
                 "  </space>\n", 6, "listed twice");
    expect_error("reserved", sim, "  <space>\n"
                 "    <knob name=\"workload\" values=\"x\"/>\n"
                 "  </space>\n", 6, "reserved");
    expect_error("badtext", sim, "  <space>\n"
                 "    <knob name=\"a\" values=\"x=1\"/>\n"
                 "  </space>\n", 6, "a level is 1 to 31");
    expect_error("zero", sim, "  <space>\n"
                 "    <knob name=\"n_mem\" values=\"0\"/>\n"
                 "  </space>\n", 6, "not allowed for knob n_mem");
}
END_TEST

START_TEST(builtin_keys_unchanged_user_knobs_keyed)
{
    camp_campaign q;
    gd_err err;
    ck_assert_msg(preflight_load("campaigns/quickstart.xml", &q, &err) == 0,
                  "%s", err.msg);
    const wl_workload *w = &q.workloads[0];
    ck_assert_str_eq(w->name, "dct8x8");
    const be_backend *b = be_find("analytic");
    gpu_config c = space_baseline();
    char k0[65], k1[65], k2[65], canon[SPACE_CANON_MAX];
    /* the quickstart's baseline key for dct8x8: the text job keys hashed
     * before user knobs existed */
    be_job_key(b, q.sim_fingerprint, &q.space, w, &c, q.seed, k0);
    char text[2048], want[65];
    snprintf(text, sizeof text, "gpudse-job-v1\nbackend=analytic\n"
             "backend_version=%s\nsimulator=%s\nworkload=dct8x8\n"
             "workload_sha256=%s\nconfig=n_clusters=15,cores_per_cluster=1,"
             "n_mem=6,shmem_size=49152,scheduler=gto,num_sched_per_core=2,"
             "l1_sets=32,l2_sets=64\nseed=1\n", b->version(),
             q.sim_fingerprint, w->sha256);
    util_sha256_hex(text, strlen(text), want);
    ck_assert_str_eq(k0, want);
    space_def s;
    space_def_full(&s);
    be_job_key(b, q.sim_fingerprint, NULL, w, &c, q.seed, k1);
    ck_assert_str_eq(k0, k1);   /* no space given: the same key */
    s.nuser = 1;
    s.nlevels[SPACE_NKNOBS] = 2;
    s.levels[SPACE_NKNOBS][0] = 0;
    s.levels[SPACE_NKNOBS][1] = 1;
    strcpy(s.user[0].name, "my_policy");
    strcpy(s.user[0].text[0], "lru");
    strcpy(s.user[0].text[1], "srrip");
    c.user[0] = 1;
    space_config_canon(&s, &c, canon, sizeof canon);
    ck_assert_str_eq(canon, "n_clusters=15,cores_per_cluster=1,n_mem=6,"
                     "shmem_size=49152,scheduler=gto,num_sched_per_core=2,"
                     "l1_sets=32,l2_sets=64,my_policy=srrip");
    be_job_key(b, q.sim_fingerprint, &s, w, &c, q.seed, k2);
    ck_assert_str_ne(k0, k2);
    c.user[0] = 0;
    be_job_key(b, q.sim_fingerprint, &s, w, &c, q.seed, k1);
    ck_assert_str_ne(k1, k2);
    camp_free(&q);
}
END_TEST

START_TEST(journal_round_trip_and_placeholders)
{
    char sim[512];
    command_sim(sim, sizeof sim, "{my_policy}:{n_sms}:{lat}");
    camp_campaign c;
    gd_err err;
    ck_assert_msg(load_camp("journal", sim, space4, &c, &err) == 0, "%s", err.msg);
    store_record r, back;
    memset(&r, 0, sizeof r);
    strcpy(r.key, "0123456789012345678901234567890123456789012345678901234567"
                  "890123");
    strcpy(r.workload, "vecadd");
    strcpy(r.backend, "command");
    strcpy(r.fidelity, "measured");
    r.cfg = space_at(&c.space, space_size(&c.space) - 1);
    r.status = ST_OK;
    met_put(&r.metrics, "ipc", 1.5);
    util_buf b;
    util_buf_init(&b);
    store_record_to_json_in(&c.space, &r, &b);
    ck_assert_msg(strstr(b.s, "\"my_policy\":\"drrip\",\"n_sms\":108,"
                         "\"ways\":64,\"lat\":30}") != NULL, "%s", b.s);
    /* the fast reader and the cJSON one (spaces defeat the fast one) */
    ck_assert_int_eq(store_record_from_json_in(&c.space, b.s, "j", 1, &back,
                                               &err), GD_OK);
    ck_assert_int_eq(memcmp(&back.cfg, &r.cfg, sizeof r.cfg), 0);
    char *sp = strstr(b.s, "\"n_sms\":");
    memmove(sp + 1, sp, strlen(sp) + 1);
    *sp = ' ';
    memset(&back, 0, sizeof back);
    ck_assert_int_eq(store_record_from_json_in(&c.space, b.s, "j", 1, &back,
                                               &err), GD_OK);
    ck_assert_int_eq(memcmp(&back.cfg, &r.cfg, sizeof r.cfg), 0);
    util_buf_free(&b);
    /* {my_policy} and the others in a command */
    be_job job;
    memset(&job, 0, sizeof job);
    job.camp = &c;
    job.workload = &c.workloads[0];
    job.cfg = r.cfg;
    util_buf out;
    util_buf_init(&out);
    ck_assert_int_eq(be_expand("run {my_policy} {n_sms} {lat} {n_clusters}",
                               &job, 0, &out, &err), GD_OK);
    ck_assert_str_eq(out.s, "run drrip 108 30 20");
    util_buf_free(&out);
    camp_free(&c);
}
END_TEST

START_TEST(gpgpusim_option_lines)
{
    space_def s;
    space_def_baseline(&s);
    s.nuser = 2;
    s.nlevels[SPACE_NKNOBS] = s.nlevels[SPACE_NKNOBS + 1] = 2;
    strcpy(s.user[0].name, "l1_latency");
    strcpy(s.user[0].option, "-gpgpu_l1_latency");
    strcpy(s.user[0].text[0], "20");
    strcpy(s.user[0].text[1], "40");
    strcpy(s.user[1].name, "dram_sched");
    strcpy(s.user[1].option, "-gpgpu_dram_scheduler");
    strcpy(s.user[1].text[0], "0");
    strcpy(s.user[1].text[1], "1");
    gpu_config c = space_baseline();
    c.user[0] = 1;
    c.user[1] = 1;
    char *t = strdup("-gpgpu_n_mem 6\n-gpgpu_l1_latency 1 # fast\n");
    gd_err err;
    ck_assert_int_eq(gsim_set_user_options(&t, "g.config", &s, &c, &err),
                     GD_OK);
    ck_assert_msg(strstr(t, "-gpgpu_l1_latency 40 # fast\n") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\n-gpgpu_dram_scheduler 1\n") != NULL, "%s", t);
    free(t);
    t = strdup("-gpgpu_l1_latency 1\n-gpgpu_l1_latency 2\n");
    ck_assert_int_eq(gsim_set_user_options(&t, "g.config", &s, &c, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "more than one line"), "%s", err.msg);
    free(t);
    /* a user knob without option= is no knob of gpgpusim's */
    camp_campaign cc;
    memset(&cc, 0, sizeof cc);
    cc.space = s;
    char why[256];
    const be_backend *g = be_find("gpgpusim");
    ck_assert(g->takes_knob(&cc, SPACE_NKNOBS, why, sizeof why));
    cc.space.user[0].option[0] = '\0';
    ck_assert(!g->takes_knob(&cc, SPACE_NKNOBS, why, sizeof why));
    ck_assert_msg(strstr(why, "option="), "%s", why);
    ck_assert(be_find("command")->takes_knob(&cc, SPACE_NKNOBS, why,
                                             sizeof why));
    ck_assert(!be_find("analytic")->takes_knob(&cc, SPACE_NKNOBS, why,
                                               sizeof why));
    /* built-in levels off the GTX480 ones: as the config rules allow
     * (the GTX480 templates; 48 L1 sets is no cache string's) */
    cc.space.nlevels[KNOB_L1_SETS] = 2;
    cc.space.levels[KNOB_L1_SETS][0] = 256;
    cc.space.levels[KNOB_L1_SETS][1] = 32;
    ck_assert_msg(g->takes_knob(&cc, KNOB_L1_SETS, why, sizeof why), "%s",
                  why);
    cc.space.levels[KNOB_L1_SETS][1] = 48;
    ck_assert(!g->takes_knob(&cc, KNOB_L1_SETS, why, sizeof why));
    ck_assert_msg(strstr(why, "level 48"), "%s", why);
    ck_assert(be_find("analytic")->takes_knob(&cc, KNOB_L1_SETS, why,
                                              sizeof why));
}
END_TEST

START_TEST(every_strategy_over_user_knobs)
{
    char sim[512];
    command_sim(sim, sizeof sim, "x");
    camp_campaign c;
    gd_err err;
    ck_assert_msg(load_camp("strat", sim,
                       "  <space><knob name=\"p\" values=\"a b c\"/>"
                       "<knob name=\"q\" from=\"1\" to=\"8\" log2=\"1\"/>"
                       "<knob name=\"n_mem\" values=\"4 6\"/></space>\n",
                       &c, &err) == 0, "%s", err.msg);
    uint64_t size = space_size(&c.space);
    ck_assert_uint_eq(size, 24);
    static const char *const names[] = {"exhaustive", "random", "lhs",
                                        "nsga2", "surrogate", "agent"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        long budget = !strcmp(names[i], "exhaustive") ? 24 : 18;
        strat *st;
        ck_assert_msg(strat_new(names[i], &c.space, budget, 3, &st, &err)
                      == GD_OK, "%s", err.msg);
        unsigned char seen[24] = {0};
        int levels_q[4] = {0};
        gpu_config b[8];
        size_t n, total = 0;
        while ((n = strat_next(st, b, 4)) > 0)
            for (size_t j = 0; j < n; j++) {
                int64_t idx = space_index(&c.space, &b[j]);
                ck_assert_msg(idx >= 0 && !seen[idx], "%s: %lld", names[i],
                              (long long)idx);
                seen[idx] = 1;
                levels_q[b[j].user[1]] = 1;
                total++;
                store_record r;
                memset(&r, 0, sizeof r);
                r.cfg = b[j];
                r.status = ST_OK;
                met_put(&r.metrics, "ipc", 1.0 + b[j].user[0]
                        + 0.5 * b[j].user[1] + b[j].n_mem / 4.0);
                met_put(&r.metrics, "area_mm2", 10.0 + b[j].user[1]);
                strat_observe(st, &b[j], &r);
            }
        ck_assert_msg(total == (uint64_t)budget, "%s: %zu", names[i], total);
        ck_assert_msg(levels_q[0] && levels_q[3], "%s: q's levels unvisited",
                      names[i]);
        strat_free(st);
    }
    camp_free(&c);
}
END_TEST

START_TEST(llm_proposals_name_user_knobs)
{
    char sim[512];
    command_sim(sim, sizeof sim, "x");
    camp_campaign c;
    gd_err err;
    ck_assert_msg(load_camp("llm", sim, space4, &c, &err) == 0, "%s", err.msg);
    gpu_config base = space_baseline(), out;
    char why[256];
    ck_assert_int_eq(agents_proposal_parse("CONFIG: my_policy=drrip, "
                                           "n_clusters=20, lat=25", &c.space,
                                           &base, NULL, 0, &out, why,
                                           sizeof why), GD_OK);
    ck_assert_int_eq(out.user[0], 2);
    ck_assert_int_eq(out.user[3], 3);
    ck_assert_int_eq(out.n_clusters, 20);
    ck_assert_int_eq(agents_proposal_parse("CONFIG: my_policy=fifo",
                                           &c.space, &base, NULL, 0, &out,
                                           why, sizeof why), GD_EINPUT);
    ck_assert_msg(strstr(why, "allowed: lru srrip drrip"), "%s", why);
    camp_free(&c);
}
END_TEST

/* DIR/results.jsonl read with the run's campaign copy's knobs; asserts
 * that no config of a workload appears twice. */
static store_record *load_space(const char *dir, size_t *n)
{
    char path[PATH_MAX];
    camp_campaign c;
    gd_err err;
    snprintf(path, sizeof path, "%s/campaign.xml", dir);
    ck_assert_msg(camp_load_meta(path, &c, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    store_record *r;
    ck_assert_msg(store_load_all_in(path, &c.space, &r, n, &err) == 0, "%s",
                  err.msg);
    for (size_t i = 0; i < *n; i++)
        for (size_t j = i + 1; j < *n; j++) {
            char a[SPACE_CANON_MAX], b[SPACE_CANON_MAX];
            space_config_canon(&c.space, &r[i].cfg, a, sizeof a);
            space_config_canon(&c.space, &r[j].cfg, b, sizeof b);
            ck_assert_msg(strcmp(r[i].workload, r[j].workload)
                          || strcmp(a, b), "config twice: %s", a);
        }
    camp_free(&c);
    return r;
}

/* The example campaigns: run, report, rerun byte-identical. */
/* A layout names the campaign's user knobs: the line figure's x knob
 * (numeric only) and bars configs' settings; read without the campaign,
 * the same knob is unknown. Errors name the layout's FILE:LINE. */
static int layout_with(const char *name, const char *fig,
                       const camp_campaign *c, rep_layout *l, gd_err *err)
{
    char path[256], text[1024];
    snprintf(path, sizeof path, TMPDIR "/%s.xml", name);
    snprintf(text, sizeof text, "<report>\n<title-page/>\n%s\n</report>\n",
             fig);                                              /* line 3 */
    tu_write(path, text);
    memset(err, 0, sizeof *err);
    return rep_layout_load_camp(path, c, l, err);
}

START_TEST(layout_figures_take_user_knobs)
{
    char sim[512];
    command_sim(sim, sizeof sim, "{my_policy} {n_sms} {ways} {lat}");
    camp_campaign c;
    gd_err err;
    ck_assert_msg(load_camp("lay", sim, space4, &c, &err) == 0, "%s", err.msg);
    rep_layout *l = calloc(1, sizeof *l);
    ck_assert_ptr_nonnull(l);
    ck_assert_msg(layout_with("lay1", "<figure kind=\"line\" knob=\"n_sms\" "
                              "metric=\"ipc\"/>", &c, l, &err) == 0,
                  "%s", err.msg);
    ck_assert_int_eq(l->cross[0].knob, space_knob_index(&c.space, "n_sms"));
    ck_assert_msg(layout_with("lay2", "<figure kind=\"bars\" metric=\"ipc\" "
                              "configs=\"n_sms=108,my_policy=drrip\"/>", &c,
                              l, &err) == 0, "%s", err.msg);
    int pol = space_knob_index(&c.space, "my_policy");
    ck_assert_int_eq(space_get(&l->cross[0].conf[0], pol), 2);
    ck_assert_int_eq(layout_with("lay3", "<figure kind=\"line\" "
                                 "knob=\"my_policy\"/>", &c, l, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "lay3.xml:3:")
                  && strstr(err.msg, "categorical"), "%s", err.msg);
    ck_assert_int_eq(layout_with("lay4", "<figure kind=\"bars\" "
                                 "configs=\"ways=3\"/>", &c, l, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "lay4.xml:3:")
                  && strstr(err.msg, "not a level of ways"), "%s", err.msg);
    ck_assert_int_eq(layout_with("lay5", "<figure kind=\"line\" "
                                 "knob=\"n_sms\"/>", NULL, l, &err),
                     GD_EINPUT);
    ck_assert_msg(strstr(err.msg, "unknown knob 'n_sms'"), "%s", err.msg);
    free(l);
    camp_free(&c);
}
END_TEST

/* An aggregate over a campaign with user knobs: configs told apart by
 * every knob (not merged by their built-in knobs), the user knobs in
 * aggregates.csv and in the report's aggregate tables. */
START_TEST(aggregate_over_user_knobs)
{
    ck_assert_int_eq(shf("sed -e 's#<minimize metric=\"power_w\"/>#&"
                         "<aggregate name=\"gm\" fn=\"geomean\" "
                         "metric=\"ipc\" normalise=\"baseline\"/>#' "
                         "-e 's#strategy=\"nsga2\" budget=\"60\"#"
                         "strategy=\"random\" budget=\"40\"#' "
                         "campaigns/custom-knobs.xml > campaigns/.agg-%d.xml",
                         (int)getpid()), 0);
    char camp[128];
    snprintf(camp, sizeof camp, "campaigns/.agg-%d.xml", (int)getpid());
    int rc = shf("%s run %s -o %s -q >/dev/null 2>&1", tu_bin(), camp,
                 tp("/agg"));
    unlink(camp);
    ck_assert_int_eq(rc, 0);
    char buf[4096], cmd[600];
    snprintf(cmd, sizeof cmd, "head -1 %s/aggregates.csv", tp("/agg"));
    capture(cmd, buf, sizeof buf);
    ck_assert_msg(strstr(buf, ",l2_sets,my_policy,n_sms,l1_ways,l1_kb,"
                         "workloads_evaluated,gm,"), "%s", buf);
    /* 40 random configs on both workloads: 40 rows, none merged */
    snprintf(cmd, sizeof cmd, "tail -n +2 %s/aggregates.csv | cut -d, "
             "-f1-12 | sort -u | wc -l", tp("/agg"));
    capture(cmd, buf, sizeof buf);
    ck_assert_int_eq(atoi(buf), 40);
    ck_assert_int_eq(shf("pdftotext -layout %s/report.pdf - | grep -A3 "
                         "'Best configuration per aggregate' | grep -q "
                         "policy", tp("/agg")), 0);
}
END_TEST

START_TEST(custom_knobs_campaigns_run_and_report)
{
    ck_assert_int_eq(shf("%s run campaigns/custom-knobs.xml -o %s -q "
                         ">/dev/null 2>&1", tu_bin(), tp("/a")), 0);
    ck_assert_int_eq(shf("%s run campaigns/custom-knobs.xml -o %s -q "
                         ">/dev/null 2>&1", tu_bin(), tp("/b")), 0);
    ck_assert_int_eq(shf("%s run campaigns/custom-knobs-random.xml -o %s -q "
                         ">/dev/null 2>&1", tu_bin(), tp("/r")), 0);
    char buf[4096];
    char cmd[600];
    snprintf(cmd, sizeof cmd, "head -1 %s/results.csv", tp("/a"));
    capture(cmd, buf, sizeof buf);
    ck_assert_msg(strstr(buf, ",l2_sets,my_policy,n_sms,l1_ways,l1_kb,"),
                  "%s", buf);
    /* NSGA-II and random: 60 distinct configs per workload, all ok */
    const char *dirs[] = {tp("/a"), tp("/r")};
    for (int d = 0; d < 2; d++) {
        size_t n;
        store_record *r = load_space(dirs[d], &n);
        ck_assert_uint_eq(n, 120);
        for (size_t i = 0; i < n; i++)
            ck_assert_int_eq(r[i].status, ST_OK);
        free(r);
    }
    ck_assert_int_eq(shf("cmp -s %s/results.csv %s/results.csv",
                         tp("/a"), tp("/b")), 0);
    ck_assert_int_eq(shf("cmp -s %s/analysis.json %s/analysis.json",
                         tp("/a"), tp("/b")), 0);
    ck_assert_int_eq(shf("diff -r %s/figures %s/figures >/dev/null",
                         tp("/a"), tp("/b")), 0);
    /* the heatmap and sensitivity figures are over the user knobs */
    ck_assert_int_eq(shf("test -s %s/figures/heatmap_sgemm_ipc.svg "
                         "&& test -s %s/figures/sensitivity_sgemm_ipc.svg",
                         tp("/a"), tp("/a")), 0);
    /* compare: the two searches' configs told apart by their user knobs */
    ck_assert_int_eq(shf("%s compare %s %s 2>&1 | grep -q 'first: missing "
                         "in NEW at .*,l2_sets=64,my_policy='", tu_bin(),
                         tp("/a"), tp("/r")), 0);
    static const char *const knobs[] = {"my_policy", "n_sms", "l1_ways",
                                        "l1_kb"};
    for (int k = 0; k < 4; k++)
        ck_assert_msg(shf("grep -q '\"knob\":[[:space:]]*\"%s\"' "
                          "%s/analysis.json", knobs[k], tp("/a")) == 0,
                      "no sensitivity of %s", knobs[k]);
}
END_TEST

int main(void)
{
    snprintf(T, sizeof T, "tests/tmp/knobs-%ld", (long)getpid());
    (void)!system("mkdir -p " TMPDIR);
    (void)!shf("rm -rf %s && mkdir -p %s", T, T);
    Suite *s = suite_create("knobs");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, categorical_numeric_and_range_knobs);
    tcase_add_test(t, analytic_takes_builtin_knobs_anywhere);
    tcase_add_test(t, unknown_knob_on_analytic_names_backends);
    tcase_add_test(t, range_and_list_errors);
    tcase_add_test(t, builtin_keys_unchanged_user_knobs_keyed);
    tcase_add_test(t, journal_round_trip_and_placeholders);
    tcase_add_test(t, gpgpusim_option_lines);
    tcase_add_test(t, every_strategy_over_user_knobs);
    tcase_add_test(t, llm_proposals_name_user_knobs);
    tcase_add_test(t, layout_figures_take_user_knobs);
    tcase_add_test(t, aggregate_over_user_knobs);
    tcase_add_test(t, custom_knobs_campaigns_run_and_report);
    suite_add_tcase(s, t);
    int rc = tu_run_suite(s);
    if (rc == 0)
        (void)!shf("rm -rf %s", T);
    return rc;
}
