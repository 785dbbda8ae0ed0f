/* preflight: every check `gpudse run` makes before its first job — the set-up
 * of the campaign's backends (for gpgpusim: the simulator root, its
 * libcudart, the config templates, each workload's program) — shared by
 * run and validate so that validate passes exactly what run accepts; and
 * the first job written out as a user would start it by hand. */
#ifndef GPUDSE_PREFLIGHT_H
#define GPUDSE_PREFLIGHT_H

#include "campaign.h"
#include "util.h"

/* The backends' checks (the campaign's simulator, then its <verify>
 * backend; GD_EINPUT naming FILE:LINE when the set-up cannot run), then,
 * for a campaign with external jobs on Slurm (executor, else the
 * campaign's), that Slurm answers on this host (GD_EENV saying what is
 * missing). */
int preflight_check(const camp_campaign *c, const char *executor,
                    gd_err *err);

/* The first external job of the campaign, as text for a person: workload,
 * config, working directory (under rundir), environment changes, command,
 * and one shell line that runs it by hand. For a campaign screened on the
 * analytic model with <verify>, a verification job at the baseline (the
 * verified configs are chosen after screening). Nothing is appended for a
 * campaign with no external jobs. Nothing is written to disk. */
int preflight_first_job(const camp_campaign *c, const char *rundir,
                        util_buf *out, gd_err *err);

#endif
