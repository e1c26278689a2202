// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlensd's recording loop: recorder -> session (engine, writer, SQLite) with
 *  - segments: a new run row every `segment` (same boot id and label), so long recordings
 *    become runs the comparison can resample;
 *  - a duty cycle: record `duty-on` out of every `duty-period`, the tracefs instance
 *    removed while paused, and the pause marked in the stream as a gap per CPU;
 *  - running totals on the run row every `totals-every`, so a crash keeps a useful row;
 *  - the automatic comparison: when the database holds an earlier kernel of the same label
 *    and topology and no comparison of it with this kernel (checked at every new run, so a
 *    crash before comparing is made good after the restart), compare the kernels after
 *    `compare-after` windows, in a thread of its own (the bootstrap must not stall the
 *    reader), store the findings and log each regression in one line.
 * Signals only set flags (schedlensd.c); this loop acts on them between polls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "daemon.h"
#include "error.h"
#include "hostinfo.h"
#include "http.h"
#include "recorder.h"
#include "session-live.h"
#include "topo.h"

struct monitor {
	struct sd_daemon *d;
	struct sl_hostinfo *hi;
	struct sl_topo *topo;
	struct sl_recorder *rec; /* NULL while the duty cycle pauses */
	struct sl_session *session;
	char label[128]; /* of the open run */
	uint64_t last_ns; /* newest event fed to the session */
	/* recorder totals of closed recorders (duty cycle), and at the segment's start */
	uint64_t acc_events, acc_lost, acc_gaps;
	uint64_t seg_events, seg_lost, seg_gaps;
	double seg_start, phase_start, last_totals, last_rate, rate_events;
	bool seg_paused; /* the duty cycle paused during this segment: it has holes */
	/* a full disk: rows lost in closed sessions, and whether the open one's writer is full */
	uint64_t full_lost_closed;
	bool full_logged;
	uint64_t windows_all; /* "*" windows since the kernel change was noticed */
	/* automatic comparison */
	bool compare_pending, compare_running;
	char prev_kernel[128];
	pthread_t compare_thread;
	int compare_result;
};

static void on_window(void *ctx, const struct sl_window_rec *w)
{
	struct monitor *m = ctx;

	sl_prom_add_window(m->d->prom, m->hi->kernel_release, w);
	if (!strcmp(w->grp, SL_GROUP_ALL))
		m->windows_all++;
}

static int on_batch(void *ctx, const struct sl_event *ev, size_t n)
{
	struct monitor *m = ctx;

	sl_session_feed(m->session, ev, n);
	if (n)
		m->last_ns = ev[n - 1].ts_ns;
	return 0;
}

/* Recorder totals of this process so far: closed recorders plus the open one. */
static void totals_now(struct monitor *m, uint64_t *events, uint64_t *lost, uint64_t *gaps)
{
	struct sl_recorder_stats st = { 0 };

	if (m->rec)
		sl_recorder_get_stats(m->rec, &st);
	*events = m->acc_events + st.events_total;
	*lost = m->acc_lost + st.lost;
	*gaps = m->acc_gaps + st.gaps;
}

static int open_recorder(struct monitor *m)
{
	struct sl_recorder_opts ro = {
		.buffer_kb = m->d->cfg.buffer_kb,
		.no_futex = !m->d->cfg.trace_futex,
		.on_batch = on_batch,
		.ctx = m,
	};
	int err = sl_recorder_open(&ro, &m->rec);

	if (err < 0) {
		m->rec = NULL;
		return err;
	}
	if (sl_recorder_stale_removed(m->rec))
		sd_log(SD_INFO, "removed %d stale tracefs instance(s) of dead schedlens processes",
		       sl_recorder_stale_removed(m->rec));
	if (sl_recorder_stale_warning(m->rec)[0])
		sd_log(SD_WARNING, "%s", sl_recorder_stale_warning(m->rec));
	if (sl_recorder_notes(m->rec)[0])
		sd_log(SD_INFO, "recorder: %s", sl_recorder_notes(m->rec));
	return 0;
}

/* Tracing off, everything delivered, totals kept, instance removed. */
static void close_recorder(struct monitor *m)
{
	struct sl_recorder_stats st;
	int err;

	if (!m->rec)
		return;
	if ((err = sl_recorder_stop(m->rec)) < 0)
		sd_log(SD_ERR, "recording: %s", sl_errmsg(err));
	sl_recorder_get_stats(m->rec, &st);
	m->acc_events += st.events_total;
	m->acc_lost += st.lost;
	m->acc_gaps += st.gaps;
	if ((err = sl_recorder_close(m->rec)) < 0)
		sd_log(SD_WARNING, "%s", sl_errmsg(err));
	m->rec = NULL;
}

