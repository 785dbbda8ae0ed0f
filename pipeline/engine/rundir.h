/* rundir: the run-directory rules every run shares (engine.c for a
 * design-space campaign, engine_split.c for a split study): which
 * directory a new run may take, and the campaign's copy in it. */
#ifndef GPUDSE_RUNDIR_H
#define GPUDSE_RUNDIR_H

#include "util.h"

/* For a directory holding no campaign.xml (no run of ours): GD_OK when it
 * does not exist, or is an empty or gpudse-only directory; GD_EINPUT when
 * it is not a directory, holds a journal (an unknown run), or holds other
 * files and force is not set (files: what a run would overwrite there, as
 * the message names it, e.g. "report.pdf, figures/"). */
int rundir_check_new(const char *dir, int force, const char *files,
                     gd_err *err);

/* DIR/campaign.xml: a copy of the campaign file at path (sha256 sha),
 * written atomically unless the directory already holds those bytes. */
int rundir_copy_campaign(const char *dir, const char *path, const char *sha,
                         gd_err *err);

#endif
