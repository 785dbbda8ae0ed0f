/* fuzz_journal: libFuzzer harness for the journal reader — every line of the
 * input through store_record_from_json (a parsed record must serialise and
 * parse back to the same key and status), then the input as DIR/results.jsonl
 * through store_load_all and store_open (which cuts a torn tail). */
#include "fuzz_common.h"
#include "store.h"

static void each_line(const char *text)
{
    int lineno = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = malloc(len + 1);
        memcpy(line, p, len);
        line[len] = 0;
        store_record r;
        gd_err err;
        if (store_record_from_json(line, "results.jsonl", ++lineno, &r, &err)
            == GD_OK) {
            util_buf b;
            util_buf_init(&b);
            store_record_to_json(&r, &b);
            store_record r2;
            if (store_record_from_json(b.s, "again", 1, &r2, &err) != GD_OK
                || strcmp(r.key, r2.key) != 0 || r.status != r2.status)
                abort();
            util_buf_free(&b);
        }
        free(line);
        p += len;
        if (*p == '\n')
            p++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_str(data, size);
    each_line(text);
    free(text);

    char path[600];
    const char *dir = fz_dir("journal");
    fz_write("journal", "results.jsonl", data, size);
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    store_record *recs = NULL;
    size_t n = 0;
    gd_err err;
    if (store_load_all(path, &recs, &n, &err) == GD_OK && n && !recs)
        abort();
    free(recs);
    store *s = NULL;
    int torn = 0;
    if (store_open(dir, &s, &torn, &err) == GD_OK)
        store_close(s, &err);
    return 0;
}
