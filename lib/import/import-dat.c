// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat -> struct sl_event. Our own container reader (lib/import/dat-file.c) maps the file,
 * takes only the sched formats and walks every buffer's per-CPU pages with lib/record/rb-page.h,
 * merging the CPUs by timestamp in this process: libtracecmd's open alone (every format,
 * kallsyms, printk formats) cost more than a whole import should. Files it does not
 * handle (timestamps libtracecmd rewrites, other compressions or byte orders, a layout it
 * does not know) go through libtracecmd in a child process, as before; both paths yield
 * the same events in the same order (tracecmd_iterate_events_multi()'s: by timestamp,
 * ties to the earlier buffer, top first, then the lower CPU).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "error.h"
#include "import-dat-local.h"
#include "sched-fields.h"
#include "topo.h"

/* Exported by libtracecmd 3.1 but only declared in its private header. */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);

/* Where w's current record (at data) lies, as "file offset N" or the chunk it came from. */
static const char *where(struct walk *w, const void *data)
{
	if (w->rec_pages)
		sl_dat_pages_where(w->rec_pages, data, w->where, sizeof(w->where));
	else
		snprintf(w->where, sizeof(w->where), "file offset %llu",
			 (unsigned long long)w->rec_offset);
	return w->where;
}

/*
 * The prev_state encoding as the traced kernel prints it: a probe record per bit goes
 * through the file's own sched_switch print fmt, and the letter (and "+") it prints is
 * read back. No format text parsing, so any kernel's table and preempt bit work.
 */
static int probe_prev_state(struct sl_dat *d, struct sl_prev_state_map *map)
{
	struct tep_event *ev = tep_find_event_by_name(d->tep, "sched", "sched_switch");
	struct tep_format_field *type, *state;
	struct sl_prev_state_map m = { 0 };
	struct trace_seq s;
	uint8_t *data;
	int err = 0;

	type = ev ? tep_find_common_field(ev, "common_type") : NULL;
	state = ev ? tep_find_field(ev, "prev_state") : NULL;
	if (!type || !state || state->size > 8 || type->size != 2)
		return sl_error(-SL_EFORMAT, "sched_switch: no prev_state field");
	data = calloc(1, 512);
	if (!data)
		return -ENOMEM;
	trace_seq_init(&s);
	for (int bit = 0; bit < 8 * state->size && bit < 32; bit++) {
		struct tep_record rec = { .data = data, .size = 512, .cpu = 0 };
		uint64_t raw = 1ull << bit;
		uint16_t id = ev->id;
		const char *p;

		memset(data, 0, 512);
		memcpy(data + type->offset, &id, 2);
		if (state->offset + state->size > 512)
			break;
		memcpy(data + state->offset, &raw, state->size); /* little-endian host */
		trace_seq_reset(&s);
		tep_print_event(d->tep, &s, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		p = s.buffer ? strstr(s.buffer, "prev_state=") : NULL;
		if (!p)
			continue;
		p += strlen("prev_state=");
		if (p[0] == 'R' && p[1] == '+') {
			if (!m.preempt_bit)
				m.preempt_bit = raw;
		} else if (p[0] != 'R' && p[0] > ' ' && m.nr_flags < SL_PREV_STATE_MAX_FLAGS) {
			/* bits outside the state mask print plain R and are not states */
			m.flags[m.nr_flags].bit = raw;
			m.flags[m.nr_flags].letter = p[0];
			m.nr_flags++;
		}
	}
	trace_seq_destroy(&s);
	free(data);
	if (!m.nr_flags)
		err = sl_error(-SL_EFORMAT, "sched_switch print fmt: cannot decode prev_state");
	else
		*map = m;
	return err;
}

/* The sched fields of d->tep, and its prev_state encoding. */
int dat_resolve_fields(struct sl_dat *d, const char *path)
{
	int err = sl_sched_fields_resolve(d->tep, NULL, &d->sf);

	if (err < 0)
		return sl_error(err, "'%s': %s", path, sl_errmsg(err));
	return probe_prev_state(d, &d->sf.prev_state);
}

void dat_parse_uname(struct sl_dat *d, const char *u)
{
	char *save, *tok[5] = { 0 };
	int n = 0;

	if (!u || !*u)
		return;
	/* "sysname nodename release version machine"; version holds spaces */
	d->uname = strdup(u);
	if (!d->uname)
		return;
	for (char *t = strtok_r(d->uname, " ", &save); t && n < 3; t = strtok_r(NULL, " ", &save))
		tok[n++] = t;
	if (n >= 3) {
		d->info.hostname = tok[1];
		d->info.kernel_release = tok[2];
		d->info.kernel_version = save && *save ? save : NULL;
	}
}

/* Opens the file with libtracecmd in this process; on error the caller closes d. */
static int open_local(struct sl_dat *d, const char *path)
{
	int n, err;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	d->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!d->top) {
		return sl_error(-SL_EFORMAT,
				"'%s': not a readable trace.dat (truncated, corrupt, or an "
				"unsupported version)",
				path);
	}
	d->tep = tracecmd_get_tep(d->top);
	if (tep_is_file_bigendian(d->tep) != tep_is_local_bigendian(d->tep)) {
		return sl_error(-SL_EFORMAT, "'%s': recorded on a host of the other byte order",
				path);
	}
	n = tracecmd_buffer_instances(d->top);
	d->handles = calloc(n + 1, sizeof(*d->handles));
	if (!d->handles)
		return -ENOMEM;
	d->handles[d->nr_handles++] = d->top;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(d->top, i);

		if (!h)
			return sl_error(-SL_EFORMAT, "'%s': cannot open buffer instance '%s'", path,
					tracecmd_buffer_instance_name(d->top, i));
		d->handles[d->nr_handles++] = h;
	}
	err = dat_resolve_fields(d, path);
	if (err < 0)
		return err;
	d->info.file_version = tracecmd_get_in_file_version(d->top);
	d->info.nr_cpus = tep_get_cpus(d->tep);
	d->info.nr_instances = n;
	d->info.trace_clock = tracecmd_get_trace_clock(d->top);
	d->info.has_waking = d->sf.id[SL_SE_WAKING] >= 0;
	dat_parse_uname(d, tracecmd_get_uname(d->top));
	d->info.reader = "libtracecmd";
	return 0;
}

