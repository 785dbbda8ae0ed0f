/* store: the run's append-only journal results.jsonl — one JSON record per
 * finished job, one complete line each — the index of finished keys, and
 * the summary beside the journal that gpudse status reads.
 * Opening a journal drops (and reports) a torn last line left by a crash.
 * A job rerun (--retry) adds a line; readers take each key's latest. */
#ifndef GPUDSE_STORE_H
#define GPUDSE_STORE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "util.h"
#include "space.h"
#include "metrics.h"

/* Outcome classes of a job (issue: batch engine). */
typedef enum {
    ST_OK, ST_FAILED, ST_CRASHED, ST_TIMEOUT, ST_OOM, ST_DEADLOCK, ST_ASSERT,
    ST_NO_STATS, ST_BAD_OUTPUT, ST_INVALID_CONFIG, ST__COUNT
} store_status;

const char *store_status_name(int st);
int store_status_parse(const char *s);   /* -1 when unknown */

typedef struct {
    char key[65];          /* sha256 of what determines the result */
    char workload[64];
    char backend[32];
    char fidelity[16];     /* "modelled" or "measured" */
    gpu_config cfg;
    int status;            /* store_status */
    char reason[256];      /* why it failed; "" when ok */
    met_set metrics;
    /* Extra per-record facts (binding occupancy limit, bottleneck). */
    char limit[16];
    char bottleneck[24];
    /* Provenance of a measured record's metrics: the names (space-separated)
     * that a model attached because they are a function of the config alone
     * (area_mm2 from the area model, backend.h be_attach_config_metrics);
     * every other metric was measured. "" when none: JSON "modelled_metrics"
     * is then left out. */
    char modelled[64];
    /* Place of the config in its workload's proposals (the strategy's
     * proposal order, from 1; 0 when unknown), not the completion order. */
    long order;
    /* Records of this key in the journal (set by store_load_all; a job
     * rerun with --retry has one per attempt); not written. */
    int attempts;
} store_record;

/* One JSON line without the newline, keys in fixed order: the config's
 * built-in knobs, then the user knobs of sp (NULL: none) by name, a numeric
 * one as a number, a categorical one as a string. */
void store_record_to_json(const store_record *r, util_buf *out);
void store_record_to_json_in(const space_def *sp, const store_record *r,
                             util_buf *out);

/* s as a JSON string (quoted, escaped) appended to b. */
void store_json_str(util_buf *b, const char *s);
/* Parse one line; errors name the given file and line. */
int store_record_from_json(const char *line, const char *file, int lineno,
                           store_record *r, gd_err *err);
/* The same with the user knobs of sp (NULL: none; a record lacking one of
 * them is bad; a level sp does not list reads as -1, in no space). */
int store_record_from_json_in(const space_def *sp, const char *line,
                              const char *file, int lineno, store_record *r,
                              gd_err *err);

typedef struct store store;

/* The journal's summary file beside it (see store.c), which gpudse status
 * reads instead of the whole journal. */
#define STORE_SUMMARY "results.summary.json"

/* Records (each key's latest) and failed ones per workload and backend. */
typedef struct {
    char workload[64], backend[32];
    uint64_t records, failed;
} store_group;

/* Open (create) DIR/results.jsonl for appending; loads the finished keys.
 * A torn last line is truncated away and counted in *torn (may be NULL). */
int store_open(const char *dir, store **out, int *torn, gd_err *err);
/* The campaign's space, whose user knobs records are written and read
 * with (store_append, store_get); sp must outlive s. Not set: none. */
void store_set_space(store *s, const space_def *sp);
/* With on, appended lines are gathered and written together (every 256 KB
 * or 0.1 s, at store_write_pending, at each sync and at close) instead of
 * one write each: for jobs evaluated in this process, thousands a second.
 * Reads through the store see gathered lines. The caller writes them
 * (store_write_pending) before it reports any of their jobs finished, so
 * a process killed outright loses only jobs nothing saw finish, as it
 * loses a job still running. Off: each line is written as it is
 * appended. */
void store_set_batched(store *s, int on);
/* Write the lines gathered by store_set_batched now (no sync). */
int store_write_pending(store *s, gd_err *err);
int store_has(const store *s, const char *key);
/* Whether this key's latest record was appended since the store opened. */
int store_is_new(const store *s, const char *key);
size_t store_count(const store *s);
/* GPU design-point records (each key's latest; other kinds of job not
 * counted) whose status is ok / anything else, from the key index. */
