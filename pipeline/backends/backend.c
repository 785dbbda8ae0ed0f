/* backend: the registry of job backends — analytic (the embedded model, in
 * process) and command (any simulator as a shell command whose metrics are
 * read with regular expressions) — plus job keys, template expansion and
 * the classification of finished processes shared by external backends. */
#include "backend.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_impl.h"
#include "campaign.h"
#include "gpgpusim.h"
#include "model.h"

#define TAIL_BYTES 65536

/* ---- be_exec ---- */

void be_exec_init(be_exec *x)
{
    memset(x, 0, sizeof *x);
    util_buf_init(&x->command);
}

void be_exec_free(be_exec *x)
{
    util_buf_free(&x->command);
    for (int i = 0; i < x->nenv; i++)
        free(x->env[i]);
    x->nenv = 0;
    x->env[0] = NULL;
}

int be_exec_setenv(be_exec *x, const char *name, const char *value)
{
    if (x->nenv == BE_MAXENV)
        return -1;
    size_t n = strlen(name) + strlen(value) + 2;
    char *e = malloc(n);
    if (!e)
        return -1;
    snprintf(e, n, "%s=%s", name, value);
    x->env[x->nenv++] = e;
    x->env[x->nenv] = NULL;
    return 0;
}

/* ---- templates ---- */

static void shell_quote(util_buf *b, const char *v)
{
    util_buf_add(b, "'", 1);
    for (const char *p = v; *p; p++) {
        if (*p == '\'')
            util_buf_puts(b, "'\\''");
        else
            util_buf_add(b, p, 1);
    }
    util_buf_add(b, "'", 1);
}

/* Inside double quotes only $ ` " \ are special: each gets a backslash. */
static void dquote_escape(util_buf *b, const char *v)
{
    for (const char *p = v; *p; p++) {
        if (strchr("$`\"\\", *p))
            util_buf_add(b, "\\", 1);
        util_buf_add(b, p, 1);
    }
}

/* Inside single quotes: close them, an escaped quote, reopen ('\''). */
static void squote_escape(util_buf *b, const char *v)
{
    for (const char *p = v; *p; p++) {
        if (*p == '\'')
            util_buf_puts(b, "'\\''");
        else
            util_buf_add(b, p, 1);
    }
}

/* Where a command template's text stands for /bin/sh, read left to right:
 * a stack of contexts (plain words and $(...) are 'T' and '(', double
 * quotes '"', backquotes '`', $((...)) 'A' and 'a' for parentheses inside
 * it), inside '...' or $'...', in a comment, after a here-document's <<.
 * A placeholder's value is quoted for the context it stands in, so no value
 * is ever read as shell code. */
typedef struct {
    char stack[64];
    int depth;
    int single, ansi, comment, heredoc;
} sh_state;

static void sh_push(sh_state *s, char c)
{
    if (s->depth + 1 < (int)sizeof s->stack)
        s->stack[++s->depth] = c;
}

/* Advance over the template's literal text at p (of which start is the
 * first char); returns how many chars were read. */
static size_t sh_step(sh_state *s, const char *start, const char *p)
{
    char top = s->stack[s->depth];
    if (s->comment) {
        s->comment = *p != '\n';
        return 1;
    }
    if (s->single) {
        s->single = *p != '\'';
        return 1;
    }
    if (s->ansi) {
        if (*p == '\\' && p[1])
            return 2;
        s->ansi = *p != '\'';
        return 1;
    }
    if (*p == '\\' && p[1])
        return 2;
    if (top != '"') {
        if (*p == '\'') {
            s->single = 1;
            return 1;
        }
        if (p[0] == '$' && p[1] == '\'') {
            s->ansi = 1;
            return 2;
        }
        if (p[0] == '<' && p[1] == '<' && (top == 'T' || top == '('))
            s->heredoc = 1;
        if (*p == '#' && (p == start || strchr(" \t\n;&|()", p[-1]))) {
            s->comment = 1;
            return 1;
        }
    }
    if (*p == '"' && top == '"')
        s->depth--;
    else if (*p == '"')
        sh_push(s, '"');
    else if (*p == '`' && top == '`')
        s->depth--;
    else if (*p == '`')
        sh_push(s, '`');
    else if (p[0] == '$' && p[1] == '(' && p[2] == '(') {
        sh_push(s, 'A');
        return 3;
    } else if (p[0] == '$' && p[1] == '(') {
        sh_push(s, '(');
        return 2;
    } else if (*p == '(' && top == '(')
        sh_push(s, '(');
    else if (*p == '(' && (top == 'A' || top == 'a'))
        sh_push(s, 'a');  /* parentheses inside arithmetic */
    else if (*p == ')' && (top == '(' || top == 'a'))
        s->depth--;
    else if (p[0] == ')' && p[1] == ')' && top == 'A') {
        s->depth--;
        return 2;
    }
    return 1;
}

