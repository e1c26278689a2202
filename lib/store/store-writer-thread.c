// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store writer's thread: takes rows off the ring in batches and writes them in long
 * transactions (committed every commit_ms or commit_rows, or on a flush) with the chunks
 * and the drop counts, applies retention between transactions, and while the disk is
 * full drops and counts what it takes off the ring, trying a real transaction again
 * every full_retry_ms.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "store-writer-local.h"

/* Under lock: remembers the first error for the next flush. */
static void set_error(struct sl_writer *w, int err)
{
	if (!w->err) {
		w->err = err;
		snprintf(w->errmsg, sizeof(w->errmsg), "%s", sl_errmsg(err));
	}
}

static int begin(struct sl_writer *w)
{
	memcpy(w->saved, w->chunk, sizeof(w->chunk));
	return sl_store_exec(w->db, w->store->path, "BEGIN IMMEDIATE", "writing rows to");
}

static int step_reset(struct sl_writer *w, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sl_store_dberr(w->store->path, w->db, rc, "writing rows to");
	return 0;
}

/* Writes the open chunks' rows of `chunks`, closing those that are full or old enough. */
static int save_chunks(struct sl_writer *w, uint64_t now_wall, bool closed[SL_ROW_TYPES])
{
	const struct sl_retention *r = &w->opts.retention;

	for (int t = 0; t < SL_ROW_TYPES; t++) {
		struct chunk_state *c = &w->chunk[t];
		sqlite3_stmt *st;
		int err;

		closed[t] = false;
		if (!sl_store_chunk_table[t] || !c->rows)
			continue;
		closed[t] = c->rows >= r->chunk_rows ||
			    now_wall - c->opened_wall >= r->chunk_span_ns;
		if (c->id) {
			st = w->chunk_set;
			sqlite3_bind_int64(st, 7, c->id);
		} else {
			st = w->chunk_new;
			sqlite3_bind_text(st, 7, sl_store_chunk_table[t], -1, SQLITE_STATIC);
		}
		sqlite3_bind_int64(st, 1, c->first_rowid);
		sqlite3_bind_int64(st, 2, c->last_rowid);
		sqlite3_bind_int64(st, 3, (int64_t)c->rows);
		sqlite3_bind_int64(st, 4, c->min_ns);
		sqlite3_bind_int64(st, 5, c->max_ns);
		if (closed[t])
			sqlite3_bind_int64(st, 6, (int64_t)now_wall);
		else
			sqlite3_bind_null(st, 6);
		if (!c->id)
			sqlite3_bind_int64(st, 8, (int64_t)c->opened_wall);
		err = step_reset(w, st);
		if (err)
			return err;
		if (!c->id)
			c->id = sqlite3_last_insert_rowid(w->db);
	}
	return 0;
}

static int commit(struct sl_writer *w, uint64_t now_wall)
{
	struct drop_slot drops[DROP_SLOTS];
	bool closed[SL_ROW_TYPES];
	int err;

	pthread_mutex_lock(&w->lock);
	memcpy(drops, w->drops, sizeof(drops));
	memset(w->drops, 0, sizeof(w->drops));
	pthread_mutex_unlock(&w->lock);

	err = save_chunks(w, now_wall, closed);
	for (int i = 0; i < DROP_SLOTS && !err && drops[i].run_id; i++) {
		sqlite3_bind_int64(w->drop_add, 1, (int64_t)drops[i].count);
		sqlite3_bind_int64(w->drop_add, 2, drops[i].run_id);
		err = step_reset(w, w->drop_add);
	}
	if (!err)
		err = sl_store_exec(w->db, w->store->path, "COMMIT", "writing rows to");
	if (err) {
		pthread_mutex_lock(&w->lock);
		for (int i = 0; i < DROP_SLOTS && drops[i].run_id; i++)
			writer_add_drops(w, drops[i].run_id, drops[i].count);
		pthread_mutex_unlock(&w->lock);
		return err;
	}
	for (int t = 0; t < SL_ROW_TYPES; t++)
		if (closed[t])
			memset(&w->chunk[t], 0, sizeof(w->chunk[t]));
	w->commits++;
	return 0;
}

/*
 * A write failed for want of space: SQLITE_FULL (-ENOSPC from sl_store_dberr), or an I/O
 * error whose system errno says so (growing the -shm or -wal file on a full file system).
 */
static bool out_of_space(struct sl_writer *w, int err)
{
	return err == -ENOSPC || err == -EDQUOT ||
	       (err == -EIO &&
		(sqlite3_system_errno(w->db) == ENOSPC || sqlite3_system_errno(w->db) == EDQUOT));
}

