/* compare_cmd: the `gpudse compare` command line — its option table, the
 * --threshold METRIC=PCT[,ABS] flags and the metric names a threshold may
 * name (also those of a campaign's <regression>) — over cmp_run
 * (compare.c). */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "parseopt.h"

static const char *const extra_metrics[] = {CMP_HYPERVOLUME, CMP_CALIB_MAPE,
                                            "*"};

int cmp_threshold_metric_known(const char *name)
{
    if (!name || !*name)
        return 0;
    for (size_t i = 0; i < sizeof extra_metrics / sizeof *extra_metrics; i++)
        if (strcmp(name, extra_metrics[i]) == 0)
            return 1;
    return met_is_known(name);
}

const char *cmp_threshold_metric_suggest(const char *name)
{
    const char *best = NULL;
    int bestd = 1 << 30, nk = met_known_count();
    if (!name)
        return NULL;
    for (int i = 0; i < nk + 2; i++) {
        const char *c = i < nk ? met_known_name(i) : extra_metrics[i - nk];
        int d = util_edit_distance(name, c);
        if (d < bestd) {
            bestd = d;
            best = c;
        }
    }
    return bestd <= (int)strlen(name) / 3 + 1 ? best : NULL;
}

static int parse_amount(const char *s, int pct, double *out)
{
    char buf[64];
    util_strlcpy(buf, s, sizeof buf);
    size_t len = strlen(buf);
    if (pct && len && buf[len - 1] == '%')
        buf[len - 1] = '\0';
    return util_parse_double(buf, out) != 0 || *out < 0 ? -1 : 0;
}

int cmp_parse_threshold(const char *text, camp_threshold *t, gd_err *err)
{
    char buf[128];
    memset(t, 0, sizeof *t);
    util_strlcpy(buf, text, sizeof buf);
    char *eq = strchr(buf, '='), *comma = eq ? strchr(eq, ',') : NULL;
    if (!eq || eq == buf || !eq[1])
        return gd_errf(err, GD_EINPUT, "--threshold \"%s\": expected "
                       "METRIC=PCT or METRIC=PCT,ABS (e.g. ipc=2 or "
                       "ipc=2,0.5)", text);
    *eq = '\0';
    if (comma)
        *comma = '\0';
    if (!cmp_threshold_metric_known(buf)) {
        const char *near = cmp_threshold_metric_suggest(buf);
        return gd_errf(err, GD_EINPUT, "--threshold \"%s\": unknown metric "
                       "\"%s\"%s%s%s", text, buf, near ? "; did you mean \""
                       : "", near ? near : "", near ? "\"?" : "");
    }
    util_strlcpy(t->metric, buf, sizeof t->metric);
    if (parse_amount(eq + 1, 1, &t->relative_pct))
        return gd_errf(err, GD_EINPUT, "--threshold \"%s\": \"%s\" is not a "
                       "percentage >= 0", text, eq + 1);
    if (comma && parse_amount(comma + 1, 0, &t->absolute))
        return gd_errf(err, GD_EINPUT, "--threshold \"%s\": \"%s\" is not an "
                       "absolute change >= 0", text, comma + 1);
    return GD_OK;
}

/* --threshold METRIC=PCT[,ABS], as often as wanted: one more flag. */
static int add_threshold(void *value, const char *arg, gd_err *err)
{
    cmp_opts *o = value;
    if (o->nflags >= CMP_MAXFLAGS)
        return gd_errf(err, GD_EINPUT, "at most %d --threshold flags",
                       CMP_MAXFLAGS);
    int rc = cmp_parse_threshold(arg, &o->flags[o->nflags], err);
    if (rc == GD_OK)
        o->nflags++;
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    cmp_opts *o = calloc(1, sizeof *o);
    if (!o) {
        fprintf(stderr, "gpudse compare: out of memory\n");
        return GD_EENV;
    }
    const po_option opts[] = {
        PO_STRING("--junit", "FILE", &o->junit_path,
                  "also write the checks as JUnit XML to FILE"),
        PO_CALLBACK("--threshold", "METRIC=PCT[,ABS]", o, add_threshold,
                    "a change of METRIC (* for every metric) beyond\n"
                    "PCT % of BASE's value and ABS in its unit\n"
                    "(default 1 % and 0, or NEW's <regression>);\n"
                    "may be given more than once"),
        PO_FLAG("--fail-on-improvement", &o->fail_on_improvement,
                "an improvement beyond its threshold fails too"),
        PO_FLAG("--accept", &o->accept,
                "accept NEW deliberately: every change is\n"
                "reported and recorded (compare.json \"accepted\")\n"
                "and the exit code is 0"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "compare",
        "usage: gpudse compare BASE_DIR NEW_DIR [--junit FILE] "
        "[--threshold METRIC=PCT[,ABS] ...]\n"
        "                      [--fail-on-improvement] [--accept]\n",
        "Compare NEW_DIR's jobs with BASE_DIR's; writes NEW_DIR/compare.json.\n"
        "Which way is better comes from <regression><threshold direction=...>\n"
        "in NEW's campaign, else from its objectives (maximize: higher);\n"
        "an improvement beyond its threshold is reported and counted.\n",
        opts,
        "exit codes: 0 no regression (or --accept); 1 regression; 2 bad input\n"
        "or usage\n"};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n >= 0 && n != 2)
        rc = n < 2 ? po_usage_error(&cmd, "needs two run directories, "
                                    "BASE_DIR and NEW_DIR")
                   : po_usage_error(&cmd, "extra argument \"%s\"", argv[2]);
    util_buf out;
    util_buf_init(&out);
    if (n == 2) {
        o->base_dir = argv[0];
        o->new_dir = argv[1];
        gd_err err = {0, ""};
        rc = cmp_run(o, &out, &err);
        if (out.s)
            fputs(out.s, stdout);
        if (rc != GD_OK && rc != GD_EJOBS)
            fprintf(stderr, "gpudse compare: %s\n", err.msg);
    }
    util_buf_free(&out);
    free(o);
    return rc;
}
