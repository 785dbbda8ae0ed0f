/* parseopt: parses a command's arguments by its option table and prints
 * the help and the usage from the same table (parseopt.h says how). */
#include "parseopt.h"

#include <stdarg.h>
#include <string.h>

/* Column of the options' help text, after "  NAME ARG" and padding. */
#define PO_COL 22

static int takes_value(const po_option *o)
{
    return o->type != PO_T_FLAG && o->type != PO_T_OPTDOUBLE;
}

/* The option that arg names (up to a '=' after a long option's name). */
static const po_option *find(const po_option *opts, const char *arg,
                             const char **eq)
{
    size_t n = strlen(arg);
    *eq = NULL;
    if (!strncmp(arg, "--", 2) && strchr(arg, '=')) {
        *eq = strchr(arg, '=') + 1;
        n = (size_t)(*eq - 1 - arg);
    }
    for (const po_option *o = opts; o && o->type != PO_T_END; o++)
        if (strlen(o->name) == n && !strncmp(o->name, arg, n))
            return o;
    return NULL;
}

static void print_help_lines(FILE *f, const char *help)
{
    for (const char *p = help; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (p != help)
            fprintf(f, "%*s", PO_COL, "");
        fprintf(f, "%.*s\n", (int)n, p);
        p += n + (nl != NULL);
    }
}

static void print_options(const po_command *cmd, FILE *f)
{
    if (!cmd->opts || cmd->opts[0].type == PO_T_END)
        return;
    fputc('\n', f);
    for (const po_option *o = cmd->opts; o->type != PO_T_END; o++) {
        char left[128];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->argh ? " " : "",
                 o->argh ? o->argh : "");
        if (strlen(left) <= PO_COL - 4)
            fprintf(f, "  %-*s", PO_COL - 2, left);
        else
            fprintf(f, "  %s\n%*s", left, PO_COL, "");
        print_help_lines(f, o->help);
    }
}

void po_help(const po_command *cmd, FILE *f)
{
    fputs(cmd->usage, f);
    if (cmd->about)
        fprintf(f, "\n%s", cmd->about);
    print_options(cmd, f);
    if (cmd->tail)
        fprintf(f, "\n%s", cmd->tail);
}

int po_usage_error(const po_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpudse %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fputs(cmd->usage, stderr);
    print_options(cmd, stderr);
    return GD_EINPUT;
}

/* -h or --help among the options (not as an option's value, not after
 * `--`): the help is all the command does. */
static int asks_help(const po_command *cmd, int argc, char **argv)
{
    for (int i = 0; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
        const char *eq;
        const po_option *o = find(cmd->opts, argv[i], &eq);
        double d;
        if (o && !eq && takes_value(o))
            i++;
        else if (o && !eq && o->type == PO_T_OPTDOUBLE && i + 1 < argc
                 && util_parse_double(argv[i + 1], &d) == 0)
            i++;
    }
    return 0;
}

static int bad_value(const po_command *cmd, const po_option *o,
                     const char *v, const char *what)
{
    if (o->expect)
        return po_usage_error(cmd, "%s needs %s, not \"%s\"", o->name,
                              o->expect, v);
    return po_usage_error(cmd, "%s takes %s from %.17g to %.17g, not \"%s\"",
                          o->name, what, o->min, o->max, v);
}

/* Stores v (the option's value) through o; GD_OK or a usage error. */
static int store(const po_command *cmd, const po_option *o, const char *v)
{
    long l;
    double d;
    gd_err err = {0, ""};
    switch (o->type) {
    case PO_T_STRING:
        *(const char **)o->value = v;
        return GD_OK;
    case PO_T_LONG:
        if (util_parse_long(v, (long)o->min, (long)o->max, &l) != 0)
            return bad_value(cmd, o, v, "a whole number");
        *(long *)o->value = l;
        return GD_OK;
    case PO_T_DOUBLE:
    case PO_T_OPTDOUBLE:
        if (util_parse_double(v, &d) != 0 || d < o->min || d > o->max)
            return bad_value(cmd, o, v, "a number");
        *(double *)o->value = d;
        return GD_OK;
    case PO_T_CALLBACK:
        if (o->cb(o->value, v, &err) == GD_OK)
            return GD_OK;
        return po_usage_error(cmd, "%s", err.msg);
    default:
        return po_usage_error(cmd, "%s takes no value", o->name);
    }
}

/* One option at argv[*i]; moves *i past its value. GD_OK or a usage error. */
static int parse_one(const po_command *cmd, int argc, char **argv, int *i)
{
    const char *eq, *arg = argv[*i];
    const po_option *o = find(cmd->opts, arg, &eq);
    if (!o)
        return po_usage_error(cmd, "unknown option %s", arg);
    if (o->type == PO_T_FLAG) {
        if (eq)
            return po_usage_error(cmd, "%s takes no value", o->name);
        *(int *)o->value = 1;
        return GD_OK;
    }
    if (o->type == PO_T_OPTDOUBLE && !eq) {
        double d;
        *(double *)o->value = o->dflt;
        if (*i + 1 < argc && util_parse_double(argv[*i + 1], &d) == 0)
            return store(cmd, o, argv[++*i]);
        return GD_OK;
    }
    if (eq)
        return store(cmd, o, eq);
    if (*i + 1 >= argc)
        return po_usage_error(cmd, "%s needs a value (%s)", o->name,
                              o->argh ? o->argh : "");
    return store(cmd, o, argv[++*i]);
}

int po_parse(const po_command *cmd, int argc, char **argv, int *code)
{
    if (asks_help(cmd, argc, argv)) {
        po_help(cmd, stdout);
        *code = GD_OK;
        return -1;
    }
    int npos = 0, dashdash = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!dashdash && !strcmp(a, "--")) {
            dashdash = 1;
        } else if (!dashdash && a[0] == '-' && a[1]) {
            if ((*code = parse_one(cmd, argc, argv, &i)) != GD_OK)
                return -1;
        } else {
            argv[npos++] = argv[i];   /* npos <= i: nothing unread is lost */
        }
    }
    *code = GD_OK;
    return npos;
}
