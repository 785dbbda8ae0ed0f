/* sections: report.pdf parts beyond the per-workload figures — table of
 * contents, quality numbers (hypervolume, reference), agent annotations
 * (DIR/annotations.json) and the failures appendix with log tails. */
#ifndef GPUDSE_SECTIONS_H
#define GPUDSE_SECTIONS_H

#include "doc.h"
#include "rundata.h"

/* Contents from toc entries (pages shifted by shift) on fresh pages.
 * draw = 0 only counts the pages it would take. */
int rep_sec_contents(rep_doc *d, const rep_toc_entry *e, int n, int shift,
                     int draw);
/* Hypervolume and reference-front numbers of analysis.json (nothing when
 * absent). */
void rep_sec_quality(rep_doc *d, const rep_run *run, int wl);
/* The annotations of one workload / of the campaign; nothing when there
 * are none. 1 when something was drawn. */
int rep_sec_wl_annotations(rep_doc *d, const rep_run *run, int wl);
int rep_sec_has_campaign_annotations(const rep_run *run);
void rep_sec_campaign_annotations(rep_doc *d, const rep_run *run);
/* Failed jobs: class and reason, then log tails (jobs/KEY/stderr.tail or
 * stdout.tail). */
int rep_sec_has_failures(const rep_run *run);
void rep_sec_failures(rep_doc *d, const rep_run *run);

/* Text made safe to lay out: valid UTF-8, no control characters but
 * newline and tab. Returns a new string (g_free it). */
char *rep_sec_clean_text(const char *s, size_t len);

#endif
