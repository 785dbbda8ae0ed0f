/* simcmd: the `gpudse sim` command — parse a config or a CSV of configs,
 * evaluate the embedded model, print JSON or CSV (labelled modelled). */
#include "simcmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "model.h"
#include "parseopt.h"
#include "workload.h"

/* Metric columns, in output order (names of DESIGN.md). */
static const char *const metric_names[] = {
    "ipc", "cycles", "instructions", "occupancy", "l1d_miss_rate",
    "l2_miss_rate", "dram_stall_cycles", "l2_bw_gbps", "dram_bw_gbps",
    "power_w", "area_mm2", "energy_j", "time_s",
};
#define N_METRICS (sizeof metric_names / sizeof metric_names[0])

static double metric_of(const model_out *o, size_t i)
{
    const double v[N_METRICS] = {
        o->ipc, o->cycles, o->instructions, o->occupancy, o->l1d_miss_rate,
        o->l2_miss_rate, o->dram_stall_cycles, o->l2_bw_gbps,
        o->dram_bw_gbps, o->power_w, o->area_mm2, o->energy_j, o->time_s,
    };
    return v[i];
}

static int allowed_values(int k, char *buf, size_t n)
{
    const space_knob_def *d = space_knob_get(k);
    buf[0] = '\0';
    for (int i = 0; i < d->nlevels; i++) {
        char v[32];
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s", i ? " " : "",
                 space_value_str(k, d->levels[i], v, sizeof v));
    }
    return 0;
}

/* One KNOB=VALUE of --config into the gpu_config arg. */
static int config_item(char *knob, char *value, void *arg, gd_err *err)
{
    if (!value)
        return gd_errf(err, GD_EINPUT, "--config: '%s' is not KNOB=VALUE",
                       knob);
    int k = space_knob_find(knob);
    if (k < 0) {
        const char *s = space_knob_suggest(knob);
        return gd_errf(err, GD_EINPUT, "--config: unknown knob \"%s\"%s%s%s",
                       knob, s ? "; did you mean \"" : "", s ? s : "",
                       s ? "\"?" : "");
    }
    int v;
    if (space_value_parse(k, value, &v) != 0) {
        char vals[256];
        allowed_values(k, vals, sizeof vals);
        return gd_errf(err, GD_EINPUT, "--config: %s=%s is not allowed "
                       "(values: %s)", knob, value, vals);
    }
    space_set(arg, k, v);
    return GD_OK;
}

int sim_parse_config(const char *text, gpu_config *c, gd_err *err)
{
    *c = space_baseline();
    return util_kv_each(text, ",", config_item, c, err);
}

static void print_json(const wl_workload *w, const gpu_config *c,
                       const model_out *o)
{
    printf("{\"workload\": \"%s\", \"model\": \"%s\", \"fidelity\": "
           "\"modelled\", \"config\": {", w->name, model_version());
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        char v[32];
        int val = space_get(c, k);
        if (k == KNOB_SCHEDULER)
            printf("%s\"%s\": \"%s\"", k ? ", " : "", space_knob_get(k)->name,
                   space_value_str(k, val, v, sizeof v));
        else
            printf("%s\"%s\": %d", k ? ", " : "", space_knob_get(k)->name,
                   val);
    }
    printf("}");
    for (size_t i = 0; i < N_METRICS; i++)
        printf(", \"%s\": %.9g", metric_names[i], metric_of(o, i));
    model_pi pi;
    model_interval(w, c, o->ipc, &pi);
    printf(", \"ctas_per_sm\": %d, \"occupancy_limit\": \"%s\", "
           "\"bottleneck\": \"%s\", \"ipc_lo\": %.9g, \"ipc_hi\": %.9g, "
           "\"extrapolated\": %s}\n", o->ctas_per_sm,
           model_limit_name(o->limit), model_bottleneck_name(o->bottleneck),
           pi.lo, pi.hi, pi.extrapolated ? "true" : "false");
}

static void print_csv_header(void)
{
    printf("line");
    for (int k = 0; k < SPACE_NKNOBS; k++)
        printf(",%s", space_knob_get(k)->name);
    printf(",fidelity,status");
    for (size_t i = 0; i < N_METRICS; i++)
        printf(",%s", metric_names[i]);
    printf(",ctas_per_sm,occupancy_limit,bottleneck,ipc_lo,ipc_hi,"
           "extrapolated\n");
}

