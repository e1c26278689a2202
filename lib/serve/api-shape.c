// SPDX-License-Identifier: GPL-2.0-only
/* The shape of a run's host as JSON (api-shape.h), from the query layer's counts. */
#include <errno.h>

#include "api-shape.h"
#include "store-query.h"

int sl_api_shape(struct sl_store *store, int64_t run_id, json_t **ret)
{
	struct sl_run_shape s;
	int err = sl_query_run_shape(store, run_id, &s);

	if (err)
		return err;
	*ret = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "run_id", (json_int_t)run_id,
			 "cpus", (json_int_t)s.cpus, "online", (json_int_t)s.online, "cores",
			 (json_int_t)s.cores, "llcs", (json_int_t)s.llcs, "packages",
			 (json_int_t)s.packages, "nodes", (json_int_t)s.nodes, "smt",
			 (json_int_t)s.smt);
	return *ret ? 0 : -ENOMEM;
}
