// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace synthesizer's pgbench-like workload. A closed loop: each client ("pgbench")
 * sends a request to the dispatcher ("postgres", the article's central task) and sleeps;
 * the dispatcher hands each request to an idle backend ("postgres") and wakes it; the
 * backend works, takes one of a few shared locks, works on, replies (waking the client)
 * and goes back to the pool. The locks behave like PostgreSQL's LWLocks as far as the
 * scheduler can see: a backend that finds the lock taken sleeps on a semaphore (prev_state
 * S) in FIFO order, and the releaser hands the lock to the first waiter and wakes it. So a
 * holder that is preempted keeps every waiter asleep until it runs again: the cost the
 * lock-holder-preemption analysis has to find. With spin_locks they behave like s_lock
 * instead: a waiter spins, sleeps a growing back-off delay (a timer wakes it) and tries
 * again, and a release wakes nobody. Per-CPU kworkers start the clients.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "synth-local.h"

enum {
	PH_START,
	PH_SEND,
	PH_CLIENT_TAIL,
	PH_WORK_A,
	PH_HOLD,
	PH_WORK_B,
	PH_BACKEND_TAIL,
	PH_DISPATCH,
	PH_SPIN
};

const char *synth_task_comm(const struct synth *s, const struct synth_task *t, char *buf)
{
	switch (t->role) {
	case ROLE_KWORKER:
		snprintf(buf, SL_COMM_LEN, "kworker/%d:1", t->cpu);
		break;
	case ROLE_CLIENT:
		snprintf(buf, SL_COMM_LEN, "pgbench");
		break;
	default:
		snprintf(buf, SL_COMM_LEN, "postgres");
		break;
	}
	return buf;
}

/* the online CPUs spread evenly: the k-th of n slots */
static int spread_cpu(const struct synth *s, int k, int n)
{
	int want = (int)((int64_t)k * s->topo->nr_online / n), seen = 0;

	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		if (sl_topo_cpu_valid(s->topo, cpu) && seen++ == want)
			return cpu;
	return 0;
}

static int *spread_table(const struct synth *s)
{
	int *online = malloc(sizeof(int) * s->topo->nr_online), n = 0;

	for (int cpu = 0; online && cpu < s->nr_cpus; cpu++)
		if (sl_topo_cpu_valid(s->topo, cpu))
			online[n++] = cpu;
	return online;
}

int synth_work_init(struct synth *s)
{
	const struct synth_config *cfg = s->cfg;
	int n = s->topo->nr_online, i;
	int *online = spread_table(s);

	s->nr_tasks = n + 1 + cfg->backends + cfg->clients;
	s->tasks = calloc(s->nr_tasks, sizeof(*s->tasks));
	s->queue = calloc(cfg->clients, sizeof(int));
	s->locks = calloc(cfg->locks, sizeof(*s->locks));
	if (!online || !s->tasks || !s->queue || !s->locks) {
		free(online);
		return -ENOMEM;
	}
	for (i = 0; i < cfg->locks; i++)
		s->locks[i] = (struct synth_lock){ .holder = -1, .head = -1, .tail = -1 };

	s->kworker0 = 0;
	s->dispatcher = n;
	s->backend0 = n + 1;
	s->client0 = n + 1 + cfg->backends;
	for (i = 0; i < s->nr_tasks; i++) {
		struct synth_task *t = &s->tasks[i];

		t->state = TS_SLEEPING;
		t->lock = t->wait_lock = t->next_waiter = t->lhp = t->request = -1;
		if (i < n) {
			t->role = ROLE_KWORKER;
			t->idx = i;
			t->cpu = online[i];
			t->pid = 10 + online[i];
			t->seg_left = 2000;
		} else if (i == s->dispatcher) {
			t->role = ROLE_DISPATCHER;
			t->cpu = online[n / 2];
			t->pid = 5000;
			t->phase = PH_DISPATCH;
		} else if (i < s->client0) {
			t->role = ROLE_BACKEND;
			t->idx = i - s->backend0;
			/* half a machine away from their clients, so the first wakeups move them */
			t->cpu = online[((int64_t)t->idx * n / cfg->backends + n / 2) % n];
			t->pid = 5001 + t->idx;
			t->phase = PH_WORK_A;
			t->in_pool = true;
		} else {
			t->role = ROLE_CLIENT;
			t->idx = i - s->client0;
			t->cpu = spread_cpu(s, t->idx, cfg->clients);
			t->pid = 5001 + cfg->backends + t->idx;
			t->phase = PH_START;
			t->seg_left = synth_rand_exp(s, cfg->client_ns);
		}
	}
	s->pool_cursor = 0;
	free(online);
	return 0;
}

int synth_work_start(struct synth *s)
{
	/* each CPU runs its kworker first, so the engine learns every CPU's state early */
	for (int i = 0; i < s->topo->nr_online; i++)
		synth_spawn(s, &s->tasks[s->kworker0 + i], s->tasks[s->kworker0 + i].cpu,
			    1000 + 10 * (uint64_t)i);
	return s->err;
}

void synth_work_free(struct synth *s)
{
	free(s->queue);
	free(s->locks);
}

static int nr_idle_backends(const struct synth *s)
{
	int nr = 0;

	for (int i = 0; i < s->cfg->backends; i++)
		nr += s->tasks[s->backend0 + i].in_pool;
	return nr;
}

/* the client's own backend (as a pgbench connection has one) if idle, else the next idle */
static struct synth_task *pick_backend(struct synth *s, int client)
{
	int nb = s->cfg->backends;
	struct synth_task *b = &s->tasks[s->backend0 + client % nb];

	if (b->in_pool)
		return b;
	for (int k = 0; k < nb; k++) {
		b = &s->tasks[s->backend0 + (s->pool_cursor + k) % nb];
		if (b->in_pool) {
			s->pool_cursor = (s->pool_cursor + k + 1) % nb;
			return b;
		}
	}
	return NULL;
}

/*
 * A sync wakeup is a hint: the waker runs on for a tail (finishing the send, the next
 * recv()) before it sleeps, so a wakee stacked on its CPU may preempt it meanwhile.
 */
static void client_step(struct synth *s, struct synth_task *t)
{
	if (t->phase == PH_CLIENT_TAIL) {
		t->phase = PH_SEND;
		t->seg_left = synth_rand_exp(s, s->cfg->client_ns); /* handling the reply */
		synth_block(s, t);
		return;
	}
	s->queue[(s->q_head + s->q_len++) % s->cfg->clients] = t->idx;
	synth_wake(s, t, &s->tasks[s->dispatcher], true);
	t->phase = PH_CLIENT_TAIL;
	synth_segment(s, t, synth_rand_exp(s, s->cfg->wake_tail_ns));
}

static void dispatcher_step(struct synth *s, struct synth_task *d)
{
	const struct synth_config *cfg = s->cfg;
	struct synth_task *b;

	if (s->q_len && (b = pick_backend(s, s->queue[s->q_head]))) {
		b->request = s->queue[s->q_head];
		s->q_head = (s->q_head + 1) % cfg->clients;
		s->q_len--;
		b->in_pool = false;
		b->phase = PH_WORK_A;
		b->seg_left = synth_rand_exp(s, cfg->work_before_ns);
		synth_wake(s, d, b, false);
	}
	if (s->q_len && nr_idle_backends(s)) {
		synth_segment(s, d, synth_rand_exp(s, cfg->dispatch_ns));
		return;
	}
	d->seg_left = synth_rand_exp(s, cfg->dispatch_ns);
	synth_block(s, d);
}

/* s_lock's back-off: from 1 ms, growing by 1-2x, back to 1 ms past 100 ms */
#define BACKOFF_MIN_NS 1000000ull
#define BACKOFF_MAX_NS 100000000ull

/* t takes the free lock l and holds it for a while */
static void lock_take(struct synth *s, struct synth_task *t, int l)
{
	s->locks[l].holder = (int)(t - s->tasks);
	t->lock = l;
	t->phase = PH_HOLD;
	synth_segment(s, t, synth_rand_exp(s, s->cfg->lock_hold_ns));
}

/* spin_locks: the waiter t leaves the lock's list of waiters (it is anywhere in it) */
static void waiter_unlink(struct synth *s, struct synth_lock *lk, struct synth_task *t)
{
	int ti = (int)(t - s->tasks), prev = -1;

	for (int w = lk->head; w >= 0; prev = w, w = s->tasks[w].next_waiter) {
		if (w != ti)
			continue;
		if (prev >= 0)
			s->tasks[prev].next_waiter = t->next_waiter;
		else
			lk->head = t->next_waiter;
		if (lk->tail == ti)
			lk->tail = prev;
		break;
	}
	t->next_waiter = -1;
	t->wait_lock = -1;
}

/* spin_locks: t spun for its lock: take it, or sleep the back-off and spin again */
static void spin_step(struct synth *s, struct synth_task *t)
{
	struct synth_lock *lk = &s->locks[t->wait_lock];
	int l = t->wait_lock;

	if (lk->holder < 0) {
		s->truth.lock_wait_ns += s->cfg->start_ns + s->now - t->wait_ts;
		waiter_unlink(s, lk, t);
		lock_take(s, t, l);
		return;
	}
	t->seg_left = s->cfg->spin_ns;
	synth_block(s, t);
	synth_backoff(s, t, t->backoff_ns);
	t->backoff_ns += synth_rand(s) % (t->backoff_ns + 1);
	if (t->backoff_ns > BACKOFF_MAX_NS)
		t->backoff_ns = BACKOFF_MIN_NS;
}

static void lock_acquire(struct synth *s, struct synth_task *t)
{
	const struct synth_config *cfg = s->cfg;
	int l = (int)(synth_rand(s) % (uint64_t)cfg->locks);
	struct synth_lock *lk = &s->locks[l];
	int ti = (int)(t - s->tasks);

	s->truth.lock_acquires++;
	if (lk->holder < 0) {
		lock_take(s, t, l);
		return;
	}
	s->truth.lock_waits++;
	t->wait_lock = l;
	t->wait_ts = cfg->start_ns + s->now;
	t->next_waiter = -1;
	if (lk->tail >= 0)
		s->tasks[lk->tail].next_waiter = ti;
	else
		lk->head = ti;
	lk->tail = ti;
	if (cfg->spin_locks) {
		t->phase = PH_SPIN;
		t->backoff_ns = BACKOFF_MIN_NS;
		synth_segment(s, t, cfg->spin_ns);
		synth_lhp_add_waiter(s, &s->tasks[lk->holder], t);
		return;
	}
	t->phase = PH_HOLD;
	t->seg_left = synth_rand_exp(s, cfg->lock_hold_ns);
	synth_block(s, t);
	synth_lhp_add_waiter(s, &s->tasks[lk->holder], t);
}

/* LWLockRelease(): hand the lock to the first waiter and wake it, waker = the releaser */
static void lock_release(struct synth *s, struct synth_task *t)
{
	struct synth_lock *lk = &s->locks[t->lock];
	struct synth_task *w;
	uint64_t now_ts = s->cfg->start_ns + s->now;

	if (lk->head < 0 || s->cfg->spin_locks) { /* a spinlock's waiters find it free */
		lk->holder = -1;
		t->lock = -1;
		return;
	}
	w = &s->tasks[lk->head];
	lk->head = w->next_waiter;
	if (lk->head < 0)
		lk->tail = -1;
	w->next_waiter = -1;
	w->wait_lock = -1;
	w->lock = t->lock;
	lk->holder = (int)(w - s->tasks);
	t->lock = -1;
	s->truth.lock_wait_ns += now_ts > w->sleep_ts ? now_ts - w->sleep_ts : 0;
	synth_wake(s, t, w, false);
}

static void backend_step(struct synth *s, struct synth_task *t)
{
	const struct synth_config *cfg = s->cfg;
	struct synth_task *d = &s->tasks[s->dispatcher];

	switch (t->phase) {
	case PH_WORK_A:
		if ((int)(synth_rand(s) % 100) < cfg->lock_pct) {
			lock_acquire(s, t);
			return;
		}
		break;
	case PH_HOLD:
		lock_release(s, t);
		break;
	case PH_SPIN:
		spin_step(s, t);
		return;
	case PH_WORK_B: /* reply */
		s->truth.transactions++;
		synth_wake(s, t, &s->tasks[s->client0 + t->request], true);
		t->request = -1;
		t->phase = PH_BACKEND_TAIL;
		synth_segment(s, t, synth_rand_exp(s, cfg->wake_tail_ns));
		return;
	default: /* PH_BACKEND_TAIL: back to the pool */
		t->in_pool = true;
		if (s->q_len)
			synth_wake(s, t, d, true);
		t->phase = PH_WORK_A;
		synth_block(s, t);
		return;
	}
	t->phase = PH_WORK_B;
	synth_segment(s, t, synth_rand_exp(s, cfg->work_after_ns));
}

void synth_work_step(struct synth *s, struct synth_task *t)
{
	switch (t->role) {
	case ROLE_KWORKER:
		for (int i = 0; i < s->cfg->clients; i++)
			if (s->tasks[s->client0 + i].cpu == t->cpu &&
			    s->tasks[s->client0 + i].phase == PH_START)
				synth_wake(s, t, &s->tasks[s->client0 + i], false);
		t->seg_left = 0;
		synth_block(s, t);
		break;
	case ROLE_CLIENT:
		client_step(s, t);
		break;
	case ROLE_DISPATCHER:
		dispatcher_step(s, t);
		break;
	case ROLE_BACKEND:
		backend_step(s, t);
		break;
	}
}
