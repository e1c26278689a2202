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

#include <sqlite3.h>

#include "error.h"
#include "event.h"
#include "export-text.h"
#include "facts.h"
#include "store.h"
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
	sqlite3 *db;
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
	size_t nr_keys;
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

static int db_fail(struct exp *x, sqlite3_stmt *q)
{
	int err = sl_error(-SL_EDB, "export: %s", sqlite3_errmsg(x->db));

	sqlite3_finalize(q);
	return err;
}

static int load_run(struct exp *x)
{
	sqlite3_stmt *q;
	int err = -ENOENT;

	if (sqlite3_prepare_v2(x->db,
			       "SELECT waker_from_wakeup, end_ns, facts FROM runs WHERE id = ?", -1,
			       &q, NULL) != SQLITE_OK)
		return db_fail(x, NULL);
	sqlite3_bind_int64(q, 1, x->run_id);
	if (sqlite3_step(q) == SQLITE_ROW) {
		x->waker_from_wakeup = sqlite3_column_int(q, 0);
		x->end_ns = sqlite3_column_int64(q, 1);
		x->has_facts = sqlite3_column_int(q, 2);
		err = 0;
	}
	sqlite3_finalize(q);
	if (err)
		return sl_error(err, "no run %lld", (long long)x->run_id);
	if (sqlite3_prepare_v2(x->db, "SELECT pid, tgid, comm FROM tasks WHERE run_id = ?", -1, &q,
			       NULL) != SQLITE_OK)
		return db_fail(x, NULL);
	sqlite3_bind_int64(q, 1, x->run_id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(q, 0);
		const char *comm = (const char *)sqlite3_column_text(q, 2);

		if (pid < 0 || pid > 4194304)
			continue;
		if ((size_t)pid >= x->nr_tasks) {
			size_t len = x->nr_tasks ? x->nr_tasks : 4096;
			struct task *t;

			while (len <= (size_t)pid)
				len *= 2;
			t = realloc(x->tasks, len * sizeof(*t));
			if (!t) {
				sqlite3_finalize(q);
				return -ENOMEM;
			}
			memset(t + x->nr_tasks, 0, (len - x->nr_tasks) * sizeof(*t));
			x->tasks = t;
			x->nr_tasks = len;
		}
		snprintf(x->tasks[pid].comm, SL_COMM_LEN, "%s", comm ? comm : "");
		x->tasks[pid].tgid = sqlite3_column_type(q, 1) == SQLITE_NULL ?
					     -1 :
					     (int32_t)sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	return 0;
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

/* The facts as events (seq in item.seq), and the keys of the switches they hold. */
static int load_facts(struct exp *x)
{
	sqlite3_stmt *q;
	size_t cap_keys = 0;

	if (sqlite3_prepare_v2(
		    x->db,
		    "SELECT ts_ns, seq, cpu, kind, common_pid, pid, arg1, arg2, arg3, txt "
		    "FROM sched_facts WHERE run_id = ? ORDER BY ts_ns, seq, kind < ?, "
		    "rowid",
		    -1, &q, NULL) != SQLITE_OK)
		return db_fail(x, NULL);
	sqlite3_bind_int64(q, 1, x->run_id);
	sqlite3_bind_int(q, 2, SL_FACT_COMM);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct item *it;
		struct sl_event *ev;
		int kind = sqlite3_column_int(q, 3), cpu = sqlite3_column_int(q, 2);
		const char *txt = (const char *)sqlite3_column_text(q, 9);

		if (cpu < 0 || cpu >= SL_TOPO_MAX_CPUS || kind <= 0 || kind > SL_FACT_RUNNING)
			continue;
		if (x->nr_facts == x->cap_facts) {
			size_t cap = x->cap_facts ? 2 * x->cap_facts : 65536;
			struct item *p = realloc(x->facts, cap * sizeof(*p));

			if (!p)
				return sqlite3_finalize(q), -ENOMEM;
			x->facts = p;
			x->cap_facts = cap;
		}
		it = &x->facts[x->nr_facts++];
		memset(it, 0, sizeof(*it));
		it->seq = (uint64_t)sqlite3_column_int64(q, 1);
		ev = &it->ev;
		ev->type = (uint16_t)kind;
		ev->ts_ns = (uint64_t)sqlite3_column_int64(q, 0);
		ev->cpu = (uint16_t)cpu;
		ev->common_pid = sqlite3_column_int(q, 4);
		switch (kind) {
		case SL_EV_SWITCH:
			ev->sw.prev_pid = sqlite3_column_int(q, 5);
			ev->sw.next_pid = (int32_t)sqlite3_column_int64(q, 6);
			ev->sw.prev_prio = (int16_t)sqlite3_column_int(q, 7);
			ev->sw.next_prio = (int16_t)sqlite3_column_int(q, 8);
			set_state(&ev->sw, txt);
			break;
		case SL_EV_MIGRATE:
			ev->migrate.pid = sqlite3_column_int(q, 5);
			ev->migrate.orig_cpu = (int32_t)sqlite3_column_int64(q, 6);
			ev->migrate.dest_cpu = sqlite3_column_int(q, 7);
			break;
		case SL_EV_FORK:
			ev->fork.parent_pid = sqlite3_column_int(q, 5);
			ev->fork.child_pid = (int32_t)sqlite3_column_int64(q, 6);
			break;
		case SL_EV_EXIT:
			ev->exit.pid = sqlite3_column_int(q, 5);
			break;
		case SL_EV_LOST:
			ev->lost.count = (uint64_t)sqlite3_column_int64(q, 6);
			break;
		default: /* wakes; comm (txt in wake.comm); running */
			ev->wake.pid = sqlite3_column_int(q, 5);
			ev->wake.target_cpu = (int32_t)sqlite3_column_int64(q, 6);
			ev->wake.irq = (uint8_t)sqlite3_column_int(q, 7);
			snprintf(ev->wake.comm, SL_COMM_LEN, "%s", txt ? txt : "");
			break;
		}
		if (kind != SL_EV_SWITCH && kind != SL_FACT_RUNNING)
			continue;
		if (x->nr_keys == cap_keys) {
			size_t cap = cap_keys ? 2 * cap_keys : 4096;
			uint64_t *k = realloc(x->fact_keys, cap * sizeof(*k));

			if (!k)
				return sqlite3_finalize(q), -ENOMEM;
			x->fact_keys = k;
			cap_keys = cap;
		}
		x->fact_keys[x->nr_keys++] = fact_key(cpu, ev->ts_ns);
	}
	sqlite3_finalize(q);
	qsort(x->fact_keys, x->nr_keys, sizeof(*x->fact_keys), cmp_u64);
	return 0;
}

/* Switches: the first one of each CPU, then one between consecutive slices. */
/* The CPUs' first switches as stored, next_pid -1 until their first slice gives it. */
static int load_first_switches(struct exp *x)
{
	sqlite3_stmt *q;

	/* with facts, a CPU's first switch is a fact like every switch slices do not imply */
	if (sqlite3_prepare_v2(x->db,
			       "SELECT cpu, ts_ns, prev_pid, prev_prio, prev_state, prev_comm FROM "
			       "run_cpu_first WHERE run_id = ? AND ? = 0",
			       -1, &q, NULL) != SQLITE_OK)
		return db_fail(x, NULL);
	sqlite3_bind_int64(q, 1, x->run_id);
	sqlite3_bind_int(q, 2, x->has_facts);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct item *it = add(x, SL_EV_SWITCH, sqlite3_column_int64(q, 1),
				      sqlite3_column_int(q, 0), 3);
		const char *comm = (const char *)sqlite3_column_text(q, 5);

		if (!it)
			return sqlite3_finalize(q), -ENOMEM;
		it->ev.sw.prev_pid = sqlite3_column_int(q, 2);
		it->ev.sw.prev_prio = sqlite3_column_int(q, 3);
		set_state(&it->ev.sw, (const char *)sqlite3_column_text(q, 4));
		snprintf(it->ev.sw.prev_comm, SL_COMM_LEN, "%s", comm ? comm : "");
		it->ev.sw.next_pid = -1; /* from the first slice (load_switches) */
	}
	sqlite3_finalize(q);
	return 0;
}

