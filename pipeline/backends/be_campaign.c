/* be_campaign: the backends' checks of a campaign's sections — the
 * backends <simulator> and <verify> name, the placeholders of every command
 * and file template, the metrics of the objectives — and the simulator
 * fingerprint that job keys hash. A derived metric as objective or
 * constraint needs every metric its expression reads. Run by preflight_load after camp_load has
 * read the campaign as a document; errors name the campaign's FILE:LINE. */
#include "backend.h"

#include <stdlib.h>
#include <string.h>

static int known_backend(const camp_campaign *c, const char *name, int line,
                         gd_err *err)
{
    if (be_find(name))
        return GD_OK;
    return camp_errf(c, line, err, "unknown simulator backend \"%s\" (known: "
                     "analytic, gpgpusim, command)", name);
}

/* Expand a template against a stand-in job so that an unknown placeholder
 * is reported before anything runs, at its line, not by every job. */
static int check_template(const camp_campaign *c, int line, const char *tpl,
                          const char *what, gd_err *err)
{
    wl_workload w;
    memset(&w, 0, sizeof w);
    util_strlcpy(w.name, "workload", sizeof w.name);
    be_job job;
    memset(&job, 0, sizeof job);
    job.camp = c;
    job.workload = &w;
    job.cfg = space_baseline();
    util_buf b;
    util_buf_init(&b);
    gd_err why = {0, ""};
    /* a command is expanded as for /bin/sh: a placeholder where no quoting
     * is safe is reported here */
    int bad = be_expand(tpl, &job, !strcmp(what, "command"), &b, &why);
    util_buf_free(&b);
    return bad ? camp_errf(c, line, err, "%s: %s", what, why.msg) : GD_OK;
}

static int check_file_template(const camp_campaign *c, const camp_file *f,
                               gd_err *err)
{
    char *text;
    int rc = util_read_input(f->template_path, UTIL_INPUT_MAX, &text, NULL,
                             err);
    if (rc) {
        char why[sizeof err->msg];
        util_strlcpy(why, err->msg, sizeof why);
        return camp_errf(c, f->line, err, "cannot read the template: %s",
                         why);
    }
    char what[300];
    snprintf(what, sizeof what, "template %s", f->template_path);
    rc = check_template(c, f->line, text, what, err);
    free(text);
    return rc;
}

/* Every command and file template of the simulator and the workloads. */
static int check_templates(const camp_campaign *c, gd_err *err)
{
    int rc = GD_OK;
    if (c->sim_command_line)
        rc = check_template(c, c->sim_command_line, c->sim_command,
                            "command", err);
    for (int i = 0; !rc && i < c->nfiles; i++)
        rc = check_file_template(c, &c->files[i], err);
    for (int i = 0; !rc && c->wlrun && i < c->nworkloads; i++)
        if (c->wlrun[i].command_line)
            rc = check_template(c, c->wlrun[i].command_line,
                                c->wlrun[i].command, "command", err);
    return rc;
}

/* Does the campaign's backend set-up produce metric m (1)? why: the
 * backend that does not; whynot: the set-up's own reason, when it has one. */
static int produced(const camp_campaign *c, const char *m, const char **why,
                    char *whynot, size_t n)
{
    int known = be_find(c->backend)->has_metric(m);
    *why = c->backend;
    if (known && c->verify_backend[0]) {
        known = be_find(c->verify_backend)->has_metric(m);
        *why = c->verify_backend;
    }
    if (!strcmp(camp_ext_backend(c), "command")) {
        int declared = 0;  /* the command backend reports what it declares */
        for (int i = 0; i < c->nmetrics; i++)
            declared |= !strcmp(c->metrics[i].name, m);
        known = known && (declared || be_config_metric(m));
        *why = "command";
    }
    const be_backend *eb = be_find(camp_ext_backend(c));
    if (known && eb && eb->produces && !eb->produces(c, m, whynot, n))
        return -1;
    return known;
}

/* An objective or constraint (what: "objective on") on metric m at line: a metric the
 * backends produce, or a derived metric whose inputs they all produce. */
static int check_metric(const camp_campaign *c, const char *m, int line,
                        const char *what, gd_err *err)
{
    int d = drv_find(c->derived, c->nderived, m);
    for (int i = 0; d >= 0 && i < c->derived[d].ninputs; i++) {
        const char *in = c->derived[d].inputs[i];
        char sub[128];
        snprintf(sub, sizeof sub, "%s %s, which reads", what, m);
        int rc = check_metric(c, in, line, sub, err);
        if (rc)
            return rc;
    }
    if (d >= 0)
        return GD_OK;
    const char *why;
    char whynot[512] = "";
    int known = produced(c, m, &why, whynot, sizeof whynot);
    if (!known)
        return camp_errf(c, line, err, "%s unknown metric \"%s\" (the %s "
                         "backend does not produce it)", what, m, why);
    if (known < 0)
        return camp_errf(c, line, err, "%s metric \"%s\", which this "
                         "simulator set-up does not produce: %s", what, m,
                         whynot);
    return GD_OK;
}

