/* csv: results.csv — one row per job (its latest journal record: key,
 * workload, backend, fidelity, status, reason, modelled_metrics (the
 * metrics of a measured record that a model supplied, space-separated),
 * the 8 knobs, its provenance — attempts, seed, proposal order, on the
 * Pareto front, is the baseline, occupancy limit, bottleneck — then every
 * metric seen in the run in sorted order) for pandas and R. Wall times go
 * to timing.csv instead: they differ from run to run, results.csv never
 * does. */
#include "csv.h"
#include "numtext.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

typedef struct {
    const char (*name)[MET_NAMELEN];
    size_t n;
} name_list;

/* A field, quoted when it holds a comma, quote or line break. */
static void csv_field(util_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        util_buf_puts(b, s);
        return;
    }
    util_buf_puts(b, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            util_buf_puts(b, "\"");
        util_buf_add(b, p, 1);
    }
    util_buf_puts(b, "\"");
}

/* Significant digits of a number's text (num_short's): from its first
 * nonzero digit to its last, exponent digits not counted. */
static int sig_digits(const char *t)
{
    int n = 0, first = -1, last = -1;
    for (; *t && *t != 'e'; t++)
        if (*t >= '0' && *t <= '9') {
            if (*t != '0') {
                if (first < 0)
                    first = n;
                last = n;
            }
            n++;
        }
    return first < 0 ? 1 : last - first + 1;
}

/* Shortest of %.15g / %.17g that reads back exactly; NaN, Inf, -Inf.
 * Written without printf: when the shortest round trip (num_short) has
 * at most 15 digits it is %.15g's text, laid out alike below 1e15; with
 * 16 or 17 it is %.17g's, which num_g17 writes byte for byte.
 * (Subnormals, with fewer digits of their own, go through printf.) */
void rep_csv_number(double v, char *out, size_t n)
{
    char s[NUM_TEXT_MAX];
    if (isnan(v)) {
        snprintf(out, n, "NaN");
    } else if (isinf(v)) {
        snprintf(out, n, "%s", v > 0 ? "Inf" : "-Inf");
    } else if (num_short(v, s) && sig_digits(s) > 15) {
        num_g17(v, s);
        util_strlcpy(out, s, n);
    } else if (fabs(v) < 1e15 && (v == 0 || fabs(v) >= DBL_MIN)) {
        util_strlcpy(out, s, n);
    } else {
        snprintf(out, n, "%.15g", v);
    }
}

static void csv_header(util_buf *b, const space_def *sp,
                       const name_list *ml)
{
    util_buf_puts(b, "key,workload,backend,fidelity,status,reason,"
                  "modelled_metrics");
    for (int k = 0; k < space_nknobs(sp); k++) {
        util_buf_puts(b, ",");
        csv_field(b, space_knob_name(sp, k));
    }
    util_buf_puts(b, ",attempts,seed,order,on_front,is_baseline,limit,"
                  "bottleneck");
    for (size_t i = 0; i < ml->n; i++) {
        util_buf_puts(b, ",");
        csv_field(b, ml->name[i]);
    }
    util_buf_puts(b, "\n");
}

/* What a row needs beyond its record, kept from row to row: the front's
 * keys of the current workload, sorted (a record is on the front when
 * its key is among them), and where each metric column lies in records
 * whose metrics come in the same order as the previous one's. */
