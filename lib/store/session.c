// SPDX-License-Identifier: GPL-2.0-only
/*
 * One run being analysed: engine -> writer -> SQLite, plus the per-group run totals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-counts.h"
#include "error.h"
#include "facts.h"
#include "session.h"

#define MAX_GROUP_TOTALS 256

struct sl_session {
	struct sl_store *store;
	struct sl_writer *writer;
	struct sl_engine *engine;
	struct sl_facts *facts; /* raw facts for an exact export (lib/store/facts.h) */
	struct sl_cpu_counts *cpu_counts; /* the heatmap's counts, whatever is stored */
	bool wait_for_writer;
	uint64_t fed;
	int64_t run_id;
	bool windows_only, keep_preemptions, notable_only;
	void (*on_window)(void *ctx, const struct sl_window_rec *rec);
	void *on_window_ctx;
	int nr_groups;
	struct sl_group_total groups[MAX_GROUP_TOTALS];
};

static void add_group(struct sl_session *s, const struct sl_window_rec *w)
{
	struct sl_group_total *g = NULL;
	double cols[SL_WC_COUNT];

	for (int i = 0; i < s->nr_groups; i++)
		if (!strcmp(s->groups[i].grp, w->grp))
			g = &s->groups[i];
	if (!g) {
		if (s->nr_groups == MAX_GROUP_TOTALS)
			return;
		g = &s->groups[s->nr_groups++];
		snprintf(g->grp, sizeof(g->grp), "%s", w->grp);
	}
	sl_metrics_columns(w, cols);
	for (int i = 0; i < SL_WC_COUNT; i++)
		g->sums[i] += cols[i];
	sl_hist_merge(&g->latency, &w->latency);
}

static void sink_slice(void *ctx, const struct sl_slice_rec *r)
{
	struct sl_session *s = ctx;

	if (s->writer && !s->windows_only)
		sl_writer_push_slice(s->writer, r);
}

static void sink_wakeup(void *ctx, const struct sl_wakeup_rec *r)
{
	struct sl_session *s = ctx;

	if (s->cpu_counts)
		sl_cpu_counts_add(s->cpu_counts, sl_engine_origin_ns(s->engine), r);
	if (s->writer && !s->windows_only)
		sl_writer_push_wakeup(s->writer, r);
}

static void push_cpu_count(void *ctx, const struct sl_cpu_count_rec *r)
{
	sl_writer_push_cpu_count(ctx, r);
}

static void sink_preempt(void *ctx, const struct sl_preempt_rec *r)
{
	struct sl_session *s = ctx;

	if (!s->writer || (s->windows_only && !s->keep_preemptions))
		return;
	if (s->windows_only && s->notable_only && !r->same_group && !r->hub && !r->waiters &&
	    !r->delayed_wakeups && !r->lhp_cost_ns)
		return;
	sl_writer_push_preempt(s->writer, r);
}

static void sink_task(void *ctx, const struct sl_task_rec *r)
{
	struct sl_session *s = ctx;

	if (s->writer)
		sl_writer_push_task(s->writer, r);
}

static void sink_window(void *ctx, const struct sl_window_rec *r)
{
	struct sl_session *s = ctx;

	add_group(s, r);
	if (s->on_window)
		s->on_window(s->on_window_ctx, r);
	if (s->writer)
		sl_writer_push_window(s->writer, r);
}

/* The host row: name, machine id, topology (as JSON and per-CPU rows) and its hash. */
static int store_host(struct sl_session *s, const struct sl_session_opts *o, int64_t *ret_id)
{
	const struct sl_topo *t = o->topo;
	struct sl_host_info host = {
		.hostname = o->hostname ? o->hostname : "unknown",
		.machine_id = o->machine_id,
		.topo_hash = "none",
	};
	struct sl_cpu_row *rows = NULL;
	char hash[17], *json = NULL;
	int err;

	if (t) {
		rows = calloc(t->nr_cpus, sizeof(*rows));
		json = sl_topo_to_json(t);
		if (!rows || !json) {
			free(rows);
			free(json);
			return -ENOMEM;
		}
		for (int c = 0; c < t->nr_cpus; c++) {
			rows[c] = (struct sl_cpu_row){ .cpu = c,
						       .online = t->cpus[c].online,
						       .core = t->cpus[c].core,
						       .llc = t->cpus[c].llc,
						       .package = t->cpus[c].package,
						       .node = t->cpus[c].node };
		}
		host.topo_hash = sl_topo_hash_str(t, hash);
		host.topo_json = json;
		host.nr_cpus = t->nr_online;
		host.cpus = rows;
		host.nr_cpu_rows = t->nr_cpus;
	}
	err = sl_store_host_upsert(s->store, &host, ret_id);
	free(rows);
	free(json);
	return err;
}

