/* testutil: includes and small helpers shared by the Check suites. */
#ifndef GPUDSE_TESTUTIL_H
#define GPUDSE_TESTUTIL_H

#include <check.h>
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

#endif
