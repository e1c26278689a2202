// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store's writer thread. One producer thread (the session's) pushes rows and never
 * waits for I/O: a per-event row is encoded, without a lock, into the producer's open segment
 * of its table, queued in a bounded ring once full, when the thread asks for it (a commit is
 * due) or on a flush; a task, window or CPU count row is queued as it is, under a short
 * mutex. When the queue is full the row is dropped and counted against its run. The thread
 * takes items out in batches, inserts them with one
 * prepared statement per table inside long transactions (committed every commit_ms or
 * commit_rows, or when someone flushes), keeps the retention chunks up to date in the same
 * transactions, adds the drop counts to runs.dropped_rows, and applies retention between
 * transactions. Tasks, windows and CPU counts are the rows kept long term: they may use the
 * whole ring, the per-event rows only 7/8 of it. When a write fails for want of space the
 * thread drops and counts what it takes off the ring, without writing, and tries a real
 * transaction again every full_retry_ms: a full disk never blocks the producers.
 *
 * This file owns the producers' side and the life cycle; the thread is in
 * store-writer-thread.c, the binding of rows to statements in store-writer-rows.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "store-writer-local.h"

/*
 * Rows queued at most (per-event rows encoded, about 20 bytes each; a task, window or CPU
 * count row an 80-byte ring slot): half a second of a 300 k events/s recording here, which
 * rides out the writer's pauses (a checkpoint's fsync, a CPU busy with the workload). With
 * 65536, `schedlens record -o` of `perf bench sched pipe` (270-300 k events/s) dropped 1% of
 * its rows; with 131072 none in nine runs (README "Importing traces").
 */
#define DEFAULT_CAPACITY 131072
#define DEFAULT_COMMIT_MS 250
#define DEFAULT_COMMIT_ROWS 200000
#define DEFAULT_RETENTION_MS 10000
#define DEFAULT_FULL_RETRY_MS 1000
/* rows of the queue the producer reserves at a time: a lock per 1024 rows, not per row */
#define CREDIT_ROWS 1024

/* The rows inserted one by one; the per-event rows go to segments (store-writer-rows.c). */
static const char *const insert_sql[SL_ROW_TYPES] = {
	[SL_ROW_TASK] = "INSERT INTO tasks (run_id, pid, tgid, comm, grp, first_ns) "
			"VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, pid) DO UPDATE SET "
			"tgid = excluded.tgid, comm = excluded.comm, grp = excluded.grp",
	/* the counters' columns come from window-counters.h; the latency's follow */
	[SL_ROW_WINDOW] =
		"INSERT INTO windows (run_id, grp, start_ns, dur_ns" SL_WINDOW_COLUMNS
		", lat_count, lat_p50_ns, lat_p99_ns, lat_hist) VALUES (?, ?, ?, ?" SL_WINDOW_PARAMS
		", ?, ?, ?, ?)",
	[SL_ROW_CPU_COUNT] = "INSERT INTO cpu_counts (run_id, start_ns, dur_ns, cpu, wakeups, "
			     "busy, idle, missed_idle) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
};

/* ---- producers ---- */

/* Under lock: n more rows of run_id to add to runs.dropped_rows at the next commit. */
void writer_add_drops(struct sl_writer *w, int64_t run_id, uint64_t n)
{
	for (int i = 0; i < DROP_SLOTS; i++) {
		if (w->drops[i].run_id == run_id || !w->drops[i].run_id) {
			w->drops[i].run_id = run_id;
			w->drops[i].count += n;
			return;
		}
	}
	/* more than DROP_SLOTS runs dropping at once: counted in the stats only */
}

/* Under lock. */
static void count_drop(struct sl_writer *w, int type, int64_t run_id)
{
	w->stats.dropped[type]++;
	writer_add_drops(w, run_id, 1);
}

/* Under lock: wakes the thread if it sleeps and the queue holds a batch worth its while. */
static void wake_if_worth(struct sl_writer *w)
{
	if (w->rows > w->stats.queue_max)
		w->stats.queue_max = w->rows;
	if (w->sleeping && writer_worth_waking(w)) {
		w->sleeping = false;
		pthread_cond_signal(&w->wake);
	}
}

