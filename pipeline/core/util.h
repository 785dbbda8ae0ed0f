/* util: errors that carry a message and an exit-code class, files written
 * atomically, directories, hashing, and small string helpers shared by every
 * module of gpudse. */
#ifndef GPUDSE_UTIL_H
#define GPUDSE_UTIL_H

#include <stddef.h>
#include <stdarg.h>

/* Exit codes of DESIGN.md; every failing function returns one of them. */
enum {
    GD_OK = 0,      /* success */
    GD_EJOBS = 1,   /* finished, but jobs failed or a regression was found */
    GD_EINPUT = 2,  /* bad input or usage */
    GD_EENV = 3     /* environment or internal error */
};

/* An error the caller can show: a code from the enum above and a message that
 * already names the file (and line, where there is one). */
typedef struct {
    int code;
    char msg[2048];
} gd_err;

/* Fill err (if not NULL) and return code; lets callers write
 * `return gd_errf(err, GD_EINPUT, "%s:%d: ...", file, line)`. */
int gd_errf(gd_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Room for one more element in the array *arr (of elsize-byte elements,
 * n in use, capacity *cap): when full, the capacity doubles (first when
 * empty). 0, or -1 when out of memory or the size would overflow (*arr
 * and *cap unchanged). arr is the address of the array's pointer. */
int util_grow(void *arr, size_t *cap, size_t n, size_t elsize, size_t first);

/* Growable string buffer. Out of memory while it grows ends gpudse
 * (abort, after saying so): the one exception to returning GD_EENV, so
 * that no message, identity, command line or file is ever built with a
 * piece missing (README, "Conventions"). */
typedef struct {
    char *s;
    size_t len, cap;
} util_buf;

void util_buf_init(util_buf *b);
void util_buf_free(util_buf *b);
void util_buf_add(util_buf *b, const char *s, size_t n);
void util_buf_puts(util_buf *b, const char *s);
void util_buf_printf(util_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Read a whole file into a NUL-terminated malloc'd buffer. */
int util_read_file(const char *path, char **out, size_t *len, gd_err *err);

/* Read a file a user names as input (a campaign, a workload descriptor, a
 * template, a layout): a regular file only, of at most cap bytes. A
 * directory, a FIFO, a device (/dev/zero) or a socket is refused with
 * GD_EINPUT before anything is read (a FIFO is opened without blocking), as
 * is a larger file; a missing file is GD_EINPUT "no such file". */
#define UTIL_INPUT_MAX ((size_t)16 << 20)
int util_read_input(const char *path, size_t cap, char **out, size_t *len,
                    gd_err *err);

/* Write a file atomically: PATH.tmp.<pid>, fsync, rename over PATH. A reader
 * sees the old file or the new one, never half of one. */
int util_write_file_atomic(const char *path, const void *data, size_t len,
                           gd_err *err);

/* A cJSON tree printed (formatted, one trailing newline) into PATH with
 * util_write_file_atomic; the caller keeps the tree. */
struct cJSON;
int util_write_json_atomic(const char *path, const struct cJSON *root,
                           gd_err *err);

/* A cJSON tree as one line whose numbers read back as the very same
 * doubles (num_short: cJSON's own printer writes 15 digits whenever they
 * come within an epsilon, which loses the last bits a journal must keep);
 * non-finite numbers are null as cJSON writes them. Caller frees with
 * free(); NULL when out of memory. */
char *util_json_line_exact(const struct cJSON *root);

/* The same rename-into-place write without fsync: readers never see half a
 * file, but a power cut may lose it. For advisory files (job status, pgid)
 * that are cheap to lose and written once per job. */
int util_write_file_replace(const char *path, const void *data, size_t len,
                            gd_err *err);

/* Plain create-and-write, for files only gpudse reads back and that may be
 * lost whole (a job's status.json): one open, write, close. */
int util_write_file_plain(const char *path, const void *data, size_t len,
                          gd_err *err);

/* mkdir -p. */
int util_mkdirs(const char *path, gd_err *err);

/* mkdir -p with system calls only (safe in a vfork child): 0; -1 with errno
 * when a mkdir failed (its path copied into at, when given); -2 when path
 * exists and is not a directory. */
int util_mkdir_p(const char *path, char *at, size_t atsz);
int util_path_exists(const char *path);
int util_is_dir(const char *path);

/* Does directory dir hold anything but what a run writes before its
 * campaign.xml (the .lock and run.log of a run stopped at its very start)?
 * A run refuses such a directory unless told --force: its files are not
 * ours to overwrite. 0 when dir does not exist. */
int util_dir_holds_others(const char *dir);

/* Join dir and name into out (size outsz); returns GD_EENV when too long. */
int util_path_join(char *out, size_t outsz, const char *dir, const char *name);

/* Directory part of a path ("." when there is none), written into out. */
void util_dirname(char *out, size_t outsz, const char *path);

/* SHA-256 of data as 64 lowercase hex characters plus NUL. */
void util_sha256_hex(const void *data, size_t len, char out[65]);
/* (of an input file: util_read_input's rules and cap) */
int util_sha256_file(const char *path, char out[65], gd_err *err);

/* The folder holding gpudse's data files (the templates/ tree): $GPUDSE_DATA
 * when set, else templates/ beside the executable (a source-tree build), else
 * ../templates beside it (a build in a subfolder such as build-san/), else
 * ../share/gpudse beside it (an install), else the compiled-in location.
 * Written into out; GD_EENV if none exists. */
int util_datadir(char *out, size_t outsz, gd_err *err);

/* Levenshtein distance, for did-you-mean suggestions. */
int util_edit_distance(const char *a, const char *b);

/* Parse a whole string as a finite decimal double (no hex) / a decimal long
 * in [lo, hi]; 0 on success. */
int util_parse_double(const char *s, double *out);
int util_parse_long(const char *s, long lo, long hi, long *out);

/* The one KEY=VALUE list reader (`--config n_mem=8,l1_sets=64`, `--mix
 * sfu=2`, a split decision "devices=2;chunk=..", an identity's lines):
 * splits text at any of seps, skips empty items, and calls
 * fn(key, value, arg, err) for each item, value NULL when the item has no
 * '='. Stops at the first non-GD_OK answer and returns it; GD_EENV when out
 * of memory. The strings are the helper's copy, live only during the call
 * and may be modified by fn. */
typedef int (*util_kv_fn)(char *key, char *value, void *arg, gd_err *err);
int util_kv_each(const char *text, const char *seps, util_kv_fn fn,
                 void *arg, gd_err *err);

/* Copy with truncation, always NUL-terminated. */
void util_strlcpy(char *dst, const char *src, size_t n);

#endif
