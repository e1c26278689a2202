// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analysis engine on hand-built event streams with known answers, on the Westmere
 * fixture (80 CPUs, sibling of n is n+40, LLC = one socket of 10 cores): every
 * class_prev / class_waker, every target state, missed_idle and missed_smt, latency,
 * both preemption causes, an LHP with two waiters and its exact cost, a same-group
 * preemption that is not LHP, censoring at run end, the open preemption records' pool
 * (growth to its cap, drops beyond it, reuse), the reset after a lost-events gap,
 * windows, the buddy table and the policy fingerprint.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "fixture.h"
#include "policy.h"
#include "tap.h"
#include "topo.h"

#define MAXREC 4096

static struct sl_topo *westmere, *epyc;
static struct sl_engine *E;
static int cur[SL_TOPO_MAX_CPUS];
static uint64_t T;

static struct sl_wakeup_rec wakeups[MAXREC];
static struct sl_preempt_rec preempts[MAXREC];
static struct sl_window_rec windows[MAXREC];
static struct sl_slice_rec slices[MAXREC];
static int nr_wakeups, nr_preempts, nr_windows, nr_slices;

static void on_wakeup(void *ctx, const struct sl_wakeup_rec *r)
{
	if (nr_wakeups < MAXREC)
		wakeups[nr_wakeups++] = *r;
}

static void on_preempt(void *ctx, const struct sl_preempt_rec *r)
{
	if (nr_preempts < MAXREC)
		preempts[nr_preempts++] = *r;
}

static void on_window(void *ctx, const struct sl_window_rec *r)
{
	if (nr_windows < MAXREC)
		windows[nr_windows++] = *r;
}

static void on_slice(void *ctx, const struct sl_slice_rec *r)
{
	if (nr_slices < MAXREC)
		slices[nr_slices++] = *r;
}

static const char *comm_of(int pid)
{
	if (pid == 0)
		return "swapper";
	if (pid >= 5000)
		return "init";
	if (pid >= 900)
		return "bash";
	return "postgres";
}

static void feed(struct sl_event *ev)
{
	ev->ts_ns = T;
	sl_engine_feed(E, ev, 1);
}

/* cpu switches from whatever runs there to next; prev leaves in state st ('R', 'S'...) */
static void sw(int cpu, char st, int next)
{
	struct sl_event ev = { .type = SL_EV_SWITCH, .cpu = cpu, .common_pid = cur[cpu] };

	ev.sw.prev_pid = cur[cpu];
	ev.sw.next_pid = next;
	ev.sw.prev_prio = ev.sw.next_prio = 120;
	ev.sw.prev_state = st;
	ev.sw.prev_preempt = st == 'R';
	snprintf(ev.sw.prev_comm, SL_COMM_LEN, "%s", comm_of(cur[cpu]));
	snprintf(ev.sw.next_comm, SL_COMM_LEN, "%s", comm_of(next));
	feed(&ev);
	cur[cpu] = next;
}

/* as wake(), in context irq (SL_IRQ_*): the task running on waker_cpu was only hit */
static void wake_irq(int waker_cpu, int pid, int prev_cpu, int target, uint8_t irq)
{
	struct sl_event ev = { .type = SL_EV_WAKING, .cpu = waker_cpu };

	ev.common_pid = cur[waker_cpu];
	ev.wake.irq = irq;
	ev.wake.pid = pid;
	ev.wake.prio = 120;
	ev.wake.target_cpu = prev_cpu;
	snprintf(ev.wake.comm, SL_COMM_LEN, "%s", comm_of(pid));
	feed(&ev);
	ev.type = SL_EV_WAKEUP;
	ev.wake.target_cpu = target;
	feed(&ev);
}

/* waker (running on waker_cpu) wakes pid, last on prev_cpu, onto target */
static void wake(int waker_cpu, int pid, int prev_cpu, int target)
{
	wake_irq(waker_cpu, pid, prev_cpu, target, 0);
}

/* the task pid, running on cpu, exits (sched_process_exit) */
static void exit_of(int cpu, int pid)
{
	struct sl_event ev = { .type = SL_EV_EXIT, .cpu = cpu, .common_pid = cur[cpu] };

	ev.exit.pid = pid;
	snprintf(ev.exit.comm, SL_COMM_LEN, "%s", comm_of(pid));
	feed(&ev);
}

static void lost(int cpu, uint64_t count)
{
	struct sl_event ev = { .type = SL_EV_LOST, .cpu = cpu };

	ev.lost.count = count;
	feed(&ev);
}

/* A fresh engine; if known, every CPU first runs an "init" task that goes to sleep,
 * so each CPU's state is known and idle. max_open: the preemption records' cap (0:
 * the default). */
static void start_capped(const struct sl_topo *topo, bool known, size_t max_open)
{
	struct sl_engine_config cfg;
	struct sl_engine_sink sink = {
		.wakeup = on_wakeup, .preempt = on_preempt, .window = on_window, .slice = on_slice
	};

	sl_engine_free(E);
	sl_engine_config_default(&cfg);
	if (max_open)
		cfg.max_open_preempts = max_open;
	cfg.topo = topo;
	cfg.run_id = 7;
	if (sl_engine_new(&cfg, &sink, &E)) {
		printf("Bail out! sl_engine_new\n");
		exit(1);
	}
	nr_wakeups = nr_preempts = nr_windows = nr_slices = 0;
	memset(cur, 0, sizeof(cur));
	T = 1000000;
	for (int c = 0; known && topo && c < topo->nr_cpus; c++) {
		cur[c] = 5000 + c;
		sw(c, 'S', 0);
		T += 10;
	}
}

static void start(const struct sl_topo *topo, bool known)
{
	start_capped(topo, known, 0);
}

static const struct sl_wakeup_rec *last_wakeup(void)
{
	static const struct sl_wakeup_rec none;

	return nr_wakeups ? &wakeups[nr_wakeups - 1] : &none;
}

static const struct sl_preempt_rec *find_preempt(int victim)
{
	for (int i = 0; i < nr_preempts; i++)
		if (preempts[i].victim_pid == victim)
			return &preempts[i];
	return NULL;
}

