// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stored run -> ftrace text. A run with raw facts (lib/store/facts.h) is replayed exactly: its
 * facts are the events verbatim, the other switches are rebuilt from consecutive slices
 * and take the positions among same-timestamp events that no fact holds, and comms follow
 * the comm facts in time order. A run without facts (stored before schema 4) is
 * approximated: events are regenerated from the derived rows, sorted by timestamp (at
 * equal times: waking, wakeup, migrate, then switch, the kernel's order within one
 * wakeup), then a replay over the sorted stream fills in the context pid of each line
 * (the task running on that CPU then), which the engine checks against its own state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "event.h"
#include "export-text.h"
#include "facts.h"
#include "store.h"
#include "store-query.h"
#include "topo.h"

struct item {
	struct sl_event ev;
	uint8_t order; /* tie-break at equal timestamps */
	uint64_t seq;
};

struct task {
	char comm[SL_COMM_LEN];
	int32_t tgid;
};

/* A slice, for finding where a waker ran. */
struct span {
	uint64_t start, end;
	int32_t pid;
};

struct exp {
	struct sl_store *store;
	struct span *spans; /* sorted by cpu, start */
	size_t nr_spans, cap_spans;
	size_t span_first[SL_TOPO_MAX_CPUS + 1]; /* per CPU: its first span */
	int64_t run_id;
	struct item *items;
	size_t n, cap;
	struct task *tasks;
	size_t nr_tasks;
	bool waker_from_wakeup;
	int64_t end_ns;
	bool has_facts; /* runs.facts */
	struct item *facts; /* sorted by ts, seq, comm/running first */
	size_t nr_facts, cap_facts;
	uint64_t *fact_keys; /* (cpu, ts) of switch and running facts: no switch from slices */
	size_t nr_keys, cap_keys;
	char (*cur)[SL_COMM_LEN]; /* pid -> comm at this point of the replay */
	size_t nr_cur;
	struct sl_export_slice slice; /* what is printed; to_ns UINT64_MAX: to the end */
};

/* Whether an event at ts is printed: inside the slice. */
static bool in_slice(const struct exp *x, uint64_t ts)
{
	return ts >= x->slice.from_ns && ts < x->slice.to_ns;
}

/* Whether the slice's line budget is spent (the caller stops with -E2BIG). */
static bool over_budget(const struct exp *x, const struct sl_export_stats *st)
{
	return x->slice.max_lines && st->lines >= x->slice.max_lines;
}

static struct item *add(struct exp *x, uint16_t type, uint64_t ts, int cpu, uint8_t order)
{
	struct item *it;

	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 65536;
		struct item *p = realloc(x->items, cap * sizeof(*p));

		if (!p)
			return NULL;
		x->items = p;
		x->cap = cap;
	}
	it = &x->items[x->n];
	memset(it, 0, sizeof(*it));
	it->ev.type = type;
	it->ev.ts_ns = ts;
	it->ev.cpu = (uint16_t)cpu;
	it->order = order;
	it->seq = x->n++;
	return it;
}

static const char *comm_of(const struct exp *x, int32_t pid)
{
	if (pid >= 0 && (size_t)pid < x->nr_tasks && x->tasks[pid].comm[0])
		return x->tasks[pid].comm;
	return "<...>";
}

static void set_comm(const struct exp *x, int32_t pid, int cpu, char *out)
{
	if (pid == 0)
		snprintf(out, SL_COMM_LEN, "swapper/%d", cpu);
	else
		snprintf(out, SL_COMM_LEN, "%s", comm_of(x, pid));
}

static int add_task(void *ctx, const struct sl_task_rec *t)
{
	struct exp *x = ctx;

	if (t->pid < 0 || t->pid > 4194304)
		return 0;
	if ((size_t)t->pid >= x->nr_tasks) {
		size_t len = x->nr_tasks ? x->nr_tasks : 4096;
		struct task *p;

		while (len <= (size_t)t->pid)
			len *= 2;
		p = realloc(x->tasks, len * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + x->nr_tasks, 0, (len - x->nr_tasks) * sizeof(*p));
		x->tasks = p;
		x->nr_tasks = len;
	}
	memcpy(x->tasks[t->pid].comm, t->comm, SL_COMM_LEN);
	x->tasks[t->pid].tgid = t->tgid;
	return 0;
}

