// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rows the ftrace text export replays (store-query.h, lib/serve/export-text.c): the
 * run's flags, its tasks, its facts, and the derived rows a run without facts is rebuilt
 * from. Each walk decodes a row into its record and hands it to a callback; NULL columns
 * become the records' "none" values (SL_REC_NONE, SL_REC_NO_TIME, "").
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>

#include "facts.h"
#include "db-json.h"
#include "error.h"
#include "store-query.h"

/* The text of column i, "" for NULL. */
static const char *text_or_empty(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

/* An int column that may be NULL: none for NULL. */
static int64_t int_or(sqlite3_stmt *st, int i, int64_t none)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? none : sqlite3_column_int64(st, i);
}

/*
 * Whether st has another row: false at its end, once *err is set (a callback stopped the
 * walk), or on a database error (then *err is set to it).
 */
static bool next_row(sqlite3 *db, sqlite3_stmt *st, int *err, const char *what)
{
	int rc;

	if (*err)
		return false;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return true;
	if (rc != SQLITE_DONE)
		*err = sl_db_error(db, what);
	return false;
}

/* Prepares sql with run_id as ?1. */
static int prepare_run(sqlite3 *db, const char *sql, int64_t run_id, sqlite3_stmt **st,
		       const char *what)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return sl_db_error(db, what);
	sqlite3_bind_int64(*st, 1, run_id);
	return 0;
}

int sl_query_export_run(struct sl_store *store, int64_t run_id, struct sl_export_run *ret)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int rc, err;

	err = prepare_run(db, "SELECT waker_from_wakeup, end_ns, facts FROM runs WHERE id = ?1",
			  run_id, &st, "cannot read the run");
	if (err)
		return err;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		ret->waker_from_wakeup = sqlite3_column_int(st, 0);
		ret->end_ns = sqlite3_column_int64(st, 1);
		ret->has_facts = sqlite3_column_int(st, 2);
		err = 0;
	} else if (rc == SQLITE_DONE) {
		err = sl_error(-ENOENT, "no run %lld", (long long)run_id);
	} else {
		err = sl_db_error(db, "cannot read the run");
	}
	sqlite3_finalize(st);
	return err;
}

int sl_query_run_tasks(struct sl_store *store, int64_t run_id, sl_query_task_cb cb, void *ctx)
{
	static const char what[] = "cannot read tasks";
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int err = prepare_run(db, "SELECT pid, tgid, comm FROM tasks WHERE run_id = ?1", run_id,
			      &st, what);

	while (next_row(db, st, &err, what)) {
		struct sl_task_rec t = { .run_id = run_id,
					 .pid = (int32_t)sqlite3_column_int64(st, 0) };

		if (sqlite3_column_int64(st, 0) != t.pid)
			continue; /* not a pid */
		t.tgid = (int32_t)int_or(st, 1, SL_REC_NONE);
		snprintf(t.comm, sizeof(t.comm), "%s", text_or_empty(st, 2));
		err = cb(ctx, &t);
	}
	sqlite3_finalize(st);
	return err;
}

int sl_query_run_facts(struct sl_store *store, int64_t run_id, sl_query_fact_cb cb, void *ctx)
{
	static const char what[] = "cannot read sched_facts";
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	/* at one (ts, seq), a comm fact before the event it names the task for */
	int err =
		prepare_run(db,
			    "SELECT ts_ns, seq, cpu, kind, common_pid, pid, arg1, arg2, arg3, txt "
			    "FROM sched_facts WHERE run_id = ?1 ORDER BY ts_ns, seq, kind < ?2, "
			    "rowid",
			    run_id, &st, what);

	if (!err)
		sqlite3_bind_int(st, 2, SL_FACT_COMM);
	while (next_row(db, st, &err, what)) {
		struct sl_fact_rec f = {
			.run_id = run_id,
			.ts_ns = (uint64_t)sqlite3_column_int64(st, 0),
			.seq = (uint32_t)sqlite3_column_int64(st, 1),
			.cpu = sqlite3_column_int(st, 2),
			.kind = (uint8_t)sqlite3_column_int(st, 3),
			.common_pid = sqlite3_column_int(st, 4),
			.pid = sqlite3_column_int(st, 5),
			.arg1 = sqlite3_column_int64(st, 6),
			.arg2 = sqlite3_column_int(st, 7),
			.arg3 = sqlite3_column_int(st, 8),
		};

		if (sqlite3_column_int(st, 3) != f.kind)
			continue; /* no kind of ours */
		snprintf(f.txt, sizeof(f.txt), "%s", text_or_empty(st, 9));
		err = cb(ctx, &f);
	}
	sqlite3_finalize(st);
	return err;
}

