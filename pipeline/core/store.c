/* store: the append-only journal results.jsonl. Each record is written with
 * one write() of one complete line (numbers in their shortest round-trip
 * text); fdatasync is batched, and after each sync the summary
 * results.summary.json (counts per workload and backend, for gpudse
 * status) is rewritten. On open, a torn last line (a crash mid-write) is
 * cut off and reported, and the keys of finished jobs are indexed so no
 * job runs twice: from the sidecar index results.index (store_idx.c),
 * checked against the journal, and the lines after what it covers, or,
 * without one that holds, from the whole journal (the index is rebuilt
 * then). Readers take lines of the journal's own layout without a JSON
 * tree (store_json.c), all at once or one workload at a time
 * (store_read.c), or a few keys' lines by the index (store_keys.c). */
#include "store.h"
#include "numtext.h"
#include "store_idx.h"
#include "store_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

/* fdatasync batching: a process crash (kill -9) loses nothing written,
 * since the page cache outlives the process; the sync only guards against a
 * power cut, and costs milliseconds (about 10 on a virtual disk) — so sync
 * once SYNC_SECONDS have passed since the last sync, and at close. A power
 * cut loses at most that much work, however fast the jobs are (a bound by
 * record count would only add syncs for jobs that take microseconds). */
#define SYNC_SECONDS 0.5

/* store_set_batched: lines are gathered and written together once this
 * many bytes or seconds have gathered (and at store_write_pending, every
 * sync and close). The engine writes them before it reports any of their
 * jobs finished, so a process killed outright loses only jobs nothing saw
 * finish; only jobs evaluated in this process (microseconds each) are
 * gathered. */
#define PENDING_BYTES ((size_t)256 << 10)
#define PENDING_SECONDS 0.1

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- key index: open addressing over the 64-hex-digit keys, each with
 * where its line lies in the journal ---- */

static size_t key_hash(const char *k)
{
    size_t h = 0;
    for (int i = 0; i < 16; i++)
        h = h * 16 + (size_t)(k[i] <= '9' ? k[i] - '0' : k[i] - 'a' + 10);
    return h;
}

key_entry *store_keyset_find(const key_set *s, const char *k)
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
int store_keyset_add(key_set *s, const char *k, off_t off, size_t len,
                      int cls, int grp)
{
    key_entry *seen = store_keyset_find(s, k);
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
    off_t last_off;       /* and where that line starts */
    char dir[PATH_MAX];
    sidx_writer idx;      /* results.index, kept beside the journal */
    const space_def *space; /* the campaign's, for its user knobs; NULL:
                               built-in knobs alone (store_set_space) */
    int batched;          /* store_set_batched: lines gathered in pending */
    util_buf pending;     /* whole lines not yet written, which end the
                             journal: they start at size - pending.len */
    double pending_since; /* monotonic seconds of the first of them */
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
    const key_entry *old = store_keyset_find(&s->keys, key);
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
const char *store_line_field(const char *line, const char *name,
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
    const char *w = store_line_field(line, ",\"workload\":\"", &wn);
    const char *b = store_line_field(line, ",\"backend\":\"", &bn);
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
int store_read_journal(const char *path, char **out, size_t *len,
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
int store_other_kind(const char *line)
{
    return strstr(line, "\"kind\":") != NULL
           && strstr(line, "\"kind\":\"gpu\"") == NULL;
}

/* A GPU record's outcome from its text ("status" follows the config),
 * or CLS_OTHER for another kind of job. */
static int line_class(const char *line)
{
    if (store_other_kind(line))
        return CLS_OTHER;
    const char *st = strstr(line, "},\"status\":\"");
    return st && strncmp(st + 12, "ok\"", 3) == 0 ? CLS_OK : CLS_FAILED;
}

/* Visit each complete line of data (a NUL-terminated copy of the journal
 * from byte base on). */
static int index_lines(store *s, char *data, size_t len, off_t base,
                       gd_err *err)
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
            s->last_off = base + (off_t)(p - data);
            if (store_keyset_add(&s->keys, key, base + (off_t)(p - data),
                           (size_t)(nl - p), cls, grp) != 0)
                return gd_errf(err, GD_EENV, "%s: out of memory indexing "
                               "the journal", s->path);
        }
        p = nl + 1;
    }
    return GD_OK;
}

/* The whole journal read and indexed (no index, or one that did not
 * hold): a torn last line is cut. */
