// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the per-comm event counts (lib/engine/comm-counts.c), the summary that
 * `schedlens record` prints and 30-record-pgbench checks against perf: switch-outs,
 * wakings and wakeups land on their comm; a comm whose bytes after the NUL differ (a
 * source that does not zero them) is the same comm; a table grown past its first size
 * keeps every count; the sorted list puts the busiest first and names each comm once.
 */
#include <stdio.h>
#include <string.h>

#include "comm-counts.h"
#include "tap.h"

static struct sl_event switch_from(const char *comm)
{
	struct sl_event ev = { .type = SL_EV_SWITCH };

	snprintf(ev.sw.prev_comm, sizeof(ev.sw.prev_comm), "%s", comm);
	return ev;
}

static struct sl_event wake(int type, const char *comm)
{
	struct sl_event ev = { .type = (uint8_t)type };

	snprintf(ev.wake.comm, sizeof(ev.wake.comm), "%s", comm);
	return ev;
}

static const struct sl_comm_count *find(const struct sl_comm_count *c, size_t n, const char *comm)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].comm, comm))
			return &c[i];
	return NULL;
}

static void test_counts(void)
{
	struct sl_comm_counts *cc = sl_comm_counts_new();
	struct sl_sched_handler h = sl_comm_counts_handler(cc);
	struct sl_event ev;
	const struct sl_comm_count *c, *pg;
	size_t n;

	for (int i = 0; i < 3; i++) {
		ev = switch_from("postgres");
		h.sched_switch(h.ctx, NULL, &ev);
	}
	ev = wake(SL_EV_WAKING, "postgres");
	h.waking(h.ctx, NULL, &ev);
	ev = wake(SL_EV_WAKEUP, "postgres");
	h.wakeup(h.ctx, NULL, &ev);
	ev = wake(SL_EV_WAKEUP_NEW, "postgres");
	h.wakeup(h.ctx, NULL, &ev);
	/* the same comm with garbage after its NUL: still postgres */
	ev = switch_from("postgres");
	memset(ev.sw.prev_comm + 9, 'x', SL_COMM_LEN - 10);
	h.sched_switch(h.ctx, NULL, &ev);
	ev = switch_from("pgbench");
	h.sched_switch(h.ctx, NULL, &ev);

	c = sl_comm_counts_sorted(cc, &n);
	is_int(n, 2, "two comms");
	is_str(c[0].comm, "postgres", "the busiest first");
	pg = find(c, n, "postgres");
	ok(pg, "postgres is listed");
	if (pg) {
		is_int(pg->switch_out, 4, "postgres: 4 switch-outs, one with bytes after its NUL");
		is_int(pg->waking, 1, "postgres: 1 waking");
		is_int(pg->wakeup, 2, "postgres: 2 wakeups (sched_wakeup and sched_wakeup_new)");
	}
	ok(find(c, n, "pgbench") && find(c, n, "pgbench")->switch_out == 1,
	   "pgbench: 1 switch-out");
	sl_comm_counts_free(cc);
}

/* 3000 comms: past the first table's 1024 slots (it grows at half full), twice */
static void test_growth(void)
{
	struct sl_comm_counts *cc = sl_comm_counts_new();
	struct sl_sched_handler h = sl_comm_counts_handler(cc);
	const struct sl_comm_count *c;
	struct sl_event ev;
	char name[SL_COMM_LEN];
	size_t n;
	int right = 0;

	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3000; i++) {
			snprintf(name, sizeof(name), "task-%d", i);
			ev = switch_from(name);
			for (int k = 0; k <= i % 3; k++)
				h.sched_switch(h.ctx, NULL, &ev);
		}
	c = sl_comm_counts_sorted(cc, &n);
	is_int(n, 3000, "3000 comms listed once each");
	for (int i = 0; i < 3000; i++) {
		const struct sl_comm_count *x;

		snprintf(name, sizeof(name), "task-%d", i);
		x = find(c, n, name);
		right += x && x->switch_out == (uint64_t)(2 * (i % 3 + 1));
	}
	is_int(right, 3000, "every comm's count survived the table's growth");
	ok(c[0].switch_out == 6 && c[n - 1].switch_out == 2, "sorted by count, busiest first");
	sl_comm_counts_free(cc);
}

int main(void)
{
	test_counts();
	test_growth();
	return done_testing();
}
