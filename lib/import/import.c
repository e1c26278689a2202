// SPDX-License-Identifier: GPL-2.0-only
/*
 * The import driver: detects the format, opens a session with the traced host's metadata,
 * feeds it the events, and keeps the run's import columns (schema/0003-import.sql) true:
 * complete = 0 from the start, 1 only once every event was analysed and stored.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "import-dat.h"
#include "import-text.h"
#include "import.h"
#include "text-lines.h"
#include "store.h"

#define BATCH 1024
#define HOLD 512 /* events kept back from the engine to restore global order */
/* text: the hold window [h0, h0 + n_hold) slides along this many events before the HOLD
 * kept are moved back to the start (once per 14 batches instead of once per batch: 32 KiB
 * moved per 7 k events). 512 KiB: 32 batches (2 MiB) cost 384 more page faults of about
 * 10 us each on this project's VMs, and left the cache */
#define HOLD_CAP (8 * BATCH)

const char *sl_import_format_name(enum sl_import_format f)
{
	return f == SL_IMPORT_DAT ? "trace.dat" : f == SL_IMPORT_TEXT ? "text" : "auto";
}

int sl_import_detect(const char *path, enum sl_import_format *ret_format)
{
	static const unsigned char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return sl_error(-errno, "cannot open '%s': %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return sl_error(-EIO, "cannot read '%s'", path);
	if (n >= (ssize_t)sizeof(magic) && !memcmp(buf, magic, sizeof(magic))) {
		*ret_format = SL_IMPORT_DAT;
		return 0;
	}
	if (n >= 3 && !memcmp(buf, magic, 3))
		return sl_error(-SL_EFORMAT, "'%s': a trace-cmd file with a damaged header", path);
	if (n == 0)
		return sl_error(-SL_EFORMAT, "'%s': empty file", path);
	/* text: printable, and an ftrace header or a sched event line in the first 4 KiB */
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 0 ||
		    (buf[i] < 32 && buf[i] != '\n' && buf[i] != '\t' && buf[i] != '\r'))
			return sl_error(-SL_EFORMAT,
					"'%s': neither a trace.dat nor ftrace text (binary byte at "
					"offset %zd)",
					path, i);
	if (memmem(buf, n, "# tracer:", 9) || memmem(buf, n, ": sched_", 8) ||
	    memmem(buf, n, "cpus=", 5)) {
		*ret_format = SL_IMPORT_TEXT;
		return 0;
	}
	return sl_error(-SL_EFORMAT,
			"'%s': neither a trace.dat nor ftrace text (no '# tracer:' header or "
			"sched_ event in the first 4 KiB)",
			path);
}

/* --- the run ----------------------------------------------------------------------------- */

struct imp {
	const struct sl_import_opts *o;
	struct sl_import_result *res;
	struct sl_session *session;
	struct sl_dat *dat; /* trace.dat only: its read offset is the progress */
	struct sl_event *hold; /* [HOLD_CAP], text only; the held events are at h0 */
	size_t h0, n_hold;
	uint64_t fed_ts; /* newest timestamp handed to the engine */
	uint64_t first_ns, last_ns;
	uint64_t end_ns; /* "# schedlens end_ns N": the exported run's end */
	bool any;
	/* pid -> tgid + 1, filled from the text's tgid column and "# tgid" lines */
	int32_t *tgid;
	size_t tgid_len;
	/* progress */
	struct timespec t0, last_report;
	uint64_t done, total;
};

static double since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) + (b.tv_nsec - a->tv_nsec) / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(struct imp *m, bool force)
{
	struct sl_import_progress p;

	if (!m->o->progress || (!force && since(&m->last_report) < 0.2))
		return;
	clock_gettime(CLOCK_MONOTONIC, &m->last_report);
	p.events = m->res->events_total;
	p.done = m->done;
	p.total = m->total;
	p.elapsed_s = since(&m->t0);
	m->o->progress(m->o->progress_ctx, &p);
}

static int32_t tgid_of(void *ctx, int32_t pid)
{
	struct imp *m = ctx;

	return pid >= 0 && (size_t)pid < m->tgid_len && m->tgid[pid] ? m->tgid[pid] - 1 : -1;
}

