/* store_json: a journal record to its one-line JSON text (fixed key
 * order, shortest round-trip numbers) and back. Lines of the journal's own
 * layout are read without a JSON tree; anything else goes through cJSON,
 * which words the errors. */
#include "store.h"
#include "numtext.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

static const char *const status_names[ST__COUNT] = {
    "ok", "failed", "crashed", "timeout", "oom", "deadlock", "assert",
    "no-stats", "bad-output", "invalid-config",
};

const char *store_status_name(int st)
{
    return (st >= 0 && st < ST__COUNT) ? status_names[st] : "?";
}

int store_status_parse(const char *s)
{
    for (int i = 0; i < ST__COUNT; i++)
        if (strcmp(status_names[i], s) == 0)
            return i;
    return -1;
}

/* ---- JSON writing: fixed key order, shortest round-trip numbers ---- */

void store_json_str(util_buf *b, const char *s)
{
    util_buf_add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        /* copy runs of plain characters at once: keys, names, hex */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p != '"' && *p != '\\')
            p++;
        if (p > run)
            util_buf_add(b, (const char *)run, (size_t)(p - run));
        if (!*p)
            break;
        switch (*p) {
        case '"': util_buf_puts(b, "\\\""); break;
        case '\\': util_buf_puts(b, "\\\\"); break;
        case '\n': util_buf_puts(b, "\\n"); break;
        case '\r': util_buf_puts(b, "\\r"); break;
        case '\t': util_buf_puts(b, "\\t"); break;
        default:
            if (*p < 0x20)
                util_buf_printf(b, "\\u%04x", *p);
            else
                util_buf_add(b, (const char *)p, 1);
        }
    }
    util_buf_add(b, "\"", 1);
}

static void json_num(util_buf *b, double v)
{
    if (!isfinite(v)) {
        util_buf_puts(b, "null");
        return;
    }
    /* the fewest digits that read back as the same double (integers as
     * integers): exact, deterministic, and a third of %.17g's bytes on
     * typical metrics; journals written with 17 digits read the same */
    char s[NUM_TEXT_MAX];
    util_buf_add(b, s, num_short(v, s));
}

/* ,"modelled_metrics":["a","b"] from the space-separated names. */
static void modelled_to_json(util_buf *b, const char *names)
{
    util_buf_puts(b, ",\"modelled_metrics\":[");
    char buf[64], *save = NULL;
    util_strlcpy(buf, names, sizeof buf);
    int first = 1;
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (!first)
            util_buf_add(b, ",", 1);
        store_json_str(b, t);
        first = 0;
    }
    util_buf_puts(b, "]");
}

/* ,"name":level for each user knob of sp: a number when numeric. */
static void user_to_json(const space_def *sp, const gpu_config *c,
                         util_buf *b)
{
    for (int u = 0; sp && u < sp->nuser; u++) {
        char t[SPACE_TEXTLEN];
        int k = SPACE_NKNOBS + u;
        space_level_str(sp, k, c->user[u], t, sizeof t);
        util_buf_add(b, ",", 1);
        store_json_str(b, sp->user[u].name);
        util_buf_add(b, ":", 1);
        if (sp->user[u].numeric && strcmp(t, "?"))
            util_buf_puts(b, t);
        else
            store_json_str(b, t);
    }
}

void store_record_to_json(const store_record *r, util_buf *b)
{
    store_record_to_json_in(NULL, r, b);
}

