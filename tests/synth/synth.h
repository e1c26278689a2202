/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ground-truth trace synthesizer: a deterministic, seeded discrete-event simulation
 * of a CFS-like scheduler on a topology fixture running a pgbench-like workload (clients,
 * a dispatcher that wakes backends, backends that take shared LWLock-like locks). It emits
 * the sched_waking / sched_migrate_task / sched_wakeup / sched_switch stream a kernel would,
 * as struct sl_event, and alongside it the truth the analysis engine is measured against:
 * which preemptions hit a lock holder, who waited and for how long, how wakeups were
 * placed, and the workload's completed transactions. Wakeup placement is pluggable: the
 * pre-3.6 select_idle_sibling() LLC scan, or the 3.6 "CPU buddies" rule of the seed patch.
 */
#ifndef SYNTH_H
#define SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "topo.h"

enum synth_policy {
	SYNTH_LLC_SCAN, /* pre-3.6: target if idle, else first idle core in the LLC, else SMT */
	SYNTH_BUDDY, /* 3.6 (commit 970e178985ca): target if idle, else its buddies only */
};

/* "llc-scan" / "buddy"; synth_policy_parse() returns -1 for an unknown name. */
const char *synth_policy_name(enum synth_policy policy);
int synth_policy_parse(const char *name);

struct synth_config {
	const struct sl_topo *topo; /* borrowed; must outlive synth_run() */
	enum synth_policy policy;
	uint64_t seed;
	uint64_t duration_ns; /* simulated time; nothing is emitted after start + duration */
	uint64_t start_ns; /* trace-clock timestamp of simulated time 0 */

	/* workload: a closed loop of clients, each with one request in flight */
	int clients; /* "pgbench" tasks */
	int backends; /* "postgres" backends; client i prefers backend i % backends */
	uint64_t client_ns; /* client CPU per transaction (mean) */
	uint64_t dispatch_ns; /* dispatcher CPU per request (mean) */
	uint64_t work_before_ns; /* backend CPU before taking the lock (mean, exponential) */
	uint64_t lock_hold_ns; /* backend CPU while holding the lock (mean, exponential) */
	uint64_t work_after_ns; /* backend CPU after releasing it (mean, exponential) */
	uint64_t wake_tail_ns; /* a sync waker runs on this long (mean) before it sleeps */
	int locks; /* contention: a transaction takes one of this many locks; 1 = one hot lock */
	int lock_pct; /* share of transactions that take a lock, percent */
	/* spinlocks like PostgreSQL's s_lock instead of LWLocks: a backend that finds the lock
	 * taken spins (spin_ns of CPU), then sleeps a back-off delay woken by a timer (from
	 * 1 ms, growing by 1-2x, back to 1 ms past 100 ms), and tries again; a release wakes
	 * nobody */
	bool spin_locks;
	uint64_t spin_ns;

	/* scheduler */
	bool wakeup_preempt; /* a wakee may preempt the running task (WAKEUP_PREEMPTION) */
	uint64_t min_gran_ns; /* a running task is not preempted before it ran this long */
	uint64_t wakeup_gran_ns; /* vruntime lead a wakee needs over the running task */
	uint64_t slice_ns; /* tick preemption after this much CPU when others wait */
	uint64_t tick_ns; /* the scheduler tick (HZ) */
	uint64_t sleeper_credit_ns; /* a wakee's vruntime is at least min_vruntime - this */
	uint64_t ipi_ns; /* wakeup on a remote CPU -> its switch (IPI, idle exit) */
	int preempt_kernel_pct; /* wakeup preemptions that catch the victim in the kernel: R+ */
	bool idle_pull; /* a CPU going idle pulls a waiting task from its LLC (newidle) */
};

/* pgbench-like defaults for topo: clients and backends scale with the CPU count. */
void synth_config_default(struct synth_config *cfg, const struct sl_topo *topo);

#define SYNTH_LHP_MAX_WAITERS 16

