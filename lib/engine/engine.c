// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's core: configuration, per-CPU and per-task state, the event dispatch, gaps,
 * window boundaries and the end of the stream. The analyses live in engine-wakeup.c,
 * engine-preempt.c and engine-window.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-local.h"

#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_MSEC 1000000ull

void sl_engine_config_default(struct sl_engine_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->window_ns = NSEC_PER_SEC;
	cfg->lhp_horizon_ns = 5 * NSEC_PER_MSEC;
	cfg->spin_horizon_ns = 100 * NSEC_PER_MSEC;
	cfg->group_mode = SL_GROUP_LEADER_COMM;
	cfg->max_groups = 16;
	cfg->hub_min_wakees = 4;
	cfg->hub_top = 3;
	cfg->max_tasks = 1 << 20;
	cfg->max_open_preempts = 1 << 20;
}

int sl_engine_new(const struct sl_engine_config *cfg, const struct sl_engine_sink *sink,
		  struct sl_engine **ret_engine)
{
	struct sl_engine *e;
	int err = -ENOMEM;

	if (!cfg->window_ns || cfg->max_groups < 0 || !cfg->max_tasks || !cfg->max_open_preempts ||
	    cfg->max_open_preempts > INT32_MAX)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->cfg = *cfg;
	if (e->cfg.spin_horizon_ns < e->cfg.lhp_horizon_ns)
		e->cfg.spin_horizon_ns = e->cfg.lhp_horizon_ns;
	if (!e->cfg.close_lag_ns)
		e->cfg.close_lag_ns = 2 * cfg->window_ns + e->cfg.spin_horizon_ns;
	if (sink)
		e->sink = *sink;
	e->topo = cfg->topo;
	e->nr_cpus = SL_TOPO_MAX_CPUS;
	e->cpus = calloc(e->nr_cpus, sizeof(*e->cpus));
	if (!e->cpus || sl_policy_topo_init(&e->ptopo, cfg->topo) ||
	    sl_tasktab_init(&e->tasks, cfg->max_tasks) || sl_groups_init(&e->groups) ||
	    preempt_init(e) || window_init(e))
		goto fail;
	*ret_engine = e;
	return 0;
fail:
	sl_engine_free(e);
	return err;
}

void sl_engine_free(struct sl_engine *e)
{
	if (!e)
		return;
	window_free(e);
	preempt_free(e);
	sl_groups_free(&e->groups);
	sl_tasktab_free(&e->tasks);
	sl_policy_topo_free(&e->ptopo);
	free(e->cpus);
	free(e);
}

int sl_engine_add_handler(struct sl_engine *e, const struct sl_sched_handler *h)
{
	if (e->nr_handlers >= MAX_HANDLERS)
		return -ENOSPC;
	e->handlers[e->nr_handlers++] = *h;
	return 0;
}

void sl_engine_get_stats(const struct sl_engine *e, struct sl_engine_stats *ret_stats)
{
	*ret_stats = e->stats;
	ret_stats->tasks = e->tasks.used;
}

uint64_t sl_engine_origin_ns(const struct sl_engine *e)
{
	return e->started ? e->origin_ns : 0;
}

bool engine_cpu_known(const struct sl_engine *e, int cpu)
{
	return cpu >= 0 && cpu < e->nr_cpus && e->cpus[cpu].known;
}

/* ---- tasks and groups ---- */

static void task_regroup(struct sl_engine *e, struct sl_task *t)
{
	char name[SL_GROUP_LEN];
	const char *comm = t->comm;

	switch (e->cfg.group_mode) {
	case SL_GROUP_TGID:
		if (t->tgid > 0) {
			snprintf(name, sizeof(name), "tgid:%d", t->tgid);
			comm = name;
		}
		break;
	case SL_GROUP_LEADER_COMM:
		if (t->tgid > 0 && t->tgid != t->pid) {
			struct sl_task *leader = sl_tasktab_find(&e->tasks, t->tgid);

			if (leader && leader->comm[0])
				comm = leader->comm;
		}
		break;
	case SL_GROUP_COMM:
		break;
	}
	t->group = sl_groups_intern(&e->groups, comm[0] ? comm : "(unknown)");
}

