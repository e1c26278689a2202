// SPDX-License-Identifier: GPL-2.0-only
/* Queries over the per-event tables and their views (store-query.h). */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>

#include "db-json.h"
#include "store-query.h"

int sl_query_recent_preemptions_rows(struct sl_store *store, int64_t run_id, int limit,
				     int64_t from, int64_t to, json_t **ret)
{
	/* newest rows: the per-event table has no index, the rowid order is time order */
	return sl_db_query_rows(
		sl_store_db(store),
		"SELECT ts_ns, cpu, victim_pid, victim_comm, victim_grp, preemptor_pid, "
		"preemptor_comm, preemptor_grp, cause, off_ns, same_group, hub, waiters, "
		"lhp_cost_ns, delayed_wakeups, censored FROM preemptions_v "
		"WHERE run_id = ?1 AND ts_ns >= ?3 AND ts_ns < ?4 ORDER BY ts_ns DESC LIMIT ?2",
		run_id, limit, from, to, "cannot read the run", ret);
}

int sl_query_wakeups_rows(struct sl_store *store, int64_t run_id,
			  const struct sl_wakeup_select *sel, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st = NULL;
	char sql[1024];
	json_t *arr;
	int err;

	/* the ORDER BY and the filter are picked from these constants, never request text */
	snprintf(sql, sizeof(sql),
		 "SELECT ts_ns, ts_ns + ?6 AS wall_ns, pid, comm, grp, kind, waker_pid, waker_cpu, "
		 "prev_cpu, target_cpu, run_cpu, latency_ns, class_prev, class_waker, "
		 "target_state, llc_idle, missed_idle, missed_smt FROM wakeups_v "
		 "WHERE run_id = ?1 AND (?2 IS NULL OR grp = ?2) AND ts_ns >= ?3 AND ts_ns < ?4 %s"
		 "ORDER BY %s LIMIT ?5",
		 sel->missed_only ? "AND (missed_idle OR missed_smt) " : "",
		 sel->by_time ? "ts_ns" : "latency_ns IS NULL, latency_ns DESC, ts_ns");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read wakeups");
	sqlite3_bind_int64(st, 1, run_id);
	if (sel->grp)
		sqlite3_bind_text(st, 2, sel->grp, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, sel->from);
	sqlite3_bind_int64(st, 4, sel->to);
	sqlite3_bind_int(st, 5, sel->limit);
	sqlite3_bind_int64(st, 6, sel->wall_offset);
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
	*ret = arr;
	return 0;
}
