/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shape of a run's host for one-line summaries (`schedlens show`): how many CPUs,
 * cores, LLCs, packages and NUMA nodes the stored topology has. Same conventions as
 * lib/serve/api.h: bound parameters, a new jansson reference in *ret that the caller owns,
 * -ENOENT for an unknown run, -SL_EDB / -ENOMEM otherwise.
 */
#ifndef SL_API_SHAPE_H
#define SL_API_SHAPE_H

#include <jansson.h>
#include <stdint.h>

#include "store.h"

/*
 * {run_id, cpus, online, cores, llcs, packages, nodes, smt}: smt is the most CPUs one core
 * has. Counts are of online CPUs (cpus counts all); all 0 when the run stored no CPUs.
 */
int sl_api_shape(struct sl_store *store, int64_t run_id, json_t **ret);

#endif