static int open_by_scan(store *s, int *torn, gd_err *err)
{
    char *data = NULL;
    size_t len = 0;
    int rc = store_read_journal(s->path, &data, &len, err);
    if (!rc)
        rc = cut_torn_tail(s->path, s->fd, data, len, torn, err);
    if (!rc)
        rc = index_lines(s, data, len, 0, err);
    free(data);
    return rc;
}

/* Forget what a failed attempt at reading the index put in s. */
static void reset_keys(store *s)
{
    free(s->keys.e);
    memset(&s->keys, 0, sizeof s->keys);
    free(s->grp);
    s->grp = NULL;
    s->ngrp = s->capgrp = 0;
    s->last_key[0] = '\0';
    s->last_off = 0;
}

/* Whether the journal line at off (len bytes, then a newline, all below
 * limit) is there and has this key. */
static int line_has_key(const store *s, uint64_t off, uint32_t len,
                        uint64_t limit, const uint8_t bin[32])
{
    if (len < 10 || off + len + 1 > limit)
        return 0;
    char *buf = malloc((size_t)len + 2), key[65], hex[65];
    gd_err ignore;
    int ok = buf && pread(s->fd, buf, (size_t)len + 1, (off_t)off)
                        == (ssize_t)len + 1 && buf[len] == '\n';
    if (ok) {
        buf[len] = '\0';
        ok = !memchr(buf, '\n', len)
             && line_key(buf, s->path, 0, key, &ignore) == GD_OK;
    }
    sidx_key_hex(bin, hex);
    ok = ok && memcmp(key, hex, 64) == 0;
    free(buf);
    return ok;
}

/* The group names of the summary that was written with the index (same
 * journal_bytes): the index's groups are numbered in its order. */
static int summary_groups(store *s, uint64_t covered)
{
    char path[PATH_MAX + 32], *text;
    summary_path(s, path, sizeof path);
    if (util_read_file(path, &text, NULL, NULL) != GD_OK)
        return -1;
    cJSON *m = cJSON_Parse(text);
    free(text);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(m, "journal_bytes");
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(m, "groups"), *g;
    int ok = cJSON_IsNumber(b) && b->valuedouble == (double)covered
             && cJSON_IsArray(gs);
    const cJSON *use = ok ? gs : NULL;
    cJSON_ArrayForEach(g, use) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "workload");
        const cJSON *be = cJSON_GetObjectItemCaseSensitive(g, "backend");
        ok = ok && cJSON_IsString(w) && cJSON_IsString(be)
             && group_of(s, w->valuestring, strlen(w->valuestring),
                         be->valuestring, strlen(be->valuestring))
                == s->ngrp - 1;
    }
    cJSON_Delete(m);
    return ok ? 0 : -1;
}

/* Each key's latest entry, checked: offsets inside what the index covers,
 * known classes and groups, and a sample of lines (the first, the last and
 * every n/16th) read back from the journal with their keys. */
static int take_entries(store *s, const sidx_head *h, const sidx_entry *e,
                        size_t n)
{
    size_t step = n / 16 + 1;
    for (size_t i = 0; i < n; i++) {
        char key[65];
        if (e[i].off + e[i].len + 1 > h->covered || e[i].cls > CLS_FAILED
            || e[i].grp < -1 || e[i].grp >= s->ngrp
            || (e[i].cls == CLS_OTHER) != (e[i].grp == -1)
            || ((i % step == 0 || i + 1 == n)
                && !line_has_key(s, e[i].off, e[i].len, h->covered,
                                 e[i].key)))
            return -1;
        sidx_key_hex(e[i].key, key);
        if (store_keyset_add(&s->keys, key, (off_t)e[i].off, e[i].len, e[i].cls,
                       e[i].grp) != 0)
            return -1;
    }
    for (size_t i = 0; i < s->keys.cap; i++) {   /* the summary's counts */
        const key_entry *k = &s->keys.e[i];
        if (k->key[0] && k->grp >= 0) {
            s->grp[k->grp].records++;
            s->grp[k->grp].failed += k->cls == CLS_FAILED;
        }
    }
    return 0;
}

/* The journal after what the index covers: its lines indexed, a torn last
 * line cut. -1 on anything unexpected (the caller reads it all). */
