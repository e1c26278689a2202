// SPDX-License-Identifier: GPL-2.0-only
/* Queries over the windows table (store-query.h). */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hist.h"
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
		int c = 4;

		if (!kernel || !grp)
			continue;
		memset(w, 0, sizeof(*w));
		snprintf(w->grp, sizeof(w->grp), "%s", grp);
		w->dur_ns = (uint64_t)sqlite3_column_int64(st, c++);
		for (int i = 0; i < SL_WIN_NR; i++)
			SL_WIN_VALUE(w, i) = (uint64_t)sqlite3_column_int64(st, c++);
		if ((err = sl_hist_decode(sqlite3_column_blob(st, c),
					  (size_t)sqlite3_column_bytes(st, c), &w->latency)))
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

/* Every counter (window-counters.h), so every metric's columns are there. */
#define RUN_SQL                                                                                    \
	"SELECT grp, start_ns, dur_ns" SL_WINDOW_COLUMNS ", lat_hist FROM windows WHERE run_id = " \
	"?1 ORDER BY grp, start_ns"

int sl_query_run_windows(struct sl_store *store, int64_t run_id, sl_query_run_window_cb cb,
			 void *ctx)
{
	sqlite3 *db = sl_store_db(store);
	struct sl_window_rec *w = malloc(sizeof(*w));
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	if (!w)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, RUN_SQL, -1, &st, NULL) != SQLITE_OK) {
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *grp = (const char *)sqlite3_column_text(st, 0);
		int c = 1;

		memset(w, 0, sizeof(*w));
		w->start_ns = (uint64_t)sqlite3_column_int64(st, c++);
		w->dur_ns = (uint64_t)sqlite3_column_int64(st, c++);
		for (int i = 0; i < SL_WIN_NR; i++)
			SL_WIN_VALUE(w, i) = (uint64_t)sqlite3_column_int64(st, c++);
		if ((err = sl_hist_decode(sqlite3_column_blob(st, c),
					  (size_t)sqlite3_column_bytes(st, c), &w->latency)))
			goto out;
		if (!grp)
			continue;
		snprintf(w->grp, sizeof(w->grp), "%.*s", SL_GROUP_LEN - 1, grp);
		if ((err = cb(ctx, w)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	free(w);
	return err;
}
