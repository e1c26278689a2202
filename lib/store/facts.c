// SPDX-License-Identifier: GPL-2.0-only
/*
 * The raw-facts handler. It mirrors the two pieces of engine state that decide whether a
 * switch leaves a slice behind (is the CPU known, was its current task switched in by a
 * traced switch) and keeps the newest switch of each CPU pending: that switch is implied
 * by the slices only if the next slice on the CPU starts with the task it switched in, so
 * it is written when the next switch, a gap or an untraced switch shows otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "facts.h"
#include "store.h"
#include "topo.h"

struct fcpu {
	bool known; /* a switch was seen and no gap since (the engine's cpu_state.known) */
	bool exact; /* curr came from a traced switch (cpu_state.since_exact) */
	bool pend; /* pend_ev is the newest switch and not written yet */
	int32_t curr;
	uint32_t pend_seq;
	struct sl_event pend_ev;
};

struct comm_slot {
	int32_t pid; /* 0: free */
	char comm[SL_COMM_LEN];
};

struct sl_facts {
	struct sl_writer *w;
	int64_t run_id;
	uint64_t rows;
	uint64_t ts;
	uint32_t seq; /* of the event being handled among those at ts */
	bool started;
	struct fcpu *cpus;
	struct comm_slot *comms; /* pid -> last comm, open addressing */
	size_t comm_cap, comm_used;
};

struct sl_facts *sl_facts_new(struct sl_writer *w, int64_t run_id)
{
	struct sl_facts *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->w = w;
	f->run_id = run_id;
	f->cpus = calloc(SL_TOPO_MAX_CPUS, sizeof(*f->cpus));
	f->comm_cap = 4096;
	f->comms = calloc(f->comm_cap, sizeof(*f->comms));
	if (!f->cpus || !f->comms) {
		sl_facts_free(f);
		return NULL;
	}
	return f;
}

void sl_facts_free(struct sl_facts *f)
{
	if (!f)
		return;
	free(f->cpus);
	free(f->comms);
	free(f);
}

uint64_t sl_facts_rows(const struct sl_facts *f)
{
	return f->rows;
}

static struct sl_fact_rec *rec_init(struct sl_facts *f, struct sl_fact_rec *r, uint8_t kind,
				    const struct sl_event *ev, uint32_t seq)
{
	memset(r, 0, sizeof(*r));
	r->run_id = f->run_id;
	r->ts_ns = ev->ts_ns;
	r->seq = seq;
	r->cpu = ev->cpu;
	r->common_pid = ev->common_pid;
	r->kind = kind;
	return r;
}

static void push(struct sl_facts *f, const struct sl_fact_rec *r)
{
	sl_writer_push_fact(f->w, r);
	f->rows++;
}

static void push_switch(struct sl_facts *f, const struct sl_event *ev, uint32_t seq)
{
	struct sl_fact_rec r;

	rec_init(f, &r, SL_EV_SWITCH, ev, seq);
	r.pid = ev->sw.prev_pid;
	r.arg1 = ev->sw.next_pid;
	r.arg2 = ev->sw.prev_prio;
	r.arg3 = ev->sw.next_prio;
	r.txt[0] = ev->sw.prev_state;
	r.txt[1] = ev->sw.prev_preempt ? '+' : 0;
	push(f, &r);
}

static void flush_pend(struct sl_facts *f, struct fcpu *c)
{
	if (c->pend)
		push_switch(f, &c->pend_ev, c->pend_seq);
	c->pend = false;
}

static bool comm_grow(struct sl_facts *f)
{
	size_t cap = f->comm_cap * 2;
	struct comm_slot *n = calloc(cap, sizeof(*n));

	if (!n)
		return false;
	for (size_t i = 0; i < f->comm_cap; i++) {
		size_t j;

		if (!f->comms[i].pid)
			continue;
		for (j = (uint32_t)f->comms[i].pid * 2654435761u & (cap - 1); n[j].pid;
		     j = (j + 1) & (cap - 1))
			;
		n[j] = f->comms[i];
	}
	free(f->comms);
	f->comms = n;
	f->comm_cap = cap;
	return true;
}

