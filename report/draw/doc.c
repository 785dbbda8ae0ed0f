/* doc: page flow for report.pdf — a cursor that moves down the page,
 * page breaks with numbered footers, paragraphs and key/value rows. */
#include "doc.h"

#include <stdio.h>
#include <string.h>

#define DOC_MARGIN 54.0
#define DOC_FOOT_PT 7.5
#define KV_KEYW 120.0
#define KV_PT 9.0

int rep_doc_begin(rep_doc *d, double pw, double ph, const char *title,
                  const char *footer, const char *path, gd_err *err)
{
    memset(d, 0, sizeof *d);
    d->pw = pw;
    d->ph = ph;
    d->margin = DOC_MARGIN;
    util_strlcpy(d->footer, footer, sizeof d->footer);
    rep_out_begin(&d->out, REP_OUT_PDF, pw, ph, title);
    d->cr = cairo_create(d->out.surface);
    int rc = chart_init(&d->cc, d->cr);
    if (rc != 0) {
        rep_doc_abandon(d);
        return gd_errf(err, GD_EENV, "%s: %s", path, chart_init_error(rc));
    }
    return GD_OK;
}

static void doc_footer(rep_doc *d)
{
    char txt[320];
    snprintf(txt, sizeof txt, "%s — page %d", d->footer, d->page);
    cairo_set_source_rgb(d->cr, 0.35, 0.35, 0.35);
    chart_text(&d->cc, txt, DOC_FOOT_PT, CHART_REGULAR, 0, d->pw / 2,
               d->ph - d->margin / 2, CHART_CENTER, CHART_MIDDLE, NULL,
               NULL);
    cairo_set_source_rgb(d->cr, 0, 0, 0);
}

void rep_doc_new_page(rep_doc *d)
{
    if (d->page > 0) {
        doc_footer(d);
        cairo_show_page(d->cr);
    }
    d->page++;
    d->y = d->margin;
    cairo_set_source_rgb(d->cr, 0, 0, 0);
}

int rep_doc_end(rep_doc *d, const char *path, gd_err *err)
{
    if (d->failed) {   /* a table lost rows: no report rather than that */
        rep_doc_abandon(d);
        return gd_errf(err, GD_EENV, "%s: out of memory", path);
    }
    if (d->page == 0)
        rep_doc_new_page(d);
    doc_footer(d);
    cairo_show_page(d->cr);
    chart_free(&d->cc);
    cairo_destroy(d->cr);
    d->cr = NULL;
    return rep_out_finish(&d->out, path, err);
}

void rep_doc_abandon(rep_doc *d)
{
    chart_free(&d->cc);
    if (d->cr)
        cairo_destroy(d->cr);
    d->cr = NULL;
    rep_out_abandon(&d->out);
}

double rep_doc_width(const rep_doc *d)
{
    return d->pw - 2 * d->margin;
}

double rep_doc_left(const rep_doc *d)
{
    return d->margin;
}

double rep_doc_room(const rep_doc *d)
{
    return d->ph - d->margin - d->y;
}

void rep_doc_need(rep_doc *d, double h)
{
    if (d->page == 0 || h > rep_doc_room(d))
        rep_doc_new_page(d);
}

void rep_doc_text(rep_doc *d, const char *txt, double pt, int style)
{
    double h;
    chart_text_size(&d->cc, txt, pt, style, rep_doc_width(d), NULL, &h);
    rep_doc_need(d, h);
    cairo_set_source_rgb(d->cr, 0, 0, 0);
    chart_text(&d->cc, txt, pt, style, rep_doc_width(d), d->margin, d->y,
               CHART_LEFT, CHART_TOP, NULL, NULL);
    d->y += h;
}

void rep_doc_space(rep_doc *d, double h)
{
    d->y += h;
}

void rep_doc_kv(rep_doc *d, const char *key, const char *val, int style)
{
    double kh, vh, vw = rep_doc_width(d) - KV_KEYW;
    chart_text_size(&d->cc, key, KV_PT, CHART_BOLD, KV_KEYW - 8, NULL, &kh);
    chart_text_size(&d->cc, val, KV_PT, style, vw, NULL, &vh);
    double h = (kh > vh ? kh : vh) + 3;
    rep_doc_need(d, h);
    cairo_set_source_rgb(d->cr, 0, 0, 0);
    chart_text(&d->cc, key, KV_PT, CHART_BOLD, KV_KEYW - 8, d->margin, d->y,
               CHART_LEFT, CHART_TOP, NULL, NULL);
    chart_text(&d->cc, val, KV_PT, style, vw, d->margin + KV_KEYW, d->y,
               CHART_LEFT, CHART_TOP, NULL, NULL);
    d->y += h;
}

void rep_doc_heading(rep_doc *d, const char *txt, int level)
{
    double h;
    double pt = level == 0 ? 14 : 11;
    chart_text_size(&d->cc, txt, pt, CHART_BOLD, rep_doc_width(d), NULL, &h);
    rep_doc_need(d, h + 60);   /* never alone at the foot of a page */
    if (d->ntoc < REP_TOC_MAX) {
        rep_toc_entry *e = &d->toc[d->ntoc++];
        util_strlcpy(e->title, txt, sizeof e->title);
        e->level = level;
        e->page = d->page;
    }
    rep_doc_text(d, txt, pt, CHART_BOLD);
    rep_doc_space(d, 4);
}
