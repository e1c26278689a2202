// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live recorder (see recorder.h). Reader threads fill per-CPU queues of parsed
 * events, in chunks, and publish a per-CPU watermark: every event of that CPU older than
 * it has been queued. The caller's thread merges queued events older than the minimum
 * watermark over all CPUs with a heap, so the output is in timestamp order without
 * waiting for the end of the run. Full pages are spliced many at a time through a pipe
 * of the reader's: one splice and one read for up to SPLICE_PAGES pages, where one page
 * took two syscalls before (syscalls were most of the readers' CPU time). A CPU with
 * nothing to splice (splice moves only full pages) is read with a plain read() now and
 * then, which returns its partial page, so quiet CPUs do not hold the merge back; once
 * such a read finds the buffer empty the CPU's watermark is the trace clock at the time
 * of the read, minus a slack for events being written at that moment. After a partial
 * read splice cannot take that page until read() has consumed it ("copy mode"); copy-mode
 * reads keep to the same PARTIAL_READ_NS pace unless the last one returned a full page,
 * so a reader that has caught up sleeps instead of reading a few events per round.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

#include "error.h"
#include "merge.h"
#include "rb-page.h"
#include "recorder.h"
#include "sched-fields.h"
#include "tracefs-instance.h"

#define CHUNK_EVENTS 1024
#define MAX_QUEUED_CHUNKS 32 /* per CPU: beyond it the reader leaves data in the kernel */
#define PAGES_PER_ROUND 64 /* per CPU per reader round, for fairness in a group */
#define SPLICE_PAGES 64 /* pages per splice: the reader's pipe is sized for them */
#define PARTIAL_READ_NS 100000000ull /* read a quiet CPU's partial page this often */
#define DUE_SLACK_NS 5000000ull /* partial reads due this soon are done now, together */
#define STATS_READ_NS 250000000ull /* read per_cpu/cpuN/stats this often */
#define QUIET_STATS_READ_NS 1000000000ull /* a quiet CPU's buffer cannot fill that soon */
#define WATERMARK_SLACK_NS 5000000ull /* events may commit this long after their stamp */
#define EPOLL_TIMEOUT_MS 100 /* at most; sooner when a CPU's partial read falls due */

struct chunk {
	struct chunk *next;
	uint32_t n; /* events filled */
	uint32_t pos; /* events consumed */
	struct sl_event ev[CHUNK_EVENTS];
};

struct cpu_state {
	int cpu;
	struct kbuffer *kbuf;
	void *page; /* for copy-mode reads */
	int page_size; /* the ring buffer's sub-buffer: what one read returns at most */
	int watch_fd; /* non-blocking, on per_cpu/cpuN/trace_pipe_raw: for epoll, splice, read */
	int stats_fd; /* per_cpu/cpuN/stats, kept open: an open costs a path walk */

	/* reader side */
	struct chunk *cur;
	uint64_t last_ts;
	uint64_t next_partial_ns, next_stats_ns;
	bool copy_more; /* the last copy-mode read returned a full page: read on at once */
	bool quiet; /* wrote under a page between partial reads: nothing to splice before the
		     * next one, so do not try (syscalls are dear in emulated guests) */
	unsigned long long lost_base, lost_seen;
	uint64_t pending_lost;
	bool pending_gap;
	uint64_t pages, bytes;

	/* shared: published chunks and the free list */
	pthread_mutex_t lock;
	struct chunk *head, *tail, *free_list;
	int nr_queued;
	_Atomic uint64_t wm;

	/* consumer side */
	struct chunk *c_head, *c_tail;
	bool in_heap;
};

struct reader {
	struct sl_recorder *rec;
	pthread_t thread;
	bool started;
	int first, count; /* CPUs [first, first + count) of rec->cpus */
	int epfd;
	int pipe[2]; /* splice target, emptied into buf after every splice */
	char *buf;
	int splice_pages; /* what the pipe holds */
	double cpu_s;
	int err;
};

struct sl_recorder {
	struct sl_recorder_opts opts;
	struct sl_instance *si;
	struct tep_handle *tep;
	struct sl_sched_fields fields;
	bool fast_pages; /* rb-page.h reads our pages; else kbuffer */
	clockid_t clock_id; /* user-space twin of the trace clock, -1 if none */
	int stale_removed;
	char stale_warning[2048]; /* stale instances still busy, "" if none */
	char notes[1024];

	int nr_cpus;
	struct cpu_state *cpus;
	int nr_readers;
	struct reader *readers;
	atomic_bool stopping;
	bool started, stopped;

	struct sl_merge heap;
	struct sl_event *batch;
	size_t nbatch;
	uint64_t last_out_ts;
	int err;

	struct sl_recorder_stats st;
	int *tgid_pid, *tgid_tgid; /* sorted by pid */
	size_t nr_tgids;
};

static const char *const sched_system = "sched";

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t sl_recorder_now_ns(const struct sl_recorder *rec)
{
	struct timespec ts;

	if (rec->clock_id < 0)
		return 0;
	clock_gettime(rec->clock_id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_note(struct sl_recorder *rec, const char *text)
{
	size_t len = strlen(rec->notes);

	snprintf(rec->notes + len, sizeof(rec->notes) - len, "%s\n", text);
}

/* --- reader side ----------------------------------------------------------------------- */

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
static void publish(struct cpu_state *cs, uint64_t wm)
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
	full = cs->nr_queued >= MAX_QUEUED_CHUNKS;
	pthread_mutex_unlock(&cs->lock);
	return full;
}

static struct sl_event *next_slot(struct cpu_state *cs)
{
	if (cs->cur && cs->cur->n == CHUNK_EVENTS)
		publish(cs, cs->last_ts);
	if (!cs->cur) {
		cs->cur = chunk_get(cs);
		if (!cs->cur)
			return NULL;
	}
	return &cs->cur->ev[cs->cur->n];
}

static int cpu_lost(struct sl_recorder *rec, struct cpu_state *cs, unsigned long long *ret)
{
	if (cs->stats_fd >= 0)
		return sl_instance_cpu_lost_fd(cs->stats_fd, ret);
	return sl_instance_cpu_lost(rec->si, cs->cpu, ret);
}

static void check_lost(struct sl_recorder *rec, struct cpu_state *cs)
{
	unsigned long long now;

	if (cpu_lost(rec, cs, &now) == 0 && now > cs->lost_seen) {
		cs->pending_lost += now - cs->lost_seen;
		cs->lost_seen = now;
	}
}

static int emit_lost(struct cpu_state *cs, uint64_t ts)
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
		if (emit_lost(cs, ts) < 0)
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
		publish(cs, trace_now - WATERMARK_SLACK_NS);
	else
		publish(cs, cs->last_ts);
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

static void *reader_main(void *arg)
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

/* --- consumer side --------------------------------------------------------------------- */

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

static int merge_ready(struct sl_recorder *rec, bool all)
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

/* --- life cycle ------------------------------------------------------------------------ */

static const char *const wanted[] = { "sched_waking",	    "sched_wakeup",
				      "sched_wakeup_new",   "sched_switch",
				      "sched_migrate_task", "sched_process_fork",
				      "sched_process_exit" };

static enum tep_endian host_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN;
}

/*
 * A tep that knows the ring-buffer page header and our sched events, nothing else.
 * tracefs_local_events_system() would also parse /proc/kallsyms, saved_cmdlines and
 * printk_formats, which we never use: hundreds of thousands of symbols, tens of MB of
 * allocations and a noticeable pause each time the daemon's duty cycle resumes.
 */
static struct tep_handle *load_sched_formats(void)
{
	struct tep_handle *tep = tep_alloc();
	char *buf;
	int size;

	if (!tep)
		return NULL;
	/* what libtracefs's extra parsing set as a side effect: kbuffer needs the long size */
	tep_set_long_size(tep, sizeof(long));
	tep_set_file_bigendian(tep, host_endian());
	tep_set_local_bigendian(tep, host_endian());
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(tep, buf, size, sizeof(long)) < 0) {
		free(buf);
		tep_free(tep);
		return NULL;
	}
	free(buf);
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		buf = tracefs_event_file_read(NULL, sched_system, wanted[i], "format", &size);
		/* a missing event is reported by enable_events(), a bad format by the fields */
		if (buf)
			tep_parse_event(tep, buf, size, sched_system);
		free(buf);
	}
	return tep;
}

