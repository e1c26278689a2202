// SPDX-License-Identifier: GPL-2.0-only
/*
 * window_bins (schema 12): a run's windows summed per group and 10-minute bin when the
 * run ends, so that a question about a whole run, or whole bins of it, reads a few hundred
 * rows instead of every 1 s window (a 7-day run has 604,800 per group, and summing them
 * took seconds per request). The read layer (store-query-*.c) asks sl_bins_prepare() for a
 * statement over "the run's windows in [from, to)": whole bins in the range come from
 * window_bins, the rest (the range's ragged ends) from windows through windows_by_run.
 *
 * A run has bins only once it ended (sl_store_run_bins(), called by the session's close;
 * the schema 12 migration fills them for runs stored before). A live run, or one whose
 * recorder was killed, has none and is read from its windows as before. Bins are used
 * only while they still describe the run: the last window of group "*" must be the one
 * the bins saw last (a run that got windows after its bins were written, e.g. by an older
 * recorder that kept writing through the migration, is read from its windows), and
 * retention drops a run's bins with any of its windows (store-retention.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-json.h"
#include "error.h"
#include "hist.h"
#include "store-bins-local.h"
#include "store-local.h"
#include "window-counters.h"

/*
 * The windows' columns a bin sums (dur_ns, every counter, lat_count), then lat_p50_ns and
 * lat_p99_ns (a bin keeps the largest) and lat_hist (merged).
 */
#define SUMMED "dur_ns" SL_WINDOW_COLUMNS ", lat_count"
enum { NR_SUMMED = SL_WIN_NR + 2 };

/* One bin being summed. */
struct bin {
	int64_t run, bin_ns, n, first, last;
	char grp[SL_GROUP_LEN];
	int64_t sum[NR_SUMMED];
	int64_t p[2]; /* lat_p50_ns, lat_p99_ns */
	bool has_p[2];
	struct sl_hist hist, one;
	uint8_t blob[SL_HIST_BLOB_MAX];
};

