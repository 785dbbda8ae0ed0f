/* campaign_knobs: the <space> section of a campaign file — built-in knobs
 * at any whole-number levels, user knobs (categorical or numeric: a values=
 * list, a linear range from= to= step=, or a log2 range from= to= log2=),
 * their gpgpusim option=, into the campaign's space_def. Which backend can
 * take which knob is the backends' check (be_check_campaign). */
#include "campaign_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Placeholders the command backend gives besides the knobs. */
static const char *const reserved[] = {"workload", "job_dir", "campaign_dir",
                                       "seed", NULL};

/* A user knob's name: a C-like identifier, 1 to 31 characters. */
static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= SPACE_TEXTLEN || !strchr("abcdefghijklmnopqrstuvwxyz"
                                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ_",
                                                 s[0]))
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_") == n;
}

/* A level's text: letters, digits and _ . + - : / (no blank, comma, '=' or
 * quote: it stands in canonical text, CSV cells and file names). */
static int text_ok(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < SPACE_TEXTLEN
           && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789_.+-:/") == n;
}

/* Append level text t to knob k (user knobs: its text; built-in: its
 * value). */
static int add_level(ctx_t *x, xmlNodePtr n, int k, const char *t)
{
    space_def *s = &x->c->space;
    const char *name = space_knob_name(s, k);
    int v;
    if (s->nlevels[k] == SPACE_MAXLEVELS)
        return fail(x, n, "knob %s has too many levels (at most %d)", name,
                    SPACE_MAXLEVELS);
    if (k < SPACE_NKNOBS) {
        long lo = k == KNOB_SHMEM_SIZE || k == KNOB_SCHEDULER ? 0 : 1;
        if (space_level_parse(s, k, t, &v) != 0 || v < lo)
            return fail(x, n, "value \"%s\" is not allowed for knob %s (%s)",
                        t, name, k == KNOB_SCHEDULER
                                     ? "allowed: gto lrr two_level_active"
                                     : lo ? "a whole number 1 to 2^30"
                                          : "a whole number 0 to 2^30");
    } else {
        space_user_knob *u = &s->user[k - SPACE_NKNOBS];
        if (!text_ok(t))
            return fail(x, n, "value \"%s\" of knob %s: a level is 1 to %d "
                        "letters, digits or _ . + - : /", t, name,
                        SPACE_TEXTLEN - 1);
        util_strlcpy(u->text[s->nlevels[k]], t, sizeof u->text[0]);
        v = s->nlevels[k];
    }
    for (int i = 0; i < s->nlevels[k]; i++) {
        char a[SPACE_TEXTLEN];
        space_level_str(s, k, s->levels[k][i], a, sizeof a);
        if (k < SPACE_NKNOBS ? s->levels[k][i] == v : !strcmp(a, t))
            return fail(x, n, "value \"%s\" is listed twice for knob %s", t,
                        name);
    }
    s->levels[k][s->nlevels[k]++] = v;
    return GD_OK;
}

/* values="a b c": whitespace or comma separated. */
static int list_levels(ctx_t *x, xmlNodePtr n, int k, const char *values)
{
    char buf[4096];
    if (strlen(values) >= sizeof buf)
        return fail(x, n, "values of knob %s are too long", space_knob_name(
                    &x->c->space, k));
    util_strlcpy(buf, values, sizeof buf);
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t\n,", &save); t;
         t = strtok_r(NULL, " \t\n,", &save)) {
        char norm[SPACE_TEXTLEN];
        long l;
        /* numeric user levels in canonical decimal ("040" is "40") */
        if (k >= SPACE_NKNOBS && !util_parse_long(t, -(1L << 30), 1L << 30, &l)) {
            snprintf(norm, sizeof norm, "%ld", l);
            t = norm;
        }
        int rc = add_level(x, n, k, t);
        if (rc)
            return rc;
    }
    return GD_OK;
}

static int long_attr(ctx_t *x, xmlNodePtr n, const char *name, long lo,
                     long hi, long *out)
{
    char *v = attr(n, name);
    int rc = GD_OK;
    if (!v)
        rc = fail(x, n, "a range needs from=, to= and step= or log2=");
    else if (util_parse_long(v, lo, hi, out) != 0)
        rc = fail(x, n, "%s must be a whole number %ld to %ld (got \"%s\")",
                  name, lo, hi, v);
    xmlFree(v);
    return rc;
}

/* from= to= step=N: from, from+N, ... to; from= to= log2=N: from,
 * from*2^N, ... to. to must be reached exactly. */
