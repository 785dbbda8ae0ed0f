/* table: a ruled table drawn into the document that breaks across pages,
 * repeating its caption ("(continued)") and header row on each page. */
#ifndef GPUDSE_TABLE_H
#define GPUDSE_TABLE_H

#include <stddef.h>
#include "doc.h"

#define REP_TABLE_MAXCOLS 24
#define REP_CELL 40

typedef struct {
    const char *caption;
    int ncols;
    char head[REP_TABLE_MAXCOLS][64];
    int align[REP_TABLE_MAXCOLS];     /* chart_halign */
    size_t nrows, cap;
    char (*cell)[REP_CELL];           /* nrows × ncols */
    unsigned char *emph;              /* per row: 1 = bold, shaded */
    int failed;                       /* a row ran out of memory */
} rep_table;

void rep_table_init(rep_table *t, const char *caption);
void rep_table_col(rep_table *t, const char *head, int align);
/* Append a row; returns its cells (ncols of REP_CELL), NULL when out of
 * memory: the table is then marked failed, and the document that draws it
 * ends with GD_EENV (no report with a row missing). */
char (*rep_table_row(rep_table *t, int emph))[REP_CELL];
void rep_table_free(rep_table *t);

/* Draw at the document cursor, breaking pages as needed. */
void rep_table_draw(rep_doc *d, const rep_table *t);

#endif