static int enable_events(struct sl_recorder *rec)
{
	int r;

	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		if (!sl_instance_has_event(rec->si, sched_system, wanted[i])) {
			char note[200];

			if (!strcmp(wanted[i], "sched_switch"))
				return sl_error(
					-SL_ETRACE,
					"this kernel has no sched:sched_switch event; "
					"build it with CONFIG_TRACEPOINTS and CONFIG_FTRACE");
			if (!strcmp(wanted[i], "sched_waking"))
				snprintf(note, sizeof(note),
					 "no sched_waking on this kernel (added in 4.3): the waker "
					 "is taken from sched_wakeup's context, which is wrong for "
					 "wakeups queued to the target CPU");
			else
				snprintf(note, sizeof(note), "no sched:%s on this kernel: skipped",
					 wanted[i]);
			add_note(rec, note);
			continue;
		}
		if ((r = sl_instance_enable_event(rec->si, sched_system, wanted[i])) < 0)
			return r;
	}
	return 0;
}

static int open_cpus(struct sl_recorder *rec)
{
	int nr = tep_get_cpus(rec->tep), r;
	unsigned int per = rec->opts.cpus_per_reader;
	/* what libtracefs's tracefs_cpu_open() would report: the sub-buffer size given by the
	 * header_page that load_sched_formats() parsed */
	int page_size = tep_get_sub_buffer_size(rec->tep);

	if (page_size <= 0)
		page_size = sysconf(_SC_PAGESIZE); /* no data field: the kernel's default */
	if (nr <= 0)
		nr = sysconf(_SC_NPROCESSORS_CONF);
	rec->cpus = calloc(nr, sizeof(*rec->cpus));
	if (!rec->cpus)
		return -ENOMEM;
	for (int c = 0; c < nr; c++) {
		struct cpu_state *cs = &rec->cpus[rec->nr_cpus];
		char file[64];

		cs->cpu = c;
		cs->stats_fd = -1;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c);
		/* close-on-exec: a child that inherits it keeps the instance busy (EBUSY) */
		cs->watch_fd = tracefs_instance_file_open(rec->si->inst, file,
							  O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (cs->watch_fd >= 0)
			fcntl(cs->watch_fd, F_SETFD, FD_CLOEXEC); /* in case the flag was lost */
		if (cs->watch_fd < 0) {
			if (errno == ENOENT)
				continue; /* a possible but absent CPU */
			return sl_error(-SL_ETRACE, "cannot open cpu %d's trace_pipe_raw: %s", c,
					strerror(errno));
		}
		pthread_mutex_init(&cs->lock, NULL);
		cs->page_size = page_size;
		cs->page = malloc(cs->page_size);
		cs->kbuf = tep_kbuffer(rec->tep);
		rec->nr_cpus++;
		if (!cs->page || !cs->kbuf)
			return -ENOMEM;
		r = sl_instance_cpu_stats_open(rec->si, c);
		cs->stats_fd = r < 0 ? -1 : r; /* else opened at every read */
		cpu_lost(rec, cs, &cs->lost_base);
		cs->lost_seen = cs->lost_base;
	}
	if (!rec->nr_cpus)
		return sl_error(-SL_ETRACE, "no per_cpu trace_pipe_raw could be opened");

	rec->nr_readers = (rec->nr_cpus + per - 1) / per;
	rec->readers = calloc(rec->nr_readers, sizeof(*rec->readers));
	if (!rec->readers) {
		rec->nr_readers = 0;
		return -ENOMEM;
	}
	for (int i = 0; i < rec->nr_readers; i++) {
		rec->readers[i].pipe[0] = rec->readers[i].pipe[1] = -1;
		rec->readers[i].epfd = -1;
	}
	for (int i = 0; i < rec->nr_readers; i++) {
		struct reader *rd = &rec->readers[i];

		rd->rec = rec;
		rd->first = i * per;
		rd->count = rec->nr_cpus - rd->first < (int)per ? rec->nr_cpus - rd->first :
								  (int)per;
		rd->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (rd->epfd < 0)
			return sl_error(-errno, "cannot create an epoll instance: %s",
					strerror(errno));
		if (pipe2(rd->pipe, O_CLOEXEC) < 0) {
			rd->pipe[0] = rd->pipe[1] = -1;
			return sl_error(-errno, "cannot create a pipe: %s", strerror(errno));
		}
		/* a pipe holds one spliced page per slot: ask for SPLICE_PAGES slots */
		fcntl(rd->pipe[1], F_SETPIPE_SZ, SPLICE_PAGES * rec->cpus[rd->first].page_size);
		r = fcntl(rd->pipe[1], F_GETPIPE_SZ);
		rd->splice_pages = r > 0 ? r / rec->cpus[rd->first].page_size : 1;
		if (rd->splice_pages < 1)
			rd->splice_pages = 1;
		rd->buf = malloc((size_t)rd->splice_pages * rec->cpus[rd->first].page_size);
		if (!rd->buf)
			return -ENOMEM;
	}
	return sl_merge_init(&rec->heap, rec->nr_cpus);
}