static int range_levels(ctx_t *x, xmlNodePtr n, int k)
{
    const long big = 1L << 30;
    char *step = attr(n, "step"), *lg = attr(n, "log2");
    int haslog = lg != NULL, hasstep = step != NULL;
    xmlFree(step);
    xmlFree(lg);
    long from, to, by;
    int rc = long_attr(x, n, "from", -big, big, &from);
    if (!rc)
        rc = long_attr(x, n, "to", -big, big, &to);
    if (!rc && haslog == hasstep)
        rc = fail(x, n, "a range takes step= (linear) or log2= (geometric), "
                  "one of them");
    if (!rc)
        rc = long_attr(x, n, hasstep ? "step" : "log2", 1, hasstep ? big : 30,
                       &by);
    if (!rc && (to < from || (haslog && from < 1)))
        rc = fail(x, n, "range of knob %s: from=%ld to=%ld must have "
                  "from <= to%s", space_knob_name(&x->c->space, k), from, to,
                  haslog ? " and from >= 1 (log2=)" : "");
    if (rc)
        return rc;
    long v = from;
    while (!rc && v < to) {
        char t[24];
        snprintf(t, sizeof t, "%ld", v);
        rc = add_level(x, n, k, t);
        v = hasstep ? v + by : v << by;
    }
    if (!rc && v != to)
        return fail(x, n, "range of knob %s does not reach to=%ld: %s",
                    space_knob_name(&x->c->space, k), to,
                    hasstep ? "to - from must be a multiple of step="
                            : "to must be from times a power of 2^log2");
    if (!rc) {
        char t[24];
        snprintf(t, sizeof t, "%ld", to);
        rc = add_level(x, n, k, t);
    }
    return rc;
}

/* A new user knob called name, or GD_EINPUT. */
static int new_user(ctx_t *x, xmlNodePtr n, const char *name, int *k)
{
    space_def *s = &x->c->space;
    const char *hint = space_knob_suggest(name);
    if (!name_ok(name))
        return fail(x, n, "knob name \"%s\": a name is 1 to %d letters, "
                    "digits or _, not starting with a digit", name,
                    SPACE_TEXTLEN - 1);
    for (int i = 0; reserved[i]; i++)
        if (!strcmp(reserved[i], name))
            return fail(x, n, "knob name \"%s\" is reserved (the {%s} "
                        "placeholder)", name, name);
    if (met_is_known(name))
        return fail(x, n, "knob name \"%s\" is a metric's name", name);
    if (s->nuser == SPACE_MAXUSER)
        return fail(x, n, "too many user knobs (at most %d)%s%s%s",
                    SPACE_MAXUSER, hint ? "; did you mean \"" : "",
                    hint ? hint : "", hint ? "\"?" : "");
    *k = SPACE_NKNOBS + s->nuser;
    space_user_knob *u = &s->user[s->nuser++];
    memset(u, 0, sizeof *u);
    util_strlcpy(u->name, name, sizeof u->name);
    return GD_OK;
}

/* A user knob is numeric when every level is a whole number. */
static void set_numeric(space_def *s, int k)
{
    space_user_knob *u = &s->user[k - SPACE_NKNOBS];
    long l;
    u->numeric = 1;
    for (int i = 0; i < s->nlevels[k]; i++)
        if (util_parse_long(u->text[i], -(1L << 30), 1L << 30, &l) != 0)
            u->numeric = 0;
}

static int parse_knob(ctx_t *x, xmlNodePtr n, int *seen)
{
    space_def *s = &x->c->space;
    char *name = attr(n, "name"), *values = attr(n, "values");
    char *opt = attr(n, "option");
    int k = space_knob_index(s, name ? name : ""), rc = GD_OK;
    if (k >= 0 && seen[k])
        rc = fail(x, n, "knob %s is listed twice", name);
    else if (k < 0)
        rc = new_user(x, n, name ? name : "", &k);
    if (!rc && opt && k < SPACE_NKNOBS)
        rc = fail(x, n, "option= maps a user knob to a GPGPU-Sim option; "
                  "built-in knob %s has its own rule", name);
    if (!rc) {
        seen[k] = 1;
        s->line[k] = line_of(n);
        s->nlevels[k] = 0;
        rc = values ? list_levels(x, n, k, values) : range_levels(x, n, k);
    }
    if (!rc && s->nlevels[k] == 0)
        rc = fail(x, n, "knob %s has no values", name);
    if (!rc && k >= SPACE_NKNOBS) {
        set_numeric(s, k);
        util_strlcpy(s->user[k - SPACE_NKNOBS].option, opt ? opt : "",
                     sizeof s->user[0].option);
    }
    xmlFree(name);
    xmlFree(values);
    xmlFree(opt);
    return rc;
}

/* The space may not overflow a 64-bit index. */
static int size_ok(const space_def *s)
{
    uint64_t n = 1;
    for (int k = 0; k < space_nknobs(s); k++) {
        if (n > UINT64_MAX / (uint64_t)s->nlevels[k])
            return 0;
        n *= (uint64_t)s->nlevels[k];
    }
    return 1;
}

int campx_space(ctx_t *x, xmlNodePtr list)
{
    int seen[SPACE_MAXKNOBS] = {0};
    for (xmlNodePtr n = list->children; n; n = n->next) {
        if (!is_elem(n, "knob"))
            continue;
        int rc = parse_knob(x, n, seen);
        if (!rc && !size_ok(&x->c->space))
            rc = fail(x, n, "the space has more than 2^64 points");
        if (rc)
            return rc;
    }
    return GD_OK;
}
