/* be_gpgpusim: glue between the engine and pipeline/backends/gpgpusim.c (config
 * rewriting, statistics, classification): prepare writes the configs and the
 * command, finish turns stdout, stderr and the power report into a record. */
#include "be_gpgpusim.h"
#include "backend_impl.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "gpgpusim.h"

#define TAIL_BYTES 65536

static const char *gpgpusim_version(void)
{
    return "gpgpusim-2";  /* 2: area attached; build identity in the key */
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

/* The job's command and environment, without writing anything. */
static int gpgpusim_plan(const be_job *job, be_exec *x, gd_err *err)
{
    const camp_campaign *c = job->camp;
    const camp_wlrun *w = &c->wlrun[job->wl_index];
    int rc = be_expand(w->command, job, 1, &x->command, err);
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

static int gpgpusim_prepare(const be_job *job, be_exec *x, gd_err *err)
{
    char tdir[PATH_MAX];
    int rc = template_dir(job->camp, tdir, sizeof tdir, err);
    if (rc)
        return rc;
    int power = 0;
    rc = be_make_job_dir(job->job_dir, err);
    if (rc)
        return rc;
    rc = gsim_write_configs(tdir, &job->camp->space, &job->cfg,
                            job->job_dir, &power, err);
    if (rc)
        return rc;  /* GD_EINPUT: this config cannot run: invalid-config */
    return gpgpusim_plan(job, x, err);
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

/* The first word of a shell command (quotes stripped, VAR=value words
 * skipped) into out; 0 when it cannot be judged before the run ($, `). */
static int first_word(const char *cmd, char *out, size_t n)
{
    const char *p = cmd;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        size_t k = 0;
        char q = 0;
        while (*p && (q || (*p != ' ' && *p != '\t' && *p != '\n'
                            && *p != ';' && *p != '|' && *p != '&'))) {
            if (*p == '$' || *p == '`')
                return 0;
            if (!q && (*p == '\'' || *p == '"'))
                q = *p;
            else if (q && *p == q)
                q = 0;
            else if (k + 1 < n)
                out[k++] = *p;
            p++;
        }
        out[k] = '\0';
        const char *eq = strchr(out, '=');
        int assign = eq && eq > out
                     && strcspn(out, "/") > (size_t)(eq - out);
        if (!k || !assign)
            return k > 0;
    }
}

/* Whether a program name without '/' is on PATH (or a shell builtin). */
static int on_path(const char *prog)
{
    static const char *const builtin[] = {"cd", "exec", "env", "export",
        "set", "true", ".", "eval", "time", "nice", "ulimit", "umask",
        "echo", "test", "[", "exit", "command"};
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (!strcmp(prog, builtin[i]))
            return 1;
    const char *path = getenv("PATH");
    char dir[PATH_MAX], full[PATH_MAX];
    while (path && *path) {
        size_t l = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s", (int)l, path);
        if (util_path_join(full, sizeof full, l ? dir : ".", prog) == GD_OK
            && access(full, X_OK) == 0 && !util_is_dir(full))
            return 1;
        path += l + (path[l] == ':');
    }
    return 0;
}

/* Each workload's program exists: an absolute path is a file that can be
 * run, a bare name is on PATH, a relative path is refused (the job runs in
 * its job directory, where it would not be found). */
static int check_programs(const camp_campaign *c, gd_err *err)
{
    for (int i = 0; i < c->nworkloads; i++) {
        wl_workload w;
        memset(&w, 0, sizeof w);
        util_strlcpy(w.name, c->workloads[i].name, sizeof w.name);
        be_job job;
        memset(&job, 0, sizeof job);
        job.camp = c;
        job.wl_index = i;
        job.workload = &w;
        job.cfg = space_baseline();
        job.job_dir = "JOBDIR";
        util_buf b;
        util_buf_init(&b);
        gd_err why = {0, ""};
        char prog[PATH_MAX];
        int ok = be_expand(c->wlrun[i].command, &job, 0, &b, &why) != GD_OK
                 || !first_word(b.s ? b.s : "", prog, sizeof prog);
        util_buf_free(&b);
        if (ok)
            continue;  /* the command's own check names a bad placeholder */
        const char *bad = NULL;
        if (prog[0] == '/')
            bad = access(prog, X_OK) == 0 && !util_is_dir(prog) ? NULL
                  : "is not a program that can be run";
        else if (strchr(prog, '/'))
            bad = "is a relative path, but the job runs in its own job "
                  "directory: give an absolute path or {campaign_dir}/...";
        else if (!on_path(prog))
            bad = "is not on PATH";
        if (bad)
            return gd_errf(err, GD_EINPUT, "%s:%d: workload %s: program %s "
                           "%s", c->path, c->wlrun[i].line, c->workloads[i].name,
                           prog, bad);
    }
    return GD_OK;
}

static int gpgpusim_check(const camp_campaign *c, gd_err *err)
{
    char tdir[PATH_MAX];
    int rc = template_dir(c, tdir, sizeof tdir, err);
    if (!rc)
        rc = gsim_check_templates(tdir, err);
    if (!rc && !util_is_dir(c->sim_root))
        rc = gd_errf(err, GD_EINPUT, "%s:%d: simulator root %s is not a "
                     "folder; set root=\"...\" or GPGPUSIM_ROOT", c->path,
                     c->sim_line, c->sim_root);
    char libs[4096];
    if (!rc)
        be_gpgpusim_libdirs(c->sim_root, libs, sizeof libs);
    if (!rc && !libs[0])
        rc = gd_errf(err, GD_EINPUT, "%s:%d: simulator root %s has no "
                     "lib/.../libcudart.so* (GPGPU-Sim builds it into "
                     "lib/<gcc>/<cuda>/release/: build the simulator, or set "
                     "root to a built tree); without it the program would "
                     "run on the system's CUDA runtime", c->path, c->sim_line,
                     c->sim_root);
    if (!rc)
        rc = check_programs(c, err);
    return rc;
}

/* The build string GPGPU-Sim prints in its banner
 * ("gpgpu-sim_git-commit-<sha>_modified_<n>"), found in the library's
 * bytes, into out; "" when absent. */
static void build_string(const char *data, size_t len, char *out, size_t n)
{
    static const char tag[] = "gpgpu-sim_git-commit-";
    out[0] = '\0';
    for (size_t i = 0; i + sizeof tag - 1 <= len; i++) {
        if (data[i] != 'g' || memcmp(data + i, tag, sizeof tag - 1) != 0)
            continue;
        size_t k = 0;
        while (i + k < len && k + 1 < n && data[i + k] > ' '
               && data[i + k] < 127)
            k++;
        memcpy(out, data + i, k);
        out[k] = '\0';
        return;
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "libcudart=NAME SHA256" (and "build=..." when its bytes hold one) for
 * each distinct libcudart.so* file of one folder, in name order. */
static void identify_libdir(const char *dir, util_buf *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[32];
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 32)
        if (!strncmp(e->d_name, "libcudart.so", 12))
            names[nn++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)nn, sizeof *names, cmp_str);
    char seen[32][PATH_MAX];
    int ns = 0;
    for (int i = 0; i < nn; i++) {
        char path[PATH_MAX], real[PATH_MAX], *data = NULL;
        size_t len = 0;
        int dup = 0;
        util_path_join(path, sizeof path, dir, names[i] ? names[i] : "");
        if (names[i] && realpath(path, real))
            for (int j = 0; j < ns; j++)
                dup |= !strcmp(seen[j], real);
        if (names[i] && !dup && realpath(path, real) && ns < 32
            && util_read_file(real, &data, &len, NULL) == GD_OK) {
            char sha[65], build[160];
            util_strlcpy(seen[ns++], real, PATH_MAX);
            util_sha256_hex(data, len, sha);
            build_string(data, len, build, sizeof build);
            util_buf_printf(out, "libcudart=%s %s\n", names[i], sha);
            if (build[0])
                util_buf_printf(out, "build=%s\n", build);
            free(data);
        }
        free(names[i]);
    }
}

/* The simulator's identity: every libcudart of the build (its hash, and
 * the build string GPGPU-Sim prints) and the hash of each config template
 * file, so that a rebuilt simulator or an edited template never reuses old
 * results. Missing files are named as missing: the check reports them. */
static int gpgpusim_identity(const camp_campaign *c, util_buf *out,
                             gd_err *err)
{
    char tdir[PATH_MAX], libs[4096];
    gd_err ignore;
    if (template_dir(c, tdir, sizeof tdir, &ignore) == GD_OK) {
        DIR *d = opendir(tdir);
        char *names[64];
        int nn = 0;
        struct dirent *e;
        while (d && (e = readdir(d)) && nn < 64) {
            char path[PATH_MAX];
            util_path_join(path, sizeof path, tdir, e->d_name);
            if (e->d_name[0] != '.' && !util_is_dir(path))
                names[nn++] = strdup(e->d_name);
        }
        if (d)
            closedir(d);
        qsort(names, (size_t)nn, sizeof *names, cmp_str);
        for (int i = 0; i < nn; i++) {
            char path[PATH_MAX], sha[65];
            if (names[i] && util_path_join(path, sizeof path, tdir, names[i])
                    == GD_OK && util_sha256_file(path, sha, &ignore) == GD_OK)
                util_buf_printf(out, "template=%s %s\n", names[i], sha);
            free(names[i]);
        }
    }
    be_gpgpusim_libdirs(c->sim_root, libs, sizeof libs);
    char *save = NULL;
    for (char *dir = strtok_r(libs, ":", &save); dir;
         dir = strtok_r(NULL, ":", &save))
        identify_libdir(dir, out);
    if (!libs[0])
        util_buf_puts(out, "libcudart=missing\n");
    (void)err;
    return GD_OK;
}

/* power_w and energy_j come from GPUWattch: only with
 * -power_simulation_enabled 1 in the templates' gpgpusim.config. A config
 * that cannot be read is the check's to report. */
static int gpgpusim_produces(const camp_campaign *camp, const char *metric,
                             char *why, size_t n)
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

/* Every level of built-in knob k, the others at the baseline, rewrites the
 * config template under GPGPU-Sim's rules (cache strings: gpgpusim.c); a
 * template that cannot be read is gpgpusim_check's to report. */
static int builtin_levels_ok(const camp_campaign *c, int k, char *why,
                             size_t n)
{
    char tdir[PATH_MAX], path[PATH_MAX], *tmpl = NULL;
    gd_err e = {0, ""};
    if (template_dir(c, tdir, sizeof tdir, &e)
        || util_path_join(path, sizeof path, tdir, GSIM_CONFIG_NAME)
        || util_read_file(path, &tmpl, NULL, &e))
        return 1;
    int ok = 1;
    for (int i = 0; ok && i < c->space.nlevels[k]; i++) {
        gpu_config cfg = space_baseline();
        char *out = NULL;
        space_set(&cfg, k, c->space.levels[k][i]);
        if (gsim_rewrite_config_text(tmpl, path, &cfg, &out, &e) != GD_OK) {
            char v[SPACE_TEXTLEN];
            snprintf(why, n, "level %s: %s", space_level_str(&c->space, k,
                     c->space.levels[k][i], v, sizeof v), e.msg);
            ok = 0;
        }
        free(out);
    }
    free(tmpl);
    return ok;
}

/* A built-in knob at the levels its config rule takes (a combination the
 * rule refuses is an invalid-config record, as for the GTX480 levels); a
 * user knob when it names the config option it sets (option=). */
static int gpgpusim_takes_knob(const camp_campaign *c, int k, char *why,
                               size_t n)
{
    if (k < SPACE_NKNOBS)
        return builtin_levels_ok(c, k, why, n);
    if (c->space.user[k - SPACE_NKNOBS].option[0])
        return 1;
    snprintf(why, n, "it names no GPGPU-Sim config option: add "
             "option=\"-gpgpu_...\"");
    return 0;
}

const be_backend be_gpgpusim = {
    "gpgpusim", "measured", 0, gpgpusim_version, gpgpusim_has_metric, NULL,
    gpgpusim_prepare, gpgpusim_finish, gpgpusim_check, gpgpusim_produces,
    gpgpusim_identity, gpgpusim_plan, gpgpusim_takes_knob,
};
