/* doc: a paged PDF document with a vertical cursor — pages, margins,
 * footers, headings, paragraphs and key/value rows, breaking pages when
 * the next block does not fit. */
#ifndef GPUDSE_DOC_H
#define GPUDSE_DOC_H

#include "chart.h"
#include "output.h"

#define REP_TOC_MAX 512

typedef struct {
    char title[120];
    int level;             /* 0: section, 1: subsection */
    int page;
} rep_toc_entry;

typedef struct {
    rep_out out;
    cairo_t *cr;
    chart_ctx cc;
    double pw, ph, margin;
    double y;              /* cursor: top of the next block */
    int page;              /* pages started so far */
    char footer[256];
    int measure;           /* 1: a layout pass — figures are not drawn */
    int ntoc;
    rep_toc_entry toc[REP_TOC_MAX];
    int failed;            /* a table ran out of memory: rep_doc_end fails */
} rep_doc;

/* Start a document of pw × ph points. */
int rep_doc_begin(rep_doc *d, double pw, double ph, const char *title,
                  const char *footer, const char *path, gd_err *err);
/* Finish and write atomically to path (always frees the document). */
int rep_doc_end(rep_doc *d, const char *path, gd_err *err);
/* Free without writing (an error happened elsewhere). */
void rep_doc_abandon(rep_doc *d);

void rep_doc_new_page(rep_doc *d);
double rep_doc_width(const rep_doc *d);    /* between margins */
double rep_doc_left(const rep_doc *d);     /* x of the left margin */
double rep_doc_room(const rep_doc *d);     /* height left on this page */
/* Start a new page unless h points still fit. */
void rep_doc_need(rep_doc *d, double h);

/* A paragraph at the cursor (wrapped to the text width). */
void rep_doc_text(rep_doc *d, const char *txt, double pt, int style);
void rep_doc_space(rep_doc *d, double h);
/* A two-column row: bold key, wrapped value. */
void rep_doc_kv(rep_doc *d, const char *key, const char *val, int style);
/* A heading at the cursor, recorded for the table of contents. */
void rep_doc_heading(rep_doc *d, const char *txt, int level);

#endif