const struct sl_dat_info *sl_dat_info(const struct sl_dat *d)
{
	return &d->info;
}

uint64_t sl_dat_size(const struct sl_dat *d)
{
	return d->size;
}

uint64_t sl_dat_offset(const struct sl_dat *d)
{
	return d->offset;
}

static int flush(struct walk *w)
{
	int r = 0;

	if (w->n)
		r = w->batch(w->ctx, w->buf, w->n);
	w->n = 0;
	return r;
}

/* (import-dat-local.h) */
int dat_emit(struct walk *w, int cpu, uint64_t ts, const void *data, int size, long long missed)
{
	struct sl_event *ev;
	int r;

	w->records++;
	if (cpu < 0 || cpu >= w->max_cpus) {
		w->err = sl_error(-SL_ERANGE,
				  "%s: record on CPU %d, beyond the %d CPUs of the topology",
				  where(w, data), cpu, w->max_cpus);
		return 1;
	}
	if (w->cpu_ts[cpu] > ts + 1) {
		w->err = sl_error(-SL_ERANGE, "%s: timestamp %llu goes backwards on CPU %d",
				  where(w, data), (unsigned long long)ts, cpu);
		return 1;
	}
	w->cpu_ts[cpu] = ts + 1;
	if (missed) {
		ev = &w->buf[w->n++];
		memset(ev, 0, sizeof(*ev));
		ev->type = SL_EV_LOST;
		ev->ts_ns = ts;
		ev->cpu = cpu;
		ev->lost.count = missed > 0 ? missed : 0;
		if (w->n == BATCH && (r = flush(w)))
			return w->err = r, 1;
	}
	ev = &w->buf[w->n];
	r = sl_sched_decode(&w->d->sf, data, size, ev);
	if (r < 0) {
		w->err = sl_error(-SL_EPARSE, "%s: truncated sched record", where(w, data));
		return 1;
	}
	if (r == 0)
		return 0;
	ev->ts_ns = ts;
	ev->cpu = cpu;
	if ((ev->type == SL_EV_WAKEUP || ev->type == SL_EV_WAKING ||
	     ev->type == SL_EV_WAKEUP_NEW) &&
	    (ev->wake.target_cpu < -1 || ev->wake.target_cpu >= w->max_cpus)) {
		w->err = sl_error(-SL_ERANGE, "%s: target_cpu %d out of range", where(w, data),
				  ev->wake.target_cpu);
		return 1;
	}
	if (++w->n == BATCH && (r = flush(w)))
		return w->err = r, 1;
	return 0;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct walk *w = data;

	w->d->offset = w->rec_offset = rec->offset;
	return dat_emit(w, rec->cpu, rec->ts, rec->data, rec->size, rec->missed_events);
}

