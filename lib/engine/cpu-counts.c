// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-CPU, per-minute wakeup counts behind the topology heatmap (cpu-counts.h). A few
 * minutes are open at once (one, plus those a late record may still reach), each with a
 * counter per CPU; the counter arrays grow to the highest target CPU seen.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-counts.h"
#include "topo.h"

struct cpu_tally {
	uint32_t wakeups, busy, idle, missed_idle;
};

struct minute {
	bool open;
	uint64_t k; /* the minute's index from the origin */
	struct cpu_tally *cpus; /* nr_cpus entries */
};

struct sl_cpu_counts {
	int64_t run_id;
	uint64_t lag_ns;
	sl_cpu_counts_emit_fn emit;
	void *ctx;
	bool started;
	uint64_t origin_ns, newest_ns;
	int nr_cpus;
	int nr_slots;
	struct minute *slots;
	struct minute *first; /* the open minute with the lowest index, NULL if none */
	struct minute *last; /* the minute the previous record landed in, NULL if none */
	uint64_t rows;
};

struct sl_cpu_counts *sl_cpu_counts_new(int64_t run_id, uint64_t lag_ns, sl_cpu_counts_emit_fn emit,
					void *ctx)
{
	struct sl_cpu_counts *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	cc->run_id = run_id;
	cc->lag_ns = lag_ns;
	cc->emit = emit;
	cc->ctx = ctx;
	/* a record reaches back at most lag_ns: the minutes it may land in, and the newest */
	cc->nr_slots = (int)(lag_ns / SL_CPU_COUNTS_MINUTE_NS) + 2;
	cc->slots = calloc((size_t)cc->nr_slots, sizeof(*cc->slots));
	if (!cc->slots) {
		free(cc);
		return NULL;
	}
	return cc;
}

void sl_cpu_counts_free(struct sl_cpu_counts *cc)
{
	if (!cc)
		return;
	for (int i = 0; i < cc->nr_slots; i++)
		free(cc->slots[i].cpus);
	free(cc->slots);
	free(cc);
}

uint64_t sl_cpu_counts_rows(const struct sl_cpu_counts *cc)
{
	return cc->rows;
}

/* Emits a minute's CPUs that got wakeups and closes it. end_ns 0: the minute is whole. */
static void emit_minute(struct sl_cpu_counts *cc, struct minute *m, uint64_t end_ns)
{
	uint64_t start = cc->origin_ns + m->k * SL_CPU_COUNTS_MINUTE_NS;
	struct sl_cpu_count_rec rec = {
		.run_id = cc->run_id,
		.start_ns = start,
		.dur_ns = SL_CPU_COUNTS_MINUTE_NS,
	};

	if (end_ns && end_ns < start + SL_CPU_COUNTS_MINUTE_NS)
		rec.dur_ns = end_ns > start ? end_ns - start : 1;
	for (int cpu = 0; cpu < cc->nr_cpus; cpu++) {
		const struct cpu_tally *t = &m->cpus[cpu];

		if (!t->wakeups)
			continue;
		rec.cpu = cpu;
		rec.wakeups = t->wakeups;
		rec.busy = t->busy;
		rec.idle = t->idle;
		rec.missed_idle = t->missed_idle;
		cc->rows++;
		if (cc->emit)
			cc->emit(cc->ctx, &rec);
	}
	if (m->cpus)
		memset(m->cpus, 0, sizeof(*m->cpus) * (size_t)cc->nr_cpus);
	m->open = false;
}

/* The open minute with the lowest index, NULL if none: a scan, for when one closes. */
static struct minute *scan_oldest(struct sl_cpu_counts *cc)
{
	struct minute *o = NULL;

	for (int i = 0; i < cc->nr_slots; i++)
		if (cc->slots[i].open && (!o || cc->slots[i].k < o->k))
			o = &cc->slots[i];
	return o;
}

/* Closes the oldest open minute (emitting it) and finds the next oldest. */
static void close_oldest(struct sl_cpu_counts *cc, uint64_t end_ns)
{
	struct minute *o = cc->first;

	emit_minute(cc, o, end_ns);
	if (cc->last == o)
		cc->last = NULL;
	cc->first = scan_oldest(cc);
}

/* Room for a counter of cpu in every minute; false if out of memory. */
static bool grow(struct sl_cpu_counts *cc, int cpu)
{
	int n = cc->nr_cpus ? cc->nr_cpus : 8;

	while (n <= cpu)
		n *= 2;
	if (n > SL_TOPO_MAX_CPUS)
		n = SL_TOPO_MAX_CPUS;
	for (int i = 0; i < cc->nr_slots; i++) {
		struct cpu_tally *p = realloc(cc->slots[i].cpus, sizeof(*p) * (size_t)n);

		if (!p)
			return false; /* the slots grown so far keep working at the old size */
		memset(p + cc->nr_cpus, 0, sizeof(*p) * (size_t)(n - cc->nr_cpus));
		cc->slots[i].cpus = p;
	}
	cc->nr_cpus = n;
	return true;
}

void sl_cpu_counts_add(struct sl_cpu_counts *cc, uint64_t origin_ns, const struct sl_wakeup_rec *r)
{
	struct minute *m = NULL;
	struct cpu_tally *t;
	uint64_t k;

	if (r->target_cpu < 0 || r->target_cpu >= SL_TOPO_MAX_CPUS)
		return;
	if (r->target_cpu >= cc->nr_cpus && !grow(cc, r->target_cpu))
		return;
	if (!cc->started) {
		cc->started = true;
		cc->origin_ns = origin_ns <= r->ts_ns ? origin_ns : r->ts_ns;
	}
	k = r->ts_ns > cc->origin_ns ? (r->ts_ns - cc->origin_ns) / SL_CPU_COUNTS_MINUTE_NS : 0;
	if (r->ts_ns > cc->newest_ns)
		cc->newest_ns = r->ts_ns;
	/* minutes no record can reach any more, oldest first */
	while (cc->first &&
	       cc->origin_ns + (cc->first->k + 1) * SL_CPU_COUNTS_MINUTE_NS + cc->lag_ns <=
		       cc->newest_ns)
		close_oldest(cc, 0);
	/* nearly every record lands in the minute of the one before */
	if (cc->last && cc->last->open && cc->last->k == k)
		m = cc->last;
	for (int i = 0; i < cc->nr_slots && !m; i++)
		if (cc->slots[i].open && cc->slots[i].k == k)
			m = &cc->slots[i];
	for (int i = 0; i < cc->nr_slots && !m; i++)
		if (!cc->slots[i].open)
			m = &cc->slots[i];
	if (!m) {
		/* later than lag_ns promised: make room (the minute may get a second row) */
		m = cc->first;
		close_oldest(cc, 0);
	}
	if (!m->open) {
		m->open = true;
		m->k = k;
		if (!cc->first || k < cc->first->k)
			cc->first = m;
	}
	cc->last = m;
	t = &m->cpus[r->target_cpu];
	t->wakeups++;
	t->busy += r->target_state == SL_TS_BUSY || r->target_state == SL_TS_CLAIMED;
	t->idle += r->target_state == SL_TS_IDLE;
	t->missed_idle += r->missed_idle != 0;
}

void sl_cpu_counts_finish(struct sl_cpu_counts *cc, uint64_t end_ns)
{
	if (end_ns && end_ns <= cc->newest_ns)
		end_ns = cc->newest_ns + 1;
	while (cc->first)
		close_oldest(cc, end_ns);
}
