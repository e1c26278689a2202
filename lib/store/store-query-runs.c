// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queries about runs and their hosts (store-query.h). Core, LLC and package ids are only
 * unique within a host, and a core id only within its package on some machines, so cores
 * and LLCs are counted as distinct (package, id) pairs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "db-json.h"
#include "error.h"
#include "store-bins-local.h"
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
	if (sqlite3_prepare_v2(
		    db,
		    "WITH c AS (SELECT r.id, r.kernel_release || char(31) || "
		    "coalesce(r.sched_features, '') || char(31) || "
		    "coalesce(r.preempt_mode, '') AS cfg, r.params FROM runs r JOIN hosts h "
		    "ON h.id = r.host_id WHERE r.workload = ?1 AND h.topo_hash = ?2), "
		    "n AS (SELECT id, cfg, params, count(*) OVER (PARTITION BY cfg) AS n "
		    "FROM c) "
		    "SELECT id, cfg, params FROM (SELECT id, cfg, params FROM n WHERE n >= 2 "
		    "ORDER BY id DESC LIMIT ?3) ORDER BY cfg, id",
		    -1, &st, NULL) != SQLITE_OK)
		return sl_error(-SL_EDB, "cannot read runs: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, topo_hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((err = cb(ctx, sqlite3_column_int64(st, 0),
			      (const char *)sqlite3_column_text(st, 1),
			      (const char *)sqlite3_column_text(st, 2))))
			break;
	if (!err && rc != SQLITE_DONE)
		err = sl_error(-SL_EDB, "cannot read runs: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return err;
}

#define RUN_COLS \
	"SELECT r.id, r.kernel_release, r.workload, h.topo_hash FROM runs r JOIN hosts h ON h.id = r.host_id "

static void row_ident(sqlite3_stmt *st, struct sl_run_ident *r)
{
	const char *k = (const char *)sqlite3_column_text(st, 1);
	const char *l = (const char *)sqlite3_column_text(st, 2);
	const char *t = (const char *)sqlite3_column_text(st, 3);

	r->id = sqlite3_column_int64(st, 0);
	snprintf(r->kernel, sizeof(r->kernel), "%s", k ? k : "");
	snprintf(r->label, sizeof(r->label), "%s", l ? l : "");
	snprintf(r->topo, sizeof(r->topo), "%s", t ? t : "");
}

int sl_query_run_ident(struct sl_store *store, int64_t id, struct sl_run_ident *r)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, RUN_COLS "WHERE r.id = ?1", -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_ident(st, r);
	sqlite3_finalize(st);
	/* -ENOENT, not a usage error: the daemon answers an unknown id with 404 */
	if (rc != SQLITE_ROW)
		return sl_error(-ENOENT, "no run %" PRId64 " in the database", id);
	return 0;
}

const char *const sl_run_where_columns[] = { "preempt_mode", "kernel_version", NULL };

