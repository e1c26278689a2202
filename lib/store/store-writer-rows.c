// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store writer's inserts: binds queued rows to the prepared insert statements (one row,
 * or MULTI_ROWS event rows of one type in one statement) and keeps the open retention
 * chunk of each table up to date with the rowids and times written. Runs on the writer
 * thread (store-writer-thread.c), inside its transactions.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "store-writer-local.h"

static void bind_opt_int(sqlite3_stmt *st, int col, int64_t v)
{
	if (v == SL_REC_NONE)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

static void bind_opt_time(sqlite3_stmt *st, int col, uint64_t v)
{
	if (v == SL_REC_NO_TIME)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, (int64_t)v);
}

/*
 * Binds a row at parameters o + 1, o + 2, ... (o > 0 for the later rows of a multi-row
 * insert); returns its time for the chunk's min/max. Long because it is one flat case per
 * table, each a list of binds in insert_sql[]'s column order: read side by side with that
 * list, one switch is easier to check than seven functions.
 */
static int64_t bind_row(sqlite3_stmt *st, int o, const struct qitem *it, uint8_t *blob)
{
	switch (it->type) {
	case SL_ROW_SLICE: {
		const struct sl_slice_rec *r = &it->slice;
		char state[3] = { r->end_state, r->end_preempt ? '+' : 0, 0 };

		sqlite3_bind_int64(st, o + 1, r->run_id);
		sqlite3_bind_int(st, o + 2, r->cpu);
		sqlite3_bind_int64(st, o + 3, (int64_t)r->start_ns);
		sqlite3_bind_int64(st, o + 4, (int64_t)r->dur_ns);
		sqlite3_bind_int(st, o + 5, r->pid);
		sqlite3_bind_int(st, o + 6, r->prio);
		if (r->end_state)
			sqlite3_bind_text(st, o + 7, state, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, o + 7);
		return (int64_t)r->start_ns;
	}
	case SL_ROW_WAKEUP: {
		const struct sl_wakeup_rec *r = &it->wakeup;

		sqlite3_bind_int64(st, o + 1, r->run_id);
		sqlite3_bind_int64(st, o + 2, (int64_t)r->ts_ns);
		sqlite3_bind_int(st, o + 3, r->pid);
		sqlite3_bind_int(st, o + 4, r->kind);
		bind_opt_int(st, o + 5, r->waker_pid);
		bind_opt_int(st, o + 6, r->waker_cpu);
		bind_opt_int(st, o + 7, r->prev_cpu);
		sqlite3_bind_int(st, o + 8, r->target_cpu);
		bind_opt_int(st, o + 9, r->run_cpu);
		bind_opt_time(st, o + 10, r->latency_ns);
		sqlite3_bind_int(st, o + 11, r->class_prev);
		sqlite3_bind_int(st, o + 12, r->class_waker);
		sqlite3_bind_int(st, o + 13, r->target_state);
		sqlite3_bind_int(st, o + 14, r->llc_idle);
		sqlite3_bind_int(st, o + 15, r->missed_idle);
		sqlite3_bind_int(st, o + 16, r->missed_smt);
		bind_opt_int(st, o + 17, r->preempted_pid > 0 ? r->preempted_pid : SL_REC_NONE);
		sqlite3_bind_int(st, o + 18, r->policy_known);
		sqlite3_bind_int(st, o + 19, r->policy_agree);
		sqlite3_bind_int(st, o + 20, r->waker_irq);
		return (int64_t)r->ts_ns;
	}
	case SL_ROW_PREEMPT: {
		const struct sl_preempt_rec *r = &it->preempt;

		sqlite3_bind_int64(st, o + 1, r->run_id);
		sqlite3_bind_int64(st, o + 2, (int64_t)r->ts_ns);
		sqlite3_bind_int(st, o + 3, r->cpu);
		sqlite3_bind_int(st, o + 4, r->victim_pid);
		sqlite3_bind_int(st, o + 5, r->preemptor_pid);
		sqlite3_bind_int(st, o + 6, r->cause);
		bind_opt_time(st, o + 7, r->off_ns);
		sqlite3_bind_int(st, o + 8, r->same_group);
		sqlite3_bind_int(st, o + 9, r->hub);
		sqlite3_bind_int(st, o + 10, r->waiters);
		sqlite3_bind_int64(st, o + 11, (int64_t)r->lhp_cost_ns);
		sqlite3_bind_int(st, o + 12, r->delayed_wakeups);
		sqlite3_bind_int(st, o + 13, r->censored);
		sqlite3_bind_int(st, o + 14, r->spinners);
		sqlite3_bind_int64(st, o + 15, (int64_t)r->spin_cost_ns);
		return (int64_t)r->ts_ns;
	}
	case SL_ROW_FACT: {
		const struct sl_fact_rec *r = &it->fact;

		sqlite3_bind_int64(st, o + 1, r->run_id);
		sqlite3_bind_int64(st, o + 2, (int64_t)r->ts_ns);
		sqlite3_bind_int(st, o + 3, (int)r->seq);
		sqlite3_bind_int(st, o + 4, r->cpu);
		sqlite3_bind_int(st, o + 5, r->kind);
		sqlite3_bind_int(st, o + 6, r->common_pid);
		sqlite3_bind_int(st, o + 7, r->pid);
		sqlite3_bind_int64(st, o + 8, r->arg1);
		sqlite3_bind_int(st, o + 9, r->arg2);
		sqlite3_bind_int(st, o + 10, r->arg3);
		if (r->txt[0])
			sqlite3_bind_text(st, o + 11, r->txt, (int)strnlen(r->txt, sizeof(r->txt)),
					  SQLITE_STATIC);
		else
			sqlite3_bind_null(st, o + 11);
		return (int64_t)r->ts_ns;
	}
	case SL_ROW_TASK: {
		const struct sl_task_rec *r = &it->task;

		sqlite3_bind_int64(st, o + 1, r->run_id);
		sqlite3_bind_int(st, o + 2, r->pid);
		bind_opt_int(st, o + 3, r->tgid);
		sqlite3_bind_text(st, o + 4, r->comm, (int)strnlen(r->comm, sizeof(r->comm)),
				  SQLITE_STATIC);
		sqlite3_bind_text(st, o + 5, r->grp, (int)strnlen(r->grp, sizeof(r->grp)),
				  SQLITE_STATIC);
		sqlite3_bind_int64(st, o + 6, (int64_t)r->first_ns);
		return (int64_t)r->first_ns;
	}
	case SL_ROW_CPU_COUNT: {
		const struct sl_cpu_count_rec *r = &it->cpu_count;

		sqlite3_bind_int64(st, o + 1, r->run_id);
		sqlite3_bind_int64(st, o + 2, (int64_t)r->start_ns);
		sqlite3_bind_int64(st, o + 3, (int64_t)r->dur_ns);
		sqlite3_bind_int(st, o + 4, r->cpu);
		sqlite3_bind_int64(st, o + 5, r->wakeups);
		sqlite3_bind_int64(st, o + 6, r->busy);
		sqlite3_bind_int64(st, o + 7, r->idle);
		sqlite3_bind_int64(st, o + 8, r->missed_idle);
		return (int64_t)r->start_ns;
	}
	default: {
		const struct sl_window_rec *r = it->window;
		const struct sl_hist *h = &r->latency;
		int c = o + 1;

		sqlite3_bind_int64(st, c++, r->run_id);
		sqlite3_bind_text(st, c++, r->grp, (int)strnlen(r->grp, sizeof(r->grp)),
				  SQLITE_STATIC);
		sqlite3_bind_int64(st, c++, (int64_t)r->start_ns);
		sqlite3_bind_int64(st, c++, (int64_t)r->dur_ns);
		for (int i = 0; i < SL_WIN_NR; i++)
			sqlite3_bind_int64(st, c++, (int64_t)SL_WIN_CVALUE(r, i));
		sqlite3_bind_int64(st, c++, (int64_t)h->total);
		if (h->total) {
			sqlite3_bind_int64(st, c++, (int64_t)sl_hist_quantile_ns(h, 0.5));
			sqlite3_bind_int64(st, c++, (int64_t)sl_hist_quantile_ns(h, 0.99));
		} else {
			sqlite3_bind_null(st, c++);
			sqlite3_bind_null(st, c++);
		}
		sqlite3_bind_blob(st, c++, blob, (int)sl_hist_encode(h, blob), SQLITE_STATIC);
		return (int64_t)r->start_ns;
	}
	}
}

