/* campaign: reads a campaign XML file, checks it against the RELAX NG schema
 * templates/campaign.rng, then checks its meaning as a document (knobs,
 * values, workloads, metrics, budgets, limits). What a section means to the
 * stage that reads it — a backend's name, placeholders and metrics, a
 * strategy's name, a report layout, a regression metric — is checked by
 * that stage (its *_check_campaign), which the engine's preflight_load calls
 * after camp_load; each records the line of its section here for its
 * messages. Every error names FILE:LINE. */
#ifndef GPUDSE_CAMPAIGN_H
#define GPUDSE_CAMPAIGN_H

#include <stdint.h>
#include "util.h"
#include "space.h"
#include "workload.h"
#include "derived.h"

#define CAMP_MAXOBJ 8
#define CAMP_MAXSTUDY 8
#define CAMP_MAXWL 64

typedef struct {
    char metric[32];
    int maximize;          /* 1 maximize, 0 minimize */
} camp_objective;

/* <aggregate name= fn= metric= normalise= sense=> inside <objectives>: a
 * campaign-level objective over the configurations evaluated on every
 * workload (analysis/aggregate.h computes it). */
#define CAMP_MAXAGG 8
typedef enum {
    CAMP_AGG_GEOMEAN, CAMP_AGG_MEAN, CAMP_AGG_HMEAN, CAMP_AGG_MIN,
    CAMP_AGG_MAX
} camp_agg_fn;

typedef struct {
    char name[32];
    int fn;                /* camp_agg_fn */
    char metric[32];
    int normalise;         /* normalise="baseline": each workload's value
                            * over that workload's baseline value */
    int maximize;          /* sense=, else the objective on metric's */
} camp_aggregate;

/* "geomean", "mean", ... of a camp_agg_fn. */
const char *camp_agg_fn_name(int fn);

enum { CAMP_FMT_PDF = 1, CAMP_FMT_SVG = 2 };

/* <agents>: who annotates results (analysis/agents/, docs/agents.md). The
 * key itself is never stored: only the name of the variable holding it. */
typedef struct {
    char provider[32];     /* "rules" (default), "anthropic", "openai-compatible" */
    char endpoint[512];    /* base URL; "" = the provider's default */
    char model[128];
    char key_env[64];      /* environment variable holding the key; "" = default */
    int max_tokens;        /* default 400 */
    double temperature;    /* default 0 */
    long max_requests;     /* spending cap: network requests per annotate, default 200 */
    double timeout_s;      /* per request, default 60 */
    int retries;           /* on 429, 5xx, timeouts; default 3 */
    double backoff_s;      /* first retry wait (doubles), default 1; Retry-After wins */
} camp_agents;

/* <regression><threshold metric= relative= absolute=/>: how much a metric
 * may move between two runs before gpudse compare calls it a regression
 * (pipeline/compare/compare.h). metric is a result metric, "hypervolume",
 * "calibration_mape" or "*" (every metric). */
#define CAMP_MAXTHRESH 48
typedef struct {
    char metric[32];
    double relative_pct;   /* percent of the base value; 0 = any change */
    double absolute;       /* in the metric's unit; 0 = any change */
    int direction;         /* direction="": CAMP_DIR_* (0 = not given) */
} camp_threshold;

/* <threshold direction=...>: which way of a change is better.
 * higher-is-better, lower-is-better, any (every change beyond the threshold
 * is a regression). Not given: the objectives decide (compare.h). */
enum { CAMP_DIR_UNSET, CAMP_DIR_HIGHER, CAMP_DIR_LOWER, CAMP_DIR_ANY };

/* External backends (command, gpgpusim): what runs and what it reports. */
#define CAMP_MAXFILES 8
#define CAMP_MAXMETRICS 32
#define CAMP_MAXENV 16

typedef struct {
    char name[32];
    char regex[512];       /* POSIX extended; group 1 is the value */
    int required;
} camp_metric;

typedef struct {
    char name[256];        /* file name written in the job directory */
    char template_path[4096];
    int line;              /* of its <file> */
} camp_file;

typedef struct {
    char name[128];
    char value[1024];
} camp_env;

