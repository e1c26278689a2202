// SPDX-License-Identifier: GPL-2.0-only
/* Queries over the windows table (store-query.h). */
#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-json.h"
#include "error.h"
#include "hist.h"
#include "store-bins-local.h"
#include "store-query.h"
#include "window-counters.h"

/*
 * A window's wall-clock end: the run's start_wall plus its offset on the trace clock. The
 * run's values come from subqueries: runs has columns of the counters' names too.
 */
#define RUN_OF_W "FROM runs r WHERE r.id = windows.run_id"
#define BY_END_SQL                                                                          \
	"SELECT (SELECT h.hostname FROM runs r JOIN hosts h ON h.id = r.host_id "           \
	"WHERE r.id = windows.run_id), "                                                    \
	"(SELECT r.kernel_release " RUN_OF_W "), grp, "                                     \
	"(SELECT r.start_wall - coalesce(r.start_ns, 0) " RUN_OF_W ") + start_ns + dur_ns " \
	"AS end_wall, dur_ns" SL_WINDOW_COLUMNS ", lat_hist FROM windows WHERE dur_ns > 0 " \
	"ORDER BY end_wall, 1"

/*
 * A window's "dur_ns, SL_WINDOW_COLUMNS, lat_hist" from column c on, into w: both window
 * queries select them in that order.
 */
static int read_counters(sqlite3_stmt *st, int c, struct sl_window_rec *w)
{
	w->dur_ns = (uint64_t)sqlite3_column_int64(st, c++);
	for (int i = 0; i < SL_WIN_NR; i++)
		SL_WIN_VALUE(w, i) = (uint64_t)sqlite3_column_int64(st, c++);
	return sl_hist_decode(sqlite3_column_blob(st, c), (size_t)sqlite3_column_bytes(st, c),
			      &w->latency);
}