static int set_tgid(struct imp *m, int32_t pid, int32_t tgid)
{
	if (pid < 0 || pid > SL_TEXT_PID_MAX || tgid < 0)
		return 0;
	if ((size_t)pid >= m->tgid_len) {
		size_t len = m->tgid_len ? m->tgid_len : 4096;
		int32_t *t;

		while (len <= (size_t)pid)
			len *= 2;
		t = realloc(m->tgid, len * sizeof(*t));
		if (!t)
			return -ENOMEM;
		memset(t + m->tgid_len, 0, (len - m->tgid_len) * sizeof(*t));
		m->tgid = t;
		m->tgid_len = len;
	}
	m->tgid[pid] = tgid + 1;
	return 0;
}

static void count(struct imp *m, const struct sl_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ev[i].type < SL_EV_TYPE_MAX)
			m->res->events[ev[i].type]++;
	}
	m->res->events_total += n;
	if (n) {
		if (!m->any)
			m->first_ns = ev[0].ts_ns;
		m->any = true;
		if (ev[n - 1].ts_ns > m->last_ns)
			m->last_ns = ev[n - 1].ts_ns;
	}
}

/* The caller asked to stop (a signal): -EINTR, the import's end is as for bad input. */
static int stopped(struct imp *m)
{
	if (!m->o->stop || !*m->o->stop)
		return 0;
	m->res->interrupted = *m->o->stop;
	return sl_error(-EINTR, "interrupted by signal %d", m->res->interrupted);
}

static void feed(struct imp *m, const struct sl_event *ev, size_t n)
{
	count(m, ev, n);
	if (n)
		m->fed_ts = ev[n - 1].ts_ns;
	sl_session_feed(m->session, ev, n);
}

/* trace.dat events come merged: straight to the engine. */
static int dat_batch(void *ctx, const struct sl_event *ev, size_t n)
{
	struct imp *m = ctx;

	feed(m, ev, n);
	m->done = sl_dat_offset(m->dat);
	progress(m, false);
	return stopped(m);
}

/*
 * Text: kernel and trace-cmd output are globally sorted, but a text merged by hand may
 * not be; events are held back HOLD deep and sorted in, stably. Anything older than what
 * the engine already has is an error, never a silent drop. The event was parsed into
 * text_slot(), after the held ones: in order, it stays there and costs no copy.
 */
static struct sl_event *text_slot(struct imp *m)
{
	return m->hold + m->h0 + m->n_hold; /* h0 + BATCH <= HOLD_CAP and n_hold < BATCH */
}

static int text_push(struct imp *m, uint64_t lineno)
{
	struct sl_event *h = m->hold + m->h0;
	size_t i = m->n_hold;
	uint64_t ts = h[i].ts_ns;

	if (m->res->events_total && ts < m->fed_ts)
		return sl_error(-SL_ERANGE,
				"line %llu: timestamp out of global order by more than %d events",
				(unsigned long long)lineno, HOLD);
	if (i > 0 && h[i - 1].ts_ns > ts) {
		struct sl_event ev = h[i];

		while (i > 0 && h[i - 1].ts_ns > ts)
			i--;
		memmove(&h[i + 1], &h[i], (m->n_hold - i) * sizeof(ev));
		h[i] = ev;
	}
	if (++m->n_hold == BATCH) {
		int err = stopped(m);

		if (err < 0)
			return err;
		feed(m, h, BATCH - HOLD);
		m->h0 += BATCH - HOLD;
		m->n_hold = HOLD;
		if (m->h0 + BATCH > HOLD_CAP) {
			memmove(m->hold, m->hold + m->h0, HOLD * sizeof(*h));
			m->h0 = 0;
		}
	}
	return 0;
}

