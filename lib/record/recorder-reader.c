// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder's per-CPU reader threads (see recorder.c for the design): each splices
 * full pages of its CPUs' ring buffers through a pipe, reads quiet CPUs' partial pages
 * now and then, parses the pages into chunks of events, counts lost events from the
 * per-CPU stats files, and publishes the chunks with a watermark for the merge.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "error.h"
#include "rb-page.h"
#include "recorder-local.h"

static struct chunk *chunk_get(struct cpu_state *cs)
{
	struct chunk *c;

	pthread_mutex_lock(&cs->lock);
	c = cs->free_list;
	if (c)
		cs->free_list = c->next;
	pthread_mutex_unlock(&cs->lock);
	if (!c)
		c = malloc(sizeof(*c));
	if (c) {
		c->next = NULL;
		c->n = c->pos = 0;
	}
	return c;
}

/* Queues the chunk being filled and moves the watermark; wm is stored after the chunk
 * so a consumer that loads wm first and then takes the chunks sees every event < wm. */
void recorder_publish(struct cpu_state *cs, uint64_t wm)
{
	pthread_mutex_lock(&cs->lock);
	if (cs->cur && cs->cur->n) {
		if (cs->tail)
			cs->tail->next = cs->cur;
		else
			cs->head = cs->cur;
		cs->tail = cs->cur;
		cs->nr_queued++;
		cs->cur = NULL;
	}
	pthread_mutex_unlock(&cs->lock);
	if (wm > atomic_load_explicit(&cs->wm, memory_order_relaxed))
		atomic_store_explicit(&cs->wm, wm, memory_order_release);
}

static bool queue_full(struct cpu_state *cs)
{
	bool full;

	pthread_mutex_lock(&cs->lock);
	full = cs->nr_queued >= cs->max_queued;
	pthread_mutex_unlock(&cs->lock);
	return full;
}

static struct sl_event *next_slot(struct cpu_state *cs)
{
	if (cs->cur && cs->cur->n == CHUNK_EVENTS)
		recorder_publish(cs, cs->last_ts);
	if (!cs->cur) {
		cs->cur = chunk_get(cs);
		if (!cs->cur)
			return NULL;
	}
	return &cs->cur->ev[cs->cur->n];
}

int recorder_cpu_lost(struct sl_recorder *rec, struct cpu_state *cs, unsigned long long *ret)
{
	if (cs->stats_fd >= 0)
		return sl_instance_cpu_lost_fd(cs->stats_fd, ret);
	return sl_instance_cpu_lost(rec->si, cs->cpu, ret);
}

static void check_lost(struct sl_recorder *rec, struct cpu_state *cs)
{
	unsigned long long now;

	if (recorder_cpu_lost(rec, cs, &now) == 0 && now > cs->lost_seen) {
		cs->pending_lost += now - cs->lost_seen;
		cs->lost_seen = now;
	}
}

int recorder_emit_lost(struct cpu_state *cs, uint64_t ts)
{
	struct sl_event *ev = next_slot(cs);

	if (!ev)
		return -ENOMEM;
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = ts;
	ev->type = SL_EV_LOST;
	ev->cpu = cs->cpu;
	ev->common_pid = -1;
	ev->lost.count = cs->pending_lost;
	cs->cur->n++;
	cs->pending_lost = 0;
	cs->pending_gap = false;
	return 0;
}

/* Appends one decoded record to the CPU's chunk, a gap marker first if one is due. */
static inline int add_record(struct sl_recorder *rec, struct cpu_state *cs, const void *data,
			     int size, uint64_t ts, bool *first)
{
	struct sl_event *ev;

	if (*first && (cs->pending_gap || cs->pending_lost)) {
		if (recorder_emit_lost(cs, ts) < 0)
			return -ENOMEM;
	}
	*first = false;
	ev = next_slot(cs);
	if (!ev)
		return -ENOMEM;
	if (sl_sched_decode(&rec->fields, data, size, ev) <= 0)
		return 0;
	ev->ts_ns = ts;
	ev->cpu = cs->cpu;
	cs->cur->n++;
	if (ts > cs->last_ts)
		cs->last_ts = ts;
	return 0;
}