typedef struct {
    const rep_run *run;
    const char *seed;
    const name_list *ml;
    char wl_name[64];         /* workload the keys are of */
    const rep_wl *wl;         /* NULL: the workload is not in analysis */
    const char **keys;        /* its front's keys, sorted */
    size_t nkeys;
    met_set layout;           /* metric names of the previous record */
    int *col;                 /* ml column -> index in such a record, -1 */
} row_ctx;

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int ctx_workload(row_ctx *x, const char *name)
{
    if (x->wl_name[0] && strcmp(x->wl_name, name) == 0)
        return 0;
    util_strlcpy(x->wl_name, name, sizeof x->wl_name);
    int w = rep_wl_find(x->run, name);
    x->wl = w >= 0 ? &x->run->wl[w] : NULL;
    x->nkeys = 0;
    if (!x->wl)
        return 0;
    const char **k = realloc(x->keys, (x->wl->nfront + 1) * sizeof *k);
    if (!k)
        return -1;
    x->keys = k;
    for (size_t i = 0; i < x->wl->nfront; i++)
        k[x->nkeys++] = x->wl->front[i].key;
    qsort(k, x->nkeys, sizeof *k, key_cmp);
    return 0;
}

/* Whether record r is on its workload's Pareto front / is its baseline
 * (analysis.json's points, by key). */
static void front_and_baseline(const row_ctx *x, const store_record *r,
                               int *front, int *base)
{
    *front = *base = 0;
    if (!x->wl || r->status != ST_OK)
        return;
    const char *key = r->key;
    *base = x->wl->has_baseline && !strcmp(x->wl->baseline.key, r->key);
    *front = x->nkeys && bsearch(&key, x->keys, x->nkeys, sizeof *x->keys,
                                 key_cmp) != NULL;
}

/* Map the metric columns to r's metrics, unless r's names are those of
 * the record before (then the map holds). */
static void ctx_columns(row_ctx *x, const met_set *m)
{
    int same = m->n == x->layout.n;
    for (int i = 0; same && i < m->n; i++)
        same = strcmp(m->name[i], x->layout.name[i]) == 0;
    if (same)
        return;
    x->layout.n = m->n;
    for (int i = 0; i < m->n; i++)
        memcpy(x->layout.name[i], m->name[i], MET_NAMELEN);
    for (size_t j = 0; j < x->ml->n; j++) {
        x->col[j] = -1;
        for (int i = 0; i < m->n && x->col[j] < 0; i++)
            if (strcmp(m->name[i], x->ml->name[j]) == 0)
                x->col[j] = i;
    }
}

static void csv_provenance(util_buf *b, const row_ctx *x,
                           const store_record *r)
{
    int front, base;
    char num[NUM_TEXT_MAX];
    front_and_baseline(x, r, &front, &base);
    /* num_int, not printf: this runs for every row of the file */
    util_buf_puts(b, ",");
    util_buf_add(b, num, num_int(r->attempts > 0 ? r->attempts : 1, num));
    util_buf_puts(b, ",");
    util_buf_puts(b, x->seed);
    util_buf_puts(b, ",");
    if (r->order > 0 && r->order <= INT_MAX)
        util_buf_add(b, num, num_int((int)r->order, num));
    else if (r->order > 0)
        util_buf_printf(b, "%ld", r->order);
    util_buf_puts(b, front ? ",1," : ",0,");
    util_buf_puts(b, base ? "1," : "0,");
    csv_field(b, r->limit);
    util_buf_puts(b, ",");
    csv_field(b, r->bottleneck);
}

/* The campaign's seed as text ("" when the run says none). */
static void run_seed(const rep_run *run, char *out, size_t n)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(run->manifest, "seed");
    out[0] = '\0';
    if (run->have_camp)
        snprintf(out, n, "%llu", (unsigned long long)run->camp.seed);
    else if (cJSON_IsNumber(s))
        snprintf(out, n, "%.0f", s->valuedouble);
}

