// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drill-down's wakeups (api-events.h), read by sl_query_wakeups_rows(), whose ORDER BY
 * and filter come from the order's enum, never from the request's text.
 */
#include <errno.h>
#include <string.h>

#include "api-events.h"
#include "error.h"
#include "store-query.h"

static const char *const order_names[] = { "latency", "missed", "time" };

int sl_api_wakeup_order(const char *s)
{
	for (size_t i = 0; i < sizeof(order_names) / sizeof(order_names[0]); i++)
		if (!strcmp(s, order_names[i]))
			return (int)i;
	return -1;
}

int sl_api_wakeups(struct sl_store *store, int64_t run_id, const struct sl_api_wakeup_query *q,
		   json_t **ret)
{
	const char *group = q->group && strcmp(q->group, "*") ? q->group : NULL;
	int64_t start = 0, offset = 0;
	bool per_event = false;
	struct sl_wakeup_select sel = {
		.grp = group,
		.missed_only = q->order == SL_WAKEUPS_MISSED,
		.by_time = q->order == SL_WAKEUPS_TIME,
		.limit = q->limit + 1, /* one more: whether the answer is truncated */
	};
	json_t *o, *arr;
	int err;

	if (q->limit < 1 || q->limit > 1000)
		return sl_error(-SL_EUSAGE, "limit must be 1..1000");
	if ((int)q->order < 0 || q->order > SL_WAKEUPS_TIME)
		return sl_error(-SL_EUSAGE, "unknown order");
	if ((err = sl_query_run_clock(store, run_id, &start, &offset, &per_event)))
		return err;
	sl_api_span_bounds(&q->span, &sel.from, &sel.to);
	sel.wall_offset = offset;
	if ((err = sl_query_wakeups_rows(store, run_id, &sel, &arr)))
		return err;
	o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:b, s:b}", "run_id", (json_int_t)run_id, "group",
		      group ? group : "*", "order", order_names[q->order], "start_ns",
		      (json_int_t)start, "wall_offset_ns", (json_int_t)offset, "per_event",
		      per_event, "truncated", json_array_size(arr) > (size_t)q->limit);
	if (!o) {
		json_decref(arr);
		return -ENOMEM;
	}
	if (json_array_size(arr) > (size_t)q->limit)
		json_array_remove(arr, (size_t)q->limit);
	json_object_set_new(o, "wakeups", arr);
	*ret = o;
	return 0;
}
