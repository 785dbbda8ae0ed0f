/* store_keys: the latest GPU records of a few given keys read back from a
 * journal without parsing the others (store_load_keys, store.h): the
 * lines are found in results.index when it holds, else by the keys that
 * begin the journal's lines. Every line used is checked to carry its key;
 * a reader only reads (a torn last line is skipped, nothing is cut). */
#include "store.h"
#include "store_idx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    uint8_t key[32];
    uint64_t off;       /* its latest line; UINT64_MAX none yet */
    uint32_t len;
} want_t;

static int cmp_want(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

static want_t *find(want_t *w, size_t n, const uint8_t key[32])
{
    return bsearch(key, w, n, sizeof *w, cmp_want);
}

/* The keys of the lines in data (journal bytes from base on; a torn last
 * line is no line) marked in w: later lines win. */
static void mark_lines(want_t *w, size_t n, const char *data, size_t len,
                       uint64_t base)
{
    const char *p = data, *end = data + len;
    uint8_t key[32];
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        want_t *x;
        if (nl - p > 73 && !memcmp(p, "{\"key\":\"", 8) && p[72] == '"'
            && sidx_key_bin(p + 8, key) == 0 && (x = find(w, n, key))) {
            x->off = base + (uint64_t)(p - data);
            x->len = (uint32_t)(nl - p);
        }
        p = nl + 1;
    }
}

/* Journal bytes [from, to) read and their lines marked; -1 on a read
 * error or out of memory. */
static int mark_range(int fd, want_t *w, size_t n, uint64_t from,
                      uint64_t to)
{
    const size_t block = (size_t)8 << 20;
    char *buf = malloc(block);
    size_t have = 0;
    uint64_t at = from;   /* journal offset of buf[0] */
    int rc = buf ? 0 : -1;
    while (!rc && at + have < to) {
        size_t want = block - have;
        if (want > to - at - have)
            want = (size_t)(to - at - have);
        ssize_t r = pread(fd, buf + have, want, (off_t)(at + have));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = -1;
            break;
        }
        have += (size_t)r;
        size_t whole = have;
        while (whole > 0 && buf[whole - 1] != '\n')
            whole--;
        if (whole == 0 && have == block) {   /* a line over 8 MB */
            rc = -1;
            break;
        }
        mark_lines(w, n, buf, whole, at);
        memmove(buf, buf + whole, have - whole);
        at += whole;
        have -= whole;
    }
    free(buf);
    return rc;
}

/* The index's entries for the wanted keys, when it holds for this
 * journal (layout, checksum, within the journal, its last line there
 * with its key); the bytes it covers in *covered, else -1. */
static int mark_index(const char *dir, int fd, off_t size, want_t *w,
                      size_t n, uint64_t *covered)
{
    sidx_head h;
    sidx_entry *e;
    size_t ne;
    if (sidx_read(dir, &h, &e, &ne) != 0)
        return -1;
    char head[74];
    int ok = h.covered <= (uint64_t)size && h.last_off + 73 < h.covered
             && pread(fd, head, 73, (off_t)h.last_off) == 73;
    uint8_t k[32];
    ok = ok && !memcmp(head, "{\"key\":\"", 8) && sidx_key_bin(head + 8, k)
                                                      == 0
         && !memcmp(k, h.last_key, 32);
    for (size_t i = 0; ok && i < ne; i++) {
        want_t *x = find(w, n, e[i].key);
        if (x) {
            x->off = e[i].off;
            x->len = e[i].len;
        }
    }
    free(e);
    *covered = h.covered;
    return ok ? 0 : -1;
}

/* The line of each found key parsed (attempts are not counted: 1); 1
 * when one does not carry its key (the index lied: the caller reads the
 * journal instead), -1 out of memory. */
static int parse_found(int fd, const char *path, const space_def *sp,
                       const want_t *w, size_t n, store_record *v,
                       size_t *cnt, gd_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (w[i].off == UINT64_MAX)
            continue;
        char *line = malloc((size_t)w[i].len + 1), hex[65];
        if (!line) {
            gd_errf(err, GD_EENV, "%s: out of memory", path);
            return -1;
        }
        int ok = pread(fd, line, w[i].len, (off_t)w[i].off)
                 == (ssize_t)w[i].len;
        line[ok ? w[i].len : 0] = '\0';
        gd_err ignore;
        sidx_key_hex(w[i].key, hex);
        ok = ok && (!strstr(line, "\"kind\":")
                    || strstr(line, "\"kind\":\"gpu\""))
             && store_record_from_json_in(sp, line, path, 0, &v[*cnt], &ignore)
                    == GD_OK
             && strcmp(v[*cnt].key, hex) == 0;
        free(line);
        if (!ok)
            return 1;
        v[*cnt].attempts = 1;
        (*cnt)++;
    }
    return 0;
}

int store_load_keys(const char *dir, const space_def *sp,
                    const char (*keys)[65], size_t n, store_record **recs,
                    size_t *nrecs, gd_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    *recs = NULL;
    *nrecs = 0;
    want_t *w = calloc(n ? n : 1, sizeof *w);
    store_record *v = calloc(n ? n : 1, sizeof *v);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    int rc = GD_OK;
    if (!w || !v)
        rc = gd_errf(err, GD_EENV, "%s: out of memory", path);
    else if (fd < 0 || fstat(fd, &sb) != 0)
        rc = gd_errf(err, GD_EENV, "%s: cannot open: %s", path,
                     strerror(errno));
    size_t m = 0;
    for (size_t i = 0; !rc && i < n; i++)
        if (sidx_key_bin(keys[i], w[m].key) == 0)
            m++;
    if (!rc)
        qsort(w, m, sizeof *w, cmp_want);
    for (int pass = 0; !rc && pass < 2; pass++) {
        uint64_t from = 0;
        for (size_t i = 0; i < m; i++)
            w[i].off = UINT64_MAX;
        /* first the index and the lines after it; then the whole journal */
        if (pass == 1 || mark_index(dir, fd, sb.st_size, w, m, &from) != 0)
            from = 0, pass = 1;
        if (mark_range(fd, w, m, from, (uint64_t)sb.st_size) != 0)
            rc = gd_errf(err, GD_EENV, "%s: read error", path);
        *nrecs = 0;
        int lied = rc ? 0 : parse_found(fd, path, sp, w, m, v, nrecs, err);
        if (lied < 0)
            rc = GD_EENV;
        else if (lied && pass == 1)
            rc = gd_errf(err, GD_EINPUT, "%s: a record could not be read "
                         "back; the journal is damaged", path);
        else if (!lied)
            break;
    }
    if (fd >= 0)
        close(fd);
    free(w);
    if (rc) {
        free(v);
        *nrecs = 0;
        return rc;
    }
    *recs = v;
    return GD_OK;
}
