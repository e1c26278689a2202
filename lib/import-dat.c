// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat -> struct sl_event through libtracecmd. The top buffer and every instance
 * share one tep (the file holds one set of formats), so one field table serves all
 * handles; tracecmd_iterate_events_multi() merges their CPUs by timestamp.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "error.h"
#include "import-dat.h"
#include "sched-fields.h"
#include "topo.h"

/* Exported by libtracecmd 3.1 but only declared in its private header. */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);

#define BATCH 1024

struct sl_dat {
	struct tracecmd_input *top;
	struct tracecmd_input **handles; /* top first, then the instances */
	int nr_handles;
	struct tep_handle *tep;
	struct sl_sched_fields sf;
	struct sl_dat_info info;
	char *uname;
	uint64_t size;
	uint64_t offset;
	double probe_cpu_s; /* CPU time of the child that read the headers first */
};

struct walk {
	struct sl_dat *d;
	int max_cpus;
	uint64_t *cpu_ts; /* newest timestamp per CPU, +1 */
	struct sl_event buf[BATCH];
	size_t n;
	uint64_t records;
	int (*batch)(void *ctx, const struct sl_event *ev, size_t n);
	void *ctx;
	int err;
};

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

static void parse_uname(struct sl_dat *d)
{
	const char *u = tracecmd_get_uname(d->top);
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

/*
 * libtracecmd 3.1.6 crashes in its own error path (tracecmd_close from tracecmd_open_fd)
 * on some truncated files, so the headers are first read in a child: a crash there is a
 * corrupt file, not ours.
 */
static int probe_open(const char *path, double *ret_cpu_s)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 0; /* cannot probe: read it directly */
	if (pid == 0) {
		tracecmd_set_loglevel(TEP_LOG_NONE);
		_exit(tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS) ? 0 : 1);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return 0;
	/* the probe is import work: its CPU time counts in the import's */
	*ret_cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		     ru.ru_stime.tv_usec / 1e6;
	if (WIFSIGNALED(status))
		return sl_error(-SL_EFORMAT,
				"'%s': corrupt or truncated trace.dat (libtracecmd crashed on its "
				"headers: signal %d)",
				path, WTERMSIG(status));
	return 0;
}

int sl_dat_open(const char *path, struct sl_dat **ret_dat)
{
	struct sl_dat *d;
	struct stat st;
	int n, err;

	if (stat(path, &st) < 0)
		return sl_error(-errno, "cannot open '%s': %s", path, strerror(errno));
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->size = st.st_size;
	err = probe_open(path, &d->probe_cpu_s);
	if (err < 0)
		goto fail;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	d->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!d->top) {
		err = sl_error(-SL_EFORMAT,
			       "'%s': not a readable trace.dat (truncated, corrupt, or an "
			       "unsupported version)",
			       path);
		goto fail;
	}
	d->tep = tracecmd_get_tep(d->top);
	if (tep_is_file_bigendian(d->tep) != tep_is_local_bigendian(d->tep)) {
		err = sl_error(-SL_EFORMAT, "'%s': recorded on a host of the other byte order",
			       path);
		goto fail;
	}
	n = tracecmd_buffer_instances(d->top);
	d->handles = calloc(n + 1, sizeof(*d->handles));
	if (!d->handles) {
		err = -ENOMEM;
		goto fail;
	}
	d->handles[d->nr_handles++] = d->top;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(d->top, i);

		if (!h) {
			err = sl_error(-SL_EFORMAT, "'%s': cannot open buffer instance '%s'", path,
				       tracecmd_buffer_instance_name(d->top, i));
			goto fail;
		}
		d->handles[d->nr_handles++] = h;
	}
	err = sl_sched_fields_resolve(d->tep, NULL, &d->sf);
	if (err < 0) {
		sl_error(err, "'%s': %s", path, sl_errmsg(err));
		goto fail;
	}
	err = probe_prev_state(d, &d->sf.prev_state);
	if (err < 0)
		goto fail;
	d->info.file_version = tracecmd_get_in_file_version(d->top);
	d->info.nr_cpus = tep_get_cpus(d->tep);
	d->info.nr_instances = n;
	d->info.trace_clock = tracecmd_get_trace_clock(d->top);
	d->info.has_waking = d->sf.id[SL_SE_WAKING] >= 0;
	parse_uname(d);
	*ret_dat = d;
	return 0;
