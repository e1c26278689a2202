/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The normalized scheduler event: what every source (live tracefs recorder, trace.dat,
 * ftrace text) hands to the engine, in batches, merged across CPUs by timestamp. One
 * struct of 64 bytes, no pointers, so batches can be copied and replayed from memory.
 */
#ifndef SL_EVENT_H
#define SL_EVENT_H

#include <stdint.h>

#define SL_COMM_LEN 16

enum sl_event_type {
	SL_EV_WAKING = 1, /* sched_waking: fires in the waker's context */
	SL_EV_WAKEUP, /* sched_wakeup: target_cpu is the CPU the kernel chose */
	SL_EV_WAKEUP_NEW, /* sched_wakeup_new: fork placement */
	SL_EV_SWITCH, /* sched_switch */
	SL_EV_MIGRATE, /* sched_migrate_task */
	SL_EV_FORK, /* sched_process_fork */
	SL_EV_EXIT, /* sched_process_exit */
	SL_EV_LOST, /* a gap: events were lost on this CPU before ts_ns */
	SL_EV_FUTEX, /* syscalls/sys_enter_futex: a futex(2) call (a wait, a wake...) */
	SL_EV_TYPE_MAX
};

/*
 * sched_switch prev_state, normalized to the kernel's one-letter report codes ('R', 'S',
 * 'D', 'T', 't', 'X', 'Z', 'P', 'I'); prev_preempt is set for "R+" (the TASK_REPORT_MAX
 * bit, in-kernel preemption). Both R and R+ mean the task was still runnable.
 */
struct sl_ev_switch {
	int32_t prev_pid;
	int32_t next_pid;
	int16_t prev_prio;
	int16_t next_prio;
	char prev_state;
	uint8_t prev_preempt;
	char prev_comm[SL_COMM_LEN];
	char next_comm[SL_COMM_LEN];
};

/* waking, wakeup, wakeup_new */
/* Interrupt contexts of a wakeup: a hard irq or NMI (timers ending a sleep fire here on
 * non-RT kernels), a softirq (network receive, timer-wheel timeouts, RCU). */
#define SL_IRQ_HARD 1
#define SL_IRQ_SOFT 2

struct sl_ev_wake {
	int32_t pid;
	int32_t target_cpu;
	int16_t prio;
	/* the context it fired in, SL_IRQ_* bits (0: a task): in an interrupt common_pid is
	 * whatever task it hit, not a waker */
	uint8_t irq;
	char comm[SL_COMM_LEN];
};

struct sl_ev_migrate {
	int32_t pid;
	int32_t orig_cpu;
	int32_t dest_cpu;
	int16_t prio;
	char comm[SL_COMM_LEN];
};

struct sl_ev_fork {
	int32_t parent_pid;
	int32_t child_pid;
	char parent_comm[SL_COMM_LEN];
	char child_comm[SL_COMM_LEN];
};

struct sl_ev_exit {
	int32_t pid;
	char comm[SL_COMM_LEN];
};

/*
 * A futex(2) call by common_pid: its address and op (the FUTEX_* command in the low 7 bits,
 * FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME above). Its waits tell lock-holder
 * preemption which lock a sleeper waits for (lib/engine/engine-preempt.c).
 */
struct sl_ev_futex {
	uint64_t uaddr;
	uint32_t op;
};

struct sl_ev_lost {
	uint64_t count; /* events lost, 0 if the source knows there was a gap but not its size */
};

struct sl_event {
	uint64_t ts_ns; /* trace clock, nanoseconds */
	uint16_t type; /* enum sl_event_type */
	uint16_t cpu; /* the CPU whose buffer held the event */
	int32_t common_pid; /* the task running on cpu when the event fired */
	union {
		struct sl_ev_switch sw;
		struct sl_ev_wake wake;
		struct sl_ev_migrate migrate;
		struct sl_ev_fork fork;
		struct sl_ev_exit exit;
		struct sl_ev_lost lost;
		struct sl_ev_futex futex;
	};
};

_Static_assert(sizeof(struct sl_event) <= 64, "sl_event must stay within one cache line");

/* "waking", "wakeup", ...; "?" for an unknown type. */
const char *sl_event_type_name(unsigned int type);

#endif