static void chunk_note(struct chunk_state *c, int64_t first_rowid, int64_t last_rowid,
		       int64_t min_ns, int64_t max_ns, uint64_t rows, uint64_t now_wall)
{
	if (!c->rows) {
		c->first_rowid = first_rowid;
		c->min_ns = min_ns;
		c->max_ns = max_ns;
		c->opened_wall = now_wall;
	}
	c->last_rowid = last_rowid;
	c->rows += rows;
	if (min_ns < c->min_ns)
		c->min_ns = min_ns;
	if (max_ns > c->max_ns)
		c->max_ns = max_ns;
}

/*
 * Inserts items[0], or MULTI_ROWS of them with one statement when that many event rows
 * of one type follow: a multi-row INSERT saves most of SQLite's per-statement work.
 * *ret_used is the number of items consumed (also on error).
 */
int writer_insert_items(struct sl_writer *w, const struct qitem *items, size_t n, uint64_t now_wall,
			size_t *ret_used)
{
	static __thread uint8_t blob[SL_HIST_BLOB_MAX];
	int type = items[0].type;
	sqlite3_stmt *st = w->ins[type];
	int64_t ts, min_ns, max_ns, rowid;
	size_t rows = 1;
	int rc;

	if (w->ins_multi[type] && n >= MULTI_ROWS) {
		while (rows < MULTI_ROWS && items[rows].type == type)
			rows++;
		if (rows == MULTI_ROWS)
			st = w->ins_multi[type];
		else
			rows = 1;
	}
	*ret_used = rows;
	min_ns = INT64_MAX;
	max_ns = INT64_MIN;
	for (size_t i = 0; i < rows; i++) {
		ts = bind_row(st, (int)i * w->ncols[type], &items[i], blob);
		if (ts < min_ns)
			min_ns = ts;
		if (ts > max_ns)
			max_ns = ts;
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sl_store_dberr(w->store->path, w->db, rc, "writing rows to");
	if (!sl_store_chunk_table[type])
		return 0;
	/* rows of one INSERT get consecutive rowids: the table's largest rowid + 1, + 2, ... */
	rowid = sqlite3_last_insert_rowid(w->db);
	chunk_note(&w->chunk[type], rowid - (int64_t)rows + 1, rowid, min_ns, max_ns, rows,
		   now_wall);
	return 0;
}

void writer_free_item(struct qitem *it)
{
	if (it->type == SL_ROW_WINDOW)
		free(it->window);
}
