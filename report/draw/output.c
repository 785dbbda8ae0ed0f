/* output: PDF/SVG cairo surfaces streamed into memory, made deterministic
 * (PDF creation date from SOURCE_DATE_EPOCH, SVG ids renumbered) and written
 * atomically, so no reader ever sees half a file. */
#include "output.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GPUDSE_VERSION
#define GPUDSE_VERSION "dev"
#endif

static cairo_status_t write_mem(void *closure, const unsigned char *data,
                                unsigned int len)
{
    util_buf_add((util_buf *)closure, (const char *)data, len);
    return CAIRO_STATUS_SUCCESS;
}

void rep_out_date(char *buf, size_t n)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    long long t = 0;
    char *end = NULL;
    if (sde && *sde) {
        t = strtoll(sde, &end, 10);
        if (*end || t < 0)
            t = 0;
    }
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, n, "1970-01-01T00:00:00Z");
}

void rep_out_begin(rep_out *out, rep_out_kind kind, double w, double h,
                   const char *title)
{
    out->kind = kind;
    util_buf_init(&out->buf);
    if (kind == REP_OUT_SVG) {
        out->surface = cairo_svg_surface_create_for_stream(write_mem,
                                                           &out->buf, w, h);
        cairo_svg_surface_restrict_to_version(out->surface,
                                              CAIRO_SVG_VERSION_1_1);
        return;
    }
    char date[64];
    rep_out_date(date, sizeof date);
    out->surface = cairo_pdf_surface_create_for_stream(write_mem, &out->buf,
                                                       w, h);
    cairo_pdf_surface_set_metadata(out->surface,
                                   CAIRO_PDF_METADATA_CREATE_DATE, date);
    cairo_pdf_surface_set_metadata(out->surface,
                                   CAIRO_PDF_METADATA_CREATOR,
                                   "gpudse " GPUDSE_VERSION);
    if (title)
        cairo_pdf_surface_set_metadata(out->surface,
                                       CAIRO_PDF_METADATA_TITLE, title);
}

void rep_out_abandon(rep_out *out)
{
    if (out->surface) {
        cairo_surface_finish(out->surface);
        cairo_surface_destroy(out->surface);
    }
    out->surface = NULL;
    util_buf_free(&out->buf);
}

int rep_out_finish(rep_out *out, const char *path, gd_err *err)
{
    cairo_surface_finish(out->surface);
    cairo_status_t st = cairo_surface_status(out->surface);
    cairo_surface_destroy(out->surface);
    out->surface = NULL;
    int rc = GD_OK;
    if (st != CAIRO_STATUS_SUCCESS || out->buf.len == 0)
        rc = gd_errf(err, GD_EENV, "%s: cannot render: %s", path,
                     cairo_status_to_string(st));
    if (!rc && out->kind == REP_OUT_SVG)
        rep_out_svg_canon(&out->buf);
    if (!rc)
        rc = util_write_file_atomic(path, out->buf.s, out->buf.len, err);
    util_buf_free(&out->buf);
    return rc;
}

/* ---- SVG id canonicalisation ------------------------------------------ */

typedef struct {
    const char *prefix;
    long old[256];
    int n;
} id_map;

/* Length of an id token "<prefix><digits>" at s, or 0. */
static size_t id_token(const char *s, const char *end, const char *prefix,
                       long *num)
{
    size_t pl = strlen(prefix);
    if ((size_t)(end - s) <= pl || memcmp(s, prefix, pl) != 0)
        return 0;
    const char *p = s + pl;
    if (!isdigit((unsigned char)*p))
        return 0;
    long v = 0;
    while (p < end && isdigit((unsigned char)*p))
        v = v * 10 + (*p++ - '0');
    if (p < end && (isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
        return 0;
    *num = v;
    return (size_t)(p - s);
}

static long id_lookup(id_map *m, long old)
{
    for (int i = 0; i < m->n; i++)
        if (m->old[i] == old)
            return i + 1;
    if (m->n < (int)(sizeof m->old / sizeof m->old[0])) {
        m->old[m->n++] = old;
        return m->n;
    }
    return old + 100000;   /* more ids than expected: keep them distinct */
}

void rep_out_svg_canon(util_buf *svg)
{
    id_map maps[2] = { { "surface", { 0 }, 0 }, { "image", { 0 }, 0 } };
    util_buf out;
    util_buf_init(&out);
    const char *s = svg->s, *end = svg->s + svg->len, *copied = s;
    for (const char *p = s; p < end; p++) {
        if (*p != '"' && *p != '#')
            continue;
        for (int m = 0; m < 2; m++) {
            long num;
            size_t len = id_token(p + 1, end, maps[m].prefix, &num);
            if (!len)
                continue;
            util_buf_add(&out, copied, (size_t)(p + 1 - copied));
            util_buf_printf(&out, "%s%ld", maps[m].prefix,
                            id_lookup(&maps[m], num));
            p += len;
            copied = p + 1;
            break;
        }
    }
    util_buf_add(&out, copied, (size_t)(end - copied));
    util_buf_free(svg);
    *svg = out;
}
