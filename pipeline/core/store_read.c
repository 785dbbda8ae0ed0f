/* store_read: reading a journal's records back for analysis and report —
 * every record at once (store_load_all), or one workload at a time
 * (store_index_workloads, store_load_lines) — each key's latest record
 * with its attempts counted, and the canonical order of records. */
#include "store.h"
#include "store_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The records read so far, by key: open addressing over (key prefix,
 * place in v) pairs, sized once for every line to be read — 16 bytes an
 * entry, where the journal's own key index (store_impl.h) keeps 96, so a
 * workload's set stays in cache and is never rehashed. */
typedef struct {
    uint64_t h;            /* the key's first 16 hex digits; 0: empty */
    size_t at;             /* its record's place in v */
} seen_entry;

typedef struct {
    seen_entry *e;
    size_t mask;
} seen_set;

static int seen_init(seen_set *s, size_t lines)
{
    size_t cap = 64;
    while (cap < 2 * lines + 2)
        cap *= 2;
    s->e = calloc(cap, sizeof *s->e);
    s->mask = cap - 1;
    return s->e ? 0 : -1;
}

static uint64_t key_prefix(const char *k)
{
    uint64_t h = 0;
    for (int i = 0; i < 16 && k[i]; i++)
        h = h * 16 + (uint64_t)(k[i] <= '9' ? k[i] - '0'
                                            : (k[i] | 0x20) - 'a' + 10);
    return h | 1;   /* never 0, which marks an empty slot */
}

/* Keep the record just read into v[*cnt] as the latest of its key: in the
 * place of the key's first record (the order jobs were first journaled),
 * counting attempts. */
static void keep_latest(seen_set *seen, store_record *v, size_t *cnt)
{
    store_record *r = &v[*cnt];
    uint64_t h = key_prefix(r->key);
    size_t i = (size_t)(h ^ h >> 29) & seen->mask;
    for (; seen->e[i].h; i = (i + 1) & seen->mask)
        if (seen->e[i].h == h && strcmp(v[seen->e[i].at].key, r->key) == 0) {
            store_record *first = &v[seen->e[i].at];
            r->attempts = first->attempts + 1;
            *first = *r;
            return;
        }
    r->attempts = 1;
    seen->e[i].h = h;
    seen->e[i].at = *cnt;
    (*cnt)++;
}

/* Room for n records. Large arrays are asked for in huge pages: a
 * record is 2 KB, and faulting in tens of megabytes 4 KB at a time cost
 * more than reading the journal. free() releases it. */
static store_record *alloc_records(size_t n)
{
    size_t bytes = n * sizeof(store_record);
    const size_t huge = (size_t)2 << 20;
    if (bytes < 4 * huge)
        return malloc(bytes);
    bytes = (bytes + huge - 1) / huge * huge;
    store_record *v = aligned_alloc(huge, bytes);
#ifdef MADV_HUGEPAGE
    if (v)
        madvise(v, bytes, MADV_HUGEPAGE);  /* a hint: fine when refused */
#endif
    return v;
}

static size_t count_lines(const char *p, size_t len)
{
    size_t n = 0;
    for (const char *end = p + len; (p = memchr(p, '\n', (size_t)(end - p)));
         p++)
        n++;
    return n;
}

int store_load_all(const char *path, store_record **recs, size_t *n,
                   gd_err *err)
{
    return store_load_all_in(path, NULL, recs, n, err);
}

int store_load_all_in(const char *path, const space_def *sp,
                      store_record **recs, size_t *n, gd_err *err)
{
    char *data;
    size_t len;
    int rc = store_read_journal(path, &data, &len, err);
    if (rc)
        return rc;
    /* room for every line at once: records are large, and growing the
     * array moved them all again and again */
    size_t cnt = 0, lines = count_lines(data, len);
    store_record *v = alloc_records(lines + 1);
    seen_set seen = {NULL, 0};
    if (!v || seen_init(&seen, lines) != 0) {
        free(v);
        free(seen.e);
        free(data);
        return gd_errf(err, GD_EENV, "%s: out of memory", path);
    }
    int lineno = 0;
    char *p = data, *end = data + len;
    while (p < end && !rc) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;  /* torn last line: not a finished record */
        *nl = '\0';
        lineno++;
        if (*p && !store_other_kind(p)) {
            rc = store_record_from_json_in(sp, p, path, lineno, &v[cnt],
                                           err);
            if (!rc)
                keep_latest(&seen, v, &cnt);
        }
        p = nl + 1;
    }
    free(data);
    free(seen.e);
    if (rc) {
        free(v);
        return rc;
    }
    *recs = v;
    *n = cnt;
    return GD_OK;
}

/* ---- reading one workload at a time ---- */

static int wl_add_line(store_wl_lines **v, int *n, int *cap, const char *wl,
                       size_t wn, const store_line *ln)
{
    int i = *n - 1;
    /* lines of one workload mostly follow each other: try the last first */
    if (i < 0 || strlen((*v)[i].name) != wn || memcmp((*v)[i].name, wl, wn))
        for (i = 0; i < *n; i++)
            if (strlen((*v)[i].name) == wn && !memcmp((*v)[i].name, wl, wn))
                break;
    if (i == *n) {
        if (wn >= sizeof (*v)[0].name)
            return 1;
        if (*n == *cap) {
            int c = *cap ? *cap * 2 : 16;
            store_wl_lines *nv = realloc(*v, (size_t)c * sizeof *nv);
            if (!nv)
                return -1;
            *v = nv;
            *cap = c;
        }
        memset(&(*v)[i], 0, sizeof **v);
        memcpy((*v)[i].name, wl, wn);
        (*n)++;
    }
    store_wl_lines *w = &(*v)[i];
    if (util_grow(&w->line, &w->cap, w->n, sizeof *w->line, 1024))
        return -1;
    w->line[w->n++] = *ln;
    return 0;
}