static void task_emit(struct sl_engine *e, const struct sl_task *t)
{
	struct sl_task_rec rec = {
		.run_id = e->cfg.run_id,
		.first_ns = t->first_ns,
		.pid = t->pid,
		.tgid = t->tgid > 0 ? t->tgid : SL_REC_NONE,
	};

	if (!e->sink.task)
		return;
	memcpy(rec.comm, t->comm, sizeof(rec.comm));
	snprintf(rec.grp, sizeof(rec.grp), "%s", sl_groups_name(&e->groups, t->group));
	e->sink.task(e->sink.ctx, &rec);
}

/* engine_task() (engine-local.h) when the hint does not settle it. */
struct sl_task *engine_task_slow(struct sl_engine *e, int32_t pid, const char *comm, uint64_t ts)
{
	struct sl_task *t;
	bool is_new;

	if (pid <= 0)
		return NULL;
	t = sl_tasktab_get(&e->tasks, pid, &is_new);
	if (!t) {
		e->stats.tasks_dropped++;
		return NULL;
	}
	e->task_hint[(uint32_t)pid % TASK_HINTS] = (uint32_t)(t - e->tasks.slots);
	if (is_new) {
		t->tgid = -1;
		t->cpu = -1;
		t->claim_cpu = -1;
		t->off_preempt = -1;
		t->chain_rec = -1;
		for (int i = 0; i < SL_TASK_RESUMED; i++)
			t->resumed[i] = -1;
		t->first_ns = ts;
		if (e->cfg.tgid_of)
			t->tgid = e->cfg.tgid_of(e->cfg.tgid_ctx, pid);
		if (e->tasks.used > e->stats.tasks_peak)
			e->stats.tasks_peak = e->tasks.used;
	}
	t->last_ns = ts;
	/* memcmp first: sources copy the same 16 bytes every time, so it nearly always
	 * settles the question without walking the string */
	if (comm && comm[0] && memcmp(t->comm, comm, SL_COMM_LEN) &&
	    strncmp(t->comm, comm, SL_COMM_LEN)) {
		memcpy(t->comm, comm, SL_COMM_LEN);
		t->comm[SL_COMM_LEN - 1] = '\0';
		task_regroup(e, t);
		task_emit(e, t);
	} else if (is_new) {
		task_regroup(e, t);
	}
	return t;
}

void sl_engine_set_tgid(struct sl_engine *e, int32_t pid, int32_t tgid)
{
	struct sl_task *t;

	if (sl_tasktab_reserve(&e->tasks, 1))
		return;
	t = engine_task(e, pid, NULL, e->now_ns);
	if (!t || t->tgid == tgid)
		return;
	t->tgid = tgid;
	task_regroup(e, t);
	if (t->comm[0])
		task_emit(e, t);
}

const char *sl_engine_task_group(const struct sl_engine *e, int32_t pid)
{
	const struct sl_task *t = sl_tasktab_find(&e->tasks, pid);

	return t ? sl_groups_name(&e->groups, t->group) : NULL;
}

/* ---- CPUs and claims ---- */

static inline void cpu_refresh(struct sl_engine *e, int cpu)
{
	struct cpu_state *c = &e->cpus[cpu];

	c->avail = c->known && c->curr == 0 && c->claims == 0;
	sl_policy_set(&e->ptopo, cpu, c->known, c->avail);
}

void engine_cpu_set(struct sl_engine *e, int cpu, bool known, int32_t curr)
{
	e->cpus[cpu].known = known;
	e->cpus[cpu].curr = curr;
	cpu_refresh(e, cpu);
}

void engine_claim(struct sl_engine *e, struct sl_task *t, int cpu)
{
	engine_unclaim(e, t);
	if (cpu < 0 || cpu >= e->nr_cpus)
		return;
	t->claim_cpu = cpu;
	t->claim_epoch = e->cpus[cpu].epoch;
	e->cpus[cpu].claims++;
	cpu_refresh(e, cpu);
}

void engine_unclaim(struct sl_engine *e, struct sl_task *t)
{
	int cpu = t->claim_cpu;

	if (cpu < 0)
		return;
	t->claim_cpu = -1;
	if (e->cpus[cpu].epoch != t->claim_epoch || e->cpus[cpu].claims <= 0)
		return;
	e->cpus[cpu].claims--;
	cpu_refresh(e, cpu);
}

