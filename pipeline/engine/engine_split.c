/* engine_split: the engine's path for a <split-study> campaign (split.h):
 * the same run directory rule as every run (-o DIR, else runs/NAME), the
 * study's jobs run into it by split_run, then the report stage renders
 * report.pdf from the directory's files (rep_render), as it does for any
 * run and for `gpudse report DIR`. */
#include "engine.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "report.h"
#include "split.h"

int eng_is_split(const char *campaign_path)
{
    char root[64];
    gd_err ignore = {0, ""};
    /* an unreadable file is camp_load's to report */
    return camp_root_name(campaign_path, root, sizeof root, NULL, 0,
                          &ignore) == GD_OK && !strcmp(root, "split-study");
}

int eng_run_split(const eng_opts *o, char *rundir, size_t rundirsz,
                  gd_err *err)
{
    char root[64], name[64], dir[PATH_MAX];
    int rc = camp_root_name(o->campaign_path, root, sizeof root, name,
                            sizeof name, err);
    if (rc)
        return rc;
    if (o->outdir)
        snprintf(dir, sizeof dir, "%s", o->outdir);
    else
        snprintf(dir, sizeof dir, "runs/%s", name);
    if (rundir)
        snprintf(rundir, rundirsz, "%s", dir);
    rc = split_run(o->campaign_path, dir, o->quiet, o->force, o->stop, err);
    if (!rc)   /* from the files alone, as `gpudse report DIR` renders it */
        rc = rep_render(dir, NULL, err);
    return rc;
}