static void test_classes(void)
{
	static const struct {
		int target;
		enum sl_relation prev, waker;
	} cases[] = {
		{ 0, SL_REL_SAME, SL_REL_LLC },	      { 40, SL_REL_SMT, SL_REL_LLC },
		{ 1, SL_REL_LLC, SL_REL_SAME },	      { 41, SL_REL_LLC, SL_REL_SMT },
		{ 10, SL_REL_REMOTE, SL_REL_REMOTE },
	};

	start(westmere, true);
	T += 1000;
	sw(1, 'S', 200); /* the waker runs on cpu1 */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int target = cases[i].target;

		if (cur[1] != 200) {
			T += 1000;
			sw(1, 'S', 200);
		}
		T += 1000;
		sw(0, 'S', 100); /* postgres 100 runs on cpu0 and sleeps */
		T += 1000;
		sw(0, 'S', 0);
		T += 1000;
		wake(1, 100, 0, target);
		T += 2500;
		sw(target, 'S', 100);
		is_int(last_wakeup()->class_prev, cases[i].prev, "target %d: class_prev %s", target,
		       sl_relation_name(cases[i].prev));
		is_int(last_wakeup()->class_waker, cases[i].waker, "target %d: class_waker %s",
		       target, sl_relation_name(cases[i].waker));
		is_int(last_wakeup()->latency_ns, 2500, "target %d: latency 2500 ns", target);
		is_int(last_wakeup()->run_cpu, target, "target %d: run_cpu", target);
		is_int(last_wakeup()->waker_pid, 200, "target %d: waker pid from sched_waking",
		       target);
		is_int(last_wakeup()->waker_cpu, 1, "target %d: waker cpu", target);
		is_int(last_wakeup()->prev_cpu, 0, "target %d: prev cpu", target);
		T += 1000;
		sw(target, 'S', 0);
		cur[0] = 0;
	}

	/* the package class needs several LLCs per package: the EPYC fixture */
	start(epyc, true);
	T += 1000;
	sw(1, 'S', 200);
	T += 1000;
	sw(0, 'S', 100);
	T += 1000;
	sw(0, 'S', 0);
	T += 1000;
	wake(1, 100, 0, 4); /* cpu4: next CCX, same package */
	T += 1000;
	sw(4, 'S', 100);
	is_int(last_wakeup()->class_prev, SL_REL_PACKAGE, "epyc: class_prev package");
	is_int(last_wakeup()->class_waker, SL_REL_PACKAGE, "epyc: class_waker package");
	T += 1000;
	wake(1, 300, 0, 100); /* cpu100: other package */
	sl_engine_finish(E, T);
	is_int(last_wakeup()->class_prev, SL_REL_REMOTE, "epyc: class_prev remote (censored)");
}

static void test_target_states(void)
{
	const struct sl_wakeup_rec *r;

	start(westmere, true);
	T += 1000;
	sw(1, 'S', 200); /* waker busy on cpu1 */
	T += 1000;
	wake(1, 101, 5, 5);
	T += 1000;
	sw(5, 'S', 101);
	r = last_wakeup();
	is_int(r->target_state, SL_TS_IDLE, "idle target");
	is_int(r->llc_idle, 19, "llc_idle: 20 CPUs in the LLC, the waker's busy");
	is_int(r->missed_idle, 0, "idle target: no missed idle");

	/* cpu5 busy running 101: wake 102 onto it while the LLC has idle CPUs */
	T += 1000;
	wake(1, 102, 5, 5);
	T += 1000;
	sw(5, 'R', 102);
	r = last_wakeup();
	is_int(r->target_state, SL_TS_BUSY, "busy target");
	is_int(r->llc_idle, 18, "llc_idle 18 (cpu1 and cpu5 busy)");
	is_int(r->missed_idle, 1, "busy target with idle CPUs in the LLC: missed_idle");
	is_int(r->missed_smt, 1, "sibling cpu45 idle: missed_smt");
	is_int(r->preempted_pid, 101, "the wakee replaced runnable 101");

	/* sibling busy too: no missed_smt */
	T += 1000;
	sw(45, 'S', 300);
	T += 1000;
	wake(1, 103, 5, 5);
	T += 1000;
	sw(5, 'S', 103);
	r = last_wakeup();
	is_int(r->target_state, SL_TS_BUSY, "busy target, busy sibling");
	is_int(r->missed_smt, 0, "sibling busy: no missed_smt");
	is_int(r->missed_idle, 1, "still missed_idle");

	/* claimed: 104 is placed on idle cpu7 and has not run when 105 lands there too */
	T += 1000;
	wake(1, 104, 7, 7);
	T += 1000;
	wake(1, 105, 8, 7);
	T += 1000;
	sw(7, 'S', 104);
	T += 1000;
	sw(7, 'S', 105);
	r = last_wakeup();
	is_int(r->pid, 105, "second wakee's record");
	is_int(r->target_state, SL_TS_CLAIMED, "claimed target: stacking");
	is_int(r->missed_idle, 1, "claimed with idle CPUs around: missed_idle");
	is_int(r->latency_ns, 2000, "stacked wakee waited 2 us");
	is_int(wakeups[nr_wakeups - 2].target_state, SL_TS_IDLE, "the first wakee found it idle");

	/* the whole LLC busy: busy target but nothing missed */
	start(westmere, true);
	for (int c = 0; c < 10; c++) {
		T += 100;
		sw(c, 'S', 400 + c);
		T += 100;
		sw(c + 40, 'S', 450 + c);
	}
	T += 1000;
	wake(1, 500, 3, 3);
	T += 1000;
	sw(3, 'R', 500);
	r = last_wakeup();
	is_int(r->target_state, SL_TS_BUSY, "all busy: busy target");
	is_int(r->llc_idle, 0, "all busy: llc_idle 0");
	is_int(r->missed_idle, 0, "all busy: nothing missed");

	/* unknown: a CPU that has not switched yet */
	start(westmere, false);
	T += 1000;
	sw(1, 'S', 200);
	T += 1000;
	wake(1, 101, 3, 3);
	T += 1000;
	sw(3, 'S', 101);
	r = last_wakeup();
	is_int(r->target_state, SL_TS_UNKNOWN, "CPU before its first switch: unknown");
	is_int(r->missed_idle, 0, "unknown: no missed idle claimed");
	is_int(r->policy_known, 0, "unknown LLC: no fingerprint");
}