struct walk *dat_walk_new(struct sl_dat *d, int max_cpus,
			  int (*batch)(void *ctx, const struct sl_event *ev, size_t n), void *ctx)
{
	struct walk *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->d = d;
	w->max_cpus = max_cpus > 0 ? max_cpus : d->info.nr_cpus;
	if (w->max_cpus <= 0 || w->max_cpus > SL_TOPO_MAX_CPUS)
		w->max_cpus = SL_TOPO_MAX_CPUS;
	w->cpu_ts = calloc(SL_TOPO_MAX_CPUS, sizeof(*w->cpu_ts));
	w->batch = batch;
	w->ctx = ctx;
	if (!w->cpu_ts) {
		free(w);
		return NULL;
	}
	return w;
}

int dat_walk_end(struct walk *w, uint64_t *ret_records)
{
	int err;

	if (!w->err)
		w->err = flush(w);
	err = w->err;
	if (ret_records)
		*ret_records = w->records;
	free(w->cpu_ts);
	free(w);
	return err;
}

static int read_local(struct sl_dat *d, int max_cpus,
		      int (*batch)(void *ctx, const struct sl_event *ev, size_t n), void *ctx,
		      uint64_t *ret_records)
{
	struct walk *w = dat_walk_new(d, max_cpus, batch, ctx);
	int err;

	if (!w)
		return -ENOMEM;
	err = tracecmd_iterate_events_multi(d->handles, d->nr_handles, on_record, w);
	if (!w->err && err < 0)
		w->err = sl_error(-SL_EPARSE, "reading the trace data failed (truncated file?)");
	return dat_walk_end(w, ret_records);
}

/*
 * The reader child. libtracecmd 3.1.6 crashes in its own error path (tracecmd_close from
 * tracecmd_open_fd) on some truncated files, so all of its work runs in a child process
 * that streams the decoded events through a pipe: a crash there is a corrupt file, not
 * ours, and the file is opened once (a header probe in a child followed by a second open
 * here cost a whole tracecmd_open, the most expensive step of an import, again). Its CPU
 * time counts in the import's (sl_dat_child_cpu_s()).
 */
enum { MSG_INFO, MSG_EVENTS, MSG_END };

struct msg {
	uint32_t type;
	uint32_t len; /* payload bytes after this header */
	int32_t err; /* MSG_END and a failed MSG_INFO: 0 or a negative code, the message follows */
	uint32_t n; /* MSG_EVENTS: events in the payload */
	uint64_t offset; /* file offset of the last record read */
	uint64_t records; /* MSG_END: records read */
};

struct wire_info {
	uint64_t file_version;
	int32_t nr_cpus, nr_instances;
	uint8_t has_waking;
	uint8_t set[4]; /* which of the strings below were non-NULL */
	char strs[4][256]; /* hostname, kernel release, kernel version, trace clock */
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t r = write(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EPIPE;
		p += r;
		len -= r;
	}
	return 0;
}

/* 1: read len bytes; 0: end of file before any; -1: error or a short message */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, p + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 && !got ? 0 : -1;
		got += r;
	}
	return 1;
}

static int send_msg(int fd, struct msg *m, const void *payload)
{
	int err = write_all(fd, m, sizeof(*m));

	return err || !m->len ? err : write_all(fd, payload, m->len);
}

static int send_err(int fd, uint32_t type, int err, uint64_t offset, uint64_t records)
{
	const char *text = err < 0 ? sl_errmsg(err) : "";
	struct msg m = { .type = type,
			 .err = err,
			 .len = strlen(text) + 1,
			 .offset = offset,
			 .records = records };

	return send_msg(fd, &m, text);
}

static int child_batch(void *ctx, const struct sl_event *ev, size_t n)
{
	struct sl_dat *d = ctx;
	struct msg m = { .type = MSG_EVENTS, .len = n * sizeof(*ev), .n = n, .offset = d->offset };

	return send_msg(d->to_child, &m, ev);
}

static void copy_str(struct wire_info *w, int i, const char *s)
{
	w->set[i] = s != NULL;
	snprintf(w->strs[i], sizeof(w->strs[i]), "%s", s ? s : "");
}

