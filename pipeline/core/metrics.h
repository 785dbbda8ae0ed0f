/* metrics: a small name -> value map carried by every result record, and the
 * catalogue of metric names gpudse knows (DESIGN.md conventions). */
#ifndef GPUDSE_METRICS_H
#define GPUDSE_METRICS_H

#define MET_MAX 40
#define MET_NAMELEN 32

typedef struct {
    int n;
    char name[MET_MAX][MET_NAMELEN];
    double val[MET_MAX];
} met_set;

/* Set name to v (replacing an existing value); returns -1 when full. */
int met_put(met_set *m, const char *name, double v);
/* 0 and *v when present, -1 when absent. */
int met_get(const met_set *m, const char *name, double *v);
/* Remove name (the others keep their order); nothing when absent. */
void met_del(met_set *m, const char *name);

/* The metric names of DESIGN.md, with their units for axis labels. */
int met_known_count(void);
const char *met_known_name(int i);
int met_is_known(const char *name);
/* Unit text for a metric ("mm²", "W", "" for ratios); "" when unknown. */
const char *met_unit(const char *name);
/* Human label "IPC", "Area", ... for figures; the name itself when unknown. */
const char *met_label(const char *name);

#endif
