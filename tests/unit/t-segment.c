// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the event segments (lib/store/segment.h) and their virtual tables
 * (store-segments.c): the codec gives back every value, NULLs and the extremes included,
 * and refuses a damaged blob; rows written by the store writer read back through the
 * virtual tables with the same columns and values, in the order written, and a run or a
 * time range picks exactly its rows; a self-join has a cursor each; the tables are read
 * only.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "facts.h"
#include "fixture.h"
#include "schema-sql.h"
#include "segment.h"
#include "store.h"
#include "tap.h"

static void test_codec(void)
{
	static const int64_t extremes[] = {
		0,	   1,  -1, INT64_MAX,	INT64_MIN + 1, SL_SEG_NULL,
		INT64_MAX, -1, 42, SL_SEG_NULL, INT64_MIN + 1, 0
	};
	enum { ROWS = 5000 };
	struct sl_seg_buf b = { 0 };
	struct sl_seg_reader r;
	int64_t(*rows)[SL_SEG_MAX_COLS] = calloc(ROWS, sizeof(*rows));
	char txt[SL_SEG_TEXT_MAX + 1];
	int64_t got[SL_SEG_MAX_COLS];
	int ncols = sl_seg_tables[SL_SEG_FACT].ncols, bad = 0, n = 0, rc;

	sl_seg_reset(&b);
	srand(7);
	for (int i = 0; i < ROWS; i++) {
		for (int c = 0; c < ncols; c++) {
			if (i < 12)
				rows[i][c] = extremes[(i + c) % 12];
			else if (c == 0)
				rows[i][c] = rows[i - 1][c] + rand() % 1000; /* a time */
			else
				rows[i][c] = rand() % 7 == 0 ? SL_SEG_NULL : rand() % 64 - 8;
		}
		rows[i][0] = rows[i][0] == SL_SEG_NULL ? 0 : rows[i][0]; /* ts is NOT NULL */
		snprintf(txt, sizeof(txt), i % 3 ? "comm-%d" : "", i);
		if (i == 5)
			memcpy(txt, "sixteen-chars-ab", 16); /* a comm filling its 16 bytes */
		if (sl_seg_append(&b, SL_SEG_FACT, rows[i], txt))
			bad++;
	}
	is_int(bad, 0, "%d rows appended", ROWS);
	is_int(b.rows, ROWS, "the segment counts them");
	diag("%zu bytes for %d rows of %d columns", b.len, ROWS, ncols);
	sl_seg_reader_init(&r, SL_SEG_FACT, b.data, b.len);
	bad = 0;
	while ((rc = sl_seg_next(&r, got, txt)) == 1) {
		char want[SL_SEG_TEXT_MAX + 1];

		snprintf(want, sizeof(want), n % 3 ? "comm-%d" : "", n);
		if (n == 5)
			snprintf(want, sizeof(want), "%.16s", "sixteen-chars-ab");
		if (memcmp(got, rows[n], sizeof(int64_t) * (size_t)ncols) || strcmp(txt, want))
			bad++;
		n++;
	}
	is_int(rc, 0, "read to the end");
	is_int(n, ROWS, "every row read back");
	is_int(bad, 0, "every value the same (extremes, NULLs and texts included)");

	/* a truncated blob is an error, never a short read of garbage */
	sl_seg_reader_init(&r, SL_SEG_FACT, b.data, b.len - 1);
	while ((rc = sl_seg_next(&r, got, txt)) == 1)
		;
	is_int(rc, -EINVAL, "a truncated segment: -EINVAL");
	{
		uint8_t junk[12];

		memset(junk, 0xff, sizeof(junk));
		sl_seg_reader_init(&r, SL_SEG_WAKEUP, junk, sizeof(junk));
		is_int(sl_seg_next(&r, got, txt), -EINVAL, "an overlong varint: -EINVAL");
	}
	{
		char s[3];

		sl_seg_text_decode(sl_seg_text_code("R+"), s);
		is_str(s, "R+", "end_state R+ round trip");
		sl_seg_text_decode(sl_seg_text_code("S"), s);
		is_str(s, "S", "end_state S round trip");
		is_int(sl_seg_text_code(""), SL_SEG_NULL, "no end_state: NULL");
	}
	sl_seg_free(&b);
	free(rows);
}

