/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the topology module: how topo-sysfs.c and topo-json.c hand their raw
 * per-CPU facts to topo.c, which numbers cores, LLCs and packages densely, checks that
 * they nest, and computes the hash.
 */
#ifndef SL_TOPO_LOCAL_H
#define SL_TOPO_LOCAL_H

#include "topo.h"

/* A zeroed topology with room for nr_cpus CPUs, all offline; NULL if out of memory. */
struct sl_topo *topo_alloc(int nr_cpus);

/*
 * On entry, core/llc/package of each online CPU hold any non-negative keys that are
 * equal for CPUs sharing that unit. Renumbers them 0..n-1 in order of each unit's lowest
 * CPU, fills the counts and the hash. Returns -SL_EPARSE with a message naming `source`
 * if units do not nest (SMT siblings in two LLCs, an LLC across packages).
 */
int topo_finish(struct sl_topo *topo, const char *source);

#endif
