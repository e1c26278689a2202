// SPDX-License-Identifier: GPL-2.0-only
/*
 * Retention by whole chunks. The writer appends each chunked table (the segments of
 * sched_slices, wakeups, preemptions and sched_facts; windows and cpu_counts, kept
 * longer) in chunks: contiguous rowid ranges recorded in the `chunks` table in the same
 * transaction as their rows. Deleting a chunk is then a rowid-range delete, which SQLite
 * does by walking the table's B-tree from the first rowid: no index on time is needed on
 * the hot tables (an index would halve insert speed in SQLite 3.40), and the cost is
 * proportional to the rows deleted, not to the table. The alternative, a WITHOUT ROWID
 * table keyed by (chunk, ...), inserts about 20% slower (measured likewise). Chunks are aged
 * by the wall time they were closed at, since trace clocks restart with every boot.
 *
 * sl_store_delete_runs() is the other way rows go: a whole run (an interrupted import's
 * leftovers, a run recorded by mistake) with everything derived from it, then VACUUM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "store-local.h"

const char *const sl_store_chunk_table[SL_ROW_TYPES] = {
	/* per-event rows: their segments (segment.h), a chunk's rows are the events in them */
	[SL_ROW_SLICE] = "sched_slices_seg",  [SL_ROW_WAKEUP] = "wakeups_seg",
	[SL_ROW_PREEMPT] = "preemptions_seg", [SL_ROW_TASK] = NULL,
	[SL_ROW_WINDOW] = "windows",	      [SL_ROW_FACT] = "sched_facts_seg",
	[SL_ROW_CPU_COUNT] = "cpu_counts",
};

void sl_retention_default(struct sl_retention *r)
{
	r->event_keep_ns = 24ull * 3600 * 1000000000;
	r->event_max_rows = 50000000;
	r->window_keep_ns = 400ull * 24 * 3600 * 1000000000;
	r->max_bytes = 0;
	r->chunk_span_ns = 600ull * 1000000000;
	r->chunk_rows = 1000000;
}

struct chunk {
	int64_t id;
	int type; /* enum sl_row_type */
	int64_t first_rowid, last_rowid;
	int64_t rows;
	int64_t closed_wall;
	bool doomed;
};

static int type_of(const char *tbl)
{
	for (int t = 0; t < SL_ROW_TYPES; t++)
		if (sl_store_chunk_table[t] && strcmp(sl_store_chunk_table[t], tbl) == 0)
			return t;
	return -1;
}

/* Closed chunks, oldest first. *ret freed by the caller. */
static int load_chunks(sqlite3 *db, const char *path, struct chunk **ret, size_t *ret_nr)
{
	struct chunk *v = NULL;
	size_t nr = 0, alloc = 0;
	sqlite3_stmt *st;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(
		db,
		"SELECT id, tbl, first_rowid, last_rowid, rows, closed_wall FROM chunks "
		"WHERE closed_wall IS NOT NULL ORDER BY closed_wall, id",
		-1, &st, NULL);
	if (rc != SQLITE_OK)
		return sl_store_dberr(path, db, rc, "reading the chunks of");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int type = type_of((const char *)sqlite3_column_text(st, 1));

		if (type < 0)
			continue;
		if (nr == alloc) {
			struct chunk *n = realloc(v, (alloc = alloc ? alloc * 2 : 64) * sizeof(*v));

			if (!n) {
				err = sl_error(-ENOMEM, "retention on '%s': out of memory", path);
				goto out;
			}
			v = n;
		}
		v[nr++] = (struct chunk){
			.id = sqlite3_column_int64(st, 0),
			.type = type,
			.first_rowid = sqlite3_column_int64(st, 2),
			.last_rowid = sqlite3_column_int64(st, 3),
			.rows = sqlite3_column_int64(st, 4),
			.closed_wall = sqlite3_column_int64(st, 5),
		};
	}
	if (rc != SQLITE_DONE)
		err = sl_store_dberr(path, db, rc, "reading the chunks of");
out:
	sqlite3_finalize(st);
	if (err) {
		free(v);
		return err;
	}
	*ret = v;
	*ret_nr = nr;
	return 0;
}

static int query_int(sqlite3 *db, const char *path, const char *sql, int64_t *ret)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return sl_store_dberr(path, db, rc, "retention on");
	rc = sqlite3_step(st);
	*ret = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sl_store_dberr(path, db, rc, "retention on");
	return 0;
}

/* One chunk per transaction: a long delete never holds the write lock for long. */
static int delete_chunk(sqlite3 *db, const char *path, const struct chunk *c,
			struct sl_retention_stats *stats)
{
	char sql[256];
	int err;

