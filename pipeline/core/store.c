/* store: the append-only journal results.jsonl. Each record is written with
 * one write() of one complete line (numbers in their shortest round-trip
 * text); fdatasync is batched, and after each sync the summary
 * results.summary.json (counts per workload and backend, for gpudse
 * status) is rewritten. On open, a torn last line (a crash mid-write) is
 * cut off and reported, and the keys of finished jobs are indexed so no
 * job runs twice. Readers take lines of the journal's own layout without a
 * JSON tree (store_json.c), all at once or one workload at a time. */
#include "store.h"
#include "numtext.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

/* fdatasync batching: a process crash (kill -9) loses nothing written,
 * since the page cache outlives the process; the sync only guards against a
 * power cut, and costs milliseconds — so sync after SYNC_SECONDS or
 * SYNC_EVERY records, whichever comes first, and at close. */
#define SYNC_EVERY 8192
#define SYNC_SECONDS 0.5

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- key index: open addressing over the 64-hex-digit keys, each with
 * where its line lies in the journal ---- */

typedef struct {
    char key[65];
    off_t off;        /* byte offset of the record's line */
    size_t len;       /* its length without the newline */
    int cls;          /* its outcome: CLS_OTHER, CLS_OK or CLS_FAILED */
    int grp;          /* its (workload, backend) in the summary, -1 none */
} key_entry;

/* Outcome classes of a journal line, for store_outcomes. */
enum { CLS_OTHER, CLS_OK, CLS_FAILED };

typedef struct {
    key_entry *e;
    size_t cap, n;
} key_set;

static size_t key_hash(const char *k)
{
    size_t h = 0;
    for (int i = 0; i < 16; i++)
        h = h * 16 + (size_t)(k[i] <= '9' ? k[i] - '0' : k[i] - 'a' + 10);
    return h;
}

static key_entry *keyset_find(const key_set *s, const char *k)
{
    if (!s->cap)
        return NULL;
    for (size_t i = key_hash(k) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->e[i].key[0])
            return NULL;
        if (memcmp(s->e[i].key, k, 64) == 0)
            return &s->e[i];
    }
}

static void keyset_insert_raw(key_set *s, const key_entry *ent)
{
    size_t i = key_hash(ent->key) & (s->cap - 1);
    while (s->e[i].key[0] && memcmp(s->e[i].key, ent->key, 64) != 0)
        i = (i + 1) & (s->cap - 1);
    if (!s->e[i].key[0])
        s->n++;
    s->e[i] = *ent;
}

/* 0, or -1 when out of memory (the set is unchanged then). A key seen
 * again (a rerun of a journaled job) points to its latest line. */
static int keyset_add(key_set *s, const char *k, off_t off, size_t len,
                      int cls, int grp)
{
    key_entry *seen = keyset_find(s, k);
    if (seen) {
        seen->off = off;
        seen->len = len;
        seen->cls = cls;
        seen->grp = grp;
        return 0;
    }
    if ((s->n + 1) * 2 > s->cap) {
        key_set bigger = {NULL, s->cap ? s->cap * 2 : 1024, 0};
        bigger.e = calloc(bigger.cap, sizeof *bigger.e);
        if (!bigger.e)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->e[i].key[0])
                keyset_insert_raw(&bigger, &s->e[i]);
        free(s->e);
        *s = bigger;
    }
    key_entry ent;
    memcpy(ent.key, k, 65);
    ent.off = off;
    ent.len = len;
    ent.cls = cls;
    ent.grp = grp;
    keyset_insert_raw(s, &ent);
    return 0;
}

/* ---- the journal ---- */

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}


struct store {
    char path[PATH_MAX];
    int fd;
    util_buf line;        /* reused by store_append */
    key_set keys;
    int unsynced;
    double last_sync;     /* monotonic seconds */
    off_t size;           /* bytes in the journal: where the next line goes */
    off_t opened;         /* its size when opened: later lines are this
                             session's */
    store_group *grp;     /* records per (workload, backend), for the
                             summary that gpudse status reads */
    int ngrp, capgrp;
    int sum_dirty;        /* lines appended since the summary was written */
    char last_key[65];    /* key of the journal's last line */
    const space_def *space; /* the campaign's, for its user knobs; NULL:
                               built-in knobs alone (store_set_space) */
};

/* ---- the summary: results.summary.json, beside the journal ----
 * What `gpudse status` needs without reading the journal: the records
 * (each key's latest) and failures per workload and backend, as of a
 * byte count of the journal and the key of the line that ends there.
 * Written at each sync (every half second while jobs finish) and at
 * close; a reader checks the key and reads only the lines after. */