static void test_preemptions(void)
{
	const struct sl_preempt_rec *p;

	start(westmere, true);
	/* wakeup preemption: 401 woken onto cpu2 preempts 400 */
	T += 1000;
	sw(1, 'S', 200);
	T += 1000;
	sw(2, 'S', 400);
	T += 1000;
	wake(1, 401, 2, 2);
	T += 1000;
	sw(2, 'R', 401);
	/* tick preemption: 902 (bash) had been preempted before, so it was not woken */
	T += 1000;
	sw(3, 'S', 500);
	T += 1000;
	sw(3, 'R', 902);
	T += 1000;
	sw(3, 'R', 500);
	T += 1000;
	sw(3, 'R', 902);
	T += 10 * 1000 * 1000;
	sw(2, 'R', 400);
	T += 10 * 1000 * 1000;
	sw(1, 'S', 0);
	sl_engine_finish(E, T);

	p = find_preempt(400);
	ok(p != NULL, "preemption of 400 recorded");
	if (p) {
		is_int(p->cause, SL_PC_WAKEUP, "woken preemptor: cause wakeup");
		is_int(p->preemptor_pid, 401, "preemptor 401");
		is_int(p->same_group, 1, "postgres preempted postgres: same group");
		is_int(p->waiters, 0, "nobody waited on it");
		is_int(p->off_ns, 10 * 1000 * 1000 + 4000, "off-CPU until it ran again");
	}
	p = find_preempt(500);
	ok(p != NULL, "preemption of 500 recorded");
	if (p) {
		is_int(p->cause, SL_PC_TICK, "preemptor not freshly woken: cause tick");
		is_int(p->same_group, 0, "bash preempted postgres: other group");
		is_int(p->off_ns, 1000, "off 1 us");
	}
}

/* V (postgres 600) runs on cpu 4; W1 (postgres 601) runs on cpu 6 and sleeps at 2 ms. */
static void v_runs_w1_sleeps(void)
{
	start(westmere, true);
	T += 1000;
	sw(4, 'S', 600);
	T += 1000;
	sw(6, 'S', 601);
	T = 2000000;
	sw(6, 'S', 0);
}

static void test_lhp(void)
{
	const struct sl_preempt_rec *p;
	uint64_t t0, t1;

	v_runs_w1_sleeps(); /* W1 asleep from tw1 = 2 ms, before t0 */
	T = 2500000;
	sw(1, 'S', 650); /* a waker for the preemptor */
	T = 2600000;
	wake(1, 602, 4, 4);
	t0 = T = 3000000;
	sw(4, 'R', 602); /* V preempted by 602 */
	T = 3500000;
	sw(8, 'S', 603);
	T = 4000000;
	sw(8, 'S', 0); /* W2 sleeps at tw2 = 4.000 ms, after t0 */
	T = 4500000;
	sw(9, 'S', 604);
	T = 6000000;
	sw(9, 'S', 0); /* 604 sleeps at 6 ms: after t1, so not a waiter */
	T = 5000000 + 1000000;
	t1 = T = 5500000 + 500000;
	sw(4, 'S', 600); /* V resumes at t1 = 6.0 ms (602 blocks) */
	T = 6100000;
	wake(4, 601, 6, 6); /* V releases W1 */
	T = 6200000;
	wake(4, 603, 8, 8); /* and W2 */
	T = 6300000;
	wake(4, 604, 9, 9); /* 604 slept after t1: not a waiter */
	T = 30000000;
	sw(4, 'S', 0);
	sl_engine_finish(E, T);

	p = find_preempt(600);
	ok(p != NULL, "LHP preemption recorded");
	if (!p)
		return;
	is_int(p->waiters, 2, "two waiters");
	/* W1: t1 - t0 (slept before t0); W2: t1 - tw2 */
	is_int(p->lhp_cost_ns, (t1 - t0) + (t1 - 4000000), "exact LHP cost");
	is_int(p->off_ns, t1 - t0, "victim off-CPU t1 - t0");
	is_int(p->censored, 0, "completed, not censored");

	/* a lock convoy: V hands the lock to W1 only; W1 hands it on to W2 */
	v_runs_w1_sleeps();
	T = 2100000;
	sw(8, 'S', 603);
	T = 2200000;
	sw(8, 'S', 0); /* W2 asleep from 2.2 ms */
	T = 2500000;
	sw(1, 'S', 650);
	T = 2600000;
	wake(1, 602, 4, 4);
	t0 = T = 3000000;
	sw(4, 'R', 602);
	t1 = T = 5000000;
	sw(4, 'S', 600);
	T = 5100000;
	wake(4, 601, 6, 6); /* V -> W1 */
	T = 5200000;
	sw(6, 'S', 601);
	T = 5300000;
	wake(6, 603, 8, 8); /* W1 -> W2, still within V's horizon */
	T = 40000000;
	sw(4, 'S', 0);
	sl_engine_finish(E, T);
	p = find_preempt(600);
	ok(p && p->waiters == 2, "convoy: the waiter W1 hands on to counts too");
	ok(p && p->lhp_cost_ns == 2 * (t1 - t0), "convoy: both waited t1 - t0");

	/* a same-group preemption that is not LHP: the victim wakes nobody of its group
	 * who slept before it resumed */
	start(westmere, true);
	T += 1000;
	sw(2, 'S', 700);
	T += 1000;
	sw(5, 'S', 903); /* bash 903 sleeps before: other group */
	T += 1000;
	sw(5, 'S', 0);
	T += 1000;
	sw(1, 'S', 650);
	T += 1000;
	wake(1, 701, 2, 2);
	T += 1000;
	sw(2, 'R', 701);
	T += 100000;
	sw(2, 'S', 700);
	T += 1000;
	wake(2, 903, 5, 5);
	T = 40000000;
	sw(2, 'S', 0);
	sl_engine_finish(E, T);
	p = find_preempt(700);
	ok(p && p->same_group && p->waiters == 0 && p->lhp_cost_ns == 0,
	   "same-group preemption without waiters is not LHP");
}

