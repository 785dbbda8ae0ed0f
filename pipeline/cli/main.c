/* main: the gpudse command line — subcommands, usage text, signal handling
 * and the mapping of errors to exit codes. The only place that exits. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agents.h"
#include "analysis.h"
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
    "  report DIR [--layout FILE]\n"
    "                      re-render report.pdf, figures/ and results.csv\n"
    "                      from a run directory alone\n"
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

/* Each command's own usage, printed by `gpudse help CMD` and `gpudse CMD -h`.
 * compare prints its own (compare_usage), so it is not here. */
static const struct {
    const char *name;
    const char *text;
} command_help[] = {
    {"run",
     "usage: gpudse run CAMPAIGN [-o DIR] [-j N] [-q] [--executor local|slurm]\n"
     "                  [--force] [--retry CLASS[,CLASS]|all]\n"
     "\n"
     "Run every job of CAMPAIGN to a finished run directory, then analyse and\n"
     "render the report. A run directory that already holds this campaign is\n"
     "resumed: finished jobs are kept, the rest run. A multi-fidelity\n"
     "verification loop (<verify rounds=...>) journals each round in\n"
     "DIR/verify_rounds.json and a resume goes on from its last round.\n"
     "\n"
     "  -o DIR              run directory (default: runs/<campaign name>/);\n"
     "                      a non-empty one that holds no gpudse run is\n"
     "                      refused\n"
     "  --force             run in such a directory anyway (its files named\n"
     "                      like a run's are overwritten)\n"
     "  -j N                parallel workers, 0 (one per online core) to\n"
     "                      4096 (default: the campaign's jobs=, else one\n"
     "                      per online core)\n"
     "  -q                  no progress lines\n"
     "  --executor local|slurm\n"
     "                      where external jobs run (default: the campaign's\n"
     "                      executor attribute, else local)\n"
     "  --retry CLASS,...   on resume, run again the journaled jobs whose\n"
     "                      outcome is one of these classes (failed, crashed,\n"
     "                      timeout, oom, deadlock, assert, no-stats,\n"
     "                      bad-output, invalid-config) or all failures; each\n"
     "                      attempt adds a record to results.jsonl and the\n"
     "                      analysis, results.csv and report take the latest\n"},
    {"validate",
     "usage: gpudse validate CAMPAIGN\n"
     "\n"
     "Check CAMPAIGN and print what it would run; writes nothing. Makes\n"
     "every check `gpudse run` makes before its first job (for gpgpusim: the\n"
     "simulator root and its lib/.../libcudart.so, the config templates,\n"
     "each workload's program) and prints the first external job (working\n"
     "directory, environment, command) so that it can be run by hand. A\n"
     "<split-study> file is checked as by `gpudse split validate`.\n"},
    {"analyze",
     "usage: gpudse analyze DIR\n"
     "\n"
     "Recompute DIR/analysis.json (fits, Pareto fronts, calibration error) from\n"
     "the run directory's results alone.\n"},
    {"report",
     "usage: gpudse report DIR [--layout FILE]\n"
     "\n"
     "Re-render DIR/report.pdf, DIR/figures/ and DIR/results.csv from the run\n"
     "directory alone.\n"
     "\n"
     "  --layout FILE       report layout (default: the campaign's, else\n"
     "                      the built-in one)\n"},
    {"annotate",
     "usage: gpudse annotate DIR\n"
     "\n"
     "Rewrite DIR/annotations.json with the campaign's agents (docs/agents.md).\n"},
    {"status",
     "usage: gpudse status DIR [--json] [--watch [SECONDS]]\n"
     "\n"
     "Show a run's progress from its files, while it runs or after its\n"
     "gpudse died: queued, running, done and failed jobs per workload with\n"
     "totals, the running jobs (workload, config, elapsed, last log line),\n"
     "the phase and an ETA; results job-run wrote but nobody merged are\n"
     "counted, and squeue is asked about Slurm tasks.\n"
     "\n"
     "  --json              the same as one JSON object\n"
     "  --watch [SECONDS]   redraw every SECONDS (default 2) until the run\n"
     "                      stops\n"},
    {"machine",
     "usage: gpudse machine probe [-o FILE] [--devices N] [--slowdown a,b,...]\n"
     "       gpudse machine show NAME|FILE\n"
     "\n"
     "Describe this machine's cores as split devices (probe), or print a\n"
     "machine descriptor (show).\n"
     "\n"
     "  -o FILE             write the descriptor to FILE (default: stdout)\n"
     "  --devices N         number of devices to describe\n"
     "  --slowdown a,b,...  per-device slowdown factors, each >= 1\n"},
    {"calibrate-machine",
     "usage: gpudse calibrate-machine [MACHINE.xml] [-o FILE]\n"
     "                                [--slowdown a,b,...] [--repeats N] [--seed S] [-v]\n"
     "\n"
     "Fit the split cost model to timings measured on this machine's cores\n"
     "(MACHINE.xml, or a probed machine) and print its error.\n"
     "\n"
     "  -o FILE             write the fitted machine to FILE\n"
     "  --slowdown a,b,...  per-device slowdown factors of a probed machine\n"
     "  --repeats N         timed repeats per point, 1 to 1000 (default 9)\n"
     "  --seed S            seed of the measurement order (default 1)\n"
     "  -v                  print every measured point\n"},
    {"split",
     "usage: gpudse split run CAMPAIGN [-o DIR] [-q] [--force]\n"
     "       gpudse split validate CAMPAIGN\n"
     "\n"
     "Run or check a <split-study> campaign (docs/split.md). `split run` is\n"
     "`gpudse run` on a split study (the engine runs it and refuses a file\n"
     "that is not one).\n"
     "\n"
     "  -o DIR              run directory (default: runs/<campaign name>/);\n"
     "                      a non-empty one that holds no gpudse run is\n"
     "                      refused\n"
     "  --force             run in such a directory anyway\n"
     "  -q                  no progress lines\n"},
    {"workload",
     "usage: gpudse workload from-log LOG -o W.xml [--name NAME]\n"
     "                      [--mix sfu=N,sync=N,atomic=N]\n"
     "\n"
     "Build a workload descriptor from one GPGPU-Sim log (docs/model.md,\n"
     "\"From a log\").\n"
     "\n"
     "  -o W.xml            the descriptor to write\n"
     "  --name NAME         workload name (default: LOG's file name up to\n"
     "                      its first dot)\n"
     "  --mix sfu=N,...     per-warp SFU, barrier and atomic counts from the\n"
     "                      kernel's source; without sync=, the barriers the\n"
     "                      log's PTX dump shows (a lower bound)\n"},
    {"calibrate",
     "usage: gpudse calibrate -w W.xml -r REF.csv -o OUT.xml [--kernel NAME]\n"
     "                        [--folds K] [--params P,...] [--prior W]\n"
     "                        [--ident T] [--starts N]\n"
     "\n"
     "Fit a descriptor's free parameters to measured results (the CSV format\n"
     "of tests/data/reference_results.csv) and print the error on held-out rows\n"
     "(docs/model.md, \"Calibration\").\n"
     "\n"
     "  -w W.xml            descriptor file or built-in workload name\n"
     "  -r REF.csv          measured results; rows of the workload's kernel\n"
     "  -o OUT.xml          the fitted descriptor to write\n"
     "  --kernel NAME       use REF.csv's rows of kernel NAME\n"
     "  --folds K           K-fold held-out error, K >= 2 (default: leave-one-out)\n"
     "  --params P,...      free parameters to fit (default: all seven)\n"
     "  --prior W           weight of the pull to the descriptor (default 0.001)\n"
     "  --ident T           identifiability threshold; 0 fits every chosen\n"
     "                      parameter (default 0.05)\n"
     "  --starts N          screened multi-start points (default 0: off)\n"},
    {"sim",
     "usage: gpudse sim -w W.xml [--config k=v,... | --configs CONFIGS.csv]\n"
     "\n"
     "Predict with the embedded model (outputs are modelled, never measured).\n"
     "\n"
     "  -w W.xml            descriptor file or built-in workload name\n"
     "  --config k=v,...    one point, from the baseline: JSON on stdout\n"
     "  --configs FILE      a CSV with knob columns: a CSV row per config\n"
     "\n"
     "Each prediction carries ipc_lo..ipc_hi, a 95% interval from the\n"
     "descriptor's calibration residuals (uncalibrated: the model's own\n"
     "error), widened outside the region its calibration rows covered (SM\n"
     "count, channels, L1/L2 sets), and extrapolated: true there\n"
     "(docs/model.md, \"Uncertainty\").\n"},
    {"job-run",
     "usage: gpudse job-run JOBDIR\n"
     "\n"
     "Run one prepared external job again from its JOBDIR/job.json (what a\n"
     "Slurm task runs; every external job, local or on Slurm, has one) and\n"
     "write JOBDIR/result.json. JOBDIR/cmd.sh runs the same command by hand.\n"},
};

