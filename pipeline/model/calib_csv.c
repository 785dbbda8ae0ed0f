/* calib_csv: reads the reference and configs CSVs (knob columns, optional
 * kernel, design and ipc) that gpudse calibrate, gpudse sim --configs and
 * <verify configs=> share. Split out of calibrate.c (issue 25). */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAL_MAXCOLS 64

/* ------------------------------------------------------------ CSV reading */

/* Split line in place at commas (double quotes group a field); returns the
 * number of fields. */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        while (*p == ' ')
            p++;
        if (*p == '"') {
            f[n++] = ++p;
            while (*p && *p != '"')
                p++;
            if (*p)
                *p++ = '\0';
            while (*p && *p != ',')
                p++;
        } else {
            f[n++] = p;
            while (*p && *p != ',' && *p != '\r' && *p != '\n')
                p++;
        }
        if (*p != ',') {
            *p = '\0';
            break;
        }
        *p++ = '\0';
    }
    return n;
}

typedef struct {
    int knob[SPACE_NKNOBS];    /* column of each knob or -1 */
    int kernel, design, ipc;   /* columns or -1 */
    int ncols;
} csv_cols;

static int read_header(const char *path, char *line, csv_cols *cols,
                       gd_err *err)
{
    char *f[CAL_MAXCOLS];
    int n = split_fields(line, f, CAL_MAXCOLS);
    memset(cols, -1, sizeof *cols);
    cols->ncols = n;
    int nknobs = 0;
    for (int i = 0; i < n; i++) {
        int k = space_knob_find(f[i]);
        if (k >= 0) {
            if (cols->knob[k] >= 0)
                return gd_errf(err, GD_EINPUT, "%s:1: column '%s' appears "
                               "twice", path, f[i]);
            cols->knob[k] = i;
            nknobs++;
        } else if (!strcmp(f[i], "kernel")) {
            cols->kernel = i;
        } else if (!strcmp(f[i], "design")) {
            cols->design = i;
        } else if (!strcmp(f[i], "ipc")) {
            cols->ipc = i;
        }
    }
    if (nknobs == 0)
        return gd_errf(err, GD_EINPUT, "%s:1: the header names no knob "
                       "column (expected some of n_clusters, "
                       "cores_per_cluster, n_mem, shmem_size, scheduler, "
                       "num_sched_per_core, l1_sets, l2_sets)", path);
    return GD_OK;
}

static int parse_row(const char *path, int line, char *text,
                     const csv_cols *cols, cal_row *r, gd_err *err)
{
    char *f[CAL_MAXCOLS];
    int n = split_fields(text, f, CAL_MAXCOLS);
    if (n != cols->ncols)
        return gd_errf(err, GD_EINPUT, "%s:%d: %d fields, the header has %d",
                       path, line, n, cols->ncols);
    memset(r, 0, sizeof *r);
    r->line = line;
    r->c = space_baseline();
    r->ipc = NAN;
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        if (cols->knob[k] < 0)
            continue;
        int v;
        if (space_value_parse(k, f[cols->knob[k]], &v) != 0)
            return gd_errf(err, GD_EINPUT, "%s:%d: %s=\"%s\" is not one of "
                           "the knob's values", path, line,
                           space_knob_get(k)->name, f[cols->knob[k]]);
        space_set(&r->c, k, v);
    }
    if (cols->kernel >= 0)
        util_strlcpy(r->kernel, f[cols->kernel], sizeof r->kernel);
    if (cols->design >= 0)
        util_strlcpy(r->design, f[cols->design], sizeof r->design);
    if (cols->ipc >= 0 && *f[cols->ipc]
        && util_parse_double(f[cols->ipc], &r->ipc) != 0)
        return gd_errf(err, GD_EINPUT, "%s:%d: ipc \"%s\" is not a number",
                       path, line, f[cols->ipc]);
    return GD_OK;
}

int cal_read_csv(const char *path, const char *kernel, int need_ipc,
                 cal_row **rows, size_t *n, gd_err *err)
{
    *rows = NULL;
    *n = 0;
    char *buf = NULL;
    size_t len = 0;
    if (util_read_file(path, &buf, &len, err)) {
        if (err)
            err->code = GD_EINPUT;
        return GD_EINPUT;
    }
    size_t cap = 16, cnt = 0;
    cal_row *out = malloc(cap * sizeof *out);
    csv_cols cols;
    int rc = out ? GD_OK : gd_errf(err, GD_EENV, "out of memory");
    int line = 0;
    char *save = NULL;
    for (char *l = strtok_r(buf, "\n", &save); l && rc == GD_OK;
         l = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t ll = strlen(l);
        if (ll && l[ll - 1] == '\r')
            l[--ll] = '\0';
        if (line == 1) {
            if ((rc = read_header(path, l, &cols, err)) == GD_OK && need_ipc
                && cols.ipc < 0)
                rc = gd_errf(err, GD_EINPUT, "%s:1: no 'ipc' column",
                             path);
            continue;
        }
        if (ll == 0)
            continue;
        cal_row r;
        if ((rc = parse_row(path, line, l, &cols, &r, err)))
            break;
        if (kernel && strcmp(r.kernel, kernel) != 0)
            continue;
        if (need_ipc && !(r.ipc > 0))
            rc = gd_errf(err, GD_EINPUT, "%s:%d: ipc must be a positive "
                         "number", path, line);
        if (rc == GD_OK && cnt == cap) {
            cal_row *g = realloc(out, 2 * cap * sizeof *out);
            if (!g)
                rc = gd_errf(err, GD_EENV, "out of memory");
            else {
                out = g;
                cap *= 2;
            }
        }
        if (rc == GD_OK)
            out[cnt++] = r;
    }
    if (rc == GD_OK && line == 0)
        rc = gd_errf(err, GD_EINPUT, "%s:1: empty file", path);
    free(buf);
    if (rc) {
        free(out);
        return rc;
    }
    *rows = out;
    *n = cnt;
    return GD_OK;
}
