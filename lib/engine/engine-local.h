/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the engine: per-CPU and per-task state, the open preemption records, the
 * open windows, and the functions the engine's files share. engine.c owns the state and
 * the event dispatch; engine-wakeup.c builds wakeup records and the policy fingerprint;
 * engine-preempt.c builds preemption records, LHP waiters and hubs; engine-window.c keeps
 * the windows; tasktab.c is the pid -> task table; groups.c interns group names.
 */
#ifndef SL_ENGINE_LOCAL_H
#define SL_ENGINE_LOCAL_H

#include <stddef.h>
#include <string.h>

#include "engine.h"
#include "groups.h"
#include "policy.h"
#include "tasktab.h"

#define MAX_HANDLERS 8

/* Per-CPU state. A CPU is "known" from its first sched_switch until a gap. */
struct cpu_state {
	int32_t curr; /* running pid, 0 = idle; meaningful only if known */
	int16_t curr_prio;
	bool known;
	bool avail; /* known, idle and unclaimed: what the kernel's idle_cpu() sees */
	int32_t claims; /* wakees placed here that have not run yet */
	uint32_t epoch; /* bumped at a gap, so stale claims are not released twice */
	uint64_t since; /* when curr switched in */
	bool since_exact; /* since is a traced switch, not the first sight of curr */
};

/* An open preemption record: the victim is off-CPU, or resumed within the horizon. */
#define MAX_WAITER_CANDIDATES 8
#define MAX_OFF_RECORDS 256
#define MAX_MOVED_FUTEXES 8

struct open_preempt {
	/* first, with rec's t0 and victim: the one cache line spin_run_ended() reads of every
	 * record whose victim is off-CPU, on every long run's end (3 lines before) */
	uint64_t t1; /* victim's switch-in, valid once resumed */
	uint16_t group;
	bool in_use;
	bool resumed;
	struct sl_preempt_rec rec;
	/* tasks the victim released after t1, judged when the record finishes, once the
	 * hubs of the window are known; beyond MAX_WAITER_CANDIDATES they only count */
	int32_t cand_pid[MAX_WAITER_CANDIDATES];
	uint64_t cand_cost_ns[MAX_WAITER_CANDIDATES];
	uint16_t nr_cand;
	uint16_t extra_waiters;
	uint64_t extra_cost_ns;
	/* spinning waiters: same-group tasks asleep while the victim was off-CPU and woken
	 * by no group member (a timer: s_lock's back-off) before its horizon passed, with
	 * the start of the first such sleep (t0 at the earliest) */
	int32_t spin_pid[MAX_WAITER_CANDIDATES];
	uint64_t spin_from_ns[MAX_WAITER_CANDIDATES];
	uint16_t nr_spin;
	/* another group member ran for longer than a back-off's spin from a switch-in while
	 * the victim was off-CPU: it was not backing off, the victim held nothing it spun
	 * for */
	bool spin_progress;
	/* futexes whose lock changed hands while the victim was off-CPU (a sleeper of one
	 * got through then) or that it released just before t0: the victim held none of
	 * them at t0, and their sleepers are no waiters of it; beyond MAX_MOVED_FUTEXES
	 * they are not told apart */
	uint64_t moved_uaddr[MAX_MOVED_FUTEXES];
	uint16_t nr_moved;
	/* the futex of its first waiter: the lock it held, whose every sleeper since before
	 * t1 waited on it, whoever wakes them (0: none known) */
	uint64_t held_uaddr;
	/* preempted by the task of its group it had just woken: a handoff, no waiters */
	bool handoff;
	uint16_t wakes; /* all wakeups the victim made within the horizon after t1 */
	int32_t next_free;
};

_Static_assert(sizeof(struct open_preempt) % 64 == 0, "records stay cache-line aligned");
_Static_assert(offsetof(struct open_preempt, rec.victim_pid) + sizeof(int32_t) <= 64 &&
		       offsetof(struct open_preempt, rec.ts_ns) + sizeof(uint64_t) <= 64,
	       "what spin_run_ended() reads is in a record's first cache line");

/* Per-window accumulators: "*" plus one per group seen in the window. */
struct window {
	uint64_t start_ns;
	uint64_t events;
	uint64_t lost;
	int nr_groups;
	int cap_groups;
	struct sl_window_rec *groups; /* [0] is "*" */
	int16_t *slot_of_group; /* group id -> index in groups, -1 if none */
};

/* Slots of the task table by pid, a hint only: a slot holding pid is pid's task. */
#define TASK_HINTS 1024

struct sl_engine {
	struct sl_engine_config cfg;
	struct sl_engine_sink sink;
	struct sl_sched_handler handlers[MAX_HANDLERS];
	int nr_handlers;
	struct sl_engine_stats stats;

	const struct sl_topo *topo;
	struct sl_policy_topo ptopo; /* per-LLC and per-core counters, buddies */
	int nr_cpus; /* state table size */
	struct cpu_state *cpus;

	struct sl_tasktab tasks;
	uint32_t task_hint[TASK_HINTS]; /* pid % TASK_HINTS -> slot it was last found in */
	struct sl_groups groups;