static int index_tail(store *s, uint64_t covered, off_t size, int *torn)
{
    size_t len = (size_t)(size - (off_t)covered);
    char *data = malloc(len + 1);
    gd_err ignore;
    int ok = data && (len == 0 || pread(s->fd, data, len, (off_t)covered)
                                      == (ssize_t)len);
    if (ok) {
        data[len] = '\0';
        size_t keep = len;
        while (keep > 0 && data[keep - 1] != '\n')
            keep--;
        *torn = keep < len;
        ok = (!*torn || ftruncate(s->fd, (off_t)(covered + keep)) == 0)
             && index_lines(s, data, keep, (off_t)covered, &ignore) == GD_OK;
    }
    free(data);
    return ok ? 0 : -1;
}

/* The finished keys from results.index plus the journal lines after it,
 * never trusted blindly (store_idx.h): -1 when it is absent or does not
 * hold, and s is as it was. *fresh: the index covers the whole journal. */
static int open_by_index(store *s, int *torn, int *fresh, size_t *nidx,
                         uint64_t *sum)
{
    sidx_head h;
    sidx_entry *e = NULL;
    size_t n = 0;
    struct stat sb;
    if (fstat(s->fd, &sb) != 0 || sidx_read(s->dir, &h, &e, &n) != 0)
        return -1;
    int ok = h.covered <= (uint64_t)sb.st_size && h.last_off < h.covered
             && summary_groups(s, h.covered) == 0
             && (h.covered == 0
                 || line_has_key(s, h.last_off,
                                 (uint32_t)(h.covered - h.last_off - 1),
                                 h.covered, h.last_key))
             && take_entries(s, &h, e, n) == 0;
    if (ok) {
        sidx_key_hex(h.last_key, s->last_key);
        s->last_off = (off_t)h.last_off;
        if (h.covered == 0)
            s->last_key[0] = '\0';
        *fresh = h.covered == (uint64_t)sb.st_size;
        ok = index_tail(s, h.covered, sb.st_size, torn) == 0;
    }
    *nidx = n;
    *sum = ok ? sidx_sum(0, e, n) : 0;
    free(e);
    if (!ok) {
        *torn = 0;
        reset_keys(s);
    }
    return ok ? 0 : -1;
}

static sidx_entry entry_of(const key_entry *k)
{
    sidx_entry e;
    memset(&e, 0, sizeof e);
    sidx_key_bin(k->key, e.key);
    e.off = (uint64_t)k->off;
    e.len = (uint32_t)k->len;
    e.cls = (uint8_t)k->cls;
    e.grp = (int16_t)k->grp;
    return e;
}

static sidx_head head_now(const store *s)
{
    sidx_head h;
    memset(&h, 0, sizeof h);
    h.covered = (uint64_t)s->size;
    h.last_off = (uint64_t)s->last_off;
    if (s->last_key[0])
        sidx_key_bin(s->last_key, h.last_key);
    return h;
}

/* A new index of every key's latest line (after a scan of the journal,
 * or lines it did not cover). */