/*
 * A victim V (postgres 600, cpu 4) preempted at t0 = 3 ms by bash 950 and back at t1 =
 * scene_t1 (5 ms), with postgres 601 asleep on cpu 6 since 2 ms; then whatever the scenario
 * does after t1. 950 is of another group, so no member of V's group runs while V is
 * off-CPU, unless progress: postgres 605 runs 400 us of it (progress_untraced: the same
 * after an untraced switch). sleepers: 602 and 603 asleep from 2.2 and 2.4 ms.
 * spinner_seen: 603 asleep from 2.4 ms, woken by a timer at 4 ms, back asleep at once.
 */
static bool progress_untraced; /* lhp_scene's progress, seen after an untraced switch */
static bool spinner_seen; /* lhp_scene: 603 spins for V's lock while V is off-CPU */
static uint64_t scene_t1 = 5000000; /* lhp_scene: when V runs again */

/* pid runs on cpu from from_ns to to_ns, then sleeps; the CPU goes idle */
static void run_then_sleep(int cpu, int pid, uint64_t from_ns, uint64_t to_ns)
{
	T = from_ns;
	sw(cpu, 'S', pid);
	T = to_ns;
	sw(cpu, 'S', 0);
}

static void lhp_scene(bool progress, bool sleepers)
{
	v_runs_w1_sleeps();
	if (sleepers)
		run_then_sleep(8, 602, 2100000, 2200000);
	if (sleepers || spinner_seen)
		run_then_sleep(9, 603, 2300000, 2400000);
	T = 2500000;
	sw(1, 'S', 950);
	T = 2600000;
	wake(1, 951, 4, 4);
	T = 3000000;
	sw(4, 'R', 951);
	if (progress_untraced) {
		/* the switch to 605 is not traced: it is first seen at 3.5 ms, waking a task
		 * from a hard irq (its CPU's timer), and switches out at 3.9 ms */
		T = 3400000;
		sw(9, 'S', 960);
		cur[9] = 605;
		T = 3500000;
		wake_irq(9, 961, 10, 10, SL_IRQ_HARD);
		T = 3900000;
		sw(9, 'S', 0);
	}
	if (progress)
		run_then_sleep(9, 605, 3500000, 3900000);
	if (spinner_seen) {
		/* 603, asleep from 2.4 ms, is woken by a timer at 4 ms, spins 10 us and sleeps
		 * again: the lock was still held */
		T = 4000000;
		wake_irq(9, 603, 9, 9, SL_IRQ_HARD);
		run_then_sleep(9, 603, 4005000, 4015000);
	}
	T = scene_t1;
	sw(4, 'S', 600);
}

static int lhp_finish(int victim, const struct sl_preempt_rec **ret)
{
	T = 400000000;
	sw(4, 'S', 0);
	sl_engine_finish(E, T);
	*ret = find_preempt(victim);
	return *ret != NULL;
}

/*
 * V (postgres 600, cpu 4) wakes 602 of its group at 3 ms and is preempted by it gap ns
 * later, runs again 200 us after that and wakes 601, asleep since 2 ms, 100 us later.
 */
static void handoff_scene(uint64_t gap)
{
	v_runs_w1_sleeps();
	T = 2100000;
	sw(8, 'S', 602);
	T = 2200000;
	sw(8, 'S', 0); /* 602 asleep from 2.2 ms */
	T = 3000000;
	wake(4, 602, 8, 4);
	T += gap;
	sw(4, 'R', 602);
	T += 200000;
	sw(4, 'S', 600);
	T += 100000;
	wake(4, 601, 6, 6);
}