int sl_session_open(const struct sl_session_opts *o, struct sl_session **ret_session)
{
	struct sl_session *s = calloc(1, sizeof(*s));
	struct sl_engine_config cfg = o->engine;
	struct sl_engine_sink sink = {
		.slice = sink_slice,
		.wakeup = sink_wakeup,
		.preempt = sink_preempt,
		.task = sink_task,
		.window = sink_window,
	};
	uint64_t lag;
	int err;

	if (!s)
		return -ENOMEM;
	s->run_id = -1;
	s->windows_only = o->windows_only;
	s->keep_preemptions = o->keep_preemptions;
	s->notable_only = o->notable_preemptions_only;
	s->on_window = o->on_window;
	s->on_window_ctx = o->on_window_ctx;
	if (o->db_path) {
		struct sl_run_meta meta = o->meta;
		struct sl_writer_opts wopts = { .retention = o->retention };
		struct sl_store_opts sto = { .flags = SL_STORE_CREATE, .page_size = o->page_size };

		if ((err = sl_store_open_opts(o->db_path, &sto, &s->store)) ||
		    (err = store_host(s, o, &meta.host_id)) ||
		    (err = sl_store_run_begin(s->store, &meta, &s->run_id)) ||
		    (err = sl_writer_start(s->store, &wopts, &s->writer)))
			goto fail;
	}
	if (!cfg.window_ns)
		sl_engine_config_default(&cfg);
	cfg.topo = o->topo;
	cfg.run_id = s->run_id;
	cfg.no_slices = o->windows_only;
	sink.ctx = s;
	if ((err = sl_engine_new(&cfg, &sink, &s->engine)))
		goto fail;
	s->wait_for_writer = o->wait_for_writer;
	/* a wakeup record comes at most the close lag (default 2 windows + horizon) and a
	 * window's sweep after its wakeup */
	lag = cfg.close_lag_ns + 3 * cfg.window_ns + cfg.lhp_horizon_ns;
	if (s->writer &&
	    !(s->cpu_counts = sl_cpu_counts_new(s->run_id, lag, push_cpu_count, s->writer))) {
		err = -ENOMEM;
		goto fail;
	}
	if (s->writer && !o->windows_only) {
		struct sl_sched_handler h;

		s->facts = sl_facts_new(s->writer, s->run_id);
		if (!s->facts) {
			err = -ENOMEM;
			goto fail;
		}
		h = sl_facts_handler(s->facts);
		if ((err = sl_engine_add_handler(s->engine, &h)) ||
		    (err = sl_facts_mark_run(s->store, s->run_id)))
			goto fail;
	}
	*ret_session = s;
	return 0;
fail:
	sl_engine_free(s->engine);
	sl_facts_free(s->facts);
	sl_cpu_counts_free(s->cpu_counts);
	if (s->writer)
		sl_writer_stop(s->writer);
	sl_store_close(s->store);
	free(s);
	return err;
}

void sl_session_feed(struct sl_session *s, const struct sl_event *ev, size_t n)
{
	sl_engine_feed(s->engine, ev, n);
	/* an import can wait for the writer; rows dropped from a full queue would be lost */
	s->fed += n;
	if (s->wait_for_writer && s->writer && s->fed >= 8192) {
		struct sl_writer_stats ws;

		s->fed = 0;
		sl_writer_get_stats(s->writer, &ws);
		if (ws.queue_len > 16384)
			sl_writer_flush(s->writer);
	}
}

