// SPDX-License-Identifier: GPL-2.0-only
/*
 * Feeds a synthesizer run through a session into a database (see synth-db.h).
 */
#include <stdio.h>
#include <string.h>

#include "session.h"
#include "synth-db.h"

#define BATCH 4096

struct feed {
	struct sl_session *s;
	struct sl_event ev[BATCH];
	size_t n;
	uint64_t last_ns;
};

static int emit(void *ctx, const struct sl_event *ev)
{
	struct feed *f = ctx;

	f->ev[f->n++] = *ev;
	f->last_ns = ev->ts_ns;
	if (f->n == BATCH) {
		sl_session_feed(f->s, f->ev, f->n);
		f->n = 0;
	}
	return 0;
}

int synth_to_db(const struct synth_config *cfg, const struct synth_db_opts *o, int64_t *ret_run_id,
		struct synth_truth *ret_truth)
{
	static struct feed f; /* big: keep it off the stack; tests are single-threaded */
	struct sl_session_opts so = { 0 };
	struct sl_session_result res;
	struct synth_truth truth = { 0 };
	struct sl_run_totals tot = { 0 };
	char kernel[64];
	int err, e2;

	snprintf(kernel, sizeof(kernel), "synth-%s", synth_policy_name(cfg->policy));
	so.db_path = o->db_path;
	so.topo = cfg->topo;
	so.hostname = o->hostname ? o->hostname : "synth";
	so.machine_id = "synth";
	so.windows_only = o->windows_only;
	so.wait_for_writer = true; /* a simulation outruns the writer: wait, drop nothing */
	so.meta.kernel_release = o->kernel_release ? o->kernel_release : kernel;
	so.meta.workload = o->workload ? o->workload : "synth-pgbench";
	so.meta.source = "synth";
	so.meta.params = o->params;
	so.meta.preempt_mode = o->preempt_mode;
	so.meta.trace_clock = "mono";
	so.meta.nr_cpus = cfg->topo->nr_online;
	so.meta.start_ns = cfg->start_ns;
	sl_engine_config_default(&so.engine);
	if (o->window_ns)
		so.engine.window_ns = o->window_ns;
	f.n = 0;
	f.last_ns = cfg->start_ns;
	if ((err = sl_session_open(&so, &f.s)))
		return err;
	err = synth_run(cfg, emit, &f, &truth);
	if (f.n)
		sl_session_feed(f.s, f.ev, f.n);
	tot.end_ns = cfg->start_ns + cfg->duration_ns;
	tot.events = truth.events;
	e2 = sl_session_close(f.s, &tot, &res);
	if (!err)
		err = e2;
	if (!err && ret_run_id)
		*ret_run_id = res.run_id;
	sl_session_result_free(&res);
	if (!err && ret_truth)
		*ret_truth = truth;
	else
		synth_truth_free(&truth);
	return err;
}
