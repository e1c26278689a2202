/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Our own tracefs instance, "schedlens.<pid>": created for a recording, configured
 * (global trace clock, sched events, buffer size, record-tgid) and destroyed at the end,
 * so the host's top-level tracing is never touched. Instances left by schedlens
 * processes that died (SIGKILL, crash) are recognised by name and removed at start.
 */
#ifndef SL_TRACEFS_INSTANCE_H
#define SL_TRACEFS_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>

struct tracefs_instance;

#define SL_INSTANCE_PREFIX "schedlens."

struct sl_instance {
	struct tracefs_instance *inst;
	char name[64];
	char clock[16]; /* the trace_clock in use */
	const char *tracing_dir; /* owned by libtracefs */
};

/*
 * Checks that tracing can work here: tracefs mounted (we do not mount it), readable
 * and writable by us. Returns 0 or -SL_ETRACE/-EACCES with a message saying what to do.
 * On success *ret_dir (may be NULL) is the tracing directory, owned by libtracefs.
 */
int sl_instance_check(const char **ret_dir);

/*
 * Removes instances named schedlens.<pid>[.<n>] whose pid no longer exists, and those of
 * this process that sl_instance_destroy() could not remove (trace off first, then rmdir).
 * *ret_removed (may be NULL) counts them. A PID reused by another process keeps its
 * instance until that process exits. An instance still busy (a process holds one of its
 * files) is left for a later call: warn (warn_len bytes, may be 0) then says which and
 * names the pids that hold it, else is "". Never fails: returns 0.
 */
int sl_instance_cleanup_stale(int *ret_removed, char *warn, size_t warn_len);

/*
 * Creates the given name, or (name NULL) schedlens.<getpid()>, or schedlens.<pid>.<n> when
 * that one exists still (busy), with tracing off in it. Fails with -EEXIST if the given
 * name exists already. Destroy with sl_instance_destroy().
 */
int sl_instance_create(const char *name, struct sl_instance **ret);

/* Picks the first available of mono, boot, global and sets it; ->clock names it. */
int sl_instance_set_clock(struct sl_instance *si);
/* Per-CPU buffer size in KiB. */
int sl_instance_set_buffer_kb(struct sl_instance *si, size_t kb);
/* Enables the record-tgid option (the kernel then saves pid -> tgid). */
int sl_instance_record_tgid(struct sl_instance *si);
/* True if the kernel has events/<system>/<event>. */
bool sl_instance_has_event(struct sl_instance *si, const char *system, const char *event);
/* Enables one event in our instance. */
int sl_instance_enable_event(struct sl_instance *si, const char *system, const char *event);
/* tracing_on of our instance; trace_off accepts NULL (and does nothing). */
int sl_instance_trace_on(struct sl_instance *si);
int sl_instance_trace_off(struct sl_instance *si);

/*
 * Reads per_cpu/cpuN/stats of our instance: *ret_lost = overrun + "dropped events".
 */
int sl_instance_cpu_lost(struct sl_instance *si, int cpu, unsigned long long *ret_lost);
/*
 * The same from an fd of sl_instance_cpu_stats_open() (fd or -errno), which the caller
 * closes, before sl_instance_destroy(): an open file keeps the instance busy.
 */
int sl_instance_cpu_stats_open(struct sl_instance *si, int cpu);
int sl_instance_cpu_lost_fd(int fd, unsigned long long *ret_lost);

/*
 * Trace off, disable events, rmdir, free. Every trace_pipe_raw fd must be closed first
 * (rmdir fails with EBUSY otherwise). NULL is fine. Returns 0 or a negative errno: -EBUSY
 * when another process holds a file of the instance (the message names the pids); the
 * instance is then left, with tracing off, for sl_instance_cleanup_stale() to retry.
 */
int sl_instance_destroy(struct sl_instance *si);

#endif
