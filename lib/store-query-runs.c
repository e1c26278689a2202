// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queries about runs and their hosts (store-query.h). Core, LLC and package ids are only
 * unique within a host, and a core id only within its package on some machines, so cores
 * and LLCs are counted as distinct (package, id) pairs.
 */
#include <errno.h>

#include <sqlite3.h>

#include "error.h"
#include "store-query.h"

int sl_query_run_shape(struct sl_store *store, int64_t run_id, struct sl_run_shape *ret)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc, err = 0;

	if (sqlite3_prepare_v2(
		    db,
		    "SELECT (SELECT COUNT(*) FROM cpus c WHERE c.host_id = r.host_id), "
		    "COUNT(c.cpu), COUNT(DISTINCT c.package || ':' || c.core), "
		    "COUNT(DISTINCT c.package || ':' || c.llc), COUNT(DISTINCT c.package), "
		    "COUNT(DISTINCT c.node), "
		    "(SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM cpus s WHERE s.host_id = "
		    "r.host_id AND s.online GROUP BY s.package, s.core)) "
		    "FROM runs r LEFT JOIN cpus c ON c.host_id = r.host_id AND c.online "
		    "WHERE r.id = ?1 GROUP BY r.id",
		    -1, &st, NULL) != SQLITE_OK)
		return sl_error(-SL_EDB, "cannot prepare query: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		ret->cpus = sqlite3_column_int64(st, 0);
		ret->online = sqlite3_column_int64(st, 1);
		ret->cores = sqlite3_column_int64(st, 2);
		ret->llcs = sqlite3_column_int64(st, 3);
		ret->packages = sqlite3_column_int64(st, 4);
		ret->nodes = sqlite3_column_int64(st, 5);
		ret->smt = sqlite3_column_int64(st, 6);
	} else if (rc == SQLITE_DONE) {
		err = sl_error(-ENOENT, "no run %lld", (long long)run_id);
	} else {
		err = sl_error(-SL_EDB, "cannot read cpus: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return err;
}

int sl_query_history_runs(struct sl_store *store, const char *label, const char *topo_hash,
			  int limit, sl_query_cfg_run_cb cb, void *ctx)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc, err = 0;

	/* cfg: the configuration as one string (unit separators between its parts); n: its
	 * comparable runs */
	if (sqlite3_prepare_v2(db,
			       "WITH c AS (SELECT r.id, r.kernel_release || char(31) || "
			       "coalesce(r.sched_features, '') || char(31) || "
			       "coalesce(r.preempt_mode, '') AS cfg FROM runs r JOIN hosts h "
			       "ON h.id = r.host_id WHERE r.workload = ?1 AND h.topo_hash = ?2), "
			       "n AS (SELECT id, cfg, count(*) OVER (PARTITION BY cfg) AS n FROM c) "
			       "SELECT id, cfg FROM (SELECT id, cfg FROM n WHERE n >= 2 "
			       "ORDER BY id DESC LIMIT ?3) ORDER BY cfg, id",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_error(-SL_EDB, "cannot read runs: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, topo_hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((err = cb(ctx, sqlite3_column_int64(st, 0),
			      (const char *)sqlite3_column_text(st, 1))))
			break;
	if (!err && rc != SQLITE_DONE)
		err = sl_error(-SL_EDB, "cannot read runs: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return err;
}
