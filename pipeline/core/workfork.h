/* workfork: one part of a stage's work done by a forked child process
 * while this process does another, so that the two cores of a small
 * machine both work (the report: results.csv and the figure files beside
 * report.pdf; the analysis: half of the workloads). The parts write
 * disjoint files (or hand their result back in a file the caller reads
 * after wf_wait), so each output is exactly what one process would write.
 * On a one-core machine, or where fork fails, the part runs here and now
 * instead. Fork before anything starts a thread (pango starts one for
 * fontconfig): the child has only the forking thread. */
#ifndef GPUDSE_WORKFORK_H
#define GPUDSE_WORKFORK_H

#include <sys/types.h>
#include "util.h"

typedef struct {
    pid_t pid;          /* the child; -1 when the part ran here */
    int fd;             /* read end of the child's error pipe */
    int rc;             /* the part's return code when it ran here */
    gd_err err;         /* and its error */
} wf_child;

/* Start fn(arg, err) in a child (or run it now, see above); the part's
 * result comes from wf_wait. */
void wf_start(wf_child *f, int (*fn)(void *arg, gd_err *err),
                    void *arg);
/* Wait for the part: its return code, its error (or the child's death)
 * in err. */
int wf_wait(wf_child *f, gd_err *err);

#endif