static int group_of(store *s, const char *wl, size_t wn, const char *be,
                    size_t bn)
{
    for (int i = s->ngrp - 1; i >= 0; i--)
        if (strlen(s->grp[i].workload) == wn
            && !memcmp(s->grp[i].workload, wl, wn)
            && strlen(s->grp[i].backend) == bn
            && !memcmp(s->grp[i].backend, be, bn))
            return i;
    if (wn >= sizeof s->grp[0].workload || bn >= sizeof s->grp[0].backend)
        return -1;
    if (s->ngrp == s->capgrp) {
        int cap = s->capgrp ? s->capgrp * 2 : 8;
        store_group *g = realloc(s->grp, (size_t)cap * sizeof *g);
        if (!g)
            return -1;
        s->grp = g;
        s->capgrp = cap;
    }
    store_group *g = &s->grp[s->ngrp];
    memset(g, 0, sizeof *g);
    memcpy(g->workload, wl, wn);
    memcpy(g->backend, be, bn);
    return s->ngrp++;
}

/* Count a key's new latest line, uncounting the line it replaces. */
static void group_count(store *s, const char *key, int grp, int cls)
{
    const key_entry *old = keyset_find(&s->keys, key);
    if (old && old->grp >= 0) {
        s->grp[old->grp].records--;
        s->grp[old->grp].failed -= old->cls == CLS_FAILED;
    }
    if (grp >= 0) {
        s->grp[grp].records++;
        s->grp[grp].failed += cls == CLS_FAILED;
    }
}

/* The text of "name":"..." in a journal line, as pointer and length. */
static const char *line_field(const char *line, const char *name,
                              size_t *len)
{
    const char *p = strstr(line, name);
    if (!p)
        return NULL;
    p += strlen(name);
    const char *q = strchr(p, '"');
    if (!q)
        return NULL;
    *len = (size_t)(q - p);
    return p;
}

static int line_group(store *s, const char *line, int cls)
{
    size_t wn = 0, bn = 0;
    const char *w = line_field(line, ",\"workload\":\"", &wn);
    const char *b = line_field(line, ",\"backend\":\"", &bn);
    return cls == CLS_OTHER || !w || !b ? -1 : group_of(s, w, wn, b, bn);
}

static void summary_path(const store *s, char *out, size_t n)
{
    snprintf(out, n, "%.*s" STORE_SUMMARY,
             (int)(strlen(s->path) - strlen("results.jsonl")), s->path);
}

