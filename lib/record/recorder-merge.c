// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder's consumer side, on the caller's thread: takes the chunks the readers
 * published and merges the events older than the minimum watermark over all CPUs with a
 * heap, handing them to the caller's on_batch in timestamp order.
 */
#include <stdint.h>

#include "recorder-local.h"

static int deliver(struct sl_recorder *rec)
{
	int r;

	if (!rec->nbatch)
		return 0;
	r = rec->opts.on_batch(rec->opts.ctx, rec->batch, rec->nbatch);
	rec->nbatch = 0;
	return r < 0 ? r : 0;
}

static void take_chunks(struct cpu_state *cs)
{
	struct chunk *h, *t;

	pthread_mutex_lock(&cs->lock);
	h = cs->head;
	t = cs->tail;
	cs->head = cs->tail = NULL;
	cs->nr_queued = 0;
	pthread_mutex_unlock(&cs->lock);
	if (!h)
		return;
	if (cs->c_tail)
		cs->c_tail->next = h;
	else
		cs->c_head = h;
	cs->c_tail = t;
}

static void chunk_put(struct cpu_state *cs, struct chunk *c)
{
	pthread_mutex_lock(&cs->lock);
	c->next = cs->free_list;
	cs->free_list = c;
	pthread_mutex_unlock(&cs->lock);
}

/* Head event of a CPU's consumer queue, recycling spent chunks; NULL if none. */
static struct sl_event *head_event(struct cpu_state *cs)
{
	while (cs->c_head && cs->c_head->pos == cs->c_head->n) {
		struct chunk *c = cs->c_head;

		cs->c_head = c->next;
		if (!cs->c_head)
			cs->c_tail = NULL;
		chunk_put(cs, c);
	}
	return cs->c_head ? &cs->c_head->ev[cs->c_head->pos] : NULL;
}

static int merge_until(struct sl_recorder *rec, uint64_t limit)
{
	struct sl_merge_entry top;
	int r;

	while (sl_merge_peek(&rec->heap, &top) && top.ts_ns < limit) {
		struct cpu_state *cs = &rec->cpus[top.src];
		struct sl_event *ev = &cs->c_head->ev[cs->c_head->pos++];

		if (ev->ts_ns < rec->last_out_ts)
			rec->st.late++;
		else
			rec->last_out_ts = ev->ts_ns;
		rec->st.events[ev->type < SL_EV_TYPE_MAX ? ev->type : 0]++;
		if (ev->type == SL_EV_LOST) {
			rec->st.gaps++;
		} else {
			rec->st.events_total++;
			if (!rec->st.first_ns)
				rec->st.first_ns = ev->ts_ns;
			rec->st.last_ns = ev->ts_ns;
		}
		rec->batch[rec->nbatch++] = *ev;
		if (rec->nbatch == rec->opts.batch_events && (r = deliver(rec)) < 0)
			return r;
		ev = head_event(cs);
		if (ev) {
			sl_merge_replace_top(&rec->heap, ev->ts_ns);
		} else {
			sl_merge_pop(&rec->heap);
			cs->in_heap = false;
		}
	}
	return deliver(rec);
}

int recorder_merge_ready(struct sl_recorder *rec, bool all)
{
	uint64_t wm = UINT64_MAX, est = 0;
	bool any_unknown = false;
	double t0 = thread_cpu_s();
	int r;

	for (int c = 0; c < rec->nr_cpus; c++) {
		struct cpu_state *cs = &rec->cpus[c];
		uint64_t w = atomic_load_explicit(&cs->wm, memory_order_acquire);
		struct sl_event *ev;

		take_chunks(cs);
		if (!w)
			any_unknown = true;
		if (w < wm)
			wm = w;
		if (w > est)
			est = w;
		if (!cs->in_heap && (ev = head_event(cs))) {
			sl_merge_push(&rec->heap, ev->ts_ns, c);
			cs->in_heap = true;
		}
	}
	/*
	 * Without a user-space twin of the trace clock an idle CPU never gets a watermark
	 * from an empty read; then the busiest CPU's progress stands in for "now".
	 */
	if (rec->clock_id < 0 && any_unknown && est > 10 * WATERMARK_SLACK_NS)
		wm = est - 10 * WATERMARK_SLACK_NS;
	r = merge_until(rec, all ? UINT64_MAX : wm);
	rec->st.merge_cpu_s += thread_cpu_s() - t0;
	return r;
}
