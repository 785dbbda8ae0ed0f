/* be_gpgpusim: glue between the engine and pipeline/gpgpusim.c (config
 * rewriting, statistics, classification): prepare writes the configs and the
 * command, finish turns stdout, stderr and the power report into a record. */
#include "be_gpgpusim.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "gpgpusim.h"

#define TAIL_BYTES 65536

static const char *gpgpusim_version(void)
{
    return "gpgpusim-1";
}

static int gpgpusim_has_metric(const char *name)
{
    /* GPGPU-Sim's DRAM counters are request counts of no fixed size */
    return met_is_known(name) && strcmp(name, "dram_bw_gbps") != 0;
}

static int has_cudart(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d)))
        found = strncmp(e->d_name, "libcudart.so", 12) == 0;
    closedir(d);
    return found;
}

void be_gpgpusim_libdirs(const char *root, char *out, size_t n)
{
    /* GPGPU-Sim builds into lib/<gcc>/<cuda>/<release|debug>/ */
    out[0] = '\0';
    char base[PATH_MAX];
    util_path_join(base, sizeof base, root, "lib");
    char stack[64][PATH_MAX];
    int top = 0;
    util_strlcpy(stack[top++], base, PATH_MAX);
    while (top > 0) {
        char dir[PATH_MAX];
        util_strlcpy(dir, stack[--top], sizeof dir);
        if (has_cudart(dir) && strlen(out) + strlen(dir) + 2 < n) {
            if (out[0])
                strcat(out, ":");
            strcat(out, dir);
        }
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) && top < 64) {
            if (e->d_name[0] == '.')
                continue;
            char sub[PATH_MAX];
            if (util_path_join(sub, sizeof sub, dir, e->d_name) == GD_OK
                && util_is_dir(sub) && strlen(sub) - strlen(base) < 200)
                util_strlcpy(stack[top++], sub, PATH_MAX);
        }
        closedir(d);
    }
}

static int template_dir(const camp_campaign *c, char *out, size_t n,
                        gd_err *err)
{
    if (c->sim_config[0]) {
        util_strlcpy(out, c->sim_config, n);
        return GD_OK;
    }
    char data[PATH_MAX];
    int rc = util_datadir(data, sizeof data, err);
    if (!rc)
        util_path_join(out, n, data, "gpgpusim");
    return rc;
}

static int gpgpusim_prepare(const be_job *job, be_exec *x, gd_err *err)
{
    const camp_campaign *c = job->camp;
    char tdir[PATH_MAX];
    int rc = template_dir(c, tdir, sizeof tdir, err);
    if (rc)
        return rc;
    int power = 0;
    rc = be_make_job_dir(job->job_dir, err);
    if (rc)
        return rc;
    rc = gsim_write_configs(tdir, &job->cfg, job->job_dir, &power, err);
    if (rc)
        return rc;  /* GD_EINPUT: this config cannot run: invalid-config */
    const camp_wlrun *w = &c->wlrun[job->wl_index];
    rc = be_expand(w->command, job, 1, &x->command, err);
    if (rc)
        return gd_errf(err, GD_EENV, "%s: workload %s: %s", c->path,
                       job->workload->name, err->msg);
    char libs[4096], ld[8192];
    be_gpgpusim_libdirs(c->sim_root, libs, sizeof libs);
    const char *old = getenv("LD_LIBRARY_PATH");
    snprintf(ld, sizeof ld, "%s%s%s", libs, old && *old && *libs ? ":" : "",
             old ? old : "");
    if (be_exec_setenv(x, "LD_LIBRARY_PATH", ld)
        || be_exec_setenv(x, "GPGPUSIM_ROOT", c->sim_root))
        return gd_errf(err, GD_EENV, "too many environment variables");
    for (int i = 0; i < w->nenv; i++)
        if (be_exec_setenv(x, w->env[i].name, w->env[i].value))
            return gd_errf(err, GD_EENV, "too many environment variables");
    return GD_OK;
}

