/* progress: what a running campaign shows — a one-line bar on a terminal
 * (done/total, failed, jobs/s, ETA), a status line every few seconds
 * otherwise. */
#ifndef GPUDSE_PROGRESS_H
#define GPUDSE_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *out;             /* NULL: silent */
    int tty;
    uint64_t total, done, failed, skipped;
    double start, last;    /* monotonic seconds */
} progress;

void progress_init(progress *p, FILE *out, uint64_t total);
/* Count one finished job (failed when not ok); redraws when due. */
void progress_job(progress *p, int failed);
/* Count one job already in the journal (failed when its record is not ok:
 * a resume shows the journal's failures too). */
void progress_skip(progress *p, int failed);
/* 1 when the next progress_job will draw a line. */
int progress_due(const progress *p);
/* Final line. */
void progress_end(progress *p);

double progress_now(void);

#endif