/* The engine renames a task (and may regroup it) whenever an event names it differently. */
static void note_comm(struct sl_facts *f, const struct sl_event *ev, int32_t pid, const char *comm)
{
	struct sl_fact_rec r;
	size_t i;

	if (pid <= 0 || !comm[0])
		return;
	if (f->comm_used * 2 >= f->comm_cap && !comm_grow(f))
		return;
	for (i = (uint32_t)pid * 2654435761u & (f->comm_cap - 1); f->comms[i].pid;
	     i = (i + 1) & (f->comm_cap - 1)) {
		if (f->comms[i].pid != pid)
			continue;
		/* memcmp first, as the engine does: sources copy the same 16 bytes every time,
		 * so it nearly always settles it inline (strncmp's calls were 2.5% of an import) */
		if (!memcmp(f->comms[i].comm, comm, SL_COMM_LEN) ||
		    !strncmp(f->comms[i].comm, comm, SL_COMM_LEN))
			return;
		break;
	}
	if (!f->comms[i].pid) {
		f->comms[i].pid = pid;
		f->comm_used++;
	}
	memcpy(f->comms[i].comm, comm, SL_COMM_LEN);
	f->comms[i].comm[SL_COMM_LEN - 1] = '\0';
	rec_init(f, &r, SL_FACT_COMM, ev, f->seq);
	r.pid = pid;
	memcpy(r.txt, f->comms[i].comm, SL_COMM_LEN);
	push(f, &r);
}

static void on_switch(struct sl_facts *f, struct fcpu *c, const struct sl_event *ev)
{
	const struct sl_ev_switch *sw = &ev->sw;
	bool implied = c->known && c->exact && ev->common_pid == sw->prev_pid;

	note_comm(f, ev, sw->prev_pid, sw->prev_comm);
	note_comm(f, ev, sw->next_pid, sw->next_comm);
	/* the pending switch is implied only if this slice is of the task it switched in */
	if (c->pend &&
	    (sw->prev_pid != c->pend_ev.sw.next_pid || sw->prev_prio != c->pend_ev.sw.next_prio))
		flush_pend(f, c);
	c->pend = false;
	if (!implied) {
		push_switch(f, ev, f->seq);
	} else {
		c->pend = true;
		c->pend_ev = *ev;
		c->pend_seq = f->seq;
	}
	c->known = true;
	c->exact = true;
	c->curr = sw->next_pid;
}

static void on_event(void *ctx, const struct sl_engine *e, const struct sl_event *ev)
{
	struct sl_facts *f = ctx;
	struct fcpu *c = &f->cpus[ev->cpu];
	struct sl_fact_rec r;

	(void)e;
	if (f->started && ev->ts_ns == f->ts) {
		f->seq++;
	} else {
		f->ts = ev->ts_ns;
		f->seq = 0;
		f->started = true;
	}
	/* the engine's observe_running(): a task runs that no traced switch put there */
	if (ev->type != SL_EV_LOST && c->known && c->curr != ev->common_pid) {
		flush_pend(f, c);
		push(f, rec_init(f, &r, SL_FACT_RUNNING, ev, f->seq));
		c->exact = false;
		c->curr = ev->common_pid;
	}
	rec_init(f, &r, (uint8_t)ev->type, ev, f->seq);
	switch (ev->type) {
	case SL_EV_SWITCH:
		on_switch(f, c, ev);
		return;
	case SL_EV_WAKING:
	case SL_EV_WAKEUP:
	case SL_EV_WAKEUP_NEW:
		note_comm(f, ev, ev->wake.pid, ev->wake.comm);
		r.pid = ev->wake.pid;
		r.arg1 = ev->wake.target_cpu;
		r.arg2 = ev->wake.irq;
		break;
	case SL_EV_MIGRATE:
		note_comm(f, ev, ev->migrate.pid, ev->migrate.comm);
		r.pid = ev->migrate.pid;
		r.arg1 = ev->migrate.orig_cpu;
		r.arg2 = ev->migrate.dest_cpu;
		break;
	case SL_EV_FORK:
		note_comm(f, ev, ev->fork.parent_pid, ev->fork.parent_comm);
		note_comm(f, ev, ev->fork.child_pid, ev->fork.child_comm);
		r.pid = ev->fork.parent_pid;
		r.arg1 = ev->fork.child_pid;
		break;
	case SL_EV_EXIT:
		note_comm(f, ev, ev->exit.pid, ev->exit.comm);
		r.pid = ev->exit.pid;
		break;
	case SL_EV_LOST:
		flush_pend(f, c);
		c->known = false;
		r.arg1 = (int64_t)ev->lost.count;
		break;
	case SL_EV_FUTEX:
		r.kind = SL_FACT_FUTEX;
		r.arg1 = (int64_t)ev->futex.uaddr;
		r.arg2 = (int32_t)ev->futex.op;
		break;
	default:
		return;
	}
	push(f, &r);
}

struct sl_sched_handler sl_facts_handler(struct sl_facts *f)
{
	return (struct sl_sched_handler){
		.ctx = f,
		.waking = on_event,
		.wakeup = on_event,
		.sched_switch = on_event,
		.migrate = on_event,
		.fork = on_event,
		.exit = on_event,
		.lost = on_event,
		.futex = on_event,
	};
}

int sl_facts_mark_run(struct sl_store *store, int64_t run_id)
{
	return sl_store_run_set_facts(store, run_id);
}