/* "# tgid PID TGID": schedlens export's record of the thread groups, before the events. */
static void tgid_line(struct imp *m, const char *s, const char *e)
{
	char buf[64];
	int pid, tgid;

	if (e - s >= (ptrdiff_t)sizeof(buf) || e - s < 8 || memcmp(s, "# tgid ", 7))
		return;
	memcpy(buf, s, e - s);
	buf[e - s] = '\0';
	if (sscanf(buf, "# tgid %d %d", &pid, &tgid) == 2)
		set_tgid(m, pid, tgid);
}

static int read_text(struct imp *m, const char *path)
{
	struct sl_text_parser *p = NULL;
	struct sl_text_lines *r = NULL;
	const char *s;
	size_t len;
	bool nul_free;
	struct sl_event *ev;
	int err, max_cpus = m->o->topo ? m->o->topo->nr_cpus : 0;

	err = sl_text_lines_open(path, &r, &m->total);
	if (err < 0)
		return err;
	if (!m->total) {
		sl_text_lines_close(r);
		return sl_error(-SL_EFORMAT, "'%s': empty file", path);
	}
	m->hold = malloc(HOLD_CAP * sizeof(*m->hold));
	err = m->hold ? sl_text_parser_new(max_cpus, &p) : -ENOMEM;
	if (err < 0)
		goto out;
	/* the reader found any NUL byte with the line's end; a line with one goes to
	 * sl_text_parse_line(), which says so */
	while ((err = sl_text_lines_next(r, &s, &len, &nul_free)) > 0) {
		if (s[0] == '#' && len > 7 && s[2] == 't')
			tgid_line(m, s, s + len);
		if (s[0] == '#' && len > 20 && !memcmp(s, "# schedlens end_ns ", 19))
			m->end_ns = strtoull(s + 19, NULL, 10);
		ev = text_slot(m);
		if (nul_free)
			err = sl_text_parse_line_nul_checked(p, s, len, ev);
		else
			err = sl_text_parse_line(p, s, len, ev);
		if (err < 0)
			break;
		if (err == 0)
			continue;
		if (ev->cpu >= m->res->nr_cpus)
			m->res->nr_cpus = ev->cpu + 1;
		if (sl_text_parser_tgid(p) >= 0 &&
		    (err = set_tgid(m, ev->common_pid, sl_text_parser_tgid(p))) < 0)
			break;
		err = text_push(m, sl_text_parser_lines(p));
		if (err < 0)
			break;
		if (!(sl_text_parser_lines(p) & 0x3fff)) {
			m->done = sl_text_lines_offset(r);
			progress(m, false);
		}
	}
	/* what was read before a bad line is analysed and stored too, marked incomplete */
	feed(m, m->hold + m->h0, m->n_hold);
	m->n_hold = 0;
	if (err >= 0 && !m->res->events_total)
		err = sl_error(-SL_EFORMAT, "'%s': no sched events in %llu lines", path,
			       (unsigned long long)sl_text_parser_lines(p));
	m->done = err >= 0 ? m->total : sl_text_lines_offset(r);
	m->res->units = sl_text_parser_lines(p);
	m->res->skipped = sl_text_parser_skipped(p);
	m->res->skipped_lines = sl_text_parser_other(p, &m->res->first_skipped_line);
	m->res->nsec = sl_text_parser_nsec(p);
out:
	sl_text_parser_free(p);
	free(m->hold);
	m->hold = NULL;
	sl_text_lines_close(r);
	return err < 0 ? err : 0;
}

/*
 * Pre-scan of a text file: does it have sched_waking at all? Read in pieces like the lines
 * (text-lines.h says why not mapped); a trace of a kernel with the event has one in its
 * first piece.
 */
static int text_has_waking(const char *path, bool *ret)
{
	static const char needle[] = " sched_waking: ";
	const size_t keep = sizeof(needle) - 2, piece = 256u << 10;
	char *buf = malloc(piece + keep);
	size_t have = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		int err = fd < 0 ? sl_error(-errno, "cannot open '%s': %s", path, strerror(errno)) :
				   sl_error(-ENOMEM, "'%s': out of memory", path);

		if (fd >= 0)
			close(fd);
		free(buf);
		return err;
	}
	*ret = false;
	/* the last keep bytes of a piece go before the next: a needle cut in two is found */
	while (!*ret && (n = read(fd, buf + have, piece)) > 0) {
		have += n;
		*ret = memmem(buf, have, needle, sizeof(needle) - 1) != NULL;
		if (have > keep) {
			memmove(buf, buf + have - keep, keep);
			have = keep;
		}
	}
	if (n < 0)
		n = sl_error(-errno, "cannot read '%s': %s", path, strerror(errno));
	close(fd);
	free(buf);
	return n < 0 ? (int)n : 0;
}

