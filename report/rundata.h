/* rundata: everything the report reads from a run directory — campaign copy,
 * manifest, journal, analysis.json — in one structure. The journal is read
 * one workload at a time: rep_run_load reads it once for the run-wide
 * facts (counts, metric names, failed jobs) and rep_run_select then loads
 * one workload's records into recs, so memory holds the largest workload's
 * records, not the journal's. */
#ifndef GPUDSE_RUNDATA_H
#define GPUDSE_RUNDATA_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "util.h"
#include "space.h"
#include "metrics.h"
#include "reccache.h"
#include "store.h"
#include "campaign.h"

#define REP_VALLEN 24
#define REP_FAILS_KEPT 300
#define REP_FAILS_LOGGED 40

/* A point of analysis.json (front member or baseline). */
typedef struct {
    char key[65];
    char knob[SPACE_MAXKNOBS][REP_VALLEN]; /* knob values as text, "" absent;
                                              user knobs in the order of
                                              analysis.json (the space's) */
    met_set metrics;
} rep_point;

/* One workload of analysis.json. */
typedef struct {
    char name[64];
    long points, failed;
    char fidelity[16];
    size_t ok_modelled, ok_measured;   /* ok records in the journal */
    int has_baseline;
    rep_point baseline;
    size_t nfront;
    rep_point *front;       /* best first by the first objective */
    const cJSON *json;      /* this workload's object in run->analysis
                             * (hypervolume, reference, sensitivity...) */
} rep_wl;

typedef struct {
    char dir[4096];
    int have_camp;
    camp_campaign camp;
    cJSON *manifest;        /* object */
    /* The selected workload's records (rep_run_select), canonical order;
     * recs_wl is its name ("" when none is selected). */
    store_record *recs;
    size_t nrecs;
    char recs_wl[64];
    /* When the journal's GPU lines fit REP_CACHE_BYTES of records, each
     * workload's records are parsed once and kept (cache[i] for jwl[i]):
     * the report selects each workload several times (facts, CSV,
     * figures, two PDF passes). recs then points into the cache. */
    store_record **cache;
    size_t *ncache;
    /* Records lent by an earlier stage of this process (gpudse run's
     * analysis; reccache.h), NULL when none; recs_borrowed when recs are
     * the lender's. */
    rcache *shared;
    int recs_borrowed;
    /* The journal's workloads (store_index_workloads), and their indices
     * in the records' canonical order (by name). */
    char journal[4096];
    store_wl_lines *jwl;
    int njwl;
    int *jorder;
    /* Run-wide facts of the whole journal, gathered by rep_run_load. */
    size_t ok_modelled, ok_measured;
    size_t failed_by_status[ST__COUNT], failed_total;
    char modelled_names[256];   /* " a, b," of measured records */
    char (*metric)[MET_NAMELEN];   /* every metric name, sorted, once */
    size_t nmetric;
    /* Failed records in canonical order: the first REP_FAILS_KEPT, then
     * the ones with a non-empty log file, up to REP_FAILS_LOGGED. */
    store_record *fails;
    size_t nfails;
    int nobj;
    camp_objective obj[CAMP_MAXOBJ];   /* from analysis.json */
    int nwl;
    rep_wl *wl;
    cJSON *analysis;        /* analysis.json, kept for optional sections */
    cJSON *annotations;     /* DIR/annotations.json, NULL when absent */
    char annot_problem[512];   /* why annotations.json was not usable */
} rep_run;

/* Load DIR's files; errors name the file (GD_EINPUT for missing or
 * malformed inputs, GD_EENV for system failures). */
int rep_run_load(const char *dir, rep_run *run, gd_err *err);
/* The same, taking records from shared (NULL: none) where it holds them
 * and lending it those it reads. */
int rep_run_load_cached(const char *dir, rcache *shared, rep_run *run,
                        gd_err *err);
/* The run's space (its campaign copy's: built-in and user knobs); NULL
 * (built-in knobs alone) when the run has no campaign copy. */
const space_def *rep_run_space(const rep_run *run);
void rep_run_free(rep_run *run);

/* Records kept parsed across selections when all of them fit this. */
#define REP_CACHE_BYTES (128u << 20)

/* Load the records of the workload called name into run->recs (none when
 * the journal has none), freeing the previous selection (or taking them
 * from the cache when the journal is small enough to keep parsed). */
int rep_run_select(rep_run *run, const char *name, gd_err *err);
/* Call fn on each journal workload's records in canonical order (by
 * name), one workload in memory at a time; stops at fn's first nonzero
 * return, which it returns. */
int rep_run_each(rep_run *run, int (*fn)(rep_run *run, void *arg),
                 void *arg, gd_err *err);

/* Path of a file inside the run directory into out. */
int rep_run_path(const rep_run *run, const char *name, char *out,
                 size_t outsz, gd_err *err);

/* Fidelity of the ok records of a workload: "modelled", "measured",
 * "mixed" or, when there are none, the analysis' value. */
const char *rep_wl_fidelity(const rep_run *run, int wl);
/* The run's campaign, NULL when its copy could not be read: for what the
 * campaign declares (a <derived> metric's unit). */
const camp_campaign *rep_run_camp(const rep_run *run);

/* A workload's sensitivity entry for metric (analysis.json
 * "sensitivity"."<metric>"), or NULL. */
const cJSON *rep_wl_sensitivity(const rep_run *run, int wl,
                                const char *metric);
/* Index of the workload called name, or -1. */
int rep_wl_find(const rep_run *run, const char *name);

#endif
