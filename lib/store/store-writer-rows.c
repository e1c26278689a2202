// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store writer's inserts. Per-event rows (slices, wakeups, preemptions, facts) come
 * encoded by the producers, a segment (segment.h) per queued item, written as one row of
 * their segment table; the other rows (tasks, windows, CPU counts: few) are bound to the
 * prepared insert statements one by one. Either way the open retention chunk of each table
 * is kept up to date with the rowids and times written. Runs on the writer thread
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

/* Writes a segment the producers encoded as one row of its segment table. */
static int insert_segment(struct sl_writer *w, int type, const struct sl_seg_buf *b,
			  uint64_t now_wall)
{
	int64_t rowid;
	int rc = sl_store_seg_insert(w->seg_ins[writer_seg_kind(type)], b);

	if (rc != SQLITE_OK)
		return sl_store_dberr(w->store->path, w->db, rc, "writing rows to");
	rowid = sqlite3_last_insert_rowid(w->db);
	chunk_note(&w->chunk[type], rowid, rowid, b->min_ns, b->max_ns, b->rows, now_wall);
	return 0;
}

/* Writes one queued item: a segment as one row, another row by itself. */
int writer_insert_item(struct sl_writer *w, const struct qitem *it, uint64_t now_wall)
{
	static __thread uint8_t blob[SL_HIST_BLOB_MAX];
	sqlite3_stmt *st = w->ins[it->type];
	int64_t ts, rowid;
	int rc;

	if (writer_seg_kind(it->type) >= 0)
		return insert_segment(w, it->type, it->seg, now_wall);
	ts = bind_row(st, it, blob);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sl_store_dberr(w->store->path, w->db, rc, "writing rows to");
	if (!sl_store_chunk_table[it->type])
		return 0;
	rowid = sqlite3_last_insert_rowid(w->db);
	chunk_note(&w->chunk[it->type], rowid, rowid, ts, ts, 1, now_wall);
	return 0;
}

int64_t writer_item_run_id(const struct qitem *it)
{
	switch (it->type) {
	case SL_ROW_TASK:
		return it->task.run_id;
	case SL_ROW_CPU_COUNT:
		return it->cpu_count.run_id;
	case SL_ROW_WINDOW:
		return it->window->run_id;
	default:
		return it->seg->run_id;
	}
}

/* The rows an item holds: a segment's, else one. */
uint64_t writer_item_rows(const struct qitem *it)
{
	return writer_seg_kind(it->type) >= 0 ? it->seg->rows : 1;
}

/* Under lock: frees a written or dropped item; a segment is kept for reuse if there is room. */
void writer_free_item_locked(struct sl_writer *w, struct qitem *it)
{
	if (it->type == SL_ROW_WINDOW) {
		free(it->window);
	} else if (writer_seg_kind(it->type) >= 0) {
		writer_release_segment(w, it->seg);
	}
}
