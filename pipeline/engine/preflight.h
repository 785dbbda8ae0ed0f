/* preflight: every check `gpudse run` makes before its first job — each
 * stage's check of its campaign section, the set-up
 * of the campaign's backends (for gpgpusim: the simulator root, its
 * libcudart, the config templates, each workload's program) — shared by
 * run and validate so that validate passes exactly what run accepts; and
 * the first job written out as a user would start it by hand. */
#ifndef GPUDSE_PREFLIGHT_H
#define GPUDSE_PREFLIGHT_H

#include "campaign.h"
#include "util.h"

/* The campaign at path read as a document (camp_load), then what its
 * sections mean to the stages that read them, each checked through its own
 * seam before anything runs: the backends (be_check_campaign: backend
 * names, template placeholders, objective metrics; then be_fingerprint
 * fills the simulator fingerprint of job keys), the search strategies
 * (strat_check_campaign), the report layout (rep_layout_check_campaign),
 * the regression thresholds (cmp_check_campaign), the verification loop's
 * configs file (mf_check_campaign). Errors are GD_EINPUT
 * naming FILE:LINE (exit 2); c is freed on error. Used by run and validate
 * (and by whatever else needs a campaign ready to run). */
int preflight_load(const char *path, camp_campaign *c, gd_err *err);

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