/* ---- events ---- */

static void on_switch(struct sl_engine *e, const struct sl_event *ev)
{
	const struct sl_ev_switch *sw = &ev->sw;
	struct cpu_state *c = &e->cpus[ev->cpu];
	struct sl_task *prev = engine_task(e, sw->prev_pid, sw->prev_comm, ev->ts_ns);
	struct sl_task *next = engine_task(e, sw->next_pid, sw->next_comm, ev->ts_ns);
	bool runnable = sw->prev_state == 'R';

	if (c->known && c->since_exact && !e->cfg.no_slices && e->sink.slice) {
		struct sl_slice_rec s = {
			.run_id = e->cfg.run_id,
			.start_ns = c->since,
			.dur_ns = ev->ts_ns - c->since,
			.cpu = ev->cpu,
			.pid = sw->prev_pid,
			.prio = sw->prev_prio,
			.end_state = sw->prev_state,
			.end_preempt = sw->prev_preempt,
		};

		e->sink.slice(e->sink.ctx, &s);
	}

	preempt_on_switch(e, prev, next, ev);
	if (next)
		wakeup_on_switch_in(e, next, ev, runnable && sw->prev_pid > 0 ? sw->prev_pid : 0);

	if (prev) {
		/* a wakeup pending for a task that was in fact running (first seen through
		 * its wakeup, or seen wrongly across a gap) placed nothing: drop it */
		wakeup_drop(e, prev);
		prev->cpu = ev->cpu;
		if (runnable) {
			prev->state = SL_TASK_RUNNABLE;
		} else if (sw->prev_state == 'X' || sw->prev_state == 'Z') {
			prev->state = SL_TASK_DEAD;
		} else {
			prev->state = SL_TASK_SLEEPING;
			prev->sleep_ns = ev->ts_ns;
			preempt_on_sleep(prev, ev->ts_ns);
		}
	}
	if (next) {
		next->state = SL_TASK_RUNNING;
		next->cpu = ev->cpu;
		engine_unclaim(e, next);
	}
	window_for(e, ev->ts_ns, next ? next->group : 0)->switches++;
	if (next && next->group)
		window_for(e, ev->ts_ns, 0)->switches++;
	c->since = ev->ts_ns;
	c->since_exact = true;
	c->curr_prio = sw->next_prio;
	engine_cpu_set(e, ev->cpu, true, sw->next_pid);
}

/*
 * Every event names the task running on its CPU (common_pid, even in interrupt context).
 * If that is not the task we think runs there, a sched_switch is missing from the stream
 * with no gap marker: on some kernels a switch away from the idle task is not traced
 * (seen here on 6.18, in perf's recordings as well). The switch happened at an unknown
 * time since the CPU's last event: the new task's pending wakeup is closed with its
 * latency unknown, and the slices on each side of the missing switch are not emitted.
 */
static void observe_running(struct sl_engine *e, const struct sl_event *ev)
{
	struct cpu_state *c = &e->cpus[ev->cpu];
	struct sl_task *old, *now;

	if (!c->known || c->curr == ev->common_pid)
		return;
	e->stats.switch_mismatch++;
	old = sl_tasktab_find(&e->tasks, c->curr);
	if (old && old->state == SL_TASK_RUNNING && old->cpu == ev->cpu)
		old->state = SL_TASK_UNKNOWN;
	now = engine_task(e, ev->common_pid, NULL, ev->ts_ns);
	if (now) {
		wakeup_on_unseen_switch_in(e, now, ev->cpu);
		preempt_on_unseen_switch_in(e, now, ev->ts_ns);
		now->state = SL_TASK_RUNNING;
		now->cpu = ev->cpu;
		engine_unclaim(e, now);
	}
	c->since = ev->ts_ns;
	c->since_exact = false;
	engine_cpu_set(e, ev->cpu, true, ev->common_pid);
}

