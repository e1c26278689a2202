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
 *
 * This file owns the tracefs setup (instance, event formats, per-CPU files) and the life
 * cycle; the reader threads are in recorder-reader.c, the merge in recorder-merge.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "error.h"
#include "rb-page.h"
#include "recorder-local.h"

static const char *const sched_system = "sched";

uint64_t sl_recorder_now_ns(const struct sl_recorder *rec)
{
	struct timespec ts;

	if (rec->clock_id < 0)
		return 0;
	clock_gettime(rec->clock_id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void add_note(struct sl_recorder *rec, const char *text)
{
	size_t len = strlen(rec->notes);

	snprintf(rec->notes + len, sizeof(rec->notes) - len, "%s\n", text);
}

/* --- life cycle ------------------------------------------------------------------------ */

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
	for (int k = 0; k < SL_SE_COUNT; k++) {
		const char *sys = sl_sched_event_system(k);

		buf = tracefs_event_file_read(NULL, sys, sl_sched_event_name(k), "format", &size);
		/* a missing event is reported by enable_events(), a bad format by the fields */
		if (buf)
			tep_parse_event(tep, buf, size, sys);
		free(buf);
	}
	return tep;
}

static int enable_events(struct sl_recorder *rec)
{
	int r;

	for (int k = 0; k < SL_SE_COUNT; k++) {
		const char *sys = sl_sched_event_system(k), *name = sl_sched_event_name(k);

		if (k == SL_SE_FUTEX && rec->opts.no_futex)
			continue;
		if (!sl_instance_has_event(rec->si, sys, name)) {
			char note[300];

			if (k == SL_SE_SWITCH)
				return sl_error(
					-SL_ETRACE,
					"this kernel has no sched:sched_switch event; "
					"build it with CONFIG_TRACEPOINTS and CONFIG_FTRACE");
			if (k == SL_SE_WAKING)
				snprintf(note, sizeof(note),
					 "no sched_waking on this kernel (added in 4.3): the waker "
					 "is taken from sched_wakeup's context, which is wrong for "
					 "wakeups queued to the target CPU");
			else if (k == SL_SE_FUTEX)
				snprintf(note, sizeof(note),
					 "no syscalls:sys_enter_futex on this kernel "
					 "(CONFIG_FTRACE_SYSCALLS): lock-holder preemption cannot "
					 "tell one lock from another");
			else
				snprintf(note, sizeof(note), "no %s:%s on this kernel: skipped",
					 sys, name);
			add_note(rec, note);
			continue;
		}
		if ((r = sl_instance_enable_event(rec->si, sys, name)) < 0)
			return r;
	}
	return 0;
}

/*
 * A 1024-CPU host needs over 2000 fds for its buffers (recorder_fds()), more than the
 * usual soft limit of 1024: when they would not leave 256 for the rest (database, logs,
 * sockets), the soft limit is raised towards the hard one, to what they need plus 1024.
 * Smaller hosts keep their limit. A hard limit too low shows later as EMFILE, by name.
 */
static void raise_fd_limit(int need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= (rlim_t)need + 256)
		return;
	rl.rlim_cur = (rlim_t)need + 1024;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
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
	raise_fd_limit(recorder_fds(nr, per));
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
		recorder_cpu_lost(rec, cs, &cs->lost_base);
		cs->lost_seen = cs->lost_base;
	}
	if (!rec->nr_cpus)
		return sl_error(-SL_ETRACE, "no per_cpu trace_pipe_raw could be opened");

	for (int c = 0; c < rec->nr_cpus; c++)
		rec->cpus[c].max_queued = recorder_queue_cap(rec->nr_cpus);
	rec->nr_readers = recorder_nr_readers(rec->nr_cpus, per);
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

		r = pthread_create(&rd->thread, NULL, recorder_reader_main, rd);
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
	rec->err = recorder_merge_ready(rec, false);
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
		if (recorder_cpu_lost(rec, cs, &now) == 0 && now > cs->lost_seen) {
			cs->pending_lost += now - cs->lost_seen;
			cs->lost_seen = now;
		}
		if (cs->pending_lost || cs->pending_gap) {
			if (recorder_emit_lost(cs, cs->last_ts) < 0 && !r)
				r = -ENOMEM;
			recorder_publish(cs, cs->last_ts);
		}
		rec->st.lost += cs->lost_seen - cs->lost_base;
		rec->st.pages += cs->pages;
		rec->st.bytes += cs->bytes;
	}
	if (rec->started) {
		int m = recorder_merge_ready(rec, true);

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
