/* fuzz_workload: libFuzzer harness for the workload descriptor parser
 * (wl_load_file on a temporary file); an accepted descriptor must have
 * 1..WL_MAXKERNELS kernels and must survive a wl_to_xml round trip. */
#include "fuzz_common.h"
#include "workload.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fz_env();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("workload", "w.xml", data, size);
    wl_workload *w = calloc(1, sizeof *w);
    gd_err err;
    int rc = wl_load_file(path, w, &err);
    if (rc == GD_OK) {
        if (w->nkernels < 1 || w->nkernels > WL_MAXKERNELS)
            abort();
        char *xml = NULL;
        if (wl_to_xml(w, "fuzz -- round trip", &xml, &err) == GD_OK) {
            const char *p2 = fz_write("workload", "w2.xml", (const uint8_t *)xml,
                                      strlen(xml));
            wl_workload *w2 = calloc(1, sizeof *w2);
            if (wl_load_file(p2, w2, &err) != GD_OK
                || w2->nkernels != w->nkernels)
                abort();
            free(w2);
        }
        free(xml);
    } else if (rc != GD_EINPUT && rc != GD_EENV) {
        abort();
    }
    free(w);
    return 0;
}
