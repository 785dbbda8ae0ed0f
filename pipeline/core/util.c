/* util: error messages, atomic file writes, directories, SHA-256, and small
 * string helpers used by every module. */
#include "util.h"
#include "numtext.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <openssl/sha.h>

#ifndef GPUDSE_DATADIR
#define GPUDSE_DATADIR "/usr/local/share/gpudse"
#endif

int gd_errf(gd_err *err, int code, const char *fmt, ...)
{
    if (err) {
        /* Format apart first: callers may pass err->msg as an argument
         * ("cannot create %s: %s", dir, err->msg). */
        char msg[sizeof err->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        memcpy(err->msg, msg, sizeof msg);
        err->code = code;
    }
    return code;
}

int util_grow(void *arr, size_t *cap, size_t n, size_t elsize, size_t first)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : first;
    if (c <= n || c > SIZE_MAX / elsize)
        return -1;
    void *old, *grown;
    memcpy(&old, arr, sizeof old);
    grown = realloc(old, c * elsize);
    if (!grown)
        return -1;
    memcpy(arr, &grown, sizeof grown);
    *cap = c;
    return 0;
}

void util_buf_init(util_buf *b)
{
    b->s = NULL;
    b->len = b->cap = 0;
}

void util_buf_free(util_buf *b)
{
    free(b->s);
    util_buf_init(b);
}

static void buf_reserve(util_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {   /* README, "Conventions": never a text with a piece missing */
        fputs("gpudse: out of memory\n", stderr);
        abort();
    }
    b->s = s;
    b->cap = cap;
}

void util_buf_add(util_buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void util_buf_puts(util_buf *b, const char *s)
{
    util_buf_add(b, s, strlen(s));
}

void util_buf_printf(util_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

int util_read_file(const char *path, char **out, size_t *len, gd_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gd_errf(err, errno == ENOENT ? GD_EINPUT : GD_EENV,
                       "%s: cannot open: %s", path, strerror(errno));
    util_buf b;
    util_buf_init(&b);
    buf_reserve(&b, 4096);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        util_buf_add(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        util_buf_free(&b);
        return gd_errf(err, GD_EENV, "%s: read error", path);
    }
    *out = b.s;
    if (len)
        *len = b.len;
    return GD_OK;
}

/* What kind of file st is, for a refusal. */
static const char *not_regular(const struct stat *st)
{
    if (S_ISDIR(st->st_mode))
        return "is a directory, not a file";
    if (S_ISFIFO(st->st_mode))
        return "is a FIFO, not a regular file";
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
        return "is a device, not a regular file";
    return "is not a regular file";
}

/* Up to cap + 1 bytes of fd into b (one byte more tells a file that grew
 * past cap since fstat). */
static int read_capped(int fd, size_t cap, util_buf *b)
{
    char chunk[65536];
    while (b->len <= cap) {
        size_t want = cap + 1 - b->len;
        ssize_t n = read(fd, chunk, want < sizeof chunk ? want : sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        util_buf_add(b, chunk, (size_t)n);
    }
    return 0;
}

int util_read_input(const char *path, size_t cap, char **out, size_t *len,
                    gd_err *err)
{
    /* O_NONBLOCK: opening a FIFO with no writer must not wait */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT
                   ? gd_errf(err, GD_EINPUT, "%s: no such file", path)
                   : gd_errf(err, errno == EISDIR ? GD_EINPUT : GD_EENV,
                             "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return gd_errf(err, GD_EENV, "%s: cannot stat: %s", path,
                       strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return gd_errf(err, GD_EINPUT, "%s: %s", path, not_regular(&st));
    }
    if ((uint64_t)st.st_size > (uint64_t)cap) {
        close(fd);
        return gd_errf(err, GD_EINPUT, "%s:1: %lld bytes, larger than the "
                       "%zu MiB an input file may have", path,
                       (long long)st.st_size, cap >> 20);
    }
    util_buf b;
    util_buf_init(&b);
    buf_reserve(&b, (size_t)st.st_size);
    int bad = read_capped(fd, cap, &b), e = errno;
    close(fd);
    if (bad || b.len > cap) {
        util_buf_free(&b);
        return bad ? gd_errf(err, GD_EENV, "%s: read error: %s", path,
                             strerror(e))
                   : gd_errf(err, GD_EINPUT, "%s:1: grew past the %zu MiB an "
                             "input file may have while it was read", path,
                             cap >> 20);
    }
    *out = b.s;
    if (len)
        *len = b.len;
    return GD_OK;
}

static int write_file(const char *path, const void *data, size_t len,
                      int sync, gd_err *err);

int util_write_file_atomic(const char *path, const void *data, size_t len,
                           gd_err *err)
{
    return write_file(path, data, len, 1, err);
}

/* Numbers of t turned into raw items of their shortest exact text. */
static int exact_numbers(cJSON *t)
{
    for (cJSON *c = t->child, *next; c; c = next) {
        next = c->next;
        if (cJSON_IsNumber(c) && isfinite(c->valuedouble)) {
            char text[NUM_TEXT_MAX];
            num_short(c->valuedouble, text);
            cJSON *raw = cJSON_CreateRaw(text);
            if (!raw)
                return -1;
            /* the member's name moves to its replacement */
            raw->string = c->string;
            raw->type |= c->type & cJSON_StringIsConst;
            c->string = NULL;
            cJSON_ReplaceItemViaPointer(t, c, raw);
        } else if ((cJSON_IsObject(c) || cJSON_IsArray(c))
                   && exact_numbers(c)) {
            return -1;
        }
    }
    return 0;
}

char *util_json_line_exact(const cJSON *root)
{
    cJSON *t = cJSON_Duplicate(root, 1);
    char *line = t && !exact_numbers(t) ? cJSON_PrintUnformatted(t) : NULL;
    cJSON_Delete(t);
    return line;
}

int util_write_json_atomic(const char *path, const struct cJSON *root,
                           gd_err *err)
{
    char *text = cJSON_Print(root);
    if (!text)
        return gd_errf(err, GD_EENV, "%s: out of memory", path);
    util_buf b;
    util_buf_init(&b);
    util_buf_puts(&b, text);
    util_buf_add(&b, "\n", 1);
    cJSON_free(text);
    int rc = util_write_file_atomic(path, b.s, b.len, err);
    util_buf_free(&b);
    return rc;
}

int util_write_file_replace(const char *path, const void *data, size_t len,
                            gd_err *err)
{
    return write_file(path, data, len, 0, err);
}

int util_write_file_plain(const char *path, const void *data, size_t len,
                          gd_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return gd_errf(err, GD_EENV, "%s: cannot create: %s", path,
                       strerror(errno));
    ssize_t w = write(fd, data, len);
    int e = errno;
    close(fd);
    if (w != (ssize_t)len)
        return gd_errf(err, GD_EENV, "%s: write failed: %s", path,
                       w < 0 ? strerror(e) : "short write");
    return GD_OK;
}

/* A target that exists and is not a regular file (/dev/null, a FIFO, a
 * terminal) is written in place: renaming over it would replace the device
 * node with a plain file. */
static int write_special(const char *path, const void *data, size_t len,
                         gd_err *err)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return gd_errf(err, GD_EENV, "%s: cannot open: %s", path,
                       strerror(errno));
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            return gd_errf(err, GD_EENV, "%s: write failed: %s", path,
                           strerror(e));
        }
        p += w;
        len -= (size_t)w;
    }
    close(fd);
    return GD_OK;
}