static void rewrite_index(store *s)
{
    sidx_entry *v = malloc((s->keys.n ? s->keys.n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < s->keys.cap; i++)
        if (s->keys.e[i].key[0])
            v[n++] = entry_of(&s->keys.e[i]);
    sidx_head h = head_now(s);
    sidx_create(&s->idx, s->dir, &h, v, v ? n : 0);
    if (!v)
        sidx_close(&s->idx);
    free(v);
}

int store_open(const char *dir, store **out, int *torn, gd_err *err)
{
    store *s = calloc(1, sizeof *s);
    if (!s)
        return gd_errf(err, GD_EENV, "out of memory");
    int dummy, rc = GD_OK;
    if (!torn)
        torn = &dummy;
    *torn = 0;
    s->idx.fd = -1;
    if (util_path_join(s->path, sizeof s->path, dir, "results.jsonl")) {
        free(s);
        return gd_errf(err, GD_EENV, "%s: path too long", dir);
    }
    util_strlcpy(s->dir, dir, sizeof s->dir);
    s->last_sync = mono_s();
    s->fd = open(s->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        rc = gd_errf(err, GD_EENV, "%s: cannot open journal: %s", s->path,
                     strerror(errno));
        free(s);
        return rc;
    }
    int fresh = 0;
    size_t nidx = 0;
    uint64_t sum = 0;
    int indexed = open_by_index(s, torn, &fresh, &nidx, &sum) == 0;
    if (!indexed)
        rc = open_by_scan(s, torn, err);
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
    if (indexed && fresh) {
        sidx_continue(&s->idx, dir, nidx, sum);
    } else {
        rewrite_index(s);
        if (s->sum_dirty)
            write_summary(s);   /* names the new index's groups */
    }
    *out = s;
    return GD_OK;
}

int store_has(const store *s, const char *key)
{
    return store_keyset_find(&s->keys, key) != NULL;
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
    const key_entry *e = store_keyset_find(&s->keys, key);
    if (!e)
        return gd_errf(err, GD_EINPUT, "%s: no record with key %.12s",
                       s->path, key);
    char *buf = malloc(e->len + 1);
    if (!buf)
        return gd_errf(err, GD_EENV, "out of memory");
    off_t unwritten = s->size - (off_t)s->pending.len;
    if (e->off >= unwritten) {   /* gathered, not yet written */
        memcpy(buf, s->pending.s + (e->off - unwritten), e->len);
    } else if (pread(s->fd, buf, e->len, e->off) != (ssize_t)e->len) {
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
    const key_entry *e = store_keyset_find(&s->keys, key);
    return e && e->off >= s->opened;
}

int store_key_ok(const store *s, const char *key)
{
    const key_entry *e = store_keyset_find(&s->keys, key);
    return e && e->cls == CLS_OK;
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

/* Write the gathered lines in one write(). When the disk fills part way,
 * the whole lines that landed stay and the journal is cut after the last
 * of them. */
static int write_pending(store *s, gd_err *err)
{
    if (!s->pending.len)
        return GD_OK;
    off_t base = s->size - (off_t)s->pending.len;
    size_t done = 0;
    while (done < s->pending.len) {
        ssize_t w = write(s->fd, s->pending.s + done, s->pending.len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            size_t keep = done;
            while (keep > 0 && s->pending.s[keep - 1] != '\n')
                keep--;
            if (ftruncate(s->fd, base + (off_t)keep) != 0) {
                /* the torn tail is cut on the next open */
            }
            /* the lines that landed stay; the others wait for a retry (at
             * close), which must not write the landed ones again */
            memmove(s->pending.s, s->pending.s + keep, s->pending.len - keep);
            s->pending.len -= keep;
            return gd_errf(err, GD_EENV, "%s: cannot append: %s", s->path,
                           strerror(e));
        }
        done += (size_t)w;
    }
    s->pending.len = 0;
    return GD_OK;
}

int store_write_pending(store *s, gd_err *err)
{
    return write_pending(s, err);
}

void store_set_batched(store *s, int on)
{
    s->batched = on;
}

/* The line (len bytes at off) written, or gathered to be written. */
static int put_line(store *s, const char *json, size_t len, gd_err *err)
{
    off_t before = s->size;  /* we hold the run's lock: nobody else appends */
    if (s->batched) {
        if (!s->pending.len)
            s->pending_since = mono_s();
        util_buf_add(&s->pending, json, len);
        util_buf_add(&s->pending, "\n", 1);
        s->size = before + (off_t)len + 1;
        if (s->pending.len < PENDING_BYTES
            && mono_s() - s->pending_since < PENDING_SECONDS)
            return GD_OK;
        return write_pending(s, err);
    }
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
    return GD_OK;
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
    off_t before = s->size;
    int rc = put_line(s, json, len, err);
    if (rc)
        return rc;
    group_count(s, key, grp, cls);
    memcpy(s->last_key, key, 64);
    s->last_key[64] = '\0';
    s->last_off = before;
    s->sum_dirty = 1;
    if (store_keyset_add(&s->keys, key, before, len, cls, grp) != 0)
        return gd_errf(err, GD_EENV, "%s: out of memory indexing the "
                       "journal", s->path);
    sidx_entry ie = entry_of(store_keyset_find(&s->keys, key));
    sidx_add(&s->idx, &ie);   /* out of memory: the index is dropped */
    s->unsynced++;
    if (mono_s() - s->last_sync >= SYNC_SECONDS)
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
    int rc = write_pending(s, err);
    if (rc)
        return rc;
    s->last_sync = mono_s();
    if (s->unsynced && fdatasync(s->fd) != 0)
        return gd_errf(err, GD_EENV, "%s: cannot sync: %s", s->path,
                       strerror(errno));
    s->unsynced = 0;
    if (s->sum_dirty) {
        /* after the sync: never ahead of the journal; the index first,
         * the summary (which names its groups) with the same bytes */
        sidx_head h = head_now(s);
        sidx_flush(&s->idx, &h);
        write_summary(s);
    }
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
    sidx_close(&s->idx);
    free(s->keys.e);
    free(s->grp);
    util_buf_free(&s->line);
    util_buf_free(&s->pending);
    free(s);
    return rc;
}

void store_set_space(store *s, const space_def *sp)
{
    s->space = sp;
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
