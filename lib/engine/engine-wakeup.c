// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target-CPU choice: one record per sched_wakeup / sched_wakeup_new (docs/metrics.md,
 * "Per-wakeup record"). The waker comes from the matching sched_waking, which fires in
 * the waker's context; the state of the chosen CPU and its LLC is taken at the
 * sched_wakeup, before the wakee's own claim; the record is final when the wakee first
 * runs (latency, run CPU, the runnable task it replaced).
 */
#include <string.h>

#include "engine-local.h"

static uint8_t relation(const struct sl_engine *e, int a, int b)
{
	if (!e->topo || a < 0 || b < 0)
		return SL_RREL_UNKNOWN;
	return (uint8_t)sl_policy_relation(&e->ptopo, a, b);
}

static void count(struct sl_window_rec *w, const struct sl_wakeup_rec *r)
{
	w->wakeups++;
	if (r->kind == SL_WAKE_NEW)
		w->wakeups_new++;
	w->class_prev[r->class_prev]++;
	w->class_waker[r->class_waker]++;
	w->target_state[r->target_state]++;
	w->missed_idle += r->missed_idle;
	w->missed_smt += r->missed_smt;
	w->stacked += r->target_state == SL_TS_CLAIMED;
	if (r->policy_known == (1 << SL_POL_COUNT) - 1) {
		unsigned int a = r->policy_agree;

		/* unrolled: the loop it replaces was a tenth of the engine's per-wakeup cost */
		_Static_assert(SL_POL_COUNT == 5, "one line per policy");
		w->policy_known++;
		w->policy_agree[0] += a & 1;
		w->policy_agree[1] += (a >> 1) & 1;
		w->policy_agree[2] += (a >> 2) & 1;
		w->policy_agree[3] += (a >> 3) & 1;
		w->policy_agree[4] += (a >> 4) & 1;
	}
	if (r->latency_ns != SL_REC_NO_TIME)
		sl_hist_add(&w->latency, r->latency_ns);
}

static void emit(struct sl_engine *e, struct sl_task *t)
{
	t->wakeup_pending = false;
	e->stats.wakeups++;
	count(window_for(e, t->pend.ts_ns, 0), &t->pend);
	if (t->group)
		count(window_for(e, t->pend.ts_ns, t->group), &t->pend);
	if (e->sink.wakeup)
		e->sink.wakeup(e->sink.ctx, &t->pend);
}

void wakeup_censor(struct sl_engine *e, struct sl_task *t)
{
	if (!t->wakeup_pending)
		return;
	e->stats.wakeups_censored++;
	engine_unclaim(e, t);
	emit(e, t);
}

/* The task ran on cpu from an untraced switch: placement known, latency not. */
void wakeup_on_unseen_switch_in(struct sl_engine *e, struct sl_task *t, int cpu)
{
	if (!t->wakeup_pending)
		return;
	t->pend.run_cpu = cpu;
	e->stats.wakeups_unseen_run++;
	engine_unclaim(e, t);
	emit(e, t);
}

void wakeup_drop(struct sl_engine *e, struct sl_task *t)
{
	if (!t->wakeup_pending)
		return;
	t->wakeup_pending = false;
	engine_unclaim(e, t);
}

void wakeup_on_waking(struct sl_engine *e, const struct sl_event *ev)
{
	struct sl_task *p = engine_task(e, ev->wake.pid, ev->wake.comm, ev->ts_ns);
	struct sl_task *waker = engine_task(e, ev->common_pid, NULL, ev->ts_ns);

	if (!p)
		return;
	p->waking_pending = true;
	p->waking_ns = ev->ts_ns;
	p->waker_pid = ev->common_pid;
	p->waker_cpu = ev->cpu;
	p->waker_irq = ev->wake.irq;
	p->waking_prev_cpu = ev->wake.target_cpu; /* task_cpu(p) before selection */
	/* an interrupt's wake (a timer, a device) is made by no task */
	preempt_on_woken(e, ev->wake.irq ? NULL : waker, p, ev->wake.irq, ev->ts_ns);
}