bool sl_run_where_key_valid(const char *key)
{
	size_t n = strlen(key);

	return n > 0 && n < 64 &&
	       strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

bool sl_run_where_is_column(const char *key)
{
	for (int i = 0; sl_run_where_columns[i]; i++)
		if (!strcmp(key, sl_run_where_columns[i]))
			return true;
	return false;
}

/*
 * The filters as " AND ..." terms into buf: filter i's key is ?(first + 2i) (a param's
 * JSON path, bound by bind_where()) and its value ?(first + 2i + 1). A param's value is
 * compared as text, as sl_query_run_params() reads it; params that are not valid JSON have
 * no keys.
 */
static int where_sql(char *buf, size_t size, const struct sl_run_where *w, int nr, int first)
{
	size_t o = 0;

	buf[0] = '\0';
	if (nr < 0 || nr > SL_RUN_WHERE_MAX)
		return sl_error(-EINVAL, "at most %d filters on runs", SL_RUN_WHERE_MAX);
	for (int i = 0; i < nr && o < size; i++) {
		int k = first + 2 * i;

		if (!sl_run_where_key_valid(w[i].key))
			return sl_error(-EINVAL, "invalid filter key '%s'", w[i].key);
		if (sl_run_where_is_column(w[i].key)) /* so the name is one of ours */
			o += (size_t)snprintf(buf + o, size - o, " AND r.%s = ?%d", w[i].key,
					      k + 1);
		else
			o += (size_t)snprintf(buf + o, size - o,
					      " AND CASE WHEN json_valid(r.params) THEN "
					      "CAST(json_extract(r.params, ?%d) AS TEXT) END = ?%d",
					      k, k + 1);
	}
	return o < size ? 0 : sl_error(-EINVAL, "filters on runs too long");
}

/* Binds where_sql()'s parameters from ?first on: "$.key" for a param, and the value. */
static void bind_where(sqlite3_stmt *st, const struct sl_run_where *w, int nr, int first)
{
	char path[80];

	for (int i = 0; i < nr; i++) {
		if (!sl_run_where_is_column(w[i].key)) {
			snprintf(path, sizeof(path), "$.%s", w[i].key);
			sqlite3_bind_text(st, first + 2 * i, path, -1, SQLITE_TRANSIENT);
		}
		sqlite3_bind_text(st, first + 2 * i + 1, w[i].value, -1, SQLITE_STATIC);
	}
}

int sl_query_newest_run(struct sl_store *store, const char *kernel, const char *label,
			const char *topo, const struct sl_run_where *where, int nr_where,
			struct sl_run_ident *r)
{
	sqlite3 *db = sl_store_db(store);
	char terms[4096], sql[4608];
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, err;

	if ((err = where_sql(terms, sizeof(terms), where, nr_where, 4)))
		return err;
	snprintf(sql, sizeof(sql),
		 RUN_COLS "WHERE (?1 IS NULL OR r.kernel_release = ?1) AND "
			  "(?2 IS NULL OR r.workload = ?2) AND "
			  "(?3 IS NULL OR h.topo_hash = ?3)%s ORDER BY r.id DESC LIMIT 1",
		 terms);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_text(st, 1, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, topo, -1, SQLITE_STATIC);
	bind_where(st, where, nr_where, 4);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_ident(st, r);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sl_db_error(db, "cannot read runs");
	return rc == SQLITE_ROW ? 0 : -ENOENT;
}

int sl_query_previous_kernel(struct sl_store *store, const char * not, const char *label,
			     const char *topo, char *buf, size_t size)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       RUN_COLS
			       "WHERE r.kernel_release <> ?1 AND "
			       "(?2 IS NULL OR r.workload = ?2) AND "
			       "(?3 IS NULL OR h.topo_hash = ?3) ORDER BY r.id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_text(st, 1, not, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, topo, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -ENOENT;
}

int sl_query_kernel_runs(struct sl_store *store, const char *kernel, const char *label,
			 const char *topo, const struct sl_run_where *where, int nr_where,
			 sl_query_run_id_cb cb, void *ctx)
{
	sqlite3 *db = sl_store_db(store);
	char terms[4096], sql[4608];
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, err;

	if ((err = where_sql(terms, sizeof(terms), where, nr_where, 4)))
		return err;
	snprintf(sql, sizeof(sql),
		 RUN_COLS "WHERE r.kernel_release = ?1 AND (?2 IS NULL OR r.workload = ?2) AND "
			  "(?3 IS NULL OR h.topo_hash = ?3)%s ORDER BY r.id",
		 terms);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_text(st, 1, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, topo, -1, SQLITE_STATIC);
	bind_where(st, where, nr_where, 4);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = cb(ctx, sqlite3_column_int64(st, 0));
	if (!err && rc != SQLITE_DONE)
		err = sl_db_error(db, "cannot read runs");
	sqlite3_finalize(st);
	return err;
}

int sl_query_run_params(struct sl_store *store, int64_t run, json_t *obj)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT j.key, j.value FROM runs r, json_each(r.params) j "
			       "WHERE r.id = ?1 AND json_valid(r.params)",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs.params");
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		if (k && v)
			json_object_set_new(obj, k, json_string(v));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sl_db_error(db, "cannot read runs.params");
}

int sl_query_param_keys(struct sl_store *store, json_t *arr)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT DISTINCT j.key FROM runs r, json_each(r.params) j "
			       "WHERE json_valid(r.params) ORDER BY j.key",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs.params");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);

		if (k && json_array_append_new(arr, json_string(k))) {
			sqlite3_finalize(st);
			return -ENOMEM;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sl_db_error(db, "cannot read runs.params");
}

#define API_RUN_COLUMNS                                                                       \
	"r.id, h.hostname, h.topo_hash, r.kernel_release, r.kernel_version, r.preempt_mode, " \
	"r.workload AS label, r.source, r.boot_id, r.trace_clock, r.nr_cpus, "                \
	"r.recorder_version, r.start_wall, r.end_wall, r.start_ns, r.end_ns, r.events, "      \
	"r.lost_events, r.has_gaps, r.dropped_rows, r.complete, r.import_error, "             \
	"r.skipped_lines, json(r.params) AS params, " SL_RUN_STATUS_SQL " AS status "