static void test_vtab(void)
{
	enum { RUN_ROWS = 10000 };
	char *path = fixture_path("seg.db");
	struct sl_writer_opts o = { .commit_rows = 3000 }; /* segments cut by commits too */
	struct sl_run_meta m = { .kernel_release = "6.18" };
	struct sl_store *st = NULL;
	struct sl_writer *w = NULL;
	int64_t run[2];
	sqlite3 *db;

	if (sl_store_open(path, SL_STORE_CREATE, &st) || sl_store_run_begin(st, &m, &run[0]) ||
	    sl_store_run_begin(st, &m, &run[1]) || sl_writer_start(st, &o, &w)) {
		diag("%s", sl_errmsg(-1));
		exit(1);
	}
	/* two runs interleaved: each switch of run starts a new segment */
	for (int i = 0; i < 2 * RUN_ROWS; i++) {
		int r = (i / 1000) % 2;
		struct sl_wakeup_rec wk = {
			.run_id = run[r],
			.ts_ns = (uint64_t)i * 1000,
			.pid = 100 + i % 50,
			.waker_pid = i % 5 ? 7 : SL_REC_NONE,
			.waker_cpu = SL_REC_NONE,
			.prev_cpu = i % 16,
			.target_cpu = (i + 1) % 16,
			.run_cpu = SL_REC_NONE,
			.latency_ns = i % 3 ? (uint64_t)i : SL_REC_NO_TIME,
			.kind = 1,
		};
		struct sl_slice_rec sl = { .run_id = run[r],
					   .start_ns = (uint64_t)i * 1000,
					   .dur_ns = 500,
					   .cpu = i % 16,
					   .pid = i % 50,
					   .prio = 120,
					   .end_state = i % 4 ? 'S' : 'R',
					   .end_preempt = i % 8 == 0 };
		struct sl_fact_rec f = { .run_id = run[r],
					 .ts_ns = (uint64_t)i * 1000,
					 .kind = SL_FACT_COMM,
					 .pid = i };

		snprintf(f.txt, sizeof(f.txt), "t%d", i);
		sl_writer_push_wakeup(w, &wk);
		sl_writer_push_slice(w, &sl);
		sl_writer_push_fact(w, &f);
		if (i % 4096 == 0)
			sl_writer_flush(w);
	}
	is_int(sl_writer_stop(w), 0, "writer stopped");
	db = sl_store_db(st);
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups"), 2 * RUN_ROWS,
	       "every wakeup row there");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups WHERE run_id = 2"), RUN_ROWS,
	       "run 2's");
	is_int(fixture_q_int_db(db, "SELECT sum(rows) FROM wakeups_seg"), 2 * RUN_ROWS,
	       "the segments count them");
	ok(fixture_q_int_db(db, "SELECT count(*) FROM wakeups_seg") >= 20,
	   "a segment per run switch at least");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups WHERE run_id = 1 AND "
				    "((ts_ns / 1000) / 1000) % 2 != 0"),
	       0, "run 1 has its own rows only");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups WHERE waker_pid IS NULL"),
	       2 * RUN_ROWS / 5, "NULL waker_pid kept");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups WHERE latency_ns IS NULL"),
	       (2 * RUN_ROWS + 2) / 3, "NULL latency kept");
	is_int(fixture_q_int_db(db, "SELECT sum(latency_ns) FROM wakeups WHERE run_id = 1"),
	       fixture_q_int_db(db, "SELECT sum(ts_ns / 1000) FROM wakeups WHERE run_id = 1 "
				    "AND (ts_ns / 1000) % 3 != 0"),
	       "latencies as written");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM sched_slices WHERE end_state = 'R+'"),
	       2 * RUN_ROWS / 8, "end_state R+ as text");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM sched_slices WHERE end_state = 'S'"),
	       2 * RUN_ROWS * 3 / 4, "end_state S as text");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM sched_facts WHERE txt = 't12345'"), 1,
	       "a fact's txt");
	/* time ranges: bounds of every kind pick exactly the rows */
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups WHERE run_id = 1 AND "
				    "ts_ns >= 2500000 AND ts_ns < 7000000"),
	       2500, "a run and a half-open range");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups WHERE ts_ns > 2500000 AND "
				    "ts_ns <= 7000000"),
	       4500, "an open-closed range");
	is_int(fixture_q_int_db(db, "SELECT pid FROM wakeups WHERE ts_ns = 4321000"),
	       100 + 4321 % 50, "a time equality");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups WHERE ts_ns BETWEEN '1' AND 5"),
	       0, "a text bound: SQLite's comparison, not the pick, decides");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM sched_slices WHERE start_ns >= 19999000"),
	       1, "sched_slices bound on start_ns");
	/* rowids in the order written */
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM (SELECT ts_ns, lag(ts_ns) OVER "
				    "(ORDER BY rowid) AS p FROM wakeups WHERE run_id = 2) "
				    "WHERE p >= ts_ns"),
	       0, "rowid order is the order written");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups a JOIN wakeups b ON "
				    "b.run_id = a.run_id AND b.ts_ns = a.ts_ns + 1000 WHERE "
				    "a.run_id = 1"),
	       RUN_ROWS - 10, "a self-join: a cursor each");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups_v WHERE run_id = 2"), RUN_ROWS,
	       "the view over it");
	is_int(sqlite3_exec(db, "DELETE FROM wakeups", NULL, NULL, NULL), SQLITE_ERROR,
	       "the virtual tables are read only");
	sl_store_close(st);
}

/* a checksum of every column, the same through the row tables and the virtual tables */
#define WAKEUP_SUM                                                          \
	"SELECT sum(ts_ns * 3 + pid * 7 + coalesce(latency_ns, -1) * 11 + " \
	"coalesce(waker_pid, -5) * 13 + target_cpu) FROM wakeups"