/* The value v quoted for where s stands; -1 (and why) where no quoting is
 * safe: inside backquotes, $'...' or a here-document, or in $((...))
 * arithmetic unless v is a whole number (which stands there bare). */
static int sh_quote(const sh_state *s, util_buf *b, const char *v,
                    const char **why)
{
    char top = s->stack[s->depth];
    int arith = (top == 'A' || top == 'a') && !s->single;
    if (arith && *v && !v[strspn(v, "0123456789")]) {
        util_buf_puts(b, v);
        return 0;
    }
    if (arith)
        *why = "$((...)) arithmetic (only a whole number may stand there)";
    else if (s->heredoc)
        *why = "a here-document (<<)";
    else if (s->ansi)
        *why = "$'...' quotes";
    else if (top == '`')
        *why = "backquotes (use $(...))";
    else
        *why = NULL;
    for (int i = 1; !*why && i <= s->depth; i++)
        if (s->stack[i] == '`')
            *why = "backquotes (use $(...))";
    if (*why)
        return -1;
    if (s->single)
        squote_escape(b, v);
    else if (top == '"')
        dquote_escape(b, v);
    else
        shell_quote(b, v);
    return 0;
}

/* Value of placeholder name for job into buf; -1 when unknown. */
static int placeholder(const char *name, const be_job *job, char *buf,
                       size_t n)
{
    const camp_campaign *c = job->camp;
    int k = space_knob_index(c ? &c->space : NULL, name);
    if (k >= 0)
        space_level_str(c ? &c->space : NULL, k, space_get(&job->cfg, k), buf,
                        n);
    else if (!strcmp(name, "workload"))
        util_strlcpy(buf, job->workload->name, n);
    else if (!strcmp(name, "job_dir"))
        util_strlcpy(buf, job->job_dir ? job->job_dir : ".", n);
    else if (!strcmp(name, "campaign_dir"))
        util_strlcpy(buf, c ? c->dir : ".", n);
    else if (!strcmp(name, "seed"))
        snprintf(buf, n, "%" PRIu64, job->seed);
    else
        return -1;
    return 0;
}

int be_expand(const char *tpl, const be_job *job, int quote, util_buf *out,
              gd_err *err)
{
    sh_state sh = {.stack = {'T'}};
    size_t skip = 0;  /* chars of an escape sh_step already read */
    for (const char *p = tpl; *p; p++) {
        if (p[0] == '{' && p[1] == '{') {
            util_buf_add(out, "{", 1);
            if (quote && !skip)
                sh_step(&sh, tpl, "{");
            skip -= skip > 0;
            p++;
            continue;
        }
        if (p[0] != '{') {
            util_buf_add(out, p, 1);
            if (quote && !skip)
                skip = sh_step(&sh, tpl, p);
            skip -= skip > 0;
            continue;
        }
        const char *end = strchr(p, '}');
        char name[64], val[PATH_MAX];
        size_t len = end ? (size_t)(end - p - 1) : 0;
        if (!end || len == 0 || len >= sizeof name)
            return gd_errf(err, GD_EINPUT, "unterminated or empty {...} in "
                           "\"%.60s\"", tpl);
        memcpy(name, p + 1, len);
        name[len] = '\0';
        if (placeholder(name, job, val, sizeof val) != 0)
            return gd_errf(err, GD_EINPUT, "unknown placeholder {%s}: use a "
                           "knob name, {workload}, {job_dir}, {campaign_dir} "
                           "or {seed} (and {{ for a literal brace)", name);
        const char *why = NULL;
        /* right after a backslash or a $ the quoting itself would be
         * escaped or expanded ("\'", "$'...'", "$(" from the value) */
        if (quote && (skip || (p > tpl && p[-1] == '$')))
            why = skip ? "an escape (right after a backslash)"
                       : "an expansion (right after a $)";
        if (quote && (why || sh_quote(&sh, out, val, &why) != 0))
            return gd_errf(err, GD_EINPUT, "placeholder {%s} inside %s: its "
                           "value cannot be quoted there; move it out",
                           name, why);
        if (!quote)
            util_buf_puts(out, val);
        p = end;
        skip = 0;
    }
    return GD_OK;
}

