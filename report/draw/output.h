/* output: cairo PDF/SVG surfaces that write into memory and are then put on
 * disk atomically, with deterministic bytes (fixed PDF dates, SVG ids
 * renumbered per file). */
#ifndef GPUDSE_OUTPUT_H
#define GPUDSE_OUTPUT_H

#include <cairo.h>
#include "util.h"

typedef enum { REP_OUT_PDF, REP_OUT_SVG } rep_out_kind;

typedef struct {
    rep_out_kind kind;
    util_buf buf;
    cairo_surface_t *surface;
} rep_out;

/* Start a surface of w × h points; title goes into PDF metadata. Check
 * cairo_surface_status() of out->surface, or rep_out_finish's result. */
void rep_out_begin(rep_out *out, rep_out_kind kind, double w, double h,
                   const char *title);
/* Finish the surface and write its bytes to path atomically; on any error
 * nothing is written and the message names path. Always frees out. */
int rep_out_finish(rep_out *out, const char *path, gd_err *err);
/* Drop an unfinished output without writing anything. */
void rep_out_abandon(rep_out *out);

/* The PDF creation date: from SOURCE_DATE_EPOCH when set, else the epoch;
 * ISO 8601 into buf. */
void rep_out_date(char *buf, size_t n);

/* Renumber cairo's process-global SVG ids ("surface12", "image3") in order
 * of first appearance, in place. */
void rep_out_svg_canon(util_buf *svg);

#endif