static void print_csv_row(const wl_workload *w, const cal_row *r, int ok,
                          const model_out *o)
{
    printf("%d", r->line);
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        char v[32];
        printf(",%s", space_value_str(k, space_get(&r->c, k), v, sizeof v));
    }
    printf(",modelled,%s", ok ? "ok" : "does_not_fit");
    for (size_t i = 0; i < N_METRICS; i++) {
        if (ok)
            printf(",%.9g", metric_of(o, i));
        else
            printf(",");
    }
    if (ok) {
        model_pi pi;
        model_interval(w, &r->c, o->ipc, &pi);
        printf(",%d,%s,%s,%.9g,%.9g,%d\n", o->ctas_per_sm,
               model_limit_name(o->limit),
               model_bottleneck_name(o->bottleneck), pi.lo, pi.hi,
               pi.extrapolated);
    } else {
        printf(",,,,,,\n");
    }
}

static int run_configs(const wl_workload *w, const char *csv, gd_err *err)
{
    cal_row *rows = NULL;
    size_t n = 0;
    int rc = cal_read_csv(csv, NULL, 0, &rows, &n, err);
    if (rc)
        return rc;
    print_csv_header();
    for (size_t i = 0; i < n; i++) {
        model_out o;
        int ok = model_eval(w, &rows[i].c, &o, NULL) == 0;
        print_csv_row(w, &rows[i], ok, &o);
    }
    free(rows);
    return GD_OK;
}

/* sim: workload wl at config (k=v,...; NULL: the baseline), or at each
 * row of the CSV configs. */
static int run_sim(const char *wl, const char *config, const char *configs,
                   gd_err *err)
{
    wl_workload *w = malloc(sizeof *w);
    if (!w)
        return gd_errf(err, GD_EENV, "out of memory");
    int rc = wl_load_named(wl, w, err);
    if (rc == GD_OK && configs) {
        rc = run_configs(w, configs, err);
    } else if (rc == GD_OK) {
        gpu_config c;
        model_out o;
        rc = sim_parse_config(config ? config : "", &c, err);
        if (rc == GD_OK && model_eval(w, &c, &o, err) != 0)
            rc = err ? err->code : GD_EINPUT;
        if (rc == GD_OK)
            print_json(w, &c, &o);
    }
    free(w);
    return rc;
}

int cmd_sim(int argc, char **argv)
{
    const char *wl = NULL, *config = NULL, *configs = NULL;
    const po_option opts[] = {
        PO_STRING("-w", "W.xml", &wl,
                  "descriptor file or built-in workload name"),
        PO_STRING("--config", "k=v,...", &config,
                  "one point, from the baseline: JSON on stdout"),
        PO_STRING("--configs", "FILE", &configs,
                  "a CSV with knob columns: a CSV row per config"),
        PO_END_OPTS,
    };
    const po_command cmd = {
        "sim",
        "usage: gpudse sim -w W.xml [--config k=v,... | --configs CONFIGS.csv]\n",
        "Predict with the embedded model (outputs are modelled, never measured).\n",
        opts,
        "Each prediction carries ipc_lo..ipc_hi, a 95% interval from the\n"
        "descriptor's calibration residuals (uncalibrated: the model's own\n"
        "error), widened outside the region its calibration rows covered (SM\n"
        "count, channels, L1/L2 sets), and extrapolated: true there\n"
        "(docs/model.md, \"Uncertainty\").\n"};
    int rc, n = po_parse(&cmd, argc, argv, &rc);
    if (n < 0)
        return rc;
    if (n > 0)
        return po_usage_error(&cmd, "unexpected argument \"%s\"", argv[0]);
    if (!wl)
        return po_usage_error(&cmd, "sim needs -w W.xml");
    if (config && configs)
        return po_usage_error(&cmd, "--config and --configs exclude each "
                              "other");
    gd_err err = {0, ""};
    rc = run_sim(wl, config, configs, &err);
    if (rc)
        fprintf(stderr, "gpudse: %s\n", err.msg);
    return rc;
}
