/* campaign: reads a campaign XML file, checks it against the RELAX NG schema
 * templates/campaign.rng, then checks its meaning (knobs, values, workloads,
 * metrics, budgets). Every error names FILE:LINE. */
#ifndef GPUDSE_CAMPAIGN_H
#define GPUDSE_CAMPAIGN_H

#include <stdint.h>
#include "util.h"
#include "space.h"
#include "workload.h"

#define CAMP_MAXOBJ 8
#define CAMP_MAXWL 64

typedef struct {
    char metric[32];
    int maximize;          /* 1 maximize, 0 minimize */
} camp_objective;

enum { CAMP_FMT_PDF = 1, CAMP_FMT_SVG = 2 };

typedef struct {
    char path[4096];       /* the campaign file */
    char dir[4096];        /* its folder: {campaign_dir} */
    char name[64];
    uint64_t seed;
    char sha256[65];       /* of the file's bytes */

    char backend[32];      /* simulator backend: "analytic", ... */

    int nworkloads;
    wl_workload *workloads;   /* nworkloads descriptors, loaded */

    space_def space;
    int nobjectives;
    camp_objective obj[CAMP_MAXOBJ];

    char strategy[32];     /* exhaustive | random */
    long budget;           /* evaluations per workload */

    int jobs;              /* parallel workers, 0 = number of cores */
    double timeout_s;      /* per external job */
    int retries;

    int formats;           /* CAMP_FMT_* bits */
    char paper[16];        /* "a4" or "letter" */
    char layout[4096];     /* report layout file, "" for the default */
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

/* Metrics the backend produces; an objective must name one of them. */
int camp_backend_known(const char *backend);

#endif
