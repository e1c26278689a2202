/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of the trace synthesizer shared by its modules: the simulation state (tasks,
 * per-CPU run queues, the timer heap), the scheduler core's entry points the workload
 * calls (wake, block, run a segment), the placement policies, and the workload hooks.
 */
#ifndef SYNTH_LOCAL_H
#define SYNTH_LOCAL_H

#include "synth.h"
#include "stats.h"

enum synth_role { ROLE_KWORKER, ROLE_CLIENT, ROLE_DISPATCHER, ROLE_BACKEND };

enum synth_tstate { TS_SLEEPING, TS_RUNNABLE, TS_RUNNING };

struct synth_task {
	int pid;
	enum synth_role role;
	int idx; /* index within its role */
	enum synth_tstate state;
	int cpu; /* current, or last ran / queued on */
	int64_t vruntime;
	uint64_t exec_start; /* last update_curr() while running */
	uint64_t run_start; /* switch-in time: min granularity and slice are from here */
	uint64_t seg_left; /* CPU still to burn in the current segment */
	uint64_t seg_end; /* while running: when the segment completes */
	uint32_t seg_gen; /* invalidates stale segment-end timers */
	int phase; /* workload program counter */
	/* locks */
	int lock; /* lock held, -1 none */
	int wait_lock; /* lock slept on, -1 none */
	int next_waiter; /* lock queue link, task index or -1 */
	uint64_t sleep_ts; /* emitted ts of the switch-out that put it to sleep */
	uint64_t wait_ts; /* spin_locks: when it began to wait for wait_lock */
	uint64_t backoff_ns; /* spin_locks: its next back-off delay */
	int lhp; /* open LHP record while preempted holding a lock, -1 */
	/* workload */
	int request; /* backend: the client served, -1 */
	bool in_pool; /* backend: idle, waiting for work */
};

struct synth_cpu {
	int curr; /* task index, -1 = idle */
	int *wait; /* runnable tasks queued behind curr (unordered; picked by vruntime) */
	int nr_wait;
	int64_t min_vruntime;
	uint32_t resched_gen; /* bumped on every switch: stale resched timers are dropped */
	bool resched_pending;
	bool resched_tick; /* the pending resched is a slice expiry */
	bool tick_armed;
	int llc, core; /* dense indices from the topology */
};

struct synth_timer {
	uint64_t t;
	uint64_t seq; /* FIFO among equal times: determinism */
	int kind;
	int arg;
	uint32_t gen;
};

struct synth_lock {
	int holder; /* task index, -1 free */
	int head, tail; /* sleeping waiters, FIFO */
};

struct synth_open_lhp {
	struct synth_lhp rec;
	int lock;
	uint64_t sum_start; /* sum over waiters of max(tw, t0) */
};

struct synth {
	const struct synth_config *cfg;
	const struct sl_topo *topo;
	synth_emit_fn emit;
	void *ctx;
	int stop; /* the emitter's nonzero return */
	int err;
	struct sl_rng rng;
	uint64_t now; /* simulated time, ns from start */
	uint64_t end; /* simulated end */
	uint64_t last_ts; /* last emitted timestamp: the stream is strictly increasing */

	int nr_cpus;
	struct synth_cpu *cpus;
	int nr_tasks;
	struct synth_task *tasks;

	/* topology tables: CPUs of each LLC and core, sorted; buddies */
	int *llc_cpus, *llc_off; /* llc_cpus[llc_off[l] .. llc_off[l + 1]) */
	int *core_cpus, *core_off;
	int *llc_cores, *llc_core_off; /* cores of an LLC ordered by their first CPU */
	int *llc_buddy, *smt_buddy;

	struct synth_timer *heap;
	int nr_heap, heap_cap;
	uint64_t seq;

	/* workload */
	int dispatcher; /* task index */
	int client0, backend0, kworker0; /* first task index of each role */
	int *queue; /* dispatcher request queue: client indices, ring */
	int q_head, q_len;
	int pool_cursor;
	struct synth_lock *locks;

	struct synth_open_lhp *open; /* indexed by an open record slot */
	int nr_open, open_cap;
	int *open_free;
	int nr_open_free;

	struct synth_truth truth;
	size_t lhp_cap;
};

enum synth_timer_kind { TM_SEGMENT, TM_RESCHED, TM_TICK, TM_BACKOFF };

/* synth.c: the scheduler core */
uint64_t synth_rand(struct synth *s);
uint64_t synth_rand_exp(struct synth *s, uint64_t mean_ns);
uint64_t synth_emit(struct synth *s, struct sl_event *ev);
void synth_wake(struct synth *s, struct synth_task *waker, struct synth_task *p, bool sync);
/* t's back-off sleep ends at s->now + ns: a timer wakes it from the hard interrupt */
void synth_backoff(struct synth *s, struct synth_task *t, uint64_t ns);
void synth_block(struct synth *s, struct synth_task *t);
void synth_segment(struct synth *s, struct synth_task *t, uint64_t ns);
/* t, asleep, is made runnable on cpu and the CPU told to schedule at time at (startup) */
void synth_spawn(struct synth *s, struct synth_task *t, int cpu, uint64_t at);
bool synth_cpu_idle(const struct synth *s, int cpu);
int synth_nr_running(const struct synth *s, int cpu);

/* synth-place.c: topology tables and wakeup placement */
int synth_place_init(struct synth *s);
void synth_place_free(struct synth *s);
int synth_select_cpu(struct synth *s, struct synth_task *waker, struct synth_task *p, bool sync);

/* synth-work.c: the pgbench-like workload */
int synth_work_init(struct synth *s); /* creates the tasks */
int synth_work_start(struct synth *s); /* arms the first timers, once run queues exist */
void synth_work_free(struct synth *s);
const char *synth_task_comm(const struct synth *s, const struct synth_task *t, char *buf);
/* t's segment ended: do what its program says next (wake others, run more, block) */
void synth_work_step(struct synth *s, struct synth_task *t);
/* truth hooks the workload calls when lock waiters queue */
void synth_lhp_add_waiter(struct synth *s, struct synth_task *holder, struct synth_task *w);

#endif