static int put_bin(sqlite3_stmt *ins, struct bin *b)
{
	int c = 1, rc;

	sqlite3_bind_int64(ins, c++, b->run);
	sqlite3_bind_text(ins, c++, b->grp, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, c++, b->bin_ns);
	sqlite3_bind_int64(ins, c++, b->n);
	sqlite3_bind_int64(ins, c++, b->first);
	sqlite3_bind_int64(ins, c++, b->last);
	for (int i = 0; i < NR_SUMMED; i++)
		sqlite3_bind_int64(ins, c++, b->sum[i]);
	for (int i = 0; i < 2; i++, c++)
		if (b->has_p[i])
			sqlite3_bind_int64(ins, c, b->p[i]);
		else
			sqlite3_bind_null(ins, c);
	sqlite3_bind_blob(ins, c, b->blob, (int)sl_hist_encode(&b->hist, b->blob), SQLITE_STATIC);
	rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
 * Sums the windows of run (all runs when run < 0) into window_bins, in the index's order
 * (run, group, start): one bin in memory at a time, where an INSERT ... SELECT ... GROUP BY
 * sorted every window in memory first (1 GB for two 7-day runs). The caller holds the
 * transaction. SQLITE_OK or an SQLite code.
 */
static int fill(sqlite3 *db, int64_t run)
{
	struct bin *b = calloc(1, sizeof(*b));
	sqlite3_stmt *sel = NULL, *ins = NULL;
	bool open = false;
	int rc;

	if (!b)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db,
				"SELECT run_id, grp, start_ns, " SUMMED ", lat_p50_ns, lat_p99_ns, "
				"lat_hist FROM windows WHERE ?1 < 0 OR run_id = ?1 "
				"ORDER BY run_id, grp, start_ns",
				-1, &sel, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
					"INSERT INTO window_bins (run_id, grp, bin_ns, windows, "
					"first_ns, last_ns, " SUMMED ", lat_p50_ns, lat_p99_ns, "
					"lat_hist) VALUES (?, ?, ?, ?, ?, ?" SL_WINDOW_PARAMS
					", ?, ?, ?, ?, ?)",
					-1, &ins, NULL);
	if (rc != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(sel, 1, run);
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *grp = (const char *)sqlite3_column_text(sel, 1);
		int64_t start = sqlite3_column_int64(sel, 2);
		int64_t id = sqlite3_column_int64(sel, 0), bin = start - start % SL_BIN_NS;
		int c = 3 + NR_SUMMED;
		const void *blob;

		if (!grp)
			continue;
		if (open && (id != b->run || bin != b->bin_ns || strcmp(grp, b->grp))) {
			if ((rc = put_bin(ins, b)) != SQLITE_OK)
				goto out;
			open = false;
		}
		if (!open) {
			memset(b->sum, 0, sizeof(b->sum));
			memset(&b->hist, 0, sizeof(b->hist));
			b->has_p[0] = b->has_p[1] = false;
			b->run = id;
			b->bin_ns = bin;
			b->n = 0;
			b->first = start;
			snprintf(b->grp, sizeof(b->grp), "%s", grp);
			open = true;
		}
		b->n++;
		b->last = start;
		for (int i = 0; i < NR_SUMMED; i++)
			b->sum[i] += sqlite3_column_int64(sel, 3 + i);
		for (int i = 0; i < 2; i++, c++) {
			int64_t v = sqlite3_column_int64(sel, c);

			if (sqlite3_column_type(sel, c) == SQLITE_NULL ||
			    (b->has_p[i] && v <= b->p[i]))
				continue;
			b->p[i] = v;
			b->has_p[i] = true;
		}
		/* as the latency query did: a histogram that does not decode counts nothing */
		blob = sqlite3_column_blob(sel, c);
		if (blob && !sl_hist_decode(blob, (size_t)sqlite3_column_bytes(sel, c), &b->one))
			sl_hist_merge(&b->hist, &b->one);
	}
	if (rc == SQLITE_DONE)
		rc = open ? put_bin(ins, b) : SQLITE_OK;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	free(b);
	return rc;
}

int sl_bins_fill_all(sqlite3 *db)
{
	return fill(db, -1);
}

int sl_store_run_bins(struct sl_store *store, int64_t run_id)
{
	sqlite3 *db = store->db;
	sqlite3_stmt *st = NULL;
	int rc, err;

	if (store->flags & SL_STORE_RDONLY)
		return sl_error(-EROFS, "summing run %lld's windows in '%s': opened read-only",
				(long long)run_id, store->path);
	/* one transaction: readers see all of the run's bins or none */
	if ((err = sl_store_exec(db, store->path, "BEGIN IMMEDIATE", "summing windows in")))
		return err;
	rc = sqlite3_prepare_v2(db, "DELETE FROM window_bins WHERE run_id = ?1", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run_id);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (rc == SQLITE_DONE)
		rc = run_id < 0 ? SQLITE_MISUSE : fill(db, run_id);
	if (rc != SQLITE_OK) {
		err = sl_store_dberr(store->path, db, rc, "summing windows in");
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	return sl_store_exec(db, store->path, "COMMIT", "summing windows in");
}

/*
 * The run has bins, and the newest "*" window is the newest the bins hold. Two index seeks
 * and a scan of the run's bins (4,032 for 7 days of 4 groups). Windows before 0 on the
 * trace clock (SQL's % truncates toward 0, so their bins straddle 0) are read from the
 * windows.
 */
int sl_bins_valid(sqlite3 *db, int64_t run, bool *ret)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT EXISTS (SELECT 1 FROM window_bins WHERE run_id = ?1) AND "
			       "NOT EXISTS (SELECT 1 FROM window_bins WHERE run_id = ?1 AND "
			       "first_ns < 0) AND "
			       "(SELECT MAX(last_ns) FROM window_bins WHERE run_id = ?1 AND "
			       "grp = '*') IS (SELECT MAX(start_ns) FROM windows WHERE "
			       "run_id = ?1 AND grp = '*')",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot prepare query");
	sqlite3_bind_int64(st, 1, run);
	rc = sqlite3_step(st);
	*ret = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : sl_db_error(db, "cannot read window_bins");
}

