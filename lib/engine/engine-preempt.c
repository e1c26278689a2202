// SPDX-License-Identifier: GPL-2.0-only
/*
 * Preemptions and lock-holder preemption (docs/metrics.md, "Preemptions").
 *
 * A preemption is a sched_switch whose prev was still runnable and whose next is a task.
 * Its record opens at t0 and waits for the victim V's next switch-in t1; then, for the
 * LHP horizon after t1, every wakeup made by V of a same-group task W that has been
 * asleep since before t1 makes W a waiter, costing t1 - max(tw, t0): W waited on
 * something V released only once it ran again. Two refinements, measured against the
 * synthesizer's truth (tests/unit/t-engine-synth.c: precision 0.25 -> 1.0, cost from 40%
 * to ~95% of the truth):
 *  - lock convoys: a waiter that V woke carries the record on, and the same-group
 *    sleepers it wakes within the horizon count too (LWLocks and mutexes hand over to one
 *    waiter at a time, so V itself wakes only the head of the queue);
 *  - hubs: the tasks that wake the most distinct tasks of their group in a window and
 *    give it twice the wakeups they take from it (the article's dispatcher, not a lock
 *    holder of a symmetric lock). A hub's preemption delays the work it hands out, so it is
 *    counted as a hub preemption with the wakeups it made in the horizon, not as LHP; and
 *    a hub asleep waits for work, not for a lock, so it is no waiter. Records are judged
 *    at the window sweep, once the window's hubs are known.
 *
 * Spinning waiters (a spinlock's timed back-off, like PostgreSQL's s_lock) are counted
 * apart: group members that slept while the victim was off-CPU and were woken by no
 * member of the group (see add_spinner()).
 *
 * Open records live in a pool indexed by int (indices survive its growth); the victim's task
 * entry points at them. The pool is capped; records are closed at the latest close_lag
 * after t0, censored if they could not finish.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine-local.h"

/*
 * The pool is an anonymous mapping that mremap() grows: the kernel moves its pages to the
 * larger range, copying nothing and faulting in only the new records' pages as they are
 * first used. A pool that was reallocated copied every record into fresh pages at each
 * doubling; those copies and faults were 55% of the page faults of a 510 k-event trace.dat
 * import. (A reservation of the cap's whole 384 MB of address space, grown by mprotect(),
 * did as well but failed under `ulimit -v 400000`; that import fits in `ulimit -v 60000`.)
 */
static size_t pool_bytes(int32_t records)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return ((size_t)records * sizeof(struct open_preempt) + page - 1) / page * page;
}

/*
 * The last freed engine's pool, kept for the next one (the daemon's next period, the next
 * import in one process): its pages are faulted in already, as a reallocated pool's were
 * in malloc's heap; a new mapping faulted them in again, about 800 pages for a 510 k-event
 * import. Records are cleared as they are taken, so what it held does not matter. A pool
 * larger than SPARE_MAX records (24 MB) is unmapped: a burst's memory is given back.
 */
#define SPARE_MAX 65536
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct open_preempt *spare_pool;
static int32_t spare_cap;