/* The context of a wakeup, handoffs, untraced switch-ins, spinners, long convoys. */
static void test_lhp_context(void)
{
	const struct sl_preempt_rec *p;
	uint64_t t0;

	/* a timer that fires on cpu 4 while V runs wakes 601: V woke nobody */
	lhp_scene(false, false);
	T = 5100000;
	wake_irq(4, 601, 6, 6, SL_IRQ_HARD);
	ok(lhp_finish(600, &p) && p->waiters == 0, "a hard irq's wakeup has no waker: no waiter");
	ok(p && p->spinners == 1 && p->spin_cost_ns == 2000000,
	   "... but a spinner: it slept through t0-t1, woken by a timer (cost t1 - t0)");
	spinner_seen = true;
	lhp_scene(false, false);
	T = 5100000;
	wake_irq(4, 601, 6, 6, SL_IRQ_HARD);
	ok(lhp_finish(600, &p) && p->spinners == 2 && p->spin_cost_ns == 2 * 2000000,
	   "with 603 timer-woken while V was off-CPU and asleep again at once: two spinners, "
	   "each costing t1 - t0");
	spinner_seen = false;
	/* V off-CPU 0.5 ms */
	scene_t1 = 3500000;
	lhp_scene(false, false);
	scene_t1 = 5000000;
	T = 3600000;
	wake_irq(4, 601, 6, 6, SL_IRQ_HARD);
	ok(lhp_finish(600, &p) && p->spinners == 1 && p->spin_cost_ns == 500000,
	   "a timed wakeup after a 0.5 ms preemption: a spinner, cost t1 - t0");

	lhp_scene(false, false);
	T = 5100000;
	wake_irq(4, 601, 6, 6, SL_IRQ_SOFT);
	ok(lhp_finish(600, &p) && p->waiters == 0 && p->spinners == 0,
	   "a softirq's wakeup (network) makes neither a waiter nor a spinner");

	lhp_scene(false, false);
	T = 5100000;
	wake(4, 601, 6, 6);
	ok(lhp_finish(600, &p) && p->waiters == 1 && p->spinners == 0,
	   "the same wakeup from V's task context: a waiter");
	lhp_scene(false, false);
	T = 5100000;
	exit_of(4, 600);
	wake(4, 601, 6, 6);
	ok(lhp_finish(600, &p) && p->waiters == 0,
	   "... made by V after its sched_process_exit (a joiner woken): no waiter");

	/* a spinner's timed wakeup up to the spin horizon after t1 counts, not after (603
	 * was seen spinning while V was off-CPU) */
	spinner_seen = true;
	lhp_scene(false, false);
	T = 5000000 + 90000000;
	sw(7, 'S', 960);
	wake_irq(7, 601, 6, 6, SL_IRQ_HARD);
	ok(lhp_finish(600, &p) && p->spinners == 2, "a timed wakeup 90 ms after t1: a spinner");
	lhp_scene(false, false);
	T = 5000000 + 110000000;
	sw(7, 'S', 960);
	wake_irq(7, 601, 6, 6, SL_IRQ_HARD);
	ok(lhp_finish(600, &p) && p->spinners == 1, "110 ms after t1: past the spin horizon");
	spinner_seen = false;

	/* a timer woke 601 just before t0; it waits for a CPU until 4 ms, spins 10 us and
	 * sleeps again: a spinner all of V's time off-CPU (not when a task woke it) */
	for (int timer = 1; timer >= 0; timer--) {
		v_runs_w1_sleeps();
		T = 2500000;
		sw(1, 'S', 950);
		T = 2900000;
		wake_irq(timer ? 6 : 1, 601, 6, 6, timer ? SL_IRQ_HARD : 0);
		T = 3000000;
		sw(4, 'R', 951);
		T = 4000000;
		sw(6, 'S', 601);
		T = 4010000;
		sw(6, 'S', 0);
		T = 5000000;
		sw(4, 'S', 600);
		if (timer)
			ok(lhp_finish(600, &p) && p->spinners == 1 && p->spin_cost_ns == 2000000,
			   "timed wakeup before t0, waiting for a CPU past it: a spinner, cost t1 - t0");
		else
			ok(lhp_finish(600, &p) && p->spinners == 0,
			   "... woken by a task instead: no spinner");
	}

	/* progress: another member of the group ran 400 us of V's time off-CPU */
	lhp_scene(true, false);
	T = 5100000;
	wake_irq(4, 601, 6, 6, SL_IRQ_HARD);
	ok(lhp_finish(600, &p) && p->spinners == 0,
	   "a member that ran 400 us while V was off-CPU: no spinners");
	progress_untraced = true;
	lhp_scene(false, false);
	progress_untraced = false;
	T = 5100000;
	wake_irq(4, 601, 6, 6, SL_IRQ_HARD);
	ok(lhp_finish(600, &p) && p->spinners == 0,
	   "... seen running 400 us after its switch-in went untraced: no spinners");

	/* a member ran 400 us from before t0 and slept 50 us after it: it spun for the lock
	 * and backed off, no progress; slept 150 us after it: progress */
	for (int after_us = 50; after_us <= 150; after_us += 100) {
		v_runs_w1_sleeps();
		T = 2500000;
		sw(1, 'S', 950);
		T = 2600000;
		wake(1, 951, 4, 4);
		T = 3000000 + (uint64_t)after_us * 1000 - 400000;
		sw(9, 'S', 605);
		T = 3000000;
		sw(4, 'R', 951);
		T = 3000000 + (uint64_t)after_us * 1000;
		sw(9, 'S', 0);
		T = 5000000;
		sw(4, 'S', 600);
		T = 5100000;
		wake_irq(4, 601, 6, 6, SL_IRQ_HARD);
		if (after_us == 50)
			ok(lhp_finish(600, &p) && p->spinners == 1,
			   "a member's 400 us run that ends asleep 50 us after t0: no progress, a spinner");
		else
			ok(lhp_finish(600, &p) && p->spinners == 0,
			   "... asleep 150 us after t0: progress, no spinners");
	}

	/* handoff: V wakes 602 (its group), which preempts it 5 us later */
	handoff_scene(5000);
	ok(lhp_finish(600, &p) && p->waiters == 0,
	   "preempted by the task it woke 5 us before: a handoff, no waiters");
	/* the same, preempted by that task 300 us after the wakeup: not a handoff */
	handoff_scene(300000);
	ok(lhp_finish(600, &p) && p->waiters == 1 && p->lhp_cost_ns == 200000,
	   "preempted by it 300 us after: a waiter, cost t1 - t0");

	/* V runs again without a traced switch: t1 is its first event, the record goes on */
	v_runs_w1_sleeps();
	T = 2500000;
	sw(1, 'S', 950);
	T = 2600000;
	wake(1, 951, 4, 4);
	t0 = T = 3000000;
	sw(4, 'R', 951);
	cur[4] = 600; /* 951 -> 600 on cpu 4: not traced */
	T = 4000000;
	wake(4, 601, 6, 6);
	ok(lhp_finish(600, &p) && p->waiters == 1 && !p->censored && p->off_ns == 4000000 - t0 &&
		   p->lhp_cost_ns == 4000000 - t0,
	   "an untraced switch-in: t1 at V's first event, its waiter counted");

	/* a slow convoy: each handoff within the horizon of the one before, the last 9 ms
	 * after t1 */
	lhp_scene(false, true);
	T = 5000000 + 1000000;
	wake(4, 601, 6, 6); /* V -> 601 at t1 + 1 ms */
	T = 5000000 + 4000000;
	sw(6, 'S', 601);
	wake(6, 602, 8, 8); /* 601 -> 602 at t1 + 4 ms */
	T = 5000000 + 8000000;
	sw(8, 'S', 602);
	wake(8, 603, 9, 9); /* 602 -> 603 at t1 + 8 ms: 4 ms after 602 joined */
	ok(lhp_finish(600, &p) && p->waiters == 3 && p->lhp_cost_ns == 3 * 2000000,
	   "a convoy passing the lock on within 5 ms a hop counts all three");
}

