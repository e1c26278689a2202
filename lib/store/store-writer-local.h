/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/store-writer*.c: the writer's ring, its thread's statements and open
 * chunks, and the functions its files share. store-writer.c owns the producers' side (push,
 * drop accounting) and the life cycle; store-writer-thread.c the writer thread and its
 * transactions; store-writer-rows.c the binding of queued rows to the insert statements.
 */
#ifndef SL_STORE_WRITER_LOCAL_H
#define SL_STORE_WRITER_LOCAL_H

#include <pthread.h>
#include <time.h>

#include "facts.h"
#include "segment.h"
#include "store-local.h"

#define TAKE_MAX 4096 /* rows the thread writes per batch */
#define DROP_SLOTS 8 /* runs whose drops are tracked at once */

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
	/* the per-event rows: a segment per table being filled, written at commit or full */
	struct sl_seg_buf seg[SL_SEG_KINDS];
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

/* store-writer.c */
int64_t writer_item_run_id(int type, const void *rec);
void writer_add_drops(struct sl_writer *w, int64_t run_id, uint64_t n);

/* store-writer-thread.c: the thread's body (arg: the struct sl_writer) */
void *writer_main(void *arg);

/* store-writer-rows.c */
int writer_insert_items(struct sl_writer *w, const struct qitem *items, size_t n, uint64_t now_wall,
			size_t *ret_used);
void writer_free_item(struct qitem *it);
int writer_seg_kind(int type);
int writer_flush_segments(struct sl_writer *w, uint64_t now_wall);
void writer_drop_segments(struct sl_writer *w);

#endif