void store_wl_lines_free(store_wl_lines *v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i].line);
    free(v);
}

int store_index_workloads(const char *path, store_wl_lines **out, int *nout,
                          gd_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gd_errf(err, errno == ENOENT ? GD_EINPUT : GD_EENV,
                       "%s: cannot open: %s", path, strerror(errno));
    store_wl_lines *v = NULL;
    int n = 0, cap = 0, rc = GD_OK;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    off_t at = 0;
    unsigned lineno = 0;
    while (!rc && (len = getline(&line, &lcap, f)) > 0) {
        off_t here = at;
        at += len;
        if (line[len - 1] != '\n')
            break;  /* torn last line: not a finished record */
        line[--len] = '\0';
        lineno++;
        if (!*line || store_other_kind(line))
            continue;
        size_t wn = 0;
        const char *wl = store_line_field(line, ",\"workload\":\"", &wn);
        store_line ln = {here, (unsigned)len, lineno};
        int r = wl ? wl_add_line(&v, &n, &cap, wl, wn, &ln) : 1;
        if (r < 0) {
            rc = gd_errf(err, GD_EENV, "%s: out of memory", path);
        } else if (r > 0) {
            /* not a line of ours: the full reader says what is wrong */
            store_record rec;
            rc = store_record_from_json(line, path, (int)lineno, &rec, err);
            if (!rc && wl_add_line(&v, &n, &cap, rec.workload,
                                   strlen(rec.workload), &ln) != 0)
                rc = gd_errf(err, GD_EENV, "%s: out of memory", path);
        }
    }
    free(line);
    fclose(f);
    if (rc) {
        store_wl_lines_free(v, n);
        return rc;
    }
    *out = v;
    *nout = n;
    return GD_OK;
}

int store_load_lines(const char *path, const store_line *lines, size_t n,
                     store_record **recs, size_t *nrecs, gd_err *err)
{
    return store_load_lines_in(path, NULL, lines, n, recs, nrecs, err);
}

int store_load_lines_in(const char *path, const space_def *sp,
                        const store_line *lines, size_t n,
                        store_record **recs, size_t *nrecs, gd_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gd_errf(err, GD_EENV, "%s: cannot open: %s", path,
                       strerror(errno));
    store_record *v = alloc_records(n + 1);
    size_t bcap = (size_t)1 << 20, cnt = 0;
    char *blk = malloc(bcap);
    off_t bstart = 0;
    size_t blen = 0;
    seen_set seen = {NULL, 0};
    int rc = !v || !blk || seen_init(&seen, n) != 0
             ? gd_errf(err, GD_EENV, "%s: out of memory", path) : GD_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        const store_line *ln = &lines[i];
        if (ln->off < bstart
            || ln->off + (off_t)ln->len + 1 > bstart + (off_t)blen) {
            /* read a block from this line on (or the whole line) */
            if ((size_t)ln->len + 1 > bcap) {
                char *nb = realloc(blk, (size_t)ln->len + 1);
                if (!nb) {
                    rc = gd_errf(err, GD_EENV, "%s: out of memory", path);
                    break;
                }
                blk = nb;
                bcap = (size_t)ln->len + 1;
            }
            ssize_t r = pread(fd, blk, bcap, ln->off);
            if (r < (ssize_t)ln->len + 1) {
                rc = gd_errf(err, GD_EENV, "%s: cannot read back line %u",
                             path, ln->lineno);
                break;
            }
            bstart = ln->off;
            blen = (size_t)r;
        }
        char *p = blk + (ln->off - bstart);
        p[ln->len] = '\0';  /* the newline */
        rc = store_record_from_json_in(sp, p, path, (int)ln->lineno, &v[cnt],
                                       err);
        p[ln->len] = '\n';
        if (!rc)
            keep_latest(&seen, v, &cnt);
    }
    close(fd);
    free(blk);
    free(seen.e);
    if (rc) {
        free(v);
        return rc;
    }
    *recs = v;
    *nrecs = cnt;
    return GD_OK;
}

/* Workload, backend, each knob's value in knob order (user knobs: their
 * level index, in declaration order), then the key. */
static int canonical_cmp(const void *pa, const void *pb)
{
    const store_record *a = pa, *b = pb;
    int c = strcmp(a->workload, b->workload);
    if (!c)
        c = strcmp(a->backend, b->backend);
    for (int k = 0; !c && k < SPACE_MAXKNOBS; k++) {
        int va = space_get(&a->cfg, k), vb = space_get(&b->cfg, k);
        c = (va > vb) - (va < vb);
    }
    return c ? c : strcmp(a->key, b->key);
}

void store_sort_canonical(store_record *recs, size_t n)
{
    if (n > 1)
        qsort(recs, n, sizeof *recs, canonical_cmp);
}