/* The source's rows: a bin, or one window (n = 1, last_ns = start_ns). */
#define SRC_COLS "dur_ns" SL_WINDOW_COLUMNS ", lat_count, lat_p50_ns, lat_p99_ns, lat_hist"
#define FROM_BINS                                                                     \
	"SELECT grp, first_ns AS start_ns, last_ns, windows AS n, " SRC_COLS " FROM " \
	"window_bins WHERE run_id = ?1 AND bin_ns >= ?4 AND bin_ns < ?5"
/* the edges: per group of the bins (an index range each), so never a scan of the run */
#define FROM_EDGE(lo, hi)                                                                  \
	" UNION ALL SELECT grp, start_ns, start_ns AS last_ns, 1 AS n, " SRC_COLS " FROM " \
	"windows WHERE run_id = ?1 AND grp IN (SELECT grp FROM window_bins WHERE "         \
	"run_id = ?1 GROUP BY grp) AND start_ns >= " lo " AND start_ns < " hi
#define FROM_WINDOWS                                                                    \
	"SELECT grp, start_ns, start_ns AS last_ns, 1 AS n, " SRC_COLS " FROM windows " \
	"WHERE run_id = ?1 AND start_ns >= ?2 AND start_ns < ?3"

int sl_bins_prepare(sqlite3 *db, int64_t run, int64_t from, int64_t to, int64_t step,
		    const char *fmt, sqlite3_stmt **ret)
{
	/* whole bins in [from, to): [lo, hi) */
	int64_t lo = from <= 0	      ? 0 :
		     from % SL_BIN_NS ? (from > INT64_MAX - SL_BIN_NS ?
						 INT64_MAX :
						 from - from % SL_BIN_NS + SL_BIN_NS) :
					from,
		hi = to < 0 ? 0 : to - to % SL_BIN_NS;
	bool valid = false;
	char src[8192], *sql;
	const char *hole;
	int err, rc;

	/* a step that is not a whole number of bins would cut bins in two */
	if (lo < hi && (!step || step % SL_BIN_NS == 0) && (err = sl_bins_valid(db, run, &valid)))
		return err;
	if (valid && lo < hi)
		snprintf(src, sizeof(src), "%s%s%s", FROM_BINS,
			 from < lo ? FROM_EDGE("?2", "?4") : "",
			 hi < to ? FROM_EDGE("?5", "?3") : "");
	else
		snprintf(src, sizeof(src), "%s", FROM_WINDOWS);
	/* fmt's "%s" replaced by src (fmt is the caller's constant SQL, with no other %) */
	if (!(hole = strstr(fmt, "%s")))
		return -EINVAL;
	if (asprintf(&sql, "%.*s%s%s", (int)(hole - fmt), fmt, src, hole + 2) < 0)
		return -ENOMEM;
	rc = sqlite3_prepare_v2(db, sql, -1, ret, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return sl_db_error(db, "cannot prepare query");
	sqlite3_bind_int64(*ret, 1, run);
	sqlite3_bind_int64(*ret, 2, from);
	sqlite3_bind_int64(*ret, 3, to);
	sqlite3_bind_int64(*ret, 4, lo);
	sqlite3_bind_int64(*ret, 5, hi);
	return 0;
}

int sl_bins_query_rows(sqlite3 *db, int64_t run, int64_t from, int64_t to, const char *fmt,
		       const char *what, json_t **ret)
{
	sqlite3_stmt *st;
	int err;

	if ((err = sl_bins_prepare(db, run, from, to, 0, fmt, &st)))
		return err;
	return sl_db_stmt_rows(db, st, what, ret);
}