static int write_file(const char *path, const void *data, size_t len,
                      int sync, gd_err *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_special(path, data, len, err);
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid())
        >= (int)sizeof tmp)
        return gd_errf(err, GD_EENV, "%s: path too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return gd_errf(err, GD_EENV, "%s: cannot create: %s", tmp,
                       strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return gd_errf(err, GD_EENV, "%s: write failed: %s", path,
                           strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if ((sync && fsync(fd) != 0) || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return gd_errf(err, GD_EENV, "%s: cannot flush: %s", path,
                       strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return gd_errf(err, GD_EENV, "%s: cannot rename into place: %s",
                       path, strerror(e));
    }
    return GD_OK;
}

int util_mkdir_p(const char *path, char *at, size_t atsz)
{
    /* the common case (parent exists) in one system call */
    if (mkdir(path, 0755) == 0)
        return 0;
    char p[PATH_MAX];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof p) {
        errno = len ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    strcpy(p, path);
    for (char *s = p + 1; ; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            if (at && atsz) {
                strncpy(at, p, atsz - 1);
                at[atsz - 1] = '\0';
            }
            return -1;
        }
        *s = c;
        if (!c)
            break;
    }
    return util_is_dir(p) ? 0 : -2;
}

int util_mkdirs(const char *path, gd_err *err)
{
    char at[PATH_MAX] = "";
    int rc = util_mkdir_p(path, at, sizeof at);
    if (rc == -2)
        return gd_errf(err, GD_EENV, "%s: exists and is not a directory",
                       path);
    if (rc && errno == ENAMETOOLONG)
        return gd_errf(err, GD_EENV, "%s: path too long", path);
    if (rc)
        return gd_errf(err, GD_EENV, "%s: cannot create directory: %s",
                       at[0] ? at : path, strerror(errno));
    return GD_OK;
}

int util_path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int util_dir_holds_others(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int other = 0;
    struct dirent *e;
    while (!other && (e = readdir(d)))
        other = strcmp(e->d_name, ".") && strcmp(e->d_name, "..")
                && strcmp(e->d_name, ".lock") && strcmp(e->d_name, "run.log");
    closedir(d);
    return other;
}

int util_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int util_path_join(char *out, size_t outsz, const char *dir, const char *name)
{
    int n = (dir && *dir && name[0] != '/')
                ? snprintf(out, outsz, "%s/%s", dir, name)
                : snprintf(out, outsz, "%s", name);
    if (n < 0 || (size_t)n >= outsz)
        return GD_EENV;
    return GD_OK;
}

void util_dirname(char *out, size_t outsz, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        util_strlcpy(out, ".", outsz);
        return;
    }
    size_t n = (size_t)(slash - path);
    if (n == 0)
        n = 1;  /* "/file" -> "/" */
    if (n >= outsz)
        n = outsz - 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

static void hex_digest(const unsigned char *md, unsigned len, char *out)
{
    static const char hx[] = "0123456789abcdef";
    for (unsigned i = 0; i < len; i++) {
        out[2 * i] = hx[md[i] >> 4];
        out[2 * i + 1] = hx[md[i] & 15];
    }
    out[2 * len] = '\0';
}

void util_sha256_hex(const void *data, size_t len, char out[65])
{
    /* the one-shot call: no context allocation per hash (job keys are
     * hashed once per job, in the engine's hot loop) */
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256(data, len, md);
    hex_digest(md, SHA256_DIGEST_LENGTH, out);
}

int util_sha256_file(const char *path, char out[65], gd_err *err)
{
    char *data;
    size_t len;
    int rc = util_read_input(path, UTIL_INPUT_MAX, &data, &len, err);
    if (rc)
        return rc;
    util_sha256_hex(data, len, out);
    free(data);
    return GD_OK;
}

static int datadir_ok(const char *dir)
{
    char probe[PATH_MAX];
    return util_path_join(probe, sizeof probe, dir, "campaign.rng") == GD_OK
           && util_path_exists(probe);
}

int util_datadir(char *out, size_t outsz, gd_err *err)
{
    const char *env = getenv("GPUDSE_DATA");
    if (env && *env) {
        if (!datadir_ok(env))
            return gd_errf(err, GD_EENV,
                           "GPUDSE_DATA=%s: no campaign.rng there; point it "
                           "at gpudse's templates/ folder", env);
        util_strlcpy(out, env, outsz);
        return GD_OK;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        /* A source-tree build keeps templates/ beside ./gpudse (and
         * build-san/gpudse one level down); an install keeps
         * PREFIX/share/gpudse beside PREFIX/bin, wherever it moved. */
        static const char *const rel[] = {"templates", "../templates",
                                          "../share/gpudse"};
        char dir[PATH_MAX], cand[PATH_MAX];
        util_dirname(dir, sizeof dir, exe);
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
            if (util_path_join(cand, sizeof cand, dir, rel[i]) == GD_OK
                && datadir_ok(cand)) {
                util_strlcpy(out, cand, outsz);
                return GD_OK;
            }
    }
    if (datadir_ok(GPUDSE_DATADIR)) {
        util_strlcpy(out, GPUDSE_DATADIR, outsz);
        return GD_OK;
    }
    return gd_errf(err, GD_EENV,
                   "cannot find gpudse's data (templates/): not beside the "
                   "executable nor in %s; set GPUDSE_DATA", GPUDSE_DATADIR);
}

int util_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    int d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            int m = sub < del ? sub : del;
            d[i][j] = m < ins ? m : ins;
        }
    return d[la][lb];
}

int util_parse_double(const char *s, double *out)
{
    /* decimal only: strtod would take hex ("0x1p4") too */
    if (!s || !*s || strpbrk(s, "xX"))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int util_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

void util_strlcpy(char *dst, const char *src, size_t n)
{
    if (n == 0)
        return;
    size_t l = strlen(src);
    if (l >= n)
        l = n - 1;
    memcpy(dst, src, l);
    dst[l] = '\0';
}

int util_kv_each(const char *text, const char *seps, util_kv_fn fn,
                 void *arg, gd_err *err)
{
    char *buf = strdup(text), *save = NULL;
    if (!buf)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = GD_OK;
    for (char *t = strtok_r(buf, seps, &save); t && rc == GD_OK;
         t = strtok_r(NULL, seps, &save)) {
        char *eq = strchr(t, '=');
        if (eq)
            *eq = '\0';
        rc = fn(t, eq ? eq + 1 : NULL, arg, err);
    }
    free(buf);
    return rc;
}