/* the task running on cpu calls futex(2) on uaddr with op (0x80: a private FUTEX_WAIT) */
static void futex(int cpu, uint64_t uaddr, uint32_t op)
{
	struct sl_event ev = { .type = SL_EV_FUTEX, .cpu = cpu, .common_pid = cur[cpu] };

	ev.futex.uaddr = uaddr;
	ev.futex.op = op;
	feed(&ev);
}

#define LOCK 0x5000ull /* a mutex's futex word */
#define FUTEX_WAIT_PRIVATE 0x80u

/* the task on cpu waits on uaddr at T - 1 us and sleeps at T */
static void futex_sleep(int cpu, uint64_t uaddr)
{
	T -= 1000;
	futex(cpu, uaddr, FUTEX_WAIT_PRIVATE);
	T += 1000;
	sw(cpu, 'S', 0);
}

/*
 * V (postgres 600, cpu 4) preempted at t0 = 3 ms by bash 950, back at t1 = 5 ms; postgres
 * 601 asleep on LOCK since 2 ms (cpu 6), 602 asleep on lock2 since 2.2 ms (cpu 8). If
 * release_before, V woke 602 5 us before its preemption.
 */
static void futex_scene(uint64_t lock2, bool release_before)
{
	start(westmere, true);
	T += 1000;
	sw(4, 'S', 600);
	T += 1000;
	sw(6, 'S', 601);
	T = 2000000;
	futex_sleep(6, LOCK);
	T = 2100000;
	sw(8, 'S', 602);
	T = 2200000;
	futex_sleep(8, lock2);
	T = 2500000;
	sw(1, 'S', 950);
	if (release_before) {
		T = 2995000;
		wake(4, 602, 8, 8);
	}
	T = 3000000;
	sw(4, 'R', 950);
	sw(1, 'S', 0);
}

/* 602, woken at 3.4 ms while V is off-CPU, runs from 3.5 ms for run_ns and sleeps on uaddr */
static void run_602(uint64_t run_ns, uint64_t uaddr)
{
	T = 3400000;
	wake(9, 602, 8, 8);
	T = 3500000;
	sw(8, 'S', 602);
	T = 3500000 + run_ns;
	futex_sleep(8, uaddr);
}

/* V runs again at t1 = 5 ms and wakes 601 100 us later */
static void v_wakes_601(void)
{
	T = 5000000;
	sw(4, 'S', 600);
	T = 5100000;
	wake(4, 601, 6, 6);
}

/* Which futex a sleeper waits on (syscalls/sys_enter_futex), engine-preempt.c. */
static void test_lhp_futex(void)
{
	const struct sl_preempt_rec *p;

	/* 602, asleep on V's lock, is woken while V is off-CPU and runs 300 us: it got the
	 * lock, so V did not hold it and 601 waited on someone else */
	futex_scene(LOCK, false);
	run_602(300000, 0x9000);
	v_wakes_601();
	ok(lhp_finish(600, &p) && p->waiters == 0,
	   "a sleeper of the lock got through while V was off-CPU: V's wakee is no waiter");
	/* the same, but 602 sleeps again 10 us after it ran: the lock was still taken */
	futex_scene(LOCK, false);
	run_602(10000, LOCK);
	v_wakes_601();
	ok(lhp_finish(600, &p) && p->waiters == 1 && p->lhp_cost_ns == 2000000,
	   "... back to sleep on it after 10 us (a stolen signal): 601 waited, cost t1 - t0");
	/* another lock's sleeper got through: 601 still waited on V */
	futex_scene(0x9000, false);
	run_602(300000, 0x9000);
	v_wakes_601();
	ok(lhp_finish(600, &p) && p->waiters == 1, "another lock changing hands is no sign");

	/* every sleeper of the lock V held waited on it, whoever wakes it: 603 (woken from
	 * cpu 9, not by V's convoy) takes the lock and wakes 602 3 ms after t1 */
	for (int same = 1; same >= 0; same--) {
		futex_scene(same ? LOCK : 0x9000, false);
		v_wakes_601();
		T = 8000000;
		sw(9, 'S', 603);
		T = 8100000;
		wake(9, 602, 8, 8);
		if (same)
			ok(lhp_finish(600, &p) && p->waiters == 2 && p->lhp_cost_ns == 2 * 2000000,
			   "a sleeper of V's lock woken by a task outside the convoy counts too");
		else
			ok(lhp_finish(600, &p) && p->waiters == 1,
			   "... a sleeper of another lock does not");
	}

	/* V woke a sleeper of its lock 5 us before its preemption: it had released it */
	futex_scene(LOCK, true);
	v_wakes_601();
	ok(lhp_finish(600, &p) && p->waiters == 0,
	   "V woke a sleeper of the lock just before t0: released, no waiters");
	/* a condition variable sleeps on two words 4 bytes apart: one lock */
	futex_scene(LOCK + 4, true);
	v_wakes_601();
	ok(lhp_finish(600, &p) && p->waiters == 0, "... a word 4 bytes on is the same lock");
	futex_scene(LOCK + 8, true);
	v_wakes_601();
	ok(lhp_finish(600, &p) && p->waiters == 1 && p->lhp_cost_ns == 2000000,
	   "... 8 bytes on another: 601 waited on V");
}

static void test_censoring(void)
{
	const struct sl_preempt_rec *p;
	struct sl_engine_stats st;

	start(westmere, true);
	T += 1000;
	sw(3, 'S', 800);
	T += 1000;
	sw(3, 'R', 801); /* 800 never runs again */
	T += 1000;
	wake(3, 802, 9, 9); /* 802 never runs */
	sl_engine_finish(E, T + 5000);
	p = find_preempt(800);
	ok(p && p->censored, "victim that never resumed: censored at run end");
	ok(p && p->off_ns == SL_REC_NO_TIME, "its off-CPU time is unknown");
	ok(nr_wakeups && last_wakeup()->pid == 802 && last_wakeup()->latency_ns == SL_REC_NO_TIME,
	   "wakee that never ran: latency unknown");
	sl_engine_get_stats(E, &st);
	is_int(st.wakeups_censored, 1, "one censored wakeup counted");
	ok(nr_slices > 0 && slices[nr_slices - 1].end_state == 0,
	   "slices still running at the end are cut with no end state");
}

