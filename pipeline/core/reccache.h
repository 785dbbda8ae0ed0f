/* reccache: a journal's records parsed once for the stages that one
 * process runs one after another (gpudse run: the analysis, then the
 * report), instead of once per stage. Each workload's records are kept
 * canonically sorted (store_sort_canonical); the cache owns them and a
 * stage borrows them read-only. Records are kept only when the whole
 * journal fits RCACHE_BYTES (rcache_plan; else every stage reads its own
 * copy, as without a cache), and only for the journal the cache read: a
 * journal whose path, inode, size or modification time changed is read
 * again. */
#ifndef GPUDSE_RECCACHE_H
#define GPUDSE_RECCACHE_H

#include <sys/types.h>
#include "store.h"

/* The report's own cache holds this much: a journal of about 60,000
 * records. */
#define RCACHE_BYTES ((size_t)128 << 20)

typedef struct {
    char name[64];
    store_record *recs;
    size_t n;
} rcache_wl;

typedef struct {
    char path[4096];
    dev_t dev;
    ino_t ino;
    off_t size;
    long long mtime_ns;
    int armed;              /* rcache_plan: the whole journal fits */
    rcache_wl *wl;
    int n, cap;
    size_t bytes;           /* of the records kept */
} rcache;

void rcache_init(rcache *c);
/* Frees every record kept; the cache can be used again. */
void rcache_drop(rcache *c);
void rcache_free(rcache *c);
/* Whether nrecs more records would be kept. */
int rcache_fits(const rcache *c, size_t nrecs);
/* Arm the cache for the journal at path when all its nlines lines fit:
 * from then on rcache_load keeps what it reads. Unarmed (a journal too
 * large to hold whole), it keeps nothing, so no stage holds more than it
 * would without a cache. Returns 1 when armed. */
int rcache_plan(rcache *c, const char *path, size_t nlines);
/* The records of one workload of the journal at path (its lines, from
 * store_index_workloads; the user knobs of sp), canonically sorted. With
 * *owned 0 they are the cache's (do not free or change them, valid until
 * rcache_drop); with *owned 1 the caller frees them (c NULL, or they do
 * not fit). */
int rcache_load(rcache *c, const char *path, const space_def *sp,
                const store_wl_lines *wl, store_record **recs, size_t *n,
                int *owned, gd_err *err);

#endif
