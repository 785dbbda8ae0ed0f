/* fuzz_machine: libFuzzer harness for the machine descriptor parser
 * (mach_load_file on a temporary file); an accepted machine is serialised
 * again with mach_to_xml. */
#include "fuzz_common.h"
#include "machine.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fz_env();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("machine", "m.xml", data, size);
    cm_machine *m = calloc(1, sizeof *m);
    gd_err err;
    int rc = mach_load_file(path, m, &err);
    if (rc == GD_OK) {
        util_buf b;
        util_buf_init(&b);
        mach_to_xml(m, &b);
        util_buf_free(&b);
    } else if (rc != GD_EINPUT && rc != GD_EENV) {
        abort();
    }
    free(m);
    return 0;
}
