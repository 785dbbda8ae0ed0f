/* rundata: everything the report reads from a run directory — campaign copy,
 * manifest, journal, analysis.json — loaded into one read-only structure. */
#ifndef GPUDSE_RUNDATA_H
#define GPUDSE_RUNDATA_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "util.h"
#include "space.h"
#include "metrics.h"
#include "store.h"
#include "campaign.h"

#define REP_VALLEN 24

/* A point of analysis.json (front member or baseline). */
typedef struct {
    char key[65];
    char knob[SPACE_NKNOBS][REP_VALLEN];   /* knob values as text, "" absent */
    met_set metrics;
} rep_point;

/* One workload of analysis.json. */
typedef struct {
    char name[64];
    long points, failed;
    char fidelity[16];
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
    store_record *recs;
    size_t nrecs;
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
void rep_run_free(rep_run *run);

/* Path of a file inside the run directory into out. */
int rep_run_path(const rep_run *run, const char *name, char *out,
                 size_t outsz, gd_err *err);

/* Fidelity of the ok records of a workload: "modelled", "measured",
 * "mixed" or, when there are none, the analysis' value. */
const char *rep_wl_fidelity(const rep_run *run, int wl);

/* A workload's sensitivity entry for metric (analysis.json
 * "sensitivity"."<metric>"), or NULL. */
const cJSON *rep_wl_sensitivity(const rep_run *run, int wl,
                                const char *metric);
/* Index of the workload called name, or -1. */
int rep_wl_find(const rep_run *run, const char *name);

#endif
