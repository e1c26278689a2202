/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rows schedlens derives from the event stream, as C structs: one sched slice per
 * switch, one record per wakeup (target-CPU choice), one per preemption (with its
 * lock-holder cost), one per task, the per-window, per-group aggregates and the per-minute,
 * per-CPU wakeup counts. The engine (the session, for the counts) fills them, the store
 * writes them (schema/0001-core.sql and 0005-cpu-counts.sql have one table per struct and
 * schema/README.md documents every column; the window counters are listed in
 * window-counters.h). Plain values, no pointers, so the writer's
 * queue can copy them. Times are nanoseconds of the run's trace clock unless named *_wall.
 */
#ifndef SL_RECORDS_H
#define SL_RECORDS_H

#include <stdint.h>

#include "event.h"
#include "hist.h"
#include "window-counters.h"

/* "Unknown" for any CPU or pid field: stored as SQL NULL. */
#define SL_REC_NONE (-1)
/* latency_ns / off_ns when the task never ran again before the run ended: stored as NULL. */
#define SL_REC_NO_TIME UINT64_MAX

/* Length of a group name, NUL included ("postgres", "tgid:1234", a comm, ...). */
#define SL_GROUP_LEN 32

/*
 * Relation between two CPUs, as stored in class_prev / class_waker and the windows'
 * prev_* / waker_* columns. Same numbering as enum sl_relation in topo.h (asserted in
 * t-store.c) and the rows of the SQL table `relation`.
 */
enum sl_rec_relation {
	SL_RREL_SAME,
	SL_RREL_SMT,
	SL_RREL_LLC,
	SL_RREL_PACKAGE,
	SL_RREL_REMOTE,
	SL_RREL_UNKNOWN,
	SL_RREL_COUNT
};

/* State of the chosen CPU when the wakeup happened (SQL table `target_state`). */
enum sl_target_state {
	SL_TS_IDLE, /* idle and nobody else woken onto it */
	SL_TS_BUSY, /* running a task */
	SL_TS_CLAIMED, /* idle, but another wakee was already pending on it: stacking */
	SL_TS_UNKNOWN, /* before the CPU's first switch, or after lost events */
	SL_TS_COUNT
};

/* Textbook placement policies of the fingerprint (docs/metrics.md); bit n = policy n. */
enum sl_policy {
	SL_POL_PREV_IDLE, /* prev CPU if idle, else the first idle CPU of its LLC */
	SL_POL_AFFINE, /* the waker's CPU */
	SL_POL_LLC_SCAN, /* any idle CPU of the target LLC (full scan) */
	SL_POL_BUDDY, /* the 3.6 "cpu buddies" rule of the seed patch */
	SL_POL_SMT_FIRST, /* an idle core first, then an idle SMT sibling */
	SL_POL_COUNT
};

enum sl_wake_kind {
	SL_WAKE_WAKEUP, /* sched_wakeup */
	SL_WAKE_NEW, /* sched_wakeup_new: fork placement */
};

enum sl_preempt_cause {
	SL_PC_WAKEUP, /* the preemptor was woken onto this CPU and had not run since */
	SL_PC_TICK, /* anything else: tick, yield, balance */
};

/* One per sched_switch: `pid` ran on `cpu` from start_ns for dur_ns (Perfetto's sched_slice). */
struct sl_slice_rec {
	int64_t run_id;
	uint64_t start_ns;
	uint64_t dur_ns;
	int32_t cpu;
	int32_t pid; /* 0 = idle */
	int16_t prio;
	char end_state; /* prev_state letter ('R', 'S', 'D', ...); 0 = cut by run end */
	uint8_t end_preempt; /* 1 for "R+" */
};