#define SLICE_SUM                                                        \
	"SELECT sum(start_ns + dur_ns * 3 + cpu * 5 + pid * 7 + prio + " \
	"unicode(end_state) * 11 + length(end_state) * 13) FROM sched_slices"
#define FACT_SUM "SELECT sum(ts_ns + seq * 3 + kind * 5 + length(txt) * 7) FROM sched_facts"

static void test_migration(void)
{
	const char *path = fixture_path("v12.db");
	struct sl_store_opts opts = { .flags = SL_STORE_CREATE, .schema_version = 12 };
	struct sl_run_meta m = { .kernel_release = "6.1" };
	struct sl_retention p = { .event_keep_ns = 1 };
	struct sl_retention_stats rs;
	struct sl_store *st = NULL;
	int64_t run, wsum, ssum, fsum;
	sqlite3 *db;
	int err;

	if (sl_store_open_opts(path, &opts, &st) || sl_store_run_begin(st, &m, &run)) {
		diag("%s", sl_errmsg(-1));
		exit(1);
	}
	db = sl_store_db(st);
	is_int(sqlite3_exec(
		       db,
		       "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999) "
		       "INSERT INTO wakeups (run_id, ts_ns, pid, kind, waker_pid, target_cpu, "
		       "latency_ns, class_prev, class_waker, target_state, llc_idle, missed_idle, "
		       "missed_smt, policy_known, policy_agree) SELECT 1, i * 1000, 100 + i % 50, 1, "
		       "CASE WHEN i % 5 THEN 7 END, i % 16, CASE WHEN i % 3 THEN i END, 0, 0, 0, 0, "
		       "0, 0, 0, 0 FROM n;"
		       "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999) "
		       "INSERT INTO sched_slices SELECT 1, i % 16, i * 1000, 500, i % 50, 120, "
		       "CASE i % 4 WHEN 0 THEN 'R+' WHEN 1 THEN NULL ELSE 'S' END FROM n;"
		       "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999) "
		       "INSERT INTO sched_facts (run_id, ts_ns, seq, cpu, kind, common_pid, pid, txt) "
		       "SELECT 1, i * 1000, i % 2, 0, 9, 0, i, 'comm' || i FROM n;"
		       "INSERT INTO chunks (tbl, first_rowid, last_rowid, rows, min_ns, max_ns, "
		       "opened_wall, closed_wall) VALUES ('wakeups', 1, 5000, 5000, 0, 4999000, 1, 2), "
		       "('wakeups', 5001, 10000, 5000, 5000000, 9999000, 3, NULL), "
		       "('sched_slices', 1, 10000, 10000, 0, 9999000, 1, NULL)",
		       NULL, NULL, NULL),
	       SQLITE_OK, "schema 12 file with rows and chunks");
	wsum = fixture_q_int_db(db, WAKEUP_SUM);
	ssum = fixture_q_int_db(db, SLICE_SUM);
	fsum = fixture_q_int_db(db, FACT_SUM);
	sl_store_close(st);

	err = sl_store_open(path, 0, &st);
	is_int(err, 0, "migrates to %d: %s", SL_SCHEMA_VERSION, err ? sl_errmsg(err) : "ok");
	if (err)
		return;
	db = sl_store_db(st);
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM wakeups"), 10000, "every wakeup row");
	is_int(fixture_q_int_db(db, WAKEUP_SUM), wsum, "the same wakeup values");
	is_int(fixture_q_int_db(db, SLICE_SUM), ssum, "the same slice values");
	is_int(fixture_q_int_db(db, FACT_SUM), fsum, "the same facts (outside any chunk)");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM sqlite_master WHERE name = 'wakeups' "
				    "AND sql LIKE 'CREATE VIRTUAL TABLE%'"),
	       1, "wakeups is a virtual table now");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM chunks WHERE tbl IN ('wakeups', "
				    "'sched_slices')"),
	       0, "no chunk names a row table");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM chunks c WHERE tbl = 'wakeups_seg' AND "
				    "rows = (SELECT sum(rows) FROM wakeups_seg WHERE id BETWEEN "
				    "c.first_rowid AND c.last_rowid)"),
	       2, "the wakeup chunks range over segments holding their rows");
	is_int(sl_store_retention(st, &p, 10ull * 1000000000, &rs), 0, "retention");
	is_int((int64_t)rs.rows_deleted, 5000, "deletes the closed chunk's 5000 rows");
	is_int(fixture_q_int_db(db, "SELECT min(ts_ns) FROM wakeups"), 5000000,
	       "the open chunk's stay");
	is_int(fixture_q_int_db(db, "SELECT count(*) FROM sched_slices"), 10000,
	       "the open slice chunk stays");
	sl_store_close(st);
}

int main(void)
{
	test_codec();
	test_vtab();
	test_migration();
	return done_testing();
}