static int csv_row(util_buf *b, row_ctx *x, const store_record *r)
{
    const char *txt[7] = { r->key, r->workload, r->backend, r->fidelity,
                           store_status_name(r->status), r->reason,
                           r->modelled };
    char buf[64];
    if (ctx_workload(x, r->workload) != 0)
        return -1;
    ctx_columns(x, &r->metrics);
    for (int i = 0; i < 7; i++) {
        if (i)
            util_buf_puts(b, ",");
        csv_field(b, txt[i] ? txt[i] : "");
    }
    const space_def *sp = rep_run_space(x->run);
    for (int k = 0; k < space_nknobs(sp); k++) {
        util_buf_puts(b, ",");
        csv_field(b, space_level_str(sp, k, space_get(&r->cfg, k), buf,
                                     sizeof buf));
    }
    csv_provenance(b, x, r);
    for (size_t i = 0; i < x->ml->n; i++) {
        util_buf_puts(b, ",");
        if (x->col[i] >= 0) {
            rep_csv_number(r->metrics.val[x->col[i]], buf, sizeof buf);
            util_buf_puts(b, buf);
        }
    }
    util_buf_puts(b, "\n");
    return 0;
}

/* The file being written: PATH.tmp.<pid>, renamed over PATH at the end
 * (fsync'd first), so a reader sees the old file or the new one. */
typedef struct {
    char path[4096], tmp[4160];
    FILE *f;
    util_buf b;
    row_ctx x;
} csv_out;

static int out_flush(csv_out *o, gd_err *err)
{
    if (o->b.len && fwrite(o->b.s, 1, o->b.len, o->f) != o->b.len)
        return gd_errf(err, GD_EENV, "%s: write failed: %s", o->tmp,
                       strerror(errno));
    o->b.len = 0;
    return GD_OK;
}

/* One workload's rows (rep_run_each), records in canonical order. */
static int csv_rows(rep_run *run, void *arg)
{
    csv_out *o = arg;
    for (size_t i = 0; i < run->nrecs; i++)
        if (csv_row(&o->b, &o->x, &run->recs[i]) != 0)
            return -1;
    gd_err e = { 0 };
    return out_flush(o, &e) ? -1 : 0;
}

static int out_finish(csv_out *o, int rc, gd_err *err)
{
    if (!rc)
        rc = out_flush(o, err);
    if (!rc && (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0))
        rc = gd_errf(err, GD_EENV, "%s: write failed: %s", o->tmp,
                     strerror(errno));
    if (fclose(o->f) != 0 && !rc)
        rc = gd_errf(err, GD_EENV, "%s: write failed: %s", o->tmp,
                     strerror(errno));
    if (!rc && rename(o->tmp, o->path) != 0)
        rc = gd_errf(err, GD_EENV, "%s: cannot rename into place: %s",
                     o->path, strerror(errno));
    if (rc)
        unlink(o->tmp);
    return rc;
}

/* Rows are written workload by workload as rep_run_each loads them, so
 * the file never sits whole in memory. */
int rep_csv_write(rep_run *run, gd_err *err)
{
    csv_out o;
    name_list ml = { (const char (*)[MET_NAMELEN])run->metric,
                     run->nmetric };
    memset(&o, 0, sizeof o);
    int rc = rep_run_path(run, "results.csv", o.path, sizeof o.path, err);
    if (rc)
        return rc;
    snprintf(o.tmp, sizeof o.tmp, "%s.tmp.%ld", o.path, (long)getpid());
    char seed[32];
    run_seed(run, seed, sizeof seed);
    o.x = (row_ctx){ .run = run, .seed = seed, .ml = &ml };
    o.x.layout.n = -1;  /* no record yet */
    o.x.col = malloc((ml.n + 1) * sizeof *o.x.col);
    if (!o.x.col)
        return gd_errf(err, GD_EENV, "%s: out of memory", o.path);
    if (!(o.f = fopen(o.tmp, "wb"))) {
        free(o.x.col);
        return gd_errf(err, GD_EENV, "%s: cannot create: %s", o.tmp,
                       strerror(errno));
    }
    util_buf_init(&o.b);
    csv_header(&o.b, rep_run_space(run), &ml);
    rc = rep_run_each(run, csv_rows, &o, err);
    if (rc < 0)
        rc = gd_errf(err, GD_EENV, "%s: out of memory or write failed",
                     o.tmp);
    rc = out_finish(&o, rc, err);
    util_buf_free(&o.b);
    free(o.x.col);
    free(o.x.keys);
    return rc;
}