static __attribute__((noreturn)) void child_main(struct sl_dat *d, const char *path, int out,
						 int in)
{
	struct wire_info w = { 0 };
	struct msg m = { .type = MSG_INFO, .len = sizeof(w) };
	uint64_t records = 0;
	int32_t max_cpus;
	int err;

	signal(SIGPIPE, SIG_IGN); /* the parent gone: write() fails, we exit */
	err = open_local(d, path);
	if (err < 0) {
		send_err(out, MSG_INFO, err, 0, 0);
		_exit(0);
	}
	w.file_version = d->info.file_version;
	w.nr_cpus = d->info.nr_cpus;
	w.nr_instances = d->info.nr_instances;
	w.has_waking = d->info.has_waking;
	copy_str(&w, 0, d->info.hostname);
	copy_str(&w, 1, d->info.kernel_release);
	copy_str(&w, 2, d->info.kernel_version);
	copy_str(&w, 3, d->info.trace_clock);
	if (send_msg(out, &m, &w) || read_all(in, &max_cpus, sizeof(max_cpus)) != 1)
		_exit(0);
	d->to_child = out; /* child_batch's pipe */
	err = read_local(d, max_cpus, child_batch, d, &records);
	send_err(out, MSG_END, err, d->offset, records);
	_exit(0);
}

/* Reaps the child (after killing it if kill) and keeps its CPU time. */
static int reap(struct sl_dat *d, bool kill_it)
{
	struct rusage ru;
	int status = 0;
	pid_t r;

	if (d->child <= 0)
		return 0;
	if (kill_it)
		kill(d->child, SIGKILL);
	while ((r = wait4(d->child, &status, 0, &ru)) < 0 && errno == EINTR)
		;
	d->child = 0;
	if (r <= 0)
		return 0; /* reaped by someone else (SIGCHLD ignored): no status, no CPU time */
	d->child_cpu_s += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
			  ru.ru_stime.tv_usec / 1e6;
	return WIFSIGNALED(status) && !kill_it ? WTERMSIG(status) : 0;
}

/* The child ended without a message: a crash is a corrupt file. */
static int child_died(struct sl_dat *d, const char *path, const char *when)
{
	int sig = reap(d, false);

	if (sig)
		return sl_error(-SL_EFORMAT,
				"'%s': corrupt or truncated trace.dat (libtracecmd crashed %s: "
				"signal %d)",
				path ? path : "trace.dat", when, sig);
	return sl_error(-SL_EPARSE, "reading the trace data failed: the reader process ended");
}