/* Knob k on backend name, which must take it; the message names the
 * backends that can. */
static int check_knob(const camp_campaign *c, const char *name, int k,
                      gd_err *err)
{
    const be_backend *b = be_find(name);
    char why[256] = "", others[256] = "", w2[256];
    if (!b || b->takes_knob(c, k, why, sizeof why))
        return GD_OK;
    for (int i = 0; be_at(i); i++)
        if (be_at(i)->takes_knob(c, k, w2, sizeof w2)) {
            size_t l = strlen(others);
            snprintf(others + l, sizeof others - l, "%s%s", l ? ", " : "",
                     be_at(i)->name);
        }
    const char *hint = k >= SPACE_NKNOBS
        ? space_knob_suggest(space_knob_name(&c->space, k)) : NULL;
    return camp_errf(c, c->space.line[k], err, "knob %s: the %s backend "
                     "cannot take it (%s); backends that can: %s%s%s%s",
                     space_knob_name(&c->space, k), name, why,
                     others[0] ? others : "none",
                     hint ? "; did you mean \"" : "",
                     hint ? hint : "", hint ? "\"?" : "");
}

/* Every knob the campaign declares, on every backend it runs on (the
 * analytic screen and the verify backend of a multi-fidelity campaign). */
static int check_knobs(const camp_campaign *c, gd_err *err)
{
    int rc = GD_OK;
    for (int k = 0; !rc && k < space_nknobs(&c->space); k++) {
        if (!c->space.line[k])
            continue;
        rc = check_knob(c, c->backend, k, err);
        if (!rc && c->verify_backend[0])
            rc = check_knob(c, c->verify_backend, k, err);
    }
    return rc;
}

int be_check_campaign(const camp_campaign *c, gd_err *err)
{
    int rc = known_backend(c, c->backend, c->simulator_line, err);
    if (!rc && c->verify_backend[0])
        rc = known_backend(c, c->verify_backend, c->verify_line, err);
    if (!rc)
        rc = check_knobs(c, err);
    if (!rc)
        rc = check_templates(c, err);
    for (int i = 0; !rc && i < c->nobjectives; i++)
        rc = check_metric(c, c->obj[i].metric, c->obj_line[i],
                          "objective on", err);
    for (int i = 0; !rc && i < c->ncons; i++)
        rc = check_metric(c, c->cons[i].metric, c->cons[i].line,
                          "constraint on", err);
    for (int i = 0; !rc && i < c->naggregates; i++)
        rc = check_metric(c, c->agg[i].metric, c->agg_line[i],
                          "aggregate on", err);
    return rc;
}

int be_fingerprint(camp_campaign *c, gd_err *err)
{
    /* a campaign without <simulator> or <verify> (the analytic backend by
     * default) has no simulator set-up: "" in its job keys */
    if (!c->simulator_line && !c->verify_line)
        return GD_OK;
    util_buf b;
    util_buf_init(&b);
    util_buf_printf(&b, "backend=%s\nroot=%s\nconfig=%s\ncommand=%s\n",
                    camp_ext_backend(c), c->sim_root, c->sim_config,
                    c->sim_command);
    /* user knobs' GPGPU-Sim options (none: the text, and keys, as before) */
    for (int u = 0; u < c->space.nuser; u++)
        if (c->space.user[u].option[0])
            util_buf_printf(&b, "knob_option=%s %s\n", c->space.user[u].name,
                            c->space.user[u].option);
    for (int i = 0; i < c->nmetrics; i++)
        util_buf_printf(&b, "metric=%s %d %s\n", c->metrics[i].name,
                        c->metrics[i].required, c->metrics[i].regex);
    int rc = GD_OK;
    for (int i = 0; i < c->nfiles && !rc; i++) {
        char sha[65];
        rc = util_sha256_file(c->files[i].template_path, sha, err);
        util_buf_printf(&b, "file=%s %s\n", c->files[i].name, sha);
    }
    /* the simulator build and its config templates (gpgpusim) */
    const be_backend *eb = be_find(camp_ext_backend(c));
    util_buf id;
    util_buf_init(&id);
    if (!rc && eb && eb->identity)
        rc = eb->identity(c, &id, err);
    if (id.len) {
        util_buf_add(&b, id.s, id.len);
        util_strlcpy(c->sim_identity, id.s, sizeof c->sim_identity);
    }
    util_buf_free(&id);
    util_sha256_hex(b.s, b.len, c->sim_fingerprint);
    util_buf_free(&b);
    return rc;
}
