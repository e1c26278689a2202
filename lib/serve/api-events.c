// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drill-down's wakeups (api-events.h): one statement over wakeups_v, whose ORDER BY
 * the query picks from a fixed list, never from the request's text.
 */
#include <errno.h>
#include <string.h>

#include "api-events.h"
#include "db-json.h"
#include "error.h"

static const char *const order_names[] = { "latency", "missed", "time" };

static const char *const order_sql[] = {
	"latency_ns IS NULL, latency_ns DESC, ts_ns",
	"latency_ns IS NULL, latency_ns DESC, ts_ns",
	"ts_ns",
};

int sl_api_wakeup_order(const char *s)
{
	for (size_t i = 0; i < sizeof(order_names) / sizeof(order_names[0]); i++)
		if (!strcmp(s, order_names[i]))
			return (int)i;
	return -1;
}

/* The run's start on the trace clock and the wall-clock offset of that clock. */
static int run_clock(sqlite3 *db, int64_t run_id, int64_t *start, int64_t *offset, bool *per_event)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT coalesce(start_ns, 0), start_wall - coalesce(start_ns, 0), "
			       "EXISTS (SELECT 1 FROM wakeups w WHERE w.run_id = runs.id) "
			       "FROM runs WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read the run");
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*start = sqlite3_column_int64(st, 0);
		*offset = sqlite3_column_int64(st, 1);
		*per_event = sqlite3_column_int(st, 2);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return sl_error(-ENOENT, "no run %lld", (long long)run_id);
	return sl_db_error(db, "cannot read the run");
}

int sl_api_wakeups(struct sl_store *store, int64_t run_id, const struct sl_api_wakeup_query *q,
		   json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	const char *group = q->group && strcmp(q->group, "*") ? q->group : NULL;
	int64_t start = 0, offset = 0, from, to;
	bool per_event = false;
	sqlite3_stmt *st = NULL;
	char sql[1024];
	json_t *o, *arr;
	int err;

	if (q->limit < 1 || q->limit > 1000)
		return sl_error(-SL_EUSAGE, "limit must be 1..1000");
	if ((int)q->order < 0 || q->order > SL_WAKEUPS_TIME)
		return sl_error(-SL_EUSAGE, "unknown order");
	if ((err = run_clock(db, run_id, &start, &offset, &per_event)))
		return err;
	snprintf(sql, sizeof(sql),
		 "SELECT ts_ns, ts_ns + ?6 AS wall_ns, pid, comm, grp, kind, waker_pid, waker_cpu, "
		 "prev_cpu, target_cpu, run_cpu, latency_ns, class_prev, class_waker, "
		 "target_state, llc_idle, missed_idle, missed_smt FROM wakeups_v "
		 "WHERE run_id = ?1 AND (?2 IS NULL OR grp = ?2) AND ts_ns >= ?3 AND ts_ns < ?4 %s"
		 "ORDER BY %s LIMIT ?5",
		 q->order == SL_WAKEUPS_MISSED ? "AND (missed_idle OR missed_smt) " : "",
		 order_sql[q->order]);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read wakeups");
	sqlite3_bind_int64(st, 1, run_id);
	if (group)
		sqlite3_bind_text(st, 2, group, -1, SQLITE_STATIC);
	sl_api_span_bounds(&q->span, &from, &to);
	sqlite3_bind_int64(st, 3, from);
	sqlite3_bind_int64(st, 4, to);
	sqlite3_bind_int(st, 5, q->limit + 1);
	sqlite3_bind_int64(st, 6, offset);
	if (!(arr = json_array())) {
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	err = sl_db_rows_into(db, st, arr, "cannot read wakeups");
	sqlite3_finalize(st);
	if (err) {
		json_decref(arr);
		return err;
	}
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