void store_record_to_json_in(const space_def *sp, const store_record *r,
                             util_buf *b)
{
    util_buf_puts(b, "{\"key\":");
    store_json_str(b, r->key);
    util_buf_puts(b, ",\"workload\":");
    store_json_str(b, r->workload);
    util_buf_puts(b, ",\"backend\":");
    store_json_str(b, r->backend);
    util_buf_puts(b, ",\"fidelity\":");
    store_json_str(b, r->fidelity);
    util_buf_puts(b, ",\"config\":{");
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const space_knob_def *d = space_knob_get(k);
        if (k)
            util_buf_add(b, ",", 1);
        util_buf_add(b, "\"", 1);
        util_buf_puts(b, d->name);
        util_buf_add(b, "\":", 2);
        if (k == KNOB_SCHEDULER) {
            store_json_str(b, space_sched_name(space_get(&r->cfg, k)));
        } else {
            char s[NUM_TEXT_MAX];
            util_buf_add(b, s, num_int(space_get(&r->cfg, k), s));
        }
    }
    user_to_json(sp, &r->cfg, b);
    util_buf_puts(b, "},\"status\":");
    store_json_str(b, store_status_name(r->status));
    if (r->reason[0]) {
        util_buf_puts(b, ",\"reason\":");
        store_json_str(b, r->reason);
    }
    util_buf_puts(b, ",\"metrics\":{");
    for (int i = 0; i < r->metrics.n; i++) {
        if (i)
            util_buf_add(b, ",", 1);
        store_json_str(b, r->metrics.name[i]);
        util_buf_add(b, ":", 1);
        json_num(b, r->metrics.val[i]);
    }
    util_buf_puts(b, "}");
    if (r->limit[0]) {
        util_buf_puts(b, ",\"limit\":");
        store_json_str(b, r->limit);
    }
    if (r->bottleneck[0]) {
        util_buf_puts(b, ",\"bottleneck\":");
        store_json_str(b, r->bottleneck);
    }
    if (r->modelled[0])
        modelled_to_json(b, r->modelled);
    if (r->order > 0) {
        char s[NUM_TEXT_MAX];
        util_buf_puts(b, ",\"order\":");
        util_buf_add(b, s, num_int(r->order, s));
    }
    util_buf_puts(b, "}");
}

/* ---- JSON reading ---- */

static int get_str(const cJSON *o, const char *name, char *dst, size_t n,
                   int required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!v) {
        dst[0] = '\0';
        return required ? -1 : 0;
    }
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= n)
        return -1;
    strcpy(dst, v->valuestring);
    return 0;
}

static int get_order(const cJSON *o, long *order)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "order");
    *order = 0;
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e15)
        return -1;
    *order = (long)v->valuedouble;
    return 0;
}

/* User knob u of sp from o's member: its level index, -1 when sp does
 * not list the level. */
static int parse_user(const space_def *sp, int u, const cJSON *v, int *lv)
{
    char t[SPACE_TEXTLEN];
    if (cJSON_IsString(v) && strlen(v->valuestring) < sizeof t)
        util_strlcpy(t, v->valuestring, sizeof t);
    else if (cJSON_IsNumber(v) && v->valuedouble == (double)v->valueint)
        snprintf(t, sizeof t, "%d", v->valueint);
    else
        return -1;
    if (space_level_parse(sp, SPACE_NKNOBS + u, t, lv) != 0)
        *lv = -1;
    return 0;
}

static int parse_config(const space_def *sp, const cJSON *o, gpu_config *c,
                        const char **bad)
{
    *c = space_baseline();
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const space_knob_def *d = space_knob_get(k);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, d->name);
        int val;
        *bad = d->name;
        if (!v)
            return -1;
        if (k == KNOB_SCHEDULER) {
            if (!cJSON_IsString(v)
                || space_value_parse(k, v->valuestring, &val) != 0)
                return -1;
        } else {
            if (!cJSON_IsNumber(v))
                return -1;
            val = v->valueint;
        }
        space_set(c, k, val);
    }
    for (int u = 0; sp && u < sp->nuser; u++) {
        *bad = sp->user[u].name;
        if (parse_user(sp, u, cJSON_GetObjectItemCaseSensitive(o, *bad),
                       &c->user[u]) != 0)
            return -1;
    }
    return 0;
}

