/* main: the gpudse command line — the list of commands and the global
 * usage text, signal handling and the mapping of errors to exit codes. Each
 * command parses its arguments and prints its own help from its option
 * table (parseopt.h). The only place that exits. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "analysis.h"
#include "split_analysis.h"
#include "campaign.h"
#include "engine.h"
#include "report.h"
#include "status.h"
#include "machine.h"
#include "split.h"
#include "splitcal.h"
#include "calibrate.h"
#include "fromlog.h"
#include "simcmd.h"
#include "compare.h"
#include "jobrun.h"
#include "preflight.h"
#include "parseopt.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static const char usage_text[] =
    "usage: gpudse <command> [<args>]\n"
    "\n"
    "Batch design-space exploration for GPU architecture studies.\n"
    "\n"
    "commands:\n"
    "  run CAMPAIGN [-o DIR] [-j N] [-q] [--executor local|slurm] [--force]\n"
    "               [--retry CLASS[,CLASS]|all]\n"
    "                      run a campaign to a finished run directory\n"
    "                      (default DIR: runs/<campaign name>/); an existing\n"
    "                      run directory of the same campaign is resumed\n"
    "  job-run JOBDIR      run one prepared external job (a Slurm task)\n"
    "  validate CAMPAIGN   check a campaign file and print what it would run\n"
    "  analyze DIR         recompute analysis.json from a run directory\n"
    "  report DIR [--layout FILE] [--overlay DIR2[:LABEL]]...\n"
    "                      re-render report.pdf, figures/ and results.csv\n"
    "                      from a run directory alone (with other runs'\n"
    "                      fronts overlaid)\n"
    "  annotate DIR        rewrite annotations.json (agents; docs/agents.md)\n"
    "  status DIR [--json] [--watch [S]]\n"
    "                      show a run's progress from its files (while it\n"
    "                      runs or after)\n"
    "  machine probe [-o FILE] | machine show NAME\n"
    "                      describe this machine's cores as split devices\n"
    "  calibrate-machine [MACHINE] [-o FILE]\n"
    "                      fit the split cost model to measured timings\n"
    "  split run|validate CAMPAIGN [-o DIR] [-q]\n"
    "                      run a <split-study> campaign\n"
    "  workload from-log LOG -o W.xml   descriptor from a GPGPU-Sim log\n"
    "  calibrate -w W.xml -r REF.csv -o OUT.xml   fit a descriptor (docs/model.md)\n"
    "  sim -w W.xml [--config k=v,...|--configs CSV]   embedded-model prediction\n"
    "  compare BASE_DIR NEW_DIR [--junit FILE] [--threshold METRIC=PCT[,ABS]]\n"
    "          [--fail-on-improvement] [--accept]\n"
    "                      regression check of NEW against BASE (exit 1 on one)\n"
    "  help [COMMAND]      show this text, or COMMAND's options\n"
    "\n"
    "options:\n"
    "  -h, --help          show this text; after a command, its options\n"
    "  --version           print the version\n"
    "\n"
    "exit codes: 0 ok; 1 finished but jobs failed; 2 bad input or usage;\n"
    "            3 environment or internal error (also: interrupted)\n";

/* A usage error before any command is known: one line and the form of a
 * command line (the commands are listed by `gpudse --help`). */
static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpudse: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: gpudse <command> [<args>]; 'gpudse --help' "
            "lists the commands\n");
    return GD_EINPUT;
}