/* Best effort: without a summary, status reads the whole journal. */
static void write_summary(store *s)
{
    util_buf b;
    util_buf_init(&b);
    util_buf_printf(&b, "{\"journal_bytes\":%lld,\"last_key\":\"%s\","
                    "\"groups\":[", (long long)s->size, s->last_key);
    for (int i = 0; i < s->ngrp; i++) {
        util_buf_puts(&b, i ? ",{\"workload\":" : "{\"workload\":");
        store_json_str(&b, s->grp[i].workload);
        util_buf_puts(&b, ",\"backend\":");
        store_json_str(&b, s->grp[i].backend);
        util_buf_printf(&b, ",\"records\":%llu,\"failed\":%llu}",
                        (unsigned long long)s->grp[i].records,
                        (unsigned long long)s->grp[i].failed);
    }
    util_buf_puts(&b, "]}\n");
    char path[PATH_MAX + 32], tmp[PATH_MAX + 48];
    summary_path(s, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int ok = fd >= 0 && write_all(fd, b.s, b.len) == 0;
    if (fd >= 0)
        ok &= close(fd) == 0;
    if (ok && rename(tmp, path) == 0)
        s->sum_dirty = 0;
    else
        unlink(tmp);
    util_buf_free(&b);
}

/* The whole journal in one buffer (NUL-terminated), read straight into
 * memory sized from its length: no copying through a growing buffer. */
static int read_journal(const char *path, char **out, size_t *len,
                        gd_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return gd_errf(err, e == ENOENT ? GD_EINPUT : GD_EENV,
                       "%s: cannot open: %s", path, strerror(e));
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 == cap) {  /* it grew while we read */
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return gd_errf(err, GD_EENV, "%s: read error: %s", path,
                           strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (!buf)
        return gd_errf(err, GD_EENV, "%s: out of memory", path);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return GD_OK;
}

/* Cut a torn last line: everything after the last '\n'. */
static int cut_torn_tail(const char *path, int fd, const char *data,
                         size_t len, int *torn, gd_err *err)
{
    *torn = 0;
    if (len == 0 || data[len - 1] == '\n')
        return GD_OK;
    size_t keep = len;
    while (keep > 0 && data[keep - 1] != '\n')
        keep--;
    if (ftruncate(fd, (off_t)keep) != 0)
        return gd_errf(err, GD_EENV, "%s: cannot drop torn last line: %s",
                       path, strerror(errno));
    *torn = 1;
    return GD_OK;
}

/* The "key" of any journal line, whatever kind of job wrote it. */
static int line_key(const char *line, const char *file, int lineno,
                    char key[65], gd_err *err)
{
    /* the journal's own lines start with their key */
    if (strncmp(line, "{\"key\":\"", 8) == 0 && strlen(line) > 73
        && line[72] == '"' && strspn(line + 8, "0123456789abcdef") == 64) {
        memcpy(key, line + 8, 64);
        key[64] = '\0';
        return GD_OK;
    }
    cJSON *o = cJSON_Parse(line);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "key");
    int ok = cJSON_IsString(k) && strlen(k->valuestring) == 64;
    if (ok)
        memcpy(key, k->valuestring, 65);
    cJSON_Delete(o);
    if (!ok)
        return gd_errf(err, GD_EINPUT, "%s:%d: journal line without a valid "
                       "\"key\"; the journal is damaged", file, lineno);
    return GD_OK;
}

/* Whether a line belongs to another kind of job than GPU design points
 * (those carry "kind" with another value; GPU records carry none). */
static int other_kind(const char *line)
{
    return strstr(line, "\"kind\":") != NULL
           && strstr(line, "\"kind\":\"gpu\"") == NULL;
}

/* A GPU record's outcome from its text ("status" follows the config),
 * or CLS_OTHER for another kind of job. */
static int line_class(const char *line)
{
    if (other_kind(line))
        return CLS_OTHER;
    const char *st = strstr(line, "},\"status\":\"");
    return st && strncmp(st + 12, "ok\"", 3) == 0 ? CLS_OK : CLS_FAILED;
}

/* Visit each complete line of data (a NUL-terminated copy is passed). */
static int index_lines(store *s, char *data, size_t len, gd_err *err)
{
    int lineno = 0;
    char *p = data, *end = data + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;  /* torn tail, already cut */
        *nl = '\0';
        lineno++;
        if (*p) {
            char key[65];
            int rc = line_key(p, s->path, lineno, key, err);
            if (rc)
                return rc;
            int cls = line_class(p), grp = line_group(s, p, cls);
            group_count(s, key, grp, cls);
            memcpy(s->last_key, key, sizeof key);
            if (keyset_add(&s->keys, key, (off_t)(p - data),
                           (size_t)(nl - p), cls, grp) != 0)
                return gd_errf(err, GD_EENV, "%s: out of memory indexing "
                               "the journal", s->path);
        }
        p = nl + 1;
    }
    return GD_OK;
}

int store_open(const char *dir, store **out, int *torn, gd_err *err)
{
    store *s = calloc(1, sizeof *s);
    if (!s)
        return gd_errf(err, GD_EENV, "out of memory");
    int dummy, rc;
    if (!torn)
        torn = &dummy;
    if (util_path_join(s->path, sizeof s->path, dir, "results.jsonl")) {
        free(s);
        return gd_errf(err, GD_EENV, "%s: path too long", dir);
    }
    s->last_sync = mono_s();
    s->fd = open(s->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        rc = gd_errf(err, GD_EENV, "%s: cannot open journal: %s", s->path,
                     strerror(errno));
        free(s);
        return rc;
    }
    char *data = NULL;
    size_t len = 0;
    rc = read_journal(s->path, &data, &len, err);
    if (!rc)
        rc = cut_torn_tail(s->path, s->fd, data, len, torn, err);
    if (!rc)
        rc = index_lines(s, data, len, err);
    free(data);
    s->size = lseek(s->fd, 0, SEEK_END);  /* after any torn tail was cut */
    s->opened = s->size;
    if (!rc && s->size < 0)
        rc = gd_errf(err, GD_EENV, "%s: %s", s->path, strerror(errno));
    if (rc) {
        close(s->fd);
        free(s->keys.e);
        free(s->grp);
        free(s);
        return rc;
    }
    s->sum_dirty = s->size > 0;  /* the summary may be older, or absent */
    *out = s;
    return GD_OK;
}

