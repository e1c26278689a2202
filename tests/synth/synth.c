// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace synthesizer's scheduler core: a seeded discrete-event loop over a timer heap,
 * per-CPU CFS-like run queues (vruntime, sleeper credit, wakeup preemption after a minimum
 * granularity, slice expiry at the tick, an optional newidle pull within the LLC), and the
 * event emitter, which stamps every event with a strictly increasing timestamp so the
 * cross-CPU order the engine sees is the order in which the simulation decided things.
 * Lock-holder preemptions are recorded here, as they happen, as the run's truth.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth-local.h"

/* lib's generator (xoshiro256** seeded by splitmix64): each seed its own stream */
uint64_t synth_rand(struct synth *s)
{
	return sl_rng_next(&s->rng);
}

uint64_t synth_rand_exp(struct synth *s, uint64_t mean_ns)
{
	double u = (double)(synth_rand(s) >> 11) * 0x1.0p-53;

	return mean_ns ? (uint64_t)(-log1p(-u) * (double)mean_ns) : 0;
}

/* ---- timer heap, ordered by (time, insertion) ---- */

static bool timer_before(const struct synth_timer *a, const struct synth_timer *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void timer_push(struct synth *s, uint64_t t, int kind, int arg, uint32_t gen)
{
	struct synth_timer tm = { .t = t, .seq = s->seq++, .kind = kind, .arg = arg, .gen = gen };
	int i;

	if (s->nr_heap == s->heap_cap) {
		int cap = s->heap_cap ? 2 * s->heap_cap : 1024;
		struct synth_timer *h = realloc(s->heap, sizeof(*h) * cap);

		if (!h) {
			s->err = -ENOMEM;
			return;
		}
		s->heap = h;
		s->heap_cap = cap;
	}
	for (i = s->nr_heap++; i > 0 && timer_before(&tm, &s->heap[(i - 1) / 2]); i = (i - 1) / 2)
		s->heap[i] = s->heap[(i - 1) / 2];
	s->heap[i] = tm;
}

static bool timer_pop(struct synth *s, struct synth_timer *ret)
{
	struct synth_timer last;
	int i = 0, c;

	if (!s->nr_heap)
		return false;
	*ret = s->heap[0];
	last = s->heap[--s->nr_heap];
	while ((c = 2 * i + 1) < s->nr_heap) {
		if (c + 1 < s->nr_heap && timer_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!timer_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
	return true;
}

/* ---- emitting ---- */

uint64_t synth_emit(struct synth *s, struct sl_event *ev)
{
	uint64_t ts = s->cfg->start_ns + s->now;

	/* strictly increasing: ties across CPUs would let a merge reorder decisions */
	if (s->truth.events && ts <= s->last_ts)
		ts = s->last_ts + 1;
	ev->ts_ns = s->last_ts = ts;
	s->truth.events++;
	if (s->emit && !s->stop)
		s->stop = s->emit(s->ctx, ev);
	return ts;
}

static int pid_of(const struct synth *s, int ti)
{
	return ti < 0 ? 0 : s->tasks[ti].pid;
}

static void comm_of(const struct synth *s, int ti, int cpu, char *buf)
{
	if (ti < 0)
		snprintf(buf, SL_COMM_LEN, "swapper/%d", cpu);
	else
		synth_task_comm(s, &s->tasks[ti], buf);
}

static void wake_event(struct synth *s, int type, const struct synth_task *waker,
		       const struct synth_task *p, int target, uint8_t irq)
{
	struct sl_event ev = { .type = type, .cpu = waker->cpu, .common_pid = waker->pid };

	ev.wake.pid = p->pid;
	ev.wake.irq = irq;
	ev.wake.prio = 120;
	ev.wake.target_cpu = target;
	synth_task_comm(s, p, ev.wake.comm);
	synth_emit(s, &ev);
}

/* ---- run queues ---- */

bool synth_cpu_idle(const struct synth *s, int cpu)
{
	return s->cpus[cpu].curr < 0 && s->cpus[cpu].nr_wait == 0;
}

int synth_nr_running(const struct synth *s, int cpu)
{
	return (s->cpus[cpu].curr >= 0) + s->cpus[cpu].nr_wait;
}

static int leftmost(const struct synth *s, const struct synth_cpu *c)
{
	int best = -1;

	for (int i = 0; i < c->nr_wait; i++)
		if (best < 0 || s->tasks[c->wait[i]].vruntime < s->tasks[c->wait[best]].vruntime)
			best = i;
	return best;
}

static void update_min_vruntime(struct synth *s, struct synth_cpu *c)
{
	int i = leftmost(s, c);
	int64_t v;

	if (c->curr < 0 && i < 0)
		return;
	v = c->curr >= 0 ? s->tasks[c->curr].vruntime : s->tasks[c->wait[i]].vruntime;
	if (i >= 0 && s->tasks[c->wait[i]].vruntime < v)
		v = s->tasks[c->wait[i]].vruntime;
	if (v > c->min_vruntime)
		c->min_vruntime = v;
}

static void update_curr(struct synth *s, int cpu)
{
	struct synth_cpu *c = &s->cpus[cpu];
	struct synth_task *t;

	if (c->curr < 0)
		return;
	t = &s->tasks[c->curr];
	t->vruntime += (int64_t)(s->now - t->exec_start);
	t->exec_start = s->now;
	update_min_vruntime(s, c);
}

static void arm_tick(struct synth *s, int cpu)
{
	struct synth_cpu *c = &s->cpus[cpu];
	uint64_t tick = s->cfg->tick_ns;

	if (c->tick_armed || c->curr < 0 || !c->nr_wait)
		return;
	c->tick_armed = true;
	timer_push(s, (s->now / tick + 1) * tick, TM_TICK, cpu, 0);
}

static void enqueue(struct synth *s, int cpu, int ti)
{
	struct synth_cpu *c = &s->cpus[cpu];

	c->wait[c->nr_wait++] = ti;
	s->tasks[ti].state = TS_RUNNABLE;
	s->tasks[ti].cpu = cpu;
	arm_tick(s, cpu);
}

static int dequeue_at(struct synth_cpu *c, int i)
{
	int ti = c->wait[i];

	c->wait[i] = c->wait[--c->nr_wait];
	return ti;
}

static void resched(struct synth *s, int cpu, uint64_t delay, bool tick)
{
	struct synth_cpu *c = &s->cpus[cpu];

	if (c->resched_pending)
		return;
	c->resched_pending = true;
	c->resched_tick = tick;
	timer_push(s, s->now + delay, TM_RESCHED, cpu, c->resched_gen);
}

void synth_spawn(struct synth *s, struct synth_task *t, int cpu, uint64_t at)
{
	enqueue(s, cpu, (int)(t - s->tasks));
	resched(s, cpu, at - s->now, false);
}

/* vruntime is per run queue: carry the lag over, as migrate_task_rq_fair() does */
static void renormalize(struct synth *s, struct synth_task *t, int from, int to)
{
	t->vruntime += s->cpus[to].min_vruntime - s->cpus[from].min_vruntime;
}

/* ---- lock-holder preemption truth ---- */

/* w waits on the lock of record o from tw: asleep on it, or spinning and backing off */
static void lhp_waiter(struct synth *s, struct synth_open_lhp *o, const struct synth_task *w)
{
	uint64_t tw = s->cfg->spin_locks ? w->wait_ts : w->sleep_ts;

	o->sum_start += tw > o->rec.t0_ns ? tw : o->rec.t0_ns;
	if (o->rec.nr_waiters < SYNTH_LHP_MAX_WAITERS)
		o->rec.waiter_pids[o->rec.nr_waiters] = w->pid;
	o->rec.nr_waiters++;
}

void synth_lhp_add_waiter(struct synth *s, struct synth_task *holder, struct synth_task *w)
{
	if (holder->lhp >= 0)
		lhp_waiter(s, &s->open[holder->lhp], w);
}

static void lhp_open(struct synth *s, struct synth_task *v, int cpu, uint64_t t0, int next_pid,
		     bool tick)
{
	struct synth_open_lhp *o;
	int slot;

	if (s->nr_open_free)
		slot = s->open_free[--s->nr_open_free];
	else {
		if (s->nr_open == s->open_cap) {
			int cap = s->open_cap ? 2 * s->open_cap : 64;
			void *p = realloc(s->open, sizeof(*s->open) * cap);
			void *f = p ? realloc(s->open_free, sizeof(int) * cap) : NULL;

			if (p)
				s->open = p;
			if (!f) {
				s->err = -ENOMEM;
				return;
			}
			s->open_free = f;
			s->open_cap = cap;
		}
		slot = s->nr_open++;
	}
	o = &s->open[slot];
	memset(o, 0, sizeof(*o));
	o->lock = v->lock;
	o->rec.cpu = cpu;
	o->rec.t0_ns = t0;
	o->rec.victim_pid = v->pid;
	o->rec.preemptor_pid = next_pid;
	o->rec.tick = tick;
	o->rec.first_waiter_pid = -1;
	for (int w = s->locks[v->lock].head; w >= 0; w = s->tasks[w].next_waiter)
		lhp_waiter(s, o, &s->tasks[w]);
	v->lhp = slot;
}

static void lhp_close(struct synth *s, struct synth_task *v, uint64_t t1, bool censored)
{
	struct synth_open_lhp *o = &s->open[v->lhp];
	struct synth_truth *tr = &s->truth;
	int head = s->locks[o->lock].head;

	s->open_free[s->nr_open_free++] = v->lhp;
	v->lhp = -1;
	if (!o->rec.nr_waiters) {
		tr->preempt_holder_idle++;
		return;
	}
	o->rec.t1_ns = t1;
	o->rec.censored = censored;
	o->rec.cost_ns = (uint64_t)o->rec.nr_waiters * t1 - o->sum_start;
	o->rec.first_waiter_pid = head >= 0 ? s->tasks[head].pid : -1;
	if (tr->nr_lhp == s->lhp_cap) {
		size_t cap = s->lhp_cap ? 2 * s->lhp_cap : 256;
		struct synth_lhp *p = realloc(tr->lhp, sizeof(*p) * cap);

		if (!p) {
			s->err = -ENOMEM;
			return;
		}
		tr->lhp = p;
		s->lhp_cap = cap;
	}
	tr->lhp[tr->nr_lhp++] = o->rec;
	tr->lhp_cost_ns += o->rec.cost_ns;
}

static bool is_postgres(const struct synth_task *t)
{
	return t->role == ROLE_DISPATCHER || t->role == ROLE_BACKEND;
}

/* ---- switching ---- */

/*
 * The sched_switch on cpu from its current task (or idle) to next (or idle). The caller
 * has already put a preempted prev back on the queue or marked a blocking one asleep.
 */
static uint64_t switch_to(struct synth *s, int cpu, int next, char state, bool preempt_bit,
			  bool preemption, bool tick)
{
	struct synth_cpu *c = &s->cpus[cpu];
	int prev = c->curr;
	struct sl_event ev = { .type = SL_EV_SWITCH, .cpu = cpu, .common_pid = pid_of(s, prev) };
	uint64_t ts;

	ev.sw.prev_pid = pid_of(s, prev);
	ev.sw.next_pid = pid_of(s, next);
	ev.sw.prev_prio = ev.sw.next_prio = 120;
	ev.sw.prev_state = state;
	ev.sw.prev_preempt = preempt_bit;
	comm_of(s, prev, cpu, ev.sw.prev_comm);
	comm_of(s, next, cpu, ev.sw.next_comm);
	ts = synth_emit(s, &ev);

	if (preemption) {
		struct synth_task *v = &s->tasks[prev], *n = &s->tasks[next];
		struct synth_truth *tr = &s->truth;

		tr->preemptions++;
		if (tick)
			tr->preempt_tick++;
		else
			tr->preempt_wakeup++;
		if (is_postgres(v) && is_postgres(n))
			tr->preempt_same_group++;
		if (v->role == ROLE_DISPATCHER)
			tr->preempt_hub++;
		if (v->lock >= 0) {
			tr->preempt_holder++;
			lhp_open(s, v, cpu, ts, n->pid, tick);
		}
	}
	c->curr = next;
	c->resched_gen++;
	c->resched_pending = false;
	if (next >= 0) {
		struct synth_task *n = &s->tasks[next];

		n->state = TS_RUNNING;
		n->cpu = cpu;
		n->run_start = n->exec_start = s->now;
		n->seg_end = s->now + n->seg_left;
		timer_push(s, n->seg_end, TM_SEGMENT, next, ++n->seg_gen);
		if (n->lhp >= 0)
			lhp_close(s, n, ts, false);
		arm_tick(s, cpu);
	}
	return ts;
}

/* newidle balance, reduced: take the longest-waiting task of the most loaded LLC peer */
static int idle_pull(struct synth *s, int cpu)
{
	int l = s->cpus[cpu].llc, lo = s->llc_off[l], n = s->llc_off[l + 1] - lo;
	int best = -1, start = 0, k, i, ti;
	struct sl_event ev = { .type = SL_EV_MIGRATE, .cpu = cpu };
	struct synth_task *t;

	for (k = 0; k < n; k++)
		if (s->llc_cpus[lo + k] == cpu)
			start = k;
	for (k = 1; k < n; k++) {
		int o = s->llc_cpus[lo + (start + k) % n];

		if (s->cpus[o].curr >= 0 && s->cpus[o].nr_wait &&
		    (best < 0 || s->cpus[o].nr_wait > s->cpus[best].nr_wait))
			best = o;
	}
	if (best < 0)
		return -1;
	update_curr(s, best);
	i = leftmost(s, &s->cpus[best]);
	ti = dequeue_at(&s->cpus[best], i);
	t = &s->tasks[ti];
	ev.common_pid = pid_of(s, s->cpus[cpu].curr);
	ev.migrate.pid = t->pid;
	ev.migrate.prio = 120;
	ev.migrate.orig_cpu = best;
	ev.migrate.dest_cpu = cpu;
	synth_task_comm(s, t, ev.migrate.comm);
	synth_emit(s, &ev);
	renormalize(s, t, best, cpu);
	t->cpu = cpu;
	s->truth.migrations++;
	s->truth.idle_pulls++;
	return ti;
}

void synth_block(struct synth *s, struct synth_task *t)
{
	int cpu = t->cpu, i, next = -1;
	struct synth_cpu *c = &s->cpus[cpu];

	update_curr(s, cpu);
	t->state = TS_SLEEPING;
	t->seg_gen++;
	i = leftmost(s, c);
	if (i >= 0)
		next = dequeue_at(c, i);
	else if (s->cfg->idle_pull)
		next = idle_pull(s, cpu);
	t->sleep_ts = switch_to(s, cpu, next, 'S', false, false, false);
}

void synth_segment(struct synth *s, struct synth_task *t, uint64_t ns)
{
	t->seg_left = ns;
	if (t->state == TS_RUNNING) {
		t->seg_end = s->now + ns;
		timer_push(s, t->seg_end, TM_SEGMENT, (int)(t - s->tasks), ++t->seg_gen);
	}
}

/* ---- wakeups ---- */

static void count_placement(struct synth *s, int chosen)
{
	const struct synth_cpu *c = &s->cpus[chosen];
	struct synth_truth *tr = &s->truth;
	int l = c->llc, idle = 0, idle_core = 0, k, core;

	tr->wakeups++;
	if (synth_cpu_idle(s, chosen)) {
		tr->wakeups_idle++;
		return;
	}
	if (c->curr < 0)
		tr->wakeups_claimed++;
	else
		tr->wakeups_busy++;
	for (k = s->llc_off[l]; k < s->llc_off[l + 1]; k++)
		idle += synth_cpu_idle(s, s->llc_cpus[k]);
	for (k = s->llc_core_off[l]; k < s->llc_core_off[l + 1] && !idle_core; k++) {
		core = s->llc_cores[k];
		idle_core = 1;
		for (int j = s->core_off[core]; j < s->core_off[core + 1]; j++)
			if (!synth_cpu_idle(s, s->core_cpus[j]))
				idle_core = 0;
	}
	tr->wakeups_missed_idle += idle > 0;
	tr->wakeups_missed_core += idle_core;
}

/*
 * try_to_wake_up() on waker's CPU: sched_waking (target_cpu = the wakee's previous CPU),
 * placement, sched_migrate_task if it moves (set_task_cpu), enqueue with sleeper credit,
 * sched_wakeup (target_cpu = chosen), then check_preempt_wakeup() or an idle CPU's IPI.
 */
/* waker: the task whose context the wakeup runs in (in an interrupt, the task it hit) */
static void wake(struct synth *s, struct synth_task *waker, struct synth_task *p, bool sync,
		 uint8_t irq)
{
	const struct synth_config *cfg = s->cfg;
	int chosen, prev = p->cpu, ti = (int)(p - s->tasks);
	struct synth_cpu *c;

	if (p->state != TS_SLEEPING)
		return;
	wake_event(s, SL_EV_WAKING, waker, p, prev, irq);
	chosen = synth_select_cpu(s, waker, p, sync);
	count_placement(s, chosen);
	if (chosen != prev) {
		struct sl_event ev = { .type = SL_EV_MIGRATE,
				       .cpu = waker->cpu,
				       .common_pid = waker->pid };

		ev.migrate.pid = p->pid;
		ev.migrate.prio = 120;
		ev.migrate.orig_cpu = prev;
		ev.migrate.dest_cpu = chosen;
		synth_task_comm(s, p, ev.migrate.comm);
		synth_emit(s, &ev);
		s->truth.migrations++;
		renormalize(s, p, prev, chosen);
	}
	c = &s->cpus[chosen];
	update_curr(s, chosen);
	if (p->vruntime < c->min_vruntime - (int64_t)cfg->sleeper_credit_ns)
		p->vruntime = c->min_vruntime - (int64_t)cfg->sleeper_credit_ns;
	enqueue(s, chosen, ti);
	wake_event(s, SL_EV_WAKEUP, waker, p, chosen, irq);

	uint64_t delay = chosen == waker->cpu ? 300 :
						cfg->ipi_ns + synth_rand(s) % (cfg->ipi_ns / 2 + 1);

	if (c->curr < 0) {
		resched(s, chosen, delay, false);
	} else if (cfg->wakeup_preempt) {
		struct synth_task *curr = &s->tasks[c->curr];

		if (s->now - curr->run_start >= cfg->min_gran_ns &&
		    curr->vruntime - p->vruntime > (int64_t)cfg->wakeup_gran_ns)
			resched(s, chosen, delay, false);
	}
}

void synth_wake(struct synth *s, struct synth_task *waker, struct synth_task *p, bool sync)
{
	wake(s, waker, p, sync, 0);
}

void synth_backoff(struct synth *s, struct synth_task *t, uint64_t ns)
{
	timer_push(s, s->now + ns, TM_BACKOFF, (int)(t - s->tasks), t->seg_gen);
}

/* the back-off timer fires on the CPU t slept on, in whatever task runs there */
static void on_backoff(struct synth *s, struct synth_task *t)
{
	const struct synth_cpu *c = &s->cpus[t->cpu];
	struct synth_task hit = { .pid = c->curr >= 0 ? s->tasks[c->curr].pid : 0,
				  .cpu = t->cpu,
				  .role = ROLE_KWORKER };

	wake(s, &hit, t, false, SL_IRQ_HARD);
}

/* ---- timers ---- */

static void on_resched(struct synth *s, int cpu)
{
	struct synth_cpu *c = &s->cpus[cpu];
	bool tick = c->resched_tick;
	struct synth_task *t;
	int i, next;

	c->resched_pending = false;
	i = leftmost(s, c);
	if (i < 0)
		return;
	if (c->curr < 0) {
		switch_to(s, cpu, dequeue_at(c, i), 'R', false, false, false);
		return;
	}
	update_curr(s, cpu);
	t = &s->tasks[c->curr];
	if (s->tasks[c->wait[i]].vruntime >= t->vruntime)
		return; /* put_prev + pick_next would pick curr again */
	next = dequeue_at(c, i);
	t->seg_left = t->seg_end - s->now;
	t->seg_gen++;
	c->wait[c->nr_wait++] = c->curr;
	t->state = TS_RUNNABLE;
	/* a tick preempts on return to user: R; a wakeup IPI may find the victim in the kernel */
	switch_to(s, cpu, next, 'R',
		  !tick && (int)(synth_rand(s) % 100) < s->cfg->preempt_kernel_pct, true, tick);
}

static void on_tick(struct synth *s, int cpu)
{
	struct synth_cpu *c = &s->cpus[cpu];

	c->tick_armed = false;
	if (c->curr < 0 || !c->nr_wait)
		return;
	update_curr(s, cpu);
	if (s->now - s->tasks[c->curr].run_start >= s->cfg->slice_ns)
		resched(s, cpu, 0, true);
	arm_tick(s, cpu);
}

static void on_segment(struct synth *s, int ti)
{
	struct synth_task *t = &s->tasks[ti];

	update_curr(s, t->cpu);
	t->seg_left = 0;
	synth_work_step(s, t);
}

/* ---- the run ---- */

void synth_config_default(struct synth_config *cfg, const struct sl_topo *topo)
{
	int n = topo ? topo->nr_online : 1;

	memset(cfg, 0, sizeof(*cfg));
	cfg->topo = topo;
	cfg->policy = SYNTH_LLC_SCAN;
	cfg->seed = 1;
	cfg->duration_ns = 2000000000ULL;
	/* one client per CPU: pgbench -c <nr_cpus>; at this load 3.5's scan still finds idle
	 * cores most of the time and the buddy rule visibly does not */
	cfg->clients = n;
	cfg->backends = cfg->clients;
	cfg->client_ns = 40000;
	cfg->dispatch_ns = 3000;
	cfg->work_before_ns = 800000;
	cfg->lock_hold_ns = 300000;
	cfg->work_after_ns = 200000;
	cfg->wake_tail_ns = 20000;
	cfg->locks = 16;
	cfg->lock_pct = 100;
	cfg->spin_ns = 5000; /* s_lock's 100 spins with a pause */
	cfg->wakeup_preempt = true;
	cfg->min_gran_ns = 750000;
	cfg->wakeup_gran_ns = 1000000;
	cfg->slice_ns = 3000000;
	cfg->tick_ns = 1000000;
	cfg->sleeper_credit_ns = 3000000;
	cfg->ipi_ns = 4000;
	cfg->preempt_kernel_pct = 30;
	cfg->idle_pull = true;
}

static int cmp_lhp(const void *a, const void *b)
{
	const struct synth_lhp *x = a, *y = b;

	return x->t0_ns < y->t0_ns ? -1 : x->t0_ns > y->t0_ns;
}

void synth_truth_free(struct synth_truth *truth)
{
	if (!truth)
		return;
	free(truth->lhp);
	truth->lhp = NULL;
	truth->nr_lhp = 0;
}

static void synth_free(struct synth *s)
{
	for (int i = 0; s->cpus && i < s->nr_cpus; i++)
		free(s->cpus[i].wait);
	free(s->cpus);
	free(s->tasks);
	free(s->heap);
	free(s->open);
	free(s->open_free);
	synth_place_free(s);
	synth_work_free(s);
	synth_truth_free(&s->truth);
}

static bool config_valid(const struct synth_config *cfg)
{
	return cfg && cfg->topo && cfg->topo->nr_online > 0 && cfg->clients > 0 &&
	       cfg->clients <= 100000 && cfg->backends > 0 && cfg->backends <= 100000 &&
	       cfg->locks > 0 && cfg->tick_ns > 0 &&
	       (cfg->policy == SYNTH_LLC_SCAN || cfg->policy == SYNTH_BUDDY);
}

int synth_run(const struct synth_config *cfg, synth_emit_fn emit, void *ctx,
	      struct synth_truth *ret_truth)
{
	struct synth s = { .cfg = cfg, .emit = emit, .ctx = ctx };
	struct synth_timer tm;
	int err, i;

	if (!config_valid(cfg))
		return -EINVAL;
	s.topo = cfg->topo;
	s.end = cfg->duration_ns;
	sl_rng_seed(&s.rng, cfg->seed);
	s.nr_cpus = cfg->topo->nr_cpus;
	err = synth_place_init(&s);
	if (err)
		goto out;
	err = -ENOMEM;
	s.cpus = calloc(s.nr_cpus, sizeof(*s.cpus));
	if (!s.cpus)
		goto out;
	err = synth_work_init(&s);
	if (err)
		goto out;
	err = -ENOMEM;
	for (i = 0; i < s.nr_cpus; i++) {
		bool valid = sl_topo_cpu_valid(s.topo, i);

		s.cpus[i].llc = valid ? s.topo->cpus[i].llc : -1;
		s.cpus[i].core = valid ? s.topo->cpus[i].core : -1;
		s.cpus[i].curr = -1;
		s.cpus[i].wait = calloc(s.nr_tasks, sizeof(int));
		if (!s.cpus[i].wait)
			goto out;
	}
	err = synth_work_start(&s);
	if (err)
		goto out;

	while (!s.stop && !s.err && timer_pop(&s, &tm) && tm.t <= s.end) {
		s.now = tm.t;
		switch (tm.kind) {
		case TM_SEGMENT:
			if (tm.gen == s.tasks[tm.arg].seg_gen &&
			    s.tasks[tm.arg].state == TS_RUNNING)
				on_segment(&s, tm.arg);
			break;
		case TM_RESCHED:
			if (tm.gen == s.cpus[tm.arg].resched_gen)
				on_resched(&s, tm.arg);
			break;
		case TM_TICK:
			on_tick(&s, tm.arg);
			break;
		case TM_BACKOFF:
			if (tm.gen == s.tasks[tm.arg].seg_gen &&
			    s.tasks[tm.arg].state == TS_SLEEPING)
				on_backoff(&s, &s.tasks[tm.arg]);
			break;
		}
	}
	/* holders still off-CPU at the end: censored at the run's end */
	for (i = 0; i < s.nr_tasks && !s.err; i++)
		if (s.tasks[i].lhp >= 0)
			lhp_close(&s, &s.tasks[i],
				  cfg->start_ns + s.end > s.last_ts ? cfg->start_ns + s.end :
								      s.last_ts,
				  true);
	err = s.err ? s.err : s.stop;
	if (!err && ret_truth) {
		if (s.truth.nr_lhp) /* qsort's array may not be NULL, even for 0 elements */
			qsort(s.truth.lhp, s.truth.nr_lhp, sizeof(*s.truth.lhp), cmp_lhp);
		*ret_truth = s.truth;
		memset(&s.truth, 0, sizeof(s.truth));
	}
out:
	synth_free(&s);
	return err;
}