static int parse_metrics(const cJSON *o, met_set *m)
{
    m->n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, o) {
        double x = NAN;
        if (cJSON_IsNumber(v))
            x = v->valuedouble;
        else if (!cJSON_IsNull(v))
            return -1;
        if (strlen(v->string) >= MET_NAMELEN || met_put(m, v->string, x))
            return -1;
    }
    return 0;
}

/* "modelled_metrics": an array of metric names (absent: none). */
static int parse_modelled(const cJSON *o, char *dst, size_t n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "modelled_metrics");
    dst[0] = '\0';
    if (!a)
        return 0;
    if (!cJSON_IsArray(a))
        return -1;
    const cJSON *v;
    cJSON_ArrayForEach(v, a) {
        size_t l = strlen(dst);
        if (!cJSON_IsString(v) || !v->valuestring[0]
            || strchr(v->valuestring, ' ')
            || l + strlen(v->valuestring) + 2 > n)
            return -1;
        snprintf(dst + l, n - l, "%s%s", l ? " " : "", v->valuestring);
    }
    return 0;
}


/* ---- fast reading of the journal's own layout ----
 * A line as store_record_to_json writes it (fixed key order, strings
 * without escapes, plain numbers) is read without building a JSON tree;
 * anything else (escapes, another order, a damaged line) goes to the
 * cJSON reader, which also words every error. Numbers read exactly: a
 * mantissa below 2^53 with a power of ten up to 22 is one correctly
 * rounded IEEE operation (Clinger's fast path), others go to strtod. */

static const double exact_pow10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
    1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Expect the literal lit at *p; advance past it. */
static int lit(const char **p, const char *lit_)
{
    size_t n = strlen(lit_);
    if (strncmp(*p, lit_, n) != 0)
        return -1;
    *p += n;
    return 0;
}