/* How a workload runs on an external backend. */
typedef struct {
    char command[4096];    /* "" when the workload has none */
    int line;              /* of its <workload>, for messages */
    int command_line;      /* of its <command> */
    int nenv;
    camp_env env[CAMP_MAXENV];
    /* <workload timeout= memory-mb= cpus= gres=>: this workload's own
     * resources, over <execution>'s (0 and "": <execution>'s) */
    double timeout_s, memory_mb;
    int cpus;
    char gres[128];
} camp_wlrun;

/* <execution executor="slurm" ...>: where external jobs run (execif.h). */
typedef struct {
    char executor[8];      /* "local" (also "") or "slurm" */
    char partition[64];    /* sbatch -p, "" = the cluster's default */
    char account[64];      /* sbatch -A, "" = none */
    int array_limit;       /* %P: array tasks running at once, 0 = no limit */
    char sbatch_options[1024]; /* extra sbatch arguments, split on blanks */
    int cpus;              /* sbatch --cpus-per-task, 0 = Slurm's default */
    char gres[128];        /* sbatch --gres, "" = none */
} camp_cluster;

typedef struct {
    char path[4096];       /* the campaign file */
    char dir[4096];        /* its folder: {campaign_dir} */
    char name[64];
    uint64_t seed;
    char sha256[65];       /* of the file's bytes */

    char backend[32];      /* simulator backend: "analytic", ... */
    char sim_root[4096];   /* gpgpusim: the simulator's folder */
    char sim_config[4096]; /* gpgpusim: folder of config templates, "" = built-in */
    char sim_command[4096];/* command: the command template */
    int nfiles;
    camp_file files[CAMP_MAXFILES];
    int nmetrics;
    camp_metric metrics[CAMP_MAXMETRICS];
    char sim_fingerprint[65]; /* sha256 of what defines the simulator: in job keys */
    int sim_line;          /* of <simulator> (or <verify>), for messages */
    int simulator_line;    /* of <simulator>, 0 when absent */
    int sim_command_line;  /* of the <command> in sim_command */
    char sim_identity[4096]; /* "name=value" lines of the simulator build and
                              * templates (be_backend.identity), "" = none */
    /* Multi-fidelity: screen on the analytic backend, then run the best
     * verify_top configs of each predicted front on verify_backend (whose
     * set-up is in the sim_* fields above). "" when not verifying. */
    char verify_backend[32];
    int verify_top;
    /* <verify rounds= per-round= min-improvement= configs=>: the
     * multi-fidelity loop (pipeline/engine/mfloop.h). verify_rounds 0: one
     * pass of verify_top. verify_configs: CSV of the configs the verify
     * backend may run ("" = every screened config); verify_line: of <verify>. */
    int verify_rounds, verify_per_round, verify_line;
    double verify_min_improvement;
    char verify_configs[4096];

    int nworkloads;
    wl_workload *workloads;   /* nworkloads descriptors, loaded */
    camp_wlrun *wlrun;        /* nworkloads: how each runs externally */

    space_def space;
    int nobjectives;
    camp_objective obj[CAMP_MAXOBJ];
    int obj_line[CAMP_MAXOBJ];     /* of each <maximize>/<minimize> */
    int naggregates;
    camp_aggregate agg[CAMP_MAXAGG];
    int agg_line[CAMP_MAXAGG];     /* of each <aggregate> */
    /* <derived name= expr= unit=>: metrics computed from others, in order
     * (one may read an earlier one); every record gets them (drv_apply) */
    int nderived;
    drv_metric derived[DRV_MAX];
    /* <objectives><constraint metric= min= max=>: the feasible region;
     * infeasible records are journaled and counted, never on a front */
    int ncons;
    cons_bound cons[CONS_MAX];

    char strategy[32];     /* exhaustive | random | lhs | nsga2 | ... */
    long budget;           /* evaluations per workload */
    int nstudy;            /* <study>: strategies compared, 0 = no study */
    char study[CAMP_MAXSTUDY][32];
    int study_seeds;       /* seeds per strategy: seed, seed+1, ... */
    /* <search strategy="agent"><agents .../></search>: the LLM that drives
     * the search (provider "rules" when absent) and its configs per round */
    camp_agents search_agents;
    int search_batch;      /* default 1 */
    int search_llm_specialists; /* specialists="llm": diagnoses by the LLM */
    int search_line, study_line;  /* of <search> and <study> */
    int search_agents_line;       /* of <search>'s <agents>, 0: none */

    int jobs;              /* parallel workers, 0 = number of cores */
    double timeout_s;      /* per external job */
    int retries;
    double grace_s;        /* SIGTERM to SIGKILL */
    double memory_mb;      /* RLIMIT_AS per job, 0 = none */
    double output_cap_mb;  /* kept tail of stdout/stderr per job */
    double backoff_s;      /* first retry delay, doubling */
    unsigned retry_mask;   /* bit (1 << store_status) for classes retried */
    camp_cluster cluster;  /* executor and its Slurm settings */

    int formats;           /* CAMP_FMT_* bits */
    char paper[16];        /* "a4" or "letter" */
    int figure_single;     /* 1: figure files sized for one paper column */
    char layout[4096];     /* report layout file, "" for the default */
    int report_line;       /* of <report> */
    camp_agents agents;
    int nthresholds;       /* <regression>: thresholds of gpudse compare */
    camp_threshold thresholds[CAMP_MAXTHRESH];
    int threshold_line[CAMP_MAXTHRESH];  /* of each <threshold> */
} camp_campaign;

