/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/store-writer*.c: the writer's ring, its thread's statements and open
 * chunks, and the functions its files share. store-writer.c owns the producers' side (push,
 * the open segments, drop accounting) and the life cycle; store-writer-thread.c the writer
 * thread and its transactions; store-writer-rows.c the inserts of queued items.
 */
#ifndef SL_STORE_WRITER_LOCAL_H
#define SL_STORE_WRITER_LOCAL_H

#include <pthread.h>
#include <time.h>

#include "facts.h"
#include "segment.h"
#include "store-local.h"

#define TAKE_MAX 4096 /* items the thread writes per batch */
#define DROP_SLOTS 8 /* runs whose drops are tracked at once */
#define SPARE_SEGS 8 /* written segments kept for reuse, their memory with them */

/*
 * A queued item: a task or CPU count row, a window, or a segment of per-event rows (slices,
 * wakeups, preemptions or facts, by type), encoded by the producers as they pushed them.
 */
struct qitem {
	uint8_t type; /* enum sl_row_type */
	union {
		struct sl_task_rec task;
		struct sl_window_rec *window; /* owned by the queue: windows are large and rare */
		struct sl_seg_buf *seg; /* owned by the queue */
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
	/*
	 * cap and event_limit count rows: queued, or held by the producer (its open segments'
	 * rows and its credit, reserved and not yet used); count and wake_at items in the
	 * ring. Each item holds a row at least, so the ring never overflows.
	 */
	size_t cap, head, count, rows, held, event_limit, wake_at;
	size_t segs_queued; /* segment items in the ring */
	/* written segments for the producers to fill again: fresh ones cost page faults */
	struct sl_seg_buf *spare[SPARE_SEGS];
	int nspare;
	bool paused, stopping, sleeping;
	bool want_drops; /* a flusher waits for the drop counts to be stored */
	uint64_t pushed_seq, committed_seq, flush_target;
	struct drop_slot drops[DROP_SLOTS];
	struct sl_writer_stats stats;
	int err; /* first error not yet returned to a flusher */
	char errmsg[1024];

	/*
	 * The producer's own: one thread pushes (the session's), and flushes and stops. Per-event
	 * rows are encoded into its open segment of their table without the lock, each using a
	 * row of credit, reserved under the lock CREDIT_ROWS at a time from the event rows'
	 * share; a segment is queued when full, when the thread asks (want_open: a commit is
	 * due), or on a flush or stop. A lock and unlock per row was 8% of an import's main
	 * thread. On a cache line of their own: the thread writes the locked fields above.
	 */
	struct {
		struct sl_seg_buf *open[SL_SEG_KINDS];
		size_t credit;
		bool want_open; /* set by the thread under lock, read with __atomic_load_n */
	} __attribute__((aligned(64))) prod;

	/* The thread's own. */
	sqlite3 *db;
	sqlite3_stmt *ins[SL_ROW_TYPES];
	sqlite3_stmt *seg_ins[SL_SEG_KINDS];
	sqlite3_stmt *chunk_new, *chunk_set, *drop_add;
	struct chunk_state chunk[SL_ROW_TYPES], saved[SL_ROW_TYPES];
	uint64_t written[SL_ROW_TYPES], failed, commits, chunks_deleted;
	/* the disk is full: rows are dropped unwritten until next_try (monotonic ms) */
	bool full;
	uint64_t next_try, full_dropped, full_episodes;
	char full_msg[1024]; /* the write error that started it, for later flushes */
};

static inline uint64_t now_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Under lock: the rows in the ring, not counting those the producer holds. */
static inline size_t writer_queued_rows(const struct sl_writer *w)
{
	return w->rows - w->held;
}

/*
 * Under lock: the queue holds a batch worth waking the thread for: a segment, wake_at
 * items, or half the event rows' share. Below that the thread wakes on its commit timer.
 */
static inline bool writer_worth_waking(const struct sl_writer *w)
{
	return w->segs_queued || w->count >= w->wake_at ||
	       writer_queued_rows(w) >= w->event_limit / 2;
}

/* store-writer.c */
void writer_add_drops(struct sl_writer *w, int64_t run_id, uint64_t n);
void writer_release_segment(struct sl_writer *w, struct sl_seg_buf *b);

/* store-writer-thread.c: the thread's body (arg: the struct sl_writer) */
void *writer_main(void *arg);

/* store-writer-rows.c */
int writer_insert_item(struct sl_writer *w, const struct qitem *it, uint64_t now_wall);
int writer_seg_kind(int type);
int64_t writer_item_run_id(const struct qitem *it);
uint64_t writer_item_rows(const struct qitem *it);
void writer_free_item_locked(struct sl_writer *w, struct qitem *it);

#endif
