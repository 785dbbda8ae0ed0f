/* store_idx: the journal's sidecar key index results.index — its file
 * layout, checksum, reading and appending (store_idx.h). What the entries
 * say about the journal is checked by store.c and status.c. */
#include "store_idx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

#define MAGIC "gpudse-index-1\n"   /* 16 bytes with its NUL */

_Static_assert(sizeof(sidx_entry) == 48, "index entries are 48 bytes");

/* The header on disk; entries follow it. */
typedef struct {
    char magic[16];
    uint64_t covered, last_off, n, sum;
    uint8_t last_key[32];
} disk_head;

static disk_head head_of(const sidx_head *h, uint64_t n, uint64_t sum)
{
    disk_head d;
    memset(&d, 0, sizeof d);
    memcpy(d.magic, MAGIC, sizeof d.magic);
    d.covered = h->covered;
    d.last_off = h->last_off;
    d.n = n;
    d.sum = sum;
    memcpy(d.last_key, h->last_key, sizeof d.last_key);
    return d;
}

static void index_path(const char *dir, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", dir, STORE_INDEX);
}

int sidx_key_bin(const char *hex, uint8_t out[32])
{
    for (int i = 0; i < 64; i++) {
        char c = hex[i];
        int v = c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0)
            return -1;
        if (i % 2)
            out[i / 2] = (uint8_t)(out[i / 2] | v);
        else
            out[i / 2] = (uint8_t)(v << 4);
    }
    return 0;
}

void sidx_key_hex(const uint8_t bin[32], char out[65])
{
    static const char d[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = d[bin[i] >> 4];
        out[2 * i + 1] = d[bin[i] & 15];
    }
    out[64] = '\0';
}

uint64_t sidx_sum(uint64_t sum, const sidx_entry *e, size_t n)
{
    const unsigned char *p = (const unsigned char *)e;
    size_t words = n * sizeof *e / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t v;
        memcpy(&v, p + 8 * i, 8);
        sum = (sum ^ v) * 0x100000001b3ull;
        sum ^= sum >> 29;
    }
    return sum;
}

static int pwrite_all(int fd, const void *buf, size_t n, off_t at)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
        at += w;
    }
    return 0;
}

static int pread_all(int fd, void *buf, size_t n, off_t at)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
        at += r;
    }
    return 0;
}

int sidx_read(const char *dir, sidx_head *h, sidx_entry **e, size_t *n)
{
    char path[4200];
    index_path(dir, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    disk_head d;
    if (fd < 0)
        return -1;
    int ok = fstat(fd, &sb) == 0 && (size_t)sb.st_size >= sizeof d
             && pread_all(fd, &d, sizeof d, 0) == 0
             && memcmp(d.magic, MAGIC, sizeof d.magic) == 0
             && d.n <= (uint64_t)sb.st_size / sizeof **e
             && (uint64_t)sb.st_size == sizeof d + d.n * sizeof **e;
    sidx_entry *v = ok ? malloc((size_t)(d.n ? d.n : 1) * sizeof *v) : NULL;
    ok = v && pread_all(fd, v, (size_t)d.n * sizeof *v, sizeof d) == 0
         && sidx_sum(0, v, (size_t)d.n) == d.sum;
    close(fd);
    if (!ok) {
        free(v);
        return -1;
    }
    h->covered = d.covered;
    h->last_off = d.last_off;
    memcpy(h->last_key, d.last_key, sizeof h->last_key);
    *e = v;
    *n = (size_t)d.n;
    return 0;
}

void sidx_create(sidx_writer *w, const char *dir, const sidx_head *h,
                 const sidx_entry *e, size_t n)
{
    char tmp[4300];
    memset(w, 0, sizeof *w);
    index_path(dir, w->path, sizeof w->path);
    snprintf(tmp, sizeof tmp, "%s.tmp", w->path);
    w->fd = -1;
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    uint64_t sum = sidx_sum(0, e, n);
    disk_head d = head_of(h, n, sum);
    if (fd >= 0 && pwrite_all(fd, &d, sizeof d, 0) == 0
        && pwrite_all(fd, e, n * sizeof *e, sizeof d) == 0
        && rename(tmp, w->path) == 0) {
        w->fd = fd;
        w->n = n;
        w->sum = sum;
        return;
    }
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    unlink(w->path);   /* an older one no longer matches */
}

void sidx_continue(sidx_writer *w, const char *dir, size_t n, uint64_t sum)
{
    memset(w, 0, sizeof *w);
    index_path(dir, w->path, sizeof w->path);
    w->fd = open(w->path, O_RDWR | O_CLOEXEC);
    w->n = n;
    w->sum = sum;
}

/* Stop keeping the index: remove it, so no reader trusts a stale one. */
static void drop(sidx_writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    unlink(w->path);
    free(w->pend);
    w->pend = NULL;
    w->npend = w->cappend = 0;
}

int sidx_add(sidx_writer *w, const sidx_entry *e)
{
    if (w->fd < 0)
        return 0;
    if (util_grow(&w->pend, &w->cappend, w->npend, sizeof *w->pend, 256)) {
        drop(w);
        return -1;
    }
    w->pend[w->npend++] = *e;
    return 0;
}

void sidx_flush(sidx_writer *w, const sidx_head *h)
{
    if (w->fd < 0)
        return;
    uint64_t sum = sidx_sum(w->sum, w->pend, w->npend);
    disk_head d = head_of(h, w->n + w->npend, sum);
    if (pwrite_all(w->fd, w->pend, w->npend * sizeof *w->pend,
                   (off_t)(sizeof d + w->n * sizeof *w->pend)) != 0
        || pwrite_all(w->fd, &d, sizeof d, 0) != 0) {
        drop(w);
        return;
    }
    w->n += w->npend;
    w->sum = sum;
    w->npend = 0;
}

void sidx_close(sidx_writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    free(w->pend);
    w->pend = NULL;
    w->npend = w->cappend = 0;
}