/* kbuffer: for any layout rb-page.h does not read (big-endian or 32-bit buffers) */
static int parse_page_kbuffer(struct sl_recorder *rec, struct cpu_state *cs, void *page)
{
	unsigned long long ts;
	bool first = true;
	void *data;
	int r;

	if (kbuffer_load_subbuffer(cs->kbuf, page) < 0)
		return sl_error(-SL_EPARSE, "cpu %d: unreadable ring-buffer page", cs->cpu);
	/* events were overwritten before this page: the gap is right here */
	if (kbuffer_missed_events(cs->kbuf)) {
		cs->pending_gap = true;
		check_lost(rec, cs);
	}
	for (data = kbuffer_read_event(cs->kbuf, &ts); data;
	     data = kbuffer_next_event(cs->kbuf, &ts))
		if ((r = add_record(rec, cs, data, kbuffer_event_size(cs->kbuf), ts, &first)) < 0)
			return r;
	return kbuffer_subbuffer_size(cs->kbuf);
}

/* Parses one page of len bytes; returns its committed data bytes or -errno. */
static int parse_page(struct sl_recorder *rec, struct cpu_state *cs, void *page, int len)
{
	struct sl_rb_page pg;
	bool first = true;
	const void *data;
	uint64_t ts;
	int size, r;

	cs->pages++;
	cs->bytes += len;
	if (!rec->fast_pages)
		return parse_page_kbuffer(rec, cs, page);
	if (sl_rb_page_load(&pg, page, len) < 0)
		return sl_error(-SL_EPARSE, "cpu %d: unreadable ring-buffer page", cs->cpu);
	if (pg.missed) {
		cs->pending_gap = true;
		check_lost(rec, cs);
	}
	while ((data = sl_rb_page_next(&pg, &ts, &size)))
		if ((r = add_record(rec, cs, data, size, ts, &first)) < 0)
			return r;
	return (int)pg.size;
}

/*
 * Splices up to max full pages in one call, empties the pipe into the reader's buffer and
 * parses them. Returns pages, 0 if there is no full page (or splice does not work here), or
 * -errno if the spliced data could not be read back.
 */
static int splice_pages(struct sl_recorder *rec, struct reader *rd, struct cpu_state *cs, int max)
{
	ssize_t n, got = 0;
	int r;

	if (max > rd->splice_pages)
		max = rd->splice_pages;
	n = splice(cs->watch_fd, NULL, rd->pipe[1], NULL, (size_t)max * cs->page_size,
		   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n <= 0)
		return 0;
	while (got < n) {
		ssize_t m = read(rd->pipe[0], rd->buf + got, n - got);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return sl_error(m < 0 ? -errno : -EIO,
					"cpu %d: cannot read the splice pipe", cs->cpu);
		got += m;
	}
	for (ssize_t off = 0; off < n; off += cs->page_size) {
		int len = n - off < cs->page_size ? (int)(n - off) : cs->page_size;

		if ((r = parse_page(rec, cs, rd->buf + off, len)) < 0)
			return r;
	}
	return (int)((n + cs->page_size - 1) / cs->page_size);
}

/*
 * Reads what one CPU holds, within the round's budget; now is the round's start, shared by
 * its CPUs so that their partial reads fall due together (one wakeup, not one per CPU).
 * Returns the pages that say more may be waiting (spliced pages, full copy-mode pages when
 * the budget cut the reading short), so the reader sleeps once nothing complete is left;
 * or -errno.
 */
