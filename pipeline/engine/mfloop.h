/* mfloop: the multi-fidelity loop (<verify rounds=...>). Round by round
 * and per workload it picks configs for the expensive backend: the first
 * round by the model's prediction; later rounds re-calibrate the workload's
 * descriptor on everything measured so far (calibrate.h cal_fit), re-predict
 * every candidate and pick by expected improvement over the best measured
 * value (one objective) or by the chance of extending the measured Pareto
 * front (several), using the model's prediction interval. A workload stops
 * at its budget (rounds x per-round) or when no candidate can improve by
 * more than min-improvement. Every round is journaled in
 * DIR/verify_rounds.json (picks, why, predicted and measured values, the
 * calibration), written atomically before and after its jobs, so a resumed
 * run continues where it stopped. */
#ifndef GPUDSE_MFLOOP_H
#define GPUDSE_MFLOOP_H

#include <stddef.h>
#include "campaign.h"
#include "store.h"

#define MF_JOURNAL "verify_rounds.json"

typedef struct mf_loop mf_loop;

/* Open the loop of campaign c in run directory dir: the candidates of each
 * workload (configs= rows of it in the space, else its screened configs:
 * recs, the journal's records) and the rounds journaled by an earlier
 * session. */
int mf_open(const camp_campaign *c, const char *dir, const store_record *recs,
            size_t n, mf_loop **out, gd_err *err);

/* One step: completes the round whose jobs ran (its measured values from
 * recs), journals it, then plans the next round (journaled before it runs).
 * fixed/nfixed as verify_pick (free with verify_free); *round is the round
 * planned, *total its configs over every workload: 0 when the loop is over.
 * A round an earlier session planned but did not complete is returned
 * again as it was. */
int mf_step(mf_loop *m, const store_record *recs, size_t n,
            gpu_config ***fixed, size_t **nfixed, int *round,
            size_t *total, gd_err *err);

void mf_close(mf_loop *m);

/* <verify configs=>, when given: a readable CSV whose configs all lie in
 * the campaign's space and that holds at least one (GD_EINPUT naming the
 * CSV's or the campaign's FILE:LINE); run by preflight_load before
 * anything runs. */
int mf_check_campaign(const camp_campaign *c, gd_err *err);

/* The lognormal expected improvement of a prediction mu (log-space sd
 * sigma) over the best value best: E[max(X - best, 0)] when maximize, else
 * E[max(best - X, 0)]; sigma 0 gives the plain improvement. */
double mf_expected_improvement(double mu, double sigma, double best,
                               int maximize);

#endif
