/* propose: turns an LLM's proposed config text into a gpu_config only when
 * it is plain knob=value syntax, every value is one of the knob's levels and
 * inside the campaign's space, and the config was not tried before; any
 * other text is rejected with its reason. Nothing of the reply goes further
 * than the returned config. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents_propose.h"

#define MAX_LIST 1024

/* A short printable excerpt of untrusted text for a reason message. */
static void excerpt(const char *s, size_t len, char *out, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < len && j + 4 < n && i < 40; i++) {
        unsigned char ch = (unsigned char)s[i];
        out[j++] = (ch >= 0x20 && ch < 0x7f && ch != '"') ? (char)ch : '?';
    }
    if (len > 40 && j + 4 < n) {
        memcpy(out + j, "...", 3);
        j += 3;
    }
    out[j] = 0;
}

static int reject(char *reason, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int reject(char *reason, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, n, fmt, ap);
    va_end(ap);
    return GD_EINPUT;
}

/* Find the list to parse: the text after the last "CONFIG:" at the start of
 * a line, up to the end of that line; without one, the whole reply. */
static int find_list(const char *reply, const char **start, size_t *len)
{
    const char *best = NULL;
    for (const char *p = reply; p && *p;) {
        const char *q = p;
        while (*q == ' ' || *q == '\t' || *q == '`' || *q == '*')
            q++;
        if (strncmp(q, "CONFIG:", 7) == 0)
            best = q + 7;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (best) {
        const char *e = strchr(best, '\n');
        *start = best;
        *len = e ? (size_t)(e - best) : strlen(best);
    } else {
        *start = reply;
        *len = strlen(reply);
    }
    while (*len && isspace((unsigned char)(*start)[*len - 1]))
        (*len)--;
    while (*len && isspace((unsigned char)**start)) {
        (*start)++;
        (*len)--;
    }
    return *len == 0 || *len >= MAX_LIST ? -1 : 0;
}

/* Only letters, digits, '_', '=', ',' and blanks may appear. */
static int plain_syntax(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!(isalnum(ch) || ch == '_' || ch == '=' || ch == ',' || ch == ' '
              || ch == '\t'))
            return (int)i;
    }
    return -1;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    size_t i = 0;
    while (isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, strlen(s + i) + 1);
}

static int in_space(const space_def *s, int knob, int value)
{
    for (int i = 0; i < s->nlevels[knob]; i++)
        if (s->levels[knob][i] == value)
            return 1;
    return 0;
}

static void allowed_text(const space_def *s, int knob, char *b, size_t n)
{
    size_t used = 0;
    b[0] = 0;
    for (int i = 0; i < s->nlevels[knob] && used < n; i++) {
        char v[SPACE_TEXTLEN];
        used += (size_t)snprintf(b + used, n - used, "%s%s", i ? " " : "",
                                 space_level_str(s, knob, s->levels[knob][i],
                                                 v, sizeof v));
    }
}

/* One "name=value" item into cfg. */
static int parse_item(char *item, const space_def *s, gpu_config *cfg,
                      int *seen, char *reason, size_t n)
{
    char ex[64];
    char *eq = strchr(item, '=');
    if (!eq || strchr(eq + 1, '=')) {
        excerpt(item, strlen(item), ex, sizeof ex);
        return reject(reason, n, "\"%s\" is not knob=value", ex);
    }
    *eq = 0;
    char *name = item, *val = eq + 1;
    trim(name);
    trim(val);
    int k = space_knob_index(s, name);   /* built-in or the campaign's */
    if (k < 0) {
        excerpt(name, strlen(name), ex, sizeof ex);
        return reject(reason, n, "unknown knob \"%s\"", ex);
    }
    if (seen[k])
        return reject(reason, n, "knob %s is given twice", name);
    seen[k] = 1;
    int v;
    char allowed[200];
    allowed_text(s, k, allowed, sizeof allowed);
    if (space_level_parse(s, k, val, &v) != 0 || !in_space(s, k, v)) {
        excerpt(val, strlen(val), ex, sizeof ex);
        snprintf(reason, n, "%s=%s is outside the campaign's space "
                 "(allowed: %s)", name, ex, allowed);
        return GD_EINPUT;
    }
    space_set(cfg, k, v);
    return GD_OK;
}