static int drain_cpu(struct sl_recorder *rec, struct reader *rd, struct cpu_state *cs, uint64_t now,
		     bool final)
{
	uint64_t trace_now = 0;
	bool due = now + DUE_SLACK_NS >= cs->next_partial_ns;
	int pages = 0, r;
	bool empty = false;

	if (now >= cs->next_stats_ns || final) {
		check_lost(rec, cs);
		cs->next_stats_ns = now + (cs->quiet ? QUIET_STATS_READ_NS : STATS_READ_NS);
	}
	if (!final && cs->quiet && !due)
		return 0;
	while ((final || pages < PAGES_PER_ROUND) && (final || !queue_full(cs))) {
		r = splice_pages(rec, rd, cs, final ? SPLICE_PAGES : PAGES_PER_ROUND - pages);
		if (r < 0)
			return r;
		if (!r)
			break;
		pages += r;
		cs->quiet = false;
	}
	if (!pages && (final || cs->copy_more || due)) {
		/* a page this full was not the one being written (or nearly was): read on */
		int full_bytes = (cs->page_size - 16) * 3 / 4, burst = 0;
		/* a quiet CPU's watermark may stay at its last event: no second read */
		bool partial_seen = cs->quiet;

		/* splice only moves full pages: read() also takes the page being written */
		cs->next_partial_ns = now + PARTIAL_READ_NS;
		cs->copy_more = false;
		while (final || (pages < PAGES_PER_ROUND && !queue_full(cs))) {
			trace_now = sl_recorder_now_ns(rec);
			r = read(cs->watch_fd, cs->page, cs->page_size);
			if (r <= 0) {
				empty = r == 0 || errno == EAGAIN;
				break;
			}
			if ((r = parse_page(rec, cs, cs->page, r)) < 0)
				return r;
			pages++;
			burst += r;
			cs->copy_more = r >= full_bytes;
			/*
			 * A partial page means we caught up with the writer: one more read to
			 * see the buffer empty (the watermark's condition) unless the CPU is
			 * quiet, then wait for the next PARTIAL_READ_NS instead of fetching a
			 * few events per round.
			 */
			if (!final && !cs->copy_more) {
				if (partial_seen)
					break;
				partial_seen = true;
			}
		}
		cs->quiet = !cs->copy_more && burst < full_bytes;
		if (!cs->copy_more)
			pages = 0;
	}
	if (empty && trace_now > WATERMARK_SLACK_NS)
		recorder_publish(cs, trace_now - WATERMARK_SLACK_NS);
	else
		recorder_publish(cs, cs->last_ts);
	return pages;
}

/*
 * How long a reader may sleep: until the first of its CPUs is due for a partial read (the
 * quiet CPUs' watermarks move then), never longer than EPOLL_TIMEOUT_MS. Full pages do not
 * need sooner: buffers hold seconds, and buffer_percent wakes us in a burst.
 */
static int sleep_ms(struct reader *rd)
{
	uint64_t now = mono_ns(), due = UINT64_MAX;
	int ms;

	for (int i = 0; i < rd->count; i++)
		if (rd->rec->cpus[rd->first + i].next_partial_ns < due)
			due = rd->rec->cpus[rd->first + i].next_partial_ns;
	if (due <= now)
		return 1;
	ms = (int)((due - now) / 1000000 + 1);
	return ms < EPOLL_TIMEOUT_MS ? ms : EPOLL_TIMEOUT_MS;
}

void *recorder_reader_main(void *arg)
{
	struct reader *rd = arg;
	struct sl_recorder *rec = rd->rec;
	struct epoll_event evs[64];
	int empty_wakeups = 0;

	pthread_setname_np(pthread_self(), "sl-reader");
	while (!atomic_load(&rec->stopping)) {
		int total = 0, ready, ms;

		uint64_t now = mono_ns();

		for (int i = 0; i < rd->count; i++) {
			int r = drain_cpu(rec, rd, &rec->cpus[rd->first + i], now, false);

			if (r < 0) {
				rd->err = r;
				goto out;
			}
			total += r;
		}
		/* woken when a buffer reaches buffer_percent, or by the timeout */
		if (total) {
			empty_wakeups = 0;
			continue;
		}
		ms = sleep_ms(rd);
		ready = epoll_wait(rd->epfd, evs, 64, ms);
		/*
		 * A buffer reported readable that then gave nothing (splice moves only full
		 * pages): some kernels (seen in Debian 6.1 guests: a reader using a whole vCPU
		 * for 13k events) poll readable as soon as a page holds anything. Sleep the
		 * timeout instead of spinning on it.
		 */
		if (ready > 0 && ++empty_wakeups > 1) {
			struct timespec nap = { 0, ms * 1000000L };

			nanosleep(&nap, NULL);
		}
	}
	/* tracing is off now: take everything left, partial pages included */
	for (int i = 0; i < rd->count; i++) {
		int r = drain_cpu(rec, rd, &rec->cpus[rd->first + i], mono_ns(), true);

		if (r < 0 && !rd->err)
			rd->err = r;
	}
out:
	rd->cpu_s = thread_cpu_s();
	return NULL;
}