/* Under lock: n more rows of type queued. */
static void count_push(struct sl_writer *w, int type, uint64_t n)
{
	w->pushed_seq += n;
	w->stats.pushed[type] += n;
	wake_if_worth(w);
}

/* The row type of each segment kind. */
static const int seg_row_type[SL_SEG_KINDS] = {
	[SL_SEG_SLICE] = SL_ROW_SLICE,
	[SL_SEG_WAKEUP] = SL_ROW_WAKEUP,
	[SL_SEG_PREEMPT] = SL_ROW_PREEMPT,
	[SL_SEG_FACT] = SL_ROW_FACT,
};

/* Under lock, with room checked: appends an item to the ring. */
static void enqueue(struct sl_writer *w, const struct qitem *it)
{
	w->ring[(w->head + w->count) % w->cap] = *it;
	w->count++;
}

/* Under lock: a segment to fill, a written one if any is spare (its pages are warm). */
static struct sl_seg_buf *new_segment(struct sl_writer *w)
{
	return w->nspare ? w->spare[--w->nspare] : calloc(1, sizeof(struct sl_seg_buf));
}

/* Under lock: b is written, dropped or not queued after all; kept spare if there is room. */
void writer_release_segment(struct sl_writer *w, struct sl_seg_buf *b)
{
	if (w->nspare < SPARE_SEGS) {
		sl_seg_reset(b);
		w->spare[w->nspare++] = b;
		return;
	}
	sl_seg_free(b);
	free(b);
}

/* Under lock: queues the producer's open segment of kind, if it has rows. */
static void queue_open(struct sl_writer *w, int kind)
{
	struct sl_seg_buf *b = w->prod.open[kind];

	if (!b)
		return;
	w->prod.open[kind] = NULL;
	if (!b->rows) {
		writer_release_segment(w, b);
		return;
	}
	enqueue(w, &(struct qitem){ .type = (uint8_t)seg_row_type[kind], .seg = b });
	w->segs_queued++;
	w->held -= b->rows;
	count_push(w, seg_row_type[kind], b->rows);
}

/*
 * Under lock: queues every open segment of the producer and gives back its credit, so that
 * the thread can commit all it pushed.
 */
static void queue_all_open(struct sl_writer *w)
{
	for (int k = 0; k < SL_SEG_KINDS; k++)
		queue_open(w, k);
	w->rows -= w->prod.credit;
	w->held -= w->prod.credit;
	w->prod.credit = 0;
	__atomic_store_n(&w->prod.want_open, false, __ATOMIC_RELAXED);
}

/*
 * Under lock: reserves up to CREDIT_ROWS rows of the event rows' share for the producer.
 * Returns false when there is no room (or the writer stops): the row is dropped.
 */
static bool reserve_credit(struct sl_writer *w)
{
	size_t n;

	if (w->rows >= w->event_limit || w->stopping)
		return false;
	/* a quarter of the share at most (at least 1: capacity >= 8): a small queue's rows are
	 * handed over at half */
	n = w->event_limit / 4 < CREDIT_ROWS ? w->event_limit / 4 : CREDIT_ROWS;
	if (n > w->event_limit - w->rows)
		n = w->event_limit - w->rows;
	w->rows += n;
	w->held += n;
	w->prod.credit = n;
	wake_if_worth(w);
	return true;
}

/*
 * A per-event row: encoded into its table's open segment, without the lock while it has
 * credit. Handing the thread 4096 encoded rows (about 17 bytes each) at once instead of each
 * 80-byte row made an import faster (README "Importing traces").
 */
