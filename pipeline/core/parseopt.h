/* parseopt: one option table per command that both parses the command's
 * arguments and prints its help and its usage (after git's parse-options).
 *
 * A command declares its options in an array ending with PO_END, each
 * pointing at the variable it sets, and a po_command with its usage lines,
 * a paragraph about it and that table:
 *
 *     const char *out = NULL;  int quiet = 0;
 *     po_option opts[] = {
 *         PO_STRING("-o", "DIR", &out, "run directory"),
 *         PO_FLAG("-q", &quiet, "no progress lines"),
 *         PO_END_OPTS,
 *     };
 *     po_command cmd = {"run", "usage: gpudse run CAMPAIGN [-o DIR] [-q]\n",
 *                       "Run CAMPAIGN.\n", opts, NULL};
 *     int rc, n = po_parse(&cmd, argc, argv, &rc);
 *     if (n < 0)
 *         return rc;                       -- -h printed the help, or a
 *                                             usage error was printed
 *     ... argv[0..n) are the positional arguments, in order ...
 *
 * -h and --help anywhere print the help on stdout (exit 0) before anything
 * else is looked at. A usage error prints one line saying what is wrong,
 * then the command's usage and options, on stderr (exit 2). Long options
 * take their value as `--name VALUE` or `--name=VALUE`; `--` ends the
 * options; `-` alone is a positional argument. */
#ifndef GPUDSE_PARSEOPT_H
#define GPUDSE_PARSEOPT_H

#include <stdio.h>

#include "util.h"

typedef enum {
    PO_T_END = 0,
    PO_T_FLAG,       /* int *: set to 1 */
    PO_T_STRING,     /* const char **: the value as given */
    PO_T_LONG,       /* long *: a whole number in [min, max] */
    PO_T_DOUBLE,     /* double *: a finite number in [min, max] */
    PO_T_OPTDOUBLE,  /* double *: dflt, or the next argument when it is a
                        number (`--watch [S]`); then it must be in range */
    PO_T_CALLBACK    /* cb(value, arg, err) parses and stores the value */
} po_type;

/* A callback's answer: GD_OK, or GD_EINPUT with err's message saying what
 * is wrong with arg (printed as the usage error's line). */
typedef int (*po_cb)(void *value, const char *arg, gd_err *err);

typedef struct {
    po_type type;
    const char *name;    /* "-o", "--executor" */
    const char *argh;    /* the value's name in the help ("DIR"); NULL: none */
    void *value;
    double min, max;     /* PO_T_LONG, PO_T_DOUBLE, PO_T_OPTDOUBLE */
    double dflt;         /* PO_T_OPTDOUBLE without a number after it */
    po_cb cb;            /* PO_T_CALLBACK */
    const char *expect;  /* what a bad value should have been, in the error:
                            "a number of workers from 1 to 4096"; NULL: said
                            from the range */
    const char *help;    /* lines separated by '\n', indented in the help */
} po_option;

#define PO_FLAG(n, v, h) \
    {PO_T_FLAG, (n), NULL, (v), 0, 0, 0, NULL, NULL, (h)}
#define PO_STRING(n, a, v, h) \
    {PO_T_STRING, (n), (a), (v), 0, 0, 0, NULL, NULL, (h)}
#define PO_LONG(n, a, v, lo, hi, e, h) \
    {PO_T_LONG, (n), (a), (v), (lo), (hi), 0, NULL, (e), (h)}
#define PO_DOUBLE(n, a, v, lo, hi, e, h) \
    {PO_T_DOUBLE, (n), (a), (v), (lo), (hi), 0, NULL, (e), (h)}
#define PO_OPTDOUBLE(n, a, v, d, lo, hi, e, h) \
    {PO_T_OPTDOUBLE, (n), (a), (v), (lo), (hi), (d), NULL, (e), (h)}
#define PO_CALLBACK(n, a, v, f, h) \
    {PO_T_CALLBACK, (n), (a), (v), 0, 0, 0, (f), NULL, (h)}
#define PO_END_OPTS {PO_T_END, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL}

typedef struct {
    const char *name;     /* "run", "machine": prefixes the usage errors */
    const char *usage;    /* "usage: gpudse run CAMPAIGN ...\n", lines */
    const char *about;    /* a paragraph (lines ending in '\n'); NULL: none */
    const po_option *opts;  /* ends with PO_END_OPTS; NULL: no options */
    const char *tail;     /* text after the options (notes); NULL: none */
} po_command;

/* Parses argv[0..argc) by cmd's table, setting each option's variable and
 * moving the positional arguments, in order, to argv[0..n). Returns n; or
 * -1 with *code 0 after printing the help (-h, --help) on stdout, or with
 * *code GD_EINPUT after printing a usage error. */
int po_parse(const po_command *cmd, int argc, char **argv, int *code);

/* The whole help: usage, about, options, tail. */
void po_help(const po_command *cmd, FILE *f);

/* A usage error: "gpudse NAME: MESSAGE", then cmd's usage and options, on
 * stderr. Returns GD_EINPUT, the exit code of a usage error. */
int po_usage_error(const po_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