static int load_switches(struct exp *x)
{
	sqlite3_stmt *q;
	int cpu = -1, err;
	int32_t prev_pid = 0;
	int16_t prev_prio = 120;
	char prev_state[3] = "";
	bool have_prev = false;
	size_t nr_first;

	err = load_first_switches(x);
	if (err < 0)
		return err;
	nr_first = x->n;

	if (sqlite3_prepare_v2(
		    x->db,
		    "SELECT cpu, start_ns, pid, prio, end_state, dur_ns FROM sched_slices WHERE "
		    "run_id = ? ORDER BY cpu, start_ns",
		    -1, &q, NULL) != SQLITE_OK)
		return db_fail(x, NULL);
	sqlite3_bind_int64(q, 1, x->run_id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int c = sqlite3_column_int(q, 0);
		uint64_t start = sqlite3_column_int64(q, 1);
		int32_t pid = sqlite3_column_int(q, 2);
		int16_t prio = sqlite3_column_int(q, 3);
		const char *st = (const char *)sqlite3_column_text(q, 4);
		struct item *it = NULL;

		if (c < 0 || c >= SL_TOPO_MAX_CPUS || c < cpu)
			continue;
		if (x->nr_spans == x->cap_spans) {
			size_t cap = x->cap_spans ? 2 * x->cap_spans : 65536;
			struct span *p = realloc(x->spans, cap * sizeof(*p));

			if (!p)
				return sqlite3_finalize(q), -ENOMEM;
			x->spans = p;
			x->cap_spans = cap;
		}
		if (c != cpu)
			for (int k = cpu + 1; k <= c; k++)
				x->span_first[k] = x->nr_spans;
		x->spans[x->nr_spans++] =
			(struct span){ start, start + sqlite3_column_int64(q, 5), pid };
		if (c != cpu) {
			cpu = c;
			have_prev = false;
			/* the first slice starts at the CPU's first switch, if it was stored */
			for (size_t i = 0; i < nr_first; i++)
				if (x->items[i].ev.cpu == c && x->items[i].ev.sw.next_pid == -1 &&
				    x->items[i].ev.ts_ns == start)
					it = &x->items[i];
		}
		if (!it && x->has_facts && is_fact_key(x, c, start))
			goto next; /* that switch is a fact, or the slice began unseen */
		if (!it) {
			it = add(x, SL_EV_SWITCH, start, c, 3);
			if (!it)
				return sqlite3_finalize(q), -ENOMEM;
			if (have_prev) {
				it->ev.sw.prev_pid = prev_pid;
				it->ev.sw.prev_prio = prev_prio;
				set_state(&it->ev.sw, prev_state);
			} else {
				/* no stored first switch: the idle task stands in, runnable */
				it->ev.sw.prev_state = 'R';
				it->ev.sw.prev_prio = 120;
			}
			set_comm(x, it->ev.sw.prev_pid, c, it->ev.sw.prev_comm);
		}
		it->ev.sw.next_pid = pid;
		it->ev.sw.next_prio = prio;
		set_comm(x, pid, c, it->ev.sw.next_comm);
next:
		prev_pid = pid;
		prev_prio = prio;
		snprintf(prev_state, sizeof(prev_state), "%s", st ? st : "");
		have_prev = true;
	}
	sqlite3_finalize(q);
	for (int k = cpu + 1; k <= SL_TOPO_MAX_CPUS; k++)
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

static int load_wakeups(struct exp *x)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(
		    x->db,
		    "SELECT w.ts_ns, w.pid, kind, waker_pid, waker_cpu, prev_cpu, "
		    "target_cpu, run_cpu, latency_ns, k.waking_ns, waker_irq FROM wakeups w LEFT JOIN "
		    "wakings k ON k.run_id = w.run_id AND k.pid = w.pid AND k.ts_ns = "
		    "w.ts_ns WHERE w.run_id = ?",
		    -1, &q, NULL) != SQLITE_OK)
		return db_fail(x, NULL);
	sqlite3_bind_int64(q, 1, x->run_id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		uint64_t ts = sqlite3_column_int64(q, 0);
		int32_t pid = sqlite3_column_int(q, 1);
		bool is_new = sqlite3_column_int(q, 2) == 1;
		bool has_waker = sqlite3_column_type(q, 3) != SQLITE_NULL;
		int32_t waker = sqlite3_column_int(q, 3), waker_cpu = sqlite3_column_int(q, 4);
		int32_t prev = sqlite3_column_type(q, 5) == SQLITE_NULL ? -1 :
									  sqlite3_column_int(q, 5);
		int32_t target = sqlite3_column_int(q, 6);
		bool ran = sqlite3_column_type(q, 7) != SQLITE_NULL &&
			   sqlite3_column_type(q, 8) != SQLITE_NULL;
		int32_t run_cpu = sqlite3_column_int(q, 7);
		uint8_t irq = (uint8_t)sqlite3_column_int(q, 10);
		struct item *it;

		if (has_waker && !is_new && !x->waker_from_wakeup) {
			uint64_t wts = sqlite3_column_type(q, 9) == SQLITE_NULL ?
					       waking_time(x, waker_cpu, waker, ts) :
					       (uint64_t)sqlite3_column_int64(q, 9);

			it = add(x, SL_EV_WAKING, wts, waker_cpu, 0);
			if (!it)
				return sqlite3_finalize(q), -ENOMEM;
			it->ev.common_pid = waker;
			it->ev.wake.pid = pid;
			it->ev.wake.prio = 120;
			it->ev.wake.irq = irq;
			it->ev.wake.target_cpu = prev;
			snprintf(it->ev.wake.comm, SL_COMM_LEN, "%s", comm_of(x, pid));
		}
		it = add(x, is_new ? SL_EV_WAKEUP_NEW : SL_EV_WAKEUP, ts,
			 has_waker ? waker_cpu : target, 1);
		if (!it)
			return sqlite3_finalize(q), -ENOMEM;
		/* -1: the replay puts the task running on the CPU there */
		it->ev.common_pid = has_waker && (is_new || x->waker_from_wakeup) ? waker : -1;
		it->ev.wake.pid = pid;
		it->ev.wake.prio = 120;
		it->ev.wake.target_cpu = target;
		snprintf(it->ev.wake.comm, SL_COMM_LEN, "%s", comm_of(x, pid));
		if (ran && run_cpu != target && run_cpu >= 0 && run_cpu < SL_TOPO_MAX_CPUS) {
			it = add(x, SL_EV_MIGRATE, ts + sqlite3_column_int64(q, 8), run_cpu, 2);
			if (!it)
				return sqlite3_finalize(q), -ENOMEM;
			it->ev.common_pid = -1;
			it->ev.migrate.pid = pid;
			it->ev.migrate.prio = 120;
			it->ev.migrate.orig_cpu = target;
			it->ev.migrate.dest_cpu = run_cpu;
			snprintf(it->ev.migrate.comm, SL_COMM_LEN, "%s", comm_of(x, pid));
		}
	}
	sqlite3_finalize(q);
	return 0;
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
		if (ev->type == SL_FACT_COMM) {
			memcpy(cur_comm(x, ev->wake.pid), ev->wake.comm, SL_COMM_LEN);
			continue;
		}
		if (ev->type == SL_FACT_RUNNING)
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
	x->db = sl_store_db(store);
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