/* Prints CMD's usage; returns 0, or -1 when CMD has none here. */
static int print_command_help(const char *cmd)
{
    for (size_t i = 0; i < sizeof command_help / sizeof command_help[0]; i++)
        if (!strcmp(cmd, command_help[i].name)) {
            fputs(command_help[i].text, stdout);
            return 0;
        }
    return -1;
}

static int asks_for_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "gpudse: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage_text);
    return 2;
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
 * (1 << store_status) in *mask; -1 naming the bad class in bad. */
static int parse_retry_classes(const char *list, unsigned *mask, char *bad,
                               size_t badsz)
{
    char buf[256], *save = NULL;
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
            util_strlcpy(bad, t, badsz);
            return -1;
        }
    }
    if (!*mask)
        util_strlcpy(bad, list, badsz);
    return *mask ? 0 : -1;
}

/* gpudse run; split_only: `gpudse split run` (the campaign must be a
 * <split-study>). */
static int run_campaign(int argc, char **argv, int split_only)
{
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.stop = &stop_requested;
    o.split_only = split_only;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "-j") || !strcmp(a, "--retry")
             || !strcmp(a, "--executor")) && i + 1 >= argc)
            return usage_error("option %s needs a value", a);
        char bad[256];
        if (!strcmp(a, "--retry")) {
            if (parse_retry_classes(argv[++i], &o.retry_mask, bad,
                                    sizeof bad) != 0)
                return usage_error("--retry takes outcome classes separated "
                                   "by commas (failed, crashed, timeout, oom,"
                                   " deadlock, assert, no-stats, bad-output, "
                                   "invalid-config) or all, not \"%s\"", bad);
        } else if (!strcmp(a, "--executor")) {
            o.executor = argv[++i];
            if (strcmp(o.executor, "local") && strcmp(o.executor, "slurm"))
                return usage_error("--executor is local or slurm, not "
                                   "\"%s\"", o.executor);
        } else if (!strcmp(a, "-o")) {
            o.outdir = argv[++i];
        } else if (!strcmp(a, "-j")) {
            int n;
            if (camp_parse_jobs(argv[++i], &n, bad, sizeof bad) != 0)
                return usage_error("-j: %s", bad);
            o.jobs = n > 0 ? n : ENG_JOBS_PER_CORE;
        } else if (!strcmp(a, "-q")) {
            o.quiet = 1;
        } else if (!strcmp(a, "--force")) {
            o.force = 1;
        } else if (a[0] == '-') {
            return usage_error("unknown option %s for run", a);
        } else if (o.campaign_path) {
            return usage_error("run takes one campaign file; extra argument "
                               "\"%s\"", a);
        } else {
            o.campaign_path = a;
        }
    }
    if (!o.campaign_path)
        return usage_error("%s", "run needs a campaign file");
    gd_err err = {0, ""};
    char dir[4096] = "";
    int rc = eng_run(&o, dir, sizeof dir, &err);   /* a split study too */
    if (rc == GD_OK || rc == GD_EJOBS) {
        printf("report: %s/report.pdf\n", dir);
        return rc;
    }
    return report_error(&err);
}