/* gpu_tot_avg_power of the job's GPUWattch report, or NAN. */
static double read_power(const char *job_dir)
{
    DIR *d = opendir(job_dir);
    if (!d)
        return NAN;
    struct dirent *e;
    double w = NAN;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "gpgpusim_power_report__", 23) != 0)
            continue;
        char path[PATH_MAX], *text;
        size_t len;
        util_path_join(path, sizeof path, job_dir, e->d_name);
        if (util_read_file(path, &text, &len, NULL) != GD_OK)
            continue;
        gsim_power p;
        if (gsim_parse_power(text, len, &p, NULL) == GD_OK)
            w = p.tot_avg_w;
        gsim_power_free(&p);
        free(text);
    }
    closedir(d);
    return w;
}

static int gpgpusim_finish(const be_job *job, const exec_result *res,
                           store_record *out, gd_err *err)
{
    char path[PATH_MAX], *all = NULL;
    size_t len = 0;
    util_path_join(path, sizeof path, job->job_dir, "stdout.log");
    if (util_read_file(path, &all, &len, NULL) != GD_OK) {
        all = NULL;
        len = 0;
    }
    char *etail = be_read_tail(job->job_dir, "stderr.log", TAIL_BYTES);
    if (!etail) {
        free(all);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    out->status = gsim_classify(all, etail, res->exited, res->exit_code,
                                res->signaled, res->signo, res->timed_out,
                                out->reason, sizeof out->reason);
    if (out->status == ST_OK) {
        gsim_stats st;
        gd_err why = {0, ""};
        if (gsim_parse_stats(all ? all : "", len, &st, &why) != GD_OK) {
            out->status = ST_BAD_OUTPUT;
            util_strlcpy(out->reason, why.msg, sizeof out->reason);
        } else {
            gsim_stats_to_metrics(&st, read_power(job->job_dir),
                                  &out->metrics);
            be_attach_config_metrics(job, out);
        }
        gsim_stats_free(&st);
    }
    free(all);
    free(etail);
    return GD_OK;
}

static int gpgpusim_check(const void *camp, gd_err *err)
{
    const camp_campaign *c = camp;
    char tdir[PATH_MAX];
    int rc = template_dir(c, tdir, sizeof tdir, err);
    if (!rc)
        rc = gsim_check_templates(tdir, err);
    if (!rc && !util_is_dir(c->sim_root))
        rc = gd_errf(err, GD_EINPUT, "%s: simulator root %s is not a folder; "
                     "set root=\"...\" or GPGPUSIM_ROOT", c->path, c->sim_root);
    return rc;
}

/* power_w and energy_j come from GPUWattch: only with
 * -power_simulation_enabled 1 in the templates' gpgpusim.config. A config
 * that cannot be read is the check's to report. */
static int gpgpusim_produces(const void *camp, const char *metric, char *why,
                             size_t n)
{
    if (strcmp(metric, "power_w") && strcmp(metric, "energy_j"))
        return 1;
    char tdir[PATH_MAX], path[PATH_MAX], val[64], *text;
    gd_err ignore;
    if (template_dir(camp, tdir, sizeof tdir, &ignore) != GD_OK)
        return 1;
    util_path_join(path, sizeof path, tdir, GSIM_CONFIG_NAME);
    if (util_read_file(path, &text, NULL, &ignore) != GD_OK)
        return 1;
    int on = gsim_config_value(text, "-power_simulation_enabled", val,
                                sizeof val) == 0 && !strcmp(val, "1");
    free(text);
    if (!on)
        snprintf(why, n, "%s has no -power_simulation_enabled 1, so "
                 "GPGPU-Sim writes no power report (GPUWattch)", path);
    return on;
}

const be_backend be_gpgpusim = {
    "gpgpusim", "measured", 0, gpgpusim_version, gpgpusim_has_metric, NULL,
    gpgpusim_prepare, gpgpusim_finish, gpgpusim_check, gpgpusim_produces,
};