void store_outcomes(const store *s, uint64_t *ok, uint64_t *failed);
/* 1 when this key's latest record is a GPU design point whose status is
 * ok (from the key index: no journal read). */
int store_key_ok(const store *s, const char *key);
/* Read back the finished record with this key (for strategies that observe
 * results on resume). */
int store_get(const store *s, const char *key, store_record *r, gd_err *err);
/* Append one record as one line; fsync is batched (every few hundred
 * records and at close/flush). */
int store_append(store *s, const store_record *r, gd_err *err);
/* Append a new record for a key an earlier session journaled (a rerun,
 * `gpudse run --retry`); the journal keeps both lines and store_get,
 * store_load_all and the key index take the latest. */
int store_append_attempt(store *s, const store_record *r, gd_err *err);
/* Append a record of another job kind: one JSON object on one line that has
 * "key" (64 hex digits) and "kind" (not "gpu") fields. store_load_all skips
 * such lines; the key index and resume treat them like any record. */
int store_append_line(store *s, const char *key, const char *json,
                      gd_err *err);
/* The journal line of a finished job of any kind, read back by key
 * (malloc'd, NUL-terminated, no newline; the caller frees it). For job
 * kinds whose records store_get does not parse (split studies). */
int store_get_line(const store *s, const char *key, char **line,
                   gd_err *err);
int store_flush(store *s, gd_err *err);
int store_close(store *s, gd_err *err);

/* Lock run directory DIR for this process (DIR/.lock: flock, holder's
 * pid written into it) so a second gpudse on the same directory stops
 * with a message naming the holder. *fd stays open while the lock is
 * held; store_unlock (or exit) releases it. */
int store_lock(const char *dir, int *fd, gd_err *err);
void store_unlock(int fd);

/* Read every record of a journal (for analysis and report): the latest
 * record of each key, in the order keys were first journaled, with its
 * count of attempts. A torn last line is skipped; any other malformed line
 * is an error naming FILE:LINE. */
int store_load_all(const char *path, store_record **recs, size_t *n,
                   gd_err *err);
/* The same, reading the user knobs of sp (store_record_from_json_in). */
int store_load_all_in(const char *path, const space_def *sp,
                      store_record **recs, size_t *n, gd_err *err);

/* Reading a journal one workload at a time, so that memory holds one
 * workload's records, not the journal's: store_index_workloads reads the
 * journal once (no JSON parse of lines of its own layout) and lists, per
 * workload in order of first appearance, where its GPU records lie;
 * store_load_lines reads such a list back like store_load_all (each key's
 * latest, in first-journaled order, attempts counted; errors name
 * FILE:LINE). A key includes its workload, so every attempt of a key is
 * in the same list. */
typedef struct {
    off_t off;              /* byte offset of the line */
    unsigned len;           /* its length without the newline */
    unsigned lineno;        /* from 1 */
} store_line;

typedef struct {
    char name[64];
    store_line *line;
    size_t n, cap;
} store_wl_lines;

int store_index_workloads(const char *path, store_wl_lines **out, int *nout,
                          gd_err *err);
int store_load_lines(const char *path, const store_line *lines, size_t n,
                     store_record **recs, size_t *nrecs, gd_err *err);
int store_load_lines_in(const char *path, const space_def *sp,
                        const store_line *lines, size_t n,
                        store_record **recs, size_t *nrecs, gd_err *err);
void store_wl_lines_free(store_wl_lines *v, int n);

/* The latest GPU records of these keys (in key order; a key the journal
 * lacks is left out) from DIR's journal, reading only their lines: found
 * in results.index when it holds, else by the keys that begin the lines
 * (store_keys.c); attempts are not counted. Only reads: a torn last line
 * is skipped. Records carry the user knobs of sp (NULL: none). */
int store_load_keys(const char *dir, const space_def *sp,
                    const char (*keys)[65], size_t n, store_record **recs,
                    size_t *nrecs, gd_err *err);

/* Records in one order whatever order jobs finished in (results.jsonl keeps
 * completion order): by workload, backend, config (knob by knob), key.
 * Every file derived from the journal (analysis.json, annotations.json,
 * results.csv, figures) reads records in this order, so two runs of a
 * campaign give byte-identical derived files with any number of workers. */
void store_sort_canonical(store_record *recs, size_t n);

#endif