/* `gpudse split run ...` is `gpudse run ...` on a <split-study> (the
 * engine takes a split study like any campaign); `split validate` is
 * split.c's. */
static int cmd_split_run(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[0], "run"))
        return run_campaign(argc - 1, argv + 1, 1);
    return cmd_split(argc, argv);
}

static int cmd_run(int argc, char **argv)
{
    return run_campaign(argc, argv, 0);
}

static int cmd_validate(int argc, char **argv)
{
    if (argc != 1)
        return usage_error("%s", "validate takes exactly one campaign file");
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
    if (camp_load(argv[0], &c, &err) != GD_OK)
        return report_error(&err);
    if (preflight_check(&c, NULL, &err) != GD_OK) {
        camp_free(&c);
        return report_error(&err);
    }
    char rundir[4096];
    snprintf(rundir, sizeof rundir, "runs/%s", c.name);
    util_buf job;
    util_buf_init(&job);
    if (preflight_first_job(&c, rundir, &job, &err) != GD_OK) {
        util_buf_free(&job);
        camp_free(&c);
        return report_error(&err);
    }
    uint64_t size = space_size(&c.space);
    uint64_t per = (uint64_t)c.budget < size ? (uint64_t)c.budget : size;
    printf("%s: ok: campaign %s, backend %s, %d workload(s), %llu points, "
           "%s search, %llu evaluations per workload, %d objective(s)\n",
           argv[0], c.name, c.backend, c.nworkloads,
           (unsigned long long)size, c.strategy, (unsigned long long)per,
           c.nobjectives);
    if (job.len)
        fputs(job.s, stdout);
    util_buf_free(&job);
    camp_free(&c);
    return 0;
}