static int watch_cpus(struct sl_recorder *rec)
{
	for (int i = 0; i < rec->nr_readers; i++) {
		struct reader *rd = &rec->readers[i];

		for (int j = 0; j < rd->count; j++) {
			struct cpu_state *cs = &rec->cpus[rd->first + j];
			struct epoll_event ee = { .events = EPOLLIN, .data.u32 = rd->first + j };

			if (epoll_ctl(rd->epfd, EPOLL_CTL_ADD, cs->watch_fd, &ee) < 0)
				return sl_error(-errno, "cannot watch cpu %d's trace_pipe_raw: %s",
						cs->cpu, strerror(errno));
		}
	}
	return 0;
}

int sl_recorder_open(const struct sl_recorder_opts *opts, struct sl_recorder **ret_rec)
{
	struct sl_recorder *rec;
	char *fmt;
	int r;

	if (!opts || !opts->on_batch)
		return sl_error(-EINVAL, "recorder: no on_batch callback");
	if ((r = sl_instance_check(NULL)) < 0)
		return r;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	rec->opts = *opts;
	if (!rec->opts.buffer_kb)
		rec->opts.buffer_kb = 8192;
	if (!rec->opts.cpus_per_reader)
		rec->opts.cpus_per_reader = 16;
	if (!rec->opts.batch_events)
		rec->opts.batch_events = 4096;
	rec->batch = malloc(rec->opts.batch_events * sizeof(*rec->batch));
	if (!rec->batch) {
		free(rec);
		return -ENOMEM;
	}

	/* never fatal: a busy stale instance is retried later, ours gets a fresh name */
	sl_instance_cleanup_stale(&rec->stale_removed, rec->stale_warning,
				  sizeof(rec->stale_warning));
	if ((r = sl_instance_create(opts->instance, &rec->si)) < 0)
		goto fail;
	if ((r = sl_instance_set_clock(rec->si)) < 0)
		goto fail;
	rec->clock_id = !strcmp(rec->si->clock, "mono") ? CLOCK_MONOTONIC :
			!strcmp(rec->si->clock, "boot") ? CLOCK_BOOTTIME :
							  (clockid_t)-1;
	if ((r = sl_instance_set_buffer_kb(rec->si, rec->opts.buffer_kb)) < 0)
		goto fail;
	if (sl_instance_record_tgid(rec->si) < 0)
		add_note(rec, "no record-tgid option: groups fall back to comm");

	rec->tep = load_sched_formats();
	if (!rec->tep) {
		r = sl_error(-SL_ETRACE, "cannot read the sched event formats under '%s/events'",
			     rec->si->tracing_dir);
		goto fail;
	}
	fmt = tracefs_event_file_read(NULL, sched_system, "sched_switch", "format", NULL);
	r = sl_sched_fields_resolve(rec->tep, fmt, &rec->fields);
	free(fmt);
	if (r < 0)
		goto fail;
	rec->fast_pages = sl_rb_page_usable(rec->tep);
	if ((r = enable_events(rec)) < 0)
		goto fail;
	if ((r = open_cpus(rec)) < 0)
		goto fail;
	if ((r = watch_cpus(rec)) < 0)
		goto fail;
	rec->st.nr_cpus = rec->nr_cpus;
	rec->st.nr_readers = rec->nr_readers;
	*ret_rec = rec;
	return 0;
fail : {
	/* the reason we failed, not a later "cannot remove" of the clean-up */
	char why[1024];

	snprintf(why, sizeof(why), "%s", sl_errmsg(r));
	sl_recorder_close(rec);
	return sl_error(r, "%s", why);
}
}