static int report_error(const gd_err *err)
{
    fprintf(stderr, "gpudse: %s\n", err->msg);
    return err->code ? err->code : 3;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* --retry's CLASS[,CLASS]: outcome class names (not ok), or all; the bits
 * (1 << store_status) in *(unsigned *)value. */
static int retry_classes(void *value, const char *list, gd_err *err)
{
    char buf[256], *save = NULL;
    const char *bad = list;
    unsigned *mask = value;
    *mask = 0;
    util_strlcpy(buf, list, sizeof buf);
    for (char *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int st = store_status_parse(t);
        if (!strcmp(t, "all"))
            *mask |= ((1u << ST__COUNT) - 1) & ~(1u << ST_OK);
        else if (st > ST_OK)
            *mask |= 1u << st;
        else {
            bad = t;
            *mask = 0;
            break;
        }
    }
    if (*mask)
        return GD_OK;
    return gd_errf(err, GD_EINPUT, "--retry takes outcome classes separated "
                   "by commas (failed, crashed, timeout, oom, deadlock, "
                   "assert, no-stats, bad-output, invalid-config) or all, "
                   "not \"%s\"", bad);
}

static int executor_name(void *value, const char *arg, gd_err *err)
{
    if (strcmp(arg, "local") && strcmp(arg, "slurm"))
        return gd_errf(err, GD_EINPUT, "--executor is local or slurm, not "
                       "\"%s\"", arg);
    *(const char **)value = arg;
    return GD_OK;
}

/* -j N: 0 (one per online core) to 4096, the range of the campaign's
 * jobs= (camp_parse_jobs); into the int value, 0 as ENG_JOBS_PER_CORE. */
static int jobs_count(void *value, const char *arg, gd_err *err)
{
    char why[256];
    int n;
    if (camp_parse_jobs(arg, &n, why, sizeof why) != 0)
        return gd_errf(err, GD_EINPUT, "-j: %s", why);
    *(int *)value = n > 0 ? n : ENG_JOBS_PER_CORE;
    return GD_OK;
}

/* Runs o's campaign (a split study too: the engine takes both) and says
 * where its report is. */
static int run_campaign(const eng_opts *o)
{
    gd_err err = {0, ""};
    char dir[4096] = "";
    int rc = eng_run(o, dir, sizeof dir, &err);
    if (rc == GD_OK || rc == GD_EJOBS) {
        printf("report: %s/report.pdf\n", dir);
        return rc;
    }
    return report_error(&err);
}

static int cmd_run(int argc, char **argv)
{
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.stop = &stop_requested;
    po_option opts[] = {
        PO_STRING("-o", "DIR", &o.outdir,
                  "run directory (default: runs/<campaign name>/);\n"
                  "a non-empty one that holds no gpudse run is\n"
                  "refused"),
        PO_FLAG("--force", &o.force,
                "run in such a directory anyway (its files named\n"
                "like a run's are overwritten)"),
        PO_CALLBACK("-j", "N", &o.jobs, jobs_count,
                    "parallel workers, 0 (one per online core) to\n"
                    "4096 (default: the campaign's jobs=, else one\n"
                    "per online core)"),
        PO_FLAG("-q", &o.quiet, "no progress lines"),
        PO_CALLBACK("--executor", "local|slurm", &o.executor, executor_name,
                    "where external jobs run (default: the campaign's\n"
                    "executor attribute, else local)"),
        PO_CALLBACK("--retry", "CLASS,...", &o.retry_mask, retry_classes,
                    "on resume, run again the journaled jobs whose\n"
                    "outcome is one of these classes (failed, crashed,\n"
                    "timeout, oom, deadlock, assert, no-stats,\n"
                    "bad-output, invalid-config) or all failures; each\n"
                    "attempt adds a record to results.jsonl and the\n"
                    "analysis, results.csv and report take the latest"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "run",
        "usage: gpudse run CAMPAIGN [-o DIR] [-j N] [-q] [--executor local|slurm]\n"
        "                  [--force] [--retry CLASS[,CLASS]|all]\n",
        "Run every job of CAMPAIGN to a finished run directory, then analyse and\n"
        "render the report. A run directory that already holds this campaign is\n"
        "resumed: finished jobs are kept, the rest run. A multi-fidelity\n"
        "verification loop (<verify rounds=...>) journals each round in\n"
        "DIR/verify_rounds.json and a resume goes on from its last round.\n",
        opts, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n != 1)
        return n ? po_usage_error(&cmd, "run takes one campaign file; extra "
                                  "argument \"%s\"", argv[1])
                 : po_usage_error(&cmd, "run needs a campaign file");
    o.campaign_path = argv[0];
    return run_campaign(&o);
}

/* `gpudse split run` is `gpudse run` on a <split-study> (the engine runs
 * it and refuses a file that is not one); `split validate` is split.c's. */
static int cmd_split_study(int argc, char **argv)
{
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.stop = &stop_requested;
    o.split_only = 1;
    const po_option opts[] = {
        PO_STRING("-o", "DIR", &o.outdir,
                  "run directory (default: runs/<campaign name>/);\n"
                  "a non-empty one that holds no gpudse run is\n"
                  "refused"),
        PO_FLAG("--force", &o.force, "run in such a directory anyway"),
        PO_FLAG("-q", &o.quiet, "no progress lines"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "split",
        "usage: gpudse split run CAMPAIGN [-o DIR] [-q] [--force]\n"
        "       gpudse split validate CAMPAIGN\n",
        "Run or check a <split-study> campaign (docs/split.md). `split run` is\n"
        "`gpudse run` on a split study (the engine runs it and refuses a file\n"
        "that is not one).\n",
        opts, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n < 1 || (strcmp(argv[0], "run") && strcmp(argv[0], "validate")))
        return po_usage_error(&cmd, "split needs run or validate first");
    if (n != 2)
        return po_usage_error(&cmd, "split %s takes one campaign file",
                              argv[0]);
    if (!strcmp(argv[0], "validate"))
        return cmd_split(2, argv);
    o.campaign_path = argv[1];
    return run_campaign(&o);
}

static int cmd_validate(int argc, char **argv)
{
    const po_command cmd = {
        "validate", "usage: gpudse validate CAMPAIGN\n",
        "Check CAMPAIGN and print what it would run; writes nothing. Makes\n"
        "every check `gpudse run` makes before its first job (for gpgpusim: the\n"
        "simulator root and its lib/.../libcudart.so, the config templates,\n"
        "each workload's program) and prints the first external job (working\n"
        "directory, environment, command) so that it can be run by hand. The\n"
        "campaign's knobs, built-in or its own (<knob name=\"my_policy\"\n"
        "values=\"lru srrip\"/>, from= to= step=|log2=), must be ones its\n"
        "backends take: an error names the knob's line and the backends that\n"
        "can. A <split-study> file is checked as by `gpudse split validate`.\n",
        NULL, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n != 1)
        return po_usage_error(&cmd, "validate takes exactly one campaign "
                              "file");
    char root[64];
    gd_err err = {0, ""};
    if (camp_root_name(argv[0], root, sizeof root, NULL, 0, &err) != 0)
        return report_error(&err);
    if (!strcmp(root, "split-study")) {
        /* what run accepts, validate accepts: gpudse split validate */
        char verb[] = "validate", *args[] = {verb, argv[0]};
        return cmd_split(2, args);
    }
    camp_campaign c;
    if (preflight_load(argv[0], &c, &err) != GD_OK)
        return report_error(&err);
    char rundir[4096];
    snprintf(rundir, sizeof rundir, "runs/%s", c.name);
    util_buf job;
    util_buf_init(&job);
    rc = preflight_check(&c, NULL, &err);
    if (rc == GD_OK)
        rc = preflight_first_job(&c, rundir, &job, &err);
    if (rc == GD_OK) {
        uint64_t size = space_size(&c.space);
        uint64_t per = (uint64_t)c.budget < size ? (uint64_t)c.budget : size;
        printf("%s: ok: campaign %s, backend %s, %d workload(s), %llu "
               "points, %s search, %llu evaluations per workload, %d "
               "objective(s)\n", argv[0], c.name, c.backend, c.nworkloads,
               (unsigned long long)size, c.strategy, (unsigned long long)per,
               c.nobjectives);
        for (int i = 0; i < c.naggregates; i++)   /* across workloads */
            printf("aggregate %s: %s over the workloads of %s%s, %s\n",
                   c.agg[i].name, camp_agg_fn_name(c.agg[i].fn),
                   c.agg[i].metric, c.agg[i].normalise
                   ? " / the workload's baseline value" : "",
                   c.agg[i].maximize ? "maximize" : "minimize");
        if (job.len)
            fputs(job.s, stdout);
    }
    util_buf_free(&job);
    camp_free(&c);
    return rc == GD_OK ? 0 : report_error(&err);
}

/* The one run directory of analyze, report and annotate: 1 when argv[0..n)
 * is it; else a usage error printed. */
static int one_dir(const po_command *cmd, int n, char **argv, int *rc)
{
    if (n == 1)
        return 1;
    if (n == 0)
        *rc = po_usage_error(cmd, "%s needs a run directory", cmd->name);
    else
        *rc = po_usage_error(cmd, "%s takes one run directory; extra "
                             "argument \"%s\"", cmd->name, argv[1]);
    return 0;
}

static int cmd_analyze(int argc, char **argv)
{
    const po_command cmd = {
        "analyze", "usage: gpudse analyze DIR\n",
        "Recompute DIR/analysis.json (fits, Pareto fronts, calibration error) from\n"
        "the run directory's results alone (with <aggregate> objectives also\n"
        "DIR/aggregates.csv, the aggregates across workloads); for a split\n"
        "study, DIR/split-analysis.json (calibration, held-out score,\n"
        "speedups).\n",
        NULL, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0 || !one_dir(&cmd, n, argv, &rc))
        return rc;
    gd_err err = {0, ""};
    int split = sp_is_run_dir(argv[0]);
    if ((split ? ana_split_run(argv[0], &err) : ana_run(argv[0], &err))
        != GD_OK)
        return report_error(&err);
    printf("analysis: %s/%s\n", argv[0],
           split ? "split-analysis.json" : "analysis.json");
    return 0;
}

/* --overlay DIR[:LABEL], repeatable: the runs in the order given. */
typedef struct {
    const char *spec[REP_OVERLAY_ARGS];
    int n;
} overlay_args;

static int overlay_arg(void *value, const char *arg, gd_err *err)
{
    overlay_args *o = value;
    if (o->n >= REP_OVERLAY_ARGS)
        return gd_errf(err, GD_EINPUT, "--overlay: at most %d other runs",
                       REP_OVERLAY_ARGS);
    o->spec[o->n++] = arg;
    return GD_OK;
}

static int cmd_report(int argc, char **argv)
{
    const char *layout = NULL;
    overlay_args ov = {{NULL}, 0};
    const po_option opts[] = {
        PO_STRING("--layout", "FILE", &layout,
                  "report layout (default: the campaign's, else\n"
                  "the built-in one)"),
        PO_CALLBACK("--overlay", "DIR2[:LABEL]", &ov, overlay_arg,
                    "also draw run DIR2's Pareto fronts with DIR's,\n"
                    "one series per run, labelled LABEL (default: its\n"
                    "campaign name) and modelled or measured; the same\n"
                    "first two objectives; repeat for more runs (up to\n"
                    "7): figures/overlay_WORKLOAD.* and a report page"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "report",
        "usage: gpudse report DIR [--layout FILE] [--overlay DIR2[:LABEL]]...\n",
        "Re-render DIR/report.pdf, DIR/figures/ and DIR/results.csv from the run\n"
        "directory alone.\n",
        opts, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0 || !one_dir(&cmd, n, argv, &rc))
        return rc;
    gd_err err = {0, ""};
    if (rep_render_overlay(argv[0], layout, ov.spec, ov.n, &err) != GD_OK)
        return report_error(&err);
    printf("report: %s/report.pdf\n", argv[0]);
    return 0;
}

/* The annotate command (the stage is agents_annotate, analysis/agents/). */
static int cmd_annotate_dir(int argc, char **argv)
{
    const po_command cmd = {
        "annotate", "usage: gpudse annotate DIR\n",
        "Rewrite DIR/annotations.json with the campaign's agents (docs/agents.md).\n",
        NULL, NULL};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0 || !one_dir(&cmd, n, argv, &rc))
        return rc;
    gd_err err = {0, ""};
    if (agents_annotate(argv[0], &err) != GD_OK)
        return report_error(&err);
    printf("annotations: %s/annotations.json\n", argv[0]);
    return 0;
}

/* Subcommands. To add one, write `int cmd_NAME(int argc, char **argv)`
 * (argv[0] is the first argument after the command name) in the module
 * that owns it, declare it in that module's header, and add one row here. */
static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
} commands[] = {
    {"run", cmd_run},
    {"validate", cmd_validate},
    {"analyze", cmd_analyze},
    {"report", cmd_report},
    {"status", cmd_status},
    {"annotate", cmd_annotate_dir},
    {"machine", cmd_machine},
    {"calibrate-machine", cmd_calibrate_machine},
    {"split", cmd_split_study},
    {"workload", cmd_workload},
    {"calibrate", cmd_calibrate},
    {"sim", cmd_sim},
    {"job-run", cmd_job_run},
    {"compare", cmd_compare},
};

/* `gpudse help CMD`: what `gpudse CMD -h` prints. */
static int command_help(int (*fn)(int, char **))
{
    char opt[] = "-h", *args[] = {opt, NULL};
    return fn(1, args);
}

int main(int argc, char **argv)
{
    /* first of all: a run stopped at any point after this is resumable and
     * says so (exit 3); before it only the dynamic loader has run */
    if (argc >= 2 && (!strcmp(argv[1], "run") ||
                      (argc >= 3 && !strcmp(argv[1], "split") &&
                       !strcmp(argv[2], "run"))))
        install_signals();
    if (argc < 2)
        return usage_error("no command given");
    const char *cmd = argv[1];
    int help = !strcmp(cmd, "-h") || !strcmp(cmd, "--help")
               || !strcmp(cmd, "help");
    if (help && argc == 2) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (help)
        cmd = argv[2];
    if (!help && (!strcmp(cmd, "--version") || !strcmp(cmd, "version"))) {
        printf("gpudse %s\n", GPUDSE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return help ? command_help(commands[i].fn)
                        : commands[i].fn(argc - 2, argv + 2);
    return usage_error("'%s' is not a gpudse command", cmd);
}
