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
	return sl_db_stmt_rows(db, st, "cannot read wakeups", ret);
}

/* Whether the run has cpu_counts rows (runs stored since schema 5 that got wakeups). */
static int has_cpu_counts(sqlite3 *db, int64_t run_id, bool *ret)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM cpu_counts WHERE run_id = ?1 LIMIT 1", -1, &st,
			       NULL))
		return sl_db_error(db, "cannot prepare query");
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sl_db_error(db, "cannot read cpu_counts");
	*ret = rc == SQLITE_ROW;
	return 0;
}

/* Wakeups per target CPU in [?2, ?3) of run ?1: the minutes that overlap the range ... */
static const char cpus_from_minutes[] =
	"SELECT cpu, SUM(wakeups) AS wakeups, SUM(busy) AS busy, SUM(idle) AS idle, "
	"SUM(missed_idle) AS missed_idle FROM cpu_counts WHERE run_id = ?1 AND start_ns < ?3 "
	"AND start_ns + dur_ns > ?2 GROUP BY cpu ORDER BY cpu";
/* ... or, for runs stored before schema 5, the per-wakeup rows (a scan) */
static const char cpus_from_wakeups[] =
	"SELECT target_cpu AS cpu, COUNT(*) AS wakeups, SUM(target_state IN (1, 2)) AS busy, "
	"SUM(target_state = 0) AS idle, SUM(missed_idle) AS missed_idle FROM wakeups "
	"WHERE run_id = ?1 AND ts_ns >= ?2 AND ts_ns < ?3 AND target_cpu IS NOT NULL "
	"GROUP BY target_cpu ORDER BY target_cpu";

int sl_query_cpu_wakeups_rows(struct sl_store *store, int64_t run_id, int64_t from, int64_t to,
			      bool *ret_minutes, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	int err = has_cpu_counts(db, run_id, ret_minutes);

	if (err)
		return err;
	/* ?2 and ?3 are the range here: the helper's b and from */
	return sl_db_query_rows(db, *ret_minutes ? cpus_from_minutes : cpus_from_wakeups, run_id,
				from, to, 0, "cannot read the run", ret);
}

/* ?1 run, ?2 limit, ?3 and ?4 the span's bounds */
#define BY_COMM(who)                                                                          \
	"SELECT " who "_comm AS comm, " who "_grp AS grp, COUNT(*) AS preemptions, "          \
	"SUM(waiters > 0) AS lhp, SUM(waiters) AS waiters, SUM(lhp_cost_ns) AS lhp_cost_ns, " \
	"SUM(hub) AS hub_preemptions FROM preemptions_v WHERE run_id = ?1 "                   \
	"AND ts_ns >= ?3 AND ts_ns < ?4 "                                                     \
	"GROUP BY " who "_comm ORDER BY SUM(lhp_cost_ns) DESC, COUNT(*) DESC LIMIT ?2"

int sl_query_lhp_rows(struct sl_store *store, int64_t run_id, enum sl_lhp_table t, int limit,
		      int64_t from, int64_t to, json_t **ret)
{
	static const char *const sql[] = {
		[SL_LHP_VICTIMS] = BY_COMM("victim"),
		[SL_LHP_PREEMPTORS] = BY_COMM("preemptor"),
		[SL_LHP_HUBS] = "SELECT victim_pid AS pid, victim_comm AS comm, victim_grp AS grp, "
				"COUNT(*) AS preemptions, SUM(delayed_wakeups) AS delayed_wakeups, "
				"SUM(lhp_cost_ns) AS lhp_cost_ns, SUM(off_ns) AS off_ns FROM "
				"preemptions_v WHERE run_id = ?1 AND hub = 1 AND ts_ns >= ?3 AND "
				"ts_ns < ?4 GROUP BY victim_pid "
				"ORDER BY SUM(delayed_wakeups) DESC, COUNT(*) DESC LIMIT ?2",
		[SL_LHP_LARGEST] =
			"SELECT ts_ns, cpu, victim_pid, victim_comm, preemptor_pid, "
			"preemptor_comm, cause, off_ns, waiters, lhp_cost_ns, hub, "
			"censored FROM preemptions_v WHERE run_id = ?1 AND lhp_cost_ns > "
			"0 AND ts_ns >= ?3 AND ts_ns < ?4 ORDER BY lhp_cost_ns DESC "
			"LIMIT ?2",
	};

	if ((int)t < 0 || t > SL_LHP_LARGEST)
		return -EINVAL;
	return sl_db_query_rows(sl_store_db(store), sql[t], run_id, limit, from, to,
				"cannot read the run", ret);
}

#define STR_(x) #x
#define STR(x) STR_(x)

int sl_query_lhp_waiters_rows(struct sl_store *store, int64_t run_id, int limit, int64_t from,
			      int64_t to, json_t **ret)
{
	static const char sql[] =
		"WITH top AS MATERIALIZED (SELECT p.ts_ns, p.victim_pid, p.off_ns, p.lhp_cost_ns, "
		"v.grp FROM preemptions p JOIN tasks v ON v.run_id = p.run_id AND v.pid = "
		"p.victim_pid WHERE p.run_id = ?1 AND p.lhp_cost_ns > 0 AND p.ts_ns >= ?3 AND "
		"p.ts_ns < ?4 ORDER BY p.lhp_cost_ns DESC LIMIT ?2) "
		"SELECT t.ts_ns AS event_ts_ns, t.victim_pid, w.ts_ns, w.pid, k.comm, "
		"w.target_cpu, w.latency_ns FROM wakeups w CROSS JOIN top t "
		"JOIN tasks k ON k.run_id = w.run_id AND k.pid = w.pid "
		"WHERE w.run_id = ?1 AND w.waker_pid IN (SELECT victim_pid FROM top) "
		"AND w.waker_pid = t.victim_pid AND w.ts_ns >= t.ts_ns + coalesce(t.off_ns, 0) "
		"AND w.ts_ns < t.ts_ns + coalesce(t.off_ns, 0) + " STR(
			SL_LHP_WAITER_HORIZON_NS) " AND k.grp = t.grp ORDER BY t.lhp_cost_ns DESC, t.ts_ns, w.ts_ns";

	return sl_db_query_rows(sl_store_db(store), sql, run_id, limit, from, to,
				"cannot read LHP waiters", ret);
}