	struct open_preempt *preempts;
	int32_t preempt_cap, preempt_used, preempt_free;
	/* records [0, hwm) have been used by this engine; those beyond were not (not even by
	 * the sweep's loop), so the pool's memory is faulted in only as far as it is needed
	 * (a pool kept from an earlier engine may hold its records there: never read) */
	int32_t preempt_hwm;
	/* the records whose victim is off-CPU or resumed within the horizon, for spinner
	 * detection; beyond the cap a record finds no spinners */
	int32_t off_rec[MAX_OFF_RECORDS];
	int nr_off_rec;
	/* no record in off_rec passes its spin horizon before this (a lower bound; UINT64_MAX
	 * while none has resumed), so a prune before it has nothing to do */
	uint64_t off_rec_prune_ns;

	/* windows: a ring of the open ones, oldest first */
	bool started;
	bool finished;
	uint64_t origin_ns; /* start of window 0 */
	uint64_t now_ns; /* newest event time */
	uint64_t next_boundary_ns;
	struct window *win;
	int nr_win; /* ring capacity */
	int64_t win_first; /* index of the oldest open window */
	int64_t win_last; /* index of the newest open window */
	struct window *win_newest; /* its ring slot, NULL before the first */
};

/* engine.c */
struct sl_task *engine_task_slow(struct sl_engine *e, int32_t pid, const char *comm, uint64_t ts);

/*
 * The task for pid, created on first sight. comm (may be NULL) renames it: exec changes a
 * task's comm, and with it its group. NULL for the idle task and when the table is full.
 * Nearly every call finds a known task under an unchanged comm in its hinted slot: that
 * is settled here, anything else (a miss, a new task, a rename) by engine_task_slow().
 */
static inline struct sl_task *engine_task(struct sl_engine *e, int32_t pid, const char *comm,
					  uint64_t ts)
{
	uint32_t i = e->task_hint[(uint32_t)pid % TASK_HINTS];

	if (pid > 0 && i < e->tasks.cap) {
		struct sl_task *t = &e->tasks.slots[i];

		if (t->pid == pid && (!comm || !comm[0] || !memcmp(t->comm, comm, SL_COMM_LEN))) {
			t->last_ns = ts;
			return t;
		}
	}
	return engine_task_slow(e, pid, comm, ts);
}
void engine_cpu_set(struct sl_engine *e, int cpu, bool known, int32_t curr);
void engine_claim(struct sl_engine *e, struct sl_task *t, int cpu);
void engine_unclaim(struct sl_engine *e, struct sl_task *t);
bool engine_cpu_known(const struct sl_engine *e, int cpu);

/* engine-wakeup.c */
void wakeup_on_waking(struct sl_engine *e, const struct sl_event *ev);
void wakeup_on_wakeup(struct sl_engine *e, const struct sl_event *ev);
void wakeup_on_switch_in(struct sl_engine *e, struct sl_task *next, const struct sl_event *ev,
			 int32_t preempted_pid);
void wakeup_censor(struct sl_engine *e, struct sl_task *t);
void wakeup_on_unseen_switch_in(struct sl_engine *e, struct sl_task *t, int cpu);
void wakeup_drop(struct sl_engine *e, struct sl_task *t);

/* engine-preempt.c */
int preempt_init(struct sl_engine *e);
void preempt_free(struct sl_engine *e);
void preempt_on_switch(struct sl_engine *e, struct sl_task *prev, struct sl_task *next,
		       const struct sl_event *ev);
void preempt_on_woken(struct sl_engine *e, struct sl_task *waker, struct sl_task *wakee,
		      uint8_t irq, uint64_t ts);
void preempt_sweep(struct sl_engine *e, uint64_t censor_before_ns, bool all);
void preempt_drop_cpu(struct sl_engine *e, int cpu);
void preempt_on_unseen_switch_in(struct sl_engine *e, struct sl_task *t, uint64_t now);
void preempt_on_futex(struct sl_engine *e, const struct sl_event *ev);
void preempt_on_sleep(struct sl_task *t, uint64_t ts);
void hubs_on_boundary(struct sl_engine *e);

/* engine-window.c */
int window_init(struct sl_engine *e);
void window_free(struct sl_engine *e);
struct sl_window_rec *window_for_slow(struct sl_engine *e, uint64_t ts, uint16_t group);
void window_count_event_slow(struct sl_engine *e, uint64_t ts);

/* The newest open window if it holds ts, else NULL. */
static inline struct window *window_newest_for(const struct sl_engine *e, uint64_t ts)
{
	struct window *w = e->win_newest;

	if (w && ts >= w->start_ns && ts - w->start_ns < e->cfg.window_ns)
		return w;
	return NULL;
}

/* The accumulators of group in the window holding ts (opening windows up to it). Nearly
 * every lookup is for a group already seen in the newest window: that is done inline. */
static inline struct sl_window_rec *window_for(struct sl_engine *e, uint64_t ts, uint16_t group)
{
	struct window *w = window_newest_for(e, ts);

	if (w && w->slot_of_group[group] >= 0)
		return &w->groups[w->slot_of_group[group]];
	return window_for_slow(e, ts, group);
}

static inline void window_count_event(struct sl_engine *e, uint64_t ts)
{
	struct window *w = window_newest_for(e, ts);

	if (w)
		w->events++;
	else
		window_count_event_slow(e, ts);
}
/* Opens the windows up to the one holding ts, so quiet time at the end is covered. */
void window_extend(struct sl_engine *e, uint64_t ts);
void window_count_lost(struct sl_engine *e, uint64_t ts, uint64_t count);
void window_close_before(struct sl_engine *e, uint64_t end_ns);

#endif
