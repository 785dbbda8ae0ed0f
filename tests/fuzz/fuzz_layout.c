/* fuzz_layout: libFuzzer harness for the report layout parser
 * (rep_layout_load on a temporary file); an accepted layout must stay within
 * its fixed-size arrays. */
#include "fuzz_common.h"
#include "layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("layout", "l.xml", data, size);
    rep_layout l;
    gd_err err;
    int rc = rep_layout_load(path, &l, &err);
    if (rc == GD_OK && (l.nitems < 0 || l.nitems > REP_LAYOUT_MAX
                        || l.nsections < 0 || l.nsections > REP_SECTIONS_MAX))
        abort();
    if (rc != GD_OK && rc != GD_EINPUT && rc != GD_EENV)
        abort();
    return 0;
}