const char *sl_recorder_clock(const struct sl_recorder *rec)
{
	return rec->si->clock;
}

const char *sl_recorder_instance(const struct sl_recorder *rec)
{
	return rec->si->name;
}

int sl_recorder_stale_removed(const struct sl_recorder *rec)
{
	return rec->stale_removed;
}

const char *sl_recorder_stale_warning(const struct sl_recorder *rec)
{
	return rec->stale_warning;
}

const char *sl_recorder_notes(const struct sl_recorder *rec)
{
	return rec->notes;
}

int sl_recorder_start(struct sl_recorder *rec)
{
	int r;

	if (rec->started)
		return 0;
	if ((r = sl_instance_trace_on(rec->si)) < 0)
		return r;
	rec->started = true;
	for (int i = 0; i < rec->nr_readers; i++) {
		struct reader *rd = &rec->readers[i];

		r = pthread_create(&rd->thread, NULL, reader_main, rd);
		if (r) {
			sl_recorder_stop(rec);
			return sl_error(-r, "cannot start a reader thread: %s", strerror(r));
		}
		rd->started = true;
	}
	return 0;
}

int sl_recorder_poll(struct sl_recorder *rec, int timeout_ms)
{
	if (rec->err)
		return rec->err;
	for (int i = 0; i < rec->nr_readers; i++)
		if (rec->readers[i].err)
			return rec->err = rec->readers[i].err;
	if (timeout_ms > 0) {
		struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !atomic_load(&rec->stopping))
			break; /* a signal: let the caller look at its flags */
	}
	rec->err = merge_ready(rec, false);
	return rec->err;
}

