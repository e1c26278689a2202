// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of retention on real SQLite files: chunks written by the writer, then aged
 * by hand (closed_wall set to chosen times) so that the policy must delete exactly the
 * expired chunks, honour the per-table row cap and the size cap, keep windows longer,
 * and never touch the chunk still open; and the writer applying retention on its own.
 * sl_store_delete_runs(): a run, its rows, its chunks and the comparisons that used it go
 * in one transaction, another run stays, an unknown id deletes nothing.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fixture.h"
#include "store.h"
#include "tap.h"

#define SEC 1000000000ull

/*
 * A store with `chunks` closed chunks of 100 wakeups and one window each: chunk k holds
 * wakeups ts k*100 .. k*100+99 and is marked closed at wall time (k + 1) s; plus an open
 * chunk of `open_rows` wakeups.
 */
static struct sl_store *fill(const char *name, int chunks, int open_rows, int64_t *ret_run)
{
	char path[512];
	struct sl_store *st = NULL;
	struct sl_run_meta m = { .kernel_release = "6.18" };
	struct sl_writer_opts o = { .retention = { .chunk_rows = 100 } };
	struct sl_writer *w = NULL;
	int64_t run;

	snprintf(path, sizeof(path), "%s/%s", tap_tmpdir(), name);
	if (sl_store_open(path, SL_STORE_CREATE, &st) || sl_store_run_begin(st, &m, &run) ||
	    sl_writer_start(st, &o, &w)) {
		diag("%s", sl_errmsg(-1));
		exit(1);
	}
	for (int k = 0; k <= chunks; k++) {
		int rows = k < chunks ? 100 : open_rows;
		struct sl_window_rec win = { .run_id = run, .start_ns = (uint64_t)k * SEC };

		for (int i = 0; i < rows; i++) {
			struct sl_wakeup_rec r = { .run_id = run,
						   .ts_ns = (uint64_t)(k * 100 + i) };

			sl_writer_push_wakeup(w, &r);
		}
		if (k < chunks)
			sl_writer_push_window(w, &win);
		sl_writer_flush(w);
	}
	is_int(sl_writer_stop(w), 0, "%s: %d chunks written", name, chunks);
	sqlite3_exec(
		sl_store_db(st),
		"UPDATE chunks SET closed_wall = (min_ns / 100 + 1) * 1000000000 "
		"WHERE tbl = 'wakeups_seg' AND closed_wall IS NOT NULL;"
		"UPDATE chunks SET closed_wall = (min_ns / 1000000000 + 1) * 1000000000 "
		"WHERE tbl = 'windows';"
		"UPDATE chunks SET closed_wall = NULL WHERE tbl = 'wakeups_seg' AND rows < 100",
		NULL, NULL, NULL);
	*ret_run = run;
	return st;
}

static void test_expiry(void)
{
	int64_t run;
	struct sl_store *st = fill("expiry.db", 10, 50, &run);
	sqlite3 *db = sl_store_db(st);
	struct sl_retention p = { .event_keep_ns = 5 * SEC, .window_keep_ns = 100 * SEC };
	struct sl_retention_stats s;

	is_int(fixture_q_int_db(db, "SELECT count(*) FROM chunks WHERE tbl = 'wakeups_seg'"), 11,
	       "10 closed + 1 open wakeup chunks");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM chunks c WHERE tbl = 'wakeups_seg' AND "
				    "rows = (SELECT sum(rows) FROM wakeups_seg WHERE id BETWEEN "
				    "c.first_rowid AND c.last_rowid)"),
	       11, "each chunk is a contiguous range of segments holding its rows");
	/* now = 10.5 s: chunks closed at 1..5 s are older than 5.5 s ago */
	is_int(sl_store_retention(st, &p, 10 * SEC + SEC / 2, &s), 0, "retention runs");
	is_int((int64_t)s.chunks_deleted, 5, "exactly the 5 expired chunks deleted");
	is_int((int64_t)s.rows_deleted, 500, "their 500 rows");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups"), 550, "550 rows left");
	is_int(fixture_q_int_db(db, "SELECT min(ts_ns) FROM wakeups"), 500,
	       "the oldest left is chunk 5's");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups WHERE ts_ns >= 500"), 550,
	       "every row of the unexpired chunks is there");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM windows"), 10, "windows kept longer");
	is_int(sl_store_retention(st, &p, 10 * SEC + SEC / 2, &s), 0, "again");
	is_int((int64_t)s.chunks_deleted, 0, "nothing more to delete");

	/* far in the future: every closed chunk expires, the open one stays */
	p.window_keep_ns = 0;
	is_int(sl_store_retention(st, &p, 1000 * SEC, &s), 0, "retention at t = 1000 s");
	is_int((int64_t)s.chunks_deleted, 5, "the other 5 closed chunks");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups"), 50,
	       "the open chunk's 50 rows remain");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM windows"), 10,
	       "window_keep_ns 0: windows kept");
	p.window_keep_ns = 3 * SEC;
	is_int(sl_store_retention(st, &p, 10 * SEC + SEC / 2, &s), 0, "windows retention");
	/* the 10 windows are one chunk (fewer rows than chunk_rows), closed at 1 s */
	is_int((int64_t)s.chunks_deleted, 1, "the windows chunk expired and was deleted");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM windows"), 0, "with its 10 windows");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups"), 50,
	       "the open wakeups chunk remains");
	sl_store_close(st);
}

