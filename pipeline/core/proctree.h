/* proctree: what /proc says about process trees and groups, for the
 * process pool (executor.c): the descendants of a process, and the process
 * groups and marked processes a gpudse that died left running, killed. */
#ifndef GPUDSE_PROCTREE_H
#define GPUDSE_PROCTREE_H

#include <sys/types.h>

typedef struct {
    pid_t *v;
    int n, cap;
} ptree_list;

/* Add pid's children (of every thread) to l, once each; best effort: a
 * list that cannot grow stays short. The caller frees l->v. */
void ptree_children(pid_t pid, ptree_list *l);

/* Every process under root, root excluded, into l. */
void ptree_descendants(pid_t root, ptree_list *l);

/* Kill the process groups listed in the file registry (one id a line)
 * whose leader is gone (no such process, a zombie, or an id now in another
 * group), so a reused id is never hit; a leader still running gets up to
 * a second to die. Returns how many groups were killed; the groups it had
 * to leave go to *kept (realloc'd, *nkept of them) when kept is not NULL. */
int ptree_kill_orphans(const char *registry, pid_t **kept, int *nkept);

/* Kill every process but this one whose environment holds the entry
 * marker ("NAME=value"); how many. */
int ptree_kill_marked(const char *marker);

#endif