int sl_query_windows_by_end(struct sl_store *store, sl_query_window_cb cb, void *ctx)
{
	sqlite3 *db = sl_store_db(store);
	struct sl_window_rec *w = malloc(sizeof(*w));
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	if (!w)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, BY_END_SQL, -1, &st, NULL) != SQLITE_OK) {
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *host = (const char *)sqlite3_column_text(st, 0);
		const char *kernel = (const char *)sqlite3_column_text(st, 1);
		const char *grp = (const char *)sqlite3_column_text(st, 2);
		uint64_t wall = (uint64_t)sqlite3_column_int64(st, 3);

		if (!kernel || !grp)
			continue;
		memset(w, 0, sizeof(*w));
		snprintf(w->grp, sizeof(w->grp), "%s", grp);
		if ((err = read_counters(st, 4, w)))
			goto out;
		if ((err = cb(ctx, host, kernel, wall, w)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	free(w);
	return err;
}

/*
 * Every counter (window-counters.h), so every metric's columns are there; the third column
 * is how many windows a row sums (a window: 1).
 */
#define RUN_COLS ", dur_ns" SL_WINDOW_COLUMNS ", lat_hist FROM "
#define RUN_SQL                                                      \
	"SELECT grp, start_ns, 1" RUN_COLS "windows WHERE run_id = " \
	"?1 ORDER BY grp, start_ns"
#define BINS_SQL                                                               \
	"SELECT grp, first_ns, windows" RUN_COLS "window_bins WHERE run_id = " \
	"?1 ORDER BY grp, bin_ns"

/* The rows of sql (RUN_SQL or BINS_SQL) for run_id to cb. */
static int walk_run(struct sl_store *store, int64_t run_id, const char *sql, sl_query_run_bin_cb cb,
		    void *ctx)
{
	sqlite3 *db = sl_store_db(store);
	struct sl_window_rec *w = malloc(sizeof(*w));
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	if (!w)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *grp = (const char *)sqlite3_column_text(st, 0);

		memset(w, 0, sizeof(*w));
		w->start_ns = (uint64_t)sqlite3_column_int64(st, 1);
		if ((err = read_counters(st, 3, w)))
			goto out;
		if (!grp)
			continue;
		snprintf(w->grp, sizeof(w->grp), "%.*s", SL_GROUP_LEN - 1, grp);
		if ((err = cb(ctx, w, sqlite3_column_int64(st, 2))))
			goto out;
	}
	if (rc != SQLITE_DONE)
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	free(w);
	return err;
}

struct one_window {
	sl_query_run_window_cb cb;
	void *ctx;
};

static int one_window(void *ctx, const struct sl_window_rec *w, int64_t windows)
{
	const struct one_window *o = ctx;

	(void)windows;
	return o->cb(o->ctx, w);
}

int sl_query_run_windows(struct sl_store *store, int64_t run_id, sl_query_run_window_cb cb,
			 void *ctx)
{
	struct one_window o = { cb, ctx };

	return walk_run(store, run_id, RUN_SQL, one_window, &o);
}

int sl_query_run_bins(struct sl_store *store, int64_t run_id, int64_t min_bins,
		      sl_query_run_bin_cb cb, void *ctx)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	bool valid = false;
	int64_t bins = 0;
	int err, rc;

	if ((err = sl_bins_valid(db, run_id, &valid)))
		return err;
	if (!valid)
		return 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT COUNT(*) FROM window_bins WHERE run_id = ?1 AND grp = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_error(-SL_EDB, "cannot read window_bins: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, SL_GROUP_ALL, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		bins = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return sl_error(-SL_EDB, "cannot read window_bins: %s", sqlite3_errmsg(db));
	if (bins < min_bins)
		return 0;
	return (err = walk_run(store, run_id, BINS_SQL, cb, ctx)) ? err : 1;
}

int sl_query_run_placement_rows(struct sl_store *store, int64_t run_id, json_t **ret)
{
	return sl_bins_query_rows(
		sl_store_db(store), run_id, INT64_MIN, INT64_MAX,
		"SELECT grp AS name, SUM(wakeups) AS wakeups, SUM(wakeups_new) AS wakeups_new, "
		"SUM(prev_same) AS prev_same, SUM(prev_smt) AS prev_smt, "
		"SUM(prev_llc) AS prev_llc, SUM(prev_package) AS prev_package, "
		"SUM(prev_remote) AS prev_remote, SUM(prev_unknown) AS prev_unknown, "
		"SUM(waker_same) AS waker_same, SUM(waker_smt) AS waker_smt, "
		"SUM(waker_llc) AS waker_llc, SUM(waker_package) AS waker_package, "
		"SUM(waker_remote) AS waker_remote, SUM(waker_unknown) AS waker_unknown, "
		"SUM(state_idle) AS state_idle, SUM(state_busy) AS state_busy, "
		"SUM(state_claimed) AS state_claimed, SUM(state_unknown) AS state_unknown, "
		"SUM(missed_idle) AS missed_idle, SUM(missed_smt) AS missed_smt, "
		"SUM(stacked) AS stacked, SUM(migrations) AS migrations, "
		"SUM(policy_known) AS policy_known, SUM(pol_prev_idle) AS pol_prev_idle, "
		"SUM(pol_affine) AS pol_affine, SUM(pol_llc_scan) AS pol_llc_scan, "
		"SUM(pol_buddy) AS pol_buddy, SUM(pol_smt_first) AS pol_smt_first "
		"FROM (%s) GROUP BY grp ORDER BY (grp <> '*'), SUM(wakeups) DESC",
		"cannot read the run", ret);
}

int sl_query_run_preemption_rows(struct sl_store *store, int64_t run_id, int64_t from, int64_t to,
				 json_t **ret)
{
	return sl_bins_query_rows(
		sl_store_db(store), run_id, from, to,
		"SELECT grp AS name, SUM(switches) AS switches, "
		"SUM(preempt_wakeup) AS preempt_wakeup, SUM(preempt_tick) AS preempt_tick, "
		"SUM(preempt_same_group) AS same_group, SUM(lhp_count) AS lhp, "
		"SUM(lhp_cost_ns) AS lhp_cost_ns, SUM(hub_preemptions) AS hub_preemptions, "
		"SUM(spin_count) AS spin_lhp, SUM(spin_cost_ns) AS spin_cost_ns, "
		"SUM(dur_ns) AS dur_ns FROM (%s) GROUP BY grp "
		"ORDER BY (grp <> '*'), SUM(preempt_wakeup + preempt_tick) DESC",
		"cannot read the run", ret);
}

int sl_query_windows_stream(struct sl_store *store, int64_t run_id,
			    const struct sl_window_select *sel, json_t *head,
			    struct sl_db_stream **ret)
{
	sqlite3 *db = sl_store_db(store);
	const char *col = sel->col;
	char sql[4096];
	sqlite3_stmt *st;
	int err;

	/* col and the metric names are the caller's constant names, never client text */
	if (sel->step) {
		size_t n = (size_t)snprintf(sql, sizeof(sql),
					    "SELECT %sMIN(s.start_ns) AS start_ns, "
					    "SUM(s.dur_ns) AS dur_ns, SUM(s.n) AS windows",
					    col ? "" : "?1 AS run_id, grp, ");

		for (int i = 0; sel->metrics[i] && n < sizeof(sql); i++) {
			const char *m = sel->metrics[i];

			if (col && m != col)
				continue;
			n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", %s(s.%s) AS %s",
					      strncmp(m, "lat_p", 5) ? "SUM" : "MAX", m, m);
		}
		/* %%s: the bins and windows of the range (sl_bins_prepare()) */
		if (n < sizeof(sql))
			snprintf(sql + n, sizeof(sql) - n,
				 " FROM (%%s) AS s WHERE s.grp = ?6 GROUP BY s.start_ns / ?8 "
				 "ORDER BY MIN(s.start_ns) LIMIT ?7");
		if ((err = sl_bins_prepare(db, run_id, sel->from, sel->to, sel->step, sql, &st))) {
			json_decref(head);
			return err;
		}
		sqlite3_bind_text(st, 6, sel->grp, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 7, sel->limit + 1);
		sqlite3_bind_int64(st, 8, sel->step);
		return sl_db_stream_new(st, head, "windows", (size_t)sel->limit, ret);
	}
	snprintf(sql, sizeof(sql),
		 "SELECT %s%s FROM windows WHERE run_id = ?1 AND grp = ?2 AND start_ns >= ?3 "
		 "AND start_ns < ?4 ORDER BY start_ns LIMIT ?5",
		 col ? "start_ns, dur_ns, " : "*", col ? col : "");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		json_decref(head);
		return sl_db_error(db, "cannot prepare query");
	}
	sqlite3_bind_int64(st, 1, run_id);
	/* copied: the stream outlives the request's strings */
	sqlite3_bind_text(st, 2, sel->grp, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, sel->from);
	sqlite3_bind_int64(st, 4, sel->to);
	sqlite3_bind_int(st, 5, sel->limit + 1);
	return sl_db_stream_new(st, head, "windows", (size_t)sel->limit, ret);
}

int sl_query_run_latency(struct sl_store *store, int64_t run_id, const char *grp, int64_t from,
			 int64_t to, struct sl_hist *sum)
{
	sqlite3 *db = sl_store_db(store);
	struct sl_hist *one = calloc(1, sizeof(*one));
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	if (!one)
		return -ENOMEM;
	/* a bin's lat_hist is its windows' merged: merging the bins' is merging the windows' */
	if ((err = sl_bins_prepare(db, run_id, from, to, 0,
				   "SELECT lat_hist FROM (%s) WHERE grp = ?6", &st)))
		goto out;
	sqlite3_bind_text(st, 6, grp, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 0);

		if (blob && !sl_hist_decode(blob, (size_t)sqlite3_column_bytes(st, 0), one))
			sl_hist_merge(sum, one);
	}
	if (rc != SQLITE_DONE)
		err = sl_db_error(db, "cannot read windows");
out:
	sqlite3_finalize(st);
	free(one);
	return err;
}