static bool push_event(struct sl_writer *w, int type, int64_t run_id, const int64_t *vals,
		       const char *txt)
{
	int kind = writer_seg_kind(type);
	struct sl_seg_buf *b = w->prod.open[kind];
	/* the open segment is full or of another run: queued before this row */
	bool cut = b && (b->run_id != run_id || b->rows >= SL_SEG_ROWS);

	if (__atomic_load_n(&w->prod.want_open, __ATOMIC_RELAXED) || cut || !b || !w->prod.credit) {
		pthread_mutex_lock(&w->lock);
		/* half the event rows' share waits in open segments: the thread can have them */
		if (__atomic_load_n(&w->prod.want_open, __ATOMIC_RELAXED) ||
		    w->held >= w->event_limit / 2)
			queue_all_open(w);
		else if (cut)
			queue_open(w, kind);
		b = w->prod.open[kind];
		if (!w->prod.credit && !reserve_credit(w)) {
			queue_all_open(w); /* to be written, making room */
			goto drop;
		}
		if (!b) {
			b = new_segment(w);
			if (!b)
				goto drop;
			b->run_id = run_id;
			w->prod.open[kind] = b;
		}
		pthread_mutex_unlock(&w->lock);
	}
	if (sl_seg_append(b, kind, vals, txt)) {
		pthread_mutex_lock(&w->lock);
		goto drop;
	}
	w->prod.credit--;
	return true;
drop:
	count_drop(w, type, run_id);
	pthread_mutex_unlock(&w->lock);
	return false;
}

void sl_writer_idle(struct sl_writer *w)
{
	if (!__atomic_load_n(&w->prod.want_open, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&w->lock);
	queue_all_open(w);
	pthread_mutex_unlock(&w->lock);
}

/* A task, window or CPU count row: kept long term, so never refused for the events' share. */
static bool push_item(struct sl_writer *w, const struct qitem *it)
{
	pthread_mutex_lock(&w->lock);
	if (w->rows >= w->cap || w->stopping) {
		count_drop(w, it->type, writer_item_run_id(it));
		pthread_mutex_unlock(&w->lock);
		return false;
	}
	enqueue(w, it);
	w->rows++;
	count_push(w, it->type, 1);
	pthread_mutex_unlock(&w->lock);
	return true;
}

bool sl_writer_push_slice(struct sl_writer *w, const struct sl_slice_rec *rec)
{
	int64_t vals[SL_SEG_MAX_COLS];

	sl_seg_from_slice(rec, vals);
	return push_event(w, SL_ROW_SLICE, rec->run_id, vals, NULL);
}

bool sl_writer_push_wakeup(struct sl_writer *w, const struct sl_wakeup_rec *rec)
{
	int64_t vals[SL_SEG_MAX_COLS];

	sl_seg_from_wakeup(rec, vals);
	return push_event(w, SL_ROW_WAKEUP, rec->run_id, vals, NULL);
}

bool sl_writer_push_preempt(struct sl_writer *w, const struct sl_preempt_rec *rec)
{
	int64_t vals[SL_SEG_MAX_COLS];

	sl_seg_from_preempt(rec, vals);
	return push_event(w, SL_ROW_PREEMPT, rec->run_id, vals, NULL);
}

bool sl_writer_push_fact(struct sl_writer *w, const struct sl_fact_rec *rec)
{
	int64_t vals[SL_SEG_MAX_COLS];

	sl_seg_from_fact(rec, vals);
	return push_event(w, SL_ROW_FACT, rec->run_id, vals, rec->txt);
}

bool sl_writer_push_task(struct sl_writer *w, const struct sl_task_rec *rec)
{
	return push_item(w, &(struct qitem){ .type = SL_ROW_TASK, .task = *rec });
}

bool sl_writer_push_cpu_count(struct sl_writer *w, const struct sl_cpu_count_rec *rec)
{
	return push_item(w, &(struct qitem){ .type = SL_ROW_CPU_COUNT, .cpu_count = *rec });
}

bool sl_writer_push_window(struct sl_writer *w, const struct sl_window_rec *rec)
{
	struct sl_window_rec *copy = malloc(sizeof(*copy));

	if (!copy) {
		pthread_mutex_lock(&w->lock);
		count_drop(w, SL_ROW_WINDOW, rec->run_id);
		pthread_mutex_unlock(&w->lock);
		return false;
	}
	*copy = *rec;
	if (!push_item(w, &(struct qitem){ .type = SL_ROW_WINDOW, .window = copy })) {
		free(copy);
		return false;
	}
	return true;
}

/* ---- lifecycle ---- */

static void free_writer(struct sl_writer *w)
{
	for (int t = 0; t < SL_ROW_TYPES; t++)
		sqlite3_finalize(w->ins[t]);
	for (int k = 0; k < SL_SEG_KINDS; k++) {
		sqlite3_finalize(w->seg_ins[k]);
		if (w->prod.open[k])
			sl_seg_free(w->prod.open[k]);
		free(w->prod.open[k]);
	}
	for (int i = 0; i < w->nspare; i++) {
		sl_seg_free(w->spare[i]);
		free(w->spare[i]);
	}
	sqlite3_finalize(w->chunk_new);
	sqlite3_finalize(w->chunk_set);
	sqlite3_finalize(w->drop_add);
	sqlite3_close(w->db);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->done);
	free(w->ring);
	free(w);
}