/* The transaction failed: its rows are lost, the database and the chunks are as before. */
static void fail(struct sl_writer *w, int err, uint64_t rows)
{
	bool full = out_of_space(w, err);

	sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
	memcpy(w->chunk, w->saved, sizeof(w->chunk));
	w->failed += rows;
	if (full) {
		w->full_dropped += rows;
		if (!w->full)
			w->full_episodes++;
		w->full = true;
		w->next_try = now_mono_ms() + w->opts.full_retry_ms;
		snprintf(w->full_msg, sizeof(w->full_msg), "%s", sl_errmsg(err));
	}
	pthread_mutex_lock(&w->lock);
	set_error(w, err);
	pthread_mutex_unlock(&w->lock);
}

/*
 * The disk is full and it is not yet time to try again: the items' rows are dropped
 * unwritten (the tracer is never blocked) and counted, against their runs as well, so
 * runs.dropped_rows has them once space returns.
 */
static void drop_while_full(struct sl_writer *w, struct qitem *items, size_t n)
{
	uint64_t rows = 0;

	pthread_mutex_lock(&w->lock);
	/* a flush after these drops fails too, though no write was tried */
	if (n && !w->err) {
		w->err = -ENOSPC;
		snprintf(w->errmsg, sizeof(w->errmsg), "%s", w->full_msg);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t r = writer_item_rows(&items[i]);

		writer_add_drops(w, writer_item_run_id(&items[i]), r);
		writer_free_item_locked(w, &items[i]);
		rows += r;
	}
	pthread_mutex_unlock(&w->lock);
	w->failed += rows;
	w->full_dropped += rows;
}

static void publish_stats(struct sl_writer *w)
{
	memcpy(w->stats.written, w->written, sizeof(w->written));
	w->stats.failed = w->failed;
	w->stats.disk_full = w->full;
	w->stats.full_dropped = w->full_dropped;
	w->stats.full_episodes = w->full_episodes;
	w->stats.commits = w->commits;
	w->stats.chunks_deleted = w->chunks_deleted;
}

/*
 * Under lock: sleeps until there are rows enough to wake for (a queued segment, wake_at
 * items, half the event rows' share), a flush or stop asks, or commit_ms has passed with rows
 * queued (since the open transaction's start if in_txn). Returns true if that time is up.
 */
static bool wait_for_rows(struct sl_writer *w, bool in_txn, uint64_t txn_start, uint64_t taken)
{
	while (!w->stopping && (w->paused || !writer_worth_waking(w)) && w->flush_target <= taken &&
	       !w->want_drops) {
		struct timespec until;
		uint64_t deadline = (in_txn ? txn_start : now_mono_ms()) + w->opts.commit_ms;
		int rc;

		if (!w->paused && w->rows && now_mono_ms() >= deadline)
			return true;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += w->opts.commit_ms / 1000;
		until.tv_nsec += (long)(w->opts.commit_ms % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		w->sleeping = true;
		rc = pthread_cond_timedwait(&w->wake, &w->lock, &until);
		w->sleeping = false;
		if (rc == ETIMEDOUT && !w->paused)
			return true;
	}
	return false;
}

/*
 * Under lock: the next up to TAKE_MAX items, in place at the ring's head (none while paused):
 * the thread writes them from there, and release_batch() gives their slots back. Never
 * past the ring's end, so the batch is one array; copying it out first showed in a
 * profile of an import.
 */
static size_t take_batch(struct sl_writer *w, struct qitem **ret_items)
{
	size_t n = 0;

	if (!w->paused || w->stopping) {
		n = w->count < TAKE_MAX ? w->count : TAKE_MAX;
		if (n > w->cap - w->head)
			n = w->cap - w->head;
	}
	*ret_items = &w->ring[w->head];
	return n;
}

/*
 * Under lock: the n items take_batch() gave, rows in all, are written (or dropped); their
 * slots and their share of the queue are free.
 */
static void release_batch(struct sl_writer *w, size_t n, uint64_t rows)
{
	w->head = (w->head + n) % w->cap;
	w->count -= n;
	w->rows -= rows;
}

/* Between transactions: deletes the chunks retention says are due. */
static void apply_retention(struct sl_writer *w)
{
	struct sl_retention_stats rs;
	int err = sl_store_retention_db(w->db, w->store->path, &w->opts.retention, 0, &rs);

	w->chunks_deleted += rs.chunks_deleted;
	if (err) {
		pthread_mutex_lock(&w->lock);
		set_error(w, err);
		pthread_mutex_unlock(&w->lock);
	}
}

/*
 * Called and returns under lock: drop counts with no rows to carry them, in a transaction
 * of their own.
 */
static void store_lone_drops(struct sl_writer *w, uint64_t now_wall)
{
	int err;

	pthread_mutex_unlock(&w->lock);
	err = begin(w);
	if (!err)
		err = commit(w, now_wall);
	if (err)
		fail(w, err, 0);
	else
		w->full = false;
	pthread_mutex_lock(&w->lock);
}

/* The thread's open transaction. */
struct txn {
	bool open;
	uint64_t start; /* monotonic ms */
	uint64_t rows, written[SL_ROW_TYPES];
};

/* Commits the open transaction: its rows count as written, or all of them failed. */
static void end_txn(struct sl_writer *w, uint64_t now_wall, struct txn *t)
{
	int err = commit(w, now_wall);

	t->open = false;
	if (err) {
		fail(w, err, t->rows);
		return;
	}
	for (int type = 0; type < SL_ROW_TYPES; type++)
		w->written[type] += t->written[type];
	/* space came back: what is queued is written again */
	w->full = false;
}

/*
 * Writes items in the open transaction (begun if need be) and frees them; a failed write
 * loses the transaction's rows. While the disk is full and it is not yet time to try again,
 * drops them instead.
 */
static void write_items(struct sl_writer *w, struct qitem *items, size_t n, uint64_t now_wall,
			bool stopping, struct txn *t)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t rows = writer_item_rows(&items[i]);
		int err = 0;

		if (w->full && now_mono_ms() < w->next_try && !stopping) {
			drop_while_full(w, &items[i], n - i);
			return;
		}
		if (!t->open) {
			err = begin(w);
			t->open = !err;
			t->rows = 0;
			t->start = now_mono_ms();
			memset(t->written, 0, sizeof(t->written));
		}
		if (!err)
			err = writer_insert_item(w, &items[i], now_wall);
		t->rows += rows;
		t->written[items[i].type] += rows;
		if (items[i].type != SL_ROW_TASK && items[i].type != SL_ROW_CPU_COUNT) {
			pthread_mutex_lock(&w->lock);
			writer_free_item_locked(w, &items[i]);
			pthread_mutex_unlock(&w->lock);
		}
		if (err) {
			fail(w, err, t->open ? t->rows : rows);
			t->open = false;
		}
	}
}

