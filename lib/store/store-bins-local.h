/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/store*.c: reading a run's windows through window_bins (store-bins.c,
 * schema 12).
 */
#ifndef SL_STORE_BINS_LOCAL_H
#define SL_STORE_BINS_LOCAL_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Sums every run's windows into window_bins (the schema 12 migration's second half, in its
 * transaction). SQLITE_OK or an SQLite code.
 */
int sl_bins_fill_all(sqlite3 *db);

/*
 * Whether run's bins describe all its windows (store-bins.c's header comment) into *ret.
 * 0 or an error.
 */
int sl_bins_valid(sqlite3 *db, int64_t run, bool *ret);

/*
 * Prepares fmt, whose one %s is replaced by a SELECT (to use as "FROM (%s)") of the rows
 * of run's windows with start_ns in [from, to): columns grp, start_ns, last_ns, n (the
 * windows a row sums), dur_ns, every counter, lat_count, lat_p50_ns, lat_p99_ns, lat_hist.
 * A row is a bin of window_bins when the run's bins are valid and the bin lies wholly in
 * the range (and, with step > 0, when step is a whole number of bins, so grouping rows by
 * start_ns / step gives the windows' groups); else one window. Sums over the rows are the
 * windows' sums; MIN(start_ns), MAX(last_ns), MAX(lat_p50_ns) the windows' too. ?1 to ?5
 * are bound (run, from, to and the bins' bounds); the caller binds ?6 on.
 */
int sl_bins_prepare(sqlite3 *db, int64_t run, int64_t from, int64_t to, int64_t step,
		    const char *fmt, sqlite3_stmt **ret);

/* sl_bins_prepare() (no step) and its rows as a JSON array in *ret. */
int sl_bins_query_rows(sqlite3 *db, int64_t run, int64_t from, int64_t to, const char *fmt,
		       const char *what, json_t **ret);

#endif