int sl_dat_open(const char *path, struct sl_dat **ret_dat)
{
	struct wire_info w;
	struct sl_dat *d;
	struct stat st;
	const char *forced;
	char own_msg[512];
	struct msg m;
	int up[2], down[2], err, r, own_err;

	if (stat(path, &st) < 0)
		return sl_error(-errno, "cannot open '%s': %s", path, strerror(errno));
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->size = st.st_size;
	d->from_child = d->to_child = -1;
	forced = getenv("SL_DAT_READER");
	own_err = forced && !strcmp(forced, "libtracecmd") ? SL_DAT_UNSUPPORTED :
							     dat_open_own(d, path);
	if (!own_err) {
		d->info.reader = "schedlens";
		*ret_dat = d;
		return 0;
	}
	/* libtracecmd may know what we do not; if it fails too, our message is the precise one */
	snprintf(own_msg, sizeof(own_msg), "%s", own_err < 0 ? sl_errmsg(own_err) : "");
	dat_close_own(d);
	if (pipe2(up, O_CLOEXEC) < 0) {
		err = open_local(d, path); /* no child: read it here */
		goto out;
	}
	/* a socket, so that writing to a dead child fails with EPIPE instead of SIGPIPE */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, down) < 0) {
		close(up[0]);
		close(up[1]);
		err = open_local(d, path);
		goto out;
	}
	fcntl(up[1], F_SETPIPE_SZ, 1 << 20); /* fewer switches; best effort */
	d->child = fork();
	if (d->child == 0) {
		close(up[0]);
		close(down[1]);
		child_main(d, path, up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	if (d->child < 0) {
		d->child = 0;
		close(up[0]);
		close(down[1]);
		err = open_local(d, path);
		goto out;
	}
	d->from_child = up[0];
	d->to_child = down[1];
	r = read_all(d->from_child, &m, sizeof(m));
	if (r != 1 || m.type != MSG_INFO) {
		err = child_died(d, path, "on its headers");
		goto out;
	}
	if (m.err < 0 || m.len != sizeof(w)) {
		char text[1024] = "";

		if (m.len < sizeof(text) && read_all(d->from_child, text, m.len) == 1)
			text[sizeof(text) - 1] = '\0';
		err = sl_error(m.err < 0 ? m.err : -SL_EPARSE, "%s",
			       text[0] ? text : "cannot read the trace.dat headers");
		goto out;
	}
	if (read_all(d->from_child, &w, sizeof(w)) != 1) {
		err = child_died(d, path, "on its headers");
		goto out;
	}
	d->info.file_version = w.file_version;
	d->info.nr_cpus = w.nr_cpus;
	d->info.nr_instances = w.nr_instances;
	d->info.has_waking = w.has_waking;
	for (int i = 0; i < 4; i++)
		memcpy(d->strs[i], w.strs[i], sizeof(d->strs[i]));
	d->info.hostname = w.set[0] ? d->strs[0] : NULL;
	d->info.kernel_release = w.set[1] ? d->strs[1] : NULL;
	d->info.kernel_version = w.set[2] ? d->strs[2] : NULL;
	d->info.trace_clock = w.set[3] ? d->strs[3] : NULL;
	d->info.reader = "libtracecmd";
	err = 0;
out:
	if (err < 0) {
		sl_dat_close(d);
		return own_err < 0 ? sl_error(own_err, "'%s': %s", path, own_msg) : err;
	}
	*ret_dat = d;
	return 0;
}

int sl_dat_read(struct sl_dat *d, int max_cpus,
		int (*batch)(void *ctx, const struct sl_event *ev, size_t n), void *ctx,
		uint64_t *ret_records)
{
	struct sl_event *buf;
	int32_t mc = max_cpus;
	int err = 0;

	if (d->own)
		return dat_read_own(d, max_cpus, batch, ctx, ret_records);
	if (!d->child && d->from_child < 0)
		return read_local(d, max_cpus, batch, ctx, ret_records);
	if (!d->child)
		return sl_error(-SL_EPARSE, "trace.dat already read");
	buf = malloc(BATCH * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	if (send(d->to_child, &mc, sizeof(mc), MSG_NOSIGNAL) != sizeof(mc)) {
		free(buf);
		return child_died(d, NULL, "");
	}
	for (;;) {
		struct msg m;

		if (read_all(d->from_child, &m, sizeof(m)) != 1) {
			err = child_died(d, NULL, "reading the data");
			break;
		}
		if (m.type == MSG_EVENTS) {
			if (m.n > BATCH || m.len != m.n * sizeof(*buf) ||
			    read_all(d->from_child, buf, m.len) != 1) {
				err = child_died(d, NULL, "reading the data");
				break;
			}
			d->offset = m.offset;
			err = batch(ctx, buf, m.n);
			if (err) {
				reap(d, true);
				break;
			}
			continue;
		}
		if (m.type == MSG_END) {
			char text[1024] = "";

			d->offset = m.offset;
			if (ret_records)
				*ret_records = m.records;
			if (m.len < sizeof(text) && read_all(d->from_child, text, m.len) == 1)
				text[sizeof(text) - 1] = '\0';
			if (m.err < 0)
				err = sl_error(m.err, "%s", text);
			reap(d, false);
			break;
		}
		err = child_died(d, NULL, "reading the data");
		break;
	}
	free(buf);
	return err;
}

double sl_dat_child_cpu_s(struct sl_dat *d)
{
	if (!d)
		return 0;
	if (d->to_child >= 0) {
		close(d->to_child); /* a child still waiting to read exits */
		d->to_child = -1;
	}
	reap(d, false);
	return d->child_cpu_s;
}

void sl_dat_close(struct sl_dat *d)
{
	if (!d)
		return;
	if (d->to_child >= 0)
		close(d->to_child);
	if (d->child > 0)
		reap(d, true);
	if (d->from_child >= 0)
		close(d->from_child);
	for (int i = 1; i < d->nr_handles; i++)
		tracecmd_close(d->handles[i]);
	if (d->top)
		tracecmd_close(d->top);
	dat_close_own(d);
	free(d->handles);
	free(d->uname);
	free(d);
}