	err = sl_store_exec(db, path, "BEGIN IMMEDIATE", "retention on");
	if (err)
		return err;
	/* a run that loses windows loses its bins (store-bins.c): read from what is left */
	if (c->type == SL_ROW_WINDOW) {
		snprintf(sql, sizeof(sql),
			 "DELETE FROM window_bins WHERE run_id IN (SELECT run_id FROM windows "
			 "WHERE rowid BETWEEN %lld AND %lld)",
			 (long long)c->first_rowid, (long long)c->last_rowid);
		err = sl_store_exec(db, path, sql, "retention on");
		if (err) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return err;
		}
	}
	snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE rowid BETWEEN %lld AND %lld",
		 sl_store_chunk_table[c->type], (long long)c->first_rowid,
		 (long long)c->last_rowid);
	err = sl_store_exec(db, path, sql, "retention on");
	if (!err) {
		snprintf(sql, sizeof(sql), "DELETE FROM chunks WHERE id = %lld", (long long)c->id);
		err = sl_store_exec(db, path, sql, "retention on");
	}
	if (!err)
		err = sl_store_exec(db, path, "COMMIT", "retention on");
	if (err) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	stats->chunks_deleted++;
	stats->rows_deleted += (uint64_t)c->rows;
	return 0;
}

static bool is_event(int type)
{
	return type == SL_ROW_SLICE || type == SL_ROW_WAKEUP || type == SL_ROW_PREEMPT ||
	       type == SL_ROW_FACT;
}

/* Marks chunks of type, oldest first, until the table is down to max_rows. */
static int mark_row_cap(sqlite3 *db, const char *path, struct chunk *v, size_t nr, int type,
			uint64_t max_rows)
{
	char sql[96];
	int64_t total;
	int err;

	snprintf(sql, sizeof(sql), "SELECT coalesce(sum(rows), 0) FROM chunks WHERE tbl = '%s'",
		 sl_store_chunk_table[type]);
	err = query_int(db, path, sql, &total);
	if (err)
		return err;
	for (size_t i = 0; i < nr && total > (int64_t)max_rows; i++) {
		if (v[i].type != type)
			continue;
		if (!v[i].doomed)
			v[i].doomed = true;
		total -= v[i].rows;
	}
	return 0;
}

static int used_bytes(sqlite3 *db, const char *path, int64_t *ret)
{
	int64_t pages, free_pages, page_size;
	int err;

	err = query_int(db, path, "PRAGMA page_count", &pages);
	if (!err)
		err = query_int(db, path, "PRAGMA freelist_count", &free_pages);
	if (!err)
		err = query_int(db, path, "PRAGMA page_size", &page_size);
	if (!err)
		*ret = (pages - free_pages) * page_size;
	return err;
}

int sl_store_retention_db(sqlite3 *db, const char *path, const struct sl_retention *policy,
			  uint64_t now_wall_ns, struct sl_retention_stats *ret_stats)
{
	struct sl_retention_stats stats = { 0 };
	struct chunk *v = NULL;
	size_t nr = 0;
	int err;

	if (!now_wall_ns)
		now_wall_ns = sl_store_now_wall();
	err = load_chunks(db, path, &v, &nr);
	if (err)
		return err;
	for (size_t i = 0; i < nr; i++) {
		uint64_t keep = is_event(v[i].type) ? policy->event_keep_ns :
						      policy->window_keep_ns;

		if (keep && keep < now_wall_ns && (uint64_t)v[i].closed_wall < now_wall_ns - keep)
			v[i].doomed = true;
	}
	for (int t = 0; t < SL_ROW_TYPES && policy->event_max_rows; t++) {
		if (!is_event(t))
			continue;
		err = mark_row_cap(db, path, v, nr, t, policy->event_max_rows);
		if (err)
			goto free;
	}
	for (size_t i = 0; i < nr; i++) {
		if (!v[i].doomed)
			continue;
		err = delete_chunk(db, path, &v[i], &stats);
		if (err)
			goto free;
	}
	/* The size cap: per-event chunks go first, windows and CPU counts only when none is
	 * left. */
	for (int pass = 0; pass < 2 && policy->max_bytes; pass++) {
		for (size_t i = 0; i < nr; i++) {
			int64_t used;

			if (v[i].doomed || is_event(v[i].type) != (pass == 0))
				continue;
			err = used_bytes(db, path, &used);
			if (err)
				goto free;
			if (used <= (int64_t)policy->max_bytes)
				goto free;
			v[i].doomed = true;
			err = delete_chunk(db, path, &v[i], &stats);
			if (err)
				goto free;
		}
	}
free:
	free(v);
	if (ret_stats)
		*ret_stats = stats;
	return err;
}

int sl_store_retention(struct sl_store *store, const struct sl_retention *policy,
		       uint64_t now_wall_ns, struct sl_retention_stats *stats)
{
	if (store->flags & SL_STORE_RDONLY)
		return sl_error(-EROFS, "retention on '%s': opened read-only", store->path);
	return sl_store_retention_db(store->db, store->path, policy, now_wall_ns, stats);
}

/* --- deleting runs ------------------------------------------------------------------------ */

/* The tables whose rows belong to a run by their run_id column. */
static const char *const run_tables[] = {
	"sched_slices_seg", "wakeups_seg", "preemptions_seg", "sched_facts_seg", "windows",
	"cpu_counts",	    "tasks",	   "wakings",	      "run_cpu_first",	 "window_bins",
};

static int64_t file_bytes(const char *path)
{
	char wal[4096];
	struct stat sb;
	int64_t n = 0;

	if (stat(path, &sb) == 0)
		n += sb.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &sb) == 0)
		n += sb.st_size;
	return n;
}