int store_has(const store *s, const char *key)
{
    return keyset_find(&s->keys, key) != NULL;
}

int store_get(const store *s, const char *key, store_record *r, gd_err *err)
{
    char *line;
    int rc = store_get_line(s, key, &line, err);
    if (rc)
        return rc;
    rc = store_record_from_json_in(s->space, line, s->path, 0, r, err);
    free(line);
    return rc;
}

int store_get_line(const store *s, const char *key, char **line,
                   gd_err *err)
{
    const key_entry *e = keyset_find(&s->keys, key);
    if (!e)
        return gd_errf(err, GD_EINPUT, "%s: no record with key %.12s",
                       s->path, key);
    char *buf = malloc(e->len + 1);
    if (!buf)
        return gd_errf(err, GD_EENV, "out of memory");
    if (pread(s->fd, buf, e->len, e->off) != (ssize_t)e->len) {
        free(buf);
        return gd_errf(err, GD_EENV, "%s: cannot read back record %.12s",
                       s->path, key);
    }
    buf[e->len] = '\0';
    *line = buf;
    return GD_OK;
}

int store_is_new(const store *s, const char *key)
{
    const key_entry *e = keyset_find(&s->keys, key);
    return e && e->off >= s->opened;
}

size_t store_count(const store *s)
{
    return s->keys.n;
}

void store_outcomes(const store *s, uint64_t *ok, uint64_t *failed)
{
    *ok = *failed = 0;
    for (size_t i = 0; i < s->keys.cap; i++)
        if (s->keys.e[i].key[0] && s->keys.e[i].cls != CLS_OTHER)
            *(s->keys.e[i].cls == CLS_OK ? ok : failed) += 1;
}

/* One line appended; with again, also for a key journaled by an earlier
 * session (a rerun), else a journaled key is never written twice. */
static int append_line(store *s, const char *key, const char *json,
                       int again, int cls, int grp, gd_err *err)
{
    if (again ? store_is_new(s, key) : store_has(s, key) != 0)
        return GD_OK;
    size_t len = strlen(json);
    if (len == 0 || memchr(json, '\n', len))
        return gd_errf(err, GD_EENV, "%s: a journal record must be one "
                       "non-empty line", s->path);
    off_t before = s->size;  /* we hold the run's lock: nobody else appends */
    /* the line and its newline in one write(): a reader or a crash sees a
     * whole line or a torn tail, never two half records */
    struct iovec iov[2] = {{(void *)json, len}, {(void *)"\n", 1}};
    ssize_t w = writev(s->fd, iov, 2);
    size_t done = w > 0 ? (size_t)w : 0;
    int bad = 0;
    if (w < 0 && errno != EINTR)
        bad = 1;
    else if (done < len)  /* a short write: finish the line */
        bad = write_all(s->fd, json + done, len - done)
              || write_all(s->fd, "\n", 1);
    else if (done == len)
        bad = write_all(s->fd, "\n", 1);
    int e = errno;
    if (bad) {
        if (before >= 0 && ftruncate(s->fd, before) != 0) {
            /* the torn tail is cut on the next open */
        }
        return gd_errf(err, GD_EENV, "%s: cannot append: %s", s->path,
                       strerror(e));
    }
    s->size = before + (off_t)len + 1;
    group_count(s, key, grp, cls);
    memcpy(s->last_key, key, 64);
    s->last_key[64] = '\0';
    s->sum_dirty = 1;
    if (keyset_add(&s->keys, key, before, len, cls, grp) != 0)
        return gd_errf(err, GD_EENV, "%s: out of memory indexing the "
                       "journal", s->path);
    if (++s->unsynced >= SYNC_EVERY
        || mono_s() - s->last_sync >= SYNC_SECONDS)
        return store_flush(s, err);
    return GD_OK;
}

int store_append_line(store *s, const char *key, const char *json,
                      gd_err *err)
{
    return append_line(s, key, json, 0, CLS_OTHER, -1, err);
}

static int record_group(store *s, const store_record *r)
{
    return group_of(s, r->workload, strlen(r->workload), r->backend,
                    strlen(r->backend));
}

int store_append(store *s, const store_record *r, gd_err *err)
{
    s->line.len = 0;  /* one buffer reused for every record */
    store_record_to_json_in(s->space, r, &s->line);
    return append_line(s, r->key, s->line.s, 0,
                       r->status == ST_OK ? CLS_OK : CLS_FAILED,
                       record_group(s, r), err);
}