/*
 * The pool of open preemption records grows past its first 1024 up to the cap, drops and
 * counts what is beyond it, and reuses the records of finished preemptions.
 */
static void test_preempt_pool(void)
{
	struct sl_engine_stats st;
	int first;

	start_capped(westmere, true, 2500);
	/* 2999 preemptions on CPU 0 within 30 ms: all open until their window is swept */
	for (int i = 0; i < 3000; i++) {
		T += 10000;
		sw(0, 'R', 1000 + i);
	}
	sl_engine_get_stats(E, &st);
	is_int(st.open_preempts_peak, 2500, "open records: up to the cap of 2500");
	is_int(st.preempts_dropped, 499, "the 499 beyond it dropped and counted");
	is_int(st.spin_list_full, 2500 - 256,
	       "of those open, 256 watched for spinners, the rest counted");
	/* seconds later, when those are finished and released: 100 more, none dropped */
	T += 10 * 1000000000ull;
	sw(0, 'S', 0);
	first = nr_preempts;
	for (int i = 0; i < 101; i++) {
		T += 10000;
		sw(0, 'R', 5000 + i);
	}
	sl_engine_finish(E, T + 1000);
	sl_engine_get_stats(E, &st);
	is_int(first, 2500, "the first 2500 were emitted by their windows' sweep");
	is_int(nr_preempts - first, 100, "100 later ones, in records used before");
	is_int(st.preempts_dropped, 499, "none of them dropped");
	is_int(st.open_preempts_peak, 2500, "peak unchanged");
	is_int(st.spin_list_full, 2500 - 256,
	       "the released left the spinner list: all 100 watched");
	/* records are indexed by int32_t: a larger cap is refused, not truncated */
	{
		struct sl_engine_config cfg;
		struct sl_engine *e = NULL;

		sl_engine_config_default(&cfg);
		cfg.max_open_preempts = (size_t)INT32_MAX + 1;
		is_int(sl_engine_new(&cfg, NULL, &e), -EINVAL, "a cap beyond INT32_MAX is refused");
		sl_engine_free(e);
	}
}

static void test_gap(void)
{
	int before;
	struct sl_engine_stats st;

	start(westmere, true);
	T += 1000;
	sw(1, 'S', 200);
	T += 1000;
	wake(1, 110, 9, 9); /* pending on cpu9 when the gap comes */
	T += 1000;
	lost(9, 123);
	before = nr_wakeups;
	T += 1000;
	wake(1, 111, 9, 9);
	T += 1000;
	sw(9, 'S', 111);
	is_int(nr_wakeups, before + 1, "the record pending across the gap is dropped");
	is_int(last_wakeup()->pid, 111, "the new wakeup is recorded");
	is_int(last_wakeup()->target_state, SL_TS_UNKNOWN, "after a gap the CPU is unknown");
	T += 1000;
	sw(9, 'S', 0);
	T += 1000;
	wake(1, 112, 9, 9);
	T += 1000;
	sw(9, 'S', 112);
	is_int(last_wakeup()->target_state, SL_TS_IDLE, "known again after its next switch");
	sl_engine_get_stats(E, &st);
	is_int(st.lost_events, 123, "lost events counted");
	is_int(st.gaps, 1, "one gap");
}

/* Some kernels do not trace a switch away from idle; common_pid reveals it. */
static void test_untraced_switch(void)
{
	struct sl_engine_stats st;
	int before;

	start(westmere, true);
	T += 1000;
	sw(1, 'S', 200);
	T += 1000;
	wake(1, 130, 11, 11);
	before = nr_wakeups;
	cur[11] = 130; /* 130 switches in on cpu11: untraced */
	T += 5000;
	wake(11, 131, 11, 11); /* 130 runs there and wakes 131 onto its own CPU */
	is_int(nr_wakeups, before + 1, "the first event 130 makes on cpu11 closes its wakeup");
	is_int(wakeups[before].pid, 130, "record of 130");
	is_int(wakeups[before].run_cpu, 11, "it ran on cpu11");
	ok(wakeups[before].latency_ns == SL_REC_NO_TIME, "latency unknown");
	T += 1000;
	sw(11, 'S', 131);
	is_int(last_wakeup()->target_state, SL_TS_BUSY, "cpu11 was busy running 130, not idle");
	sl_engine_get_stats(E, &st);
	is_int(st.switch_mismatch, 1, "one untraced switch detected");
	is_int(st.wakeups_unseen_run, 1, "one wakeup closed by it");
}

/* Tasks that exit are freed: a long run of short-lived tasks keeps the table small. */
static void test_task_churn(void)
{
	struct sl_engine_stats st;
	struct sl_event ev = { .type = SL_EV_FORK, .cpu = 2 };

	start(westmere, true);
	T += 1000;
	sw(2, 'S', 200);
	for (int i = 0; i < 100000; i++) {
		int pid = 10000 + i;

		T += 20000; /* 2 s of stream in all: two window sweeps free the dead */
		ev.type = SL_EV_FORK;
		ev.common_pid = 200;
		ev.fork.parent_pid = 200;
		ev.fork.child_pid = pid;
		snprintf(ev.fork.child_comm, SL_COMM_LEN, "sh");
		feed(&ev);
		cur[3] = 0;
		sw(3, 'S', pid);
		sw(3, 'X', 0); /* it ran and died */
	}
	sl_engine_get_stats(E, &st);
	ok(st.tasks < 60000, "100000 short-lived tasks: %zu left in the table", st.tasks);
	diag("task table peak %zu", st.tasks_peak);
}

