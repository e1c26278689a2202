// SPDX-License-Identifier: GPL-2.0-only
/*
 * One query over the cpus rows of a run's host (api-shape.h). Core, LLC and package ids
 * are only unique within a host, and a core id only within its package on some machines,
 * so cores and LLCs are counted as distinct (package, id) pairs.
 */
#include <errno.h>

#include <sqlite3.h>

#include "api-shape.h"
#include "error.h"

int sl_api_shape(struct sl_store *store, int64_t run_id, json_t **ret)
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
		*ret = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "run_id",
				 (json_int_t)run_id, "cpus", sqlite3_column_int64(st, 0), "online",
				 sqlite3_column_int64(st, 1), "cores", sqlite3_column_int64(st, 2),
				 "llcs", sqlite3_column_int64(st, 3), "packages",
				 sqlite3_column_int64(st, 4), "nodes", sqlite3_column_int64(st, 5),
				 "smt", sqlite3_column_int64(st, 6));
		err = *ret ? 0 : -ENOMEM;
	} else if (rc == SQLITE_DONE) {
		err = sl_error(-ENOENT, "no run %lld", (long long)run_id);
	} else {
		err = sl_error(-SL_EDB, "cannot read cpus: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return err;
}