/* docs/metrics.md, "Per-wakeup record". */
struct sl_wakeup_rec {
	int64_t run_id;
	uint64_t ts_ns;
	uint64_t latency_ns; /* first switch-in after ts_ns minus ts_ns; SL_REC_NO_TIME if none */
	int32_t pid;
	int32_t waker_pid; /* SL_REC_NONE when no matching sched_waking was seen */
	int32_t waker_cpu; /* SL_REC_NONE likewise */
	int32_t prev_cpu; /* SL_REC_NONE when the task had not run yet */
	int32_t target_cpu; /* the kernel's choice */
	int32_t run_cpu; /* where it next ran; SL_REC_NONE if it did not */
	int32_t preempted_pid; /* the still-runnable task its switch-in replaced; 0 = none */
	uint16_t llc_idle; /* idle, unclaimed CPUs in the target's LLC at ts_ns */
	uint8_t kind; /* enum sl_wake_kind */
	uint8_t class_prev; /* enum sl_rec_relation: relation(target, prev) */
	uint8_t class_waker; /* enum sl_rec_relation: relation(target, waker CPU) */
	uint8_t target_state; /* enum sl_target_state */
	uint8_t missed_idle; /* 1: target busy or claimed while llc_idle > 0 */
	uint8_t missed_smt; /* 1: the target's SMT sibling was idle */
	uint8_t policy_known; /* bit n: policy n's choice could be computed */
	uint8_t policy_agree; /* bit n: policy n would have chosen target_cpu */
	uint8_t waker_irq; /* SL_IRQ_* of the waking's context (waker_pid: the task it hit) */
};

/* docs/metrics.md, "Preemptions": victim switched out runnable at ts_ns on cpu. */
struct sl_preempt_rec {
	int64_t run_id;
	uint64_t ts_ns; /* t0 */
	uint64_t off_ns; /* t1 - t0; SL_REC_NO_TIME if the victim never ran again */
	uint64_t lhp_cost_ns; /* sum over waiters of t1 - max(tw, t0) */
	uint64_t spin_cost_ns; /* sum over spinners of t1 - their first back-off sleep */
	int32_t cpu;
	int32_t victim_pid;
	int32_t preemptor_pid;
	uint16_t waiters; /* same-group tasks the victim released on resuming */
	uint16_t spinners; /* same-group tasks backing off by timer while it was off-CPU */
	uint16_t delayed_wakeups; /* for a hub victim: wakeups it made late */
	uint8_t cause; /* enum sl_preempt_cause */
	uint8_t same_group; /* preemptor in the victim's group */
	uint8_t hub; /* the victim was a hub of its group */
	uint8_t censored; /* run ended before t1 + horizon */
};

/* A task as first (or last renamed) seen in a run; upserted by (run_id, pid). */
struct sl_task_rec {
	int64_t run_id;
	uint64_t first_ns;
	int32_t pid;
	int32_t tgid; /* SL_REC_NONE if unknown */
	char comm[SL_COMM_LEN];
	char grp[SL_GROUP_LEN]; /* the task's group (docs/metrics.md: leader's comm by default) */
};

/* Group name of the window that covers every task. */
#define SL_GROUP_ALL "*"

/* docs/metrics.md, "Windows": aggregates of one group over [start_ns, start_ns + dur_ns). */
struct sl_window_rec {
	int64_t run_id;
	uint64_t start_ns;
	uint64_t dur_ns;
	char grp[SL_GROUP_LEN]; /* SL_GROUP_ALL or a group name */
	/* the counters: window-counters.h lists them and says what each counts */
	SL_WINDOW_COUNTERS(SL_WIN_FIELD, SL_WIN_FIELD_A)
	struct sl_hist latency; /* wakeup latency */
};

/*
 * Wakeups that landed on one CPU in one minute of a run (lib/engine/cpu-counts.h): the topology
 * heatmap's numbers, kept like the windows whether or not per-wakeup rows are stored.
 */
struct sl_cpu_count_rec {
	int64_t run_id;
	uint64_t start_ns; /* the minute: windows' origin + k * 60 s */
	uint64_t dur_ns; /* 60 s; the run's last minute ends at the run's end */
	int32_t cpu; /* the target CPU */
	uint32_t wakeups; /* wakeups of any kind with this target */
	uint32_t busy; /* of which the target was busy or claimed */
	uint32_t idle; /* of which it was idle */
	uint32_t missed_idle; /* of which an idle CPU of the same LLC was passed over */
};

#endif
