/* testutil: includes and small helpers shared by the Check suites. */
#ifndef GPUDSE_TESTUTIL_H
#define GPUDSE_TESTUTIL_H

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run one suite and return the process exit status. */
static inline int tu_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The gpudse binary under test: $GPUDSE_BIN (sanitizer builds) or ./gpudse. */
static inline const char *tu_bin(void)
{
    const char *b = getenv("GPUDSE_BIN");
    return b && *b ? b : "./gpudse";
}

/* The whole file at path, NUL-terminated (malloc'd; the caller frees it),
 * its length in *len when len is not NULL; NULL when it cannot be opened.
 * For a file that may be absent. */
static inline char *tu_slurp_opt(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    ck_assert_msg(s != NULL, "cannot read %s", path);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    if (len)
        *len = got;
    return s;
}

/* The same for a file the test needs: fails the test when it cannot be
 * read. */
static inline char *tu_slurp(const char *path, size_t *len)
{
    char *s = tu_slurp_opt(path, len);
    ck_assert_msg(s != NULL, "cannot read %s", path);
    return s;
}

/* Write text to path (test fixtures); aborts the test on failure. */
static inline void tu_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Does msg name "NAME:LINE:" with LINE > 0, NAME being a path or its tail? */
static inline int names_file_line(const char *msg, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(msg, name); p; p = strstr(p + 1, name)) {
        const char *q = p + n;
        if (*q != ':' || !isdigit((unsigned char)q[1]))
            continue;
        long line = strtol(q + 1, (char **)&q, 10);
        if (*q == ':' && line > 0)
            return 1;
    }
    return 0;
}

/* Whether pid is gone: no such process, or a zombie (reaped by someone
 * else later). Waits up to 5 s for it to go. */
static inline int pid_gone(pid_t pid)
{
    for (int i = 0; i < 500; i++) {
        char path[64], state = 'X';
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%*d %*s %c", &state) != 1)
                state = 'X';
            fclose(f);
        }
        if (!f || state == 'Z' || state == 'X')
            return 1;
        usleep(10000);
    }
    return 0;
}

#endif