static int open_session(struct monitor *m)
{
	const struct sd_config *c = &m->d->cfg;
	struct sl_session_opts o;
	int err;

	sl_session_opts_live(&o, m->hi, m->topo, m->rec, c->db, c->label);
	o.windows_only = strcmp(c->event_rows, "all") != 0;
	o.keep_preemptions = !strcmp(c->event_rows, "preemptions") ||
			     !strcmp(c->event_rows, "notable");
	o.notable_preemptions_only = !strcmp(c->event_rows, "notable");
	o.on_window = on_window;
	o.on_window_ctx = m;
	sl_retention_default(&o.retention);
	o.retention.event_keep_ns = c->event_keep_ns;
	o.retention.window_keep_ns = c->window_keep_ns;
	o.retention.max_bytes = c->max_db_bytes;
	o.engine.window_ns = c->window_ns;
	if ((err = sl_session_open(&o, &m->session)) < 0) {
		m->session = NULL;
		return err;
	}
	snprintf(m->label, sizeof(m->label), "%s", c->label);
	totals_now(m, &m->seg_events, &m->seg_lost, &m->seg_gaps);
	m->seg_start = sd_now_mono();
	m->seg_paused = false;
	pthread_mutex_lock(&m->d->status.lock);
	m->d->status.run_id = sl_session_run_id(m->session);
	m->d->status.runs_started++;
	snprintf(m->d->status.label, sizeof(m->d->status.label), "%s", c->label);
	pthread_mutex_unlock(&m->d->status.lock);
	sd_log(SD_INFO, "run %lld started (kernel %s, label '%s')",
	       (long long)sl_session_run_id(m->session), o.meta.kernel_release, c->label);
	return 0;
}

static void segment_totals(struct monitor *m, struct sl_run_totals *t, bool final)
{
	uint64_t ev, lost, gaps;

	totals_now(m, &ev, &lost, &gaps);
	*t = (struct sl_run_totals){
		.end_ns = final ? m->last_ns : 0,
		.events = ev - m->seg_events,
		.lost_events = lost - m->seg_lost,
		.gaps = lost > m->seg_lost || gaps > m->seg_gaps || m->seg_paused,
	};
}

static int close_session(struct monitor *m)
{
	struct sl_session_result res;
	struct sl_run_totals t;
	int err;

	if (!m->session)
		return 0;
	segment_totals(m, &t, true);
	err = sl_session_close(m->session, &t, &res);
	m->session = NULL;
	m->full_lost_closed += res.writer.full_dropped;
	/* the disk was full for a while and space came back: that loss is counted, not fatal */
	if (err == -ENOSPC && res.writer.full_episodes && !res.writer.disk_full)
		err = 0;
	if (err < 0)
		sd_log(SD_ERR, "cannot store run %lld: %s", (long long)res.run_id, sl_errmsg(err));
	else
		sd_log(SD_INFO,
		       "run %lld ended: %llu events, %llu lost, %llu rows dropped, %llu rows lost "
		       "to a full disk",
		       (long long)res.run_id, (unsigned long long)t.events,
		       (unsigned long long)t.lost_events,
		       (unsigned long long)sl_writer_stats_dropped(&res.writer),
		       (unsigned long long)res.writer.full_dropped);
	sl_session_result_free(&res);
	return err;
}

/* The pause of a duty cycle is a hole in the stream: tell the engine, per CPU. */
static void mark_gap(struct monitor *m)
{
	uint64_t now = sl_recorder_now_ns(m->rec);
	struct sl_event ev;

	if (!now || now < m->last_ns)
		return;
	for (int cpu = 0; cpu < m->hi->nr_cpus && cpu < 65536; cpu++) {
		memset(&ev, 0, sizeof(ev));
		ev.ts_ns = now;
		ev.type = SL_EV_LOST;
		ev.cpu = cpu;
		sl_session_feed(m->session, &ev, 1);
	}
	m->last_ns = now;
}

static void set_state(struct monitor *m, const char *state)
{
	pthread_mutex_lock(&m->d->status.lock);
	snprintf(m->d->status.state, sizeof(m->d->status.state), "%s", state);
	pthread_mutex_unlock(&m->d->status.lock);
}