int store_append_attempt(store *s, const store_record *r, gd_err *err)
{
    s->line.len = 0;
    store_record_to_json_in(s->space, r, &s->line);
    return append_line(s, r->key, s->line.s, 1,
                       r->status == ST_OK ? CLS_OK : CLS_FAILED,
                       record_group(s, r), err);
}

int store_flush(store *s, gd_err *err)
{
    s->last_sync = mono_s();
    if (s->unsynced && fdatasync(s->fd) != 0)
        return gd_errf(err, GD_EENV, "%s: cannot sync: %s", s->path,
                       strerror(errno));
    s->unsynced = 0;
    if (s->sum_dirty)
        write_summary(s);  /* after the sync: never ahead of the journal */
    return GD_OK;
}

int store_close(store *s, gd_err *err)
{
    if (!s)
        return GD_OK;
    int rc = store_flush(s, err);
    if (close(s->fd) != 0 && !rc)
        rc = gd_errf(err, GD_EENV, "%s: close failed: %s", s->path,
                     strerror(errno));
    free(s->keys.e);
    free(s->grp);
    util_buf_free(&s->line);
    free(s);
    return rc;
}

/* Keep the record just read into v[*cnt] as the latest of its key: in the
 * place of the key's first record (the order jobs were first journaled),
 * counting attempts. */
static int keep_latest(key_set *seen, store_record *v, size_t *cnt)
{
    store_record *r = &v[*cnt];
    key_entry *e = keyset_find(seen, r->key);
    if (e) {
        r->attempts = v[e->off].attempts + 1;
        v[e->off] = *r;
        return 0;
    }
    r->attempts = 1;
    if (keyset_add(seen, r->key, (off_t)*cnt, 0, CLS_OTHER, -1) != 0)
        return -1;
    (*cnt)++;
    return 0;
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

void store_set_space(store *s, const space_def *sp)
{
    s->space = sp;
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
    int rc = read_journal(path, &data, &len, err);
    if (rc)
        return rc;
    /* room for every line at once: records are large, and growing the
     * array moved them all again and again */
    size_t cnt = 0;
    store_record *v = alloc_records(count_lines(data, len) + 1);
    key_set seen = {NULL, 0, 0};
    if (!v) {
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
        if (*p && !other_kind(p)) {
            rc = store_record_from_json_in(sp, p, path, lineno, &v[cnt],
                                           err);
            if (!rc && keep_latest(&seen, v, &cnt) != 0)
                rc = gd_errf(err, GD_EENV, "%s: out of memory", path);
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
        if (!*line || other_kind(line))
            continue;
        size_t wn = 0;
        const char *wl = line_field(line, ",\"workload\":\"", &wn);
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
    key_set seen = {NULL, 0, 0};
    int rc = !v || !blk ? gd_errf(err, GD_EENV, "%s: out of memory", path)
                        : GD_OK;
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
        if (!rc && keep_latest(&seen, v, &cnt) != 0)
            rc = gd_errf(err, GD_EENV, "%s: out of memory", path);
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

/* ---- the run directory's lock ---- */

/* Take the lock. When its last holder is dead, a process it had just
 * forked may hold the lock for a moment longer: wait up to 5 s then. */
static int lock_or_wait(int fd)
{
    for (int tries = 0;; tries++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 1;
        char buf[32] = "";
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        long holder = atol(buf);
        if ((holder > 0 && kill((pid_t)holder, 0) == 0) || tries >= 100)
            return 0;
        usleep(50000);
    }
}

int store_lock(const char *dir, int *fd, gd_err *err)
{
    char lock[PATH_MAX];
    *fd = -1;
    if (util_path_join(lock, sizeof lock, dir, ".lock"))
        return gd_errf(err, GD_EENV, "%s: path too long", dir);
    int f = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0)
        return gd_errf(err, GD_EENV, "%s: cannot open lock: %s", lock,
                       strerror(errno));
    if (!lock_or_wait(f)) {
        char pid[32] = "?";
        ssize_t n = pread(f, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 1] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(f);
        return gd_errf(err, GD_EENV, "%s: another gpudse (pid %s) is running "
                       "on this run directory; wait for it or stop it first",
                       dir, pid);
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(f, 0) != 0 || pwrite(f, pid, (size_t)n, 0) != n) {
        close(f);
        return gd_errf(err, GD_EENV, "%s: cannot write lock", lock);
    }
    *fd = f;
    return GD_OK;
}

void store_unlock(int fd)
{
    if (fd >= 0)
        close(fd);          /* releases the flock */
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