static int load_run(struct exp *x)
{
	struct sl_export_run run;
	int err = sl_query_export_run(x->store, x->run_id, &run);

	if (err)
		return err;
	x->waker_from_wakeup = run.waker_from_wakeup;
	x->end_ns = run.end_ns;
	x->has_facts = run.has_facts;
	return sl_query_run_tasks(x->store, x->run_id, add_task, x);
}

static void set_state(struct sl_ev_switch *sw, const char *s)
{
	sw->prev_state = s && s[0] ? s[0] : 'R';
	sw->prev_preempt = s && s[0] && s[1] == '+';
}

static uint64_t fact_key(int cpu, uint64_t ts)
{
	return (uint64_t)cpu << 52 | (ts & ((1ull << 52) - 1));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_fact_key(const struct exp *x, int cpu, uint64_t ts)
{
	uint64_t k = fact_key(cpu, ts);

	return bsearch(&k, x->fact_keys, x->nr_keys, sizeof(k), cmp_u64) != NULL;
}

/* The type of an export item: an event type, or one of these for the facts that are none. */
enum { ITEM_COMM = SL_EV_TYPE_MAX, ITEM_RUNNING };

static uint16_t item_type(uint8_t kind)
{
	switch (kind) {
	case SL_FACT_COMM:
		return ITEM_COMM;
	case SL_FACT_RUNNING:
		return ITEM_RUNNING;
	case SL_FACT_FUTEX:
		return SL_EV_FUTEX;
	}
	return kind;
}

/* A fact as an event (seq in item.seq), and the key of a switch it holds. */
static int add_fact(void *ctx, const struct sl_fact_rec *f)
{
	struct exp *x = ctx;
	struct item *it;
	struct sl_event *ev;

	if (f->cpu < 0 || f->cpu >= SL_TOPO_MAX_CPUS || f->kind <= 0 || f->kind > SL_FACT_FUTEX)
		return 0;
	if (x->nr_facts == x->cap_facts) {
		size_t cap = x->cap_facts ? 2 * x->cap_facts : 65536;
		struct item *p = realloc(x->facts, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		x->facts = p;
		x->cap_facts = cap;
	}
	it = &x->facts[x->nr_facts++];
	memset(it, 0, sizeof(*it));
	it->seq = f->seq;
	ev = &it->ev;
	ev->type = item_type(f->kind);
	ev->ts_ns = f->ts_ns;
	ev->cpu = (uint16_t)f->cpu;
	ev->common_pid = f->common_pid;
	switch (f->kind) {
	case SL_EV_SWITCH:
		ev->sw.prev_pid = f->pid;
		ev->sw.next_pid = (int32_t)f->arg1;
		ev->sw.prev_prio = (int16_t)f->arg2;
		ev->sw.next_prio = (int16_t)f->arg3;
		set_state(&ev->sw, f->txt);
		break;
	case SL_EV_MIGRATE:
		ev->migrate.pid = f->pid;
		ev->migrate.orig_cpu = (int32_t)f->arg1;
		ev->migrate.dest_cpu = f->arg2;
		break;
	case SL_EV_FORK:
		ev->fork.parent_pid = f->pid;
		ev->fork.child_pid = (int32_t)f->arg1;
		break;
	case SL_EV_EXIT:
		ev->exit.pid = f->pid;
		break;
	case SL_EV_LOST:
		ev->lost.count = (uint64_t)f->arg1;
		break;
	case SL_FACT_FUTEX:
		ev->futex.uaddr = (uint64_t)f->arg1;
		ev->futex.op = (uint32_t)f->arg2;
		break;
	default: /* wakes; comm (txt in wake.comm); running */
		ev->wake.pid = f->pid;
		ev->wake.target_cpu = (int32_t)f->arg1;
		ev->wake.irq = (uint8_t)f->arg2;
		memcpy(ev->wake.comm, f->txt, SL_COMM_LEN);
		break;
	}
	if (f->kind != SL_EV_SWITCH && f->kind != SL_FACT_RUNNING)
		return 0;
	if (x->nr_keys == x->cap_keys) {
		size_t cap = x->cap_keys ? 2 * x->cap_keys : 4096;
		uint64_t *k = realloc(x->fact_keys, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		x->fact_keys = k;
		x->cap_keys = cap;
	}
	x->fact_keys[x->nr_keys++] = fact_key(f->cpu, f->ts_ns);
	return 0;
}

static int load_facts(struct exp *x)
{
	int err = sl_query_run_facts(x->store, x->run_id, add_fact, x);

	if (err)
		return err;
	qsort(x->fact_keys, x->nr_keys, sizeof(*x->fact_keys), cmp_u64);
	return 0;
}

/* Switches: the first one of each CPU, then one between consecutive slices. */

/* A CPU's first switch as stored, next_pid -1 until its first slice gives it. */
static int add_first_switch(void *ctx, const struct sl_first_switch_rec *f)
{
	struct exp *x = ctx;
	struct item *it = add(x, SL_EV_SWITCH, f->ts_ns, f->cpu, 3);

	if (!it)
		return -ENOMEM;
	it->ev.sw.prev_pid = f->prev_pid;
	it->ev.sw.prev_prio = f->prev_prio;
	set_state(&it->ev.sw, f->prev_state);
	memcpy(it->ev.sw.prev_comm, f->prev_comm, SL_COMM_LEN);
	it->ev.sw.next_pid = -1; /* from the first slice (add_slice) */
	return 0;
}

/* The walk over the slices (by cpu, start): the slice before, on the same CPU. */
struct slice_walk {
	struct exp *x;
	size_t nr_first; /* items[0, nr_first): the stored first switches */
	int cpu;
	bool have_prev;
	int32_t prev_pid;
	int16_t prev_prio;
	char prev_state[3];
};

static int add_span(struct exp *x, const struct sl_slice_rec *s)
{
	if (x->nr_spans == x->cap_spans) {
		size_t cap = x->cap_spans ? 2 * x->cap_spans : 65536;
		struct span *p = realloc(x->spans, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		x->spans = p;
		x->cap_spans = cap;
	}
	x->spans[x->nr_spans++] = (struct span){ s->start_ns, s->start_ns + s->dur_ns, s->pid };
	return 0;
}

/* A slice: its span, and the switch that began it unless a fact or a first switch has it. */
static int add_slice(void *ctx, const struct sl_slice_rec *s)
{
	struct slice_walk *w = ctx;
	struct exp *x = w->x;
	int c = s->cpu;
	struct item *it = NULL;

	if (c < 0 || c >= SL_TOPO_MAX_CPUS || c < w->cpu)
		return 0;
	if (c != w->cpu)
		for (int k = w->cpu + 1; k <= c; k++)
			x->span_first[k] = x->nr_spans;
	if (add_span(x, s) < 0)
		return -ENOMEM;
	if (c != w->cpu) {
		w->cpu = c;
		w->have_prev = false;
		/* the first slice starts at the CPU's first switch, if it was stored */
		for (size_t i = 0; i < w->nr_first; i++)
			if (x->items[i].ev.cpu == c && x->items[i].ev.sw.next_pid == -1 &&
			    x->items[i].ev.ts_ns == s->start_ns)
				it = &x->items[i];
	}
	if (!it && x->has_facts && is_fact_key(x, c, s->start_ns))
		goto next; /* that switch is a fact, or the slice began unseen */
	if (!it) {
		it = add(x, SL_EV_SWITCH, s->start_ns, c, 3);
		if (!it)
			return -ENOMEM;
		if (w->have_prev) {
			it->ev.sw.prev_pid = w->prev_pid;
			it->ev.sw.prev_prio = w->prev_prio;
			set_state(&it->ev.sw, w->prev_state);
		} else {
			/* no stored first switch: the idle task stands in, runnable */
			it->ev.sw.prev_state = 'R';
			it->ev.sw.prev_prio = 120;
		}
		set_comm(x, it->ev.sw.prev_pid, c, it->ev.sw.prev_comm);
	}
	it->ev.sw.next_pid = s->pid;
	it->ev.sw.next_prio = s->prio;
	set_comm(x, s->pid, c, it->ev.sw.next_comm);
next:
	w->prev_pid = s->pid;
	w->prev_prio = s->prio;
	w->prev_state[0] = s->end_state;
	w->prev_state[1] = s->end_preempt ? '+' : 0;
	w->prev_state[2] = 0;
	w->have_prev = true;
	return 0;
}

static int load_switches(struct exp *x)
{
	struct slice_walk w = { .x = x, .cpu = -1 };
	int err;

	/* with facts, a CPU's first switch is a fact like every switch slices do not imply */
	if (!x->has_facts &&
	    (err = sl_query_run_first_switches(x->store, x->run_id, add_first_switch, x)) < 0)
		return err;
	w.nr_first = x->n;
	err = sl_query_run_slices(x->store, x->run_id, add_slice, &w);
	if (err < 0)
		return err;
	for (int k = w.cpu + 1; k <= SL_TOPO_MAX_CPUS; k++)
		x->span_first[k] = x->nr_spans;
	/* first switches whose CPU has no slice at all: the next task is unknown */
	for (size_t i = 0; i < x->n; i++)
		if (x->items[i].ev.sw.next_pid == -1)
			x->items[i].ev.type = 0;
	return 0;
}

/*
 * When the waker ran: the waking's time is not stored, only the wakeup's. If the waker no
 * longer ran on its CPU at the wakeup (it went to sleep in between), the waking is put at
 * the end of its last slice there, the latest time it can have happened.
 */
static uint64_t waking_time(const struct exp *x, int cpu, int32_t waker, uint64_t ts)
{
	size_t lo, hi;

	if (cpu < 0 || cpu >= SL_TOPO_MAX_CPUS)
		return ts;
	lo = x->span_first[cpu];
	hi = x->span_first[cpu + 1];
	while (lo < hi) { /* first span starting after ts */
		size_t mid = lo + (hi - lo) / 2;

		if (x->spans[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i > x->span_first[cpu] && lo - i < 64; i--) {
		const struct span *sp = &x->spans[i - 1];

		if (sp->pid == waker)
			return sp->end < ts ? sp->end : ts;
	}
	return ts;
}

/*
 * A wakeup as its events: the waking (from the waker's CPU, unless the wakeup's context is
 * the waker), the wakeup, and a migration when the task ran on another CPU than the target.
 */
static int add_wakeup(void *ctx, const struct sl_wakeup_rec *w, uint64_t waking_ns)
{
	struct exp *x = ctx;
	bool is_new = w->kind == SL_WAKE_NEW;
	bool has_waker = w->waker_pid != SL_REC_NONE;
	bool ran = w->run_cpu != SL_REC_NONE && w->latency_ns != SL_REC_NO_TIME;
	struct item *it;

	if (has_waker && !is_new && !x->waker_from_wakeup) {
		uint64_t wts = waking_ns == SL_REC_NO_TIME ?
				       waking_time(x, w->waker_cpu, w->waker_pid, w->ts_ns) :
				       waking_ns;

		it = add(x, SL_EV_WAKING, wts, w->waker_cpu, 0);
		if (!it)
			return -ENOMEM;
		it->ev.common_pid = w->waker_pid;
		it->ev.wake.pid = w->pid;
		it->ev.wake.prio = 120;
		it->ev.wake.irq = w->waker_irq;
		it->ev.wake.target_cpu = w->prev_cpu;
		snprintf(it->ev.wake.comm, SL_COMM_LEN, "%s", comm_of(x, w->pid));
	}
	it = add(x, is_new ? SL_EV_WAKEUP_NEW : SL_EV_WAKEUP, w->ts_ns,
		 has_waker ? w->waker_cpu : w->target_cpu, 1);
	if (!it)
		return -ENOMEM;
	/* -1: the replay puts the task running on the CPU there */
	it->ev.common_pid = has_waker && (is_new || x->waker_from_wakeup) ? w->waker_pid : -1;
	it->ev.wake.pid = w->pid;
	it->ev.wake.prio = 120;
	it->ev.wake.target_cpu = w->target_cpu;
	snprintf(it->ev.wake.comm, SL_COMM_LEN, "%s", comm_of(x, w->pid));
	if (ran && w->run_cpu != w->target_cpu && w->run_cpu >= 0 &&
	    w->run_cpu < SL_TOPO_MAX_CPUS) {
		it = add(x, SL_EV_MIGRATE, w->ts_ns + w->latency_ns, w->run_cpu, 2);
		if (!it)
			return -ENOMEM;
		it->ev.common_pid = -1;
		it->ev.migrate.pid = w->pid;
		it->ev.migrate.prio = 120;
		it->ev.migrate.orig_cpu = w->target_cpu;
		it->ev.migrate.dest_cpu = w->run_cpu;
		snprintf(it->ev.migrate.comm, SL_COMM_LEN, "%s", comm_of(x, w->pid));
	}
	return 0;
}

static int load_wakeups(struct exp *x)
{
	return sl_query_run_wakeups_waking(x->store, x->run_id, add_wakeup, x);
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ev.ts_ns != y->ev.ts_ns)
		return x->ev.ts_ns < y->ev.ts_ns ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void print_event(const struct exp *x, const struct sl_event *ev, FILE *out)
{
	char ts[40];

	snprintf(ts, sizeof(ts), "%" PRIu64 ".%09" PRIu64, ev->ts_ns / 1000000000,
		 ev->ts_ns % 1000000000);
	/* the flags column: only a waking's context is read back */
	static const char *const flags[4] = { "d..2.", "d.h2.", "d.s2.", "d.H2." };
	uint8_t irq = ev->type == SL_EV_WAKING ? ev->wake.irq & 3 : 0;

	fprintf(out, "%16s-%-7d [%03u] %s %12s: ",
		ev->common_pid ? comm_of(x, ev->common_pid) : "<idle>", ev->common_pid, ev->cpu,
		flags[irq], ts);
	switch (ev->type) {
	case SL_EV_SWITCH:
		fprintf(out,
			"sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%c%s ==> "
			"next_comm=%s next_pid=%d next_prio=%d\n",
			ev->sw.prev_comm, ev->sw.prev_pid, ev->sw.prev_prio, ev->sw.prev_state,
			ev->sw.prev_preempt ? "+" : "", ev->sw.next_comm, ev->sw.next_pid,
			ev->sw.next_prio);
		break;
	case SL_EV_WAKING:
	case SL_EV_WAKEUP:
	case SL_EV_WAKEUP_NEW:
		fprintf(out, "sched_%s: comm=%s pid=%d prio=%d target_cpu=%03d\n",
			ev->type == SL_EV_WAKING ? "waking" :
			ev->type == SL_EV_WAKEUP ? "wakeup" :
						   "wakeup_new",
			ev->wake.comm, ev->wake.pid, ev->wake.prio, ev->wake.target_cpu);
		break;
	case SL_EV_MIGRATE:
		fprintf(out, "sched_migrate_task: comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\n",
			ev->migrate.comm, ev->migrate.pid, ev->migrate.prio, ev->migrate.orig_cpu,
			ev->migrate.dest_cpu);
		break;
	case SL_EV_FORK:
		fprintf(out, "sched_process_fork: comm=%s pid=%d child_comm=%s child_pid=%d\n",
			ev->fork.parent_comm, ev->fork.parent_pid, ev->fork.child_comm,
			ev->fork.child_pid);
		break;
	case SL_EV_EXIT:
		fprintf(out, "sched_process_exit: comm=%s pid=%d prio=120\n", ev->exit.comm,
			ev->exit.pid);
		break;
	case SL_EV_FUTEX:
		/* the kernel's syscall print; only uaddr and op are kept */
		fprintf(out,
			"sys_futex(uaddr: 0x%" PRIx64 ", op: 0x%x, val: 0, utime: 0, uaddr2: 0, "
			"val3: 0)\n",
			ev->futex.uaddr, ev->futex.op);
		break;
	}
}

/* --- runs with facts ------------------------------------------------------------------- */

/* The comm a pid carries at this point of the replay ("" before its first comm fact). */
static char *cur_comm(struct exp *x, int32_t pid)
{
	static char none[SL_COMM_LEN];

	if (pid <= 0 || pid > 4194304)
		return memset(none, 0, sizeof(none));
	if ((size_t)pid >= x->nr_cur) {
		size_t len = x->nr_cur ? x->nr_cur : 4096;
		char(*c)[SL_COMM_LEN];

		while (len <= (size_t)pid)
			len *= 2;
		c = realloc(x->cur, len * sizeof(*c));
		if (!c)
			return memset(none, 0, sizeof(none));
		memset(c + x->nr_cur, 0, (len - x->nr_cur) * sizeof(*c));
		x->cur = c;
		x->nr_cur = len;
	}
	return x->cur[pid];
}

static void comm_field(struct exp *x, int32_t pid, int cpu, char *out)
{
	if (pid == 0)
		snprintf(out, SL_COMM_LEN, "swapper/%d", cpu);
	else
		memcpy(out, cur_comm(x, pid), SL_COMM_LEN);
}

/* Every comm field as the original event carried it: the engine renames tasks by them. */
static void fill_comms(struct exp *x, struct sl_event *ev)
{
	switch (ev->type) {
	case SL_EV_SWITCH:
		comm_field(x, ev->sw.prev_pid, ev->cpu, ev->sw.prev_comm);
		comm_field(x, ev->sw.next_pid, ev->cpu, ev->sw.next_comm);
		break;
	case SL_EV_WAKING:
	case SL_EV_WAKEUP:
	case SL_EV_WAKEUP_NEW:
		ev->wake.prio = 120;
		comm_field(x, ev->wake.pid, ev->cpu, ev->wake.comm);
		break;
	case SL_EV_MIGRATE:
		ev->migrate.prio = 120;
		comm_field(x, ev->migrate.pid, ev->cpu, ev->migrate.comm);
		break;
	case SL_EV_FORK:
		comm_field(x, ev->fork.parent_pid, ev->cpu, ev->fork.parent_comm);
		comm_field(x, ev->fork.child_pid, ev->cpu, ev->fork.child_comm);
		break;
	case SL_EV_EXIT:
		comm_field(x, ev->exit.pid, ev->cpu, ev->exit.comm);
		break;
	}
}

/*
 * Merges the facts with the switches rebuilt from slices. At one timestamp the facts hold
 * their events' positions (seq); a rebuilt switch takes the first position no fact holds.
 */
static int write_facts_run(struct exp *x, FILE *out, struct sl_export_stats *st)
{
	size_t fi = 0, di = 0;
	uint64_t ts = 0, pos = 0;
	bool any = false;

	for (;;) {
		struct item *f = fi < x->nr_facts ? &x->facts[fi] : NULL, *it;
		struct sl_event *ev;
		bool fact;

		while (di < x->n && !x->items[di].ev.type)
			di++;
		if (!f && di == x->n)
			break;
		if (!f)
			fact = false;
		else if (di == x->n)
			fact = true;
		else if (f->ev.ts_ns != x->items[di].ev.ts_ns)
			fact = f->ev.ts_ns < x->items[di].ev.ts_ns;
		else
			fact = f->seq <= (any && ts == f->ev.ts_ns ? pos : 0);
		it = fact ? &x->facts[fi++] : &x->items[di++];
		ev = &it->ev;
		if (!any || ev->ts_ns != ts) {
			ts = ev->ts_ns;
			pos = 0;
			any = true;
		}
		if (ev->type == ITEM_COMM) {
			memcpy(cur_comm(x, ev->wake.pid), ev->wake.comm, SL_COMM_LEN);
			continue;
		}
		if (ev->type == ITEM_RUNNING)
			continue;
		pos++;
		if (!in_slice(x, ev->ts_ns))
			continue;
		if (over_budget(x, st))
			return -E2BIG;
		if (ev->type == SL_EV_LOST) {
			fprintf(out, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", ev->cpu, ev->lost.count);
			st->lines++;
			continue;
		}
		if (!fact)
			ev->common_pid = ev->sw.prev_pid;
		fill_comms(x, ev);
		st->switches += ev->type == SL_EV_SWITCH;
		st->wakings += ev->type == SL_EV_WAKING;
		st->wakeups += ev->type == SL_EV_WAKEUP || ev->type == SL_EV_WAKEUP_NEW;
		st->migrations += ev->type == SL_EV_MIGRATE;
		print_event(x, ev, out);
		st->lines++;
	}
	return 0;
}

int sl_export_text(const char *db_path, int64_t run_id, FILE *out, struct sl_export_stats *stats)
{
	return sl_export_text_slice(db_path, run_id, NULL, out, stats);
}

int sl_export_text_slice(const char *db_path, int64_t run_id, const struct sl_export_slice *slice,
			 FILE *out, struct sl_export_stats *stats)
{
	struct sl_export_stats st = { 0 };
	struct exp *x = calloc(1, sizeof(*x));
	struct sl_store *store = NULL;
	int32_t *curr = NULL;
	int err;

	if (!x)
		return -ENOMEM;
	x->run_id = run_id;
	x->slice.to_ns = UINT64_MAX;
	if (slice) {
		x->slice = *slice;
		if (!x->slice.to_ns)
			x->slice.to_ns = UINT64_MAX;
	}
	err = sl_store_open(db_path, SL_STORE_RDONLY, &store);
	if (err < 0) {
		free(x);
		return err;
	}
	x->store = store;
	curr = calloc(SL_TOPO_MAX_CPUS, sizeof(*curr));
	if (!curr) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = load_run(x)) < 0 || (x->has_facts && (err = load_facts(x)) < 0) ||
	    (err = load_switches(x)) < 0 || (!x->has_facts && (err = load_wakeups(x)) < 0))
		goto out;
	qsort(x->items, x->n, sizeof(*x->items), cmp_item);

	fprintf(out, "# tracer: nop\n#\n# schedlens export of run %lld from '%s'\n",
		(long long)run_id, db_path);
	if (slice && x->slice.to_ns != UINT64_MAX)
		fprintf(out, "# slice: events at %llu ns and later, before %llu ns\n",
			(unsigned long long)x->slice.from_ns, (unsigned long long)x->slice.to_ns);
	else if (slice)
		fprintf(out, "# slice: events at %llu ns and later\n",
			(unsigned long long)x->slice.from_ns);
	for (size_t pid = 0; pid < x->nr_tasks; pid++)
		if (x->tasks[pid].comm[0] && x->tasks[pid].tgid >= 0)
			fprintf(out, "# tgid %zu %d\n", pid, x->tasks[pid].tgid);
	fprintf(out, "#\n#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		     "#              | |         |   |||||     |         |\n");
	if (x->has_facts)
		err = write_facts_run(x, out, &st);
	for (size_t i = 0; i < x->n && !x->has_facts && !err; i++) {
		struct sl_event *ev = &x->items[i].ev;

		if (!ev->type)
			continue;
		if (ev->type == SL_EV_SWITCH) {
			ev->common_pid = ev->sw.prev_pid;
			curr[ev->cpu] = ev->sw.next_pid;
		} else if (ev->common_pid < 0) {
			ev->common_pid = curr[ev->cpu];
		}
		if (!in_slice(x, ev->ts_ns))
			continue;
		if (over_budget(x, &st)) {
			err = -E2BIG;
			break;
		}
		st.switches += ev->type == SL_EV_SWITCH;
		st.wakings += ev->type == SL_EV_WAKING;
		st.wakeups += ev->type == SL_EV_WAKEUP || ev->type == SL_EV_WAKEUP_NEW;
		st.migrations += ev->type == SL_EV_MIGRATE;
		print_event(x, ev, out);
		st.lines++;
	}
	if (err == -E2BIG) {
		err = sl_error(-E2BIG, "the slice has more than %llu lines: narrow it",
			       (unsigned long long)x->slice.max_lines);
		goto out;
	}
	if (x->end_ns > 0)
		fprintf(out, "# schedlens end_ns %lld\n",
			(long long)((uint64_t)x->end_ns < x->slice.to_ns ? (uint64_t)x->end_ns :
									   x->slice.to_ns));
	if (fflush(out) || ferror(out))
		err = sl_error(-EIO, "export: write error");
out:
	if (stats)
		*stats = st;
	free(curr);
	free(x->items);
	free(x->tasks);
	free(x->spans);
	free(x->facts);
	free(x->fact_keys);
	free(x->cur);
	free(x);
	sl_store_close(store);
	return err;
}
