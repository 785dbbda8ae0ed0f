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