/* The import columns, on the session's connection. (The first switches and waking times
 * that schema 3 stored here are raw facts now, stored by the session for every run.) */
static int mark_run(struct imp *m, struct sl_store *st, int64_t run_id, bool complete,
		    const char *error)
{
	struct sl_run_import imp = {
		.complete = complete,
		.waker_from_wakeup = m->res->waker_from_wakeup,
		.path = m->o->path,
		.error = error,
		.skipped_lines = m->res->skipped_lines,
	};

	return sl_store_run_set_import(st, run_id, &imp);
}

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/*
 * What the file says of itself (a trace.dat's header, whether a text has sched_waking)
 * and the names the options give or default to, into res and so->meta. *ret_dat is the
 * trace.dat opened, if any, also on error.
 */
static int probe_source(const struct sl_import_opts *o, struct sl_import_result *res,
			struct sl_session_opts *so, struct sl_dat **ret_dat)
{
	struct sl_dat *dat = NULL;
	int err;

	if (res->format == SL_IMPORT_DAT) {
		const struct sl_dat_info *di;

		err = sl_dat_open(o->path, &dat);
		*ret_dat = dat;
		if (err < 0)
			return err;
		di = sl_dat_info(dat);
		res->file_version = di->file_version;
		res->nr_cpus = di->nr_cpus;
		res->nr_instances = di->nr_instances;
		res->waker_from_wakeup = !di->has_waking;
		copy(res->kernel_release, sizeof(res->kernel_release), di->kernel_release);
		copy(res->hostname, sizeof(res->hostname), di->hostname);
		copy(res->trace_clock, sizeof(res->trace_clock), di->trace_clock);
		copy(res->dat_reader, sizeof(res->dat_reader), di->reader);
		so->meta.kernel_version = di->kernel_version;
		if (o->topo && di->nr_cpus > o->topo->nr_cpus)
			return sl_error(
				-SL_ERANGE,
				"'%s' was recorded on %d CPUs but the topology has %d: wrong "
				"topology file?",
				o->path, di->nr_cpus, o->topo->nr_cpus);
	} else {
		bool waking = true;

		err = text_has_waking(o->path, &waking);
		if (err < 0)
			return err;
		res->waker_from_wakeup = !waking;
	}
	if (o->kernel_release)
		copy(res->kernel_release, sizeof(res->kernel_release), o->kernel_release);
	if (o->hostname)
		copy(res->hostname, sizeof(res->hostname), o->hostname);
	if (!res->kernel_release[0])
		copy(res->kernel_release, sizeof(res->kernel_release), "unknown");
	if (!res->hostname[0])
		copy(res->hostname, sizeof(res->hostname), "unknown");
	return 0;
}

/* The session the events go to: the run's description and the engine's settings. */
static void fill_session_opts(struct imp *m, const struct sl_import_opts *o,
			      const struct sl_import_result *res, struct sl_session_opts *so)
{
	so->db_path = o->db_path;
	so->topo = o->topo;
	so->hostname = res->hostname;
	so->meta.kernel_release = res->kernel_release;
	so->meta.workload = o->label ? o->label : "";
	so->meta.source = sl_import_format_name(res->format);
	/* text traces do not say which clock they used */
	so->meta.trace_clock = res->trace_clock[0] ? res->trace_clock : NULL;
	so->meta.nr_cpus = o->topo ? o->topo->nr_online : res->nr_cpus;
	if (o->engine)
		so->engine = *o->engine;
	else
		sl_engine_config_default(&so->engine);
	so->engine.waker_from_wakeup = res->waker_from_wakeup;
	so->engine.tgid_of = tgid_of;
	so->engine.tgid_ctx = m;
	/* a file can be read again: wait for the writer rather than drop its rows */
	so->wait_for_writer = true;
	so->windows_only = o->windows_only;
	so->page_size = SL_STORE_BULK_PAGE_SIZE;
}

