/* store_idx: results.index, the journal's sidecar key index — for each
 * journal line its key, where the line lies and its outcome class and
 * (workload, backend) group — so that a resume and gpudse status find the
 * finished keys without reading the journal. It is a cache: a binary file
 * (native byte order, the machine's own) that says which journal prefix it
 * covers; readers check it (its layout, a checksum of its entries, and
 * journal lines at the offsets it names, store.c) and rebuild or ignore it
 * when it does not hold; nothing is ever taken from it unchecked.
 * Layout: a 64-byte header, then 48-byte entries in the order written. */
#ifndef GPUDSE_STORE_IDX_H
#define GPUDSE_STORE_IDX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STORE_INDEX "results.index"

typedef struct {
    uint8_t key[32];        /* the 64 hex digits as bytes */
    uint64_t off;           /* byte offset of its journal line */
    uint32_t len;           /* the line's length without the newline */
    uint8_t cls;            /* store.c's outcome class */
    uint8_t pad;
    int16_t grp;            /* its group in the summary's order, -1 none */
} sidx_entry;

typedef struct {
    uint64_t covered;       /* journal bytes the entries cover */
    uint64_t last_off;      /* offset of the line that ends there */
    uint8_t last_key[32];   /* and its key */
} sidx_head;

/* An index being written beside an open journal. */
typedef struct {
    char path[4096];
    int fd;                 /* -1: no index is kept (it could not be) */
    uint64_t n, sum;        /* entries in the file, checksum over them */
    sidx_entry *pend;       /* entries not yet written */
    size_t npend, cappend;
} sidx_writer;

/* Hex key (64 digits) to bytes and back (65 with the NUL). 0, or -1 when
 * the text is not 64 lower-case hex digits. */
int sidx_key_bin(const char *hex, uint8_t out[32]);
void sidx_key_hex(const uint8_t bin[32], char out[65]);

/* Read DIR's index: its header and entries (malloc'd; the caller frees
 * them). -1 (nothing allocated) when absent, short, of another layout or
 * version, or when its checksum does not match its entries. */
int sidx_read(const char *dir, sidx_head *h, sidx_entry **e, size_t *n);

/* Start an index from these entries (a fresh file, replacing any: written
 * to a temporary and renamed). The writer is usable even when the file
 * could not be written (fd -1: appends are then dropped). */
void sidx_create(sidx_writer *w, const char *dir, const sidx_head *h,
                 const sidx_entry *e, size_t n);
/* Keep appending to an index sidx_read accepted (n entries, checksum
 * recomputed by the reader). */
void sidx_continue(sidx_writer *w, const char *dir, size_t n, uint64_t sum);
/* Queue one entry; 0, or -1 when out of memory (the index is dropped). */
int sidx_add(sidx_writer *w, const sidx_entry *e);
/* Write the queued entries, then the header saying what they cover. A
 * failure removes the file (the next reader rebuilds it). */
void sidx_flush(sidx_writer *w, const sidx_head *h);
void sidx_close(sidx_writer *w);

/* The checksum over n entries, continuing from sum (start: 0). */
uint64_t sidx_sum(uint64_t sum, const sidx_entry *e, size_t n);

#endif