/* ---- process outcomes ---- */

static int looks_oom(const char *t)
{
    return t && (strstr(t, "std::bad_alloc") || strstr(t, "Cannot allocate memory")
                 || strstr(t, "out of memory") || strstr(t, "Out of memory")
                 || strstr(t, "MemoryError"));
}

int be_classify_process(const exec_result *r, const char *out_tail,
                        const char *err_tail, char *reason, size_t n)
{
    int st = gsim_classify_exit(r->exited, r->exit_code, r->signaled,
                                r->signo, r->timed_out, reason, n);
    if (st == ST_OK || st == ST_TIMEOUT)
        return st;
    if (looks_oom(err_tail) || looks_oom(out_tail)) {
        char how[200];
        util_strlcpy(how, reason, sizeof how);
        snprintf(reason, n, "out of memory (%s)", how);
        return ST_OOM;
    }
    char last[512];
    if (r->exited && r->exit_code == 127)
        snprintf(reason, n, "exit code 127: command not found");
    else if (gsim_last_lines(err_tail, 2, last, sizeof last)
             || gsim_last_lines(out_tail, 2, last, sizeof last)) {
        size_t used = strlen(reason);   /* the cause, in its own words */
        snprintf(reason + used, n - used, ": %s", last);
    }
    return st;
}

int be_make_job_dir(const char *dir, gd_err *err)
{
    return util_mkdirs(dir, err) ? exec_job_dir_error(err, dir, err->msg)
                                 : GD_OK;
}

char *be_read_tail(const char *job_dir, const char *name, size_t max)
{
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job_dir, name);
    char *buf = calloc(max + 1, 1);
    if (!buf)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return buf;
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)max ? size - (off_t)max : 0;
    ssize_t got = pread(fd, buf, (size_t)(size - from), from);
    close(fd);
    buf[got > 0 ? got : 0] = '\0';
    /* NULs in binary garbage would cut string searches short */
    for (ssize_t i = 0; i < got; i++)
        if (!buf[i])
            buf[i] = ' ';
    return buf;
}

/* ---- analytic ---- */

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
    /* The prediction interval and the extrapolation flag (analytic-3.0,
     * docs/model.md "Uncertainty"), with every modelled record. */
    model_pi pi;
    model_interval(job->workload, &job->cfg, mo.ipc, &pi);
    met_put(&out->metrics, "ipc_lo", pi.lo);
    met_put(&out->metrics, "ipc_hi", pi.hi);
    met_put(&out->metrics, "extrapolated", pi.extrapolated);
    util_strlcpy(out->limit, model_limit_name(mo.limit), sizeof out->limit);
    util_strlcpy(out->bottleneck, model_bottleneck_name(mo.bottleneck),
                 sizeof out->bottleneck);
    return GD_OK;
}

/* ---- command ---- */

static const char *command_version(void)
{
    return "command-2";  /* 2: area_mm2 attached from the area model */
}

static int any_metric(const char *name)
{
    (void)name;
    return 1;
}

static int write_templated_file(const be_job *job, const camp_file *f,
                                gd_err *err)
{
    char *tpl;
    int rc = util_read_input(f->template_path, UTIL_INPUT_MAX, &tpl, NULL,
                             err);
    if (rc)
        return rc;
    util_buf b;
    util_buf_init(&b);
    rc = be_make_job_dir(job->job_dir, err);
    if (!rc)
        rc = be_expand(tpl, job, 0, &b, err);
    free(tpl);
    char path[PATH_MAX];
    util_path_join(path, sizeof path, job->job_dir, f->name);
    if (!rc)
        rc = util_write_file_atomic(path, b.s ? b.s : "", b.len, err);
    util_buf_free(&b);
    if (rc == GD_EINPUT)
        return gd_errf(err, GD_EENV, "%s: %s", f->template_path, err->msg);
    return rc;
}

/* The job's command and environment, writing nothing. */
static int command_plan(const be_job *job, be_exec *x, gd_err *err)
{
    const camp_campaign *c = job->camp;
    int rc = be_expand(c->sim_command, job, 1, &x->command, err);
    if (rc)  /* validated at load; only an internal slip lands here */
        return gd_errf(err, GD_EENV, "%s: command: %s", c->path, err->msg);
    const camp_wlrun *w = &c->wlrun[job->wl_index];
    for (int i = 0; i < w->nenv && !rc; i++)
        if (be_exec_setenv(x, w->env[i].name, w->env[i].value) != 0)
            rc = gd_errf(err, GD_EENV, "too many environment variables");
    return rc;
}

