// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queries behind the dashboard's heatmap, latency overlay and LHP view (api-web.h). Like
 * api.c: constant SQL, bound parameters, rows as JSON objects keyed by column name. The
 * heatmap reads the per-minute cpu_counts (indexed, kept like windows); the per-event
 * tables have no index, so the other calls (and the heatmap of runs stored before schema
 * 5) are one scan of a run's rows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "api-web.h"
#include "db-json.h"
#include "error.h"
#include "hist.h"

/*
 * Runs sql with ?1, ?2, ?3, ?4 = run_id, a, b, c (those the statement has: SQLite numbers
 * parameters by their ?NNN, so a statement may skip one) into an array.
 */
static int rows4(sqlite3 *db, const char *sql, int64_t run_id, int64_t a, int64_t b, int64_t c,
		 json_t **ret)
{
	json_t *arr = json_array();
	sqlite3_stmt *st;
	int err;

	if (!arr)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		json_decref(arr);
		return sl_db_error(db, "cannot prepare query");
	}
	if (sqlite3_bind_parameter_count(st) >= 1)
		sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, a);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, b);
	if (sqlite3_bind_parameter_count(st) >= 4)
		sqlite3_bind_int64(st, 4, c);
	err = sl_db_rows_into(db, st, arr, "cannot read the run");
	sqlite3_finalize(st);
	if (err) {
		json_decref(arr);
		return err;
	}
	*ret = arr;
	return 0;
}

static int rows(sqlite3 *db, const char *sql, int64_t run_id, int64_t a, int64_t b, json_t **ret)
{
	return rows4(db, sql, run_id, a, b, 0, ret);
}

static int run_start(sqlite3 *db, int64_t run_id, int64_t *ret_start_ns)
{
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

int sl_api_cpus(struct sl_store *store, int64_t run_id, uint64_t from_ns, uint64_t to_ns,
		json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	int64_t to = to_ns && to_ns < INT64_MAX ? (int64_t)to_ns : INT64_MAX, start, total = 0;
	json_t *cpus, *counts;
	bool minutes = false;
	size_t i;
	int err;

	if (to_ns && to_ns <= from_ns)
		return sl_error(-SL_EUSAGE, "'to' must be greater than 'from'");
	if ((err = run_start(db, run_id, &start)))
		return err;
	if ((err = rows(db,
			"SELECT c.cpu, c.online, c.core, c.llc, c.package, c.node FROM cpus c "
			"JOIN runs r ON r.host_id = c.host_id WHERE r.id = ?1 ORDER BY c.cpu",
			run_id, 0, 0, &cpus)))
		return err;
	if ((err = has_cpu_counts(db, run_id, &minutes)) ||
	    (err = rows(db, minutes ? cpus_from_minutes : cpus_from_wakeups, run_id,
			(int64_t)(from_ns > INT64_MAX ? INT64_MAX : from_ns), to, &counts))) {
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

int sl_api_latency(struct sl_store *store, int64_t run_id, const char *group, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	struct sl_hist *sum = calloc(1, sizeof(*sum)), *one = calloc(1, sizeof(*one));
	json_t *buckets = json_array();
	sqlite3_stmt *st = NULL;
	int64_t start;
	int err, rc;

	if (!sum || !one || !buckets) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = run_start(db, run_id, &start)))
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT lat_hist FROM windows WHERE run_id = ?1 AND grp = ?2",
			       -1, &st, NULL)) {
		err = sl_db_error(db, "cannot prepare query");
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, group ? group : "*", -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 0);

		if (blob && !sl_hist_decode(blob, (size_t)sqlite3_column_bytes(st, 0), one))
			sl_hist_merge(sum, one);
	}
	if (rc != SQLITE_DONE) {
		err = sl_db_error(db, "cannot read windows");
		goto out;
	}
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
	sqlite3_finalize(st);
	json_decref(buckets);
	free(sum);
	free(one);
	return err;
}

/* ?1 run, ?2 limit, ?3 and ?4 the span's bounds */
#define BY_COMM(who)                                                                          \
	"SELECT " who "_comm AS comm, " who "_grp AS grp, COUNT(*) AS preemptions, "          \
	"SUM(waiters > 0) AS lhp, SUM(waiters) AS waiters, SUM(lhp_cost_ns) AS lhp_cost_ns, " \
	"SUM(hub) AS hub_preemptions FROM preemptions_v WHERE run_id = ?1 "                   \
	"AND ts_ns >= ?3 AND ts_ns < ?4 "                                                     \
	"GROUP BY " who "_comm ORDER BY SUM(lhp_cost_ns) DESC, COUNT(*) DESC LIMIT ?2"

int sl_api_lhp(struct sl_store *store, int64_t run_id, int limit, const struct sl_api_span *span,
	       json_t **ret)
{
	static const char *const sql[] = {
		BY_COMM("victim"),
		BY_COMM("preemptor"),
		"SELECT victim_pid AS pid, victim_comm AS comm, victim_grp AS grp, "
		"COUNT(*) AS preemptions, SUM(delayed_wakeups) AS delayed_wakeups, "
		"SUM(lhp_cost_ns) AS lhp_cost_ns, SUM(off_ns) AS off_ns FROM preemptions_v "
		"WHERE run_id = ?1 AND hub = 1 AND ts_ns >= ?3 AND ts_ns < ?4 GROUP BY victim_pid "
		"ORDER BY SUM(delayed_wakeups) DESC, COUNT(*) DESC LIMIT ?2",
		"SELECT ts_ns, cpu, victim_pid, victim_comm, preemptor_pid, preemptor_comm, cause, "
		"off_ns, waiters, lhp_cost_ns, hub, censored FROM preemptions_v "
		"WHERE run_id = ?1 AND lhp_cost_ns > 0 AND ts_ns >= ?3 AND ts_ns < ?4 "
		"ORDER BY lhp_cost_ns DESC LIMIT ?2",
	};
	static const char *const names[] = { "victims", "preemptors", "hubs", "largest" };
	sqlite3 *db = sl_store_db(store);
	int64_t start, from, to;
	json_t *o, *arr;
	int err;

	if (limit < 1 || limit > 1000)
		return sl_error(-SL_EUSAGE, "limit must be 1..1000");
	if ((err = run_start(db, run_id, &start)))
		return err;
	sl_api_span_bounds(span, &from, &to);
	o = json_pack("{s:I, s:I, s:I, s:I}", "run_id", (json_int_t)run_id, "start_ns",
		      (json_int_t)start, "from_ns", (json_int_t)from, "to_ns",
		      (json_int_t)(to == INT64_MAX ? 0 : to));
	if (!o)
		return -ENOMEM;
	for (int i = 0; i < 4; i++) {
		if ((err = rows4(db, sql[i], run_id, i == 3 ? limit : (limit < 20 ? limit : 20),
				 from, to, &arr))) {
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
	sqlite3 *db = sl_store_db(store);
	json_t *arr;
	int err;

	if ((err = rows(db,
			"SELECT r.id AS run_id, h.hostname, r.kernel_release, r.boot_id, "
			"r.workload AS label, h.topo_json, h.topo_hash FROM runs r "
			"LEFT JOIN hosts h ON h.id = r.host_id ORDER BY r.id DESC LIMIT 1",
			0, 0, 0, &arr)))
		return err;
	if (!json_array_size(arr)) {
		json_decref(arr);
		return sl_error(-ENOENT, "no run in the database");
	}
	*ret = json_incref(json_array_get(arr, 0));
	json_decref(arr);
	return 0;
}