/* The rows in n items. */
static uint64_t count_rows(const struct qitem *items, size_t n)
{
	uint64_t rows = 0;

	for (size_t i = 0; i < n; i++)
		rows += writer_item_rows(&items[i]);
	return rows;
}

void *writer_main(void *arg)
{
	struct sl_writer *w = arg;
	uint64_t taken = 0, last_retention = now_mono_ms();
	struct txn t = { 0 };

	pthread_setname_np(pthread_self(), "sl-writer");
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct qitem *batch;
		size_t n;
		bool flush_wanted, stopping, due;
		uint64_t now, now_wall, rows, remaining;

		due = wait_for_rows(w, t.open, t.start, taken);
		n = take_batch(w, &batch);
		stopping = w->stopping;
		flush_wanted = w->flush_target > taken || w->want_drops;
		due = due || flush_wanted || stopping ||
		      writer_queued_rows(w) >= w->event_limit / 2 ||
		      (t.open && now_mono_ms() - t.start >= w->opts.commit_ms);
		/* rows wait in the producer's open segments: it queues them at its next push */
		if (due && n == w->count && w->held && !w->paused)
			__atomic_store_n(&w->prod.want_open, true, __ATOMIC_RELAXED);
		rows = count_rows(batch, n);
		for (size_t i = 0; i < n; i++)
			w->segs_queued -= writer_seg_kind(batch[i].type) >= 0;
		remaining = writer_queued_rows(w) - rows;
		w->stats.queue_len = remaining;
		pthread_mutex_unlock(&w->lock);

		now_wall = sl_store_now_wall();
		write_items(w, batch, n, now_wall, stopping, &t);
		taken += rows;
		now = now_mono_ms();
		if (t.open && (t.rows >= w->opts.commit_rows ||
			       now - t.start >= w->opts.commit_ms || (remaining == 0 && due)))
			end_txn(w, now_wall, &t);
		/* also while full: deleting old chunks frees pages in the file for new rows */
		if (!t.open && w->opts.retention_ms &&
		    now - last_retention >= w->opts.retention_ms) {
			apply_retention(w);
			last_retention = now;
		}
		pthread_mutex_lock(&w->lock);
		release_batch(w, n, rows);
		/* want_drops as of now: a flush may have asked since this batch was taken */
		if (!t.open && w->drops[0].run_id &&
		    (((flush_wanted || w->want_drops) && !w->full) || stopping ||
		     (w->full && now_mono_ms() >= w->next_try)))
			store_lone_drops(w, now_wall);
		if (!t.open)
			w->want_drops = false;
		publish_stats(w);
		if (!t.open) {
			w->committed_seq = taken;
			pthread_cond_broadcast(&w->done);
		}
		if (w->stopping && !w->rows && !t.open && (!w->drops[0].run_id || w->err))
			break;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}
