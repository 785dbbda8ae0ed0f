/* reccache: a journal's records parsed once and lent to the stages of one
 * process (see reccache.h). */
#include "reccache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void rcache_init(rcache *c)
{
    memset(c, 0, sizeof *c);
}

void rcache_drop(rcache *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->wl[i].recs);
    c->n = 0;
    c->bytes = 0;
    c->path[0] = '\0';
    c->armed = 0;
}

void rcache_free(rcache *c)
{
    rcache_drop(c);
    free(c->wl);
    c->wl = NULL;
    c->cap = 0;
}

int rcache_fits(const rcache *c, size_t nrecs)
{
    return c && nrecs <= (RCACHE_BYTES - c->bytes) / sizeof(store_record);
}

/* Keep the cache only for the journal it read: anything else (another
 * path, or the same one appended to or replaced since) empties it. */
static void same_journal(rcache *c, const char *path)
{
    struct stat sb;
    int ok = stat(path, &sb) == 0;
    long long mt = ok ? (long long)sb.st_mtim.tv_sec * 1000000000LL
                        + sb.st_mtim.tv_nsec : 0;
    if (ok && c->path[0] && strcmp(c->path, path) == 0 && c->dev == sb.st_dev
        && c->ino == sb.st_ino && c->size == sb.st_size && c->mtime_ns == mt)
        return;
    rcache_drop(c);
    if (!ok || strlen(path) >= sizeof c->path)
        return;   /* nothing kept: every load reads the journal */
    strcpy(c->path, path);
    c->dev = sb.st_dev;
    c->ino = sb.st_ino;
    c->size = sb.st_size;
    c->mtime_ns = mt;
}

int rcache_plan(rcache *c, const char *path, size_t nlines)
{
    if (!c)
        return 0;
    same_journal(c, path);
    c->armed = c->path[0] && rcache_fits(c, nlines);
    return c->armed;
}

static int keep(rcache *c, const char *name, store_record *recs, size_t n)
{
    if (c->n == c->cap) {
        int cap = c->cap ? c->cap * 2 : 8;
        rcache_wl *w = realloc(c->wl, (size_t)cap * sizeof *w);
        if (!w)
            return -1;
        c->wl = w;
        c->cap = cap;
    }
    rcache_wl *w = &c->wl[c->n++];
    snprintf(w->name, sizeof w->name, "%s", name);
    w->recs = recs;
    w->n = n;
    c->bytes += n * sizeof *recs;
    return 0;
}

int rcache_load(rcache *c, const char *path, const space_def *sp,
                const store_wl_lines *wl, store_record **recs, size_t *n,
                int *owned, gd_err *err)
{
    *owned = 1;
    if (c) {
        same_journal(c, path);
        for (int i = 0; c->path[0] && i < c->n; i++)
            if (strcmp(c->wl[i].name, wl->name) == 0) {
                *recs = c->wl[i].recs;
                *n = c->wl[i].n;
                *owned = 0;
                return GD_OK;
            }
    }
    int rc = store_load_lines_in(path, sp, wl->line, wl->n, recs, n, err);
    if (rc)
        return rc;
    store_sort_canonical(*recs, *n);
    if (c && c->armed && rcache_fits(c, *n)
        && keep(c, wl->name, *recs, *n) == 0)
        *owned = 0;
    return GD_OK;
}