static void test_row_cap(void)
{
	int64_t run;
	struct sl_store *st = fill("cap.db", 10, 0, &run);
	sqlite3 *db = sl_store_db(st);
	struct sl_retention p = { .event_max_rows = 250 };
	struct sl_retention_stats s;

	is_int(sl_store_retention(st, &p, 20 * SEC, &s), 0, "retention with a 250-row cap");
	is_int((int64_t)s.chunks_deleted, 8, "8 oldest chunks deleted");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups"), 200,
	       "200 rows left (whole chunks)");
	is_int(fixture_q_int_db(db, "SELECT min(ts_ns) FROM wakeups"), 800, "the newest ones");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM windows"), 10, "windows are not capped");
	sl_store_close(st);
}

static void test_size_cap(void)
{
	int64_t run, before, after, cap;
	struct sl_store *st = fill("size.db", 40, 0, &run);
	sqlite3 *db = sl_store_db(st);
	struct sl_retention p = { 0 };
	struct sl_retention_stats s;

	before = fixture_q_int_db(db, "SELECT (page_count - freelist_count) * page_size FROM "
				      "pragma_page_count, pragma_freelist_count, pragma_page_size");
	cap = before - 40000;
	p.max_bytes = (uint64_t)cap;
	is_int(sl_store_retention(st, &p, 20 * SEC, &s), 0, "retention with a size cap");
	after = fixture_q_int_db(db, "SELECT (page_count - freelist_count) * page_size FROM "
				     "pragma_page_count, pragma_freelist_count, pragma_page_size");
	ok(after <= cap, "used bytes %lld -> %lld, cap %lld", (long long)before, (long long)after,
	   (long long)cap);
	ok(s.chunks_deleted > 0 && s.chunks_deleted < 40, "%llu oldest chunks deleted",
	   (unsigned long long)s.chunks_deleted);
	is_int(fixture_q_int_db(db, "SELECT min(ts_ns) FROM wakeups"),
	       (int64_t)s.chunks_deleted * 100, "oldest first");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM windows"), 40, "windows untouched");
	sl_store_close(st);
}

static void test_writer_applies(void)
{
	char path[512];
	struct sl_store *st = NULL;
	struct sl_run_meta m = { .kernel_release = "6.18" };
	struct sl_writer_opts o = { .retention_ms = 20,
				    .commit_ms = 10,
				    .retention = { .event_keep_ns = 1, .chunk_rows = 100 } };
	struct sl_writer *w = NULL;
	struct sl_writer_stats s;
	int64_t run;

	snprintf(path, sizeof(path), "%s/auto.db", tap_tmpdir());
	if (sl_store_open(path, SL_STORE_CREATE, &st) || sl_store_run_begin(st, &m, &run) ||
	    sl_writer_start(st, &o, &w))
		return;
	for (int k = 0; k < 5; k++) {
		for (int i = 0; i < 100; i++)
			sl_writer_push_wakeup(w, &(struct sl_wakeup_rec){ .run_id = run });
		sl_writer_flush(w);
	}
	for (int i = 0; i < 50; i++) {
		sl_writer_get_stats(w, &s);
		if (s.chunks_deleted >= 5)
			break;
		usleep(10000);
	}
	is_int((int64_t)s.chunks_deleted, 5, "the writer deleted the 5 expired chunks itself");
	is_int(sl_writer_stop(w), 0, "stop");
	is_int(fixture_q_int_db(sl_store_db(st), "SELECT count(*) FROM wakeups"), 0, "rows gone");
	is_int(fixture_q_int_db(sl_store_db(st), "SELECT count(*) FROM chunks"), 0, "chunks gone");
	sl_store_close(st);
}