void sl_session_set_tgid(struct sl_session *s, int32_t pid, int32_t tgid)
{
	sl_engine_set_tgid(s->engine, pid, tgid);
}

int sl_session_add_handler(struct sl_session *s, const struct sl_sched_handler *h)
{
	return sl_engine_add_handler(s->engine, h);
}

int64_t sl_session_run_id(const struct sl_session *s)
{
	return s->run_id;
}

void sl_session_get_stats(const struct sl_session *s, struct sl_session_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	sl_engine_get_stats(s->engine, &ret->engine);
	if (s->writer) {
		sl_writer_get_stats(s->writer, &ret->writer);
		for (int t = 0; t < SL_ROW_TYPES; t++)
			ret->dropped_rows += ret->writer.dropped[t];
	}
}

int sl_session_update_totals(struct sl_session *s, const struct sl_run_totals *totals)
{
	return s->store ? sl_store_run_end(s->store, s->run_id, totals) : 0;
}

void sl_session_idle(struct sl_session *s)
{
	if (s && s->writer)
		sl_writer_idle(s->writer);
}

int sl_session_flush(struct sl_session *s)
{
	return s->writer ? sl_writer_flush(s->writer) : 0;
}

struct sl_store *sl_session_store(struct sl_session *s)
{
	return s->store;
}

static int cmp_total(const void *a, const void *b)
{
	const struct sl_group_total *x = a, *y = b;
	double ax = x->sums[SL_WC_WAKEUPS] + x->sums[SL_WC_SWITCHES];
	double ay = y->sums[SL_WC_WAKEUPS] + y->sums[SL_WC_SWITCHES];

	return ax != ay ? (ax > ay ? -1 : 1) : strcmp(x->grp, y->grp);
}

int sl_session_close(struct sl_session *s, const struct sl_run_totals *totals,
		     struct sl_session_result *ret)
{
	return sl_session_close_keep_store(s, totals, ret, NULL);
}

int sl_session_close_keep_store(struct sl_session *s, const struct sl_run_totals *totals,
				struct sl_session_result *ret, struct sl_store **ret_store)
{
	int err = 0, e2;

	memset(ret, 0, sizeof(*ret));
	sl_engine_finish(s->engine, totals->end_ns);
	sl_engine_get_stats(s->engine, &ret->engine);
	ret->run_id = s->run_id;
	if (s->cpu_counts)
		sl_cpu_counts_finish(s->cpu_counts, totals->end_ns);
	if (s->writer) {
		err = sl_writer_flush(s->writer);
		sl_writer_get_stats(s->writer, &ret->writer);
		e2 = sl_writer_stop(s->writer);
		if (!err)
			err = e2;
	}
	if (s->store) {
		e2 = sl_store_run_end(s->store, s->run_id, totals);
		if (!err)
			err = e2;
		/* the run has all its windows now: whole-run questions read their bins */
		e2 = err ? 0 : sl_store_run_bins(s->store, s->run_id);
		if (!err)
			err = e2;
	}
	if (ret_store)
		*ret_store = s->store;
	else
		sl_store_close(s->store);
	sl_engine_free(s->engine);
	sl_facts_free(s->facts);
	sl_cpu_counts_free(s->cpu_counts);
	/* "*" first, then the busiest groups */
	for (int i = 0; i < s->nr_groups; i++) {
		if (!strcmp(s->groups[i].grp, SL_GROUP_ALL) && i) {
			struct sl_group_total tmp = s->groups[0];

			s->groups[0] = s->groups[i];
			s->groups[i] = tmp;
		}
	}
	if (s->nr_groups > 2)
		qsort(&s->groups[1], s->nr_groups - 1, sizeof(s->groups[0]), cmp_total);
	ret->groups = malloc(sizeof(*ret->groups) * (s->nr_groups ? s->nr_groups : 1));
	if (ret->groups) {
		memcpy(ret->groups, s->groups, sizeof(*ret->groups) * s->nr_groups);
		ret->nr_groups = s->nr_groups;
	}
	free(s);
	return err;
}

void sl_session_result_free(struct sl_session_result *r)
{
	free(r->groups);
	r->groups = NULL;
	r->nr_groups = 0;
}