fail:
	sl_dat_close(d);
	return err;
}

void sl_dat_close(struct sl_dat *d)
{
	if (!d)
		return;
	for (int i = 1; i < d->nr_handles; i++)
		tracecmd_close(d->handles[i]);
	if (d->top)
		tracecmd_close(d->top);
	free(d->handles);
	free(d->uname);
	free(d);
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

double sl_dat_probe_cpu_s(const struct sl_dat *d)
{
	return d ? d->probe_cpu_s : 0;
}

static int flush(struct walk *w)
{
	int r = 0;

	if (w->n)
		r = w->batch(w->ctx, w->buf, w->n);
	w->n = 0;
	return r;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct walk *w = data;
	struct sl_event *ev;
	int r;

	w->records++;
	w->d->offset = rec->offset;
	if (rec->cpu < 0 || rec->cpu >= w->max_cpus) {
		w->err = sl_error(-SL_ERANGE,
				  "file offset %llu: record on CPU %d, beyond the %d CPUs of the "
				  "topology",
				  rec->offset, rec->cpu, w->max_cpus);
		return 1;
	}
	if (w->cpu_ts[rec->cpu] > rec->ts + 1) {
		w->err = sl_error(-SL_ERANGE,
				  "file offset %llu: timestamp %llu goes backwards on CPU %d",
				  rec->offset, rec->ts, rec->cpu);
		return 1;
	}
	w->cpu_ts[rec->cpu] = rec->ts + 1;
	if (rec->missed_events) {
		ev = &w->buf[w->n++];
		memset(ev, 0, sizeof(*ev));
		ev->type = SL_EV_LOST;
		ev->ts_ns = rec->ts;
		ev->cpu = rec->cpu;
		ev->lost.count = rec->missed_events > 0 ? rec->missed_events : 0;
		if (w->n == BATCH && (r = flush(w)))
			return w->err = r, 1;
	}
	ev = &w->buf[w->n];
	r = sl_sched_decode(&w->d->sf, rec->data, rec->size, ev);
	if (r < 0) {
		w->err = sl_error(-SL_EPARSE, "file offset %llu: truncated sched record",
				  rec->offset);
		return 1;
	}
	if (r == 0)
		return 0;
	ev->ts_ns = rec->ts;
	ev->cpu = rec->cpu;
	if ((ev->type == SL_EV_WAKEUP || ev->type == SL_EV_WAKING ||
	     ev->type == SL_EV_WAKEUP_NEW) &&
	    (ev->wake.target_cpu < -1 || ev->wake.target_cpu >= w->max_cpus)) {
		w->err = sl_error(-SL_ERANGE, "file offset %llu: target_cpu %d out of range",
				  rec->offset, ev->wake.target_cpu);
		return 1;
	}
	if (++w->n == BATCH && (r = flush(w)))
		return w->err = r, 1;
	return 0;
}

int sl_dat_read(struct sl_dat *d, int max_cpus,
		int (*batch)(void *ctx, const struct sl_event *ev, size_t n), void *ctx,
		uint64_t *ret_records)
{
	struct walk *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->d = d;
	w->max_cpus = max_cpus > 0 ? max_cpus : d->info.nr_cpus;
	if (w->max_cpus <= 0 || w->max_cpus > SL_TOPO_MAX_CPUS)
		w->max_cpus = SL_TOPO_MAX_CPUS;
	w->cpu_ts = calloc(SL_TOPO_MAX_CPUS, sizeof(*w->cpu_ts));
	w->batch = batch;
	w->ctx = ctx;
	if (!w->cpu_ts) {
		free(w);
		return -ENOMEM;
	}
	err = tracecmd_iterate_events_multi(d->handles, d->nr_handles, on_record, w);
	if (!w->err && err < 0)
		w->err = sl_error(-SL_EPARSE, "reading the trace data failed (truncated file?)");
	if (!w->err)
		w->err = flush(w);
	err = w->err;
	if (ret_records)
		*ret_records = w->records;
	free(w->cpu_ts);
	free(w);
	return err;
}
