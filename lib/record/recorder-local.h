/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/recorder*.c: the recorder's state (per-CPU queues of event chunks, the
 * reader threads, the merge heap) and the functions its files share. recorder.c owns the
 * tracefs setup and the life cycle (open, start, poll, stop, close); recorder-reader.c the
 * per-CPU reader threads (splice, parse, publish); recorder-merge.c the caller's side that
 * merges the published chunks in timestamp order.
 */
#ifndef SL_RECORDER_LOCAL_H
#define SL_RECORDER_LOCAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "merge.h"
#include "recorder.h"
#include "sched-fields.h"
#include "tracefs-instance.h"

#define CHUNK_EVENTS 1024
/* Published chunks a CPU may have waiting for the merge: beyond it the reader leaves data
 * in the kernel's ring buffer. 32 per CPU up to 64 CPUs; above, the budget of all CPUs
 * together (2 MiB x 64 = 128 MiB of chunks) is shared out, at least 4 each: 2 GiB at
 * 1024 CPUs would be too much to hold for a merge that is behind. recorder_queue_cap(). */
#define MAX_QUEUED_CHUNKS 32
#define MIN_QUEUED_CHUNKS 4
#define QUEUED_CHUNKS_BUDGET (64 * MAX_QUEUED_CHUNKS)
#define PAGES_PER_ROUND 64 /* per CPU per reader round, for fairness in a group */
#define SPLICE_PAGES 64 /* pages per splice: the reader's pipe is sized for them */
#define PARTIAL_READ_NS 100000000ull /* read a quiet CPU's partial page this often */
#define DUE_SLACK_NS 5000000ull /* partial reads due this soon are done now, together */
#define STATS_READ_NS 250000000ull /* read per_cpu/cpuN/stats this often */
#define QUIET_STATS_READ_NS 1000000000ull /* a quiet CPU's buffer cannot fill that soon */
#define WATERMARK_SLACK_NS 5000000ull /* events may commit this long after their stamp */
#define EPOLL_TIMEOUT_MS 100 /* at most; sooner when a CPU's partial read falls due */

struct chunk {
	struct chunk *next;
	uint32_t n; /* events filled */
	uint32_t pos; /* events consumed */
	struct sl_event ev[CHUNK_EVENTS];
};

struct cpu_state {
	int cpu;
	struct kbuffer *kbuf;
	void *page; /* for copy-mode reads */
	int page_size; /* the ring buffer's sub-buffer: what one read returns at most */
	int watch_fd; /* non-blocking, on per_cpu/cpuN/trace_pipe_raw: for epoll, splice, read */
	int stats_fd; /* per_cpu/cpuN/stats, kept open: an open costs a path walk */

	/* reader side */
	struct chunk *cur;
	uint64_t last_ts;
	uint64_t next_partial_ns, next_stats_ns;
	bool copy_more; /* the last copy-mode read returned a full page: read on at once */
	bool quiet; /* wrote under a page between partial reads: nothing to splice before the
		     * next one, so do not try (syscalls are dear in emulated guests) */
	unsigned long long lost_base, lost_seen;
	uint64_t pending_lost;
	bool pending_gap;
	uint64_t pages, bytes;

	/* shared: published chunks and the free list */
	pthread_mutex_t lock;
	struct chunk *head, *tail, *free_list;
	int nr_queued;
	int max_queued; /* recorder_queue_cap() */
	_Atomic uint64_t wm;

	/* consumer side */
	struct chunk *c_head, *c_tail;
	bool in_heap;
};

struct reader {
	struct sl_recorder *rec;
	pthread_t thread;
	bool started;
	int first, count; /* CPUs [first, first + count) of rec->cpus */
	int epfd;
	int pipe[2]; /* splice target, emptied into buf after every splice */
	char *buf;
	int splice_pages; /* what the pipe holds */
	double cpu_s;
	int err;
};

struct sl_recorder {
	struct sl_recorder_opts opts;
	struct sl_instance *si;
	struct tep_handle *tep;
	struct sl_sched_fields fields;
	bool fast_pages; /* rb-page.h reads our pages; else kbuffer */
	clockid_t clock_id; /* user-space twin of the trace clock, -1 if none */
	int stale_removed;
	char stale_warning[2048]; /* stale instances still busy, "" if none */
	char notes[1024];

	int nr_cpus;
	struct cpu_state *cpus;
	int nr_readers;
	struct reader *readers;
	atomic_bool stopping;
	bool started, stopped;

	struct sl_merge heap;
	struct sl_event *batch;
	size_t nbatch;
	uint64_t last_out_ts;
	int err;

	struct sl_recorder_stats st;
	int *tgid_pid, *tgid_tgid; /* sorted by pid */
	size_t nr_tgids;
};

/* The cap on a CPU's published chunks for a recording of nr_cpus CPUs. */
static inline int recorder_queue_cap(int nr_cpus)
{
	int cap = nr_cpus > 0 ? QUEUED_CHUNKS_BUDGET / nr_cpus : MAX_QUEUED_CHUNKS;

	return cap > MAX_QUEUED_CHUNKS ? MAX_QUEUED_CHUNKS :
	       cap < MIN_QUEUED_CHUNKS ? MIN_QUEUED_CHUNKS :
					 cap;
}

/* Reader threads for nr_cpus CPUs, per each: ceil(nr_cpus / per), 64 at 1024 CPUs. */
static inline int recorder_nr_readers(int nr_cpus, unsigned int per)
{
	return (int)(((unsigned int)nr_cpus + per - 1) / per);
}

/* fds a recording of nr_cpus CPUs holds open: per CPU trace_pipe_raw and stats, per
 * reader an epoll instance and a pipe */
static inline int recorder_fds(int nr_cpus, unsigned int per)
{
	return 2 * nr_cpus + 3 * recorder_nr_readers(nr_cpus, per);
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* recorder-reader.c */
void *recorder_reader_main(void *arg);
int recorder_cpu_lost(struct sl_recorder *rec, struct cpu_state *cs, unsigned long long *ret);
int recorder_emit_lost(struct cpu_state *cs, uint64_t ts);
void recorder_publish(struct cpu_state *cs, uint64_t wm);

/* recorder-merge.c */
int recorder_merge_ready(struct sl_recorder *rec, bool all);

#endif