/* Live figures for /api/v1/status and /metrics, once a second. */
static void publish(struct monitor *m)
{
	struct sd_status *s = &m->d->status;
	struct sl_session_stats ss = { 0 };
	struct sl_prom_process pp;
	uint64_t ev, lost, gaps;
	double now = sd_now_mono();

	totals_now(m, &ev, &lost, &gaps);
	if (m->session)
		sl_session_get_stats(m->session, &ss);
	pthread_mutex_lock(&s->lock);
	if (now > m->last_rate) {
		s->events_per_s = (ev - m->rate_events) / (now - m->last_rate);
		m->rate_events = ev;
		m->last_rate = now;
	}
	s->events = ev;
	s->lost = lost;
	s->gaps = gaps;
	/* writer drops of earlier segments are in their run rows; the status adds them up */
	s->dropped_rows = s->dropped_rows > ss.dropped_rows ? s->dropped_rows : ss.dropped_rows;
	s->queue_len = ss.writer.queue_len;
	s->store_full = ss.writer.disk_full;
	s->store_lost_rows = m->full_lost_closed + ss.writer.full_dropped;
	pp = (struct sl_prom_process){
		.events = ev,
		.lost_events = lost,
		.dropped_rows = s->dropped_rows,
		.runs_started = s->runs_started,
		.uptime_s = now - s->started_mono,
		.recording = m->rec != NULL,
		.db_bytes = sd_db_bytes(m->d->cfg.db),
		.db_limit_bytes = m->d->cfg.max_db_bytes,
	};
	pthread_mutex_unlock(&s->lock);
	sl_prom_set_process(m->d->prom, m->hi->kernel_release, &pp);
	/*
	 * One line when the disk fills, one when space returns: not one per failed batch. A
	 * new segment's writer starts "not full": space is back only once it has committed.
	 */
	if (!m->session)
		return;
	if (ss.writer.disk_full && !m->full_logged) {
		sd_log(SD_ERR,
		       "disk full: cannot write to '%s': recording goes on, rows are dropped and "
		       "counted (store_lost_rows in /api/v1/status) and writing is retried every "
		       "second until space returns",
		       m->d->cfg.db);
		m->full_logged = true;
	} else if (!ss.writer.disk_full && m->full_logged && ss.writer.commits) {
		sd_log(SD_INFO, "disk space is back: writing to '%s' again (%llu rows were lost)",
		       m->d->cfg.db,
		       (unsigned long long)(m->full_lost_closed + ss.writer.full_dropped));
		m->full_logged = false;
	}
}

struct compare_job {
	struct monitor *m;
	char db[4096];
	char base[128], cand[128], label[128];
};

