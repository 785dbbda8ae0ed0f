/* metrics: the name -> value map of result records and the catalogue of
 * metric names, labels and units that figures use. */
#include "metrics.h"

#include <string.h>
#include "util.h"

static const struct {
    const char *name, *label, *unit;
} known[] = {
    {"ipc", "IPC", "instructions/cycle"},
    {"cycles", "Cycles", "cycles"},
    {"instructions", "Instructions", "instructions"},
    {"occupancy", "Occupancy", "fraction"},
    {"l1d_miss_rate", "L1D miss rate", "fraction"},
    {"l2_miss_rate", "L2 miss rate", "fraction"},
    {"dram_stall_cycles", "DRAM stall cycles", "cycles"},
    {"l2_bw_gbps", "L2 bandwidth", "GB/s"},
    {"dram_bw_gbps", "DRAM bandwidth", "GB/s"},
    {"power_w", "Power", "W"},
    {"area_mm2", "Area", "mm²"},
    {"energy_j", "Energy", "J"},
    {"time_s", "Time", "s"},
};

#define NKNOWN ((int)(sizeof known / sizeof known[0]))

/* Whether a stored name is name; the first characters are compared here so
 * that most of a record's names are passed over without a call (records
 * are parsed and searched by the million). */
static int same_name(const char *stored, const char *name)
{
    return stored[0] == name[0] && strcmp(stored, name) == 0;
}

int met_put(met_set *m, const char *name, double v)
{
    for (int i = 0; i < m->n; i++)
        if (same_name(m->name[i], name)) {
            m->val[i] = v;
            return 0;
        }
    if (m->n >= MET_MAX)
        return -1;
    util_strlcpy(m->name[m->n], name, MET_NAMELEN);
    m->val[m->n++] = v;
    return 0;
}

int met_get(const met_set *m, const char *name, double *v)
{
    for (int i = 0; i < m->n; i++)
        if (same_name(m->name[i], name)) {
            *v = m->val[i];
            return 0;
        }
    return -1;
}

void met_del(met_set *m, const char *name)
{
    for (int i = 0; i < m->n; i++)
        if (same_name(m->name[i], name)) {
            memmove(m->name[i], m->name[i + 1],
                    (size_t)(m->n - i - 1) * sizeof m->name[0]);
            memmove(&m->val[i], &m->val[i + 1],
                    (size_t)(m->n - i - 1) * sizeof m->val[0]);
            m->n--;
            return;
        }
}

int met_known_count(void)
{
    return NKNOWN;
}

const char *met_known_name(int i)
{
    return (i >= 0 && i < NKNOWN) ? known[i].name : NULL;
}

static int known_index(const char *name)
{
    for (int i = 0; i < NKNOWN; i++)
        if (strcmp(known[i].name, name) == 0)
            return i;
    return -1;
}

int met_is_known(const char *name)
{
    return known_index(name) >= 0;
}

const char *met_unit(const char *name)
{
    int i = known_index(name);
    return i >= 0 ? known[i].unit : "";
}

const char *met_label(const char *name)
{
    int i = known_index(name);
    return i >= 0 ? known[i].label : name;
}