/* Parse and validate; on error returns GD_EINPUT (or GD_EENV when the schema
 * is missing) with "FILE:LINE: message" in err. */
int camp_load(const char *path, camp_campaign *c, gd_err *err);
/* The same checks, but workloads are not loaded: only their names are
 * filled in. For stages that read a run directory's copy of the campaign
 * (analysis, report), where descriptor files named relative to the original
 * campaign may not be reachable. */
int camp_load_meta(const char *path, camp_campaign *c, gd_err *err);
void camp_free(camp_campaign *c);

/* Is name a plain file name fit for runs/NAME/ (1)? Letters, digits, '_',
 * '-', '.', 1 to 63 of them, not "." or "..", no leading '.' or '-'. */
int camp_name_ok(const char *name);

/* Name of the root element of an XML file ("campaign", "split-study") and
 * its name="" attribute (name may be NULL), for dispatching on the kind of
 * campaign. Read as camp_load reads (xs_read: regular files only, a DOCTYPE
 * refused before anything is expanded); GD_EINPUT with FILE:LINE when it
 * cannot be. */
int camp_root_name(const char *path, char *out, size_t n, char *name,
                   size_t nn, gd_err *err);

/* The identity of a workload on an external backend (its name, command and
 * environment), hashed into job keys in place of a descriptor's hash. */
void camp_run_identity(const char *name, const camp_wlrun *r, char sha[65]);

/* Workload wl's resources: its own (<workload timeout= memory-mb= cpus=
 * gres=>) where given, else <execution>'s. */
double camp_wl_timeout(const camp_campaign *c, int wl);
double camp_wl_memory_mb(const camp_campaign *c, int wl);
int camp_wl_cpus(const camp_campaign *c, int wl);
const char *camp_wl_gres(const camp_campaign *c, int wl);

/* A number of parallel workers, as <execution jobs=> and `run -j` take it:
 * the one range for both, 0 (one per online core) to CAMP_JOBS_MAX. 0 with
 * *jobs set, else -1 with the message, the same for both (without a
 * place), in why. */
#define CAMP_JOBS_MAX 4096
int camp_parse_jobs(const char *text, int *jobs, char *why, size_t n);

/* Is name a metric of the catalogue, a command backend's <metric> or a
 * <derived> of c (1)? */
int camp_metric_declared(const camp_campaign *c, const char *name);

/* A metric's unit for figures and tables: a derived metric's unit=, else
 * metrics.h's catalogue (a derived metric's label is its name, as
 * met_label gives any name it does not know). */
const char *camp_metric_unit(const camp_campaign *c, const char *name);

/* Does m meet every <constraint> (1), and by how much does it miss
 * (*violation, may be NULL; cons_feasible)? 1 when there are none. */
int camp_feasible(const camp_campaign *c, const met_set *m,
                  double *violation);

/* The backend the sim_* fields describe: the primary one, or the verify
 * backend of a multi-fidelity campaign. */
const char *camp_ext_backend(const camp_campaign *c);

/* An error in the campaign file at line: GD_EINPUT with "FILE:LINE:
 * message" in err (the message cut at 1023 bytes), for the stages' checks
 * of their sections. */
int camp_errf(const camp_campaign *c, int line, gd_err *err, const char *fmt,
              ...) __attribute__((format(printf, 4, 5)));

#endif
