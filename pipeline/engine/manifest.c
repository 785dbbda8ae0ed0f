/* manifest: manifest.json's one format (manifest.h): the head and tail
 * every run's manifest shares, around the fields of its kind. */
#include "manifest.h"

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <cairo.h>
#include <curl/curl.h>
#include <gsl/gsl_version.h>
#include <libxml/xmlversion.h>
#include <openssl/crypto.h>
#include <pango/pango.h>

cJSON *manifest_begin(const manifest_head *h)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "tool", "gpudse");
    cJSON_AddStringToObject(m, "version", GPUDSE_VERSION);
    if (h->kind)
        cJSON_AddStringToObject(m, "kind", h->kind);
    cJSON_AddStringToObject(m, "campaign", h->campaign);
    cJSON_AddStringToObject(m, "campaign_file", h->campaign_file);
    cJSON_AddStringToObject(m, "campaign_sha256", h->campaign_sha256);
    cJSON_AddNumberToObject(m, "seed", (double)h->seed);
    cJSON_AddStringToObject(m, "backend", h->backend);
    cJSON_AddStringToObject(m, "backend_version", h->backend_version);
    return m;
}

static void add_libraries(cJSON *m)
{
    cJSON *l = cJSON_AddObjectToObject(m, "libraries");
    char v[64];
    cJSON_AddStringToObject(l, "gsl", GSL_VERSION);
    cJSON_AddStringToObject(l, "libxml2", LIBXML_DOTTED_VERSION);
    cJSON_AddStringToObject(l, "cairo", cairo_version_string());
    cJSON_AddStringToObject(l, "pango", pango_version_string());
    snprintf(v, sizeof v, "%s", cJSON_Version());
    cJSON_AddStringToObject(l, "cjson", v);
    cJSON_AddStringToObject(l, "libcurl", curl_version_info(CURLVERSION_NOW)->version);
    cJSON_AddStringToObject(l, "openssl", OpenSSL_version(OPENSSL_VERSION));
}

int manifest_write(cJSON *m, const char *dir, const manifest_jobs *j,
                   gd_err *err)
{
    if (!m)
        return gd_errf(err, GD_EENV, "out of memory");
    add_libraries(m);
    char host[256] = "unknown", path[PATH_MAX];
    gethostname(host, sizeof host - 1);
    cJSON_AddStringToObject(m, "host", host);
    cJSON_AddStringToObject(m, "started", j->started);
    if (j->finished)
        cJSON_AddStringToObject(m, "finished", j->finished);
    else
        cJSON_AddNullToObject(m, "finished");
    cJSON *o = cJSON_AddObjectToObject(m, "jobs");
    cJSON_AddNumberToObject(o, "planned", (double)j->planned);
    cJSON_AddNumberToObject(o, "total", (double)(j->ok + j->failed));
    cJSON_AddNumberToObject(o, "ok", (double)j->ok);
    cJSON_AddNumberToObject(o, "failed", (double)j->failed);
    cJSON_AddNumberToObject(o, "run_this_session", (double)j->ran);
    cJSON_AddNumberToObject(o, "resumed_from_journal", (double)j->resumed);
    cJSON_AddNumberToObject(o, "torn_lines_dropped", (double)j->torn);
    util_path_join(path, sizeof path, dir, "manifest.json");
    int rc = util_write_json_atomic(path, m, err);
    cJSON_Delete(m);
    return rc;
}
