// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store's writer thread. Producers (the engine, the recorder) push rows into a bounded
 * ring under a short mutex and never wait for I/O: when the ring is full the row is dropped
 * and counted against its run. The thread takes rows out in batches, inserts them with one
 * prepared statement per table inside long transactions (committed every commit_ms or
 * commit_rows, or when someone flushes), keeps the retention chunks up to date in the same
 * transactions, adds the drop counts to runs.dropped_rows, and applies retention between
 * transactions. Tasks, windows and CPU counts are the rows kept long term: they may use the
 * whole ring, the per-event rows only 7/8 of it. When a write fails for want of space the
 * thread drops and counts what it takes off the ring, without writing, and tries a real
 * transaction again every full_retry_ms: a full disk never blocks the producers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "facts.h"
#include "store-local.h"

#define TAKE_MAX 4096 /* rows taken out of the ring per lock */
#define DROP_SLOTS 8 /* runs whose drops are tracked at once */
#define DEFAULT_CAPACITY 65536
#define DEFAULT_COMMIT_MS 250
#define DEFAULT_COMMIT_ROWS 200000
#define DEFAULT_RETENTION_MS 10000
#define MULTI_ROWS 16 /* rows per multi-row INSERT of event rows */
#define DEFAULT_FULL_RETRY_MS 1000

struct qitem {
	uint8_t type; /* enum sl_row_type */
	union {
		struct sl_slice_rec slice;
		struct sl_wakeup_rec wakeup;
		struct sl_preempt_rec preempt;
		struct sl_task_rec task;
		struct sl_window_rec *window; /* owned by the queue: windows are large and rare */
		struct sl_fact_rec fact;
		struct sl_cpu_count_rec cpu_count;
	};
};

/* The open chunk of one table, as the writer thread sees it. */
struct chunk_state {
	int64_t id; /* chunks.id, 0 until first written */
	int64_t first_rowid, last_rowid;
	uint64_t rows;
	int64_t min_ns, max_ns;
	uint64_t opened_wall;
};

struct drop_slot {
	int64_t run_id; /* 0 = free */
	uint64_t count;
};

struct sl_writer {
	struct sl_store *store;
	struct sl_writer_opts opts;
	pthread_t thread;

	/* Shared with producers, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the thread waits for rows, flushes, stop */
	pthread_cond_t done; /* flushers wait for committed_seq */
	struct qitem *ring;
	size_t cap, head, count, event_limit, wake_at;
	bool paused, stopping, sleeping;
	bool want_drops; /* a flusher waits for the drop counts to be stored */
	uint64_t pushed_seq, committed_seq, flush_target;
	struct drop_slot drops[DROP_SLOTS];
	struct sl_writer_stats stats;
	int err; /* first error not yet returned to a flusher */
	char errmsg[1024];

	/* The thread's own. */
	sqlite3 *db;
	sqlite3_stmt *ins[SL_ROW_TYPES];
	sqlite3_stmt *ins_multi[SL_ROW_TYPES]; /* MULTI_ROWS rows at once, event types only */
	int ncols[SL_ROW_TYPES];
	sqlite3_stmt *chunk_new, *chunk_set, *drop_add;
	struct chunk_state chunk[SL_ROW_TYPES], saved[SL_ROW_TYPES];
	struct qitem batch[TAKE_MAX];
	uint64_t written[SL_ROW_TYPES], failed, commits, chunks_deleted;
	/* the disk is full: rows are dropped unwritten until next_try (monotonic ms) */
	bool full;
	uint64_t next_try, full_dropped, full_episodes;
	char full_msg[1024]; /* the write error that started it, for later flushes */
};

