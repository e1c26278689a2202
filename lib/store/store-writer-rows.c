// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store writer's inserts. Per-event rows (slices, wakeups, preemptions, facts) are
 * appended to the open segment of their table (segment.h), written as one row of its
 * segment table when SL_SEG_ROWS are in it, the run changes or the transaction commits; the
 * other rows (tasks, windows, CPU counts: few) are bound to the prepared insert
 * statements one by one. Either way the open retention chunk of each table is kept up to
 * date with the rowids and times written. Runs on the writer thread
 * (store-writer-thread.c), inside its transactions.
 */
#include <errno.h>
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

/*
 * Binds a task, window or CPU count row to its insert statement; returns its time for the
 * chunk's min/max. One flat case per table, each a list of binds in insert_sql[]'s column
 * order.
 */
static int64_t bind_row(sqlite3_stmt *st, const struct qitem *it, uint8_t *blob)
{
	switch (it->type) {
	case SL_ROW_TASK: {
		const struct sl_task_rec *r = &it->task;

		sqlite3_bind_int64(st, 1, r->run_id);
		sqlite3_bind_int(st, 2, r->pid);
		bind_opt_int(st, 3, r->tgid);
		sqlite3_bind_text(st, 4, r->comm, (int)strnlen(r->comm, sizeof(r->comm)),
				  SQLITE_STATIC);
		sqlite3_bind_text(st, 5, r->grp, (int)strnlen(r->grp, sizeof(r->grp)),
				  SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, (int64_t)r->first_ns);
		return (int64_t)r->first_ns;
	}
	case SL_ROW_CPU_COUNT: {
		const struct sl_cpu_count_rec *r = &it->cpu_count;

		sqlite3_bind_int64(st, 1, r->run_id);
		sqlite3_bind_int64(st, 2, (int64_t)r->start_ns);
		sqlite3_bind_int64(st, 3, (int64_t)r->dur_ns);
		sqlite3_bind_int(st, 4, r->cpu);
		sqlite3_bind_int64(st, 5, r->wakeups);
		sqlite3_bind_int64(st, 6, r->busy);
		sqlite3_bind_int64(st, 7, r->idle);
		sqlite3_bind_int64(st, 8, r->missed_idle);
		return (int64_t)r->start_ns;
	}
	default: {
		const struct sl_window_rec *r = it->window;
		const struct sl_hist *h = &r->latency;
		int c = 1;

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

int writer_seg_kind(int type)
{
	switch (type) {
	case SL_ROW_SLICE:
		return SL_SEG_SLICE;
	case SL_ROW_WAKEUP:
		return SL_SEG_WAKEUP;
	case SL_ROW_PREEMPT:
		return SL_SEG_PREEMPT;
	case SL_ROW_FACT:
		return SL_SEG_FACT;
	default:
		return -1;
	}
}

static const int seg_row_type[SL_SEG_KINDS] = {
	[SL_SEG_SLICE] = SL_ROW_SLICE,
	[SL_SEG_WAKEUP] = SL_ROW_WAKEUP,
	[SL_SEG_PREEMPT] = SL_ROW_PREEMPT,
	[SL_SEG_FACT] = SL_ROW_FACT,
};

/* Writes the open segment of kind, if it has rows, as one row of its segment table. */
static int flush_segment(struct sl_writer *w, int kind, uint64_t now_wall)
{
	struct sl_seg_buf *b = &w->seg[kind];
	int64_t rowid;
	int rc;

	if (!b->rows)
		return 0;
	rc = sl_store_seg_insert(w->seg_ins[kind], b);
	if (rc != SQLITE_OK)
		return sl_store_dberr(w->store->path, w->db, rc, "writing rows to");
	rowid = sqlite3_last_insert_rowid(w->db);
	chunk_note(&w->chunk[seg_row_type[kind]], rowid, rowid, b->min_ns, b->max_ns, b->rows,
		   now_wall);
	sl_seg_reset(b);
	return 0;
}

int writer_flush_segments(struct sl_writer *w, uint64_t now_wall)
{
	for (int k = 0; k < SL_SEG_KINDS; k++) {
		int err = flush_segment(w, k, now_wall);

		if (err)
			return err;
	}
	return 0;
}

/* The transaction failed: the rows of the open segments went with it. */
void writer_drop_segments(struct sl_writer *w)
{
	for (int k = 0; k < SL_SEG_KINDS; k++)
		sl_seg_reset(&w->seg[k]);
}

/* Appends the rows of one per-event type at the head of items to its open segment. */
static int append_segment(struct sl_writer *w, int kind, const struct qitem *items, size_t n,
			  uint64_t now_wall, size_t *ret_used)
{
	struct sl_seg_buf *b = &w->seg[kind];
	int type = items[0].type;
	int64_t vals[SL_SEG_MAX_COLS];
	size_t i;
	int err = 0;

	for (i = 0; i < n && items[i].type == type && !err; i++) {
		const struct qitem *it = &items[i];
		int64_t run_id = writer_item_run_id(type, &it->slice);
		const char *txt = NULL;

		if (b->rows && (b->run_id != run_id || b->rows >= SL_SEG_ROWS)) {
			err = flush_segment(w, kind, now_wall);
			if (err)
				break;
		}
		b->run_id = run_id;
		switch (type) {
		case SL_ROW_SLICE:
			sl_seg_from_slice(&it->slice, vals);
			break;
		case SL_ROW_WAKEUP:
			sl_seg_from_wakeup(&it->wakeup, vals);
			break;
		case SL_ROW_PREEMPT:
			sl_seg_from_preempt(&it->preempt, vals);
			break;
		default:
			sl_seg_from_fact(&it->fact, vals);
			txt = it->fact.txt;
			break;
		}
		if (sl_seg_append(b, kind, vals, txt))
			err = sl_error(-ENOMEM, "writing rows to '%s': out of memory",
				       w->store->path);
	}
	*ret_used = i ? i : 1;
	return err;
}

/*
 * Writes items[0]: a per-event row to its segment, with as many rows of its type as follow;
 * another row by itself. *ret_used is the number of items consumed (also on error).
 */
int writer_insert_items(struct sl_writer *w, const struct qitem *items, size_t n, uint64_t now_wall,
			size_t *ret_used)
{
	static __thread uint8_t blob[SL_HIST_BLOB_MAX];
	int type = items[0].type;
	int kind = writer_seg_kind(type);
	sqlite3_stmt *st = w->ins[type];
	int64_t ts, rowid;
	int rc;

	if (kind >= 0)
		return append_segment(w, kind, items, n, now_wall, ret_used);
	*ret_used = 1;
	ts = bind_row(st, &items[0], blob);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sl_store_dberr(w->store->path, w->db, rc, "writing rows to");
	if (!sl_store_chunk_table[type])
		return 0;
	rowid = sqlite3_last_insert_rowid(w->db);
	chunk_note(&w->chunk[type], rowid, rowid, ts, ts, 1, now_wall);
	return 0;
}

void writer_free_item(struct qitem *it)
{
	if (it->type == SL_ROW_WINDOW)
		free(it->window);
}