static void *compare_main(void *arg)
{
	struct compare_job *job = arg;
	struct monitor *m = job->m;
	struct sl_compare_opts o;
	struct sl_comparison *c = NULL;
	struct sl_store *store = NULL;
	int err;

	pthread_setname_np(pthread_self(), "sl-compare");
	sl_compare_opts_default(&o);
	o.baseline_kernel = job->base;
	o.candidate_kernel = job->cand;
	o.label = job->label;
	o.store = true;
	err = sl_store_open(job->db, 0, &store);
	if (!err)
		err = sl_compare(store, &o, &c);
	if (err < 0) {
		sd_log(SD_ERR, "automatic comparison %s -> %s failed: %s", job->base, job->cand,
		       sl_errmsg(err));
	} else {
		/* inconclusive is a notice: a user should add runs before trusting "no change" */
		sd_log(c->verdict == SL_V_INCONCLUSIVE ? SD_NOTICE : SD_INFO,
		       "comparison %lld, kernel %s -> %s: %s (%s)", (long long)c->id, job->base,
		       job->cand, sl_verdict_name(c->verdict), c->summary);
		for (size_t i = 0; i < c->nr_findings; i++)
			if (c->findings[i].verdict == SL_V_REGRESSION)
				sd_log(SD_WARNING, "regression %s -> %s: %s", job->base, job->cand,
				       c->findings[i].explanation);
		pthread_mutex_lock(&m->d->status.lock);
		m->d->status.last_comparison_id = c->id;
		snprintf(m->d->status.last_verdict, sizeof(m->d->status.last_verdict), "%s",
			 sl_verdict_name(c->verdict));
		pthread_mutex_unlock(&m->d->status.lock);
	}
	sl_comparison_free(c);
	sl_store_close(store);
	free(job);
	__atomic_store_n(&m->compare_result, err < 0 ? err : 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Is a comparison of this kernel with the previous one (same label and topology) still
 * owed? Decided from the stored runs and comparisons at every new run, so a crash or a
 * failed comparison is made good by the next segment or the next start on this kernel.
 */
static void check_kernel_change(struct monitor *m)
{
	char prev[128];
	bool owed;
	int err;

	if (!m->d->cfg.auto_compare || m->compare_pending || m->compare_running)
		return;
	err = sl_compare_owed(sl_session_store(m->session), sl_session_run_id(m->session), prev,
			      sizeof(prev), &owed);
	if (err < 0) {
		sd_log(SD_WARNING, "cannot look up the previous kernel: %s", sl_errmsg(err));
		return;
	}
	if (!owed)
		return;
	snprintf(m->prev_kernel, sizeof(m->prev_kernel), "%s", prev);
	m->compare_pending = true;
	m->windows_all = 0;
	sd_log(SD_INFO,
	       "new kernel %s (previous kernel of label '%s': %s, not compared yet); comparing "
	       "after %llu windows",
	       m->hi->kernel_release, m->label, prev, (unsigned long long)m->d->cfg.compare_after);
}

static void maybe_compare(struct monitor *m)
{
	struct compare_job *job;
	int err;

	if (m->compare_running && __atomic_load_n(&m->compare_result, __ATOMIC_ACQUIRE)) {
		pthread_join(m->compare_thread, NULL);
		m->compare_running = false;
	}
	if (!m->compare_pending || m->compare_running || !m->d->cfg.auto_compare ||
	    m->windows_all < m->d->cfg.compare_after)
		return;
	m->compare_pending = false;
	/* the candidate's windows must be committed before another connection reads them */
	if ((err = sl_session_flush(m->session)) < 0)
		sd_log(SD_WARNING, "flush before comparing: %s", sl_errmsg(err));
	job = calloc(1, sizeof(*job));
	if (!job)
		return;
	job->m = m;
	snprintf(job->db, sizeof(job->db), "%s", m->d->cfg.db);
	snprintf(job->base, sizeof(job->base), "%s", m->prev_kernel);
	snprintf(job->cand, sizeof(job->cand), "%s", m->hi->kernel_release);
	snprintf(job->label, sizeof(job->label), "%s", m->label);
	m->compare_result = 0;
	if (pthread_create(&m->compare_thread, NULL, compare_main, job)) {
		free(job);
		return;
	}
	m->compare_running = true;
}

static int start_recording(struct monitor *m)
{
	int err = open_recorder(m);

	if (!err)
		err = sl_recorder_start(m->rec);
	if (err < 0)
		close_recorder(m);
	return err;
}

static void rotate(struct monitor *m)
{
	close_session(m);
	if (open_session(m) < 0) {
		sd_log(SD_ERR, "cannot begin the next run: %s", sl_errmsg(-SL_EDB));
		sd_stop_requested = 1;
		return;
	}
	check_kernel_change(m);
}

/* The host's identity and topology for /api/v1/status. */
static void publish_host(struct monitor *m)
{
	struct sd_daemon *d = m->d;
	char hash[17];

	pthread_mutex_lock(&d->status.lock);
	snprintf(d->status.kernel, sizeof(d->status.kernel), "%s",
		 m->hi->kernel_release ? m->hi->kernel_release : "unknown");
	snprintf(d->status.boot_id, sizeof(d->status.boot_id), "%s",
		 m->hi->boot_id ? m->hi->boot_id : "");
	snprintf(d->status.hostname, sizeof(d->status.hostname), "%s",
		 m->hi->hostname ? m->hi->hostname : "");
	if (m->topo) {
		d->status.topo_json = sl_topo_to_json(m->topo);
		snprintf(d->status.topo_hash, sizeof(d->status.topo_hash), "%s",
			 sl_topo_hash_str(m->topo, hash));
	}
	pthread_mutex_unlock(&d->status.lock);
}

/*
 * The duty cycle's phase change when it is due (or, without a duty cycle, recording
 * started again if it is not running): negative errno if recording cannot resume.
 */
static int duty_cycle(struct monitor *m, double now)
{
	struct sd_daemon *d = m->d;
	int err;

	if (d->cfg.duty_on_ns) {
		double on = d->cfg.duty_on_ns / 1e9, period = d->cfg.duty_period_ns / 1e9;

		if (m->rec && now - m->phase_start >= on) {
			close_recorder(m);
			m->seg_paused = true;
			set_state(m, "paused");
			sd_log(SD_DEBUG, "duty cycle: paused");
		} else if (!m->rec && now - m->phase_start >= period) {
			if ((err = start_recording(m)) < 0)
				return err;
			mark_gap(m);
			/* the on phase starts once recording does, however long that took */
			m->phase_start = sd_now_mono();
			set_state(m, "recording");
			sd_log(SD_DEBUG, "duty cycle: recording");
		}
	} else if (!m->rec) {
		if ((err = start_recording(m)) < 0)
			return err;
		mark_gap(m);
		set_state(m, "recording");
	}
	return 0;
}

int sd_monitor_run(struct sd_daemon *d, const struct sl_http_opts *ho, struct sl_http **ret_http)
{
	struct monitor *m = calloc(1, sizeof(*m));
	struct sl_run_totals t;
	int err, ret = 0;

	if (!m)
		return 1;
	m->d = d;
	if ((err = sl_hostinfo_read(&m->hi)) < 0) {
		sd_log(SD_ERR, "%s", sl_errmsg(err));
		ret = 1;
		goto out;
	}
	if ((err = sl_topo_read(NULL, &m->topo)) < 0)
		sd_log(SD_WARNING, "%s; placement classes will be unavailable", sl_errmsg(err));
	d->prom = sl_prom_new(m->hi->hostname);
	publish_host(m);
	if (!d->prom || (err = open_recorder(m)) < 0) {
		sd_log(SD_ERR, "%s", d->prom ? sl_errmsg(err) : "out of memory");
		ret = 1;
		goto out;
	}
	if ((err = open_session(m)) < 0) {
		sd_log(SD_ERR, "cannot store in '%s': %s", d->cfg.db, sl_errmsg(err));
		ret = 1;
		goto out;
	}
	check_kernel_change(m);
	if ((err = sl_http_start(ho, ret_http)) < 0) {
		sd_log(SD_ERR, "%s", sl_errmsg(err));
		ret = 1;
		goto out;
	}
	if ((err = sl_recorder_start(m->rec)) < 0) {
		sd_log(SD_ERR, "%s", sl_errmsg(err));
		ret = 1;
		goto out;
	}
	sd_log(SD_INFO, "recording into '%s', serving http://%s/ (instance %s, clock %s)",
	       d->cfg.db, d->cfg.listen, sl_recorder_instance(m->rec), sl_recorder_clock(m->rec));
	set_state(m, "recording");
	m->phase_start = m->last_totals = m->last_rate = sd_now_mono();
	while (!sd_stop_requested) {
		double now;

		if (sd_reload_requested) {
			sd_reload_requested = 0;
			sd_reload(d);
		}
		if (m->rec) {
			err = sl_recorder_poll(m->rec, 200);
			if (err < 0) {
				sd_log(SD_ERR, "recording failed: %s", sl_errmsg(err));
				ret = 1;
				break;
			}
		} else {
			struct timespec ts = { 0, 200 * 1000000 };

			nanosleep(&ts, NULL);
		}
		/* rows the writer waits for (a commit is due) leave the open segments */
		sl_session_idle(m->session);
		now = sd_now_mono();
		if (now - m->last_rate >= 1.0)
			publish(m);
		if (m->rec && now - m->seg_start >= d->cfg.segment_ns / 1e9)
			rotate(m);
		if (m->session && now - m->last_totals >= d->cfg.totals_every_ns / 1e9) {
			segment_totals(m, &t, false);
			/* a full disk was logged once already */
			if ((err = sl_session_update_totals(m->session, &t)) < 0)
				sd_log(m->full_logged ? SD_DEBUG : SD_WARNING,
				       "cannot update run totals: %s", sl_errmsg(err));
			m->last_totals = now;
		}
		if ((err = duty_cycle(m, now)) < 0) {
			sd_log(SD_ERR, "cannot resume recording: %s", sl_errmsg(err));
			ret = 1;
			break;
		}
		maybe_compare(m);
	}
	sd_log(SD_INFO, "stopping");
	set_state(m, "stopping");
out:
	close_recorder(m);
	if (close_session(m) < 0)
		ret = 1;
	if (m->compare_running)
		pthread_join(m->compare_thread, NULL);
	sl_topo_free(m->topo);
	sl_hostinfo_free(m->hi);
	free(m);
	return ret;
}
