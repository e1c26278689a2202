/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The analysis engine: turns one merged stream of normalized scheduler events (from any
 * source: live recorder, trace.dat, ftrace text, the synthesizer) into docs/metrics.md's records:
 * sched slices, per-wakeup placement records, preemption records with lock-holder
 * preemption (LHP) cost, tasks, and per-window, per-group aggregates.
 *
 * Records go to a sink of callbacks as soon as they are final. A wakeup record is final
 * when the task first runs; a preemption record when the victim has resumed and the LHP
 * horizon has passed. Every record is counted in the window holding its start time, and a
 * window is emitted only after every record that started in it is final: records still
 * open close_lag_ns after they started are closed censored (latency or off-CPU time
 * unknown), which also bounds memory.
 *
 * Further analyses plug in as a struct sl_sched_handler (like perf sched's
 * trace_sched_handler): each handler sees every event with the engine's state as it was
 * just before the event.
 */
#ifndef SL_ENGINE_H
#define SL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "records.h"
#include "topo.h"

enum sl_group_mode {
	SL_GROUP_LEADER_COMM, /* comm of the thread-group leader (default) */
	SL_GROUP_TGID, /* "tgid:<n>" */
	SL_GROUP_COMM, /* the task's own comm */
};

struct sl_engine_config {
	const struct sl_topo *topo; /* NULL: placement classes are unavailable ("unknown") */
	int64_t run_id; /* copied into every record */
	uint64_t window_ns; /* default 1 s */
	uint64_t lhp_horizon_ns; /* default 5 ms */
	/* how long after the victim ran again a spinner's timed wake still counts: its
	 * back-off sleep may have begun while the victim was off-CPU (default 100 ms, at
	 * least lhp_horizon_ns) */
	uint64_t spin_horizon_ns;
	uint64_t close_lag_ns; /* default 2 windows + the longer horizon */
	enum sl_group_mode group_mode;
	int max_groups; /* per-group window rows besides "*" (default 16) */
	int hub_min_wakees; /* default 4 distinct same-group wakees in a window */
	int hub_top; /* hubs per group (default 3) */
	size_t max_tasks; /* task table cap (default 1 M) */
	size_t max_open_preempts; /* open preemption records cap (default 1 M) */
	bool waker_from_wakeup; /* no sched_waking in the source: take the waker from
				   * sched_wakeup's context (may be wrong under TTWU_QUEUE) */
	bool no_slices; /* skip slice records (the daemon keeps windows only) */
	/* Thread group of a task the engine meets for the first time, or -1 if unknown
	 * (live: /proc/<pid>/status); NULL: tgids only come from sl_engine_set_tgid(). */
	int32_t (*tgid_of)(void *ctx, int32_t pid);
	void *tgid_ctx;
};

/* Where records go. Any callback may be NULL. Records are only valid during the call. */
struct sl_engine_sink {
	void *ctx;
	void (*slice)(void *ctx, const struct sl_slice_rec *rec);
	void (*wakeup)(void *ctx, const struct sl_wakeup_rec *rec);
	void (*preempt)(void *ctx, const struct sl_preempt_rec *rec);
	void (*task)(void *ctx, const struct sl_task_rec *rec);
	void (*window)(void *ctx, const struct sl_window_rec *rec);
};

struct sl_engine;

/* Per-event hooks for further analyses; any may be NULL. */
struct sl_sched_handler {
	void *ctx;
	void (*waking)(void *ctx, const struct sl_engine *e, const struct sl_event *ev);
	void (*wakeup)(void *ctx, const struct sl_engine *e, const struct sl_event *ev);
	void (*sched_switch)(void *ctx, const struct sl_engine *e, const struct sl_event *ev);
	void (*migrate)(void *ctx, const struct sl_engine *e, const struct sl_event *ev);
	void (*fork)(void *ctx, const struct sl_engine *e, const struct sl_event *ev);
	void (*exit)(void *ctx, const struct sl_engine *e, const struct sl_event *ev);
	void (*lost)(void *ctx, const struct sl_engine *e, const struct sl_event *ev);
	void (*futex)(void *ctx, const struct sl_engine *e, const struct sl_event *ev);
};

struct sl_engine_stats {
	uint64_t events[SL_EV_TYPE_MAX];
	uint64_t lost_events; /* from SL_EV_LOST markers */
	uint64_t gaps; /* SL_EV_LOST markers seen */
	uint64_t out_of_order; /* events older than the stream time, dropped */
	uint64_t switch_mismatch; /* sched_switch whose prev is not the CPU's current task:
				   * events missing from the stream without a gap marker */
	uint64_t bad_cpu; /* events naming a CPU beyond SL_TOPO_MAX_CPUS, dropped */
	uint64_t wakeups; /* wakeup records emitted */
	uint64_t wakeups_censored; /* ... of which the task had not run close_lag later */
	uint64_t wakeups_unseen_run; /* ... of which the switch-in was not traced */
	uint64_t preemptions;
	uint64_t lhp;
	uint64_t tasks_dropped; /* task table full */
	uint64_t preempts_dropped; /* open preemption records cap reached */
	/* preemptions not watched for spinners: MAX_OFF_RECORDS records were off-CPU or
	 * within the spin horizon (docs/metrics.md) */
	uint64_t spin_list_full;
	uint64_t windows;
	uint64_t windows_skipped; /* empty windows of a silence too long to be real, not written */
	size_t tasks; /* live entries now */
	size_t tasks_peak;
	size_t open_preempts_peak;
};

/* Fills cfg with the defaults. */
void sl_engine_config_default(struct sl_engine_config *cfg);

/*
 * Creates an engine. cfg and sink are copied; cfg->topo must outlive the engine. Returns
 * 0 and an engine the caller frees with sl_engine_free(), or -ENOMEM / -EINVAL.
 */
int sl_engine_new(const struct sl_engine_config *cfg, const struct sl_engine_sink *sink,
		  struct sl_engine **ret_engine);

/* Adds an analysis; handlers run in the order added, before the built-in state update. */
int sl_engine_add_handler(struct sl_engine *e, const struct sl_sched_handler *h);

/* Tells the engine a task's thread group (from record-tgid, /proc or an import). */
void sl_engine_set_tgid(struct sl_engine *e, int32_t pid, int32_t tgid);

/*
 * Feeds n events in nondecreasing timestamp order. Events older than the newest seen are
 * counted in stats.out_of_order and skipped (a merged source never produces them).
 */
void sl_engine_feed(struct sl_engine *e, const struct sl_event *ev, size_t n);

/*
 * Ends the stream at end_ns (0: the last event's time): closes slices, censors open
 * records, emits the remaining windows. The engine accepts no events afterwards.
 */
void sl_engine_finish(struct sl_engine *e, uint64_t end_ns);

void sl_engine_get_stats(const struct sl_engine *e, struct sl_engine_stats *ret_stats);

/*
 * The start of window 0: the first event's time (every window starts at it plus a multiple
 * of window_ns). 0 before the first event.
 */
uint64_t sl_engine_origin_ns(const struct sl_engine *e);

/* Group name of a pid as the engine sees it now; NULL if unknown. Valid until the next
 * feed. */
const char *sl_engine_task_group(const struct sl_engine *e, int32_t pid);

void sl_engine_free(struct sl_engine *e);

#endif
