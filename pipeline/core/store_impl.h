/* store_impl: what the journal's files share inside the store module
 * (store.c: the journal and its key index; store_read.c: reading records
 * back for analysis and report). Private to pipeline/core/store*.c. */
#ifndef GPUDSE_STORE_IMPL_H
#define GPUDSE_STORE_IMPL_H

#include <stddef.h>
#include <sys/types.h>
#include "util.h"

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

key_entry *store_keyset_find(const key_set *s, const char *k);
/* 0, or -1 when out of memory (the set is unchanged then). A key seen
 * again (a rerun of a journaled job) points to its latest line. */
int store_keyset_add(key_set *s, const char *k, off_t off, size_t len,
                     int cls, int grp);
/* The whole journal in one buffer (NUL-terminated). */
int store_read_journal(const char *path, char **out, size_t *len,
                       gd_err *err);
/* The text of "name":"..." in a journal line, as pointer and length. */
const char *store_line_field(const char *line, const char *name,
                             size_t *len);
/* Whether a line belongs to another kind of job than GPU design points. */
int store_other_kind(const char *line);

#endif
