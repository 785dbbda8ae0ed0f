/* fuzz_refcsv: libFuzzer harness for the reference / configs CSV reader
 * that `gpudse calibrate -r` and `gpudse sim --configs` share
 * (cal_read_csv on a temporary file, with and without a required ipc
 * column). A file it accepts must give rows whose every knob holds one of
 * the space's levels and, when ipc is required, a finite positive ipc; a
 * file it refuses must be refused as bad input (GD_EINPUT). */
#include <math.h>

#include "fuzz_common.h"
#include "calibrate.h"
#include "space.h"

static int on_level(int knob, int v)
{
    const space_knob_def *d = space_knob_get(knob);
    for (int i = 0; i < d->nlevels; i++)
        if (d->levels[i] == v)
            return 1;
    return 0;
}

static void check(const char *path, int need_ipc)
{
    cal_row *rows = NULL;
    size_t n = 0;
    gd_err err;
    int rc = cal_read_csv(path, NULL, need_ipc, &rows, &n, &err);
    if (rc == GD_OK) {
        for (size_t i = 0; i < n; i++) {
            for (int k = 0; k < SPACE_NKNOBS; k++)
                if (!on_level(k, space_get(&rows[i].c, k)))
                    abort();
            if (need_ipc && !(isfinite(rows[i].ipc) && rows[i].ipc > 0))
                abort();
            if (rows[i].line < 2)
                abort();
        }
    } else if (rc != GD_EINPUT) {
        abort();
    }
    free(rows);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fz_env();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("refcsv", "ref.csv", data, size);
    check(path, 1);
    check(path, 0);
    return 0;
}
