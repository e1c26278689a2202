/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's per-task state in an open-addressing table keyed by pid (linear probing,
 * backward-shift deletion, no tombstones). Sized for hundreds of thousands of tasks; it
 * grows by doubling up to a cap. Pointers into the table stay valid until the next
 * sl_tasktab_reserve() or sl_tasktab_remove(): the engine reserves room before each event
 * and removes entries only between events, so one event's handlers can hold several.
 */
#ifndef SL_TASKTAB_H
#define SL_TASKTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "records.h"

enum sl_task_state {
	SL_TASK_UNKNOWN, /* not seen switching since it appeared or since a gap */
	SL_TASK_RUNNING, /* on a CPU */
	SL_TASK_RUNNABLE, /* woken or preempted, waiting for a CPU */
	SL_TASK_SLEEPING, /* switched out in S, D or another blocked state */
	SL_TASK_DEAD, /* switched out after exiting */
};

#define SL_TASK_RESUMED 2 /* resumed preemption records a task can feed waiters to */

struct sl_task {
	int32_t pid; /* 0: empty slot (pid 0, the idle task, is never stored) */
	int32_t tgid;
	int32_t cpu; /* last CPU it ran on or was placed on; -1 unknown */
	uint16_t group;
	uint8_t state; /* enum sl_task_state */
	bool hub; /* a hub of its group (decided at the last window boundary) */
	bool waking_pending;
	bool wakeup_pending;
	uint8_t waker_irq; /* SL_IRQ_* of the pending sched_waking */
	char comm[SL_COMM_LEN];
	uint64_t first_ns;
	uint64_t last_ns;
	uint64_t sleep_ns; /* when it switched out sleeping (state SLEEPING) */
	/* the futex its last futex(2) wait named and when, and the futex of its current
	 * sleep (0: none known): which lock a sleeper waits for (engine-preempt.c) */
	uint64_t futex_wait_uaddr;
	uint64_t futex_wait_ns;
	uint64_t sleep_uaddr;
	bool futex_fresh; /* its first run since it slept on sleep_uaddr has not ended */
	bool exiting; /* its sched_process_exit was seen: it now wakes a joiner, no waiter */

	/* the sched_waking that precedes the pending sched_wakeup */
	uint64_t waking_ns;
	int32_t waker_pid;
	int32_t waker_cpu;
	int32_t waking_prev_cpu;

	/* the wakee's claim on its target CPU until it runs */
	int32_t claim_cpu;
	uint32_t claim_epoch;

	/* open preemption records: the one it is off-CPU for, and resumed ones */
	int32_t off_preempt;
	int32_t resumed[SL_TASK_RESUMED];

	/* a lock convoy: the preemption record whose victim released this task's chain */
	int32_t chain_rec;
	uint64_t chain_t0;
	uint64_t chain_ns; /* when it joined the convoy (was woken into it) */

	/* hub detection: distinct same-group wakees in the current window, and same-group
	 * wakeups given and received in it */
	uint16_t wakees;
	int32_t recent_wakees[8];
	uint32_t wakes_given;
	uint32_t wakes_taken;

	/* its last wake of a task of its group (task context), for handoff preemptions */
	int32_t last_wakee;
	uint64_t last_wake_ns;
	uint64_t last_wake_uaddr; /* the futex that wakee slept on (0: none known) */

	struct sl_wakeup_rec pend; /* the wakeup record waiting for the task to run */
};

struct sl_tasktab {
	struct sl_task *slots;
	size_t cap; /* power of two */
	size_t used;
	size_t max; /* cap on used */
};

int sl_tasktab_init(struct sl_tasktab *tt, size_t max_tasks);
void sl_tasktab_free(struct sl_tasktab *tt);

/* NULL if absent. */
struct sl_task *sl_tasktab_find(const struct sl_tasktab *tt, int32_t pid);

/* Finds or inserts (zeroed, pid set); NULL if the table is at its cap. pid must be > 0. */
struct sl_task *sl_tasktab_get(struct sl_tasktab *tt, int32_t pid, bool *ret_new);

int sl_tasktab_grow_for(struct sl_tasktab *tt, size_t n);

/* Makes room for n inserts without growing in between: 0 or -ENOMEM. Inline: it runs for
 * every event, and nearly always only compares. */
static inline int sl_tasktab_reserve(struct sl_tasktab *tt, size_t n)
{
	/* keep the load under 70%: probes stay short */
	if ((tt->used + n) * 10 <= tt->cap * 7)
		return 0;
	return sl_tasktab_grow_for(tt, n);
}

/* Removes pid; moves other entries (invalidates pointers). */
void sl_tasktab_remove(struct sl_tasktab *tt, int32_t pid);

#define sl_tasktab_foreach(tt, t)                                               \
	for (struct sl_task *t = (tt)->slots; t < (tt)->slots + (tt)->cap; t++) \
		if (t->pid)

#endif