static void target_state(struct sl_engine *e, struct sl_wakeup_rec *r)
{
	const struct cpu_state *c;
	bool missed;

	if (!engine_cpu_known(e, r->target_cpu)) {
		r->target_state = SL_TS_UNKNOWN;
		return;
	}
	c = &e->cpus[r->target_cpu];
	if (c->curr != 0)
		r->target_state = SL_TS_BUSY;
	else if (c->claims > 0)
		r->target_state = SL_TS_CLAIMED;
	else
		r->target_state = SL_TS_IDLE;
	if (!sl_policy_cpu_valid(&e->ptopo, r->target_cpu))
		return;
	r->llc_idle = (uint16_t)sl_policy_llc_avail(&e->ptopo, r->target_cpu);
	missed = r->target_state == SL_TS_BUSY || r->target_state == SL_TS_CLAIMED;
	r->missed_idle = missed && r->llc_idle > 0;
	/* refined (docs/metrics.md): a sibling idle beside an idle target is no miss */
	r->missed_smt = missed && sl_policy_sibling_avail(&e->ptopo, r->target_cpu);
}

void wakeup_on_wakeup(struct sl_engine *e, const struct sl_event *ev)
{
	struct sl_task *p = engine_task(e, ev->wake.pid, ev->wake.comm, ev->ts_ns);
	struct sl_wakeup_rec *r;
	bool is_new = ev->type == SL_EV_WAKEUP_NEW;

	if (!p)
		return;
	/* A task that never got off the runqueue (it was about to sleep, or preempted) is
	 * "woken" without being placed: ttwu_runnable() still fires sched_wakeup. Nothing was
	 * chosen, so there is no record, as in perf sched latency. */
	if (p->state == SL_TASK_RUNNING || p->state == SL_TASK_RUNNABLE) {
		p->waking_pending = false;
		return;
	}
	r = &p->pend;
	memset(r, 0, sizeof(*r));
	r->run_id = e->cfg.run_id;
	r->ts_ns = ev->ts_ns;
	r->latency_ns = SL_REC_NO_TIME;
	r->pid = p->pid;
	r->kind = is_new ? SL_WAKE_NEW : SL_WAKE_WAKEUP;
	r->target_cpu = ev->wake.target_cpu;
	r->run_cpu = SL_REC_NONE;
	r->waker_pid = r->waker_cpu = r->prev_cpu = SL_REC_NONE;

	if (is_new) {
		/* wake_up_new_task() runs in the parent, on the CPU it forked on */
		r->waker_pid = ev->common_pid;
		r->waker_cpu = ev->cpu;
		r->prev_cpu = p->cpu >= 0 ? p->cpu : ev->cpu;
	} else {
		if (p->waking_pending) {
			r->waker_pid = p->waker_pid;
			r->waker_cpu = p->waker_cpu;
			r->waker_irq = p->waker_irq;
		} else if (e->cfg.waker_from_wakeup) {
			r->waker_pid = ev->common_pid;
			r->waker_cpu = ev->cpu;
			/* sched_wakeup's context is often the target CPU's IPI: no irq */
			preempt_on_woken(e, engine_task(e, ev->common_pid, NULL, ev->ts_ns), p, 0,
					 ev->ts_ns);
		}
		r->prev_cpu = p->waking_pending && p->waking_prev_cpu >= 0 ? p->waking_prev_cpu :
									     p->cpu;
	}
	if (r->prev_cpu < 0)
		r->prev_cpu = SL_REC_NONE;
	r->class_prev = relation(e, r->target_cpu, r->prev_cpu);
	r->class_waker = relation(e, r->target_cpu, r->waker_cpu);
	target_state(e, r);
	if (!is_new && e->topo)
		sl_policy_fingerprint(&e->ptopo, r->target_cpu, r->prev_cpu, r->waker_cpu,
				      &r->policy_known, &r->policy_agree);

	p->waking_pending = false;
	p->wakeup_pending = true;
	p->state = SL_TASK_RUNNABLE;
	p->cpu = r->target_cpu;
	engine_claim(e, p, r->target_cpu);
}

void wakeup_on_switch_in(struct sl_engine *e, struct sl_task *next, const struct sl_event *ev,
			 int32_t preempted_pid)
{
	if (!next->wakeup_pending)
		return;
	next->pend.latency_ns = ev->ts_ns - next->pend.ts_ns;
	next->pend.run_cpu = ev->cpu;
	next->pend.preempted_pid = preempted_pid;
	engine_unclaim(e, next);
	emit(e, next);
}