static int command_prepare(const be_job *job, be_exec *x, gd_err *err)
{
    const camp_campaign *c = job->camp;
    int rc = GD_OK;
    for (int i = 0; i < c->nfiles && !rc; i++)
        rc = write_templated_file(job, &c->files[i], err);
    return rc ? rc : command_plan(job, x, err);
}

/* The matches of re in text[0..len) are those a scan from the start finds,
 * each search resuming where the last match ended (one byte further after
 * an empty match). REG_STARTEND bounds every call by len (no strlen of
 * the rest per match), so the scan is linear in the output, which the
 * output cap bounds. */

/* Search from *at; the match into m (offsets from text); 0 when found. */
static int match_from(const regex_t *re, const char *text, size_t len,
                      size_t at, regmatch_t *m, size_t nm)
{
    m[0].rm_so = (regoff_t)at;
    m[0].rm_eo = (regoff_t)len;
    return regexec(re, text, nm, m, REG_STARTEND | (at ? REG_NOTBOL : 0));
}

static size_t next_from(size_t at, const regmatch_t *m)
{
    return (size_t)m[0].rm_eo > at ? (size_t)m[0].rm_eo : at + 1;
}

/* The first group of the last match whose group took part, into val; 0
 * when found. The scan finds where matches start without their groups
 * (several times cheaper per match); only the last one is matched again
 * for its group. */
static int last_match(const regex_t *re, const char *text, size_t len,
                      char *val, size_t n)
{
    regmatch_t m[2];
    size_t at = 0, last = len + 1;
    while (at < len && match_from(re, text, len, at, m, 1) == 0) {
        last = at;
        at = next_from(at, m);
    }
    if (last > len || match_from(re, text, len, last, m, 2) != 0)
        return -1;
    if (m[1].rm_so < 0) {
        /* the last match has no group: the last one that had (rare, a
         * group in an alternative), by the slower full scan */
        int found = 0;
        regmatch_t g = m[1];
        for (at = 0; at < len && match_from(re, text, len, at, m, 2) == 0;
             at = next_from(at, m))
            if (m[1].rm_so >= 0) {
                g = m[1];
                found = 1;
            }
        if (!found)
            return -1;
        m[1] = g;
    }
    size_t glen = (size_t)(m[1].rm_eo - m[1].rm_so);
    if (glen >= n)
        glen = n - 1;
    memcpy(val, text + m[1].rm_so, glen);
    val[glen] = '\0';
    return 0;
}

/* Read every declared metric; returns ST_OK, ST_NO_STATS or ST_BAD_OUTPUT. */
static int read_metrics(const camp_campaign *c, const char *out,
                        size_t outlen, const char *errtext,
                        store_record *rec)
{
    for (int i = 0; i < c->nmetrics; i++) {
        const camp_metric *m = &c->metrics[i];
        regex_t re;
        if (regcomp(&re, m->regex, REG_EXTENDED) != 0)
            continue;  /* compiled once already at load */
        char val[128];
        int found = last_match(&re, out, outlen, val, sizeof val) == 0
                    || last_match(&re, errtext, strlen(errtext), val,
                                  sizeof val) == 0;
        regfree(&re);
        double d;
        if (!found && m->required) {
            snprintf(rec->reason, sizeof rec->reason, "metric %s: regex "
                     "matched nothing in the output", m->name);
            return ST_NO_STATS;
        }
        if (found && util_parse_double(val, &d) != 0) {
            snprintf(rec->reason, sizeof rec->reason, "metric %s: \"%.60s\" "
                     "is not a finite number", m->name, val);
            return ST_BAD_OUTPUT;
        }
        if (found)
            met_put(&rec->metrics, m->name, d);
    }
    return ST_OK;
}

/* All of a job's (capped) stdout, NULs made newlines so that binary output
 * hides no metric; "" when it wrote nothing. */
static char *read_stdout(const be_job *job, const exec_result *res,
                         size_t *len)
{
    char path[PATH_MAX], *all = NULL;
    *len = 0;
    util_path_join(path, sizeof path, job->job_dir, "stdout.log");
    if (res->out_bytes == 0 || util_read_file(path, &all, len, NULL) != GD_OK)
        return calloc(1, 1);
    for (size_t i = 0; i < *len; i++)
        if (all[i] == '\0')
            all[i] = '\n';
    return all;
}