static void on_migrate(struct sl_engine *e, const struct sl_event *ev)
{
	struct sl_task *t = engine_task(e, ev->migrate.pid, ev->migrate.comm, ev->ts_ns);
	int dest = ev->migrate.dest_cpu;

	if (!t)
		return;
	/* a woken task moved before it ran: its claim moves with it */
	if (t->claim_cpu >= 0 && dest >= 0 && dest < e->nr_cpus)
		engine_claim(e, t, dest);
	if (dest >= 0 && dest < e->nr_cpus)
		t->cpu = dest;
	window_for(e, ev->ts_ns, 0)->migrations++;
	if (t->group)
		window_for(e, ev->ts_ns, t->group)->migrations++;
}

static void on_fork(struct sl_engine *e, const struct sl_event *ev)
{
	struct sl_task *parent =
		engine_task(e, ev->fork.parent_pid, ev->fork.parent_comm, ev->ts_ns);
	struct sl_task *child = engine_task(e, ev->fork.child_pid, ev->fork.child_comm, ev->ts_ns);

	(void)parent;
	if (child) {
		child->cpu = ev->cpu; /* task_cpu() of a new task is its parent's CPU */
		child->exiting = false; /* a reused pid */
	}
}

/*
 * Events were lost on cpu before ev: nothing that happened there can be trusted. The CPU
 * becomes unknown until its next switch, claims on it are void, and every task last seen
 * there loses its pending records and state (no inference across missing events).
 */
static void on_lost(struct sl_engine *e, const struct sl_event *ev)
{
	int cpu = ev->cpu;

	e->stats.gaps++;
	e->stats.lost_events += ev->lost.count;
	window_count_lost(e, ev->ts_ns, ev->lost.count);
	e->cpus[cpu].epoch++;
	e->cpus[cpu].claims = 0;
	engine_cpu_set(e, cpu, false, 0);
	sl_tasktab_foreach(&e->tasks, t)
	{
		if (t->cpu != cpu && t->claim_cpu != cpu && t->waker_cpu != cpu)
			continue;
		wakeup_drop(e, t);
		t->waking_pending = false;
		t->state = SL_TASK_UNKNOWN;
		t->claim_cpu = -1;
	}
	preempt_drop_cpu(e, cpu);
}

/* Called when stream time crosses a window boundary. */
static void on_boundary(struct sl_engine *e)
{
	uint64_t censor_before = e->now_ns > e->cfg.close_lag_ns ? e->now_ns - e->cfg.close_lag_ns :
								   0;

	hubs_on_boundary(e);
	/* records that started close_lag ago and are still open are closed censored, so
	 * that every window is complete when it is emitted */
	sl_tasktab_foreach(&e->tasks, t)
	{
		if (t->wakeup_pending && t->pend.ts_ns < censor_before)
			wakeup_censor(e, t);
	}
	preempt_sweep(e, censor_before, false);
	window_close_before(e, censor_before);
	/* dead tasks are removed between events, when no pointer into the table is held */
	for (size_t i = 0; i < e->tasks.cap; i++) {
		struct sl_task *t = &e->tasks.slots[i];

		while (t->pid && t->state == SL_TASK_DEAD && t->off_preempt < 0 &&
		       t->resumed[0] < 0 && t->resumed[1] < 0)
			sl_tasktab_remove(&e->tasks, t->pid); /* may shift another entry here */
	}
}

static void dispatch(struct sl_engine *e, const struct sl_event *ev)
{
	for (int i = 0; i < e->nr_handlers; i++) {
		const struct sl_sched_handler *h = &e->handlers[i];
		void (*fn)(void *, const struct sl_engine *, const struct sl_event *) = NULL;

		switch (ev->type) {
		case SL_EV_WAKING:
			fn = h->waking;
			break;
		case SL_EV_WAKEUP:
		case SL_EV_WAKEUP_NEW:
			fn = h->wakeup;
			break;
		case SL_EV_SWITCH:
			fn = h->sched_switch;
			break;
		case SL_EV_MIGRATE:
			fn = h->migrate;
			break;
		case SL_EV_FORK:
			fn = h->fork;
			break;
		case SL_EV_EXIT:
			fn = h->exit;
			break;
		case SL_EV_LOST:
			fn = h->lost;
			break;
		case SL_EV_FUTEX:
			fn = h->futex;
			break;
		}
		if (fn)
			fn(h->ctx, e, ev);
	}
}