/* Runs sql and adds the rows it changed to *rows. */
static int exec_count(sqlite3 *db, const char *path, const char *sql, uint64_t *rows)
{
	int err = sl_store_exec(db, path, sql, "deleting runs from");

	if (!err && rows)
		*rows += (uint64_t)sqlite3_changes(db);
	return err;
}

static int delete_rows(sqlite3 *db, const char *path, const int64_t *ids, size_t nr,
		       struct sl_delete_stats *stats)
{
	sqlite3_stmt *st = NULL;
	char sql[512];
	int rc, err;

	err = sl_store_exec(db, path,
			    "DROP TABLE IF EXISTS temp.doomed_runs; "
			    "CREATE TEMP TABLE doomed_runs (id INTEGER PRIMARY KEY)",
			    "deleting runs from");
	if (err)
		return err;
	rc = sqlite3_prepare_v2(db,
				"INSERT OR IGNORE INTO temp.doomed_runs SELECT id FROM runs "
				"WHERE id = ?1",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return sl_store_dberr(path, db, rc, "deleting runs from");
	for (size_t i = 0; i < nr; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE) {
			sqlite3_finalize(st);
			return sl_store_dberr(path, db, rc, "deleting runs from");
		}
		if (!sqlite3_changes(db)) {
			bool dup = false;

			for (size_t j = 0; j < i; j++)
				dup |= ids[j] == ids[i];
			if (!dup) {
				sqlite3_finalize(st);
				return sl_error(-ENOENT, "'%s' has no run %lld: nothing deleted",
						path, (long long)ids[i]);
			}
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);

	/* comparisons that used a doomed run: their findings cannot be reproduced */
	err = exec_count(db, path,
			 "CREATE TEMP TABLE doomed_cmp AS SELECT DISTINCT comparison_id AS id "
			 "FROM comparison_runs WHERE run_id IN (SELECT id FROM temp.doomed_runs)",
			 NULL);
	if (!err)
		err = exec_count(db, path,
				 "DELETE FROM findings WHERE comparison_id IN "
				 "(SELECT id FROM temp.doomed_cmp)",
				 &stats->rows);
	if (!err)
		err = exec_count(db, path,
				 "DELETE FROM comparison_runs WHERE comparison_id IN "
				 "(SELECT id FROM temp.doomed_cmp)",
				 &stats->rows);
	if (!err)
		err = exec_count(
			db, path,
			"DELETE FROM comparisons WHERE id IN (SELECT id FROM temp.doomed_cmp)",
			&stats->comparisons);
	for (size_t i = 0; !err && i < sizeof(run_tables) / sizeof(run_tables[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "DELETE FROM %s WHERE run_id IN (SELECT id FROM temp.doomed_runs)",
			 run_tables[i]);
		err = exec_count(db, path, sql, &stats->rows);
	}
	/* the chunks left with no row (a chunk holds one writer's rows: one run's) */
	for (int t = 0; !err && t < SL_ROW_TYPES; t++) {
		if (!sl_store_chunk_table[t])
			continue;
		snprintf(sql, sizeof(sql),
			 "DELETE FROM chunks WHERE tbl = '%s' AND NOT EXISTS (SELECT 1 FROM %s "
			 "WHERE rowid BETWEEN chunks.first_rowid AND chunks.last_rowid)",
			 sl_store_chunk_table[t], sl_store_chunk_table[t]);
		err = exec_count(db, path, sql, NULL);
	}
	if (!err)
		err = exec_count(db, path,
				 "DELETE FROM runs WHERE id IN (SELECT id FROM temp.doomed_runs)",
				 &stats->runs);
	sqlite3_exec(db,
		     "DROP TABLE IF EXISTS temp.doomed_cmp; DROP TABLE IF EXISTS temp.doomed_runs",
		     NULL, NULL, NULL);
	return err;
}

int sl_store_delete_runs(struct sl_store *store, const int64_t *ids, size_t nr,
			 struct sl_delete_stats *ret_stats)
{
	struct sl_delete_stats stats = { 0 };
	sqlite3 *db = store->db;
	const char *path = store->path;
	int err;

	if (store->flags & SL_STORE_RDONLY)
		return sl_error(-EROFS, "deleting runs from '%s': opened read-only", path);
	stats.bytes_before = file_bytes(path);
	err = sl_store_exec(db, path, "BEGIN IMMEDIATE", "deleting runs from");
	if (err)
		return err;
	err = delete_rows(db, path, ids, nr, &stats);
	if (!err)
		err = sl_store_exec(db, path, "COMMIT", "deleting runs from");
	if (err) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	/*
	 * The store does not use auto_vacuum (it would cost every commit): VACUUM rewrites the
	 * file without the freed pages, into the WAL, and the checkpoint moves it back and
	 * truncates the WAL. A reader holding an old snapshot only delays the truncation.
	 */
	err = sl_store_exec(db, path, "VACUUM", "giving the space back (VACUUM) in");
	if (!err)
		sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	stats.bytes_after = file_bytes(path);
	if (ret_stats)
		*ret_stats = stats;
	return err;
}
