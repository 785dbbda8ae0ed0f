/* table: ruled tables for report.pdf — column widths from their content,
 * wrapped headers, zebra rows, page breaks that repeat caption and header. */
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_PT 7.5
#define T_HEAD_PT 7.0
#define T_CAP_PT 9.5
#define T_PADX 3.0
#define T_PADY 2.0

void rep_table_init(rep_table *t, const char *caption)
{
    memset(t, 0, sizeof *t);
    t->caption = caption;
}

void rep_table_col(rep_table *t, const char *head, int align)
{
    if (t->ncols >= REP_TABLE_MAXCOLS)
        return;
    util_strlcpy(t->head[t->ncols], head, sizeof t->head[0]);
    t->align[t->ncols++] = align;
}

char (*rep_table_row(rep_table *t, int emph))[REP_CELL]
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        void *c = realloc(t->cell, cap * (size_t)t->ncols * REP_CELL);
        unsigned char *e = c ? realloc(t->emph, cap) : NULL;
        if (c)
            t->cell = c;
        if (!e) {
            t->failed = 1;   /* the document says so when it ends */
            return NULL;
        }
        t->emph = e;
        t->cap = cap;
    }
    char (*row)[REP_CELL] = t->cell + t->nrows * (size_t)t->ncols;
    memset(row, 0, (size_t)t->ncols * REP_CELL);
    t->emph[t->nrows++] = (unsigned char)emph;
    return row;
}

void rep_table_free(rep_table *t)
{
    free(t->cell);
    free(t->emph);
    memset(t, 0, sizeof *t);
}

/* Widest single word of a header. */
static double head_need(chart_ctx *cc, const char *head)
{
    char word[64];
    double best = 0;
    for (const char *p = head; *p;) {
        size_t n = strcspn(p, " ");
        if (n >= sizeof word)
            n = sizeof word - 1;
        memcpy(word, p, n);
        word[n] = '\0';
        double w;
        chart_text_size(cc, word, T_HEAD_PT, CHART_BOLD, 0, &w, NULL);
        best = fmax(best, w);
        p += n;
        p += strspn(p, " ");
    }
    return best;
}

static void column_widths(rep_doc *d, const rep_table *t, double *cw)
{
    double sum = 0, avail = rep_doc_width(d);
    for (int c = 0; c < t->ncols; c++) {
        double need = head_need(&d->cc, t->head[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            double w;
            chart_text_size(&d->cc, t->cell[r * t->ncols + c], T_PT,
                            t->emph[r] ? CHART_BOLD : CHART_REGULAR, 0, &w,
                            NULL);
            need = fmax(need, w);
        }
        cw[c] = need + 2 * T_PADX + 1;
        sum += cw[c];
    }
    /* Spare width is shared equally; too little shrinks every column (its
     * text then wraps). */
    for (int c = 0; c < t->ncols && sum > 0; c++)
        cw[c] = sum < avail ? cw[c] + (avail - sum) / t->ncols
                            : cw[c] * avail / sum;
}

static double row_height(rep_doc *d, const rep_table *t, const double *cw,
                         size_t r)
{
    double h = 0;
    for (int c = 0; c < t->ncols; c++) {
        double ch;
        const char *s = r == (size_t)-1 ? t->head[c]
                                        : t->cell[r * t->ncols + c];
        chart_text_size(&d->cc, s, r == (size_t)-1 ? T_HEAD_PT : T_PT,
                        (r == (size_t)-1 || t->emph[r]) ? CHART_BOLD
                                                        : CHART_REGULAR,
                        cw[c] - 2 * T_PADX, NULL, &ch);
        h = fmax(h, ch);
    }
    return h + 2 * T_PADY;
}

/* One row (r == -1: the header) at the cursor. */
static void draw_row(rep_doc *d, const rep_table *t, const double *cw,
                     size_t r, double h)
{
    int head = r == (size_t)-1;
    double x = rep_doc_left(d), w = rep_doc_width(d);
    if (head || t->emph[r] || r % 2 == 1) {
        double g = head ? 0.88 : t->emph[r] ? 0.93 : 0.965;
        cairo_set_source_rgb(d->cr, g, g, g);
        cairo_rectangle(d->cr, x, d->y, w, h);
        cairo_fill(d->cr);
    }
    cairo_set_source_rgb(d->cr, 0, 0, 0);
    for (int c = 0; c < t->ncols; c++) {
        const char *s = head ? t->head[c] : t->cell[r * t->ncols + c];
        int al = head ? CHART_CENTER : t->align[c];
        double tx = al == CHART_LEFT ? x + T_PADX
                  : al == CHART_RIGHT ? x + cw[c] - T_PADX : x + cw[c] / 2;
        chart_text(&d->cc, s, head ? T_HEAD_PT : T_PT,
                   (head || t->emph[r]) ? CHART_BOLD : CHART_REGULAR,
                   cw[c] - 2 * T_PADX, tx, d->y + T_PADY, al, CHART_TOP,
                   NULL, NULL);
        x += cw[c];
    }
    if (head) {
        cairo_set_line_width(d->cr, 0.6);
        cairo_move_to(d->cr, rep_doc_left(d), d->y + h);
        cairo_line_to(d->cr, rep_doc_left(d) + w, d->y + h);
        cairo_stroke(d->cr);
    }
    d->y += h;
}

static void draw_top(rep_doc *d, const rep_table *t, const double *cw,
                     double hh, int cont)
{
    char cap[320];
    snprintf(cap, sizeof cap, "%s%s", t->caption ? t->caption : "",
             cont ? " (continued)" : "");
    rep_doc_text(d, cap, T_CAP_PT, CHART_BOLD);
    rep_doc_space(d, 3);
    draw_row(d, t, cw, (size_t)-1, hh);
}

void rep_table_draw(rep_doc *d, const rep_table *t)
{
    double cw[REP_TABLE_MAXCOLS], caph;
    d->failed |= t->failed;
    if (t->ncols == 0)
        return;
    column_widths(d, t, cw);
    double hh = row_height(d, t, cw, (size_t)-1);
    chart_text_size(&d->cc, "Ag", T_CAP_PT, CHART_BOLD, 0, NULL, &caph);
    double first = t->nrows ? row_height(d, t, cw, 0) : 0;
    size_t keep = t->nrows < 3 ? t->nrows : 3;
    rep_doc_need(d, caph + 3 + hh + first * (double)keep);
    draw_top(d, t, cw, hh, 0);
    for (size_t r = 0; r < t->nrows; r++) {
        double h = row_height(d, t, cw, r);
        if (h > rep_doc_room(d)) {
            rep_doc_new_page(d);
            draw_top(d, t, cw, hh, 1);
        }
        draw_row(d, t, cw, r, h);
    }
    cairo_set_line_width(d->cr, 0.6);
    cairo_move_to(d->cr, rep_doc_left(d), d->y);
    cairo_line_to(d->cr, rep_doc_left(d) + rep_doc_width(d), d->y);
    cairo_stroke(d->cr);
}