static void test_windows(void)
{
	uint64_t t0 = 1000000; /* the stream's first event */
	int all = -1, pg = -1;

	start(westmere, true);
	T += 1000;
	sw(1, 'S', 200);
	for (int i = 0; i < 10; i++) {
		T += 1000;
		wake(1, 120 + i, 20 + i, 20 + i);
		T += 3000;
		sw(20 + i, 'S', 120 + i);
	}
	T += 1000;
	wake(1, 910, 30, 30); /* a bash wakeup */
	T += 1000;
	sw(30, 'S', 910);
	sl_engine_finish(E, t0 + 1500000000ull);
	for (int i = 0; i < nr_windows; i++) {
		if (windows[i].start_ns != windows[0].start_ns)
			continue;
		if (!strcmp(windows[i].grp, "*"))
			all = i;
		if (!strcmp(windows[i].grp, "postgres"))
			pg = i;
	}
	ok(all >= 0 && pg >= 0, "first window has '*' and 'postgres' rows");
	if (all < 0 || pg < 0)
		return;
	is_int(windows[all].wakeups, 11, "'*': 11 wakeups");
	is_int(windows[pg].wakeups, 10, "postgres: 10 wakeups");
	is_int(windows[pg].latency.total, 10, "postgres: 10 latencies in the histogram");
	is_int(windows[pg].class_prev[SL_REL_SAME], 10, "postgres: all woken on their prev CPU");
	is_int(windows[pg].target_state[SL_TS_IDLE], 10, "postgres: all targets idle");
	is_int(windows[all].dur_ns, 1000000000, "first window lasts 1 s");
	int nr_all = 0, last_all = -1;

	for (int i = 0; i < nr_windows; i++)
		if (!strcmp(windows[i].grp, "*")) {
			nr_all++;
			last_all = i;
		}
	is_int(nr_all, 2, "the stream's 1.5 s give two windows of all tasks");
	is_int(last_all >= 0 ? windows[last_all].start_ns - windows[all].start_ns : 0, 1000000000,
	       "the second starts 1 s after the first");
	is_int(last_all >= 0 ? windows[last_all].dur_ns : 0, 500000000,
	       "the last window ends with the stream (0.5 s)");
}

static void test_policy(void)
{
	struct sl_policy_topo p;
	uint8_t known, agree;

	sl_policy_topo_init(&p, westmere);
	is_int(p.mc_buddy[0], 1, "buddy: cpu0 -> cpu1 (cross-wired pair)");
	is_int(p.mc_buddy[1], 0, "buddy: cpu1 -> cpu0");
	is_int(p.mc_buddy[8], 9, "buddy: cpu8 -> cpu9");
	is_int(p.mc_buddy[9], 8, "buddy: cpu9 -> cpu8");
	is_int(p.mc_buddy[40], 1, "buddy: cpu40 shares its core's LLC buddy cpu1");
	is_int(p.smt_buddy[0], 40, "SMT buddy of cpu0 is cpu40");
	is_int(p.smt_buddy[40], 0, "SMT buddy of cpu40 is cpu0");
	is_int(p.mc_buddy[13], 12, "buddy: cpu13 (4th core of socket 1) -> cpu12");

	for (int c = 0; c < 80; c++)
		sl_policy_set(&p, c, true, true);
	sl_policy_set(&p, 0, true, false); /* prev busy */
	sl_policy_set(&p, 1, true, false); /* waker busy; buddy of cpu0 busy */
	sl_policy_fingerprint(&p, 40, 0, 1, &known, &agree);
	is_int(known, 0x1f, "all policies evaluable");
	ok(agree & (1 << SL_POL_BUDDY), "target 40 (cpu0's SMT buddy): buddy agrees");
	ok(agree & (1 << SL_POL_SMT_FIRST), "target 40: smt-first agrees");
	ok(!(agree & (1 << SL_POL_LLC_SCAN)), "target 40: llc-scan would take an idle core");
	ok(!(agree & (1 << SL_POL_AFFINE)), "target 40: not affine");
	sl_policy_fingerprint(&p, 2, 0, 1, &known, &agree);
	ok(agree & (1 << SL_POL_LLC_SCAN), "target 2 (idle core): llc-scan agrees");
	ok(!(agree & (1 << SL_POL_BUDDY)), "target 2: buddy disagrees");
	sl_policy_fingerprint(&p, 1, 0, 1, &known, &agree);
	is_int(agree, 1 << SL_POL_AFFINE, "busy waker CPU chosen: only affine agrees");
	sl_policy_topo_free(&p);
}

/* A far-future timestamp (a corrupt trace, a clock jump) must not make the engine walk
 * through every empty window in between: it skips the silence and stays on the grid. */
static void test_long_silence(void)
{
	uint64_t t0 = 1000000, gap = 100000000000000000ull; /* about 3 years */
	struct sl_engine_stats st;
	int last = -1;

	start(westmere, true);
	T += 1000;
	wake(1, 120, 20, 20);
	T += 1000;
	sw(20, 'S', 120);
	alarm(20); /* the old loop took hours here: fail, do not hang */
	T += gap;
	sw(20, 'S', 0);
	sl_engine_finish(E, T + 1000);
	alarm(0);
	for (int i = 0; i < nr_windows; i++)
		if (!strcmp(windows[i].grp, "*"))
			last = i;
	sl_engine_get_stats(E, &st);
	ok(nr_windows >= 2 && nr_windows < 10000, "a 3-year silence gives %d windows, not 10^8",
	   nr_windows);
	ok(st.windows_skipped > 99000000, "the skipped empty windows are counted (%llu)",
	   (unsigned long long)st.windows_skipped);
	ok(last >= 0 && (windows[last].start_ns - t0) % 1000000000ull == 0 &&
		   windows[last].start_ns > t0 + gap - 1000000000ull,
	   "the window after the silence is on the 1 s grid and holds the late event");
	is_int(windows[0].wakeups, 1, "the window before the silence kept its wakeup");
}

int main(void)
{
	westmere = fixture_topo("westmere");
	epyc = fixture_topo("epyc");
	test_classes();
	test_target_states();
	test_preemptions();
	test_lhp();
	test_lhp_context();
	test_lhp_futex();
	test_censoring();
	test_preempt_pool();
	test_gap();
	test_untraced_switch();
	test_task_churn();
	test_windows();
	test_policy();
	test_long_silence();
	sl_engine_free(E);
	sl_topo_free(westmere);
	sl_topo_free(epyc);
	return done_testing();
}
