/* compare_impl: what the checking half of gpudse compare (compare.c) hands
 * to its output half (compare_out.c) — the checks with their numbers, the
 * two run directories' facts. Private to the compare module. */
#ifndef GPUDSE_COMPARE_IMPL_H
#define GPUDSE_COMPARE_IMPL_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "campaign.h"
#include "compare.h"
#include "store.h"
#include "util.h"

#define CMP_WORST 5        /* offending jobs kept per check (the worst) */

enum { CK_STATUS, CK_COVERAGE, CK_FRONT, CK_METRIC, CK_CALIB };
enum { RES_PASS, RES_FAIL, RES_SKIP };

/* One compared value (a job's metric, a hypervolume, a calibration error)
 * or one job (status, coverage). Numbers NaN where they do not apply. */
typedef struct {
    char key_base[65], key_new[65];   /* "" when absent */
    char config[512];                 /* canonical config, "" when none */
    char label[96];                   /* "ok -> timeout", "missing in NEW" */
    double base, now;                 /* values in BASE and NEW */
    double ratio;                     /* |change| / allowance, for ordering */
} cmp_item;

typedef struct {
    char workload[64];     /* "" for campaign-wide checks (calibration) */
    char name[64];         /* "status", "coverage", "front", "metric ipc"... */
    char metric[32];       /* metric / threshold name, "" for jobs checks */
    int kind, result;      /* CK_*, RES_* */
    camp_threshold thr;
    const char *thr_source;   /* "default", "campaign", "flag", NULL */
    size_t compared, over;
    double max_ratio;      /* largest ratio among the offenders */
    /* kind-specific counts: status (fixed, still failing), coverage
     * (missing in NEW, fidelity changed, only in NEW), front (gained,
     * lost, front sizes) */
    long fixed, still, missing, fidelity, added, gained, lost, nb, nn;
    int has_largest;
    cmp_item largest;      /* the largest relative change, over or not */
    int dir;               /* CAMP_DIR_HIGHER/LOWER/ANY: which way is better */
    const char *dir_source;   /* "campaign", "objective", "built-in", NULL */
    size_t improved;       /* beyond the threshold, in the better direction */
    int has_gain;
    cmp_item gain;         /* the largest improvement */
    int nworst;
    cmp_item worst[CMP_WORST];   /* offenders, worst first */
    char note[512];
} cmp_check;

/* A run directory. Its journal is indexed by workload (store_index_workloads)
 * and read one workload at a time: recs holds the records of the workload
 * being compared only, n counts the records of every workload read so
 * far (the whole journal once the checks are done). */
typedef struct {
    const char *dir;
    char journal[4096];    /* DIR/results.jsonl */
    store_wl_lines *wl;    /* its GPU records' lines, per workload */
    int nwl;
    store_record *recs;    /* the workload being compared (journal order) */
    size_t nrec;
    size_t n;
    cJSON *analysis;       /* NULL when the run has no analysis.json */
    cJSON *manifest;       /* NULL when the run has no manifest.json */
    space_def space;       /* its campaign copy's (user knobs); zeroed
                              (built-in knobs alone) when it has none */
} cmp_side;

typedef struct {
    const cmp_opts *o;
    cmp_side base, now;
    size_t by_key, by_config, only_base, only_new;
    cmp_check *ck;         /* in natural order: workload, kind, name */
    size_t nck, capck;
    camp_threshold dflt;
    const char *dflt_source;
} cmp_ctx;

/* compare_out.c */
/* Check indices in severity order (failures first, worst first). */
size_t *cmp_severity_order(const cmp_ctx *x);
int cmp_write_json(const cmp_ctx *x, const size_t *order, gd_err *err);
int cmp_write_junit(const cmp_ctx *x, const char *path, gd_err *err);
void cmp_summary(const cmp_ctx *x, const size_t *order, util_buf *out);
/* "+10.00%", "n/a" for a relative change of an item. */
void cmp_rel_text(double base, double now, char *out, size_t n);

#endif
