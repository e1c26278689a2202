// SPDX-License-Identifier: GPL-2.0-only
/* Queries over the per-event tables and their views (store-query.h). */
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