static int prepare(struct sl_writer *w, const char *sql, sqlite3_stmt **ret)
{
	int rc = sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL);

	if (rc != SQLITE_OK)
		return sl_store_dberr(w->store->path, w->db, rc, "preparing the writer for");
	return 0;
}

int sl_writer_start(struct sl_store *store, const struct sl_writer_opts *opts,
		    struct sl_writer **ret_writer)
{
	static const struct sl_retention no_retention;
	struct sl_writer *w;
	char sql[96];
	int err;

	if (store->flags & SL_STORE_RDONLY)
		return sl_error(-EROFS, "cannot write to '%s': opened read-only", store->path);
	w = calloc(1, sizeof(*w));
	if (!w)
		return sl_error(-ENOMEM, "starting the writer for '%s': out of memory",
				store->path);
	w->store = store;
	if (opts)
		w->opts = *opts;
	if (!w->opts.capacity)
		w->opts.capacity = DEFAULT_CAPACITY;
	if (w->opts.capacity < 8)
		w->opts.capacity = 8;
	if (!w->opts.commit_ms)
		w->opts.commit_ms = DEFAULT_COMMIT_MS;
	if (!w->opts.commit_rows)
		w->opts.commit_rows = DEFAULT_COMMIT_ROWS;
	if (!opts)
		w->opts.retention_ms = DEFAULT_RETENTION_MS;
	if (!w->opts.full_retry_ms)
		w->opts.full_retry_ms = DEFAULT_FULL_RETRY_MS;
	if (!memcmp(&w->opts.retention, &no_retention, sizeof(no_retention)))
		sl_retention_default(&w->opts.retention);
	if (!w->opts.retention.chunk_rows)
		w->opts.retention.chunk_rows = UINT64_MAX;
	if (!w->opts.retention.chunk_span_ns)
		w->opts.retention.chunk_span_ns = UINT64_MAX;
	w->cap = w->opts.capacity;
	w->event_limit = w->cap - w->cap / 8;
	w->wake_at = w->cap / 4 < TAKE_MAX / 2 ? w->cap / 4 : TAKE_MAX / 2;
	if (!w->wake_at)
		w->wake_at = 1;
	w->paused = w->opts.start_paused;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->done, NULL);
	w->ring = calloc(w->cap, sizeof(*w->ring));
	if (!w->ring) {
		err = sl_error(-ENOMEM, "starting the writer for '%s': out of memory", store->path);
		goto free;
	}
	err = sl_store_connect(store->path, SL_STORE_ONE_THREAD, store->busy_ms,
			       w->opts.max_page_count, &w->db);
	if (err)
		goto free;
	/*
	 * A small page cache: the writer appends segments it never reads back, so a large one
	 * only costs fresh pages. 4 MiB instead of the connection's 64 MiB: a hackbench text's
	 * import 469 -> 410 ms of CPU; 512 KiB instead of 4 MiB: a trace.dat's 1000 page
	 * faults fewer, 264 -> 254 ms (README "Importing traces").
	 */
	err = sl_store_exec(w->db, store->path, "PRAGMA cache_size=-512",
			    "preparing the writer for");
	if (err)
		goto free;
	for (int t = 0; t < SL_ROW_TYPES && !err; t++) {
		if (!insert_sql[t])
			continue;
		err = prepare(w, insert_sql[t], &w->ins[t]);
	}
	for (int k = 0; k < SL_SEG_KINDS && !err; k++) {
		int rc = sl_store_seg_prepare(w->db, k, &w->seg_ins[k]);

		if (rc != SQLITE_OK)
			err = sl_store_dberr(w->store->path, w->db, rc, "preparing the writer for");
	}
	if (!err)
		err = prepare(w,
			      "INSERT INTO chunks (first_rowid, last_rowid, rows, min_ns, max_ns, "
			      "closed_wall, tbl, opened_wall) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			      &w->chunk_new);
	if (!err)
		err = prepare(w,
			      "UPDATE chunks SET first_rowid = ?, last_rowid = ?, rows = ?, "
			      "min_ns = ?, max_ns = ?, closed_wall = ? WHERE id = ?",
			      &w->chunk_set);
	if (!err)
		err = prepare(w, "UPDATE runs SET dropped_rows = dropped_rows + ? WHERE id = ?",
			      &w->drop_add);
	if (err)
		goto free;
	/*
	 * A writer killed earlier left its chunks open: close them (as of now, so they are
	 * kept a little longer rather than shorter) so that retention can age them.
	 */
	snprintf(sql, sizeof(sql), "UPDATE chunks SET closed_wall = %llu WHERE closed_wall IS NULL",
		 (unsigned long long)sl_store_now_wall());
	err = sl_store_exec(w->db, store->path, sql, "preparing the writer for");
	if (err)
		goto free;
	err = pthread_create(&w->thread, NULL, writer_main, w);
	if (err) {
		err = sl_error(-err, "starting the writer for '%s': %s", store->path,
			       strerror(err));
		goto free;
	}
	*ret_writer = w;
	return 0;
free:
	free_writer(w);
	return err;
}

