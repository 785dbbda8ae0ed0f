/* identity: what a run directory holds a run of. A campaign's identity is
 * the canonical form of what determines its results (name, backend and its
 * version, the simulator's fingerprint, workloads and their descriptor
 * hashes, space, objectives, derived metrics, constraints, strategy,
 * study and seed); its settings (execution limits, executor, report,
 * agents, budget) may change when a run is resumed, and so may comments
 * and formatting. Both are kept in manifest.json, with a history of the
 * changes. */
#ifndef GPUDSE_IDENTITY_H
#define GPUDSE_IDENTITY_H

#include "campaign.h"
#include "util.h"

struct cJSON;

/* The identity and the settings of c as JSON objects of strings (one per
 * item, canonical text); NULL when out of memory. backend_version and
 * verify_version ("" when not verifying) come from the backends. */
struct cJSON *ident_identity(const camp_campaign *c,
                             const char *backend_version,
                             const char *verify_version);
struct cJSON *ident_settings(const camp_campaign *c);

/* Compare a run directory's manifest (old: its "identity" and "settings")
 * with this campaign's. A change of identity, or a smaller budget, is
 * GD_EINPUT naming every change (dir names the run directory); changed
 * settings go to *changes as "what: old -> new" strings (a JSON array the
 * caller frees). */
int ident_compare(const struct cJSON *old, const struct cJSON *identity,
                  const struct cJSON *settings, const char *dir,
                  struct cJSON **changes, gd_err *err);

#endif
