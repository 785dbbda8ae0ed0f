/* fuzz_campaign: libFuzzer harness for the campaign parser and validator —
 * the input is written to a temporary file and given to preflight_load
 * (camp_load, then each stage's check of its section) and camp_load_meta;
 * any result is fine, a crash, hang or leak is not. An accepted campaign
 * must come back with a name and a positive budget. */
#include "fuzz_common.h"
#include "campaign.h"
#include "preflight.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fz_env();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("campaign", "c.xml", data, size);
    camp_campaign *c = calloc(1, sizeof *c);
    gd_err err;
    int rc = preflight_load(path, c, &err);
    if (rc == GD_OK && (c->budget <= 0 || !c->name[0]))
        abort();
    if (rc != GD_OK && rc != GD_EINPUT && rc != GD_EENV)
        abort();
    camp_free(c);
    memset(c, 0, sizeof *c);
    rc = camp_load_meta(path, c, &err);
    camp_free(c);
    free(c);
    return 0;
}