/* One preemption of a lock holder while other tasks slept on its lock. */
struct synth_lhp {
	int cpu; /* where the holder was preempted */
	uint64_t t0_ns; /* the preempting sched_switch's timestamp */
	uint64_t t1_ns; /* the holder's next switch-in (run end if censored) */
	int victim_pid;
	int preemptor_pid;
	bool tick; /* cause: slice expiry (else a wakeup preemption) */
	bool censored; /* the holder had not run again when the run ended */
	int nr_waiters; /* tasks asleep on (or, spin_locks, spinning for) the lock in [t0, t1) */
	int waiter_pids[SYNTH_LHP_MAX_WAITERS]; /* the first nr_waiters of them, queue order */
	int first_waiter_pid; /* the head of the queue at t1: the one the holder hands to */
	uint64_t cost_ns; /* sum over waiters of their wait within [max(tw, t0), t1] */
};

struct synth_truth {
	uint64_t events; /* events emitted */
	uint64_t transactions; /* replies received by clients */
	uint64_t lock_acquires;
	uint64_t lock_waits; /* acquisitions that had to sleep */
	uint64_t lock_wait_ns; /* total time slept on locks */

	/* wakeups, by the chosen CPU's state when the kernel chose it */
	uint64_t wakeups;
	uint64_t wakeups_idle; /* chosen CPU idle (no task, none pending) */
	uint64_t wakeups_claimed; /* chosen CPU ran idle but a wakee was already pending */
	uint64_t wakeups_busy; /* chosen CPU was running a task */
	uint64_t wakeups_missed_idle; /* not idle while an idle CPU sat in the chosen LLC */
	uint64_t wakeups_missed_core; /* not idle while a whole core of that LLC was idle */
	uint64_t migrations; /* sched_migrate_task events (wakeup and idle pull) */
	uint64_t idle_pulls;

	/* preemptions: a sched_switch whose prev was a runnable task */
	uint64_t preemptions;
	uint64_t preempt_wakeup; /* caused by a wakeup preemption check */
	uint64_t preempt_tick; /* caused by slice expiry */
	uint64_t preempt_same_group; /* postgres preempting postgres */
	uint64_t preempt_hub; /* of the dispatcher */
	uint64_t preempt_holder; /* of a lock holder, with or without waiters */
	uint64_t preempt_holder_idle; /* ... of which nobody slept on the lock meanwhile */

	size_t nr_lhp; /* lock-holder preemptions with at least one waiter */
	struct synth_lhp *lhp; /* in t0 order; freed by synth_truth_free() */
	uint64_t lhp_cost_ns; /* sum of lhp[].cost_ns */
};

/* Frees what synth_run() allocated in truth (not truth itself); accepts NULL. */
void synth_truth_free(struct synth_truth *truth);

/* Called for each event in nondecreasing ts_ns order; a nonzero return stops the run. */
typedef int (*synth_emit_fn)(void *ctx, const struct sl_event *ev);

/*
 * Simulates cfg, calling emit (may be NULL) for every event. Returns 0 and fills
 * *ret_truth (free with synth_truth_free()), the emitter's nonzero return, or -EINVAL /
 * -ENOMEM. The same config and seed always give the same stream.
 */
int synth_run(const struct synth_config *cfg, synth_emit_fn emit, void *ctx,
	      struct synth_truth *ret_truth);

/*
 * Buddies as the seed patch's update_top_cache_domain() assigns them: for each CPU the
 * idle_buddy of its LLC-level domain (the first CPU of a neighbouring core, cross-wired
 * in pairs) and of its SMT-level domain (its sibling), -1 where that domain does not
 * exist. Arrays of topo->nr_cpus entries. Returns 0 or -EINVAL.
 */
int synth_buddies(const struct sl_topo *topo, int *llc_buddy, int *smt_buddy);

/*
 * Writes ev as one line of /sys/kernel/tracing/trace text (with a newline) into buf and
 * returns its length as snprintf() does. common_comm names common_pid (the event does not
 * carry it; "<idle>" is used for pid 0). nsec: 9 decimals, as `trace-cmd report -t` prints
 * a recording made with trace_clock=mono, instead of the trace file's 6.
 */
int synth_format_text(const struct sl_event *ev, const char *common_comm, bool nsec, char *buf,
		      size_t size);

/* The trace file's comment header ("# tracer: nop" ...) for nr_cpus CPUs, into buf. */
int synth_format_header(int nr_cpus, char *buf, size_t size);

#endif
