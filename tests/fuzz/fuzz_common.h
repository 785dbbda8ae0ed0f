/* fuzz_common: helpers shared by the libFuzzer harnesses — a per-process
 * scratch directory under tests/tmp/fuzz, writing the input to a file there,
 * and pointing gpudse at the source tree's templates. */
#ifndef GPUDSE_FUZZ_COMMON_H
#define GPUDSE_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* Scratch directory of this process: tests/tmp/fuzz/<tag>-<pid>. */
static const char *fz_dir(const char *tag)
{
    static char dir[256];
    if (!dir[0]) {
        mkdir("tests/tmp", 0755);
        mkdir("tests/tmp/fuzz", 0755);
        snprintf(dir, sizeof dir, "tests/tmp/fuzz/%s-%ld", tag, (long)getpid());
        mkdir(dir, 0755);
    }
    return dir;
}

/* Write the input to DIR/name; returns the path (static storage). */
static const char *fz_write(const char *tag, const char *name,
                            const uint8_t *data, size_t size)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fz_dir(tag), name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    return path;
}

/* NUL-terminated malloc'd copy of the input. */
static char *fz_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* gpudse reads its schemas from $GPUDSE_DATA: the source tree's templates. */
static void fz_env(void)
{
    if (!getenv("GPUDSE_DATA"))
        setenv("GPUDSE_DATA", "templates", 1);
}

#endif