static int need_dir(int argc, char **argv, const char *cmd)
{
    if (argc < 1 || argv[0][0] == '-') {
        char m[128];
        snprintf(m, sizeof m, "%s needs a run directory", cmd);
        return usage_error("%s", m);
    }
    return 0;
}

static int cmd_analyze(int argc, char **argv)
{
    if (argc != 1)
        return need_dir(0, argv, "analyze");
    gd_err err = {0, ""};
    if (ana_run(argv[0], &err) != GD_OK)
        return report_error(&err);
    printf("analysis: %s/analysis.json\n", argv[0]);
    return 0;
}

static int cmd_report(int argc, char **argv)
{
    int rc = need_dir(argc, argv, "report");
    if (rc)
        return rc;
    const char *layout = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--layout") && i + 1 < argc)
            layout = argv[++i];
        else
            return usage_error("unknown argument \"%s\" for report", argv[i]);
    }
    gd_err err = {0, ""};
    if (rep_render(argv[0], layout, &err) != GD_OK)
        return report_error(&err);
    printf("report: %s/report.pdf\n", argv[0]);
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
    {"annotate", cmd_annotate},
    {"machine", cmd_machine},
    {"calibrate-machine", cmd_calibrate_machine},
    {"split", cmd_split_run},
    {"workload", cmd_workload},
    {"calibrate", cmd_calibrate},
    {"sim", cmd_sim},
    {"job-run", cmd_job_run},
    {"compare", cmd_compare},
};

int main(int argc, char **argv)
{
    /* first of all: a run stopped at any point after this is resumable and
     * says so (exit 3); before it only the dynamic loader has run */
    if (argc >= 2 && (!strcmp(argv[1], "run") ||
                      (argc >= 3 && !strcmp(argv[1], "split") &&
                       !strcmp(argv[2], "run"))))
        install_signals();
    if (argc < 2)
        return usage_error("%s", "no command given");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        if (argc > 2 && !strcmp(argv[2], "compare")) {
            char opt[] = "--help", *args[] = {opt};
            return cmd_compare(1, args);
        }
        if (argc > 2 && print_command_help(argv[2]) != 0)
            return usage_error("'%s' is not a gpudse command", argv[2]);
        if (argc > 2)
            return 0;
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("gpudse %s\n", GPUDSE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name)) {
            if (asks_for_help(argc - 2, argv + 2)
                && print_command_help(cmd) == 0)
                return 0;
            return commands[i].fn(argc - 2, argv + 2);
        }
    return usage_error("'%s' is not a gpudse command; see 'gpudse --help'",
                       cmd);
}
