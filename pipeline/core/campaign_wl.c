/* campaign_wl: the <workloads> section of a campaign file — built-in or
 * file descriptors, the command and environment of a workload on an
 * external backend (its identity in job keys), each workload's resources
 * over <execution>'s — for campaign.c's meaning checks. */
#include "campaign_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* <workload> children for external backends: <command> and <env>. */
static int parse_wlrun(ctx_t *x, xmlNodePtr n, camp_wlrun *r)
{
    r->line = line_of(n);
    for (xmlNodePtr k = n->children; k; k = k->next) {
        if (is_elem(k, "command") && elem_text(k, r->command, sizeof r->command))
            return fail(x, k, "command is too long");
        if (is_elem(k, "command"))
            r->command_line = line_of(k);
        if (!is_elem(k, "env"))
            continue;
        if (r->nenv == CAMP_MAXENV)
            return fail(x, k, "too many env entries (at most 16)");
        char *name = attr(k, "name"), *val = attr(k, "value");
        for (int i = 0; name && i < r->nenv; i++)
            if (strcmp(r->env[i].name, name) == 0) {
                int rc = fail(x, k, "env %s is set twice", name);
                xmlFree(name);
                xmlFree(val);
                return rc;
            }
        util_strlcpy(r->env[r->nenv].name, name, sizeof r->env[0].name);
        util_strlcpy(r->env[r->nenv].value, val, sizeof r->env[0].value);
        r->nenv++;
        xmlFree(name);
        xmlFree(val);
    }
    if (!strcmp(camp_ext_backend(x->c), "gpgpusim") && !r->command[0])
        return fail(x, n, "with the gpgpusim backend each workload needs "
                    "<command> (its program, run in the job directory)");
    return GD_OK;
}

/* A workload that has no descriptor but runs on an external backend: its
 * identity in job keys is its command and environment. */
void camp_run_identity(const char *name, const camp_wlrun *r, char sha[65])
{
    util_buf b;
    util_buf_init(&b);
    util_buf_printf(&b, "workload=%s\ncommand=%s\n", name, r->command);
    for (int i = 0; i < r->nenv; i++)
        util_buf_printf(&b, "env=%s=%s\n", r->env[i].name, r->env[i].value);
    util_sha256_hex(b.s, b.len, sha);
    util_buf_free(&b);
}

static void wl_from_command(wl_workload *w, const char *name,
                            const camp_wlrun *r)
{
    memset(w, 0, sizeof *w);
    util_strlcpy(w->name, name, sizeof w->name);
    camp_run_identity(name, r, w->sha256);
}

static int suggest_workload(const char *name, char *out, size_t n)
{
    char names[64][WL_NAMELEN];
    int cnt = wl_list_builtin(names, 64, NULL);
    int best = -1, bestd = 1 << 30;
    out[0] = '\0';
    for (int i = 0; i < cnt; i++) {
        int d = util_edit_distance(name, names[i]);
        if (d < bestd) {
            bestd = d;
            best = i;
        }
        if (strlen(out) + strlen(names[i]) + 3 < n) {
            if (i)
                strcat(out, ", ");
            strcat(out, names[i]);
        }
    }
    return (best >= 0 && bestd <= (int)strlen(name) / 3 + 1) ? best : -1;
}

static int load_workload(ctx_t *x, xmlNodePtr n, wl_workload *w)
{
    char *name = attr(n, "name"), *file = attr(n, "file");
    int rc;
    if (file) {
        char p[PATH_MAX];
        util_path_join(p, sizeof p, x->c->dir, file);
        rc = util_path_exists(p) ? wl_load_file(p, w, x->err)
             : fail(x, n, "workload descriptor \"%s\" not found", file);
        if (!rc)
            util_strlcpy(w->name, name, sizeof w->name);
    } else {
        gd_err why = {0, ""};
        rc = wl_load_builtin(name, w, &why);
        char list[1024], names[64][WL_NAMELEN];
        int best = rc ? suggest_workload(name, list, sizeof list) : -1;
        int cnt = rc ? wl_list_builtin(names, 64, NULL) : 0;
        int exists = 0;
        for (int i = 0; i < cnt; i++)
            exists |= strcmp(names[i], name) == 0;
        if (rc && exists) {
            /* The built-in descriptor itself is broken: say where. */
            rc = gd_errf(x->err, why.code, "%s", why.msg);
        } else if (rc) {
            char hint[256] = "";
            if (best >= 0 && best < cnt)
                snprintf(hint, sizeof hint, "did you mean \"%s\"? ",
                         names[best]);
            char msg[1400];
            snprintf(msg, sizeof msg, "%sbuilt-in workloads: %s; or give a "
                     "descriptor with file=\"...\"", hint, list);
            rc = fail(x, n, "unknown workload \"%s\": %s", name, msg);
        }
    }
    xmlFree(name);
    xmlFree(file);
    return rc;
}

