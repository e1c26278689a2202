// SPDX-License-Identifier: GPL-2.0-only
/*
 * The waiters of a run's costliest lock-holder preemptions (api-events.h), for the
 * dashboard's LHP evidence: the costliest events (as /lhp's "largest") and the wakeups
 * their victims made of their own group within the LHP horizon after running again
 * (sl_query_lhp_waiters_rows()).
 */
#include <errno.h>

#include "api-events.h"
#include "error.h"
#include "store-query.h"

int sl_api_lhp_waiters(struct sl_store *store, int64_t run_id, int limit,
		       const struct sl_api_span *span, json_t **ret)
{
	int64_t from, to;
	json_t *arr;
	int err;

	if (limit < 1 || limit > 100)
		return sl_error(-SL_EUSAGE, "limit must be 1..100");
	if ((err = sl_query_run_exists(store, run_id)))
		return err;
	sl_api_span_bounds(span, &from, &to);
	if ((err = sl_query_lhp_waiters_rows(store, run_id, limit, from, to, &arr)))
		return err;
	*ret = json_pack("{s:I, s:I, s:o}", "run_id", (json_int_t)run_id, "horizon_ns",
			 (json_int_t)SL_LHP_WAITER_HORIZON_NS, "waiters", arr);
	return *ret ? 0 : -ENOMEM;
}
