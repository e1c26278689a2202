// SPDX-License-Identifier: GPL-2.0-only
/*
 * The waiters of a run's costliest lock-holder preemptions (api-events.h), for the
 * dashboard's LHP evidence. One statement: the costliest events (as /lhp's "largest") are
 * materialised first, then the run's wakeups are scanned once (wakeups has no time index)
 * for those the victims made within the 5 ms horizon after running again.
 */
#include <errno.h>

#include "api-events.h"
#include "db-json.h"
#include "error.h"

/* The engine's LHP horizon (README "Lock-holder preemption"): 5 ms after the victim ran. */
#define WAITER_HORIZON_NS 5000000

static const char waiters_sql[] =
	"WITH top AS MATERIALIZED (SELECT p.ts_ns, p.victim_pid, p.off_ns, p.lhp_cost_ns, "
	"v.grp FROM preemptions p JOIN tasks v ON v.run_id = p.run_id AND v.pid = p.victim_pid "
	"WHERE p.run_id = ?1 AND p.lhp_cost_ns > 0 AND p.ts_ns >= ?3 AND p.ts_ns < ?4 "
	"ORDER BY p.lhp_cost_ns DESC LIMIT ?2) "
	"SELECT t.ts_ns AS event_ts_ns, t.victim_pid, w.ts_ns, w.pid, k.comm, w.target_cpu, "
	"w.latency_ns FROM wakeups w CROSS JOIN top t "
	"JOIN tasks k ON k.run_id = w.run_id AND k.pid = w.pid "
	"WHERE w.run_id = ?1 AND w.waker_pid IN (SELECT victim_pid FROM top) "
	"AND w.waker_pid = t.victim_pid AND w.ts_ns >= t.ts_ns + coalesce(t.off_ns, 0) "
	"AND w.ts_ns < t.ts_ns + coalesce(t.off_ns, 0) + ?5 AND k.grp = t.grp "
	"ORDER BY t.lhp_cost_ns DESC, t.ts_ns, w.ts_ns";

int sl_api_lhp_waiters(struct sl_store *store, int64_t run_id, int limit,
		       const struct sl_api_span *span, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st = NULL;
	int64_t from, to;
	json_t *arr;
	int err, rc;

	if (limit < 1 || limit > 100)
		return sl_error(-SL_EUSAGE, "limit must be 1..100");
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read the run");
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return sl_error(-ENOENT, "no run %lld", (long long)run_id);
	if (rc != SQLITE_ROW)
		return sl_db_error(db, "cannot read the run");
	if (sqlite3_prepare_v2(db, waiters_sql, -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read LHP waiters");
	sl_api_span_bounds(span, &from, &to);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, limit);
	sqlite3_bind_int64(st, 3, from);
	sqlite3_bind_int64(st, 4, to);
	sqlite3_bind_int64(st, 5, WAITER_HORIZON_NS);
	if (!(arr = json_array())) {
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	err = sl_db_rows_into(db, st, arr, "cannot read LHP waiters");
	sqlite3_finalize(st);
	if (err) {
		json_decref(arr);
		return err;
	}
	*ret = json_pack("{s:I, s:I, s:o}", "run_id", (json_int_t)run_id, "horizon_ns",
			 (json_int_t)WAITER_HORIZON_NS, "waiters", arr);
	return *ret ? 0 : -ENOMEM;
}