static void read_tgids(struct sl_recorder *rec)
{
	char path[1024];
	size_t cap = 0;
	int pid, tgid;
	FILE *f;

	if (!rec->si || !rec->started)
		return; /* nothing was recorded */
	snprintf(path, sizeof(path), "%s/saved_tgids", rec->si->tracing_dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fscanf(f, "%d %d", &pid, &tgid) == 2) {
		if (rec->nr_tgids == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			int *a = realloc(rec->tgid_pid, ncap * sizeof(int));
			int *b = a ? realloc(rec->tgid_tgid, ncap * sizeof(int)) : NULL;

			if (a)
				rec->tgid_pid = a;
			if (!b)
				break;
			rec->tgid_tgid = b;
			cap = ncap;
		}
		rec->tgid_pid[rec->nr_tgids] = pid;
		rec->tgid_tgid[rec->nr_tgids] = tgid;
		rec->nr_tgids++;
	}
	fclose(f);
}

int sl_recorder_tgid(const struct sl_recorder *rec, int pid)
{
	size_t lo = 0, hi = rec->nr_tgids;

	/* saved_tgids lists pids in increasing order */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rec->tgid_pid[mid] == pid)
			return rec->tgid_tgid[mid];
		if (rec->tgid_pid[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int sl_recorder_stop(struct sl_recorder *rec)
{
	int r = 0;

	if (!rec || rec->stopped)
		return rec ? rec->err : 0;
	rec->stopped = true;
	/* order matters: no new events, then readers take what is left, then merge all */
	sl_instance_trace_off(rec->si);
	atomic_store(&rec->stopping, true);
	for (int i = 0; i < rec->nr_readers; i++) {
		struct reader *rd = &rec->readers[i];

		if (!rd->started)
			continue;
		pthread_join(rd->thread, NULL);
		rd->started = false;
		rec->st.reader_cpu_s += rd->cpu_s;
		if (rd->err && !r)
			r = rd->err;
	}
	for (int c = 0; c < rec->nr_cpus; c++) {
		struct cpu_state *cs = &rec->cpus[c];
		unsigned long long now;

		/* drops counted after the last page was read: a gap at the end */
		if (cpu_lost(rec, cs, &now) == 0 && now > cs->lost_seen) {
			cs->pending_lost += now - cs->lost_seen;
			cs->lost_seen = now;
		}
		if (cs->pending_lost || cs->pending_gap) {
			if (emit_lost(cs, cs->last_ts) < 0 && !r)
				r = -ENOMEM;
			publish(cs, cs->last_ts);
		}
		rec->st.lost += cs->lost_seen - cs->lost_base;
		rec->st.pages += cs->pages;
		rec->st.bytes += cs->bytes;
	}
	if (rec->started) {
		int m = merge_ready(rec, true);

		if (!r)
			r = m;
	}
	read_tgids(rec);
	if (!rec->err)
		rec->err = r;
	return r;
}

void sl_recorder_get_stats(const struct sl_recorder *rec, struct sl_recorder_stats *ret)
{
	*ret = rec->st;
}

uint64_t sl_recorder_cpu_lost(const struct sl_recorder *rec, int cpu)
{
	for (int c = 0; c < rec->nr_cpus; c++)
		if (rec->cpus[c].cpu == cpu)
			return rec->cpus[c].lost_seen - rec->cpus[c].lost_base;
	return 0;
}

static void free_chunks(struct chunk *c)
{
	while (c) {
		struct chunk *n = c->next;

		free(c);
		c = n;
	}
}

int sl_recorder_close(struct sl_recorder *rec)
{
	int r;

	if (!rec)
		return 0;
	sl_recorder_stop(rec);
	for (int i = 0; i < rec->nr_readers; i++) {
		struct reader *rd = &rec->readers[i];

		if (rd->epfd >= 0)
			close(rd->epfd);
		if (rd->pipe[0] >= 0) {
			close(rd->pipe[0]);
			close(rd->pipe[1]);
		}
		free(rd->buf);
	}
	for (int c = 0; c < rec->nr_cpus; c++) {
		struct cpu_state *cs = &rec->cpus[c];

		/* every trace_pipe_raw fd must be closed before the instance's rmdir */
		if (cs->watch_fd >= 0)
			close(cs->watch_fd);
		if (cs->stats_fd >= 0)
			close(cs->stats_fd);
		if (cs->kbuf)
			kbuffer_free(cs->kbuf);
		free(cs->page);
		free(cs->cur);
		free_chunks(cs->head);
		free_chunks(cs->c_head);
		free_chunks(cs->free_list);
		pthread_mutex_destroy(&cs->lock);
	}
	free(rec->cpus);
	free(rec->readers);
	sl_merge_free(&rec->heap);
	tep_free(rec->tep);
	r = sl_instance_destroy(rec->si);
	free(rec->batch);
	free(rec->tgid_pid);
	free(rec->tgid_tgid);
	free(rec);
	return r;
}
