/* backend: the registry of job backends and the analytic (embedded model)
 * backend, plus the job key that names a result by everything that
 * determines it. */
#include "backend.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "model.h"

static int analytic_has_metric(const char *name)
{
    return met_is_known(name);
}

static int analytic_run(const be_job *job, store_record *out, gd_err *err)
{
    model_out mo;
    gd_err why = {0, ""};
    (void)err;
    if (model_eval(job->workload, &job->cfg, &mo, &why) != 0) {
        out->status = ST_INVALID_CONFIG;
        util_strlcpy(out->reason, why.msg, sizeof out->reason);
        return GD_OK;
    }
    out->status = ST_OK;
    model_to_metrics(&mo, &out->metrics);
    util_strlcpy(out->limit, model_limit_name(mo.limit), sizeof out->limit);
    util_strlcpy(out->bottleneck, model_bottleneck_name(mo.bottleneck),
                 sizeof out->bottleneck);
    return GD_OK;
}

static const be_backend backends[] = {
    {"analytic", "modelled", 1, model_version, analytic_has_metric,
     analytic_run},
};

const be_backend *be_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
        if (strcmp(backends[i].name, name) == 0)
            return &backends[i];
    return NULL;
}

void be_job_key(const be_backend *b, const wl_workload *w,
                const gpu_config *c, uint64_t seed, char key[65])
{
    char canon[512], text[1024];
    space_config_canon(c, canon, sizeof canon);
    int n = snprintf(text, sizeof text,
                     "gpudse-job-v1\nbackend=%s\nbackend_version=%s\n"
                     "workload=%s\nworkload_sha256=%s\nconfig=%s\n"
                     "seed=%" PRIu64 "\n",
                     b->name, b->version(), w->name, w->sha256, canon, seed);
    util_sha256_hex(text, (size_t)n, key);
}
