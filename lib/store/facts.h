/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Raw scheduler facts, an engine handler: the events of a run that its derived rows
 * (sched_slices, wakeups, preemptions, tasks) cannot give back, stored in table
 * sched_facts (schema/0004-facts.sql) so that `schedlens export` replays the run exactly
 * and a re-import gives identical records. Stored are every sched_waking, sched_wakeup,
 * sched_wakeup_new, sched_migrate_task, sched_process_fork/exit and lost-events marker
 * with its context (CPU, common_pid), each comm change of a task, the tasks seen running
 * without a traced switch, and the few sched_switch events that the slices do not imply
 * (a CPU's first switch, the first after a gap or an untraced switch, a switch whose prev
 * is not the task the previous one switched in). Every fact carries `seq`, its position
 * among the events of the same timestamp, so the replay keeps the order the engine saw;
 * the switches rebuilt from slices fill the positions no fact takes.
 */
#ifndef SL_FACTS_H
#define SL_FACTS_H

#include <stdint.h>

#include "engine.h"

/*
 * sched_facts.kind as stored: the event types SL_EV_WAKING..SL_EV_LOST (1-8) as
 * themselves, and these. Databases keep them, so the numbers never change: the futex
 * call, an event type newer than comm and running, is stored as SL_FACT_FUTEX.
 */
enum sl_fact_kind {
	SL_FACT_COMM = 9, /* pid's comm is txt from this event on */
	SL_FACT_RUNNING = 10, /* common_pid ran on cpu with no traced switch (engine: mismatch) */
	SL_FACT_FUTEX = 11, /* a futex(2) call of common_pid */
};

_Static_assert(SL_EV_LOST == 8, "event types 1-8 are stored as sched_facts kinds");

/*
 * One row of sched_facts. Columns by kind (schema/README.md):
 *   waking, wakeup, wakeup_new: pid, arg1 = target_cpu, arg2 = irq (SL_IRQ_*)
 *   switch: pid = prev_pid, arg1 = next_pid, arg2 = prev_prio, arg3 = next_prio,
 *           txt = prev_state ("R+" with the preempt bit)
 *   migrate: pid, arg1 = orig_cpu, arg2 = dest_cpu
 *   fork: pid = parent_pid, arg1 = child_pid
 *   exit: pid
 *   lost: arg1 = events lost (0: unknown)
 *   comm: pid, txt = comm
 *   running: common_pid only
 *   futex: arg1 = uaddr, arg2 = op
 */
struct sl_fact_rec {
	int64_t run_id;
	uint64_t ts_ns;
	int64_t arg1;
	uint32_t seq;
	int32_t cpu;
	int32_t common_pid;
	int32_t pid, arg2, arg3;
	uint8_t kind; /* enum sl_event_type 1-8 or enum sl_fact_kind */
	char txt[SL_COMM_LEN];
};

struct sl_facts;
struct sl_store;
struct sl_writer;

/*
 * Facts of run run_id, pushed to writer w (which must outlive them). Returns NULL when
 * out of memory. Free with sl_facts_free() after the engine is finished.
 */
struct sl_facts *sl_facts_new(struct sl_writer *w, int64_t run_id);
void sl_facts_free(struct sl_facts *f);

/* The handler to add to the run's engine (sl_engine_add_handler), before any events. */
struct sl_sched_handler sl_facts_handler(struct sl_facts *f);

/* Sets runs.facts = 1: the export of run_id may rely on its facts. */
int sl_facts_mark_run(struct sl_store *store, int64_t run_id);

/* Rows pushed so far. */
uint64_t sl_facts_rows(const struct sl_facts *f);

#endif
