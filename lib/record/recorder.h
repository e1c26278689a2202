/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live recorder: reads this host's scheduler events from our own tracefs instance
 * and hands them, normalized (struct sl_event) and merged across CPUs by timestamp, to a
 * callback in batches. Reader threads each own a group of CPUs (epoll over their
 * trace_pipe_raw files, splice of whole pages, kbuffer parsing with field offsets
 * resolved once); the caller's thread merges with a heap and runs the callback, so the
 * consumer is single-threaded. Lost events are counted from per_cpu/cpuN/stats and
 * marked in the stream by SL_EV_LOST events (one per gap, on the CPU that lost them).
 *
 * Life cycle: open (instance created and configured, tracing off) -> start (tracing on,
 * readers running) -> poll ... -> stop (tracing off, readers drained and stopped,
 * everything delivered) -> close (fds closed, instance removed). close() after any
 * failure undoes what was done.
 */
#ifndef SL_RECORDER_H
#define SL_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct sl_recorder;

/* Receives n events in timestamp order; a negative return stops the recording with it. */
typedef int (*sl_on_batch_fn)(void *ctx, const struct sl_event *ev, size_t n);

struct sl_recorder_opts {
	size_t buffer_kb; /* per-CPU ring buffer; 0 = 8192 (8 MiB) */
	unsigned int cpus_per_reader; /* CPUs per reader thread; 0 = 16 */
	size_t batch_events; /* events per callback at most; 0 = 4096 */
	const char *instance; /* NULL = "schedlens.<pid>" */
	/* do not trace futex(2) calls (syscalls/sys_enter_futex): they tell lock-holder
	 * preemption which lock a sleeper waits for; tracing any syscall makes every syscall
	 * of every task take the kernel's slower entry path */
	bool no_futex;
	sl_on_batch_fn on_batch; /* required */
	void *ctx;
};

struct sl_recorder_stats {
	uint64_t events[SL_EV_TYPE_MAX]; /* delivered, by type (SL_EV_LOST: gap markers) */
	uint64_t events_total; /* delivered, all types but SL_EV_LOST */
	uint64_t lost; /* events the kernel dropped (stats deltas) */
	uint64_t gaps; /* gap markers delivered */
	uint64_t late; /* events delivered behind the merge order */
	uint64_t pages; /* sub-buffers read */
	uint64_t bytes; /* bytes of them */
	uint64_t first_ns, last_ns; /* trace clock of the first and last event */
	double reader_cpu_s; /* CPU time of the reader threads */
	double merge_cpu_s; /* CPU time spent merging in the caller's thread */
	int nr_cpus; /* CPUs recorded */
	int nr_readers; /* reader threads */
};

/*
 * Checks tracefs, removes stale schedlens instances, creates ours, sets the clock, the
 * buffer size and record-tgid, enables the sched events (falling back when one is
 * missing, see sl_recorder_notes()) and opens every CPU's reader. Tracing stays off.
 * Returns 0 and a recorder to close with sl_recorder_close(), or a negative code with a
 * message saying what is missing and how to fix it.
 */
int sl_recorder_open(const struct sl_recorder_opts *opts, struct sl_recorder **ret_rec);

/* Trace clock in use ("mono", "boot", "global"); owned by the recorder. */
const char *sl_recorder_clock(const struct sl_recorder *rec);
/* Name of our instance; owned by the recorder. */
const char *sl_recorder_instance(const struct sl_recorder *rec);
/* Stale instances removed by open(). */
int sl_recorder_stale_removed(const struct sl_recorder *rec);
/*
 * Stale instances that could not be removed yet ("" if none), naming the pids that hold
 * them: a warning, the recording goes on; owned by the recorder.
 */
const char *sl_recorder_stale_warning(const struct sl_recorder *rec);
/* Fallbacks taken, one per line ("" if none); owned by the recorder. */
const char *sl_recorder_notes(const struct sl_recorder *rec);
/* The trace clock now, in ns (0 if the clock has no user-space equivalent). */
uint64_t sl_recorder_now_ns(const struct sl_recorder *rec);

/* Turns tracing on and starts the reader threads. */
int sl_recorder_start(struct sl_recorder *rec);

/*
 * Waits up to timeout_ms for events, merges every event that all CPUs have delivered up
 * to, and calls on_batch. Returns 0, or the callback's negative return, or a reader's
 * error.
 */
int sl_recorder_poll(struct sl_recorder *rec, int timeout_ms);

/*
 * Tracing off, readers drain what the kernel holds and stop, the remaining events are
 * merged and delivered, final lost counts read. Idempotent. Returns 0 or as poll().
 */
int sl_recorder_stop(struct sl_recorder *rec);

/* Totals so far (final after stop). */
void sl_recorder_get_stats(const struct sl_recorder *rec, struct sl_recorder_stats *ret);
/* Events lost on one CPU (stats deltas since start). */
uint64_t sl_recorder_cpu_lost(const struct sl_recorder *rec, int cpu);

/*
 * The thread-group id the kernel saved for pid (record-tgid), read at stop; -1 if
 * unknown.
 */
int sl_recorder_tgid(const struct sl_recorder *rec, int pid);

/*
 * Stops if needed, closes every reader, removes our instance and frees rec (NULL, or a
 * recorder half-built by a failed open(), is fine). Returns 0 or the error of the
 * instance removal: -EBUSY (a warning: the data is complete) when another process holds
 * a file of the instance, its message naming them; the instance is then removed by a
 * later recording.
 */
int sl_recorder_close(struct sl_recorder *rec);

#endif