size_t agents_proposal_lines(const char *reply, const char **start,
                             size_t *len, size_t max)
{
    size_t n = 0;
    for (const char *p = reply; p && *p && n < max;) {
        const char *q = p, *e = strchr(p, '\n');
        while (*q == ' ' || *q == '\t' || *q == '`' || *q == '*')
            q++;
        if (strncmp(q, "CONFIG:", 7) == 0) {
            const char *b = q + 7, *end = e ? e : b + strlen(b);
            while (b < end && (isspace((unsigned char)*b) || *b == '`'
                               || *b == '*'))
                b++;
            while (end > b && (isspace((unsigned char)end[-1])
                               || end[-1] == '`' || end[-1] == '*'))
                end--;
            start[n] = b;
            len[n++] = (size_t)(end - b);
        }
        p = e ? e + 1 : NULL;
    }
    return n;
}

int agents_proposal_parse(const char *reply, const space_def *s,
                          const gpu_config *base, const gpu_config *tried,
                          size_t ntried, gpu_config *out, char *reason,
                          size_t reasonsz)
{
    const char *list;
    size_t len;
    char ex[64], buf[MAX_LIST];
    if (!reply || find_list(reply, &list, &len) != 0)
        return reject(reason, reasonsz, "no CONFIG: line with a knob list "
                      "in the reply");
    int bad = plain_syntax(list, len);
    if (bad >= 0) {
        excerpt(list, len, ex, sizeof ex);
        char at[8];
        snprintf(at, sizeof at, "%d", bad + 1);
        return reject(reason, reasonsz, "\"%s\" has a character outside "
                      "knob=value syntax at column %s", ex, at);
    }
    memcpy(buf, list, len);
    buf[len] = 0;
    gpu_config cfg = *base;
    int seen[SPACE_MAXKNOBS] = {0};
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        int rc = parse_item(item, s, &cfg, seen, reason, reasonsz);
        if (rc)
            return rc;
    }
    for (int k = 0; k < space_nknobs(s); k++)
        if (!in_space(s, k, space_get(&cfg, k))) {
            char v[SPACE_TEXTLEN];
            space_level_str(s, k, space_get(&cfg, k), v, sizeof v);
            return reject(reason, reasonsz, "the base value %s of %s is "
                          "outside the campaign's space; name the knob", v,
                          space_knob_name(s, k));
        }
    for (size_t i = 0; i < ntried; i++)
        if (memcmp(&tried[i], &cfg, sizeof cfg) == 0) {
            char canon[SPACE_CANON_MAX];
            space_config_canon(s, &cfg, canon, sizeof canon);
            return reject(reason, reasonsz, "%s was already tried", canon);
        }
    *out = cfg;
    if (reasonsz)
        reason[0] = 0;
    return GD_OK;
}

int agents_llm_propose(agents_llm *l, const char *datadir, const char *facts,
                       const space_def *s, const gpu_config *base,
                       const gpu_config *tried, size_t ntried,
                       gpu_config *out, char *reason, size_t reasonsz,
                       gd_err *err)
{
    char path[4300], *sys = NULL, *reply = NULL;
    size_t len;
    int cached;
    if (reasonsz)
        reason[0] = 0;
    int rc = util_path_join(path, sizeof path, datadir, "agents/propose.txt");
    if (!rc)
        rc = util_read_file(path, &sys, &len, err);
    if (!rc)
        rc = agents_llm_ask(l, sys, facts, &reply, &cached, err);
    if (!rc) {
        rc = agents_proposal_parse(reply, s, base, tried, ntried, out, reason,
                                   reasonsz);
        if (rc)
            gd_errf(err, rc, "agents: proposal rejected: %s", reason);
    }
    free(sys);
    free(reply);
    return rc;
}