static void feed_one(struct sl_engine *e, const struct sl_event *ev)
{
	if (ev->cpu >= e->nr_cpus || ev->type == 0 || ev->type >= SL_EV_TYPE_MAX) {
		e->stats.bad_cpu++;
		return;
	}
	if (!e->started) {
		e->started = true;
		e->origin_ns = ev->ts_ns;
		e->now_ns = ev->ts_ns;
		e->next_boundary_ns = ev->ts_ns + e->cfg.window_ns;
	}
	if (ev->ts_ns < e->now_ns) {
		e->stats.out_of_order++;
		return;
	}
	e->now_ns = ev->ts_ns;
	for (int crossed = 0; e->now_ns >= e->next_boundary_ns; crossed++) {
		/* a second boundary with no event between leaves the state as any further one
		 * would (no wakees, so no hubs): skip the rest of a long silence at once, so
		 * a bogus far-future timestamp cannot spin here for years of windows */
		if (crossed == 2) {
			e->next_boundary_ns += (e->now_ns - e->next_boundary_ns) /
					       e->cfg.window_ns * e->cfg.window_ns;
		}
		on_boundary(e);
		e->next_boundary_ns += e->cfg.window_ns;
	}
	/* room for the up to three tasks one event may create (two it names, one running):
	 * no pointer into the table moves while an event is handled */
	if (sl_tasktab_reserve(&e->tasks, 3)) {
		e->stats.tasks_dropped++;
		return;
	}
	e->stats.events[ev->type]++;
	window_count_event(e, ev->ts_ns);
	if (ev->type != SL_EV_LOST)
		observe_running(e, ev);
	dispatch(e, ev);

	switch (ev->type) {
	case SL_EV_WAKING:
		wakeup_on_waking(e, ev);
		break;
	case SL_EV_WAKEUP:
	case SL_EV_WAKEUP_NEW:
		wakeup_on_wakeup(e, ev);
		break;
	case SL_EV_SWITCH:
		on_switch(e, ev);
		break;
	case SL_EV_MIGRATE:
		on_migrate(e, ev);
		break;
	case SL_EV_FORK:
		on_fork(e, ev);
		break;
	case SL_EV_EXIT: {
		struct sl_task *t = engine_task(e, ev->exit.pid, ev->exit.comm, ev->ts_ns);

		if (t)
			t->exiting = true;
		break;
	}
	case SL_EV_LOST:
		on_lost(e, ev);
		break;
	case SL_EV_FUTEX:
		preempt_on_futex(e, ev);
		break;
	}
}

void sl_engine_feed(struct sl_engine *e, const struct sl_event *ev, size_t n)
{
	if (e->finished)
		return;
	for (size_t i = 0; i < n; i++)
		feed_one(e, &ev[i]);
}

void sl_engine_finish(struct sl_engine *e, uint64_t end_ns)
{
	if (e->finished)
		return;
	e->finished = true;
	if (!e->started)
		return;
	if (end_ns < e->now_ns)
		end_ns = e->now_ns;
	while (end_ns >= e->next_boundary_ns) {
		e->now_ns = e->next_boundary_ns;
		on_boundary(e);
		e->next_boundary_ns += e->cfg.window_ns;
	}
	e->now_ns = end_ns;
	/* the slices still running are cut at the end, with no end state */
	for (int cpu = 0; cpu < e->nr_cpus && !e->cfg.no_slices && e->sink.slice; cpu++) {
		struct cpu_state *c = &e->cpus[cpu];
		struct sl_slice_rec s = {
			.run_id = e->cfg.run_id,
			.start_ns = c->since,
			.dur_ns = end_ns - c->since,
			.cpu = cpu,
			.pid = c->curr,
			.prio = c->curr_prio,
		};

		if (c->known)
			e->sink.slice(e->sink.ctx, &s);
	}
	sl_tasktab_foreach(&e->tasks, t)
	{
		if (t->wakeup_pending)
			wakeup_censor(e, t);
	}
	hubs_on_boundary(e); /* the hubs of the last, partial window judge its records */
	preempt_sweep(e, UINT64_MAX, true);
	if (end_ns > e->origin_ns)
		window_extend(e, end_ns - 1);
	window_close_before(e, UINT64_MAX);
}