int sl_import_run(const struct sl_import_opts *o, struct sl_import_result *res)
{
	struct imp m = { .o = o, .res = res };
	struct sl_session_opts so = { 0 };
	struct sl_dat *dat = NULL;
	struct sl_run_totals totals = { 0 };
	struct sl_store *store = NULL;
	double cpu0 = cpu_now(), probe_cpu_s;
	int err, cerr;

	memset(res, 0, sizeof(*res));
	res->session.run_id = -1;
	clock_gettime(CLOCK_MONOTONIC, &m.t0);
	m.last_report = m.t0;
	res->format = o->format;
	if (res->format == SL_IMPORT_AUTO && (err = sl_import_detect(o->path, &res->format)) < 0)
		return err;
	res->topo_known = o->topo != NULL;

	err = probe_source(o, res, &so, &dat);
	if (err < 0)
		goto out;
	fill_session_opts(&m, o, res, &so);
	err = sl_session_open(&so, &m.session);
	if (err < 0)
		goto out;
	if (o->handler && (err = sl_session_add_handler(m.session, o->handler)) < 0)
		goto out_close;
	/* until the end says otherwise: a killed import leaves a run marked interrupted */
	if (o->db_path && (err = mark_run(&m, sl_session_store(m.session),
					  sl_session_run_id(m.session), false, "interrupted")) < 0)
		goto out_close;

	if (res->format == SL_IMPORT_DAT) {
		m.total = sl_dat_size(dat);
		m.dat = dat;
		err = sl_dat_read(dat, o->topo ? o->topo->nr_cpus : 0, dat_batch, &m, &res->units);
		/* a terminal's ^C also reaches the reader child: its death is the interruption */
		if (err < 0 && err != -EINTR && stopped(&m) < 0)
			err = -EINTR;
		res->skipped = res->units - res->events_total;
		m.done = err < 0 ? sl_dat_offset(dat) : m.total;
		if (!err && !res->events_total)
			err = sl_error(-SL_EFORMAT, "'%s': no sched events", o->path);
	} else {
		err = read_text(&m, o->path);
	}
	if (err == -EINTR)
		snprintf(res->error, sizeof(res->error),
			 "interrupted by signal %d after %llu events (%s %llu)", res->interrupted,
			 (unsigned long long)res->events_total,
			 res->format == SL_IMPORT_DAT ? "file offset" : "byte",
			 (unsigned long long)m.done);
	else if (err < 0)
		copy(res->error, sizeof(res->error), sl_errmsg(err));
	progress(&m, true);

out_close:
	totals.end_ns = m.end_ns > m.last_ns ? m.end_ns : m.last_ns;
	totals.events = res->events_total;
	totals.lost_events = 0;
	totals.gaps = res->events[SL_EV_LOST] > 0;
	cerr = sl_session_close_keep_store(m.session, &totals, &res->session, &store);
	m.session = NULL;
	if (cerr < 0 && err >= 0) {
		err = cerr;
		copy(res->error, sizeof(res->error), sl_errmsg(cerr));
	}
	res->complete = err >= 0;
	if (store && res->session.run_id >= 0) {
		cerr = mark_run(&m, store, res->session.run_id, res->complete,
				res->complete ? NULL : res->error);
		if (cerr < 0 && err >= 0)
			err = cerr;
	}
	sl_store_close(store);
	/* the caller prints the first error, not a later one */
	if (err < 0 && res->error[0])
		sl_error(err, "%s", res->error);
out:
	probe_cpu_s = sl_dat_child_cpu_s(dat);
	sl_dat_close(dat);
	free(m.tgid);
	res->cpu_s = cpu_now() - cpu0 + probe_cpu_s;
	res->wall_s = since(&m.t0);
	return err;
}

void sl_import_result_free(struct sl_import_result *r)
{
	sl_session_result_free(&r->session);
}