/* A string without escapes into dst (size n); *p after the closing quote. */
static int fast_str(const char **p, char *dst, size_t n)
{
    const char *s = *p;
    if (*s != '"')
        return -1;
    const char *q = ++s;
    while (*q && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
        q++;
    if (*q != '"' || (size_t)(q - s) >= n)
        return -1;
    memcpy(dst, s, (size_t)(q - s));
    dst[q - s] = '\0';
    *p = q + 1;
    return 0;
}

/* A JSON number (or null: NaN) as strtod reads it. */
static int fast_num(const char **p, double *out)
{
    const char *s = *p, *c = s;
    if (*c == 'n' && strncmp(c, "null", 4) == 0) {
        *out = NAN;
        *p = c + 4;
        return 0;
    }
    int neg = *c == '-';
    c += neg;
    if (*c < '0' || *c > '9' || (*c == '0' && c[1] >= '0' && c[1] <= '9'))
        return -1;
    uint64_t d = 0;
    int nd = 0, e10 = 0;
    for (; *c >= '0' && *c <= '9'; c++)
        if (nd < 19) {
            d = d * 10 + (uint64_t)(*c - '0');
            nd += d != 0;
        } else {
            e10++;
            nd++;
        }
    if (*c == '.') {
        c++;
        if (*c < '0' || *c > '9')
            return -1;
        for (; *c >= '0' && *c <= '9'; c++)
            if (nd < 19) {
                d = d * 10 + (uint64_t)(*c - '0');
                nd += d != 0;
                e10--;
            } else {
                nd++;
            }
    }
    if (*c == 'e' || *c == 'E') {
        c++;
        int eneg = *c == '-', ev = 0;
        c += *c == '-' || *c == '+';
        if (*c < '0' || *c > '9')
            return -1;
        for (; *c >= '0' && *c <= '9'; c++)
            if (ev < 10000)
                ev = ev * 10 + (*c - '0');
        e10 += eneg ? -ev : ev;
    }
    if (nd <= 19 && d < (1ull << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)d;
        v = e10 < 0 ? v / exact_pow10[-e10] : v * exact_pow10[e10];
        *out = neg ? -v : v;
    } else {
        char *end;
        *out = strtod(s, &end);
        if (end != c)
            return -1;
    }
    *p = c;
    return 0;
}

/* A plain integer (config values, order). */
static int fast_long(const char **p, long *out, long max)
{
    const char *c = *p;
    int neg = *c == '-';
    c += neg;
    if (*c < '0' || *c > '9' || (*c == '0' && c[1] >= '0' && c[1] <= '9'))
        return -1;
    long v = 0;
    for (; *c >= '0' && *c <= '9'; c++) {
        if (v > max / 10)
            return -1;
        v = v * 10 + (*c - '0');
    }
    if (*c == '.' || *c == 'e' || *c == 'E')
        return -1;
    *out = neg ? -v : v;
    *p = c;
    return 0;
}

/* ,"name":level of user knob u (a string or a whole number). */
static int fast_user(const char **p, const space_def *sp, int u,
                     gpu_config *cfg)
{
    char t[SPACE_TEXTLEN];
    if (lit(p, ",\"") || lit(p, sp->user[u].name) || lit(p, "\":"))
        return -1;
    if (**p == '"') {
        if (fast_str(p, t, sizeof t))
            return -1;
    } else {
        long l;
        if (fast_long(p, &l, 1L << 30))
            return -1;
        snprintf(t, sizeof t, "%ld", l);
    }
    if (space_level_parse(sp, SPACE_NKNOBS + u, t, &cfg->user[u]) != 0)
        cfg->user[u] = -1;
    return 0;
}

static int fast_config(const char **p, const space_def *sp, gpu_config *cfg)
{
    *cfg = space_baseline();
    if (lit(p, "{"))
        return -1;
    for (int k = 0; k < SPACE_NKNOBS; k++) {
        const space_knob_def *d = space_knob_get(k);
        if ((k && lit(p, ",")) || lit(p, "\"") || lit(p, d->name)
            || lit(p, "\":"))
            return -1;
        int val;
        if (k == KNOB_SCHEDULER) {
            char name[32];
            if (fast_str(p, name, sizeof name)
                || space_value_parse(k, name, &val) != 0)
                return -1;
        } else {
            long l;
            if (fast_long(p, &l, 1000000000L))
                return -1;
            val = (int)l;
        }
        space_set(cfg, k, val);
    }
    for (int u = 0; sp && u < sp->nuser; u++)
        if (fast_user(p, sp, u, cfg))
            return -1;
    return lit(p, "}");
}

static int fast_metrics(const char **p, met_set *m)
{
    m->n = 0;
    if (lit(p, "{"))
        return -1;
    if (**p == '}') {
        (*p)++;
        return 0;
    }
    for (;;) {
        char name[MET_NAMELEN];
        double v;
        if (fast_str(p, name, sizeof name) || lit(p, ":")
            || fast_num(p, &v) || met_put(m, name, v))
            return -1;
        if (**p == '}') {
            (*p)++;
            return 0;
        }
        if (lit(p, ","))
            return -1;
    }
}

static int fast_modelled(const char **p, char *dst, size_t n)
{
    if (lit(p, "["))
        return -1;
    while (**p != ']') {
        char name[64];
        size_t l = strlen(dst);
        if ((l && lit(p, ",")) || fast_str(p, name, sizeof name) || !name[0]
            || strchr(name, ' ') || l + strlen(name) + 2 > n)
            return -1;
        snprintf(dst + l, n - l, "%s%s", l ? " " : "", name);
    }
    (*p)++;
    return dst[0] ? 0 : -1;
}

/* 0 when line was read; -1 when the cJSON reader must look at it. */
static int fast_record(const space_def *sp, const char *line,
                       store_record *r)
{
    const char *p = line;
    char status[32];
    memset(r, 0, sizeof *r);
    if (lit(&p, "{\"key\":") || fast_str(&p, r->key, sizeof r->key)
        || strlen(r->key) != 64
        || lit(&p, ",\"workload\":")
        || fast_str(&p, r->workload, sizeof r->workload)
        || lit(&p, ",\"backend\":")
        || fast_str(&p, r->backend, sizeof r->backend)
        || lit(&p, ",\"fidelity\":")
        || fast_str(&p, r->fidelity, sizeof r->fidelity)
        || lit(&p, ",\"config\":") || fast_config(&p, sp, &r->cfg)
        || lit(&p, ",\"status\":") || fast_str(&p, status, sizeof status)
        || (r->status = store_status_parse(status)) < 0)
        return -1;
    if (!lit(&p, ",\"reason\":")
        && fast_str(&p, r->reason, sizeof r->reason))
        return -1;
    if (lit(&p, ",\"metrics\":") || fast_metrics(&p, &r->metrics))
        return -1;
    if (!lit(&p, ",\"limit\":") && fast_str(&p, r->limit, sizeof r->limit))
        return -1;
    if (!lit(&p, ",\"bottleneck\":")
        && fast_str(&p, r->bottleneck, sizeof r->bottleneck))
        return -1;
    if (!lit(&p, ",\"modelled_metrics\":")
        && fast_modelled(&p, r->modelled, sizeof r->modelled))
        return -1;
    if (!lit(&p, ",\"order\":")
        && (fast_long(&p, &r->order, 1000000000000000L) || r->order < 1))
        return -1;
    return strcmp(p, "}") == 0 ? 0 : -1;
}

int store_record_from_json(const char *line, const char *file, int lineno,
                           store_record *r, gd_err *err)
{
    return store_record_from_json_in(NULL, line, file, lineno, r, err);
}

int store_record_from_json_in(const space_def *sp, const char *line,
                              const char *file, int lineno, store_record *r,
                              gd_err *err)
{
    if (fast_record(sp, line, r) == 0)
        return GD_OK;
    memset(r, 0, sizeof *r);
    cJSON *o = cJSON_Parse(line);
    if (!o || !cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return gd_errf(err, GD_EINPUT, "%s:%d: not a JSON object", file,
                       lineno);
    }
    const char *what = NULL, *bad = "";
    char status[32];
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "config");
    const cJSON *met = cJSON_GetObjectItemCaseSensitive(o, "metrics");
    if (get_str(o, "key", r->key, sizeof r->key, 1) || strlen(r->key) != 64)
        what = "key";
    else if (get_str(o, "workload", r->workload, sizeof r->workload, 1))
        what = "workload";
    else if (get_str(o, "backend", r->backend, sizeof r->backend, 1))
        what = "backend";
    else if (get_str(o, "fidelity", r->fidelity, sizeof r->fidelity, 1))
        what = "fidelity";
    else if (!cJSON_IsObject(cfg) || parse_config(sp, cfg, &r->cfg, &bad))
        what = "config";
    else if (get_str(o, "status", status, sizeof status, 1)
             || (r->status = store_status_parse(status)) < 0)
        what = "status";
    else if (get_str(o, "reason", r->reason, sizeof r->reason, 0))
        what = "reason";
    else if (!cJSON_IsObject(met) || parse_metrics(met, &r->metrics))
        what = "metrics";
    else if (get_str(o, "limit", r->limit, sizeof r->limit, 0))
        what = "limit";
    else if (get_str(o, "bottleneck", r->bottleneck, sizeof r->bottleneck, 0))
        what = "bottleneck";
    else if (parse_modelled(o, r->modelled, sizeof r->modelled))
        what = "modelled_metrics";
    else if (get_order(o, &r->order))
        what = "order";
    cJSON_Delete(o);
    if (what)
        return gd_errf(err, GD_EINPUT, "%s:%d: record has a missing or bad "
                       "\"%s\"%s%s", file, lineno, what, *bad ? " at " : "",
                       bad);
    return GD_OK;
}