int sl_query_run_first_switches(struct sl_store *store, int64_t run_id, sl_query_first_switch_cb cb,
				void *ctx)
{
	static const char what[] = "cannot read run_cpu_first";
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int err = prepare_run(db,
			      "SELECT cpu, ts_ns, prev_pid, prev_prio, prev_state, prev_comm "
			      "FROM run_cpu_first WHERE run_id = ?1",
			      run_id, &st, what);

	while (next_row(db, st, &err, what)) {
		struct sl_first_switch_rec f = {
			.cpu = sqlite3_column_int(st, 0),
			.ts_ns = (uint64_t)sqlite3_column_int64(st, 1),
			.prev_pid = sqlite3_column_int(st, 2),
			.prev_prio = (int16_t)sqlite3_column_int(st, 3),
		};

		snprintf(f.prev_state, sizeof(f.prev_state), "%s", text_or_empty(st, 4));
		snprintf(f.prev_comm, sizeof(f.prev_comm), "%s", text_or_empty(st, 5));
		err = cb(ctx, &f);
	}
	sqlite3_finalize(st);
	return err;
}

int sl_query_run_slices(struct sl_store *store, int64_t run_id, sl_query_slice_cb cb, void *ctx)
{
	static const char what[] = "cannot read sched_slices";
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int err =
		prepare_run(db,
			    "SELECT cpu, start_ns, pid, prio, end_state, dur_ns FROM sched_slices "
			    "WHERE run_id = ?1 ORDER BY cpu, start_ns",
			    run_id, &st, what);

	while (next_row(db, st, &err, what)) {
		const char *state = text_or_empty(st, 4);
		struct sl_slice_rec s = {
			.run_id = run_id,
			.cpu = sqlite3_column_int(st, 0),
			.start_ns = (uint64_t)sqlite3_column_int64(st, 1),
			.pid = sqlite3_column_int(st, 2),
			.prio = (int16_t)sqlite3_column_int(st, 3),
			.dur_ns = (uint64_t)sqlite3_column_int64(st, 5),
			.end_state = state[0],
			.end_preempt = state[0] && state[1] == '+',
		};

		err = cb(ctx, &s);
	}
	sqlite3_finalize(st);
	return err;
}

int sl_query_run_wakeups_waking(struct sl_store *store, int64_t run_id,
				sl_query_wakeup_waking_cb cb, void *ctx)
{
	static const char what[] = "cannot read wakeups";
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int err = prepare_run(
		db,
		"SELECT w.ts_ns, w.pid, kind, waker_pid, waker_cpu, prev_cpu, target_cpu, run_cpu, "
		"latency_ns, k.waking_ns, waker_irq FROM wakeups w LEFT JOIN wakings k "
		"ON k.run_id = w.run_id AND k.pid = w.pid AND k.ts_ns = w.ts_ns WHERE w.run_id = ?1",
		run_id, &st, what);

	while (next_row(db, st, &err, what)) {
		struct sl_wakeup_rec w = {
			.run_id = run_id,
			.ts_ns = (uint64_t)sqlite3_column_int64(st, 0),
			.pid = sqlite3_column_int(st, 1),
			.kind = (uint8_t)sqlite3_column_int(st, 2),
			.waker_pid = (int32_t)int_or(st, 3, SL_REC_NONE),
			.waker_cpu = (int32_t)int_or(st, 4, SL_REC_NONE),
			.prev_cpu = (int32_t)int_or(st, 5, SL_REC_NONE),
			.target_cpu = sqlite3_column_int(st, 6),
			.run_cpu = (int32_t)int_or(st, 7, SL_REC_NONE),
			.latency_ns = (uint64_t)int_or(st, 8, (int64_t)SL_REC_NO_TIME),
			.waker_irq = (uint8_t)sqlite3_column_int(st, 10),
		};

		err = cb(ctx, &w, (uint64_t)int_or(st, 9, (int64_t)SL_REC_NO_TIME));
	}
	sqlite3_finalize(st);
	return err;
}