static void test_delete_runs(void)
{
	int64_t run, other, ids[2];
	struct sl_store *st = fill("delete.db", 4, 30, &run);
	sqlite3 *db = sl_store_db(st);
	struct sl_run_meta m = { .kernel_release = "6.1" };
	struct sl_delete_stats ds = { 0 };
	char sql[512];
	int r;

	if (sl_store_run_begin(st, &m, &other)) {
		ok(0, "second run: %s", sl_errmsg(-1));
		return;
	}
	snprintf(sql, sizeof(sql),
		 "INSERT INTO tasks (run_id, pid, comm, grp) VALUES (%lld, 1, 'a', 'a'), "
		 "(%lld, 1, 'b', 'b');"
		 "INSERT INTO comparisons (id, created_wall, baseline, candidate) VALUES "
		 "(1, 0, 'runs=%lld', 'runs=%lld'), (2, 0, 'runs=%lld', 'runs=%lld');"
		 "INSERT INTO comparison_runs VALUES (1, %lld, 'baseline'), (1, %lld, 'candidate'),"
		 "(2, %lld, 'baseline');"
		 "INSERT INTO findings (comparison_id, metric, grp, polarity, verdict) VALUES "
		 "(1, 'm', '*', 'neutral', 'no_change'), (2, 'm', '*', 'neutral', 'no_change')",
		 (long long)run, (long long)other, (long long)run, (long long)other,
		 (long long)other, (long long)other, (long long)run, (long long)other,
		 (long long)other);
	is_int(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "delete: rows of two runs");

	ids[0] = run;
	ids[1] = 999;
	r = sl_store_delete_runs(st, ids, 2, &ds);
	is_int(r, -ENOENT, "an unknown id: -ENOENT (%s)", sl_errmsg(r));
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups"), 430, "... nothing deleted");

	r = sl_store_delete_runs(st, ids, 1, &ds);
	is_int(r, 0, "delete the first run");
	is_int((int64_t)ds.runs, 1, "... 1 run");
	is_int((int64_t)ds.comparisons, 1, "... 1 comparison used it");
	snprintf(
		sql, sizeof(sql),
		"SELECT (SELECT count(*) FROM runs WHERE id = %lld) + "
		"(SELECT count(*) FROM wakeups) + (SELECT count(*) FROM windows) + "
		"(SELECT count(*) FROM tasks WHERE run_id = %lld) + "
		"(SELECT count(*) FROM chunks) + (SELECT count(*) FROM comparisons WHERE id = 1) + "
		"(SELECT count(*) FROM comparison_runs WHERE comparison_id = 1) + "
		"(SELECT count(*) FROM findings WHERE comparison_id = 1)",
		(long long)run, (long long)run);
	is_int(fixture_q_int_db(db, sql), 0, "... its rows, chunks and comparison are gone");
	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT count(*) FROM runs WHERE id = %lld) + "
		 "(SELECT count(*) FROM tasks WHERE run_id = %lld) + "
		 "(SELECT count(*) FROM comparisons WHERE id = 2) + "
		 "(SELECT count(*) FROM findings WHERE comparison_id = 2)",
		 (long long)other, (long long)other);
	is_int(fixture_q_int_db(db, sql), 4, "... the other run and its comparison stay");
	is_int(fixture_q_int_db(db, "PRAGMA freelist_count"), 0, "... vacuumed: no free page");
	sl_store_close(st);
}

int main(void)
{
	test_expiry();
	test_delete_runs();
	test_row_cap();
	test_size_cap();
	test_writer_applies();
	return done_testing();
}
