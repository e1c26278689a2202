// SPDX-License-Identifier: GPL-2.0-only
/*
 * Preemptions and lock-holder preemption (DESIGN.md "Preemption and LHP").
 *
 * A preemption is a sched_switch whose prev was still runnable and whose next is a task.
 * Its record opens at t0 and waits for the victim V's next switch-in t1; then, for the
 * LHP horizon after t1, every wakeup made by V of a same-group task W that has been
 * asleep since before t1 makes W a waiter, costing t1 - max(tw, t0): W waited on
 * something V released only once it ran again. Hubs are the tasks that wake the most
 * distinct tasks of their group; their preemptions are flagged, with the wakeups they
 * made in the horizon after resuming (the ones the preemption delayed).
 *
 * Open records live in a pool indexed by int (stable across growth); the victim's task
 * entry points at them. The pool is capped; records are closed at the latest close_lag
 * after t0, censored if they could not finish.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine-local.h"

int preempt_init(struct sl_engine *e)
{
	e->preempt_cap = 1024;
	e->preempts = calloc(e->preempt_cap, sizeof(*e->preempts));
	if (!e->preempts)
		return -ENOMEM;
	for (int i = 0; i < e->preempt_cap; i++)
		e->preempts[i].next_free = i + 1 < e->preempt_cap ? i + 1 : -1;
	e->preempt_free = 0;
	return 0;
}

void preempt_free(struct sl_engine *e)
{
	free(e->preempts);
	e->preempts = NULL;
}

static int32_t alloc_record(struct sl_engine *e)
{
	int32_t idx;

	if (e->preempt_free < 0) {
		int32_t ncap = e->preempt_cap * 2;
		struct open_preempt *n;

		if ((size_t)e->preempt_cap >= e->cfg.max_open_preempts)
			return -1;
		if ((size_t)ncap > e->cfg.max_open_preempts)
			ncap = (int32_t)e->cfg.max_open_preempts;
		n = realloc(e->preempts, ncap * sizeof(*n));
		if (!n)
			return -1;
		memset(n + e->preempt_cap, 0, (ncap - e->preempt_cap) * sizeof(*n));
		for (int32_t i = e->preempt_cap; i < ncap; i++)
			n[i].next_free = i + 1 < ncap ? i + 1 : -1;
		e->preempt_free = e->preempt_cap;
		e->preempts = n;
		e->preempt_cap = ncap;
	}
	idx = e->preempt_free;
	e->preempt_free = e->preempts[idx].next_free;
	e->preempt_used++;
	if ((size_t)e->preempt_used > e->stats.open_preempts_peak)
		e->stats.open_preempts_peak = e->preempt_used;
	return idx;
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
}

/* Emits the record and frees its slot. censored: it could not run to completion. */
static void finish_record(struct sl_engine *e, int32_t idx, bool censored)
{
	struct open_preempt *o = &e->preempts[idx];

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

void preempt_on_switch(struct sl_engine *e, struct sl_task *prev, struct sl_task *next,
		       const struct sl_event *ev)
{
	const struct sl_ev_switch *sw = &ev->sw;
	struct open_preempt *o;
	int32_t idx;

	/* the victim of an earlier preemption runs again: t1 */
	if (next && next->off_preempt >= 0) {
		o = &e->preempts[next->off_preempt];
		o->resumed = true;
		o->t1 = ev->ts_ns;
		o->rec.off_ns = ev->ts_ns - o->rec.ts_ns;
		/* it feeds waiters until the horizon passes; the oldest resumed record of
		 * the task is finished early if it has more than SL_TASK_RESUMED */
		if (next->resumed[SL_TASK_RESUMED - 1] >= 0)
			finish_record(e, next->resumed[SL_TASK_RESUMED - 1], false);
		memmove(&next->resumed[1], &next->resumed[0],
			(SL_TASK_RESUMED - 1) * sizeof(next->resumed[0]));
		next->resumed[0] = next->off_preempt;
		next->off_preempt = -1;
	}

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
	o->rec.hub = prev->hub;
	prev->off_preempt = idx;
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

void preempt_on_woken(struct sl_engine *e, struct sl_task *waker, struct sl_task *wakee,
		      uint64_t ts)
{
	if (!waker || !wakee || waker == wakee)
		return;
	if (waker->group == wakee->group)
		note_wakee(waker, wakee);
	for (int i = 0; i < SL_TASK_RESUMED; i++) {
		struct open_preempt *o;
		uint64_t from;

		if (waker->resumed[i] < 0)
			continue;
		o = &e->preempts[waker->resumed[i]];
		if (ts > o->t1 + e->cfg.lhp_horizon_ns)
			continue;
		if (o->rec.hub && o->rec.delayed_wakeups < UINT16_MAX)
			o->rec.delayed_wakeups++;
		if (wakee->group != o->group || wakee->state != SL_TASK_SLEEPING ||
		    wakee->sleep_ns >= o->t1)
			continue;
		from = wakee->sleep_ns > o->rec.ts_ns ? wakee->sleep_ns : o->rec.ts_ns;
		if (o->rec.waiters < UINT16_MAX)
			o->rec.waiters++;
		o->rec.lhp_cost_ns += o->t1 - from;
	}
}

void preempt_sweep(struct sl_engine *e, uint64_t censor_before_ns, bool all)
{
	for (int32_t i = 0; i < e->preempt_cap; i++) {
		struct open_preempt *o = &e->preempts[i];

		if (!o->in_use)
			continue;
		if (o->resumed && e->now_ns > o->t1 + e->cfg.lhp_horizon_ns)
			finish_record(e, i, false);
		else if (all || o->rec.ts_ns < censor_before_ns)
			finish_record(e, i, true);
	}
}

/* The victim ran again from an untraced switch: its t1 is unknown, so is the LHP cost. */
void preempt_on_unseen_switch_in(struct sl_engine *e, struct sl_task *t)
{
	if (t->off_preempt >= 0)
		finish_record(e, t->off_preempt, true);
}

void preempt_drop_cpu(struct sl_engine *e, int cpu)
{
	for (int32_t i = 0; i < e->preempt_cap; i++)
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
 * At each window boundary the hubs of the window that ended are chosen: per group, the
 * hub_top tasks that woke at least hub_min_wakees distinct tasks of their group. They are
 * hubs for the next window, so the flag on a preemption never looks into the future.
 */
void hubs_on_boundary(struct sl_engine *e)
{
	struct sl_task **cand = NULL;
	size_t n = 0, cap = 0;

	sl_tasktab_foreach(&e->tasks, t)
	{
		t->hub = false;
		if (t->wakees >= e->cfg.hub_min_wakees) {
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
		memset(t->recent_wakees, 0, sizeof(t->recent_wakees));
	}
}