int sl_query_run_exists(struct sl_store *store, int64_t run_id)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot prepare query");
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return sl_error(-ENOENT, "no run %lld", (long long)run_id);
	return sl_db_error(db, "cannot read runs");
}

int sl_query_runs_rows(struct sl_store *store, int limit, json_t **ret)
{
	return sl_db_query_rows(sl_store_db(store),
				"SELECT " API_RUN_COLUMNS
				"FROM runs r LEFT JOIN hosts h ON h.id = r.host_id "
				"ORDER BY r.id DESC LIMIT ?1",
				limit, 0, 0, 0, "cannot list runs", ret);
}

int sl_query_run_rows(struct sl_store *store, int64_t run_id, json_t **ret)
{
	/* the "*" windows' count and span, through the bins when they are valid */
	return sl_bins_query_rows(
		sl_store_db(store), run_id, INT64_MIN, INT64_MAX,
		"SELECT " API_RUN_COLUMNS ", r.cmdline, coalesce(w.windows, 0) AS windows, "
		"w.first_window_ns, w.last_window_ns FROM runs r LEFT JOIN hosts h ON "
		"h.id = r.host_id LEFT JOIN (SELECT SUM(n) AS windows, MIN(start_ns) AS "
		"first_window_ns, MAX(last_ns) AS last_window_ns FROM (%s) WHERE grp = '*') w "
		"WHERE r.id = ?1",
		"cannot read the run", ret);
}

int sl_query_run_groups_rows(struct sl_store *store, int64_t run_id, json_t **ret)
{
	return sl_bins_query_rows(sl_store_db(store), run_id, INT64_MIN, INT64_MAX,
				  "SELECT grp AS name, SUM(n) AS windows, SUM(wakeups) AS wakeups, "
				  "SUM(switches) AS switches FROM (%s) GROUP BY grp "
				  "ORDER BY (grp <> '*'), SUM(wakeups) + SUM(switches) DESC",
				  "cannot read the run", ret);
}

int sl_query_run_before_kernel(struct sl_store *store, int64_t run_id, char *buf, size_t size,
			       bool *found)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc;

	*found = false;
	if (sqlite3_prepare_v2(db,
			       "SELECT p.kernel_release FROM runs c JOIN hosts hc ON hc.id = "
			       "c.host_id, runs p JOIN hosts hp ON hp.id = p.host_id "
			       "WHERE c.id = ?1 AND p.id < c.id AND p.workload = c.workload "
			       "AND hp.topo_hash = hc.topo_hash ORDER BY p.id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot prepare query");
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
		*found = true;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sl_db_error(db, "cannot read runs");
	return 0;
}

int sl_query_run_clock(struct sl_store *store, int64_t run_id, int64_t *start, int64_t *offset,
		       bool *per_event)
{
	sqlite3 *db = sl_store_db(store);
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

int sl_query_run_start(struct sl_store *store, int64_t run_id, int64_t *ret_start_ns)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT start_ns FROM runs WHERE id = ?1", -1, &st, NULL))
		return sl_db_error(db, "cannot prepare query");
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret_start_ns = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? sl_error(-ENOENT, "no run %lld", (long long)run_id) :
				   sl_db_error(db, "cannot read runs");
}

int sl_query_run_cpus_rows(struct sl_store *store, int64_t run_id, json_t **ret)
{
	return sl_db_query_rows(
		sl_store_db(store),
		"SELECT c.cpu, c.online, c.core, c.llc, c.package, c.node FROM cpus c "
		"JOIN runs r ON r.host_id = c.host_id WHERE r.id = ?1 ORDER BY c.cpu",
		run_id, 0, 0, 0, "cannot read the run", ret);
}

int sl_query_newest_run_host(struct sl_store *store, json_t **ret)
{
	json_t *arr;
	int err;

	if ((err = sl_db_query_rows(
		     sl_store_db(store),
		     "SELECT r.id AS run_id, h.hostname, r.kernel_release, r.boot_id, "
		     "r.workload AS label, h.topo_json, h.topo_hash FROM runs r "
		     "LEFT JOIN hosts h ON h.id = r.host_id ORDER BY r.id DESC LIMIT 1",
		     0, 0, 0, 0, "cannot read the run", &arr)))
		return err;
	if (!json_array_size(arr)) {
		json_decref(arr);
		return sl_error(-ENOENT, "no run in the database");
	}
	*ret = json_incref(json_array_get(arr, 0));
	json_decref(arr);
	return 0;
}