static const char *const insert_sql[SL_ROW_TYPES] = {
	[SL_ROW_SLICE] = "INSERT INTO sched_slices (run_id, cpu, start_ns, dur_ns, pid, prio, "
			 "end_state) VALUES (?, ?, ?, ?, ?, ?, ?)",
	[SL_ROW_WAKEUP] = "INSERT INTO wakeups (run_id, ts_ns, pid, kind, waker_pid, waker_cpu, "
			  "prev_cpu, target_cpu, run_cpu, latency_ns, class_prev, class_waker, "
			  "target_state, llc_idle, missed_idle, missed_smt, preempted_pid, "
			  "policy_known, policy_agree, waker_irq) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[SL_ROW_PREEMPT] = "INSERT INTO preemptions (run_id, ts_ns, cpu, victim_pid, "
			   "preemptor_pid, cause, off_ns, same_group, hub, waiters, lhp_cost_ns, "
			   "delayed_wakeups, censored, spinners, spin_cost_ns) "
			   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[SL_ROW_TASK] = "INSERT INTO tasks (run_id, pid, tgid, comm, grp, first_ns) "
			"VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, pid) DO UPDATE SET "
			"tgid = excluded.tgid, comm = excluded.comm, grp = excluded.grp",
	/* the counters' columns come from window-counters.h; the latency's follow */
	[SL_ROW_WINDOW] =
		"INSERT INTO windows (run_id, grp, start_ns, dur_ns" SL_WINDOW_COLUMNS
		", lat_count, lat_p50_ns, lat_p99_ns, lat_hist) VALUES (?, ?, ?, ?" SL_WINDOW_PARAMS
		", ?, ?, ?, ?)",
	[SL_ROW_FACT] = "INSERT INTO sched_facts (run_id, ts_ns, seq, cpu, kind, common_pid, pid, "
			"arg1, arg2, arg3, txt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[SL_ROW_CPU_COUNT] = "INSERT INTO cpu_counts (run_id, start_ns, dur_ns, cpu, wakeups, "
			     "busy, idle, missed_idle) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
};

static uint64_t now_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- producers ---- */

static int64_t item_run_id(int type, const void *rec)
{
	switch (type) {
	case SL_ROW_SLICE:
		return ((const struct sl_slice_rec *)rec)->run_id;
	case SL_ROW_WAKEUP:
		return ((const struct sl_wakeup_rec *)rec)->run_id;
	case SL_ROW_PREEMPT:
		return ((const struct sl_preempt_rec *)rec)->run_id;
	case SL_ROW_TASK:
		return ((const struct sl_task_rec *)rec)->run_id;
	case SL_ROW_FACT:
		return ((const struct sl_fact_rec *)rec)->run_id;
	case SL_ROW_CPU_COUNT:
		return ((const struct sl_cpu_count_rec *)rec)->run_id;
	default:
		return ((const struct sl_window_rec *)rec)->run_id;
	}
}

/* Under lock: n more rows of run_id to add to runs.dropped_rows at the next commit. */
static void add_drops(struct sl_writer *w, int64_t run_id, uint64_t n)
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

/* Rows kept long term: never refused for the per-event share of the ring. */
static bool long_term(int type)
{
	return type == SL_ROW_TASK || type == SL_ROW_WINDOW || type == SL_ROW_CPU_COUNT;
}

/* Under lock. */
static void count_drop(struct sl_writer *w, int type, int64_t run_id)
{
	w->stats.dropped[type]++;
	add_drops(w, run_id, 1);
}

static bool push(struct sl_writer *w, int type, const void *rec, size_t size)
{
	size_t limit;
	struct qitem *it;

	pthread_mutex_lock(&w->lock);
	/* event rows leave the last 1/8 of the ring to tasks, windows and CPU counts */
	limit = long_term(type) ? w->cap : w->event_limit;
	if (w->count >= limit || w->stopping) {
		count_drop(w, type, item_run_id(type, type == SL_ROW_WINDOW ? *(void **)rec : rec));
		pthread_mutex_unlock(&w->lock);
		return false;
	}
	it = &w->ring[(w->head + w->count) % w->cap];
	it->type = (uint8_t)type;
	memcpy(&it->slice, rec, size);
	w->count++;
	w->pushed_seq++;
	w->stats.pushed[type]++;
	if (w->count > w->stats.queue_max)
		w->stats.queue_max = w->count;
	/* wake the thread only for a worthwhile batch; otherwise it wakes on its timer */
	if (w->sleeping && w->count >= w->wake_at) {
		w->sleeping = false;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	return true;
}

bool sl_writer_push_slice(struct sl_writer *w, const struct sl_slice_rec *rec)
{
	return push(w, SL_ROW_SLICE, rec, sizeof(*rec));
}

bool sl_writer_push_wakeup(struct sl_writer *w, const struct sl_wakeup_rec *rec)
{
	return push(w, SL_ROW_WAKEUP, rec, sizeof(*rec));
}

bool sl_writer_push_preempt(struct sl_writer *w, const struct sl_preempt_rec *rec)
{
	return push(w, SL_ROW_PREEMPT, rec, sizeof(*rec));
}

bool sl_writer_push_task(struct sl_writer *w, const struct sl_task_rec *rec)
{
	return push(w, SL_ROW_TASK, rec, sizeof(*rec));
}

bool sl_writer_push_fact(struct sl_writer *w, const struct sl_fact_rec *rec)
{
	return push(w, SL_ROW_FACT, rec, sizeof(*rec));
}

bool sl_writer_push_cpu_count(struct sl_writer *w, const struct sl_cpu_count_rec *rec)
{
	return push(w, SL_ROW_CPU_COUNT, rec, sizeof(*rec));
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
	if (!push(w, SL_ROW_WINDOW, &copy, sizeof(copy))) {
		free(copy);
		return false;
	}
	return true;
}

/* ---- the thread: inserts ---- */

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
 * insert); returns its time for the chunk's min/max.
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

/* Under lock: remembers the first error for the next flush. */
static void set_error(struct sl_writer *w, int err)
{
	if (!w->err) {
		w->err = err;
		snprintf(w->errmsg, sizeof(w->errmsg), "%s", sl_errmsg(err));
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
static int insert_items(struct sl_writer *w, const struct qitem *items, size_t n, uint64_t now_wall,
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

static void free_item(struct qitem *it)
{
	if (it->type == SL_ROW_WINDOW)
		free(it->window);
}

/* ---- the thread: transactions ---- */

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
			add_drops(w, drops[i].run_id, drops[i].count);
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
 * The disk is full and it is not yet time to try again: the batch's rows are dropped
 * unwritten (the tracer is never blocked) and counted, against their runs as well, so
 * runs.dropped_rows has them once space returns.
 */
static void drop_while_full(struct sl_writer *w, struct qitem *items, size_t n)
{
	pthread_mutex_lock(&w->lock);
	/* a flush after these drops fails too, though no write was tried */
	if (n && !w->err) {
		w->err = -ENOSPC;
		snprintf(w->errmsg, sizeof(w->errmsg), "%s", w->full_msg);
	}
	for (size_t i = 0; i < n; i++) {
		const struct qitem *it = &items[i];

		add_drops(w,
			  item_run_id(it->type, it->type == SL_ROW_WINDOW ?
							(const void *)it->window :
							(const void *)&it->slice),
			  1);
		free_item(&items[i]);
	}
	pthread_mutex_unlock(&w->lock);
	w->failed += n;
	w->full_dropped += n;
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

static void *writer_main(void *arg)
{
	struct sl_writer *w = arg;
	uint64_t taken = 0, txn_rows = 0, txn_start = 0, last_retention = now_mono_ms();
	uint64_t txn_written[SL_ROW_TYPES];
	size_t n_skipped = 0;
	bool in_txn = false;

	pthread_setname_np(pthread_self(), "sl-writer");
	pthread_mutex_lock(&w->lock);
	for (;;) {
		size_t n = 0, remaining;
		bool flush_wanted, stopping;
		uint64_t now, now_wall;

		while (!w->stopping && (w->paused || w->count < w->wake_at) &&
		       w->flush_target <= taken && !w->want_drops) {
			struct timespec until;
			uint64_t deadline =
				(in_txn ? txn_start : now_mono_ms()) + w->opts.commit_ms;
			int rc;

			if (!w->paused && w->count && now_mono_ms() >= deadline)
				break;
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
				break;
		}
		if (!w->paused || w->stopping) {
			n = w->count < TAKE_MAX ? w->count : TAKE_MAX;
			for (size_t i = 0; i < n; i++)
				w->batch[i] = w->ring[(w->head + i) % w->cap];
			w->head = (w->head + n) % w->cap;
			w->count -= n;
		}
		remaining = w->count;
		stopping = w->stopping;
		flush_wanted = w->flush_target > taken || w->want_drops;
		w->stats.queue_len = remaining;
		pthread_mutex_unlock(&w->lock);

		now_wall = sl_store_now_wall();
		if (w->full && now_mono_ms() < w->next_try && !stopping) {
			drop_while_full(w, w->batch, n);
			n_skipped = n;
			n = 0;
		}
		for (size_t i = 0; i < n;) {
			size_t used = 1;
			int err = 0;

			if (!in_txn) {
				err = begin(w);
				in_txn = !err;
				txn_rows = 0;
				txn_start = now_mono_ms();
				memset(txn_written, 0, sizeof(txn_written));
			}
			if (!err)
				err = insert_items(w, &w->batch[i], n - i, now_wall, &used);
			for (size_t j = i; j < i + used; j++) {
				free_item(&w->batch[j]);
				txn_rows++;
				txn_written[w->batch[j].type]++;
			}
			i += used;
			if (err) {
				if (in_txn)
					fail(w, err, txn_rows);
				else
					fail(w, err, 1);
				in_txn = false;
				/* the rest of the batch waits for the retry like later ones */
				if (w->full && i < n) {
					drop_while_full(w, &w->batch[i], n - i);
					break;
				}
			}
		}
		taken += n + n_skipped;
		n_skipped = 0;
		now = now_mono_ms();
		if (in_txn &&
		    (txn_rows >= w->opts.commit_rows || now - txn_start >= w->opts.commit_ms ||
		     (remaining == 0 && (flush_wanted || stopping)))) {
			int err = commit(w, now_wall);

			if (err) {
				fail(w, err, txn_rows);
			} else {
				for (int t = 0; t < SL_ROW_TYPES; t++)
					w->written[t] += txn_written[t];
				/* space came back: what is queued is written again */
				w->full = false;
			}
			in_txn = false;
		}
		/* also while full: deleting old chunks frees pages in the file for new rows */
		if (!in_txn && w->opts.retention_ms &&
		    now - last_retention >= w->opts.retention_ms) {
			struct sl_retention_stats rs;
			int err = sl_store_retention_db(w->db, w->store->path, &w->opts.retention,
							0, &rs);

			w->chunks_deleted += rs.chunks_deleted;
			last_retention = now;
			if (err) {
				pthread_mutex_lock(&w->lock);
				set_error(w, err);
				pthread_mutex_unlock(&w->lock);
			}
		}
		pthread_mutex_lock(&w->lock);
		if (!in_txn && w->drops[0].run_id &&
		    ((flush_wanted && !w->full) || stopping ||
		     (w->full && now_mono_ms() >= w->next_try))) {
			/* drops with no rows to carry them: a transaction of their own */
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
		if (!in_txn)
			w->want_drops = false;
		publish_stats(w);
		if (!in_txn) {
			w->committed_seq = taken;
			pthread_cond_broadcast(&w->done);
		}
		if (w->stopping && !w->count && !in_txn && (!w->drops[0].run_id || w->err))
			break;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* ---- lifecycle ---- */

static void free_writer(struct sl_writer *w)
{
	for (int t = 0; t < SL_ROW_TYPES; t++) {
		sqlite3_finalize(w->ins[t]);
		sqlite3_finalize(w->ins_multi[t]);
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

/* insert_sql[t] with MULTI_ROWS value lists. */
static int prepare_multi(struct sl_writer *w, int t)
{
	const char *values = strstr(insert_sql[t], "VALUES ");
	size_t row_len, len;
	char *sql;
	int err;

	if (!values)
		return sl_error(-EINVAL, "bad insert statement for %s", sl_store_chunk_table[t]);
	values += strlen("VALUES ");
	row_len = strlen(values);
	len = strlen(insert_sql[t]) + (MULTI_ROWS - 1) * (row_len + 2) + 1;
	sql = malloc(len);
	if (!sql)
		return sl_error(-ENOMEM, "starting the writer for '%s': out of memory",
				w->store->path);
	strcpy(sql, insert_sql[t]);
	for (int i = 1; i < MULTI_ROWS; i++) {
		strcat(sql, ", ");
		strcat(sql, values);
	}
	err = prepare(w, sql, &w->ins_multi[t]);
	free(sql);
	return err;
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
	for (int t = 0; t < SL_ROW_TYPES && !err; t++) {
		err = prepare(w, insert_sql[t], &w->ins[t]);
		w->ncols[t] = sqlite3_bind_parameter_count(w->ins[t]);
		if (!err && !long_term(t))
			err = prepare_multi(w, t);
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
	stats->queue_len = w->count;
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