int preempt_init(struct sl_engine *e)
{
	int32_t cap = (int32_t)(e->cfg.max_open_preempts < 1024 ? e->cfg.max_open_preempts : 1024);
	void *p = NULL;

	pthread_mutex_lock(&spare_lock);
	if (spare_pool && (size_t)spare_cap <= e->cfg.max_open_preempts && spare_cap >= cap) {
		p = spare_pool;
		cap = spare_cap;
		spare_pool = NULL;
	}
	pthread_mutex_unlock(&spare_lock);
	if (!p)
		p = mmap(NULL, pool_bytes(cap), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* page-aligned, so cache-line aligned too (records are 6 lines) */
	e->preempts = p;
	e->preempt_cap = cap;
	e->preempt_free = -1;
	e->preempt_hwm = 0;
	e->off_rec_prune_ns = UINT64_MAX;
	return 0;
}

void preempt_free(struct sl_engine *e)
{
	struct open_preempt *p = e->preempts;

	e->preempts = NULL;
	if (!p)
		return;
	pthread_mutex_lock(&spare_lock);
	if (!spare_pool && e->preempt_cap <= SPARE_MAX) {
		spare_pool = p;
		spare_cap = e->preempt_cap;
		p = NULL;
	}
	pthread_mutex_unlock(&spare_lock);
	if (p)
		munmap(p, pool_bytes(e->preempt_cap));
}

/* Grows the pool to cap records, moving its pages (indices stay valid, pointers do not). */
static int pool_grow(struct sl_engine *e, int32_t cap)
{
	void *p = mremap(e->preempts, pool_bytes(e->preempt_cap), pool_bytes(cap), MREMAP_MAYMOVE);

	if (p == MAP_FAILED)
		return -errno;
	e->preempts = p;
	e->preempt_cap = cap;
	return 0;
}

/*
 * A record from the free list, else the first never used, else from a grown pool. The
 * caller clears it: a pool cleared (or threaded into a free list) ahead of use faulted in
 * every page of its capacity.
 */
static int32_t alloc_record(struct sl_engine *e)
{
	int32_t idx;

	if (e->preempt_free >= 0) {
		idx = e->preempt_free;
		e->preempt_free = e->preempts[idx].next_free;
	} else {
		if (e->preempt_hwm == e->preempt_cap) {
			int64_t ncap = (int64_t)e->preempt_cap * 2;

			if ((size_t)e->preempt_cap >= e->cfg.max_open_preempts)
				return -1;
			if ((size_t)ncap > e->cfg.max_open_preempts)
				ncap = (int64_t)e->cfg.max_open_preempts;
			if (pool_grow(e, (int32_t)ncap))
				return -1;
		}
		idx = e->preempt_hwm++;
	}
	e->preempt_used++;
	if ((size_t)e->preempt_used > e->stats.open_preempts_peak)
		e->stats.open_preempts_peak = e->preempt_used;
	return idx;
}

static void off_rec_remove(struct sl_engine *e, int32_t idx)
{
	for (int i = 0; i < e->nr_off_rec; i++)
		if (e->off_rec[i] == idx) {
			e->off_rec[i] = e->off_rec[--e->nr_off_rec];
			return;
		}
}

/* Drops from the spinner list the records whose spin horizon has passed at now. */
static void off_rec_prune(struct sl_engine *e, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	/* under pgbench -S the list is full of records within the horizon, and this walk at
	 * every preemption was 6% of a recording's CPU */
	if (now <= e->off_rec_prune_ns)
		return;
	for (int i = 0; i < e->nr_off_rec;) {
		const struct open_preempt *o = &e->preempts[e->off_rec[i]];

		if (o->resumed && now > o->t1 + e->cfg.spin_horizon_ns) {
			e->off_rec[i] = e->off_rec[--e->nr_off_rec];
			continue;
		}
		if (o->resumed && o->t1 + e->cfg.spin_horizon_ns < next)
			next = o->t1 + e->cfg.spin_horizon_ns;
		i++;
	}
	e->off_rec_prune_ns = next;
}

static void release_record(struct sl_engine *e, int32_t idx)
{
	struct open_preempt *o = &e->preempts[idx];
	struct sl_task *v = sl_tasktab_find(&e->tasks, o->rec.victim_pid);

	if (v) {
		if (v->off_preempt == idx)
			v->off_preempt = -1;
		for (int i = 0; i < SL_TASK_RESUMED; i++)
			if (v->resumed[i] == idx)
				v->resumed[i] = -1;
	}
	off_rec_remove(e, idx);
	o->in_use = false;
	o->next_free = e->preempt_free;
	e->preempt_free = idx;
	e->preempt_used--;
}

static void count(struct sl_window_rec *w, const struct sl_preempt_rec *r)
{
	if (r->cause == SL_PC_WAKEUP)
		w->preempt_wakeup++;
	else
		w->preempt_tick++;
	w->preempt_same_group += r->same_group;
	w->lhp_count += r->waiters > 0;
	w->lhp_cost_ns += r->lhp_cost_ns;
	w->hub_preemptions += r->hub;
	w->spin_count += r->spinners > 0;
	w->spin_cost_ns += r->spin_cost_ns;
}

static bool is_hub(const struct sl_engine *e, int32_t pid)
{
	const struct sl_task *t = sl_tasktab_find(&e->tasks, pid);

	return t && t->hub;
}

/*
 * Decides the LHP verdict once the hubs of the window are known. A hub's preemption
 * delays the work it hands out, not a lock it holds: it is a hub preemption, with the
 * wakeups it made in the horizon as the delayed ones. A hub asleep waits for work, not
 * for a lock, so it is no waiter. (Both refine the plain rule in docs/metrics.md: without them the
 * synthesizer's dispatcher made most LHP verdicts false.)
 */
static void judge_waiters(struct sl_engine *e, struct open_preempt *o)
{
	o->rec.waiters = 0;
	o->rec.lhp_cost_ns = 0;
	o->rec.hub = is_hub(e, o->rec.victim_pid);
	if (o->rec.hub) {
		o->rec.delayed_wakeups = o->wakes;
		return;
	}
	for (int i = 0; i < o->nr_cand && !o->handoff; i++) {
		if (is_hub(e, o->cand_pid[i]))
			continue;
		o->rec.waiters++;
		o->rec.lhp_cost_ns += o->cand_cost_ns[i];
	}
	if (!o->handoff) {
		o->rec.waiters += o->extra_waiters;
		o->rec.lhp_cost_ns += o->extra_cost_ns;
	}
	o->rec.spinners = 0;
	o->rec.spin_cost_ns = 0;
	/*
	 * Spinners that all slept through a long preemption (none woken while the victim was
	 * off-CPU) count too. Dropping them after preemptions longer than s_lock's shortest
	 * back-off (1 ms) was tried, with SPIN_RUN_NS at 100 us: on 35 recordings of the
	 * spinlock of tests/integration/50-lhp-truth.t the run's cost went from 0.726-1.154 of
	 * the truth's waiting to 0.679-0.985, two runs below 0.8 instead of one. Such a record
	 * is a 20 ms true LHP as often as a false one (a victim preempted in its gap while
	 * every other thread slept a long back-off).
	 */
	for (int i = 0; i < o->nr_spin && o->resumed && !o->spin_progress; i++) {
		if (is_hub(e, o->spin_pid[i]))
			continue;
		o->rec.spinners++;
		o->rec.spin_cost_ns += o->t1 - o->spin_from_ns[i];
	}
}

/* Emits the record and frees its slot. censored: it could not run to completion. */
static void finish_record(struct sl_engine *e, int32_t idx, bool censored)
{
	struct open_preempt *o = &e->preempts[idx];

	judge_waiters(e, o);
	o->rec.censored = censored;
	if (!o->resumed)
		o->rec.off_ns = SL_REC_NO_TIME;
	e->stats.preemptions++;
	e->stats.lhp += o->rec.waiters > 0;
	count(window_for(e, o->rec.ts_ns, 0), &o->rec);
	if (o->group)
		count(window_for(e, o->rec.ts_ns, o->group), &o->rec);
	if (e->sink.preempt)
		e->sink.preempt(e->sink.ctx, &o->rec);
	release_record(e, idx);
}

/* Drops from t's resumed list the records whose horizon has passed at now. */
static void forget_stale_resumed(struct sl_engine *e, struct sl_task *t, uint64_t now)
{
	int n = 0;

	for (int i = 0; i < SL_TASK_RESUMED; i++) {
		int32_t idx = t->resumed[i];

		if (idx >= 0 && now <= e->preempts[idx].t1 + e->cfg.lhp_horizon_ns)
			t->resumed[n++] = idx;
	}
	while (n < SL_TASK_RESUMED)
		t->resumed[n++] = -1;
}

/* --- which futex a sleeper waits for ---------------------------------------------------- */

/*
 * futex(2) commands (op & FUTEX_CMD_MASK) that sleep on uaddr until woken: how glibc's
 * mutex, rwlock, condition variable and semaphores (PostgreSQL's on Linux) sleep.
 */
#define FUTEX_CMD(op) ((op)&127u)

static bool futex_op_waits(uint32_t op)
{
	uint32_t cmd = FUTEX_CMD(op);

	/* WAIT, LOCK_PI, WAIT_BITSET, WAIT_REQUEUE_PI, LOCK_PI2 */
	return cmd == 0 || cmd == 6 || cmd == 9 || cmd == 11 || cmd == 13;
}

/*
 * A task enters the kernel's futex wait and sleeps this soon after, or the sleep is not
 * that wait's (a wait that found the value changed returns at once, and the task may sleep
 * on something else later). Entry to schedule() takes microseconds; a preemption in
 * between (the task is then runnable, not asleep) keeps the address until it sleeps.
 */
#define FUTEX_SLEEP_NS 1000000ull

/* t switches out asleep at ts: on the futex of its last wait, if that was just before. */
void preempt_on_sleep(struct sl_task *t, uint64_t ts)
{
	t->sleep_uaddr = t->futex_wait_uaddr && ts - t->futex_wait_ns <= FUTEX_SLEEP_NS ?
				 t->futex_wait_uaddr :
				 0;
	t->futex_wait_uaddr = 0;
	t->futex_fresh = t->sleep_uaddr != 0;
}

/*
 * Two futex words of one aligned 8 bytes belong to one lock object: glibc's condition
 * variable sleeps on two words 4 bytes apart (its two groups' __g_signals), its rwlock on
 * two (__wrphase_futex, __writers_futex). Its condition variable's internal lock lies 8
 * bytes before them, two mutexes at least 40 bytes apart, two semaphores 32 (a sem_t).
 * (Told apart, they left sl-lockload's condition variable 43 false LHPs in a loaded run,
 * against 8: a signal to one group, the next waiter asleep in the other; a span of 16
 * bytes took in its internal lock, and its recall fell to 0.68 in another.)
 */
static bool same_lock(uint64_t a, uint64_t b)
{
	return a && b && a >> 3 == b >> 3;
}

/* Whether the lock of futex uaddr changed hands while the victim of o was off-CPU. */
static bool futex_moved(const struct open_preempt *o, uint64_t uaddr)
{
	for (int i = 0; uaddr && i < o->nr_moved; i++)
		if (same_lock(o->moved_uaddr[i], uaddr))
			return true;
	return false;
}

/*
 * A task woken from a futex that runs this long got through: it took the lock (or what it
 * waited for). One that sleeps again sooner found it still taken: glibc's condition
 * variable wakes its waiters with signals sent after the flag's release, so a signal can
 * land while the next holder is off-CPU and its waiter sleeps again at once. (Counting
 * every wake of a futex by another task as a release of that lock took the LHP recall of
 * sl-lockload's condition variable from 0.94 to 0.77 on a loaded host; with 20 us here, an
 * rwlock waiter that took 30 us to find the lock taken and sleep again on a loaded host
 * cost a run 9% of its recall.)
 */
#define FUTEX_THROUGH_NS 100000ull

/*
 * A futex(2) call (syscalls/sys_enter_futex, when recorded): a wait remembers the address
 * the task is about to sleep on.
 */
void preempt_on_futex(struct sl_engine *e, const struct sl_event *ev)
{
	struct sl_task *t;

	if (!ev->futex.uaddr || !futex_op_waits(ev->futex.op))
		return;
	t = engine_task(e, ev->common_pid, NULL, ev->ts_ns);
	if (t) {
		t->futex_wait_uaddr = ev->futex.uaddr;
		t->futex_wait_ns = ev->ts_ns;
	}
}

/*
 * t, woken from its futex, ends its first run since (run_from to now). If it got through
 * while a victim of its group was off-CPU, that lock changed hands then: the victim did not
 * hold it, and its sleepers, when the victim later wakes them, waited on another task's
 * hold (sl-lockload's mutex: victims preempted between two holds made most of the false
 * LHPs' cost, each its whole time off-CPU). An address per lock keeps the other locks'
 * handoffs out of it (a rule that cleared the waiters on any handoff of the group cut the
 * condition variable's recall to 0.86-0.92).
 */
static void futex_run_ended(struct sl_engine *e, const struct sl_task *t, uint64_t run_from,
			    uint64_t now)
{
	if (now - run_from <= FUTEX_THROUGH_NS)
		return;
	for (int i = 0; i < e->nr_off_rec; i++) {
		struct open_preempt *o = &e->preempts[e->off_rec[i]];
		uint64_t to = o->resumed ? o->t1 : now;

		if (o->group != t->group || o->rec.victim_pid == t->pid ||
		    run_from < o->rec.ts_ns || run_from + FUTEX_THROUGH_NS >= to ||
		    futex_moved(o, t->sleep_uaddr) || o->nr_moved == MAX_MOVED_FUTEXES)
			continue;
		o->moved_uaddr[o->nr_moved++] = t->sleep_uaddr;
	}
}

/*
 * A back-off spin is short: a task of the group that runs longer than this without a
 * switch got the lock it spun for, or spun for none (tests/helpers/sl-lockload's s_lock
 * spins 100 times, a few us, before it sleeps again; on this VM the hypervisor stretched
 * one such spin to 246 us, hiding a 15 ms LHP. From 100 to 300 us here, the run's cost
 * over the truth's waiting rose in every one of 35 recordings of
 * tests/integration/50-lhp-truth.t's spinlock, by 0.06 on average: 0.73-1.15 -> 0.90-1.19).
 * Which task it is cannot be told:
 * the timer that ends a back-off sleep wakes it from the hard interrupt, whose sched_waking
 * names whatever task was running, often one of the group.
 */
#define SPIN_RUN_NS 300000ull

/*
 * A long run that ends in a sleep this soon after a victim went off-CPU did not get
 * through the victim's lock: it spun for it and backed off (a member that had taken and
 * released the lock before t0, then wanted it again). Counted as progress, such runs hid
 * true LHPs of 20 ms in 2 of 16 recordings of tests/integration/50-lhp-truth.t's spinlock
 * (the run's cost 0.837 and 0.838 of the truth's waiting; 0.981 and 0.987 without; recall
 * 0.970-0.992 -> 0.992-1.000, precision unchanged). 300 us instead of 100 did the same there
 * but on t-engine-synth's mixed load cut the spinning-waiter precision from 0.276 to 0.230
 * (0.272 at 100 us, recall 0.149 -> 0.204): a backend that released the lock just before
 * it slept had made progress.
 */
#define SPIN_SLEEP_NS 100000ull

/*
 * prev switches out after running since run_from: a run longer than a spin that overlaps
 * a victim's time off-CPU is progress, however little of it overlaps, unless it ends in
 * a sleep within SPIN_SLEEP_NS of the victim's t0. Counting only runs that overlapped it
 * by more than a spin, 6-8% of sl-lockload's spinlock LHPs were false: a spinner's timer
 * preempted a thread for a few us while the holder ran on elsewhere.
 */
static void spin_run_ended(struct sl_engine *e, const struct sl_task *prev, uint64_t run_from,
			   uint64_t now, bool slept)
{
	if (now - run_from <= SPIN_RUN_NS)
		return;
	for (int i = 0; i < e->nr_off_rec; i++) {
		struct open_preempt *o = &e->preempts[e->off_rec[i]];
		uint64_t from = run_from > o->rec.ts_ns ? run_from : o->rec.ts_ns;
		uint64_t to = o->resumed && o->t1 < now ? o->t1 : now;

		if (o->group == prev->group && o->rec.victim_pid != prev->pid && to > from &&
		    !(slept && now - o->rec.ts_ns <= SPIN_SLEEP_NS))
			o->spin_progress = true;
	}
}

/* The victim t of an earlier preemption runs again at t1. */
static void resume(struct sl_engine *e, struct sl_task *t, uint64_t t1)
{
	struct open_preempt *o = &e->preempts[t->off_preempt];

	o->resumed = true;
	o->t1 = t1;
	if (t1 + e->cfg.spin_horizon_ns < e->off_rec_prune_ns)
		e->off_rec_prune_ns = t1 + e->cfg.spin_horizon_ns;
	o->rec.off_ns = t1 - o->rec.ts_ns;
	/* it collects waiters until the horizon passes; records stay in the pool until the
	 * window sweep finishes them, when the window's hubs are known, so a full list only
	 * stops the oldest from collecting */
	forget_stale_resumed(e, t, t1);
	memmove(&t->resumed[1], &t->resumed[0], (SL_TASK_RESUMED - 1) * sizeof(t->resumed[0]));
	t->resumed[0] = t->off_preempt;
	t->off_preempt = -1;
}

/*
 * A wakeup preemption follows its wake within this (1-17 us for 544 of 545 such
 * preemptions in tests/integration/50-lhp-truth.t's condition-variable load); a task
 * that is preempted later by a task it woke earlier was preempted by the tick.
 */
#define HANDOFF_NS 50000ull

/*
 * prev is preempted by next, the task of its group it woke just before: prev has just
 * handed something over (a released lock's next owner, a signalled waiter, work), so
 * what it wakes after it runs again is no release of a lock it held at t0: a lock
 * released in the same breath as the wakeup (the condition variable of
 * tests/integration/50-lhp-truth.t: 40 of its 42 false LHPs were such, no true one).
 */
static bool is_handoff(const struct sl_task *prev, const struct sl_task *next, uint64_t ts)
{
	return next && prev->last_wakee == next->pid && ts - prev->last_wake_ns <= HANDOFF_NS;
}

static void spin_on_late_run(struct sl_engine *e, struct sl_task *t, uint64_t ts); /* below */

void preempt_on_switch(struct sl_engine *e, struct sl_task *prev, struct sl_task *next,
		       const struct sl_event *ev)
{
	const struct sl_ev_switch *sw = &ev->sw;
	const struct cpu_state *c = &e->cpus[ev->cpu];
	struct open_preempt *o;
	int32_t idx;

	if (prev && e->nr_off_rec && c->known && c->curr == prev->pid) {
		/* after an untraced switch-in, since is the first event seen of prev: its run
		 * was at least that long (a 2.3 ms run so seen was one run's 9.9 ms of false
		 * spinning-waiter cost, tests/integration/50-lhp-truth.t) */
		spin_run_ended(e, prev, c->since, ev->ts_ns,
			       sw->prev_state == 'S' || sw->prev_state == 'D');
		if (prev->futex_fresh && c->since_exact)
			futex_run_ended(e, prev, c->since, ev->ts_ns);
	}
	if (prev)
		prev->futex_fresh = false;

	if (next && next->off_preempt >= 0)
		resume(e, next, ev->ts_ns);
	if (next && e->nr_off_rec && next->state == SL_TASK_RUNNABLE && next->wakeup_pending &&
	    (next->waker_irq & SL_IRQ_HARD))
		spin_on_late_run(e, next, ev->ts_ns);

	if (!prev || sw->prev_state != 'R' || sw->next_pid <= 0)
		return;
	if (prev->off_preempt >= 0) /* only after missed events */
		finish_record(e, prev->off_preempt, true);
	idx = alloc_record(e);
	if (idx < 0) {
		e->stats.preempts_dropped++;
		return;
	}
	o = &e->preempts[idx];
	memset(o, 0, sizeof(*o));
	o->in_use = true;
	o->group = prev->group;
	o->rec.run_id = e->cfg.run_id;
	o->rec.ts_ns = ev->ts_ns;
	o->rec.off_ns = SL_REC_NO_TIME;
	o->rec.cpu = ev->cpu;
	o->rec.victim_pid = prev->pid;
	o->rec.preemptor_pid = sw->next_pid;
	o->rec.cause = next && next->wakeup_pending && next->cpu == ev->cpu ? SL_PC_WAKEUP :
									      SL_PC_TICK;
	o->rec.same_group = next && next->group == prev->group;
	o->handoff = is_handoff(prev, next, ev->ts_ns);
	/* it woke a sleeper of a futex just before: it released that lock (the wakee may
	 * wait for a CPU while another task takes it, many times over, with no futex call) */
	if (prev->last_wake_uaddr && ev->ts_ns - prev->last_wake_ns <= HANDOFF_NS)
		o->moved_uaddr[o->nr_moved++] = prev->last_wake_uaddr;
	prev->off_preempt = idx;
	if (e->nr_off_rec == MAX_OFF_RECORDS)
		off_rec_prune(e, ev->ts_ns);
	if (e->nr_off_rec < MAX_OFF_RECORDS)
		e->off_rec[e->nr_off_rec++] = idx;
	else
		e->stats.spin_list_full++;
}

/* Hub bookkeeping: distinct same-group wakees, remembered over the last 8. */
static void note_wakee(struct sl_task *waker, const struct sl_task *wakee)
{
	for (int i = 0; i < 8; i++)
		if (waker->recent_wakees[i] == wakee->pid)
			return;
	waker->recent_wakees[waker->wakees % 8] = wakee->pid;
	if (waker->wakees < UINT16_MAX)
		waker->wakees++;
}

/*
 * wakee, woken by someone at ts, is a waiter of record idx if it is of the victim's group
 * and has slept since before the victim resumed; it then carries the record on, so that
 * the waiters it hands the lock to in turn count too (a lock convoy: LWLocks and futex
 * mutexes wake one waiter at a time). Refined from docs/metrics.md's plain rule, which counted only
 * the victim's own wakees: the synthesizer's truth showed the rest of the queue missing.
 */
static void add_waiter(struct sl_engine *e, int32_t idx, struct sl_task *wakee, uint64_t ts)
{
	struct open_preempt *o = &e->preempts[idx];
	uint64_t from, cost;

	if (wakee->group != o->group || wakee->state != SL_TASK_SLEEPING ||
	    wakee->sleep_ns >= o->t1 || wakee->pid == o->rec.victim_pid)
		return;
	if (futex_moved(o, wakee->sleep_uaddr))
		return; /* it waited on another holder of that lock */
	if (!o->held_uaddr)
		o->held_uaddr = wakee->sleep_uaddr;
	from = wakee->sleep_ns > o->rec.ts_ns ? wakee->sleep_ns : o->rec.ts_ns;
	cost = o->t1 - from;
	if (o->nr_cand < MAX_WAITER_CANDIDATES) {
		o->cand_pid[o->nr_cand] = wakee->pid;
		o->cand_cost_ns[o->nr_cand++] = cost;
	} else {
		if (o->extra_waiters < UINT16_MAX)
			o->extra_waiters++;
		o->extra_cost_ns += cost;
	}
	wakee->chain_rec = idx;
	wakee->chain_t0 = o->rec.ts_ns;
	wakee->chain_ns = ts;
}

static bool is_candidate(const struct open_preempt *o, int32_t pid)
{
	for (int i = 0; i < o->nr_cand; i++)
		if (o->cand_pid[i] == pid)
			return true;
	return false;
}

/*
 * wakee, asleep on a futex, is woken at ts: it waited on every resumed victim that held
 * that futex's lock while it slept, whoever wakes it now. A convoy loses its thread when
 * a running task takes the lock between two handoffs (the woken waiter still waits for a
 * CPU) and its release wakes the next sleeper: on a loaded host such waiters were a third
 * of the truth's waiting in sl-lockload's mutex (tp_cost_ratio 0.64).
 */
static void held_on_woken(struct sl_engine *e, struct sl_task *wakee, uint64_t ts)
{
	off_rec_prune(e, ts);
	for (int i = 0; i < e->nr_off_rec; i++) {
		int32_t idx = e->off_rec[i];
		const struct open_preempt *o = &e->preempts[idx];

		if (o->resumed && same_lock(o->held_uaddr, wakee->sleep_uaddr) &&
		    !is_candidate(o, wakee->pid))
			add_waiter(e, idx, wakee, ts);
	}
}

/*
 * The record a convoy member carries, if it is still the same one and the member joined
 * it within the horizon: each handoff of the convoy follows the one before, however long
 * after t1 (on a host loaded by other work a woken waiter may wait milliseconds for a CPU
 * before it takes and passes the lock: with the horizon counted from t1, waiters found
 * had 58% of the truth's waiting time in tests/integration/50-lhp-truth.t's mutex).
 */
static int32_t chain_of(struct sl_engine *e, const struct sl_task *t, uint64_t ts)
{
	const struct open_preempt *o;

	if (t->chain_rec < 0)
		return -1;
	o = &e->preempts[t->chain_rec];
	if (!o->in_use || !o->resumed || o->rec.ts_ns != t->chain_t0 ||
	    ts > t->chain_ns + e->cfg.lhp_horizon_ns)
		return -1;
	return t->chain_rec;
}

/*
 * wakee, asleep since sleep_ns and woken at ts by a timer, is a spinning waiter of record
 * idx if it is of the victim's group and slept while the victim was off-CPU: a spinlock
 * waiter that backs off with a timed sleep (PostgreSQL's s_lock)
 * keeps doing so, spinning between sleeps, until the holder runs again and releases. Its
 * cost is t1 - the start of its first such sleep (t0 at the earliest): sleeps and spins
 * alike (tests/integration/50-lhp-truth.t: counting only the sleeps gave 38% of the
 * truth's waiting time). A waiter on a sleeping lock is woken by the group member that
 * releases it, so it is never counted here.
 */
static void add_spinner(struct sl_engine *e, int32_t idx, const struct sl_task *wakee, uint64_t ts)
{
	struct open_preempt *o = &e->preempts[idx];
	uint64_t from = wakee->sleep_ns > o->rec.ts_ns ? wakee->sleep_ns : o->rec.ts_ns;
	uint64_t to = o->resumed && o->t1 < ts ? o->t1 : ts;
	int i;

	if (wakee->group != o->group || wakee->pid == o->rec.victim_pid || to <= from)
		return;
	for (i = 0; i < o->nr_spin && o->spin_pid[i] != wakee->pid; i++)
		;
	if (i == MAX_WAITER_CANDIDATES)
		return;
	if (i == o->nr_spin) {
		o->spin_pid[o->nr_spin++] = wakee->pid;
		o->spin_from_ns[i] = from;
	}
	if (from < o->spin_from_ns[i])
		o->spin_from_ns[i] = from;
}

/*
 * A timed wakeup of wakee (from a hard interrupt): the records it may spin for, those
 * of victims off-CPU and of victims resumed within the spin horizon (a back-off sleep that
 * began while the victim was off-CPU may end long after it ran again: s_lock's delays grow
 * to 1 s, sl-lockload's to 100 ms, and with the LHP horizon of 5 ms the spinners found had
 * 47% of the truth's waiting time). Records past it leave the list here.
 */
static void spin_on_woken(struct sl_engine *e, struct sl_task *wakee, uint64_t ts)
{
	off_rec_prune(e, ts);
	for (int i = 0; i < e->nr_off_rec; i++)
		add_spinner(e, e->off_rec[i], wakee, ts);
}

/*
 * t runs at ts after a timed wakeup it waited behind the CPU's other tasks for: it is a
 * spinning waiter of the records of victims preempted after that wakeup, too (a back-off
 * sleeper woken to spin again, queued behind a busy CPU's tasks, waits for the lock all
 * the while: such waiters were two of the five of a spinlock LHP on a loaded host and
 * their absence left a run's cost at 0.79 of the truth's waiting).
 */
static void spin_on_late_run(struct sl_engine *e, struct sl_task *t, uint64_t ts)
{
	off_rec_prune(e, ts);
	for (int i = 0; i < e->nr_off_rec; i++)
		if (t->waking_ns < e->preempts[e->off_rec[i]].rec.ts_ns)
			add_spinner(e, e->off_rec[i], t, ts);
}

/*
 * waker (NULL for an interrupt's wake) woke wakee at ts in irq context (SL_IRQ_*). A sleep
 * ended from a hard interrupt is timed: hrtimers (nanosleep, select and poll timeouts)
 * fire there on non-RT kernels. Softirq wakes are not (network receive, RCU), nor are
 * wakes by a task of another group: counted as timed before the context was read, they
 * made pgbench's clients, woken by postgres over a Unix socket, "spinners" (214 in a lab
 * run of 21 s).
 */
void preempt_on_woken(struct sl_engine *e, struct sl_task *waker, struct sl_task *wakee,
		      uint8_t irq, uint64_t ts)
{
	int32_t chain;

	if (wakee && wakee->state == SL_TASK_SLEEPING && e->nr_off_rec && (irq & SL_IRQ_HARD))
		spin_on_woken(e, wakee, ts);
	if (!waker || !wakee || waker == wakee)
		return;
	if (waker->group == wakee->group) {
		note_wakee(waker, wakee);
		waker->wakes_given++;
		wakee->wakes_taken++;
		waker->last_wakee = wakee->pid;
		waker->last_wake_ns = ts;
		waker->last_wake_uaddr = wakee->state == SL_TASK_SLEEPING ? wakee->sleep_uaddr : 0;
	}
	/*
	 * An exiting task wakes whoever joins it (the kernel's futex wake of the thread id
	 * glibc's pthread_join sleeps on) and its parent: no lock's waiter. Each thread of
	 * tests/integration/50-lhp-truth.t's load woke the main thread so at its exit, a
	 * false LHP costing up to the last preemption's time off-CPU (4 ms in one run).
	 */
	if (waker->exiting)
		return;
	/*
	 * The wakee waited on every record in reach: the convoy the waker carries and the
	 * waker's own preemptions, oldest first. It carries the last one on (chain_rec is one
	 * record), so the waker's newest own preemption: its own release is the nearer
	 * cause. The other order left the newest record's convoy uncounted in a quarter of
	 * a mutex run's LHPs (tests/integration/50-lhp-truth.t: one waiter found of four).
	 */
	chain = chain_of(e, waker, ts);
	if (chain >= 0)
		add_waiter(e, chain, wakee, ts);
	for (int i = SL_TASK_RESUMED - 1; i >= 0; i--) {
		struct open_preempt *o;

		if (waker->resumed[i] < 0)
			continue;
		o = &e->preempts[waker->resumed[i]];
		if (ts > o->t1 + e->cfg.lhp_horizon_ns)
			continue;
		if (o->wakes < UINT16_MAX)
			o->wakes++;
		add_waiter(e, waker->resumed[i], wakee, ts);
	}
	if (wakee->sleep_uaddr && e->nr_off_rec)
		held_on_woken(e, wakee, ts);
}

void preempt_sweep(struct sl_engine *e, uint64_t censor_before_ns, bool all)
{
	for (int32_t i = 0; i < e->preempt_hwm; i++) {
		struct open_preempt *o = &e->preempts[i];

		if (!o->in_use)
			continue;
		if (o->resumed && e->now_ns > o->t1 + e->cfg.spin_horizon_ns)
			finish_record(e, i, false);
		else if (all || o->rec.ts_ns < censor_before_ns)
			/* censored unless only the spin horizon was cut short */
			finish_record(e, i,
				      !(o->resumed && e->now_ns > o->t1 + e->cfg.lhp_horizon_ns));
	}
}

/*
 * The victim runs again, seen at now from an untraced switch-in: t1 is at most now. The
 * record carries on from there (its cost may be a little long), rather than being closed
 * without waiters: on this host's kernel such a switch went missing for 2 of the 187 true
 * LHPs of one mutex run of tests/integration/50-lhp-truth.t, and a lock holder's first
 * event is often the wake of its waiter.
 */
void preempt_on_unseen_switch_in(struct sl_engine *e, struct sl_task *t, uint64_t now)
{
	if (t->off_preempt >= 0)
		resume(e, t, now);
}

void preempt_drop_cpu(struct sl_engine *e, int cpu)
{
	for (int32_t i = 0; i < e->preempt_hwm; i++)
		if (e->preempts[i].in_use && e->preempts[i].rec.cpu == cpu)
			release_record(e, i);
}

static int cmp_hub(const void *a, const void *b)
{
	const struct sl_task *x = *(struct sl_task *const *)a, *y = *(struct sl_task *const *)b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->wakees != y->wakees)
		return x->wakees > y->wakees ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * A hub gives its group at least this many times the wakeups it takes from it. The
 * article's dispatcher wakes many and is woken by few; a lock holder hands the lock to
 * whoever waits and is handed it in turn, so in a symmetric lock every thread gives about
 * what it takes (tests/integration/50-lhp-truth.t: with distinct wakees alone, half of the
 * preemptions of a 6-thread mutex were hub preemptions and LHP recall was 0.39).
 */
#define HUB_ASYMMETRY 2

static bool hub_candidate(const struct sl_engine *e, const struct sl_task *t)
{
	return t->wakees >= e->cfg.hub_min_wakees &&
	       t->wakes_given >= HUB_ASYMMETRY * (uint64_t)t->wakes_taken;
}

/*
 * At each window boundary the hubs of the window that ended are chosen: per group, the
 * hub_top tasks that woke at least hub_min_wakees distinct tasks of their group and gave
 * it HUB_ASYMMETRY times the wakeups they took from it. The sweep that follows judges the
 * window's preemption records with them.
 */
void hubs_on_boundary(struct sl_engine *e)
{
	struct sl_task **cand = NULL;
	size_t n = 0, cap = 0;

	sl_tasktab_foreach(&e->tasks, t)
	{
		t->hub = false;
		if (hub_candidate(e, t)) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct sl_task **nc = realloc(cand, ncap * sizeof(*nc));

				if (!nc)
					break;
				cand = nc;
				cap = ncap;
			}
			cand[n++] = t;
		}
	}
	if (n)
		qsort(cand, n, sizeof(*cand), cmp_hub);
	for (size_t i = 0, rank = 0; i < n; i++) {
		rank = i > 0 && cand[i]->group == cand[i - 1]->group ? rank + 1 : 0;
		cand[i]->hub = rank < (size_t)e->cfg.hub_top;
	}
	free(cand);
	sl_tasktab_foreach(&e->tasks, t)
	{
		t->wakees = 0;
		t->wakes_given = 0;
		t->wakes_taken = 0;
		memset(t->recent_wakees, 0, sizeof(t->recent_wakees));
	}
}
