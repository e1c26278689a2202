// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dashboard's heatmap, latency overlay and LHP view (api-web.h), over the query layer
 * (store-query.h): rows as JSON objects keyed by column name. The heatmap reads the per-minute cpu_counts (indexed, kept like windows); the per-event
 * tables have no index, so the other calls (and the heatmap of runs stored before schema
 * 5) are one scan of a run's rows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-web.h"
#include "error.h"
#include "hist.h"
#include "store-query.h"

int sl_api_cpus(struct sl_store *store, int64_t run_id, uint64_t from_ns, uint64_t to_ns,
		json_t **ret)
{
	int64_t to = to_ns && to_ns < INT64_MAX ? (int64_t)to_ns : INT64_MAX, start, total = 0;
	json_t *cpus, *counts;
	bool minutes = false;
	size_t i;
	int err;

	if (to_ns && to_ns <= from_ns)
		return sl_error(-SL_EUSAGE, "'to' must be greater than 'from'");
	if ((err = sl_query_run_start(store, run_id, &start)) ||
	    (err = sl_query_run_cpus_rows(store, run_id, &cpus)))
		return err;
	if ((err = sl_query_cpu_wakeups_rows(store, run_id,
					     (int64_t)(from_ns > INT64_MAX ? INT64_MAX : from_ns),
					     to, &minutes, &counts))) {
		json_decref(cpus);
		return err;
	}
	/* both are in cpu order; counts only has CPUs that got wakeups */
	for (i = 0; i < json_array_size(cpus); i++) {
		json_t *c = json_array_get(cpus, i);
		json_int_t cpu = json_integer_value(json_object_get(c, "cpu"));
		static const char *const keys[] = { "wakeups", "busy", "idle", "missed_idle" };
		json_t *n = NULL;

		for (size_t j = 0; j < json_array_size(counts) && !n; j++)
			if (json_integer_value(json_object_get(json_array_get(counts, j), "cpu")) ==
			    cpu)
				n = json_array_get(counts, j);
		for (int k = 0; k < 4; k++)
			json_object_set_new(c, keys[k],
					    n ? json_incref(json_object_get(n, keys[k])) :
						json_integer(0));
		if (n)
			total += json_integer_value(json_object_get(n, "wakeups"));
	}
	json_decref(counts);
	*ret = json_pack("{s:I, s:I, s:I, s:I, s:I, s:s, s:o}", "run_id", (json_int_t)run_id,
			 "start_ns", (json_int_t)start, "from_ns", (json_int_t)from_ns, "to_ns",
			 (json_int_t)(to_ns ? to : 0), "wakeups", (json_int_t)total, "resolution",
			 minutes ? "minute" : "exact", "cpus", cpus);
	return *ret ? 0 : -ENOMEM;
}

int sl_api_latency(struct sl_store *store, int64_t run_id, const char *group,
		   const struct sl_api_span *span, json_t **ret)
{
	struct sl_hist *sum = calloc(1, sizeof(*sum));
	json_t *buckets = json_array();
	int64_t start, from, to;
	int err;

	if (!sum || !buckets) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = sl_query_run_start(store, run_id, &start)))
		goto out;
	sl_api_span_bounds(span, &from, &to);
	/* no start: every window, those before 0 on the trace clock too */
	if ((err = sl_query_run_latency(store, run_id, group ? group : "*",
					span && span->from_ns ? from : INT64_MIN, to, sum)))
		goto out;
	for (unsigned int b = 0; b < SL_HIST_BUCKETS; b++) {
		json_t *o;

		if (!sum->counts[b])
			continue;
		o = json_pack("{s:I, s:o, s:I}", "lo_ns", (json_int_t)sl_hist_bucket_lo_ns(b),
			      "hi_ns",
			      b == SL_HIST_OVERFLOW ?
				      json_null() :
				      json_integer((json_int_t)sl_hist_bucket_hi_ns(b)),
			      "count", (json_int_t)sum->counts[b]);
		if (json_array_append_new(buckets, o)) {
			err = -ENOMEM;
			goto out;
		}
	}
	*ret = json_pack(
		"{s:I, s:s, s:I, s:o, s:o, s:O}", "run_id", (json_int_t)run_id, "group",
		group ? group : "*", "count", (json_int_t)sum->total, "p50_ns",
		sum->total ? json_integer((json_int_t)sl_hist_quantile_ns(sum, 0.5)) : json_null(),
		"p99_ns",
		sum->total ? json_integer((json_int_t)sl_hist_quantile_ns(sum, 0.99)) : json_null(),
		"buckets", buckets);
	err = *ret ? 0 : -ENOMEM;
out:
	json_decref(buckets);
	free(sum);
	return err;
}

int sl_api_lhp(struct sl_store *store, int64_t run_id, int limit, const struct sl_api_span *span,
	       json_t **ret)
{
	static const char *const names[] = { "victims", "preemptors", "hubs", "largest" };
	int64_t start, from, to;
	json_t *o, *arr;
	int err;

	if (limit < 1 || limit > 1000)
		return sl_error(-SL_EUSAGE, "limit must be 1..1000");
	if ((err = sl_query_run_start(store, run_id, &start)))
		return err;
	sl_api_span_bounds(span, &from, &to);
	o = json_pack("{s:I, s:I, s:I, s:I}", "run_id", (json_int_t)run_id, "start_ns",
		      (json_int_t)start, "from_ns", (json_int_t)from, "to_ns",
		      (json_int_t)(to == INT64_MAX ? 0 : to));
	if (!o)
		return -ENOMEM;
	for (int i = 0; i < 4; i++) {
		if ((err = sl_query_lhp_rows(store, run_id, (enum sl_lhp_table)i,
					     i == 3 ? limit : (limit < 20 ? limit : 20), from, to,
					     &arr))) {
			json_decref(o);
			return err;
		}
		json_object_set_new(o, names[i], arr);
	}
	*ret = o;
	return 0;
}

int sl_api_newest_host(struct sl_store *store, json_t **ret)
{
	return sl_query_newest_run_host(store, ret);
}