static int command_finish(const be_job *job, const exec_result *res,
                          store_record *out, gd_err *err)
{
    /* Metrics may be anywhere in the output, not only the tail: one read
     * of all of it serves both. Nothing to read for an empty stream. */
    size_t len;
    char *all = read_stdout(job, res, &len);
    char *etail = res->err_bytes
                      ? be_read_tail(job->job_dir, "stderr.log", TAIL_BYTES)
                      : calloc(1, 1);
    if (!all || !etail) {
        free(all);
        free(etail);
        return gd_errf(err, GD_EENV, "out of memory");
    }
    const char *otail = all + (len > TAIL_BYTES ? len - TAIL_BYTES : 0);
    out->status = be_classify_process(res, otail, etail, out->reason,
                                      sizeof out->reason);
    if (out->status == ST_OK)
        out->status = read_metrics(job->camp, all, len, etail, out);
    be_attach_config_metrics(job, out);
    free(all);
    free(etail);
    return GD_OK;
}

int be_config_metric(const char *name)
{
    return name && strcmp(name, "area_mm2") == 0;
}

void be_config_metrics(const gpu_config *cfg, met_set *m)
{
    met_put(m, "area_mm2", model_area_mm2(cfg));
}

void be_attach_config_metrics(const be_job *job, store_record *r)
{
    double v;
    if (r->status != ST_OK || met_get(&r->metrics, "area_mm2", &v) == 0)
        return;
    if (met_put(&r->metrics, "area_mm2", model_area_mm2(&job->cfg)) != 0)
        return;
    size_t l = strlen(r->modelled);
    snprintf(r->modelled + l, sizeof r->modelled - l, "%sarea_mm2",
             l ? " " : "");
}

/* The model evaluates every built-in knob at any whole number the
 * campaign parser admits (1.., shmem_size 0..; model_eval), marking
 * configs outside its calibration extrapolated; it has no user knobs. */
static int analytic_takes_knob(const camp_campaign *camp, int k, char *why,
                               size_t n)
{
    (void)camp;
    if (k < SPACE_NKNOBS)
        return 1;
    snprintf(why, n, "the analytic model has no such knob");
    return 0;
}

/* A command takes any knob: {name} in its command and file templates. */
static int command_takes_knob(const camp_campaign *camp, int k, char *why,
                              size_t n)
{
    (void)camp;
    (void)k;
    (void)why;
    (void)n;
    return 1;
}

static const be_backend be_analytic = {
    "analytic", "modelled", 1, model_version, analytic_has_metric,
    analytic_run, NULL, NULL, NULL, NULL, NULL, NULL, analytic_takes_knob,
};

static const be_backend be_command = {
    "command", "measured", 0, command_version, any_metric, NULL,
    command_prepare, command_finish, NULL, NULL, NULL, command_plan,
    command_takes_knob,
};

static const be_backend *const backends[] = {
    &be_analytic, &be_command, &be_gpgpusim,
};

const be_backend *be_at(int i)
{
    int n = (int)(sizeof backends / sizeof backends[0]);
    return i >= 0 && i < n ? backends[i] : NULL;
}

const be_backend *be_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

/* Append a string to a fixed buffer (job keys' text has a known bound). */
static size_t put_str(char *dst, size_t off, size_t cap, const char *s)
{
    size_t len = strlen(s);
    if (off + len >= cap)
        len = off < cap ? cap - off - 1 : 0;
    memcpy(dst + off, s, len);
    return off + len;
}

void be_job_key(const be_backend *b, const char *sim_fingerprint,
                const space_def *s, const wl_workload *w, const gpu_config *c,
                uint64_t seed, char key[65])
{
    /* assembled by hand, not with snprintf: one key per job, in the
     * engine's hot loop */
    char canon[SPACE_CANON_MAX], seedtxt[24], text[SPACE_CANON_MAX + 1024];
    space_config_canon(s, c, canon, sizeof canon);
    snprintf(seedtxt, sizeof seedtxt, "%" PRIu64, seed);
    const char *parts[] = {
        "gpudse-job-v1\nbackend=", b->name, "\nbackend_version=",
        b->version(), "\nsimulator=", sim_fingerprint, "\nworkload=",
        w->name, "\nworkload_sha256=", w->sha256, "\nconfig=", canon,
        "\nseed=", seedtxt, "\n"};
    size_t n = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        n = put_str(text, n, sizeof text, parts[i]);
    util_sha256_hex(text, n, key);
}