void sl_writer_resume(struct sl_writer *w)
{
	pthread_mutex_lock(&w->lock);
	w->paused = false;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

/* Under lock: hands the pending error to the caller's thread. */
static int take_error(struct sl_writer *w)
{
	int err = w->err;

	if (err)
		sl_error(err, "%s", w->errmsg);
	w->err = 0;
	return err;
}

int sl_writer_flush(struct sl_writer *w)
{
	uint64_t target;
	int err;

	pthread_mutex_lock(&w->lock);
	/*
	 * The open segments join the ring, behind every row pushed before them: once the
	 * thread has taken as many rows as were pushed, it has taken these.
	 */
	queue_all_open(w);
	target = w->pushed_seq;
	if (w->flush_target < target)
		w->flush_target = target;
	w->want_drops = w->drops[0].run_id != 0;
	pthread_cond_signal(&w->wake);
	while (w->committed_seq < target || w->want_drops)
		pthread_cond_wait(&w->done, &w->lock);
	err = take_error(w);
	pthread_mutex_unlock(&w->lock);
	return err;
}

void sl_writer_get_stats(struct sl_writer *w, struct sl_writer_stats *stats)
{
	pthread_mutex_lock(&w->lock);
	*stats = w->stats;
	stats->queue_len = writer_queued_rows(w);
	pthread_mutex_unlock(&w->lock);
}

uint64_t sl_writer_stats_dropped(const struct sl_writer_stats *stats)
{
	uint64_t n = 0;

	for (int t = 0; t < SL_ROW_TYPES; t++)
		n += stats->dropped[t];
	return n;
}

uint64_t sl_writer_dropped(struct sl_writer *w)
{
	uint64_t n;

	pthread_mutex_lock(&w->lock);
	n = sl_writer_stats_dropped(&w->stats);
	pthread_mutex_unlock(&w->lock);
	return n;
}

int sl_writer_stop(struct sl_writer *w)
{
	int err;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	queue_all_open(w);
	w->stopping = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_lock(&w->lock);
	err = take_error(w);
	pthread_mutex_unlock(&w->lock);
	free_writer(w);
	return err;
}
