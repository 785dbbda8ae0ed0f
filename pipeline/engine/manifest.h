/* manifest: the run directory's manifest.json, one format for every run
 * (a design-space campaign, engine.c; a split study, engine_split.c): the
 * head (tool, version, kind, campaign, seed, backend), the run kind's own
 * fields, then the tail (libraries, host, times, job counts). It is
 * written when a session starts (finished: null) and when it ends. */
#ifndef GPUDSE_MANIFEST_H
#define GPUDSE_MANIFEST_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include "util.h"

typedef struct {
    const char *kind;          /* "split"; NULL: a design-space run (no
                                  "kind", as its journal records carry none) */
    const char *campaign, *campaign_file, *campaign_sha256;
    unsigned long seed;
    const char *backend, *backend_version;
} manifest_head;

typedef struct {
    const char *started;
    const char *finished;      /* NULL: the session is running (null) */
    uint64_t planned;          /* jobs the campaign plans */
    uint64_t ok, failed;       /* jobs in the journal, by outcome */
    uint64_t ran, resumed;     /* jobs run by this session, read back */
    uint64_t torn;             /* torn last lines dropped on opening */
} manifest_jobs;

/* A new manifest holding the head, for the run kind's fields to follow;
 * NULL when out of memory. */
cJSON *manifest_begin(const manifest_head *h);

/* Add the tail to m, write DIR/manifest.json atomically and free m. */
int manifest_write(cJSON *m, const char *dir, const manifest_jobs *j,
                   gd_err *err);

#endif
