/* rundir: the run-directory rules every run shares (rundir.h). */
#include "rundir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int rundir_check_new(const char *dir, int force, const char *files,
                     gd_err *err)
{
    if (!util_path_exists(dir))
        return GD_OK;
    if (!util_is_dir(dir))
        return gd_errf(err, GD_EINPUT, "%s: exists and is not a directory",
                       dir);
    char journal[PATH_MAX];
    util_path_join(journal, sizeof journal, dir, "results.jsonl");
    if (util_path_exists(journal))
        return gd_errf(err, GD_EINPUT, "%s: has a journal but no "
                       "campaign.xml; not resuming an unknown run", dir);
    if (!force && util_dir_holds_others(dir))
        return gd_errf(err, GD_EINPUT, "%s: is not empty and holds no gpudse "
                       "run; its files could be overwritten (%s): choose "
                       "another directory with -o DIR, or use --force to run "
                       "there anyway", dir, files);
    return GD_OK;
}

int rundir_copy_campaign(const char *dir, const char *path, const char *sha,
                         gd_err *err)
{
    char dst[PATH_MAX], have[65];
    util_path_join(dst, sizeof dst, dir, "campaign.xml");
    if (util_path_exists(dst) && util_sha256_file(dst, have, NULL) == GD_OK
        && !strcmp(have, sha))
        return GD_OK;
    char *data;
    size_t len;
    int rc = util_read_file(path, &data, &len, err);
    if (rc)
        return rc;
    rc = util_write_file_atomic(dst, data, len, err);
    free(data);
    return rc;
}