static int has_child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr k = n->children; k; k = k->next)
        if (is_elem(k, name))
            return 1;
    return 0;
}

int campx_workloads(ctx_t *x, xmlNodePtr list)
{
    int count = 0;
    for (xmlNodePtr n = list->children; n; n = n->next)
        count += is_elem(n, "workload");
    if (count > CAMP_MAXWL)
        return fail(x, list, "too many workloads (at most 64)");
    x->c->workloads = calloc((size_t)count, sizeof *x->c->workloads);
    x->c->wlrun = calloc((size_t)count, sizeof *x->c->wlrun);
    if (!x->c->workloads || !x->c->wlrun)
        return gd_errf(x->err, GD_EENV, "out of memory");
    int external = strcmp(x->c->backend, "analytic") != 0;
    int verify = x->c->verify_backend[0] != 0;
    for (xmlNodePtr n = list->children; n; n = n->next) {
        if (!is_elem(n, "workload"))
            continue;
        char *name = attr(n, "name");
        int dup = 0;
        for (int i = 0; i < x->c->nworkloads; i++)
            dup |= strcmp(x->c->workloads[i].name, name) == 0;
        wl_workload *w = &x->c->workloads[x->c->nworkloads];
        camp_wlrun *run = &x->c->wlrun[x->c->nworkloads];
        int rc = GD_OK;
        if (dup)
            rc = fail(x, n, "workload \"%s\" is listed twice", name);
        else if ((rc = campx_resources(x, n, &run->timeout_s,
                                       &run->memory_mb, &run->cpus,
                                       run->gres, sizeof run->gres)) != 0) {
        } else if (external || verify)
            rc = parse_wlrun(x, n, run);
        else if (has_child(n, "command") || has_child(n, "env"))
            rc = fail(x, n, "<command> and <env> in a workload are for the "
                      "gpgpusim and command backends");
        if (rc) {
        } else if (external)
            wl_from_command(w, name, run);
        else if (x->names_only)
            util_strlcpy(w->name, name, sizeof w->name);
        else
            rc = load_workload(x, n, w);
        xmlFree(name);
        if (rc)
            return rc;
        x->c->nworkloads++;
    }
    return GD_OK;
}

int campx_resources(ctx_t *x, xmlNodePtr n, double *timeout,
                    double *memory_mb, int *cpus, char *gres, size_t gressz)
{
    int rc = GD_OK;
    if (timeout)
        rc = decimal_attr(x, n, "timeout", 0.001, 1e7, timeout);
    if (!rc && memory_mb)
        rc = decimal_attr(x, n, "memory-mb", 1, 1 << 24, memory_mb);
    char *c = attr(n, "cpus"), *g = attr(n, "gres");
    long lv;
    if (!rc && c && util_parse_long(c, 1, 4096, &lv) != 0)
        rc = fail(x, n, "cpus must be 1 to 4096 (got \"%s\")", c);
    else if (!rc && c)
        *cpus = (int)lv;
    if (!rc && g && (!g[0] || strlen(g) >= gressz || strpbrk(g, " \t\n")))
        rc = fail(x, n, "gres must be one Slurm --gres value without blanks "
                  "(got \"%s\")", g);
    else if (!rc && g)
        util_strlcpy(gres, g, gressz);
    xmlFree(c);
    xmlFree(g);
    return rc;
}

double camp_wl_timeout(const camp_campaign *c, int wl)
{
    return c->wlrun && c->wlrun[wl].timeout_s > 0 ? c->wlrun[wl].timeout_s
                                                  : c->timeout_s;
}

double camp_wl_memory_mb(const camp_campaign *c, int wl)
{
    return c->wlrun && c->wlrun[wl].memory_mb > 0 ? c->wlrun[wl].memory_mb
                                                  : c->memory_mb;
}

int camp_wl_cpus(const camp_campaign *c, int wl)
{
    return c->wlrun && c->wlrun[wl].cpus > 0 ? c->wlrun[wl].cpus
                                             : c->cluster.cpus;
}

const char *camp_wl_gres(const camp_campaign *c, int wl)
{
    return c->wlrun && c->wlrun[wl].gres[0] ? c->wlrun[wl].gres
                                            : c->cluster.gres;
}
